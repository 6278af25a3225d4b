"""Keepalive reaps dead peers: a connection whose peer stops answering pings is closed within
``keepalive_time + keepalive_timeout``; a peer that answers keeps its connection; without keepalive the
dead one would stay.

The peer is a raw TCP client that completes the HTTP/2 handshake (the connection preface, SETTINGS
both ways, acknowledged) with the ``h2`` package and then plays dead: it still reads the socket, to see
the server's frames and its close, but answers nothing, so the server's PINGs go unacknowledged, as
with a peer whose host crashed or whose NAT state was dropped.
"""

from __future__ import annotations

import socket
import struct
import time
from dataclasses import dataclass, field

import grpc
from h2.config import H2Configuration
from h2.connection import H2Connection
from h2.events import PingReceived, RemoteSettingsChanged, SettingsAcknowledged
from inproc import config, running

from services.transport import keepalive_options

KEEPALIVE = 1.0
TIMEOUT = 1.0
SLACK = 2.0
"""Beyond keepalive + timeout, how long the server may take to close (timers, a busy test machine)."""
WATCH = KEEPALIVE + TIMEOUT + SLACK + 1.0
"""How long each peer is watched."""
PING, GOAWAY = 0x6, 0x7
ACK = 0x1


@dataclass
class Watched:
    """What a peer saw after the handshake."""

    closed_after: float | None = None
    frames: list[tuple[int, int]] = field(default_factory=list)
    """(type, flags) of every frame the server sent."""

    @property
    def pings(self) -> int:
        return sum(1 for kind, flags in self.frames if kind == PING and not flags & ACK)


def _handshake(port: int) -> tuple[socket.socket, H2Connection]:
    """Connect, send the preface and SETTINGS, acknowledge the server's, wait for its acknowledgement."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    connection = H2Connection(config=H2Configuration(client_side=True))
    connection.initiate_connection()
    sock.sendall(connection.data_to_send())
    remote = acked = False
    while not (remote and acked):
        data = sock.recv(65536)
        assert data, "the server closed the connection during the handshake"
        for event in connection.receive_data(data):
            remote |= isinstance(event, RemoteSettingsChanged)
            acked |= isinstance(event, SettingsAcknowledged)
        sock.sendall(connection.data_to_send())  # our SETTINGS acknowledgement
    return sock, connection


def _watch(port: int, *, answer_pings: bool) -> Watched:
    """Handshake, then read for ``WATCH`` seconds, answering pings (through h2) or not (raw reads)."""
    sock, connection = _handshake(port)
    seen = Watched()
    buffered = b""
    start = time.monotonic()
    try:
        while (left := WATCH - (time.monotonic() - start)) > 0:
            sock.settimeout(left)
            try:
                data = sock.recv(65536)
            except TimeoutError:
                break
            except ConnectionResetError:
                data = b""
            if not data:
                seen.closed_after = time.monotonic() - start
                break
            buffered += data
            while len(buffered) >= 9:  # raw frame headers: 24-bit length, type, flags, stream
                length = struct.unpack(">I", b"\0" + buffered[:3])[0]
                if len(buffered) < 9 + length:
                    break
                seen.frames.append((buffered[3], buffered[4]))
                buffered = buffered[9 + length :]
            if answer_pings:
                events = connection.receive_data(data)
                assert not [event for event in events if not isinstance(event, PingReceived)], events
                sock.sendall(connection.data_to_send())  # h2 acknowledges each ping
    finally:
        sock.close()
    return seen


def _short_keepalive() -> dict[str, float]:
    return {"keepalive_time_seconds": KEEPALIVE, "keepalive_timeout_seconds": TIMEOUT}


def test_a_peer_that_stops_answering_is_closed_within_the_bound() -> None:
    with running(config(**_short_keepalive())) as server:
        seen = _watch(server.port, answer_pings=False)
        with grpc.insecure_channel(server.target) as channel:  # the server is fine
            grpc.channel_ready_future(channel).result(timeout=5)
    assert seen.pings >= 1, seen.frames
    assert seen.closed_after is not None, seen.frames
    assert seen.closed_after <= KEEPALIVE + TIMEOUT + SLACK, seen.closed_after


def test_a_peer_that_answers_keeps_its_connection() -> None:
    with running(config(**_short_keepalive())) as server:
        seen = _watch(server.port, answer_pings=True)
    assert seen.pings >= 2 and seen.closed_after is None, (seen.pings, seen.closed_after)
    assert (GOAWAY, 0) not in seen.frames


def test_without_keepalive_the_dead_peer_stays() -> None:
    """The control: the same dead peer on gRPC's own keepalive (two hours) outlives the watch."""
    with running(config(keepalive_time_seconds=0)) as server:
        seen = _watch(server.port, answer_pings=False)
    assert seen.closed_after is None and seen.pings == 0, seen


def test_the_defaults_reap_dead_peers_within_a_minute_and_a_half() -> None:
    """The production defaults: a ping after 60 s, 20 s to answer, idle connections included."""
    options = dict(keepalive_options(config()))
    assert options["grpc.keepalive_time_ms"] + options["grpc.keepalive_timeout_ms"] <= 90_000
    assert options["grpc.keepalive_permit_without_calls"] == 1
    assert options["grpc.http2.max_pings_without_data"] == 0
