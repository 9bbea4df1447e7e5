#!/usr/bin/env python3
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
Pinocchio, our compiled path and our numpy reference path, side by side.

One run, the same robots (Panda, UR5, a 32-link chain) and the same states
for every library: the time of one call, and the time per state of batches
of 1,000 and 10,000 states (ours in one call, Pinocchio looped from Python),
each the median of several repeats, with the ratios to Pinocchio measured
in this run.  Then the growth of the time per call with the chain length
(8, 16, 32, 64 links), and the cold start (import plus first calls) with an
empty and a warm numba cache, in fresh processes.  Prints everything and
writes ``benchmarks/results.md``.

    .venv/bin/python benchmarks/compare.py [--quick] [--output PATH]

With ``--baseline DIR`` (another checkout, e.g. a git worktree of main)
it times instead the single calls of this checkout's package against
DIR's, imported side by side in this process (as
``dynamics_ros_baseline``) and timed in the same rounds, and prints the
ratios after / before: how a change of the hot paths moved them.

    .venv/bin/python benchmarks/compare.py --baseline ../main
"""

import argparse
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'test'))

import dynamics_ros as dr  # noqa: E402
from dynamics_ros import fast  # noqa: E402
from dynamics_ros.dynamics.aba import reference_forward_dynamics  # noqa: E402
from dynamics_ros.dynamics.bias import reference_bias_forces, \
    reference_gravity_torques  # noqa: E402
from dynamics_ros.dynamics.coriolis import \
    reference_coriolis_matrix  # noqa: E402
from dynamics_ros.dynamics.crba import reference_mass_matrix  # noqa: E402
from dynamics_ros.dynamics.linearize import reference_linearize  # noqa: E402
from dynamics_ros.dynamics.rnea import \
    reference_inverse_dynamics  # noqa: E402
import numpy as np  # noqa: E402
from oracle import example_arm_xml, oracle_for, random_state  # noqa: E402
import pinocchio as pin  # noqa: E402
from results_file import keep_sections  # noqa: E402
from urdf_factory import serial_chain_urdf  # noqa: E402

FUNCTIONS = ['inverse_dynamics', 'mass_matrix', 'forward_dynamics',
             'gravity_torques', 'bias_forces', 'linearize', 'coriolis_matrix']
PINOCCHIO_NAMES = {
    'inverse_dynamics': 'rnea', 'mass_matrix': 'crba',
    'forward_dynamics': 'aba', 'gravity_torques': 'computeGeneralizedGravity',
    'bias_forces': 'nonLinearEffects',
    'linearize': 'computeABADerivatives',
    'coriolis_matrix': 'computeCoriolisMatrix'}


# CPU time of this process: other jobs sharing the cores stall the process
# (wall time) but do not add to its CPU time.
clock = time.process_time
WARM_UP = 5
REPEATS = 7


def calls_for(function, budget, most):
    """Return how many calls of ``function`` take about ``budget`` seconds."""
    function()  # the first call may pack the model or load a kernel
    start = clock()
    for _ in range(3):
        function()
    once = (clock() - start) / 3
    return int(max(3, min(most, budget / max(once, 1e-9))))


def interleaved(functions, most_calls, repeats, budget=0.02):
    """
    Time several functions in alternation: the median time of one call each.

    Each repeat runs every function for about ``budget`` seconds (at most
    ``most_calls`` calls), so they see the same drift in the machine's load;
    ``WARM_UP`` more rounds before them are not counted.
    """
    calls = {name: calls_for(function, budget, most_calls)
             for name, function in functions.items()}
    samples = {name: [] for name in functions}
    for _ in range(WARM_UP + repeats):
        for name, function in functions.items():
            start = clock()
            for _ in range(calls[name]):
                function()
            samples[name].append((clock() - start) / calls[name])
    # The first rounds warm caches and clocks up: left out.
    return {name: statistics.median(values[WARM_UP:])
            for name, values in samples.items()}


class Robot:
    """A robot loaded both ways, with the same random states for all."""

    def __init__(self, name, xml, states):
        self.name = name
        self.model, self.oracle = oracle_for(xml)
        rng = np.random.default_rng(0)
        rows = [random_state(self.model, rng) for _ in range(states)]
        self.q, self.qd, self.qdd, self.tau = (
            np.array(column) for column in zip(*rows))
        o = self.oracle
        self.pin_q = [o.q(x) for x in self.q]
        self.pin_qd = [o.v(x) for x in self.qd]
        self.pin_qdd = [o.v(x) for x in self.qdd]
        self.pin_tau = [o.v(x) for x in self.tau]

    def ours(self, function, k=0, count=None):
        """
        Our call of ``function`` on state k, or on a batch of count.

        A batch writes into the same ``out`` arrays each time, as a caller
        evaluating batch after batch would: new arrays of hundreds of MB
        per call would time the kernel zeroing fresh pages instead.
        """
        m = self.model
        pick = slice(0, count) if count is not None else k
        q, qd, qdd, tau = (self.q[pick], self.qd[pick], self.qdd[pick],
                           self.tau[pick])
        if count is None:  # as a user calls, nothing more
            return {
                'inverse_dynamics': lambda: dr.inverse_dynamics(m, q, qd,
                                                                qdd),
                'mass_matrix': lambda: dr.mass_matrix(m, q),
                'forward_dynamics': lambda: dr.forward_dynamics(m, q, qd,
                                                                tau),
                'gravity_torques': lambda: dr.gravity_torques(m, q),
                'bias_forces': lambda: dr.bias_forces(m, q, qd),
                'linearize': lambda: dr.linearize(m, q, qd, tau),
                'coriolis_matrix': lambda: dr.coriolis_matrix(m, q, qd),
            }[function]
        call = {
            'inverse_dynamics': lambda out: dr.inverse_dynamics(
                m, q, qd, qdd, out=out),
            'mass_matrix': lambda out: dr.mass_matrix(m, q, out=out),
            'forward_dynamics': lambda out: dr.forward_dynamics(
                m, q, qd, tau, out=out),
            'gravity_torques': lambda out: dr.gravity_torques(m, q, out=out),
            'bias_forces': lambda out: dr.bias_forces(m, q, qd, out=out),
            'linearize': lambda out: dr.linearize(m, q, qd, tau, out=out),
            'coriolis_matrix': lambda out: dr.coriolis_matrix(
                m, q, qd, out=out),
        }[function]
        out = call(None)
        return lambda: call(out)

    def reference(self, function, k=0):
        """Our numpy reference path on state k."""
        m, q, qd, qdd, tau = (self.model, self.q[k], self.qd[k],
                              self.qdd[k], self.tau[k])
        return {
            'inverse_dynamics':
                lambda: reference_inverse_dynamics(m, q, qd, qdd),
            'mass_matrix': lambda: reference_mass_matrix(m, q),
            'forward_dynamics':
                lambda: reference_forward_dynamics(m, q, qd, tau),
            'gravity_torques': lambda: reference_gravity_torques(m, q),
            'bias_forces': lambda: reference_bias_forces(m, q, qd),
            'linearize': lambda: reference_linearize(m, q, qd, tau),
            'coriolis_matrix': lambda: reference_coriolis_matrix(m, q, qd),
        }.get(function)

    def pinocchio(self, function, k=0, count=None):
        """Pinocchio on state k, or looped from Python over count states."""
        pm, data = self.oracle.pin_model, self.oracle.data
        call = {
            'inverse_dynamics': lambda k: pin.rnea(
                pm, data, self.pin_q[k], self.pin_qd[k], self.pin_qdd[k]),
            'mass_matrix': lambda k: pin.crba(pm, data, self.pin_q[k]),
            'forward_dynamics': lambda k: pin.aba(
                pm, data, self.pin_q[k], self.pin_qd[k], self.pin_tau[k]),
            'gravity_torques': lambda k: pin.computeGeneralizedGravity(
                pm, data, self.pin_q[k]),
            'bias_forces': lambda k: pin.nonLinearEffects(
                pm, data, self.pin_q[k], self.pin_qd[k]),
            'linearize': lambda k: pin.computeABADerivatives(
                pm, data, self.pin_q[k], self.pin_qd[k], self.pin_tau[k]),
            'coriolis_matrix': lambda k: pin.computeCoriolisMatrix(
                pm, data, self.pin_q[k], self.pin_qd[k]),
        }[function]
        if count is None:
            return lambda: call(k)

        def loop():
            for j in range(count):
                call(j)
        return loop


def measure_robot(robot, sizes, calls, repeats):
    """
    Return {function: {column: seconds}} for one robot.

    All functions of both libraries are timed in the same rounds, so that a
    busy spell of the shared machine spoils a round or two of every entry
    (which the median drops) rather than every round of one entry.
    """
    timed = interleaved(
        {(function, library): getattr(robot, library)(function)
         for function in FUNCTIONS for library in ('pinocchio', 'ours')},
        calls, repeats)
    rows = {function: {'pinocchio': timed[(function, 'pinocchio')],
                       'fast': timed[(function, 'ours')]}
            for function in FUNCTIONS}
    references = {function: robot.reference(function)
                  for function in FUNCTIONS}
    timed = interleaved(references, calls, min(repeats, 3))
    for function in references:
        rows[function]['reference'] = timed[function]
    for size in sizes:
        timed = interleaved(
            {(function, library): getattr(robot, library)(function,
                                                          count=size)
             for function in FUNCTIONS
             for library in ('pinocchio', 'ours')},
            1, max(repeats // 2, 3))
        for function in FUNCTIONS:
            rows[function]['pinocchio_%d' % size] = \
                timed[(function, 'pinocchio')] / size
            rows[function]['fast_%d' % size] = timed[(function, 'ours')] / size
    return rows


def straight_line_deviation(links, times):
    """Largest relative distance of the times from their least-squares line."""
    slope, intercept = np.polyfit(links, times, 1)
    fitted = slope * np.asarray(links) + intercept
    return float(np.max(np.abs(np.asarray(times) - fitted) / fitted))


GROWTH_LINKS = [8, 16, 32, 64]


def measure_growth(chains, calls, repeats):
    """
    Time per call of chains of 8..64 links, and the distance to a line.

    All chains are timed in the same rounds, so that a busy spell of the
    machine slows every length alike instead of bending the line.
    """
    functions = FUNCTIONS[:5]
    timed = interleaved({(f, n): chain.ours(f) for f in functions
                         for n, chain in zip(GROWTH_LINKS, chains)},
                        calls, repeats)
    curves = {}
    for function in functions:
        times = [timed[(function, n)] for n in GROWTH_LINKS]
        curves[function] = (times, straight_line_deviation(GROWTH_LINKS,
                                                           times))
    return GROWTH_LINKS, curves


COLD_START = r"""
import json, sys, time
start = time.perf_counter()
import numpy as np
import dynamics_ros as dr
imported = time.perf_counter()
model = dr.load_urdf(sys.argv[1])
q = np.full(model.nq, 0.1)
loaded = time.perf_counter()
dr.inverse_dynamics(model, q, q, q)
first = time.perf_counter()
dr.mass_matrix(model, q)
dr.forward_dynamics(model, q, q, q)
dr.gravity_torques(model, q)
dr.bias_forces(model, q, q)
dr.inverse_dynamics(model, q[None], q[None], q[None])
dr.mass_matrix(model, q[None])
dr.forward_dynamics(model, q[None], q[None], q[None])
dr.gravity_torques(model, q[None])
dr.bias_forces(model, q[None], q[None])
dr.linearize(model, q, q, q)
dr.linearize(model, q[None], q[None], q[None])
every = time.perf_counter()
print(json.dumps({'import': imported - start,
                  'first_inverse_dynamics': first - loaded,
                  'first_of_all': every - loaded}))
