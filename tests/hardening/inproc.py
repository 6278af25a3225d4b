"""In-process servers built by ``create_server`` with a given configuration, plus a test-only slow method.

``test.Slow/Sleep`` sits behind the very interceptors the rules service uses (they apply server-wide):
it sleeps the seconds its request names, calling ``check_deadline`` every 10 ms as a long rules
computation would between steps (or not at all), so deadlines, the work ceiling, the concurrency limit and
cancellation can be exercised with calls that take as long as a test needs.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import grpc
from prometheus_client import CollectorRegistry

from services.config import ServerConfig
from services.interceptor import Context, check_deadline
from services.server import create_server

SLOW = "/test.Slow/Sleep"


def _sleep(request: bytes, context: Context) -> bytes:
    """Sleep ``request`` seconds, checking every 10 ms; ``"0.5!"`` sleeps without a single check, like a
    computation that cannot be interrupted."""
    text = request.decode() or "0.3"
    if text.endswith("!"):
        time.sleep(float(text[:-1]))
        return b"done"
    end = time.monotonic() + float(text)
    while time.monotonic() < end:
        time.sleep(0.01)
        check_deadline(context)
    return b"done"


@dataclass(frozen=True)
class Running:
    """A started in-process server."""

    port: int
    registry: CollectorRegistry
    server: Any

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def handled(self, method: str, code: str, service: str = "tractor.rules.v1.RulesService") -> float:
        labels = {"grpc_type": "unary", "grpc_service": service, "grpc_method": method, "grpc_code": code}
        return self.registry.get_sample_value("grpc_server_handled_total", labels) or 0.0

    def in_flight(self) -> float:
        return self.registry.get_sample_value("tractor_rules_requests_in_flight") or 0.0

    def verdicts(self, method: str) -> float:
        """Every verdict counted for ``method``, whatever its preset and reason."""
        return sum(
            sample.value
            for family in self.registry.collect()
            if family.name == "tractor_rules_verdicts"
            for sample in family.samples
            if sample.name == "tractor_rules_verdicts_total" and sample.labels["grpc_method"] == method
        )


@contextmanager
def running(config: ServerConfig) -> Iterator[Running]:
    """``create_server(config)`` with ``test.Slow`` added, started on 127.0.0.1:0; stopped afterwards."""
    registry = CollectorRegistry()
    server, port = create_server(config, registry=registry)
    server.add_generic_rpc_handlers(
        [
            grpc.method_handlers_generic_handler(
                "test.Slow", {"Sleep": grpc.unary_unary_rpc_method_handler(_sleep)}
            )
        ]
    )
    server.start()
    try:
        yield Running(port, registry, server)
    finally:
        server.stop(None).wait(10)


def config(**settings: Any) -> ServerConfig:
    """A loopback configuration on an ephemeral port."""
    return ServerConfig(address="127.0.0.1", port=0, **settings)
