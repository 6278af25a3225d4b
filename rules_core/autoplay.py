"""Auto-play (托管) without the strong search: R13.6's "rightmost smallest", and a plain table bury.

R13.6 fixes the opening lead after a forced quit (the rightmost smallest card of the default layout) and
recommends the same policy for every later play. A lead is that single card (always legal, R4.2); a
follow is the first play the legal-play generator yields, which meets every R5.3 (R14.6) obligation with
the weakest units and fills with the rightmost cards. The strong policies (``rules_core.strategy``: play,
bury, declaration) play on every table; :func:`suggest_table_bury` is a plain bury for any table.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.cards import (
    POINTS,
    Deck,
    Hand,
    deal_sizes,
    format_cards,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.kitty import validate_bury
from rules_core.layout import auto_lead
from rules_core.legal_plays import legal_plays
from rules_core.rules import Rules
from rules_core.trump import TRUMP, TrumpContext


def suggest_play(
    ctx: TrumpContext, *, hand: Hand, lead: Sequence[int] = (), decks: int = 2, structure: bool = True
) -> tuple[int, ...]:
    """The auto-play for ``hand`` on a table of ``decks`` decks: a lead when ``lead`` is empty, else a
    legal follow of it (``structure`` False: FOLLOW-SUIT-ONLY, R16.3).

    >>> from rules_core.cards import Suit, format_cards, hand_of, parse_cards
    >>> from rules_core.trump import trump_context
    >>> ctx = trump_context(5, Suit.H)
    >>> hand = hand_of(parse_cards("S9 S9 S3 S3 S2 SA D4".split()))
    >>> format_cards(suggest_play(ctx, hand=hand, lead=parse_cards(["S7", "S7"])))
    'S3 S3'
    >>> format_cards(suggest_play(ctx, hand=hand))
    'D4'
    """
    if not lead:
        return (auto_lead(ctx, hand, decks),)
    return legal_plays(ctx, hand=hand, lead=lead, limit=1, decks=decks, structure=structure).plays[0]


def suggest_table_bury(ctx: TrumpContext, rules: Rules, *, hand: Sequence[int]) -> tuple[int, ...]:
    """A plain bury on any table (R11 with R14.2; the tournament's shared bury on other tables, not
    SuggestBury's, which is ``strategy.bury``): the bottom's size of the dealer's hand-plus-bottom
    ``hand``, short plain suits' pointless singles first; trumps and tuples last."""
    size, bottom = deal_sizes(rules.decks, rules.seats)
    if len(hand) != size + bottom:
        raise InvalidArgumentError(
            "hand", Problem.BAD_SIZE, f"the dealer holds {size} + {bottom} cards here, got {len(hand)}"
        )
    counts = Deck(rules.decks).counted(hand, "hand")
    length = [sum(counts[f] for f in ctx.faces[c]) for c in range(5)]

    def keep(face: int) -> tuple[bool, bool, bool, int, int]:
        category = ctx.category[face]
        return (category == TRUMP, counts[face] >= 2, POINTS[face] > 0, length[category], ctx.strength[face])

    buried = tuple(sorted(hand, key=keep)[:bottom])
    result = validate_bury(rules, hand=hand, bury=buried)
    if not result.legal:  # pragma: no cover - the bottom's size of the dealer's own cards
        raise AssertionError(f"an illegal bury {format_cards(buried)}")
    return buried
