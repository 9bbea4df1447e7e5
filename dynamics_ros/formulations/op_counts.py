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
Counting the multiplications and additions of each formulation.

Two ways, as the papers count:

- ``Counted`` numbers run the numeric implementations (lagrange,
  newton_euler_links, modified_newton_euler, strobing, nasser) with q, qd,
  qdd or tau as counted variables and the model's parameters as constants.
  An operation between two constants is folded (done once, off line); one
  with a 0 or +-1 constant is free (the structural zeros of z = (0, 0, 1),
  of the DH rotation, of Q, of pseudo-inertias...); negation is free.  A
  constant within ``STRUCTURAL_TOLERANCE`` of 0 or +-1 is that exact value:
  a term that is zero in exact arithmetic may come out of numpy's products
  of constants as 0 or as 1e-17, depending on the BLAS kernel's rounding
  (FMA or not, order of the sums), and a count must not depend on the
  machine.  The generic chains are counted on their DH tables' own numbers
  (``dh_chain(table)``), not read back from a model (``dh_chain(from_dh(
  table))`` turns them through rotations and leaves such residues).
  Everything else is one multiplication (divisions included, also counted
  apart) or one addition (subtractions included).  sin/cos are counted apart.
- ``count_source`` walks the syntax tree of generated code (Kane's explicit
  equations) with the same rules: x**k is k-1 multiplications.
- ``count_by_statement`` splits a counted run by the assignment statement
  of one module that did each operation, for per-term tables such as
  Turney's Tables 3 and 4.
- ``turney_lagrange_term_counts`` runs lagrange_turney (Lagrange as
  Turney's Appendix organises it, every matrix entry counted: full 4x4
  products) and splits the count by its phases, the rows of his Table 2.
- ``count_flexible`` runs dynamics_ros.flexible's inverse dynamics on
  object arrays of counted numbers, for Mackay's Table 4.1.
