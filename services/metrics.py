"""Every Prometheus series of the service, built on an injectable registry.

Two families:

* the standard gRPC server series (the names of go-grpc-prometheus / py-grpc-prometheus), recorded by
  the interceptor for every unary call: ``grpc_server_started_total``, ``grpc_server_handled_total``
  (with ``grpc_code``) and ``grpc_server_handling_seconds`` with sub-millisecond buckets, because a
  rules call takes tens of microseconds to a few milliseconds and the default buckets start at 5 ms;
* domain series with bounded labels (enum values and method names, never cards or seats), recorded by
  the servicer.

A call's counts cost a few list additions in its own thread (no lock, no shared memory); a daemon
thread per worker writes what was counted to the metric objects every ``FLUSH_SECONDS``, and once more
when the worker stops gracefully. Workers write to ``PROMETHEUS_MULTIPROC_DIR`` (prometheus_client
multiprocess mode); the parent serves ``/metrics`` from a ``ChurnProofCollector`` that sums them on every
scrape, whatever the workers are doing meanwhile (starting, dying, being recycled). Tests pass a fresh
``CollectorRegistry`` and read values with ``get_sample_value``: reading the registry flushes first.
"""

from __future__ import annotations

import bisect
import glob
import itertools
import json
import os
import platform
import struct
import threading
from collections.abc import Callable, Iterable
from importlib import metadata
from typing import Final
from wsgiref.simple_server import WSGIServer

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server
from prometheus_client.metrics_core import Metric
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.multiprocess import MultiProcessCollector

from services import logs

_log = logs.get("metrics")

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

FLUSH_SECONDS: Final = 0.25
"""How often a worker writes what it counted to its metric files: a scrape lags the calls by this much."""


