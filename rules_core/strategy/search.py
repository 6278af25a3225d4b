"""The search: candidate plays, each simulated in sampled layouts to the end of the trick, scored.

Work is counted in units (:class:`Work`): a simulated trick costs :data:`TRICK_WORK` plus the cards of the
lead, about what its time is (the opponents' model lists no legal plays, so a simulated play is linear in
the hand). A call samples no more layouts than fit all its candidates within :data:`MAX_WORK` units,
whatever the budget asked for, and judges every candidate in the same layouts (a candidate past
:data:`MAX_CANDIDATES` in one), so its time is bounded whatever the position. The count is part of the
result (:class:`Search`).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rules_core.cards import NUM_FACES, POINTS, Hand, contains
from rules_core.component import Component, width
from rules_core.follow import check_follow
from rules_core.legal_plays import legal_plays
from rules_core.rules import Rules
from rules_core.shapes import Decomposition, decompose, runs
from rules_core.strategy.endgame import solvable, solve
from rules_core.strategy.knowledge import (
    Knowledge,
    SeatView,
    allied,
    cost,
    failed_throw_cost,
    knowledge,
    trick_worth,
)
from rules_core.strategy.model import model_follow
from rules_core.strategy.sampling import Layout, Sampler
from rules_core.throw import judge_throw
from rules_core.trick import Standing, advance, opening, standing_of
from rules_core.trump import TRUMP, TrumpContext
from rules_core.verdicts import Legal

DEFAULT_BUDGET: Final[int] = 10
"""Sampled layouts of the unseen cards per suggestion by default: p99 within 5 ms (``make bench-suggest``)."""
MAX_BUDGET: Final[int] = 24
"""The most layouts any call samples, whatever it asks for (the budget is clamped to it)."""
MAX_CANDIDATES: Final[int] = 10
"""The most candidate plays one call simulates in every layout."""
FOLLOW_LISTING: Final[int] = 24
"""How many of the engine's weakest-first follows are considered before the constructed ones."""
TRICK_WORK: Final[int] = 3
"""The work units of one simulated trick, beside one unit per card of its lead."""
MAX_WORK: Final[int] = 600
"""The work bound, about 8 ms on the reference machine: a call samples only as many layouts as its
candidates' simulated tricks fit in this many units, and never fewer than one (a default-budget call of
single or pair plays needs at most MAX_CANDIDATES × DEFAULT_BUDGET × 5 = 500)."""
TEMPO: Final = 4.0
"""What taking the lead is worth, in points: the next lead is this side's choice."""
OTHERS_FATE: Final = 0.3
"""The share of a point card's points the attackers would have taken later, had the other seat kept it
(see ``knowledge.POINT_FATE``): a point card another seat plays now no longer reaches them later."""
TRUMP_DRAWN: Final = 1.0
"""What each trump another seat spends in the simulated trick is worth to the seat's side (an opponent's:
one trump fewer to ruff our masters or take the last trick; a partner's: one fewer of ours)."""


@dataclass(slots=True)
class Work:
    """Work units spent so far in one call (the bound is kept by sizing the layouts up front, ``_score``)."""

    units: int = 0
    simulations: int = 0

    def spend(self, units: int) -> None:
        """Count one simulated trick of ``units``."""
        self.units += units
        self.simulations += 1


@dataclass(frozen=True, slots=True)
class Search:
    """A search's answer: the plays best first with their scores, and the work it spent."""

    ranked: tuple[tuple[tuple[int, ...], float], ...]
    """(play, score), best first; ties keep the given order."""
    work: int
    """Work units spent: at most MAX_WORK (scaled to the table's seats), or one simulated trick per
    candidate where even that is more; for the solved end of a hand (:mod:`~rules_core.strategy.endgame`)
    the plays judged, at most MAX_WORK + 1."""
    simulations: int
    """Simulated tricks (judged tricks, for a solved end)."""
    layouts: int
    """Sampled layouts of the unseen cards: 0 for a lone candidate, and for the trick's last play (no
    unseen card plays in it)."""

    @property
    def best(self) -> tuple[int, ...]:
        return self.ranked[0][0]


