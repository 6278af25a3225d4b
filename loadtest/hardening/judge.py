"""What counts as a good answer to a hostile request, checked from outside (status, details, fields).

A request gets OK (a response that decodes), INVALID_ARGUMENT with a ``google.rpc.BadRequest`` whose
every violation names a field that exists in the request (with list indices inside the list actually
sent), or RESOURCE_EXHAUSTED with a message (too big, too many calls, past the work ceiling). Anything
else is a failure: INTERNAL or UNKNOWN (the service broke), DEADLINE_EXCEEDED (it hung past the
client's generous deadline), UNAVAILABLE (a worker died or stopped answering).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import grpc
from google.protobuf.descriptor import Descriptor
from google.protobuf.message import DecodeError, Message
from google.rpc import error_details_pb2, status_pb2

from loadtest.contract import RESPONSES

STATUS_DETAILS: Final = "grpc-status-details-bin"
BAD_REQUEST: Final = error_details_pb2.BadRequest.DESCRIPTOR.full_name
REASONS: Final = frozenset(
    {
        "MISSING",
        "UNKNOWN_VALUE",
        "TOO_MANY_COPIES",
        "BAD_SIZE",
        "OUT_OF_RANGE",
        "OUT_OF_ORDER",
        "INCONSISTENT",
        "MALFORMED",
    }
)
ANSWERS: Final = frozenset(
    {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED}
)
_SEGMENT: Final = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*|\d+)(?:\[(\d+)\])?$")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What came back for one call."""

    code: grpc.StatusCode
    details: str
    trailing: Sequence[tuple[str, Any]]
    response: bytes | None = None
    seconds: float = 0.0

    def violations(self) -> list[error_details_pb2.BadRequest.FieldViolation]:
        """The BadRequest field violations in the rich status, if any."""
        found: list[error_details_pb2.BadRequest.FieldViolation] = []
        for key, value in self.trailing:
            if key != STATUS_DETAILS:
                continue
            status = status_pb2.Status.FromString(value)
            for detail in status.details:
                if detail.TypeName() == BAD_REQUEST:
                    bad = error_details_pb2.BadRequest()
                    detail.Unpack(bad)
                    found.extend(bad.field_violations)
        return found


def resolve(path: str, descriptor: Descriptor, message: Message | None) -> str:
    """Empty when ``path`` names a field of ``descriptor`` (indices within ``message``'s lists when
    given), else why it does not. Numeric segments name unknown fields (``trick.99``)."""
    if not path:
        return "the violation names no field"
    current: Descriptor | None = descriptor
    value: Any = message
    for segment in path.split("."):
        match = _SEGMENT.match(segment)
        if match is None:
            return f"{path!r}: {segment!r} is not a field name"
        name, index = match.group(1), match.group(2)
        if current is None:
            return f"{path!r}: {segment!r} is below a scalar"
        if name.isdigit():
            if int(name) in current.fields_by_number:
                return f"{path!r}: field {name} is known as {current.fields_by_number[int(name)].name}"
            return ""  # an unknown field: nothing below it can be checked
        field = current.fields_by_name.get(name)
        if field is None:
            return f"{path!r}: {current.name} has no field {name!r}"
        value = getattr(value, name) if value is not None else None
        if index is not None:
            if not field.is_repeated:
                return f"{path!r}: {name} is not a list"
            if value is not None:
                if int(index) >= len(value):
                    return f"{path!r}: index {index} past the {len(value)} items sent"
                value = value[int(index)]
        current = field.message_type
    return ""


def judge(
    outcome: Outcome,
    *,
    method: str,
    descriptor: Descriptor,
    request: Message | None,
    oversized: bool = False,
) -> str:
    """Empty when ``outcome`` is a good answer to the request, else what is wrong with it."""
    code = outcome.code
    if code not in ANSWERS:
        return f"{code.name}: {outcome.details[:200]}"
    if code == grpc.StatusCode.OK:
        if oversized:
            return "an oversized request was answered OK"
        try:
            RESPONSES[method].FromString(outcome.response or b"")
        except DecodeError as error:
            return f"the response does not decode: {error}"
        return ""
    if not outcome.details:
        return f"{code.name} without a message"
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        return ""
    violations = outcome.violations()
    if not violations:
        return f"INVALID_ARGUMENT without a BadRequest: {outcome.details[:200]}"
    for violation in violations:
        if violation.reason not in REASONS:
            return f"unknown reason {violation.reason!r}"
        if not violation.description:
            return f"violation of {violation.field!r} without a description"
        if not violation.field and violation.reason == "MALFORMED":
            continue  # the request's own framing (a truncated tag): there is no field to name
        problem = resolve(violation.field, descriptor, request)
        if problem:
            return problem
    return ""
