"""``make soak``: realistic load on a multi-process server for a while; errors, p99 drift, memory growth.

Tables replay self-played hands (:func:`loadtest.corpus.self_play`) the way game backends call the
service: one call at a time per table, in play order, every answer checked against the engine's own.
The offered rate is paced (default 400 calls/s over 16 tables: well below saturation on a small
machine, so that latency measures the service, not a queue). Every interval the driver samples each
worker's resident memory (``VmRSS`` in ``/proc/<pid>/status``) and the interval's latency percentiles.

After the warm-up, memory growth per worker is the median of its last three samples against the
median of its first three; p99 drift is the median p99 of the last third of the intervals against the
first third's. The run fails (exit 1) on any error (a failed call or a wrong answer), a worker that
died or was replaced, or a worker growing by ``--max-growth`` (5%) or more.

    python -m loadtest.hardening.soak --seconds 600          # make soak (SOAK_SECONDS=600)
    python -m loadtest.hardening.soak --seconds 20 --warmup 5  # the CI version
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import grpc

from loadtest import corpus
from loadtest.contract import METHODS, RESPONSES, method_path
from loadtest.replay import Call, VerdictMismatchError, check
from loadtest.server import ServerProcess, rss_kib
from loadtest.stats import median, percentiles

DEFAULT_SECONDS: Final = 600.0
DEFAULT_RATE: Final = 400.0
DEFAULT_TABLES: Final = 16
HANDS: Final = 120
CALL_TIMEOUT: Final = 10.0
MAX_GROWTH: Final = 0.05
CHANNEL_OPTIONS: Final = [("grpc.use_local_subchannel_pool", 1)]


@dataclass
class Interval:
    """One sampling interval: calls, errors, latency percentiles, each worker's RSS at its end."""

    end: float
    calls: int
    errors: int
    p50: float
    p99: float
    rss: dict[int, int]


