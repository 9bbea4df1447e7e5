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
Identification of long and many recordings: time, peak memory, Dask.

- ``--hours H`` (default 1): a generated Panda recording of H hours at
  1 kHz (an optimized-looking Fourier excitation, the arm 20 % heavier
  than its URDF, viscous and Coulomb friction, 0.3 N m effort noise),
  streamed chunk by chunk into ``identify`` in process: wall time and
  peak RSS (the recording itself would be 3.6M x 14 floats = 400 MB, its
  stacked regressor 14 GB);
- ``--bags N`` (default 10): N bags of ``--bag-seconds`` each, identified
  as one fleet in process and through a Dask LocalCluster of 2 local
  processes: the largest difference of the normal equations and of the
  parameters (must be 0, at most 1e-9);
- ``--seconds S`` (default 60): ``identify`` of one S-second 1 kHz bag,
  as the command line runs it, wall time.

- ``excite`` with its defaults on the Panda: wall and CPU time.

``python3 benchmarks/bench_identify.py --skip-hour`` (excite, the minute
and the fleet) and ``python3 benchmarks/bench_identify.py --skip-minute
--skip-bags --skip-excite`` (the hour alone, so that the peak RSS is its
own); results go to benchmarks/results.md.
"""

import argparse
import os
import resource
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))

import dynamics_ros as dr  # noqa: E402
from dynamics_ros.identification.excitation import limits, \
    trajectory_of  # noqa: E402
from dynamics_ros.identification.pipeline import identify  # noqa: E402
from dynamics_ros.identification.recording import Recording, \
    write_bag  # noqa: E402
import numpy as np  # noqa: E402

RATE = 1000.0
NOISE = 0.3
CHUNK = 20000


def panda():
    """Panda without its hand (as the tests cut it)."""
    sys.path.insert(0, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), '..', 'test'))
    from oracle import example_arm_xml
    return dr.load_urdf(example_arm_xml('panda'))


class GeneratedRecording:
    """A long recording made chunk by chunk (never held whole)."""

    def __init__(self, model, seconds, seed=0, name='generated'):
        """Fix the arm, its friction and the excitation."""
        rng = np.random.default_rng(seed)
        self.model = model
        self.true = model.copy(mass=model.mass * 1.2)
        self.viscous = rng.uniform(0.2, 0.5, model.nq)
        self.coulomb = rng.uniform(0.5, 1.0, model.nq)
        x = rng.normal(size=2 * model.nq * 4)
        self.trajectory = trajectory_of(x, model.nq, 5, 10.0, limits(model))
        self.count = int(seconds * RATE)
        self.seed = seed
        self.source = '%s %d' % (name, seed)

    def chunks(self):
        """Yield Recordings of CHUNK samples, the same at every call."""
        for start in range(0, self.count, CHUNK):
            k = np.arange(start, min(start + CHUNK, self.count))
            t = k / RATE
            q, qd, qdd = self.trajectory.evaluate(t)
            tau = dr.inverse_dynamics(self.true, q, qd, qdd) \
                + self.viscous * qd + self.coulomb * np.sign(qd)
            noise = np.random.default_rng([self.seed, start]).normal(
                0.0, NOISE, tau.shape)
            yield Recording(self.model.joint_names, t, q, tau + noise,
                            source=self.source)


def peak_rss_mb():
    """Return the peak resident memory of this process and its children."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return own / 1024.0, children / 1024.0


def hour(model, hours):
    """Identify a generated recording of ``hours`` in process."""
    recording = GeneratedRecording(model, hours * 3600.0)
    start = time.monotonic()
    last = [start]

    def progress(text):
        now = time.monotonic()
        if now - last[0] > 30.0 or 'jobs' not in text:
            last[0] = now
            print('  [%7.1f s] %s' % (now - start, text), flush=True)

    result = identify(model, recording, workers=0, progress=progress)
    elapsed = time.monotonic() - start
    own, _ = peak_rss_mb()
    print('%.2f h at %g Hz (%d samples, %d jobs): %.1f s, peak RSS %.0f MB;'
          ' consistent fit %s; held-out RMS %.4f N m (noise %.2f)' % (
              hours, RATE, recording.count, len(result.plans[0].jobs),
              elapsed, own, result.info['message'], result.total_rms,
              NOISE))
    return own


