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
Estimation from proprioception, ROS-free: external torques and wrenches.

``MomentumObserver`` (momentum_observer.py) turns a stream of (t, q, qd,
tau_measured) into the external joint torques; ``external_wrench``
(wrench.py) maps them to a wrench at a link by damped least squares on its
Jacobian; ``CollisionDetector`` (collision.py) decides contact from them
with per-joint thresholds and hysteresis.  After Haddadin, De Luca and
Albu-Schaeffer, "Robot Collisions: A Survey on Detection, Isolation, and
Identification", IEEE T-RO 33(6), 2017.
"""
