"""The one interceptor every unary RPC passes through: statuses, deadlines, metrics and error logs.

Handlers return responses or raise typed errors; only this module builds statuses:

* ``InvalidRequestError`` -> INVALID_ARGUMENT, with ``google.rpc.BadRequest`` field violations and a
  ``google.rpc.ErrorInfo`` (domain ``rules.tractor``) in the rich status details;
* ``DeadlineExceededError``, or a request that arrives with its deadline already spent ->
  DEADLINE_EXCEEDED, before any rules work is done;
* a request whose bytes do not decode -> INVALID_ARGUMENT (gRPC would answer INTERNAL);
* anything else -> INTERNAL with a generic message; the traceback goes to the log, never to the wire.

Streaming handlers (health ``Watch``, reflection) are passed through untouched.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final, NoReturn, Protocol

import google.rpc.code_pb2 as rpc_code
import google.rpc.error_details_pb2 as rpc_details
import google.rpc.status_pb2 as rpc_status_pb2
import grpc
from google.protobuf import any_pb2
from google.protobuf.message import DecodeError
from grpc_status import rpc_status

from services import logs
from services.errors import DeadlineExceededError, FieldViolation, InvalidRequestError, Reason
from services.metrics import Metrics

ERROR_DOMAIN: Final = "rules.tractor"
INTERNAL_MESSAGE: Final = "internal error; the server log has the details"

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


class _Undecodable:
    """Stands in for a request whose bytes are not a valid message of the method's type."""

    def __init__(self, error: Exception) -> None:
        self.error = error


def _safe(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    """Wrap a deserializer so that bad bytes reach the interceptor instead of becoming INTERNAL."""
    if deserializer is None:
        return None

    def deserialize(data: bytes) -> Any:
        try:
            return deserializer(data)
        except (DecodeError, ValueError, TypeError) as error:  # upb raises DecodeError; be generous
            return _Undecodable(error)

    return deserialize


def check_deadline(context: Context) -> None:
    """Raise DeadlineExceededError when the caller's deadline has passed (checked between steps)."""
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        raise DeadlineExceededError


def bad_request_status(error: InvalidRequestError) -> Any:
    """The rich INVALID_ARGUMENT status of a malformed request (``grpc.Status`` for abort_with_status)."""
    bad_request = rpc_details.BadRequest(
        field_violations=[
            rpc_details.BadRequest.FieldViolation(
                field=violation.field, description=violation.description, reason=violation.reason.value
            )
            for violation in error.violations
        ]
    )
    info = rpc_details.ErrorInfo(
        reason=error.violations[0].reason.value,
        domain=ERROR_DOMAIN,
        metadata={"field": error.violations[0].field},
    )
    details = []
    for detail in (bad_request, info):
        packed = any_pb2.Any()
        packed.Pack(detail)
        details.append(packed)
    status = rpc_status_pb2.Status(
        code=rpc_code.INVALID_ARGUMENT, message=f"invalid request: {error}", details=details
    )
    return rpc_status.to_status(status)


class RpcInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]  # grpc is untyped
    """Maps errors to statuses and records the standard gRPC server metrics for every unary call."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics

    def intercept_service(self, continuation: Callable[[Any], Any], handler_call_details: Any) -> Any:
        """Wrap unary-unary handlers; leave streaming ones (health Watch, reflection) as they are."""
        handler = continuation(handler_call_details)
        if handler is None or handler.unary_unary is None:
            return handler
        full_method: str = handler_call_details.method
        behaviour = handler.unary_unary

        def wrapped(request: Any, context: Context) -> Any:
            return self._call(behaviour, request, context, full_method=full_method)

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
        *,
        full_method: str,
    ) -> Any:
        service, _, method = full_method.lstrip("/").rpartition("/")
        self._metrics.rpc_started(service, method)
        start = time.perf_counter()
        code = grpc.StatusCode.OK
        try:
            if isinstance(request, _Undecodable):
                raise InvalidRequestError(
                    FieldViolation("", Reason.UNKNOWN_VALUE, f"the request does not decode: {request.error}")
                )
            check_deadline(context)
            response = behaviour(request, context)
            code = context.code() or grpc.StatusCode.OK  # a handler may set a code (health NOT_FOUND)
            return response
        except InvalidRequestError as error:
            code = grpc.StatusCode.INVALID_ARGUMENT
            _log.warning(
                "invalid argument",
                extra={
                    "method": full_method,
                    "code": code.name,
                    "reason": str(error),
                    "field": error.violations[0].field,
                },
            )
            context.abort_with_status(bad_request_status(error))
        except DeadlineExceededError:
            code = grpc.StatusCode.DEADLINE_EXCEEDED
            _log.warning(
                "deadline exceeded", extra={"method": full_method, "code": code.name, "reason": "deadline"}
            )
            context.abort(code, "the deadline passed before the rules work was done")
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
            context.abort(code, INTERNAL_MESSAGE)
        finally:
            self._metrics.rpc_handled(service, method, code.name, time.perf_counter() - start)
