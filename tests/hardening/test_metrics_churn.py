"""``/metrics`` while workers come and go: every scrape answers 200, and no counter goes backwards.

The parent sums the workers' metric files on every scrape. A worker starting creates its files (empty
for an instant), one that dies has its live gauges removed, one that is recycled flushes its last counts
and stops: a scrape that catches any of these must still answer, or a dashboard shows a gap and
``up``-style alerts fire in the middle of a rolling restart.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from callers import Callers
from google.protobuf.message import Message

from loadtest.server import ServerProcess

DEATHS = 10
RECYCLES = 10
FLAGS = (
    "--workers", "2", "--threads", "2", "--drain-seconds", "0", "--grace-seconds", "2",
    "--worker-restarts", str(DEATHS + 1),
)  # fmt: skip
HANDLED = re.compile(r"^grpc_server_handled_total\{[^}]*\} (\S+)$", re.MULTILINE)
RESTARTS = re.compile(r"^tractor_rules_worker_restarts_total (\S+)$", re.MULTILINE)


class _Scraper:
    """Scrapes ``url`` back to back until stopped: every status, and the counters each 200 showed."""

    def __init__(self, url: str) -> None:
        self.statuses: dict[int, int] = {}
        self.seen: list[tuple[float, float]] = []
        """(handled calls summed, worker restarts) of each good scrape, in order."""
        self._url = url
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                with urllib.request.urlopen(self._url, timeout=10) as response:
                    status, text = response.status, response.read().decode()
            except urllib.error.HTTPError as error:
                status, text = error.code, ""
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if status == 200:
                restarts = RESTARTS.search(text)
                assert restarts is not None
                self.seen.append((sum(map(float, HANDLED.findall(text))), float(restarts.group(1))))

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(15)


def test_scrapes_answer_through_worker_deaths_and_recycles(tmp_path: Path, valid: dict[str, Message]) -> None:
    """A two-worker server under load, scraped back to back while ten workers are SIGKILLed (each
    replaced, the survivor recycled) and ten SIGHUPs recycle both: only 200s, the handled calls and the
    worker restarts, summed, never smaller than the scrape before, and in the end every restart counted."""
    calls = [(method, request.SerializeToString()) for method, request in sorted(valid.items())]
    started = time.monotonic()
    with ServerProcess(*FLAGS, metrics_dir=tmp_path / "m") as server:
        load = Callers(server.target, 4, calls, options=[], timeout=20)
        scraper = _Scraper(server.metrics_url)
        for _ in range(DEATHS):
            os.kill(server.workers()[0], signal.SIGKILL)
            server.wait_for("worker replaced", 10)
            server.wait_for("recycle done", 20)
        for _ in range(RECYCLES):
            server.proc.send_signal(signal.SIGHUP)
            server.wait_for("recycle done", 20)
        scraper.stop()
        load.stop()
        running = server.proc.poll() is None
    took = time.monotonic() - started
    print(
        f"{DEATHS} deaths, {RECYCLES} recycles, {took:.1f}s: scrapes {scraper.statuses}, {load.count()} calls"
    )
    assert running
    assert set(scraper.statuses) == {200}, scraper.statuses
    backwards = [
        (a, b) for a, b in zip(scraper.seen, scraper.seen[1:], strict=False) if b[0] < a[0] or b[1] < a[1]
    ]
    assert not backwards, backwards
    assert scraper.seen[-1][1] == DEATHS
    assert scraper.seen[-1][0] > scraper.seen[0][0]
