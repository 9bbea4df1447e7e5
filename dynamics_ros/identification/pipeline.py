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
Identification from recordings to parameters, as named steps.

``identify`` runs them over one ``Identification`` (a dataclass each step
fills its part of):

1. ``prepare``: survey each recording (times, spans, non-finite samples
   and glitches counted and left out, noise level) and plan its jobs
   (filter edges, decimation, the held-out end, the speed below which
   friction is not trusted: chunks.py);
2. ``regress``: per job, filter, differentiate, build the regressor with
   friction columns and sum the per-joint normal equations, training and
   held-out rows apart (in process or on Dask workers: parallel.py);
3. ``fit``: check the excitation, weighted least squares of the base
   parameters (their standard deviations), then the physically consistent
   standard parameters with the URDF as prior (an SDP: fit.py);
4. ``validate``: held-out torque RMS of the identified and the URDF model
   from the held-out sums; traces of the first held-out samples for the
   report;
5. ``write`` (``output.write_outputs``): URDF, friction YAML, report.

A model's armature (rotor inertia reflected to the joint) is taken as
known: its torque is taken off the efforts before the fit.

Rows where the friction model tanh(qd / smoothing) cannot be trusted are
left out by default (``min_speed`` None): below max(3 smoothing widths,
5 velocity-noise levels) and where the velocity changes sign, with the
rows within a cut-off period of them (the parallel filter spreads the
friction step over that time), counted per joint in ``selection``.
"""

from dataclasses import dataclass, field
import time
from typing import Optional

import numpy as np

from . import CHUNK_SECONDS_BOUNDS, chunks
from .base_parameters import model_base_parameters
from .fit import consistent_fit_normal, ordinary_fit_normal
from .recording import CHUNK_SAMPLES, DEFAULT_CUTOFF, DEFAULT_TOPIC, \
    Recording, recording_chunks, States
from ..dynamics.friction import DEFAULT_SMOOTHING, FRICTION_TERMS
from ..dynamics.regressor import inertial_parameters, with_parameters
from ..errors import IdentificationError
from ..model.robot_model import RobotModel

# Above this condition number of the column-scaled base regressor, the data
# cannot tell some base parameters apart.
MAX_CONDITION = 1e5
DEFAULT_HOLDOUT = 0.25
# Decimated samples of held-out traces kept for the report's plots.
PLOT_SAMPLES = 3000
# Held-out data with fewer moving rows than this fraction is mostly rest.
MOSTLY_AT_REST = 0.5


@dataclass
class Settings:
    """
    The options of an identification.

    ``min_speed`` None: decided from the data (module docstring); a
    number: that speed for every joint (0: keep every row).
    ``chunk_seconds``: recording time per job; ``workers`` None: in
    process below ``parallel.MIN_PARALLEL_JOBS`` jobs, else a local Dask
    cluster of that many processes (0: in process always);
    ``scheduler``: a Dask scheduler address to use instead.
    """

    friction: bool = True
    prior_weight: float = 1.0
    holdout: float = DEFAULT_HOLDOUT
    cutoff: float = DEFAULT_CUTOFF
    decimate: int = None
    smoothing: float = DEFAULT_SMOOTHING
    min_speed: float = None
    chunk_seconds: float = 120.0
    workers: int = None
    scheduler: str = None
    topic: str = DEFAULT_TOPIC


@dataclass
class Identification:
    """
    Everything an identification found, step by step.

    prepare: ``model``, ``settings``, ``plans`` (one per recording);
    regress: ``equations`` (chunks.Equations, summed in job order);
    fit: ``base`` (BaseParameters), ``condition``, ``ordinary`` (least
    squares: ``base_least_squares``, ``base_std``), ``parameters`` (10 per
    body, then viscous, Coulomb, offset per joint), ``nominal`` (the
    URDF's), ``friction`` {joint: {term: value}}, ``info`` (the solver:
    'status', 'message', 'converged'), ``base_nominal``,
    ``base_identified``; validate: ``rms``, ``nominal_rms`` (per joint),
    ``total_rms``, ``nominal_total_rms``, ``validation`` (States of the
    first held-out samples with ``predicted`` and ``nominal_predicted``),
    ``selection`` (rows left out and why), ``notes``.
    """

    # prepare
    model: object
    settings: Settings
    sources: list = field(default_factory=list)
    plans: list = field(default_factory=list)
    # regress
    equations: object = None
    # fit
    base: object = None
    names: Optional[list] = None
    condition: Optional[float] = None
    ordinary: object = None
    base_least_squares: Optional[np.ndarray] = None
    base_std: Optional[np.ndarray] = None
    parameters: Optional[np.ndarray] = None
    nominal: Optional[np.ndarray] = None
    friction: dict = field(default_factory=dict)
    smoothing: float = DEFAULT_SMOOTHING
    info: dict = field(default_factory=dict)
    base_nominal: Optional[np.ndarray] = None
    base_identified: Optional[np.ndarray] = None
    # validate
    rms: Optional[np.ndarray] = None
    nominal_rms: Optional[np.ndarray] = None
    selection: dict = field(default_factory=dict)
    total_rms: Optional[float] = None
    nominal_total_rms: Optional[float] = None
    validation: Optional[States] = None
    notes: list = field(default_factory=list)
    # write
    model_identified: object = None

    @property
    def source(self):
        """Return the recordings' names, for messages."""
        return ', '.join(plan.survey.source for plan in self.plans) or \
            ', '.join(name for name, _ in self.sources)


