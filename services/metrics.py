"""Every Prometheus series of the service, built on an injectable registry.

Two families:

* the standard gRPC server series (the names of go-grpc-prometheus / py-grpc-prometheus), recorded by
  the interceptor for every unary call: ``grpc_server_started_total``, ``grpc_server_handled_total``
  (with ``grpc_code``) and ``grpc_server_handling_seconds`` with sub-millisecond buckets, because a
  rules call takes tens of microseconds to a few milliseconds and the default buckets start at 5 ms;
* domain series with bounded labels (enum values and method names, never cards or seats), recorded by
  the servicer.

Workers write to ``PROMETHEUS_MULTIPROC_DIR`` (prometheus_client multiprocess mode); the parent serves
``/metrics`` from a ``MultiProcessCollector`` that sums them on every scrape. Tests pass a fresh
``CollectorRegistry`` and read values with ``get_sample_value``.
"""

from __future__ import annotations

import collections
import contextlib
import os
import platform
import threading
from collections.abc import Iterator
from importlib import metadata
from typing import Final, TypeVar
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.multiprocess import MultiProcessCollector

LATENCY_BUCKETS: Final = (
    50e-6,
    100e-6,
    250e-6,
    500e-6,
    1e-3,
    2.5e-3,
    5e-3,
    10e-3,
    25e-3,
    50e-3,
    100e-3,
    250e-3,
    1.0,
    2.5,
)
"""Handling-time buckets in seconds, from 50 µs (explicit: the client default starts at 5 ms)."""

_RPC_LABELS: Final = ("grpc_type", "grpc_service", "grpc_method")

M = TypeVar("M", Counter, Gauge, Histogram)


