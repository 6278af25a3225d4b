"""Typed request errors: the servicer raises them, the interceptor turns them into statuses.

A malformed request is the caller's bug, not a rule outcome, so it travels as INVALID_ARGUMENT with a
``google.rpc.BadRequest`` naming the field by its path (``trick.plays[1].cards[0]``). Handlers never
build statuses themselves; that mapping lives in one place (``services.interceptor``).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules_core.errors import InvalidArgumentError, Problem

Reason = Problem
"""Machine-readable reason of a field violation (``BadRequest.FieldViolation.reason``): the engine's
problems are the service's reasons, one enum, so no engine error can reach a caller unmapped."""


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One bad field: its path in the request, a reason code and a sentence for people."""

    field: str
    reason: Reason
    description: str


class InvalidRequestError(Exception):
    """The request is malformed; mapped to INVALID_ARGUMENT with every violation listed."""

    def __init__(self, *violations: FieldViolation) -> None:
        if not violations:
            raise ValueError("an invalid request names at least one field")
        self.violations = violations
        first = violations[0]
        super().__init__(f"{first.field}: {first.description}")


def invalid(field: str, reason: Reason, description: str) -> InvalidRequestError:
    """Shorthand for the common case of a single bad field."""
    return InvalidRequestError(FieldViolation(field, reason, description))


def from_engine(error: InvalidArgumentError, prefix: str = "") -> InvalidRequestError:
    """The INVALID_ARGUMENT of a rules_core decision: its argument is already the request field's path
    (``prefix`` places it under a request field), its problem is the reason."""
    return invalid(error.within(prefix).argument, error.problem, error.message)


class DeadlineExceededError(Exception):
    """The caller's deadline passed before the work was done; mapped to DEADLINE_EXCEEDED."""


class WorkCeilingError(Exception):
    """The call has been in the server longer than the server's own ceiling (``max_request_seconds``),
    whatever the caller's deadline; mapped to RESOURCE_EXHAUSTED so an overloaded worker sheds work it
    would otherwise do for callers that have most likely given up."""

    def __init__(self, ceiling: float, elapsed: float) -> None:
        self.ceiling = ceiling
        self.elapsed = elapsed
        super().__init__(
            f"the call spent {elapsed:.3f} s in the server, past its work ceiling of {ceiling:g} s; "
            "retry later"
        )


class ClientGoneError(Exception):
    """The caller cancelled or disconnected: the rest of the work would be thrown away, so stop."""
