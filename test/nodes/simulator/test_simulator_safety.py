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
Safe beside a real robot, the simulator: it must not diverge, wedge or ignore.

- Stiff damping: URDF damping on light joints is stiff (xArm7 joint 7: damping
  / inertia about 14,700 1/s, Z1's gripper about 3,300): explicit rk4 at
  1 kHz diverges.  The stiff damping (and stiff PID dampers) are integrated
  implicitly; xArm7 and Z1 run under gravity compensation plus 2 N m effort
  steps and under position commands 0.2 rad past their limits, finite and
  within the limits.  A step too long for what stays explicit is warned
  about for any model.
- One reset per divergence: after a divergence simulator_node resets once, logs one error
  and waits for a new command or model (no reset loop); time runs again
  after a good command or model.  Over DDS, its own domain, in a process whose
  loader accepts gravity [1e308]*3 as it did when this was first seen
  (the loader refuses it now, so nothing else could make a model diverge
  for good at zero effort).
- Every set answered: every runtime parameter set of simulator_node takes effect or
  is refused with a bounded reason quoting the value (another domain).
"""

import os
import sys
import warnings

from conftest import REPO_ROOT
import dynamics_ros as dr
from dynamics_ros.control.trajectory import Trajectory
from dynamics_ros.errors import ModelWarning
from dynamics_ros.flexible.examples import mackay_three_link_arm
from dynamics_ros.flexible.model import FlexibleModel
from dynamics_ros.sim.controllers import (default_gains, JointCommands,
                                          PidGains)
from dynamics_ros.sim.simulator import Simulator
import numpy as np
from oracle import example_arm_xml, robots_directory
import pytest
import ros_harness
from ros_harness import answering_collector, NodeProcess, \
    reserve_domain_id, RosTester, TESTER_ANSWERS
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import JointState
from std_msgs.msg import Float64MultiArray
from std_srvs.srv import Trigger

NODE = 'simulator_node'
DIVERGENCE_DOMAIN = reserve_domain_id(__name__)
PARAMETER_DOMAIN = reserve_domain_id(__name__)
ARMS = {'xarm7': 'xarm_description/urdf/xarm7.urdf',
        'z1': 'z1_description/urdf/z1.urdf'}
# Simulated seconds per phase of the acceptance run: effort steps, then a
# push past the upper and past the lower limits.  3 s keep the suite short;
# DYNAMICS_ROS_ACCEPTANCE_SECONDS=10 runs the full 10 s phases.
PHASE = float(os.environ.get('DYNAMICS_ROS_ACCEPTANCE_SECONDS', '3'))
STEP_EFFORT = 2.0
PAST_LIMIT = 0.2
LIMIT_TOLERANCE = 1e-6

# Two links without effort limits (continuous joints): an effort of 1e300
# is a finite command that overflows the state within a few steps.
UNLIMITED_URDF = """<robot name="unlimited">
  <link name="base_link"/>
  <joint name="shoulder" type="continuous">
    <parent link="base_link"/><child link="upper"/><axis xyz="0 -1 0"/>
  </joint>
  <link name="upper">
    <inertial><origin xyz="0.5 0 0"/><mass value="2.0"/>
      <inertia ixx="0.01" iyy="0.17" izz="0.17" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <joint name="elbow" type="continuous">
    <parent link="upper"/><child link="fore"/><origin xyz="1 0 0"/>
    <axis xyz="0 -1 0"/>
  </joint>
  <link name="fore">
    <inertial><origin xyz="0.4 0 0"/><mass value="1.5"/>
      <inertia ixx="0.01" iyy="0.08" izz="0.08" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
</robot>"""

# simulator_node with no upper bound on gravity, as the loader once had, so
# that gravity [1e308]*3 still gives a model (the divergence reproduction below).
OLD_LOADER_NODE = '\n'.join([
    'import sys',
    'from dynamics_ros.model import ranges',
    "ranges.LIMITS['gravity'] = float('inf')",
    'from dynamics_ros.nodes.simulator.node import main',
    'sys.exit(main())'])


def arm(name):
    """Return the example-robot-data arm ``name`` (whole URDF)."""
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        return dr.load_urdf(os.path.join(robots_directory(), ARMS[name]))


def within_limits(model, q):
    """Return True if q is finite and within the limits + tolerance."""
    return bool(np.all(np.isfinite(q))
                and np.all(q <= model.upper_limit + LIMIT_TOLERANCE)
                and np.all(q >= model.lower_limit - LIMIT_TOLERANCE))


def acceptance_run(model, seconds=PHASE, **options):
    """
    Run the acceptance motions; return the worst limit excess.

    Gravity compensation plus 2 N m steps (sign changing per joint every
    second or so), then the position PID (default gains) commanded 0.2 rad
    past every upper limit, then past every lower one; rk4 at 1 kHz.
    Raises FloatingPointError on a divergence.
    """
    simulator = Simulator(model, dt=1e-3, integrator_name='rk4', **options)
    commands = JointCommands(model, *default_gains(model, simulator.q))
    if options.get('implicit_damping') is not False:
        simulator.hand_over(commands, warn=False)
    worst = 0.0
    phases = int(round(seconds / simulator.dt))
    signs = np.where(np.arange(model.nq) % 2 == 0, 1.0, -1.0)
    for k in range(phases):
        flip = 1.0 if (k // 700) % 2 == 0 else -1.0
        effort = dr.gravity_torques(model, simulator.q) \
            + STEP_EFFORT * flip * signs
        simulator.step(effort)
        assert np.all(np.isfinite(simulator.qd))
        worst = max(worst, excess(model, simulator.q))
    for limit, sign in ((model.upper_limit, 1.0), (model.lower_limit, -1.0)):
        commands.command_position(limit + sign * PAST_LIMIT)
        start = simulator.q.copy()
        for _ in range(phases):
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    simulator.dt), commands.damping)
            assert np.all(np.isfinite(simulator.qd))
            worst = max(worst, excess(model, simulator.q))
        # The push moved the arm towards the limits (those 2 pi away are
        # reached in the 10 s run only), and some joints are on them.
        assert np.mean(sign * (simulator.q - start)) > 0.3
        assert np.any(simulator.q == limit)
    return worst


def excess(model, q):
    """Return how far q is past the limits (0 within them)."""
    return float(max(np.max(q - model.upper_limit),
                     np.max(model.lower_limit - q), 0.0))


# -- stiff damping, ROS-free ----------------------------------------------


@pytest.mark.parametrize('name', sorted(ARMS))
def test_stock_arms_with_stiff_damping_run_at_1khz_with_rk4(name):
    model = arm(name)
    with warnings.catch_warnings():
        warnings.simplefilter('error', ModelWarning)   # nothing to warn
        simulator = Simulator(model, dt=1e-3)
    assert simulator.implicit
    assert acceptance_run(model) <= LIMIT_TOLERANCE


@pytest.mark.parametrize('name', sorted(ARMS))
def test_the_explicit_step_of_before_diverges_and_is_warned_about(name):
    # What the simulator did before: every damper explicit.  It is the
    # step-size check's case: a warning naming the damping, then NaN.
    model = arm(name)
    with pytest.warns(ModelWarning, match='too long for the viscous damping'):
        Simulator(model, dt=1e-3, implicit_damping=False)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', ModelWarning)
        with pytest.raises(FloatingPointError, match='diverged'):
            acceptance_run(model, implicit_damping=False)


def test_implicit_damping_is_backward_euler_and_stable_at_any_stiffness():
    # A slider of 2 kg with damping 1e5 N s/m (rate 5e4 1/s, 50 per step)
    # pushed by 10 N: the velocity goes to the quasi-static 10 / 1e5 in one
    # step, no overshoot, as backward Euler gives it: v1 = (m v0 + dt F) /
    # (m + dt c).
    mass, damping, force, dt = 2.0, 1e5, 10.0, 1e-3
    model = dr.load_urdf(slider_urdf(mass, damping))
    for integrator in ('rk4', 'semi_implicit_euler'):
        simulator = Simulator(model, dt=dt, integrator_name=integrator,
                              qd0=[1.0])
        assert simulator.implicit
        simulator.step([force])
        expected = (mass * 1.0 + dt * force) / (mass + dt * damping)
        assert simulator.qd[0] == pytest.approx(expected, rel=1e-12)
        for _ in range(100):
            simulator.step([force])
        assert simulator.qd[0] == pytest.approx(force / damping, rel=1e-9)


def test_models_without_stiff_damping_step_exactly_as_before():
    # Panda's damping is far from stiff: its steps are the explicit rk4 of
    # old, bit for bit (fourth order, the same numbers as implicit off).
    model = dr.load_urdf(example_arm_xml('panda'))
    auto = Simulator(model, dt=1e-3, qd0=np.linspace(-1.0, 1.0, 7))
    explicit = Simulator(model, dt=1e-3, qd0=np.linspace(-1.0, 1.0, 7),
                         implicit_damping=False)
    assert not auto.implicit
    for k in range(300):
        effort = 5.0 * np.sin(0.01 * k + np.arange(7))
        auto.step(effort)
        explicit.step(effort)
    assert np.array_equal(auto.z, explicit.z)
    assert np.array_equal(auto.zd, explicit.zd)


def test_a_stiff_pid_damper_is_integrated_implicitly():
    # A position PID with kd far above what a 1 ms sampled loop can take
    # on xArm7's wrist: handed over, it settles on the target; kept in the
    # held effort, the wrist chatters between its effort limits (and the
    # step-size check says so).
    model = arm('xarm7')
    model.friction = np.zeros(model.nq)   # nothing to mask the chatter
    q0 = np.zeros(model.nq)
    gains = PidGains(p=np.full(model.nq, 50.0), i=0.0,
                     d=np.full(model.nq, 5.0))
    velocity = default_gains(model, q0)[1]
    target = np.full(model.nq, 0.3)
    speeds = {}
    for handed in (True, False):
        simulator = Simulator(model, dt=1e-3, q0=q0)
        commands = JointCommands(model, gains, velocity)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always')
            simulator.hand_over(commands, warn=True)
            if not handed:
                commands.hand_over_damping(None, None)
                simulator.check_step(gains, velocity)
        texts = [str(w.message) for w in caught]
        assert any('position PID kd' in text for text in texts) != handed
        commands.command_position(target)
        fastest = 0.0
        for k in range(2000):
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    simulator.dt), commands.damping)
            assert within_limits(model, simulator.q)
            if k >= 1500:
                fastest = max(fastest, np.max(np.abs(simulator.qd)))
        speeds[handed] = fastest
    assert speeds[True] < 0.05 < 1.0 < speeds[False], speeds


@pytest.mark.parametrize('compiled', [True, False])
def test_the_applied_effort_includes_the_implicit_dampers(compiled):
    # joint_states effort is what the actuators apply: the held effort and
    # the dampers handed over to the implicit solve, together within the
    # effort limits.  Checked against the motion itself: M qdd + h + URDF
    # damping qd at each step's midpoint, qdd the step's mean acceleration
    # (second order in dt, not exact: the step is rk4 under the held effort
    # then backward Euler in the dampers, hence a tolerance of a tenth of
    # the dampers' torque - leaving that torque out would miss by all of it).
    model = dr.load_urdf(example_arm_xml('panda'))
    q0 = 0.5 * (np.clip(model.lower_limit, -2.0, 2.0)
                + np.clip(model.upper_limit, -2.0, 2.0))
    simulator = Simulator(model, dt=1e-3, integrator_name='rk4', q0=q0)
    if not compiled:
        simulator.compiled = None
    commands = JointCommands(model, *default_gains(model, q0))
    simulator.hand_over(commands, warn=False)
    assert commands.position_damper is not None   # Panda's joints 1 and 3
    commands.command_position(q0 + 0.3)
    worst, damper = 0.0, 0.0
    for _ in range(100):
        q, qd = simulator.q.copy(), simulator.qd.copy()
        held = commands(simulator.t, q, qd, simulator.dt)
        simulator.step(held, commands.damping)
        applied = simulator.applied_effort
        assert np.all(np.abs(applied) <= model.effort_limit), applied
        middle = 0.5 * (qd + simulator.qd)
        moving = dr.inverse_dynamics(
            model, 0.5 * (q + simulator.q), middle,
            (simulator.qd - qd) / simulator.dt) + model.damping * middle
        worst = max(worst, np.max(np.abs(applied - moving)))
        damper = max(damper, np.max(np.abs(applied - np.clip(
            held, -model.effort_limit, model.effort_limit))))
    assert damper > 50.0   # the dampers brake the saturated hold
    assert worst < 0.1 * damper, (worst, damper)


def test_a_trajectory_far_ahead_does_not_make_the_dampers_diverge():
    # A trajectory whose first point lies 1.5 rad away and 50 us ahead asks
    # the implicit damper for 30,000 rad/s.  Unbounded it pulled with ~1e6
    # N m and the state overflowed on the third step (FloatingPointError,
    # and simulator_node reset and halted); bounded by the effort the held
    # effort leaves (at the velocity the solve starts from), the first
    # step's pull is within 5 % of the limits (the end velocity differs)
    # and the arm runs into its limits finite, under 100 rad/s.
    model = dr.load_urdf(example_arm_xml('panda'))
    q0 = 0.5 * (np.clip(model.lower_limit, -2.0, 2.0)
                + np.clip(model.upper_limit, -2.0, 2.0))
    for compiled in (True, False):
        simulator = Simulator(model, dt=1e-3, integrator_name='rk4', q0=q0)
        if not compiled:
            simulator.compiled = None
        commands = JointCommands(model, *default_gains(model, q0))
        simulator.hand_over(commands, warn=False)
        goal = np.clip(q0 + 1.5, model.lower_limit, model.upper_limit)
        none = np.zeros(2, dtype=bool)
        commands.follow(Trajectory(
            times=np.array([5e-5, 0.5]), positions=np.array([goal, goal]),
            velocities=np.zeros((2, 7)), accelerations=np.zeros((2, 7)),
            has_velocity=none, has_acceleration=none, start_time=0.0,
            initial=(q0.copy(), np.zeros(7)), received_time=0.0))
        for step in range(300):
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    simulator.dt), commands.damping)
            if step == 0:
                assert np.all(np.abs(simulator.applied_effort)
                              <= 1.05 * model.effort_limit)
            assert np.all(np.isfinite(simulator.z))
            assert np.all(np.isfinite(simulator.applied_effort))
        assert np.max(np.abs(simulator.qd)) < 100.0


def test_a_step_too_long_is_warned_about_for_any_model():
    model = dr.load_urdf(example_arm_xml('panda'))
    with warnings.catch_warnings():
        warnings.simplefilter('error', ModelWarning)
        simulator = Simulator(model, dt=1e-3)
        # The default gains' kd is stiff on joints 1 and 3 (up to 6.6 per
        # step): handed over, nothing left to warn about.
        commands = JointCommands(model, *default_gains(model, simulator.q))
        assert simulator.hand_over(commands) == []
        assert commands.handed['position'][1][[0, 2]].all()
    stiff = PidGains(p=np.full(7, 1e9), i=0.0, d=0.0)
    with pytest.warns(ModelWarning, match='position PID kp'):
        simulator.check_step(stiff, None)
    heavy_kd = PidGains(p=np.zeros(7), i=0.0, d=np.full(7, 1e3))
    with pytest.warns(ModelWarning, match='velocity PID kd'):
        simulator.check_step(None, heavy_kd)


def test_mimic_and_flexible_models_take_the_implicit_damping():
    # The Panda with its hand (a MimicModel: finger damping per coordinate)
    # and a flexible arm, every damped joint implicit: finite, and the
    # mimic finger still within its limits.
    xml = open(os.path.join(robots_directory(), 'panda_description', 'urdf',
                            'panda.urdf'), encoding='utf-8').read()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        mimic = dr.load_urdf(xml)
    assert mimic.mimic
    simulator = Simulator(mimic, dt=1e-3, implicit_damping=True)
    # Compiled too (fast/sim_step.py): the kernel solves with M_r = G^T M G.
    assert simulator.implicit
    assert (simulator.compiled is not None) == dr.fast.ENABLED
    for _ in range(300):
        simulator.step(dr.gravity_torques(mimic, simulator.q) + 1.0)
    assert within_limits(mimic, simulator.q)
    flexible = mackay_three_link_arm(1)
    assert isinstance(flexible, FlexibleModel)
    flexible.model.damping = np.full(flexible.model.nq, 0.5)
    runs = {}
    for option in (True, False):
        with warnings.catch_warnings():
            warnings.simplefilter('ignore', ModelWarning)
            simulator = Simulator(flexible, dt=1e-4, implicit_damping=option)
        simulator.run(0.05, effort=np.ones(flexible.model.nq))
        assert np.all(np.isfinite(simulator.z))
        runs[option] = simulator.z
    # Mild damping: implicit (first order in it) close to explicit.
    assert np.max(np.abs(runs[True] - runs[False])) < 1e-3


def slider_urdf(mass, damping):
    """Return a horizontal prismatic slider of ``mass`` and ``damping``."""
    return """<robot name="slider">
  <link name="base_link"/>
  <joint name="slide" type="prismatic">
    <parent link="base_link"/><child link="cart"/><axis xyz="1 0 0"/>
    <limit lower="-1e3" upper="1e3" effort="1e3" velocity="10"/>
    <dynamics damping="%r"/>
  </joint>
  <link name="cart">
    <inertial><mass value="%r"/>
      <inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
</robot>""" % (damping, mass)


# -- no wedge after a divergence, over DDS ----------------------------------


def error_lines(node, containing='diverged'):
    """Return the node's ERROR log lines that contain ``containing``."""
    return [line for line in node.output().splitlines()
            if '[ERROR]' in line and containing in line]


def latest_clock(tester):
    """Return the latest /clock time received, in seconds (or -1)."""
    return max((m.clock.sec + 1e-9 * m.clock.nanosec
                for m in tester.clock.messages), default=-1.0)


@pytest.fixture
def old_loader(monkeypatch):
    """Start simulator_node through OLD_LOADER_NODE."""
    monkeypatch.setattr(ros_harness, 'executable', lambda name: [
        sys.executable, '-c', OLD_LOADER_NODE])


def test_after_a_divergence_the_node_resets_once_and_waits(old_loader):
    node = NodeProcess(NODE, DIVERGENCE_DOMAIN, {
        'robot_description': UNLIMITED_URDF, 'real_time_factor': 1.0,
        'publish_rate': 100.0})
    tester = RosTester(DIVERGENCE_DOMAIN, 'simulator_safety_divergence')
    try:
        tester.clock = tester.collector(Clock, '/clock')
        tester.states = tester.collector(JointState, '/joint_states')
        effort = tester.publisher(Float64MultiArray,
                                  '/effort_controller/commands')
        tester.wait_for(lambda: tester.states.messages, timeout=180.0,
                        what='the first joint_states')
        tester.wait_for_subscriber(effort)

        def halted_after(count):
            """Wait for ``count`` errors, then 2 s without /clock moving."""
            tester.wait_for(lambda: len(error_lines(node)) >= count,
                            what='divergence %d' % count)
            # The ticks already on their way drained (a loaded machine
            # delivers them late): 0.5 s without a new one.
            quiet = {'clock': None}

            def drained():
                stopped, quiet['clock'] = quiet['clock'], latest_clock(
                    tester)
                return stopped == quiet['clock']
            tester.wait_for(drained, action=lambda: tester.spin(0.5),
                            what='/clock to stop')
            stopped = latest_clock(tester)
            tester.spin(2.0)
            assert latest_clock(tester) == stopped, 'time ran on'
            assert len(error_lines(node)) == count, node.output()[-2000:]
            return stopped

        # 1. A finite command that overflows the state: one error, halt.
        effort.publish(Float64MultiArray(data=[1e300, 1e300]))
        stopped = halted_after(1)
        # 2. A good command: time runs again, the states are finite.
        effort.publish(Float64MultiArray(data=[0.0, 0.0]))
        tester.wait_for(lambda: latest_clock(tester) > stopped + 0.5,
                        what='simulated time running after a good command')
        # 3. A model that diverges from its initial state at zero effort
        # (the old node reset it and logged thousands of times a second):
        # one more error, then nothing while it waits.
        results = tester.set_parameters(NODE, gravity=[1e308] * 3)
        assert all(r.successful for r in results), [r.reason
                                                    for r in results]
        stopped = halted_after(2)
        # A command into the same broken model: at most a throttled
        # warning, never another error.
        effort.publish(Float64MultiArray(data=[0.0, 0.0]))
        tester.spin(2.0)
        assert len(error_lines(node)) == 2
        # 4. A good model: time runs again.
        results = tester.set_parameters(NODE, gravity=[0.0, 0.0, -9.81])
        assert all(r.successful for r in results)
        tester.wait_for(lambda: latest_clock(tester) > stopped + 0.5,
                        what='simulated time running with a good model')
        recent = tester.states.messages[-20:]
        assert all(np.all(np.isfinite(m.position)) for m in recent)
        assert node.alive(), node.output()[-2000:]
    finally:
        tester.close()
        status = node.stop()
    assert status == 0, node.output()[-2000:]
    # At most a throttled warning or two for the repeat, not a flood.
    assert len(node.output().splitlines()) < 100, node.output()[-3000:]


# -- parameter sets take effect or are refused -------------------------------


def latest_state(tester):
    """Return the stamp of the newest joint state received, s (or -1)."""
    return max((m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec
                for m in tester.states.messages), default=-1.0)


def stamp_spacing(tester, after, count=20):
    """Return the median spacing of joint_states stamps after ``after``."""
    # Once each: a state sent again while the simulator waited for the
    # test's answer (lockstep) is one state.
    stamps = sorted(set(m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec
                        for m in tester.states.messages))
    stamps = [s for s in stamps if s > after]
    return float(np.median(np.diff(stamps))) if len(stamps) > count \
        else None


def test_every_parameter_set_takes_effect_or_is_refused_with_a_reason():
    urdf = os.path.join(REPO_ROOT, 'urdf', 'two_link_planar.urdf')
    # In lockstep with this test: every joint state reaches it (the
    # spacing of their stamps is measured), and simulated time waits for
    # it to read them.
    node = NodeProcess(NODE, PARAMETER_DOMAIN, {
        'urdf_path': urdf, 'real_time_factor': 0.0, 'publish_rate': 0.0,
        'lockstep': True, 'lockstep_peers': [TESTER_ANSWERS],
        'lockstep_timeout': 600.0})
    tester = RosTester(PARAMETER_DOMAIN, 'simulator_safety_parameters')
    try:
        tester.states = answering_collector(tester, '/joint_states')
        tester.wait_for(lambda: tester.states.messages, timeout=180.0,
                        what='the first joint_states')
        refusals = {
            'integrator': ('magic', "'magic'"),
            'publish_rate': (float('nan'), 'nan'),
            'rate': (1e-12, '1e-12'),
            'real_time_factor': (-1.0, '-1.0'),
            'pos_kp': ([-1.0], '-1.0'),
            'pos_kd': ([float('inf')], 'inf'),
            'vel_ki': ([1.0, 2.0, 3.0], '3 values'),
            'initial_positions': ([float('nan')] * 2, 'nan'),
        }
        for name, (value, quoted) in refusals.items():
            results = tester.set_parameters(NODE, **{name: value})
            assert not results[0].successful, (name, value)
            assert quoted in results[0].reason, (name, results[0].reason)
            assert len(results[0].reason) <= 400
        long = 'x' * 5000
        reason = tester.set_parameters(NODE, integrator=long)[0].reason
        assert 'xxxx' in reason and len(reason) <= 400
        # A refused initial_positions left nothing behind: a new model is
        # still accepted and simulated.
        results = tester.set_parameters(NODE, gravity=[0.0, 0.0, -9.0])
        assert results[0].successful, results[0].reason
        # Accepted sets take effect: the step (stamps 1/rate apart with
        # publish_rate 0), then publish_rate.
        for values, spacing in (({'rate': 250.0}, 0.004),
                                ({'publish_rate': 50.0}, 0.02),
                                ({'integrator': 'semi_implicit_euler',
                                  'pos_max_integral_error': [np.inf],
                                  'rate': 500.0, 'publish_rate': 0.0},
                                 0.002)):
            results = tester.set_parameters(NODE, **values)
            assert all(r.successful for r in results), [r.reason
                                                        for r in results]
            # Stamps from the newest state read after the reply on: the
            # set is applied at the next step, and in lockstep the
            # simulator is at most a state past the newest the test read.
            now = latest_state(tester)
            tester.wait_for(lambda: stamp_spacing(tester, now + 0.1)
                            is not None, what='states after %s' % values)
            assert stamp_spacing(tester, now + 0.1) == pytest.approx(
                spacing, rel=1e-6), values
        # initial_positions take effect at the next ~/reset.
        results = tester.set_parameters(NODE, initial_positions=[0.1, 0.2])
        assert results[0].successful, results[0].reason
        client = tester.node.create_client(Trigger, '/%s/reset' % NODE)
        tester.wait_for(client.service_is_ready, what='~/reset')
        future = client.call_async(Trigger.Request())
        tester.wait_for(future.done, what='~/reset reply')
        assert future.result().success
        # The first state after the reset is one step from (0.1, 0.2).
        tester.wait_for(lambda: any(
            np.max(np.abs(np.subtract(m.position, [0.1, 0.2]))) < 1e-3
            for m in tester.states.messages[-500:]),
            what='a state at the new initial positions')
        assert node.alive(), node.output()[-2000:]
    finally:
        tester.close()
        status = node.stop()
    assert status == 0