- ``critical_path`` follows each counted number's longest chain of
  operations back to the inputs: the steps of a parallel schedule with
  as many processors as needed (Turney's Table 5, ``turney_parallel_steps``).

``PUBLISHED`` holds the papers' own counts.
"""

import ast
from dataclasses import dataclass
import inspect
import sys

import numpy as np

from ..model.dh import DHTable, from_dh
from ..model.robot_model import REVOLUTE


@dataclass
class Count:
    """
    Operations of one run: multiplications, additions, divisions, trig.

    Divisions are among the multiplications too (module notes).
    """

    mults: int = 0
    adds: int = 0
    divs: int = 0
    trig: int = 0

    def __add__(self, other):
        """Return the sum of two counts."""
        return Count(self.mults + other.mults, self.adds + other.adds,
                     self.divs + other.divs, self.trig + other.trig)


# Constants this close to 0 or +-1 are structural zeros and ones (module
# notes).  The models' parameters are SI lengths, masses and inertias of
# arms, far above it; round-off residues of products of O(1) constants are
# near 1e-16, far below it.
STRUCTURAL_TOLERANCE = 1e-12


def _is_constant(value):
    return isinstance(value, (int, float, np.number))


def _structural(value):
    """Return 0.0, 1.0 or -1.0 for a structural constant, else None."""
    if not _is_constant(value):
        return None
    for exact in (0.0, 1.0, -1.0):
        if abs(value - exact) <= STRUCTURAL_TOLERANCE:
            return exact
    return None


def _longest(first, second):
    """Return the longer of two (mults, adds) chains; ties: more mults."""
    return max(first, second, key=lambda path: (path[0] + path[1], path[0]))


def _path_of(value):
    return value.path if isinstance(value, Counted) else (0, 0)


class Counted:
    """
    A scalar variable whose arithmetic is counted in ``counter``.

    ``path`` is (multiplications, additions) along the longest chain of
    counted operations that produced it from the inputs (which start at
    (0, 0)): its step in a schedule with unlimited processors, one
    operation a step.  Free operations (negation, x 0, x +-1) and sin/cos
    (all joints' at once, before any step; Turney's tables leave them out)
    add no step.
    """

    __slots__ = ('value', 'counter', 'path')

    def __init__(self, value, counter, path=(0, 0)):
        """Wrap a float ``value``; operations are added to ``counter``."""
        self.value = float(value)
        self.counter = counter
        self.path = path

    def _new(self, value, path=None):
        return Counted(value, self.counter,
                       self.path if path is None else path)

    def _step(self, other, mults, adds):
        """Return the path of an operation on self and ``other``."""
        longest = _longest(self.path, _path_of(other))
        return (longest[0] + mults, longest[1] + adds)

    @staticmethod
    def _value(other):
        return other.value if isinstance(other, Counted) else float(other)

    def __neg__(self):
        """Negate (free)."""
        return self._new(-self.value)

    def __pos__(self):
        """Return self."""
        return self

    def _added(self, other, sign):
        """Return self + sign * other; free with a constant 0."""
        if isinstance(other, np.ndarray):
            return NotImplemented   # numpy then works element by element
        if _structural(other) == 0.0:
            return self
        self.counter.adds += 1
        path = self._step(other, 0, 1)
        other = self._value(other)
        return self._new(self.value + other if sign > 0
                         else self.value - other, path)

    def __add__(self, other):
        """Add; free with a constant 0."""
        return self._added(other, 1)

    __radd__ = __add__

    def __sub__(self, other):
        """Subtract; free with a constant 0."""
        return self._added(other, -1)

    def __rsub__(self, other):
        """Subtract from a constant; free from 0."""
        if _structural(other) == 0.0:
            return -self
        self.counter.adds += 1
        return self._new(float(other) - self.value, self._step(None, 0, 1))

    def __mul__(self, other):
        """Multiply; free by a constant 0 or +-1."""
        if isinstance(other, np.ndarray):
            return NotImplemented
        exact = _structural(other)
        if exact == 0.0:
            return 0.0
        if exact == 1.0:
            return self
        if exact == -1.0:
            return -self
        self.counter.mults += 1
        return self._new(self.value * self._value(other),
                         self._step(other, 1, 0))

    __rmul__ = __mul__

    def __truediv__(self, other):
        """Divide (a multiplication, also counted as a division)."""
        if isinstance(other, np.ndarray):
            return NotImplemented
        if _structural(other) in (1.0, -1.0):
            return self * other
        self.counter.mults += 1
        self.counter.divs += 1
        return self._new(self.value / self._value(other),
                         self._step(other, 1, 0))

    def __rtruediv__(self, other):
        """Divide a constant by this variable."""
        self.counter.mults += 1
        self.counter.divs += 1
        return self._new(float(other) / self.value, self._step(None, 1, 0))

    def __pow__(self, power):
        """Raise to a small integer power: power - 1 multiplications."""
        self.counter.mults += int(power) - 1
        return self._new(self.value ** power,
                         self._step(None, int(power) - 1, 0))

    def cos(self):
        """Return the cosine (one trigonometric call)."""
        self.counter.trig += 1
        return self._new(np.cos(self.value))

    def sin(self):
        """Return the sine (one trigonometric call)."""
        self.counter.trig += 1
        return self._new(np.sin(self.value))

    def __float__(self):
        """Return the value."""
        return self.value


def counted_vector(values, counter):
    """Return a list of Counted variables."""
    return [Counted(v, counter) for v in values]


def value_of(result):
    """Return the float value(s) of a counted result."""
    return np.vectorize(float, otypes=[float])(np.asarray(result,
                                                          dtype=object))


def generic_chain(n, seed=0, principal_axes=False):
    """
    Return a DH table of an n-joint revolute chain without special values.

    Twists, lengths and offsets are random (no 0 or 90 degrees, which would
    make operations free), inertias are full tensors, gravity is -z of frame
    0: the general manipulator the papers' formulas count.  With
    ``principal_axes`` each inertia is diagonal in its link frame (Turney's
    assumption for K_i in the modified Newton-Euler count).
    """
    rng = np.random.default_rng(seed)
    inertia = []
    for _ in range(n):
        A = rng.normal(size=(3, 3))
        inertia.append(A @ A.T + np.eye(3))
        if principal_axes:
            inertia[-1] = np.diag(np.diag(inertia[-1]))
    return DHTable(
        a=rng.uniform(0.1, 0.5, n), alpha=rng.uniform(0.2, 1.3, n),
        d=rng.uniform(0.1, 0.5, n), theta=np.zeros(n),
        joint_type=np.full(n, REVOLUTE), mass=rng.uniform(1.0, 5.0, n),
        com=rng.uniform(-0.2, 0.2, (n, 3)), inertia_com=np.array(inertia))


def count_call(function, *inputs):
    """
    Run ``function(*inputs_as_counted)``; return (Count, float result).

    Each input is a float sequence made of counted variables, or None to
    pass through; the function's other arguments must be bound already.
    """
    counter = Count()
    args = [counted_vector(x, counter) if x is not None else None
            for x in inputs]
    result = function(*args)
    return counter, value_of(result)


def critical_path(function, *inputs):
    """
    Run ``function`` on counted inputs; return its longest chain of steps.

    Returns ((mults, adds) along the longest chain of dependent operations
    ending at any counted output, the Count of the whole run, the float
    result).  The dependency graph is the one the code evaluates: a sum
    is added up in the order written, not as a tree.
    """
    counter = Count()
    args = [counted_vector(x, counter) if x is not None else None
            for x in inputs]
    result = function(*args)
    path = (0, 0)
    for value in np.asarray(result, dtype=object).ravel():
        path = _longest(path, _path_of(value))
    return path, counter, value_of(result)


def turney_parallel_steps(n, seed=0, principal_axes=False):
    """
    Critical path of the modified Newton-Euler on a generic n-link chain.

    Turney et al.'s Table 5 ("simultaneous steps in N-E computation", 27n
    + 42 multiplications and 27n + 41 additions) schedules whole terms
    (omega_i, alpha_i, A_i, a_i, ... each done serially) concurrently
    across links.  Here every operation is its own step as soon as its
    operands exist (unlimited processors): the steps are the longest chain
    of the dependency graph that ``modified_newton_euler`` evaluates.
    Returns ((mults, adds) along that chain, the Count of all operations).
    """
    from .chain import dh_chain
    from .modified_newton_euler import modified_newton_euler_inverse_dynamics

    chain = dh_chain(generic_chain(n, seed, principal_axes))
    q, qd, qdd = np.random.default_rng(seed).uniform(-1.0, 1.0, (3, n))
    path, count, _ = critical_path(
        lambda a, b, c: modified_newton_euler_inverse_dynamics(
            chain, a, b, c), q, qd, qdd)
    return path, count


class _StatementCount(Count):
    """A Count that also books each operation to a statement of a module."""

    def __init__(self, filename, labels):
        """Book operations done by ``filename``'s lines as ``labels[line]``."""
        object.__setattr__(self, '_file', filename)
        object.__setattr__(self, '_labels', labels)
        object.__setattr__(self, 'by_label', {})
        super().__init__()

    def __setattr__(self, name, value):
        """Set a field; book the increment to the calling statement."""
        previous = self.__dict__.get(name)
        object.__setattr__(self, name, value)
        if previous is None or name not in ('mults', 'adds', 'divs',
                                            'trig'):
            return
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename != self._file:
            frame = frame.f_back
        label = (self._labels.get(frame.f_lineno, 'other')
                 if frame is not None else 'other')
        entry = self.by_label.setdefault(label, Count())
        setattr(entry, name, getattr(entry, name) + value - previous)


