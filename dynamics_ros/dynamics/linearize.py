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
State-space linearization of the manipulator dynamics.

State x = [q; qd] (2 nq), input u = tau (nq).  The dynamics

    d/dt [q; qd] = [qd; FD(q, qd, tau - damping * qd)]

are linearized about any operating point, not only equilibria:

    A = [[0, I], [dqdd/dq, dqdd/dqd]],   B = [[0], [M^-1]],

from the analytic derivatives (``aba_derivatives``).  This is Freeman's
(1985) eqs. 2-241...2-252 torque-input model, F21 = -I*^-1 dT/dphi,
F22 = -I*^-1 (dT/dphid + B_phi), G = I*^-1.  Away from an equilibrium the
perturbation dx, du obeys d(dx)/dt = A dx + B du to first order (the drift
f(x0, u0) is the nominal motion itself).

Joint friction conventions (URDF ``<dynamics>``):

- armature (rotor inertia) adds to the diagonal of M, as it already does in
  ``inverse_dynamics``, ``mass_matrix`` and ``forward_dynamics``;
- viscous damping is a torque against the motion, tau_applied = tau -
  damping * qd.  The core FD/ID leave it out, so it is added here: it
  changes qdd at the operating point and adds -M^-1 diag(damping) to the
  qd block of A;
- Coulomb friction (``model.friction``) is not differentiable at qd = 0 and
  is left out.

Discrete time (``dt``): zero-order hold, the exponential of the augmented
matrix, expm([[A, B], [0, 0]] dt) = [[A_d, B_d], [0, I]] (Van Loan 1978),
the same as ``scipy.signal.cont2discrete(..., method='zoh')``.

