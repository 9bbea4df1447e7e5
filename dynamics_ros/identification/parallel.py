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
The per-job work in process or on Dask (distributed) workers.

The client reads the recordings and cuts the jobs (chunks.windows); each
job's sums (chunks.job_equations) are computed where the engine puts
them, and added **in job order** on the client, so 1, 2 or N workers, or
none, give the same numbers to the bit.  At most ``IN_FLIGHT`` jobs per
worker are outstanding: memory stays bounded however long the recording.

Engine: a ``distributed.LocalCluster`` of local processes (one thread
each: the numerical work holds the GIL in places) when there are workers,
or the scheduler at ``scheduler`` (``tcp://host:8786``) for a cluster.
"""

import os
import re
import socket
import struct

from .chunks import Equations, job_equations
from ..errors import IdentificationError
from ..optional import import_optional

# Fewer jobs than this run in process when no worker count is given: a
# local cluster takes seconds to start, more than a few jobs take.
MIN_PARALLEL_JOBS = 4
# A scheduler address: tcp://HOST:PORT or tls://HOST:PORT (Dask's
# "Communications" page; HOST a name, IPv4 or [IPv6]).
ADDRESS = re.compile(r'^(?:(tcp|tls)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)'
                     r':([0-9]{1,5})$')
SCHEDULER_TIMEOUT = 5.0   # connect and first bytes, s
# A Dask peer sends its handshake first: an 8-byte length, then that many
# bytes (a frame count and frame lengths, 8 bytes each, then msgpack).  Its
# handshake is a few hundred bytes; one announcing more is not Dask.
HANDSHAKE_LIMIT = 1024 * 1024
IN_FLIGHT = 2


def default_workers(jobs):
    """Return the workers for ``jobs`` jobs: 0 (in process) if few."""
    if jobs < MIN_PARALLEL_JOBS:
        return 0
    return max(1, min(os.cpu_count() or 1, jobs))


def _read(connection, size, timeout):
    """Read exactly ``size`` bytes (fewer if the peer closes or is slow)."""
    connection.settimeout(timeout)
    data = b''
    try:
        while len(data) < size:
            part = connection.recv(size - len(data))
            if not part:
                break
            data += part
    except socket.timeout:
        pass
    return data


def _handshake_fault(connection, timeout):
    """Return why a connected peer is not a Dask scheduler, or None."""
    head = _read(connection, 8, timeout)
    if not head:
        return ('accepted the connection but sent nothing within %g s (a '
                'Dask scheduler sends its handshake first; an HTTP server '
                'waits for a request)' % timeout)
    if head.startswith((b'HTTP', b'SSH-', b'<', b'220 ', b'+OK')) or \
            len(head) < 8:
        return 'answered %r..., not a Dask handshake' % head[:8]
    total, = struct.unpack('<Q', head)
    if not 16 <= total <= HANDSHAKE_LIMIT:
        return ('answered bytes that are not a Dask handshake (it announced '
                '%.3g bytes; a handshake is 16 bytes to %d KiB)' % (
                    total, HANDSHAKE_LIMIT // 1024))
    body = _read(connection, total, timeout)
    frames, = struct.unpack('<Q', body[:8]) if len(body) >= 8 else (0,)
    if len(body) < total or not 1 <= frames <= 64 or \
            len(body) < 8 * (frames + 1) or sum(struct.unpack(
                '<%dQ' % frames, body[8:8 * (frames + 1)])) > total:
        return 'answered bytes that are not a Dask handshake'
    return None


def check_scheduler(address, timeout=SCHEDULER_TIMEOUT):
    """
    Raise IdentificationError unless ``address`` answers as a Dask scheduler.

    The form first (tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT), then a
    TCP connection within ``timeout`` s, then (tcp) the first bytes the peer
    sends checked as a Dask handshake, sizes bounded, before Dask's own
    client reads anything: an HTTP server, an SSH server or one that
    answers junk is named, and nothing it announces is allocated.
    """
    shown = repr(str(address)[:80])
    match = ADDRESS.match(str(address))
    if match is None:
        raise IdentificationError(
            '--scheduler %s is not a Dask scheduler address (expected '
            'tcp://HOST:PORT or tls://HOST:PORT)' % shown)
    scheme, host, port = match.group(1) or 'tcp', match.group(2), \
        int(match.group(3))
    if not 1 <= port <= 65535:
        raise IdentificationError('--scheduler %s: port %d is not within '
                                  '1-65535' % (shown, port))
    try:
        connection = socket.create_connection((host.strip('[]'), port),
                                              timeout=timeout)
    except OSError as error:
        raise IdentificationError(
            '--scheduler %s: no connection within %g s (%s)' % (
                shown, timeout, error.strerror or type(error).__name__))
    try:
        fault = None if scheme == 'tls' else \
            _handshake_fault(connection, timeout)
    finally:
        connection.close()
    if fault is not None:
        raise IdentificationError('--scheduler %s %s' % (shown, fault))


def run_jobs(jobs, total, workers=None, scheduler=None, done=None,
             say=None):
    """
    Return the Equations summed over ``jobs`` (an iterator of chunks.Job).

    ``workers`` None: ``default_workers(total)``; 0: in process;
    ``scheduler``: address of a running Dask scheduler (workers ignored).
    ``done(index)`` is called after each job is added.
    """
    done = done or (lambda index: None)
    if scheduler is None:
        workers = default_workers(total) if workers is None else int(workers)
    if scheduler is None and workers == 0:
        result = None
        for index, job in enumerate(jobs):
            part = job_equations(job)
            result = part if result is None else result.add(part)
            done(index)
        return result if result is not None else Equations.zeros(0, 0)
    return run_on_dask(jobs, workers, scheduler, done, say)


def run_on_dask(jobs, workers, scheduler, done, say):
    """Run the jobs on Dask, adding results in job order."""
    import logging

    distributed = import_optional('distributed',
                                  'identification on Dask workers')
    Client, LocalCluster = distributed.Client, distributed.LocalCluster

    # Its shutdown notes ("Worker process still alive after 4.0 seconds,
    # killing") are about its own processes, not the user's data.
    for name in ('distributed', 'distributed.nanny'):
        logging.getLogger(name).setLevel(logging.ERROR)
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                               processes=True, dashboard_address=None)
        client = Client(cluster)
        if say is not None:
            say('dask: local cluster of %d worker processes' % workers)
    else:
        check_scheduler(scheduler)
        client = Client(scheduler, timeout=SCHEDULER_TIMEOUT)
        if say is not None:
            say('dask: scheduler %s' % scheduler)
    try:
        limit = IN_FLIGHT * max(len(client.scheduler_info().get(
            'workers', {})), 1)
        pending, result, next_index = {}, None, 0
        for index, job in enumerate(jobs):
            pending[index] = client.submit(job_equations, job, pure=False)
            while len(pending) >= limit or (next_index in pending
                                            and pending[next_index].done()):
                part = pending.pop(next_index).result()
                result = part if result is None else result.add(part)
                done(next_index)
                next_index += 1
        while pending:
            part = pending.pop(next_index).result()
            result = part if result is None else result.add(part)
            done(next_index)
            next_index += 1
        return result
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
