"""The parent process: reserve the port, fork the workers, serve ``/metrics``, relay SIGTERM.

As in gRPC's multiprocessing example, workers are forked before any gRPC object exists and each binds
the same port with SO_REUSEPORT, so the kernel spreads connections across them (Linux; macOS accepts
the option but does not balance, so run one worker there). The parent holds a bound, non-listening
socket on the port while the workers start, which also tells it the port when 0 asked for a free one.

The parent serves the metrics of all workers (prometheus_client multiprocess mode) and supervises:
SIGTERM or SIGINT is passed to every worker, which drains and stops within the grace period. A worker
that dies on its own (killed, out of memory, a crash in native code) is replaced by a fresh fork on the
same port while the others keep serving; only its in-flight calls fail. The parent holds its port
reservation for its whole life, which keeps processes that bind without SO_REUSEPORT off the port; one
that sets it too (any process of the same user) could still share the port, so at start the parent
refuses a port that another process already serves (``check_not_served``), and a second server started
by mistake exits with status 1 instead of silently taking half the traffic.
More than ``worker_restarts`` deaths within a minute means something is wrong with the service itself:
it then stops with exit status 1 so the orchestrator can restart it whole (``worker_restarts`` 0: the
first death does).
"""

from __future__ import annotations

import contextlib
import errno
import multiprocessing
import os
import select
import signal
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from multiprocessing.process import BaseProcess
from typing import Final
from wsgiref.simple_server import WSGIServer

from prometheus_client import Counter, multiprocess

from services import logs, security
from services.config import ServerConfig
from services.metrics import serve_multiprocess, worker_restarts
from services.server import bind_target, run_worker, stop_on_signals

START_TIMEOUT_SECONDS: Final = 60.0
"""How long the workers get to bind and start before the parent gives up."""
POLL_SECONDS: Final = 0.2
"""How often the parent checks its workers."""
KILL_MARGIN_SECONDS: Final = 5.0
"""Beyond the grace period, how long the parent waits for a worker before killing it."""
RESTART_WINDOW_SECONDS: Final = 60.0
"""``worker_restarts`` counts the deaths within this sliding window."""

_log = logs.get("supervisor")


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def check_not_served(host: str, port: int) -> None:
    """Raise OSError (EADDRINUSE) when some socket already listens on ``host:port``.

    SO_REUSEPORT lets any process of the same user bind a port that another one serves, and the kernel
    then splits the connections between them: a second server started by mistake would take half the
    traffic in silence. The probe binds without SO_REUSEPORT (SO_REUSEADDR only, so sockets in
    TIME_WAIT and our own non-listening reservation do not count): that fails exactly when a socket
    listens on the address.
    """
    probe = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind((host.strip("[]"), port))
    except OSError as error:
        if error.errno == errno.EADDRINUSE:
            raise OSError(
                errno.EADDRINUSE, f"{bind_target(host, port)} is already served by another process"
            ) from None
        raise
    finally:
        probe.close()


@contextlib.contextmanager
def reserve_port(host: str, port: int) -> Iterator[int]:
    """Hold ``host:port`` (0 = any free port) with SO_REUSEPORT so the workers can share it.

    Refuses (OSError) a port that another process already serves (``check_not_served``). The reservation
    also sets SO_REUSEADDR, so that check, made after binding (port 0 has a number only then), does not
    trip over the reservation itself.
    """
    sock = socket.socket(_family(host), socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host.strip("[]"), port))
        bound = int(sock.getsockname()[1])
        check_not_served(host, bound)
        yield bound
    finally:
        sock.close()


def _worker_main(config: ServerConfig, port: int, ready_fd: int, parent: int) -> None:
    """Entry point of a forked worker (multiprocessing calls it, then exits with its status)."""
    raise SystemExit(run_worker(config, port, ready_fd, parent))


def _wait_ready(read_fd: int, workers: list[BaseProcess], timeout: float, stop: threading.Event) -> bool:
    """Wait until every worker has written its ready byte; False if one died, time ran out or we stop."""
    deadline = time.monotonic() + timeout
    ready = 0
    while ready < len(workers):
        left = deadline - time.monotonic()
        if left <= 0 or stop.is_set() or any(worker.exitcode is not None for worker in workers):
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


def _fork_workers(
    config: ServerConfig, port: int, count: int, workers: list[BaseProcess], stop: threading.Event
) -> list[BaseProcess] | None:
    """Fork ``count`` workers on the reserved ``port``; them once all serve, None if they cannot.

    Each is appended to ``workers`` as soon as it is forked, so the caller can stop it whatever happens.
    """
    context = multiprocessing.get_context("fork")
    parent = os.getpid()
    read_fd, write_fd = os.pipe()
    forked: list[BaseProcess] = []
    try:
        for _ in range(count):
            worker = context.Process(
                target=_worker_main, args=(config, port, write_fd, parent), name="tractor-rules-worker"
            )
            worker.start()
            workers.append(worker)
            forked.append(worker)
        os.close(write_fd)
        write_fd = -1
        started = _wait_ready(read_fd, forked, START_TIMEOUT_SECONDS, stop)
    finally:
        os.close(read_fd)
        if write_fd >= 0:
            os.close(write_fd)
    return forked if started else None