def statement_labels(module):
    """
    Map each line of ``module``'s assignments to the assigned target.

    A multi-line statement books all its lines to its target, written as in
    the source ('omega_i', 'tau[i]'); a return statement to its function
    ('acceleration_operator()').
    """
    labels = {}
    tree = ast.parse(inspect.getsource(module))
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef):
            for node in ast.walk(function):
                if isinstance(node, ast.Return):
                    for line in range(node.lineno, node.end_lineno + 1):
                        labels[line] = function.name + '()'
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [node.target])
            label = ', '.join(ast.unparse(t) for t in targets)
            for line in range(node.lineno, node.end_lineno + 1):
                labels[line] = label
    return labels


def count_by_statement(module, function, *inputs):
    """
    Run ``function`` on counted inputs; split the count by statement.

    Returns ({target: Count} for the assignments of ``module`` that did
    operations, the total Count); operations done elsewhere are booked to
    the innermost statement of ``module`` on the call stack, those with
    none to 'other'.
    """
    counter = _StatementCount(inspect.getsourcefile(module),
                              statement_labels(module))
    args = [counted_vector(x, counter) if x is not None else None
            for x in inputs]
    function(*args)
    total = Count(counter.mults, counter.adds, counter.divs, counter.trig)
    return dict(counter.by_label), total


