"""``make bench``: the service against an echo server on the same gRPC stack, driven by one async client.

Locust tops out below the server, so the capacity of one service worker is measured here with a
``grpc.aio`` client that keeps many calls in flight. The same client sends the same requests to:

* **service**: ``tractor-rules serve --workers 1``, the real server (interceptors, metrics, rules);
* **echo**: a ``grpc.server`` with the service's thread pool size and options whose handlers answer each
  request with the very bytes the service answered it with (recorded in the warm-up). Same payload
  sizes both ways, no decoding, no rules: what the gRPC stack alone costs;
* **the ladder** (``loadtest.ladder``): the same ValidatePlay traffic through servers that each add one
  layer of the service (protobuf, the servicer, the interceptor, the metrics), and as ``ValidatePlays``
  batches: what each layer costs, and verdicts per server core, unary and batched, beside the echo.

Phases: a warm-up pass over the whole mix that checks every verdict against the corpus and records the
replies; closed-loop rounds (``--concurrency`` calls in flight), alternating the targets so that they
share the machine's noise, giving each one's throughput (the median round); then open-loop rounds at
``--load`` (0.5) of the service's measured throughput, every call timed from its *scheduled* start so a
stall counts in full (no coordinated omission). Where there are two CPUs or more the servers run on the
first and the client on the others, so neither steals the other's core.

The realistic mix is the [000] and [003] table corpora interleaved 5:4 by hand, each hand in order.

Last, "where the time goes": each target's server CPU per call, and the servicer's own cost per call
timed in this process without gRPC, with the rules engine's share of it; echo / (echo + servicer) is
the best ratio the service could reach if its interceptor and metrics cost nothing, echo / (echo +
engine) the best if everything but the rules did.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import grpc

from loadtest.bench_servicer import MixCost, mix_costs
from loadtest.contract import REQUESTS, RESPONSES, SERVICE, method_path
from loadtest.replay import Call, VerdictMismatchError, check, corpus_path, read
from loadtest.server import (
    ServerProcess,
    load_flags,
)
from loadtest.stats import median_by, percentile

DEFAULT_SECONDS: Final = 6.0
DEFAULT_ROUNDS: Final = 3
DEFAULT_CONCURRENCY: Final = 32
DEFAULT_CHANNELS: Final = 4
DEFAULT_THREADS: Final = 8
"""The service's default ``--threads``: the echo servers get the same pool."""
DEFAULT_LOAD: Final = 0.5
MIX: Final = (("000", 5), ("003", 4))
SERVER_OPTIONS: Final = (
    ("grpc.so_reuseport", 1),
    ("grpc.max_receive_message_length", 4 * 1024 * 1024),
    ("grpc.max_send_message_length", 4 * 1024 * 1024),
)
OPEN_LOOP_TICK: Final = 0.001
CALL_TIMEOUT: Final = 10.0


