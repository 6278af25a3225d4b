"""``max_connection_age_seconds``: the server closes old connections (GOAWAY) so that clients reconnect
and re-resolve, which is how pods added by an autoscaler get traffic from clients already connected.
Calls go on succeeding across the reconnects."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from prometheus_client import CollectorRegistry

from services.config import ServerConfig
from services.server import create_server

AGE = 0.5


def _server(**settings: Any) -> Iterator[int]:
    server, port = create_server(
        ServerConfig(address="127.0.0.1", port=0, grace_seconds=1, **settings), registry=CollectorRegistry()
    )
    server.start()
    try:
        yield port
    finally:
        server.stop(None).wait(10)


@pytest.fixture
def aged() -> Iterator[int]:
    yield from _server(max_connection_age_seconds=AGE)


@pytest.fixture
def ageless() -> Iterator[int]:
    yield from _server()


def _connections_while_calling(port: int, seconds: float) -> tuple[int, int]:
    """Call health back to back for ``seconds`` on one channel: (times the channel became READY, calls)."""
    ready = 0
    lock = threading.Lock()

    def watch(state: grpc.ChannelConnectivity) -> None:
        nonlocal ready
        if state == grpc.ChannelConnectivity.READY:
            with lock:
                ready += 1

    calls = 0
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        channel.subscribe(watch, try_to_connect=True)
        check = health_pb2_grpc.HealthStub(channel).Check
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            reply = check(health_pb2.HealthCheckRequest(), timeout=5, wait_for_ready=True)
            assert reply.status == health_pb2.HealthCheckResponse.SERVING
            calls += 1
            time.sleep(0.01)
        channel.unsubscribe(watch)
    return ready, calls


def test_old_connections_are_replaced_and_calls_go_on(aged: int) -> None:
    ready, calls = _connections_while_calling(aged, 6 * AGE)
    assert calls > 50
    assert ready >= 3  # the first connection and at least two more after GOAWAYs (age ±10 % jitter)


def test_without_an_age_the_connection_stays(ageless: int) -> None:
    ready, _ = _connections_while_calling(ageless, 6 * AGE)
    assert ready == 1


def test_a_negative_age_is_refused() -> None:
    with pytest.raises(ValueError, match="max_connection_age_seconds must be >= 0"):
        ServerConfig(max_connection_age_seconds=-1)