def scaled_condition(W):
    """Return cond(W D), D scaling every column to unit norm."""
    norms = np.linalg.norm(W, axis=0)
    scaled = W / np.where(norms > 0.0, norms, 1.0)
    values = np.linalg.svd(scaled, compute_uv=False)
    return float(values[0] / max(values[-1], 1e-300)), values, scaled


def normal_condition(A):
    """
    Return (cond(W D), eigenvalues, eigenvectors) from A = W^T W.

    D scales W's columns to unit norm: D A D has unit diagonal; its
    eigenvalues are the squared singular values of W D.
    """
    scale = np.sqrt(np.diag(A))
    scaled = A / np.outer(np.where(scale > 0, scale, 1.0),
                          np.where(scale > 0, scale, 1.0))
    values, vectors = np.linalg.eigh(scaled)
    values = np.maximum(values, 0.0)
    return float(np.sqrt(values[-1] / max(values[0], 1e-300))), values, \
        vectors


def check_excitation(A_base, base, source, limit=MAX_CONDITION):
    """
    Refuse data that cannot see some base parameters: name them.

    ``A_base`` = W_b^T W_b.  The eigenvectors of its smallest eigenvalues
    (column-scaled) are the combinations the data does not excite; the
    base parameters with the largest share in them are named.
    """
    if not np.all(np.isfinite(A_base)):
        raise IdentificationError('%s: the regressor is not finite (the '
                                  'recording holds values out of range)'
                                  % source)
    condition, values, vectors = normal_condition(A_base)
    if condition <= limit:
        return condition
    weak = vectors[:, values < values[-1] / limit ** 2].T
    share = np.max(np.abs(weak), axis=0)
    worst = np.argsort(share)[::-1][:max(3, len(weak))]
    raise IdentificationError(
        '%s excites the robot too little: condition number %.3g of the '
        'base regressor (at most %.3g); the data cannot see %s. Drive a '
        'richer trajectory (python -m dynamics_ros excite ROBOT.urdf)' % (
            source, condition, limit, '; '.join(
                base.combinations[k] for k in worst if share[k] > 0.1)))


