"""A strong auto-play (智能出牌): card counting plus a determinized search of the current trick.

:func:`suggest_play <rules_core.autoplay.suggest_play>` plays "rightmost smallest" (R13.6), the weakest
legal play. This module plays to win points for the seat's side with what a seat at a real table knows
(:class:`SeatView`): its hand, the cards already played, who is void in which category, the trick so far,
partner versus opponents (partners sit opposite, R1.5), who deals (attackers collect points, R8.2) and,
for the dealer, the bottom (dig at the last trick, R8.3–R8.5).

How a play is chosen:

1. *Candidates*: a few plays worth comparing, never the exponential set: per category the top and the
   lowest single, the highest and lowest pair, each tractor, and a throw of cards that no unseen card can
   beat (so it cannot fail, R4.4–R4.7); for a follow, the rule engine's own listing (weakest first) plus
   the cheapest winning, the point-feeding and the ruffing plays, each checked with ``check_follow``.
2. *Layouts*: ``budget`` seeded deals of the unseen cards to the other seats, consistent with the voids
   the finished tricks revealed (R5.2) and with every hand's size.
3. *Evaluation*: in each layout the seats still to play answer with a fixed casual model (win cheaply,
   feed a winning partner, ruff points, discard low), the trick is judged as R7 judges it, and the play
   scores the attackers' points it brings (signed for the seat's side, the dig included at the last
   trick), a small bonus for taking the lead, minus what the cards spent were worth for later tricks
   (masters, trumps and pairs are worth more than low cards, and a master is worth less once an
   opponent is void in its suit).

The work per call is bounded whatever the position: at most :data:`MAX_CANDIDATES` plays are simulated in
at most :data:`MAX_BUDGET` layouts, each simulation is one trick, and every listing is limited.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rules_core.cards import (
    BOTTOM_SIZE,
    FULL_DECK,
    HAND_SIZE,
    NUM_FACES,
    PLAYERS,
    POINTS,
    Hand,
    contains,
)
from rules_core.follow import check_follow
from rules_core.legal_plays import legal_plays
from rules_core.ruffing import NO_KEY, ruff_key
from rules_core.rules import DigShape, Rules
from rules_core.shapes import Component, Decomposition, decompose, runs
from rules_core.trick import dig_multiplier
from rules_core.trump import TRUMP, TrumpContext
from rules_core.verdicts import Legal

DEFAULT_BUDGET: Final[int] = 6
"""Sampled layouts of the unseen cards per suggestion: the default, within the 5 ms latency target."""
MAX_BUDGET: Final[int] = 24
"""The most layouts any call samples, whatever it asks for (the budget is clamped to it)."""
MAX_CANDIDATES: Final[int] = 10
"""The most candidate plays one call simulates."""
FOLLOW_LISTING: Final[int] = 24
"""How many of the engine's weakest-first follows are considered before the constructed ones."""

TEMPO = 4.0
"""What taking the lead is worth, in points: the next lead is this side's choice."""
MASTER = 1.5
"""What a plain master (no unseen card of its suit beats it) is worth for later tricks, in points."""
DECAY = 1.0
"""A plain card with k stronger unseen cards is worth MASTER / (1 + k) ** DECAY."""
TRUMP_BASE = 2.0
"""Any trump is worth this much: it can ruff a plain lead later."""
TRUMP_TOP = 10.0
"""A trump with k stronger unseen trumps is worth TRUMP_BASE + TRUMP_TOP / (1 + k)."""
PAIR_BONUS = 1.0
"""Each copy of a held pair is worth this much more: pairs win and meet pair leads (R5.3)."""
SPLIT = 1.0
"""Playing one copy of a pair costs this much more."""


@dataclass(frozen=True, slots=True)
class SeatView:
    """What one seat at a real table knows when it is its turn to play."""

    seat: int
    """0..3, the seat to play."""
    hand: Hand
    """Its count vector (``rules_core.cards.Hand``)."""
    leader: int
    """The leader of the current trick."""
    plays: tuple[tuple[int, ...], ...] = ()
    """The current trick so far, in play order (empty: the seat leads). plays[0] is what was led."""
    dealer: int | None = None
    """The dealer seat, when known."""
    tricks: tuple[tuple[int, tuple[tuple[int, ...], ...]], ...] = ()
    """Finished tricks: (leader, four plays in play order)."""
    attacker_points: int | None = None
    """The attackers' points so far, when known."""
    bottom: tuple[int, ...] = ()
    """The 8 buried cards, when the seat is the dealer."""


