"""SettleHand on any table but the rulebooks' (R15.8-R15.13): the per-seat settlement from a recorded hand.

The play side of these tables is the one engine's (``turn``, ``trick``); this module holds only what the
settlement needs until it joins :mod:`rules_core.settlement`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.cards import deal_sizes
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.friends import (
    CallState,
    FriendCall,
    Play,
    TableSettlement,
    Trick,
    replay_sides,
    settle_table,
)
from rules_core.rules import Rules
from rules_core.settlement import FailedThrow
from rules_core.trick import RecordedTrick
from rules_core.trump import TrumpContext


def _tricks(records: Sequence[RecordedTrick], path: str) -> tuple[Trick, ...]:
    """Recorded tricks as R15's: a winner is required on each (R15.15)."""
    tricks = []
    for t, (plays, winner) in enumerate(records):
        if winner is None:
            raise InvalidArgumentError(f"{path}[{t}].winner", Problem.MISSING, "each trick names its winner")
        tricks.append(Trick(tuple(Play(seat, tuple(cards)) for seat, cards in plays), winner))
    return tuple(tricks)


def _ruleset(error: InvalidArgumentError) -> InvalidArgumentError:
    """R15.1: a table its partners cannot seat is the ruleset's fault (``ruleset.partners``)."""
    return _renamed(error, "partners", "ruleset.partners")


def _renamed(error: InvalidArgumentError, old: str, new: str) -> InvalidArgumentError:
    """The same error with the path prefix ``old`` spelled ``new`` (the request's own field names)."""
    if error.argument.startswith(old):
        return InvalidArgumentError(new + error.argument[len(old) :], error.problem, error.message)
    return error


# ------------------------------------------------------------------------------------------------
# SettleHand


def settle_table_hand(
    rules: Rules,
    ctx: TrumpContext,
    *,
    dealer: int,
    levels: Sequence[int],
    calls: Sequence[FriendCall],
    tricks: Sequence[RecordedTrick],
    dig_points: int,
    failed_throws: Sequence[FailedThrow],
) -> tuple[TableSettlement, tuple[CallState, ...]]:
    """R15.8–R15.13 for a SettleHand request on any table, and every call's state at the end; the seats'
    levels are ``seat_levels``."""
    played = _tricks(tricks, "tricks")
    try:
        settled = settle_table(
            rules,
            ctx,
            dealer=dealer,
            levels=levels,
            calls=calls,
            tricks=played,
            dig_points=dig_points,
            failed_throws=failed_throws,
        )
    except InvalidArgumentError as error:
        raise _ruleset(_renamed(error, "levels", "seat_levels")) from None
    return settled, replay_sides(rules, ctx, dealer, calls, played)[-1].calls


def hand_size(rules: Rules) -> int:
    """R14.2: the table's hand size (25 on the rulebooks' table)."""
    return deal_sizes(rules.decks, rules.seats)[0]
