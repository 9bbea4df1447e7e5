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
Real-time factor of the simulator: Panda at 1 kHz with RK4.

1. The ROS-free ``Simulator.step`` under a position PID: the compiled step
   (dynamics_ros.fast.sim_step) and the Python step it stands in for, their
   agreement over a run, and the same RK4 loop on Pinocchio's ABA.  Then
   the Panda with its hand (a MimicModel: the second finger mimics the
   first), compiled and Python steps and their agreement over 1000 steps.
   Goal for the hand: at least 20x real time.  Then Panda driven by
   geared DC motors (``actuators``), compiled (dynamics_ros.fast.motor_step)
   and Python steps for each winding update, and their agreement.
2. One step of ``simulator_node``'s loop in this process, split into the
   simulation, ``/clock`` and ``joint_states``.
3. ``simulator_node`` in its own process, holding its start pose on
   ``position_controller/commands`` and publishing ``joint_states`` and
   ``/clock`` every step as fast as it can (``real_time_factor: 0``),
   measured from another process by the simulated time that arrives per
   wall-clock second, with the CPU time the node, the subscriber and the
   rest of the machine used meanwhile.  Two subscribers (best effort, like
   robot_state_publisher): an rclpy one that deserializes every message,
   and a light one (serialized messages, rclpy's C++ EventsExecutor) that
   leaves more of a small machine to the node.  Then the node alone, by the
   real-time factor it logs when stopped.  Goal: at least 10x real time.

4. ``--hand-launch``: what ``simulation.launch.py urdf:=<panda.urdf>
   tip_link:=panda_link8 real_time_factor:=0`` runs: simulator_node on
   example-robot-data's Panda with its hand cut at panda_link8 (the seven
   arm joints, no fingers), config/simulator.yaml's settings (joint_states
   at 500 Hz), as fast as it can; first holding its pose by itself
   (``hold_mode`` gravity, nobody commanding), then following an arm-only
   trajectory; the real-time factor each run logs when stopped, and the
   trajectory's end reached.  Goal: at least 10x real time.

