"""How a call gets a thread: a unary call's request body is read before any pool thread is spent on it.

gRPC's synchronous server hands each call to a pool thread as soon as its headers arrive, and that thread
then waits for the request body. A client that sends headers and part of a body and then stalls holds a
thread for as long as it likes: with 8 threads a worker stops answering anyone, health checks included,
and the service's own work ceiling never starts because no handler runs. A bigger pool only moves that
limit (each stalled stream is a parked thread).

:class:`BodyFirstPool` is the worker's thread pool. For a unary call it starts the receive of the body on
gRPC's polling thread (where the call arrived) and gives the call to a pool thread only once the body is
there, so the pool only ever runs calls that are ready to be handled. A stalled stream costs a few KiB of
call state and no thread. What it keeps track of:

* the calls whose body has not arrived (reported a few times a second, ``/metrics``:
  ``tractor_rules_requests_awaiting_body``), each cancelled once it has waited ``body_timeout`` seconds
  (the server's work ceiling), so a stalled stream frees its slot by itself;
* unary-stream calls (health ``Watch``) are deferred the same way: only their one request is read first;
* a limit on the calls a worker holds (awaiting, queued and running): past it a call is refused at once,
  on the polling thread, with RESOURCE_EXHAUSTED and a ``google.rpc.ErrorInfo`` (``TOO_MANY_CALLS``).

The deferral uses grpc's private server internals, all of them behind ``services.grpc_private`` (checked
against one grpcio version). On any other version, when turned off (``--body-first false``), or for a
call it does not recognise (streaming RPCs: reflection), calls go through the plain pool: then nothing
defers a body and the pool enforces no limit, so the server hands ``limit`` to gRPC's own
``maximum_concurrent_rpcs`` instead (``create_server``).
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from concurrent import futures
from typing import Any, Final

from services import grpc_private, logs

REAP_SECONDS: Final = 0.25
"""How often stalled calls are looked at (only while some are waiting)."""

ARRIVED: Final[contextvars.ContextVar[float]] = contextvars.ContextVar("tractor_rules_arrived")
"""``time.monotonic()`` when the call's headers arrived, set in the call's own context before it queues."""

_log = logs.get("dispatch")

Rejection = Callable[[], tuple[Any, bytes]]
"""Returns (trailing metadata with the rich status, details) for a call refused for the limit."""


class BodyFirstPool(futures.ThreadPoolExecutor):
    """A thread pool for ``grpc.server`` that runs a unary call only once its request body has arrived.

    ``limit`` bounds the calls held at once (0: none); ``body_timeout`` bounds the wait for a body
    (0: none); ``reject`` builds the refusal's trailing metadata; ``report`` is told how many calls
    await their body, a few times a second while any do (and 0 once none do).
    """

    def __init__(
        self,
        max_workers: int,
        *,
        limit: int = 0,
        body_timeout: float = 0.0,
        reject: Rejection | None = None,
        report: Callable[[int], None] | None = None,
        thread_name_prefix: str = "rpc",
        defer: bool = True,
    ) -> None:
        super().__init__(max_workers=max_workers, thread_name_prefix=thread_name_prefix)
        self._limit = limit
        self._body_timeout = body_timeout
        self._reject = reject
        self._report = report
        self._lock = threading.Lock()
        self._awaiting: dict[int, tuple[float, Any]] = {}
        """id(call state) -> (arrival, the call) for calls whose body has not arrived."""
        self._held = 0
        """Calls received or queued or running (awaiting ones included)."""
        self._reaper: threading.Thread | None = None
        self._wake = threading.Event()
        supported, self.why_not = grpc_private.available()
        self.deferrable = defer and supported
        """Whether bodies are read before a thread is spent (else the plain pool, no limit enforced)."""
        if not defer:
            self.why_not = "turned off (--body-first false)"

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> futures.Future[Any]:
        """gRPC's ``submit(context.run, _unary_response_in_pool, rpc_event, state, ...)``: deferred until
        the body is there; anything else runs as submitted."""
        arrived = time.monotonic()
        if not (self.deferrable and not kwargs and grpc_private.reads_one_request(args)):
            return self._count(super().submit(fn, *args, **kwargs))
        job, rpc_event, state, behavior, _wait_for_body, deserializer, serializer = args
        state.context.run(ARRIVED.set, arrived)
        done: futures.Future[Any] = futures.Future()
        done.set_running_or_notify_cancel()
        with self._lock:
            full = bool(self._limit) and self._held >= self._limit
            if not full:
                self._held += 1
        if full:
            self._refuse(rpc_event, state)
            done.set_result(None)
            return done
        receive = grpc_private.receiver(state, rpc_event, deserializer)
        key = id(state)

        def take() -> Any:
            return grpc_private.take_request(rpc_event, state)

        def received(event: Any) -> Any:
            """The body (or the end of the stream) arrived: now the call gets a thread."""
            self._arrived(key)
            outcome = receive(event)  # sets state.request, or marks the client closed or cancelled
            try:
                ran = super(BodyFirstPool, self).submit(
                    fn, job, rpc_event, state, behavior, take, deserializer, serializer
                )
            except RuntimeError:  # the pool is shutting down: the call ends with the server
                self._release(done)
                return outcome
            ran.add_done_callback(lambda _ran: self._release(done))
            return outcome

        with state.condition:
            with self._lock:
                self._awaiting[key] = (arrived, rpc_event.call)
            started = grpc_private.start_receive(state, rpc_event, received)
        if not started:
            self._arrived(key)
            self._release(done)
            return done
        self._watch()
        return done

    def _count(self, future: futures.Future[Any]) -> futures.Future[Any]:
        with self._lock:
            self._held += 1
        future.add_done_callback(lambda _f: self._release(None))
        return future

    def _release(self, done: futures.Future[Any] | None) -> None:
        with self._lock:
            self._held -= 1
        if done is not None and not done.done():
            done.set_result(None)

    def _arrived(self, key: int) -> None:
        with self._lock:
            self._awaiting.pop(key, None)

    def _refuse(self, rpc_event: Any, state: Any) -> None:
        """RESOURCE_EXHAUSTED at once, from the polling thread, with the rich status in the trailers."""
        trailing, details = self._reject() if self._reject else ((), b"too many calls")
        grpc_private.refuse(state, rpc_event, trailing, details)

    def _watch(self) -> None:
        """Start the reaper of stalled calls once, when it has something to watch."""
        if not (self._body_timeout or self._report):
            return
        self._wake.set()
        if self._reaper is None:
            with self._lock:
                if self._reaper is None:
                    self._reaper = threading.Thread(target=self._reap, name="rpc-reaper", daemon=True)
                    self._reaper.start()

    def _reap(self) -> None:
        """Cancel calls whose body has not arrived within ``body_timeout``; sleep while none wait."""
        while True:
            self._wake.wait()
            time.sleep(REAP_SECONDS)
            now = time.monotonic()
            timeout = self._body_timeout
            with self._lock:
                waiting = len(self._awaiting)
                stale = [call for since, call in self._awaiting.values() if timeout and now - since > timeout]
                if not self._awaiting:
                    self._wake.clear()
            if self._report:
                self._report(waiting)
            for call in stale:
                grpc_private.cancel(call, "the request body did not arrive in time")
            if stale:
                logs.throttled(
                    _log,
                    _THROTTLE,
                    30,
                    "stalled calls cancelled",
                    {"code": "CANCELLED", "reason": "request body not received", "calls": len(stale)},
                )


_THROTTLE: Final = logs.Throttle()
