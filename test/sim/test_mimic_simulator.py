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
The ROS-free side of mimic joints: simulator, kinematics, payload, DH.

A Panda with its hand: the fingers coupled (finger_joint2 follows
finger_joint1), and a mimic chain in the arm (joint7 follows joint5 with a
multiplier of -0.5 and an offset; joint5 follows joint3 times 2) so that G
is not just ones.  The simulator is held to physics, not to its own
formulas: an undamped, unforced run keeps the total energy of the tree
(the coupling does no work), the fingers' links stay mirror images, and a
finger command at the limits leaves both fingers on them.
"""

import os
import xml.etree.ElementTree as ElementTree

from conftest import assert_close, REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.cli.describe import describe
from dynamics_ros.model.mimic_model import MimicModel
from dynamics_ros.sim.energy import kinetic_energy, total_energy
from dynamics_ros.sim.simulator import full_joint_state, Simulator
import numpy as np
from oracle import robots_directory
import pytest

PANDA = os.path.join('panda_description', 'urdf', 'panda.urdf')
PUMA = os.path.join(REPO_ROOT, 'urdf', 'puma560.urdf')
FINGERS = {'panda_finger_joint2': ('panda_finger_joint1', 1.0, 0.0)}
CHAIN = {'panda_joint7': ('panda_joint5', -0.5, 0.1),
         'panda_joint5': ('panda_joint3', 2.0, -0.2),
         'panda_finger_joint2': ('panda_finger_joint1', 1.0, 0.0)}


def panda_tree():
    """Return the Panda with hand as a RobotModel: <mimic> tags removed."""
    with open(os.path.join(robots_directory(), PANDA),
              encoding='utf-8') as stream:
        root = ElementTree.fromstring(stream.read())
    for joint in root.findall('joint'):
        for tag in joint.findall('mimic'):
            joint.remove(tag)
    return dr.load_urdf(ElementTree.tostring(root, encoding='unicode'))


def free(tree):
    """``tree`` without damping, friction or limits: nothing dissipates."""
    n = tree.nq
    return tree.copy(damping=np.zeros(n), friction=np.zeros(n),
                     lower_limit=np.full(n, -np.inf),
                     upper_limit=np.full(n, np.inf))


def finger_offsets(model, q):
    """Return the y of the left and right finger links in the hand frame."""
    hand_rotation, hand_position = dr.link_pose(model, q, 'panda_hand')
    offsets = []
    for link in ('panda_leftfinger', 'panda_rightfinger'):
        _, position = dr.link_pose(model, q, link)
        offsets.append((hand_rotation.T @ (position - hand_position))[1])
    return offsets


def energy_drift(model, dt, duration=2.0):
    """Largest |E(t) - E(0)| of a free run from a random state, and max T."""
    rng = np.random.default_rng(14)
    fingers = np.r_[np.ones(model.nq - 1), 0.02]   # the hand half open
    simulator = Simulator(model, dt=dt, integrator_name='rk4',
                          q0=rng.uniform(-1.0, 1.0, model.nq) * fingers,
                          qd0=rng.uniform(-1.0, 1.0, model.nq))
    # Mimic models take the compiled step too (fast/sim_step.py): the
    # energy is that of the kernel's coupled dynamics while the path is on.
    assert (simulator.compiled is not None) == dr.fast.ENABLED
    log = simulator.run(duration, record_every=int(round(0.02 / dt)))
    energy = np.array([total_energy(model, q, qd)
                       for q, qd in zip(log.q, log.qd)])
    kinetic = np.array([kinetic_energy(model, q, qd)
                        for q, qd in zip(log.q, log.qd)])
    assert np.ptp(kinetic) > 0.5   # the arm really swings
    # The same energy from the tree's own state: the reduced mass matrix
    # carries the mimic joints' bodies.
    tree_state = zip(model.full_positions(log.q),
                     model.full_velocities(log.qd))
    assert_close([total_energy(model.tree, q, qd) for q, qd in tree_state],
                 energy, 1e-12, 'energy on the tree')
    scale = min(np.max(kinetic), abs(energy[0]))
    return np.max(np.abs(energy - energy[0])), scale


@pytest.mark.parametrize('mimic', [FINGERS, CHAIN], ids=['fingers', 'chain'])
def test_energy_of_free_mimic_model_is_conserved(mimic):
    """
    Undamped, unforced: T + V of the tree constant to RK4's tolerance.

    The drift shrinks as RK4's error does when the step is halved: a
    reduced M or h inconsistent with the tree would leave a drift that
    does not depend on the step.
    """
    model = MimicModel(free(panda_tree()), mimic)
    drift, scale = energy_drift(model, 1e-3)
    assert drift <= 1e-6 * scale, 'energy drift %.3e of %.3e' % (
        drift, scale)
    finer, _ = energy_drift(model, 5e-4)
    assert finer < drift / 8.0, 'drift %.3e at dt/2, %.3e at dt' % (
        finer, drift)


def test_fingers_stay_mirror_images():
    """The fingers' links move apart symmetrically, whatever the arm does."""
    model = MimicModel(panda_tree(), FINGERS)
    simulator = Simulator(model, dt=1e-3,
                          q0=np.r_[0.0, -0.5, 0.0, -2.0, 0.0, 1.5, 0.8, 0.01],
                          qd0=np.r_[np.full(7, 0.5), 0.05])
    log = simulator.run(1.0, record_every=50)
    assert np.ptp(log.q[:, -1]) > 0.02   # the fingers open and close
    for q in log.q:
        left, right = finger_offsets(model, q)
        assert left == pytest.approx(-right, rel=1e-12, abs=1e-15)
        assert left == pytest.approx(q[-1], rel=1e-12, abs=1e-15)


