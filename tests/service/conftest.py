"""A real rules server on an ephemeral loopback port, shared by the module's tests, and its stub.

Each test module gets its own server and its own metrics registry, so metric assertions only see the
calls their module made.
"""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from prometheus_client import CollectorRegistry
from wire import Live

from services.config import ServerConfig
from services.server import create_server
from tractor.rules.v1 import rules_service_pb2_grpc


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    """Start ``create_server`` on 127.0.0.1:0 for one test module; stop it afterwards."""
    registry = CollectorRegistry()
    server, port = create_server(ServerConfig(address="127.0.0.1", port=0, threads=4), registry=registry)
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        grpc.channel_ready_future(channel).result(timeout=10)
        yield Live(port, channel, registry, server)
    finally:
        channel.close()
        server.stop(None).wait(10)


@pytest.fixture(scope="module")
def stub(live: Live) -> rules_service_pb2_grpc.RulesServiceStub:
    """The generated client stub on the module's server."""
    return rules_service_pb2_grpc.RulesServiceStub(live.channel)