The continuous (A, B) are computed compiled (``dynamics_ros.fast.linearize``)
when numba is installed, else by the numpy reference path
(``reference_linearize``); the exponential is scipy's either way.
"""

import numpy as np
from scipy.linalg import expm

from . import mimic_dynamics
from .aba import reference_forward_dynamics
from .aba_derivatives import inverse_inertia
from .dispatch import dispatch, MATRIX, Operation
from .rnea import inverse_dynamics, reference_inverse_dynamics
from .rnea_derivatives import inverse_dynamics_derivatives, \
    reference_inverse_dynamics_derivatives
from ..fast.samples import deliver
from ..model.joints import as_vector


def zero_order_hold(A, B, dt):
    """
    Discretize (A, B) with input held constant over ``dt`` seconds.

    A stack of models, (N, n, n) and (N, n, m), gives stacks.
    """
    dt = float(dt)
    if not np.isfinite(dt) or dt <= 0.0:
        raise ValueError('dt must be a positive number of seconds, got %r'
                         % dt)
    n, m = B.shape[-2:]
    augmented = np.zeros(B.shape[:-2] + (n + m, n + m))
    augmented[..., :n, :n] = A
    augmented[..., :n, n:] = B
    with np.errstate(over='ignore', invalid='ignore'):
        exponential = expm(augmented * dt)
    if not np.all(np.isfinite(exponential)):
        # An unstable mode grows past float range over so long a hold.
        raise ValueError(
            'dt = %g s is too long a zero-order hold for this model: the '
            'discrete (A, B) overflow (an unstable mode grows past 1e308); '
            'use the sample time of the controller' % dt)
    return exponential[..., :n, :n], exponential[..., :n, n:]


def state_space(model, dtau_dq, dtau_dqd, M):
    """Continuous (A, B) from the inverse-dynamics Jacobians at a point."""
    n = M.shape[0]
    Minv = inverse_inertia(M, model)
    A = np.zeros((2 * n, 2 * n))
    A[:n, n:] = np.eye(n)
    A[n:, :n] = -Minv @ dtau_dq
    A[n:, n:] = -Minv @ (dtau_dqd + np.diag(model.damping))
    B = np.zeros((2 * n, n))
    B[n:] = Minv
    return A, B


def reference_linearize(model, q, qd, tau):
    """Continuous (A, B) of one state in numpy: the reference path."""
    q = as_vector(model, q, 'q')
    qd = as_vector(model, qd, 'qd')
    tau = as_vector(model, tau, 'tau')
    with np.errstate(invalid='ignore', divide='ignore'):
        # A singular M is reported by inverse_inertia, not by ABA.
        qdd = reference_forward_dynamics(model, q, qd,
                                         tau - model.damping * qd)
    return state_space(model, *reference_inverse_dynamics_derivatives(
        model, q, qd, qdd))


def trajectory_samples(model, t, q, qd, qdd):
    """Check a sampled trajectory: t (N,), q, qd, qdd (N, nq) each."""
    t = np.asarray(t, dtype=float)
    if t.ndim != 1 or t.size == 0:
        raise ValueError('t must be a 1-D array of sample times, got shape '
                         '%s' % (t.shape,))
    if np.any(np.diff(t) <= 0.0):
        raise ValueError('t must be strictly increasing')
    arrays = []
    for name, value in (('q', q), ('qd', qd), ('qdd', qdd)):
        value = np.asarray(value, dtype=float)
        if value.shape != (t.size, model.nq):
            raise ValueError('%s must have shape (%d, %d): one row per '
                             'sample time, one column per joint of %r, got %s'
                             % (name, t.size, model.nq, model.name,
                                value.shape))
        arrays.append(value)
    return t, arrays


def linearize_trajectory(model, t, q, qd, qdd, discrete=False):
    """
    Return the time-varying linear model along a trajectory and its torques.

    ``t`` (N,) are strictly increasing sample times and ``q``, ``qd``,
    ``qdd`` (N, nq) the nominal motion.  Returns ``(A, B, tau)``:

    - ``tau`` (N, nq): feed-forward torques that produce the motion,
      inverse dynamics plus the damping torque damping * qd;
    - continuous time: ``A`` (N, 2nq, 2nq), ``B`` (N, 2nq, nq), the
      linearization at each sample, d(dx)/dt = A(t) dx + B(t) du;
    - ``discrete=True``: ``A`` (N-1, ...), ``B`` (N-1, ...), the
      zero-order-hold model of each interval [t_k, t_k+1] taken at its
      start, dx[k+1] = A[k] dx[k] + B[k] du[k].
    """
    t, (q, qd, qdd) = trajectory_samples(model, t, q, qd, qdd)
    count, n = q.shape
    A, B, tau = dispatch(LINEARIZE_TRAJECTORY, model, (q, qd, qdd))
    if not discrete:
        return A, B, tau
    if count < 2:
        raise ValueError('a discrete model needs at least two sample times')
    steps = np.diff(t)
    A_d = np.zeros((count - 1, 2 * n, 2 * n))
    B_d = np.zeros((count - 1, 2 * n, n))
    for k, dt in enumerate(steps):
        A_d[k], B_d[k] = zero_order_hold(A[k], B[k], dt)
    return A_d, B_d, tau


def reference_linearize_trajectory(model, q, qd, qdd):
    """Continuous (A, B, tau) at each sample in numpy: the reference path."""
    count, n = q.shape
    tau = np.zeros((count, n))
    A = np.zeros((count, 2 * n, 2 * n))
    B = np.zeros((count, 2 * n, n))
    for k in range(count):
        tau[k] = reference_inverse_dynamics(model, q[k], qd[k], qdd[k]) + \
            model.damping * qd[k]
        A[k], B[k] = state_space(model, *reference_inverse_dynamics_derivatives(
            model, q[k], qd[k], qdd[k]))
    return A, B, tau


def coupled_linearize_trajectory(model, q, qd, qdd):
    """Continuous (A, B, tau) at each sample of a MimicModel."""
    tau = inverse_dynamics(model, q, qd, qdd) + model.damping * qd
    dtau_dq, dtau_dqd, M = inverse_dynamics_derivatives(model, q, qd, qdd)
    count, n = q.shape
    A = np.zeros((count, 2 * n, 2 * n))
    B = np.zeros((count, 2 * n, n))
    for k in range(count):
        A[k], B[k] = state_space(model, dtau_dq[k], dtau_dqd[k], M[k])
    return A, B, tau


LINEARIZE = Operation(
    reference=reference_linearize, kernel='linearize.linearize',
    arguments=('q', 'qd', 'tau'), results=(MATRIX, MATRIX),
    coupled=mimic_dynamics.linearize, inverts_inertia=True)
LINEARIZE_TRAJECTORY = Operation(
    reference=reference_linearize_trajectory,
    kernel='linearize.linearize_trajectory', arguments=('q', 'qd', 'qdd'),
    results=(MATRIX, MATRIX, MATRIX), coupled=coupled_linearize_trajectory,
    batched=True, inverts_inertia=True)


@LINEARIZE.public
def linearize(model, q, qd, tau, dt=None, *, out=None):
    """
    Return the linear model (A, B) of the dynamics about (q, qd, tau).

    x = [q; qd], u = tau, in ``model.joint_names`` order.  Continuous time
    (dx/dt = A x + B u) when ``dt`` is None, else the zero-order-hold
    discrete model x[k+1] = A x[k] + B u[k] with sample time ``dt``.  Joint
    damping and armature of the model enter A and B (see the module notes).
    A batch gives A (N, 2nq, 2nq) and B (N, 2nq, nq); ``out`` is (A, B).
    """
    if dt is None:
        return dispatch(LINEARIZE, model, (q, qd, tau), out=out)
    A, B = dispatch(LINEARIZE, model, (q, qd, tau))
    return deliver(out, zero_order_hold(A, B, dt))


def linearize_with_friction(model, q, qd, tau, friction, dt=None):
    """
    Return (A, B) of the dynamics with identified joint friction.

    M qdd + h = tau - f(qd), f = ``friction.torque(qd, offset=False)`` (a
    ``dynamics.friction.JointFriction`` in ``model.joint_names`` order): the
    model linearized at tau - f(qd) is exact in q, and f adds its slope to
    the velocity block, A[n:, n:] -= M^-1 diag(df/dqd), where M^-1 is the
    lower block of B.  ``dt``: zero-order hold of that continuous model.
    """
    qd = as_vector(model, qd, 'qd')
    A, B = linearize(model, q, qd, as_vector(model, tau, 'tau')
                     - friction.torque(qd, offset=False))
    n = model.nq
    A[n:, n:] -= B[n:, :] * friction.slope(qd)
    if dt is None:
        return A, B
    return zero_order_hold(A, B, dt)
