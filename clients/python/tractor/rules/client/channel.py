"""Channels with the settings the service recommends: retries of its pure RPCs, keepalive, message limits.

    from tractor.rules.client import channel
    from tractor.rules.v1 import rules_service_pb2_grpc

    with channel("rules.internal:50051") as ch:
        rules = rules_service_pb2_grpc.RulesServiceStub(ch)

Every RulesService RPC is a pure function of its request, so retrying is always safe (``SERVICE_CONFIG``);
keepalive pings find a dead connection in about 80 s rather than the kernel's two hours; the message
limits are the server's default, so a request too big for the server fails in the client, before it is
sent. Callers still bound every call with a deadline (``timeout=``).

A call through these channels that fails raises :class:`~tractor.rules.client.RulesError` (a
``grpc.RpcError``) with the rich status decoded, from a stub's blocking call, ``with_call`` and
``future`` alike (a client interceptor, ``TypedErrors``); ``RulesError.from_call`` remains for errors
of channels made otherwise.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, Final

import grpc

from tractor.rules.client.errors import RulesError

SERVICE: Final = "tractor.rules.v1.RulesService"
ATTEMPT_TIMEOUT: Final = "6s"
"""How long one attempt may go unanswered before it is cancelled and retried: longer than the server
takes to answer any call (``--max-request-seconds``, 5 s by default, ends every call it holds), so only
a lost attempt reaches it. gRPC core can keep a connection that the server has closed READY while a
write of its own is pending, until a call on it is cancelled: a call made on such a connection would
wait for its whole deadline (``tests/hardening/test_rolling_restart.py`` caught one waiting 20 s on a
worker that had stopped). Cut after this long, the attempt's cancel closes the dead connection and the
retry goes to a live worker."""
SERVICE_CONFIG: Final = {
    "methodConfig": [
        {
            "name": [{"service": SERVICE}],
            "waitForReady": True,
            "retryPolicy": {
                "maxAttempts": 3,
                "initialBackoff": "0.05s",
                "maxBackoff": "0.5s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED"],
                "perAttemptRecvTimeout": ATTEMPT_TIMEOUT,
            },
        }
    ]
}
"""The client service config: every RulesService RPC is a pure function of its request, so retrying
UNAVAILABLE (a worker replaced or draining mid-call) is safe and hides it; and waiting for a connection,
rather than failing fast, rides out a reconnect that lands on a dying worker (the channel's reconnect
backoff is about a second). CANCELLED is retried too: a server that stops cancels the calls that reached
its gRPC core in the instant of the stop, before any handler saw them (gRPC core's "zombie" calls; no
server API avoids it), and an application's own cancel is never retried (gRPC stops retrying when the
caller cancels). An attempt unanswered for ``ATTEMPT_TIMEOUT`` is retried as well (gRPC core acts on
``perAttemptRecvTimeout`` only with ``grpc.experimental.enable_hedging``, set in ``CHANNEL_OPTIONS``; no
hedging policy is configured)."""
MAX_MESSAGE_BYTES: Final = 384 * 1024
"""The server's default message limit (``--max-message-bytes``): twice the largest legal request."""
KEEPALIVE_TIME_MS: Final = 60_000
KEEPALIVE_TIMEOUT_MS: Final = 20_000
"""A keepalive ping every minute while calls are open, the connection closed if one goes unanswered for
20 s; the server tolerates pings every 10 s (``--min-client-ping-seconds``), so these are never too many."""

CHANNEL_OPTIONS: Final[tuple[tuple[str, Any], ...]] = (
    ("grpc.service_config", json.dumps(SERVICE_CONFIG)),
    ("grpc.enable_retries", 1),
    ("grpc.experimental.enable_hedging", 1),  # what makes gRPC core honour perAttemptRecvTimeout
    ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
)
"""The options ``channel`` and ``aio_channel`` set; ``options`` given to them override by name."""

Options = Sequence[tuple[str, Any]]


