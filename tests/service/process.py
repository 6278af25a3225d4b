"""Run ``tractor-rules serve`` as a subprocess on loopback and read its JSON log lines."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any, Self

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT = 60.0


class ServerProcess:
    """``python -m services.cli serve`` with the given flags; ``serving`` is its start-up log entry."""

    def __init__(self, metrics_dir: Path, *flags: str) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir)}
        args = [sys.executable, "-m", "services.cli", "serve", "--address", "127.0.0.1", "--port", "0"]
        args += ["--metrics-address", "127.0.0.1", "--metrics-port", "0", *flags]
        self.proc = subprocess.Popen(args, cwd=ROOT, env=env, stderr=subprocess.PIPE, text=True)
        self.entries: queue.Queue[dict[str, Any]] = queue.Queue()
        self.log: list[dict[str, Any]] = []
        threading.Thread(target=self._read, daemon=True).start()
        self.serving = self.wait_for("serving", START_TIMEOUT)

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                entry = {"msg": "non-json", "line": line}
            self.entries.put(entry)

    def wait_for(self, msg: str, timeout: float) -> dict[str, Any]:
        """The next log entry with this ``msg`` (earlier ones are kept in ``log``)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                entry = self.entries.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                break
            self.log.append(entry)
            if entry.get("msg") == msg:
                return entry
        raise AssertionError(
            f"no {msg!r} log entry within {timeout}s; exit code {self.proc.poll()}; log {self.log}"
        )

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.serving['port']}"

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.serving['metrics_port']}/metrics"

    def terminate(self, timeout: float) -> int:
        """SIGTERM, then the exit code (killed after ``timeout``; the test then fails on the code)."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
            return -9

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, *exc: tuple[type[BaseException] | None, BaseException | None, TracebackType | None]
    ) -> None:
        self.terminate(30)