def package_version(name: str) -> str:
    """An installed distribution's version, or "unknown" (a source checkout that was never installed)."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "unknown"


class Metrics:
    """The service's metric objects. Construct once per process with the registry to register on; a
    worker calls ``start_flushing`` once it serves and ``close`` once it has stopped."""

    def __init__(self, registry: CollectorRegistry) -> None:
        first = _FlushFirst()
        registry.register(first)
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
            "Unary calls inside the handlers at the last flush (summed over live workers): 0 when idle, "
            "whatever the callers did (cancelled, disconnected, timed out). A sample: calls shorter than "
            "the interpreter's thread switch (5 ms) seldom show; rate(tractor_rules_worker_busy_seconds) "
            "is the mean in flight.",
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
        self._tally = _Tally()
        self._rpcs: dict[tuple[str, str], _Rpc] = {}
        self._slots: dict[tuple[Counter, tuple[str, ...]], int] = {}
        self._flusher: _Flusher | None = None
        first.flush = self.flush

    def count(self, counter: Counter, *labels: str) -> None:
        """Add one to ``counter``'s child with these label values (written at the next flush)."""
        slot = self._slots.get((counter, labels))
        if slot is None:
            slot = self._counter_slot(counter, labels)
        self._tally.values()[slot] += 1

    def _counter_slot(self, counter: Counter, labels: tuple[str, ...]) -> int:
        """The slot of a counter child, made on its first count (every label here has a bounded set of
        values, so the slots are bounded too)."""
        with self._tally.lock:
            slot = self._slots.get((counter, labels))
            if slot is None:
                slot = self._slots[(counter, labels)] = self._tally.slot(counter.labels(*labels).inc)
            return slot

    def _rpc(self, service: str, method: str) -> _Rpc:
        """The slots of one method's call series, made on its first call."""
        found = self._rpcs.get((service, method))
        if found is None:
            with self._tally.lock:
                found = self._rpcs.get((service, method))
                if found is None:
                    found = self._rpcs[(service, method)] = _Rpc(self, service, method)
        return found

    def rpc_started(self, service: str, method: str) -> None:
        """Count a unary call as started (and in flight)."""
        slot = self._rpc(service, method).started
        self._tally.values()[slot] += 1

    def rpc_handled(self, service: str, method: str, code: str, seconds: float) -> None:
        """Count a unary call as finished with ``code`` and record how long it took."""
        rpc = self._rpc(service, method)
        handled = rpc.handled.get(code)
        if handled is None:
            handled = rpc.handled_slot(code)
        values = self._tally.values()
        values[handled] += 1
        values[rpc.buckets + bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1  # le: seconds <= bound
        values[rpc.seconds] += seconds

    def flush(self) -> None:
        """Write what was counted since the last flush to the metric objects (shared memory in
        multiprocess mode); also sets the in-flight gauge and this worker's busy seconds."""
        with self._tally.flushing:
            deltas = self._tally.deltas()
            with self._tally.lock:
                rpcs = list(self._rpcs.values())
            totals = self._tally.totals
            started = sum(totals[rpc.started] for rpc in rpcs if rpc.started < len(totals))
            handled = sum(totals[slot] for rpc in rpcs for slot in rpc.handled.values() if slot < len(totals))
            busy = sum(deltas.get(rpc.seconds, 0.0) for rpc in rpcs)
            if busy > 0:
                self._busy.inc(busy)
            self.in_flight.set(max(started - handled, 0))

    def start_flushing(self, seconds: float = FLUSH_SECONDS) -> None:
        """Flush every ``seconds`` from a daemon thread, until ``close``."""
        if self._flusher is None:
            self._flusher = _Flusher(self.flush, seconds)

    def close(self) -> None:
        """Stop the flushing thread and flush once more, so that nothing counted is lost when a worker
        stops gracefully (a worker that is killed loses what it counted since its last flush)."""
        if self._flusher is not None:
            self._flusher.stop()
            self._flusher = None
        self.flush()


class _Tally:
    """Per-thread running totals, one float per slot, and what the last flush wrote of each.

    A call adds to its own thread's list (an index and an add: no lock, no shared memory); only the
    flush reads every thread's list, each entry written by one thread alone, so no count is lost. A
    slot stands for one prometheus value (a counter child, a histogram bucket or sum) and carries the
    function that adds to it.
    """

    def __init__(self) -> None:
        self.lock = threading.Lock()
        """Held to make slots and to register a thread's list."""
        self.flushing = threading.Lock()
        """Held by a flush: the flusher thread and a registry collect may flush at once."""
        self._adds: list[Callable[[float], None]] = []
        self._lists: list[tuple[threading.Thread, list[float]]] = []
        self._ended: list[float] = []
        """The summed lists of threads that have ended (they add nothing more)."""
        self._local = threading.local()
        self.totals: list[float] = []
        """Every slot's total as of the last flush (what has been written)."""

    def slot(self, add: Callable[[float], None]) -> int:
        """A new slot whose deltas go to ``add``. The caller holds ``lock``."""
        self._adds.append(add)
        return len(self._adds) - 1

    def values(self) -> list[float]:
        """This thread's list, long enough for every slot made so far (make a slot, then call this)."""
        try:
            values: list[float] = self._local.values
        except AttributeError:
            values = self._local.values = []
            with self.lock:
                self._lists.append((threading.current_thread(), values))
        missing = len(self._adds) - len(values)
        if missing > 0:
            values.extend([0.0] * missing)
        return values

    def deltas(self) -> dict[int, float]:
        """Add each slot's growth since the last flush to its value; the growth of each slot that grew.
        The caller holds ``flushing``."""
        with self.lock:
            ended = [entry for entry in self._lists if not entry[0].is_alive()]
            for entry in ended:  # fold ended threads in once: their lists are final
                self._lists.remove(entry)
                self._ended = _add_lists(self._ended, entry[1])
            totals = list(self._ended)
            for _, values in self._lists:
                totals = _add_lists(totals, list(values))
            adds = list(self._adds)  # after the lists: no list is longer
        totals.extend([0.0] * (len(adds) - len(totals)))
        self.totals.extend([0.0] * (len(totals) - len(self.totals)))
        grown: dict[int, float] = {}
        for slot, (now, then) in enumerate(zip(totals, self.totals, strict=True)):
            if now > then:  # float sums may wobble by an ulp when a thread is folded in: never < 0
                grown[slot] = now - then
                adds[slot](now - then)
        self.totals = totals
        return grown


def _add_lists(first: list[float], second: list[float]) -> list[float]:
    """Element-wise sum of two lists of unequal length."""
    return [a + b for a, b in itertools.zip_longest(first, second, fillvalue=0.0)]


class _Rpc:
    """One method's slots: started, handled by code, the histogram buckets (+Inf last) and its sum."""

    def __init__(self, metrics: Metrics, service: str, method: str) -> None:
        """Make the slots; the caller holds the tally's lock."""
        tally = metrics._tally  # its own part
        labels = ("unary", service, method)
        self._tally = tally
        self._handled = metrics.handled
        self._labels = labels
        self.started = tally.slot(metrics.started.labels(*labels).inc)
        histogram = metrics.handling.labels(*labels)
        buckets = histogram._buckets  # a count of observations per bucket; see flush
        if len(buckets) != len(LATENCY_BUCKETS) + 1:  # pragma: no cover - a prometheus_client change
            raise RuntimeError("unexpected histogram layout in prometheus_client")
        self.buckets = tally.slot(buckets[0].inc)
        for bucket in buckets[1:]:
            tally.slot(bucket.inc)
        self.seconds = tally.slot(histogram._sum.inc)
        self.handled: dict[str, int] = {}

    def handled_slot(self, code: str) -> int:
        """The slot of calls ended with ``code``, made on its first such call."""
        with self._tally.lock:
            slot = self.handled.get(code)
            if slot is None:
                slot = self.handled[code] = self._tally.slot(self._handled.labels(*self._labels, code).inc)
            return slot


class _Flusher:
    """A daemon thread calling ``flush`` every ``seconds`` until stopped."""

    def __init__(self, flush: Callable[[], None], seconds: float) -> None:
        self._flush = flush
        self._seconds = seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="metrics-flush", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._seconds):
            try:
                self._flush()
            except Exception:  # a flush that failed must not end the flushing: log it, go on
                _log.exception("metrics flush failed")

    def stop(self) -> None:
        """Stop the thread and wait for its last flush to end."""
        self._stop.set()
        self._thread.join(5)


