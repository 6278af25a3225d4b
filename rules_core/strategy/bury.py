"""The dealer's buried cards (扣底, R11: 8 on the rulebooks' table, the table's bottom size on another,
R14.2) for a seat under auto-play, always a legal bury.

Two policies:

* ``AUTO_BURY``: R13.6 as CalculatePenalty applies it to a dealer who quit, exactly the 8 bottom cards he
  received (:func:`rules_core.forced_quit.auto_bury`, reused, never re-implemented);
* ``STRONG`` (the default): keep what wins tricks and bury what does not. Every plain card has a keep
  value (its rank, more for a master that no unseen card beats and for each card of a pair, and for a
  point card what the dig would cost if the attackers take the last trick, R8.3–R8.5, less what it risks
  in hand, where a point card that is not a master may fall to the attackers anyway); trumps are kept
  unless fewer than 8 plain cards exist. Voiding a plain suit is worth a bonus (the dealer can ruff it,
  R6) more than any one plain card is worth, so each set of short plain suits that fits in 8 cards is tried
  whole, and the rest filled with the cheapest cards. A voided suit's points go with it; other points are
  buried only when the dealer's trumps make losing the last trick unlikely.

Bounded: at most 16 sets of plain suits, each a sort of the 33 cards. The chosen bury is checked by
:func:`rules_core.kitty.check_bury` (R11) before it is returned.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import combinations
from typing import Final

from rules_core.cards import (
    BOTTOM_SIZE,
    COPIES,
    DEALER_HAND_SIZE,
    NUM_FACES,
    POINTS,
    SMALL_JOKER,
    Hand,
    check_copies,
    check_size,
    deal_sizes,
    faces_of,
    format_cards,
    points_of,
    rank_of,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.forced_quit import auto_bury
from rules_core.kitty import check_bury, validate_bury
from rules_core.rules import Rules
from rules_core.trick import dig_multiplier
from rules_core.trump import TRUMP, TrumpContext

VOID_BONUS: Final = 30.0
"""What a void plain suit is worth, in keep value: the dealer ruffs it (R6) instead of following, taking
the attackers' leads of that suit and their points. Worth more than any one plain card (a master 10 of a
pair keeps about 28), so the bury voids every short suit it can: 6 made it bury like the casual player,
30 and 50 scored alike and 8 points a deal higher (``loadtest.tournament``, three tuning seeds)."""
MASTER_BONUS: Final = 4.0
"""Extra keep value of a master: a card no unseen card beats wins its trick."""
PAIR_BONUS: Final = 3.0
"""Extra keep value of each card of a pair: pairs win pair leads and force pairs out (R5)."""
RANK_WEIGHT: Final = 2.0
"""Keep value from rank: a plain card's rung over its ladder's height, times this."""
TRUMP_KEEP: Final = 50.0
"""Keep value of a trump: buried only when fewer than 8 plain cards are left."""
HAND_RISK: Final = 0.35
"""The chance that a plain point card kept in hand, not a master, still falls to the attackers in a trick:
burying it costs the dig's expected multiple less this."""
LOSE_LAST_BASE: Final = 0.75
"""The chance that the attackers win the last trick against an average dealer with 8 trumps ..."""
LOSE_LAST_PER_TRUMP: Final = 0.04
"""... less this per trump beyond 8 ..."""
LOSE_LAST_PER_HONOUR: Final = 0.06
"""... and this per joker or level card held;"""
LOSE_LAST_RANGE: Final = (0.05, 0.9)
"""... within this range."""


class BuryPolicy(StrEnum):
    """How :func:`suggest_bury` chooses."""

    STRONG = "STRONG"
    """Void every short plain suit it can, keep trumps, pairs and masters, other points only when the dig
    is unlikely."""
    AUTO_BURY = "AUTO_BURY"
    """R13.6: the 8 bottom cards the dealer received (CalculatePenalty's ``auto_bury``)."""


@dataclass(frozen=True, slots=True)
class BuryAdvice:
    """The 8 cards to bury (a legal bury, R11), why, and the policy that chose them."""

    cards: tuple[int, ...]
    bottom_points: int
    reason: str
    policy: BuryPolicy