def realistic_mix() -> list[Call]:
    """The tables' calls: whole hands in order, [000] and [003] hands interleaved 5:4."""
    hands = {kind: read(corpus_path(kind)) for kind, _ in MIX}
    calls: list[Call] = []
    rounds = min(len(hands[kind]) // weight for kind, weight in MIX)
    for r in range(rounds):
        for kind, weight in MIX:
            for script in hands[kind][r * weight : (r + 1) * weight]:
                calls.extend(script.calls)
    return calls


# --------------------------------------------------------------------------------------------------
# the echo servers


def load_replies(path: Path) -> dict[tuple[str, bytes], bytes]:
    """(method, request bytes) -> the service's reply bytes, as the warm-up recorded them."""
    replies: dict[tuple[str, bytes], bytes] = {}
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            method, request, reply = json.loads(line)
            replies[(method, base64.b64decode(request))] = base64.b64decode(reply)
    return replies


def save_replies(calls: Sequence[Call], replies: Sequence[bytes], path: Path) -> Path:
    """Write what ``load_replies`` reads: each call's method, request and the service's reply."""
    with path.open("w", encoding="utf-8") as out:
        for call, reply in zip(calls, replies, strict=True):
            row = [call.method, base64.b64encode(call.request).decode(), base64.b64encode(reply).decode()]
            out.write(json.dumps(row) + "\n")
    return path


def echo_handlers(replies: dict[tuple[str, bytes], bytes], *, stack: bool) -> Any:
    """The generic handler answering every RulesService method from ``replies``."""
    parsed = {key: RESPONSES[key[0]].FromString(reply) for key, reply in replies.items()} if stack else {}

    def handler(method: str) -> Any:
        if not stack:

            def reply(request: bytes, context: Any) -> bytes:
                return replies[(method, request)]

            return grpc.unary_unary_rpc_method_handler(reply)  # bytes in, bytes out: no decoding

        decode = REQUESTS[method].FromString

        def deserialize(data: bytes) -> tuple[bytes, Any]:
            return data, decode(data)

        def answer(request: tuple[bytes, Any], context: Any) -> Any:
            return parsed[(method, request[0])]

        return grpc.unary_unary_rpc_method_handler(
            answer, request_deserializer=deserialize, response_serializer=RESPONSES[method].SerializeToString
        )

    return grpc.method_handlers_generic_handler(
        SERVICE.full_name, {m.name: handler(m.name) for m in SERVICE.methods}
    )


# --------------------------------------------------------------------------------------------------
# the client


@dataclass(frozen=True, slots=True)
class Result:
    """One measured run against one target."""

    target: str
    mode: str
    calls: int
    errors: int
    seconds: float
    latencies_ms: list[float]
    server_cpu: float
    client_cpu: float

    @property
    def rps(self) -> float:
        """Calls completed per second."""
        return self.calls / self.seconds

    def percentile(self, fraction: float) -> float:
        """A latency percentile in ms (``loadtest.stats``: nearest rank; NaN without calls)."""
        return percentile(self.latencies_ms, fraction)


class Client:
    """``channels`` aio channels to one target, with a raw-bytes multicallable per method."""

    def __init__(self, target: str, channels: int) -> None:
        self._channels = [grpc.aio.insecure_channel(target) for _ in range(channels)]
        self._methods = [
            {name: channel.unary_unary(method_path(name)) for name in RESPONSES} for channel in self._channels
        ]

    def method(self, index: int, name: str) -> Any:
        """The raw-bytes callable for ``name`` on channel ``index % channels``."""
        return self._methods[index % len(self._methods)][name]

    async def close(self) -> None:
        """Close every connection."""
        for channel in self._channels:
            await channel.close()


async def warm_up(client: Client, calls: Sequence[Call], concurrency: int) -> tuple[list[bytes], int]:
    """Every call once: check each verdict, and keep each reply for the echo server; (replies, mismatches)."""
    replies: list[bytes] = [b""] * len(calls)
    mismatches = 0
    next_index = 0

    async def worker(slot: int) -> None:
        nonlocal next_index, mismatches
        while next_index < len(calls):
            index = next_index
            next_index += 1
            call = calls[index]
            reply = await client.method(slot, call.method)(call.request, timeout=30)
            replies[index] = reply
            try:
                check(call.method, RESPONSES[call.method].FromString(reply), call.expect)
            except VerdictMismatchError as error:
                mismatches += 1
                if mismatches <= 5:
                    print(f"  wrong verdict: {call.method}: {error}", file=sys.stderr)

    await asyncio.gather(*(worker(slot) for slot in range(concurrency)))
    return replies, mismatches


async def closed_loop(
    client: Client, calls: Sequence[Call], *, concurrency: int, seconds: float, start_at: int = 0
) -> tuple[int, int, list[float], float]:
    """``concurrency`` callers each sending the next call as soon as the last returns."""
    latencies: list[float] = []
    errors = 0
    position = start_at
    stop_at = time.perf_counter() + seconds

    async def worker(slot: int) -> None:
        nonlocal position, errors
        while time.perf_counter() < stop_at:
            call = calls[position % len(calls)]
            position += 1
            began = time.perf_counter()
            try:
                await client.method(slot, call.method)(call.request, timeout=CALL_TIMEOUT)
            except grpc.RpcError:
                errors += 1
                continue
            latencies.append((time.perf_counter() - began) * 1000)

    began = time.perf_counter()
    await asyncio.gather(*(worker(slot) for slot in range(concurrency)))
    return len(latencies), errors, latencies, time.perf_counter() - began


async def open_loop(
    client: Client, calls: Sequence[Call], *, rate: float, seconds: float, start_at: int = 0
) -> tuple[int, int, list[float], float]:
    """Calls started on a fixed schedule of ``rate`` per second, each timed from its scheduled start."""
    latencies: list[float] = []
    errors = 0
    tasks: set[asyncio.Task[None]] = set()

    async def one(index: int, scheduled: float) -> None:
        nonlocal errors
        call = calls[(start_at + index) % len(calls)]
        try:
            await client.method(index, call.method)(call.request, timeout=CALL_TIMEOUT)
        except grpc.RpcError:
            errors += 1
            return
        latencies.append((time.perf_counter() - scheduled) * 1000)

    total = int(rate * seconds)
    began = time.perf_counter()
    sent = 0
    while sent < total:
        due = min(int((time.perf_counter() - began) * rate) + 1, total)
        while sent < due:
            task = asyncio.create_task(one(sent, began + sent / rate))
            tasks.add(task)
            task.add_done_callback(tasks.discard)
            sent += 1
        await asyncio.sleep(OPEN_LOOP_TICK)
    if tasks:
        await asyncio.gather(*tasks)
    return len(latencies), errors, latencies, time.perf_counter() - began


async def measure(name: str, mode: str, server: Any, run: Any, *args: Any, **kwargs: Any) -> Result:
    """Run one measurement, with the CPU both sides used during it."""
    server_before, client_before = server.cpu_seconds(), time.process_time()
    calls, errors, latencies, seconds = await run(*args, **kwargs)
    return Result(
        target=name,
        mode=mode,
        calls=calls,
        errors=errors,
        seconds=seconds,
        latencies_ms=latencies,
        server_cpu=(server.cpu_seconds() - server_before) / seconds,
        client_cpu=(time.process_time() - client_before) / seconds,
    )


# --------------------------------------------------------------------------------------------------
# where the time goes


def breakdown(capacity: dict[str, Result], cost: MixCost) -> list[str]:
    """Per-call server CPU of each target, the servicer's and the engine's own costs, and the ratios
    they allow.

    The echo's CPU per call is the gRPC stack's floor; whatever the service does on top of it divides
    the throughput. With the interceptor and metrics free, the ratio could at best be
    echo / (echo + servicer); with the whole service layer free, echo / (echo + engine).
    """
    per_call = {name: r.server_cpu / r.rps * 1e6 for name, r in capacity.items()}
    echo = per_call["echo"]
    lines = [
        "server CPU per call: " + ", ".join(f"{name} {micros:.0f} µs" for name, micros in per_call.items()),
        f"in-process, no gRPC: the servicer {cost.servicer:.0f} µs per call (decode, conversions, rules, "
        f"domain metrics, encode), of which the rules engine {cost.engine:.0f} µs",
        f"best service/echo ratio with a free interceptor and free metrics: "
        f"{echo:.0f} / ({echo:.0f} + {cost.servicer:.0f}) = {echo / (echo + cost.servicer):.2f}",
        f"best service/echo ratio with everything but the engine free: "
        f"{echo:.0f} / ({echo:.0f} + {cost.engine:.0f}) = {echo / (echo + cost.engine):.2f}",
    ]
    return lines


# --------------------------------------------------------------------------------------------------
# the run


def split_cpus() -> tuple[set[int] | None, set[int] | None]:
    """(server CPUs, client CPUs): the first CPU and the rest where there are two or more, else None."""
    if not hasattr(os, "sched_getaffinity"):
        return None, None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None, None
    return {cpus[0]}, set(cpus[1:])


def table(results: Sequence[Result]) -> str:
    """Results as a fixed-width table."""
    lines = [
        f"{'target':<11} {'mode':<26} {'req/s':>7} {'p50 ms':>7} {'p99 ms':>7} {'errors':>6} "
        f"{'server CPU':>10} {'client CPU':>10}"
    ]
    for r in results:
        lines.append(
            f"{r.target:<11} {r.mode:<26} {r.rps:>7.0f} {r.percentile(0.5):>7.2f} {r.percentile(0.99):>7.2f} "
            f"{r.errors:>6} {r.server_cpu:>10.0%} {r.client_cpu:>10.0%}"
        )
    return "\n".join(lines)


@dataclass
class Target:
    """A server under test and the client connected to it."""

    name: str
    server: Any
    client: Client | None = None


async def rounds(
    targets: Sequence[Target], count: int, mode: str, run: Callable[..., Awaitable[Any]], **kwargs: Any
) -> dict[str, list[Result]]:
    """``count`` rounds of ``run`` over every target in turn."""
    results: dict[str, list[Result]] = {target.name: [] for target in targets}
    for _ in range(count):
        for target in targets:
            assert target.client is not None
            results[target.name].append(
                await measure(target.name, mode, target.server, run, target.client, **kwargs)
            )
    return results


async def loops(
    targets: Sequence[Target], calls: Sequence[Call], args: argparse.Namespace
) -> tuple[dict[str, list[Result]], dict[str, list[Result]], float]:
    """The closed-loop rounds, then the open-loop ones at ``args.load`` of the service's capacity;
    (closed, opened, the open-loop rate)."""
    closed = await rounds(
        targets,
        args.rounds,
        f"closed, {args.concurrency} in flight",
        closed_loop,
        calls=calls,
        concurrency=args.concurrency,
        seconds=args.seconds,
    )
    capacity = {name: median_by(rs, lambda r: r.rps) for name, rs in closed.items()}
    rate = capacity["service"].rps * args.load
    opened = await rounds(
        targets[:2],
        args.rounds,
        f"open, {rate:.0f}/s ({args.load:.0%})",
        open_loop,
        calls=calls,
        rate=rate,
        seconds=args.seconds,
    )
    return closed, opened, rate


def report(
    closed: dict[str, list[Result]],
    opened: dict[str, list[Result]],
    rate: float,
    args: argparse.Namespace,
    calls: Sequence[Call],
) -> None:
    """Print every round, the medians, the ratios and where the time goes."""
    capacity = {name: median_by(rs, lambda r: r.rps) for name, rs in closed.items()}
    latency = {name: median_by(rs, lambda r: r.percentile(0.99)) for name, rs in opened.items()}
    print("\nevery round:")
    print(
        table(
            [
                r
                for i in range(args.rounds)
                for rs in (*closed.values(), *opened.values())
                for r in rs[i : i + 1]
            ]
        )
    )
    print(f"\nsummary (the median of {args.rounds} rounds: closed loop by req/s, open loop by p99):")
    print(table([*capacity.values(), *latency.values()]))
    print()
    for name, result in capacity.items():
        if name != "service":
            print(f"throughput ratio service/{name}: {capacity['service'].rps / result.rps:.2f}")
    print(
        f"service at {args.load:.0%} of its capacity ({rate:.0f} req/s): "
        f"p50 {latency['service'].percentile(0.5):.2f} ms, p99 {latency['service'].percentile(0.99):.2f} ms"
    )
    print("\nwhere the time goes:")
    for line in breakdown(capacity, mix_costs([(call.method, call.request) for call in calls])):
        print(f"  {line}")
    print()


async def bench(args: argparse.Namespace) -> int:
    """Start the servers, warm up and check, then the closed-loop and the open-loop rounds."""
    calls = realistic_mix()
    server_cpus, client_cpus = split_cpus() if args.pin else (None, None)
    print(f"realistic mix: {len(calls)} calls; {args.concurrency} in flight over {args.channels} connections")
    print(f"servers on CPUs {sorted(server_cpus or [])}, client on {sorted(client_cpus or [])}")
    with tempfile.TemporaryDirectory(prefix="tractor-bench-") as tmp, ExitStack() as stack:
        service = stack.enter_context(
            ServerProcess(
                *load_flags(threads=args.threads), log_path=Path(tmp) / "service.log", cpus=server_cpus
            )
        )
        from loadtest import ladder  # noqa: PLC0415  # it builds on this module

        rungs = ladder.start_rungs(stack, args.threads, server_cpus, Path(tmp))
        targets = [Target("service", service), Target("echo", rungs["echo"])]
        if client_cpus:
            os.sched_setaffinity(0, client_cpus)  # only now: the servers keep their own CPU
        targets[0].client = Client(service.target, args.channels)
        replies, mismatches = await warm_up(targets[0].client, calls, args.concurrency)
        print(f"warm-up: {len(calls)} calls checked against the corpus, {mismatches} wrong verdicts")
        replies_path = save_replies(calls, replies, Path(tmp) / "replies.jsonl")
        for rung in rungs.values():
            rung.load(replies_path)
        targets[1].client = Client(rungs["echo"].target, args.channels)
        await warm_up(targets[1].client, calls[: len(calls) // 4], args.concurrency)
        closed: dict[str, list[Result]] = {}
        opened: dict[str, list[Result]] = {}
        rate = 0.0
        try:
            if not args.ladder_only:
                closed, opened, rate = await loops(targets, calls, args)
        finally:
            for target in targets:
                if target.client is not None:
                    await target.client.close()
        plays = [call for call in calls if call.method == "ValidatePlay"]
        where = await ladder.ladder(
            rungs,
            service,
            plays=plays,
            replies_path=replies_path,
            rounds=args.rounds,
            seconds=args.seconds,
            channels=args.channels,
            concurrency=args.concurrency,
        )
    if closed:
        report(closed, opened, rate, args, calls)
    print("\n".join(where))
    errors = sum(r.errors for rs in (*closed.values(), *opened.values()) for r in rs)
    if mismatches or errors:
        print(f"FAILED: {mismatches} wrong verdicts, {errors} failed calls", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m loadtest.bench [--seconds S] [--rounds N] [--concurrency C] [--load F] ...``."""
    parser = argparse.ArgumentParser(prog="loadtest.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="length of each measurement")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="rounds per target and mode")
    parser.add_argument(
        "--concurrency", type=int, default=DEFAULT_CONCURRENCY, help="closed loop: calls in flight"
    )
    parser.add_argument(
        "--channels", type=int, default=DEFAULT_CHANNELS, help="client connections per target"
    )
    parser.add_argument("--threads", type=int, default=DEFAULT_THREADS, help="server thread pool")
    parser.add_argument("--load", type=float, default=DEFAULT_LOAD, help="open loop rate, share of capacity")
    parser.add_argument("--no-pin", dest="pin", action="store_false", help="do not split the CPUs")
    parser.add_argument(
        "--ladder-only", action="store_true", help="after the warm-up, only the ladder (no closed/open loops)"
    )
    args = parser.parse_args(argv)
    return asyncio.run(bench(args))


if __name__ == "__main__":
    sys.exit(main())
