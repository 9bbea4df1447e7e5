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

"""Models and states the formulation tests share (shipped, example, random)."""

import dynamics_ros as dr
from dynamics_ros.resources import robot_urdf
import numpy as np
from oracle import example_arm_xml, random_state
from urdf_factory import random_urdf

SHIPPED = ['puma560', 'stanford_arm', 'two_link_planar']
CHAIN_CASES = SHIPPED + ['panda', 'ur5'] + ['chain%d' % s for s in range(4)]
TREE_CASES = ['tree%d' % s for s in range(3)]


def load_case(name):
    """Return the RobotModel of a case name."""
    if name in SHIPPED:
        return dr.load_urdf(robot_urdf(name))
    if name in ('panda', 'ur5'):
        return dr.load_urdf(example_arm_xml(name))
    seed = int(name[-1])
    if name.startswith('chain'):
        # Mixed revolute/prismatic chains with rotated frames and fixed links.
        return dr.load_urdf(random_urdf(10 + seed, n_movable=3 + seed))
    return dr.load_urdf(random_urdf(20 + seed, n_movable=4 + seed, tree=True))


def states(model, count=4, seed=0):
    """Yield random (q, qd, qdd, tau) states of a model."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield random_state(model, rng)
