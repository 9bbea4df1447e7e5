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
The compiled fixed step of a rigid, mimic or motor-driven model.

``Simulator.step`` with an effort held over the step spends most of its
time in the overhead of a dozen small numpy operations around the four ABA
calls of rk4; the compiled kernel does the same arithmetic in one call.  It
is used for a RobotModel or a MimicModel (its tree stepped in independent
coordinates through the ``coupling`` of fast/sim_step.py; not a
FlexibleModel; one driven by motors has a kernel of its own, below) with
``rk4`` or
``semi_implicit_euler`` while the compiled path is on
(``dynamics_ros.fast.ENABLED``).  The kernel integrates the explicit
part of the damping (``set_damping``), solves the stiff damping
implicitly (simulator.py) and, on the steps where friction or a limit
acts, the impulses with it (``fast.joint_impulses``); it leaves a step
to the Python impulse code (status CONSTRAIN) only where it cannot take
it: a state that is not finite, a matrix that is not positive definite.

A RobotModel driven by DC motors (sim/actuated.py) steps through
``fast.motor_step`` (``CompiledMotorStep``): the winding currents with the
joints, at voltages held over the step; its impulses, implicit damping and
the currents of joints they stopped stay the Python step's
(motor_plant.MotorDrivenPlant).
"""

import warnings

import numpy as np

from .integrators import FIXED_STEP, POSITION_SHARE
from .. import fast
from ..fast.compiler import import_kernels
from ..fast.packing import packed

# Kernel modules of dynamics_ros.fast.
KERNEL_MODULE = 'sim_step'
MOTOR_KERNEL_MODULE = 'motor_step'


def floats(*arrays):
    """Return True if every argument is a 1-D float ndarray (kernel input)."""
    for array in arrays:
        if not (array.__class__ is np.ndarray and array.dtype == float
                and array.ndim == 1):
            return False
    return True


def load_kernel(module=KERNEL_MODULE):
    """Return the kernel module, or None (with a warning) if it fails."""
    try:
        return import_kernels(module)
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
    path, and again whenever the model was packed anew (a field assigned).
    """

    def __init__(self, model, integrator_name, damped, damping=None):
        """
        Step ``model`` (a RobotModel or a MimicModel) with the integrator.

        ``damped``, ``damping``: as for ``set_damping``.
        """
        self.model = model
        # The tree the kernels run on; a MimicModel's coupling to it.
        self.tree = getattr(model, 'tree', model)
        self.coupled = self.tree is not model
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
        self.mass, self.columns, self.impulses = \
            self.kernel.solve_scratch(self.model)
        self.share = POSITION_SHARE[self.integrator_name]
        self.coupling = self.kernel.coupling(self.model) if self.coupled \
            else self.kernel.NO_COUPLING
        return True

    def refresh(self):
        """Pack the model (again) and read its joint constants."""
        self.pack = packed(self.tree)
        self.joints = self.kernel.joint_table(self.model, self.damping)

    def ready(self):
        """
        Return the packed model (table, work, nq); None: no kernel.

        Loads the kernel on the first call, and packs the model again when
        it was changed (packing.packed).
        """
        if self.kernel is None and not self.load():
            return None
        if self.pack is None or self.tree.packed_model is not self.pack:
            self.refresh()
        return self.pack

    def __call__(self, z, zd, effort, dt, stiff=None, gains=None,
                 reference=None):
        """
        Integrate from (z, zd) under the held ``effort`` over ``dt``.

        ``stiff``: the joints' damping integrated implicitly, and the
        controller's dampers ``gains`` toward ``reference`` velocities
        (Simulator.constrain); None: no implicit damping.
        """
        pack = self.ready()
        if pack is None:
            return None
        table, work, n = pack.table, pack.work, self.model.nq
        applied, z_next, zd_next = np.empty(n), np.empty(n), np.empty(n)
        if stiff is None:
            status = self.kernel.fixed_step(
                table, work, self.joints, self.method, self.damped, dt, z,
                zd, effort, self.stages, applied, z_next, zd_next,
                self.share, self.mass, self.columns, self.impulses,
                self.coupling)
        else:
            status = self.kernel.implicit_fixed_step(
                table, work, self.joints, self.method, self.damped, dt, z,
                zd, effort, self.stages, applied, z_next, zd_next, stiff,
                gains, reference, self.share, self.mass, self.columns,
                self.impulses, self.coupling)
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
        table, work, n = pack.table, pack.work, self.model.nq
        applied, z_next, zd_next = np.empty(n), np.empty(n), np.empty(n)
        status = self.kernel.position_hold_step(
            table, work, self.joints, self.method, self.damped, dt, z, zd, p,
            target, d, self.stages, applied, z_next, zd_next, stiff, gains,
            reference, self.share, self.mass, self.columns, self.impulses,
            self.coupling)
        return status, applied, z_next, zd_next


