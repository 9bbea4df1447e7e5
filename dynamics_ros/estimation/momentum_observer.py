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
Generalized-momentum observer: external joint torques from joint states.

Haddadin, De Luca and Albu-Schaeffer, "Robot Collisions: A Survey on
Detection, Isolation, and Identification" (IEEE T-RO 33(6), 2017), the
momentum-based residual (first proposed by De Luca and Mattone, 2003).
With the generalized momentum p = M(q) qd of

    M qdd + C(q, qd) qd + g(q) = tau + tau_ext,

and M' = C + C^T (the skew-symmetry of M' - 2C), the momentum obeys
p' = tau + C^T qd - g + tau_ext.  The residual

    r(t) = K (p(t) - p(0) - integral_0^t (tau + C^T qd - g + r) ds)

then follows r' = K (tau_ext - r): a first-order low-pass of the external
torques with time constant 1/K per joint (K diagonal), needing no joint
accelerations.

Discretization (what ``update`` does between two samples k-1, k, any
dt = t_k - t_{k-1}).  The model terms are integrated with the trapezoid
rule and C^T qd through C^T qd = M' qd - C qd, C qd = h - g (h the bias
forces), with M' qd over the interval taken as (M_k - M_{k-1}) times the
mean velocity.  The increment of p - integral(tau + C^T qd - g) is then

    delta_k = (M_k + M_{k-1}) / 2 (qd_k - qd_{k-1})
              + dt ((h_k + h_{k-1}) - (tau_k + tau_{k-1})) / 2,

which only needs M (CRBA) and h (RNEA with qdd = 0), not the Coriolis
matrix, and is second-order accurate in dt.  Summed over samples it is
exactly p_k - p_0 minus the quadrature of the model terms: the momentum
form of the observer, without the drift of a growing integral.  The r term
of the integral is the trapezoid too (Tustin):

    r_k = ((1 - K dt / 2) r_{k-1} + K delta_k) / (1 + K dt / 2),

stable for every K dt, so irregular sample times are integrated with their
own dt and a late sample cannot make the estimate oscillate or jump.

A sample at the time of the previous one is ignored (a repeat).  After a
gap longer than ``max_gap``, and after time went back (``/clock`` went
back, the simulator restarted, the sample before carried a future stamp),
the integral restarts from the new sample: the estimate is held, not
reset (neither says anything about the external torque), and integration
goes on from the next sample, so one bad stamp never blinds the observer.
The update says so in its ``note``, and names the event in ``kind``
('repeat', 'gap', 'back') for a warning throttled by kind.

``order=2`` filters the first-order residual once more with the same gain
(Tustin too): r2 = K / (s + K) r, so r2 = K^2 / (s + K)^2 tau_ext, quieter
on noisy measured efforts at the price of a slower rise.

The joints' viscous damping of the model (URDF ``<dynamics damping>``,
``model.damping``) is part of the model here, h + D qd (``joint_damping``
False leaves it out).  Coulomb friction is not, unless ``friction`` (a
``dynamics.friction.JointFriction``, the identified one) is given: its
torque at the measured velocity, viscous qd + coulomb tanh(qd / smoothing)
+ offset, is what the motors spend on the joints themselves, so it is
taken off the measured efforts before the momentum balance.  Without it,
a real gearbox's Coulomb friction shows in the residual as an external
torque at every direction reversal.  Near rest the friction is anything
within +-coulomb (stiction: a function of the velocity cannot say which),
so while a joint is slower than a few smoothing widths, and for the
observer's time constant after (the residual's memory of it decays as
exp(-K t)), that much of its residual is taken as friction: the
estimate is the residual shrunk towards zero by the allowance
coulomb (1 - |tanh(qd / smoothing)|), decayed (a dead band, as
friction-aware collision thresholds do; Haddadin et al. 2017 sec. IV).

