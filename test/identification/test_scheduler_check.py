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
``identify --scheduler`` is checked before Dask's client reads anything.

Peers on the loopback interface: one that accepts and says nothing (an HTTP
server waits for a request), one that sends an SSH banner, one that sends
8 bytes announcing 3.07 EiB (Dask's client allocated that), and a real
Dask scheduler (the check must let it through).
"""

import socket
import struct
import threading

from dynamics_ros.errors import IdentificationError
from dynamics_ros.identification.parallel import check_scheduler
import pytest


class Peer:
    """A TCP listener on 127.0.0.1 that sends ``greeting`` to each client."""

    def __init__(self, greeting):
        """Listen on a free port; serve in a daemon thread."""
        self.server = socket.socket()
        self.server.bind(('127.0.0.1', 0))
        self.server.listen(4)
        self.port = self.server.getsockname()[1]
        self.greeting = greeting
        self.open = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        """Accept; send the greeting; keep the connection open."""
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.open.append(connection)
            if self.greeting:
                connection.sendall(self.greeting)

    def close(self):
        """Stop listening and close every connection."""
        self.server.close()
        for connection in self.open:
            connection.close()


JUNK = struct.pack('<Q', 0xFFFFFFFFFFFFFFFF) * 4   # 1.8e19 bytes announced


@pytest.mark.parametrize('greeting, reason', [
    (b'', 'sent nothing within 0.5 s'),
    (b'SSH-2.0-OpenSSH_9.6\r\n', "answered b'SSH-2.0-'"),
    (JUNK, 'not a Dask handshake (it announced 1.84e+19 bytes'),
    (struct.pack('<Q', 64) + b'\x07' * 64, 'not a Dask handshake'),
])
def test_peers_that_are_not_dask_are_named(greeting, reason):
    peer = Peer(greeting)
    try:
        with pytest.raises(IdentificationError) as caught:
            check_scheduler('tcp://127.0.0.1:%d' % peer.port, timeout=0.5)
    finally:
        peer.close()
    assert reason in str(caught.value)
    assert str(caught.value).count('\n') == 0


def test_nothing_listening_is_said():
    free = socket.socket()
    free.bind(('127.0.0.1', 0))
    port = free.getsockname()[1]
    free.close()
    with pytest.raises(IdentificationError, match='no connection within'):
        check_scheduler('127.0.0.1:%d' % port, timeout=0.5)


def test_a_real_dask_scheduler_passes():
    distributed = pytest.importorskip('distributed')
    cluster = distributed.LocalCluster(
        n_workers=0, processes=False, protocol='tcp://', host='127.0.0.1',
        dashboard_address=None)
    try:
        assert cluster.scheduler_address.startswith('tcp://127.0.0.1:')
        check_scheduler(cluster.scheduler_address)
    finally:
        cluster.close()
