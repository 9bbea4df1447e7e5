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
Identification from a recording to parameters, as the CLI runs it.

Steps: filter the recording (``recording.filtered_states``), hold out its
last part for validation, build the regressor of the rest with friction
columns, check the excitation, fit the base parameters by weighted least
squares (their standard deviations) and the standard parameters
physically consistently with the URDF as prior (``fit``), then predict
the held-out torques with the identified and with the nominal model.
"""

import numpy as np

from .base_parameters import identification_regressor, model_base_parameters
from .fit import consistent_fit, ordinary_fit
from .recording import filtered_states
from ..dynamics.friction import DEFAULT_SMOOTHING, FRICTION_TERMS
from ..dynamics.regressor import inertial_parameters, with_parameters
from ..errors import IdentificationError

# Above this condition number of the column-scaled base regressor, the data
# cannot tell some base parameters apart.
MAX_CONDITION = 1e5
DEFAULT_HOLDOUT = 0.25


class Identification:
    """
    Everything an identification found.

    ``model``: the identified RobotModel; ``parameters``: the standard
    parameters (10 per body, then viscous, Coulomb, offset per joint);
    ``nominal``: the URDF's; ``friction``: {joint: {term: value}};
    ``base``: the BaseParameters, ``base_nominal``, ``base_identified``,
    ``base_std``; ``rms``, ``nominal_rms`` (per joint) and ``total_rms``,
    ``nominal_total_rms``: held-out torque prediction error against the
    measured efforts; ``validation``: the held-out States with
    ``predicted`` and ``nominal_predicted`` torques; ``condition``:
    condition number of the column-scaled base regressor.
    """


def scaled_condition(W):
    """Return cond(W D), D scaling every column to unit norm."""
    norms = np.linalg.norm(W, axis=0)
    scaled = W / np.where(norms > 0.0, norms, 1.0)
    values = np.linalg.svd(scaled, compute_uv=False)
    return float(values[0] / max(values[-1], 1e-300)), values, scaled


def check_excitation(W_base, base, source, limit=MAX_CONDITION):
    """
    Refuse data that cannot see some base parameters: name them.

    The right singular vectors of the smallest singular values of the
    column-scaled base regressor are the combinations the data does not
    excite; the base parameters with the largest share in them are named.
    """
    condition, values, scaled = scaled_condition(W_base)
    if condition <= limit:
        return condition
    _, values, vt = np.linalg.svd(scaled, full_matrices=False)
    weak = vt[values < values[0] / limit]
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

    False within a cut-off period (the filter's reach) of a slower sample.
    """
    slow = np.abs(states.qd) < min_speed
    if min_speed <= 0.0 or not slow.any():
        return ~slow
    reach = max(states.edge // 3, 1)
    kernel = np.ones(2 * reach + 1)
    near = np.column_stack([np.convolve(slow[:, j], kernel, mode='same')
                            for j in range(slow.shape[1])])
    return near == 0


def nominal_parameters(model, smoothing=DEFAULT_SMOOTHING):
    """Return the URDF's standard parameters: inertias, its friction."""
    friction = np.column_stack((model.damping, model.friction,
                                np.zeros(model.nq)))
    return np.concatenate((inertial_parameters(model), friction.ravel()))


def identify(model, recording, friction=True, prior_weight=1.0,
             holdout=DEFAULT_HOLDOUT, cutoff=5.0, decimate=None,
             smoothing=DEFAULT_SMOOTHING, min_speed=0.0, progress=None):
    """
    Identify ``model``'s inertias (and joint friction) from ``recording``.

    ``holdout``: the fraction at the end kept for validation;
    ``decimate``: keep every k-th filtered sample (default: about 20 per
    cut-off period; neighbours at 1 kHz add rows, not information);
    ``prior_weight`` 0 fits without the URDF prior.  ``min_speed``
    (rad/s or m/s): a joint's equations within a cut-off period of a
    speed below it are left out of the fit (a joint that sticks takes any
    friction torque up to its Coulomb level, which no function of the
    velocity predicts).  Returns an Identification.
    """
    say = progress or (lambda text: None)
    if model.__class__.__name__ != 'RobotModel':
        raise IdentificationError('identification needs a plain model '
                                  '(no mimic joints or flexible links), got '
                                  '%s' % type(model).__name__)
    recording = recording.select(model.joint_names)
    states = filtered_states(recording, cutoff=cutoff, decimate=decimate)
    say('%s: %d samples at %.4g Hz, %d kept after filtering' % (
        recording.source, len(recording), states.rate, len(states.t)))
    split = int(round(len(states.t) * (1.0 - holdout)))
    train, validation = states.part(slice(0, split)), states.part(
        slice(split, None))
    if len(validation.t) == 0:
        raise IdentificationError('%s: nothing left for validation'
                                  % recording.source)
    say('base parameters of %r...' % model.name)
    base = model_base_parameters(model, friction=friction)
    W, names = identification_regressor(model, train.q, train.qd, train.qdd,
                                        friction=friction,
                                        smoothing=smoothing)
    # Parallel filtering (Gautier 1997): each regressor column through the
    # filter the efforts went through, so that what the filter did to the
    # measured torques (a Coulomb step smoothed over the cut-off's time
    # scale) it does to the model's too; then the filter's edges go.
    samples = len(train.t)
    W = train.filter(W.reshape(samples, -1)).reshape(samples, model.nq, -1)
    cut = slice(train.edge, samples - train.edge)
    keep = sliding_rows(train, min_speed)[cut].ravel()
    W = W[cut].reshape(-1, len(names))[keep]
    tau = train.effort[cut].ravel()[keep]
    if len(tau) == 0:
        raise IdentificationError('%s is too short to identify from'
                                  % recording.source)
    W_base = base.regressor(W)
    # The joint of each row left, for per-joint noise levels.
    joints = np.tile(np.arange(model.nq), (samples, 1))[cut].ravel()[keep]
    condition = check_excitation(W_base, base, recording.source)
    say('%d base parameters of %d, condition number %.4g' % (
        base.rank, len(names), condition))
    ordinary = ordinary_fit(W_base, tau, model.nq, joints=joints)
    say('least squares: residual RMS %s' % np.array2string(
        ordinary.sigma, precision=3))
    nominal = nominal_parameters(model, smoothing)
    prior = nominal if friction else nominal[:10 * model.nq]
    friction_columns = [k for k, name in enumerate(names)
                        if name.endswith(('.viscous', '.coulomb'))]
    sigma = np.maximum(ordinary.sigma, 1e-9)[joints]
    say('physically consistent fit...')
    parameters, info = consistent_fit(
        W, tau, model.nq, prior, sigma=sigma, prior_weight=prior_weight,
        friction_columns=friction_columns, progress=say)
    say('consistent fit: %s after %d evaluations' % (
        info['message'], info['evaluations']))
    result = Identification()
    result.parameters = parameters
    result.nominal = prior
    result.names = names
    result.model = with_parameters(model, parameters[:10 * model.nq])
    result.friction = {}
    if friction:
        values = parameters[10 * model.nq:].reshape(model.nq, 3)
        result.friction = {joint: dict(zip(FRICTION_TERMS, map(float, row)))
                           for joint, row in zip(model.joint_names, values)}
    result.smoothing = smoothing
    result.base = base
    result.base_nominal = base.values(prior)
    result.base_identified = base.values(parameters)
    result.base_least_squares = ordinary.base
    result.base_std = ordinary.base_std
    result.condition = condition
    result.info = info
    W_validation, _ = identification_regressor(
        model, validation.q, validation.qd, validation.qdd,
        friction=friction, smoothing=smoothing)
    rows = (len(validation.t), model.nq)
    validation.predicted = (W_validation @ parameters).reshape(rows)
    validation.nominal_predicted = (W_validation @ prior).reshape(rows)
    result.validation = validation
    error = validation.predicted - validation.raw_effort
    nominal_error = validation.nominal_predicted - validation.raw_effort
    result.rms = np.sqrt(np.mean(error ** 2, axis=0))
    result.nominal_rms = np.sqrt(np.mean(nominal_error ** 2, axis=0))
    result.total_rms = float(np.sqrt(np.mean(error ** 2)))
    result.nominal_total_rms = float(np.sqrt(np.mean(nominal_error ** 2)))
    say('held-out torque RMS: identified %.4g N m, nominal URDF %.4g N m'
        % (result.total_rms, result.nominal_total_rms))
    return result