@dataclass(slots=True)
class _Info:
    """Everything derived from a view once per call: unseen cards, voids, sizes, sides, card values."""

    ctx: TrumpContext
    rules: Rules
    seat: int
    dealer: int | None
    unseen: list[int]
    """Face → copies the seat has not seen (in the other hands, the bottom, or unrecorded tricks)."""
    voids: list[list[bool]]
    """Seat → category → known void (it once followed that category with other cards, R5.2)."""
    sizes: list[int]
    """Seat → cards it holds now."""
    bottom_points: float
    """The bottom's points: exact for the dealer, else the unseen points' share of the bottom."""
    value: list[float]
    """Face → what one copy in the seat's hand is worth for later tricks, in points."""


def _clamp(budget: int) -> int:
    return max(1, min(int(budget), MAX_BUDGET))


def _partners(a: int, b: int) -> bool:
    return (a - b) % 2 == 0


def _infer_dealer(view: SeatView, cards_left: int) -> int | None:
    """The dealer when the view names it, else the first trick's leader (R4.1: the dealer leads it)."""
    if view.dealer is not None:
        return view.dealer
    if view.tricks:
        return view.tricks[0][0]
    if cards_left == HAND_SIZE:  # nothing played by this seat yet: this is the first trick
        return view.leader
    return None


def _knowledge(ctx: TrumpContext, rules: Rules, view: SeatView) -> _Info:
    """Card counting over the view: unseen cards, voids, hand sizes and card values."""
    hand = view.hand
    unseen = [FULL_DECK[f] - hand[f] for f in range(NUM_FACES)]
    voids = [[False] * 5 for _ in range(PLAYERS)]
    category = ctx.category

    def see(leader: int, plays: Sequence[Sequence[int]]) -> None:
        if not plays or not plays[0]:
            return
        cat = category[plays[0][0]]
        n = len(plays[0])
        for offset, play in enumerate(plays):
            for face in play:
                if unseen[face] > 0:
                    unseen[face] -= 1
            if offset and sum(1 for face in play if category[face] == cat) < n:
                voids[(leader + offset) % PLAYERS][cat] = True

    for leader, plays in view.tricks:
        see(leader, plays)
    see(view.leader, view.plays)
    my_size = sum(hand)
    dealer = _infer_dealer(view, my_size)
    is_dealer = dealer == view.seat
    if is_dealer and len(view.bottom) == BOTTOM_SIZE:
        for face in view.bottom:
            if unseen[face] > 0:
                unseen[face] -= 1
    played_now = {(view.leader + i) % PLAYERS for i in range(len(view.plays))}
    n_now = len(view.plays[0]) if view.plays else 0
    sizes = [my_size - (n_now if s in played_now else 0) for s in range(PLAYERS)]
    sizes[view.seat] = my_size
    if is_dealer and len(view.bottom) == BOTTOM_SIZE:
        bottom_points = float(sum(POINTS[f] for f in view.bottom))
    else:
        pool = sum(unseen)
        pool_points = sum(POINTS[f] * unseen[f] for f in range(NUM_FACES))
        bottom_points = pool_points * BOTTOM_SIZE / pool if pool else 0.0
    info = _Info(ctx, rules, view.seat, dealer, unseen, voids, sizes, bottom_points, [0.0] * NUM_FACES)
    info.value = _values(info, hand)
    return info


def _values(info: _Info, hand: Hand) -> list[float]:
    """What one copy of each held face is worth for later tricks (in points): masters and trumps most."""
    ctx, unseen = info.ctx, info.unseen
    value = [0.0] * NUM_FACES
    opponents = [s for s in range(PLAYERS) if not _partners(s, info.seat)]
    for cat in range(5):
        faces = ctx.faces[cat]  # strongest first
        left = sum(unseen[f] for f in faces)
        risk = 0.0
        if cat != TRUMP:
            risk = 0.35 * sum(1 for s in opponents if info.voids[s][cat])
            if left <= 3:
                risk += 0.3
            risk = min(risk, 0.8)
        higher = 0
        i = 0
        while i < len(faces):  # walk rung by rung: equal cards (off-suit level cards) share a rung
            rung = ctx.strength[faces[i]]
            j = i
            while j < len(faces) and ctx.strength[faces[j]] == rung:
                j += 1
            for face in faces[i:j]:
                if hand[face]:
                    if cat == TRUMP:
                        v = TRUMP_BASE + TRUMP_TOP / (1 + higher)
                    else:
                        v = MASTER / (1 + higher) ** DECAY * (1 - risk)
                    if hand[face] == 2:
                        v += PAIR_BONUS  # a pair wins pair leads and meets follow obligations
                    value[face] = v
            higher += sum(unseen[f] for f in faces[i:j])
            i = j
    return value


