"""The Locust user's channels: they spread calls over every address of the target (round_robin), as a
distributed test against a headless Service needs; ``pick_first`` would send them all to one pod."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack

import grpc
import pytest
from prometheus_client import CollectorRegistry

from loadtest.server import ROOT, python_env
from services.config import ServerConfig
from services.server import create_server

CALLS = 200
# A separate interpreter: importing loadtest.grpc_user gevent-patches grpc for the whole process.
CLIENT = """
import sys
from grpc_health.v1 import health_pb2, health_pb2_grpc
from loadtest.grpc_user import open_channel
with open_channel(sys.argv[1], "") as channel:
    check = health_pb2_grpc.HealthStub(channel).Check
    for _ in range(int(sys.argv[2])):
        check(health_pb2.HealthCheckRequest(), timeout=10, wait_for_ready=True)
"""


def _stop(server: grpc.Server) -> None:
    server.stop(None).wait(10)


@pytest.fixture
def two_servers() -> Iterator[list[tuple[int, CollectorRegistry]]]:
    """Two rules servers on 127.0.0.1, each with its own metrics registry."""
    with ExitStack() as stack:
        servers = []
        for _ in range(2):
            registry = CollectorRegistry()
            server, port = create_server(ServerConfig(address="127.0.0.1", port=0), registry=registry)
            server.start()
            stack.callback(_stop, server)
            servers.append((port, registry))
        yield servers


def _checks(registry: CollectorRegistry) -> float:
    labels = {"grpc_type": "unary", "grpc_service": "grpc.health.v1.Health", "grpc_method": "Check"}
    return registry.get_sample_value("grpc_server_started_total", labels) or 0.0


def test_a_target_with_two_addresses_gets_calls_on_both(
    two_servers: list[tuple[int, CollectorRegistry]],
) -> None:
    target = "ipv4:" + ",".join(f"127.0.0.1:{port}" for port, _ in two_servers)
    subprocess.run(
        [sys.executable, "-c", CLIENT, target, str(CALLS)],
        cwd=ROOT,
        env=python_env(),
        check=True,
        timeout=60,
    )
    counts = [_checks(registry) for _, registry in two_servers]
    assert sum(counts) == CALLS
    assert min(counts) >= CALLS // 10, counts  # round robin: about half each once both connect
