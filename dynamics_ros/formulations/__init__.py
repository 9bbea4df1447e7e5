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
The papers' formulations of manipulator dynamics, as independent references.

Not used by the fast path (dynamics_ros.dynamics); tests hold each equal to
it and to the others, and benchmarks/op_counts.py counts their operations.

- lagrange: Uicker/Kahn 4x4 Lagrangian in Lewis's form (Turney et al. sec. 2)
- lagrange_turney: the same torques in the organisation Turney's Appendix
  counts (Table 2), for operation counting
- newton_euler_links: Luh-Walker-Paul Newton-Euler in link frames (sec. 3)
- modified_newton_euler: Turney's A_i / K_i Newton-Euler (sec. 5)
- strobing: M, C and G by strobing inverse dynamics (end of sec. 3)
- nasser: Nasser's 6x6 inbound/outbound forward dynamics (chains, trees)
- kane: Kane & Levinson's explicit equations, generated with sympy
- op_counts: counting multiplications and additions
"""

from .kane import kane_equations, KaneEquations
from .lagrange import lagrange_coriolis_tensor, lagrange_gravity, \
    lagrange_inverse_dynamics, lagrange_mass_matrix
from .modified_newton_euler import modified_newton_euler_inverse_dynamics
from .nasser import nasser_forward_dynamics
from .newton_euler_links import newton_euler_inverse_dynamics
from .strobing import strobe_bias, strobe_coriolis_matrix, \
    strobe_coriolis_tensor, strobe_gravity, strobe_mass_matrix

__all__ = [
    'KaneEquations', 'kane_equations', 'lagrange_coriolis_tensor',
    'lagrange_gravity', 'lagrange_inverse_dynamics', 'lagrange_mass_matrix',
    'modified_newton_euler_inverse_dynamics', 'nasser_forward_dynamics',
    'newton_euler_inverse_dynamics', 'strobe_bias', 'strobe_coriolis_matrix',
    'strobe_coriolis_tensor', 'strobe_gravity', 'strobe_mass_matrix',
]