def test_finger_effort_moves_both_fingers_to_the_limits():
    """Closing and opening efforts on finger_joint1 stop both at a limit."""
    model = MimicModel(panda_tree(), FINGERS)
    finger = model.joint_index('panda_finger_joint1')
    assert model.lower_limit[finger] == 0.0
    assert model.upper_limit[finger] == 0.04
    # Damping of both fingers acts on the one coordinate.
    assert model.damping[finger] == pytest.approx(0.6)

    def effort(force):
        command = np.zeros(model.nq)
        command[finger] = force

        def law(t, q, qd):   # the arm held up, the fingers pushed
            return dr.gravity_torques(model, q) + command
        return law

    q0 = np.r_[0.0, -0.5, 0.0, -2.0, 0.0, 1.5, 0.8, 0.02]
    simulator = Simulator(model, dt=1e-3, q0=q0)
    for force, limit in ((-20.0, 0.0), (20.0, 0.04)):
        simulator.run(0.5, effort(force))
        position, velocity, applied = simulator.full_state()
        state = dict(zip(model.full_joint_names, zip(position, velocity)))
        for joint in ('panda_finger_joint1', 'panda_finger_joint2'):
            assert state[joint] == (limit, 0.0), joint
        assert applied[-1] == 0.0   # a mimic joint has no actuator
        assert applied[finger] == pytest.approx(
            force + dr.gravity_torques(model, simulator.q)[finger])


def test_damping_acts_per_independent_coordinate():
    """The smooth part of a step is FD of the reduced model with damping."""
    model = MimicModel(panda_tree(), CHAIN)
    simulator = Simulator(model)
    rng = np.random.default_rng(3)
    q, qd = rng.uniform(-0.5, 0.5, model.nq), rng.uniform(-1, 1, model.nq)
    tau = rng.uniform(-2, 2, model.nq)
    assert_close(simulator.acceleration(q, qd, tau), dr.forward_dynamics(
        model, q, qd, tau - model.damping * qd), 1e-12)
    # The tree's viscous power -sum d_i qd_i^2 is the reduced one.
    tree_qd = model.full_velocities(qd)
    assert qd @ (model.damping * qd) == pytest.approx(
        tree_qd @ (model.tree.damping * tree_qd), rel=1e-12)


def test_full_joint_state():
    """Every movable joint: mimic positions follow, efforts are 0."""
    model = MimicModel(panda_tree(), CHAIN)
    q = np.linspace(0.1, 0.6, model.nq)
    qd = np.linspace(-1.0, 1.0, model.nq)
    effort = np.arange(1.0, model.nq + 1.0)
    position, velocity, applied = full_joint_state(model, q, qd, effort)
    full = dict(zip(model.full_joint_names, zip(position, velocity,
                                                applied)))
    own = dict(zip(model.joint_names, zip(q, qd, effort)))
    for name, values in own.items():
        assert full[name] == values
    j3 = own['panda_joint3']
    assert full['panda_joint5'][:2] == pytest.approx(
        (2.0 * j3[0] - 0.2, 2.0 * j3[1]))
    assert full['panda_joint7'][:2] == pytest.approx(
        (-0.5 * (2.0 * j3[0] - 0.2) + 0.1, -j3[1]))
    for name in CHAIN:
        assert full[name][2] == 0.0
    plain = dr.load_urdf(PUMA)
    arrays = (np.ones(6), np.zeros(6), np.ones(6))
    assert all(a is b for a, b in zip(
        full_joint_state(plain, *arrays), arrays))


