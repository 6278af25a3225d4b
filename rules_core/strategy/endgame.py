"""The end of the hand solved exactly: with at most :data:`SOLVE_CARDS` cards in the seat's hand, every
sampled world (each other hand dealt, :mod:`~rules_core.strategy.sampling`) is played to the last trick
with each seat choosing the legal play best for its side, seeing the world's hands (a min-max: the
seat's side maximizes, the other minimizes). A candidate scores its mean over the worlds: the points of
the tricks still to come for the seat's side, the dig included (R8.3–R8.5). No tempo and no card values:
after the last trick nothing is left to value.

Only where the sides are known (fixed partners with the dealer known, or finding friends with every side
found: ``Knowledge.exact``); elsewhere the one-trick search of :mod:`~rules_core.strategy.search`
decides. A throw (R4.4–R4.7) is judged against the world's other hands, so a failed one leads its forced
component and costs the thrower's side the table's penalty (R16.2).

Bounded: two cards a hand leave at most two choices a seat in the trick under way, and the last trick is
forced (one card each), so a candidate costs at most 2^(N-1) follows per world (N seats), fewer with
alpha-beta. A call judges at most its ``ceiling`` of plays (the search's ``MAX_WORK``, a unit a play);
three cards a hand would cost hundreds of tricks per world (:data:`SOLVE_CARDS`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from typing import Final

from rules_core.cards import Hand, faces_of, hand_of
from rules_core.legal_plays import legal_plays
from rules_core.rules import FollowRule
from rules_core.shapes import Decomposition, decompose
from rules_core.strategy.knowledge import Knowledge, SeatView, allied, failed_throw_cost, trick_worth
from rules_core.strategy.sampling import Layout, Sampler
from rules_core.throw import judge_throw
from rules_core.trick import Standing, advance, opening, standing_of

SOLVE_CARDS: Final[int] = 2
"""The most cards in the seat's hand at which the rest of the hand is solved in each world: the last two
tricks. With three, a world's tree is hundreds of tricks, past the latency bound (``make bench-suggest``)."""


def solvable(info: Knowledge, view: SeatView) -> bool:
    """Whether the rest of the hand is solved exactly for ``view``: few cards left and both sides known."""
    return sum(view.hand) <= SOLVE_CARDS and info.exact and info.dealer is not None


def solve(
    info: Knowledge,
    view: SeatView,
    candidates: Sequence[tuple[int, ...]],
    rng: random.Random,
    budget: int,
    *,
    ceiling: int,
) -> tuple[list[float], int, int] | None:
    """Each candidate's mean worth over at most ``budget`` worlds, the plays and the tricks judged; None
    when a world does not fit the hand sizes (an inconsistent history: the one-trick search copes).

    No play past ``ceiling`` is judged: the world under way then is dropped and the worlds solved so far
    decide; None when not even the first is solved (a wide table's tree, up to 2^(N-1) follows a world)."""
    n = info.seats
    others = [s for s in range(n) if s != info.seat]
    solver = _Solver(info, ceiling)
    plays = list(view.plays)
    lead = decompose(info.ctx, plays[0]) if plays else None
    standing = standing_of(info.ctx, info.rules, plays) if plays else None
    totals = [0.0] * len(candidates)
    worlds = 0
    sampler = Sampler(info, others)
    while worlds < budget:
        world = sampler.draw(rng)
        if any(sum(world[s]) != info.sizes[s] for s in others):
            return None
        hands = _hands(world, info.seat, view.hand)
        try:
            worths = []
            for play in candidates:
                solver.hands = list(hands)
                worths.append(solver.after(view.leader, plays, play, lead, standing))
        except _BoundError:
            break
        totals = [t + w for t, w in zip(totals, worths, strict=True)]
        worlds += 1
    if not worlds:
        return None
    return [total / worlds for total in totals], solver.plays, solver.tricks


class _BoundError(Exception):
    """The solve reached its ceiling of plays: the world under way is dropped."""


def _hands(world: Layout, seat: int, hand: Hand) -> list[tuple[int, ...]]:
    """Every seat's cards in one world, the seat's own included, as faces (a hand of a few cards is
    cheaper to play out as its faces than as a count vector of every face)."""
    return [faces_of(hand if s == seat else tuple(world[s])) for s in range(len(world) + 1)]


