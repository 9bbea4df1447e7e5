# Copyright 2026 The dynamics_ros Authors
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""
The feasibility check, and retiming's refusals, kept timings and models.

Efforts are judged by Pinocchio (the URDF with the payload welded on; its
reduced model for mimic joints), trajectories played with scipy's
BPoly.from_derivatives (the controller's quintic Hermite segments), not
with the package's own sampler.
"""

import sys

import dynamics_ros as dr
from dynamics_ros.control.feasibility import (check, InfeasiblePath,
                                              Limits, limits_in_use,
                                              MAX_SAMPLES, sample_times,
                                              TooManySamples)
from dynamics_ros.control.retime import (annotate_or_retime, load_toppra,
                                         retime)
from dynamics_ros.control.trajectory import sample, sample_many, Trajectory
import numpy as np
import oracle
import pytest
from scipy.interpolate import BPoly
import yaml

PANDA_XML = oracle.example_arm_xml('panda')
PANDA = dr.load_urdf(PANDA_XML)
ACCELERATION = 3.0 * np.array([15, 7.5, 10, 12.5, 15, 20, 20.0])
HOME = np.array([0.0, -0.3, 0.0, -2.0, 0.0, 1.8, 0.8])


def played(times, positions, velocities, accelerations, rate=1000.0):
    """(t, q, qd, qdd) of quintic Hermite segments at ``rate`` Hz."""
    t = np.union1d(np.arange(0.0, times[-1], 1.0 / rate), [times[-1]])
    columns = [BPoly.from_derivatives(times, np.stack(
        [positions[:, j], velocities[:, j], accelerations[:, j]], axis=1))
        for j in range(positions.shape[1])]
    return (t,) + tuple(np.stack([c(t, nu) for c in columns], axis=1)
                        for nu in range(3))


def rnea_along(reference, q, qd, qdd):
    """Pinocchio's rnea at every sample."""
    return np.array([reference.rnea(*state) for state in zip(q, qd, qdd)])


def welded(xml, parent, mass, com):
    """URDF text with a point-like payload link welded to ``parent``."""
    return xml.replace('</robot>', (
        '<joint name="payload_joint" type="fixed"><parent link="%s"/>'
        '<child link="payload"/></joint><link name="payload"><inertial>'
        '<origin xyz="%r %r %r"/><mass value="%r"/><inertia ixx="0.001" '
        'ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>'
        '</link></robot>') % (parent, *com, mass))


# -- sampling ---------------------------------------------------------------

@pytest.mark.parametrize('velocity,acceleration', [
    (True, True), (True, False), (False, False)])
def test_sample_many_equals_sample(velocity, acceleration):
    rng = np.random.default_rng(4)
    k, n = 6, 3
    trajectory = Trajectory(
        times=np.cumsum(rng.uniform(0.1, 0.8, k)),
        positions=rng.normal(size=(k, n)), velocities=rng.normal(size=(k, n)),
        accelerations=rng.normal(size=(k, n)),
        has_velocity=np.full(k, velocity),
        has_acceleration=np.full(k, acceleration), start_time=7.0)
    trajectory.has_acceleration[3] = False    # mixed degrees
    times = np.linspace(6.9, 7.1 + trajectory.times[-1], 501)
    many = sample_many(trajectory, times)
    for i, t in enumerate(times):
        one = sample(trajectory, t)
        for a, b in zip(many, one):
            assert np.allclose(a[i], b, rtol=1e-11, atol=1e-11)


# -- the check --------------------------------------------------------------

def test_check_finds_the_first_violation_pinocchio_finds():
    # A quick swing of joints 2 and 4 with quintic segments: the effort
    # limit is exceeded between waypoints, not at them.
    times = np.array([0.0, 0.35, 0.7])
    positions = np.array([HOME, HOME + [0, 0.6, 0, 0.6, 0, 0, 0], HOME])
    velocities = np.zeros_like(positions)
    velocities[1] = [0, 0.5, 0, 0.5, 0, 0, 0]
    accelerations = np.zeros_like(positions)
    limits = limits_in_use(PANDA, velocity_limits=100.0,
                           acceleration_limits=1e3)
    report = check(PANDA, times, positions, velocities, accelerations,
                   limits=limits)
    reference = oracle.PinocchioOracle(PANDA, PANDA_XML)
    t, q, qd, qdd = played(times, positions, velocities, accelerations)
    ratio = np.abs(rnea_along(reference, q, qd, qdd)) / limits.effort
    over = ratio > 1.0
    i = int(np.flatnonzero(over.any(axis=1))[0])
    j = int(np.flatnonzero(over[i])[0])
    assert not report.feasible
    assert report.first.kind == 'effort'
    assert report.first.joint == PANDA.joint_names[j]
    assert report.first.time == pytest.approx(t[i], abs=1e-9)
    assert report.first.margin == pytest.approx(1.0 - ratio[i, j], rel=1e-9)
    assert report.first.time not in times     # between the waypoints
    assert np.allclose(report.peak['effort'], ratio.max(axis=0), rtol=1e-9)
    assert report.worst.margin == pytest.approx(1.0 - ratio.max(), rel=1e-9)
    assert 'panda_joint' in report.text() and '% over' in report.text()
    summary = report.as_dict()
    assert summary['first_violation']['joint'] == PANDA.joint_names[j]
    # Slower, the same path is feasible.
    slow = check(PANDA, 4.0 * times, positions, velocities / 4.0,
                 accelerations, limits=limits)
    assert slow.feasible and slow.first is None


def test_limits_in_use_follow_the_node_parameters():
    limits = limits_in_use(PANDA)
    assert np.array_equal(limits.effort, PANDA.effort_limit)
    assert np.array_equal(limits.velocity, PANDA.velocity_limit)
    assert np.all(np.isinf(limits.acceleration))
    override = limits_in_use(PANDA, [10.0] * 7, 0.5, velocity_limits=1.0,
                             acceleration_limits=[2.0] * 7)
    assert np.array_equal(override.effort, np.full(7, 5.0))
    assert np.array_equal(override.velocity, np.ones(7))
    assert np.array_equal(override.scaled(0.9).acceleration,
                          np.full(7, 1.8))
    with pytest.raises(ValueError, match='effort_limits has 3 values'):
        limits_in_use(PANDA, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match='acceleration_limits must be > 0'):
        limits_in_use(PANDA, acceleration_limits=[-1.0] * 7)
    with pytest.raises(ValueError, match='margin'):
        limits.scaled(1.5)


# -- retiming: what it keeps and what it refuses ----------------------------

def test_feasible_slow_trajectory_keeps_its_timing():
    rng = np.random.default_rng(11)
    positions = HOME + 0.2 * rng.uniform(-1.0, 1.0, (5, 7))
    times = np.arange(5) * 3.0
    zero = np.zeros_like(positions)
    limits = limits_in_use(PANDA, acceleration_limits=ACCELERATION)
    result = retime(PANDA, positions, limits, times=times, velocities=zero,
                    accelerations=zero, margin=0.9)
    assert not result.retimed
    assert np.array_equal(result.times, times)
    assert np.array_equal(result.positions, positions)
    assert np.array_equal(result.velocities, zero)
    assert result.report.feasible and result.input_report is result.report
    reference = oracle.PinocchioOracle(PANDA, PANDA_XML)
    expected = rnea_along(reference, positions, zero, zero)
    assert np.max(np.abs(result.efforts - expected)) <= 1e-9 * np.max(
        np.abs(expected))
    # The same waypoints in 0.15 s segments are not kept: retimed.
    fast = retime(PANDA, positions, limits, times=times / 20.0,
                  velocities=zero, accelerations=zero, margin=0.9)
    assert fast.retimed and not fast.input_report.feasible
    assert fast.report.feasible


def test_gravity_infeasible_pose_is_refused_naming_the_joint():
    # 8 kg at the hand: stretched out horizontally, holding still needs
    # more than joint 2's 87 N m (Pinocchio, payload welded in the URDF);
    # upright, nothing is over.
    mass, com = 8.0, [0.0, 0.0, 0.05]
    heavy = dr.add_payload(PANDA, mass, com, [0.0] * 6, link='panda_hand')
    reference = oracle.PinocchioOracle(PANDA, welded(
        PANDA_XML, 'panda_hand', mass, com))
    upright = np.array([0.0, 0.0, 0.0, -0.2, 0.0, 0.2, 0.8])
    stretched = np.array([0.0, 1.5, 0.0, -0.1, 0.0, 1.6, 0.8])
    assert np.all(np.abs(reference.gravity(upright)) < PANDA.effort_limit)
    gravity = reference.gravity(stretched)
    over = np.flatnonzero(np.abs(gravity) > PANDA.effort_limit)
    assert list(over) == [1]
    positions = np.array([upright, stretched, upright])
    with pytest.raises(InfeasiblePath) as raised:
        retime(heavy, positions, limits_in_use(heavy))
    message = str(raised.value)
    assert 'panda_joint2' in message and 'pose 1' in message
    assert '%.4f' % stretched[1] in message
    assert '%.6g' % abs(gravity[1]) in message.replace('-', '')
    # Without the payload the same path is retimed.
    assert retime(PANDA, positions, limits_in_use(PANDA)).report.feasible


def test_payload_is_part_of_the_retiming():
    mass, com = 3.0, [0.0, 0.0, 0.08]
    # The plant's payload: its 0.001 kg m^2 moments too (``welded``);
    # without them the model is 0.03 % off the plant's efforts, more than
    # the 1e-6 the limits are held to.
    heavy = dr.add_payload(PANDA, mass, com, np.diag([0.001] * 3),
                           link='panda_hand')
    reference = oracle.PinocchioOracle(PANDA, welded(
        PANDA_XML, 'panda_hand', mass, com))
    rng = np.random.default_rng(13)
    positions = HOME + 0.3 * rng.uniform(-1.0, 1.0, (5, 7))
    limits = limits_in_use(PANDA, acceleration_limits=ACCELERATION)
    bare = retime(PANDA, positions, limits)
    result = retime(heavy, positions, limits)
    t, q, qd, qdd = played(result.times, result.positions,
                           result.velocities, result.accelerations)
    use = np.abs(rnea_along(reference, q, qd, qdd)) / limits.effort
    assert use.max() <= 1.0 + 1e-6 and use.max() > 0.98
    # The bare arm's timing is too quick with the payload.
    t, q, qd, qdd = played(bare.times, bare.positions, bare.velocities,
                           bare.accelerations)
    assert (np.abs(rnea_along(reference, q, qd, qdd))
            / limits.effort).max() > 1.0 + 1e-3
    assert result.duration > bare.duration


def test_mimic_model_is_retimed_in_its_independent_coordinates():
    # The whole Panda: panda_finger_joint2 mimics panda_finger_joint1.
    with open(oracle.robots_directory() + '/panda_description/urdf/'
              'panda.urdf', encoding='utf-8') as stream:
        xml = stream.read()
    model = dr.load_urdf(xml)
    assert isinstance(model, dr.MimicModel) and model.nq == 8
    reference = oracle.PinocchioOracle(model, xml, mimic=True)
    finger = np.array([[0.01], [0.035], [0.02], [0.03], [0.0]])
    rng = np.random.default_rng(17)
    positions = np.hstack([HOME + 0.2 * rng.uniform(-1.0, 1.0, (5, 7)),
                           finger])
    limits = limits_in_use(model, acceleration_limits=np.append(
        ACCELERATION, 5.0))
    result = retime(model, positions, limits)
    t, q, qd, qdd = played(result.times, result.positions,
                           result.velocities, result.accelerations)
    for values, limit in ((rnea_along(reference, q, qd, qdd), limits.effort),
                          (qd, limits.velocity),
                          (qdd, limits.acceleration)):
        assert np.max(np.abs(values) / limit) <= 1.0 + 1e-6
    assert np.max(np.abs(qd[:, 7]) / limits.velocity[7]) > 0.5


def test_bad_input_is_refused_clearly():
    limits = limits_in_use(PANDA)
    with pytest.raises(ValueError, match='2 columns for 7 joints'):
        retime(PANDA, np.zeros((3, 2)), limits)
    with pytest.raises(ValueError, match='two distinct waypoints'):
        retime(PANDA, np.array([HOME, HOME]), limits)
    with pytest.raises(ValueError, match='strictly increasing'):
        check(PANDA, [0.0, 0.0], np.array([HOME, HOME]))
    with pytest.raises(ValueError, match='finite'):
        retime(PANDA, np.array([HOME, HOME + np.nan]), limits)
    unlimited = Limits(PANDA.effort_limit, np.full(7, np.inf),
                       np.full(7, np.inf))
    with pytest.raises(ValueError, match='velocity or acceleration limits'):
        retime(PANDA, np.array([HOME, HOME + 0.1]), unlimited)


def test_without_toppra_retiming_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, 'toppra', None)
    # The range requirements.txt pins (toppra>=0.6.9,<0.7).
    with pytest.raises(ImportError,
                       match=r'pip install "toppra>=0\.6\.9,<0\.7"'):
        load_toppra()
    # The check needs no toppra.
    assert check(PANDA, [0.0, 5.0], np.array([HOME, HOME + 0.1])).feasible