Works in the model's coordinates: a MimicModel's independent joints (its
M and h are the reduced ones), measured efforts of those joints.
"""

from typing import NamedTuple, Optional

import numpy as np

from ..checks import number_reason, per_joint_reason
from ..dynamics.bias import bias_forces
from ..dynamics.crba import mass_matrix

# Default observer gain, 1/s: a 20 ms time constant, fast enough to detect
# a contact within a few tens of ms and slow enough to average the noise
# of a 1 kHz torque signal.
DEFAULT_GAIN = 50.0

# Default longest interval integrated, s: longer gaps restart the integral.
DEFAULT_MAX_GAP = 0.1
# The largest max_gap accepted, s: integrating the momentum balance across
# a longer silence (a stopped driver) is no estimate; 1e308 is a typo.
MAX_MAX_GAP = 10.0

# A gain above this filters nothing (and a time constant below 10 us is
# shorter than any joint_states period).
MAX_GAIN = 1e5


class Estimate(NamedTuple):
    """
    The observer's output after one sample.

    ``torques``: the external joint torques (model order, N m or N);
    ``note``: None, or what happened to the sample (ignored, integral
    restarted) in words a log can show; ``kind``: that event's name
    ('repeat', 'gap', 'back'), the same for every sample it happens to.
    """

    time: float
    torques: np.ndarray
    note: Optional[str] = None
    kind: Optional[str] = None


def check_gain(value, n=None):
    """Return a reason unless ``value`` is 1 or ``n`` gains in (0, MAX_GAIN]."""
    return per_joint_reason(
        value, 'gain', lambda k: (k > 0.0) & (k <= MAX_GAIN),
        '> 0 and <= %g (1/s)' % MAX_GAIN, n, unit=' (1/s)')


def check_max_gap(value):
    """Return a reason unless ``value`` is in (0, MAX_MAX_GAP] s, else None."""
    return number_reason(
        value, 'max_gap', lambda gap: 0.0 < gap <= MAX_MAX_GAP,
        'finite and > 0, at most %g s' % MAX_MAX_GAP,
        kind='a number of seconds')


class MomentumObserver:
    """
    The momentum observer of one model, fed one sample at a time.

    ``gain``: K, 1/s, one value or one per joint (model order).
    ``order``: 1 (the residual) or 2 (the residual filtered once more).
    ``max_gap``: the longest interval between samples integrated, s.
    ``joint_damping``: include the model's viscous joint damping.
    ``friction``: joint friction (JointFriction) taken off the efforts.
    ``torques`` is the latest estimate; ``reset()`` starts over.
    """

    def __init__(self, model, gain=DEFAULT_GAIN, order=1,
                 max_gap=DEFAULT_MAX_GAP, joint_damping=True, friction=None):
        self.model = model
        self.friction = None if friction is None else friction.select(
            list(model.joint_names))
        self.damping = np.array(model.damping, dtype=float) \
            if joint_damping and np.any(model.damping) else None
        self.nq = model.nq
        if order not in (1, 2):
            raise ValueError('order must be 1 or 2, got %r' % (order,))
        self.order = order
        reason = check_max_gap(max_gap)
        if reason:
            raise ValueError(reason)
        self.max_gap = float(max_gap)
        self.set_gain(gain)
        self.reset()

    def set_gain(self, gain):
        """Use gain K (one, or one per joint) from the next sample on."""
        reason = check_gain(gain, self.nq)
        if reason:
            raise ValueError(reason)
        self.gain = np.broadcast_to(np.asarray(gain, dtype=float).reshape(-1),
                                    (self.nq,)).copy()

    def reset(self):
        """Forget the past: the next sample starts the integral, r = 0."""
        self.allowance = np.zeros(self.nq)
        self.previous = None       # (t, qd, M, h, tau) of the last sample
        self.residual = np.zeros(self.nq)
        self.filtered = np.zeros(self.nq)
        self.samples = 0
        self.restarts = 0

    @property
    def torques(self):
        """Return the external joint torques estimated (model order)."""
        value = self.residual if self.order == 1 else self.filtered
        if self.friction is None:
            return value.copy()
        return np.sign(value) * np.maximum(np.abs(value) - self.allowance,
                                           0.0)

    @property
    def time(self):
        """Return the time of the last sample used (None before the first)."""
        return None if self.previous is None else self.previous[0]

    def _vectors(self, q, qd, tau):
        """Return copies of q, qd, tau as (nq,) floats (else ValueError)."""
        arrays = []
        for value, what in ((q, 'q'), (qd, 'qd'), (tau, 'tau')):
            # A copy: the sample is kept for the next interval, and the
            # caller may reuse its arrays.
            array = np.array(value, dtype=float).reshape(-1)
            if array.shape != (self.nq,):
                raise ValueError('%s must have %d values (joints %s), got %d'
                                 % (what, self.nq, ', '.join(
                                     self.model.joint_names), array.size))
            arrays.append(array)
        q, qd, tau = arrays
        # One sum is finite exactly when every term is (inf - inf is nan).
        if not np.isfinite(q.sum() + qd.sum() + tau.sum()):
            for array, what in ((q, 'q'), (qd, 'qd'), (tau, 'tau')):
                if not np.all(np.isfinite(array)):
                    raise ValueError('%s must be finite, got %s' % (
                        what, array))
        return q, qd, tau

    def update(self, t, q, qd, tau):
        """
        Take the sample (t, q, qd, tau_measured); return the Estimate.

        ``t`` in seconds (any origin), the arrays in model order.  Raises
        ValueError for wrong sizes or non-finite values, or when the model
        gives a non-finite estimate for them (huge velocities); the state
        is then unchanged.
        """
        t = float(t)
        if not np.isfinite(t):
            raise ValueError('sample time must be finite, got %r' % t)
        q, qd, tau = self._vectors(q, qd, tau)
        previous = self.previous
        if self.friction is not None:
            tau = tau - self.friction.torque(qd)
            rest = self.friction.coulomb * (1.0 - np.abs(np.tanh(
                qd / self.friction.smoothing)))
            decay = 1.0 if previous is None or not t > previous[0] else \
                np.exp(-self.gain * (t - previous[0]))
            self.allowance = np.maximum(self.allowance * decay, rest)
        if previous is not None and t == previous[0]:
            return Estimate(t, self.torques, (
                'sample at t = %.9f s repeats the time of the previous one:'
                ' ignored' % t), 'repeat')
        M = mass_matrix(self.model, q)
        h = bias_forces(self.model, q, qd)
        if self.damping is not None:
            h = h + self.damping * qd
        note = kind = None
        residual, filtered = self.residual, self.filtered
        if previous is None:
            if not np.isfinite(M.sum() + h.sum()):
                raise ValueError('the model gives non-finite M or h at q = '
                                 '%s, qd = %s' % (q, qd))
        else:
            t0, qd0, M0, h0, tau0 = previous
            dt = t - t0
            if dt > self.max_gap or dt < 0.0:
                if not np.isfinite(M.sum() + h.sum()):
                    raise ValueError('the model gives non-finite M or h at '
                                     'q = %s, qd = %s' % (q, qd))
                self.restarts += 1
                if dt > 0.0:
                    kind = 'gap'
                    note = ('gap of %.6g s since the previous sample (more '
                            'than max_gap %.6g s): integral restarted from '
                            'this sample, estimate held' % (dt, self.max_gap))
                else:
                    kind = 'back'
                    note = ('time went back by %.6g s (from %.9f s to %.9f '
                            's): integral restarted from this sample, '
                            'estimate held' % (-dt, t0, t))
            else:
                delta = 0.5 * ((M + M0) @ (qd - qd0)
                               + dt * ((h + h0) - (tau + tau0)))
                residual, filtered = self._advance(delta, dt)
                if not np.isfinite(residual.sum() + filtered.sum()):
                    raise ValueError('the estimate is not finite at q = %s, '
                                     'qd = %s, tau = %s' % (q, qd, tau))
        self.residual, self.filtered = residual, filtered
        self.previous = (t, qd, M, h, tau)
        self.samples += 1
        return Estimate(t, self.torques, note, kind)

    def _advance(self, delta, dt):
        """Return the Tustin step of the residual and of its filter."""
        half = 0.5 * dt * self.gain
        residual = ((1.0 - half) * self.residual + self.gain * delta) \
            / (1.0 + half)
        filtered = self.filtered
        if self.order == 2:
            filtered = ((1.0 - half) * self.filtered
                        + half * (residual + self.residual)) / (1.0 + half)
        return residual, filtered


def observe(model, t, q, qd, tau, gain=DEFAULT_GAIN, order=1,
            max_gap=DEFAULT_MAX_GAP, joint_damping=True, friction=None):
    """
    Run a MomentumObserver over samples; return the (N, nq) estimates.

    ``t`` (N,), ``q``, ``qd``, ``tau`` (N, nq) in model order.
    """
    observer = MomentumObserver(model, gain, order, max_gap, joint_damping,
                                friction)
    return np.array([observer.update(*sample).torques
                     for sample in zip(t, q, qd, tau)])