"""


def measure_cold_start(urdf):
    """Import and first calls in fresh processes: empty, then warm cache."""
    results = {}
    with tempfile.TemporaryDirectory() as cache:
        environment = dict(os.environ, NUMBA_CACHE_DIR=cache)
        for label in ('empty cache', 'warm cache', 'warm cache again'):
            output = subprocess.run(
                [sys.executable, '-c', COLD_START, urdf], env=environment,
                capture_output=True, text=True, check=True).stdout
            results[label] = json.loads(output)
    return results


def microseconds(seconds):
    """Format seconds as microseconds."""
    return '%.2f' % (seconds * 1e6)


def ratio(ours, theirs):
    """Format a ratio ours / theirs."""
    return '%.2fx' % (ours / theirs)


def robot_table(name, nq, rows, sizes):
    """Markdown table of one robot."""
    header = ['function (Pinocchio)', 'Pinocchio [us]', 'fast [us]',
              'fast/pin', 'reference [us]', 'ref/pin']
    for size in sizes:
        header += ['pin loop %d [us/state]' % size,
                   'fast batch %d [us/state]' % size, 'batch/pin']
    lines = ['### %s (%d DoF)' % (name, nq), '',
             '| ' + ' | '.join(header) + ' |',
             '|' + '---|' * len(header)]
    for function in FUNCTIONS:
        row = rows[function]
        cells = ['%s (%s)' % (function, PINOCCHIO_NAMES[function]),
                 microseconds(row['pinocchio']), microseconds(row['fast']),
                 ratio(row['fast'], row['pinocchio'])]
        if 'reference' in row:
            cells += [microseconds(row['reference']),
                      ratio(row['reference'], row['pinocchio'])]
        else:
            cells += ['-', '-']
        for size in sizes:
            if 'fast_%d' % size in row:
                cells += [microseconds(row['pinocchio_%d' % size]),
                          microseconds(row['fast_%d' % size]),
                          ratio(row['fast_%d' % size],
                                row['pinocchio_%d' % size])]
            else:
                cells += ['-', '-', '-']
        lines.append('| ' + ' | '.join(cells) + ' |')
    return lines


def goals(results, sizes, growth, cold):
    """Return (text, met) lines checking the issue's goals."""
    panda = results['Panda']
    checks = []
    for function in FUNCTIONS[:5]:
        value = panda[function]['fast'] / panda[function]['pinocchio']
        checks.append(('Panda single call %s <= 1.5x Pinocchio' % function,
                       '%.2fx' % value, value <= 1.5))
    value = panda['linearize']['fast'] / panda['linearize']['pinocchio']
    checks.append(('Panda linearize <= 2x computeABADerivatives',
                   '%.2fx' % value, value <= 2.0))
    value = panda['coriolis_matrix']['fast'] / \
        panda['coriolis_matrix']['pinocchio']
    checks.append(('Panda coriolis_matrix <= 1.5x computeCoriolisMatrix',
                   '%.2fx' % value, value <= 1.5))
    largest = max(sizes)
    for robot, rows in results.items():
        for function in FUNCTIONS:
            value = rows[function]['fast_%d' % largest] / \
                rows[function]['pinocchio_%d' % largest]
            checks.append(('%s batch %d %s <= 0.5x Pinocchio looped'
                           % (robot, largest, function), '%.2fx' % value,
                           value <= 0.5))
    warm = cold['warm cache']['import'] + cold['warm cache']['first_of_all']
    checks.append(('cold start, warm cache (import + first calls) < 2 s',
                   '%.2f s' % warm, warm < 2.0))
    links, curves = growth
    for function, (_, deviation) in curves.items():
        checks.append(('%s: 8-64 links within 10%% of a straight line'
                       % function, '%.1f%%' % (100 * deviation),
                       deviation <= 0.10))
    return checks