class _Restarts:
    """The deaths of the last minute, against the ``worker_restarts`` budget."""

    def __init__(self, budget: int) -> None:
        self._budget = budget
        self._deaths: list[float] = []
        # Made now, after the first workers are forked (they do not inherit it), so the series exists
        # at 0 from the start and increase() sees the first restart.
        self._counter: Counter = worker_restarts()

    def allow(self) -> bool:
        """Record one death; True when it may be replaced, False when the budget is spent."""
        now = time.monotonic()
        self._deaths = [t for t in self._deaths if now - t < RESTART_WINDOW_SECONDS] + [now]
        return len(self._deaths) <= self._budget

    def replaced(self) -> None:
        """Count a replacement in ``tractor_rules_worker_restarts_total``."""
        self._counter.inc()


def _supervise(
    config: ServerConfig, port: int, workers: list[BaseProcess], stop: threading.Event, restarts: _Restarts
) -> int:
    """Watch the workers until ``stop``; replace the dead within the restart budget. The exit status."""
    while not stop.wait(POLL_SECONDS):
        for dead in [worker for worker in workers if worker.exitcode is not None]:
            workers.remove(dead)
            if dead.pid is not None:
                multiprocess.mark_process_dead(dead.pid)  # type: ignore[no-untyped-call]
            if not restarts.allow():
                _log.error(
                    "worker died; too many deaths, stopping",
                    extra={
                        "worker": dead.pid,
                        "exitcode": dead.exitcode,
                        "worker_restarts": config.worker_restarts,
                        "window_seconds": RESTART_WINDOW_SECONDS,
                    },
                )
                return 1
            _log.error("worker died; replacing it", extra={"worker": dead.pid, "exitcode": dead.exitcode})
            # The parent now has the /metrics thread running; the child only builds a fresh gRPC server
            # and its own metrics files, and logging's locks are reset after a fork, so nothing the
            # child needs can be left locked by that thread.
            fresh = _fork_workers(config, port, 1, workers, stop)
            if fresh is None:
                if stop.is_set():
                    return 0
                _log.error("replacement worker failed to start; stopping", extra={"port": port})
                return 1
            restarts.replaced()
            _log.info(
                "worker replaced",
                extra={"worker": fresh[0].pid, "replaced": dead.pid, "workers": [w.pid for w in workers]},
            )
    return 0


def run(config: ServerConfig) -> int:
    """Serve until SIGTERM/SIGINT; 0 after a clean shutdown, 1 when the service failed."""
    stop = stop_on_signals()
    workers: list[BaseProcess] = []
    metrics_server: WSGIServer | None = None
    status = 1
    try:
        with contextlib.ExitStack() as stack:
            try:
                port = stack.enter_context(reserve_port(config.address, config.port))
                if config.health_port >= 0:  # the workers bind the reserved port
                    health = stack.enter_context(reserve_port(config.address, config.health_port))
                    config = replace(config, health_port=health)
            except OSError as error:
                _log.error(
                    "cannot bind",
                    extra={
                        "address": config.address,
                        "port": config.port,
                        "health_port": config.health_port,
                        "reason": str(error),
                    },
                )
                return status
            if _fork_workers(config, port, config.worker_count, workers, stop) is None:
                _log.error("workers failed to start", extra={"port": port})
                return status
            metrics_port = -1
            if config.metrics_port >= 0:
                try:
                    metrics_server, metrics_port = serve_multiprocess(
                        config.metrics_address, config.metrics_port
                    )
                except OSError as error:
                    _log.error(
                        "cannot bind metrics", extra={"port": config.metrics_port, "reason": str(error)}
                    )
                    return status
            protection = security.describe(config)
            if config.transport == "plaintext":
                _log.warning(
                    "serving PLAINTEXT gRPC: traffic is unencrypted"
                    + ("; bearer tokens cross the network in clear" if config.authenticates else "")
                    + ("" if config.authenticates else " and any client may call")
                    + "; for local use only (set --tls-cert/--tls-key, --tls-client-ca, --auth-token-file)",
                    extra=protection,
                )
            restarts = _Restarts(config.worker_restarts)
            _log.info(
                "serving",
                extra={
                    "port": port,
                    "metrics_port": metrics_port,
                    "health_port": config.health_port,
                    "workers": [worker.pid for worker in workers],
                    "address": config.address,
                    **protection,
                },
            )
            status = _supervise(config, port, workers, stop, restarts)
            return status
    finally:
        _stop_workers(workers, config)
        if metrics_server is not None:
            metrics_server.shutdown()
        _log.info("shut down", extra={"status": status})
