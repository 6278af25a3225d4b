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

A dead worker's clients reconnect at once, before its replacement listens, so they all land on the
survivors and the replacement would get no call until clients reconnect by themselves. After a
replacement the parent therefore recycles the surviving workers, one at a time and surge-style: fork a
new sibling, wait until it serves, then SIGTERM the old one, whose graceful shutdown ends with a GOAWAY
that makes its clients reconnect over every listening worker. SIGHUP recycles every worker the same way:
a zero-downtime reload, since each worker reads the certificates and token file when it starts (the
parent checks them first and refuses the reload if they cannot be used). A recycle is no death: it
leaves the restart budget alone, never leaves fewer serving workers than configured (at most one more),
and SIGTERM in the middle of one stops every worker, old, retiring and starting, as usual.
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

import rules_core
from services import logs, security
from services.config import ServerConfig
from services.metrics import serve_multiprocess, worker_restarts
from services.server import SignalEvent, bind_target, run_worker, stop_on_signals

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
    """Entry point of a forked worker (multiprocessing calls it, then exits with its status).

    A worker ignores SIGHUP: the parent answers it by recycling the workers, and a hangup sent to the
    whole process group must not kill them (each would count as a death).
    """
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    raise SystemExit(run_worker(config, port, ready_fd, parent))


def reload_on_sighup() -> threading.Event:
    """An event that SIGHUP sets (logged): the supervisor then recycles every worker."""
    reload = SignalEvent()

    def on_signal(signum: int, _frame: object) -> None:
        reload.set()
        _log.info("signal", extra={"signal": signal.Signals(signum).name})

    signal.signal(signal.SIGHUP, on_signal)
    return reload


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


class _Recycle:
    """A rolling recycle: the serving workers still to replace, oldest first, and the retiring ones.

    One worker at a time: its new sibling is forked and serving before the old one gets SIGTERM, and the
    next starts only once the old one has exited, so at least the configured number of workers serve
    throughout and at most one more process runs. Retiring workers stay in the supervisor's list (a
    SIGTERM to the service stops them with the rest) but are no longer counted as serving; their exit
    as asked is no death, but one that dies on its own while it drains counts against the budget.
    """

    def __init__(self) -> None:
        self.pending: list[BaseProcess] = []
        self.retiring: dict[BaseProcess, float] = {}  # SIGTERMed, and when to kill it if still there
        self._killed: set[BaseProcess] = set()  # retiring ones killed here past their deadline
        self.reason = ""

    def serving(self, workers: list[BaseProcess]) -> list[BaseProcess]:
        """The workers that are not retiring."""
        return [worker for worker in workers if worker not in self.retiring]

    def start(self, old: list[BaseProcess], reason: str) -> None:
        """Recycle every one of ``old`` (what was pending is in it or gone: it replaces the plan)."""
        if not old:
            return
        self.pending, self.reason = list(old), reason
        _log.info("recycling workers", extra={"reason": reason, "workers": [w.pid for w in old]})

    def forget(self, dead: BaseProcess) -> None:
        """A worker that died on its own is no longer to be recycled."""
        if dead in self.pending:
            self.pending.remove(dead)

    def retired(self, gone: BaseProcess) -> bool | None:
        """None when ``gone`` was not retiring; else whether it exited as asked (status 0, or killed here
        past the grace), which is no death, rather than dying on its own during its shutdown."""
        if gone not in self.retiring:
            return None
        del self.retiring[gone]
        clean = gone.exitcode == 0 or gone in self._killed
        self._killed.discard(gone)
        if clean:
            _log.info("retired worker exited", extra={"worker": gone.pid, "exitcode": gone.exitcode})
        return clean

    def step(
        self, config: ServerConfig, port: int, workers: list[BaseProcess], stop: threading.Event
    ) -> bool:
        """Advance the recycle by one worker when none is retiring; False when ``stop`` came meanwhile."""
        now = time.monotonic()
        for worker, deadline in self.retiring.items():
            if now > deadline and worker.exitcode is None:
                _log.error("retiring worker did not stop in time; killing it", extra={"worker": worker.pid})
                worker.kill()
                self._killed.add(worker)
                self.retiring[worker] = now + KILL_MARGIN_SECONDS
        if self.retiring:
            return True
        if not self.pending:
            if self.reason:
                _log.info("recycle done", extra={"reason": self.reason, "workers": [w.pid for w in workers]})
                self.reason = ""
            return True
        old = self.pending.pop(0)
        if old.exitcode is not None or old not in workers:  # died: the death handling replaces it
            return True
        _log.info(
            "recycling worker", extra={"worker": old.pid, "reason": self.reason, "left": len(self.pending)}
        )
        before = list(workers)
        fresh = _fork_workers(config, port, 1, workers, stop)
        if fresh is None:
            if stop.is_set():
                return False  # the caller stops every worker, the one starting too
            self._abandon([worker for worker in workers if worker not in before], workers, old)
            return True
        if old.exitcode is not None:  # died while its sibling started: the sibling serves in its place
            return True
        if old.pid is not None:  # always, once started
            with contextlib.suppress(ProcessLookupError):
                os.kill(old.pid, signal.SIGTERM)
        self.retiring[old] = time.monotonic() + config.grace_seconds + KILL_MARGIN_SECONDS
        _log.info(
            "worker recycled",
            extra={
                "worker": fresh[0].pid,
                "replaced": old.pid,
                "reason": self.reason,
                "workers": [w.pid for w in self.serving(workers)],
            },
        )
        return True

    def _abandon(self, failed: list[BaseProcess], workers: list[BaseProcess], old: BaseProcess) -> None:
        """A new sibling did not start (a reload with files that pass the parent's check but not gRPC's,
        or a start past the timeout): it goes, the old workers keep serving, the recycle stops."""
        for worker in failed:
            if worker.exitcode is None:
                worker.kill()
            worker.join(KILL_MARGIN_SECONDS)
            workers.remove(worker)
            if worker.pid is not None:
                multiprocess.mark_process_dead(worker.pid)  # type: ignore[no-untyped-call]
        _log.error(
            "recycle abandoned: the new worker did not start; the old ones keep serving",
            extra={
                "worker": old.pid,
                "reason": self.reason,
                "exitcode": [worker.exitcode for worker in failed],
            },
        )
        self.pending.clear()
        self.reason = ""


