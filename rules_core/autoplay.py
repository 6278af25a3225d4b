"""Auto-play (托管) without the strong search: R13.6's "rightmost smallest", and the table bury and
declaration.

R13.6 fixes the opening lead after a forced quit (the rightmost smallest card of the default layout) and
recommends the same policy for every later play. A lead is that single card (always legal, R4.2); a
follow is the first play the legal-play generator yields, which meets every R5.3 (R14.6) obligation with
the weakest units and fills with the rightmost cards. The strong play (``rules_core.strategy``) plays on
every table; the bury and the declaration of other tables (R14.2, R14.11) are still the simple ones here.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.bidding import Act, Shown
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
from rules_core.rules import Rules
from rules_core.seating import seat_in_range
from rules_core.strategy.bury import BuryAdvice, BuryPolicy, strong_bury
from rules_core.strategy.declaration import DeclarationAdvice, DeclarationPolicy
from rules_core.table_bidding import declare_table, strength_of
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
    declare_table(rules=rules, level=level, acts=acts, first_hand=False)  # the acts so far, checked
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
        trial = declare_table(
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
    """SuggestBury on another table (R14.2): ``hand`` is the dealer's hand plus the bottom; the strong
    policy (``strategy.bury.strong_bury``, the table's sizes and copies), checked by R11 on the table."""
    if policy is BuryPolicy.AUTO_BURY:  # R13.6's auto-bury is a forced-quit rule: R14.10 keeps it two-deck
        raise InvalidArgumentError(
            "policy",
            Problem.INCONSISTENT,
            "AUTO_BURY (R13.6) is ruled for the rulebooks' table only (R14.10)",
        )
    size, bottom = deal_sizes(rules.decks, rules.seats)
    if len(hand) != size + bottom:
        raise InvalidArgumentError(
            "hand", Problem.BAD_SIZE, f"the dealer holds {size} + {bottom} cards here, got {len(hand)}"
        )
    held = Deck(rules.decks).counted(hand, "hand")
    buried, why = strong_bury(ctx, rules, held)
    result = validate_bury(rules, hand=hand, bury=buried)
    if not result.legal:  # pragma: no cover - the bottom's size of the dealer's own cards
        raise AssertionError(f"an illegal bury {format_cards(buried)}")
    return BuryAdvice(buried, sum(POINTS[f] for f in buried), f"strong: {why}", policy)


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