def fleet(model, bags, seconds, folder):
    """N bags: in process and on a LocalCluster of 2 processes."""
    paths = []
    for k in range(bags):
        generated = GeneratedRecording(model, seconds, seed=k + 1,
                                       name='arm')
        chunks = list(generated.chunks())
        recording = Recording(model.joint_names,
                              np.concatenate([c.times for c in chunks]),
                              np.concatenate([c.positions for c in chunks]),
                              np.concatenate([c.efforts for c in chunks]),
                              source=generated.source)
        path = os.path.join(folder, 'arm_%d' % k)
        write_bag(recording, path, storage='mcap')
        paths.append(path)
    start = time.monotonic()
    alone = identify(model, paths, workers=0, chunk_seconds=10.0)
    single = time.monotonic() - start
    start = time.monotonic()
    spread = identify(model, paths, workers=2, chunk_seconds=10.0)
    parallel = time.monotonic() - start
    equations = max(float(np.max(np.abs(getattr(spread.equations, name)
                                        - getattr(alone.equations, name))))
                    for name in ('A', 'b', 'c', 'Av', 'bv', 'cv'))
    parameters = float(np.max(np.abs(spread.parameters - alone.parameters))
                       / np.max(np.abs(alone.parameters)))
    print('%d bags of %g s at %g Hz (%d jobs): in process %.1f s, Dask '
          'LocalCluster of 2 processes %.1f s; largest difference: normal '
          'equations %.3g, parameters %.3g (relative)' % (
              bags, seconds, RATE, sum(len(p.jobs) for p in alone.plans),
              single, parallel, equations, parameters))
    return max(equations, parameters)


def sixty(model, seconds, folder):
    """One bag of ``seconds``: identify as the command line runs it."""
    generated = GeneratedRecording(model, seconds, seed=42, name='minute')
    chunks = list(generated.chunks())
    recording = Recording(model.joint_names,
                          np.concatenate([c.times for c in chunks]),
                          np.concatenate([c.positions for c in chunks]),
                          np.concatenate([c.efforts for c in chunks]))
    bag = os.path.join(folder, 'minute')
    write_bag(recording, bag, storage='mcap')
    urdf = os.path.join(folder, 'panda.urdf')
    sys.path.insert(0, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), '..', 'test'))
    from oracle import example_arm_xml
    with open(urdf, 'w', encoding='utf-8') as stream:
        stream.write(example_arm_xml('panda'))
    from dynamics_ros.__main__ import main
    start, cpu = time.monotonic(), time.process_time()
    code = main(['identify', bag, '--urdf', urdf, '--out',
                 os.path.join(folder, 'identified.urdf')])
    elapsed = time.monotonic() - start
    print('identify of a %g s %g Hz bag (command line): %.1f s wall, %.1f s '
          'CPU, exit code %d' % (seconds, RATE, elapsed,
                                 time.process_time() - cpu, code))


def excite(model):
    """``optimize_excitation`` with its defaults on the Panda: wall, CPU."""
    from dynamics_ros.identification.excitation import optimize_excitation

    wall, cpu = time.monotonic(), time.process_time()
    _, condition = optimize_excitation(model)
    print('excite defaults on Panda: %.1f s wall, %.1f s CPU, condition '
          'number %.4g' % (time.monotonic() - wall,
                           time.process_time() - cpu, condition))


def main():
    """Parse the options and run the parts asked for."""
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    parser.add_argument('--hours', type=float, default=1.0)
    parser.add_argument('--bags', type=int, default=10)
    parser.add_argument('--bag-seconds', type=float, default=20.0)
    parser.add_argument('--seconds', type=float, default=60.0)
    parser.add_argument('--skip-hour', action='store_true')
    parser.add_argument('--skip-bags', action='store_true')
    parser.add_argument('--skip-minute', action='store_true')
    parser.add_argument('--skip-excite', action='store_true')
    args = parser.parse_args()
    model = panda()
    folder = tempfile.mkdtemp(prefix='bench_identify_')
    status = 0
    try:
        if not args.skip_excite:
            excite(model)
        if not args.skip_minute:
            sixty(model, args.seconds, folder)
        if not args.skip_bags and fleet(model, args.bags, args.bag_seconds,
                                        folder) > 1e-9:
            status = 1
        if not args.skip_hour and hour(model, args.hours) > 1500.0:
            status = 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return status


if __name__ == '__main__':
    from results_file import record
    # The hour alone in its own process (its peak RSS is its own): a
    # section of its own.
    alone = '--skip-bags' in sys.argv and '--skip-minute' in sys.argv \
        and '--skip-excite' in sys.argv
    sys.exit(record('bench_identify_hour' if alone else 'bench_identify',
                    'Identification: a generated hour at 1 kHz' if alone
                    else 'Identification: a minute of data, a fleet of '
                    'bags on Dask', main))
