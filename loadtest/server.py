"""``tractor-rules serve`` as a subprocess on loopback: its start-up line, its log, its workers' memory.

The fuzzer, the soak and the fault tests all drive the service exactly as it is deployed (the parent
forks the workers, they share one SO_REUSEPORT port); this module starts it, reads its JSON log lines
without letting them pile up, and finds its workers in ``/proc``.
"""

from __future__ import annotations

import collections
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Final, Self

ROOT: Final = Path(__file__).resolve().parents[1]
START_TIMEOUT: Final = 60.0
KEPT_ENTRIES: Final = 5000
"""Log entries kept in memory (the oldest are dropped; counts by level are kept for all)."""


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (its workers), from ``/proc``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == pid and fields[0] not in ("Z", "X"):
            found.append(int(entry.name))
    return sorted(found)


def rss_kib(pid: int) -> int | None:
    """Resident memory of ``pid`` in KiB (``VmRSS`` of ``/proc/<pid>/status``), None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def serve_args(*flags: str) -> list[str]:
    """The ``tractor-rules serve`` command line, from this checkout, with ``flags``."""
    return [sys.executable, "-m", "services.cli", "serve", *flags]


def serve_env(metrics_dir: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment it runs in: this checkout importable, its metrics in ``metrics_dir``, plus ``env``."""
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
        **(env or {}),
    }


def run_serve(
    *flags: str, metrics_dir: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``tractor-rules serve`` to its end (a configuration it must refuse): status and output."""
    return subprocess.run(
        serve_args(*flags),
        cwd=ROOT,
        env=serve_env(metrics_dir, env),
        capture_output=True,
        text=True,
        timeout=START_TIMEOUT,
        check=False,
    )


class ServerProcess:
    """``python -m services.cli serve`` on 127.0.0.1 with ephemeral ports and the given flags."""

    def __init__(
        self, *flags: str, env: dict[str, str] | None = None, metrics_dir: Path | None = None
    ) -> None:
        self._own_dir = metrics_dir is None
        self.metrics_dir = metrics_dir or Path(tempfile.mkdtemp(prefix="tractor-rules-hardening-"))
        args = serve_args("--address", "127.0.0.1", "--port", "0")
        args += ["--metrics-address", "127.0.0.1", "--metrics-port", "0", *flags]
        self.proc = subprocess.Popen(
            args, cwd=ROOT, env=serve_env(self.metrics_dir, env), stderr=subprocess.PIPE, text=True
        )
        self.entries: queue.Queue[dict[str, Any]] = queue.Queue()
        self.log: collections.deque[dict[str, Any]] = collections.deque(maxlen=KEPT_ENTRIES)
        self.levels: collections.Counter[str] = collections.Counter()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.serving = self.wait_for("serving", START_TIMEOUT)
        except BaseException:
            self.terminate(10)
            raise

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                entry = {"msg": "non-json", "level": "error", "line": line.rstrip()}
            self.levels[str(entry.get("level", "?"))] += 1
            self.log.append(entry)
            self.entries.put(entry)

    def wait_for(self, msg: str, timeout: float) -> dict[str, Any]:
        """The next log entry with this ``msg`` (reading on from the last one waited for)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                entry = self.entries.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                break
            if entry.get("msg") == msg:
                return entry
        recent = list(self.log)[-20:]
        raise AssertionError(
            f"no {msg!r} log entry within {timeout}s; exit code {self.proc.poll()}; log {recent}"
        )

    def logged(self, msg: str) -> list[dict[str, Any]]:
        """Every kept entry with this ``msg``."""
        return [entry for entry in list(self.log) if entry.get("msg") == msg]

    def errors(self) -> list[dict[str, Any]]:
        """Kept entries at level error or worse."""
        return [entry for entry in list(self.log) if entry.get("level") in ("error", "critical")]

    @property
    def port(self) -> int:
        return int(self.serving["port"])

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def metrics_target(self) -> str:
        """``127.0.0.1:PORT`` of ``/metrics``, as a Prometheus scrape config names it."""
        return f"127.0.0.1:{self.serving['metrics_port']}"

    @property
    def metrics_url(self) -> str:
        return f"http://{self.metrics_target}/metrics"

    def workers(self) -> list[int]:
        """The worker pids alive now."""
        return children(self.proc.pid)

    def terminate(self, timeout: float) -> int:
        """SIGTERM, then the exit code (SIGKILL after ``timeout``: -9)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            for pid in self.workers():
                os.kill(pid, signal.SIGKILL)
            self.proc.kill()
            self.proc.wait(10)
            code = -9
        self._reader.join(5)
        if self._own_dir:
            shutil.rmtree(self.metrics_dir, ignore_errors=True)
        return code

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.terminate(30)
