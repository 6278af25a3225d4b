"""Seats and the turn order: who may play, and in which order the plays of a trick lie (R1.5, R4.1, R7.4).

N seats 0..N-1 (four on the rulebooks' table, four to eight on others, R14.1) play counter-clockwise, so
the seat after ``s`` is ``(s + 1) % N``; a trick's plays come from its leader on. These are the checks
every request that names seats needs: a seat in range, plays that follow the turn order, one entry per
seat.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from rules_core.cards import HAND_SIZE, PLAYERS, Deck, check_size
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.shapes import Decomposition, decompose
from rules_core.trump import TrumpContext

SeatCards = tuple[int, tuple[int, ...]]
"""A seat and some of its cards (faces): a play, or a hand."""


def seat_in_range(seat: int, path: str, seats: int = PLAYERS) -> int:
    """A seat 0..seats-1 (R1.5, R14.1): the one seat check of every request, whatever the table."""
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < seats:
        raise InvalidArgumentError(
            path, Problem.OUT_OF_RANGE, f"seat {seat} is out of range; seats are 0..{seats - 1}"
        )
    return seat


def check_next(seat: int, leader: int, played: int, seats: int = PLAYERS) -> None:
    """R4.1, R14.1: after ``played`` plays of a trick led by ``leader``, the next of ``seats`` seats plays;
    another ``seat`` is InvalidArgumentError. Every play request checks it (a plain function: hot path)."""
    expected = (leader + played) % seats
    if seat != expected:
        raise InvalidArgumentError(
            "seat", Problem.OUT_OF_ORDER, f"seat {expected} plays next, not seat {seat}"
        )


def in_turn(
    plays: Sequence[SeatCards], path: str, *, leader: int, seats: int = PLAYERS
) -> tuple[tuple[int, ...], ...]:
    """The cards of plays whose seats follow the turn order of ``seats`` from ``leader`` (R4.1, R7.4)."""
    for i, (seat, _) in enumerate(plays):
        where = f"{path}[{i}].seat"
        expected = (leader + i) % seats
        if seat_in_range(seat, where, seats) != expected:
            raise InvalidArgumentError(
                where,
                Problem.OUT_OF_ORDER,
                f"play {i} of a trick led by seat {leader} is seat {expected}'s, not seat {seat}'s",
            )
    return tuple(cards for _, cards in plays)


class Counts(Protocol):
    """A request's copy counter (:class:`rules_core.cards.Deck`, D copies a face)."""

    def add(self, faces: Sequence[int], path: str, /) -> object: ...


def by_seat(
    hands: Sequence[SeatCards],
    path: str,
    *,
    seats: Iterable[int],
    deck: Counts,
    low: int = 0,
    high: int = HAND_SIZE,
    table: int = PLAYERS,
) -> dict[int, tuple[int, ...]]:
    """Cards for exactly ``seats`` of a table of ``table`` seats, each listed once with ``low..high`` cards,
    counted in ``deck``."""
    wanted = sorted(set(seats))
    if len(hands) > table:
        raise InvalidArgumentError(
            path, Problem.BAD_SIZE, f"at most one entry per seat ({table}), got {len(hands)}"
        )
    found: dict[int, tuple[int, ...]] = {}
    for i, (seat, cards) in enumerate(hands):
        where = f"{path}[{i}]"
        seat_in_range(seat, f"{where}.seat", table)
        if seat in found:
            raise InvalidArgumentError(f"{where}.seat", Problem.OUT_OF_ORDER, f"seat {seat} is listed twice")
        if seat not in wanted:
            expected = ", ".join(map(str, wanted))
            raise InvalidArgumentError(
                f"{where}.seat", Problem.INCONSISTENT, f"seat {seat} does not belong here; seats {expected}"
            )
        check_size(cards, f"{where}.cards", low, high, "a hand")
        deck.add(cards, f"{where}.cards")
        found[seat] = cards
    missing = [seat for seat in wanted if seat not in found]
    if missing:
        raise InvalidArgumentError(path, Problem.MISSING, f"seats {', '.join(map(str, missing))} are missing")
    return found


def table_plays(
    ctx: TrumpContext, plays: Sequence[SeatCards], path: str, *, leader: int, deck: Deck, seats: int = PLAYERS
) -> tuple[tuple[tuple[int, ...], ...], Decomposition]:
    """Plays as they lie on the table: in turn order, a one-category lead (R4.3), follows of its size
    (R5.1); their cards join ``deck``. Returns the plays' cards and the lead's decomposition."""
    cards = in_turn(plays, path, leader=leader, seats=seats)
    for i, play in enumerate(cards):
        deck.add(play, f"{path}[{i}].cards")
    lead = cards[0] if cards else ()
    led = decompose(ctx, lead)
    if not lead or led.category is None:
        raise InvalidArgumentError(
            f"{path}[0].cards",
            Problem.INCONSISTENT,
            "a lead on the table is one or more cards of one category",
        )
    for i, play in enumerate(cards[1:], start=1):
        if len(play) != len(lead):
            raise InvalidArgumentError(
                f"{path}[{i}].cards",
                Problem.BAD_SIZE,
                f"every play has the lead's {len(lead)} cards, got {len(play)}",
            )
    return cards, led
