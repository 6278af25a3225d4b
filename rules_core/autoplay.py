"""Auto-play (托管) without the strong search: R13.6's "rightmost smallest", and the table policy.

R13.6 fixes the opening lead after a forced quit (the rightmost smallest card of the default layout) and
recommends the same policy for every later play. A lead is that single card (always legal, R4.2); a
follow is the first play the legal-play generator yields, which meets every R5.3 (R14.6) obligation with
the weakest units and fills with the rightmost cards.

The table policy plays for the seat's side on tables the strong search (``rules_core.strategy``) is not
ruled for (R14, R15): from the bounded listing (at most :data:`CONSIDERED` plays), the cheapest play that
takes the trick when the seat's side is not already winning it, else the lowest-value play. "Value" is
(points, trumps, strength): give away as little as possible. The side is known under fixed partners
(every other seat, R14.9); under finding friends only the seat itself is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from rules_core.bidding import Act, Shown, declare, strength_of
from rules_core.cards import (
    BIG_JOKER,
    NUM_FACES,
    POINTS,
    SMALL_JOKER,
    Deck,
    Hand,
    deal_sizes,
    format_cards,
    rank_of,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.kitty import validate_bury
from rules_core.layout import auto_lead
from rules_core.legal_plays import legal_plays
from rules_core.rules import FollowRule, Partners, Rules
from rules_core.seating import seat_in_range
from rules_core.shapes import decompose
from rules_core.strategy.bury import BuryAdvice, BuryPolicy
from rules_core.strategy.declaration import DeclarationAdvice, DeclarationPolicy
from rules_core.trick import advance, standing_of
from rules_core.trump import TRUMP, TrumpContext

CONSIDERED: Final = 64
"""The most candidate plays one table suggestion judges: its cost is this many trick judgements at most."""


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


def table_play(
    ctx: TrumpContext,
    rules: Rules,
    seat: int,
    hand: Hand,
    plays: Sequence[Sequence[int]],
    *,
    leader: int,
) -> tuple[tuple[int, ...], str]:
    """The table policy's play for ``seat`` after ``plays`` (from ``leader``), and why."""
    lead = plays[0] if plays else ()
    structure = rules.follow is FollowRule.STRUCTURE
    listed = legal_plays(ctx, hand=hand, lead=lead, limit=CONSIDERED, structure=structure, decks=rules.decks)
    candidates = listed.plays
    if not plays:
        singles = [p for p in candidates if len(decompose(ctx, p).components) == 1]
        return min(
            singles or candidates, key=lambda p: _value(ctx, p)
        ), "lead: the cheapest one-component lead"
    standing = standing_of(ctx, rules, plays)
    winner = (leader + standing.best) % rules.seats
    if winner in _side(rules, seat):
        why = f"follow: seat {winner} of this side is winning; the lowest-value play"
        return min(candidates, key=lambda p: _value(ctx, p)), why
    led = decompose(ctx, lead)
    winning = [
        p for p in candidates if advance(ctx, rules, led, standing, p, index=len(plays)).best == len(plays)
    ]
    if winning:
        return min(winning, key=lambda p: _value(ctx, p)[1:] + _value(ctx, p)[:1]), (
            "follow: the cheapest play that takes the trick"
        )
    why = "follow: nothing listed takes the trick; the lowest-value play"
    return min(candidates, key=lambda p: _value(ctx, p)), why


def _value(ctx: TrumpContext, play: Sequence[int]) -> tuple[int, int, int]:
    """What a play gives away: points, then trumps, then strength (lower is cheaper)."""
    points = sum(POINTS[f] for f in play)
    trumps = sum(1 for f in play if ctx.category[f] == TRUMP)
    return points, trumps, sum(ctx.strength[f] for f in play)


def _side(rules: Rules, seat: int) -> frozenset[int]:
    """The seats known to be on ``seat``'s side: every other seat under fixed partners (R14.9); under
    finding friends (R15) the seat alone."""
    if rules.partners is Partners.FIXED:
        return frozenset(s for s in range(rules.seats) if (s - seat) % 2 == 0)
    return frozenset({seat})


