"""``make capacity``: the capacity curve, latency against achieved verdicts per second, and its knee.

A capacity tester wants the knee of the curve, not a table. This sweeps the offered load, open loop,
from ``FRACTIONS[0]`` to past saturation, for three series on the same one-worker servers as
``make bench`` (the realistic mix's ValidatePlay calls):

* **unary**: ``tractor-rules serve --workers 1``, one ValidatePlay per call;
* **batched**: the same server, ``ValidatePlays`` of ``--batch`` items per call;
* **echo**: the bare gRPC stack answering each ValidatePlay with the service's reply bytes.

Each series' peak is first measured closed loop; each step then offers a share of that peak for
``--seconds``, every call timed from its scheduled start (no coordinated omission, as in the bench).
It writes ``capacity.csv`` (one row per step) and ``capacity.png`` (p50 and p99 against achieved
verdicts per second, log scale, the 10 ms line) to ``--out``, and reads off each series' knee: the
highest achieved load whose p99 is under ``KNEE_P99_MS``. Every run is bounded: ``len(FRACTIONS) + 1``
steps of ``--seconds`` per series, calls time out after ``CALL_TIMEOUT``.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import os
import sys
import tempfile
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from loadtest import ladder
from loadtest.bench import (
    Client,
    Result,
    closed_loop,
    measure,
    open_loop,
    realistic_mix,
    save_replies,
    split_cpus,
    warm_up,
)
from loadtest.replay import Call
from loadtest.server import ROOT, ServerProcess, load_flags

FRACTIONS: Final = (0.1, 0.25, 0.4, 0.55, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25)
"""Offered load as shares of each series' closed-loop peak: from light load to past saturation."""
KNEE_P99_MS: Final = 10.0
DEFAULT_SECONDS: Final = 4.0
DEFAULT_BATCH: Final = 16
"""Items per ValidatePlays call: 16 keeps one batch's own time well under the 10 ms line."""
DEFAULT_OUT: Final = ROOT / "loadtest" / "results"
COLUMNS: Final = (
    "series",
    "offered_share",
    "offered_verdicts_per_s",
    "achieved_verdicts_per_s",
    "p50_ms",
    "p99_ms",
    "errors",
    "server_cpu",
)


@dataclass(frozen=True, slots=True)
class Step:
    """One open-loop step of one series."""

    series: str
    share: float
    offered: float
    """Verdicts per second offered."""
    result: Result
    items: int
    """Verdicts per call."""

    @property
    def achieved(self) -> float:
        """Verdicts answered per second."""
        return self.result.rps * self.items

    def row(self) -> tuple[object, ...]:
        """The CSV row, in ``COLUMNS`` order."""
        r = self.result
        return (
            self.series,
            self.share,
            round(self.offered, 1),
            round(self.achieved, 1),
            round(r.percentile(0.5), 3),
            round(r.percentile(0.99), 3),
            r.errors,
            round(r.server_cpu, 3),
        )


def knee(steps: Sequence[Step]) -> Step | None:
    """The step with the highest achieved load whose p99 is under ``KNEE_P99_MS`` (None if none is).

    >>> fast = Result("s", "open", 100, 0, 1.0, [1.0] * 100, 0, 0)
    >>> slow = Result("s", "open", 200, 0, 1.0, [50.0] * 200, 0, 0)
    >>> knee([Step("s", 0.5, 100, fast, 1), Step("s", 1.0, 200, slow, 1)]).achieved
    100.0
    """
    under = [step for step in steps if step.result.errors == 0 and step.result.percentile(0.99) < KNEE_P99_MS]
    return max(under, key=lambda step: step.achieved, default=None)


@dataclass(frozen=True, slots=True)
class Series:
    """One curve: a server, a client connected to it, the calls, and the verdicts per call."""

    name: str
    server: Any
    client: Client
    calls: Sequence[Call]
    items: int = 1


async def sweep(series: Series, seconds: float, shares: Sequence[float] = FRACTIONS) -> list[Step]:
    """The series' closed-loop peak, then one open-loop step per share of it."""
    name, server, client, calls = series.name, series.server, series.client, series.calls
    peak = await measure(name, "closed", server, closed_loop, client, calls, concurrency=32, seconds=seconds)
    steps = []
    for share in shares:
        rate = peak.rps * share
        result = await measure(
            name, f"open {share:.0%}", server, open_loop, client, calls, rate=rate, seconds=seconds
        )
        steps.append(Step(name, share, rate * series.items, result, series.items))
        print(f"  {name:<9} {share:5.0%}  {describe(steps[-1])}", flush=True)
    return steps


def describe(step: Step) -> str:
    """A step's achieved load and latency, for the progress and the summary."""
    r = step.result
    return (
        f"{step.achieved:8.0f} verdicts/s, p50 {r.percentile(0.5):7.2f} ms, "
        f"p99 {r.percentile(0.99):7.2f} ms, errors {r.errors}"
    )


