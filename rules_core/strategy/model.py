"""The opponents' model: how the seats the search does not control answer in a sampled layout.

A careful follower: take an opponent's single or pair with a master (nothing it cannot see tops it), or
as the last seat with its cheapest winner; feed a winning partner, ruff points, else go low. Every
answer costs time linear in the hand (no listing of legal plays), so a simulated play is a unit of work
of bounded cost whatever the lead; for leads longer than a pair it approximates R5.3's obligations
(pairs first, then singles of the category, then anything), which is enough for a model.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Final

from rules_core.cards import NUM_FACES, POINTS, Suit
from rules_core.ruffing import NO_KEY, ruff_key
from rules_core.rules import Rules, ThrowRuffCompare
from rules_core.shapes import Decomposition
from rules_core.trick import TAKES, Standing, judge_play
from rules_core.trump import TRUMP, TrumpContext, trump_context

RUFF_POINTS: Final = 5
"""A void follower ruffs an opponent's winning plain single or pair when the trick holds this many points."""


def weakest_first(ctx: TrumpContext, cat: int) -> tuple[int, ...]:
    """A category's faces, weakest first (cached per level, trump and category: hashing the whole
    context on every simulated play would cost more than the reversal)."""
    return _weakest(ctx.level, ctx.trump, cat)


@functools.cache
def _weakest(level: int, trump: Suit | None, cat: int) -> tuple[int, ...]:
    return tuple(reversed(trump_context(level, trump).faces[cat]))


def model_follow(
    ctx: TrumpContext,
    rules: Rules,
    hand: list[int],
    lead: Decomposition,
    *,
    partner_winning: bool,
    standing: Standing,
    trick_points: int,
    outside: Sequence[int],
    last: bool,
) -> list[int]:
    """A careful follower's play of ``lead``: take an opponent's card, feed a winning partner, else low.

    ``outside`` is face → the copies not yet played (the searching seat's unseen cards and its hand,
    less its play): what a follower cannot see is that less its own hand. A follower that is not
    ``last`` beats an opponent's single or pair only with a master, one that nothing it cannot see
    tops (a later seat could top anything else), as a careful player does; the last one takes it with
    its cheapest winner."""
    key, ruffed = standing.key, standing.ruffed
    cat = lead.category
    assert cat is not None
    strength = ctx.strength
    own = [f for f in weakest_first(ctx, cat) if hand[f]]  # distinct faces, weakest first
    shape = lead.components[0].pairs if len(lead.components) == 1 else -1
    if shape == 1 and lead.size > 2:  # a lone triple or quadruple (R14.3): followed as a longer lead
        shape = -1
    if shape == 0:
        if own:
            if partner_winning:
                rich = max(own, key=lambda f: (POINTS[f], -strength[f]))
                return [rich if POINTS[rich] else own[0]]
            if not ruffed:  # the cheapest card that takes it; short of the last seat, only a master
                beaters = [f for f in own if strength[f] > key]
                if not last:
                    beaters = [f for f in beaters if _master(ctx, outside, hand, cat, f)]
                if beaters:
                    return [beaters[0]]
            return [min(own, key=lambda f: (POINTS[f], strength[f]))]
        return model_void(
            ctx, hand, cat, 1, partner_winning=partner_winning, standing=standing, points=trick_points
        )
    if shape == 1:
        pairs = [f for f in own if hand[f] == 2]
        if pairs:
            if not partner_winning and not ruffed and strength[pairs[-1]] > key:
                beat = [f for f in pairs if strength[f] > key]
                if not last:
                    beat = [f for f in beat if _master(ctx, outside, hand, cat, f, copies=2)]
                if beat:
                    return [beat[0], beat[0]]
            if partner_winning:
                rich = max(pairs, key=lambda f: (POINTS[f], -strength[f]))
                return [rich, rich]
            low = min(pairs, key=lambda f: (POINTS[f], strength[f]))
            return [low, low]
        if not own:
            return model_void(
                ctx, hand, cat, 2, partner_winning=partner_winning, standing=standing, points=trick_points
            )
    if not own and cat != TRUMP and not partner_winning:
        ruff = _long_ruff(ctx, rules, hand, lead, standing)
        if ruff:
            return ruff
    return _model_long(ctx, hand, lead, own, partner_winning=partner_winning, standing=standing)