def _cost(info: _Info, hand: Hand, play: Sequence[int]) -> float:
    """What the cards of ``play`` were worth for later tricks; splitting a pair costs a little more."""
    value = info.value
    total = 0.0
    seen: dict[int, int] = {}
    for face in play:
        seen[face] = seen.get(face, 0) + 1
        total += value[face]
    for face, count in seen.items():
        if count == 1 and hand[face] == 2:
            total += SPLIT
    return total


# --- judging a trick as R7 does, for partial tricks too -------------------------------------------------


def _winning(
    ctx: TrumpContext, rules: Rules, lead: Decomposition, plays: Sequence[Sequence[int]]
) -> tuple[int, int, bool]:
    """(index of the winning play so far, its key, whether it is a ruff), as R7.1 resolves a trick."""
    single = len(lead.components) == 1
    best, key, ruffed = 0, lead.components[0].top if single else 0, False
    for i in range(1, len(plays)):
        beat = _beats(ctx, rules, lead, (key, ruffed), plays[i])
        if beat is not None:
            best, key, ruffed = i, beat[0], beat[1]
    return best, key, ruffed


def _beats(
    ctx: TrumpContext, rules: Rules, lead: Decomposition, best: tuple[int, bool], play: Sequence[int]
) -> tuple[int, bool] | None:
    """The new (key, ruffed) when ``play`` takes the trick from the current ``best`` (key, ruffed), else
    None (R6, R7)."""
    key, ruffed = best
    cat = lead.category
    category = ctx.category
    if len(play) <= 2 and len(lead.components) == 1 and lead.components[0].pairs == len(play) - 1:
        face = play[0]
        if len(play) == 2 and play[1] != face:  # two unequal cards never beat a pair, nor ruff one
            return None
        if category[face] == cat:
            return (ctx.strength[face], False) if not ruffed and ctx.strength[face] > key else None
        if category[face] != TRUMP or cat == TRUMP:
            return None
        ruff = ctx.strength[face]  # R6.6: a single or pair ruff's key is its own strength
        return (ruff, True) if not ruffed or ruff > key else None
    if all(category[face] == cat for face in play):
        if ruffed or len(lead.components) != 1:
            return None  # R7.2: a same-category follow never beats a throw; nor a ruff
        follow = decompose(ctx, play)
        comp = follow.components
        if len(comp) == 1 and comp[0].pairs == lead.components[0].pairs and comp[0].top > key:
            return comp[0].top, False
        return None
    if cat == TRUMP:
        return None
    ruff = ruff_key(ctx, rules, lead, play)
    if ruff != NO_KEY and (not ruffed or ruff > key):
        return ruff, True
    return None


def winning_play(ctx: TrumpContext, rules: Rules, plays: Sequence[Sequence[int]]) -> int:
    """The index of the play that is winning the (possibly unfinished) trick so far, as R7.1 judges it."""
    return _winning(ctx, rules, decompose(ctx, plays[0]), plays)[0]


# --- sampling the unseen cards --------------------------------------------------------------------------


