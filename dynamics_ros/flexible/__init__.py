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
Flexible links after Mackay (1988): assumed modes in Book's 4x4 Lagrangian.

Notes: docs/papers/mackay_1988.md.  A FlexibleModel is a RobotModel some of
whose links are uniform Euler-Bernoulli beams with clamped-free modes; its
coordinates are z = (joint coordinates, modal amplitudes).
"""

from .config import load_flexible
from .link import FlexibleLink, RigidPart
from .model import FlexibleModel

__all__ = ['FlexibleLink', 'FlexibleModel', 'RigidPart', 'load_flexible']
