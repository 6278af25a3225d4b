"""Faults under load: a worker killed, SIGTERM, callers that vanish mid-call.

* A worker SIGKILLed under load is replaced by a fresh fork on the same port; the service keeps
  answering and only calls in flight on the dead worker fail (each client thread has one call in flight,
  so at most one failure per thread, and all of them UNAVAILABLE); too many deaths in a minute stop the
  service with exit status 1.
* SIGTERM under load drops nothing in flight: every call that reached a handler completes (the workers'
  own started and handled counters agree, all OK), every call sent before the drain ended succeeds.
* A caller that cancels, times out or is killed mid-call leaves nothing behind: no call in flight, no
  extra thread, no leaked socket, and the server goes on answering.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from google.protobuf.message import Message
from inproc import SLOW, config, running
from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector

from loadtest import corpus
from loadtest.contract import SERVICE, method_path
from loadtest.server import ROOT, ServerProcess
from tractor.rules.client import options
from tractor.rules.v1 import rules_service_pb2_grpc

TIMEOUT = 10.0
# one connection per channel: spread over the workers
OPTIONS: list[tuple[str, object]] = [("grpc.use_local_subchannel_pool", 1)]
RETRY_OPTIONS = options(OPTIONS)  # the recommended channel (tractor.rules.client), one connection each
RACE_SECONDS = 0.1
"""After a kill, how long a client may still send a call onto the dead connection before it notices."""


class _Load:
    """``threads`` clients, each on its own connection, calling back to back until stopped.

    ``wait_for_ready`` None leaves it to the channel's service config (fail fast without one).
    """

    def __init__(
        self,
        target: str,
        threads: int,
        calls: list[tuple[str, bytes]],
        options: list[tuple[str, object]] = OPTIONS,
        wait_for_ready: bool | None = None,
    ) -> None:
        self.results: list[tuple[int, float, float, grpc.StatusCode]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._calls = calls
        self._options = options
        self._wait_for_ready = wait_for_ready
        self._threads = [threading.Thread(target=self._run, args=(target, i)) for i in range(threads)]
        for thread in self._threads:
            thread.start()

    def _run(self, target: str, index: int) -> None:
        with grpc.insecure_channel(target, options=self._options) as channel:
            position = index * 7
            while not self._stop.is_set():
                method, data = self._calls[position % len(self._calls)]
                position += 1
                start = time.monotonic()
                try:
                    channel.unary_unary(method_path(method))(
                        data, timeout=TIMEOUT, wait_for_ready=self._wait_for_ready
                    )
                    code = grpc.StatusCode.OK
                except grpc.RpcError as error:
                    code = error.code()
                with self._lock:
                    self.results.append((index, start, time.monotonic(), code))

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)


def _heavy_calls(count: int = 3) -> list[tuple[str, bytes]]:
    """A realistic mix from a few self-played hands, heavy on whole-hand audits."""
    calls = []
    for script in corpus.self_play(count, first_seed=40):
        for call in script.calls:
            calls.append((call.method, call.request))
            if call.method == "ResolveTrick":
                calls.append(("AuditHand", script.calls[-1].request))
    return calls


def _scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        text: str = response.read().decode()
        return text


def _wait(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.05)
    return predicate()


# --------------------------------------------------------------------------------------------------
# a worker killed


def test_a_worker_killed_under_load_is_replaced_and_only_its_calls_in_flight_fail(tmp_path: Path) -> None:
    """Eight plain clients and eight with the retry policy the README recommends (the RPCs are pure, so
    retrying UNAVAILABLE is safe); both wait for ready. Plain clients lose only the call each had in
    flight on the dead worker (or sent onto its connection in the instant before the client noticed it
    closed): UNAVAILABLE, once per client at most around the kill, none later. Retrying clients lose
    nothing.

    Why wait for ready: the kernel may hand a client's instant reconnect to the dying worker's listener,
    which resets it, and a fail-fast channel then fails every call for its reconnect backoff (about a
    second) without sending any. That is the client's state, not calls the server lost; waiting sends
    nothing twice, only calls never sent wait.

    The replacement is followed by a recycle of the survivor (test_rebalance): its new sibling serves,
    then it drains and stops. A long drain holds that stop past the end of the load, so what is measured
    here is the kill alone; at the stop itself plain clients can lose a call (CANCELLED or UNAVAILABLE,
    as at any graceful stop; test_sigterm_under_heavy_load_drops_nothing_in_flight), retrying ones not."""
    threads = 8
    flags = ("--workers", "2", "--drain-seconds", "6")
    with ServerProcess(*flags, metrics_dir=tmp_path / "metrics") as server:
        first = server.workers()
        assert len(first) == 2
        plain = _Load(server.target, threads, _heavy_calls(), wait_for_ready=True)
        retrying = _Load(server.target, threads, _heavy_calls(), RETRY_OPTIONS)
        time.sleep(1.0)
        killed_at = time.monotonic()
        os.kill(first[0], signal.SIGKILL)
        replaced = server.wait_for("worker replaced", 30)
        recycled = server.wait_for("worker recycled", 30)  # the survivor drains until after the load
        time.sleep(1.5)  # the clients of the dead worker reconnect; everyone keeps calling
        plain.stop()
        retrying.stop()
        after = server.workers()
        metrics = _scrape(server.metrics_url)
        died = server.logged("worker died; replacing it")
    assert replaced["replaced"] == first[0] and replaced["worker"] not in first
    assert recycled["replaced"] == first[1] and recycled["worker"] not in (*first, replaced["worker"])
    assert sorted(after) == sorted([first[1], replaced["worker"], recycled["worker"]])  # one draining
    assert died and died[0]["worker"] == first[0] and died[0]["exitcode"] == -signal.SIGKILL
    assert re.search(r"^tractor_rules_worker_restarts_total 1\.0$", metrics, re.MULTILINE)
    failed = [result for result in plain.results if result[3] != grpc.StatusCode.OK]
    assert all(code == grpc.StatusCode.UNAVAILABLE for *_, code in failed), failed
    in_flight = [result for result in failed if result[1] <= killed_at]
    assert len({result[0] for result in in_flight}) == len(in_flight)  # one call in flight per client
    assert all(result[1] <= killed_at + RACE_SECONDS for result in failed), (killed_at, failed)
    late = [result for result in plain.results if result[1] > killed_at + RACE_SECONDS]
    assert len(late) > 20 and all(code == grpc.StatusCode.OK for *_, code in late)
    for index in range(threads):  # every plain client is served again
        assert [code for i, _, _, code in plain.results if i == index][-1] == grpc.StatusCode.OK
    assert len(retrying.results) > 50
    assert all(code == grpc.StatusCode.OK for *_, code in retrying.results)


def test_too_many_worker_deaths_stop_the_service(tmp_path: Path) -> None:
    """Replacement has a budget: a worker that keeps dying means the service itself is broken."""
    with ServerProcess("--workers", "2", "--worker-restarts", "1", metrics_dir=tmp_path / "m") as server:
        os.kill(server.workers()[0], signal.SIGKILL)
        server.wait_for("worker replaced", 30)
        os.kill(server.workers()[0], signal.SIGKILL)
        code = server.proc.wait(30)
        stopped = server.logged("worker died; too many deaths, stopping")
    assert code == 1 and stopped and stopped[0]["worker_restarts"] == 1


# --------------------------------------------------------------------------------------------------
# SIGTERM


def _counters(metrics_dir: Path) -> tuple[float, float, dict[str, float]]:
    """Started and handled RulesService calls, summed over every worker that ever ran, and the codes."""
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(metrics_dir))  # type: ignore[no-untyped-call]  # no stubs
    started = handled = 0.0
    codes: dict[str, float] = {}
    for family in registry.collect():
        for sample in family.samples:
            if sample.labels.get("grpc_service") != SERVICE.full_name:
                continue
            if sample.name == "grpc_server_started_total":
                started += sample.value
            elif sample.name == "grpc_server_handled_total":
                handled += sample.value
                codes[sample.labels["grpc_code"]] = codes.get(sample.labels["grpc_code"], 0.0) + sample.value
    return started, handled, codes


def test_sigterm_under_heavy_load_drops_nothing_in_flight(tmp_path: Path) -> None:
    """Sixteen clients on two workers of two threads each: calls queue in every worker when SIGTERM
    comes. Each call that reached a handler finishes OK; each call sent before the drain ended succeeds;
    what arrives later is refused, never half-done."""
    metrics_dir = tmp_path / "metrics"
    flags = ("--workers", "2", "--threads", "2", "--grace-seconds", "8", "--drain-seconds", "1")
    with ServerProcess(*flags, metrics_dir=metrics_dir) as server:
        load = _Load(server.target, 16, _heavy_calls())
        time.sleep(1.5)
        signalled = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        code = server.proc.wait(20)
        load.stop()
    assert code == 0
    started, handled, codes = _counters(metrics_dir)
    assert started > 100 and started == handled, (started, handled)
    assert set(codes) == {"OK"}, codes
    before_drain = [result for result in load.results if result[1] < signalled + 0.8]
    assert len(before_drain) > 100
    assert all(result[3] == grpc.StatusCode.OK for result in before_drain), [
        result for result in before_drain if result[3] != grpc.StatusCode.OK
    ]
    # After the drain new calls are refused: UNAVAILABLE, or CANCELLED for one that reached the
    # transport as it stopped; the counters above show that none of them had reached a handler.
    refused = [result for result in load.results if result[3] != grpc.StatusCode.OK]
    assert {result[3] for result in refused} <= {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED}
    assert all(result[1] >= signalled + 0.8 for result in refused)


# --------------------------------------------------------------------------------------------------
# callers that vanish


def test_a_cancelled_call_leaves_nothing_behind(valid: dict[str, Message]) -> None:
    """Slow calls cancelled, timed out or cut off by a closed channel mid-way: the handlers stop at their
    next check, nothing stays in flight, no thread is added, the server answers as before."""
    with running(config(threads=4)) as server:
        with grpc.insecure_channel(server.target) as warm:  # the pool at its four threads
            for call in [warm.unary_unary(SLOW).future(b"0.1", timeout=TIMEOUT) for _ in range(4)]:
                call.result()
        time.sleep(0.1)
        threads_before = threading.active_count()
        channel = grpc.insecure_channel(server.target)
        slow = channel.unary_unary(SLOW)
        cancelled = [slow.future(b"5", timeout=TIMEOUT) for _ in range(4)]
        timed_out = slow.future(b"5", timeout=0.3)
        time.sleep(0.2)
        assert server.in_flight() == 4  # four threads busy, the fifth call queued
        for call in cancelled:
            call.cancel()
        with pytest.raises(grpc.RpcError):
            timed_out.result()
        closing = grpc.insecure_channel(server.target)
        cut = closing.unary_unary(SLOW).future(b"5", timeout=TIMEOUT)
        time.sleep(0.2)
        closing.close()
        assert cut.cancelled() or cut.done()
        assert _wait(lambda: server.in_flight() == 0, 5), server.in_flight()
        channel.close()
        assert (
            server.handled("Sleep", "CANCELLED", "test.Slow")
            + server.handled("Sleep", "DEADLINE_EXCEEDED", "test.Slow")
            >= 5
        )
        assert _wait(lambda: threading.active_count() <= threads_before, 5)
        with grpc.insecure_channel(server.target) as fresh:
            reply = rules_service_pb2_grpc.RulesServiceStub(fresh).ValidatePlay(
                valid["ValidatePlay"], timeout=TIMEOUT
            )
        assert reply.legal


_CLIENT = """
import sys, threading, grpc
target, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
channel = grpc.insecure_channel(target)
audit = channel.unary_unary("/tractor.rules.v1.RulesService/AuditHand")
def again(_done=None):  # each answered call is replaced: 200 stay in flight until the kill (or 60 s)
    audit.future(data, timeout=60).add_done_callback(again)