def count_source(source, function_names):
    """
    Count the operations of functions in generated Python source.

    Returns a Count over the named functions' bodies: Mult/Div and x**k
    (k - 1) as multiplications, Add/Sub as additions, calls of cos and sin as
    trig; unary minus is free.
    """
    tree = ast.parse(source)
    total = Count()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name in function_names:
            total = total + _count_node(node)
    return total


def _count_node(node):
    count = Count()
    for child in ast.walk(node):
        if isinstance(child, ast.BinOp):
            if isinstance(child.op, ast.Mult):
                count.mults += 1
            elif isinstance(child.op, ast.Div):
                count.mults += 1
                count.divs += 1
            elif isinstance(child.op, (ast.Add, ast.Sub)):
                count.adds += 1
            elif isinstance(child.op, ast.Pow):
                count.mults += int(ast.literal_eval(child.right)) - 1
        elif isinstance(child, ast.AugAssign):
            count.adds += isinstance(child.op, (ast.Add, ast.Sub))
        elif (isinstance(child, ast.Call)
              and isinstance(child.func, ast.Name)
              and child.func.id in ('cos', 'sin')):
            count.trig += 1
    return count


def count_formulations(source, kane=True, seed=0):
    """
    Count every formulation on one model (RobotModel) or n (generic chain).

    Returns {name: Count}: inverse dynamics (tau from q, qd, qdd) for
    Lagrange, Newton-Euler, modified Newton-Euler and Kane; forward dynamics
    (qdd from q, qd, tau) for Nasser; M(q) by strobing.
    """
    from .chain import dh_chain
    from .kane import kane_source
    from .lagrange import lagrange_inverse_dynamics
    from .modified_newton_euler import \
        modified_newton_euler_inverse_dynamics
    from .nasser import nasser_forward_dynamics, NasserLinks
    from .newton_euler_links import newton_euler_inverse_dynamics
    from .strobing import strobe_mass_matrix

    if isinstance(source, int):
        # The DH formulations run on the table's own numbers; Nasser and
        # Kane take the model built from it (its frames are products of
        # the table's rotations with exact zeros and ones, no residues).
        table = generic_chain(source, seed)
        model = from_dh(table)
        chain = dh_chain(table)
    else:
        model = source
        chain = dh_chain(model)
    n = chain.n
    rng = np.random.default_rng(seed)
    q, qd, qdd = rng.uniform(-1.0, 1.0, (3, n))
    counts = {}
    for name, function in (
            ('lagrange', lagrange_inverse_dynamics),
            ('newton_euler', newton_euler_inverse_dynamics),
            ('modified_newton_euler',
             modified_newton_euler_inverse_dynamics)):
        counts[name] = count_call(
            lambda a, b, c, f=function: f(chain, a, b, c), q, qd, qdd)[0]
    links = NasserLinks(model)
    counts['nasser'] = count_call(
        lambda a, b, c: nasser_forward_dynamics(model, a, b, c, links=links),
        q, qd, qdd)[0]

    def strobed(a):
        return strobe_mass_matrix(chain, a, inverse=lambda x, y, z, g: (
            newton_euler_inverse_dynamics(chain, x, y, z, gravity=g)))
    counts['strobed_mass_matrix'] = count_call(strobed, q)[0]
    if kane:
        counts['kane'] = count_source(kane_source(model), (
            'inverse_dynamics_u', 'speeds', 'speed_derivatives'))
    return counts


