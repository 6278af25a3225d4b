"""Cards, faces and hands (R0.2, R1).

A *face* is a small int ``0..53``: ``suit * 13 + (rank - 2)`` for the 52 suited faces, with the suits in
the Chinese 黑红梅方 order S, H, C, D (R1.2), then 52 = small joker and 53 = big joker. The two copies of
a face are interchangeable for every rule (R1.3), so a hand is a *count vector*: a tuple of 54 ints, each
0, 1 or 2.

>>> parse_card("SJack"), parse_card("SJ"), parse_card("H10"), parse_card("BJ")
(9, 52, 21, 53)
>>> format_cards(parse_cards(["D2", "BJ", "C10"]))
'D2 BJ C10'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import IntEnum
from typing import Final

from rules_core.errors import InvalidArgumentError, Problem


class Suit(IntEnum):
    """The four printed suits in 黑红梅方 order, which is also the tie-break order (R3.6, R13.6)."""

    S = 0
    H = 1
    C = 2
    D = 3


class Rank(IntEnum):
    """Printed ranks with their numeric values (R2.1: J=11, Q=12, K=13, A=14)."""

    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13
    ACE = 14


SMALL_JOKER: Final = 52
BIG_JOKER: Final = 53
NUM_FACES: Final = 54
COPIES: Final = 2
DECK_SIZE: Final = NUM_FACES * COPIES  # R1.1: 108 cards
PLAYERS: Final = 4
HAND_SIZE: Final = 25  # R1.6
BOTTOM_SIZE: Final = 8
DEALER_HAND_SIZE: Final = HAND_SIZE + BOTTOM_SIZE  # R11.1
TOTAL_POINTS: Final = 200  # R8.1

Hand = tuple[int, ...]
"""A count vector of length 54: how many copies of each face (0, 1 or 2)."""

EMPTY_HAND: Final[Hand] = (0,) * NUM_FACES
FULL_DECK: Final[Hand] = (COPIES,) * NUM_FACES

_RANK_NAMES: Final = {2: "2", 3: "3", 4: "4", 5: "5", 6: "6", 7: "7", 8: "8", 9: "9", 10: "10"} | {
    11: "J",
    12: "Q",
    13: "K",
    14: "A",
}
_RANK_BY_NAME: Final = {name: rank for rank, name in _RANK_NAMES.items()}


def face_of(suit: Suit, rank: int) -> int:
    """The face id of a suited card.

    >>> face_of(Suit.H, 5)
    16
    """
    return int(suit) * 13 + rank - 2


def suit_of(face: int) -> Suit | None:
    """The printed suit of a face, or None for a joker."""
    return Suit(face // 13) if face < SMALL_JOKER else None


def rank_of(face: int) -> int | None:
    """The printed rank (2..14) of a face, or None for a joker."""
    return face % 13 + 2 if face < SMALL_JOKER else None


def _point_value(face: int) -> int:
    rank = rank_of(face)
    return 5 if rank == 5 else 10 if rank in (10, 13) else 0


POINTS: Final[tuple[int, ...]] = tuple(_point_value(face) for face in range(NUM_FACES))
"""R8.1: 5 is worth 5, 10 and K are worth 10, everything else 0."""


def parse_rank(text: str) -> int:
    """Parse a level or rank name ("2".."10", "J", "Q", "K", "A") into 2..14.

    >>> parse_rank("J"), parse_rank("10")
    (11, 10)
    """
    try:
        return _RANK_BY_NAME[text.upper()]
    except KeyError:
        raise InvalidArgumentError("rank", Problem.UNKNOWN_VALUE, f"unknown rank {text!r}") from None


def format_rank(rank: int) -> str:
    """The short name of a rank (2..14)."""
    return _RANK_NAMES[rank]


def parse_card(text: str) -> int:
    """Parse R0.2 notation into a face id. The jack of spades is ``SJack``; ``SJ`` is the small joker."""
    token = text.strip().upper()
    if token == "BJ":
        return BIG_JOKER
    if token == "SJ":
        return SMALL_JOKER
    if token == "SJACK":
        return face_of(Suit.S, 11)
    if len(token) >= 2 and token[0] in "SHCD" and token[1:] in _RANK_BY_NAME and token != "SJ":
        return face_of(Suit[token[0]], _RANK_BY_NAME[token[1:]])
    raise InvalidArgumentError("card", Problem.UNKNOWN_VALUE, f"unknown card {text!r}")


def format_card(face: int) -> str:
    """R0.2 notation of a face.

    >>> format_card(9), format_card(16)
    ('SJack', 'H5')
    """
    if face == BIG_JOKER:
        return "BJ"
    if face == SMALL_JOKER:
        return "SJ"
    suit = Suit(face // 13)
    rank = face % 13 + 2
    if suit is Suit.S and rank == 11:
        return "SJack"
    return suit.name + _RANK_NAMES[rank]


def parse_cards(texts: Iterable[str]) -> tuple[int, ...]:
    """Parse a list of card names into face ids, keeping repeats."""
    return tuple(parse_card(text) for text in texts)


def format_cards(faces: Iterable[int]) -> str:
    """Space-separated R0.2 notation."""
    return " ".join(format_card(face) for face in faces)


def hand_of(faces: Iterable[int], decks: int = COPIES) -> Hand:
    """The count vector of a list of faces. Raises InvalidArgumentError, naming the position (``[i]``), for an
    unknown face or past D copies of a face (R1.2, R14.1).

    >>> hand_of([53, 53, 0])[53]
    2
    """
    counts = [0] * NUM_FACES
    for i, face in enumerate(faces):
        if not 0 <= face < NUM_FACES:
            raise InvalidArgumentError(f"[{i}]", Problem.UNKNOWN_VALUE, f"unknown face {face}")
        counts[face] += 1
        if counts[face] > decks:
            raise InvalidArgumentError(
                f"[{i}]", Problem.TOO_MANY_COPIES, f"more than {decks} copies of {format_card(face)}"
            )
    return tuple(counts)


def faces_of(hand: Hand) -> tuple[int, ...]:
    """The faces of a count vector, repeats included, in face order."""
    return tuple(face for face in range(NUM_FACES) for _ in range(hand[face]))


def hand_size(hand: Hand) -> int:
    """Number of cards in a count vector."""
    return sum(hand)


def contains(hand: Hand, faces: Sequence[int]) -> bool:
    """Whether ``faces`` (with repeats) is a sub-multiset of ``hand``."""
    seen: dict[int, int] = {}
    for face in faces:
        count = seen.get(face, 0) + 1
        if count > hand[face]:
            return False
        seen[face] = count
    return True


def remove(hand: Hand, faces: Iterable[int]) -> Hand:
    """``hand`` minus ``faces``. Raises InvalidArgumentError when a card is missing."""
    counts = list(hand)
    for i, face in enumerate(faces):
        if counts[face] == 0:
            raise InvalidArgumentError(
                f"[{i}]", Problem.INCONSISTENT, f"{format_card(face)} is not in the hand"
            )
        counts[face] -= 1
    return tuple(counts)


def add(hand: Hand, faces: Iterable[int], decks: int = COPIES) -> Hand:
    """``hand`` plus ``faces``. Raises InvalidArgumentError past D copies (two decks by default)."""
    counts = list(hand)
    for i, face in enumerate(faces):
        counts[face] += 1
        if counts[face] > decks:
            raise InvalidArgumentError(
                f"[{i}]", Problem.TOO_MANY_COPIES, f"more than {decks} copies of {format_card(face)}"
            )
    return tuple(counts)


def points_of(faces: Iterable[int]) -> int:
    """Total point value of some cards (R8.1)."""
    return sum(POINTS[face] for face in faces)


class Deck:
    """The cards of one request, counted across its arguments: all of them come from the table's D decks
    (two on the rulebooks' table, R1.1; up to four, R14.1).

    Each :meth:`add` names its argument's path, so a copy past D is reported where it appears
    (``trick.plays[0].cards[1]``), with the arguments that hold the others.
    """

    __slots__ = ("_copies", "_counts", "_fields")

    def __init__(self, decks: int = COPIES) -> None:
        self._counts = [0] * NUM_FACES
        self._fields: list[tuple[str, Sequence[int]]] = []
        self._copies = decks

    def add(self, faces: Sequence[int], path: str) -> None:
        """Count an argument's cards; raises InvalidArgumentError at a copy past D or an unknown face."""
        counts, copies = self._counts, self._copies
        for i, face in enumerate(faces):
            if face < 0 or face >= NUM_FACES:
                raise InvalidArgumentError(f"{path}[{i}]", Problem.UNKNOWN_VALUE, f"unknown face {face}")
            count = counts[face] = counts[face] + 1
            if count > copies:
                raise InvalidArgumentError(f"{path}[{i}]", Problem.TOO_MANY_COPIES, self._extra(face, path))
        self._fields.append((path, faces))

    def counted(self, faces: Sequence[int], path: str) -> Hand:
        """:meth:`add`, returning the argument's own count vector (a hand or a play)."""
        self.add(faces, path)
        return hand_of(faces, self._copies)

    def hand(self) -> Hand:
        """Every card added so far, as a count vector."""
        return tuple(self._counts)

    def _extra(self, face: int, path: str) -> str:
        d = self._copies
        earlier = " and ".join(where for where, field in self._fields if face in field)
        also = f" (also in {earlier})" if earlier else ""
        if not earlier and d == COPIES:
            return f"a third {format_card(face)}: two decks hold only {COPIES} of each card"
        return f"a {_ORDINALS[d]} {format_card(face)}{also}: {_DECKS[d]} decks hold only {d}"


_ORDINALS: Final = {2: "third", 3: "fourth", 4: "fifth"}
_DECKS: Final = {2: "two", 3: "three", 4: "four"}
"""The copy past D and D itself in words, for Deck's messages (R1.2, R14.1)."""


MIN_BOTTOM: Final = 5
"""R14.2: the bottom's minimum on any table (rbtying/shengji's default kitty)."""


def deal_sizes(decks: int, seats: int) -> tuple[int, int]:
    """R1.6, R14.2: (hand size, bottom size) of D decks dealt to N seats: the bottom makes the hands equal
    and holds at least five cards.

    >>> [deal_sizes(2, 4), deal_sizes(3, 5), deal_sizes(4, 8)]
    [(25, 8), (31, 7), (26, 8)]
    """
    total = NUM_FACES * decks
    bottom = total % seats or seats
    if bottom < MIN_BOTTOM:
        bottom += seats
    return (total - bottom) // seats, bottom


MAX_TABLE_DECKS: Final = 4
MAX_TABLE_SEATS: Final = 8
"""R14: the largest table, four decks and eight seats (``Rules`` refuses a larger one)."""
MAX_TABLE_CARDS: Final = NUM_FACES * MAX_TABLE_DECKS
"""R14.1: the cards of the largest table (four decks): a bound on a whole hand record's cards."""
_TABLES: Final = [
    deal_sizes(d, n) for d in range(COPIES, MAX_TABLE_DECKS + 1) for n in range(PLAYERS, MAX_TABLE_SEATS + 1)
]
MAX_TABLE_HAND: Final = max(hand for hand, _ in _TABLES)
"""R14.2: the largest hand of any table (52: four decks, four seats); a play is at most a hand."""
MAX_TABLE_BOTTOM: Final = max(bottom for _, bottom in _TABLES)
"""R14.2: the largest bottom of any table (12)."""
MAX_TABLE_TRICKS: Final = MAX_TABLE_HAND
"""R15.15: the most tricks of any hand: one card each from the largest hand."""


def deck_points(decks: int) -> int:
    """R8.1, R14.9: 100 points per deck (200 on the rulebooks' table)."""
    return TOTAL_POINTS // COPIES * decks


def check_copies(faces: Sequence[int], path: str, decks: int = COPIES) -> Hand:
    """The count vector of one argument's cards, named by ``path`` at an unknown face or a copy past D."""
    deck = Deck(decks)
    deck.add(faces, path)
    return deck.hand()


def check_size(faces: Sequence[int], path: str, low: int, high: int, what: str) -> None:
    """Reject a list of cards whose size is outside ``low..high`` (a hand, a bottom, a play)."""
    if not low <= len(faces) <= high:
        bounds = f"exactly {low}" if low == high else f"{low} to {high}"
        raise InvalidArgumentError(path, Problem.BAD_SIZE, f"{what} holds {bounds} cards, got {len(faces)}")