def clamp(budget: int) -> int:
    """The layouts a budget asks for, within 1..MAX_BUDGET."""
    return max(1, min(int(budget), MAX_BUDGET))


def winning_play(ctx: TrumpContext, rules: Rules, plays: Sequence[Sequence[int]]) -> int:
    """The index of the play that is winning the (possibly unfinished) trick so far, as R7.1 judges it."""
    return standing_of(ctx, rules, plays).best


# --- candidates -----------------------------------------------------------------------------------------


def _beatable(info: Knowledge, cat: int, comp: Component) -> bool:
    """Whether some unseen cards could beat ``comp`` (R4.4, R14.5: the same width and rungs, stronger);
    the other hands are a part of them, and a pair or tractor only by a seat that may hold a pair of
    the category (not void, R5.2, nor known pairless, R5.3)."""
    ctx, unseen = info.ctx, info.unseen
    strength = ctx.strength
    if comp.pairs == 0:
        return any(unseen[f] and strength[f] > comp.top for f in ctx.faces[cat])
    if info.unpaired and all(
        info.voids[s][cat] or info.unpaired[s][cat] for s in range(info.seats) if s != info.seat
    ):
        return False
    w = width(comp)
    pairs = [f for f in ctx.faces[cat] if unseen[f] >= w]
    if comp.pairs == 1:
        return any(strength[f] > comp.top for f in pairs)
    return any(length >= comp.pairs and top > comp.top for top, length in runs(strength[f] for f in pairs))


def lead_candidates(info: Knowledge, hand: Hand) -> list[tuple[int, ...]]:
    """A bounded set of leads worth comparing, most promising kinds first; each is a legal lead (R4.2),
    and a throw only when no unseen card can beat any of its components, so it cannot fail (R4.4)."""
    ctx = info.ctx
    found: list[tuple[int, tuple[int, ...]]] = []  # (priority, lead)
    for cat in range(5):
        held = [f for f in ctx.faces[cat] if hand[f]]  # strongest first
        if not held:
            continue
        top = (held[0],)
        found.append((2 if not _beatable(info, cat, decompose(ctx, top).components[0]) else 4, top))
        low = min(reversed(held), key=lambda f: (POINTS[f] > 0, ctx.strength[f]))
        found.append((3, (low,)))
        pairs = [f for f in held if hand[f] >= 2]  # tuples (R14.3): a pair on two decks
        if pairs:
            found.append((2, (pairs[0],) * hand[pairs[0]]))
            if pairs[-1] != pairs[0]:
                found.append((5, (pairs[-1],) * hand[pairs[-1]]))
            if len(pairs) >= 2:
                for comp in decompose(ctx, [f for f in pairs for _ in range(hand[f])]).components:
                    if comp.pairs >= 2:
                        found.append((1, comp.cards))
        if cat != TRUMP and _ally_ruffs(info, cat):  # a lead to an ally's void: the points go to its ruff
            rich = max(held, key=lambda f: (POINTS[f], -ctx.strength[f]))
            if POINTS[rich]:
                found.append((1, (rich,)))
        whole = [f for f in held for _ in range(hand[f])]
        sure = [c for c in decompose(ctx, whole).components if not _beatable(info, cat, c)]
        cards = [f for c in sure for f in c.cards]
        if len(sure) >= 2:
            dec = decompose(ctx, cards)
            if len(dec.components) >= 2 and not any(_beatable(info, cat, c) for c in dec.components):
                found.append((0, tuple(cards)))
    found.sort(key=lambda item: item[0])
    return _dedupe([lead for _, lead in found])


def _ally_ruffs(info: Knowledge, cat: int) -> bool:
    """Whether an ally has shown a void in the plain category ``cat`` (R5.2) and may still hold trumps,
    while no opponent has shown that void: the ally can ruff a lead of it and no one over-ruffs."""
    seats = [s for s in range(info.seats) if s != info.seat]
    kin = [info.kin[s][info.seat] for s in range(info.seats)]
    ally = any(kin[s] > 0.5 and info.voids[s][cat] and not info.voids[s][TRUMP] for s in seats)
    return ally and not any(kin[s] < 0 and info.voids[s][cat] for s in seats)


