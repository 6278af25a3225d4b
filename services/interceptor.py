"""The one interceptor every unary RPC passes through: statuses, deadlines, limits, metrics and error logs.

Handlers return responses or raise typed errors; only this module builds statuses:

* ``InvalidRequestError`` -> INVALID_ARGUMENT, with ``google.rpc.BadRequest`` field violations and a
  ``google.rpc.ErrorInfo`` (domain ``rules.tractor``) in the rich status details;
* ``DeadlineExceededError``, or a request that arrives with its deadline already spent ->
  DEADLINE_EXCEEDED, before any rules work is done;
* ``WorkCeilingError``: the call has been in the worker longer than ``max_request_seconds`` (it queued
  behind others) -> RESOURCE_EXHAUSTED with an ErrorInfo, before more work is done;
* ``ClientGoneError``: the caller cancelled or disconnected -> the work stops (CANCELLED, for the metrics);
* a request whose bytes do not decode -> INVALID_ARGUMENT naming the malformed field (gRPC would answer
  INTERNAL);
* anything else -> INTERNAL with a generic message; the traceback goes to the log, never to the wire.

The checks run on arrival and wherever a handler calls :func:`check_deadline` between steps. Streaming
handlers (health ``Watch``, reflection) are passed through untouched.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Final, NoReturn, Protocol

import google.rpc.code_pb2 as rpc_code
import google.rpc.error_details_pb2 as rpc_details
import google.rpc.status_pb2 as rpc_status_pb2
import grpc
from google.protobuf import any_pb2
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import DecodeError
from grpc_status import rpc_status

from services import logs
from services.dispatch import ARRIVED
from services.errors import (
    ClientGoneError,
    DeadlineExceededError,
    FieldViolation,
    InvalidRequestError,
    Reason,
    WorkCeilingError,
)
from services.metrics import Metrics
from services.wireformat import locate

ERROR_DOMAIN: Final = "rules.tractor"
INTERNAL_MESSAGE: Final = "internal error; the server log has the details"
STATUS_DETAILS: Final = "grpc-status-details-bin"
WORK_CEILING: Final = "WORK_CEILING"
"""ErrorInfo reason of a call refused because it spent longer in the server than its ceiling."""
TOO_MANY_CALLS: Final = "TOO_MANY_CALLS"
"""ErrorInfo reason of a call refused because its worker holds ``max_concurrent_rpcs`` calls."""
DEADLINE_EXCEEDED: Final = "DEADLINE_EXCEEDED"
"""ErrorInfo reason of a call whose deadline passed before the rules work was done."""
CALLER_GONE: Final = "CALLER_GONE"
"""ErrorInfo reason of a call whose caller cancelled or went away (nobody reads it; logs and metrics do)."""
INTERNAL: Final = "INTERNAL"
"""ErrorInfo reason of an unexpected failure (the details are in the server log, never on the wire)."""
MISSING_CREDENTIALS: Final = "MISSING_CREDENTIALS"
INVALID_CREDENTIALS: Final = "INVALID_CREDENTIALS"
UNKNOWN_METHOD: Final = "UNKNOWN_METHOD"

_log = logs.get("rpc")


class Context(Protocol):
    """The parts of ``grpc.ServicerContext`` the service uses (grpc ships no type stubs)."""

    def time_remaining(self) -> float | None:
        """Seconds left before the caller's deadline, or None without one."""

    def abort(self, code: Any, details: str) -> NoReturn:
        """End the call with a status."""

    def abort_with_status(self, status: Any) -> NoReturn:
        """End the call with a rich status."""

    def code(self) -> Any:
        """The status code set so far, if any."""

    def is_active(self) -> bool:
        """False once the caller has cancelled, disconnected or run out of time."""


