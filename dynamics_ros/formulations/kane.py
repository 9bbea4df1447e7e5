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
Kane's method: explicit equations of motion generated for a given tree.

Kane and Levinson, "The Use of Kane's Dynamical Equations in Robotics"
(IJRR 2(3), 1983).  With generalized speeds u = W(q) qd (eq. 1):

- each body's angular velocity omega and mass-centre velocity v* are written
  in the body's own basis (their trick (a): the inertia stays constant and
  alpha is the derivative of omega's components);
- partial angular velocities and partial velocities are the coefficients of
  u_r (eqs. 23, 44): here d omega / d u_r, d v* / d u_r;
- generalized inertia forces K*_r = sum omega_r . T* + v*_r . R*, with
  T* = -(I alpha + omega x I omega), R* = -m a* (eqs. 76-88), and
  generalized active forces from gravity and the joint actuators
  (eqs. 89-116); Kane's equations K_r + K*_r = 0 (eq. 117) are written as

      M_u(q) u_dot = F(q, u) + A(q) tau,      M_u = -X (App. 2),

  A(q) = (d qd / d u)^T mapping joint torques (this package's sign: torque on
  the child body) to generalized active forces.

Intermediate quantities are named once (their Z1..Z196, here a sympy
``Program``), and the result is printed as Python source: the "explicit
equations" of their eqs. 118-123, evaluated without any symbolic work at run
time.  Two choices of generalized speeds: ``joint_rates`` (u = qd) for any
tree, and ``stanford``, Kane and Levinson's u1..u3 = omega^D . d_i,
u4..u6 = qd4..qd6 (eqs. 2-11) for the shipped Stanford Arm, whose joint and
sign mapping is in urdf/stanford_arm.urdf.
"""

import ast
import atexit
import hashlib
import importlib
import importlib.util
import os
import shutil
import tempfile

import numpy as np
import sympy as sp

from .chain import cross
from .straight_line import number, print_expr, Program, wrap_line
from ..errors import ModelError
from ..model.robot_model import PRISMATIC, REVOLUTE

SPEEDS = ('joint_rates', 'stanford')
STANFORD_JOINT_TYPES = [REVOLUTE, REVOLUTE, PRISMATIC, REVOLUTE, REVOLUTE,
                        REVOLUTE]
GENERATED_STANFORD_MODULE = 'kane_stanford_arm'
# Stands for the joint names' literal until the source is wrapped.
NAMES_PLACEHOLDER = '__JOINT_NAMES_LITERAL__'


class Symbols:
    """Base symbols of an n-joint model: q, c, s, qd, qdd, u, ud, tau."""

    def __init__(self, n, joint_type):
        """Create the symbols; cos/sin symbols only for revolute joints."""
        def vector(name):
            return [sp.Symbol('%s%d' % (name, i)) for i in range(n)]
        self.n = n
        self.joint_type = list(joint_type)
        self.q, self.qd, self.qdd = vector('q'), vector('qd'), vector('qdd')
        self.u, self.ud, self.tau = vector('u'), vector('ud'), vector('tau')
        self.c, self.s = vector('c'), vector('s')

    def revolute(self, i):
        """Return True when joint i is revolute."""
        return self.joint_type[i] == REVOLUTE

    def rates(self, joint_rates):
        """Time derivatives of the base symbols given qd_i expressions."""
        rates = {}
        for i in range(self.n):
            if self.revolute(i):
                rates[self.c[i]] = -self.s[i] * joint_rates[i]
                rates[self.s[i]] = self.c[i] * joint_rates[i]
            else:
                rates[self.q[i]] = joint_rates[i]
        return rates

    def header(self, needs_q=True):
        """Return lines computing c_i, s_i (and prismatic q_i) from q."""
        lines = []
        for i in range(self.n):
            if self.revolute(i):
                lines.append('    c%d = cos(q[%d])' % (i, i))
                lines.append('    s%d = sin(q[%d])' % (i, i))
            elif needs_q:
                lines.append('    q%d = q[%d]' % (i, i))
        return lines


def _speed_definitions(symbols, speeds):
    """Return (u in terms of qd, qd in terms of u) for a choice of speeds."""
    if speeds == 'joint_rates':
        return list(symbols.qd), list(symbols.u)
    # Kane & Levinson eqs. 2-3 and 5-11; chain order joint1..joint6 is
    # Kane's q1, q2, q6, q3, q4, q5 (urdf/stanford_arm.urdf).
    c, s, qd, u = symbols.c, symbols.s, symbols.qd, symbols.u
    c2, s2, c3, s3 = c[1], s[1], c[3], s[3]
    speeds_of_rates = [
        qd[0] * s2 * s3 + qd[1] * c3,        # u1 = omega^D . d1 (eq. 5)
        qd[0] * c2 + qd[3],                  # u2 = omega^D . d2 (eq. 6)
        -qd[0] * s2 * c3 + qd[1] * s3,       # u3 = omega^D . d3 (eq. 7)
        qd[4], qd[5], qd[2]]                 # u4, u5, u6 (eq. 3)
    rate1 = (u[0] * s3 - u[2] * c3) / s2     # Z1 (eq. 8)
    rates_of_speeds = [
        rate1, u[0] * c3 + u[2] * s3,        # Z1, Z2 (eqs. 8-9)
        u[5], u[1] - rate1 * c2,             # q6_dot; Z3 (eq. 10)
        u[3], u[4]]                          # q4_dot, q5_dot (eq. 11)
    return speeds_of_rates, rates_of_speeds


def _joint_rotation(symbols, i, axis):
    """Rotation of a revolute joint about a numeric unit axis (Rodrigues)."""
    K = sp.Matrix([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]],
                   [-axis[1], axis[0], 0]])
    return sp.eye(3) + symbols.s[i] * K + (1 - symbols.c[i]) * K * K


def _numeric(matrix):
    """Return a 3x3 sympy matrix of numbers (exact 0 and integers)."""
    return sp.Matrix(3, 3, [number(v) for v in np.ravel(matrix)])


def _dot(a, b):
    return sum((x * y for x, y in zip(a, b)), sp.Integer(0))


def _mat_vec(M, v):
    return [sum((M[r, k] * v[k] for k in range(3)), sp.Integer(0))
            for r in range(3)]


def _mat_t_vec(M, v):
    return [sum((M[k, r] * v[k] for k in range(3)), sp.Integer(0))
            for r in range(3)]


class KaneGenerator:
    """Kane's method on a RobotModel, with named intermediate quantities."""

    def __init__(self, model, speeds='joint_rates'):
        """Derive M_u, F and A symbolically (no run-time symbolic work)."""
        if speeds not in SPEEDS:
            raise ModelError('speeds must be one of %s, got %r' % (
                ', '.join(SPEEDS), speeds))
        if speeds == 'stanford' and (
                list(model.joint_type) != STANFORD_JOINT_TYPES
                or list(model.parent) != list(range(-1, 5))):
            raise ModelError('the generalized speeds of Kane and Levinson '
                             'need the Stanford Arm chain (R R P R R R); '
                             'model %r is not one' % model.name)
        if np.any(np.asarray(model.armature) != 0.0):
            raise ModelError('model %r has joint armature, which the model '
                             'of Kane and Levinson does not include' %
                             model.name)
        self.model, self.speeds = model, speeds
        n = model.nq
        self.symbols = S = Symbols(n, model.joint_type)
        self.speeds_of_rates, rates_of_speeds = _speed_definitions(S, speeds)
        self.program = P = Program({}, prefix='z')
        self.joint_rates = P.define_all(rates_of_speeds)
        P.rates = S.rates(self.joint_rates)
        self._kinematics()
        self._equations()

    def _kinematics(self):
        """Omega, v* and gravity of each body in its own basis."""
        model, S, P = self.model, self.symbols, self.program
        n = model.nq
        zero = [sp.Integer(0)] * 3
        self.omega, self.v_star, self.gravity = [], [], []
        velocity = []
        for i in range(n):
            axis = [number(a) for a in model.axis[i]]
            origin = _numeric(model.origin_rotation[i])
            offset = [number(t) for t in model.origin_translation[i]]
            if S.revolute(i):
                R = origin * _joint_rotation(S, i, axis)
            else:
                R = origin
                slide = _mat_vec(origin, axis)
                offset = [o + d * S.q[i] for o, d in zip(offset, slide)]
            p = model.parent[i]
            w_p = self.omega[p] if p >= 0 else zero
            v_p = velocity[p] if p >= 0 else zero
            g_p = self.gravity[p] if p >= 0 else [
                number(g) for g in model.gravity]
            w = _mat_t_vec(R, w_p)
            moved = cross(w_p, offset)
            v = _mat_t_vec(R, [a + b for a, b in zip(v_p, moved)])
            rate = self.joint_rates[i]
            if S.revolute(i):
                w = [a + b * rate for a, b in zip(w, axis)]
            else:
                v = [a + b * rate for a, b in zip(v, axis)]
            w, v = P.define_all(w), P.define_all(v)
            com = [number(c) for c in model.com[i]]
            v_star = P.define_all([a + b for a, b in zip(v, cross(w, com))])
            self.omega.append(w)
            velocity.append(v)
            self.v_star.append(v_star)
            self.gravity.append(P.define_all(_mat_t_vec(R, g_p)))

    def _equations(self):
        """Partial velocities, generalized forces, M_u, F and A."""
        model, S, P = self.model, self.symbols, self.program
        n = model.nq
        partial_w = [[P.define_all([P.partial(c, u) for c in self.omega[i]])
                      for u in S.u] for i in range(n)]
        partial_v = [[P.define_all([P.partial(c, u) for c in self.v_star[i]])
                      for u in S.u] for i in range(n)]
        inertia_torque, inertia_force = [], []
        for i in range(n):
            inertia = _numeric(model.inertia_com[i])
            w = self.omega[i]
            alpha = [P.time_derivative(c) for c in w]     # u_dot = 0 part
            accel = [a + b for a, b in zip(
                [P.time_derivative(c) for c in self.v_star[i]],
                cross(w, self.v_star[i]))]
            torque = [a + b for a, b in zip(
                _mat_vec(inertia, alpha), cross(w, _mat_vec(inertia, w)))]
            mass = number(model.mass[i])
            force = [mass * (a - g) for a, g in zip(accel, self.gravity[i])]
            inertia_torque.append(P.define_all(torque))
            inertia_force.append(P.define_all(force))
        self.mass_matrix = sp.zeros(n, n)
        self.forcing = [sp.Integer(0)] * n
        for r in range(n):
            for i in range(n):
                self.forcing[r] -= (_dot(partial_w[i][r], inertia_torque[i])
                                    + _dot(partial_v[i][r], inertia_force[i]))
            for s in range(r + 1):
                value = sp.Integer(0)
                for i in range(n):
                    inertia = _numeric(model.inertia_com[i])
                    value += _dot(partial_w[i][r],
                                  _mat_vec(inertia, partial_w[i][s]))
                    value += number(model.mass[i]) * _dot(partial_v[i][r],
                                                          partial_v[i][s])
                self.mass_matrix[r, s] = self.mass_matrix[s, r] = value
        # Generalized active forces of the joint actuators: sum_j tau_j
        # d qd_j / d u_r (a torque on the child, its reaction on the parent).
        self.active_map = sp.Matrix(n, n, lambda r, j: P.partial(
            self.joint_rates[j], S.u[r]))

    # --- printing ---------------------------------------------------------

    def _function(self, name, arguments, outputs, doc, shape=None):
        S, P = self.symbols, self.program
        lines = ['', '', 'def %s(%s):' % (name, ', '.join(arguments)),
                 '    """%s"""' % doc]
        names = {str(x) for e in outputs for x in sp.sympify(e).free_symbols}
        names |= {str(x) for s in P.needed(outputs)
                  for x in P.definitions[s].free_symbols}
        lines += [line for line in S.header() if line.split()[0] in names]
        for argument in arguments[1:]:
            vector = getattr(S, argument)
            lines += ['    %s = %s[%d]' % (x, argument, i)
                      for i, x in enumerate(vector) if str(x) in names]
        lines += P.assignments(outputs)
        # A last common-subexpression pass over the outputs themselves.
        shared, outputs = sp.cse([sp.sympify(e) for e in outputs],
                                 symbols=sp.numbered_symbols('w'))
        lines += ['    %s = %s' % (x, print_expr(e)) for x, e in shared]
        body = [print_expr(e) for e in outputs]
        if shape is None:
            lines.append('    return np.array([%s])' % ', '.join(body))
        else:
            rows = [', '.join(body[r * shape[1]:(r + 1) * shape[1]])
                    for r in range(shape[0])]
            lines.append('    return np.array([%s])' % ', '.join(
                '[%s]' % row for row in rows))
        return lines

    def _kinematic_maps(self):
        """Functions u(q, qd), qd(q, u), u_dot(q, qd, qdd), qdd(q, u, ud)."""
        S = self.symbols
        lines = []
        lines += self._function('speeds', ['q', 'qd'], self.speeds_of_rates,
                                'Return the generalized speeds u = W(q) qd.')
        lines += self._function(
            'joint_rates', ['q', 'u'], [self.program.definitions.get(
                x, x) for x in self.joint_rates],
            'Return the joint rates qd = W(q)^-1 u.')
        # Derivatives through the speed definitions (their eqs. 8-11).
        by_rates = Program(S.rates(S.qd), prefix='a')
        by_rates.rates.update({x: y for x, y in zip(S.qd, S.qdd)})
        speed_dots = [by_rates.time_derivative(e)
                      for e in self.speeds_of_rates]
        by_speeds = Program({}, prefix='b')
        rates = by_speeds.define_all([self.program.definitions.get(x, x)
                                      for x in self.joint_rates])
        by_speeds.rates = S.rates(rates)
        by_speeds.rates.update({x: y for x, y in zip(S.u, S.ud)})
        joint_accels = [by_speeds.time_derivative(e) for e in rates]
        saved = self.program
        try:
            self.program = by_rates
            lines += self._function(
                'speed_derivatives', ['q', 'qd', 'qdd'], speed_dots,
                'Return u_dot = W(q) qdd + W_dot(q, qd) qd.')
            self.program = by_speeds
            lines += self._function(
                'joint_accelerations', ['q', 'u', 'ud'], joint_accels,
                'Return qdd from u and u_dot.')
        finally:
            self.program = saved
        return lines

    def source(self):
        """Return the Python source of the generated equations."""
        model, S = self.model, self.symbols
        n = model.nq
        flat_mass = [self.mass_matrix[r, s] for r in range(n)
                     for s in range(n)]
        flat_active = [self.active_map[r, j] for r in range(n)
                       for j in range(n)]
        # Inverse dynamics in one function (what Kane's 646/394 count):
        # tau = W^T (M_u u_dot - F), u and u_dot from q, qd, qdd.
        residual = [sum((self.mass_matrix[r, s] * S.ud[s]
                         for s in range(n)), sp.Integer(0))
                    - self.forcing[r] for r in range(n)]
        W = [[sp.diff(self.speeds_of_rates[r], S.qd[j]) for j in range(n)]
             for r in range(n)]
        tau = [sum((W[r][j] * residual[r] for r in range(n)), sp.Integer(0))
               for j in range(n)]
        # The model's and joints' names are the user's text: none goes into
        # a comment or the docstring, the joint names only as a checked
        # literal (``_literal``), on a line of its own (never wrapped).
        lines = [
            '# Generated by dynamics_ros.formulations.kane for a model of %d '
            'joints (speeds: %s).' % (n, self.speeds),
            '# Do not edit: regenerate with write_stanford_module() or '
            'kane_equations().',
            '# Machine-written expressions are exempt from style checks:',
            '# flake8: noqa',
            '"""',
            "Kane's explicit equations of motion of one model: generated "
            'code.', '',
            'Written by dynamics_ros.formulations.kane.kane_source(model, %r)'
            % self.speeds,
            "(for the shipped Stanford Arm: write_stanford_module()): Kane's",
            'method carried out in sympy, its expressions printed as',
            'straight-line Python.  Do not edit; regenerate instead.',
            '"""',
            '', 'from math import cos, sin', '', 'import numpy as np', '',
            'JOINT_NAMES = ' + NAMES_PLACEHOLDER,
            'SPEEDS = %s' % _literal(self.speeds),
            'MODEL_DIGEST = %s' % _literal(model_digest(model))]
        lines += self._function('mass_matrix', ['q'], flat_mass,
                                'Return M_u(q) (= -X of Kane & Levinson).',
                                shape=(n, n))
        lines += self._function('forcing', ['q', 'u'], self.forcing,
                                'Return F(q, u): gravity and velocity terms.')
        lines += self._function('active_map', ['q'], flat_active,
                                'Return A(q): generalized active forces per '
                                'joint torque.', shape=(n, n))
        lines += self._inverse_function(tau)
        lines += self._kinematic_maps()
        wrapped = [piece for line in lines for piece in wrap_line(line)]
        # Inserted after wrapping: wrap_line breaks at spaces, and a name
        # may hold spaces.
        names = _literal([str(name) for name in model.joint_names])
        return '\n'.join(wrapped).replace(NAMES_PLACEHOLDER, names, 1) + '\n'

    def _inverse_function(self, tau):
        """Return inverse_dynamics_u(q, u, ud) and its (q, qd, qdd) wrapper."""
        lines = self._function(
            'inverse_dynamics_u', ['q', 'u', 'ud'], tau,
            'Return joint torques from q, u and u_dot (explicit eqs.).')
        return lines + [
            '', '', 'def inverse_dynamics(q, qd, qdd):',
            '    """Return joint torques from q, qd and qdd."""',
            '    return inverse_dynamics_u(q, speeds(q, qd), '
            'speed_derivatives(q, qd, qdd))']


