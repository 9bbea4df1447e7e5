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
dynamics_ros: manipulator dynamics for ROS 2, with a ROS-free core.

>>> import dynamics_ros as dr
>>> model = dr.load_urdf('urdf/puma560.urdf')        # doctest: +SKIP
>>> tau = dr.inverse_dynamics(model, q, qd, qdd)      # doctest: +SKIP
"""

from . import fast
from .control.computed_torque import computed_torque
from .dynamics.aba import forward_dynamics
from .dynamics.aba_derivatives import forward_dynamics_derivatives
from .dynamics.actuated import actuated_state_derivative, \
    hand_state_model, linearize_actuated, nominal_voltage
from .dynamics.bias import bias_forces, gravity_torques
from .dynamics.coriolis import coriolis_matrix
from .dynamics.crba import mass_matrix
from .dynamics.influence import congruence, dynamics_coefficients, \
    generalized_dot, influence_coefficients, invert_influence, quadratic, \
    transfer_dynamics, transfer_influence
from .dynamics.jacobians import link_jacobian
from .dynamics.jerk import point_jerk, resolved_jerk, \
    third_order_coefficients
from .dynamics.kinematics import body_poses, link_pose
from .dynamics.linearize import linearize, linearize_trajectory
from .dynamics.moving_base import moving_base_inverse_dynamics, \
    MovingBaseDynamics
from .dynamics.regressor import inertial_parameters, \
    joint_torque_regressor
from .dynamics.rnea import inverse_dynamics
from .dynamics.rnea_derivatives import inverse_dynamics_derivatives
from .dynamics.task_space import overconstrained_transfer, \
    platform_coefficients, redundant_transfer, task_space, TaskSpace, \
    weighted_pseudo_inverse
from .errors import ModelError, ModelWarning
from .estimation.collision import CollisionDetector
from .estimation.momentum_observer import MomentumObserver, observe
from .estimation.wrench import external_wrench
from .flexible import FlexibleLink, FlexibleModel, load_flexible, \
    RigidPart
from .model.actuators import DCMotors, load_actuators
from .model.dh import dh_table, DHTable, from_dh
from .model.mimic_model import MimicModel
from .model.payload import add_payload
from .model.robot_model import PRISMATIC, REVOLUTE, RobotModel
from .model.urdf import load_urdf
from .model.urdf_writer import to_urdf
from .sim.simulator import Simulator

__version__ = '0.1.0'

__all__ = [
    'MimicModel', 'ModelError', 'ModelWarning', 'PRISMATIC', 'REVOLUTE',
    'RobotModel',
    'bias_forces', 'body_poses', 'coriolis_matrix', 'forward_dynamics',
    'gravity_torques', 'inverse_dynamics', 'link_pose', 'load_urdf',
    'mass_matrix',
    # derivatives, linearization, Jacobians, Freeman's influence coefficients
    'forward_dynamics_derivatives', 'inverse_dynamics_derivatives',
    'linearize', 'linearize_trajectory', 'link_jacobian',
    'congruence', 'dynamics_coefficients', 'generalized_dot',
    'influence_coefficients', 'invert_influence', 'quadratic',
    'transfer_dynamics', 'transfer_influence',
    'point_jerk', 'resolved_jerk', 'third_order_coefficients',
    # task space of redundant arms; Freeman's redundant/overconstrained
    'TaskSpace', 'overconstrained_transfer', 'platform_coefficients',
    'redundant_transfer',
    'task_space', 'weighted_pseudo_inverse',
    # an arm on a base with prescribed motion; reaction loads (Nasser)
    'MovingBaseDynamics', 'moving_base_inverse_dynamics',
    # geared DC motors at the joints, voltage in (Freeman 2-228..2-252)
    'DCMotors', 'actuated_state_derivative', 'hand_state_model',
    'linearize_actuated', 'load_actuators', 'nominal_voltage',
    # system identification: tau = Y(q, qd, qdd) pi
    'inertial_parameters', 'joint_torque_regressor',
    # external torques, wrench and collision from joint states
    'CollisionDetector', 'MomentumObserver', 'external_wrench', 'observe',
    # DH tables and URDF writing
    'DHTable', 'dh_table', 'from_dh', 'to_urdf',
    # flexible links (Mackay 1988)
    'FlexibleLink', 'FlexibleModel', 'RigidPart', 'load_flexible',
    # simulator
    'Simulator',
    # payload and computed torque (used by the nodes)
    'add_payload', 'computed_torque',
    # the compiled fast path (dr.fast.enable(False): numpy only)
    'fast',
]