def _dedupe(plays: Sequence[Sequence[int]]) -> list[tuple[int, ...]]:
    seen: dict[tuple[int, ...], None] = {}
    for play in plays:
        seen.setdefault(tuple(sorted(play)), None)
    return list(seen)


def _follow_candidates(info: Knowledge, hand: Hand, lead: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The engine's weakest-first follows plus constructed strong ones, each checked legal (R5)."""
    ctx = info.ctx
    decks = info.rules.decks
    listed = legal_plays(ctx, hand=hand, lead=lead, limit=FOLLOW_LISTING, decks=decks).plays
    n = len(lead)
    cat = ctx.category[lead[0]]
    own = [f for f in ctx.faces[cat] for _ in range(hand[f])]  # strongest first
    extra: list[list[int]] = []
    if len(own) >= n:
        extra.append(own[:n])  # the strongest cards of the category
        pairs = [f for f in ctx.faces[cat] if hand[f] >= n]
        if 2 <= n <= decks and pairs:  # a tuple of the lead's size (a pair on two decks)
            extra.append([pairs[0]] * n)
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
            tpairs = [f for f in ctx.faces[TRUMP] if hand[f] >= 2]
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
        if legal and isinstance(check_follow(ctx, hand=hand, lead=lead, play=play, decks=decks), Legal):
            out.append(tuple(play))
    return _dedupe(out)


# --- evaluation -----------------------------------------------------------------------------------------


def _simulate(
    info: Knowledge,
    leader: int,
    plays: list[tuple[int, ...]],
    lead: Decomposition,
    *,
    standing: Standing,
    layout: Layout | None,
    last: bool,
    outside: Sequence[int],
) -> tuple[float, float]:
    """Finish the trick with the opponents' model for the seats after ``plays`` and value it."""
    ctx, rules = info.ctx, info.rules
    trick = list(plays)
    n = info.seats
    if len(plays) < n:
        assert layout is not None
        points = sum(POINTS[f] for play in trick for f in play)
        for offset in range(len(trick), n):
            seat = (leader + offset) % n
            winner = (leader + standing.best) % n
            play = model_follow(
                ctx,
                rules,
                layout[seat],
                lead,
                partner_winning=allied(info, seat, winner),
                standing=standing,
                trick_points=points,
                outside=outside,
                last=offset == n - 1,
            )
            if play:  # a layout shrunk by an inconsistent history may leave a seat without cards
                standing = advance(ctx, rules, lead, standing, play, index=offset)
            points += sum(POINTS[f] for f in play)
            trick.append(tuple(play))
    value, coef = trick_worth(info, leader, trick, lead, best=standing.best, last=last)
    if not last:  # tempo: the next lead is the winner's side's choice
        value += TEMPO if allied(info, (leader + standing.best) % n, info.seat) else -TEMPO
    return value + _spent(info, leader, trick), coef


def _spent(info: Knowledge, leader: int, trick: Sequence[Sequence[int]]) -> float:
    """What the other seats' cards in the trick no longer do later, for the seat's side: the trumps they
    spent (pulling an opponent's trumps, TRUMP_DRAWN) and the points that no longer reach the attackers
    in a later trick (OTHERS_FATE)."""
    category = info.ctx.category
    total = 0.0
    fate = 0.0
    if info.dealer is not None:  # an attacker's (chance of the dealer's side 0): -OTHERS_FATE
        fate = -OTHERS_FATE * (1.0 - 2.0 * info.dealer_side[info.seat])
    for offset, play in enumerate(trick):
        seat = (leader + offset) % info.seats
        if seat == info.seat:
            continue
        n = sum(1 for f in play if category[f] == TRUMP)
        total += -n * TRUMP_DRAWN * info.kin[seat][info.seat]
        total += fate * sum(POINTS[f] for f in play)
    return total


def _layouts(info: Knowledge, view: SeatView, rng: random.Random, budget: int) -> list[Layout | None]:
    """``budget`` layouts of the seats still to play after this one (one empty layout when none are)."""
    n = info.seats
    to_play = [(view.leader + i) % n for i in range(len(view.plays) + 1, n)]
    if not to_play:
        return [None]
    sampler = Sampler(info, to_play)
    return [sampler.draw(rng) for _ in range(budget)]


def _simulated(
    info: Knowledge,
    view: SeatView,
    play: tuple[int, ...],
    layouts: Sequence[Layout | None],
    work: Work,
    *,
    unplayed: Sequence[int],
) -> tuple[float, float]:
    """One candidate's mean trick worth and mean point coefficient over ``layouts`` (counted in ``work``);
    ``unplayed`` is face → the copies not yet played before this play (the seat's unseen cards and its
    hand)."""
    ctx, rules = info.ctx, info.rules
    done = len(view.plays)
    if done == 0:
        lead = decompose(ctx, play)
        standing = opening(lead)
    else:
        lead = decompose(ctx, view.plays[0])
        standing = advance(ctx, rules, lead, standing_of(ctx, rules, view.plays), play, index=done)
    last = sum(view.hand) == len(play)
    plays = [*view.plays, play]
    outside = list(unplayed)  # what the model's seats have not seen played (model_follow)
    for f in play:
        outside[f] -= 1
    units = TRICK_WORK + len(play)
    throw = done == 0 and len(lead.components) > 1
    total = coef = 0.0
    for layout in layouts:
        work.spend(units)
        failed = None
        if throw and layout is not None:
            failed = _failed(info, view, play, lead, layout, unplayed=unplayed)
        value, c = failed or _simulate(
            info, view.leader, plays, lead, standing=standing, layout=layout, last=last, outside=outside
        )
        total += value
        coef += c
    return total / len(layouts), coef / len(layouts)


def _failed(
    info: Knowledge,
    view: SeatView,
    play: tuple[int, ...],
    lead: Decomposition,
    layout: Layout,
    *,
    unplayed: Sequence[int],
) -> tuple[float, float] | None:
    """A throw's trick in a layout where another hand beats a component (R4.4): its forced component
    is led instead (R4.7), the rest stays in the hand, so their worth for later is given back, and the
    side pays the table's penalty (R16.2); None when the throw succeeds there."""
    ctx, rules = info.ctx, info.rules
    result = judge_throw(ctx, rules, lead, {s: tuple(h) for s, h in layout.items()})
    if result.succeeded:
        return None
    forced = tuple(result.led)
    shape = decompose(ctx, forced)
    outside = list(unplayed)
    for f in forced:
        outside[f] -= 1
    value, coef = _simulate(
        info,
        view.leader,
        [forced],
        shape,
        standing=opening(shape),
        layout=layout,
        last=False,
        outside=outside,
    )
    kept = cost(info, view.hand, play) - cost(info, view.hand, forced)
    return value + kept - failed_throw_cost(info, len(play)), coef


def _score(
    info: Knowledge, view: SeatView, candidates: Sequence[tuple[int, ...]], rng: random.Random, budget: int
) -> tuple[list[float], Work, int]:
    """Each candidate's worth: its trick's expected worth minus what its cards were worth later; with the
    work spent and the layouts sampled.

    A follow that does not beat the current best can never win the trick (R7.1): such follows share one
    simulated representative (the cheapest) and differ from it only by the points they add, valued with
    its point coefficient, and by the cards they spend. The first MAX_CANDIDATES simulated candidates
    share the same layouts, as many of the ``budget`` as fit every one of them within MAX_WORK; any
    further ones get one layout. Every candidate is judged on equal terms: a candidate scored on fewer
    layouts than the others would win the comparison by its luck as often as by its worth.
    """
    ctx, rules = info.ctx, info.rules
    hand = view.hand
    unplayed = [u + h for u, h in zip(info.unseen, hand, strict=True)]
    ceiling = MAX_WORK * 3 // (info.seats - 1)  # a trick of N plays models N - 1 seats
    losing: list[int] = []
    if view.plays:
        lead = decompose(ctx, view.plays[0])
        now = standing_of(ctx, rules, view.plays)
        done = len(view.plays)
        losing = [
            i for i, p in enumerate(candidates) if advance(ctx, rules, lead, now, p, index=done).best != done
        ]
    costs = [cost(info, hand, p) for p in candidates]
    points = [sum(POINTS[f] for f in p) for p in candidates]
    lost = set(losing)
    rep = min(losing, key=lambda i: (costs[i], points[i])) if losing else None
    simulated = ([] if rep is None else [rep]) + [i for i in range(len(candidates)) if i not in lost]
    units = [TRICK_WORK + len(candidates[i]) for i in simulated]
    room = ceiling - sum(units[MAX_CANDIDATES:])
    layouts = _layouts(info, view, rng, max(1, min(budget, room // sum(units[:MAX_CANDIDATES]))))
    work = Work()
    scores = [0.0] * len(candidates)
    for k, i in enumerate(simulated):
        used = layouts if k < MAX_CANDIDATES else layouts[:1]
        value, coef = _simulated(info, view, candidates[i], used, work, unplayed=unplayed)
        if i == rep:
            for j in losing:
                scores[j] = value + coef * (points[j] - points[i]) - costs[j]
        else:
            scores[i] = value - costs[i]
    return scores, work, 0 if layouts == [None] else len(layouts)


def search_plays(
    ctx: TrumpContext,
    rules: Rules,
    view: SeatView,
    plays: Sequence[tuple[int, ...]] | None = None,
    *,
    seed: int = 0,
    budget: int = DEFAULT_BUDGET,
) -> Search:
    """Rank ``plays`` (None: the strong policy's own candidates, each legal) for ``view``.

    The score is the expected points for the seat's side from this trick (attackers' points signed, dig
    included at the last trick), plus tempo, minus what the cards spent were worth for later tricks.
    Given plays are not checked for legality (rank the engine's own listing). Deterministic for the same
    (view, plays, seed, budget); the budget (layouts) is clamped to 1..MAX_BUDGET and the work to MAX_WORK.
    """
    info = knowledge(ctx, rules, view)
    if plays is None:
        if view.plays:
            given = _follow_candidates(info, view.hand, view.plays[0])
        else:
            given = lead_candidates(info, view.hand)[:MAX_CANDIDATES]
    else:
        given = [tuple(p) for p in plays]
    asked = clamp(budget)
    if len(given) == 1:
        return Search(((given[0], 0.0),), 0, 0, 0)
    rng = random.Random(seed)
    solved = solve(info, view, given, rng, asked, ceiling=MAX_WORK) if solvable(info, view) else None
    if solved is not None:  # the last tricks, exactly in each world
        scores, plays_judged, tricks = solved
        work, layouts = Work(units=plays_judged, simulations=tricks), asked
    else:
        scores, work, layouts = _score(info, view, given, rng, asked)
    order = sorted(range(len(given)), key=lambda i: -scores[i])
    return Search(tuple((given[i], scores[i]) for i in order), work.units, work.simulations, layouts)


def rank_plays(
    ctx: TrumpContext,
    rules: Rules,
    view: SeatView,
    plays: Sequence[tuple[int, ...]],
    *,
    seed: int = 0,
    budget: int = DEFAULT_BUDGET,
) -> tuple[tuple[tuple[int, ...], float], ...]:
    """``plays`` best first, each with its score (see :func:`search_plays`). Higher is better."""
    return search_plays(ctx, rules, view, plays, seed=seed, budget=budget).ranked


def strong_play(
    ctx: TrumpContext, rules: Rules, view: SeatView, *, seed: int = 0, budget: int = DEFAULT_BUDGET
) -> tuple[int, ...]:
    """The strong policy's play for ``view``: a legal lead of the hand, or a follow passing check_follow.

    Deterministic for the same (view, seed, budget).
    """
    return search_plays(ctx, rules, view, seed=seed, budget=budget).best
