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
Recordings of any length and several of them: chunks, Dask, fleets.

The normal equations summed job by job equal those of one job over the
whole recording to 1e-9 (the windows overlap by the filters' reach);
Dask with 1 and 2 local worker processes gives the in-process numbers to
the bit (results are added in job order); several recordings sum their
equations; a bag read in chunks is the bag read whole.
"""

import dynamics_ros as dr
from dynamics_ros.identification.pipeline import identify
from dynamics_ros.identification.recording import bag_chunks, read_bag, \
    write_bag
from identification_data import moving_recording, noisy
import numpy as np
from oracle import example_arm_xml
import pytest


@pytest.fixture(scope='module')
def panda():
    """Panda without its hand."""
    return dr.load_urdf(example_arm_xml('panda'))


@pytest.fixture(scope='module')
def recording(panda):
    """Twelve seconds at 200 Hz of a moving Panda with noisy efforts."""
    return noisy(moving_recording(panda, seconds=12.0), 1)


def relative(a, b):
    """Largest |a - b| relative to the largest |b|."""
    return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))


def test_chunked_equals_whole(panda, recording):
    """Jobs of 1.5 s (8 of them) sum to the whole run's equations: 1e-9."""
    whole = identify(panda, recording, chunk_seconds=1000.0, workers=0)
    chunked = identify(panda, recording, chunk_seconds=1.5, workers=0)
    assert len(whole.plans[0].jobs) == 1
    assert len(chunked.plans[0].jobs) >= 6
    for name in ('A', 'b', 'c', 'Av', 'bv', 'cv'):
        error = relative(getattr(chunked.equations, name),
                         getattr(whole.equations, name))
        assert error <= 1e-9, (name, error)
    for name in ('n', 'nv', 'slow', 'reversal', 'near', 'moving'):
        assert np.array_equal(getattr(chunked.equations, name),
                              getattr(whole.equations, name)), name
    assert relative(chunked.base_least_squares,
                    whole.base_least_squares) <= 1e-9
    # Not a vacuous equality: the jobs' rows were left out near reversals.
    assert whole.equations.near.sum() > 0


def test_second_pass_reads_the_source_again(panda, recording,
                                            monkeypatch):
    """Past the cache limit the recording is read twice: same equations."""
    from dynamics_ros.identification import chunks

    cached = identify(panda, recording, chunk_seconds=3.0, workers=0)
    assert cached.plans[0].survey.cache is not None
    monkeypatch.setattr(chunks, 'CACHE_SAMPLES', 100)
    read_twice = identify(panda, recording, chunk_seconds=3.0, workers=0)
    assert read_twice.plans[0].survey.cache is None
    assert np.array_equal(read_twice.equations.A, cached.equations.A)
    assert np.array_equal(read_twice.equations.n, cached.equations.n)


def test_dask_workers_equal_in_process(panda, recording):
    """1 and 2 local Dask processes: the in-process numbers, to the bit."""
    reference = identify(panda, recording, chunk_seconds=3.0, workers=0)
    for workers in (1, 2):
        result = identify(panda, recording, chunk_seconds=3.0,
                          workers=workers)
        assert np.array_equal(result.equations.A, reference.equations.A)
        assert np.array_equal(result.equations.b, reference.equations.b)
        assert relative(result.parameters, reference.parameters) <= 1e-9


def test_several_recordings_fit_one_model(panda, recording):
    """Two recordings: their equations add; the fit uses both."""
    other = noisy(moving_recording(panda, seconds=10.0, seed=5), 2)
    first = identify(panda, recording, workers=0)
    second = identify(panda, other, workers=0)
    both = identify(panda, [recording, other], workers=0)
    assert len(both.plans) == 2
    assert relative(both.equations.A, first.equations.A
                    + second.equations.A) <= 1e-12
    assert np.array_equal(both.equations.n, first.equations.n
                          + second.equations.n)
    # More data, smaller standard deviations of the base parameters.
    assert np.all(both.base_std <= first.base_std * 1.01)


def test_bag_read_in_chunks_is_the_bag(panda, recording, tmp_path):
    """bag_chunks of 300 samples concatenate to read_bag's samples."""
    path = str(tmp_path / 'arm')
    write_bag(recording, path, storage='mcap')
    parts = list(bag_chunks(path, panda.joint_names, size=300))
    assert len(parts) == int(np.ceil(len(recording) / 300))
    whole = read_bag(path, panda.joint_names)
    assert np.array_equal(np.concatenate([p.positions for p in parts]),
                          whole.positions)
    assert np.array_equal(np.concatenate([p.times for p in parts]),
                          whole.times)
    from_bag = identify(panda, path, workers=0)
    from_memory = identify(panda, whole, workers=0)
    assert np.array_equal(from_bag.equations.A, from_memory.equations.A)


def test_command_line_takes_several_bags(panda, recording, tmp_path,
                                         capsys):
    """Two bags: one model; ``--each``: one per bag, each reported."""
    from dynamics_ros.__main__ import main

    urdf = tmp_path / 'panda.urdf'
    urdf.write_text(example_arm_xml('panda'), encoding='utf-8')
    bags = []
    for k, part in enumerate((recording, noisy(moving_recording(
            panda, seconds=10.0, seed=5), 2))):
        bags.append(str(tmp_path / ('arm_%d' % k)))
        write_bag(part, bags[-1], storage='mcap')
    out = str(tmp_path / 'fleet.urdf')
    assert main(['identify'] + bags + ['--urdf', str(urdf), '--out', out,
                                       '--workers', '0']) == 0
    printed = capsys.readouterr().out
    assert 'converged (optimal' in printed
    assert dr.load_urdf(out).joint_names == panda.joint_names
    assert main(['identify'] + bags + ['--urdf', str(urdf), '--out', out,
                                       '--workers', '0', '--each']) == 0
    printed = capsys.readouterr().out
    for k in range(2):
        path = str(tmp_path / ('fleet_arm_%d.urdf' % k))
        assert dr.load_urdf(path).joint_names == panda.joint_names
        assert path + ': held-out torque RMS' in printed
