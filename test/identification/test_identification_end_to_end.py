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
Identification end to end: a simulated Panda that differs from its URDF.

The arm in the ROS-free simulator has every link's mass, centre of mass
and inertia perturbed by up to +-30 % (scaled, so kept physical) and
viscous plus Coulomb joint friction; the nominal URDF knows none of it.
It is driven along an optimized Fourier excitation by a computed-torque
controller built on the nominal URDF, its positions and (noisy) efforts
are written to a ROS 2 bag with rosbags and identified from the bag.
Acceptance: held-out torque RMS within 1.2x the injected noise (the
nominal URDF's beside it), base parameters within 2 % of the true ones,
and the identified URDF gravity-compensates the perturbed arm better than
the nominal one.
"""

import os

import dynamics_ros as dr
from dynamics_ros.dynamics.friction import JointFriction, read_friction
from dynamics_ros.dynamics.regressor import inertial_parameters
from dynamics_ros.identification.base_parameters import \
    identification_regressor
from dynamics_ros.identification.excitation import optimize_excitation
from dynamics_ros.identification.output import write_outputs
from dynamics_ros.identification.pipeline import identify
from dynamics_ros.identification.recording import read_recording, \
    Recording, write_bag
import numpy as np
from oracle import example_arm_xml
import pytest

NOISE = 0.3          # N m, standard deviation of the effort noise
SMOOTHING = 0.05     # rad/s: Coulomb friction's tanh, plant and model
PERIODS = 2
DT = 1e-3


def perturbed_arm(nominal, rng):
    """Return the 'real' arm (inertias +-30 %) and its joint friction."""
    n = nominal.nq
    true = nominal.copy(
        mass=nominal.mass * rng.uniform(0.7, 1.3, n),
        com=nominal.com * rng.uniform(0.7, 1.3, (n, 3)),
        # A positive multiple of a physical inertia is physical.
        inertia_com=nominal.inertia_com * rng.uniform(0.7, 1.3, (n, 1, 1)))
    friction = JointFriction(nominal.joint_names, rng.uniform(0.1, 0.5, n),
                             rng.uniform(0.2, 1.0, n), smoothing=SMOOTHING)
    return true, friction


def drive(nominal, true, friction, trajectory, rng):
    """
    Run the arm along ``trajectory``; return the recording (noisy effort).

    The controller (1 kHz, effort held over each step) is computed torque
    on the nominal model; the simulator applies the joint friction
    (``Simulator.set_joint_friction``: the model the identification fits
    and inverse_dynamics_node feeds forward) inside its dynamics.
    The effort recorded with the state at t_k is the mean of the efforts
    held before and after t_k (the torque at t_k of a step input).
    """
    q0, qd0, _ = trajectory.evaluate([0.0])
    simulator = dr.Simulator(true, dt=DT, q0=q0[0], qd0=qd0[0])
    simulator.set_joint_friction(friction)
    steps = int(round(PERIODS * trajectory.period / DT))
    Q, QD, QDD = trajectory.evaluate(np.arange(steps) * DT)
    times, positions, efforts = [], [], []
    kp, kd = 900.0, 60.0
    for k in range(steps):
        q, qd = simulator.q, simulator.qd
        effort = dr.inverse_dynamics(
            nominal, q, qd, QDD[k] + kp * (Q[k] - q) + kd * (QD[k] - qd))
        times.append(simulator.t)
        positions.append(q.copy())
        efforts.append(effort)
        simulator.step(effort)
    efforts = np.array(efforts)
    efforts[1:] = 0.5 * (efforts[1:] + efforts[:-1])
    efforts += rng.normal(0.0, NOISE, efforts.shape)
    return Recording(nominal.joint_names, np.array(times),
                     np.array(positions), efforts, source='simulated arm')


@pytest.fixture(scope='module')
def run(tmp_path_factory):
    """Excite, simulate, record to bags, identify, write the outputs."""
    folder = tmp_path_factory.mktemp('identification')
    xml = example_arm_xml('panda')
    nominal = dr.load_urdf(xml)
    rng = np.random.default_rng(18)
    true, friction = perturbed_arm(nominal, rng)
    trajectory, condition = optimize_excitation(nominal, iterations=15,
                                                restarts=1, seed=1)
    recording = drive(nominal, true, friction, trajectory, rng)
    bags = {}
    for storage in ('sqlite3', 'mcap'):
        bags[storage] = str(folder / ('arm_' + storage))
        write_bag(recording, bags[storage], storage=storage)
    from_bag = read_recording(bags['mcap'], nominal.joint_names)
    # The plant's friction is the fit's own formula (tanh with the same
    # smoothing), so rows at low speed are as valid as any: keep them all
    # (the default leaves them out, for real friction:
    # test_identification_real_friction).
    result = identify(nominal, from_bag, smoothing=SMOOTHING, min_speed=0.0)
    urdf = str(folder / 'identified.urdf')
    friction_path = str(folder / 'friction.yaml')
    notes = write_outputs(result, nominal, xml, urdf, friction_path,
                          str(folder / 'report'), 'simulated arm')
    return dict(nominal=nominal, true=true, true_friction=friction,
                result=result, recording=recording, bags=bags, urdf=urdf,
                friction=friction_path, folder=folder, notes=notes,
                condition=condition)


def test_bags_hold_the_recording(run):
    """Both storages read back the simulated recording."""
    recording = run['recording']
    for storage, path in run['bags'].items():
        back = read_recording(path)
        assert back.joint_names == recording.joint_names, storage
        assert np.array_equal(back.positions, recording.positions), storage
        assert np.array_equal(back.efforts, recording.efforts), storage


def test_held_out_torques_within_noise(run):
    """Held-out RMS within 1.2x the injected noise; the URDF's far above."""
    result = run['result']
    print('\nexcitation condition number %.4g; held-out torque RMS: '
          'identified %.4f N m (noise %.2f), nominal URDF %.4f N m'
          % (run['condition'], result.total_rms, NOISE,
             result.nominal_total_rms))
    assert result.total_rms <= 1.2 * NOISE
    assert np.all(result.rms <= 1.2 * NOISE), result.rms
    assert result.nominal_total_rms > 2.0 * result.total_rms


def test_base_parameters_within_two_percent(run):
    """
    Base parameters against the true arm's.

    Each inertial base parameter whose torques along the excitation exceed
    the noise (RMS of its regressor column times its value) is within 2 %;
    the others (products of inertia of 1e-4 kg m^2, and the like) move the
    torques by less than the noise and cannot be held to 2 % by any
    estimator.  The whole vector is within 2 % in norm, and the friction
    coefficients within 15 % (viscous and Coulomb friction are told apart
    only by the spread of the speeds).
    """
    result, true = run['result'], run['true']
    n = true.nq
    # The plant's friction: the URDF's own <dynamics> (damping 0.003 N m s
    # on the Panda, kept in the true model) plus the injected friction.
    plant = run['true_friction']
    friction = np.column_stack((plant.viscous + true.damping,
                                plant.coulomb + true.friction, np.zeros(n)))
    truth = result.base.values(np.concatenate((inertial_parameters(true),
                                               friction.ravel())))
    found = result.base_identified
    error = np.abs(found - truth)
    names = result.base.combinations
    is_friction = np.array([name.endswith(('.viscous', '.coulomb'))
                            for name in names])
    is_offset = np.array([name.endswith('.offset') for name in names])
    inertial = ~is_friction & ~is_offset
    validation = result.validation
    W, _ = identification_regressor(true, validation.q, validation.qd,
                                    validation.qdd, smoothing=SMOOTHING)
    torque = np.sqrt(np.mean((result.base.regressor(W) * truth) ** 2,
                             axis=0))
    large = inertial & (torque > NOISE)
    relative = error / np.maximum(np.abs(truth), 1e-300)
    print('\nbase parameters: %d; norm error %.3g %%; largest relative '
          'error of the %d torque-carrying inertial ones %.3g %%; of the '
          'friction ones %.3g %%' % (
              len(names), 100 * np.linalg.norm(found - truth)
              / np.linalg.norm(truth), large.sum(),
              100 * relative[large].max(), 100 * relative[is_friction].max()))
    assert np.linalg.norm(found - truth) <= 0.02 * np.linalg.norm(truth)
    worst = np.argmax(np.where(large, relative, 0.0))
    assert relative[large].max() <= 0.02, names[worst]
    # Friction within 15 %: viscous and Coulomb are told apart only by the
    # spread of the speeds, and that split moves with the versions of the
    # solver stack - 8.3 % with numpy 2 / scipy 1.16 (make test), 10.3 %
    # with numpy 1.26 / scipy 1.11 / cvxpy 1.6 (make test-distro), the
    # inertial ones within 1 % in both.  A fit without friction is off by
    # 100 %.
    assert relative[is_friction].max() <= 0.15
    assert large.sum() >= 12
    # The offsets (none in the plant) stay near zero.
    assert np.all(np.abs(found[is_offset]) <= 0.05)


def gravity_drift(true, model, seconds=1.0):
    """Largest joint excursion of the true arm held by g(q) of ``model``."""
    lower = np.where(np.isfinite(true.lower_limit), true.lower_limit, -1.0)
    upper = np.where(np.isfinite(true.upper_limit), true.upper_limit, 1.0)
    rest = 0.5 * (lower + upper) + 0.3
    simulator = dr.Simulator(true, dt=DT, q0=rest)
    drift = 0.0
    for _ in range(int(seconds / DT)):
        simulator.step(dr.gravity_torques(model, simulator.q))
        drift = max(drift, float(np.max(np.abs(simulator.q - rest))))
    return drift


def test_identified_urdf_compensates_gravity(run):
    """The identified URDF loads and holds the real arm better."""
    identified = dr.load_urdf(run['urdf'])
    assert identified.joint_names == run['nominal'].joint_names
    assert np.allclose(inertial_parameters(identified),
                       run['result'].parameters[:10 * identified.nq],
                       rtol=1e-9, atol=1e-12)
    drift = gravity_drift(run['true'], identified)
    nominal_drift = gravity_drift(run['true'], run['nominal'])
    print('\ngravity compensation, drift over 1 s: identified URDF %.4g '
          'rad, nominal URDF %.4g rad' % (drift, nominal_drift))
    assert drift < 0.2 * nominal_drift


def test_outputs_are_written(run):
    """Friction YAML as identified, a report with a PNG per joint."""
    friction = read_friction(run['friction'])
    result = run['result']
    for joint, terms in result.friction.items():
        k = friction.joint_names.index(joint)
        assert friction.coulomb[k] == pytest.approx(terms['coulomb'])
    assert friction.smoothing == SMOOTHING
    report = os.path.join(str(run['folder']), 'report')
    text = open(os.path.join(report, 'report.md'), encoding='utf-8').read()
    assert '| all | %.4g | %.4g |' % (result.total_rms,
                                      result.nominal_total_rms) in text
    for joint in run['nominal'].joint_names:
        path = os.path.join(report, 'torque_%s.png' % joint)
        with open(path, 'rb') as stream:
            assert stream.read(8) == b'\x89PNG\r\n\x1a\n'
    assert run['notes'] == []


def test_consistent_fit_converged_to_physical_bodies(run):
    """The SDP's status is the solver's: optimal; every body physical."""
    from dynamics_ros.identification.fit import pseudo_inertia

    result = run['result']
    assert result.info['converged'], result.info
    assert result.info['status'] == 'optimal'
    assert 'converged (optimal' in result.info['message']
    for body in result.parameters[:10 * run['nominal'].nq].reshape(-1, 10):
        assert body[0] > 0.0
        assert np.linalg.eigvalsh(pseudo_inertia(body))[0] >= -1e-9 * max(
            1.0, body[0])
    text = open(os.path.join(str(run['folder']), 'report', 'report.md'),
                encoding='utf-8').read()
    assert 'converged (optimal' in text
    assert 'maximum number of function evaluations' not in text
