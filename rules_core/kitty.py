"""Burying the bottom (底牌, R11): the dealer puts down exactly 8 of his 33 cards (R14.2: the table's
bottom size of his hand plus the bottom, on every table).

There is no restriction on which 8: trumps and point cards may be buried (R11.3). An illegal bury is an
answer, not an exception; only a malformed state (a dealer hand that is not 33 cards, an unknown face, a
third copy) raises InvalidArgumentError.

>>> from rules_core.cards import hand_of, hand_size, parse_cards
>>> hand = hand_of([*range(27), 52, 52, 53, 53, 13, 14])  # 33 cards: S2..CA, jokers, H2 H3 again
>>> result = check_bury(hand=hand, bury=parse_cards("BJ BJ SJ SJ H2 H2 S5 SK".split()))
>>> result.legal, hand_size(result.remaining)
(True, 25)
>>> check_bury(hand=hand, bury=parse_cards(["BJ", "BJ"])).reason
<Violation.WRONG_CARD_COUNT: 'WRONG_CARD_COUNT'>
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rules_core.cards import (
    COPIES,
    NUM_FACES,
    PLAYERS,
    Hand,
    check_copies,
    check_size,
    deal_sizes,
    faces_of,
    format_cards,
    hand_of,
    points_of,
    remove,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import Rules
from rules_core.verdicts import Violation


@dataclass(frozen=True, slots=True)
class BuryResult:
    """The verdict on a bury: legal with the dealer's remaining 25 cards, or a typed reason and message."""

    legal: bool
    reason: Violation | None = None
    """WRONG_CARD_COUNT or CARDS_NOT_IN_HAND when illegal; None when legal."""
    message: str = ""
    remaining: Hand | None = None
    """The 25-card hand the dealer plays with (R11.2), when legal."""
    bottom: tuple[int, ...] = ()
    """The buried faces in face order, when legal."""

    @property
    def bottom_points(self) -> int:
        """The point value of the buried cards (R8.1); 0 unless the bury is legal."""
        return points_of(self.bottom)


def check_bury(*, hand: Hand, bury: Sequence[int], decks: int = COPIES, seats: int = PLAYERS) -> BuryResult:
    """Whether the dealer holding ``hand`` (33 cards, R11.1; R14.2's sizes on other tables) may bury
    ``bury`` (R11.2, R11.3)."""
    size, bottom = deal_sizes(decks, seats)
    _validate_dealer_hand(hand, size + bottom, decks)
    try:
        buried = hand_of(bury, decks)  # unknown faces and copies past D are malformed
    except InvalidArgumentError as error:
        raise error.within("bury") from None
    if len(bury) != bottom:
        return BuryResult(
            legal=False,
            reason=Violation.WRONG_CARD_COUNT,
            message=f"buried {len(bury)} cards; exactly {bottom} are buried (R11.2)",
        )
    missing = [face for face in range(NUM_FACES) for _ in range(buried[face] - hand[face])]
    if missing:
        return BuryResult(
            legal=False,
            reason=Violation.CARDS_NOT_IN_HAND,
            message=f"{format_cards(missing)} not in the dealer's hand",
        )
    # R11.3: any cards of the bottom's size, trumps and point cards included.
    return BuryResult(legal=True, remaining=remove(hand, bury), bottom=faces_of(buried))


def _validate_dealer_hand(hand: Hand, size: int, decks: int) -> None:
    """The dealer's hand after taking the bottom is a count vector of exactly ``size`` cards (R11.1)."""
    if len(hand) != NUM_FACES or any(not 0 <= count <= decks for count in hand):
        raise InvalidArgumentError(
            "hand", Problem.BAD_SIZE, f"a hand must be {NUM_FACES} counts of 0..{decks}"
        )
    if sum(hand) != size:
        raise InvalidArgumentError(
            "hand",
            Problem.BAD_SIZE,
            f"the dealer's hand holds exactly {size} cards, got {sum(hand)}: "
            f"the dealer buries from {size} cards (R11.1)",
        )


def validate_bury(rules: Rules, *, hand: Sequence[int], bury: Sequence[int]) -> BuryResult:
    """The request-level :func:`check_bury` on the ruleset's table: the dealer's hand plus the bottom and
    the bury as lists of faces."""
    size = sum(deal_sizes(rules.decks, rules.seats))
    check_size(hand, "hand", size, size, "the dealer's hand")
    held = check_copies(hand, "hand", rules.decks)
    check_copies(bury, "bury", rules.decks)
    return check_bury(hand=held, bury=bury, decks=rules.decks, seats=rules.seats)
