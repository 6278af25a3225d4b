"""Stalled clients: HTTP/2 streams that send their headers and part of a body, then nothing (a slowloris).

Each stream is a well-formed gRPC call to a unary method: HEADERS without END_STREAM, then a DATA frame
with the 5-byte gRPC message prefix announcing more bytes than follow, and then silence. The connections
stay alive (pings and settings are answered) for as long as the attack is held, then close. Only for
servers on this machine's loopback.

    python -m loadtest.stall --target 127.0.0.1:50051 --connections 8 --streams 32 --seconds 10
"""

from __future__ import annotations

import argparse
import selectors
import socket
import struct
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import Final

import h2.config
import h2.connection
import h2.events

PATH: Final = "/tractor.rules.v1.RulesService/ValidatePlay"
ANNOUNCED: Final = 200
"""Bytes the message prefix promises."""
SENT: Final = 20
"""Bytes of it actually sent."""


@dataclass
class Stall:
    """A held attack: ``connections`` connections, ``streams`` stalled streams on each."""

    host: str
    port: int
    connections: int = 8
    streams: int = 32
    path: str = PATH
    """The method the stalled streams call (a unary-request one: ValidatePlay, health Check or Watch)."""
    opened: int = 0
    """Streams whose headers and partial body went out."""
    ended: set[tuple[int, int]] = field(default_factory=set)
    """(connection, stream) the server ended (RST_STREAM or trailers): it gave up on them."""
    closed: int = 0
    """Connections the server closed."""
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __post_init__(self) -> None:
        if self.host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError("stalled-client attacks target loopback servers only")

    def start(self) -> None:
        """Open every connection and stream, then keep them alive in a background thread."""
        selector = selectors.DefaultSelector()
        for _ in range(self.connections):
            sock = socket.create_connection((self.host, self.port), timeout=5)
            sock.setblocking(False)
            conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True))
            conn.initiate_connection()
            for _ in range(self.streams):
                stream = conn.get_next_available_stream_id()
                conn.send_headers(
                    stream,
                    [
                        (":method", "POST"),
                        (":scheme", "http"),
                        (":path", self.path),
                        (":authority", f"{self.host}:{self.port}"),
                        ("content-type", "application/grpc"),
                        ("te", "trailers"),
                    ],
                )
                conn.send_data(stream, struct.pack(">BI", 0, ANNOUNCED) + b"\x08" * SENT)
                self.opened += 1
            sock.sendall(conn.data_to_send())
            selector.register(sock, selectors.EVENT_READ, (len(selector.get_map()), conn))
        self._thread = threading.Thread(target=self._serve, args=(selector,), daemon=True)
        self._thread.start()

    def _serve(self, selector: selectors.BaseSelector) -> None:
        """Answer the server's pings and settings until stopped, so only the streams stall."""
        try:
            while not self._stop.is_set() and selector.get_map():
                for key, _ in selector.select(timeout=0.1):
                    sock, (index, conn) = key.fileobj, key.data
                    assert isinstance(sock, socket.socket)
                    try:
                        data = sock.recv(65536)
                    except (BlockingIOError, InterruptedError):
                        continue
                    except OSError:
                        data = b""
                    if not data:
                        self.closed += 1
                        selector.unregister(sock)
                        sock.close()
                        continue
                    for event in conn.receive_data(data):
                        if isinstance(event, h2.events.StreamReset | h2.events.StreamEnded):
                            self.ended.add((index, event.stream_id))
                    outgoing = conn.data_to_send()
                    if outgoing:
                        sock.sendall(outgoing)
        finally:
            for key in list(selector.get_map().values()):
                key.fileobj.close()  # type: ignore[union-attr]
            selector.close()

    @property
    def reset(self) -> int:
        """Streams the server ended."""
        return len(self.ended)

    def stop(self) -> None:
        """Close every connection."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)


def main(argv: list[str] | None = None) -> int:
    """Hold a stalled-client attack on a loopback server for ``--seconds``."""
    parser = argparse.ArgumentParser(prog="loadtest.stall", description=__doc__.splitlines()[0])
    parser.add_argument("--target", required=True, help="HOST:PORT on loopback")
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--streams", type=int, default=32, help="stalled streams per connection")
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args(argv)
    host, _, port = args.target.rpartition(":")
    attack = Stall(host, int(port), args.connections, args.streams)
    attack.start()
    print(
        f"holding {attack.opened} stalled streams over {args.connections} connections for {args.seconds:g} s"
    )
    time.sleep(args.seconds)
    attack.stop()
    print(f"the server ended {attack.reset} of them and closed {attack.closed} connections")
    return 0


if __name__ == "__main__":
    sys.exit(main())