class CallContext:
    """A call's gRPC context plus the server's own ceiling on the call's time (``max_request_seconds``).

    The clock starts when the call arrives (the interceptor is consulted on gRPC's polling thread,
    before the call queues for a worker thread), so time spent waiting behind other calls counts.
    Everything else is the gRPC context's.
    """

    __slots__ = ("_arrived", "_ceiling", "_context")

    def __init__(self, context: Any, *, arrived: float, ceiling: float) -> None:
        self._context = context
        self._arrived = arrived
        self._ceiling = ceiling

    def time_remaining(self) -> float | None:
        """Seconds left before the caller's deadline, or None without one."""
        remaining: float | None = self._context.time_remaining()
        return remaining

    def abort(self, code: Any, details: str) -> NoReturn:
        """End the call with a status."""
        self._context.abort(code, details)
        raise AssertionError("grpc's abort returned")  # pragma: no cover - abort always raises

    def abort_with_status(self, status: Any) -> NoReturn:
        """End the call with a rich status."""
        self._context.abort_with_status(status)
        raise AssertionError("grpc's abort_with_status returned")  # pragma: no cover

    def code(self) -> Any:
        """The status code set so far, if any."""
        return self._context.code()

    def is_active(self) -> bool:
        """False once the caller has cancelled, disconnected or run out of time."""
        return bool(self._context.is_active())

    def check_ceiling(self) -> None:
        """Raise WorkCeilingError once the call has been in the server longer than its ceiling."""
        if self._ceiling:
            elapsed = time.monotonic() - self._arrived
            if elapsed > self._ceiling:
                raise WorkCeilingError(self._ceiling, elapsed)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)


class _Undecodable:
    """Stands in for a request whose bytes are not a valid message of the method's type."""

    def __init__(self, error: Exception, data: bytes, descriptor: Descriptor | None) -> None:
        self.error = error
        self.data = data
        self.descriptor = descriptor

    def violation(self) -> FieldViolation:
        """The malformed field, found by walking the bytes with the request's descriptor."""
        found = locate(self.data, self.descriptor) if self.descriptor is not None else None
        if found is not None:
            return FieldViolation(found.field, Reason.MALFORMED, found.describe())
        return FieldViolation("", Reason.MALFORMED, f"the request does not decode: {self.error}")