def suggest_bury(
    ctx: TrumpContext,
    rules: Rules,
    *,
    hand: Sequence[int],
    bottom: Sequence[int] = (),
    policy: BuryPolicy = BuryPolicy.STRONG,
) -> BuryAdvice:
    """The dealer's bury from his 33 cards ``hand`` (R11.1). ``bottom``, the 8 cards he received, is
    required by ``AUTO_BURY`` and, when given, checked to be among his cards. On another table (R14.2)
    ``hand`` is the dealer's hand plus the bottom, of the table's sizes, and only STRONG plays there."""
    if not rules.rulebook_table:
        return _table_bury(ctx, rules, hand=hand, bottom=bottom, policy=policy)
    check_size(hand, "hand", DEALER_HAND_SIZE, DEALER_HAND_SIZE, "the dealer's hand")
    held = check_copies(hand, "hand")
    if bottom:
        check_size(bottom, "bottom", BOTTOM_SIZE, BOTTOM_SIZE, "the bottom the dealer received")
        check_copies(bottom, "bottom")
        auto_bury(hand33=held, bottom=bottom)  # R13.6's own checks: the bottom is among his 33 cards
    if policy is BuryPolicy.AUTO_BURY:
        if not bottom:
            raise InvalidArgumentError(
                "bottom",
                Problem.MISSING,
                "the auto-bury buries the 8 bottom cards received (R13.6): send them",
            )
        _, buried = auto_bury(hand33=held, bottom=bottom)
        return _advice(held, buried, "auto-bury: the 8 bottom cards received (R13.6)", policy)
    buried, why = strong_bury(ctx, rules, held)
    return _advice(held, buried, f"strong: {why}", policy)


def _table_bury(
    ctx: TrumpContext, rules: Rules, *, hand: Sequence[int], bottom: Sequence[int], policy: BuryPolicy
) -> BuryAdvice:
    """SuggestBury on another table (R14.2): the strong bury of the table's sizes, checked by R11 there."""
    if bottom:
        raise InvalidArgumentError(
            "bottom", Problem.INCONSISTENT, "on other tables `hand` holds the bottom too (R14.2)"
        )
    if policy is BuryPolicy.AUTO_BURY:  # R13.6's auto-bury is a forced-quit rule: R14.10 keeps it two-deck
        raise InvalidArgumentError(
            "policy",
            Problem.INCONSISTENT,
            "AUTO_BURY (R13.6) is ruled for the rulebooks' table only (R14.10)",
        )
    size, buried_size = deal_sizes(rules.decks, rules.seats)
    if len(hand) != size + buried_size:
        raise InvalidArgumentError(
            "hand", Problem.BAD_SIZE, f"the dealer holds {size} + {buried_size} cards here, got {len(hand)}"
        )
    held = check_copies(hand, "hand", rules.decks)
    buried, why = strong_bury(ctx, rules, held)
    verdict = validate_bury(rules, hand=hand, bury=buried)
    if not verdict.legal:  # pragma: no cover - the bottom's size of the dealer's own cards
        raise AssertionError(f"an illegal bury {format_cards(buried)}: {verdict.message}")
    return BuryAdvice(tuple(buried), verdict.bottom_points, f"strong: {why}", policy)


def _advice(held: Hand, buried: Sequence[int], reason: str, policy: BuryPolicy) -> BuryAdvice:
    """The advice, checked as R11 checks any bury."""
    verdict = check_bury(hand=held, bury=buried)
    if not verdict.legal:  # pragma: no cover - both policies bury 8 of the dealer's own cards
        raise AssertionError(f"an illegal bury {format_cards(buried)}: {verdict.message}")
    return BuryAdvice(tuple(buried), verdict.bottom_points, reason, policy)


def strong_bury(ctx: TrumpContext, rules: Rules, hand: Hand) -> tuple[tuple[int, ...], str]:
    """The strong policy's bury (the table's bottom size, R11, R14.2; in face order) and a short account
    of it. On every table: D copies make a tuple of two or more copies a pair's worth, and a master needs
    every copy of each stronger card in the hand."""
    bottom = deal_sizes(rules.decks, rules.seats)[1]
    lose_last = losing_last_trick(ctx, hand, sum(hand) * BOTTOM_SIZE / DEALER_HAND_SIZE)
    keep = _keep_values(ctx, rules, hand, lose_last)
    plain = [cat for cat in range(TRUMP) if any(hand[face] for face in ctx.faces[cat])]
    best: tuple[float, tuple[int, ...]] | None = None
    for count in range(len(plain) + 1):
        for voided in combinations(plain, count):
            choice = _bury_voiding(ctx, hand, keep, voided, bottom)
            if choice is not None and (best is None or choice[0] < best[0]):
                best = choice
    assert best is not None  # voiding nothing always fits
    _, buried = best
    suits = " ".join("SHCD"[cat] for cat in _voided(ctx, hand, buried)) or "no suit"
    points = points_of(buried)
    why = (
        f"voids {suits}, buries {points} points "
        f"(the attackers take the last trick with chance about {lose_last:.2f})"
    )
    return buried, why


