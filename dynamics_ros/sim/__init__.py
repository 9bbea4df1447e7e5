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
ROS-free simulation of robot models.

- ``simulator``: ``Simulator`` (state, clock, integrator, joint effects,
  step, run) and its ``SimulationLog``;
- ``plants``: what moves - rigid, mimic or flexible: the coordinates,
  state layout, accelerations and mass matrix, and which compiled step
  each has; ``motor_plant``: an arm driven by geared DC motors, the
  winding currents and voltages a state of its own;
- ``applied_loads``: what acts besides the commanded effort - an external
  wrench, identified joint friction, a controller's implicit dampers;
- ``compiled_step``: the compiled fixed step of a rigid or mimic model
  (kernel in ``dynamics_ros.fast.sim_step``) and of a motor-driven one
  (``dynamics_ros.fast.motor_step``), which ``Simulator.step`` tries
  first;
- ``integrators``: ``rk4``, ``semi_implicit_euler``, ``Adaptive`` (solve_ivp);
- ``joint_effects``: effort saturation, damping, Coulomb friction and joint
  limits as impulses, continuous-joint wrap;
- ``controllers``: per-joint PID and the ros2_control command modes
  (effort, position, velocity, trajectory with effort feed-forward);
- ``energy``: kinetic and potential energy, for conservation checks.
"""

from .simulator import SimulationLog, Simulator

__all__ = ['SimulationLog', 'Simulator']
