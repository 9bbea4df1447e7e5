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
The robots the dynamics tests run on, and one model transformation.

Example-robot-data's arms come from ``robot_files``; here are the generated
URDFs (trees, prismatic and continuous joints, fixed-joint runs, chains long
enough for the compiled path's row-wise loops), the shipped robots, and a
renumbering of a model's bodies.
"""

from dynamics_ros.resources import robot_urdf
import numpy as np
from robot_files import example_arm_xml, EXAMPLE_ARMS
from urdf_factory import random_urdf, serial_chain_urdf

SHIPPED = ['puma560', 'stanford_arm', 'two_link_planar']


def shipped_xml(name):
    """URDF text of a robot shipped in urdf/."""
    with open(robot_urdf(name), encoding='utf-8') as stream:
        return stream.read()


def robot_sources():
    """(id, xml) of every robot the derivative tests run on."""
    robots = [(name, example_arm_xml(name)) for name in EXAMPLE_ARMS]
    robots += [(name, shipped_xml(name)) for name in SHIPPED]
    robots += [
        ('tree_mixed', random_urdf(21, n_movable=8, tree=True)),
        ('chain_prismatic', random_urdf(22, n_movable=6, continuous=False)),
        ('chain_continuous', random_urdf(23, n_movable=5, prismatic=False)),
    ]
    return robots


def generated_robots():
    """(id, xml) of the generated test robots."""
    return [
        ('tree_mixed', random_urdf(11, n_movable=8, tree=True)),
        ('chain_prismatic', random_urdf(12, n_movable=6, continuous=False)),
        ('chain_continuous', random_urdf(13, n_movable=5, prismatic=False)),
        ('tree_fixed_chains', random_urdf(14, n_movable=7, tree=True,
                                          fixed_chains=True)),
    ]


def long_robots():
    """
    (id, xml) of robots long enough for the compiled path's chain rows.

    From 12 joints on the fast path fills a chain's Jacobians and M a row
    at a time and multiplies by M^-1 with BLAS (``fast/crba.py``,
    ``fast/rnea_derivatives.py``, ``fast/cholesky.py``): a chain with
    prismatic and continuous joints and fixed-joint runs, the 33-link
    chain of the benchmarks, and a branched tree (BLAS without the rows).
    """
    return [
        ('chain_14_mixed', random_urdf(21, n_movable=14)),
        ('chain_33', serial_chain_urdf(33, seed=33)),
        ('tree_16', random_urdf(22, n_movable=16, tree=True)),
    ]


def breadth_first(model):
    """Return the same robot with its bodies numbered breadth-first."""
    depth = np.zeros(model.nq, dtype=int)
    for i, p in enumerate(model.parent):
        depth[i] = 0 if p < 0 else depth[p] + 1
    order = np.argsort(depth, kind='stable')
    new_index = np.argsort(order)
    arrays = ['joint_type', 'axis', 'origin_rotation', 'origin_translation',
              'mass', 'com', 'inertia_com', 'continuous', 'lower_limit',
              'upper_limit', 'velocity_limit', 'effort_limit', 'damping',
              'friction', 'armature']
    changes = {name: getattr(model, name)[order] for name in arrays}
    parent = [new_index[p] if p >= 0 else -1 for p in model.parent[order]]
    return order, model.copy(
        parent=parent, joint_names=[model.joint_names[i] for i in order],
        body_names=[model.body_names[i] for i in order], **changes)