def report(results, nqs, sizes, growth, cold, load, elapsed, repeats):
    """Return the Markdown of results.md."""
    lines = ['# dynamics_ros vs Pinocchio: measured results', '',
             'Written by `benchmarks/compare.py` (one run; medians of '
             'repeats; ratios within the run).', '',
             '- machine: %s, %d cores, Python %s, numpy %s, numba %s, '
             'pinocchio %s' % (platform.processor() or platform.machine(),
                               os.cpu_count(), platform.python_version(),
                               np.__version__, numba_version(),
                               pin.__version__),
             '- load average before / after: %.2f / %.2f (other jobs share '
             'the cores: absolute times are noisy, ratios less so)' % load,
             '- times: CPU time of this process (time.process_time), the '
             'median of %d rounds after %d warm-up rounds, the libraries '
             'taking turns in each round' % (repeats, WARM_UP),
             '- compiled path on: %s; run took %.0f s' % (fast.ENABLED,
                                                          elapsed),
             '- fast: `dr.*` with numba; reference: the numpy '
             '`reference_*`; Pinocchio from Python on the same URDF and '
             'states; batches: ours in one call with (N, nq) arrays, '
             'Pinocchio looped from Python.', '']
    lines += ['## Goals', '', '| goal | measured | met |', '|---|---|---|']
    for text, value, met in goals(results, sizes, growth, cold):
        lines.append('| %s | %s | %s |' % (text, value,
                                           'yes' if met else '**no**'))
    lines += ['', '## Per call and per state in batches', '']
    for robot, rows in results.items():
        lines += robot_table(robot, nqs[robot], rows, sizes) + ['']
    links, curves = growth
    lines += ['## Growth with the number of links (fast path, per call)', '',
              '| function | '
              + ' | '.join('%d links [us]' % n for n in links)
              + ' | max distance to a straight line |',
              '|' + '---|' * (len(links) + 2)]
    for function, (times, deviation) in curves.items():
        lines.append('| %s | %s | %.1f%% |' % (
            function, ' | '.join(microseconds(t) for t in times),
            100 * deviation))
    lines += ['', 'mass_matrix is O(n^2) by its output (n^2 entries, and '
              'n(n+1)/2 dot products for a chain): its line fit is shown '
              'for completeness.', '',
              '## Cold start (fresh process, Panda)', '',
              '| numba cache | import [s] | first inverse_dynamics [s] | '
              'first calls of all six, one state and a batch [s] |',
              '|---|---|---|---|']
    for label, values in cold.items():
        lines.append('| %s | %.3f | %.3f | %.3f |' % (
            label, values['import'], values['first_inverse_dynamics'],
            values['first_of_all']))
    return '\n'.join(lines) + '\n'


