"""Where a verdict's server CPU goes, rung by rung, and what batching buys (the end of ``make bench``).

The same ValidatePlay traffic (every ValidatePlay call of the realistic mix) goes, closed loop, to a ladder
of servers, each in its own process on the server CPU, each adding one layer of the real service:

1. **echo**: answers each request with the service's reply bytes (no decoding): the bare gRPC stack;
2. **echo+protobuf**: decodes each request and encodes the reply as protobuf;
3. **servicer**: the real ``RulesServicer`` (conversions and rules), without interceptor or metrics;
4. **+interceptor**: with the service's ``RpcInterceptor`` (statuses, deadlines, ceiling), no metrics;
5. **+metrics**: and the service's metrics, in multiprocess mode as deployed (counted per thread,
   written to the metric files by the flushing thread);
6. **service**: ``tractor-rules serve --workers 1`` itself (its pool, its security and logging setup).

Each rung's server CPU per call (from /proc), and its difference to the rung below, says what that layer
costs. Then the same plays go to the service as ``ValidatePlays`` batches: verdicts per second per server
core for unary and batched traffic, side by side with the echo's requests per second per core. Medians of
``--rounds`` rounds, the rungs interleaved so that they share the machine's noise.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from collections.abc import Sequence
from concurrent import futures
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import grpc

from loadtest.bench import Client, closed_loop, echo_handlers, load_replies
from loadtest.bench_servicer import mix_costs
from loadtest.replay import Call
from loadtest.server import LOOPBACK, ROOT, ServerProcess, pinned, process_tree_cpu, python_env
from loadtest.stats import median
from rules_core import ENGINE
from tractor.rules.v1 import rules_service_pb2 as pb

RUNGS: Final = ("echo", "echo+protobuf", "servicer", "+interceptor", "+metrics")
"""The in-house rungs; "service" is the real server."""
BATCH_SIZES: Final = (16, 64)


def _no_metrics(registry: Any) -> Any:
    """The service's Metrics with every write a no-op: the rungs below "+metrics" pay for none."""
    from services.metrics import Metrics  # noqa: PLC0415  # after PROMETHEUS_MULTIPROC_DIR

    class NoMetrics(Metrics):
        def count(self, counter: Any, *labels: str) -> None:
            """No write."""

        def rpc_started(self, service: str, method: str) -> None:
            """No write."""

        def rpc_handled(self, service: str, method: str, code: str, seconds: float) -> None:
            """No write."""

    return NoMetrics(registry)


def serve_rung(rung: str, threads: int) -> int:
    """One rung's server process: replies file on stdin, port on stdout, serve until stdin closes."""
    from prometheus_client import CollectorRegistry  # noqa: PLC0415  # after PROMETHEUS_MULTIPROC_DIR

    from services.interceptor import RpcInterceptor  # noqa: PLC0415
    from services.metrics import Metrics  # noqa: PLC0415
    from services.servicer import RulesServicer  # noqa: PLC0415
    from tractor.rules.v1 import rules_service_pb2_grpc  # noqa: PLC0415

    replies = load_replies(Path(sys.stdin.readline().strip()))
    registry = CollectorRegistry()
    metrics = Metrics(registry) if rung == "+metrics" else _no_metrics(registry)
    if rung == "+metrics":
        metrics.start_flushing()
    interceptors = [RpcInterceptor(metrics)] if rung in ("+interceptor", "+metrics") else []
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=threads), interceptors=interceptors)
    if rung.startswith("echo"):
        server.add_generic_rpc_handlers([echo_handlers(replies, stack=rung == "echo+protobuf")])
    else:
        rules_service_pb2_grpc.add_RulesServiceServicer_to_server(RulesServicer(metrics), server)
    port = server.add_insecure_port(f"{LOOPBACK}:0")
    server.start()
    print(json.dumps({"port": port}), flush=True)
    sys.stdin.read()
    server.stop(1).wait(5)
    metrics.close()
    return 0


