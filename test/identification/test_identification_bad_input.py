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
Bad recordings: a reason, never a traceback or a hang.

Non-finite samples are left out and counted (a recording made mostly of
them is refused), a 1e300 effort glitch is an outlier beyond a robust
bound (left out, reported), CSV cells that are words, ragged rows, a
device or a FIFO named like a recording are refused with the reason,
through ``identify`` and through the command line (exit code 2).
"""

import os
import threading

import dynamics_ros as dr
from dynamics_ros.errors import IdentificationError
from dynamics_ros.identification.pipeline import identify
from dynamics_ros.identification.recording import read_recording, \
    Recording, write_bag, write_csv
from identification_data import moving_recording
import numpy as np
from oracle import example_arm_xml
import pytest


@pytest.fixture(scope='module')
def panda():
    """Panda without its hand."""
    return dr.load_urdf(example_arm_xml('panda'))


def spoiled(recording, rows, joint, value, what='positions'):
    """Return a copy with ``value`` at ``rows`` of one joint."""
    data = {'positions': recording.positions.copy(),
            'efforts': recording.efforts.copy()}
    data[what][rows, joint] = value
    return Recording(recording.joint_names, recording.times,
                     data['positions'], data['efforts'],
                     source='spoiled')


def test_non_finite_samples_are_left_out_and_counted(panda):
    """Non-finite positions and efforts: rows dropped, counted, fit ok."""
    clean = moving_recording(panda, seconds=8.0)
    bad = spoiled(clean, [100, 700], 2, np.nan)
    bad = spoiled(bad, [300], 4, np.inf)
    bad = spoiled(bad, [900, 901], 0, -np.inf, what='efforts')
    result = identify(panda, bad, workers=0)
    assert np.isfinite(result.parameters).all()
    assert any('left out 5 non-finite samples' in note
               for note in result.notes), result.notes
    reference = identify(panda, clean, workers=0)
    # Five samples of 1,600 bridged by interpolation: the same arm (the
    # held-out error of exact torques stays at the filter's level).
    assert result.total_rms <= 1.5 * reference.total_rms
    assert result.total_rms < 0.1 * result.nominal_total_rms or \
        result.total_rms < 0.02


def test_mostly_non_finite_recording_is_refused(panda):
    """More bad samples than good ones: refused with the count."""
    recording = moving_recording(panda, seconds=8.0)
    bad = spoiled(recording, slice(0, 1000), 1, np.nan)
    with pytest.raises(IdentificationError,
                       match='1000 of 1600 samples are non-finite'):
        identify(panda, bad, workers=0)


def test_effort_glitch_is_an_outlier(panda):
    """A 1e300 effort: left out as an outlier, reported, the fit unharmed."""
    clean = moving_recording(panda, seconds=8.0)
    bad = spoiled(clean, [555], 3, 1e300, what='efforts')
    result = identify(panda, bad, workers=0)
    assert any('1 outliers' in note for note in result.notes), result.notes
    reference = identify(panda, clean, workers=0)
    assert result.total_rms <= 1.5 * reference.total_rms


@pytest.mark.parametrize('content, reason', [
    ('time,a.position,a.effort\n0,1,2\n0.1,one,2\n',
     r"line 3: 'one' is not a number"),
    ('time,a.position,a.effort\n0,1,2\n0.1,1\n',
     r'line 3 has 2 cells, the header 3'),
    ('time,a.position\n0,1\n', r'no effort column for joints a'),
    ('x,y\n1,2\n', r'the first row must name the columns'),
    (b'\xff\xfe\x00garbage', r'is not a CSV'),
])
def test_bad_csv_is_refused_with_the_line(tmp_path, content, reason):
    """Words, ragged rows, missing columns, binary: IdentificationError."""
    path = tmp_path / 'data.csv'
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding='utf-8')
    with pytest.raises(IdentificationError, match=reason):
        read_recording(str(path))


def test_csv_nan_cells_are_numbers_left_out(panda, tmp_path):
    """A CSV 'nan' cell reads as NaN; identify leaves the sample out."""
    recording = spoiled(moving_recording(panda, seconds=8.0), [40], 5,
                        np.nan)
    path = str(tmp_path / 'data.csv')
    write_csv(recording, path)
    result = identify(panda, path, workers=0)
    assert any('left out 1 non-finite' in note for note in result.notes)


def refused_quickly(path, match):
    """``read_recording(path)`` raises at once (a thread that must end)."""
    raised = []

    def read():
        try:
            read_recording(path)
        except IdentificationError as error:
            raised.append(str(error))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(5.0)
    assert not reader.is_alive(), '%s: still reading after 5 s' % path
    assert raised and match in raised[0], raised


def test_devices_and_fifos_are_refused_without_reading(tmp_path):
    """/dev/zero as .csv or bag, a FIFO named .mcap: refused, no hang."""
    zero_csv = str(tmp_path / 'zero.csv')
    os.symlink('/dev/zero', zero_csv)
    refused_quickly(zero_csv, 'is not a regular file')
    refused_quickly('/dev/zero', 'is not a regular file')
    fifo = str(tmp_path / 'arm.mcap')
    os.mkfifo(fifo)
    refused_quickly(fifo, 'is not a regular file')
    refused_quickly(str(tmp_path / 'absent.mcap'), 'No such file')


def test_command_line_reports_bad_recordings(panda, tmp_path, capsys):
    """Every bad recording: exit code 2, the reason, no traceback."""
    from dynamics_ros.__main__ import main

    urdf = tmp_path / 'panda.urdf'
    urdf.write_text(example_arm_xml('panda'), encoding='utf-8')
    fifo = str(tmp_path / 'arm.mcap')
    os.mkfifo(fifo)
    words = tmp_path / 'words.csv'
    words.write_text('time,panda_joint1.position,panda_joint1.effort\n'
                     '0,x,1\n', encoding='utf-8')
    nan_bag = str(tmp_path / 'nan_bag')
    write_bag(spoiled(moving_recording(panda, seconds=8.0),
                      slice(0, 1200), 0, np.nan), nan_bag, storage='mcap')
    out = str(tmp_path / 'out.urdf')
    for path, reason in ((fifo, 'is not a regular file'),
                         (str(words), "'x' is not a number"),
                         (nan_bag, 'samples are non-finite')):
        code = main(['identify', path, '--urdf', str(urdf), '--out', out,
                     '--workers', '0'])
        captured = capsys.readouterr()
        assert code == 2, path
        assert reason in captured.err and 'Traceback' not in captured.err
