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
simulator_node's plants beside the rigid arm: flexible links and motors.

``flexible_config`` (Mackay's assumed modes) and ``actuator_config`` (DC
motors) are files named by parameters; here they are read and checked
against each model, every reason quoting the parameter, never the file's
text.
"""

from ...flexible.config import load_flexible
from ...model.actuators import motors_from_mapping, read_actuator_config
from ...model.payload import payload_body
from ...reasons import quote


def read_actuators(settings):
    """
    Return the ``actuators`` mapping of ``actuator_config`` (ValueError).

    Read at start-up, so that a missing or broken file stops the node
    even before a model arrives; checked against each model later.  The
    reason quotes the parameter, never the file's text.
    """
    path = settings['actuator_config']
    if '\n' in path:
        raise ValueError('actuator_config %s: must be a file path'
                         % quote(path))
    if settings['flexible_config']:
        raise ValueError('actuator_config %s: motors need rigid links, and '
                         'flexible_config %s is set' % (
                             quote(path), quote(settings['flexible_config'])))
    try:
        return read_actuator_config(path)
    except ValueError as error:   # ModelError
        raise ValueError('actuator_config %s: %s' % (quote(path), error))


class SimulatorPlants:
    """The simulator node's flexible-link and motor plants (a mixin)."""

    def motors(self, model):
        """Return the DCMotors of ``actuator_config`` for ``model`` or None."""
        if self.actuators is None:
            return None
        try:
            return motors_from_mapping(self.actuators,
                                       list(model.joint_names))
        except ValueError as error:   # ModelError
            raise ValueError('actuator_config %s: %s' % (
                quote(self.settings['actuator_config']), error))

    def flexible_model(self, model, overrides=None):
        """Return the FlexibleModel of ``flexible_config`` on ``model``."""
        path = self.settings['flexible_config']
        try:
            flexible = load_flexible(self.flexible_declaration, model=model)
        except (TypeError, ValueError, KeyError, AttributeError) as error:
            # ModelError is a ValueError; the others come from values of
            # the wrong type in the YAML.
            raise ValueError('flexible_config %s: %s' % (quote(path), error))
        # A flexible link's declaration replaces its URDF inertial, and
        # with it a payload merged there: refuse rather than drop it.
        mass = self.parameter('payload.mass', overrides)
        if mass:
            body = payload_body(
                model, self.parameter('tip_link', overrides) or None)[0]
            if body >= 0 and flexible.flexible[body] is not None:
                raise ValueError(
                    'payload.mass %g kg is on flexible link %r, whose '
                    'declaration in flexible_config %r replaces its URDF '
                    'inertial: declare the payload there as tip_mass' % (
                        mass, model.body_names[body], path))
        return flexible