def test_node_outcome_of_each_mode():
    # What inverse_dynamics_node publishes: annotate keeps the timing and
    # reports; retime replaces a timing that exceeds the limits; a pose
    # gravity overloads is refused with nothing to publish.
    rng = np.random.default_rng(19)
    positions = HOME + 0.2 * rng.uniform(-1.0, 1.0, (4, 7))
    zero = np.zeros_like(positions)
    quick = Trajectory(times=np.arange(4) * 0.12, positions=positions,
                       velocities=zero, accelerations=zero,
                       has_velocity=np.ones(4, bool),
                       has_acceleration=np.ones(4, bool))
    limits = limits_in_use(PANDA, acceleration_limits=ACCELERATION)
    annotated = annotate_or_retime(PANDA, quick, limits, 'annotate')
    assert annotated.result is not None and not annotated.feasible
    assert np.array_equal(annotated.result.times, quick.times)
    retimed = annotate_or_retime(PANDA, quick, limits, 'retime', margin=0.9)
    assert retimed.feasible and retimed.result.retimed
    assert retimed.result.duration > quick.times[-1]
    summary = yaml.safe_load(yaml.safe_dump(retimed.summary()))
    assert summary['published'] and summary['retimed']
    assert summary['feasible'] and summary['output_duration'] > 0.36
    heavy = dr.add_payload(PANDA, 8.0, [0.0, 0.0, 0.05], [0.0] * 6,
                           link='panda_hand')
    stretched = Trajectory(
        times=np.array([0.0, 2.0]), positions=np.array([
            [0.0, 0.0, 0.0, -0.2, 0.0, 0.2, 0.8],
            [0.0, 1.5, 0.0, -0.1, 0.0, 1.6, 0.8]]),
        velocities=np.zeros((2, 7)), accelerations=np.zeros((2, 7)),
        has_velocity=np.zeros(2, bool), has_acceleration=np.zeros(2, bool))
    refused = annotate_or_retime(heavy, stretched, limits_in_use(heavy),
                                 'retime')
    assert refused.result is None and 'panda_joint2' in refused.refusal
    summary = yaml.safe_load(yaml.safe_dump(refused.summary()))
    assert not summary['published'] and not summary['feasible']
    with pytest.raises(ValueError, match='annotate, retime'):
        annotate_or_retime(PANDA, quick, limits, 'fast')


