"""Start and stop the real service (``tractor-rules serve``) on a free loopback port, for load runs.

The load runs target what operators deploy: the multi-process server with its supervisor, interceptor
and metrics, not an in-process test server. The port is 0 (the kernel picks a free one) and read back
from the service's ``serving`` log line; the rest of the log goes to a file next to the results.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final, Self

ROOT: Final = Path(__file__).resolve().parents[1]
LOOPBACK: Final = "127.0.0.1"
SERVICE_PID_ENV: Final = "LOADTEST_SERVICE_PID"
"""Set by ``loadtest.run`` for Locust: the service's supervisor, whose CPU the step load reports."""
START_TIMEOUT: Final = 60.0
STOP_TIMEOUT: Final = 20.0


def python_env(**extra: str) -> dict[str, str]:
    """The environment for child processes: the checkout importable (``loadtest``, ``services``)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


def process_tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and its direct children; 0 where /proc is absent.

    Used to show which side of a benchmark was saturated.
    """
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = 0
    proc = Path("/proc")
    if not proc.exists():
        return 0.0
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # after the command: state(0) ppid(1) ... utime(11) stime(12)
        if int(entry.name) == pid or int(fields[1]) == pid:
            total += int(fields[11]) + int(fields[12])
    return total / ticks


class ServiceProcess:
    """``tractor-rules serve`` on 127.0.0.1 with a free port; a context manager that always stops it."""

    def __init__(
        self,
        *,
        workers: int = 1,
        threads: int | None = None,
        log_path: Path | None = None,
        cpus: set[int] | None = None,
    ) -> None:
        args = [sys.executable, "-m", "services.cli", "serve", "--address", LOOPBACK, "--port", "0"]
        args += ["--metrics-address", LOOPBACK, "--metrics-port", "0", "--workers", str(workers)]
        args += ["--grace-seconds", "5", "--drain-seconds", "0"]
        if threads is not None:
            args += ["--threads", str(threads)]
        self._log: IO[str] | None = log_path.open("w", encoding="utf-8") if log_path else None
        self.proc = subprocess.Popen(
            args,
            cwd=ROOT,
            env=python_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=(lambda: os.sched_setaffinity(0, cpus)) if cpus else None,  # noqa: PLW1509
        )
        self._serving: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read_log, daemon=True).start()
        try:
            self.serving = self._serving.get(timeout=START_TIMEOUT)
        except queue.Empty:
            self.stop()
            raise RuntimeError(f"the service did not start within {START_TIMEOUT:.0f}s") from None
        if not self.serving:
            code = self.proc.wait(STOP_TIMEOUT)
            raise RuntimeError(f"the service exited with status {code} before serving")

    def _read_log(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if self._log is not None:
                self._log.write(line)
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(entry, dict) and entry.get("msg") == "serving":
                self._serving.put(entry)
        self._serving.put({})  # the log ended: the process is gone
        if self._log is not None:
            self._log.close()

    @property
    def port(self) -> int:
        """The gRPC port the service listens on."""
        return int(self.serving["port"])

    @property
    def target(self) -> str:
        """``127.0.0.1:PORT``, as Locust's ``--host`` and grpc channels take it."""
        return f"{LOOPBACK}:{self.port}"

    @property
    def metrics_url(self) -> str:
        """The service's Prometheus endpoint."""
        return f"http://{LOOPBACK}:{self.serving['metrics_port']}/metrics"

    def cpu_seconds(self) -> float:
        """CPU used so far by the supervisor and its workers."""
        return process_tree_cpu(self.proc.pid)

    def stop(self) -> int:
        """SIGTERM (graceful drain), then SIGKILL if it hangs; the exit status (0 after a clean stop)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(STOP_TIMEOUT)
            return -signal.SIGKILL

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
