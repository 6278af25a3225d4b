"""One typed error for every failed call: the rich ``google.rpc.Status`` decoded, so nobody parses trailers.

The service puts a ``google.rpc.Status`` in the ``grpc-status-details-bin`` trailer of every non-OK
status it produces, with a ``google.rpc.ErrorInfo`` (domain ``rules.tractor``, a stable ``reason`` such
as ``UNKNOWN_VALUE`` or ``TOO_MANY_CALLS``, and metadata such as the field) and, for INVALID_ARGUMENT, a
``google.rpc.BadRequest`` naming each bad field (``trick.plays[1].cards[0]``). :class:`RulesError` is a
``grpc.RpcError`` with those parts as attributes. A stub over ``channel()`` or ``aio_channel()`` raises it
itself (their client interceptor), and so do the batchers:

    try:
        stub.ValidatePlay(request, timeout=2)
    except RulesError as failure:
        print(failure.code(), failure.reason, failure.field_violations)

A stub over a channel made otherwise raises gRPC's own error: ``RulesError.from_call(error)`` decodes it.
It needs neither grpcio-status nor anything of the server.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import grpc
from google.rpc import error_details_pb2, status_pb2

STATUS_DETAILS_KEY: Final = "grpc-status-details-bin"
"""Where gRPC carries the rich ``google.rpc.Status`` (what ``grpc_status.rpc_status`` reads)."""
BAD_REQUEST: Final = error_details_pb2.BadRequest.DESCRIPTOR.full_name
ERROR_INFO: Final = error_details_pb2.ErrorInfo.DESCRIPTOR.full_name
DOMAIN: Final = "rules.tractor"
"""The ErrorInfo domain of the service's own errors."""

_CODES: Final = {code.value[0]: code for code in grpc.StatusCode}

Metadata = tuple[tuple[str, str | bytes], ...]


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One bad field of a request: its path, the stable reason, and a sentence for people."""

    field: str
    reason: str
    description: str


class RulesError(grpc.RpcError):  # type: ignore[misc]  # grpc is untyped
    """A failed RulesService call, shaped like the ``grpc.RpcError`` gRPC raises, with its details decoded.

    ``code()``, ``details()`` and ``trailing_metadata()`` work as on a ``grpc.Call`` (so existing error
    handling and ``grpc_status.rpc_status.from_call`` keep working); ``status_code``, ``reason``,
    ``domain``, ``metadata`` and ``field_violations`` are the decoded ``google.rpc.Status``.
    """

    def __init__(self, code: grpc.StatusCode, details: str, trailing_metadata: Sequence[Any] = ()) -> None:
        super().__init__(f"{code.name}: {details}")
        self._code = code
        self._details = details
        self._trailing_metadata: Metadata = tuple((str(k), v) for k, v in trailing_metadata)
        self.status = _status(self._trailing_metadata)
        """The ``google.rpc.Status`` of the trailer, or None when the server sent none."""
        info = _unpacked(self.status, error_details_pb2.ErrorInfo, ERROR_INFO)
        self.reason: str = info[0].reason if info else ""
        """ErrorInfo's stable, machine-readable reason (``UNKNOWN_VALUE``, ``TOO_MANY_CALLS``...); empty
        when the status carries no ErrorInfo (a status gRPC itself produced, such as UNAVAILABLE)."""
        self.domain: str = info[0].domain if info else ""
        self.metadata: Mapping[str, str] = dict(info[0].metadata) if info else {}
        self.field_violations: tuple[FieldViolation, ...] = tuple(
            FieldViolation(v.field, v.reason, v.description)
            for bad in _unpacked(self.status, error_details_pb2.BadRequest, BAD_REQUEST)
            for v in bad.field_violations
        )

    @classmethod
    def from_call(cls, error: grpc.RpcError) -> RulesError:
        """The typed error of what a stub raised (a ``RulesError`` is returned as it is)."""
        if isinstance(error, RulesError):
            return error
        code = error.code() if callable(getattr(error, "code", None)) else grpc.StatusCode.UNKNOWN
        details = error.details() if callable(getattr(error, "details", None)) else str(error)
        metadata = error.trailing_metadata() if callable(getattr(error, "trailing_metadata", None)) else ()
        return cls(code or grpc.StatusCode.UNKNOWN, details or "", tuple(metadata or ()))

    @classmethod
    def from_status(cls, status: status_pb2.Status) -> RulesError:
        """The error a unary call ending with ``status`` raises."""
        code = _CODES.get(status.code, grpc.StatusCode.UNKNOWN)
        return cls(code, status.message, ((STATUS_DETAILS_KEY, status.SerializeToString()),))

    def code(self) -> grpc.StatusCode:
        """The status code, as ``grpc.Call.code()``."""
        return self._code

    def details(self) -> str:
        """The status message, as ``grpc.Call.details()``."""
        return self._details

    def initial_metadata(self) -> Metadata:
        """No initial metadata is kept (a batch call's is shared by all its callers)."""
        return ()

    def trailing_metadata(self) -> Metadata:
        """The trailing metadata, with the rich status under ``grpc-status-details-bin``."""
        return self._trailing_metadata

    @property
    def fields(self) -> tuple[str, ...]:
        """The paths of the bad fields, in the server's order (empty but for INVALID_ARGUMENT)."""
        return tuple(violation.field for violation in self.field_violations)


def _status(metadata: Metadata) -> status_pb2.Status | None:
    for key, value in metadata:
        if key == STATUS_DETAILS_KEY and isinstance(value, bytes):
            return status_pb2.Status.FromString(value)
    return None


def _unpacked(status: status_pb2.Status | None, kind: Any, name: str) -> list[Any]:
    """The details of one type in ``status``, unpacked."""
    found = []
    for detail in status.details if status is not None else ():
        if detail.TypeName() == name:
            message = kind()
            detail.Unpack(message)
            found.append(message)
    return found
