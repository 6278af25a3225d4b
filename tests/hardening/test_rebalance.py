"""Recycling workers: a replaced worker gets calls at once, and SIGHUP reloads without downtime.

When a worker dies, its clients reconnect at once to the workers still listening, so a replacement
forked a moment later would see no call until clients reconnected by themselves. The supervisor
therefore recycles the surviving workers one at a time (a new sibling first, then SIGTERM to the old
one, whose GOAWAY makes its clients reconnect over every listening worker). SIGHUP recycles every
worker the same way, so rotated certificates and tokens are read without dropping a call. Recycles are
no deaths: they leave the ``worker_restarts`` budget and ``tractor_rules_worker_restarts_total`` alone,
never leave fewer workers than configured, and SIGTERM stops the service cleanly in the middle of one.

The clients here use the recommended configuration (``tractor.rules.client.options``), one connection
per channel, calling back to back: not one call may fail.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

import grpc
from callers import Callers
from google.protobuf.message import Message

from loadtest.contract import method_path
from loadtest.server import ServerProcess
from tractor.rules.client import options

CHANNELS = 16
"""Connections: after a GOAWAY each lands on one of two workers, so the chance that none reaches the
replacement is 2**-16."""
TIMEOUT = 20.0
"""Per call: longer than a worker's start and drain."""
BOUND = 10.0
"""From the kill to the replacement's first calls."""
FLAGS = ("--workers", "2", "--threads", "4", "--drain-seconds", "0.3", "--grace-seconds", "3")
OPTIONS = options([("grpc.use_local_subchannel_pool", 1)])  # the recommended channel, one connection each
TOKEN_A = "first-token-0123456789abcdef"
TOKEN_B = "second-token-fedcba987654321"


class _Census:
    """Samples the live workers every 20 ms: the fewest and most seen at once, and every pid seen."""

    def __init__(self, server: ServerProcess) -> None:
        self.fewest = self.most = len(server.workers())
        self.seen: set[int] = set()
        self._server = server
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(0.02):
            if self._server.proc.poll() is not None:
                return
            live = self._server.workers()
            self.seen.update(live)
            self.fewest, self.most = min(self.fewest, len(live)), max(self.most, len(live))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)


def _calls(valid: dict[str, Message]) -> list[tuple[str, bytes]]:
    return [(method, request.SerializeToString()) for method, request in sorted(valid.items())]


def _scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        text: str = response.read().decode()
        return text


def _busy(metrics: str) -> dict[int, float]:
    """Each worker's ``tractor_rules_worker_busy_seconds_total``, by pid."""
    pattern = r'^tractor_rules_worker_busy_seconds_total\{pid="(\d+)"\} (\S+)$'
    return {int(pid): float(value) for pid, value in re.findall(pattern, metrics, re.MULTILINE)}


def _restarts(metrics: str) -> float:
    found = re.search(r"^tractor_rules_worker_restarts_total (\S+)$", metrics, re.MULTILINE)
    assert found, "no tractor_rules_worker_restarts_total series"
    return float(found.group(1))


