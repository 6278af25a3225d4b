"""Servers on loopback for the client tests: the rules server in process (on a port of one's choosing),
a bare gRPC server with scripted RulesService handlers, a port that refuses connections, and
``Scripted``, a ValidatePlay that answers by the request's seat and counts every attempt.

No conftest here: a ``conftest`` module in this folder would take the name of ``tests/conftest.py``.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Final

import grpc
from prometheus_client import CollectorRegistry

from services.config import ServerConfig
from services.server import create_server
from tractor.rules.v1 import rules_service_pb2 as pb

SERVICE: Final = "tractor.rules.v1.RulesService"
HOLD: Final = 120.0
"""The longest a held call is held (its caller gives up long before)."""


@contextmanager
def rules_server(port: int = 0) -> Iterator[int]:
    """The rules server on 127.0.0.1 (in process); its port."""
    config = ServerConfig(address="127.0.0.1", port=port, threads=4)
    server, bound = create_server(config, registry=CollectorRegistry())
    server.start()
    try:
        yield bound
    finally:
        server.stop(None).wait(10)


@contextmanager
def generic_server(handlers: dict[str, grpc.RpcMethodHandler]) -> Iterator[int]:
    """A gRPC server on 127.0.0.1:0 with ``handlers`` for RulesService methods; its port."""
    server = grpc.server(ThreadPoolExecutor(max_workers=16))
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE, handlers)])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port
    finally:
        server.stop(None).wait(10)


@contextmanager
def refusing_port() -> Iterator[tuple[socket.socket, int]]:
    """A loopback port bound but not listening (connections are refused, nobody else can take it)."""
    sock = socket.socket()
    try:
        sock.bind(("127.0.0.1", 0))
        yield sock, sock.getsockname()[1]
    finally:
        sock.close()


class Scripted:
    """ValidatePlay answered by the request's seat, every attempt counted (and its
    ``grpc-previous-rpc-attempts``)."""

    FAILURES: Final = {
        1: (grpc.StatusCode.UNAVAILABLE, 2),  # fails twice, then answers
        2: (grpc.StatusCode.UNAVAILABLE, 99),
        3: (grpc.StatusCode.CANCELLED, 1),
        4: (grpc.StatusCode.INVALID_ARGUMENT, 99),
        5: (grpc.StatusCode.RESOURCE_EXHAUSTED, 99),
        6: (grpc.StatusCode.INTERNAL, 99),
    }

    def __init__(self) -> None:
        self.attempts: dict[int, list[str | None]] = {}
        self.holding = threading.Event()
        self.lock = threading.Lock()

    def validate_play(
        self, request: pb.ValidatePlayRequest, context: grpc.ServicerContext
    ) -> pb.ValidatePlayResponse:
        seat = request.seat
        if seat == 9:  # is a seat-8 call held now?
            return pb.ValidatePlayResponse(legal=self.holding.is_set())
        with self.lock:
            previous = dict(context.invocation_metadata()).get("grpc-previous-rpc-attempts")
            self.attempts.setdefault(seat, []).append(previous)
            count = len(self.attempts[seat])
        if seat in self.FAILURES:
            code, times = self.FAILURES[seat]
            if count <= times:
                context.abort(code, f"scripted {code.name}")
        if seat in (7, 8) or (seat == 10 and count == 1):  # held until the caller (or gRPC) gives up
            ended = threading.Event()
            context.add_callback(ended.set)
            if seat == 8:
                self.holding.set()
            ended.wait(HOLD)
            context.abort(grpc.StatusCode.INTERNAL, "held")
        return pb.ValidatePlayResponse(legal=True)


def scripted_server(scripted: Scripted) -> contextlib.AbstractContextManager[int]:
    """A server whose ValidatePlay is ``scripted``; its port."""
    method = grpc.unary_unary_rpc_method_handler(
        scripted.validate_play,
        request_deserializer=pb.ValidatePlayRequest.FromString,
        response_serializer=pb.ValidatePlayResponse.SerializeToString,
    )
    return generic_server({"ValidatePlay": method})