def _literal(value):
    """
    Return Python source that is exactly ``value`` (strings, lists of them).

    ``repr`` of a str is a literal whatever the str holds (quotes, newlines,
    code); checked by reading it back with ``ast.literal_eval``, which
    evaluates literals only, so no user text can become code.
    """
    text = repr(value)
    if ast.literal_eval(text) != value:
        raise ModelError('a name cannot be written as a Python literal')
    return text


def model_digest(model):
    """Return a short hash of everything Kane's equations depend on."""
    digest = hashlib.sha256()
    for array in (model.parent, model.joint_type, model.axis,
                  model.origin_rotation, model.origin_translation, model.mass,
                  model.com, model.inertia_com, model.gravity,
                  model.armature):
        digest.update(np.ascontiguousarray(array, dtype=float).tobytes())
    return digest.hexdigest()[:16]


class KaneEquations:
    """Run-time use of generated equations: forward and inverse dynamics."""

    def __init__(self, module):
        """Wrap a generated module (or namespace)."""
        self.module = module
        self.joint_names = list(module.JOINT_NAMES)
        self.speeds_name = module.SPEEDS

    def speeds(self, q, qd):
        """Return the generalized speeds u."""
        return self.module.speeds(q, qd)

    def mass_matrix(self, q):
        """Return M_u(q)."""
        return self.module.mass_matrix(q)

    def forcing(self, q, u):
        """Return F(q, u)."""
        return self.module.forcing(q, u)

    def forward_dynamics(self, q, qd, tau):
        """Return qdd: solve M_u u_dot = F + A tau, then map to joints."""
        u = self.module.speeds(q, qd)
        rhs = self.module.forcing(q, u) + self.module.active_map(q) @ tau
        ud = np.linalg.solve(self.module.mass_matrix(q), rhs)
        return self.module.joint_accelerations(q, u, ud)

    def inverse_dynamics(self, q, qd, qdd):
        """Return joint torques from the explicit equations."""
        return self.module.inverse_dynamics(q, qd, qdd)


