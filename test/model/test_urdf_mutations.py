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
Mutated URDFs: refused by name, or a model whose every result is finite.

A small arm (three movable joints, a mimic finger, a fixed tool) is mutated
by hypothesis the ways real descriptions go wrong: a number replaced (NaN,
inf, 1e308, negative, zero, huge), an element duplicated or removed, the
parents of two joints swapped.  Whatever comes out, ``load_urdf`` either
raises ModelError whose message names an element of the document (or says
what is wrong with the document as a whole), or builds a model whose
inverse dynamics, forward dynamics, linearization and one simulated second
are finite; forward dynamics and the simulator may refuse the model with a
ModelError too (a joint left without mass), never with NaN.
"""

import copy
import re
import warnings
import xml.etree.ElementTree as ElementTree

import dynamics_ros as dr
from hypothesis import given, HealthCheck, settings, strategies as st
import numpy as np

ARM = """<robot name="mutant">
  <link name="base"/>
  <link name="upper">
    <inertial><origin xyz="0 0 0.2"/><mass value="2.0"/>
      <inertia ixx="0.03" iyy="0.03" izz="0.004" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <link name="fore">
    <inertial><origin xyz="0.15 0 0"/><mass value="1.2"/>
      <inertia ixx="0.002" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <link name="finger_a">
    <inertial><mass value="0.05"/>
      <inertia ixx="1e-5" iyy="1e-5" izz="1e-5" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <link name="finger_b">
    <inertial><mass value="0.05"/>
      <inertia ixx="1e-5" iyy="1e-5" izz="1e-5" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <link name="tool"/>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1" rpy="0 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-2" upper="2" effort="50" velocity="2"/>
    <dynamics damping="0.5" friction="0.1"/>
  </joint>
  <joint name="elbow" type="revolute">
    <parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 0.4" rpy="0 0.3 0"/><axis xyz="0 1 0"/>
    <limit lower="-2.5" upper="2.5" effort="30" velocity="2"/>
    <dynamics damping="0.2"/>
  </joint>
  <joint name="finger_a_joint" type="prismatic">
    <parent link="fore"/><child link="finger_a"/>
    <origin xyz="0.3 0.01 0"/><axis xyz="0 1 0"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.2"/>
  </joint>
  <joint name="finger_b_joint" type="prismatic">
    <parent link="fore"/><child link="finger_b"/>
    <origin xyz="0.3 -0.01 0"/><axis xyz="0 -1 0"/>
    <limit lower="0" upper="0.04" effort="20" velocity="0.2"/>
    <mimic joint="finger_a_joint" multiplier="1" offset="0"/>
  </joint>
  <joint name="tool_joint" type="fixed">
    <parent link="fore"/><child link="tool"/><origin xyz="0.35 0 0"/>
  </joint>
</robot>
"""
# Values a broken description has been seen to carry.
BAD_NUMBERS = ['nan', 'inf', '-inf', '1e308', '-1e308', '0', '-1', '-0.5',
               '1e16', '1e-300', '1e6', 'abc', '']
# Errors about the document as a whole name no element.
WHOLE_DOCUMENT = ('URDF', 'mimic joints', 'links ', 'link ', 'joint ')


def numeric_attributes(root):
    """(element, attribute) pairs holding numbers, in document order."""
    found = []
    for element in root.iter():
        for name, value in element.attrib.items():
            if name in ('name', 'link', 'joint', 'type'):
                continue
            found.append((element, name))
    return found


def mutate(draw_index, root, kind):
    """Apply one mutation of ``kind`` to the document ``root``."""
    if kind == 'number':
        element, name = draw_index(numeric_attributes(root))
        parts = element.get(name).split()
        k = draw_index(list(range(len(parts))))
        parts[k] = draw_index(BAD_NUMBERS)
        element.set(name, ' '.join(parts))
    elif kind == 'duplicate':
        parent = draw_index([root] + [e for e in root if len(e)])
        child = draw_index(list(parent))
        parent.append(copy.deepcopy(child))
    elif kind == 'remove':
        parent = draw_index([root] + [e for e in root if len(e)])
        parent.remove(draw_index(list(parent)))
    elif kind == 'swap':
        joints = root.findall('joint')
        a, b = draw_index(joints), draw_index(joints)
        pa, pb = a.find('parent'), b.find('parent')
        if pa is not None and pb is not None:
            link = pa.get('link')
            pa.set('link', pb.get('link'))
            pb.set('link', link)


@st.composite
def mutated_urdfs(draw):
    """Draw the arm with one to three mutations."""
    root = ElementTree.fromstring(ARM)

    def draw_index(items):
        return items[draw(st.integers(0, len(items) - 1))] if items else None
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(['number', 'duplicate', 'remove',
                                     'swap']))
        if kind in ('duplicate', 'remove') and len(root) == 0:
            continue
        mutate(draw_index, root, kind)
    return ElementTree.tostring(root, encoding='unicode')


def element_names(xml):
    """Every link and joint name in the document."""
    return set(re.findall(r'<(?:link|joint) name="([^"]*)"', xml))


def assert_names_its_culprit(error, xml):
    """Assert a ModelError names an element of the document, or it."""
    text = str(error)
    assert text, 'empty ModelError'
    assert len(text) < 600, 'unbounded message: %d characters' % len(text)
    named = any(re.search(r'\b%s\b' % re.escape(name), text)
                for name in element_names(xml) if name)
    assert named or text.startswith(WHOLE_DOCUMENT) or 'gravity' in text, (
        'ModelError names no element: %s' % text)


def finite(*values):
    """Return True when every array in ``values`` is finite."""
    return all(np.all(np.isfinite(np.asarray(v))) for v in values)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(mutated_urdfs())
def test_mutated_urdf_is_refused_by_name_or_finite(xml):
    """Refused naming the element, or finite ID, FD, A/B and 1 s sim."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', dr.ModelWarning)
        try:
            model = dr.load_urdf(xml)
        except dr.ModelError as error:
            assert_names_its_culprit(error, xml)
            return
    n = model.nq
    rng = np.random.default_rng(0)
    lower = np.where(np.isfinite(model.lower_limit), model.lower_limit, -1)
    upper = np.where(np.isfinite(model.upper_limit), model.upper_limit, 1)
    q = rng.uniform(lower, upper)
    qd, qdd = rng.uniform(-1, 1, (2, n))
    tau = dr.inverse_dynamics(model, q, qd, qdd)
    assert finite(tau, dr.gravity_torques(model, q), dr.mass_matrix(model, q))
    try:
        accelerations = dr.forward_dynamics(model, q, qd, tau)
        A, B = dr.linearize(model, q, qd, tau)
        simulator = dr.Simulator(model, dt=1e-3)
        log = simulator.run(1.0, effort=dr.gravity_torques(
            model, simulator.q), record_every=100)
    except dr.ModelError as error:
        assert_names_its_culprit(error, xml)
        return
    assert finite(accelerations, A, B, log.q, log.qd), xml
