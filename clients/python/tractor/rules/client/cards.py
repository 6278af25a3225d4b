"""Cards, hands and seats in the notation of the rules (RULES.md R0/R1), as the contract's ``Card`` values.

A card's name is its ``Card`` enum name without ``CARD_``: ``SK`` (king of spades), ``H10``, ``SJACK``
(jack of spades), ``SJ`` and ``BJ`` (small and big joker). A hand or play is written as names apart:

>>> names(cards("SK SK SJACK BJ"))
['SK', 'SK', 'SJACK', 'BJ']
>>> card("CARD_H10") == card("H10") == types_pb2.CARD_H10
True
>>> seat_cards(1, "S3 S3").cards == [types_pb2.CARD_S3, types_pb2.CARD_S3]
True
>>> partner(1), team(1)
(3, (1, 3))
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeAlias

from tractor.rules.v1 import types_pb2

PREFIX: Final = "CARD_"
SEATS: Final = 4
"""Seats 0..3 in playing order; partners sit opposite (0 and 2, 1 and 3)."""

Card: TypeAlias = types_pb2.Card.ValueType
_BY_NAME: Final[dict[str, Card]] = {
    value.name.removeprefix(PREFIX): types_pb2.Card.ValueType(value.number)
    for value in types_pb2.Card.DESCRIPTOR.values
    if value.number
}


def card(name: str) -> Card:
    """The ``Card`` value of a name, with or without ``CARD_`` (``"SK"``, ``"CARD_SK"``); ValueError if
    there is no such card."""
    try:
        return _BY_NAME[name.strip().upper().removeprefix(PREFIX)]
    except KeyError:
        raise ValueError(f"unknown card {name!r}; cards are S2 .. SA, H2 .., C2 .., D2 .., SJ, BJ") from None


def cards(text: str | Iterable[str]) -> list[Card]:
    """Cards from names apart (``"SK SK SQ"``) or an iterable of names."""
    return [card(name) for name in (text.split() if isinstance(text, str) else text)]


def name(value: Card) -> str:
    """The name of a ``Card`` value (``types_pb2.CARD_SK`` -> ``"SK"``)."""
    return types_pb2.Card.Name(value).removeprefix(PREFIX)


def names(values: Iterable[Card]) -> list[str]:
    """The names of cards, in their order."""
    return [name(value) for value in values]


def seat_cards(seat: int, hand: str | Iterable[str]) -> types_pb2.SeatCards:
    """A ``SeatCards`` entry (another seat's hand, a play of a trick) from a seat and card names."""
    return types_pb2.SeatCards(seat=_seat(seat), cards=cards(hand))


def partner(seat: int) -> int:
    """The seat opposite ``seat``."""
    return (_seat(seat) + 2) % SEATS


def team(seat: int) -> tuple[int, int]:
    """The two seats of ``seat``'s team, lowest first."""
    low, high = sorted((_seat(seat), partner(seat)))
    return low, high


def _seat(seat: int) -> int:
    if not 0 <= seat < SEATS:
        raise ValueError(f"seats are 0..{SEATS - 1}, got {seat}")
    return seat
