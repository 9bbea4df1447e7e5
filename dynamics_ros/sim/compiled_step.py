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
The compiled fixed step of a rigid model (``dynamics_ros.fast.sim_step``).

``Simulator.step`` with an effort held over the step spends most of its
time in the overhead of a dozen small numpy operations around the four ABA
calls of rk4; the compiled kernel does the same arithmetic in one call.  It
is used for a RobotModel (not a FlexibleModel or a MimicModel) with ``rk4`` or
``semi_implicit_euler`` while the compiled path is on
(``dynamics_ros.fast.ENABLED``); the steps where friction or a limit acts
still end in the Python impulse code.  The kernel integrates the explicit
part of the damping (``set_damping``) and, on the steps without
impulses, the implicit solve of the stiff damping (simulator.py); where
impulses act, the Python code solves for both together.
"""

import importlib
import warnings

import numpy as np

from .integrators import FIXED_STEP, POSITION_SHARE
from .. import fast
from ..fast.packing import packed
from ..model.robot_model import PACKED_MODEL, RobotModel

KERNEL_MODULE = 'dynamics_ros.fast.sim_step'


def load_kernel():
    """Return the kernel module, or None (with a warning) if it fails."""
    try:
        return importlib.import_module(KERNEL_MODULE)
    except Exception as error:  # noqa: B902 (any numba or LLVM failure)
        warnings.warn('dynamics_ros: the compiled simulator step failed to '
                      'load (%s: %s); the simulator steps in Python'
                      % (type(error).__name__, error), RuntimeWarning,
                      stacklevel=2)
        return None


class CompiledStep:
    """
    The smooth part of one step, compiled, for one rigid model.

    Calling it returns ``(status, applied, z, zd)``: a status of
    ``dynamics_ros.fast.sim_step`` (DONE, CONSTRAIN, DIVERGED, BAD_EFFORT,
    BAD_SHAPES), the saturated effort and the integrated state; or None
    when the kernel cannot be loaded.  The kernel is loaded (compiled, or
    read from numba's cache) on the first call, not with the simulator.
    The model arrays are read when the model is packed for the compiled
    path; as there, call ``model.update_inertias()`` after changing one in
    place.
    """

    def __init__(self, model, integrator_name, damped, damping=None):
        self.model = model
        self.integrator_name = integrator_name
        self.kernel = None
        self.pack = None
        self.set_damping(damped, damping)

    def set_damping(self, damped, damping=None):
        """Integrate ``damping`` (None: the model's) explicitly from now."""
        self.damped = bool(damped)
        self.damping = None if damping is None else \
            np.array(damping, dtype=float)
        self.pack = None   # the joint table is read again on the next call

    def load(self):
        """Load the kernel; return False if it cannot be."""
        self.kernel = load_kernel()
        if self.kernel is None:
            return False
        self.method = self.kernel.INTEGRATOR_CODES[self.integrator_name]
        self.stages = self.kernel.stage_scratch(self.model)
        self.mass, self.columns = self.kernel.solve_scratch(self.model)
        self.share = POSITION_SHARE[self.integrator_name]
        return True

    def refresh(self):
        """Pack the model (again) and read its joint constants."""
        self.pack = packed(self.model)
        self.joints = self.kernel.joint_table(self.model, self.damping)

    def ready(self):
        """
        Return the packed model (table, work, nq); None: no kernel.

        Loads the kernel on the first call, and packs the model again when
        it was changed (packing.packed).
        """
        if self.kernel is None and not self.load():
            return None
        if self.pack is None or \
                getattr(self.model, PACKED_MODEL) is not self.pack:
            self.refresh()
        return self.pack

    def __call__(self, z, zd, effort, dt, stiff=None, gains=None,
                 reference=None):
        """
        Integrate from (z, zd) under the held ``effort`` over ``dt``.

        ``stiff``: the joints' damping integrated implicitly, and the
        controller's dampers ``gains`` toward ``reference`` velocities
        (Simulator._constrain); None: no implicit damping.
        """
        pack = self.ready()
        if pack is None:
            return None
        table, work, n = pack
        applied, z_next, zd_next = np.empty(n), np.empty(n), np.empty(n)
        if stiff is None:
            status = self.kernel.fixed_step(
                table, work, self.joints, self.method, self.damped, dt, z,
                zd, effort, self.stages, applied, z_next, zd_next)
        else:
            status = self.kernel.implicit_fixed_step(
                table, work, self.joints, self.method, self.damped, dt, z,
                zd, effort, self.stages, applied, z_next, zd_next, stiff,
                gains, reference, self.share, self.mass, self.columns)
        return status, applied, z_next, zd_next

    def hold(self, z, zd, p, target, d, dt, stiff, gains, reference):
        """
        Integrate from (z, zd) under the position hold p (target - q) - d qd.

        The effort of controllers.JointCommands' hold, computed in the
        kernel (``position_hold_step``); ``stiff``, ``gains``,
        ``reference``: as for ``__call__`` (zeros: no implicit damping).
        """
        pack = self.ready()
        if pack is None:
            return None
        table, work, n = pack
        applied, z_next, zd_next = np.empty(n), np.empty(n), np.empty(n)
        status = self.kernel.position_hold_step(
            table, work, self.joints, self.method, self.damped, dt, z, zd, p,
            target, d, self.stages, applied, z_next, zd_next, stiff, gains,
            reference, self.share, self.mass, self.columns)
        return status, applied, z_next, zd_next


def compiled_step(simulator):
    """Return the CompiledStep of a Simulator, or None where none applies."""
    # The kernel runs on the arrays of one RobotModel; a MimicModel's step
    # (M and h mapped through G) is the Python one.
    if simulator.flexible is not None or not fast.ENABLED or \
            not isinstance(simulator.model, RobotModel) or \
            simulator.integrator_name not in FIXED_STEP:
        return None
    return CompiledStep(simulator.model, simulator.integrator_name,
                        simulator.damped, simulator.explicit_damping)