def _master(
    ctx: TrumpContext, outside: Sequence[int], hand: list[int], cat: int, face: int, *, copies: int = 1
) -> bool:
    """Whether no ``copies`` of a stronger face than ``face`` are out of the sight of the seat holding
    ``hand`` (R7.1: nothing unseen can beat it)."""
    strength = ctx.strength
    top = strength[face]
    for g in ctx.faces[cat]:  # strongest first
        if strength[g] <= top:
            return True
        if outside[g] - hand[g] >= copies:
            return False
    return True


def _long_ruff(
    ctx: TrumpContext, rules: Rules, hand: list[int], lead: Decomposition, standing: Standing
) -> list[int]:
    """A void follower's cheapest ruff of a plain lead longer than a pair (R6): its weakest trump pairs
    for the lead's pair units, then its weakest trumps; [] when that is no valid ruff or does not take
    the trick (a thrown lead into a void is ruffed: the search must see it)."""
    n = lead.size
    trumps = [f for f in weakest_first(ctx, TRUMP) if hand[f]]
    if sum(hand[f] for f in trumps) < n:
        return []
    owed = sum(c.pairs for c in lead.components)
    play: list[int] = []
    for f in trumps:
        if owed and hand[f] == 2 and len(play) + 2 <= n:
            play += [f, f]
            owed -= 1
    play += [f for f in trumps for _ in range(hand[f] - play.count(f))][: n - len(play)]
    if rules.throw_ruff_compare is not ThrowRuffCompare.R6_6 and len(lead.components) > 1:
        return play if judge_play(ctx, rules, lead, standing, play)[0] in TAKES else []  # R16.7
    key = ruff_key(ctx, rules, lead, play)
    if key == NO_KEY or (standing.ruffed and key <= standing.key):
        return []
    return play


def _model_long(
    ctx: TrumpContext,
    hand: list[int],
    lead: Decomposition,
    own: list[int],
    *,
    partner_winning: bool,
    standing: Standing,
) -> list[int]:
    """A follow of ``lead``'s size from the category: its pairs (as many as the lead has), then its
    singles, low or point-rich as the partner stands, then a discard for what is missing (R5.2–R5.3)."""
    n = lead.size
    cat = lead.category
    assert cat is not None
    order = sorted(own, key=lambda f: (-POINTS[f], ctx.strength[f])) if partner_winning else own
    owed = sum(c.pairs for c in lead.components)
    play: list[int] = []
    for f in order:
        if owed and hand[f] == 2 and len(play) + 2 <= n:
            play += [f, f]
            owed -= 1
    left = [f for f in order for _ in range(hand[f] - play.count(f))]
    play += left[: n - len(play)]
    if len(play) < n:
        rest = list(hand)
        for f in play:
            rest[f] -= 1
        play += model_void(
            ctx, rest, cat, n - len(play), partner_winning=partner_winning, standing=standing, points=0
        )
    return play


def model_void(
    ctx: TrumpContext,
    hand: list[int],
    cat: int,
    n: int,
    *,
    partner_winning: bool,
    standing: Standing,
    points: int,
) -> list[int]:
    """``n`` cards from outside the led category ``cat`` (R5.2): ruff points cheaply, feed a partner, or
    discard low."""
    key, ruffed = standing.key, standing.ruffed
    strength = ctx.strength
    category = ctx.category
    if cat != TRUMP and not partner_winning and points >= RUFF_POINTS:
        trumps = [f for f in weakest_first(ctx, TRUMP) if hand[f]]
        if n == 1:
            over = [f for f in trumps if not ruffed or strength[f] > key]
            if over:
                return [over[0]]
        if n == 2:
            over = [f for f in trumps if hand[f] == 2 and (not ruffed or strength[f] > key)]
            if over:
                return [over[0], over[0]]
    rest = [f for f in range(NUM_FACES) if hand[f] and category[f] != cat for _ in range(hand[f])]
    plain = [f for f in rest if category[f] != TRUMP]
    if len(plain) < n:
        plain = rest
    if partner_winning:
        plain.sort(key=lambda f: (-POINTS[f], strength[f]))
    else:
        plain.sort(key=lambda f: (POINTS[f], strength[f]))
    return plain[:n]
