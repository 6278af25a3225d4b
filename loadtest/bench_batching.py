"""``make bench-batching``: ValidatePlay from many threads, unary calls against ``PlayBatcher``.

A backend asks about one play at a time from many threads. This starts the real service
(``tractor-rules serve --workers 1``) and drives it with ``--threads`` blocking callers for ``--seconds``
per round, each caller cycling through its share of the corpus's ValidatePlay requests:

* **unary**: plain ``RulesServiceStub.ValidatePlay`` calls;
* **batched**: the same calls through one ``PlayBatcher`` (``--max-items``, ``--max-wait``), which sends
  them as ValidatePlays calls.

Rounds alternate the two modes so that they share the machine's noise. Every answer is checked against
what unary ValidatePlay answered in the warm-up. It prints, per mode, calls/s, p50/p99 latency as the
caller sees it, the server's CPU per verdict (supervisor and worker, from /proc) and the ValidatePlays
calls the server counted (so the mean batch size), then the ratios. Where there are two CPUs or more the
server runs on the first and the client on the others.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Final

import grpc

from loadtest.bench import split_cpus
from loadtest.corpus import table_scripts
from loadtest.server import ServerProcess, load_flags, settled
from loadtest.stats import percentile
from tractor.rules.client import DEFAULT_MAX_WAIT, MAX_BATCH_ITEMS, PlayBatcher
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

DEFAULT_SECONDS: Final = 5.0
DEFAULT_ROUNDS: Final = 2
DEFAULT_THREADS: Final = 32
DEFAULT_HANDS: Final = 8
CALL_TIMEOUT: Final = 10.0
MODES: Final = ("unary", "batched")


@dataclass
class Totals:
    """One mode's measurements, summed over its rounds."""

    calls: int = 0
    errors: int = 0
    wrong: int = 0
    seconds: float = 0.0
    server_cpu: float = 0.0
    batch_calls: float = 0.0
    latencies_ms: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.calls / self.seconds if self.seconds else 0.0

    def percentile(self, q: int) -> float:
        """The ``q``-th latency percentile in ms (``loadtest.stats``: nearest rank; 0 without calls)."""
        return percentile(self.latencies_ms, q / 100, empty=0.0)

    @property
    def cpu_per_verdict_us(self) -> float:
        return self.server_cpu / self.calls * 1e6 if self.calls else 0.0


def corpus_requests(hands: int) -> list[pb.ValidatePlayRequest]:
    """The ValidatePlay requests of ``hands`` hands of each table kind, in play order."""
    scripts = [*table_scripts("000", hands), *table_scripts("003", hands)]
    return [
        pb.ValidatePlayRequest.FromString(call.request)
        for script in scripts
        for call in script.calls
        if call.method == "ValidatePlay"
    ]


def batch_calls(metrics_url: str) -> float:
    """ValidatePlays calls the service has handled so far (its Prometheus endpoint), any code."""
    with urllib.request.urlopen(metrics_url, timeout=10) as reply:
        text = reply.read().decode()
    pattern = r'^grpc_server_handled_total\{[^}]*grpc_method="ValidatePlays"[^}]*\} (\S+)$'
    return sum(float(value) for value in re.findall(pattern, text, re.MULTILINE))


def run_round(
    call: Callable[[pb.ValidatePlayRequest], pb.ValidatePlayResponse],
    requests: Sequence[pb.ValidatePlayRequest],
    expected: Sequence[pb.ValidatePlayResponse],
    *,
    threads: int,
    seconds: float,
    totals: Totals,
) -> None:
    """``threads`` callers, each cycling through its share of the requests until ``seconds`` are up."""
    start = threading.Barrier(threads + 1)
    stop_at = [0.0]
    lock = threading.Lock()

    def caller(first: int) -> None:
        latencies: list[float] = []
        errors = wrong = 0
        index = first
        start.wait()
        while (begun := time.perf_counter()) < stop_at[0]:
            try:
                answer = call(requests[index])
            except grpc.RpcError:
                errors += 1
            else:
                latencies.append((time.perf_counter() - begun) * 1000)
                wrong += answer != expected[index]
            index = (index + threads) % len(requests)
        with lock:
            totals.latencies_ms += latencies
            totals.calls += len(latencies)
            totals.errors += errors
            totals.wrong += wrong

    workers = [threading.Thread(target=caller, args=(first,)) for first in range(threads)]
    for worker in workers:
        worker.start()
    began = time.perf_counter()
    stop_at[0] = began + seconds
    start.wait()
    for worker in workers:
        worker.join()
    totals.seconds += time.perf_counter() - began


