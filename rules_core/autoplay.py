"""Auto-play (托管) for a seat that disconnected or quit: always legal, always "rightmost smallest".

R13.6 fixes the opening lead after a forced quit (the rightmost smallest card of the default layout) and
recommends the same policy for every later play. A lead is that single card (always legal, R4.2); a
follow is the first play the legal-play generator yields, which meets every R5.3 obligation with the
weakest units and fills with the rightmost cards.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.cards import Hand
from rules_core.layout import auto_lead
from rules_core.legal_plays import legal_plays
from rules_core.trump import TrumpContext


def suggest_play(ctx: TrumpContext, *, hand: Hand, lead: Sequence[int] = ()) -> tuple[int, ...]:
    """The auto-play for ``hand``: a lead when ``lead`` is empty, else a legal follow of it.

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
        return (auto_lead(ctx, hand),)
    return legal_plays(ctx, hand=hand, lead=lead, limit=1).plays[0]