def _sample(info: _Info, rng: random.Random, seats: Sequence[int]) -> dict[int, list[int]]:
    """One layout of the unseen cards: count vectors for ``seats`` of their sizes, voids respected.

    Cards of a category some seat is void in are placed first, each among the slots that may hold it
    (the bottom and unrecorded tricks are a slot that is never void), weighted by room; the rest then
    fill the remaining room in shuffled order. A card no slot can take without breaking a void goes
    where there is room: an inconsistent history must not stop the search.
    """
    category = info.ctx.category
    pool = [face for face in range(NUM_FACES) for _ in range(info.unseen[face])]
    rng.shuffle(pool)
    slots = list(seats)
    room = [info.sizes[s] for s in slots]
    rest = len(pool) - sum(room)  # the bottom, and cards of tricks the view did not record
    if rest < 0:  # an inconsistent view (more cards in hands than unseen): shrink the hands
        for i in range(len(room)):
            cut = min(room[i], -rest)
            room[i] -= cut
            rest += cut
    voids = [info.voids[s] for s in slots]
    constrained = [any(v[cat] for v in voids) for cat in range(5)]
    hands = [[0] * NUM_FACES for _ in slots]
    free: list[int] = []
    for face in pool:
        cat = category[face]
        if not constrained[cat]:
            free.append(face)
            continue
        total = rest + sum(room[i] for i in range(len(slots)) if not voids[i][cat])
        strict = total > 0
        if not strict:
            total = rest + sum(room)
        choice = int(rng.random() * total)
        for i in range(len(slots)):
            if room[i] and not (strict and voids[i][cat]):
                if choice < room[i]:
                    hands[i][face] += 1
                    room[i] -= 1
                    break
                choice -= room[i]
        else:
            rest -= 1
    at = 0
    for i in range(len(slots)):
        hand = hands[i]
        for face in free[at : at + room[i]]:
            hand[face] += 1
        at += room[i]
    return {s: hands[i] for i, s in enumerate(slots)}


# --- the casual model of the seats still to play -------------------------------------------------------


def _model_follow(
    ctx: TrumpContext,
    hand: list[int],
    lead: Decomposition,
    *,
    partner_winning: bool,
    best: tuple[int, bool],
    trick_points: int,
) -> list[int]:
    """A casual follower's legal play (R5): beat an opponent cheaply, feed a winning partner, else go low.

    ``best`` is the winning play's (key, ruffed). Singles and pairs are decided here; longer leads take
    the engine's weakest legal follow.
    """
    key, ruffed = best
    cat = lead.category
    assert cat is not None
    strength = ctx.strength
    own = [f for f in _weakest_first(ctx, cat) if hand[f]]  # distinct faces, weakest first
    shape = lead.components[0].pairs if len(lead.components) == 1 else -1
    if shape == 0:
        if own:
            if partner_winning:
                rich = max(own, key=lambda f: (POINTS[f], -strength[f]))
                return [rich if POINTS[rich] else own[0]]
            if not ruffed and strength[own[-1]] > key and (trick_points >= 5 or strength[own[-1]] > key + 2):
                beaters = [f for f in own if strength[f] > key]
                return [beaters[0] if trick_points < 10 else beaters[-1]]
            return [min(own, key=lambda f: (POINTS[f], strength[f]))]
        return _model_void(
            ctx, hand, lead, 1, partner_winning=partner_winning, best=best, points=trick_points
        )
    if shape == 1:
        pairs = [f for f in own if hand[f] == 2]
        if pairs:
            if not partner_winning and not ruffed and strength[pairs[-1]] > key:
                beat = [f for f in pairs if strength[f] > key]
                return [beat[0], beat[0]]
            if partner_winning:
                rich = max(pairs, key=lambda f: (POINTS[f], -strength[f]))
                return [rich, rich]
            low = min(pairs, key=lambda f: (POINTS[f], strength[f]))
            return [low, low]
        if len(own) >= 2:  # no pair: any two of the category (R5.3), all distinct here
            ordered = sorted(own, key=lambda f: (POINTS[f], strength[f]))
            if partner_winning:
                ordered.reverse()
            return ordered[:2]
        if not own:
            return _model_void(
                ctx, hand, lead, 2, partner_winning=partner_winning, best=best, points=trick_points
            )
    led = tuple(face for c in lead.components for face in c.cards)
    return list(legal_plays(ctx, hand=tuple(hand), lead=led, limit=1).plays[0])


_REVERSED: dict[tuple[int, int | None, int], tuple[int, ...]] = {}


def _weakest_first(ctx: TrumpContext, cat: int) -> tuple[int, ...]:
    """A category's faces, weakest first (cached per context)."""
    key = (ctx.level, None if ctx.trump is None else int(ctx.trump), cat)
    found = _REVERSED.get(key)
    if found is None:
        found = _REVERSED[key] = tuple(reversed(ctx.faces[cat]))
    return found


def _model_void(
    ctx: TrumpContext,
    hand: list[int],
    lead: Decomposition,
    n: int,
    *,
    partner_winning: bool,
    best: tuple[int, bool],
    points: int,
) -> list[int]:
    """A follower with no card of the led category (R5.2): ruff points cheaply, feed a partner, or discard."""
    key, ruffed = best
    cat = lead.category
    strength = ctx.strength
    category = ctx.category
    if cat != TRUMP and not partner_winning and points >= 5:
        trumps = [f for f in _weakest_first(ctx, TRUMP) if hand[f]]
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


