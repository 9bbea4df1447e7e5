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
What the simulator applies to the joints besides the held effort.

``AppliedLoads`` is the part of ``Simulator`` (simulator.py) that holds
the loads a step adds to the commanded effort, each checked where it is
set:

- an external wrench (``set_external_wrench(link, wrench)``): a wrench
  [moment; force] on a link, expressed in the link's frame about its
  origin (the ROS convention of a WrenchStamped's frame_id), adds the
  joint torques J^T w to the actuators' over each step, J the link's
  Jacobian at the start of the step (held over it, as a held effort is).
  It is not part of ``applied_effort``: that stays the actuators' torque,
  as a driver's joint_states effort is.  A step with a wrench takes the
  Python path; without one the compiled step is unchanged;
- identified joint friction (``set_joint_friction``), inside the
  integrated dynamics (a Python step);
- the dampers of a controller, ``gains * (reference - qd)``, integrated
  implicitly with the stiff joint damping (the ``damping`` argument of
  ``Simulator.step``): checked (``controller_damping``), their reference
  bounded by the effort limit (``_bounded_damping``) and their torque
  added to the effort reported (``_add_damper_effort``).
"""

import numpy as np

from ..dynamics.jacobians import link_jacobian


class AppliedLoads:
    """
    The loads of a Simulator besides the held effort (see the module).

    Mixed into ``Simulator``: it reads the simulator's ``model``, ``q``,
    ``nq``, ``applied_effort`` and ``_vector``, and keeps
    ``external_wrench`` and ``joint_friction``.
    """

    def set_joint_friction(self, friction=None):
        """
        Apply identified joint friction from the next step on (None: none).

        A ``dynamics.friction.JointFriction`` (by joint name; joints it does
        not name get none): viscous plus tanh-smoothed Coulomb friction, the
        formula inverse_dynamics_node adds to its feed-forward, inside the
        integrated dynamics (a Python step).  URDF <dynamics> damping and
        friction act as before, besides it.
        """
        self.joint_friction = None if friction is None else \
            friction.select(list(self.model.joint_names))

    def set_external_wrench(self, link=None, wrench=None):
        """
        Push ``link`` with ``wrench`` [moment; force] from the next step on.

        In the link's frame, about its origin (module docstring); held until
        changed.  ``link`` None (or a zero wrench) removes the push.
        """
        if link is None:
            self.external_wrench = None
            return
        if link not in self.model.frames:
            raise ValueError('link %r is not in model %r (links: %s)' % (
                link, self.model.name, ', '.join(sorted(self.model.frames))))
        wrench = np.array(wrench, dtype=float).reshape(-1)
        if wrench.size != 6 or not np.all(np.isfinite(wrench)):
            raise ValueError('wrench must be 6 finite values [moment; '
                             'force], got %s' % (wrench,))
        self.external_wrench = None if not np.any(wrench) else (link, wrench)

    def external_torques(self):
        """Return J^T w of the external wrench at the current positions."""
        link, wrench = self.external_wrench
        return link_jacobian(self.model, self.q, link, frame='local').T \
            @ wrench

    def controller_damping(self, damping):
        """Return (gains, reference) of a controller damper as arrays."""
        gains, reference = damping
        if gains.__class__ is np.ndarray and gains.dtype == float and \
                reference.__class__ is np.ndarray and \
                reference.dtype == float:
            return damping
        return (self._vector(gains, 'damper gains'),
                self._vector(reference, 'damper reference velocities'))

    def _bounded_damping(self, damping, zd):
        """
        Return the controller dampers with their reference bounded.

        A damper pulls with gains (reference - qd); integrated implicitly it
        bypasses the saturation of the held effort, and a reference far
        from the motion (a trajectory whose first point lies far away and
        just ahead: thousands of rad/s) would pull with any torque.  So the
        reference is kept where held effort plus pull, at the velocity
        ``zd`` the solve starts from, stays within the effort limit: the
        pull within [-limit - applied, limit - applied] (a saturated hold
        can still brake).  At rest under a hold the bound does not act.
        """
        if damping is None:
            return None
        gains, reference = damping
        velocity = zd[:self.model.nq]
        limit, applied = self.model.effort_limit, self.applied_effort
        with np.errstate(divide='ignore', invalid='ignore'):
            low = velocity + (-limit - applied) / gains
            high = velocity + (limit - applied) / gains
        return gains, np.where(gains > 0.0, np.minimum(np.maximum(
            reference, low), high), reference)

    def _add_damper_effort(self, damping, zd):
        """
        Add the controller dampers' torque over the step to the effort.

        They act through the implicit solve, not the held effort, but they
        are the actuators' torque all the same (what joint_states reports):
        gains * (reference - qd) at the step's end velocity, as backward
        Euler applies it.
        """
        if damping is not None:
            gains, reference = damping
            self.applied_effort = self.applied_effort + gains * (
                reference - zd[:self.nq])
