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
System identification: inertial parameters and joint friction from data.

ROS-free.  ``base_parameters`` (which combinations the data can see),
``fit`` (least squares, physically consistent as an SDP), ``excitation``
(Fourier trajectories), ``recording`` (bags and CSV in, checked),
``chunks`` (normal equations summed chunk by chunk), ``parallel`` (the
chunks in process or on Dask), ``output`` (URDF, friction YAML and report
out), ``pipeline`` (the named steps, as the CLI runs them).
"""

# Recording time per job, s (``identify --chunk-seconds``): below a second
# the jobs' overhead (and their filter edges) outweighs their work, above a
# day a job is the recording.  Here, not in pipeline, so the command line
# checks it without importing the numerical modules.
CHUNK_SECONDS_BOUNDS = (1.0, 86400.0)
