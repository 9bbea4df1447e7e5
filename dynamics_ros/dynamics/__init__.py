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
Dynamics algorithms over a RobotModel or a MimicModel (no ROS).

Every public function (``inverse_dynamics``, ``mass_matrix``, ...) is an
``Operation`` of ``dispatch.py``: compiled (``dynamics_ros.fast``) when
numba is installed, else its numpy ``reference_*`` function.  All of them
take one state, per-joint arguments of shape (nq,), or a batch: (N, nq)
arrays, an (nq,) one then shared by all N states (external wrenches (nq, 6)
shared, or (N, nq, 6)); the results are stacked (N, ...).  ``out=`` takes
arrays to write the results into and returns them (a tuple for several
results), each float64, C-contiguous and of its result's shape: a caller
that evaluates many batches keeps its memory instead of getting new arrays.
"""
