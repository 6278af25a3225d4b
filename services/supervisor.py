"""The parent process: reserve the port, fork the workers, serve ``/metrics``, relay SIGTERM.

As in gRPC's multiprocessing example, workers are forked before any gRPC object exists and each binds
the same port with SO_REUSEPORT, so the kernel spreads connections across them (Linux; macOS accepts
the option but does not balance, so run one worker there). The parent holds a bound, non-listening
socket on the port while the workers start, which also tells it the port when 0 asked for a free one.

The parent serves the metrics of all workers (prometheus_client multiprocess mode) and supervises:
SIGTERM or SIGINT is passed to every worker, which drains and stops within the grace period. A worker
that dies on its own takes the whole service down with exit status 1, so the orchestrator restarts
it cleanly rather than running with fewer workers than configured.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import select
import signal
import socket
import threading
import time
from collections.abc import Iterator
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import Final
from wsgiref.simple_server import WSGIServer

from prometheus_client import multiprocess

from services import logs
from services.config import ServerConfig
from services.metrics import serve_multiprocess
from services.server import run_worker

START_TIMEOUT_SECONDS: Final = 60.0
"""How long the workers get to bind and start before the parent gives up."""
POLL_SECONDS: Final = 0.2
"""How often the parent checks its workers."""
KILL_MARGIN_SECONDS: Final = 5.0
"""Beyond the grace period, how long the parent waits for a worker before killing it."""

_log = logs.get("supervisor")


@contextlib.contextmanager
def reserve_port(host: str, port: int) -> Iterator[int]:
    """Hold ``host:port`` (0 = any free port) with SO_REUSEPORT so the workers can share it."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host.strip("[]"), port))
        yield int(sock.getsockname()[1])
    finally:
        sock.close()


def _worker_main(config: ServerConfig, port: int, ready_fd: int, parent: int) -> None:
    """Entry point of a forked worker (multiprocessing calls it, then exits with its status)."""
    raise SystemExit(run_worker(config, port, ready_fd, parent))


def _wait_ready(read_fd: int, workers: list[BaseProcess], timeout: float) -> bool:
    """Wait until every worker has written its ready byte; False if one died or time ran out."""
    deadline = time.monotonic() + timeout
    ready = 0
    while ready < len(workers):
        left = deadline - time.monotonic()
        if left <= 0 or any(worker.exitcode is not None for worker in workers):
            return False
        readable, _, _ = select.select([read_fd], [], [], min(left, POLL_SECONDS))
        if readable:
            chunk = os.read(read_fd, len(workers))
            if not chunk:  # every write end closed: the workers are gone
                return False
            ready += len(chunk)
    return True


def _stop_workers(workers: list[BaseProcess], config: ServerConfig) -> None:
    """SIGTERM every live worker, wait for the grace period, kill stragglers, clean up their metrics."""
    for worker in workers:
        if worker.exitcode is None and worker.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(worker.pid, signal.SIGTERM)
    deadline = time.monotonic() + config.grace_seconds + KILL_MARGIN_SECONDS
    for worker in workers:
        worker.join(max(deadline - time.monotonic(), 0.0))
        if worker.exitcode is None:
            _log.error("worker did not stop in time; killing it", extra={"worker": worker.pid})
            worker.kill()
            worker.join(KILL_MARGIN_SECONDS)
        if worker.pid is not None:
            multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]


def _start_workers(config: ServerConfig, workers: list[BaseProcess]) -> int | None:
    """Fork the workers on the reserved port; the port once all of them serve, None if they cannot.

    ``workers`` is filled as they are forked, so the caller can stop them whatever happens.
    """
    context = multiprocessing.get_context("fork")
    parent = os.getpid()
    try:
        with reserve_port(config.address, config.port) as port:
            read_fd, write_fd = os.pipe()
            for _ in range(config.worker_count):
                worker = context.Process(
                    target=_worker_main, args=(config, port, write_fd, parent), name="tractor-rules-worker"
                )
                worker.start()
                workers.append(worker)
            os.close(write_fd)
            started = _wait_ready(read_fd, workers, START_TIMEOUT_SECONDS)
            os.close(read_fd)
    except OSError as error:
        _log.error(
            "cannot bind", extra={"address": config.address, "port": config.port, "reason": str(error)}
        )
        return None
    if not started:
        _log.error("workers failed to start", extra={"port": port})
        return None
    return port


def run(config: ServerConfig) -> int:
    """Serve until SIGTERM/SIGINT; 0 after a clean shutdown, 1 when the service failed."""
    stop = threading.Event()

    def on_signal(signum: int, _frame: FrameType | None) -> None:
        _log.info("signal", extra={"signal": signal.Signals(signum).name})
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    workers: list[BaseProcess] = []
    metrics_server: WSGIServer | None = None
    status = 1
    try:
        port = _start_workers(config, workers)
        if port is None:
            return status
        metrics_port = -1
        if config.metrics_port >= 0:
            try:
                metrics_server, metrics_port = serve_multiprocess(config.metrics_address, config.metrics_port)
            except OSError as error:
                _log.error("cannot bind metrics", extra={"port": config.metrics_port, "reason": str(error)})
                return status
        _log.info(
            "serving",
            extra={
                "port": port,
                "metrics_port": metrics_port,
                "workers": [worker.pid for worker in workers],
                "address": config.address,
            },
        )
        status = 0
        while not stop.wait(POLL_SECONDS):
            dead = [worker for worker in workers if worker.exitcode is not None]
            if dead:
                _log.error(
                    "worker exited unexpectedly; stopping",
                    extra={"worker": dead[0].pid, "exitcode": dead[0].exitcode},
                )
                status = 1
                break
        return status
    finally:
        _stop_workers(workers, config)
        if metrics_server is not None:
            metrics_server.shutdown()
        _log.info("shut down", extra={"status": status})