@dataclass
class SoakReport:
    """The soak's result."""

    seconds: float
    warmup: float
    max_growth: float
    intervals: list[Interval] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    calls: int = 0
    workers_before: list[int] = field(default_factory=list)
    workers_after: list[int] = field(default_factory=list)

    def _measured(self) -> list[Interval]:
        return [interval for interval in self.intervals if interval.end > self.warmup]

    def growth(self) -> dict[int, tuple[int, int, float]]:
        """Per worker: (RSS KiB after warm-up, RSS KiB at the end, relative growth)."""
        measured = self._measured()
        result = {}
        for pid in self.workers_before:
            series = [interval.rss[pid] for interval in measured if pid in interval.rss]
            if len(series) < 2:
                continue
            span = min(3, max(1, len(series) // 3))
            start, end = median(series[:span]), median(series[-span:])
            result[pid] = (int(start), int(end), (end - start) / start)
        return result

    def p99_drift(self) -> tuple[float, float, float]:
        """(p99 at the start, p99 at the end, end / start), medians over the first and last thirds."""
        measured = [interval for interval in self._measured() if interval.calls]
        if len(measured) < 2:
            return 0.0, 0.0, 1.0
        third = max(1, len(measured) // 3)
        first = median(interval.p99 for interval in measured[:third])
        last = median(interval.p99 for interval in measured[-third:])
        return first, last, (last / first if first else 1.0)

    @property
    def replaced(self) -> list[int]:
        return sorted(set(self.workers_before) - set(self.workers_after))

    @property
    def passed(self) -> bool:
        growth = self.growth()
        return (
            self.calls > 0
            and not self.errors
            and not self.replaced
            and bool(growth)
            and all(relative < self.max_growth for _, _, relative in growth.values())
        )

    def summary(self) -> str:
        first, last, drift = self.p99_drift()
        rate = self.calls / self.seconds if self.seconds else 0.0
        lines = [
            f"soak: {self.seconds:.0f} s ({self.warmup:.0f} s warm-up), {self.calls} calls ({rate:.0f}/s), "
            f"errors {sum(self.errors.values())}",
            f"  p99 {first * 1000:.2f} ms after warm-up -> {last * 1000:.2f} ms at the end "
            f"(drift x{drift:.2f})",
        ]
        for pid, (start, end, relative) in sorted(self.growth().items()):
            lines.append(
                f"  worker {pid}: RSS {start / 1024:.1f} MiB after warm-up -> {end / 1024:.1f} MiB "
                f"({relative * 100:+.2f}%, limit {self.max_growth * 100:.0f}%)"
            )
        lines.append(f"  workers before {self.workers_before}, after {self.workers_after}")
        for error, count in self.errors.most_common(5):
            lines.append(f"  ERROR x{count}: {error}")
        lines.append(f"RESULT: {'PASS' if self.passed else 'FAIL'}")
        return "\n".join(lines)


class _Pacer:
    """Hands out send times at a fixed rate shared by every table (no bursts after a stall)."""

    def __init__(self, rate: float) -> None:
        self._interval = 1.0 / rate
        self._next = time.monotonic()

    async def wait(self) -> None:
        now = time.monotonic()
        self._next = max(self._next + self._interval, now)
        delay = self._next - now
        if delay > 0:
            await asyncio.sleep(delay)


class _Soak:
    def __init__(self, tables: list[tuple[Call, ...]], report: SoakReport, rate: float) -> None:
        self.tables = tables
        self.report = report
        self.pacer = _Pacer(rate)
        self.latencies: list[float] = []
        self.interval_errors = 0
        self.next_table = 0

    async def table(self, channel: grpc.aio.Channel, stop: float) -> None:
        callables = {method: channel.unary_unary(method_path(method)) for method in METHODS}
        while time.monotonic() < stop:
            script = self.tables[self.next_table % len(self.tables)]
            self.next_table += 1
            for call in script:
                if time.monotonic() >= stop:
                    return
                await self.pacer.wait()
                started = time.perf_counter()
                problem = ""
                try:
                    reply = await callables[call.method](call.request, timeout=CALL_TIMEOUT)
                    check(call.method, RESPONSES[call.method].FromString(reply), call.expect)
                except grpc.aio.AioRpcError as error:
                    problem = f"{call.method}: {error.code().name}: {(error.details() or '')[:120]}"
                except VerdictMismatchError as error:
                    problem = f"{call.method}: {error}"
                self.latencies.append(time.perf_counter() - started)
                self.report.calls += 1
                if problem:
                    self.report.errors[problem] += 1
                    self.interval_errors += 1

    def sample(self, elapsed: float, workers: Sequence[int]) -> Interval:
        latencies, self.latencies = sorted(self.latencies), []
        errors, self.interval_errors = self.interval_errors, 0
        rss = {pid: kib for pid in workers if (kib := rss_kib(pid)) is not None}
        p50, p99 = percentiles(latencies, 0.5, 0.99, empty=0.0)
        return Interval(elapsed, len(latencies), errors, p50, p99, rss)


async def _drive(
    target: str,
    workers: Sequence[int],
    report: SoakReport,
    *,
    tables: int,
    rate: float,
    interval: float,
    channels: int,
    quiet: bool,
) -> None:
    prepared = [script.calls for script in corpus.self_play(HANDS, first_seed=500)]
    opened = [grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS) for _ in range(channels)]
    try:
        for channel in opened:
            await asyncio.wait_for(channel.channel_ready(), 30)
        soak = _Soak(prepared, report, rate)
        started = time.monotonic()
        stop = started + report.seconds
        runners = [asyncio.ensure_future(soak.table(opened[i % channels], stop)) for i in range(tables)]
        while (now := time.monotonic()) < stop:
            await asyncio.sleep(min(interval, stop - now))
            sample = soak.sample(time.monotonic() - started, workers)
            report.intervals.append(sample)
            if not quiet:
                memory = " ".join(f"{pid}:{kib / 1024:.1f}MiB" for pid, kib in sorted(sample.rss.items()))
                print(
                    f"[{sample.end:6.0f}s] calls {sample.calls:6d} errors {sample.errors} "
                    f"p50 {sample.p50 * 1000:6.2f} ms p99 {sample.p99 * 1000:6.2f} ms  RSS {memory}",
                    flush=True,
                )
        await asyncio.gather(*runners)
    finally:
        for channel in opened:
            await channel.close()


def soak(
    *,
    seconds: float = DEFAULT_SECONDS,
    warmup: float | None = None,
    rate: float = DEFAULT_RATE,
    tables: int = DEFAULT_TABLES,
    workers: int = 2,
    interval: float | None = None,
    channels: int = 8,
    max_growth: float = MAX_GROWTH,
    quiet: bool = False,
) -> SoakReport:
    """Start ``tractor-rules serve``, load it for ``seconds``, stop it; the report."""
    warm = warmup if warmup is not None else min(60.0, seconds / 4)
    step = interval if interval is not None else max(1.0, min(10.0, seconds / 20))
    report = SoakReport(seconds=seconds, warmup=warm, max_growth=max_growth)
    with ServerProcess("--workers", str(workers)) as server:
        report.workers_before = list(server.serving["workers"])
        options: dict[str, Any] = {
            "tables": tables,
            "rate": rate,
            "interval": step,
            "channels": channels,
            "quiet": quiet,
        }
        asyncio.run(_drive(server.target, report.workers_before, report, **options))
        report.workers_after = server.workers()
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest.hardening.soak", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="how long to load the server")
    parser.add_argument("--warmup", type=float, help="seconds before memory and latency are measured")
    parser.add_argument("--rate", type=float, default=DEFAULT_RATE, help="calls per second, all tables")
    parser.add_argument("--tables", type=int, default=DEFAULT_TABLES, help="tables playing at once")
    parser.add_argument("--workers", type=int, default=2, help="server worker processes")
    parser.add_argument("--interval", type=float, help="seconds between samples")
    parser.add_argument("--max-growth", type=float, default=MAX_GROWTH, help="memory growth that fails")
    args = parser.parse_args(argv)
    report = soak(
        seconds=args.seconds,
        warmup=args.warmup,
        rate=args.rate,
        tables=args.tables,
        workers=args.workers,
        interval=args.interval,
        max_growth=args.max_growth,
    )
    print(report.summary(), flush=True)
    return 0 if report.passed else 1


if __name__ == "__main__":
    sys.exit(main())