def table(results: dict[str, Totals]) -> str:
    lines = [
        f"{'mode':<8} {'calls':>7} {'calls/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} {'wrong':>5} "
        f"{'server CPU/verdict':>18} {'ValidatePlays':>13} {'items/batch':>11}"
    ]
    for mode, total in results.items():
        per_batch = f"{total.calls / total.batch_calls:.1f}" if total.batch_calls else "-"
        lines.append(
            f"{mode:<8} {total.calls:>7} {total.rate:>8.0f} {total.percentile(50):>7.2f} "
            f"{total.percentile(99):>7.2f} {total.errors:>6} {total.wrong:>5} "
            f"{total.cpu_per_verdict_us:>15.1f} µs {total.batch_calls:>13.0f} {per_batch:>11}"
        )
    return "\n".join(lines)


def bench(args: argparse.Namespace) -> int:
    requests = corpus_requests(args.hands)
    server_cpus, client_cpus = split_cpus() if args.pin else (None, None)
    print(
        f"{len(requests)} ValidatePlay requests ({args.hands} hands of [000] and [003]); "
        f"{args.threads} caller threads; {args.rounds} rounds of {args.seconds:g} s per mode; "
        f"batcher max_items={args.max_items} max_wait={args.max_wait * 1000:g} ms"
    )
    print(f"server on CPUs {sorted(server_cpus or [])}, client on {sorted(client_cpus or [])}")
    with (
        TemporaryDirectory() as tmp,
        ServerProcess(*load_flags(), log_path=Path(tmp) / "service.log", cpus=server_cpus) as service,
    ):
        if client_cpus:
            os.sched_setaffinity(0, client_cpus)
        with (
            grpc.insecure_channel(service.target) as channel,
            PlayBatcher(channel, max_items=args.max_items, max_wait=args.max_wait) as batcher,
        ):
            stub = rules_service_pb2_grpc.RulesServiceStub(channel)
            expected = [stub.ValidatePlay(request, timeout=CALL_TIMEOUT) for request in requests]
            calls: dict[str, Callable[[pb.ValidatePlayRequest], pb.ValidatePlayResponse]] = {
                "unary": lambda request: stub.ValidatePlay(request, timeout=CALL_TIMEOUT),
                "batched": lambda request: batcher.validate_play(request, timeout=CALL_TIMEOUT),
            }
            warm = min(args.seconds, 1.0)
            for call in calls.values():  # warm both paths up (and the batcher's thread)
                run_round(call, requests, expected, threads=args.threads, seconds=warm, totals=Totals())
            results = {mode: Totals() for mode in MODES}
            for _ in range(args.rounds):
                for mode in MODES:
                    batches = settled(lambda: batch_calls(service.metrics_url))
                    cpu = service.cpu_seconds()
                    run_round(
                        calls[mode],
                        requests,
                        expected,
                        threads=args.threads,
                        seconds=args.seconds,
                        totals=results[mode],
                    )
                    results[mode].server_cpu += service.cpu_seconds() - cpu
                    results[mode].batch_calls += settled(lambda: batch_calls(service.metrics_url)) - batches
    print()
    print(table(results))
    unary, batched = results["unary"], results["batched"]
    print()
    if batched.cpu_per_verdict_us:
        print(
            "server CPU per verdict, unary / batched: "
            f"{unary.cpu_per_verdict_us / batched.cpu_per_verdict_us:.2f}x"
        )
    if unary.rate:
        print(f"calls/s, batched / unary: {batched.rate / unary.rate:.2f}x")
    if unary.percentile(50):
        print(
            f"latency, batched - unary: p50 {batched.percentile(50) - unary.percentile(50):+.2f} ms, "
            f"p99 {batched.percentile(99) - unary.percentile(99):+.2f} ms"
        )
    failed = sum(total.errors + total.wrong for total in results.values())
    if failed:
        print(f"FAILED: {failed} failed calls or wrong verdicts", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m loadtest.bench_batching [--seconds S] [--rounds N] [--threads T] ...``."""
    parser = argparse.ArgumentParser(prog="loadtest.bench_batching", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="length of each round")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="rounds per mode")
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS, help="caller threads")
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, help="corpus hands per table kind")
    parser.add_argument("--max-items", type=int, default=MAX_BATCH_ITEMS, help="batcher window, items")
    parser.add_argument("--max-wait", type=float, default=DEFAULT_MAX_WAIT, help="batcher window, seconds")
    parser.add_argument("--no-pin", dest="pin", action="store_false", help="do not split the CPUs")
    args = parser.parse_args(argv)
    if args.seconds <= 0 or args.seconds > 600 or args.rounds < 1 or args.threads < 1:
        parser.error("--seconds must be in (0, 600], --rounds and --threads at least 1")
    return bench(args)


if __name__ == "__main__":
    sys.exit(main())