def losing_last_trick(ctx: TrumpContext, hand: Hand, average: float = 8) -> float:
    """A rough chance that the attackers win the last trick (and dig, R8.3): lower with more trumps than
    an ``average`` dealer's (8 of 33 cards on the rulebooks' table, as many per card on another) and
    more jokers and level cards in the dealer's hand."""
    trumps = sum(hand[face] for face in ctx.faces[TRUMP])
    honours = sum(
        hand[face] for face in ctx.faces[TRUMP] if face >= SMALL_JOKER or rank_of(face) == ctx.level
    )
    chance = LOSE_LAST_BASE - LOSE_LAST_PER_TRUMP * (trumps - average) - LOSE_LAST_PER_HONOUR * honours
    low, high = LOSE_LAST_RANGE
    return min(high, max(low, chance))


def _keep_values(ctx: TrumpContext, rules: Rules, hand: Hand, lose_last: float) -> tuple[float, ...]:
    """Per face, what keeping one copy is worth (R8.4: buried points score times the dig multiplier)."""
    masters = _masters(ctx, hand, rules.decks)
    dig = dig_multiplier(rules, 0)  # the smallest multiplier: a single wins the last trick
    values = [0.0] * NUM_FACES
    for face in range(NUM_FACES):
        if not hand[face]:
            continue
        cat = ctx.category[face]
        if cat == TRUMP:
            values[face] = TRUMP_KEEP + ctx.strength[face]
            continue
        rank = RANK_WEIGHT * ctx.strength[face] / max(ctx.rungs(cat) - 1, 1)
        master = face in masters
        values[face] = (
            1.0
            + rank
            + (MASTER_BONUS if master else 0.0)
            + (PAIR_BONUS if hand[face] >= COPIES else 0.0)
            + POINTS[face] * (dig * lose_last - (0.0 if master else HAND_RISK))
        )
    return tuple(values)


def _masters(ctx: TrumpContext, hand: Hand, decks: int = COPIES) -> frozenset[int]:
    """Plain faces that no card outside the hand beats: from the top of each suit down, while the hand
    holds every copy (D of them) of every stronger card."""
    found: set[int] = set()
    for cat in range(TRUMP):
        for rung in reversed(ctx.ladder[cat]):
            held = [face for face in rung if hand[face]]
            found.update(held)
            if any(hand[face] < decks for face in rung):
                break
    return frozenset(found)


def _bury_voiding(
    ctx: TrumpContext, hand: Hand, keep: Sequence[float], voided: Sequence[int], bottom: int = BOTTOM_SIZE
) -> tuple[float, tuple[int, ...]] | None:
    """Bury every card of the ``voided`` plain suits and fill up with the cheapest other cards; None when
    those suits hold more than the ``bottom`` (8 on the rulebooks' table). The cost is the keep value
    buried less the voids' bonus."""
    whole = [face for cat in voided for face in ctx.faces[cat] for _ in range(hand[face])]
    if len(whole) > bottom:
        return None
    rest = sorted(
        (face for face in faces_of(hand) if ctx.category[face] not in voided),
        key=lambda face: (keep[face], ctx.category[face] == TRUMP, face),
    )
    buried = tuple(sorted(whole + rest[: bottom - len(whole)]))
    cost = sum(keep[face] for face in buried) - VOID_BONUS * len(_voided(ctx, hand, buried))
    return cost, buried


def _voided(ctx: TrumpContext, hand: Hand, buried: Sequence[int]) -> tuple[int, ...]:
    """The plain suits held before the bury and void after it."""
    left = list(hand)
    for face in buried:
        left[face] -= 1
    return tuple(
        cat
        for cat in range(TRUMP)
        if any(hand[face] for face in ctx.faces[cat]) and not any(left[face] for face in ctx.faces[cat])
    )
