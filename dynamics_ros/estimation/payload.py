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
The payload a robot holds, from its joint states and measured efforts.

The arm's own model (URDF or identified) and its friction are known; what
the measured efforts hold beyond them is the payload's:

    tau_measured - tau_arm(q, qd, qdd) - tau_friction(qd) = Y_tip pi_L,

with Y_tip the regressor columns of the body carrying the tip link
(``dynamics.regressor``), turned into the tip link's frame, and pi_L the
payload's ten inertial parameters in that frame: [m, m c, Ixx, Ixy, Iyy,
Ixz, Iyz, Izz] with the inertia about the *link origin* (Atkeson, An and
Hollerbach 1986, "Estimation of inertial parameters of manipulator loads
and links", eq. 9 - the linear form).

Two ways to record:

- **static poses** (``mode='static'``): still samples only, qd = qdd = 0,
  so the torques are gravity's: mass and first moment (centre of mass)
  are seen when the tool takes at least two orientations to gravity; the
  inertia never is (its columns are zero);
- **a short motion** (``mode='motion'``): positions filtered, velocities
  and accelerations derived, efforts through the same filter (parallel
  filtering as in ``identification.recording``); all ten parameters, as
  far as the motion excites them.

Least squares weighted per joint with standard deviations from the
residual: cov = sigma^2 (W^T W)^-1.  Which parameters the data cannot see
follows from the column-scaled restricted regressor's singular values, as
the full identification reports them.  The estimate is made physically
consistent: the payload's pseudo-inertia

    J = [[Sigma, h], [h^T, m]],  Sigma = tr(I)/2 1 - I

positive semidefinite (Wensing, Kim and Slotine 2017, "Linear matrix
inequalities for physically consistent inertial parameter
identification", IEEE RA-L 3(1), Thm. 1): a semidefinite programme with
cvxpy when it is installed, else the nearest such J (eigenvalues clipped).
An estimate that is not credible raises IdentificationError with the
reason: negative mass, a mass standard deviation larger than the mass, a
centre of mass the data cannot see or only within more than
``max_com_std``, a recording without effort, motion or a joint.  An
inertia the data does not see well (a principal moment's standard
deviation above ``max_moment_std``, 5 %, of the moment) is left out with
the reason, the rest kept.

Friction is subtracted at the full sample rate and filtered as the
efforts were; each joint's rows within a cut-off period of its velocity
reversals (or speeds below three smoothing widths of the law) are left
out, as the identification does: a real Coulomb friction steps there and
no smooth law follows it.  The motion's residuals are correlated over
the filter's reach: the covariance is a block sandwich (Newey-West), not
the white-noise formula.
"""

import numpy as np
import scipy.ndimage
import scipy.signal

from ..dynamics.regressor import (inertia_matrix, joint_torque_regressor,
                                  PARAMETER_NAMES, pseudo_inertia)
from ..dynamics.regressor import \
    parameters_of_pseudo_inertia as parameters_of
from ..dynamics.rnea import inverse_dynamics
from ..errors import IdentificationError
from ..model.payload import payload_body

STATIC, MOTION, AUTO = 'static', 'motion', 'auto'
# A joint moving less than this (rad or m) within STILL_WINDOW is still.
STILL_SPAN = 2e-4
STILL_WINDOW = 0.1           # s
# Auto mode: a motion estimate when at least this share of samples moves.
MOVING_SHARE = 0.5
DEFAULT_CUTOFF = 5.0         # Hz, as the identification's
FILTER_ORDER = 4
MIN_STILL_SAMPLES = 20
# Rows kept per cut-off period in a motion estimate (the decimation).
ROWS_PER_PERIOD = 20.0
# Below this many smoothing widths of the friction law (or velocity-noise
# levels) a joint's Coulomb friction is not trusted: its rows are left
# out, with those within a cut-off period (the filter spreads the step),
# as the identification does (``identification.pipeline``, --min-speed).
SMOOTHING_WIDTHS = 3.0
NOISE_WIDTHS = 5.0
MIN_MOTION_SECONDS = 1.0     # left after the filter's edges
# Relative singular value (column-scaled) below which a direction is not
# seen: the scaled condition number limit of the restricted regressor.
MAX_CONDITION = 1e3
MAX_COM_STD = 0.01           # m
# The "seen" rule of the inertia: every principal moment's standard
# deviation at most this share of the moment, so three deviations stay
# within 15 %.  The deviations are calibrated over excitation seeds
# against a Pinocchio plant with sign-sharp friction and noise on arms
# the estimator was not tuned on (test/estimation/test_payload_plants.py).
MAX_MOMENT_STD = 0.05
# Smallest eigenvalue the consistent fit keeps, times the payload's scale.
CONSISTENCY_MARGIN = 1e-9


class PayloadEstimate:
    """
    A payload estimate, in the tip link's frame.

    ``mass`` (kg), ``com`` (3,) m, ``inertia`` (3, 3) about the com, kg m^2
    (zeros when ``inertia_seen`` is False); ``mass_std``, ``com_std`` (3,),
    ``principal_moments`` (3,) and ``principal_std`` (3,) (NaN when not
    estimated); ``parameters`` (10,) the consistent estimate, ``least_squares``
    (10,) before consistency, ``std`` (10,) (NaN: not estimated) and
    ``names``; ``seen`` / ``unseen``: parameter names the data can and
    cannot see; ``condition``: scaled condition number of the seen columns;
    ``mode``, ``link``, ``samples``, ``residual_rms`` (N m, per joint),
    ``method`` of the consistent fit, ``notes``: what was left out and why.
    """

    def summary(self):
        """Return one line: mass and centre of mass with their deviations."""
        com = ', '.join('%.4f +- %.2g' % (c, s)
                        for c, s in zip(self.com, self.com_std))
        line = 'payload at %s: mass %.4f +- %.2g kg, com [%s] m' % (
            self.link, self.mass, self.mass_std, com)
        if self.inertia_seen:
            line += ', principal moments [%s] kg m^2' % ', '.join(
                '%.3g +- %.2g' % (v, s) for v, s in zip(
                    self.principal_moments, self.principal_std))
        else:
            line += ', inertia not estimated'
        return line + ' (%s, %d samples)' % (self.mode, self.samples)

    def inertia_six(self):
        """Return the inertia about the com as ixx ixy ixz iyy iyz izz."""
        inertia = self.inertia
        return [inertia[0, 0], inertia[0, 1], inertia[0, 2], inertia[1, 1],
                inertia[1, 2], inertia[2, 2]]


def significant(values, digits=2):
    """Return '[a, b, c]' with ``digits`` significant digits each."""
    return '[%s]' % ', '.join('%.*g' % (digits, v) for v in values)


# -- the payload's parameters in the tip link's frame ------------------------

def frame_change(rotation, translation):
    """
    Return T (10, 10): parameters in a body frame = T @ those in a link's.

    The link frame sits at ``translation`` with ``rotation`` in the body
    frame.  A pseudo-inertia moves as J_body = A J_link A^T with A the
    homogeneous transform [[R, p], [0, 1]] (Wensing et al. 2017 eq. 11),
    linear in the parameters, so T's columns are the unit vectors moved.
    """
    A = np.eye(4)
    A[:3, :3] = rotation
    A[:3, 3] = translation
    T = np.empty((10, 10))
    for k in range(10):
        unit = np.zeros(10)
        unit[k] = 1.0
        T[:, k] = parameters_of(A @ pseudo_inertia(unit) @ A.T)
    return T


def tip_regressor(model, q, qd, qdd, link=None):
    """
    Return Y_tip (N, nq, 10): the joint torques of a payload at ``link``.

    tau = Y_tip pi_L for a payload pi_L in ``link``'s frame (default: the
    last body's).  The columns of the body carrying ``link`` in the whole
    model's regressor, turned into the link's frame by ``frame_change``.
    """
    body, rotation, translation = payload_body(model, link)
    if body < 0:
        raise IdentificationError('link %r is fixed to the base: a payload '
                                  'there moves no joint' % link)
    Y = joint_torque_regressor(model, np.atleast_2d(q), np.atleast_2d(qd),
                               np.atleast_2d(qdd))
    columns = Y[..., 10 * body:10 * body + 10]
    return columns @ frame_change(rotation, translation)


def arm_torques(model, q, qd, qdd, friction=None):
    """
    Return the arm's own torques (N, nq): rigid body plus friction.

    ``friction`` a JointFriction (``dynamics.friction``) in model order or
    None.  Its offset is included: it is a bias of the measured efforts,
    which the identification fitted them with.
    """
    tau = np.atleast_2d(inverse_dynamics(model, np.atleast_2d(q),
                                         np.atleast_2d(qd),
                                         np.atleast_2d(qdd)))
    if friction is not None:
        tau = tau + friction.torque(np.atleast_2d(qd), offset=True)
    return tau


# -- the recording -----------------------------------------------------------

def checked_recording(model, recording):
    """Return the recording in model order; refuse one that cannot serve."""
    source = getattr(recording, 'source', 'the recording')
    try:
        times = np.asarray(recording.times, dtype=float)
        positions = np.asarray(recording.positions, dtype=float)
        efforts = recording.efforts
        efforts = None if efforts is None else np.asarray(efforts,
                                                          dtype=float)
        names = list(recording.joint_names)
    except (AttributeError, TypeError, ValueError) as error:
        raise IdentificationError('%s is not a recording of times, joint '
                                  'names, positions and efforts (%s)' % (
                                      source, type(error).__name__))
    if efforts is None:
        raise IdentificationError('%s carries no effort: the payload is '
                                  'seen in the measured joint torques '
                                  '(record a driver that publishes effort)'
                                  % source)
    shape = (len(times), len(names))
    arrays = {'times': times, 'positions': positions, 'efforts': efforts}
    wrong = [label for label, values in arrays.items()
             if values.shape != (shape[:1] if label == 'times' else shape)]
    if wrong:
        raise IdentificationError(
            '%s: %s do not have the shape (samples, joints) = %s of its '
            'times and joint names (got %s)' % (
                source, ' and '.join(wrong), shape, ', '.join(
                    str(arrays[label].shape) for label in wrong)))
    recording = recording.select(model.joint_names)   # names missing joints
    if len(recording) < MIN_STILL_SAMPLES:
        raise IdentificationError('%s has %d samples: too few to estimate a '
                                  'payload (at least %d)' % (
                                      source, len(recording),
                                      MIN_STILL_SAMPLES))
    efforts = recording.efforts
    if efforts is None or not np.any(np.isfinite(efforts)):
        raise IdentificationError('%s carries no effort: the payload is '
                                  'seen in the measured joint torques '
                                  '(record a driver that publishes effort)'
                                  % source)
    without = [j for j, column in zip(recording.joint_names, efforts.T)
               if not np.all(np.isfinite(column))]
    if without:
        raise IdentificationError('%s: no (or non-finite) effort for joints '
                                  '%s' % (source, ', '.join(without)))
    if not np.all(np.isfinite(recording.positions)):
        raise IdentificationError('%s: positions are not all finite'
                                  % source)
    order = np.argsort(recording.times, kind='stable')
    step = np.diff(recording.times[order])
    if not np.all(np.isfinite(recording.times)) or not np.median(step) > 0:
        raise IdentificationError('%s: sample times do not increase'
                                  % source)
    return recording.part(order)


def still_samples(recording, span=STILL_SPAN, window=STILL_WINDOW):
    """Return (N,) True where no joint moved more than ``span`` nearby."""
    step = float(np.median(np.diff(recording.times)))
    size = max(int(round(window / step)), 1) * 2 + 1
    q = recording.positions
    spread = scipy.ndimage.maximum_filter1d(q, size, axis=0, mode='nearest') \
        - scipy.ndimage.minimum_filter1d(q, size, axis=0, mode='nearest')
    return np.all(spread < span, axis=1)


def motion_states(recording, cutoff=DEFAULT_CUTOFF):
    """
    Return (q, qd, qdd, effort, lowpass, edge, rate) filtered and derived.

    Positions and efforts on a uniform grid at the median step, low-pass
    filtered forward and backward (Butterworth, zero phase), velocities
    and accelerations by central differences, each filtered again
    (``identification.recording.filtered_states`` without its demand that
    every joint moves: a payload motion may move the wrist alone).
    """
    t = recording.times
    step = float(np.median(np.diff(t)))
    rate = 1.0 / step
    if not cutoff < 0.5 * rate:
        raise IdentificationError('%s: filter cut-off %g Hz must be below '
                                  'half the sample rate %.4g Hz' % (
                                      recording.source, cutoff, rate))
    grid = t[0] + step * np.arange(int(np.floor((t[-1] - t[0]) / step)) + 1)

    def resample(x):
        return np.column_stack([np.interp(grid, t, x[:, i])
                                for i in range(x.shape[1])])

    lowpass = scipy.signal.butter(FILTER_ORDER, cutoff / (0.5 * rate))

    def smooth(x):
        return scipy.signal.filtfilt(*lowpass, x, axis=0)

    q = smooth(resample(recording.positions))
    qd = smooth(np.gradient(q, step, axis=0))
    qdd = smooth(np.gradient(qd, step, axis=0))
    effort = smooth(resample(recording.efforts))
    edge = int(np.ceil(3.0 * rate / cutoff))
    if len(grid) - 2 * edge < MIN_MOTION_SECONDS * rate:
        raise IdentificationError(
            '%s is too short for a motion estimate: %.3g s, of which the '
            'filter edges take %.3g s; record at least %.3g s more' % (
                recording.source, len(grid) * step, 2 * edge * step,
                MIN_MOTION_SECONDS + 2 * edge * step - len(grid) * step))
    return q, qd, qdd, effort, lowpass, edge, rate


def friction_rows(qd, friction, rate, cutoff):
    """
    Return (trusted (N, nq), dropped count per joint, min speed).

    A joint's rows are not trusted where its filtered velocity is below
    max(SMOOTHING_WIDTHS friction smoothing widths, NOISE_WIDTHS velocity
    noise levels) or changes sign, and within one cut-off period of those
    rows: there a real friction's sign step and the law's smooth one
    differ, and the parallel filter spreads the difference over that
    time (``identification.chunks.slow_rows``).  The velocity noise is
    read from the high-pass part of qd (what the filter let through
    above half the cut-off is mostly noise).
    """
    from ..identification.chunks import slow_rows
    smoothing = float(np.max(np.atleast_1d(friction.smoothing)))
    noise = float(np.median(np.abs(np.diff(qd, 2, axis=0)))) / 0.6745 \
        / np.sqrt(6.0) if len(qd) > 2 else 0.0
    min_speed = max(SMOOTHING_WIDTHS * smoothing, NOISE_WIDTHS * noise)
    near = max(int(round(rate / cutoff)), 1)
    _, _, dropped = slow_rows(qd, min_speed, near)
    return ~dropped, dropped.sum(axis=0), min_speed


# -- the fit ------------------------------------------------------------------

def weighted_least_squares(W, tau, joints, nq, blocks=None):
    """
    Return (x, covariance, sigma per joint, weights): two-pass weighted LS.

    The second pass weights each joint's rows by the inverse of its
    first-pass residual RMS (Gautier and Khalil's weighted least squares);
    cov = s^2 (W_w^T W_w)^-1 with s^2 the weighted residual variance.
    With ``blocks`` (a block number per row), residuals within a block
    may be correlated: the covariance is the sandwich A^-1 S A^-1 with
    A = W_w^T W_w and S the sum of the blocks' score products, neighbour
    blocks included at half weight (Newey and West 1987, Bartlett
    weights), so filtered noise and a friction law's misfit that last
    longer than one sample are counted as what they are.
    """
    weights = np.ones(len(tau))
    for _ in range(2):
        x = np.linalg.lstsq(W * weights[:, None], tau * weights,
                            rcond=None)[0]
        residual = tau - W @ x
        sigma = np.array([np.sqrt(np.mean(residual[joints == j] ** 2))
                          if np.any(joints == j) else 0.0
                          for j in range(nq)])
        floor = 1e-12 * max(float(sigma.max()), 1e-300)
        weights = 1.0 / np.maximum(sigma, floor)[joints]
    Ww = W * weights[:, None]
    r = (tau - W @ x) * weights
    inverse = np.linalg.pinv(Ww.T @ Ww)
    dof = max(len(tau) - W.shape[1], 1)
    if blocks is None:
        return x, np.sum(r ** 2) / dof * inverse, sigma, weights
    labels, index = np.unique(blocks, return_inverse=True)
    scores = np.zeros((len(labels), W.shape[1]))
    np.add.at(scores, index, Ww * r[:, None])
    meat = scores.T @ scores
    if len(labels) > 1:
        cross = scores[1:].T @ scores[:-1]
        meat = meat + 0.5 * (cross + cross.T)
    # Few blocks make the sandwich small (it is fitted to them): the
    # blocks' count over the count less the parameters undoes that.
    meat = meat * len(labels) / max(len(labels) - W.shape[1], 1)
    return x, inverse @ meat @ inverse, sigma, weights


def visible_columns(W, names, limit=MAX_CONDITION):
    """
    Return (seen indices, unseen names, scaled condition number of seen).

    A column of zeros is unseen; of the rest, the right singular vectors
    of singular values below 1/``limit`` of the largest (columns scaled to
    unit norm) name the parameters they are mostly made of, which are
    dropped one by one, the largest share first.
    """
    norms = np.linalg.norm(W, axis=0)
    seen = [k for k in range(W.shape[1])
            if norms[k] > 1e-12 * max(float(norms.max()), 1e-300)]
    unseen = [names[k] for k in range(W.shape[1]) if k not in seen]
    while seen:
        scaled = W[:, seen] / norms[seen]
        _, values, vt = np.linalg.svd(scaled, full_matrices=False)
        condition = float(values[0] / max(values[-1], 1e-300))
        if condition <= limit:
            return seen, unseen, condition
        worst = seen[int(np.argmax(np.abs(vt[-1])))]
        seen.remove(worst)
        unseen.append(names[worst])
    return seen, unseen, np.inf


def consistent(parameters, information, seen):
    """
    Return (parameters with a PSD pseudo-inertia, method name).

    Minimizes (x - x_ls)^T F (x - x_ls), F the information matrix
    (W^T W weighted) of the seen parameters - the same least squares,
    re-centred - over pseudo-inertias J >= 0: Wensing et al.'s LMI as a
    semidefinite programme with cvxpy.  Unseen parameters get a small
    weight towards the least-squares value (zero: the inertia of a point
    mass at the com is what J >= 0 then picks).  Without cvxpy, the
    nearest J in the Frobenius norm (negative eigenvalues set to zero).
    """
    J0 = pseudo_inertia(parameters)
    scale = max(float(np.max(np.abs(np.linalg.eigvalsh(J0)))), 1e-12)
    if np.linalg.eigvalsh(J0)[0] >= CONSISTENCY_MARGIN * scale:
        return parameters, 'least squares (already consistent)'
    F = np.zeros((10, 10))
    F[np.ix_(seen, seen)] = information
    F = F + 1e-6 * np.trace(F) / 10 * np.eye(10)
    try:
        import cvxpy
    except ImportError:
        values, vectors = np.linalg.eigh(J0)
        J = (vectors * np.maximum(values, 0.0)) @ vectors.T
        return parameters_of(J), 'nearest PSD pseudo-inertia (no cvxpy)'
    J = cvxpy.Variable((4, 4), PSD=True)
    x = cvxpy.hstack([J[3, 3], J[0, 3], J[1, 3], J[2, 3],
                      J[1, 1] + J[2, 2], -J[0, 1], J[0, 0] + J[2, 2],
                      -J[0, 2], -J[1, 2], J[0, 0] + J[1, 1]])
    root = np.linalg.cholesky(F).T
    problem = cvxpy.Problem(cvxpy.Minimize(cvxpy.sum_squares(
        root @ (x - parameters))))
    try:
        problem.solve()
    except cvxpy.error.SolverError as error:
        raise IdentificationError('the consistent payload fit failed: %s'
                                  % error)
    if J.value is None:
        raise IdentificationError('the consistent payload fit failed: %s'
                                  % problem.status)
    values, vectors = np.linalg.eigh(J.value)
    # The solver's tolerance can leave -1e-9 eigenvalues: clip them.
    result = (vectors * np.maximum(values, 0.0)) @ vectors.T
    return parameters_of(result), 'SDP (cvxpy %s)' % problem.solver_stats \
        .solver_name


def com_inertia(parameters):
    """Return (mass, com, inertia about the com) of ten parameters."""
    mass, h = parameters[0], parameters[1:4]
    com = h / mass
    C = np.array([[0.0, -com[2], com[1]], [com[2], 0.0, -com[0]],
                  [-com[1], com[0], 0.0]])
    return mass, com, inertia_matrix(parameters[4:10]) - mass * C.T @ C


def propagated(function, x, covariance):
    """Return the covariance of function(x) to first order (numerically)."""
    y0 = np.asarray(function(x))
    G = np.empty((y0.size, x.size))
    for k in range(x.size):
        step = 1e-7 * max(abs(x[k]), 1e-6)
        up, down = x.copy(), x.copy()
        up[k] += step
        down[k] -= step
        G[:, k] = (np.ravel(function(up)) - np.ravel(function(down))) \
            / (2 * step)
    return G @ covariance @ G.T


def estimate_payload(model, recording, link=None, friction=None, mode=AUTO,
                     cutoff=DEFAULT_CUTOFF, max_com_std=MAX_COM_STD,
                     max_condition=MAX_CONDITION,
                     max_moment_std=MAX_MOMENT_STD):
    """
    Return the PayloadEstimate of ``recording`` or raise IdentificationError.

    ``model``: the arm without the payload (RobotModel); ``recording``: an
    ``identification.recording.Recording`` (times, positions, efforts; any
    joint order, more joints allowed); ``link``: the link the payload is
    attached to (default: the last body); ``friction``: the arm's
    JointFriction or None; ``mode``: 'static', 'motion' or 'auto' (motion
    when at least half the samples move, else static).

    The inertia is reported seen (``inertia_seen``) only when every
    principal moment's standard deviation is at most ``max_moment_std``
    of the moment (default 5 %: three deviations within 15 %); else it
    is left out with a note and mass and centre of mass are kept.  In a
    motion, each joint's rows near its velocity reversals are left out
    (``friction_rows``) when a friction is given: there a real friction's
    sign step and the friction law differ.
    """
    if mode not in (STATIC, MOTION, AUTO):
        raise ValueError('mode must be static, motion or auto, got %r'
                         % (mode,))
    recording = checked_recording(model, recording)
    if friction is not None:
        friction = friction.select(model.joint_names)
    still = still_samples(recording)
    moving_share = 1.0 - float(np.mean(still))
    if mode == AUTO:
        mode = MOTION if moving_share >= MOVING_SHARE else STATIC
    nq = model.nq
    notes = []
    if mode == STATIC:
        if np.count_nonzero(still) < MIN_STILL_SAMPLES:
            raise IdentificationError(
                '%s has %d still samples (at least %d): the robot never '
                'stood still for a static estimate' % (
                    recording.source, np.count_nonzero(still),
                    MIN_STILL_SAMPLES))
        q = recording.positions[still]
        zero = np.zeros_like(q)
        Y = tip_regressor(model, q, zero, zero, link)
        tau = recording.efforts[still] - arm_torques(model, q, zero, zero,
                                                     friction)
        notes.append('inertia not observable from static poses (gravity '
                     'only sees mass and centre of mass): record a motion')
    else:
        if moving_share == 0.0:
            raise IdentificationError(
                '%s: the robot does not move: a motion estimate needs a '
                'motion (python -m dynamics_ros excite --payload); static '
                'poses give mass and centre of mass' % recording.source)
        q, qd, qdd, effort, lowpass, edge, rate = motion_states(recording,
                                                                cutoff)
        # About 20 samples per cut-off period are all the information.
        k = max(int(rate / (ROWS_PER_PERIOD * cutoff)), 1)
        rows = np.arange(0, len(q), k)
        Y = tip_regressor(model, q[rows], qd[rows], qdd[rows], link)
        arm = arm_torques(model, q[rows], qd[rows], qdd[rows])
        # Parallel filtering (Gautier 1997): the model's columns through
        # the filter the efforts went through, then the edges cut.
        decimated = scipy.signal.butter(FILTER_ORDER, min(
            cutoff / (0.5 * rate / k), 0.99))
        Y = scipy.signal.filtfilt(*decimated, Y, axis=0)
        arm = scipy.signal.filtfilt(*decimated, arm, axis=0)
        if friction is not None:
            # Friction steps where a velocity changes sign: evaluated
            # and filtered at the full rate, as the efforts were (on the
            # decimated grid the filtered step lands up to k samples off).
            arm = arm + scipy.signal.filtfilt(
                *lowpass, friction.torque(qd, offset=True), axis=0)[rows]
        cut = slice(int(np.ceil(edge / k)), len(rows) - int(np.ceil(
            edge / k)))
        Y, tau = Y[cut], effort[rows][cut] - arm[cut]
        if friction is not None:
            trusted, dropped, min_speed = friction_rows(
                qd, friction, rate, cutoff)
            trusted = trusted[rows][cut]
            notes.append(
                'left out near velocity reversals (|qd| below %s rad/s, '
                'and within %.3g s of it): %s of the samples per joint' % (
                    '%.2g' % min_speed, 1.0 / cutoff, ', '.join(
                        '%.0f %%' % (100.0 * (1.0 - share))
                        for share in trusted.mean(axis=0))))
        else:
            trusted = np.ones(Y.shape[:2], dtype=bool)
        q = q[rows][cut]
    samples = len(q)
    W = Y.reshape(-1, 10)
    tau = tau.ravel()
    joints = np.tile(np.arange(nq), samples)
    blocks = np.repeat(np.arange(samples), nq)
    if mode == MOTION:
        keep = trusted.ravel()
        W, tau, joints, blocks = W[keep], tau[keep], joints[keep], \
            blocks[keep]
        # Residuals are correlated over the filter's reach: blocks of
        # about one cut-off period are taken as independent.
        blocks = blocks // int(ROWS_PER_PERIOD)
    else:
        blocks = None
    names = list(PARAMETER_NAMES)
    seen, unseen, condition = visible_columns(W, names, max_condition)
    source = recording.source
    hidden = [n for n in unseen if n in ('m', 'm_cx', 'm_cy', 'm_cz')]
    if hidden:
        raise IdentificationError(
            '%s excites the payload too little: it cannot see %s (mass and '
            'first moments: %s). %s' % (
                source, ', '.join(hidden), ', '.join(names[:4]),
                'Record poses with the tool turned in at least two other '
                'directions to gravity' if mode == STATIC else
                'Move the wrist through more orientations'))
    x_seen, covariance, sigma, weights = weighted_least_squares(
        W[:, seen], tau, joints, nq, blocks)
    least_squares = np.zeros(10)
    least_squares[seen] = x_seen
    std = np.full(10, np.nan)
    std[seen] = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    mass, mass_std = least_squares[0], std[0]
    if not mass > 0.0:
        raise IdentificationError(
            '%s gives a negative payload mass (%.4g +- %.2g kg): the arm '
            'model or its friction does not match the robot, or it holds '
            'nothing' % (source, mass, mass_std))
    if mass_std > mass:
        raise IdentificationError(
            '%s: the payload mass %.4g kg is not credible (standard '
            'deviation %.2g kg, larger than the value): too little '
            'excitation or too much noise' % (source, mass, mass_std))
    first = [k for k in range(4)]
    cov_first = covariance[np.ix_([seen.index(k) for k in first],
                                  [seen.index(k) for k in first])]

    def com_of(x):
        return x[1:4] / x[0]

    com = com_of(least_squares)
    com_std = np.sqrt(np.maximum(np.diag(propagated(
        com_of, least_squares[:4], cov_first)), 0.0))
    if np.any(com_std > max_com_std):
        raise IdentificationError(
            '%s: the payload centre of mass is not credible: standard '
            'deviations %s m exceed %.3g m (too little excitation or too '
            'much noise)' % (source, significant(com_std), max_com_std))
    inertia_seen = all(k in seen for k in range(4, 10))
    information = (W[:, seen] * weights[:, None]).T @ (
        W[:, seen] * weights[:, None])
    if inertia_seen:
        parameters, method = consistent(least_squares, information, seen)
    else:
        parameters, method = least_squares.copy(), 'mass and com only'
        if mode == MOTION:
            notes.append('the motion does not see %s: inertia not '
                         'estimated' % ', '.join(unseen))
    estimate = PayloadEstimate()
    estimate.link = link or model.body_names[-1]
    estimate.mode, estimate.samples, estimate.method = mode, samples, method
    estimate.names = names
    estimate.least_squares, estimate.parameters = least_squares, parameters
    estimate.std = std
    estimate.seen = [names[k] for k in seen]
    estimate.unseen = unseen
    estimate.condition = condition
    estimate.residual_rms = sigma
    estimate.mass, estimate.mass_std = float(mass), float(mass_std)
    estimate.com, estimate.com_std = com, com_std
    estimate.inertia = np.zeros((3, 3))
    estimate.principal_moments = np.full(3, np.nan)
    estimate.principal_std = np.full(3, np.nan)
    if inertia_seen:
        # Principal moments about the com, their deviations to first
        # order (d lambda_k = u_k^T dI u_k for distinct moments).
        _, _, inertia = com_inertia(parameters)
        moments, axes = np.linalg.eigh(inertia)
        full = np.zeros((10, 10))
        full[np.ix_(seen, seen)] = covariance

        def moments_of(x):
            inertia = com_inertia(x)[2]
            return np.array([u @ inertia @ u for u in axes.T])

        moments_std = np.sqrt(np.maximum(np.diag(propagated(
            moments_of, parameters, full)), 0.0))
        estimate.principal_moments, estimate.principal_std = \
            moments, moments_std
        loose = moments_std > max_moment_std * np.maximum(moments, 0.0)
        if np.any(loose):
            estimate.inertia_seen = False
            notes.append(
                'inertia not seen: principal moments %s +- %s kg m^2 '
                '(a deviation above %.3g %% of its moment): left out; '
                'record a longer or faster motion' % (
                    significant(moments, 3), significant(moments_std),
                    100.0 * max_moment_std))
        else:
            estimate.inertia_seen = True
            estimate.inertia = inertia
            # The consistent fit moves mass and com too (slightly).
            estimate.mass, estimate.com, _ = com_inertia(parameters)
            estimate.mass = float(estimate.mass)
    else:
        estimate.inertia_seen = False
    estimate.notes = notes
    return estimate