# --- candidates -----------------------------------------------------------------------------------------


def _beatable(ctx: TrumpContext, unseen: list[int], cat: int, comp: Component) -> bool:
    """Whether some unseen cards could beat ``comp`` (R4.4); the other hands are a part of them."""
    strength = ctx.strength
    if comp.pairs == 0:
        return any(unseen[f] and strength[f] > comp.top for f in ctx.faces[cat])
    pairs = [f for f in ctx.faces[cat] if unseen[f] == 2]
    if comp.pairs == 1:
        return any(strength[f] > comp.top for f in pairs)
    return any(length >= comp.pairs and top > comp.top for top, length in runs(strength[f] for f in pairs))


def _lead_candidates(info: _Info, hand: Hand) -> list[tuple[int, ...]]:
    """A bounded set of leads worth comparing, most promising kinds first; each is a legal lead (R4.2),
    and a throw only when no unseen card can beat any of its components, so it cannot fail (R4.4)."""
    ctx, unseen = info.ctx, info.unseen
    found: list[tuple[int, tuple[int, ...]]] = []  # (priority, lead)
    for cat in range(5):
        held = [f for f in ctx.faces[cat] if hand[f]]  # strongest first
        if not held:
            continue
        top = (held[0],)
        found.append((2 if not _beatable(ctx, unseen, cat, decompose(ctx, top).components[0]) else 4, top))
        low = min(reversed(held), key=lambda f: (POINTS[f] > 0, ctx.strength[f]))
        found.append((3, (low,)))
        pairs = [f for f in held if hand[f] == 2]
        if pairs:
            found.append((2, (pairs[0], pairs[0])))
            if pairs[-1] != pairs[0]:
                found.append((5, (pairs[-1], pairs[-1])))
            if len(pairs) >= 2:
                for comp in decompose(ctx, [f for f in pairs for _ in (0, 1)]).components:
                    if comp.pairs >= 2:
                        found.append((1, comp.cards))
        whole = [f for f in held for _ in range(hand[f])]
        sure = [c for c in decompose(ctx, whole).components if not _beatable(ctx, unseen, cat, c)]
        cards = [f for c in sure for f in c.cards]
        if len(sure) >= 2:
            dec = decompose(ctx, cards)
            if len(dec.components) >= 2 and not any(_beatable(ctx, unseen, cat, c) for c in dec.components):
                found.append((0, tuple(cards)))
    found.sort(key=lambda item: item[0])
    return _dedupe([lead for _, lead in found])