# The table policy's bury and declaration (R14.2, R14.11)


def suggest_table_bury(ctx: TrumpContext, rules: Rules, *, hand: Sequence[int]) -> tuple[int, ...]:
    """R11 with R14.2: the bottom's size of the dealer's hand-plus-bottom ``hand``, short plain suits'
    pointless singles first; trumps and tuples last."""
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


def suggest_table_declaration(
    rules: Rules, *, level: int, seat: int, received: Sequence[int], acts: Sequence[Shown]
) -> tuple[tuple[int, ...], Act | None, str]:
    """R14.11: the declaration to show now (cards, its act), or ((), None) with why not."""
    seat_in_range(seat, "seat", rules.seats)
    size = deal_sizes(rules.decks, rules.seats)[0]
    if not 1 <= len(received) <= size:
        raise InvalidArgumentError(
            "received", Problem.BAD_SIZE, f"1 to {size} cards received, got {len(received)}"
        )
    counts = Deck(rules.decks).counted(received, "received")
    declare(rules=rules, level=level, acts=acts, first_hand=False)  # the acts so far, checked
    candidates = []
    for face in range(NUM_FACES):
        level_card = face < SMALL_JOKER and rank_of(face) == level
        if counts[face] == 0 or not (level_card or face in (SMALL_JOKER, BIG_JOKER)):
            continue
        strength = strength_of(level, (face,) * counts[face])
        if isinstance(strength, tuple) and _worth(counts, level, face, len(received)):
            candidates.append((strength, face))
    for _strength, face in sorted(candidates, reverse=True):
        cards = (face,) * counts[face]
        trial = declare(
            rules=rules, level=level, acts=[*acts, (seat, cards, tuple(received))], first_hand=False
        )
        if trial.acts[-1] is not None:
            return (
                cards,
                trial.acts[-1],
                f"{trial.acts[-1]} {format_cards(cards)}: trumps are a third of the hand",
            )
    return (), None, "none: no declaration held is stronger and worth it"


def _worth(counts: Sequence[int], level: int, face: int, received: int) -> bool:
    """Trumps under the declaration (its suit, every level card, the jokers) are a third of the cards."""
    trumps = counts[SMALL_JOKER] + counts[BIG_JOKER]
    trumps += sum(counts[f] for f in range(SMALL_JOKER) if rank_of(f) == level)
    if face < SMALL_JOKER:
        suit = face // 13
        trumps += sum(counts[f] for f in range(suit * 13, suit * 13 + 13) if rank_of(f) != level)
    return 3 * trumps >= received


def bury_on_table(ctx: TrumpContext, rules: Rules, *, hand: Sequence[int], policy: BuryPolicy) -> BuryAdvice:
    """SuggestBury on another table (R14.2): ``hand`` is the dealer's hand plus the bottom."""
    if policy is BuryPolicy.AUTO_BURY:  # R13.6's auto-bury is a forced-quit rule: R14.10 keeps it two-deck
        raise InvalidArgumentError(
            "policy",
            Problem.INCONSISTENT,
            "AUTO_BURY (R13.6) is ruled for the rulebooks' table only (R14.10)",
        )
    buried = suggest_table_bury(ctx, rules, hand=hand)
    why = "table: short plain suits' pointless singles first; trumps and tuples kept"
    return BuryAdvice(buried, sum(POINTS[f] for f in buried), why, policy)


def declaration_on_table(
    rules: Rules,
    *,
    level: int,
    seat: int,
    received: Sequence[int],
    acts: Sequence[Shown],
    policy: DeclarationPolicy,
) -> DeclarationAdvice:
    """SuggestDeclaration on another table (R14.11)."""
    if policy is DeclarationPolicy.NONE:
        suggest_table_declaration(rules, level=level, seat=seat, received=received, acts=acts)  # checks
        return DeclarationAdvice((), None, "none: this policy never declares", policy)
    cards, act, why = suggest_table_declaration(rules, level=level, seat=seat, received=received, acts=acts)
    return DeclarationAdvice(cards, act, f"table: {why}", policy)
