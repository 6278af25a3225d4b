"""The default layout of a hand (无理牌, R13.6): how a client shows it before any rearranging.

Both the forced-quit actions (R13.6's automatic lead) and the auto-play listing (legal follows, rightmost
cards first) read a hand in this order, so it lives apart from either.
"""

from __future__ import annotations

from typing import Final

from rules_core.cards import COPIES, NUM_FACES, Hand, Suit
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.settlement import check_int
from rules_core.trump import TRUMP, TrumpContext

__all__ = ["LAYOUT_GROUPS", "auto_lead", "check_hand", "default_layout"]

LAYOUT_GROUPS: Final = (TRUMP, Suit.S, Suit.H, Suit.C, Suit.D)
"""R13.6: the default layout, left to right: trumps, then the plain suits in 黑红梅方 order."""


def default_layout(ctx: TrumpContext, hand: Hand, copies: int = COPIES) -> tuple[int, ...]:
    """R13.6: a hand as the client shows it before any rearranging (无理牌), left to right.

    Trumps come first, strongest first, then the plain suits S, H, C, D, each strongest first. Cards of
    equal strength (off-suit level cards) stand in suit order S, H, C, D, as in ``ctx.faces``.

    >>> from rules_core.cards import format_cards, hand_of, parse_cards
    >>> from rules_core.trump import trump_context
    >>> hand = hand_of(parse_cards(["D2", "S5", "H5", "SA", "DK", "D5", "BJ"]))
    >>> format_cards(default_layout(trump_context(5, Suit.H), hand))
    'BJ H5 S5 D5 SA DK D2'
    """
    check_hand(hand, copies)
    return tuple(face for group in LAYOUT_GROUPS for face in ctx.faces[group] for _ in range(hand[face]))


def auto_lead(ctx: TrumpContext, hand: Hand, copies: int = COPIES) -> int:
    """R13.6: the system's single-card lead for a quitter, the "rightmost smallest" card of the layout.

    This is the weakest card of the rightmost non-empty group: normally the lowest plain diamond. Of equal
    weakest cards it is the later suit in S, H, C, D order, the one shown last.

    >>> from rules_core.cards import format_card, hand_of, parse_cards
    >>> from rules_core.trump import trump_context
    >>> hand = hand_of(parse_cards(["BJ", "S5", "D5", "C9", "C3", "SA"]))
    >>> format_card(auto_lead(trump_context(5, Suit.H), hand))
    'C3'
    """
    check_hand(hand, copies)
    for group in reversed(LAYOUT_GROUPS):
        for face in reversed(ctx.faces[group]):
            if hand[face]:
                return face
    raise InvalidArgumentError("hand", Problem.BAD_SIZE, "an empty hand has no card to lead")


def check_hand(hand: Hand, copies: int = COPIES) -> None:
    """A count vector of 54 entries, each 0..D (R1.2, R14.1)."""
    if len(hand) != NUM_FACES:
        raise InvalidArgumentError(
            "hand", Problem.BAD_SIZE, f"a hand is a count vector of {NUM_FACES} entries, got {len(hand)}"
        )
    for face, count in enumerate(hand):
        check_int(f"hand[{face}]", count, high=copies)