def _dedupe(plays: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    seen: dict[tuple[int, ...], None] = {}
    for play in plays:
        seen.setdefault(tuple(sorted(play)), None)
    return list(seen)


def _follow_candidates(info: _Info, hand: Hand, lead: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The engine's weakest-first follows plus constructed strong ones, each checked legal (R5)."""
    ctx = info.ctx
    listed = legal_plays(ctx, hand=hand, lead=lead, limit=FOLLOW_LISTING).plays
    n = len(lead)
    cat = ctx.category[lead[0]]
    own = [f for f in ctx.faces[cat] for _ in range(hand[f])]  # strongest first
    extra: list[list[int]] = []
    if len(own) >= n:
        extra.append(own[:n])  # the strongest cards of the category
        pairs = [f for f in ctx.faces[cat] if hand[f] == 2]
        if n == 2 and pairs:
            extra.append([pairs[0], pairs[0]])
        pointed = sorted(own, key=lambda f: (-POINTS[f], ctx.strength[f]))
        extra.append(pointed[:n])
    else:
        rest = [f for f in range(NUM_FACES) if ctx.category[f] != cat for _ in range(hand[f])]
        need = n - len(own)
        trumps = sorted(
            (f for f in rest if ctx.category[f] == TRUMP), key=ctx.order.__getitem__, reverse=True
        )
        if len(trumps) >= need:
            extra.append(own + trumps[:need])  # strongest trumps
            extra.append(own + trumps[len(trumps) - need :])  # weakest trumps
            tpairs = [f for f in ctx.faces[TRUMP] if hand[f] == 2]
            structured = [f for f in reversed(tpairs) for _ in (0, 1)][: need - need % 2]
            if structured:
                fill = [f for f in reversed(trumps) if f not in structured][: need - len(structured)]
                extra.append(own + structured + fill)
                high = [f for f in tpairs for _ in (0, 1)][: need - need % 2]
                fill = [f for f in reversed(trumps) if f not in high][: need - len(high)]
                extra.append(own + high + fill)
        pointed = sorted(rest, key=lambda f: (-POINTS[f], ctx.category[f] == TRUMP, ctx.strength[f]))
        extra.append(own + pointed[:need])
    out = list(listed)
    for play in extra:
        legal = len(play) == n and contains(hand, play)
        if legal and isinstance(check_follow(ctx, hand=hand, lead=lead, play=play), Legal):
            out.append(tuple(play))
    return _dedupe(out)


# --- evaluation -----------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Counter:
    """Simulated tricks: the unit of work a call is bounded by."""

    simulations: int = 0


WORK: Final = _Counter()
"""Simulated tricks since the module was loaded (a process-wide tally, for tests of the bound)."""


def _trick_value(
    info: _Info, leader: int, plays: Sequence[Sequence[int]], lead: Decomposition, *, best: int, last: bool
) -> tuple[float, float]:
    """The trick's worth for the seat's side (attackers' points signed, dig included, plus tempo), and
    what one more point in it would be worth to the side (+1, -1 or 0; ±0.5 with the dealer unknown)."""
    WORK.simulations += 1
    winner = (leader + best) % PLAYERS
    points = 0.0
    for play in plays:
        for f in play:
            points += POINTS[f]
    mine = _partners(winner, info.seat)
    tempo = 0.0 if last else TEMPO if mine else -TEMPO
    if info.dealer is None:
        coef = 0.5 if mine else -0.5
        return points * coef + tempo, coef
    attacker_wins = (winner - info.dealer) % 2 == 1
    if last and attacker_wins:
        rules = info.rules
        shape = lead if rules.dig_shape is DigShape.LEAD else decompose(info.ctx, plays[best])
        points += info.bottom_points * dig_multiplier(rules, shape.top_grade)
    sign = 1.0 if (info.seat - info.dealer) % 2 == 1 else -1.0
    coef = sign if attacker_wins else 0.0
    return points * coef + tempo, coef


def _simulate(
    info: _Info,
    leader: int,
    plays: list[tuple[int, ...]],
    lead: Decomposition,
    *,
    state: tuple[int, int, bool],
    layout: dict[int, list[int]] | None,
    last: bool,
) -> tuple[float, float]:
    """Finish the trick with the casual model for the seats after ``plays`` and value it; ``state`` is
    (best, key, ruffed) after ``plays``."""
    ctx, rules = info.ctx, info.rules
    best, key, ruffed = state
    if len(plays) < PLAYERS:
        assert layout is not None
        trick = list(plays)
        points = sum(POINTS[f] for play in trick for f in play)
        for offset in range(len(trick), PLAYERS):
            seat = (leader + offset) % PLAYERS
            winner = (leader + best) % PLAYERS
            play = _model_follow(
                ctx,
                layout[seat],
                lead,
                partner_winning=_partners(seat, winner),
                best=(key, ruffed),
                trick_points=points,
            )
            beat = _beats(ctx, rules, lead, (key, ruffed), play)
            if beat is not None:
                best, key, ruffed = offset, beat[0], beat[1]
            points += sum(POINTS[f] for f in play)
            trick.append(tuple(play))
        plays = trick
    return _trick_value(info, leader, plays, lead, best=best, last=last)


def _layouts(
    info: _Info, view: SeatView, rng: random.Random, budget: int
) -> list[dict[int, list[int]] | None]:
    """``budget`` layouts of the seats still to play after this one (one empty layout when none are)."""
    to_play = [(view.leader + i) % PLAYERS for i in range(len(view.plays) + 1, PLAYERS)]
    if not to_play:
        return [None]
    return [_sample(info, rng, to_play) for _ in range(budget)]


def _simulated(
    info: _Info, view: SeatView, play: tuple[int, ...], layouts: Sequence[dict[int, list[int]] | None]
) -> tuple[float, float]:
    """One candidate's mean trick worth and mean point coefficient over ``layouts``."""
    ctx, rules = info.ctx, info.rules
    done = len(view.plays)
    if done == 0:
        lead = decompose(ctx, play)
        state = (0, lead.components[0].top if len(lead.components) == 1 else 0, False)
    else:
        lead = decompose(ctx, view.plays[0])
        before = _winning(ctx, rules, lead, view.plays)
        beat = _beats(ctx, rules, lead, (before[1], before[2]), play)
        state = before if beat is None else (done, beat[0], beat[1])
    last = sum(view.hand) == len(play)
    plays = [*view.plays, play]
    total = coef = 0.0
    for layout in layouts:
        value, c = _simulate(info, view.leader, plays, lead, state=state, layout=layout, last=last)
        total += value
        coef += c
    return total / len(layouts), coef / len(layouts)


def _score(
    info: _Info, view: SeatView, candidates: Sequence[tuple[int, ...]], rng: random.Random, budget: int
) -> list[float]:
    """Each candidate's worth: its trick's expected worth minus what its cards were worth later.

    Leads and follows that take the trick are simulated in the same ``budget`` layouts, the first
    MAX_CANDIDATES of them fully and any further ones in one layout. A follow that does not beat the
    current best can never win the trick (R7.1): such follows share one simulated representative (the
    cheapest) and differ from it only by the points they add, valued with its point coefficient, and
    by the cards they spend. So the work is bounded by MAX_CANDIDATES × budget + len(candidates).
    """
    ctx, rules = info.ctx, info.rules
    hand = view.hand
    layouts = _layouts(info, view, rng, budget)
    losing: list[int] = []
    if view.plays:
        lead = decompose(ctx, view.plays[0])
        _, key, ruffed = _winning(ctx, rules, lead, view.plays)
        losing = [i for i, p in enumerate(candidates) if _beats(ctx, rules, lead, (key, ruffed), p) is None]
    costs = [_cost(info, hand, p) for p in candidates]
    scores = [0.0] * len(candidates)
    simulated = 0
    if losing:
        rep = min(losing, key=lambda i: (costs[i], sum(POINTS[f] for f in candidates[i])))
        value, coef = _simulated(info, view, candidates[rep], layouts)
        simulated += 1
        base = sum(POINTS[f] for f in candidates[rep])
        for i in losing:
            scores[i] = value + coef * (sum(POINTS[f] for f in candidates[i]) - base) - costs[i]
    lost = set(losing)
    for i, play in enumerate(candidates):
        if i in lost:
            continue
        used = layouts if simulated < MAX_CANDIDATES else layouts[:1]
        value, _ = _simulated(info, view, play, used)
        simulated += 1
        scores[i] = value - costs[i]
    return scores


def rank_plays(
    ctx: TrumpContext,
    rules: Rules,
    view: SeatView,
    plays: Sequence[tuple[int, ...]],
    *,
    seed: int = 0,
    budget: int = DEFAULT_BUDGET,
) -> tuple[tuple[tuple[int, ...], float], ...]:
    """``plays`` best first, each with its score: the expected points for the seat's side from this trick
    (attackers' points signed, dig included at the last trick), plus tempo, minus what the cards spent
    were worth for later tricks. Higher is better; ties keep the given order. The plays are not checked
    for legality (rank the engine's own listing). Work is bounded by MAX_CANDIDATES × budget + len(plays).
    """
    info = _knowledge(ctx, rules, view)
    given = [tuple(p) for p in plays]
    scores = _score(info, view, given, random.Random(seed), _clamp(budget))
    order = sorted(range(len(given)), key=lambda i: -scores[i])
    return tuple((given[i], scores[i]) for i in order)


def strong_play(
    ctx: TrumpContext, rules: Rules, view: SeatView, *, seed: int = 0, budget: int = DEFAULT_BUDGET
) -> tuple[int, ...]:
    """The strong policy's play for ``view``: a legal lead of the hand, or a follow passing check_follow.

    Deterministic for the same (view, seed, budget); ``budget`` (layouts sampled) is clamped to
    1..MAX_BUDGET.
    """
    info = _knowledge(ctx, rules, view)
    if view.plays:
        candidates = _follow_candidates(info, view.hand, view.plays[0])
    else:
        candidates = _lead_candidates(info, view.hand)[:MAX_CANDIDATES]
    if len(candidates) == 1:
        return candidates[0]
    scores = _score(info, view, candidates, random.Random(seed), _clamp(budget))
    return candidates[max(range(len(candidates)), key=lambda i: (scores[i], -i))]
