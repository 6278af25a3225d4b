"""The service as it runs in production: ``tractor-rules serve`` in a subprocess, two forked workers on
one SO_REUSEPORT port, ``/metrics`` aggregated by the parent, and a graceful SIGTERM under load."""

from __future__ import annotations

import re
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from wire import message, names

from loadtest.server import ServerProcess, settled
from services.server import RULES_SERVICE
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

CALLS = 16
REQUEST = message(
    pb.ValidatePlayRequest,
    {
        "level": "RANK_5",
        "contract": "CONTRACT_HEARTS",
        "seat": 1,
        "hand": names("SQ SQ S2 S3 H9"),
        "cards": names("SQ SQ"),
        "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names("S9 S9")}]},
    },
)


PROMTOOL = "/usr/bin/promtool"
"""Debian's Prometheus package (make deploy-deps, a prerequisite of make test)."""


@pytest.fixture(scope="module")
def two_workers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, Path]]:
    metrics_dir = tmp_path_factory.mktemp("metrics")
    with ServerProcess(
        "--workers", "2", "--grace-seconds", "5", "--drain-seconds", "0", metrics_dir=metrics_dir
    ) as server:
        yield server, metrics_dir


def _call_on_fresh_connection(target: str) -> pb.ValidatePlayResponse:
    """One call on its own TCP connection, so the kernel may pick either worker. The local subchannel
    pool makes it so: by default a new channel may reuse a connection of the process-wide pool that an
    earlier channel to the same target left behind."""
    with grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as channel:
        response: pb.ValidatePlayResponse = rules_service_pb2_grpc.RulesServiceStub(channel).ValidatePlay(
            REQUEST, timeout=10, wait_for_ready=True
        )
        return response


def _scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        text: str = response.read().decode()
        return text


def test_two_workers_share_the_port_and_both_serve(two_workers: tuple[ServerProcess, Path]) -> None:
    server, metrics_dir = two_workers
    pids = server.serving["workers"]
    assert len(set(pids)) == 2 and server.proc.pid not in pids
    for _ in range(CALLS):
        assert _call_on_fresh_connection(server.target).legal
    # a worker writes counter_<pid>.db only once it has counted a call of its own (the parent writes one
    # for its worker restarts counter)
    served = {
        int(match.group(1))
        for path in metrics_dir.iterdir()
        if (match := re.fullmatch(r"counter_(\d+)\.db", path.name))
    }
    assert served - {server.proc.pid} == set(pids)


def test_a_live_scrape_passes_promtool_check_metrics(two_workers: tuple[ServerProcess, Path]) -> None:
    """Prometheus' own linter on what /metrics serves: names, types, units, _total on counters."""
    server, _ = two_workers
    _call_on_fresh_connection(server.target)
    text = _scrape(server.metrics_url)
    assert re.search(r'^tractor_rules_worker_busy_seconds_total\{pid="\d+"\} ', text, re.MULTILINE)
    checked = subprocess.run(
        [PROMTOOL, "check", "metrics"], input=text, capture_output=True, text=True, timeout=30, check=False
    )
    assert (checked.returncode, checked.stdout + checked.stderr) == (0, "")


def test_metrics_endpoint_sums_the_workers(two_workers: tuple[ServerProcess, Path]) -> None:
    server, _ = two_workers
    before = settled(lambda: _handled(_scrape(server.metrics_url)))  # the earlier tests' calls counted
    for _ in range(CALLS):
        _call_on_fresh_connection(server.target)
    deadline = time.monotonic() + 10  # the workers write their counts a few times a second: poll
    while _handled(text := _scrape(server.metrics_url)) < before + CALLS and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _handled(text) == before + CALLS
    assert "grpc_server_started_total{" in text
    assert re.search(r'grpc_server_handling_seconds_bucket\{[^}]*le="5e-05"', text)
    assert re.search(
        r'tractor_rules_verdicts_total\{grpc_method="ValidatePlay",preset="default",reason="legal"\}', text
    )
    build = re.findall(r"^tractor_rules_build_info\{.*\} (\S+)$", text, re.MULTILINE)
    assert build == ["1.0"]  # one series, not one per worker
    restarts = r"^tractor_rules_worker_restarts_total 0\.0$"
    assert re.search(restarts, text, re.MULTILINE)  # there from the start, not from the first restart
    busy = re.findall(r'^tractor_rules_worker_busy_seconds_total\{pid="(\d+)"\} (\S+)$', text, re.MULTILINE)
    assert {int(pid) for pid, _ in busy} == set(server.serving["workers"])  # one series per worker
    assert sum(float(seconds) for _, seconds in busy) > 0