def sliding_rows(states, min_speed):
    """
    Return (N, nq) True where a joint kept at least ``min_speed``.

    False within a cut-off period (the filter's reach) of a slower sample
    or of a change of sign of the velocity.
    """
    if np.all(np.asarray(min_speed) <= 0.0):
        return np.ones(states.qd.shape, dtype=bool)
    _, _, dropped = chunks.slow_rows(states.qd, min_speed,
                                     max(states.edge // 3, 1))
    return ~dropped


def nominal_parameters(model, smoothing=DEFAULT_SMOOTHING):
    """Return the URDF's standard parameters: inertias, its friction."""
    friction = np.column_stack((model.damping, model.friction,
                                np.zeros(model.nq)))
    return np.concatenate((inertial_parameters(model), friction.ravel()))


def as_sources(recordings, joint_names, topic):
    """
    Return [(name, chunk factory)] of Recordings, paths and streams.

    A stream has ``source`` (its name) and ``chunks()``, a new iterator of
    Recordings (``joint_names`` order, time order) at every call.
    """
    if isinstance(recordings, (Recording, str)) or hasattr(
            recordings, '__fspath__') or hasattr(recordings, 'chunks'):
        recordings = [recordings]
    sources = []
    for item in recordings:
        if hasattr(item, 'chunks') and hasattr(item, 'source'):
            # A stream: anything with ``chunks()`` yielding Recordings in
            # time order (a generated recording, a custom reader).
            sources.append((item.source, item.chunks))
        elif isinstance(item, Recording):
            selected = item.select(joint_names)
            sources.append((item.source, lambda r=selected: chunks.chunked(
                r, CHUNK_SAMPLES)))
        else:
            path = str(item)
            sources.append((path, lambda p=path: recording_chunks(
                p, joint_names, topic)))
    if not sources:
        raise IdentificationError('no recording given')
    return sources


def prepare(model, recordings, settings=None, say=None):
    """Step 1: survey and plan every recording; return the Identification."""
    say = say or (lambda text: None)
    settings = settings or Settings()
    if not isinstance(model, RobotModel):
        mimic = sorted(getattr(model, 'mimic', None) or ())
        raise IdentificationError(
            'identification needs a plain model (no mimic joints or '
            'flexible links), got %s%s' % (
                type(model).__name__, '' if not mimic else
                " with mimic joints %s (a gripper's): cut the model at the "
                "arm's last link with --tip (tip_link)" % ', '.join(mimic)))
    result = Identification(model=model, settings=settings,
                            smoothing=settings.smoothing)
    result.sources = as_sources(recordings, model.joint_names,
                                settings.topic)
    for name, factory in result.sources:
        found = chunks.survey(name, reporting(factory(), name, say))
        found.source = found.source if isinstance(found.source, str) \
            else name
        plan = chunks.plan(found, model, settings.cutoff, settings.decimate,
                           settings.holdout, settings.smoothing,
                           settings.min_speed, settings.chunk_seconds,
                           settings.friction)
        say('%s: %d samples at %.4g Hz over %.1f s; %d jobs' % (
            found.source, found.samples, plan.rate,
            found.end - found.start, len(plan.jobs)))
        result.plans.append(plan)
    return result


def reporting(chunk_iterator, name, say, every=2.0):
    """Yield the chunks, saying how far the reading got every few seconds."""
    started = last = time.monotonic()
    count = 0
    for chunk in chunk_iterator:
        count += len(chunk)
        now = time.monotonic()
        if now - last > every:
            last = now
            say('%s: read %d samples (%.0f s)' % (name, count,
                                                  now - started))
        yield chunk


def jobs_of(result):
    """Yield every job of every recording (reads each a second time)."""
    settings = result.settings
    for (name, factory), plan in zip(result.sources, result.plans):
        found = plan.survey
        if found.cache is not None:
            raw = iter(found.cache)
        else:
            raw = ordered(factory())
        keep = PLOT_SAMPLES if plan is result.plans[0] else 0
        for d0, d1, r0, q, e in chunks.windows(plan, raw):
            yield chunks.Job(result.model, settings.friction,
                             settings.smoothing, plan, d0, d1, r0, q, e,
                             keep)


def ordered(chunk_iterator):
    """Yield the finite, time-ordered samples of chunks (the survey's rule)."""
    last = -np.inf
    for chunk in chunk_iterator:
        t, q, e = chunk.times, chunk.positions, chunk.efforts
        finite = np.isfinite(t) & np.all(np.isfinite(q), axis=1) & np.all(
            np.isfinite(e), axis=1)
        ordered_rows = finite & (t > last)
        ordered_rows &= np.concatenate(([True], np.diff(np.where(
            finite, t, -1e308)) > 0.0)) | ~finite
        if ordered_rows.any():
            last = t[ordered_rows][-1]
            yield Chunk(t[ordered_rows], q[ordered_rows], e[ordered_rows])


class Chunk(tuple):
    """(t, q, e) of ordered samples."""

    def __new__(cls, t, q, e):
        """Hold the arrays."""
        return super().__new__(cls, (t, q, e))


def regress(result, say=None):
    """Step 2: the normal equations of every job, summed in job order."""
    from .parallel import run_jobs

    say = say or (lambda text: None)
    total = sum(len(plan.jobs) for plan in result.plans)
    started = time.monotonic()
    last = [started]

    def done(index):
        now = time.monotonic()
        if now - last[0] > 2.0 or (index + 1 == total and now - started
                                   > 2.0):
            last[0] = now
            say('regressor: %d/%d jobs (%.0f %%)' % (
                index + 1, total, 100.0 * (index + 1) / total))

    settings = result.settings
    equations = run_jobs(jobs_of(result), total, workers=settings.workers,
                         scheduler=settings.scheduler, done=done, say=say)
    result.equations = equations
    for plan in result.plans:
        found = plan.survey
        if found.outliers or found.nonfinite or found.out_of_order:
            result.notes.append(
                '%s: left out %d non-finite samples, %d out of time order '
                'and %d outliers (efforts or positions beyond 10x the '
                'central 99 %% range: glitches)' % (
                    found.source, found.nonfinite, found.out_of_order,
                    found.outliers))
        bad = found.outliers + found.nonfinite + found.out_of_order
        if bad > chunks.MAX_BAD_FRACTION * found.samples:
            raise IdentificationError(
                '%s: %d of %d samples are non-finite, out of order or '
                'outliers: not a usable recording' % (
                    found.source, bad, found.samples))
    return result


def fit(result, say=None):
    """Step 3: least squares of the base parameters, then the SDP."""
    say = say or (lambda text: None)
    model, settings, equations = result.model, result.settings, \
        result.equations
    source = result.source
    empty = [name for name, count in zip(model.joint_names, equations.n)
             if count == 0]
    if empty:
        raise IdentificationError(
            '%s: no training rows left for joints %s: %d rows slower than '
            '%s rad/s or at velocity reversals (and their neighbours) were '
            'left out; drive the joints faster or set --min-speed' % (
                source, ', '.join(empty), int(equations.near.sum()),
                np.array2string(result.plans[0].min_speed, precision=3)))
    say('base parameters of %r...' % model.name)
    base = model_base_parameters(model, friction=settings.friction)
    result.base, result.names = base, base.names
    index = base.independent
    A_total = equations.A.sum(axis=0)
    result.condition = check_excitation(A_total[np.ix_(index, index)], base,
                                        source)
    say('%d base parameters of %d, condition number %.4g' % (
        base.rank, len(base.names), result.condition))
    ordinary = ordinary_fit_normal(equations.A, equations.b, equations.c,
                                   equations.n, base)
    result.ordinary = ordinary
    say('least squares: residual RMS %s' % np.array2string(
        ordinary.sigma, precision=3))
    nominal = nominal_parameters(model, settings.smoothing)
    prior = nominal if settings.friction else nominal[:10 * model.nq]
    friction_columns = [k for k, name in enumerate(base.names)
                        if name.endswith(('.viscous', '.coulomb'))]
    # Rows weighted by 1 / each joint's residual level.
    weights = 1.0 / np.maximum(ordinary.sigma, 1e-9) ** 2
    A = np.einsum('j,jpq->pq', weights, equations.A)
    b = np.einsum('j,jp->p', weights, equations.b)
    say('physically consistent fit...')
    parameters, info = consistent_fit_normal(
        A, b, model.nq, prior, prior_weight=settings.prior_weight,
        friction_columns=friction_columns, progress=say)
    say('consistent fit: %s' % info['message'])
    result.parameters, result.nominal, result.info = parameters, prior, info
    result.model_identified = with_parameters(model,
                                              parameters[:10 * model.nq])
    if settings.friction:
        values = parameters[10 * model.nq:].reshape(model.nq, 3)
        result.friction = {joint: dict(zip(FRICTION_TERMS, map(float, row)))
                           for joint, row in zip(model.joint_names, values)}
    result.base_nominal = base.values(prior)
    result.base_identified = base.values(parameters)
    result.base_least_squares = ordinary.base
    result.base_std = ordinary.base_std
    return result


def held_out_rms(equations, x):
    """Return the per-joint RMS of W x - tau over the held-out sums."""
    squares = np.maximum(equations.cv - 2.0 * equations.bv @ x + np.einsum(
        'p,jpq,q->j', x, equations.Av, x), 0.0)
    return np.sqrt(squares / np.maximum(equations.nv, 1)), squares


NO_HOLDOUT = ('holdout 0: every sample was fitted, none held out, so there '
              'is no validation here: validating the model is yours (on '
              'another recording, or run again with a holdout such as 0.25)')


def validate(result, say=None):
    """Step 4: held-out torque RMS, traces for the report, row counts."""
    say = say or (lambda text: None)
    model, equations = result.model, result.equations
    if equations.nv.sum() == 0 and result.settings.holdout > 0.0:
        raise IdentificationError('%s: nothing left for validation'
                                  % result.source)
    if equations.nv.sum() == 0:
        # --holdout 0: fitted on everything; no RMS is made up.
        nothing = np.full(model.nq, np.nan)
        result.rms, result.nominal_rms = nothing, nothing.copy()
        result.total_rms = result.nominal_total_rms = float('nan')
        result.notes.append(NO_HOLDOUT)
        say(NO_HOLDOUT)
        return result
    result.rms, squares = held_out_rms(equations, result.parameters)
    result.nominal_rms, nominal_squares = held_out_rms(equations,
                                                       result.nominal)
    count = max(int(equations.nv.sum()), 1)
    result.total_rms = float(np.sqrt(squares.sum() / count))
    result.nominal_total_rms = float(np.sqrt(nominal_squares.sum() / count))
    moving = equations.moving / np.maximum(equations.nv, 1)
    plan = result.plans[0]
    result.selection = {
        'min_speed': plan.min_speed, 'near': plan.near,
        'kept': equations.n, 'slow': equations.slow,
        'reversal': equations.reversal, 'dropped': equations.near,
        'held_out_moving': moving}
    dropped = int(equations.near.sum())
    total = dropped + int(equations.n.sum())
    say('training rows: kept %d, left out %d (%.0f %%): %d below %s rad/s, '
        '%d at a velocity reversal, the rest within %d samples of those'
        % (int(equations.n.sum()), dropped, 100.0 * dropped / max(total, 1),
           int(equations.slow.sum()), np.array2string(
               plan.min_speed, precision=3), int(equations.reversal.sum()),
           plan.near))
    resting = [j for j, share in zip(model.joint_names, moving)
               if share < MOSTLY_AT_REST]
    if resting:
        result.notes.append(
            'held-out data is mostly at rest for joints %s (moving in %s '
            'of its samples): its RMS says little about the dynamics' % (
                ', '.join(resting), ', '.join(
                    '%.0f %%' % (100 * share) for share in moving
                    if share < MOSTLY_AT_REST)))
    samples = equations.samples
    if samples:
        t, q, qd, qdd, raw = (np.concatenate(parts) for parts in
                              zip(*samples))
        validation = States(model.joint_names, t, q, qd, qdd, raw, raw,
                            plan.rate / plan.decimate)
        from .base_parameters import identification_regressor
        W, _ = identification_regressor(
            model, q, qd, qdd, friction=result.settings.friction,
            smoothing=result.settings.smoothing)
        rows = (len(t), model.nq)
        rotor = model.armature * qdd
        validation.predicted = (W @ result.parameters).reshape(rows) + rotor
        validation.nominal_predicted = (W @ result.nominal).reshape(rows) \
            + rotor
        result.validation = validation
    say('held-out torque RMS: identified %.4g N m, nominal URDF %.4g N m'
        % (result.total_rms, result.nominal_total_rms))
    return result


def identify(model, recording, friction=True, prior_weight=1.0,
             holdout=DEFAULT_HOLDOUT, cutoff=DEFAULT_CUTOFF, decimate=None,
             smoothing=DEFAULT_SMOOTHING, min_speed=None, progress=None,
             chunk_seconds=120.0, workers=None, scheduler=None,
             topic=DEFAULT_TOPIC):
    """
    Identify ``model``'s inertias (and joint friction) from recordings.

    ``recording``: a Recording, a bag or CSV path, or a list of them (one
    arm recorded several times, or a fleet of the same model: one model
    is fitted to all).  ``holdout``: the fraction at the end of each kept
    for validation; ``decimate``: keep every k-th filtered sample
    (default: about 20 per cut-off period); ``prior_weight`` 0 fits
    without the URDF prior; ``min_speed``: None decides from the data
    which rows friction cannot be trusted on (module docstring), a number
    sets it (0: every row).  Returns an Identification.
    """
    low, high = CHUNK_SECONDS_BOUNDS
    if not low <= float(chunk_seconds) <= high:   # also NaN
        raise IdentificationError(
            'chunk_seconds must be within [%g, %g] s (its bound), got %r'
            % (low, high, chunk_seconds))
    settings = Settings(friction=friction, prior_weight=prior_weight,
                        holdout=holdout, cutoff=cutoff, decimate=decimate,
                        smoothing=smoothing, min_speed=min_speed,
                        chunk_seconds=chunk_seconds, workers=workers,
                        scheduler=scheduler, topic=topic)
    say = progress or (lambda text: None)
    result = prepare(model, recording, settings, say)
    regress(result, say)
    fit(result, say)
    return validate(result, say)
