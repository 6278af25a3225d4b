"""``make fuzz``: seeded fuzzing of every RPC through a live ``tractor-rules serve``, with a verdict.

Generates requests with :mod:`loadtest.hardening.messages` (random, boundary, structurally valid but
inconsistent, corrupted bytes) from a corpus of self-played hands, sends them over real channels to a
real multi-process server on loopback, and checks every answer with :func:`loadtest.hardening.judge.judge`: no
INTERNAL or UNKNOWN, no call running into its deadline (a hang), every INVALID_ARGUMENT naming a field
that exists in the request. Along the way the service's health is checked; at the end its workers
must be the ones it started with (none crashed or was replaced), ``/metrics`` must count no INTERNAL,
and its log no error. The request count and the tally are printed; the exit status is 0 only when all
of that holds. The same seed sends the same requests.

    python -m loadtest.hardening.fuzz --requests 100000 --seed 1          # what CI runs (make fuzz)
    python -m loadtest.hardening.fuzz --requests 2000000 --seed 7         # make fuzz-long
    python -m loadtest.hardening.fuzz --target host:port --requests 5000  # an already running server
    python -m loadtest.hardening.fuzz --replay /tmp/tractor-rules-fuzz-1.jsonl  # resend the failing cases

Failing cases (at most 50) are saved as JSON lines with their bytes in base64, and the path printed.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import re
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import grpc
from google.protobuf.message import DecodeError
from grpc_health.v1 import health_pb2

from loadtest import corpus
from loadtest.contract import METHODS, REQUESTS, SERVICE, method_path
from loadtest.hardening.judge import Outcome, judge
from loadtest.hardening.messages import Case, Generator, descriptor_of
from loadtest.server import ServerProcess, settled

DEFAULT_REQUESTS: Final = 100_000
DEFAULT_SEED: Final = 1
CALL_TIMEOUT: Final = 10.0
"""A call still unanswered after this long is a hang (the slowest legitimate call takes milliseconds)."""
HEALTH_EVERY: Final = 5000
HANDS: Final = 60
KEPT_FAILURES: Final = 50
CHANNEL_OPTIONS: Final = [
    ("grpc.use_local_subchannel_pool", 1),  # one connection per channel, spread over the workers
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
    ("grpc.enable_retries", 0),  # a refused call must show, not be retried away
]
HEALTH_CHECK: Final = "/grpc.health.v1.Health/Check"


@dataclass
class Report:
    """The tally of one fuzz run."""

    seed: int
    requests: int = 0
    seconds: float = 0.0
    codes: Counter[str] = field(default_factory=Counter)
    kinds: Counter[str] = field(default_factory=Counter)
    methods: Counter[str] = field(default_factory=Counter)
    reasons: Counter[str] = field(default_factory=Counter)
    unnamed: int = 0
    """INVALID_ARGUMENT for bytes whose own framing is broken (no field to name: the whole request)."""
    failures: list[dict[str, Any]] = field(default_factory=list)
    failed: int = 0
    health_checks: int = 0
    unhealthy: int = 0
    slowest: tuple[float, str] = (0.0, "")
    workers_before: list[int] = field(default_factory=list)
    workers_after: list[int] = field(default_factory=list)
    server_errors: list[dict[str, Any]] = field(default_factory=list)
    internal_in_metrics: float = 0.0
    target: str = ""

    @property
    def hangs(self) -> int:
        return self.codes["DEADLINE_EXCEEDED"]

    @property
    def crashed_workers(self) -> int:
        return len(set(self.workers_before) - set(self.workers_after))

    @property
    def passed(self) -> bool:
        return (
            self.requests > 0
            and not self.failed
            and not self.unhealthy
            and not self.crashed_workers
            and not self.server_errors
            and not self.internal_in_metrics
        )

    def summary(self) -> str:
        """The printed verdict."""
        rate = self.requests / self.seconds if self.seconds else 0.0
        lines = [
            f"fuzz: {self.requests} requests, seed {self.seed}, in {self.seconds:.1f} s ({rate:.0f}/s) "
            f"against {self.target}",
            "  codes: " + ", ".join(f"{code} {n}" for code, n in self.codes.most_common()),
            f"  INTERNAL {self.codes['INTERNAL']}, UNKNOWN {self.codes['UNKNOWN']}, hangs {self.hangs}, "
            f"UNAVAILABLE {self.codes['UNAVAILABLE']}; failed checks {self.failed}",
            "  kinds: " + ", ".join(f"{kind} {n}" for kind, n in sorted(self.kinds.items())),
            "  methods: " + ", ".join(f"{method} {n}" for method, n in sorted(self.methods.items())),
            "  INVALID_ARGUMENT reasons: " + ", ".join(f"{r} {n}" for r, n in self.reasons.most_common()),
            f"  every INVALID_ARGUMENT named a field of the request, but {self.unnamed} whose bytes' own "
            "framing is broken (the whole request)",
            f"  health checks {self.health_checks}, not SERVING {self.unhealthy}; slowest call "
            f"{self.slowest[0] * 1000:.0f} ms ({self.slowest[1]})",
        ]
        if self.workers_before:
            lines.append(
                f"  workers before {self.workers_before}, after {self.workers_after}: "
                f"{self.crashed_workers} crashed; INTERNAL in /metrics {self.internal_in_metrics:.0f}; "
                f"server log errors {len(self.server_errors)}"
            )
        for failure in self.failures[:5]:
            where = f"#{failure['number']} {failure['method']} ({failure['kind']})"
            lines.append(f"  FAILURE {where}: {failure['problem']}")
        for entry in self.server_errors[:3]:
            lines.append(f"  SERVER ERROR: {json.dumps(entry)[:300]}")
        lines.append(f"RESULT: {'PASS' if self.passed else 'FAIL'}")
        return "\n".join(lines)


def _trailing(error: grpc.aio.AioRpcError) -> list[tuple[str, Any]]:
    metadata = error.trailing_metadata()
    return [(item[0], item[1]) for item in metadata] if metadata else []


class _Fuzz:
    """One run: the generator, the channels and the tally."""

    def __init__(self, generator: Generator, report: Report, total: int, deadline: float | None) -> None:
        self.generator = generator
        self.report = report
        self.total = total
        self.deadline = deadline
        self.sent = 0

    def _more(self) -> bool:
        if self.deadline is not None:
            return time.monotonic() < self.deadline
        return self.sent < self.total

    async def worker(self, channel: grpc.aio.Channel) -> None:
        callables = {method: channel.unary_unary(method_path(method)) for method in METHODS}
        while self._more():
            self.sent += 1
            case = self.generator.next()
            started = time.perf_counter()
            try:
                response = await callables[case.method](case.data, timeout=CALL_TIMEOUT)
                outcome = Outcome(grpc.StatusCode.OK, "", (), response)
            except grpc.aio.AioRpcError as error:
                outcome = Outcome(error.code(), error.details() or "", _trailing(error))
            seconds = time.perf_counter() - started
            self.record(case, outcome, seconds)
            if self.report.requests % HEALTH_EVERY == 0:
                await self.check_health(channel)

    def record(self, case: Case, outcome: Outcome, seconds: float) -> None:
        report = self.report
        report.requests += 1
        report.codes[outcome.code.name] += 1
        report.kinds[case.kind] += 1
        report.methods[case.method] += 1
        if seconds > report.slowest[0] and not case.oversized:  # an oversized request is slow to send
            report.slowest = (seconds, f"#{case.number} {case.method} {case.kind}")
        request = case.decoded() if outcome.code == grpc.StatusCode.INVALID_ARGUMENT else case.message
        problem = judge(
            outcome,
            method=case.method,
            descriptor=descriptor_of(case.method),
            request=request,
            oversized=case.oversized,
        )
        if outcome.code == grpc.StatusCode.INVALID_ARGUMENT:
            for violation in outcome.violations():
                report.reasons[violation.reason] += 1
                report.unnamed += not violation.field
        if case.kind == "valid" and outcome.code != grpc.StatusCode.OK:
            problem = problem or f"a valid request got {outcome.code.name}: {outcome.details[:200]}"
        if problem:
            report.failed += 1
            if len(report.failures) < KEPT_FAILURES:
                report.failures.append(
                    {
                        "number": case.number,
                        "method": case.method,
                        "kind": case.kind,
                        "code": outcome.code.name,
                        "details": outcome.details[:500],
                        "problem": problem,
                        "request": base64.b64encode(case.data[:100_000]).decode(),
                    }
                )

    async def check_health(self, channel: grpc.aio.Channel) -> None:
        check = channel.unary_unary(
            HEALTH_CHECK,
            request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
            response_deserializer=health_pb2.HealthCheckResponse.FromString,
        )
        self.report.health_checks += 1
        try:
            reply = await check(
                health_pb2.HealthCheckRequest(service=SERVICE.full_name), timeout=CALL_TIMEOUT
            )
            serving = reply.status == health_pb2.HealthCheckResponse.SERVING
        except grpc.aio.AioRpcError:
            serving = False
        self.report.unhealthy += not serving


async def _run(
    target: str,
    generator: Generator,
    report: Report,
    *,
    requests: int,
    seconds: float | None,
    concurrency: int,
    channels: int,
) -> None:
    opened = [grpc.aio.insecure_channel(target, options=CHANNEL_OPTIONS) for _ in range(channels)]
    try:
        for channel in opened:
            await asyncio.wait_for(channel.channel_ready(), 30)
        fuzz = _Fuzz(generator, report, requests, time.monotonic() + seconds if seconds else None)
        started = time.perf_counter()
        await asyncio.gather(*(fuzz.worker(opened[i % channels]) for i in range(concurrency)))
        report.seconds = time.perf_counter() - started
        await fuzz.check_health(opened[0])
    finally:
        for channel in opened:
            await channel.close()


def internal_in_metrics(url: str) -> float:
    """INTERNAL and UNKNOWN answers of the RulesService counted by the server's own ``/metrics``."""
    with urllib.request.urlopen(url, timeout=10) as response:
        text = response.read().decode()
    pattern = re.compile(r"^grpc_server_handled_total\{([^}]*)\} (\S+)$", re.MULTILINE)
    return sum(
        float(value)
        for labels, value in pattern.findall(text)
        if 'grpc_code="INTERNAL"' in labels or 'grpc_code="UNKNOWN"' in labels
    )