def options(overrides: Options = ()) -> list[tuple[str, Any]]:
    """``CHANNEL_OPTIONS`` with ``overrides`` replacing options of the same name (and any others added).

    >>> dict(options([("grpc.keepalive_time_ms", 30_000)]))["grpc.keepalive_time_ms"]
    30000
    """
    merged = dict(CHANNEL_OPTIONS)
    merged.update(dict(overrides))
    return list(merged.items())


class _TypedOutcome(grpc.Call, grpc.Future):  # type: ignore[misc]  # grpc is untyped
    """A unary call's outcome (or future) whose failure is a ``RulesError``; the rest is the call's own."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def result(self, timeout: float | None = None) -> Any:
        try:
            return self._inner.result(timeout)
        except grpc.RpcError as error:
            raise RulesError.from_call(error) from None

    def exception(self, timeout: float | None = None) -> BaseException | None:
        error: BaseException | None = self._inner.exception(timeout)
        return RulesError.from_call(error) if isinstance(error, grpc.RpcError) else error

    def add_done_callback(self, fn: Callable[[Any], None]) -> None:
        self._inner.add_done_callback(lambda _: fn(self))

    def traceback(self, timeout: float | None = None) -> Any:
        return self._inner.traceback(timeout)

    def cancel(self) -> bool:
        return bool(self._inner.cancel())

    def cancelled(self) -> bool:
        return bool(self._inner.cancelled())

    def running(self) -> bool:
        return bool(self._inner.running())

    def done(self) -> bool:
        return bool(self._inner.done())

    def is_active(self) -> bool:
        return bool(self._inner.is_active())

    def time_remaining(self) -> float | None:
        remaining: float | None = self._inner.time_remaining()
        return remaining

    def add_callback(self, callback: Callable[[], None]) -> bool:
        return bool(self._inner.add_callback(callback))

    def initial_metadata(self) -> Any:
        return self._inner.initial_metadata()

    def trailing_metadata(self) -> Any:
        return self._inner.trailing_metadata()

    def code(self) -> grpc.StatusCode:
        return self._inner.code()

    def details(self) -> str:
        return str(self._inner.details())


class TypedErrors(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]  # grpc is untyped
    """The client interceptor of ``channel()``: a failed unary call raises ``RulesError``, not the bare
    ``grpc.RpcError`` gRPC raises, so ``except RulesError`` around a stub call catches it."""

    def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        return _TypedOutcome(continuation(client_call_details, request))


class AioTypedErrors(grpc.aio.UnaryUnaryClientInterceptor):  # type: ignore[misc]  # grpc is untyped
    """The same for ``aio_channel()``: awaiting a failed call raises ``RulesError``."""

    async def intercept_unary_unary(self, continuation: Any, client_call_details: Any, request: Any) -> Any:
        call = await continuation(client_call_details, request)
        try:
            await call
        except grpc.RpcError as error:
            raise RulesError.from_call(error) from None
        return call


def channel(
    target: str, *, credentials: grpc.ChannelCredentials | None = None, overrides: Options = ()
) -> grpc.Channel:
    """A blocking-API channel to ``target`` (``host:port``) with the recommended options; TLS when
    ``credentials`` are given (``grpc.ssl_channel_credentials(...)``), plaintext otherwise. Its failed
    calls raise ``RulesError``."""
    if credentials is None:
        raw = grpc.insecure_channel(target, options=options(overrides))
    else:
        raw = grpc.secure_channel(target, credentials, options=options(overrides))
    return grpc.intercept_channel(raw, TypedErrors())


def aio_channel(
    target: str, *, credentials: grpc.ChannelCredentials | None = None, overrides: Options = ()
) -> grpc.aio.Channel:
    """The same for asyncio (``grpc.aio``); create it inside the event loop that uses it. Awaiting a
    failed call raises ``RulesError``."""
    interceptors = [AioTypedErrors()]
    if credentials is None:
        return grpc.aio.insecure_channel(target, options=options(overrides), interceptors=interceptors)
    return grpc.aio.secure_channel(target, credentials, options=options(overrides), interceptors=interceptors)