def _supervise(
    config: ServerConfig,
    port: int,
    workers: list[BaseProcess],
    stop: threading.Event,
    restarts: _Restarts,
    *,
    reload: threading.Event,
) -> int:
    """Watch the workers until ``stop``: replace the dead within the restart budget, then recycle the
    survivors so the replacements get calls; recycle every worker on ``reload``. The exit status."""
    recycle = _Recycle()
    while not stop.wait(POLL_SECONDS):
        replacements: list[BaseProcess] = []
        for dead in [worker for worker in workers if worker.exitcode is not None]:
            workers.remove(dead)
            if dead.pid is not None:
                multiprocess.mark_process_dead(dead.pid)  # type: ignore[no-untyped-call]
            clean = recycle.retired(dead)
            if clean:
                continue
            recycle.forget(dead)
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
            if len(recycle.serving(workers)) >= config.worker_count:  # it was being recycled
                restarts.replaced()
                _log.error(
                    "worker died; its new sibling serves in its place",
                    extra={"worker": dead.pid, "exitcode": dead.exitcode, "retiring": clean is not None},
                )
                continue
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
            replacements += fresh
            _log.info(
                "worker replaced",
                extra={"worker": fresh[0].pid, "replaced": dead.pid, "workers": [w.pid for w in workers]},
            )
        if replacements:  # the dead ones' clients are all on the survivors now: move some over
            survivors = [w for w in recycle.serving(workers) if w not in replacements]
            recycle.start(survivors, "rebalance")
        if reload.is_set():
            reload.clear()
            try:
                security.check(config)  # the files each new worker will read
            except ValueError as error:
                _log.error("reload refused; the workers keep serving", extra={"reason": str(error)})
            else:
                recycle.start(recycle.serving(workers), "reload")
        if not recycle.step(config, port, workers, stop):
            return 0
    return 0


def run(config: ServerConfig) -> int:
    """Serve until SIGTERM/SIGINT; 0 after a clean shutdown, 1 when the service failed."""
    stop = stop_on_signals()
    reload = reload_on_sighup()
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
                    "engine": rules_core.ENGINE,  # what workers start on; each logs its own
                    **protection,
                },
            )
            status = _supervise(config, port, workers, stop, restarts, reload=reload)
            return status
    finally:
        _stop_workers(workers, config)
        if metrics_server is not None:
            metrics_server.shutdown()
        _log.info("shut down", extra={"status": status})