def _turney_lagrange(n):
    # (81/6)n^3 + (165/2)n^2 + 5n and (40/3)n^3 + 58n^2 - (64/3)n, in
    # integers (both numerators divide exactly for every n).
    return ((81 * n ** 3 + 495 * n ** 2 + 30 * n) // 6,
            (40 * n ** 3 + 174 * n ** 2 - 64 * n) // 3)


PUBLISHED = {
    # name: (source, n -> (mults, adds)) or a fixed pair for one robot.
    'lagrange': ('Turney et al. 1980, Table 1', _turney_lagrange),
    'newton_euler': ('Turney et al. 1980, Table 1',
                     lambda n: (108 * n - 12, 100 * n - 9)),
    'newton_euler_lwp': ('Luh-Walker-Paul as counted by Hollerbach 1980 '
                         '(Mackay, Table 1.1)',
                         lambda n: (150 * n - 48, 131 * n - 48)),
    'modified_newton_euler': ('Turney et al. 1980, Table 1',
                              lambda n: (90 * n - 27, 88 * n - 24)),
    'nasser': ('Nasser, sec. 3.3 (N = links incl. the base: N = n + 1)',
               lambda n: (258 * (n + 1) - 119, 191 * (n + 1) - 83)),
    'nasser_n_links': ('Nasser, sec. 3.3 (N = n)',
                       lambda n: (258 * n - 119, 191 * n - 83)),
    # Mackay 1988, Table 1.1 (from Brady): general-chain laws; Uicker-Kahn's
    # printed n = 6 values have the two columns swapped.
    'uicker_kahn': ('Uicker-Kahn (Mackay, Table 1.1)',
                    lambda n: (25 * n ** 4 + 66 * n ** 3 + 129 * n ** 2
                               + 42 * n - 96,
                               32 * n ** 4 + 86 * n ** 3 + 171 * n ** 2
                               + 53 * n - 128)),
    'hollerbach_4x4': ('Hollerbach 4x4 recursive Lagrange (Mackay, Table '
                       '1.1)', lambda n: (830 * n - 592, 675 * n - 464)),
    'hollerbach_3x3': ('Hollerbach 3x3 recursive Lagrange (Mackay, Table '
                       '1.1)', lambda n: (412 * n - 277, 320 * n - 201)),
    # Parallel steps, not operations.
    'modified_newton_euler_parallel': (
        'Turney et al. 1980, Table 5 (simultaneous steps)',
        lambda n: (27 * n + 42, 27 * n + 41)),
}

STANFORD_ARM_PUBLISHED = [
    # Kane & Levinson 1983, p. 17 (line 854): tau from q, qd, qdd.
    ('Lagrangian (Hollerbach 1980)', 2195, 1719),
    ('Newton-Euler (Walker & Orin 1982)', 1541, 1196),
    ('Hollerbach NE or Silver Lagrangian', 852, 738),
    ('Kane & Levinson, eqs. 118-123', 646, 394),
]


# Turney, Mudge and Lee 1980, Tables 3 and 4, grouped where our statements
# do several of their terms at once: (their terms, mults (a, b) and adds
# (c, d) meaning a n + b and c n + d, our statements in newton_euler_links
# or modified_newton_euler).
TURNEY_TERMS = {
    'newton_euler': [
        ('omega_i', (9, 0), (7, 0), ('omega_i',)),
        ('alpha_i', (9, 0), (9, 0), ('alpha_i',)),
        ('A_i, a_i', (24, 0), (24, 0), ('accel_i',)),
        ('a-bar_i', (9, 0), (9, 0), ('accel_bar',)),
        ('f_i, I alpha, omega x I omega, m(r + r-bar) x a-bar, '
         'r x R f, R n, add n', (57, -12), (51, -9),
         ('force', 'moment', '(force_out, moment_out)')),
        ('(not counted) tau_i = z . n_i', (0, 0), (0, 0), ('tau[i]',)),
        ('(not counted) cos, sin and R_i', (0, 0), (0, 0), ('(c, s, d)', 'R')),
    ],
    'modified_newton_euler': [
        ('omega_i', (9, 0), (7, 0), ('omega_i',)),
        ('alpha_i', (9, 0), (9, 0), ('alpha_i',)),
        ('A_i', (6, 0), (9, 0),
         ('(xx, yy, zz)', '(xy, xz, yz)', 'acceleration_operator()')),
        ('a_i, m_i a-bar_i', (30, -18), (24, -15),
         ('accel', 'carried', 'inertial_force')),
        ('f_i, Tr{A K sigma^t}, m(r + r-bar) x a-bar, r x R f, R n, '
         'add n', (36, -9), (39, -9),
         ('force', 'moment', 'trace_vector_of()', 'entry()',
          '(force_out, moment_out)')),
        ('(not counted) tau_i = z . n_i', (0, 0), (0, 0), ('tau[i]',)),
        ('(not counted) cos, sin and R_i', (0, 0), (0, 0), ('(c, s, d)', 'R')),
    ],
}


def turney_term_counts(name, n, seed=0, principal_axes=False):
    """
    Count ``name`` (a TURNEY_TERMS key) on a generic chain, term by term.

    Returns [(their terms, ours Count, published (mults, adds))] in the
    order of TURNEY_TERMS; the statements cover the whole count.
    """
    from . import modified_newton_euler, newton_euler_links
    from .chain import dh_chain

    module, function = {
        'newton_euler': (newton_euler_links,
                         newton_euler_links.newton_euler_inverse_dynamics),
        'modified_newton_euler': (
            modified_newton_euler,
            modified_newton_euler.modified_newton_euler_inverse_dynamics),
    }[name]
    chain = dh_chain(generic_chain(n, seed, principal_axes))
    q, qd, qdd = np.random.default_rng(seed).uniform(-1.0, 1.0, (3, n))
    by_label, total = count_by_statement(
        module, lambda a, b, c: function(chain, a, b, c), q, qd, qdd)
    rows, booked = [], Count()
    for terms, (a, b), (c, d), labels in TURNEY_TERMS[name]:
        ours = Count()
        for label in labels:
            ours = ours + by_label.get(label, Count())
        booked = booked + ours
        rows.append((terms, ours, (a * n + b, c * n + d)))
    if booked != total:
        raise AssertionError('statements not in TURNEY_TERMS: %s' % sorted(
            set(by_label) - {label for row in TURNEY_TERMS[name]
                             for label in row[3]}))
    return rows


# Turney, Mudge and Lee 1980, Table 2 (Lagrange), row by row: (their term,
# the phase of lagrange_turney that does it, n -> (mults, adds)).  The rows
# sum to Table 1's Lagrange count; the phases without a row are operations
# Table 2 does not list.
TURNEY_TABLE_2 = [
    ('T_j^i', 'T_j^i', lambda n: (32 * n * (n - 1), 24 * n * (n - 1))),
    ('dT_0^i/dq_j', 'dT', lambda n: (32 * n * (n - 1), 24 * n * (n - 1))),
    ('d2T_0^i/dq_j dq_k', 'd2T',
     lambda n: (32 * n * (n * n - 1) // 3, 8 * n * (n * n - 1))),
    ('[sum_j dT qdd_j + sum_jk d2T qd_j qd_k] J_q^a', 'delta',
     lambda n: ((17 * n ** 3 + 51 * n ** 2 + 418 * n) // 6,
                (16 * n ** 3 + 80 * n) // 3)),
    ('Tr{delta_q dT_0^q/dq_i}', 'trace',
     lambda n: (8 * n * n + 8 * n, 8 * n * n + 7 * n)),
    ('sum_q z0^t dT_0^q/dq_i m_q g r-bar_q', 'gravity',
     lambda n: (2 * n * n + 2 * n, 2 * n * n + n)),
    ('(not in Table 2) cos, sin and T_{i-1}^i', 'link transforms',
     lambda n: (0, 0)),
    ('(not in Table 2) tau_i = kinetic_i + gravity_i', 'tau',
     lambda n: (0, 0)),
]


def turney_lagrange_term_counts(source, seed=0):
    """
    Count Lagrange in Turney's Appendix organisation, row by row of Table 2.

    ``source`` is n (a generic chain) or a model.  Returns ([(their term,
    ours Count, published (mults, adds))] in the order of TURNEY_TABLE_2,
    the model, the state (q, qd, qdd) and the counted run's torques as
    floats); the rows cover the whole count.  Every matrix entry is a
    counted number (lagrange_turney module notes): Turney counts full 4x4
    products.
    """
    from .lagrange_turney import PHASES, turney_lagrange_inverse_dynamics

    if isinstance(source, int):
        # Counted on the table's own numbers (module notes); the model is
        # returned for the callers' checks against other implementations.
        table = generic_chain(source, seed)
        model = from_dh(table)
    else:
        table = model = source
    n = len(model.joint_names)
    q, qd, qdd = np.random.default_rng(seed).uniform(-1.0, 1.0, (3, n))
    counter = Count()
    booked = {}
    mark = [Count()]

    def on_phase(name):
        now = Count(counter.mults, counter.adds, counter.divs, counter.trig)
        before = mark[0]
        booked[name] = Count(now.mults - before.mults, now.adds - before.adds,
                             now.divs - before.divs, now.trig - before.trig)
        mark[0] = now

    tau = turney_lagrange_inverse_dynamics(
        table, *(counted_vector(x, counter) for x in (q, qd, qdd)),
        entry=lambda value: Counted(value, counter), on_phase=on_phase)
    if sorted(booked) != sorted(PHASES):
        raise AssertionError('phases not booked: %s' % sorted(
            set(PHASES) - set(booked)))
    rows = [(term, booked[phase], law(n))
            for term, phase, law in TURNEY_TABLE_2]
    return rows, model, (q, qd, qdd), value_of(tau)


# Mackay 1988, Table 4.1: inverse dynamics of his three-link arm (sec.
# 3.3.5; links 2 and 3 flexible), by modes per bending plane of each
# flexible link: {modes: (mults, adds)}.  The S_i (joint mass) transform's
# cost is left out of every row.
MACKAY_TABLE_4_1 = {
    'FLX': {0: (4637, 2715), 1: (10345, 8513), 2: (18117, 15223)},
    'SYMFLX, raw output': {0: (638, 300), 1: (3210, 1648)},
    'SYMFLX, unused Z### removed': {0: (445, 213), 1: (2659, 1313)},
    'Uicker-Kahn (Table 1.1 at n = 3)': {0: (4998, 6484)},
    'Hollerbach 4x4 (Table 1.1 at n = 3)': {0: (1898, 1561)},
}


def _snapped(matrix):
    """Snap entries within STRUCTURAL_TOLERANCE of 0 or +-1 to them."""
    matrix = np.array(matrix, dtype=float)
    for exact in (-1.0, 0.0, 1.0):
        matrix[np.abs(matrix - exact) <= STRUCTURAL_TOLERANCE] = exact
    return matrix


def count_flexible(fm, seed=0, organisation='recursive', every_entry=False):
    """
    Count the inverse dynamics of a FlexibleModel on counted numbers.

    The float code of dynamics_ros.flexible runs on object arrays of
    Counted numbers (z, zd, zdd; the model's constants stay floats).
    ``organisation``: 'recursive' counts flexible.inverse_dynamics (one
    forward and one backward pass, Book's recursion); 'inertia' counts
    FLX's way, I(z) zdd + (the same forces at zdd = 0): the inertia matrix
    by flexible.mass_matrix, then the product.  The joint origins are
    snapped to exact 0 and +-1 first: a URDF's right angles give cos(pi/2)
    = 6e-17, not the structural zero the arm has.  With ``every_entry``
    the model's matrices (joint origins and generators, mass integrals C,
    C_k, C_kj, section matrices N) are counted numbers too, so that no
    zero or one in them is free: what a numeric routine multiplying
    general 4x4 matrices does, as FLX.  The state is random: joints and
    rates in [-1, 1], modal amplitudes 100 times smaller.

    Returns (Count, (z, zd, zdd), the counted run's generalized forces as
    floats).
    """
    import copy

    from ..flexible.inverse_dynamics import generalized_forces
    from ..flexible.kinematics import forward_pass
    from ..flexible.mass_matrix import mass_matrix_of_pass

    counter = Count()
    counted_model = copy.copy(fm)
    counted_model.origin = [_snapped(origin) for origin in fm.origin]
    if every_entry:
        entry = np.vectorize(lambda value: Counted(value, counter),
                             otypes=[object])
        for name in ('origin', 'generator', 'generator_squared', 'C', 'Ck',
                     'Ckj', 'Ck_symmetric'):
            setattr(counted_model, name, [
                entry(matrix) if matrix.size else matrix
                for matrix in getattr(counted_model, name)])
        counted_model.attachment = [None if N is None else entry(N)
                                    for N in fm.attachment]
    rng = np.random.default_rng(seed)
    z, zd, zdd = rng.uniform(-1.0, 1.0, (3, fm.nz))
    z[fm.nq:] *= 0.01
    zd[fm.nq:] *= 0.01
    zdd[fm.nq:] *= 0.01
    cz, czd, czdd = (np.array(counted_vector(x, counter), dtype=object)
                     for x in (z, zd, zdd))
    if organisation == 'recursive':
        force = generalized_forces(counted_model, cz, czd, czdd)
    elif organisation == 'inertia':
        zero = np.zeros(fm.nz)
        fwd = forward_pass(counted_model, cz, czd, zero)
        bias = generalized_forces(counted_model, cz, czd, zero, fwd=fwd)
        inertia = mass_matrix_of_pass(counted_model, fwd, cz)
        force = inertia.dot(czdd) + bias
    else:
        raise ValueError("organisation must be 'recursive' or 'inertia', "
                         'got %r' % (organisation,))
    return counter, (z, zd, zdd), value_of(force)
