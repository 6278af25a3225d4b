"""Typed verdicts: an illegal play is an answer, never an exception (R4, R5).

Every check returns :class:`Legal` or :class:`Illegal`. ``Illegal`` carries a :class:`Violation` a
program can branch on, a message a person can read, and the structure the player was obliged to play.

The verdict types are immutable values, typed named tuples: a failed throw alone builds five of them
per call, and a named tuple is built by one ``tuple.__new__``, where a frozen dataclass sets each field
through ``object.__setattr__`` (several times slower, and measured no faster in the compiled build).
``Final`` fields on a plain dataclass were tried too, but mypyc makes them
read-only, so the compiled engine could not build them at all.

The hot paths build them through the ``new_*`` builders below, which take the fields as one tuple: a
named tuple's own ``__new__`` is a Python function (in the compiled engine too), and calling
``tuple.__new__`` directly costs half as much. The builders are typed by field, so mypy checks each use.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from functools import partial
from typing import Final, NamedTuple

from rules_core.component import Component
from rules_core.shapes import Decomposition


class Violation(StrEnum):
    """Why a play is illegal."""

    EMPTY_PLAY = "EMPTY_PLAY"
    """No cards were played (R5.1: nobody may pass)."""
    CARDS_NOT_IN_HAND = "CARDS_NOT_IN_HAND"
    """The play holds a card, or a copy of a card, the player does not have."""
    WRONG_CARD_COUNT = "WRONG_CARD_COUNT"
    """A follow must have exactly as many cards as the lead (R5.1)."""
    MIXED_CATEGORY_LEAD = "MIXED_CATEGORY_LEAD"
    """A lead drawn from two categories (R4.3)."""
    MUST_FOLLOW_SUIT = "MUST_FOLLOW_SUIT"
    """The follower held cards of the led category and did not play enough of them (R5.2)."""
    MUST_PLAY_PAIR = "MUST_PLAY_PAIR"
    """The follower held pairs owed to the lead and did not play them (R5.3 rules 2–4)."""
    MUST_PLAY_TRACTOR = "MUST_PLAY_TRACTOR"
    """The follower held a tractor owed to the lead and did not play it (R5.3 rules 3–4)."""


class Beat(NamedTuple):
    """Evidence for a failed throw: ``seat`` holds ``cards``, which beat the throw's ``component`` (R4.4)."""

    seat: int
    component: Component
    cards: tuple[int, ...]


class ThrowResult(NamedTuple):
    """The outcome of a multi-component lead (R4.4–R4.7). A failed throw is legal: the forced part is led."""

    succeeded: bool
    led: tuple[int, ...]
    """The cards actually led: the whole throw, or only the forced component."""
    forced: Component | None
    """The component that is led instead, when the throw fails."""
    returned: tuple[int, ...]
    """The attempted cards that go back to the leader's hand (all revealed to the table)."""
    evidence: tuple[Beat, ...]
    """Which seat beats which component of the throw (empty when it succeeds)."""


class Legal(NamedTuple):
    """A legal play, with its shape; a multi-component lead also carries its throw outcome."""

    play: Decomposition
    throw: ThrowResult | None = None


class Illegal(NamedTuple):
    """An illegal play: a typed reason, a message, and what the player had to play."""

    reason: Violation
    message: str
    required: tuple[Component, ...] = ()
    """The structure owed (cards from the player's hand that would satisfy it), when there is one."""


new_beat: Final[Callable[[tuple[int, Component, tuple[int, ...]]], Beat]] = partial(tuple.__new__, Beat)
"""``Beat(seat, component, cards)`` from one tuple, without the Python-level ``__new__``."""
new_throw_result: Final[
    Callable[[tuple[bool, tuple[int, ...], Component | None, tuple[int, ...], tuple[Beat, ...]]], ThrowResult]
] = partial(tuple.__new__, ThrowResult)
"""``ThrowResult(succeeded, led, forced, returned, evidence)`` from one tuple."""
new_legal: Final[Callable[[tuple[Decomposition, ThrowResult | None]], Legal]] = partial(tuple.__new__, Legal)
"""``Legal(play, throw)`` from one tuple (the throw is not optional here)."""