class Rung:
    """One rung's server process, pinned to the server CPUs."""

    def __init__(self, rung: str, threads: int, cpus: set[int] | None, metrics_dir: Path) -> None:
        self.rung = rung
        metrics_dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "loadtest.ladder", "--serve", rung, "--threads", str(threads)],
            cwd=ROOT,
            env=python_env(PROMETHEUS_MULTIPROC_DIR=str(metrics_dir)),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=pinned(cpus),  # noqa: PLW1509
        )
        self.target = ""

    def load(self, replies_path: Path) -> str:
        """Hand over the replies; ``127.0.0.1:PORT`` once the rung listens."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{replies_path}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.rung} server did not start")
        self.target = f"{LOOPBACK}:{json.loads(line)['port']}"
        return self.target

    def cpu_seconds(self) -> float:
        """CPU used so far by the rung's server."""
        return process_tree_cpu(self.proc.pid)

    def stop(self) -> None:
        """Close stdin (the stop signal) and wait; kill if it hangs."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@dataclass(frozen=True, slots=True)
class Measured:
    """One closed-loop round against one target."""

    calls: int
    verdicts: int
    seconds: float
    server_cpu: float

    @property
    def cpu_per_call_us(self) -> float:
        """Server CPU per call, in µs."""
        return self.server_cpu / self.calls * 1e6

    @property
    def verdicts_per_core_second(self) -> float:
        """Verdicts per second of one server core."""
        return self.verdicts / self.server_cpu


def batches(plays: Sequence[Call], size: int) -> list[Call]:
    """The plays as ValidatePlays calls of ``size`` items each."""
    items = [pb.ValidatePlayRequest.FromString(call.request) for call in plays]
    return [
        Call("ValidatePlays", pb.ValidatePlaysRequest(items=items[i : i + size]).SerializeToString(), {})
        for i in range(0, len(items) - size + 1, size)
    ]


async def _round(
    target: Any, client: Client, calls: Sequence[Call], items: int, *, seconds: float, concurrency: int
) -> Measured:
    before = target.cpu_seconds()
    done, errors, _latencies, elapsed = await closed_loop(
        client, calls, concurrency=concurrency, seconds=seconds
    )
    if errors:
        raise RuntimeError(f"{errors} calls failed")
    return Measured(done, done * items, elapsed, target.cpu_seconds() - before)


def start_rungs(stack: ExitStack, threads: int, cpus: set[int] | None, tmp: Path) -> dict[str, Rung]:
    """Start every rung's process (before the bench opens any gRPC channel: no fork after that)."""
    rungs = {}
    for rung in RUNGS:
        rungs[rung] = Rung(rung, threads, cpus, tmp / rung.strip("+"))
        stack.callback(rungs[rung].stop)
    return rungs


async def ladder(
    rungs: dict[str, Rung],
    service: ServerProcess,
    *,
    plays: Sequence[Call],
    replies_path: Path,
    rounds: int,
    seconds: float,
    channels: int,
    concurrency: int,
) -> list[str]:
    """Measure the rungs, the service and its batches; the lines to print."""
    with ExitStack():
        targets: dict[str, tuple[Any, Client, Sequence[Call], int]] = {}
        for rung, server in rungs.items():
            targets[rung] = (server, Client(server.target or server.load(replies_path), channels), plays, 1)
        targets["service"] = (service, Client(service.target, channels), plays, 1)
        for size in BATCH_SIZES:
            targets[f"service, {size} per batch"] = (
                service,
                Client(service.target, channels),
                batches(plays, size),
                size,
            )
        results: dict[str, list[Measured]] = {name: [] for name in targets}
        for _ in range(rounds):
            for name, (server, client, calls, items) in targets.items():
                concurrent = concurrency if items == 1 else max(4, concurrency // 4)
                results[name].append(
                    await _round(server, client, calls, items, seconds=seconds, concurrency=concurrent)
                )
        for _, client, _, _ in targets.values():
            await client.close()
    cpu = {name: median(r.cpu_per_call_us for r in rs) for name, rs in results.items()}
    per_core = {name: median(r.verdicts_per_core_second for r in rs) for name, rs in results.items()}
    echo, unary = cpu["echo"], per_core["service"]
    lines = [f"the ladder: ValidatePlay, closed loop, median of {rounds} rounds (server CPU per call)"]
    below = 0.0
    for name in (*RUNGS, "service"):
        step = f"+{cpu[name] - below:.0f} µs" if below else ""
        lines.append(f"  {name:<14} {cpu[name]:6.0f} µs  {cpu[name] / echo:4.2f} × echo  {step}")
        below = cpu[name]
    lines.append(f"unary server CPU per call, service / echo: {cpu['service'] / echo:.2f}")
    lines.append("verdicts per second per server core:")
    lines.append(f"  echo (requests)         {1e6 / echo:8.0f}")
    lines.append(f"  service, unary          {unary:8.0f}")
    for size in BATCH_SIZES:
        name = f"service, {size} per batch"
        lines.append(
            f"  {name:<23} {per_core[name]:8.0f}  ({per_core[name] / unary:.1f} × unary, "
            f"{per_core[name] / (1e6 / echo):.1f} × echo)"
        )
    lines.extend(_beside_the_engine(plays, per_core))
    return lines


def _beside_the_engine(plays: Sequence[Call], per_core: dict[str, float]) -> list[str]:
    """Each verdict's server CPU against what the rules engine alone spends on it, in this process: what
    is left of the service's overhead once batching has spread the per-call costs."""
    engine = mix_costs([(call.method, call.request) for call in plays]).engine
    lines = [f"server CPU per verdict against the rules engine's own {engine:.0f} µs (in process, {ENGINE}):"]
    for name in ("service", *(f"service, {size} per batch" for size in BATCH_SIZES)):
        verdict = 1e6 / per_core[name]
        lines.append(f"  {name:<23} {verdict:6.0f} µs  {verdict / engine:4.2f} × the engine")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m loadtest.ladder --serve RUNG``: one rung's server (the bench starts them)."""
    import argparse  # noqa: PLC0415

    parser = argparse.ArgumentParser(prog="loadtest.ladder", description=__doc__.splitlines()[0])
    parser.add_argument("--serve", choices=RUNGS, required=True)
    parser.add_argument("--threads", type=int, default=8)
    args = parser.parse_args(argv)
    return serve_rung(args.serve, args.threads)


if __name__ == "__main__":
    sys.exit(main())
