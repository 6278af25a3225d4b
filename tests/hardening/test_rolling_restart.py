"""A rolling restart loses nothing: clients with the recommended configuration
(``tractor.rules.client.options``: wait for ready, UNAVAILABLE and CANCELLED retried, an unanswered
attempt retried after ``ATTEMPT_TIMEOUT``) keep calling while a
two-worker server on one port is stopped with SIGTERM and started again, ten times, as an orchestrator
restarting it in place would (the next server starts as soon as the old one has let the port go). No
call fails: calls in flight finish during the grace period, calls that reach a stopping worker are
refused with UNAVAILABLE (retried) or served, and calls made while no server listens wait for the
next one.
"""

from __future__ import annotations

import time
from pathlib import Path

from callers import Callers
from google.protobuf.message import Message

from loadtest.server import ServerProcess
from tractor.rules.client import options

RESTARTS = 10
CLIENTS = 6
TIMEOUT = 20.0
"""Per call: longer than a restart (the old server's drain and stop, the next one's start)."""
FLAGS = ("--workers", "2", "--threads", "4", "--drain-seconds", "0.3", "--grace-seconds", "3")
OPTIONS = options(
    [
        ("grpc.use_local_subchannel_pool", 1),
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 300),
        # a connection attempt gives up after a second, not gRPC's default 20 s (this test's deadline)
        ("grpc.min_reconnect_backoff_ms", 1000),
    ]
)
"""The client's recommended channel (``tractor.rules.client.options``: the retry policy, its per-attempt
timeout, keepalive) with one connection per channel and quick reconnects. The per-attempt timeout is what
saves a call sent on a connection the stopping worker had just accepted: gRPC core can hold such a
connection READY after the worker closed it, and without the timeout the call waited its whole 20 s
(``tractor.rules.client.ATTEMPT_TIMEOUT``)."""


def test_ten_rolling_restarts_under_load_fail_no_call(tmp_path: Path, valid: dict[str, Message]) -> None:
    calls = [(method, request.SerializeToString()) for method, request in sorted(valid.items())]
    server = ServerProcess(*FLAGS, metrics_dir=tmp_path / "m0", log_path=tmp_path / "server0.log")
    port = server.port
    load = Callers(server.target, CLIENTS, calls, options=OPTIONS, timeout=TIMEOUT)
    served: list[int] = []
    timeline: list[tuple[str, float]] = [("serving", time.monotonic())]
    """What happened when (monotonic seconds): the failure message sets the failed calls against it."""
    try:
        for restart in range(1, RESTARTS + 1):
            before = load.count()
            deadline = time.monotonic() + 5
            while load.count() < before + 50 and time.monotonic() < deadline:
                time.sleep(0.05)
            served.append(load.count() - before)
            timeline.append((f"stop {restart}", time.monotonic()))
            assert server.stop(15) == 0
            timeline.append((f"stopped {restart}", time.monotonic()))
            server = ServerProcess(
                *FLAGS,
                "--port",
                str(port),
                metrics_dir=tmp_path / f"m{restart}",
                log_path=tmp_path / f"server{restart}.log",
            )
            timeline.append((f"serving {restart}", time.monotonic()))
        time.sleep(0.5)
    finally:
        load.stop()
        server.stop(15)
    print(f"rolling restarts: {load.codes}; calls between restarts {served}")
    assert load.failures == [], (load.failures, timeline, f"each server's log: {tmp_path}/server*.log")
    assert all(count >= 50 for count in served), served  # every server generation was called