@pytest.mark.parametrize('mode', ['annotate', 'retime'])
def test_an_absurd_duration_is_refused_before_allocating(mode):
    # time_from_start of 2147483647 s: 2.1e12 samples at 1 kHz (15.6 TiB)
    # were allocated; the bound refuses it first, and it is reported.
    far = Trajectory(times=np.array([0.0, 2147483647.0]),
                     positions=np.stack([HOME, HOME + 0.1]),
                     velocities=np.zeros((2, 7)),
                     accelerations=np.zeros((2, 7)),
                     has_velocity=np.zeros(2, bool),
                     has_acceleration=np.zeros(2, bool))
    outcome = annotate_or_retime(PANDA, far, limits_in_use(
        PANDA, acceleration_limits=ACCELERATION), mode)
    assert outcome.result is None
    assert 'over the bound of %d (MAX_SAMPLES' % MAX_SAMPLES in \
        outcome.refusal
    assert '2.14748e+09 s' in outcome.refusal
    summary = yaml.safe_load(yaml.safe_dump(outcome.summary()))
    assert summary['published'] is False and summary['feasible'] is False
    assert summary['input_duration'] == 2147483647.0


def test_the_sample_bound_is_exact():
    # Just within: MAX_SAMPLES samples are taken; one more is refused.
    span = (MAX_SAMPLES - 2) / 1000.0
    within = Trajectory(times=np.array([0.0, span]),
                        positions=np.stack([HOME, HOME]),
                        velocities=np.zeros((2, 7)),
                        accelerations=np.zeros((2, 7)),
                        has_velocity=np.zeros(2, bool),
                        has_acceleration=np.zeros(2, bool))
    assert len(sample_times(within, 1000.0)) <= MAX_SAMPLES
    within.times[-1] = span + 0.002
    with pytest.raises(TooManySamples, match='over the bound'):
        sample_times(within, 1000.0)
    within.times[-1] = np.nan
    with pytest.raises(TooManySamples):
        sample_times(within, 1000.0)