def _handled(text: str) -> float:
    pattern = (
        r'^grpc_server_handled_total\{grpc_code="OK",grpc_method="ValidatePlay",'
        r'grpc_service="tractor\.rules\.v1\.RulesService",grpc_type="unary"\} (\S+)$'
    )
    found = re.search(pattern, text, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def test_health_is_serving(two_workers: tuple[ServerProcess, Path]) -> None:
    server, _ = two_workers
    with grpc.insecure_channel(server.target) as channel:
        check = health_pb2_grpc.HealthStub(channel).Check
        reply = check(health_pb2.HealthCheckRequest(service=RULES_SERVICE), timeout=10)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


class _Load:
    """Client threads calling ValidatePlay back to back until the server stops answering (bounded)."""

    def __init__(self, target: str, threads: int, limit: float) -> None:
        self.results: list[tuple[float, float, grpc.StatusCode]] = []
        self._lock = threading.Lock()
        self._limit = time.monotonic() + limit
        self._threads = [threading.Thread(target=self._run, args=(target,)) for _ in range(threads)]
        for thread in self._threads:
            thread.start()

    def _run(self, target: str) -> None:
        with grpc.insecure_channel(target) as channel:
            stub = rules_service_pb2_grpc.RulesServiceStub(channel)
            while time.monotonic() < self._limit:
                start = time.monotonic()
                try:
                    stub.ValidatePlay(REQUEST, timeout=10)
                    code = grpc.StatusCode.OK
                except grpc.RpcError as error:
                    code = error.code()
                with self._lock:
                    self.results.append((start, time.monotonic(), code))
                if code != grpc.StatusCode.OK:
                    return

    def join(self) -> None:
        for thread in self._threads:
            thread.join(30)


def test_sigterm_under_load_drains_and_fails_nothing_in_flight(tmp_path: Path) -> None:
    """SIGTERM: health turns NOT_SERVING, calls keep succeeding through the drain, every call started
    before the signal succeeds, and the process exits 0 within the grace period."""
    flags = ("--workers", "2", "--grace-seconds", "5", "--drain-seconds", "1")
    with ServerProcess(*flags, metrics_dir=tmp_path / "metrics") as server:
        load = _Load(server.target, threads=6, limit=20)
        time.sleep(0.5)  # let the load build up
        with grpc.insecure_channel(server.target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            signalled = time.monotonic()
            server.proc.send_signal(signal.SIGTERM)
            for _ in range(2):  # each worker drains on its own signal: ask once both have begun
                server.wait_for("draining", 10)
            status = health.Check(health_pb2.HealthCheckRequest(service=RULES_SERVICE), timeout=5).status
        code = server.proc.wait(15)
        stopped = time.monotonic()
        load.join()
    assert status == health_pb2.HealthCheckResponse.NOT_SERVING
    assert code == 0
    assert stopped - signalled < 5 + 2  # the grace period, plus process start-up slack
    before = [result for result in load.results if result[0] < signalled]
    assert len(before) > 10 and all(result[2] == grpc.StatusCode.OK for result in before)
    during = [result for result in load.results if signalled <= result[0] and result[1] < signalled + 0.9]
    assert during and all(result[2] == grpc.StatusCode.OK for result in during)
    # After the drain the server refuses new calls: UNAVAILABLE, or CANCELLED when a call races the stop.
    refused = [result for result in load.results if result[2] != grpc.StatusCode.OK]
    assert {result[2] for result in refused} <= {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED}
    assert all(result[0] >= signalled + 0.9 for result in refused)