def test_kinematics_of_a_mimic_model():
    """Poses on the tree; Jacobian = J_tree G = the pose's derivative."""
    model = MimicModel(panda_tree(), CHAIN)
    rng = np.random.default_rng(5)
    q, qd = rng.uniform(-0.5, 0.5, model.nq), rng.uniform(-1, 1, model.nq)
    rotations, translations = dr.body_poses(model, q)
    tree_poses = dr.body_poses(model.tree, model.full_positions(q))
    assert rotations.shape == (model.tree.nq, 3, 3)
    assert_close(translations, tree_poses[1], 1e-15)
    for link in ('panda_rightfinger', 'panda_hand', 'panda_link7'):
        J = dr.link_jacobian(model, q, link)
        assert J.shape == (6, model.nq)
        h = 1e-6
        plus = dr.link_pose(model, q + h * qd, link)[1]
        minus = dr.link_pose(model, q - h * qd, link)[1]
        assert_close(J[3:] @ qd, (plus - minus) / (2 * h), 1e-8, link)
    with pytest.raises(ValueError, match='must have 6 values'):
        dr.link_pose(model, np.zeros(model.tree.nq), 'panda_hand')


def test_payload_on_a_mimic_model():
    """A payload goes to the tree; the coupling stays."""
    model = MimicModel(panda_tree(), FINGERS)
    box = [0.01, 0.0, 0.0, 0.01, 0.0, 0.01]   # ixx ixy ixz iyy iyz izz
    loaded = dr.add_payload(model, 1.5, [0.0, 0.0, 0.1], box,
                            link='panda_hand')
    assert isinstance(loaded, MimicModel)
    assert loaded.mimic == model.mimic
    assert loaded.total_mass == pytest.approx(model.total_mass + 1.5)
    expected = dr.add_payload(model.tree, 1.5, [0.0, 0.0, 0.1], box,
                              link='panda_hand')
    q = np.r_[0.1, -0.5, 0.2, -2.0, 0.3, 1.5, 0.8, 0.02]
    assert_close(dr.gravity_torques(loaded, q),
                 dr.gravity_torques(expected, model.full_positions(q))
                 @ model.G, 1e-12)
    assert model.total_mass == pytest.approx(panda_tree().total_mass)


def test_dh_table_of_a_mimic_chain():
    """A serial chain with a mimic joint: its rows, the coupling, back."""
    model = MimicModel(dr.load_urdf(PUMA), {'joint3': ('joint2', -1.0, 0.3)})
    table = dr.dh_table(model, 'modified')
    assert table.n == 6 and table.mimic == {'joint3': ('joint2', -1.0, 0.3)}
    mimic = [row['mimic'] for row in table.rows()]
    assert mimic == [None, None, ('joint2', -1.0, 0.3), None, None, None]
    rebuilt = dr.from_dh(table)
    assert isinstance(rebuilt, MimicModel)
    assert rebuilt.joint_names == model.joint_names
    rng = np.random.default_rng(9)
    q = rng.uniform(-1, 1, model.nq)
    assert_close(dr.mass_matrix(rebuilt, q), dr.mass_matrix(model, q), 1e-9)
    assert_close(dr.gravity_torques(rebuilt, q),
                 dr.gravity_torques(model, q), 1e-9)
    with pytest.raises(dr.ModelError, match='not rows of the table'):
        dr.DHTable(a=[0, 0], alpha=[0, 0], d=[0, 0], theta=[0, 0],
                   mimic={'joint2': ('elbow', 1.0, 0.0)})


def test_describe_shows_the_coupling():
    """The description lists every joint, the coupling, reduced torques."""
    text = describe(MimicModel(panda_tree(), FINGERS))
    assert '9 movable joint(s) (8 independent)' in text
    assert 'panda_finger_joint2  1 * panda_finger_joint1 + 0' in text
    gravity = text.split('Gravity torques')[1]
    assert 'panda_finger_joint1' in gravity
    assert 'panda_finger_joint2' not in gravity
    chain = describe(MimicModel(dr.load_urdf(PUMA),
                                {'joint3': ('joint2', -1.0, 0.3)}))
    assert 'joint3  -1 * joint2 + 0.3' in chain
    assert 'q + theta (mimic of joint2)' in chain