def numba_version():
    """Return numba's version, or 'absent'."""
    try:
        import numba
        return numba.__version__
    except ImportError:
        return 'absent'


def print_robot(name, rows, sizes):
    """Print one robot's results as aligned text."""
    print('\n%s' % name)
    print('%-18s %10s %10s %8s %12s %9s' % (
        'function', 'pin [us]', 'fast [us]', 'ratio', 'ref [us]', 'ratio') +
        ''.join(' %14s %8s' % ('batch%d [us]' % s, 'ratio') for s in sizes))
    for function in FUNCTIONS:
        row = rows[function]
        text = '%-18s %10.2f %10.2f %7.2fx' % (
            function, row['pinocchio'] * 1e6, row['fast'] * 1e6,
            row['fast'] / row['pinocchio'])
        if 'reference' in row:
            text += ' %12.1f %8.1fx' % (row['reference'] * 1e6,
                                        row['reference'] / row['pinocchio'])
        else:
            text += ' %12s %9s' % ('-', '-')
        for size in sizes:
            if 'fast_%d' % size in row:
                text += ' %14.3f %7.2fx' % (
                    row['fast_%d' % size] * 1e6,
                    row['fast_%d' % size] / row['pinocchio_%d' % size])
        print(text)


def load_baseline(directory):
    """Import DIR/dynamics_ros as the package ``dynamics_ros_baseline``."""
    package = os.path.join(os.path.abspath(directory), 'dynamics_ros')
    spec = importlib.util.spec_from_file_location(
        'dynamics_ros_baseline', os.path.join(package, '__init__.py'),
        submodule_search_locations=[package])
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def single_calls(package, model, state):
    """Return {function: call} of one state through ``package``."""
    q, qd, qdd, tau = state
    gains = np.full(model.nq, 100.0), np.full(model.nq, 20.0)
    return {
        'inverse_dynamics': lambda: package.inverse_dynamics(model, q, qd,
                                                             qdd),
        'mass_matrix': lambda: package.mass_matrix(model, q),
        'forward_dynamics': lambda: package.forward_dynamics(model, q, qd,
                                                             tau),
        'gravity_torques': lambda: package.gravity_torques(model, q),
        'bias_forces': lambda: package.bias_forces(model, q, qd),
        'linearize': lambda: package.linearize(model, q, qd, tau),
        'coriolis_matrix': lambda: package.coriolis_matrix(model, q, qd),
        'inverse_dynamics_derivatives':
            lambda: package.inverse_dynamics_derivatives(model, q, qd, qdd),
        'joint_torque_regressor':
            lambda: package.joint_torque_regressor(model, q, qd, qdd),
        # The law a node answers with (gains per joint, a target state).
        'computed_torque': lambda: package.computed_torque(
            model, q, qd, q + 0.1, qd, qdd, gains[0], gains[1]),
    }


