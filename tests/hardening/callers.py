"""Clients calling a live server back to back until stopped, every outcome recorded: the load of the
restart and recycle tests, which must see no failed call."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import grpc

from loadtest.contract import method_path


class Callers:
    """``clients`` threads, one channel each (with ``options``), calling ``calls`` in turn."""

    def __init__(
        self,
        target: str,
        clients: int,
        calls: Sequence[tuple[str, bytes]],
        *,
        options: Sequence[tuple[str, object]],
        timeout: float,
    ) -> None:
        self.codes: dict[grpc.StatusCode, int] = {}
        self.per_channel = [0] * clients
        self.failures: list[tuple[float, float, grpc.StatusCode, str]] = []
        """(started, ended, code, details) of each failed call, ``time.monotonic()`` seconds."""
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._calls = calls
        self._options = list(options)
        self._timeout = timeout
        self._threads = [threading.Thread(target=self._run, args=(target, i)) for i in range(clients)]
        for thread in self._threads:
            thread.start()

    def _run(self, target: str, index: int) -> None:
        with grpc.insecure_channel(target, options=self._options) as channel:
            turn = index
            while not self._stop.is_set():
                method, data = self._calls[turn % len(self._calls)]
                turn += 1
                started = time.monotonic()
                try:
                    channel.unary_unary(method_path(method))(data, timeout=self._timeout)
                    code, details = grpc.StatusCode.OK, ""
                except grpc.RpcError as error:
                    code, details = error.code(), error.details() or ""
                with self._lock:
                    self.codes[code] = self.codes.get(code, 0) + 1
                    self.per_channel[index] += 1
                    if code != grpc.StatusCode.OK:
                        self.failures.append((started, time.monotonic(), code, details))

    def count(self) -> int:
        """Calls answered so far, whatever the outcome."""
        with self._lock:
            return sum(self.codes.values())

    def connected(self, calls: int = 5) -> bool:
        """Every channel has made ``calls`` calls: its connection is up (it lasts: no reconnect follows)."""
        with self._lock:
            return min(self.per_channel) >= calls

    def stop(self) -> None:
        """Stop every client and wait for it."""
        self._stop.set()
        for thread in self._threads:
            thread.join(self._timeout + 10)