def write_csv(steps: Sequence[Step], path: Path) -> None:
    """One row per step."""
    with path.open("w", newline="", encoding="utf-8") as out:
        writer = csv.writer(out)
        writer.writerow(COLUMNS)
        writer.writerows(step.row() for step in steps)


def plot(steps: Sequence[Step], path: Path) -> None:
    """p50 (dashed) and p99 (solid) against achieved verdicts per second, one colour per series."""
    import matplotlib  # noqa: PLC0415  # the loadtest group's; only this command needs it

    matplotlib.use("Agg")
    from matplotlib import pyplot  # noqa: PLC0415

    figure, axes = pyplot.subplots(figsize=(8, 5), dpi=110)
    for index, series in enumerate(dict.fromkeys(step.series for step in steps)):
        mine = sorted((s for s in steps if s.series == series), key=lambda s: s.share)
        colour = f"C{index}"
        x = [s.achieved for s in mine]
        axes.plot(x, [s.result.percentile(0.99) for s in mine], "o-", color=colour, label=f"{series} p99")
        axes.plot(x, [s.result.percentile(0.5) for s in mine], "--", color=colour, label=f"{series} p50")
        found = knee(mine)
        if found is not None:
            axes.annotate(
                f"knee {found.achieved:.0f}/s",
                (found.achieved, found.result.percentile(0.99)),
                textcoords="offset points",
                xytext=(-30, 12),
                color=colour,
                fontsize=8,
            )
    axes.axhline(KNEE_P99_MS, color="grey", linewidth=0.8)
    axes.set_yscale("log")
    axes.set_xlabel("achieved verdicts per second (one worker)")
    axes.set_ylabel("latency, ms (from the scheduled start)")
    axes.set_title("tractor-rules capacity: ValidatePlay, open loop")
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)


async def capacity(args: argparse.Namespace) -> int:
    """Start the service and the echo, warm up and check, sweep each series, write and summarise."""
    plays = [call for call in realistic_mix() if call.method == "ValidatePlay"][: args.plays]
    server_cpus, client_cpus = split_cpus() if args.pin else (None, None)
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="tractor-capacity-") as tmp, ExitStack() as stack:
        service = stack.enter_context(ServerProcess(*load_flags(threads=args.threads), cpus=server_cpus))
        echo = ladder.Rung("echo", args.threads, server_cpus, Path(tmp) / "echo")
        stack.callback(echo.stop)
        if client_cpus:
            os.sched_setaffinity(0, client_cpus)
        unary = Client(service.target, args.channels)
        replies, mismatches = await warm_up(unary, plays, 32)
        print(f"warm-up: {len(plays)} ValidatePlay calls checked, {mismatches} wrong verdicts")
        echo.load(save_replies(plays, replies, Path(tmp) / "replies.jsonl"))
        echoing = Client(echo.target, args.channels)
        steps: list[Step] = []
        try:
            for series in (
                Series("unary", service, unary, plays),
                Series(f"batch {args.batch}", service, unary, ladder.batches(plays, args.batch), args.batch),
                Series("echo", echo, echoing, plays),
            ):
                steps += await sweep(series, args.seconds, args.shares)
        finally:
            await unary.close()
            await echoing.close()
    write_csv(steps, args.out / "capacity.csv")
    plot(steps, args.out / "capacity.png")
    print(f"\nwrote {args.out / 'capacity.csv'} and {args.out / 'capacity.png'}")
    print(f"the knee (the highest achieved load with p99 under {KNEE_P99_MS:.0f} ms), one worker:")
    for name in dict.fromkeys(step.series for step in steps):
        found = knee([step for step in steps if step.series == name])
        where = "none" if found is None else f"{describe(found)} (offered {found.share:.0%} of the peak)"
        print(f"  {name:<9} {where}")
    return 1 if mismatches else 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m loadtest.capacity [--seconds S] [--batch N] [--out DIR]``."""
    parser = argparse.ArgumentParser(prog="loadtest.capacity", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="length of each step")
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="items per ValidatePlays call")
    parser.add_argument("--plays", type=int, default=None, help="use only the first N plays of the mix")
    parser.add_argument("--channels", type=int, default=4, help="client connections per server")
    parser.add_argument("--threads", type=int, default=8, help="server thread pool")
    parser.add_argument(
        "--shares",
        type=lambda text: tuple(float(share) for share in text.split(",")),
        default=FRACTIONS,
        help="offered loads as shares of each peak, comma-separated",
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="where the CSV and the PNG go")
    parser.add_argument("--no-pin", dest="pin", action="store_false", help="do not split the CPUs")
    return asyncio.run(capacity(parser.parse_args(argv)))


if __name__ == "__main__":
    sys.exit(main())