class _Solver:
    """The min-max over one world's hands (:attr:`hands`, each seat's faces, played and restored)."""

    def __init__(self, info: Knowledge, ceiling: int) -> None:
        self.info = info
        self.ceiling = ceiling
        self.hands: list[tuple[int, ...]] = []
        self.plays = 0
        self.tricks = 0
        self.structure = info.rules.follow is FollowRule.STRUCTURE  # R16.3

    def best(
        self,
        leader: int,
        plays: list[tuple[int, ...]],
        lead: Decomposition | None,
        standing: Standing | None,
        *,
        window: tuple[float, float],
    ) -> float:
        """The worth of the rest of the hand with the next seat to choose its best play (``lead`` and
        ``standing``: the trick so far, None before its lead). Alpha-beta: exact within ``window``
        (alpha, beta), only a bound outside it, which is all a caller then needs."""
        seat = (leader + len(plays)) % self.info.seats
        mine = allied(self.info, seat, self.info.seat)
        alpha, beta = window
        value = -math.inf if mine else math.inf
        for play in self.options(self.hands[seat], plays):
            worth = self.after(leader, plays, play, lead, standing, window=(alpha, beta))
            if mine:
                value = max(value, worth)
                alpha = max(alpha, value)
            else:
                value = min(value, worth)
                beta = min(beta, value)
            if alpha >= beta:
                break
        return value

    def options(self, cards: tuple[int, ...], plays: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
        """The seat's legal plays: forced when it holds no more cards than the lead (or one card); a
        single lead is followed by any card of its category, or any card when void (R5.1, R5.2); else
        the engine's listing."""
        info = self.info
        size = len(plays[0]) if plays else 1
        if len(cards) <= size:
            return [cards]
        if size == 1 and plays:
            category = info.ctx.category
            cat = category[plays[0][0]]
            own = sorted({f for f in cards if category[f] == cat})
            return [(f,) for f in own or sorted(set(cards))]
        listed = legal_plays(
            info.ctx,
            hand=hand_of(cards),
            lead=plays[0] if plays else (),
            limit=100,
            structure=self.structure,
            decks=info.rules.decks,
        )
        return list(listed.plays)

    def after(
        self,
        leader: int,
        plays: list[tuple[int, ...]],
        play: tuple[int, ...],
        lead: Decomposition | None,
        standing: Standing | None,
        *,
        window: tuple[float, float] = (-math.inf, math.inf),
    ) -> float:
        """The worth of the rest of the hand once the next seat plays ``play`` (a lead: a failed throw
        leads its forced component, R4.7); exact within ``window`` (see :meth:`best`)."""
        info = self.info
        ctx, rules, n = info.ctx, info.rules, info.seats
        seat = (leader + len(plays)) % n
        hands = self.hands
        self.plays += 1
        if self.plays > self.ceiling:
            raise _BoundError  # the world is dropped whole: nothing to restore
        fine = 0.0
        if not plays:  # a lead: the trick starts here
            lead = decompose(ctx, play)
            if len(lead.components) > 1:  # R4.4: judged against the world's other hands
                others = {s: hand_of(hands[s]) for s in range(n) if s != seat}
                result = judge_throw(ctx, rules, lead, others)
                if not result.succeeded:  # R4.7, R16.2
                    mine = allied(info, seat, info.seat)
                    cost = failed_throw_cost(info, len(play))
                    fine = -cost if mine else cost
                    play = tuple(result.led)
                    lead = decompose(ctx, play)
                    window = (window[0] - fine, window[1] - fine)  # the rest is searched net of the fine
            standing = opening(lead)
        else:
            assert lead is not None and standing is not None  # the trick so far comes with its plays
            standing = advance(ctx, rules, lead, standing, play, index=len(plays))
        held = hands[seat]
        rest = list(held)
        for f in play:
            rest.remove(f)
        hands[seat] = tuple(rest)
        trick = [*plays, play]
        if len(trick) < n:
            value = self.best(leader, trick, lead, standing, window=window)
        else:
            self.tricks += 1
            last = not hands[info.seat]
            value, _ = trick_worth(info, leader, trick, lead, best=standing.best, last=last)
            if not last:  # the next trick's window is this one's, less what this trick is worth
                ahead = (window[0] - value, window[1] - value)
                value += self.best((leader + standing.best) % n, [], None, None, window=ahead)
        hands[seat] = held
        return value + fine
