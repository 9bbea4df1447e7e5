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
Is the step short enough?  The stiff terms of a Simulator and its warnings.

``StepChecks`` is the part of ``Simulator`` (simulator.py) that looks at
the step size against the model: it samples the inverse inertia at the
initial positions and at ``INERTIA_SAMPLES`` configurations within the
limits, splits the joint damping into the part the explicit integrator
can follow and the stiff part integrated implicitly (``STIFF_DAMPING``;
simulator.py's module notes say how), hands a controller's stiff dampers
over the same way (``hand_over``), and warns (``check_step``) when a term
left explicit is too fast for dt (``explicit_rates``).
"""

import warnings

import numpy as np

from .controllers import PidGains
from ..errors import ModelWarning

# A joint's damping goes implicit when dt * damping * (M^-1)_ii exceeds
# this: well inside the explicit integrators' stability limit (below), so
# that configurations between the sampled ones do not reach it.
STIFF_DAMPING = 0.5

# dt * rate at which an explicit step stops being stable: for a decay
# (negative real eigenvalue) rk4's region ends at 2.785, semi-implicit
# Euler's at 2 (Hairer & Wanner, Solving ODEs II, sec. IV.2); for an
# oscillation rk4's at 2.83 and symplectic Euler's at 2 (dt * omega).
STABILITY_LIMIT = {'rk4': 2.785, 'semi_implicit_euler': 2.0}

# check_step warns above this share of the stability limit: M^-1 varies
# with the configuration, and a step near the limit is already inaccurate.
STEP_WARNING_SHARE = 0.5

# Configurations (besides the initial one) at which the inverse inertia of
# each joint is sampled, uniformly within the limits (clipped to [-pi, pi]).
INERTIA_SAMPLES = 8


class StepChecks:
    """
    The step-size analysis of a Simulator (see the module).

    Mixed into ``Simulator``: it reads the simulator's ``model``, ``dt``,
    ``integrator_name``, ``initial_z``, ``mass_matrix``, ``plant``,
    ``motors``, ``implicit_option`` and ``compiled``.
    """

    def _sample_inverse_inertias(self):
        """
        Return the joint blocks of M^-1 at q0 and at sampled configurations.

        [] when M cannot be inverted there (non-finite or singular model:
        the simulation will report it as a divergence).
        """
        n = self.model.nq
        lower = np.clip(self.model.lower_limit, -np.pi, np.pi)
        upper = np.clip(self.model.upper_limit, -np.pi, np.pi)
        rng = np.random.default_rng(0)   # the same samples every run
        configurations = [self.initial_z]
        for _ in range(INERTIA_SAMPLES):
            z = self.initial_z.copy()
            z[:n] = rng.uniform(np.minimum(lower, upper), upper)
            configurations.append(z)
        blocks = []
        with np.errstate(all='ignore'):
            for z in configurations:
                try:
                    inverse = np.linalg.inv(self.mass_matrix(z))[:n, :n]
                except (np.linalg.LinAlgError, ValueError):
                    return []
                if not np.all(np.isfinite(inverse)):
                    return []
                blocks.append(inverse)
        return blocks

    def _split_damping(self):
        """Split the joint damping into its explicit and implicit parts."""
        damping = self.model.damping
        self.damping_source = damping
        if self.implicit_option is False or \
                self.integrator_name not in STABILITY_LIMIT:
            stiff = np.zeros(self.model.nq, dtype=bool)
        elif self.implicit_option:
            stiff = damping > 0.0
        else:
            stiff = self.stiff_joints(damping)
        self.implicit_damping = np.where(stiff, damping, 0.0)
        self.explicit_damping = np.where(stiff, 0.0, damping)
        self.damped = bool(np.any(self.explicit_damping != 0.0))
        self.implicit = bool(np.any(stiff))
        if self.compiled is not None:
            self.compiled.set_damping(self.damped, self.explicit_damping)

    def stiff_joints(self, damping):
        """
        Return where a damper ``damping`` (per joint) is stiff for dt.

        True where ``dt * damping * (M^-1)_ii`` exceeds STIFF_DAMPING at the
        sampled configurations: there it is integrated implicitly.
        """
        with np.errstate(invalid='ignore'):
            return self.dt * np.asarray(damping, dtype=float) \
                * self.inverse_inertia > STIFF_DAMPING

    def explicit_rates(self, position_gains=None, velocity_gains=None):
        """
        Return {term: (dt * rate, joint)} of the terms left explicit.

        The largest decay rate of the explicit damping (eigenvalue of
        M^-1 D over the sampled configurations), and with controller gains
        (controllers.PidGains, as they act in the held effort: zero where a
        damper is handed over) the position loop's natural frequency
        sqrt(kp (M^-1)_ii), its damper kd, the velocity loop's kp, and a
        velocity kd above the joint's inertia (its finite difference then
        amplifies every step).  ``joint`` names the joint, or None for a
        coupled mode.
        """
        rates = {}
        names = self.model.joint_names
        damping = self.explicit_damping
        if self.inverse_inertias and np.any(damping > 0.0):
            root = np.sqrt(np.maximum(damping, 0.0))
            rates['viscous damping (URDF <dynamics damping>)'] = (
                self.dt * max(np.max(np.linalg.eigvalsh(
                    root[:, None] * block * root[None, :]))
                    for block in self.inverse_inertias), None)
        inverse = self.inverse_inertia

        def worst(label, values):
            if np.size(values) and np.all(np.isfinite(values)):
                k = int(np.argmax(values))
                rates[label] = (float(values[k]), names[k])

        if position_gains is not None:
            worst('position PID kp (dt * sqrt(kp / inertia))',
                  self.dt * np.sqrt(position_gains.p * inverse))
            worst('position PID kd', self.dt * position_gains.d * inverse)
        if velocity_gains is not None:
            worst('velocity PID kp', self.dt * velocity_gains.p * inverse)
            # e_k - e_(k-1) = -(qd_k - qd_(k-1)): kd / dt of acceleration
            # feedback, unstable once kd exceeds the inertia (x 2 against
            # the limit so that it warns at kd / inertia = 1).
            worst('velocity PID kd (kd / inertia)',
                  velocity_gains.d * inverse
                  * self.stability_limit * STEP_WARNING_SHARE)
        if self.motors is not None and \
                self.integrator_name in STABILITY_LIMIT:
            for term, (rate, k) in self.plant.rates(
                    inverse, self.dt, self.stability_limit).items():
                rates[term] = (rate, names[k])
        return rates

    def hand_over(self, commands, warn=True):
        """
        Integrate the stiff dampers of a JointCommands' PIDs implicitly.

        Tells ``commands`` which joints' position-loop kd and velocity-loop
        kp are stiff for this step (``stiff_joints``); step with
        ``step(commands(t, q, qd, dt), commands.damping)``.  With ``warn``,
        ``check_step`` on the gains.  Return the warning texts.
        """
        position = commands.position_pid.gains
        velocity = commands.velocity_pid.gains
        if self.motors is not None:
            # The PIDs' torque reaches the joints through the motors,
            # which lag it: held over the step, nothing handed over.
            commands.hand_over_damping(None, None)
            if not warn or self.integrator_name not in STABILITY_LIMIT:
                return []
            return self.check_step(position, velocity, stacklevel=3)
        position_stiff = self.stiff_joints(position.d)
        velocity_stiff = self.stiff_joints(velocity.p)
        commands.hand_over_damping(position_stiff, velocity_stiff)
        if not warn or self.integrator_name not in STABILITY_LIMIT:
            return []
        # What stays in the held effort, explicit.
        return self.check_step(
            PidGains(p=position.p, i=position.i,
                     d=np.where(position_stiff, 0.0, position.d)),
            PidGains(p=np.where(velocity_stiff, 0.0, velocity.p),
                     i=velocity.i, d=velocity.d), stacklevel=3)

    @property
    def stability_limit(self):
        """Return dt * rate where the explicit integrator becomes unstable."""
        return STABILITY_LIMIT.get(self.integrator_name, np.inf)

    def check_step(self, position_gains=None, velocity_gains=None,
                   stacklevel=2):
        """
        Warn (ModelWarning) when dt is too long for an explicit term.

        Any model: the stiffest damping left explicit, controller gains
        when given (``explicit_rates``), and the natural periods of a
        flexible model (Mackay).  Return the warning texts.
        """
        texts = self.plant.step_warnings(self.dt, self.initial_z)
        limit = STEP_WARNING_SHARE * self.stability_limit
        for term, (rate, joint) in self.explicit_rates(
                position_gains, velocity_gains).items():
            if rate > limit:
                texts.append(
                    'time step %.4g ms is too long for the %s of model %r%s: '
                    'dt * rate = %.3g, above %.3g (%s is unstable from '
                    '%.3g); use a rate of at least %.0f Hz, or lower the '
                    'term' % (
                        1e3 * self.dt, term, self.model.name,
                        '' if joint is None else ' at joint %r' % joint,
                        rate, limit, self.integrator_name,
                        self.stability_limit,
                        np.ceil(rate / limit / self.dt)))
        for text in texts:
            warnings.warn(text, ModelWarning, stacklevel=stacklevel)
        return texts
