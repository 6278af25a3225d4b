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

The deferral uses grpc's private ``grpc._server`` helpers of the pinned grpcio (``GRPCIO_VERSION``), with
the exact semantics of its own ``_unary_request``; any other version, or a call it does not recognise
(streaming RPCs: health ``Watch``, reflection), goes through the plain pool as before.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Callable
from concurrent import futures
from typing import Any, Final

import grpc

from services import logs

GRPCIO_VERSION: Final = "1.85.1"
"""The grpcio whose private server internals the deferral was written and tested against."""
REAP_SECONDS: Final = 0.25
"""How often stalled calls are looked at (only while some are waiting)."""

ARRIVED: Final[contextvars.ContextVar[float]] = contextvars.ContextVar("tractor_rules_arrived")
"""``time.monotonic()`` when the call's headers arrived, set in the call's own context before it queues."""

_log = logs.get("dispatch")

try:  # the pinned grpcio's private server API; without it every call takes the plain path
    from grpc import _server
    from grpc._cython import cygrpc

    _DEFERRABLE = grpc.__version__ == GRPCIO_VERSION and all(
        hasattr(_server, name)
        for name in (
            "_unary_response_in_pool",
            "_receive_message",
            "_is_rpc_state_active",
            "_abort",
            "_RECEIVE_MESSAGE_TOKEN",
            "_CLOSED",
            "_EMPTY_FLAGS",
        )
    )
except ImportError:  # pragma: no cover - grpcio always ships both
    _DEFERRABLE = False

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
        self.deferrable = _DEFERRABLE

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> futures.Future[Any]:
        """gRPC's ``submit(context.run, _unary_response_in_pool, rpc_event, state, ...)``: deferred until
        the body is there; anything else runs as submitted."""
        arrived = time.monotonic()
        if not (self.deferrable and not kwargs and _reads_one_request(args)):
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
        receive = _server._receive_message(state, rpc_event.call, deserializer)
        key = id(state)

        def take() -> Any:
            return _take_request(rpc_event, state)

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
            if not _server._is_rpc_state_active(state):
                self._release(done)
                return done
            with self._lock:
                self._awaiting[key] = (arrived, rpc_event.call)
            rpc_event.call.start_server_batch(
                (cygrpc.ReceiveMessageOperation(_server._EMPTY_FLAGS),), received
            )
            state.due.add(_server._RECEIVE_MESSAGE_TOKEN)
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
        with state.condition:
            state.trailing_metadata = trailing
            _server._abort(state, rpc_event.call, cygrpc.StatusCode.resource_exhausted, details)

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
                call.cancel(cygrpc.StatusCode.cancelled, "the request body did not arrive in time")
            if stale:
                logs.throttled(
                    _log,
                    _THROTTLE,
                    30,
                    "stalled calls cancelled",
                    {"code": "CANCELLED", "reason": "request body not received", "calls": len(stale)},
                )


_THROTTLE: Final = logs.Throttle()


def _reads_one_request(args: tuple[Any, ...]) -> bool:
    """Whether gRPC submitted a call whose request is one message it would wait for in the pool thread:
    a unary-unary call, or a unary-stream one (health ``Watch``), whose argument is ``_unary_request``."""
    if len(args) != 7:
        return False
    job, thunk = args[0], args[4]
    if job is _server._unary_response_in_pool:
        return True
    return job is _server._stream_response_in_pool and getattr(thunk, "__qualname__", "").startswith(
        "_unary_request."
    )


def _take_request(rpc_event: Any, state: Any) -> Any:
    """The request once the receive completed: what grpc's own ``_unary_request`` returns after its wait
    (None, after answering UNIMPLEMENTED, for a stream that ended without a message)."""
    with state.condition:
        if state.request is None:
            if state.client is _server._CLOSED:
                details = f'"{rpc_event.call_details.method.decode()}" requires exactly one request message.'
                _server._abort(state, rpc_event.call, cygrpc.StatusCode.unimplemented, details.encode())
            return None
        request, state.request = state.request, None
        return request
