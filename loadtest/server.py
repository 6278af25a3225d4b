"""``tractor-rules serve`` as a subprocess on loopback, for everything that drives a live server.

The load runs, the bench, the fuzzer, the soak, the fault tests and the deploy live load all drive the
service exactly as it is deployed (the parent forks the workers, they share one SO_REUSEPORT port):
this module starts it on ephemeral ports (read back from its ``serving`` log line), reads its JSON log
lines without letting them pile up (optionally copying them to a file), pins it to CPUs when asked,
and finds its workers, their memory and their CPU time in ``/proc``.
"""

from __future__ import annotations

import collections
import contextlib
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
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Final, Self

ROOT: Final = Path(__file__).resolve().parents[1]
LOOPBACK: Final = "127.0.0.1"
SERVICE_PID_ENV: Final = "LOADTEST_SERVICE_PID"
"""Set by ``loadtest.run`` for Locust: the service's supervisor, whose CPU the step load reports."""
START_TIMEOUT: Final = 60.0
STOP_TIMEOUT: Final = 20.0
KEPT_ENTRIES: Final = 5000
"""Log entries kept in memory (the oldest are dropped; counts by level are kept for all)."""


def _stats() -> Iterator[tuple[int, list[str]]]:
    """Every process as (pid, the fields of ``/proc/<pid>/stat`` after the command); none without /proc.

    After the command: state(0) ppid(1) ... utime(11) stime(12).
    """
    proc = Path("/proc")
    if not proc.exists():
        return
    for entry in proc.iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        yield int(entry.name), stat[stat.rindex(")") + 2 :].split()


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (its workers)."""
    return sorted(
        child for child, fields in _stats() if int(fields[1]) == pid and fields[0] not in ("Z", "X")
    )


def process_tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) used so far by ``pid`` and its direct children; 0 where /proc is absent.

    Used to show which side of a benchmark was saturated.
    """
    ticks = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    total = sum(
        int(fields[11]) + int(fields[12]) for found, fields in _stats() if pid in (found, int(fields[1]))
    )
    return total / ticks


def settled(read: Callable[[], float], timeout: float = 10.0) -> float:
    """``read()`` (a counter from ``/metrics``) once two reads two flush intervals apart agree.

    Workers write what they count every ``services.metrics.FLUSH_SECONDS``, so a scrape right after some
    calls may not show the last of them yet.
    """
    from services.metrics import FLUSH_SECONDS  # noqa: PLC0415  # prometheus_client reads the env at import

    deadline = time.monotonic() + timeout
    last = read()
    while True:
        time.sleep(2 * FLUSH_SECONDS)
        now = read()
        if now == last or time.monotonic() > deadline:
            return now
        last = now


def rss_kib(pid: int) -> int | None:
    """Resident memory of ``pid`` in KiB (``VmRSS`` of ``/proc/<pid>/status``), None once it is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def pinned(cpus: set[int] | None) -> Callable[[], None] | None:
    """A ``preexec_fn`` that pins a child process (and what it forks) to ``cpus``; None for no pinning."""
    return (lambda: os.sched_setaffinity(0, cpus)) if cpus else None


def python_env(**extra: str) -> dict[str, str]:
    """The environment for child processes: the checkout importable (``loadtest``, ``services``)."""
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path, **extra}


def serve_args(*flags: str) -> list[str]:
    """The ``tractor-rules serve`` command line, from this checkout, with ``flags``."""
    return [sys.executable, "-m", "services.cli", "serve", *flags]


def serve_env(metrics_dir: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """The environment it runs in: this checkout importable, its metrics in ``metrics_dir``, plus ``env``."""
    return python_env(PROMETHEUS_MULTIPROC_DIR=str(metrics_dir), **(env or {}))


def load_flags(*, workers: int = 1, threads: int | None = None) -> list[str]:
    """The flags of a load run: ``workers`` workers, a short grace and no drain, so it stops quickly."""
    flags = ["--workers", str(workers), "--grace-seconds", "5", "--drain-seconds", "0"]
    return flags if threads is None else [*flags, "--threads", str(threads)]


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
    """``tractor-rules serve`` on 127.0.0.1, ephemeral ports, with ``flags``: a context manager that stops it.

    ``env`` adds to its environment, ``metrics_dir`` is its ``PROMETHEUS_MULTIPROC_DIR`` (a temporary
    one, removed at the stop, when not given), ``log_path`` receives a copy of every log line and
    ``cpus`` pins it (and the workers it forks) to those CPUs.
    """

    def __init__(
        self,
        *flags: str,
        env: dict[str, str] | None = None,
        metrics_dir: Path | None = None,
        log_path: Path | None = None,
        cpus: set[int] | None = None,
    ) -> None:
        self._own_dir = metrics_dir is None
        self.metrics_dir = metrics_dir or Path(tempfile.mkdtemp(prefix="tractor-rules-serve-"))
        args = serve_args("--address", LOOPBACK, "--port", "0")
        args += ["--metrics-address", LOOPBACK, "--metrics-port", "0", *flags]
        self._copy: IO[str] | None = log_path.open("w", encoding="utf-8") if log_path else None
        self.proc = subprocess.Popen(
            args,
            cwd=ROOT,
            env=serve_env(self.metrics_dir, env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=pinned(cpus),  # noqa: PLW1509  # the child only sets its affinity, then execs
        )
        self.entries: queue.Queue[dict[str, Any]] = queue.Queue()
        self.log: collections.deque[dict[str, Any]] = collections.deque(maxlen=KEPT_ENTRIES)
        self.levels: collections.Counter[str] = collections.Counter()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        try:
            self.serving = self.wait_for("serving", START_TIMEOUT)
        except BaseException:
            self.stop(10)
            raise

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            if self._copy is not None:
                self._copy.write(line)
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                entry = {"msg": "non-json", "level": "error", "line": line.rstrip()}
            if not isinstance(entry, dict):
                entry = {"msg": "non-json", "level": "error", "line": line.rstrip()}
            self.levels[str(entry.get("level", "?"))] += 1
            self.log.append(entry)
            self.entries.put(entry)
        if self._copy is not None:
            self._copy.close()

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
        """The gRPC port the service listens on."""
        return int(self.serving["port"])

    @property
    def target(self) -> str:
        """``127.0.0.1:PORT``, as Locust's ``--host`` and grpc channels take it."""
        return f"{LOOPBACK}:{self.port}"

    @property
    def metrics_target(self) -> str:
        """``127.0.0.1:PORT`` of ``/metrics``, as a Prometheus scrape config names it."""
        return f"{LOOPBACK}:{self.serving['metrics_port']}"

    @property
    def metrics_url(self) -> str:
        """The service's Prometheus endpoint."""
        return f"http://{self.metrics_target}/metrics"

    def workers(self) -> list[int]:
        """The worker pids alive now."""
        return children(self.proc.pid)

    def cpu_seconds(self) -> float:
        """CPU used so far by the supervisor and its workers."""
        return process_tree_cpu(self.proc.pid)

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """SIGTERM (graceful drain), then the exit code: 0 after a clean stop, -9 if killed at ``timeout``."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            for pid in self.workers():
                with contextlib.suppress(ProcessLookupError):  # it may be gone already
                    os.kill(pid, signal.SIGKILL)
            self.proc.kill()
            self.proc.wait(10)
            code = -signal.SIGKILL
        self._reader.join(5)
        if self._own_dir:
            shutil.rmtree(self.metrics_dir, ignore_errors=True)
        return code

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop(30)