def _safe(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """Wrap a deserializer so that bad bytes reach the interceptor instead of becoming INTERNAL."""
    if deserializer is None:
        return None
    message_class = getattr(deserializer, "__self__", None)  # FromString is a classmethod of the type
    descriptor = getattr(message_class, "DESCRIPTOR", None)

    def deserialize(data: bytes) -> Any:
        try:
            return deserializer(data)
        except (DecodeError, ValueError, TypeError) as error:  # upb raises DecodeError; be generous
            return _Undecodable(error, data, descriptor if isinstance(descriptor, Descriptor) else None)

    return deserialize


def check_deadline(context: Context) -> None:
    """Stop a call that should not go on; handlers call it between steps.

    Raises DeadlineExceededError when the caller's deadline has passed, WorkCeilingError when the call
    has been in the server longer than its ceiling, ClientGoneError when the caller is gone.
    """
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise DeadlineExceededError
    if isinstance(context, CallContext):
        context.check_ceiling()
    if not context.is_active():
        raise ClientGoneError


def invalid_status(error: InvalidRequestError, prefix: str = "") -> rpc_status_pb2.Status:
    """The ``google.rpc.Status`` of a malformed request: INVALID_ARGUMENT with a BadRequest naming every
    bad field and an ErrorInfo; ``prefix`` (``items[3].``) places the fields inside a batch item."""
    bad_request = rpc_details.BadRequest(
        field_violations=[
            rpc_details.BadRequest.FieldViolation(
                field=prefix + violation.field,
                description=violation.description,
                reason=violation.reason.value,
            )
            for violation in error.violations
        ]
    )
    first = error.violations[0]
    info = rpc_details.ErrorInfo(
        reason=first.reason.value, domain=ERROR_DOMAIN, metadata={"field": prefix + first.field}
    )
    details = []
    for detail in (bad_request, info):
        packed = any_pb2.Any()
        packed.Pack(detail)
        details.append(packed)
    message = f"invalid request: {prefix}{first.field}: {first.description}"
    return rpc_status_pb2.Status(code=rpc_code.INVALID_ARGUMENT, message=message, details=details)


def bad_request_status(error: InvalidRequestError) -> Any:
    """The rich INVALID_ARGUMENT status of a malformed request (``grpc.Status`` for abort_with_status)."""
    return rpc_status.to_status(invalid_status(error))


def rich_status(code: int, reason: str, message: str, **metadata: str) -> rpc_status_pb2.Status:
    """A ``google.rpc.Status`` whose details carry a ``google.rpc.ErrorInfo`` (this service's domain and
    a stable ``reason`` a client can branch on): every non-OK status the service produces has one."""
    packed = any_pb2.Any()
    packed.Pack(rpc_details.ErrorInfo(reason=reason, domain=ERROR_DOMAIN, metadata=metadata))
    return rpc_status_pb2.Status(code=code, message=message, details=[packed])


def trailers(status: rpc_status_pb2.Status) -> tuple[tuple[str, bytes], ...]:
    """The trailing metadata that carries a rich status (``grpc-status-details-bin``)."""
    return ((STATUS_DETAILS, status.SerializeToString()),)


def ceiling_status(error: WorkCeilingError) -> Any:
    """The RESOURCE_EXHAUSTED status of a call past its work ceiling, with an ErrorInfo saying so."""
    return rpc_status.to_status(
        rich_status(
            rpc_code.RESOURCE_EXHAUSTED,
            WORK_CEILING,
            str(error),
            ceiling_seconds=f"{error.ceiling:g}",
            elapsed_seconds=f"{error.elapsed:.3f}",
        )
    )


def overload_trailers() -> tuple[tuple[tuple[str, bytes], ...], bytes]:
    """What a call refused for the worker's call limit gets: RESOURCE_EXHAUSTED, ErrorInfo TOO_MANY_CALLS."""
    message = "the worker holds as many calls as it may (max_concurrent_rpcs); retry with backoff"
    return trailers(rich_status(rpc_code.RESOURCE_EXHAUSTED, TOO_MANY_CALLS, message)), message.encode()


def unauthenticated_status(problem: str) -> Any:
    """UNAUTHENTICATED with an ErrorInfo: MISSING_CREDENTIALS, or INVALID_CREDENTIALS with the problem."""
    reason = MISSING_CREDENTIALS if problem.startswith("missing") else INVALID_CREDENTIALS
    message = f"a valid bearer token is required (authorization: Bearer <token>): {problem}"
    return rpc_status.to_status(rich_status(rpc_code.UNAUTHENTICATED, reason, message))


def unknown_method_status(method: str) -> Any:
    """UNIMPLEMENTED for a method the server does not have, with an ErrorInfo (UNKNOWN_METHOD)."""
    shown = method if len(method) <= 200 else method[:200] + "…"
    return rpc_status.to_status(
        rich_status(rpc_code.UNIMPLEMENTED, UNKNOWN_METHOD, f"no method {shown}; see server reflection")
    )


def _unknown_method(method: str) -> Any:
    """A handler that reads nothing and ends the call UNIMPLEMENTED (made per call: not cached, so a
    caller inventing method names grows nothing)."""
    status = unknown_method_status(method)

    def refuse(_requests: Any, context: Any) -> Any:
        context.abort_with_status(status)

    return grpc.stream_unary_rpc_method_handler(refuse)


def _status_of(code: int, reason: str, message: str) -> Any:
    return rpc_status.to_status(rich_status(code, reason, message))


class RpcInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]  # grpc is untyped
    """Maps errors to statuses and records the standard gRPC server metrics for every unary call."""

    def __init__(self, metrics: Metrics, *, max_request_seconds: float = 0.0) -> None:
        self._metrics = metrics
        self._ceiling = max_request_seconds
        self._throttle = logs.Throttle()
        self._wrapped: dict[Any, Any] = {}
        """Handler -> its wrapper: one per registered method (and per refusal handler, see security)."""

    def _client_error(self, msg: str, extra: dict[str, Any], level: int = logging.WARNING) -> None:
        """Log a problem the caller caused, within the throttle (a bad client cannot flood the log)."""
        logs.throttled(_log, self._throttle, level, msg, extra)

    def intercept_service(self, continuation: Callable[[Any], Any], handler_call_details: Any) -> Any:
        """Wrap unary-unary handlers, once per handler (a method's wrapper is built on its first call and
        reused); leave streaming ones (health Watch, reflection) as they are."""
        handler = continuation(handler_call_details)
        if handler is None:  # nothing serves it: UNIMPLEMENTED with an ErrorInfo, not a bare status
            return _unknown_method(str(handler_call_details.method))
        if handler.unary_unary is None:
            return handler
        wrapped = self._wrapped.get(handler)
        if wrapped is None:
            wrapped = self._wrapped[handler] = self._wrap(handler_call_details.method, handler)
        return wrapped

    def _wrap(self, full_method: str, handler: Any) -> Any:
        """The handler with statuses, deadlines, the ceiling and metrics around its behaviour."""
        behaviour = handler.unary_unary
        ceiling = self._ceiling
        service, _, method = full_method.lstrip("/").rpartition("/")
        names = (service, method)

        def wrapped(request: Any, context: Any) -> Any:
            # the call's arrival, stamped by the pool before it queued (or now, in a plain pool)
            arrived = ARRIVED.get(None) or time.monotonic()
            call = CallContext(context, arrived=arrived, ceiling=ceiling)
            return self._call(behaviour, request, call, full_method, names)

        return grpc.unary_unary_rpc_method_handler(
            wrapped,
            request_deserializer=_safe(handler.request_deserializer),
            response_serializer=handler.response_serializer,
        )

    def _call(
        self,
        behaviour: Callable[[Any, Context], Any],
        request: Any,
        context: Context,
        full_method: str,
        names: tuple[str, str],
    ) -> Any:
        service, method = names
        self._metrics.rpc_started(service, method)
        start = time.perf_counter()
        code = grpc.StatusCode.OK
        try:
            check_deadline(context)
            if isinstance(request, _Undecodable):
                raise InvalidRequestError(request.violation())
            response = behaviour(request, context)
            code = context.code() or grpc.StatusCode.OK  # a handler may set a code (health NOT_FOUND)
            return response
        except InvalidRequestError as error:
            code = grpc.StatusCode.INVALID_ARGUMENT
            self._client_error(
                "invalid argument",
                {
                    "method": full_method,
                    "code": code.name,
                    "reason": str(error),
                    "field": error.violations[0].field,
                },
            )
            context.abort_with_status(bad_request_status(error))
        except DeadlineExceededError:
            code = grpc.StatusCode.DEADLINE_EXCEEDED
            self._client_error(
                "deadline exceeded", {"method": full_method, "code": code.name, "reason": "deadline"}
            )
            context.abort_with_status(
                _status_of(
                    rpc_code.DEADLINE_EXCEEDED,
                    DEADLINE_EXCEEDED,
                    "the deadline passed before the rules work was done",
                )
            )
        except WorkCeilingError as error:
            code = grpc.StatusCode.RESOURCE_EXHAUSTED
            self._client_error(
                "work ceiling", {"method": full_method, "code": code.name, "reason": str(error)}
            )
            context.abort_with_status(ceiling_status(error))
        except ClientGoneError:
            code = grpc.StatusCode.CANCELLED  # nobody will read it: the metrics and the log say what happened
            self._client_error(
                "caller gone", {"method": full_method, "code": code.name, "reason": "cancelled"}, logging.INFO
            )
            context.abort_with_status(
                _status_of(rpc_code.CANCELLED, CALLER_GONE, "the caller cancelled the call")
            )
        except Exception as error:
            aborted = context.code()
            if aborted is not None and aborted != grpc.StatusCode.OK:  # the handler aborted on purpose
                code = aborted
                raise
            code = grpc.StatusCode.INTERNAL
            _log.exception(
                "internal error",
                extra={
                    "method": full_method,
                    "code": code.name,
                    "reason": f"{type(error).__name__}: {error}",
                },
            )
            context.abort_with_status(_status_of(rpc_code.INTERNAL, INTERNAL, INTERNAL_MESSAGE))
        finally:
            self._metrics.rpc_handled(service, method, code.name, time.perf_counter() - start)
