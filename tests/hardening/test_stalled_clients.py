"""Stalled clients cannot starve others: 256 streams that send headers and part of a body, then stall.

Against a real 2-worker ``tractor-rules serve``: while the streams are held, a fresh client's health checks
and ValidatePlay calls all succeed with p99 within 20 ms, or within SLOWDOWN times the same calls' p99
measured before the streams came when the machine is so loaded that this is more, and ``/metrics`` shows
the stalled calls; past the work ceiling the server cancels them by itself. A stalled stream holding a
worker's thread would make the calls wait for seconds (or their 5 s deadline), far past either bound.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from loadtest import corpus
from loadtest.hardening.pytest_plugin import PROPERTY
from loadtest.server import ServerProcess
from loadtest.stall import Stall
from loadtest.stats import median, percentile
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

CONNECTIONS = 8
STREAMS = 32
BOUND_MS = 20.0
"""The p99 a fresh client's calls keep while the streams are held, on a machine not overloaded."""
SLOWDOWN = 5.0
"""... or this many times their p99 before the streams came, when that is more (a loaded machine)."""
GAUGE = "tractor_rules_requests_awaiting_body"


def awaiting(server: ServerProcess) -> float:
    """The stalled-call gauge summed over the workers, from a live scrape."""
    with urllib.request.urlopen(server.metrics_url, timeout=5) as response:
        text = response.read().decode()
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(GAUGE + " "))


def wait_for(predicate: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


def fresh_calls(target: str, play: pb.ValidatePlayRequest) -> list[float]:
    """A fresh client's 200 health checks and 200 ValidatePlay calls, alternated: each one's ms."""
    channel = grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
    health = health_pb2_grpc.HealthStub(channel)
    rules = rules_service_pb2_grpc.RulesServiceStub(channel)
    grpc.channel_ready_future(channel).result(timeout=10)
    latencies: list[float] = []
    try:
        for _ in range(200):
            for call, request in (
                (health.Check, health_pb2.HealthCheckRequest()),
                (rules.ValidatePlay, play),
            ):
                began = time.perf_counter()
                call(request, timeout=5)  # any failure raises and fails the test
                latencies.append((time.perf_counter() - began) * 1000)
    finally:
        channel.close()
    return latencies


def test_stalled_streams_hold_no_thread_and_others_are_served(record_property: Any) -> None:
    play = next(
        pb.ValidatePlayRequest.FromString(call.request)
        for call in corpus.self_play(1, first_seed=3)[0].calls
        if call.method == "ValidatePlay"
    )
    with ServerProcess("--workers", "2", "--max-request-seconds", "30") as server:
        before = percentile(fresh_calls(server.target, play), 0.99)
        attack = Stall("127.0.0.1", server.port, CONNECTIONS, STREAMS)
        attack.start()
        try:
            assert attack.opened == CONNECTIONS * STREAMS
            assert wait_for(lambda: awaiting(server) >= 0.9 * attack.opened, 10), awaiting(server)
            latencies = fresh_calls(server.target, play)
            assert attack.reset == 0  # the stalled streams are still held
            held = awaiting(server)
            p99 = percentile(latencies, 0.99)
            bound = max(BOUND_MS, SLOWDOWN * before)
            record_property(
                PROPERTY,
                f"stalled clients: {attack.opened} streams over {CONNECTIONS} connections held against 2 "
                f"workers ({held:.0f} awaiting their body in /metrics); a fresh client's {len(latencies)} "
                f"health checks and ValidatePlay calls all answered, p50 {median(latencies):.2f} ms, "
                f"p99 {p99:.2f} ms (before the streams {before:.2f} ms; bound {bound:.0f} ms)",
            )
            assert p99 <= bound, f"p99 {p99:.1f} ms, {before:.1f} ms before the streams"
            assert held >= 0.9 * attack.opened
        finally:
            attack.stop()
        assert wait_for(lambda: awaiting(server) == 0, 10)
        assert not server.errors()


def test_stalled_health_watches_do_not_stop_other_watchers() -> None:
    """Health Watch streams have their own small pool: stalled ones hold no thread of it either."""
    with ServerProcess("--workers", "1", "--max-request-seconds", "30") as server:
        attack = Stall("127.0.0.1", server.port, 2, 16, path="/grpc.health.v1.Health/Watch")
        attack.start()
        try:
            time.sleep(1)  # the streams are in (their pool's stalled calls are not in the main gauge)
            with grpc.insecure_channel(server.target) as channel:
                watch = health_pb2_grpc.HealthStub(channel).Watch(health_pb2.HealthCheckRequest(), timeout=5)
                first = next(iter(watch))
                assert first.status == health_pb2.HealthCheckResponse.SERVING
                watch.cancel()
        finally:
            attack.stop()


def test_a_stalled_stream_is_cancelled_past_the_work_ceiling() -> None:
    with ServerProcess("--workers", "1", "--max-request-seconds", "1") as server:
        attack = Stall("127.0.0.1", server.port, 2, 8)
        attack.start()
        try:
            assert wait_for(lambda: attack.reset == attack.opened, 10), (attack.reset, attack.opened)
            assert wait_for(lambda: awaiting(server) == 0, 5)
        finally:
            attack.stop()