class _FlushFirst:
    """Registered first on a Metrics' registry: a collect of that registry flushes before the metrics
    are read, so a registry read in process (tests, ``bench_servicer``) sees every count."""

    def __init__(self) -> None:
        self.flush: Callable[[], None] = lambda: None

    def describe(self) -> list[Metric]:
        """No series of its own."""
        return []

    def collect(self) -> list[Metric]:
        """Flush; no series of its own."""
        self.flush()
        return []


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
    ChurnProofCollector(registry)
    httpd, _thread = start_http_server(port, addr=address, registry=registry)
    return httpd, int(httpd.server_port)


_Entry = tuple[str, str, tuple[tuple[str, str], ...], str, float, float]
"""One value of a metric file: metric name, sample name, sorted labels, help, value, timestamp."""


class ChurnProofCollector(MultiProcessCollector):
    """prometheus_client's multiprocess collector, made safe against workers coming and going mid-scrape.

    The stock one raises (and the scrape answers HTTP 500) when a file it globbed cannot be read whole:
    a worker starting at that moment has created its file but not yet sized it (``struct.error`` on an
    empty file), or its last entry is not complete yet; only a live gauge's file vanishing (the parent's
    ``mark_process_dead``) is tolerated. Here each file that cannot be read counts with what it held at
    its last good read, and a counter or histogram file that vanishes keeps its last values too, so a
    sum over workers never goes backwards; a new file unreadable on its first read counts nothing yet.
    A live gauge's file that vanishes is dropped, as upstream does.

    Upstream knows these: an empty file fails every scrape, for good once a worker is killed in that
    window (prometheus/client_python#1199, #604; unfixed in 0.26.0); a file deleted between the glob
    and the read (#425, fixed for live gauges only). Dead workers' files are not compacted into one:
    without locking, and with pids reused, that is not safe (#204).
    """

    def __init__(self, registry: CollectorRegistry | None, path: str | None = None) -> None:
        super().__init__(registry, path)  # type: ignore[no-untyped-call]  # untyped upstream
        self._last: dict[str, list[_Entry]] = {}
        self._keys: dict[str, tuple[str, str, tuple[tuple[str, str], ...], str]] = {}
        """Parsed keys: bounded, as every label has a bounded set of values."""
        self._lock = threading.Lock()  # the HTTP server may run two scrapes at once

    def collect(self) -> Iterable[Metric]:
        """Every series, summed over the workers' files as prometheus_client does."""
        with self._lock:
            found = set(glob.glob(os.path.join(self._path, "*.db")))
            for gone in set(self._last) - found:
                if _live_gauge(gone):
                    del self._last[gone]
            metrics: dict[str, Metric] = {}
            for path in sorted(found | set(self._last)):
                entries = self._read(path)
                typ = os.path.basename(path).split("_")[0]
                for metric_name, name, sorted_labels, help_text, value, timestamp in entries:
                    labels = sorted_labels
                    metric = metrics.get(metric_name)
                    if metric is None:
                        metric = metrics[metric_name] = Metric(metric_name, help_text, typ)
                    # labels as upstream's reader leaves them for its merge: sorted (name, value) pairs
                    if typ == "gauge":
                        parts = os.path.basename(path).split("_")
                        metric._multiprocess_mode = parts[1]  # type: ignore[attr-defined]  # as upstream
                        labels = (*labels, ("pid", parts[2][:-3]))
                    metric.add_sample(name, labels, value, timestamp)  # type: ignore[arg-type]
            return self._accumulate_metrics(metrics, True)  # type: ignore[no-untyped-call,no-any-return]

    def _read(self, path: str) -> list[_Entry]:
        """The file's entries, or its last good ones when it cannot be read whole now."""
        try:
            entries = [
                (*(self._keys.get(key) or self._parse(key)), value, timestamp)
                for key, value, timestamp, _pos in MmapedDict.read_all_values_from_file(path)  # type: ignore[no-untyped-call]
            ]
        except FileNotFoundError:
            return [] if _live_gauge(path) else self._last.get(path, [])
        except (OSError, ValueError, RuntimeError, struct.error, UnicodeDecodeError, TypeError):
            return self._last.get(path, [])
        self._last[path] = entries
        return entries

    def _parse(self, key: str) -> tuple[str, str, tuple[tuple[str, str], ...], str]:
        """A metric file's key: (metric name, sample name, sorted labels, help); ValueError if malformed."""
        metric_name, name, labels, help_text = json.loads(key)
        parsed = (
            str(metric_name),
            str(name),
            tuple(sorted((str(k), str(v)) for k, v in labels.items())),
            str(help_text),
        )
        self._keys[key] = parsed
        return parsed


def _live_gauge(path: str) -> bool:
    """Whether ``path`` holds a live gauge (``gauge_live*_<pid>.db``), which goes with its worker."""
    return os.path.basename(path).startswith("gauge_live")