def compiled_step(simulator):
    """Return the CompiledStep of a rigid plant's Simulator, or None."""
    if not fast.ENABLED or simulator.integrator_name not in FIXED_STEP:
        return None
    return CompiledStep(simulator.model, simulator.integrator_name,
                        simulator.damped, simulator.explicit_damping)


def mimic_compiled_step(simulator):
    """Return the CompiledStep of a mimic plant's Simulator, or None."""
    return compiled_step(simulator)


class CompiledMotorStep(CompiledStep):
    """
    The smooth part of one step of a motor-driven arm, compiled.

    ``fast.motor_step.motor_fixed_step``: (q, qd, current) over a step at
    voltages held over it, given or made by the drive law from a held
    effort (in the kernel), for the plant's motor integration ('exponential' or
    'coupled'), with rk4 or semi-implicit Euler.  Calling it returns
    ``(status, voltage, z, zd, current, applied)`` (statuses of
    ``fast.sim_step``; ``applied``: the motor torque n k_t i at the end),
    or None when a kernel cannot be loaded.  The motor constants
    (``motor_step.motor_table``) are read on the first call, as the
    reflected model is when the simulator is made, and again when dt
    changes.
    """

    def __init__(self, model, motors, integration, integrator_name, damped,
                 damping=None):
        """Step ``model`` (the reflected arm) driven by ``motors``."""
        super().__init__(model, integrator_name, damped, damping)
        self.motors = motors
        self.integration = integration
        self.motor_kernel = None
        self.motor_dt = None

    def load(self):
        """Load both kernels; return False if either cannot be."""
        self.motor_kernel = load_kernel(MOTOR_KERNEL_MODULE)
        if self.motor_kernel is None or not super().load():
            return False
        kernel = self.motor_kernel
        self.integration_code = kernel.MOTOR_INTEGRATION_CODES[
            self.integration]
        self.scratch = kernel.motor_scratch(self.model)
        return True

    def __call__(self, z, zd, current, effort_or_voltage, drive, t, dt):
        """
        Integrate from (z, zd, current) over ``dt`` from ``t``.

        ``drive``: ``effort_or_voltage`` is the held effort, turned into
        voltages by the drive law (sim/actuated.py); else the voltages.
        """
        pack = self.ready()
        if pack is None:
            return None
        if dt != self.motor_dt:
            self.constants = self.motor_kernel.motor_table(self.motors, dt)
            self.motor_dt = dt
        n = self.model.nq
        voltage, z_next, zd_next = np.empty(n), np.empty(n), np.empty(n)
        current_next, applied = np.empty(n), np.empty(n)
        status = self.motor_kernel.motor_fixed_step(
            pack.table, pack.work, self.joints, self.constants, self.method,
            self.integration_code, self.damped, drive, t, dt, z, zd,
            current, effort_or_voltage, self.stages, self.scratch, voltage,
            z_next, zd_next, current_next, applied, self.coupling)
        return status, voltage, z_next, zd_next, current_next, applied


def motor_compiled_step(simulator):
    """Return the CompiledMotorStep of a motor plant's Simulator, or None."""
    plant = simulator.plant
    if not fast.ENABLED or simulator.integrator_name not in FIXED_STEP:
        return None
    return CompiledMotorStep(simulator.model, plant.motors,
                             plant.integration, simulator.integrator_name,
                             simulator.damped, simulator.explicit_damping)


class CoupledForwardDynamics:
    """
    Forward dynamics of a MimicModel through the compiled step's kernel.

    ``fast.sim_step.coupled_forward_dynamics``, the arithmetic of the
    compiled step's stages: the Python step of a mimic plant calls it, so
    that both steps give the same numbers.  Calling it returns qdd, or None
    where it cannot run (no kernel, arguments it does not take, M_r not
    positive definite): the caller then takes the numpy path.
    """

    def __init__(self, model):
        """Prepare for ``model`` (a MimicModel); the kernel loads later."""
        self.model = model
        self.kernel = self.coupling = None
        self.failed = False

    def __call__(self, q, qd, tau):
        """Return qdd at (q, qd) under ``tau``, or None (see above)."""
        if self.kernel is None:
            if self.failed:
                return None
            self.kernel = load_kernel()
            if self.kernel is None:
                self.failed = True
                return None
            self.coupling = self.kernel.coupling(self.model)
        pack = packed(self.model.tree)
        qdd = np.empty(self.model.nq)
        try:
            done = self.kernel.coupled_forward_dynamics(
                pack.table, pack.work, self.coupling, q, qd, tau, qdd)
        except TypeError:   # not float vectors
            return None
        return qdd if done else None