_CACHE = {}
_GENERATED_FOLDER = []


def load_generated_module(source, name):
    """
    Import generated source as a module from a file of its own.

    The file lies in a private folder of this process (``mkdtemp``: mode
    0700, removed at exit), so a debugger and a traceback can show the
    generated lines, and nothing another user can write is imported.
    """
    if not _GENERATED_FOLDER:
        folder = tempfile.mkdtemp(prefix='dynamics_ros_kane_')
        atexit.register(shutil.rmtree, folder, True)
        _GENERATED_FOLDER.append(folder)
    path = os.path.join(_GENERATED_FOLDER[0], name + '.py')
    with open(path, 'w') as stream:
        stream.write(source)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def kane_source(model, speeds='joint_rates'):
    """Return the generated Python source of Kane's equations of a model."""
    return KaneGenerator(model, speeds).source()


def kane_equations(model, speeds='joint_rates'):
    """
    Return KaneEquations of a model, generating them once per model.

    The shipped Stanford Arm with ``speeds='stanford'`` loads the module
    generated into this package (``write_stanford_module``); other models are
    generated with sympy on first use and cached for the process.
    """
    # The digest covers the dynamics, not the names the module reports.
    key = (model_digest(model), speeds, tuple(model.joint_names))
    if key not in _CACHE:
        module = None
        if speeds == 'stanford':
            try:
                module = importlib.import_module(
                    '%s.%s' % (__package__, GENERATED_STANFORD_MODULE))
            except ImportError:  # not generated yet
                module = None
            if module is not None and (
                    module.MODEL_DIGEST != key[0]
                    or tuple(module.JOINT_NAMES) != key[2]):
                module = None
        if module is None:
            module = load_generated_module(
                kane_source(model, speeds), 'kane_generated_%s' % key[0])
        _CACHE[key] = KaneEquations(module)
    return _CACHE[key]


def stanford_module_path():
    """Return the path of the generated Stanford Arm module."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        GENERATED_STANFORD_MODULE + '.py')


def write_stanford_module(model):
    """Generate the Stanford Arm equations (Kane's speeds) into the package."""
    license_header = open(__file__, encoding='utf-8').read().split(
        '\n\n', 1)[0]
    with open(stanford_module_path(), 'w', encoding='utf-8') as stream:
        stream.write(license_header + '\n\n' + kane_source(model, 'stanford'))
    return stanford_module_path()
