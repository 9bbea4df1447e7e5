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
simulator_node holding a payload: ``payload.*`` set at run time.

The payload parameters are ModelSource's (``payload.mass``,
``payload.com``, ``payload.inertia`` at ``tip_link``, checked on every
set as a rigid body within the model ranges).  Here, in the simulator: a
set is refused too when the model it gives cannot be simulated (a payload
on a flexible link), and a model that is the running robot with other
body inertias - a payload picked up or put down - does not restart the
simulation: the run goes on from its state, time, command and PID history
with the same gains (``state.NewInertias``), in a Simulator
built for the new model, compiled step included.
"""

from .state import NewInertias
from ..shared.model_source import build_model, PAYLOAD_PARAMETERS
from ...model.payload import only_inertias_differ
from ...reasons import cut


class SimulatorPayload:
    """The payload part of SimulatorNode (a mixin)."""

    def payload_reason(self, parameters):
        """Return why a set of ``payload.*`` cannot be simulated, or None."""
        payload = {p.name: p.value for p in parameters
                   if p.name in PAYLOAD_PARAMETERS}
        if not payload or self.source.xml is None:
            return None
        try:
            model, joint_names, _ = build_model(
                self.source.xml, self.source.settings(payload))
            self.build_simulation(model, joint_names, overrides=payload)
        except ValueError as error:   # ModelError too
            return cut(str(error))
        return None

    def carried_gains(self, model, joint_names):
        """
        Return the running PIDs' gains if ``model`` only changes inertias.

        (position, velocity) PidGains when ``model`` is the running robot,
        in the same joint order, with other body inertias; else None.  A
        real arm's servo gains do not change when it picks something up.
        """
        running = self.simulation
        if running is None or list(joint_names) != running.joint_names or \
                not only_inertias_differ(running.model, model):
            return None
        return (running.commands.position_pid.gains,
                running.commands.velocity_pid.gains)

    def go_on_with(self, simulation):
        """Queue ``simulation`` to take the run over (NewInertias)."""
        self.get_logger().info(
            'body inertias changed (payload): the simulation goes on from '
            'its current state, total mass %.4f kg'
            % simulation.model.total_mass)
        self.pending.append(NewInertias(simulation))
