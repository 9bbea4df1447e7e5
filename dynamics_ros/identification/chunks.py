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
Recordings of any length: the normal equations accumulated chunk by chunk.

Least squares needs the data only through W^T W, W^T tau, tau^T tau and
the row count, sums over rows; kept per joint (``Equations``), they also
give each joint's residual level for the weighted fit (Gautier and
Khalil's weights are per joint) and the held-out prediction error of any
parameters, so nothing of size N is ever stacked.  A recording is read
twice, in chunks of samples: ``survey`` (times, spans, bad samples, noise
level) and ``windows`` (the uniform grid, cut into jobs), and each job
(``job_equations``) filters, differentiates, builds the regressor and sums
its own rows.

Exact chunking: every filter is zero-phase (filtfilt, forward and
backward), so a sample depends on the samples both sides of it, but an
IIR filter's influence decays geometrically: a job's window reaches
``reach`` samples (impulse response below 1e-14 of its peak, times the
filters in cascade) beyond its rows, and at the recording's own ends it
is the recording's, with the same padding as a whole run.  The rows of
a job then equal the whole run's to round-off (the test asserts 1e-9).
"""

from dataclasses import dataclass, field

import numpy as np
import scipy.signal

from .base_parameters import identification_regressor
from .recording import (FILTER_ORDER, MINIMUM_DURATION, MINIMUM_SAMPLES,
                        MOTIONLESS)
from ..errors import IdentificationError

# Samples kept in memory between the two passes over a recording: below
# this the second pass does not read the file again.
CACHE_SAMPLES = 400000
# Samples used for the robust effort bounds and the noise estimate.
RESERVOIR = 100000
# A sample whose effort or position lies beyond the central 99 % of the
# recording's by more than OUTLIER_SPAN times that range is a glitch.
OUTLIER_SPAN = 10.0
# Relative size below which a filter's impulse response has died out.
DECAY = 1e-14
# Coulomb friction's tanh(qd / smoothing) is within 0.5 % of sign(qd)
# beyond 3 smoothing widths (tanh 3 = 0.995): slower rows are left out.
SMOOTHING_WIDTHS = 3.0
# Velocity noise multiples below which the sign of qd is not known.
NOISE_WIDTHS = 5.0
# A recording with more bad samples than this fraction is refused.
MAX_BAD_FRACTION = 0.5


@dataclass
class Survey:
    """What the first pass over a recording found."""

    source: str
    joint_names: list
    samples: int = 0
    nonfinite: int = 0
    outliers: int = 0
    out_of_order: int = 0
    start: float = 0.0
    end: float = 0.0
    step: float = 0.0
    span: np.ndarray = None
    position_noise: np.ndarray = None
    position_bounds: tuple = None
    effort_bounds: tuple = None
    cache: list = None


@dataclass
class Plan:
    """How one recording is cut into jobs (all indices on its grid)."""

    survey: Survey
    rate: float                   # Hz of the uniform grid
    count: int                    # grid samples
    decimate: int                 # every k-th filtered sample kept
    edge: int                     # raw filter edge cut, grid samples
    decimated: int                # samples kept after the edges, D
    split: int                    # decimated index where validation starts
    edge2: int                    # edge of the regressor filter, decimated
    raw_filter: tuple             # (b, a) at the grid rate
    decimated_filter: tuple       # (b, a) at the decimated rate
    raw_reach: int                # overlap for the raw filters, samples
    decimated_reach: int          # overlap at the decimated rate
    min_speed: np.ndarray         # per joint, rad/s or m/s
    near: int                     # rows dropped either side of a slow one
    block: int                    # decimated rows per job

    @property
    def jobs(self):
        """Return the decimated row ranges of the jobs."""
        return [(d, min(d + self.block, self.decimated))
                for d in range(0, self.decimated, self.block)]


@dataclass
class Equations:
    """
    Per-joint sums: A[j] = W_j^T W_j, b[j] = W_j^T tau_j, c[j], n[j].

    ``train``: the fit's rows (filtered regressor and efforts);
    ``validation``: held-out rows (unfiltered regressor, raw efforts);
    ``moving`` (nq,): held-out rows of each joint at speed; ``slow`` and
    ``reversal`` (nq,): training rows left out (and the rows within the
    filter's reach of them).
    """

    A: np.ndarray
    b: np.ndarray
    c: np.ndarray
    n: np.ndarray
    Av: np.ndarray
    bv: np.ndarray
    cv: np.ndarray
    nv: np.ndarray
    moving: np.ndarray
    slow: np.ndarray
    reversal: np.ndarray
    near: np.ndarray
    samples: list = field(default_factory=list)

    @classmethod
    def zeros(cls, nq, p):
        """Return empty sums."""
        def sums():
            return (np.zeros((nq, p, p)), np.zeros((nq, p)), np.zeros(nq),
                    np.zeros(nq, dtype=np.int64))
        return cls(*sums(), *sums(), np.zeros(nq, dtype=np.int64),
                   np.zeros(nq, dtype=np.int64),
                   np.zeros(nq, dtype=np.int64),
                   np.zeros(nq, dtype=np.int64))

    def add(self, other):
        """Add ``other``'s sums (in place; the caller fixes the order)."""
        for name in ('A', 'b', 'c', 'n', 'Av', 'bv', 'cv', 'nv', 'moving',
                     'slow', 'reversal', 'near'):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.samples.extend(other.samples)
        return self


def reach_of(b, a, tolerance=DECAY):
    """Return the samples after which the filter's impulse response died."""
    length = 64
    while True:
        impulse = np.zeros(length)
        impulse[0] = 1.0
        response = np.abs(scipy.signal.lfilter(b, a, impulse))
        alive = np.flatnonzero(response > tolerance * response.max())
        if alive[-1] < length // 2:
            return int(alive[-1]) + 1
        length *= 2


def chunked(recording, size):
    """Yield a Recording in parts of ``size`` samples."""
    for start in range(0, max(len(recording), 1), size):
        yield recording.part(slice(start, start + size))


def survey(source, chunks, model=None):
    """
    First pass: times, spans, bad samples, noise (IdentificationError).

    ``chunks``: an iterable of Recordings in time order.  Samples with a
    non-finite position or effort are counted and left out, then efforts
    and positions beyond OUTLIER_SPAN times the central 99 % range of a
    reservoir of samples (a glitch of 1e300 N m) are counted and left out.
    """
    found = Survey(source=source, joint_names=None)
    cache, cached = [], 0
    reservoir_q, reservoir_e, times = [], [], []
    last = -np.inf
    lowest = highest = None
    for chunk in chunks:
        if found.joint_names is None:
            found.joint_names = list(chunk.joint_names)
        found.samples += len(chunk)
        t, q, e = chunk.times, chunk.positions, chunk.efforts
        finite = np.isfinite(t) & np.all(np.isfinite(q), axis=1) & np.all(
            np.isfinite(e), axis=1)
        found.nonfinite += int(np.sum(~finite))
        ordered = finite & (t > last)
        # Within a chunk a later sample may still be out of order.
        ordered &= np.concatenate(([True], np.diff(np.where(
            finite, t, -1e308)) > 0.0)) | ~finite
        found.out_of_order += int(np.sum(finite & ~ordered))
        t, q, e = t[ordered], q[ordered], e[ordered]
        if len(t):
            last = t[-1]
        if cache is not None:
            cache.append((t, q, e))
            cached += len(t)
            if cached > CACHE_SAMPLES:
                cache = None
        if len(times) < RESERVOIR:
            times.append(t[:RESERVOIR])
            reservoir_q.append(q[:RESERVOIR])
            reservoir_e.append(e[:RESERVOIR])
        if len(t):
            lowest = q.min(axis=0) if lowest is None else np.minimum(
                lowest, q.min(axis=0))
            highest = q.max(axis=0) if highest is None else np.maximum(
                highest, q.max(axis=0))
    if found.joint_names is None or not any(len(t) for t in times):
        raise IdentificationError('%s has no finite samples' % source)
    bad = found.nonfinite + found.out_of_order
    if bad > MAX_BAD_FRACTION * found.samples:
        raise IdentificationError(
            '%s: %d of %d samples are non-finite or out of time order: not '
            'a usable recording' % (source, bad, found.samples))
    t = np.concatenate(times)[:RESERVOIR]
    q = np.concatenate(reservoir_q)[:RESERVOIR]
    e = np.concatenate(reservoir_e)[:RESERVOIR]
    found.position_bounds = robust_bounds(q)
    found.effort_bounds = robust_bounds(e)
    # The recording's span and outliers on the second look (the cache or
    # the source again would cost a pass): positions beyond the bounds
    # are glitches, so the span is taken within them.
    found.span = (np.minimum(highest, found.position_bounds[1])
                  - np.maximum(lowest, found.position_bounds[0]))
    found.start = float(t[0])
    found.step = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    found.end = float(last)
    found.cache = cache
    # Position noise from second differences (a smooth motion's are
    # q'' dt^2, far below an encoder's noise at 1 kHz): MAD / sqrt(6).
    clean = inside(found, q, e)
    if clean.sum() > 10:
        second = np.diff(q[clean], 2, axis=0)
        found.position_noise = 1.4826 * np.median(np.abs(
            second - np.median(second, axis=0)), axis=0) / np.sqrt(6.0)
    else:
        found.position_noise = np.zeros(q.shape[1])
    return found


def robust_bounds(x):
    """Return (lower, upper) per column: the central 99 % widened."""
    low, middle, high = np.percentile(x, [0.5, 50.0, 99.5], axis=0)
    width = OUTLIER_SPAN * np.maximum(high - low, 1e-6 * np.maximum(
        np.abs(middle), 1.0))
    return middle - width, middle + width


def inside(found, q, e):
    """Return the rows within the survey's position and effort bounds."""
    (ql, qu), (el, eu) = found.position_bounds, found.effort_bounds
    return np.all((q >= ql) & (q <= qu), axis=1) & np.all(
        (e >= el) & (e <= eu), axis=1)


def count_outliers(found, chunks):
    """Count the samples outside the bounds (second pass, kept in found)."""
    found.outliers = sum(int(np.sum(~inside(found, q, e)))
                         for _, q, e in chunks)


def plan(found, model, cutoff, decimate, holdout, smoothing, min_speed,
         chunk_seconds, friction=True):
    """
    Return the Plan of a surveyed recording (IdentificationError).

    ``min_speed`` None: SMOOTHING_WIDTHS smoothing widths or NOISE_WIDTHS
    velocity-noise levels, whichever is larger, where friction is fitted
    (without friction columns no row is left out).
    """
    source = found.source
    duration = found.end - found.start
    if found.samples < MINIMUM_SAMPLES or duration < MINIMUM_DURATION:
        raise IdentificationError(
            '%s is too short: %d samples over %.3g s; identification needs '
            'at least %d samples and %.3g s (a whole excitation period)' % (
                source, found.samples, duration, MINIMUM_SAMPLES,
                MINIMUM_DURATION))
    still = [(found.joint_names[i], found.span[i])
             for i in np.flatnonzero(found.span < MOTIONLESS)]
    if still:
        raise IdentificationError(
            '%s: joints never move: %s; their parameters cannot be seen '
            '(drive every joint, e.g. with `python -m dynamics_ros excite`)'
            % (source, ', '.join('%s (range %.3g)' % s for s in still)))
    if not found.step > 0.0:
        raise IdentificationError('%s: sample times do not increase'
                                  % source)
    rate = 1.0 / found.step
    if not cutoff < 0.5 * rate:
        raise IdentificationError(
            '%s: filter cut-off %g Hz must be below half the sample rate '
            '%.4g Hz' % (source, cutoff, rate))
    count = int(np.floor(duration / found.step + 1e-9)) + 1
    k = max(int(rate / (20.0 * cutoff)), 1) if decimate is None \
        else max(int(decimate), 1)
    edge = int(np.ceil(3.0 * rate / cutoff))
    if count - 2 * edge < MINIMUM_SAMPLES:
        raise IdentificationError(
            '%s is too short: %d samples left after the filter edges of %d '
            'samples' % (source, max(count - 2 * edge, 0), edge))
    decimated = len(range(edge, count - edge, k))
    split = int(round(decimated * (1.0 - holdout)))
    # holdout 0: everything is fitted, validation is the user's (validate).
    if split >= decimated and holdout > 0.0:
        raise IdentificationError('%s: nothing left for validation'
                                  % source)
    slow_rate = rate / k
    raw_filter = scipy.signal.butter(FILTER_ORDER, cutoff / (0.5 * rate))
    decimated_filter = scipy.signal.butter(FILTER_ORDER, min(
        cutoff / (0.5 * slow_rate), 0.99))
    edge2 = int(np.ceil(3.0 * slow_rate / cutoff))
    # Filters in cascade: q, qd, qdd each filtered once more.
    raw_reach = 3 * reach_of(*raw_filter) + 4
    near = max(edge2 // 3, 1)
    decimated_reach = reach_of(*decimated_filter) + near + 2
    noise = found.position_noise * 2.0 * np.pi * np.sqrt(
        2.0 * cutoff ** 3 / (3.0 * rate))
    if min_speed is None and not friction:
        threshold = np.zeros(len(found.joint_names))
    elif min_speed is None:
        threshold = np.maximum(SMOOTHING_WIDTHS * smoothing,
                               NOISE_WIDTHS * noise)
    else:
        threshold = np.full(len(found.joint_names), float(min_speed))
    block = max(int(round(chunk_seconds * slow_rate)), 1)
    return Plan(found, rate, count, k, edge, decimated, split, edge2,
                raw_filter, decimated_filter, raw_reach, decimated_reach,
                threshold, near, block)


def raw_range(plan, d0, d1):
    """Return the grid samples [r0, r1) a job of rows [d0, d1) needs."""
    w0 = max(0, d0 - plan.decimated_reach)
    w1 = min(plan.decimated, d1 + plan.decimated_reach)
    r0 = max(0, plan.edge + w0 * plan.decimate - plan.raw_reach)
    r1 = min(plan.count, plan.edge + (w1 - 1) * plan.decimate + 1
             + plan.raw_reach)
    return w0, w1, r0, r1


def windows(plan, chunks):
    """
    Second pass: yield (d0, d1, r0, q, e) per job, on the uniform grid.

    ``chunks`` yields (t, q, e) of ordered finite samples; those beyond
    the survey's bounds are left out, the rest interpolated onto the grid
    t_i = start + i step.  Only the samples a job's window needs stay in
    memory.
    """
    found = plan.survey
    buffer_t, buffer_q, buffer_e = [], [], []
    source = iter(chunks)
    exhausted = False
    outliers = 0
    for d0, d1 in plan.jobs:
        _, _, r0, r1 = raw_range(plan, d0, d1)
        t_end = found.start + (r1 - 1) * found.step
        while not exhausted and (not buffer_t or buffer_t[-1][-1] < t_end):
            try:
                t, q, e = next(source)
            except StopIteration:
                exhausted = True
                break
            keep = inside(found, q, e)
            outliers += int(np.sum(~keep))
            if keep.any():
                buffer_t.append(t[keep])
                buffer_q.append(q[keep])
                buffer_e.append(e[keep])
        t = np.concatenate(buffer_t)
        q = np.concatenate(buffer_q)
        e = np.concatenate(buffer_e)
        grid = found.start + found.step * np.arange(r0, r1)
        q_grid = np.column_stack([np.interp(grid, t, q[:, i])
                                  for i in range(q.shape[1])])
        e_grid = np.column_stack([np.interp(grid, t, e[:, i])
                                  for i in range(e.shape[1])])
        yield d0, d1, r0, q_grid, e_grid
        # Keep what the next window may need (one sample before it).
        if (d1 < plan.decimated):
            _, _, next_r0, _ = raw_range(plan, d1, min(d1 + plan.block,
                                                       plan.decimated))
            first = np.searchsorted(t, found.start + next_r0 * found.step,
                                    side='right') - 1
            first = max(first, 0)
            buffer_t, buffer_q, buffer_e = [t[first:]], [q[first:]], \
                [e[first:]]
    if exhausted or found.outliers == 0:
        # Counted on the samples read (the whole recording by the end).
        found.outliers = outliers


@dataclass
class Job:
    """One job's inputs: picklable, for a Dask worker."""

    model: object
    friction: bool
    smoothing: float
    plan: Plan
    d0: int
    d1: int
    r0: int
    q: np.ndarray
    e: np.ndarray
    keep_samples: int = 0


def zero_phase(filter_ab, x):
    """Return ``x`` through filtfilt (time along axis 0)."""
    return scipy.signal.filtfilt(*filter_ab, x, axis=0)


def slow_rows(qd, min_speed, near):
    """
    Return (slow, reversal, dropped) masks (rows, nq) of one job's window.

    slow: |qd| below ``min_speed``; reversal: qd changes sign from this
    row to the next (so a reversal between two samples is caught even if
    neither is slow); dropped: within ``near`` rows of either.
    """
    slow = np.abs(qd) < min_speed
    sign = np.sign(qd)
    reversal = np.zeros_like(slow)
    flips = sign[1:] * sign[:-1] < 0.0
    reversal[:-1] |= flips
    reversal[1:] |= flips
    either = (slow | reversal).astype(float)
    kernel = np.ones(2 * near + 1)
    spread = np.column_stack([np.convolve(either[:, j], kernel, mode='same')
                              for j in range(qd.shape[1])])
    return slow, reversal & ~slow, spread > 0.5


def job_equations(job):
    """
    Return the Equations of one job's rows (what a worker runs).

    The raw stage (``recording.filtered_states``): positions and efforts
    low-passed at the grid rate, velocity and acceleration as filtered
    central differences, every k-th sample kept.  The training rows'
    regressor columns go through the filter at the decimated rate
    (parallel filtering, Gautier 1997) over the training part only, as
    its efforts went through the first; held-out rows keep the plain
    regressor and the raw efforts.
    """
    plan, model = job.plan, job.model
    step = 1.0 / plan.rate
    q = zero_phase(plan.raw_filter, job.q)
    qd = zero_phase(plan.raw_filter, np.gradient(q, step, axis=0))
    qdd = zero_phase(plan.raw_filter, np.gradient(qd, step, axis=0))
    effort = zero_phase(plan.raw_filter, job.e)
    w0, w1, _, _ = raw_range(plan, job.d0, job.d1)
    rows = plan.edge + np.arange(w0, w1) * plan.decimate - job.r0
    # Known rotor inertia (the model's armature): not an inertial
    # parameter of the links, its torque armature qdd is taken off the
    # measured efforts (and added back to predictions).
    rotor = model.armature * qdd[rows]
    effort, raw_effort = effort[rows] - rotor, job.e[rows] - rotor
    q, qd, qdd = q[rows], qd[rows], qdd[rows]
    nq = model.nq
    W, names = identification_regressor(model, q, qd, qdd,
                                        friction=job.friction,
                                        smoothing=job.smoothing)
    p = len(names)
    W = W.reshape(-1, nq, p)
    result = Equations.zeros(nq, p)
    d = np.arange(w0, w1)
    # Training rows: the regressor filter over the window's training part.
    train = d < plan.split
    if train.any():
        count = int(train.sum())
        Wf = zero_phase(plan.decimated_filter,
                        W[:count].reshape(count, -1)).reshape(count, nq, p)
        slow, reversal, dropped = slow_rows(qd[:count], plan.min_speed,
                                            plan.near)
        own = ((d[:count] >= job.d0) & (d[:count] < job.d1)
               & (d[:count] >= plan.edge2)
               & (d[:count] < plan.split - plan.edge2))
        for j in range(nq):
            use = own & ~dropped[:, j]
            Wj = Wf[use, j, :]
            tau = effort[:count][use, j]
            result.A[j] = Wj.T @ Wj
            result.b[j] = Wj.T @ tau
            result.c[j] = tau @ tau
            result.n[j] = int(use.sum())
            result.slow[j] = int(np.sum(own & slow[:, j]))
            result.reversal[j] = int(np.sum(own & reversal[:, j]))
            result.near[j] = int(np.sum(own & dropped[:, j]))
    held = (d >= plan.split) & (d >= job.d0) & (d < job.d1)
    if held.any():
        moving = np.abs(qd[held]) >= plan.min_speed
        for j in range(nq):
            Wj = W[held, j, :]
            tau = raw_effort[held, j]
            result.Av[j] = Wj.T @ Wj
            result.bv[j] = Wj.T @ tau
            result.cv[j] = tau @ tau
            result.nv[j] = int(held.sum())
            result.moving[j] = int(moving[:, j].sum())
        if job.keep_samples:
            first = np.flatnonzero(held & (d < plan.split
                                           + job.keep_samples))
            if len(first):
                t = plan.survey.start + (plan.edge + d[first]
                                         * plan.decimate) / plan.rate
                result.samples.append((t, q[first], qd[first], qdd[first],
                                       raw_effort[first] + rotor[first]))
    return result
