"""The engine's one error: an argument no game can produce (an unknown card, a third copy, a seat 4).

An illegal play is an answer (``verdicts``); a malformed argument is the caller's bug and raises
:class:`InvalidArgumentError`. It names the argument by its path, spelled like the service's request fields
(``trick.plays[1].cards[0]``, ``tao_dou.overturn_multiplier``), so the service passes it through as the
field of its INVALID_ARGUMENT without checking the same thing again. It subclasses ValueError: callers
that catch ValueError keep working.

>>> error = InvalidArgumentError("[2]", Problem.TOO_MANY_COPIES, "a third SA").within("cards")
>>> error.argument, error.problem.value, str(error)
('cards[2]', 'TOO_MANY_COPIES', 'a third SA')
"""

from __future__ import annotations

from enum import StrEnum


class Problem(StrEnum):
    """What is wrong with the argument; the values are the service's BadRequest reason codes."""

    MISSING = "MISSING"
    """A required value is absent (no cards, no other hands for a throw)."""
    UNKNOWN_VALUE = "UNKNOWN_VALUE"
    """A value the game does not define (a face outside 0..53, a rank name)."""
    TOO_MANY_COPIES = "TOO_MANY_COPIES"
    """A card more often than the two decks hold (R1.2)."""
    BAD_SIZE = "BAD_SIZE"
    """A hand, play, bottom or list of a size no game produces."""
    OUT_OF_RANGE = "OUT_OF_RANGE"
    """A number outside its range (a seat, a level, a score, O)."""
    OUT_OF_ORDER = "OUT_OF_ORDER"
    """Seats that do not follow the turn order (R4.1, R7.4), or a seat listed twice."""
    INCONSISTENT = "INCONSISTENT"
    """Arguments that contradict each other or the ruleset."""
    MALFORMED = "MALFORMED"
    """Bytes that do not decode as the field's type (a truncated encoding, bad UTF-8): the service's
    wire check, never the engine's; here so the two share one list of reasons."""


class InvalidArgumentError(ValueError):
    """A malformed argument: its path, what is wrong with it, and a sentence for people."""

    def __init__(self, argument: str, problem: Problem, message: str) -> None:
        super().__init__(message)
        self.argument = argument
        self.problem = problem
        self.message = message

    def within(self, prefix: str) -> InvalidArgumentError:
        """The same error with its path placed under ``prefix`` (``[1]`` under ``hands`` is ``hands[1]``)."""
        if not prefix:
            return self
        separator = "" if not self.argument or self.argument.startswith("[") else "."
        return InvalidArgumentError(prefix + separator + self.argument, self.problem, self.message)

    def __reduce__(self) -> tuple[type[InvalidArgumentError], tuple[str, Problem, str]]:
        return type(self), (self.argument, self.problem, self.message)
