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

from .chunks import Equations, job_equations
from ..optional import import_optional

# Fewer jobs than this run in process when no worker count is given: a
# local cluster takes seconds to start, more than a few jobs take.
MIN_PARALLEL_JOBS = 4
IN_FLIGHT = 2


def default_workers(jobs):
    """Return the workers for ``jobs`` jobs: 0 (in process) if few."""
    if jobs < MIN_PARALLEL_JOBS:
        return 0
    return max(1, min(os.cpu_count() or 1, jobs))


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
        client = Client(scheduler)
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