def compare_with_baseline(directory, calls, repeats):
    """Print single-call times of this package against DIR's, same rounds."""
    baseline = load_baseline(directory)
    print('single calls [us]: before (%s) and after (%s), same rounds'
          % (os.path.abspath(directory), os.path.dirname(dr.__file__)))
    ratios = []
    for name, xml in (('Panda', example_arm_xml('panda')),
                      ('UR5', example_arm_xml('ur5')),
                      ('32-link chain', serial_chain_urdf(32, seed=32))):
        after_model = dr.load_urdf(xml)
        before_model = baseline.load_urdf(xml)
        state = random_state(after_model, np.random.default_rng(0))
        functions = {}
        for label, package, model in (('before', baseline, before_model),
                                      ('after', dr, after_model)):
            for function, call in single_calls(package, model,
                                               state).items():
                call()   # packs the model, loads (or compiles) the kernel
                functions[function, label] = call
        timed = interleaved(functions, calls, repeats)
        print('\n%s (%d DoF)\n%-30s %9s %9s %8s' % (
            name, after_model.nq, 'function', 'before', 'after',
            'after/before'))
        for function in single_calls(dr, after_model, state):
            before = timed[function, 'before']
            after = timed[function, 'after']
            ratios.append(after / before)
            print('%-30s %9.3f %9.3f %8.3f' % (function, before * 1e6,
                                               after * 1e6, after / before))
    print('\nafter/before: median %.3f, min %.3f, max %.3f' % (
        statistics.median(ratios), min(ratios), max(ratios)))
    return 0