Run: ``.venv/bin/python benchmarks/bench_simulator.py [seconds]
[--domain ID] [--ros-free | --hand-launch]`` (``--ros-free``: part 1
only; ``--hand-launch``: part 4 only).  DDS stays on loopback
(``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST``) in four domains from ``ID``
on, by default ones no other run on this machine holds.
"""

import argparse
from collections import deque
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'test'))

import dynamics_ros as dr  # noqa: E402
from dynamics_ros.nodes.simulator.node import SimulatorNode  # noqa: E402
from dynamics_ros.nodes.simulator.state import Command  # noqa: E402
from dynamics_ros.sim.controllers import default_gains, JointCommands  # noqa
from dynamics_ros.sim.integrators import rk4  # noqa: E402
from dynamics_ros.sim.simulator import (default_initial_positions,  # noqa
                                        Simulator)
import numpy as np  # noqa: E402
from oracle import example_arm_xml, oracle_for, robots_directory  # noqa
import pinocchio as pin  # noqa: E402
import rclpy  # noqa: E402
from rclpy.experimental import EventsExecutor  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402
from rclpy.qos import qos_profile_sensor_data  # noqa: E402
from rclpy.serialization import deserialize_message  # noqa: E402
from ros_harness import NodeProcess, reserve_domain_id, RosTester  # noqa
from sensor_msgs.msg import JointState  # noqa: E402
from std_msgs.msg import Float64MultiArray  # noqa: E402
from timing import per_call  # noqa: E402

# ROS_DOMAIN_IDs of the runs: in process, rclpy subscriber, light
# subscriber, alone (``main``: reserved, or --domain and the next three).
DOMAIN_IDS = [176, 177, 178, 179]
RATE = 1000.0
GOAL = 10.0
HAND_GOAL = 20.0   # ROS-free, the Panda with its hand (docstring, part 1)
TICK = os.sysconf('SC_CLK_TCK')


def held_pose_run(model, q0, compiled=True, target=None):
    """Return a Simulator and a position PID driving it to q0 + 0.3."""
    simulator = Simulator(model, dt=1.0 / RATE, integrator_name='rk4', q0=q0)
    if not compiled:
        simulator.compiled = None
    commands = JointCommands(model, *default_gains(model, q0))
    commands.command_position(q0 + 0.3 if target is None else target)
    return simulator, commands


def hand_ros_free(steps, closed=False):
    """
    Print the step cost of the Panda with its hand (mimic fingers).

    Compiled and Python steps under a position PID toward q0 + 0.3 with
    the fingers opening from 2 to 3 cm, and whether they agree to the bit
    over 1000 steps.  ``closed``: the fingers closed on their lower limit
    instead, squeezed shut (simulation.launch.py's start): every step
    ends in the stop's impulse (fast/joint_impulses.py), which the kernel
    solves by Cholesky and Python by np.linalg.inv, so equal to rounding.
    Returns the compiled step's real-time factor.
    """
    model = dr.load_urdf(os.path.join(robots_directory(), 'panda_description',
                                      'urdf', 'panda.urdf'))
    dt = 1.0 / RATE
    q0 = 0.5 * (np.clip(model.lower_limit, -2.0, 2.0)
                + np.clip(model.upper_limit, -2.0, 2.0))
    target = q0 + 0.3
    target[-1] = 0.03
    if closed:
        q0[-1], target[-1] = 0.0, -0.01
    times = {}
    for compiled in (True, False):
        simulator, commands = held_pose_run(model, q0, compiled, target)

        def step():
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    dt))

        times[compiled] = per_call(step, steps)
    twins = [held_pose_run(model, q0, compiled, target)
             for compiled in (True, False)]
    equal = True
    for _ in range(1000):
        for simulator, commands in twins:
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    dt))
        equal = equal and all(
            np.array_equal(getattr(twins[0][0], field),
                           getattr(twins[1][0], field))
            for field in ('z', 'zd', 'applied_effort'))
    difference = max(np.max(np.abs(getattr(twins[0][0], field)
                                   - getattr(twins[1][0], field)))
                     for field in ('z', 'zd', 'applied_effort'))
    factor = dt / times[True]
    if closed:
        print('ROS-free, the same with the fingers closed on their lower '
              'limit (finger at %g m after 1000 steps), per step:'
              % twins[0][0].q[-1])
    else:
        print('ROS-free, Panda with its hand (%s: %d coordinates, %d '
              'joints, mimic %s), per step:' % (
                  type(model).__name__, model.nq,
                  len(model.full_joint_names), ', '.join(model.mimic)))
    print('  Simulator.step + position PID  %9.1f us  -> real-time factor '
          '%6.2f (goal >= %g: %s)' % (
              times[True] * 1e6, factor, HAND_GOAL,
              'met' if factor >= HAND_GOAL else 'NOT met'))
    print('  the same in Python             %9.1f us  -> real-time factor '
          '%6.2f' % (times[False] * 1e6, dt / times[False]))
    if closed:
        agreement = 'equal to the bit' if equal else 'equal to rounding' \
            if difference < 1e-12 else 'DIFFER'
    else:
        agreement = 'equal to the bit' if equal else 'DIFFER'
    print('  compiled vs Python step over 1000 steps: %s (largest '
          'difference %.3g)' % (agreement, difference))
    return factor


def motor_run(model, motors, integration, q0, compiled=True):
    """Return a motor-driven Simulator and a position PID toward q0 + 0.2."""
    simulator = Simulator(model, dt=1.0 / RATE, integrator_name='rk4', q0=q0,
                          actuators=motors, motor_integration=integration)
    if not compiled:
        simulator.compiled = None
    commands = JointCommands(model, *default_gains(simulator.model, q0))
    simulator.hand_over(commands)
    commands.command_position(np.clip(q0 + 0.2, model.lower_limit,
                                      model.upper_limit))
    return simulator, commands


def motors_ros_free(model, steps):
    """
    Print the step cost of Panda driven by geared DC motors.

    50:1 motors (ratios varied per joint, L/R = 1.3 ms, as
    test/sim/test_actuated_simulator.py), a position PID through the drive
    law; for each winding update ('auto' takes 'coupled' at 1 kHz) the
    compiled step (dynamics_ros.fast.motor_step) and the Python one, and
    whether they agree to the bit over 1000 steps (state, currents,
    voltages, torques).
    """
    from dynamics_ros.model.actuators import motors_from_mapping
    motors = motors_from_mapping(
        {name: dict(gear_ratio=50.0 * (1 + 0.2 * k), rotor_inertia=2e-5,
                    torque_constant=0.06, back_emf=0.06, resistance=1.5,
                    inductance=2e-3, damping=1e-5)
         for k, name in enumerate(model.joint_names)}, model.joint_names)
    dt = 1.0 / RATE
    q0 = 0.5 * (np.clip(model.lower_limit, -2.0, 2.0)
                + np.clip(model.upper_limit, -2.0, 2.0))
    fields = ('z', 'zd', 'current', 'applied_voltage', 'applied_effort')
    print('ROS-free, Panda driven by DC motors (position PID through the '
          'drive law), per step:')
    for integration in ('exponential', 'coupled'):
        times = {}
        for compiled in (True, False):
            simulator, commands = motor_run(model, motors, integration, q0,
                                            compiled)

            def step():
                simulator.step(commands(simulator.t, simulator.q,
                                        simulator.qd, dt), commands.damping)

            times[compiled] = per_call(step, steps)
        twins = [motor_run(model, motors, integration, q0, compiled)
                 for compiled in (True, False)]
        equal = True
        for _ in range(1000):
            for simulator, commands in twins:
                simulator.step(commands(simulator.t, simulator.q,
                                        simulator.qd, dt), commands.damping)
            equal = equal and all(
                np.array_equal(getattr(twins[0][0], field),
                               getattr(twins[1][0], field))
                for field in fields)
        difference = max(np.max(np.abs(getattr(twins[0][0], field)
                                       - getattr(twins[1][0], field)))
                         for field in fields)
        print('  %-11s compiled %7.1f us -> real-time factor %6.2f; Python '
              '%7.1f us -> %6.2f; over 1000 steps: %s (largest difference '
              '%.3g)' % (integration, times[True] * 1e6, dt / times[True],
                         times[False] * 1e6, dt / times[False],
                         'equal to the bit' if equal else 'DIFFER',
                         difference))


def ros_free(model, oracle, steps):
    """Print the step cost of the Simulator and of an RK4 on Pinocchio."""
    dt = 1.0 / RATE
    q0 = 0.5 * (np.clip(model.lower_limit, -2.0, 2.0)
                + np.clip(model.upper_limit, -2.0, 2.0))
    times = {}
    for compiled in (True, False):
        simulator, commands = held_pose_run(model, q0, compiled)

        def step():
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    dt))

        times[compiled] = per_call(step, steps)
    step_time, python_time = times[True], times[False]
    # The two steps over one run: the same numbers.
    twins = [held_pose_run(model, q0, compiled) for compiled in (True, False)]
    for _ in range(1000):
        for simulator, commands in twins:
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    dt))
    difference = max(np.max(np.abs(getattr(twins[0][0], field)
                                   - getattr(twins[1][0], field)))
                     for field in ('z', 'zd', 'applied_effort'))
    simulator, commands = twins[0]
    q, qd = simulator.q.copy(), simulator.qd.copy()
    effort = commands(simulator.t, q, qd, dt)
    kernel_time = per_call(lambda: simulator.compiled(q, qd, effort, dt),
                           steps)
    acceleration_time = per_call(
        lambda: simulator.acceleration(q, qd, effort), steps)
    command_time = per_call(lambda: commands(simulator.t, q, qd, dt), steps)

    pm, data = oracle.pin_model, oracle.data

    def pinocchio_acceleration(t, q, qd):
        return oracle.ours(pin.aba(pm, data, oracle.q(q), oracle.v(qd),
                                   oracle.v(effort)))

    state = [q.copy(), qd.copy()]

    def pinocchio_step():
        state[0], state[1] = rk4(pinocchio_acceleration, 0.0, state[0],
                                 state[1], dt)

    pinocchio_time = per_call(pinocchio_step, steps)
    pin_aba_time = per_call(lambda: pin.aba(
        pm, data, oracle.q(q), oracle.v(qd), oracle.v(effort)), steps * 10)
    print('ROS-free, per step (median of 5 runs of %d steps):' % steps)
    print('  Simulator.step + position PID  %9.1f us  -> real-time factor '
          '%6.2f' % (step_time * 1e6, dt / step_time))
    print('    compiled step (4 ABA inside) %9.1f us  (%4.1f %%)' % (
        kernel_time * 1e6, 100 * kernel_time / step_time))
    print('    position PID                 %9.1f us  (%4.1f %%)' % (
        command_time * 1e6, 100 * command_time / step_time))
    rest = step_time - kernel_time - command_time
    print('    step bookkeeping, rest       %9.1f us  (%4.1f %%)' % (
        rest * 1e6, 100 * rest / step_time))
    print('  the same in Python (4 calls of %.1f us to the ABA kernel) '
          '%6.1f us  -> real-time factor %6.2f' % (
              acceleration_time * 1e6, python_time * 1e6, dt / python_time))
    print('  compiled vs Python step over 1000 steps: largest difference '
          '%.3g' % difference)
    print('  same RK4 on Pinocchio ABA      %9.1f us  -> real-time factor '
          '%6.2f  (Simulator / Pinocchio: %.2fx)' % (
              pinocchio_time * 1e6, dt / pinocchio_time,
              step_time / pinocchio_time))
    print('    (pin.aba alone: %.2f us per call)' % (pin_aba_time * 1e6))
    return dt / step_time


def node_in_process(xml, steps):
    """Print the cost of one step of simulator_node's loop, in process."""
    context = rclpy.Context()
    rclpy.init(context=context, domain_id=DOMAIN_IDS[0])
    node = SimulatorNode(context=context, parameter_overrides=[
        Parameter('robot_description', value=xml),
        Parameter('real_time_factor', value=0.0),
        Parameter('publish_rate', value=0.0)])
    try:
        node.stopping.set()   # drive the loop's step by hand
        node.thread.join()
        simulation = node.simulation
        simulator, commands = simulation.simulator, simulation.commands
        # The loop took some unheld steps before it stopped: the arm may
        # have fallen onto a limit (every step then takes the impulse
        # path).  Hold the initial pose, as the runs in a process do.
        simulator.reset(keep_time=True)
        node.pending.append(Command('position', simulator.q.copy()))
        for _ in range(100):
            node.advance()
        loop_time = per_call(node.advance, steps)
        state = simulator.z, simulator.zd, simulator.steps

        def step():
            simulator.step(commands(simulator.t, simulator.q, simulator.qd,
                                    simulator.dt))
            simulator.z, simulator.zd, simulator.steps = state

        step_time = per_call(step, steps)
        nanoseconds = int(round(simulator.t * 1e9))
        clock = node.serialized_clock
        clock_time = per_call(lambda: node.clock_publisher.publish(
            clock.serialized(nanoseconds)), steps)
        index, states = simulation.index, simulation.serialized_state
        state_time = per_call(lambda: node.state_publisher.publish(
            states.serialized(nanoseconds, (
                simulator.q[index], simulator.qd[index],
                simulator.applied_effort[index]))), steps)
    finally:
        node.destroy_node()
        rclpy.try_shutdown(context=context)
    print('simulator_node loop in process, no subscriber, per step:')
    print('  step + publish joint_states and /clock %7.1f us  -> real-time '
          'factor %6.2f' % (loop_time * 1e6, 1e-3 / loop_time))
    print('    Simulator.step + position PID        %7.1f us' % (
        step_time * 1e6))
    print('    /clock (serialized) + publish        %7.1f us' % (
        clock_time * 1e6))
    print('    joint_states (serialized) + publish  %7.1f us' % (
        state_time * 1e6))
    print('    loop bookkeeping                     %7.1f us' % (
        (loop_time - step_time - clock_time - state_time) * 1e6))


def interrupted_output(node):
    """Stop ``node`` as Ctrl-C does; return the lines it printed."""
    # Its last line on SIGINT is the run's real-time factor.
    node.process.send_signal(signal.SIGINT)
    node.process.wait(30.0)
    return node.output().splitlines()


def logged_factor(output):
    """Return (real-time factor, its line) of a simulator_node's output."""
    lines = [line for line in output if 'real-time factor' in line]
    if not lines:
        raise RuntimeError('simulator_node logged no real-time factor')
    return float(lines[-1].rsplit(' ', 1)[1]), lines[-1]


def process_cpu(pid):
    """Return the CPU seconds (user + system) process ``pid`` used so far."""
    with open('/proc/%d/stat' % pid, encoding='ascii') as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def machine_ticks():
    """Return (busy, total) CPU ticks of the whole machine so far."""
    with open('/proc/stat', encoding='ascii') as stat:
        ticks = [int(x) for x in stat.readline().split()[1:]]
    idle = ticks[3] + ticks[4]
    return sum(ticks) - idle, sum(ticks)


def node_alone(xml, model, seconds):
    """Return the real-time factor simulator_node logs when nobody listens."""
    node = NodeProcess('simulator_node', DOMAIN_IDS[3], {
        'robot_description': xml, 'rate': RATE, 'integrator': 'rk4',
        'real_time_factor': 0.0, 'publish_rate': 0.0,
        'publish_clock': True})
    tester = RosTester(DOMAIN_IDS[3], 'bench_simulator_commands')
    try:
        # The same hold of the start pose, published but not listened to.
        hold = tester.publisher(Float64MultiArray,
                                '/position_controller/commands')
        tester.wait_for_subscriber(hold, timeout=60.0)
        command = Float64MultiArray(
            data=default_initial_positions(model).tolist())
        for _ in range(5):
            hold.publish(command)
            tester.spin(0.2)
        cpu0, wall0 = process_cpu(node.process.pid), time.perf_counter()
        time.sleep(seconds)
        share = (process_cpu(node.process.pid) - cpu0) / (
            time.perf_counter() - wall0)
        output = interrupted_output(node)
    finally:
        tester.close()
        node.stop()
    factor, line = logged_factor(output)
    return factor, line, share


class LightSubscriber:
    """
    joint_states kept serialized; only the last ones are ever decoded.

    Subscribed like robot_state_publisher (sensor-data QoS, best effort);
    DDS delivers every message exactly as to any subscriber.
    """

    def __init__(self, node):
        self.count = 0
        self.recent = deque(maxlen=50)
        node.create_subscription(JointState, '/joint_states', self.receive,
                                 qos_profile_sensor_data, raw=True)

    def receive(self, data):
        """Count and keep one serialized message."""
        self.count += 1
        self.recent.append(data)

    def messages(self):
        """Return the recent messages, decoded."""
        return [deserialize_message(data, JointState)
                for data in list(self.recent)]


class RclpySubscriber:
    """Every joint_states message, deserialized (sensor-data QoS)."""

    def __init__(self, tester):
        self.collector = tester.collector(JointState, '/joint_states',
                                          qos_profile_sensor_data)

    @property
    def count(self):
        """Return how many messages arrived."""
        return len(self.collector.messages)

    def messages(self):
        """Return the recent messages."""
        return self.collector.messages[-50:]


def node_run(xml, model, seconds, light):
    """Return figures of simulator_node publishing to a subscriber."""
    domain = DOMAIN_IDS[2 if light else 1]
    node = NodeProcess('simulator_node', domain, {
        'robot_description': xml, 'rate': RATE, 'integrator': 'rk4',
        'real_time_factor': 0.0, 'publish_rate': 0.0,
        'publish_clock': True})
    tester = RosTester(domain, 'bench_simulator')
    if light:
        tester.executor.shutdown()
        tester.executor = EventsExecutor(context=tester.context)
        tester.executor.add_node(tester.node)
        states = LightSubscriber(tester.node)
    else:
        states = RclpySubscriber(tester)
    hold = tester.publisher(Float64MultiArray, '/position_controller/commands')
    try:
        tester.wait_for(lambda: states.count, timeout=60.0,
                        what='joint_states from simulator_node')
        # Hold the start pose with the position PID, as a ros2_control
        # position controller would (an arm left at zero effort would fall
        # onto its joint limits, where every step takes the impulses).
        command = Float64MultiArray(
            data=default_initial_positions(model).tolist())
        tester.wait_for(lambda: any(any(m.effort) for m in
                                    states.messages()[-10:]),
                        action=lambda: hold.publish(command), every=0.5,
                        what='the position command applied')
        tester.spin(2.0)  # warm up

        def latest():
            return max(m.header.stamp.sec + 1e-9 * m.header.stamp.nanosec
                       for m in states.messages())

        def sample():
            return (states.count, latest(), time.perf_counter(),
                    process_cpu(node.process.pid), time.process_time(),
                    machine_ticks())

        first = sample()
        tester.spin(seconds)
        last = sample()
        alive = node.alive()
    finally:
        tester.close()
        node.stop()
    if not alive:
        raise RuntimeError('simulator_node died:\n' + node.output())
    count, simulated, wall, node_cpu, own_cpu = (
        b - a for a, b in zip(first[:5], last[:5]))
    busy, total = (b - a for a, b in zip(first[5], last[5]))
    return {'factor': simulated / wall, 'simulated': simulated, 'wall': wall,
            'received': count, 'node_cpu': node_cpu,
            'subscriber_cpu': own_cpu,
            'machine_busy': busy / total * os.cpu_count()}


def print_run(title, run):
    """Print the figures of one node_run."""
    factor = run['factor']
    print('simulator_node + %s:' % title)
    print('  %.2f s simulated in %.2f s wall -> real-time factor %.2f '
          '(goal >= %g: %s)' % (run['simulated'], run['wall'], factor, GOAL,
                                'met' if factor >= GOAL else 'NOT met'))
    steps = run['simulated'] * RATE
    print('  joint_states received: %d, %.2f per simulated step' % (
        run['received'], run['received'] / max(steps, 1.0)))
    print('  CPU: node %.2f cores (%.1f us per step: real-time factor %.1f '
          'on a core of its own), subscriber %.2f, machine busy %.2f of '
          '%d cores' % (run['node_cpu'] / run['wall'],
                        run['node_cpu'] / max(steps, 1.0) * 1e6,
                        run['simulated'] / max(run['node_cpu'], 1e-9),
                        run['subscriber_cpu'] / run['wall'],
                        run['machine_busy'], os.cpu_count()))


def hand_launch_run(seconds, trajectory=False):
    """
    Return (factor, its log line, node CPU share, last positions).

    simulator_node as simulation.launch.py starts it on the Panda with its
    hand cut at panda_link8; ``trajectory``: an arm-only trajectory sent
    (else nobody commands: the hold).
    """
    from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
    import yaml
    with open(os.path.join(os.path.dirname(__file__), '..', 'config',
                           'simulator.yaml'), encoding='utf-8') as stream:
        config = next(iter(yaml.safe_load(stream).values()))[
            'ros__parameters']
    urdf = os.path.join(robots_directory(), 'panda_description', 'urdf',
                        'panda.urdf')
    domain = DOMAIN_IDS[3]
    node = NodeProcess('simulator_node', domain, dict(
        config, urdf_path=urdf, tip_link='panda_link8',
        real_time_factor=0.0))
    tester = RosTester(domain, 'bench_simulator_hand')
    states = tester.collector(JointState, '/joint_states',
                              qos_profile_sensor_data)
    try:
        tester.wait_for(lambda: states.messages, timeout=300.0,
                        what='joint_states from simulator_node')
        names = [n for n in states.messages[-1].name]
        target = None
        if trajectory:
            # 7 arm joints, 3 waypoints over 20 s of simulated time, then
            # held at the last one.
            start = np.array(states.messages[-1].position)
            target = start + np.array([0.3, -0.2, 0.2, 0.3, -0.3, 0.2, 0.4])
            msg = JointTrajectory(joint_names=names)
            for k, fraction in enumerate((0.5, 1.0)):
                point = JointTrajectoryPoint(
                    positions=(start + fraction * (target - start)).tolist())
                point.time_from_start.sec = 10 * (k + 1)
                msg.points.append(point)
            publisher = tester.publisher(
                JointTrajectory,
                '/joint_trajectory_controller/joint_trajectory')
            tester.wait_for_subscriber(publisher, timeout=60.0)
            publisher.publish(msg)
        cpu0, wall0 = process_cpu(node.process.pid), time.perf_counter()
        tester.spin(seconds)
        share = (process_cpu(node.process.pid) - cpu0) / (
            time.perf_counter() - wall0)
        last = np.array(states.messages[-1].position[:len(names)])
        output = interrupted_output(node)
    finally:
        tester.close()
        node.stop()
    factor, line = logged_factor(output)
    loaded = [text for text in output if 'loaded model' in text]
    return factor, line, share, names, last, target, loaded[:1]


def hand_launch(seconds):
    """Print the real-time factor of the Panda-with-hand launch, arm only."""
    print('Panda with its hand, tip_link panda_link8 (arm joints only), '
          'config/simulator.yaml, real_time_factor 0; %g s wall per run; '
          'load average %.2f %.2f %.2f on %d cores' % (
              (seconds,) + os.getloadavg() + (os.cpu_count(),)))
    for trajectory in (False, True):
        factor, line, share, names, last, target, loaded = hand_launch_run(
            seconds, trajectory)
        # What the node would run at on a core of its own: the factor per
        # share of a core it got (the machine is shared).
        print('  %s: real-time factor %.2f (goal >= %g: %s), node %.2f '
              'cores: %.1f per core of its own' % (
                  'following an arm-only trajectory' if trajectory
                  else 'nobody commanding (hold_mode gravity)', factor, GOAL,
                  'met' if factor >= GOAL else 'NOT met', share,
                  factor / max(share, 1e-9)))
        print('    its log: "%s"' % line.split(': ', 1)[1])
        if loaded:
            print('    %s' % loaded[0].split(': ', 1)[1][:300])
        print('    joints: %s' % ', '.join(names))
        if target is not None:
            print('    largest distance from the trajectory end at the '
                  'last state: %.2e rad' % np.max(np.abs(last - target)))


def main(argv):
    """Run the measurements and print the verdict."""
    global DOMAIN_IDS
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('seconds', nargs='?', type=float, default=10.0,
                        help='wall-clock seconds per node run (default 10)')
    parser.add_argument('--ros-free', action='store_true',
                        help='only the ROS-free steps (arm, arm with hand)')
    parser.add_argument('--hand-launch', action='store_true',
                        help='only the Panda-with-hand launch, arm only '
                             '(tip_link panda_link8)')
    parser.add_argument('--domain', type=int,
                        help='first of the four ROS_DOMAIN_IDs to use '
                             '(default: free ones, reserved for this run)')
    args = parser.parse_args(argv[1:])
    seconds = args.seconds
    if args.ros_free:
        xml = example_arm_xml('panda')
        model, oracle = oracle_for(xml)
        print('Simulator benchmark, ROS-free: Panda (%d DoF), rk4 at %g Hz; '
              'load average %.2f %.2f %.2f on %d cores' % (
                  (model.nq, RATE) + os.getloadavg() + (os.cpu_count(),)))
        ros_free(model, oracle, 300)
        hand_ros_free(300)
        hand_ros_free(300, closed=True)
        motors_ros_free(model, 300)
        return 0
    if args.domain is not None:
        DOMAIN_IDS = [args.domain + k for k in range(4)]
    else:
        # Any four free ids (waiting for four in a row could take them
        # all: the harness hands out the one unused longest first).
        DOMAIN_IDS = [reserve_domain_id('bench_simulator') for _ in range(4)]
    os.environ['ROS_AUTOMATIC_DISCOVERY_RANGE'] = 'LOCALHOST'
    if args.hand_launch:
        hand_launch(seconds)
        return 0
    xml = example_arm_xml('panda')
    model, oracle = oracle_for(xml)
    print('Simulator benchmark: Panda (%d DoF), rk4 at %g Hz; load average '
          '%.2f %.2f %.2f on %d cores' % ((model.nq, RATE) + os.getloadavg()
                                          + (os.cpu_count(),)))
    ros_free(model, oracle, 300)
    hand_ros_free(300)
    hand_ros_free(300, closed=True)
    motors_ros_free(model, 300)
    node_in_process(xml, 300)
    print('simulator_node in its own process; joint_states and /clock every '
          'step; real_time_factor 0; %g s:' % seconds)
    print_run('light subscriber (serialized, EventsExecutor)',
              node_run(xml, model, seconds, light=True))
    print_run('rclpy subscriber (deserializes every message)',
              node_run(xml, model, seconds, light=False))
    alone, line, share = node_alone(xml, model, seconds)
    print('simulator_node alone (same hold, nobody subscribed):')
    print('  real-time factor %.2f, %.2f cores (its log: "%s")' % (
        alone, share, line.split(': ', 1)[1]))
    return 0


if __name__ == '__main__':
    from results_file import record
    if '--hand-launch' in sys.argv:   # a section of its own
        sys.exit(record('bench_simulator_hand', 'Simulator real-time '
                        'factor (Panda with hand, tip_link panda_link8)',
                        lambda: main(sys.argv)))
    sys.exit(record('bench_simulator', 'Simulator real-time factor (Panda, 1 kHz)',
                    lambda: main(sys.argv)))
