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
Freeman's third-order coefficients D, jerk (eq. 2-44) and resolved jerk (3-46).

Oracles: central differences of H (1e-7: step 1e-6, error ~1e-10 of H's
size), central differences of Pinocchio's classical frame accelerations
along a cubic q(t) (1e-7: step 1e-4, the snap term leaves ~1e-8), and the
closed forms of Freeman's Table 2-5 on a serial revolute chain (1e-9).
"""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.dynamics.jerk import point_jerk, resolved_jerk, \
    third_order_coefficients
import numpy as np
from oracle import example_arm_xml, oracle_for, pin, random_state
import pytest
from urdf_factory import random_urdf

ROBOTS = [
    ('panda', example_arm_xml('panda'), 'panda_hand'),
    ('tree_prismatic', random_urdf(91, n_movable=6, tree=True), None),
    ('chain_prismatic', random_urdf(92, n_movable=5, continuous=False),
     None),
]


@pytest.fixture(scope='module', params=ROBOTS, ids=[r[0] for r in ROBOTS])
def robot(request):
    """(model, oracle, link) of one robot; link: its last body's frame."""
    _, xml, link = request.param
    model, oracle = oracle_for(xml)
    if link is None:
        link = [name for name, (body, _, _) in model.frames.items()
                if body == model.nq - 1][-1]
    return model, oracle, link


def test_third_order_matches_finite_differences_of_h(robot):
    """D[p, l, m, n] = dH[p, m, n]/dq_l, at a point off the frame (1e-7)."""
    model, _, link = robot
    rng = np.random.default_rng(20)
    q = random_state(model, rng)[0]
    point = rng.uniform(-0.2, 0.2, 3)
    G, H, D = third_order_coefficients(model, q, link, point)
    G0, H0 = dr.influence_coefficients(model, q, link, point)
    assert_close(G, G0)
    assert_close(H, H0)
    eps = 1e-6
    D_fd = np.array([
        (dr.influence_coefficients(model, q + eps * e, link, point)[1]
         - dr.influence_coefficients(model, q - eps * e, link, point)[1])
        / (2 * eps) for e in np.eye(model.nq)]).transpose(1, 0, 2, 3)
    assert_close(D, D_fd, 1e-7)
    assert np.abs(D).max() > 1e-2                 # not trivially zero
    # Translational D is symmetric in all three indices (Table 2-5).
    linear = D[3:]
    for axes in ((0, 2, 1, 3), (0, 1, 3, 2), (0, 3, 2, 1)):
        assert_close(linear.transpose(axes), linear)


def test_jerk_matches_pinocchio_accelerations(robot):
    """
    Eq. 2-44 against d/dt of Pinocchio's classical frame acceleration.

    Along q(t) = q + qd t + qdd t^2/2 + qddd t^3/6 the frame's acceleration
    at t = +-h gives its jerk at t = 0 by central differences.
    """
    model, oracle, link = robot
    rng = np.random.default_rng(21)
    q, qd, qdd, _ = random_state(model, rng)
    qddd = rng.uniform(-5.0, 5.0, model.nq)

    def acceleration(t):
        qt = q + qd * t + qdd * t * t / 2 + qddd * t ** 3 / 6
        vt = qd + qdd * t + qddd * t * t / 2
        at = qdd + qddd * t

        def classical():
            pin.forwardKinematics(oracle.pin_model, oracle.data,
                                  oracle.q(qt), oracle.v(vt), oracle.v(at))
            pin.updateFramePlacements(oracle.pin_model, oracle.data)
            a = pin.getFrameClassicalAcceleration(
                oracle.pin_model, oracle.data,
                oracle.pin_model.getFrameId(link), pin.LOCAL_WORLD_ALIGNED)
            return np.concatenate((a.angular, a.linear))
        return oracle.ask('frame classical acceleration',
                          (qt, vt, at, link), classical)

    h = 1e-4
    expected = (acceleration(h) - acceleration(-h)) / (2 * h)
    assert_close(point_jerk(model, q, qd, qdd, qddd, link), expected, 1e-7)


def test_table_2_5_closed_forms_on_a_revolute_chain():
    """
    Freeman's Table 2-5 on a serial revolute chain, from the joint axes.

    Rotational d_lmn = s_l x (s_m x s_n) (l < m < n), s_m x (s_l x s_n)
    (m <= l < n), else 0; translational, for sorted a <= b <= c,
    s_a x (s_b x (s_c x (P - R_c))).
    """
    model = dr.load_urdf(random_urdf(93, n_movable=5, prismatic=False,
                                     continuous=False, tree=False))
    rng = np.random.default_rng(22)
    q = random_state(model, rng)[0]
    link = [name for name, (body, _, _) in model.frames.items()
            if body == model.nq - 1][-1]
    point = rng.uniform(-0.2, 0.2, 3)
    _, _, D = third_order_coefficients(model, q, link, point)
    rotations, translations = dr.body_poses(model, q)
    s = np.einsum('nij,nj->ni', rotations, model.axis)
    R = translations
    P = dr.link_pose(model, q, link)[1] + dr.link_pose(
        model, q, link)[0] @ point
    n = model.nq
    for j in range(n):
        for m in range(n):
            for k in range(n):
                if j < m < k:
                    rot = np.cross(s[j], np.cross(s[m], s[k]))
                elif m <= j < k:
                    rot = np.cross(s[m], np.cross(s[j], s[k]))
                else:
                    rot = np.zeros(3)
                assert_close(D[:3, j, m, k], rot, scale=1.0)
                a, b, c = sorted((j, m, k))
                lin = np.cross(s[a], np.cross(s[b], np.cross(s[c],
                                                             P - R[c])))
                assert_close(D[3:, j, m, k], lin, scale=1.0)


def test_resolved_jerk_inverts_the_task_jerk():
    """
    Eq. 3-46 on UR5's tool frame (6 task rows, 6 joints).

    The joint jerk it returns, put through eq. 2-44, gives back the task
    jerk.
    """
    model, _ = oracle_for(example_arm_xml('ur5'))
    rng = np.random.default_rng(23)
    q, qd, qdd, _ = random_state(model, rng)
    G, H, D = third_order_coefficients(model, q, 'tool0')
    task_jerk = rng.uniform(-2.0, 2.0, 6)
    qddd = resolved_jerk(G, H, D, qd, qdd, task_jerk)
    assert_close(point_jerk(model, q, qd, qdd, qddd, 'tool0'), task_jerk)
    with pytest.raises(ValueError, match='square'):
        resolved_jerk(G[:3], H[:3], D[:3], qd, qdd, task_jerk[:3])