def main():
    """Run every measurement, print it and write the Markdown report."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--quick', action='store_true',
                        help='fewer calls and repeats (a smoke run)')
    parser.add_argument('--output', default=os.path.join(HERE, 'results.md'))
    parser.add_argument('--baseline', metavar='DIR',
                        help='time single calls against the package of '
                        'this other checkout instead (nothing written)')
    arguments = parser.parse_args()
    calls, repeats = (200, 3) if arguments.quick else (2000, REPEATS)
    if arguments.baseline:
        return compare_with_baseline(arguments.baseline, calls, repeats)
    sizes = (1000, 10000)
    started = time.time()
    load_before = os.getloadavg()[0]
    # Chains first, before the big batches of states fill the memory.
    chains = [Robot('chain%d' % n, serial_chain_urdf(n, seed=n), 1)
              for n in GROWTH_LINKS]
    growth = measure_growth(chains, calls, repeats)
    print('Growth with the number of links (fast path, us per call)')
    for function, (times, deviation) in growth[1].items():
        print('%-18s %s  max distance to a line %.1f%%' % (
            function, ' '.join('%9.2f' % (t * 1e6) for t in times),
            100 * deviation))
    robots = [Robot('Panda', example_arm_xml('panda'), max(sizes)),
              Robot('UR5', example_arm_xml('ur5'), max(sizes)),
              Robot('32-link chain', serial_chain_urdf(32, seed=32),
                    max(sizes))]
    for robot in robots:  # load (or compile) every kernel before timing
        for function in FUNCTIONS:
            robot.ours(function)()
            robot.ours(function, count=2)()
    results, nqs = {}, {}
    for robot in robots:
        results[robot.name] = measure_robot(robot, sizes, calls, repeats)
        nqs[robot.name] = robot.model.nq
        print_robot(robot.name, results[robot.name], sizes)
    cold = measure_cold_start(example_arm_xml('panda'))
    print('\nCold start (fresh process): %s' % json.dumps(cold, indent=1))
    load = (load_before, os.getloadavg()[0])
    text = report(results, nqs, sizes, growth, cold, load,
                  time.time() - started, repeats)
    # The other benchmarks' sections of the file stay as they were.
    text = keep_sections(text, arguments.output)
    with open(arguments.output, 'w', encoding='utf-8') as stream:
        stream.write(text)
    print('\nGoals:')
    for line, value, met in goals(results, sizes, growth, cold):
        print('  [%s] %s: %s' % ('met' if met else 'NOT MET', line, value))
    print('wrote %s' % arguments.output)
    return 0


if __name__ == '__main__':
    sys.exit(main())
