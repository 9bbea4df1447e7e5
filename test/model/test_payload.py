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

"""dynamics_ros.model.payload against Pinocchio with the payload as a link."""

from conftest import assert_close
import dynamics_ros as dr
from dynamics_ros.model.mimic_model import MimicModel
from dynamics_ros.model.payload import (add_payload, check_payload,
                                        combine_bodies, inertia_matrix,
                                        only_inertias_differ)
from dynamics_ros.spatial import spatial_inertia
import numpy as np
import oracle
import pytest

XML = oracle.example_arm_xml('panda')
MODEL = dr.load_urdf(XML)
MASS, COM = 1.7, np.array([0.03, -0.02, 0.09])
INERTIA = [0.012, 0.001, -0.002, 0.018, 0.0015, 0.01]


def welded(xml, parent, mass, com, inertia):
    """URDF text with a payload link welded to ``parent``."""
    ixx, ixy, ixz, iyy, iyz, izz = (float(x) for x in inertia)
    com = [float(x) for x in com]
    payload = (
        '<joint name="payload_joint" type="fixed"><parent link="%s"/>'
        '<child link="payload"/></joint><link name="payload"><inertial>'
        '<origin xyz="%r %r %r"/><mass value="%r"/><inertia ixx="%r" '
        'ixy="%r" ixz="%r" iyy="%r" iyz="%r" izz="%r"/></inertial></link>'
        % (parent, *com, mass, ixx, ixy, ixz, iyy, iyz, izz))
    return xml.replace('</robot>', payload + '</robot>')


@pytest.mark.parametrize('link', ['panda_hand', 'panda_link8', None])
def test_payload_matches_pinocchio(link):
    # panda_hand is rotated -45 deg about z in its body: the com and the
    # inertia must be turned into the body frame.
    heavy = add_payload(MODEL, MASS, COM, INERTIA, link=link)
    reference = oracle.PinocchioOracle(MODEL, welded(
        XML, link or 'panda_link7', MASS, COM, INERTIA))
    rng = np.random.default_rng(7)
    for _ in range(3):
        q, qd, qdd, _ = oracle.random_state(MODEL, rng)
        assert_close(dr.inverse_dynamics(heavy, q, qd, qdd),
                     reference.rnea(q, qd, qdd), what='RNEA')
        assert_close(dr.mass_matrix(heavy, q), reference.crba(q), what='M')
    assert heavy.total_mass == pytest.approx(MODEL.total_mass + MASS,
                                             rel=1e-12)


def test_the_model_itself_is_not_changed():
    before = MODEL.spatial_inertia.copy()
    add_payload(MODEL, MASS, COM, INERTIA, link='panda_hand')
    assert np.array_equal(MODEL.spatial_inertia, before)


def test_combining_bodies_adds_spatial_inertias():
    rng = np.random.default_rng(8)
    bodies = []
    for _ in range(2):
        root = rng.normal(size=(3, 3))
        bodies.append((rng.uniform(0.5, 3.0), rng.normal(size=3),
                       root.dot(root.T)))
    mass, com, inertia = combine_bodies(*bodies[0], *bodies[1])
    assert_close(spatial_inertia(mass, com, inertia),
                 spatial_inertia(*bodies[0]) + spatial_inertia(*bodies[1]))


def test_zero_payload_changes_nothing():
    same = add_payload(MODEL, 0.0, [0.0] * 3, [0.0] * 6, link='panda_hand')
    assert np.array_equal(same.spatial_inertia, MODEL.spatial_inertia)


def test_inertia_vector_order_is_urdf():
    assert inertia_matrix([1, 2, 3, 4, 5, 6]).tolist() == [
        [1, 2, 3], [2, 4, 5], [3, 5, 6]]


@pytest.mark.parametrize('mass,com,inertia,message', [
    (-1.0, COM, INERTIA, 'mass must be finite and >= 0'),
    (float('nan'), COM, INERTIA, 'mass must be finite'),
    (1.0, [0.0, 0.1], INERTIA, 'com must be 3 finite numbers'),
    (1.0, [0.0, float('inf'), 0.0], INERTIA, 'com must be 3 finite'),
    (1.0, COM, [1.0] * 5, 'must have 6 values'),
    (1.0, COM, [-0.1, 0, 0, 0.1, 0, 0.1], 'negative principal moment'),
    (1.0, COM, [1.0, 0, 0, 0.1, 0, 0.1], 'triangle inequality'),
    (1.0, COM, [[1, 0, 0], [0.5, 1, 0], [0, 0, 1]], 'symmetric'),
])
def test_invalid_payloads_say_what_is_wrong(mass, com, inertia, message):
    with pytest.raises(dr.ModelError, match=message):
        check_payload(mass, com, inertia)


def test_unknown_link_is_named():
    with pytest.raises(dr.ModelError, match="'flange' is not a link"):
        add_payload(MODEL, 1.0, COM, INERTIA, link='flange')


def test_only_inertias_differ_tells_a_payload_from_another_robot():
    # What the simulator goes on from (a payload picked up or put down)
    # and what it starts afresh from (anything else changed).
    heavy = add_payload(MODEL, MASS, COM, INERTIA, link='panda_hand')
    assert only_inertias_differ(MODEL, heavy)
    assert only_inertias_differ(heavy, MODEL)
    assert only_inertias_differ(MODEL, MODEL.copy())
    limits = MODEL.upper_limit.copy()
    limits[3] -= 0.1
    gravity = MODEL.gravity.copy()
    gravity[2] = -9.0
    for other in (MODEL.copy(upper_limit=limits),
                  MODEL.copy(gravity=gravity),
                  dr.load_urdf(XML, tip_link='panda_link6'),
                  dr.load_urdf(oracle.example_arm_xml('ur5'))):
        assert not only_inertias_differ(heavy, other)
    assert not only_inertias_differ(MimicModel(MODEL, {}), heavy)