def package_version(name: str) -> str:
    """An installed distribution's version, or "unknown" (a source checkout that was never installed)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


class Metrics:
    """The service's metric objects. Construct once per process with the registry to register on."""

    def __init__(self, registry: CollectorRegistry) -> None:
        self.started = Counter(
            "grpc_server_started_total", "RPCs started on the server.", _RPC_LABELS, registry=registry
        )
        self.handled = Counter(
            "grpc_server_handled_total",
            "RPCs completed on the server, by status code.",
            (*_RPC_LABELS, "grpc_code"),
            registry=registry,
        )
        self.handling = Histogram(
            "grpc_server_handling_seconds",
            "Time from receiving a request to sending its status, in seconds.",
            _RPC_LABELS,
            buckets=LATENCY_BUCKETS,
            registry=registry,
        )
        self.verdicts = Counter(
            "tractor_rules_verdicts_total",
            "Rule verdicts returned, by RPC, ruleset preset and reason (legal, accepted, or the violation).",
            ("grpc_method", "preset", "reason"),
            registry=registry,
        )
        self.throws = Counter(
            "tractor_rules_throws_total", "Throws judged, by outcome.", ("outcome",), registry=registry
        )
        self.tricks = Counter(
            "tractor_rules_tricks_total",
            "Tricks resolved, by how the winning play won (lead, beat, ruff, over_ruff).",
            ("won_by",),
            registry=registry,
        )
        self.settlements = Counter(
            "tractor_rules_settlements_total",
            "Hands settled, by result band (winning side and levels gained).",
            ("band",),
            registry=registry,
        )
        self.penalties = Counter(
            "tractor_rules_penalties_total",
            "Forced-quit penalties priced, by phase.",
            ("phase",),
            registry=registry,
        )
        self.presets = Counter(
            "tractor_rules_requests_by_preset_total",
            "Requests by ruleset preset.",
            ("grpc_method", "preset"),
            registry=registry,
        )
        self.in_flight = Gauge(
            "tractor_rules_requests_in_flight",
            "Unary calls inside the handlers now (summed over live workers): 0 when idle, whatever the "
            "callers did (cancelled, disconnected, timed out).",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.awaiting_body = Gauge(
            "tractor_rules_requests_awaiting_body",
            "Calls whose headers arrived but whose request body has not (summed over live workers): a few "
            "at most in normal traffic; many means stalled clients. They hold no thread, and each is "
            "cancelled once it has waited the work ceiling (max_request_seconds).",
            registry=registry,
            multiprocess_mode="livesum",
        )
        self.body_first = Gauge(
            "tractor_rules_body_first_deferral",
            "1 when every live worker reads a call's request body before it spends a thread on it (stalled "
            "clients hold no thread); 0 when a worker cannot (grpcio other than the version its private "
            "API was checked on, or --body-first false): then gRPC's maximum_concurrent_rpcs limits calls.",
            registry=registry,
            multiprocess_mode="livemin",
        )
        self.busy = Counter(
            "tractor_rules_worker_busy_seconds",
            "Seconds this worker process has spent in unary handlers, summed over its concurrent calls, one "
            "series per worker (label pid). Its rate is the worker's mean calls in flight: near 1 the worker "
            "is saturated. A worker that died keeps its last value (its rate falls to 0).",
            ("pid",),
            registry=registry,
        )
        self._busy = self.busy.labels(str(os.getpid()))
        build = Gauge(
            "tractor_rules_build_info",
            "Always 1; the labels say what is running (engine: the compiled or the pure-Python rules_core).",
            ("version", "python", "grpcio", "engine"),
            registry=registry,
            multiprocess_mode="livemax",  # one per live worker, reported once
        )
        from rules_core import engine  # noqa: PLC0415  # in the worker, not the supervisor (services.server)

        build.labels(
            package_version("tractor-rules"),
            platform.python_version(),
            package_version("grpcio"),
            engine.running(),
        ).set(1)
        self._children: dict[tuple[object, tuple[str, ...]], object] = {}
        self._local = threading.local()

    def child(self, metric: M, *labels: str) -> M:
        """``metric.labels(*labels)``, memoised: every label here has a bounded set of values, and
        ``labels()`` (validation, a lock) costs more than the increment it is called for."""
        key = (metric, labels)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = metric.labels(*labels)
        return found  # type: ignore[return-value]  # the key's metric made it

    def count(self, counter: Counter, *labels: str) -> None:
        """Add one to ``counter``'s child with these label values (at once, or at the end of a batch)."""
        pending: collections.Counter[tuple[Counter, tuple[str, ...]]] | None = getattr(
            self._local, "pending", None
        )
        if pending is not None:
            pending[(counter, labels)] += 1
            return
        self.child(counter, *labels).inc()

    @contextlib.contextmanager
    def batched(self) -> Iterator[None]:
        """Within it, this thread's counts are summed and written once each when it ends: a batch of 100
        verdicts writes a few counter values, not 200 (the metric files are shared memory, each write a
        lock and a store)."""
        pending: collections.Counter[tuple[Counter, tuple[str, ...]]] = collections.Counter()
        self._local.pending = pending
        try:
            yield
        finally:
            self._local.pending = None
            for (counter, labels), times in pending.items():
                self.child(counter, *labels).inc(times)

    def rpc_started(self, service: str, method: str) -> None:
        """Count a unary call as started (and in flight)."""
        self.child(self.started, "unary", service, method).inc()
        self.in_flight.inc()

    def rpc_handled(self, service: str, method: str, code: str, seconds: float) -> None:
        """Count a unary call as finished with ``code`` and record how long it took."""
        self.in_flight.dec()
        self._busy.inc(seconds)
        self.child(self.handled, "unary", service, method, code).inc()
        self.child(self.handling, "unary", service, method).observe(seconds)


def worker_restarts() -> Counter:
    """Parent only: workers replaced after dying (multiprocess mode: summed into ``/metrics``)."""
    return Counter(
        "tractor_rules_worker_restarts_total",
        "Worker processes that died and were replaced by the supervisor.",
        registry=None,
    )


def settlement_band(winner: str, gained: int) -> str:
    """A bounded label for a settlement: the winning side and its level gain, 3 and more together.

    >>> settlement_band("dealer_team", 3), settlement_band("attackers", 0), settlement_band("attackers", 7)
    ('dealer_team+3', 'attackers+0', 'attackers+3')
    """
    return f"{winner}+{min(gained, 3)}"


def serve_multiprocess(address: str, port: int) -> tuple[WSGIServer, int]:
    """Parent only: serve ``/metrics`` summed over every worker's files; returns the server and its port.

    Call after ``PROMETHEUS_MULTIPROC_DIR`` is set; each scrape reads the directory afresh.
    """
    registry = CollectorRegistry()
    MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    httpd, _thread = start_http_server(port, addr=address, registry=registry)
    return httpd, int(httpd.server_port)