for _ in range(200):
    again()
print("sent", flush=True)
threading.Event().wait(60)
"""
"""A client that keeps 200 calls in flight: the workers' metrics are flushed a few times a second, so
the in-flight gauge is seen above 0 only while calls stay in flight across flushes; the kill lands
mid-call."""


def _fds(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _threads(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("Threads:"):
            return int(line.split()[1])
    return 0


def test_a_client_killed_mid_call_leaves_nothing_behind(tmp_path: Path, valid: dict[str, Message]) -> None:
    """A client process with 200 calls in flight is SIGKILLed while the worker is answering them: on the
    real server every call it started is counted handled, the in-flight gauge returns to 0, and each
    worker's threads and open files return to what they were.

    The gauge is a sample at each flush, and a call of a millisecond or two runs between two of the
    interpreter's thread switches, so at a flush the calls sit in gRPC's queue rather than in a handler:
    that it counts calls in handlers is shown in process with calls that sleep (above). Here the proof
    that the kill lands mid-traffic is the started counter still growing just before it."""
    request = tmp_path / "audit.bin"
    request.write_bytes(valid["AuditHand"].SerializeToString())
    with ServerProcess("--workers", "1", metrics_dir=tmp_path / "m") as server:
        (worker,) = server.workers()
        with grpc.insecure_channel(server.target) as channel:  # warm the thread pool up
            audit = channel.unary_unary(method_path("AuditHand"))
            pending = [audit.future(request.read_bytes(), timeout=TIMEOUT) for _ in range(32)]
            for call in pending:
                call.result()
        time.sleep(0.3)
        baseline = (_threads(worker), _fds(worker))
        client = subprocess.Popen(
            [sys.executable, "-c", _CLIENT, server.target, str(request)],
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            text=True,
        )
        assert client.stdout is not None and client.stdout.readline().strip() == "sent"
        first = _audits(server.metrics_url)[0]
        busy = _wait(lambda: _audits(server.metrics_url)[0] > first + 100, 15)  # flushes lag when loaded
        client.kill()
        client.wait(10)
        assert busy, (first, _audits(server.metrics_url))

        def settled() -> bool:
            started, handled = _audits(server.metrics_url)
            return started == handled and _gauge(server.metrics_url) == 0

        assert _wait(settled, 20), (_audits(server.metrics_url), _gauge(server.metrics_url))
        assert _wait(lambda: (_threads(worker), _fds(worker)) <= baseline, 10), (
            baseline,
            _threads(worker),
            _fds(worker),
        )
        with grpc.insecure_channel(server.target) as fresh:
            reply = rules_service_pb2_grpc.RulesServiceStub(fresh).ValidatePlay(
                valid["ValidatePlay"], timeout=TIMEOUT
            )
        assert reply.legal and server.workers() == [worker]


def _audits(url: str) -> tuple[float, float]:
    """AuditHand calls started and handled (every code), as the server's metrics say."""
    text = _scrape(url)

    def total(name: str) -> float:
        pattern = rf'^{name}\{{[^}}]*grpc_method="AuditHand"[^}}]*\}} (\S+)$'
        return sum(map(float, re.findall(pattern, text, re.MULTILINE)))

    return total("grpc_server_started_total"), total("grpc_server_handled_total")


def _gauge(url: str) -> float:
    found = re.search(r"^tractor_rules_requests_in_flight (\S+)$", _scrape(url), re.MULTILINE)
    return float(found.group(1)) if found else -1.0
