"""``make bench-metrics``: what one call's metrics cost a worker, against writing them straight to the files.

A ValidatePlay call records its start, two domain counts (preset and verdict) and its end (status code,
handling-time histogram, busy seconds, in-flight gauge). ``services.metrics.Metrics`` adds them to
per-thread lists and writes them every ``FLUSH_SECONDS`` from its flushing thread; the baseline writes
the same series of the same ``Metrics`` object straight through prometheus_client, as each call did
before (a lock and a shared-memory store per value, the bucket found by a loop in Python). Both in
multiprocess mode, as deployed; CPU time of the whole process (the flushing thread included), median of
interleaved rounds (``loadtest.stats``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

SERVICE: Final = "tractor.rules.v1.RulesService"
METHOD: Final = "ValidatePlay"
CALLS: Final = 20_000


def recorded(metrics: Any) -> Callable[[int], None]:
    """One call's metrics through ``Metrics``, as the interceptor and the servicer record them."""

    def call(i: int) -> None:
        metrics.rpc_started(SERVICE, METHOD)
        metrics.count(metrics.presets, METHOD, "default")
        metrics.count(metrics.verdicts, METHOD, "default", "legal")
        metrics.rpc_handled(SERVICE, METHOD, "OK", 0.0002 + (i % 7) * 1e-4)

    return call


def written(metrics: Any) -> Callable[[int], None]:
    """The same series written straight to prometheus_client on every call (the baseline)."""
    rpc = ("unary", SERVICE, METHOD)
    started, handled = metrics.started.labels(*rpc), metrics.handled.labels(*rpc, "OK")
    handling = metrics.handling.labels(*rpc)
    presets = metrics.presets.labels(METHOD, "default")
    verdicts = metrics.verdicts.labels(METHOD, "default", "legal")
    busy = metrics.busy.labels(str(os.getpid()))

    def call(i: int) -> None:
        seconds = 0.0002 + (i % 7) * 1e-4
        started.inc()
        metrics.in_flight.inc()
        presets.inc()
        verdicts.inc()
        metrics.in_flight.dec()
        busy.inc(seconds)
        handled.inc()
        handling.observe(seconds)

    return call


def cpu_micros(call: Callable[[int], None], calls: int) -> float:
    """Process CPU per call in µs (every thread: the flusher's share included)."""
    began = time.process_time()
    for i in range(calls):
        call(i)
    return (time.process_time() - began) / calls * 1e6


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m loadtest.bench_metrics [--rounds N] [--calls N]``."""
    parser = argparse.ArgumentParser(prog="loadtest.bench_metrics", description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=9, help="interleaved rounds")
    parser.add_argument("--calls", type=int, default=CALLS, help="calls per round")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tractor-bench-metrics-") as files:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = files  # before prometheus_client is imported
        from prometheus_client import CollectorRegistry  # noqa: PLC0415

        from loadtest.stats import median  # noqa: PLC0415
        from services.metrics import Metrics  # noqa: PLC0415

        metrics = Metrics(CollectorRegistry())
        metrics.start_flushing()
        ways = {"direct writes": written(metrics), "Metrics": recorded(metrics)}
        results: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, call in ways.items():
                results[name].append(cpu_micros(call, args.calls))
        metrics.close()
    base, ours = median(results["direct writes"]), median(results["Metrics"])
    print(f"one ValidatePlay's metrics, CPU per call, median of {args.rounds} rounds of {args.calls}:")
    print(f"  written straight to the metric files  {base:6.2f} µs")
    print(f"  Metrics (per-thread, flushed)         {ours:6.2f} µs  ({base / ours:.1f}× cheaper)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
