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
Identification pieces, each held to what a wrong version would not give.

Base parameters reproduce the full regressor exactly; the log-Cholesky
map gives physical bodies for every input (checked by the triangle
inequalities, not by the pseudo-inertia it is built on) and inverts; fits
recover a known model from exact data; excitations keep their limits;
bags (sqlite3 and MCAP, written with rosbags) and CSV read back what was
written; bad recordings raise IdentificationError naming the fault; the
URDF write-back changes the inertials and nothing else.
"""

import re

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.dynamics.friction import friction_regressor, \
    friction_torque, JointFriction, read_friction, write_friction
from dynamics_ros.dynamics.regressor import inertial_parameters
from dynamics_ros.errors import IdentificationError
from dynamics_ros.identification.base_parameters import \
    identification_regressor, model_base_parameters, random_states
from dynamics_ros.identification.excitation import condition_number, \
    DEFAULT_HARMONICS, DEFAULT_PERIOD, limits, optimize_excitation, \
    trajectory_of, trajectory_plan
from dynamics_ros.identification.fit import consistent_fit, \
    log_cholesky_to_parameters, ordinary_fit, parameters_to_log_cholesky
from dynamics_ros.identification.output import write_urdf
from dynamics_ros.identification.pipeline import identify
from dynamics_ros.identification.recording import read_bag, read_csv, \
    read_recording, write_bag, write_csv
from identification_data import moving_recording
import numpy as np
from oracle import example_arm_xml
import pytest


@pytest.fixture(scope='module')
def panda():
    """Panda cut at the hand (its fixed hand welded to link 7)."""
    return dr.load_urdf(example_arm_xml('panda'))


@pytest.fixture(scope='module')
def panda_base(panda):
    """Return the base parameters of the Panda with friction columns."""
    return model_base_parameters(panda)


def test_base_regressor_reproduces_the_full_one(panda, panda_base):
    """W_b beta = W pi for any pi, at states the QR never saw (1e-10)."""
    rng = np.random.default_rng(4)
    states = random_states(panda, 30, rng)
    W, names = identification_regressor(panda, *states)
    assert names == panda_base.names
    for _ in range(3):
        pi = rng.normal(size=len(names))
        assert_close(panda_base.regressor(W) @ panda_base.values(pi), W @ pi,
                     1e-10, 'W_b beta')
    # Fewer base parameters than columns, and not by accident: a body's
    # mass along the first joint's axis moves nothing.
    assert panda_base.rank < len(names)
    assert 'panda_link1.m' in panda_base.unidentifiable()
    assert 'panda_link1.Izz + panda_link2.Iyy' in panda_base.combinations
    # 21 friction columns, each its own base parameter.
    assert sum(name.endswith(('.viscous', '.coulomb', '.offset'))
               for name in panda_base.combinations) == 21


def test_friction_columns_are_the_friction_model():
    """Y_f phi = friction_torque for one state and a batch."""
    rng = np.random.default_rng(2)
    qd = rng.normal(size=(5, 3))
    viscous, coulomb, offset = rng.uniform(0, 1, (3, 3))
    phi = np.column_stack((viscous, coulomb, offset)).ravel()
    assert_close(friction_regressor(qd) @ phi,
                 friction_torque(qd, viscous, coulomb, offset), 1e-14,
                 'friction')
    assert_close(friction_torque(np.array([1.0, -1.0]), 0.0, 2.0),
                 [2.0 * np.tanh(100.0), -2.0 * np.tanh(100.0)], 1e-14,
                 'Coulomb')


def principal_moments(parameters):
    """Central principal moments of ten parameters, sorted."""
    m, h = parameters[0], parameters[1:4]
    xx, xy, yy, xz, yz, zz = parameters[4:]
    origin = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    c = h / m
    central = origin - m * (np.dot(c, c) * np.eye(3) - np.outer(c, c))
    return np.linalg.eigvalsh(central)


def test_log_cholesky_gives_physical_bodies_and_inverts():
    """Any theta: m > 0 and the triangle inequalities; theta -> pi -> theta."""
    rng = np.random.default_rng(0)
    for _ in range(200):
        # Bodies up to e^6 : 1 in size ratios (far flatter and the inverse
        # lifts J's smallest eigenvalue, on purpose).
        theta = rng.normal(scale=1.0, size=10)
        pi = log_cholesky_to_parameters(theta)
        assert pi[0] > 0.0
        a, b, c = principal_moments(pi)
        scale = c
        assert a > -1e-12 * scale and a + b >= c - 1e-12 * scale
        # theta -> J -> Cholesky -> theta loses J's condition number
        # (up to 1e5 here) times round-off: 1e-8, not 1e-9.
        assert_close(parameters_to_log_cholesky(pi), theta, 1e-8, 'theta')


def test_fits_recover_a_model_from_exact_data(panda, panda_base):
    """Exact torques of a perturbed arm: both fits find its base values."""
    rng = np.random.default_rng(7)
    true = panda.copy(mass=panda.mass * rng.uniform(0.8, 1.2, panda.nq),
                      com=panda.com * 1.1)
    q, qd, qdd = random_states(panda, 150, rng)
    friction = np.column_stack((rng.uniform(0.1, 0.3, 7),
                                rng.uniform(0.2, 0.5, 7), np.zeros(7)))
    tau = dr.inverse_dynamics(true, q, qd, qdd) + friction_torque(
        qd, *friction.T)
    W, names = identification_regressor(panda, q, qd, qdd)
    truth = panda_base.values(np.concatenate((inertial_parameters(true),
                                              friction.ravel())))
    ordinary = ordinary_fit(panda_base.regressor(W), tau.ravel(), 7)
    assert_close(ordinary.base, truth, 1e-8, 'least squares')
    prior = np.concatenate((inertial_parameters(panda), np.zeros(21)))
    parameters, info = consistent_fit(
        W, tau.ravel(), 7, prior, prior_weight=1e-6,
        friction_columns=[k for k, n in enumerate(names)
                          if n.endswith(('.viscous', '.coulomb'))])
    assert_close(panda_base.values(parameters), truth, 1e-5,
                 'consistent fit (%s)' % info['message'])


def test_excitation_respects_limits_and_starts_at_rest(panda):
    """Positions, velocities, accelerations within limits; rest at t = 0."""
    trajectory, condition = optimize_excitation(panda, iterations=3,
                                                restarts=1, samples=60)
    lower, upper, velocity, acceleration = limits(panda)
    t = np.linspace(0.0, trajectory.period, 20001)
    q, qd, qdd = trajectory.evaluate(t)
    assert np.all(q >= lower - 1e-9) and np.all(q <= upper + 1e-9)
    assert np.all(np.abs(qd) <= velocity + 1e-9)
    assert np.all(np.abs(qdd) <= acceleration + 1e-9)
    assert_close(qd[0], np.zeros(7), 1e-12, 'qd(0)', scale=1.0)
    assert_close(qdd[0], np.zeros(7), 1e-12, 'qdd(0)', scale=1.0)
    # Velocity is the derivative of position (central differences).
    step = t[1] - t[0]
    assert_close((q[2:] - q[:-2]) / (2 * step), qd[1:-1], 1e-6, 'dq/dt')
    # The condition returned is the trajectory's own (recomputed), and the
    # optimizer lowered it from its random start (same seed: 131.6 there,
    # 102.9 after three steps on Panda).
    base = model_base_parameters(panda, friction=True)
    assert condition == condition_number(panda, trajectory, base, 60)
    start = np.random.default_rng(0).normal(
        size=2 * panda.nq * (DEFAULT_HARMONICS - 1))
    assert condition < 0.9 * condition_number(panda, trajectory_of(
        start, panda.nq, DEFAULT_HARMONICS, DEFAULT_PERIOD, limits(panda)),
        base, 60)
    plan = trajectory_plan(panda, trajectory, periods=1, rate=50.0)
    assert plan.joint_names == panda.joint_names
    assert plan.positions.shape == (501, 7) and plan.times[0] == 2.0


@pytest.mark.parametrize('storage', ['sqlite3', 'mcap'])
def test_bag_round_trip(panda, tmp_path, storage):
    """A JointState bag written with rosbags reads back sample for sample."""
    recording = moving_recording(panda, seconds=1.0)
    path = str(tmp_path / ('bag_' + storage))
    write_bag(recording, path, storage=storage)
    back = read_recording(path, panda.joint_names)
    assert back.joint_names == panda.joint_names
    assert_close(back.times, recording.times, 1e-9, 'times')
    assert_close(back.positions, recording.positions, 1e-15, 'positions')
    assert_close(back.efforts, recording.efforts, 1e-15, 'efforts')
    # Joints chosen by name, in the caller's order.
    reversed_names = panda.joint_names[::-1]
    assert_close(read_bag(path, reversed_names).positions,
                 recording.positions[:, ::-1], 1e-15, 'by name')


def test_csv_round_trip(panda, tmp_path):
    """CSV with time, <joint>.position, <joint>.effort columns."""
    recording = moving_recording(panda, seconds=0.5)
    path = str(tmp_path / 'data.csv')
    write_csv(recording, path)
    back = read_csv(path)
    assert_close(back.positions, recording.positions, 1e-15, 'positions')
    assert_close(back.efforts, recording.efforts, 1e-15, 'efforts')


def test_bag_without_effort_is_refused(panda, tmp_path):
    """Refuse JointState messages without effort, saying so."""
    recording = moving_recording(panda, seconds=1.0)
    recording.efforts = None
    path = str(tmp_path / 'no_effort')
    write_bag(recording, path, storage='mcap')
    with pytest.raises(IdentificationError,
                       match='carry no effort for joints panda_joint1'):
        read_bag(path, panda.joint_names)


def test_missing_joints_and_topic_are_named(panda, tmp_path):
    """A joint absent from every message, or a wrong topic, is named."""
    recording = moving_recording(panda, seconds=1.0).select(
        panda.joint_names[:6])
    path = str(tmp_path / 'six')
    write_bag(recording, path)
    with pytest.raises(IdentificationError,
                       match='joints panda_joint7 never appear'):
        read_bag(path, panda.joint_names)
    with pytest.raises(IdentificationError, match="no topic '/states'"):
        read_bag(path, topic='states')
    (tmp_path / 'notes.txt').write_text('not a bag', encoding='utf-8')
    with pytest.raises(IdentificationError,
                       match="bag 'notes.txt' cannot be read as a ROS 2 bag"):
        read_recording(str(tmp_path / 'notes.txt'))


def test_too_short_recording_is_refused(panda):
    """A second of data is not an excitation period."""
    with pytest.raises(IdentificationError, match='too short'):
        identify(panda, moving_recording(panda, seconds=1.0))


def test_joint_that_never_moves_is_named(panda):
    """A joint held still: named, with its range."""
    with pytest.raises(IdentificationError,
                       match=r'joints never move: panda_joint4 \(range 0'):
        identify(panda, moving_recording(panda, frozen=3))


def test_too_little_excitation_names_the_parameters(panda):
    """Tiny motion: the condition number and unseen parameters are named."""
    recording = moving_recording(panda, amplitude=0.003)
    with pytest.raises(IdentificationError) as raised:
        identify(panda, recording, friction=False)
    message = str(raised.value)
    assert 'condition number' in message and 'cannot see' in message
    assert re.search(r'panda_link\d\.', message)


def test_urdf_write_back_changes_inertials_only(panda):
    """Only <inertial> text changes; the file reloads with the new values."""
    xml = example_arm_xml('panda')
    pi = inertial_parameters(panda).reshape(7, 10)
    # Each body's density scaled (physical), then its first moment moved.
    changed = pi * np.linspace(0.8, 1.3, 7)[:, None]
    changed[:, 1:4] *= 0.97
    text, notes = write_urdf(xml, panda, pi, changed)
    assert notes == []
    reloaded = dr.load_urdf(text)
    assert_close(inertial_parameters(reloaded), changed.ravel(), 1e-9,
                 'reloaded')
    outside = re.compile(r'<inertial\b.*?</inertial>', re.S)
    assert outside.sub('', text) == outside.sub('', xml)


def test_friction_yaml_round_trip_and_errors(tmp_path):
    """Write friction YAML and read it back; refuse negative friction."""
    friction = JointFriction(['a', 'b'], [0.1, 0.2], [0.3, 0.4], [0.0, 0.1],
                             smoothing=0.02)
    path = str(tmp_path / 'friction.yaml')
    write_friction(friction, path)
    back = read_friction(path)
    assert back.joint_names == ['a', 'b'] and back.smoothing == 0.02
    assert_close(back.torque([1.0, -0.5]), friction.torque([1.0, -0.5]),
                 1e-15, 'torque')
    with pytest.raises(ValueError, match='coulomb of joints b must not be '
                                         'negative'):
        JointFriction(['a', 'b'], [0, 0], [0.1, -1.0])
    assert_close(back.select(['b', 'c']).viscous, [0.2, 0.0], 0, 'select')


def test_command_line_identify_and_excite(panda, tmp_path, capsys):
    """``identify`` writes URDF, friction and report; ``excite`` a plan."""
    from dynamics_ros.__main__ import main
    import yaml
    from dynamics_ros.identification.excitation import TrajectoryPlan

    urdf = tmp_path / 'panda.urdf'
    urdf.write_text(example_arm_xml('panda'), encoding='utf-8')
    bag = str(tmp_path / 'arm')
    write_bag(moving_recording(panda, seconds=8.0), bag, storage='mcap')
    out = str(tmp_path / 'identified.urdf')
    assert main(['identify', bag, '--urdf', str(urdf), '--out', out]) == 0
    printed = capsys.readouterr().out
    assert 'held-out torque RMS' in printed and 'base parameters' in printed
    assert dr.load_urdf(out).joint_names == panda.joint_names
    assert read_friction(str(tmp_path / 'identified_friction.yaml'))
    assert (tmp_path / 'identified_report' / 'report.md').exists()
    # A bad recording: exit code 2 and the reason, no traceback.
    short = str(tmp_path / 'short')
    write_bag(moving_recording(panda, seconds=0.5), short)
    assert main(['identify', short, '--urdf', str(urdf), '--out', out]) == 2
    assert 'too short' in capsys.readouterr().err
    plan_path = str(tmp_path / 'excitation.yaml')
    assert main(['excite', str(urdf), '--out', plan_path, '--iterations',
                 '2', '--restarts', '1', '--periods', '1', '--rate',
                 '20']) == 0
    with open(plan_path, encoding='utf-8') as stream:
        plan = TrajectoryPlan.from_dict(yaml.safe_load(stream))
    assert plan.joint_names == panda.joint_names
    assert plan.positions.shape == (201, 7)
    assert np.all(plan.positions <= panda.upper_limit)
    # --payload: a short wrist motion from the given pose, at rest at both
    # ends, the wrist moving far more than the shoulder.
    start = 0.5 * (panda.lower_limit + panda.upper_limit) + 0.1
    payload_path = str(tmp_path / 'payload.yaml')
    assert main(['excite', str(urdf), '--payload', '--out', payload_path,
                 '--start', ','.join(repr(float(x)) for x in start),
                 '--duration', '4']) == 0
    with open(payload_path, encoding='utf-8') as stream:
        short = TrajectoryPlan.from_dict(yaml.safe_load(stream))
    assert np.allclose(short.positions[0], start)
    assert np.allclose(short.positions[-1], start)
    assert np.allclose(short.velocities[[0, -1]], 0.0)
    travel = np.ptp(short.positions, axis=0)
    assert travel[-1] > 5.0 * travel[0]
    assert np.all(short.positions <= panda.upper_limit)
    assert main(['excite', str(urdf), '--payload', '--out', payload_path,
                 '--start', '1,2']) == 2
    assert 'start' in capsys.readouterr().err


def test_simulator_applies_the_friction_model(panda):
    """Simulator friction = an effort of -friction_torque(qd), step for step."""
    friction = JointFriction(panda.joint_names, np.linspace(0.1, 0.7, 7),
                             np.linspace(0.5, 1.1, 7), np.full(7, 9.0),
                             smoothing=0.05)
    q0 = 0.5 * (panda.lower_limit + panda.upper_limit)
    qd0 = np.linspace(-1.0, 1.0, 7)
    rubbing = dr.Simulator(panda, dt=1e-3, q0=q0, qd0=qd0)
    rubbing.set_joint_friction(friction)
    pushed = dr.Simulator(panda, dt=1e-3, q0=q0, qd0=qd0)
    for _ in range(50):
        rubbing.step(np.ones(7))
        pushed.step(lambda t, q, qd: np.ones(7) - friction.torque(
            qd, offset=False))
    assert_close(rubbing.qd, pushed.qd, 1e-12, 'qd')
    free = dr.Simulator(panda, dt=1e-3, q0=q0, qd0=qd0)
    for _ in range(50):
        free.step(np.ones(7))
    # And it acted (the equality above is not two frictionless runs).
    assert np.linalg.norm(rubbing.qd - free.qd) > 1e-2


def test_slow_rows_are_left_out_within_a_cutoff_period():
    """min_speed drops a joint's rows near its slow samples, no others."""
    from dynamics_ros.identification.pipeline import sliding_rows
    from dynamics_ros.identification.recording import States

    t = np.arange(200) / 100.0
    # Joint a stops at 0.5 s and 1.5 s, joint b never.
    qd = np.column_stack((np.cos(np.pi * t), np.ones(200)))
    states = States(['a', 'b'], t, qd, qd, qd, qd, qd, 100.0, edge=60)
    keep = sliding_rows(states, 0.05)
    assert keep[:, 1].all()
    dropped = np.flatnonzero(~keep[:, 0])
    slow = np.flatnonzero(np.abs(qd[:, 0]) < 0.05)
    # Every slow sample, and 20 samples (edge / 3) either side of them.
    near = [k for k in range(200) if np.min(np.abs(slow - k)) <= 20]
    assert dropped.tolist() == near and len(near) == 2 * (3 + 40)
    assert sliding_rows(states, 0.0).all()