def fuzz(
    *,
    requests: int = DEFAULT_REQUESTS,
    seed: int = DEFAULT_SEED,
    seconds: float | None = None,
    target: str | None = None,
    workers: int = 2,
    concurrency: int = 32,
    channels: int = 4,
    hands: int = HANDS,
    server_flags: Sequence[str] = (),
) -> Report:
    """Fuzz ``target``, or a ``tractor-rules serve`` started (and stopped) here; the report."""
    generator = Generator(seed, corpus.calls(hands, first_seed=seed * 1000))
    report = Report(seed=seed)
    options: dict[str, Any] = {
        "requests": requests,
        "seconds": seconds,
        "concurrency": concurrency,
        "channels": channels,
    }
    if target is not None:
        report.target = target
        asyncio.run(_run(target, generator, report, **options))
        return report
    flags = ["--workers", str(workers), *server_flags]
    with ServerProcess(*flags) as server:
        report.target = f"tractor-rules serve --workers {workers} ({server.target})"
        report.workers_before = list(server.serving["workers"])
        asyncio.run(_run(server.target, generator, report, **options))
        report.workers_after = server.workers()
        report.internal_in_metrics = settled(lambda: internal_in_metrics(server.metrics_url))
        report.server_errors = server.errors()
    return report


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m loadtest.hardening.fuzz", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--requests", type=int, default=DEFAULT_REQUESTS, help="requests to send")
    parser.add_argument("--seconds", type=float, default=None, help="run this long instead of --requests")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--target", help="host:port of a running server (default: start one)")
    parser.add_argument("--workers", type=int, default=2, help="workers of the server started here")
    parser.add_argument("--concurrency", type=int, default=32, help="calls in flight")
    parser.add_argument("--channels", type=int, default=4, help="connections")
    parser.add_argument("--failures", type=Path, help="where to save failing cases (default: the temp dir)")
    parser.add_argument("--replay", type=Path, help="resend the cases saved in this file and judge them")
    args = parser.parse_args(argv)
    if args.replay:
        return replay(args.replay, args.target)
    report = fuzz(
        requests=args.requests,
        seed=args.seed,
        seconds=args.seconds,
        target=args.target,
        workers=args.workers,
        concurrency=args.concurrency,
        channels=args.channels,
    )
    print(report.summary(), flush=True)
    if report.failures:
        path = args.failures or Path(tempfile.gettempdir()) / f"tractor-rules-fuzz-{args.seed}.jsonl"
        path.write_text("".join(json.dumps(failure) + "\n" for failure in report.failures))
        print(f"failing cases saved to {path} (python -m loadtest.hardening.fuzz --replay {path})")
    return 0 if report.passed else 1


def replay(path: Path, target: str | None) -> int:
    """Resend saved failing cases one by one (to ``target``, or a server started here); 1 if any fails."""
    cases = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def send(address: str) -> int:
        failed = 0
        with grpc.insecure_channel(address, options=CHANNEL_OPTIONS) as channel:
            for saved in cases:
                data = base64.b64decode(saved["request"])
                method = saved["method"]
                try:
                    reply = channel.unary_unary(method_path(method))(data, timeout=CALL_TIMEOUT)
                    outcome = Outcome(grpc.StatusCode.OK, "", (), reply)
                except grpc.RpcError as error:
                    outcome = Outcome(
                        error.code(), error.details() or "", list(error.trailing_metadata() or ())
                    )
                try:
                    request = REQUESTS[method].FromString(data)
                except DecodeError:
                    request = None
                problem = judge(outcome, method=method, descriptor=descriptor_of(method), request=request)
                failed += bool(problem)
                print(f"#{saved['number']} {method}: {outcome.code.name} {problem or 'ok'}")
        return 1 if failed else 0

    if target:
        return send(target)
    with ServerProcess("--workers", "1") as server:
        return send(server.target)


if __name__ == "__main__":
    sys.exit(main())
