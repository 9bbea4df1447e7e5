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
example-robot-data's arms and random states: the oracle's inputs.

Kept apart from ``oracle`` (which needs Pinocchio) so that the stored
Pinocchio references (test/data/oracle_reference.npz) are checked where
Pinocchio is not installed: the URDFs come from the example-robot-data
wheel, which needs only cmeel.
"""

import glob
import os
import xml.etree.ElementTree as ElementTree

import numpy as np


def robots_directory():
    """Folder of example-robot-data's URDFs inside the installed wheel."""
    import cmeel
    candidates = glob.glob(os.path.join(
        os.path.dirname(os.path.dirname(cmeel.__file__)), 'cmeel.prefix',
        'share', 'example-robot-data', 'robots'))
    if not candidates:
        raise FileNotFoundError('example-robot-data is not installed')
    return candidates[0]


EXAMPLE_ARMS = {
    # name: (path below robots/, root_link, tip_link)
    'panda': ('panda_description/urdf/panda.urdf', None, 'panda_hand'),
    'ur5': ('ur_description/urdf/ur5_robot.urdf', None, None),
    'ur10': ('ur_description/urdf/ur10_robot.urdf', None, None),
    'kinova': ('kinova_description/robots/kinova.urdf', None, None),
    'xarm7': ('xarm_description/urdf/xarm7.urdf', None, None),
    'z1': ('z1_description/urdf/z1.urdf', None, None),
}


def example_arm_xml(name):
    """
    URDF text of an example-robot-data arm cut to the kept chain.

    Links outside the root -> tip chain are removed from the XML so that
    Pinocchio and dynamics_ros see exactly the same bodies (the arm without
    its hand: the tests of these arms are about the arm's own chain).
    """
    relative, root, tip = EXAMPLE_ARMS[name]
    path = os.path.join(robots_directory(), relative)
    with open(path, encoding='utf-8') as stream:
        text = stream.read()
    if tip is None and root is None:
        return text
    return keep_chain(text, root, tip)


def keep_chain(xml, root, tip):
    """Remove every link and joint not on the root -> tip chain."""
    tree = ElementTree.fromstring(xml)
    joints = {j.find('child').get('link'): j for j in tree.findall('joint')}
    keep, link = {tip}, tip
    while link in joints and link != root:
        link = joints[link].find('parent').get('link')
        keep.add(link)
    for element in list(tree):
        if element.tag == 'link' and element.get('name') not in keep:
            tree.remove(element)
        elif element.tag == 'joint' and (
                element.find('child').get('link') not in keep):
            tree.remove(element)
    return ElementTree.tostring(tree, encoding='unicode')


def random_state(model, rng):
    """Random q within finite limits (else [-pi, pi]), qd, qdd, tau."""
    lower = np.where(np.isfinite(model.lower_limit), model.lower_limit, -np.pi)
    upper = np.where(np.isfinite(model.upper_limit), model.upper_limit, np.pi)
    # As rng.uniform(lower, upper), which refuses a range that is one point
    # written [0, -0.0] (a mimic coupling can narrow a joint's to that).
    q = lower + rng.uniform(0.0, 1.0, model.nq) * np.maximum(upper - lower,
                                                             0.0)
    return (q, rng.uniform(-2.0, 2.0, model.nq),
            rng.uniform(-3.0, 3.0, model.nq), rng.uniform(-5.0, 5.0, model.nq))