def _wait(predicate: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return state[state.rindex(")") + 2] not in "ZX"


def test_a_replacement_worker_gets_calls_without_clients_reconnecting(
    tmp_path: Path, valid: dict[str, Message]
) -> None:
    """Two workers, sixteen long-lived connections; one worker is SIGKILLed. Its clients reconnect to the
    survivor at once, so the replacement gets calls only because the survivor is recycled: within 10 s
    of the kill the replacement's own busy counter grows, and within 10 s of the recycle its new
    sibling's (the reconnects spread over both workers, some after a reconnect backoff).
    ``--worker-restarts 1``: the death spends the whole budget, so a recycle counted as a death would
    stop the service."""
    flags = (*FLAGS, "--worker-restarts", "1")
    with ServerProcess(*flags, metrics_dir=tmp_path / "m") as server:
        first = server.workers()
        load = Callers(server.target, CHANNELS, _calls(valid), options=OPTIONS, timeout=TIMEOUT)
        assert _wait(load.connected, 10)
        assert _wait(lambda: all(_busy(_scrape(server.metrics_url)).get(p, 0) > 0 for p in first), 10)
        census = _Census(server)
        killed_at = time.monotonic()
        os.kill(first[0], signal.SIGKILL)
        replaced = server.wait_for("worker replaced", BOUND)
        replacement = replaced["worker"]
        got_calls = _wait(
            lambda: _busy(_scrape(server.metrics_url)).get(replacement, 0) > 0,
            killed_at + BOUND - time.monotonic(),
        )
        took = time.monotonic() - killed_at
        done = server.wait_for("recycle done", 20)
        recycled = server.logged("worker recycled")
        sibling: int = recycled[0]["worker"] if recycled else -1  # no recycle: asserted below
        # the old survivor's clients reconnect over both workers, some only after a reconnect backoff
        recycled_at = time.monotonic()
        sibling_called = _wait(lambda: _busy(_scrape(server.metrics_url)).get(sibling, 0) > 0, BOUND)
        sibling_took = time.monotonic() - recycled_at
        before = load.count()
        assert _wait(lambda: load.count() > before + 50, 10)  # still serving after the recycle
        census.stop()
        load.stop()
        metrics = _scrape(server.metrics_url)
        after = server.workers()
        running = server.proc.poll() is None
    print(
        f"replacement called {took:.2f}s after the kill, its new sibling {sibling_took:.2f}s after the "
        f"recycle; {load.count()} calls, {len(load.failures)} failed"
    )
    assert replaced["replaced"] == first[0]
    assert got_calls, (took, _busy(metrics), replacement)
    assert load.failures == [], load.failures
    assert running, "the recycle was counted against the restart budget"
    assert _restarts(metrics) == 1.0  # the death only
    # the survivor was recycled: a new sibling took its place, the replacement stays
    assert [entry["replaced"] for entry in recycled] == [first[1]], recycled
    assert recycled[0]["reason"] == "rebalance"
    assert sorted(after) == sorted([replacement, recycled[0]["worker"]])
    assert done["reason"] == "rebalance" and sorted(done["workers"]) == sorted(after)
    assert census.most <= 3  # one surge worker at a time
    assert sibling_called, (_busy(metrics), sibling)  # the survivor's successor is called within BOUND


def test_sighup_recycles_every_worker_and_fails_no_call(tmp_path: Path, valid: dict[str, Message]) -> None:
    """SIGHUP: every worker replaced by a new one (new pids, the same count), never fewer than two live,
    never more than three, no call failed; with ``--worker-restarts 0``, where one death would stop the
    service, it keeps running and counts no restart."""
    flags = (*FLAGS, "--worker-restarts", "0")
    with ServerProcess(*flags, metrics_dir=tmp_path / "m") as server:
        first = server.workers()
        load = Callers(server.target, CHANNELS, _calls(valid), options=OPTIONS, timeout=TIMEOUT)
        assert _wait(load.connected, 10)
        census = _Census(server)
        server.proc.send_signal(signal.SIGHUP)
        done = server.wait_for("recycle done", 30)
        before = load.count()
        assert _wait(lambda: load.count() > before + 50, 10)
        census.stop()
        load.stop()
        after = server.workers()
        metrics = _scrape(server.metrics_url)
        recycled = server.logged("worker recycled")
        running = server.proc.poll() is None
    print(f"SIGHUP recycle: {load.count()} calls, {len(load.failures)} failed; {first} -> {after}")
    assert load.failures == [], load.failures
    assert running and _restarts(metrics) == 0.0
    assert len(after) == 2 and not set(after) & set(first), (first, after)
    assert sorted(entry["replaced"] for entry in recycled) == sorted(first)
    assert {entry["reason"] for entry in recycled} == {"reload"}
    assert done["reason"] == "reload" and sorted(done["workers"]) == sorted(after)
    assert census.fewest == 2 and census.most == 3, (census.fewest, census.most)
    assert not server.errors(), server.errors()


def test_sigterm_in_the_middle_of_a_recycle_stops_cleanly(tmp_path: Path) -> None:
    """SIGTERM after the first old worker was retired (it is still draining, its sibling serves) and
    before the second one was: status 0 within the grace, no worker left behind (old, retiring, new),
    the second never recycled, no error logged. A two-second drain holds the recycle there."""
    flags = ("--workers", "2", "--drain-seconds", "2", "--grace-seconds", "4")
    with ServerProcess(*flags, metrics_dir=tmp_path / "m") as server:
        first = server.workers()
        census = _Census(server)
        server.proc.send_signal(signal.SIGHUP)
        recycled = server.wait_for("worker recycled", 10)
        retiring = _alive(recycled["replaced"])
        stopping = time.monotonic()
        server.proc.send_signal(signal.SIGTERM)
        try:
            code = server.proc.wait(20)
        except subprocess.TimeoutExpired:
            raise AssertionError(list(server.log)[-15:]) from None
        took = time.monotonic() - stopping
        census.stop()
        shut = server.wait_for("shut down", 5)
        errors = server.errors()
        count = len(server.logged("worker recycled"))
    assert code == 0 and shut["status"] == 0 and took < 4 + 2, (code, took)
    assert retiring and recycled["replaced"] in first and recycled["worker"] not in first
    assert census.seen == {*first, recycled["worker"]}, census.seen
    assert not [pid for pid in census.seen if _alive(pid)], census.seen
    assert count == 1  # stopped before the second old worker was retired
    assert not errors, errors


def test_sighup_reloads_rotated_tokens_and_refuses_a_broken_file(
    tmp_path: Path, valid: dict[str, Message]
) -> None:
    """Each worker reads the token file when it starts, so a SIGHUP after the file changed puts the new
    tokens in force without a restart; a file that cannot be used is refused in the parent and the
    workers keep serving with the tokens they have."""
    tokens = tmp_path / "tokens"
    tokens.write_text(f"{TOKEN_A}\n")
    request = valid["ValidatePlay"].SerializeToString()

    def code(target: str, token: str) -> grpc.StatusCode:
        with grpc.insecure_channel(target) as channel:
            try:
                channel.unary_unary(method_path("ValidatePlay"))(
                    request, timeout=TIMEOUT, metadata=(("authorization", f"Bearer {token}"),)
                )
            except grpc.RpcError as error:
                return error.code()
            return grpc.StatusCode.OK

    with ServerProcess(*FLAGS, "--auth-token-file", str(tokens), metrics_dir=tmp_path / "m") as server:
        assert (code(server.target, TOKEN_A), code(server.target, TOKEN_B)) == (
            grpc.StatusCode.OK,
            grpc.StatusCode.UNAUTHENTICATED,
        )
        tokens.write_text(f"{TOKEN_B}\n")
        server.proc.send_signal(signal.SIGHUP)
        server.wait_for("recycle done", 30)
        rotated = (code(server.target, TOKEN_A), code(server.target, TOKEN_B))
        workers = server.workers()
        tokens.write_text("short\n")
        server.proc.send_signal(signal.SIGHUP)
        refused = server.wait_for("reload refused; the workers keep serving", 10)
        time.sleep(0.5)
        kept = (server.workers(), code(server.target, TOKEN_B))
    assert rotated == (grpc.StatusCode.UNAUTHENTICATED, grpc.StatusCode.OK)
    assert "token" in refused["reason"]
    assert kept == (workers, grpc.StatusCode.OK)
