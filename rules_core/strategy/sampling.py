"""Sampling the unseen cards: seeded layouts of the other hands consistent with what the seat saw (the
cards played, the voids shown, R5.2, the pairs a seat showed it lacks, R5.3, every hand's size, and the
bottom when the seat dealt), and with what the follows show a seat does not hold
(:mod:`~rules_core.strategy.reading`) while a layout can keep it."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from rules_core.cards import NUM_FACES
from rules_core.strategy.knowledge import Knowledge

Layout = dict[int, list[int]]
"""Seat → its sampled count vector."""


RETRIES: Final[int] = 4
"""Further layouts drawn when one breaks what the seats showed even after its swaps (rare: late in a
hand, when the voids leave little room); the one with the fewest broken copies is kept."""


def sample(info: Knowledge, rng: random.Random, seats: Sequence[int]) -> Layout:
    """One layout of the unseen cards for ``seats`` (:class:`Sampler`, for one layout)."""
    return Sampler(info, seats).draw(rng)


class Sampler:
    """Layouts of the unseen cards for ``seats``: what each seat may not hold is derived once, each
    :meth:`draw` deals one layout.

    The reads of the follows (``Knowledge.barred``, :mod:`~rules_core.strategy.reading`) are habits, not
    rules: when a layout cannot keep them all, a seat played against them, so the draws again keep the
    voids alone (R5.2)."""

    def __init__(self, info: Knowledge, seats: Sequence[int]) -> None:
        self.info = info
        self.seats = list(seats)
        self.bars = _bars(info, [info.barred[s] for s in seats], seats)
        self.voids: _Bars | None = None  # the voids alone, derived when first needed

    def draw(self, rng: random.Random) -> Layout:
        """One layout (:func:`_draw`), drawn again up to :data:`RETRIES` times while some seat holds what
        it showed it lacks (the retries keeping the voids alone when the reads broke)."""
        info, seats = self.info, self.seats
        best, broken = _draw(info, rng, seats, self.bars)
        bars = self.bars
        if broken:
            if self.voids is None:
                category = info.ctx.category
                rows = [[info.voids[s][category[f]] for f in range(NUM_FACES)] for s in seats]
                self.voids = _bars(info, rows, seats)
            bars = self.voids
        for _ in range(RETRIES):
            if not broken:
                break
            layout, wrong = _draw(info, rng, seats, bars)
            if wrong < broken:
                best, broken = layout, wrong
        return best


@dataclass(frozen=True, slots=True)
class _Bars:
    """What the sampled seats may not hold, as the draws use it (derived once per :class:`Sampler`)."""

    barred: list[list[bool]]
    """Slot → face → the seat may hold no copy."""
    takers: list[int]
    """Face → the slots that may hold it."""
    suspects: list[list[int]]
    """Slot → the faces a draw may have given it against what it showed: barred, or of a category it
    holds no pair of (R5.3)."""


def _bars(info: Knowledge, barred: list[list[bool]], seats: Sequence[int]) -> _Bars:
    """The draws' view of ``barred`` (slot → face → no copy held) for ``seats``."""
    category = info.ctx.category
    takers = [len(barred) - sum(column) for column in zip(*barred, strict=True)]
    suspects = []
    for seat, row in zip(seats, barred, strict=True):
        pairless = info.unpaired[seat] if info.unpaired else None
        suspects.append(
            [f for f in range(NUM_FACES) if row[f] or (pairless is not None and pairless[category[f]])]
        )
    return _Bars(barred, takers, suspects)


def _draw(info: Knowledge, rng: random.Random, seats: Sequence[int], bars: _Bars) -> tuple[Layout, int]:
    """One layout of the unseen cards: count vectors for ``seats`` of their sizes, voids respected, and
    every card the bidding showed with its seat (R10.2; the dealer's in his hand or the bottom);
    ``bars``: what each seat may not hold.

    Cards some seat may not hold are placed first, those the fewest seats may hold first, each among
    the slots that may hold it (the bottom and unrecorded tricks are a slot that holds anything),
    weighted by room; the rest then fill the remaining room in shuffled order. A card no slot can take
    without breaking what a seat showed goes where there is room: an inconsistent history must not stop
    the search. Then :func:`_repair` mends what broke; the count of copies it could not mend is
    returned.
    """
    unseen = info.unseen
    slots = list(seats)
    room = [info.sizes[s] for s in slots]
    rest = sum(unseen) - sum(room)  # the bottom, unsampled seats, cards of tricks the view did not record
    if rest < 0:  # an inconsistent view (more cards in hands than unseen): shrink the hands
        for i in range(len(room)):
            cut = min(room[i], -rest)
            room[i] -= cut
            rest += cut
    hands = [[0] * NUM_FACES for _ in slots]
    if info.pinned:
        unseen = list(unseen)
        rest = _pin(info, rng, slots=slots, hands=hands, room=room, rest=rest, unseen=unseen)
    pool = [face for face in range(NUM_FACES) for _ in range(unseen[face])]
    rng.shuffle(pool)
    barred, takers = bars.barred, bars.takers
    free = [face for face in pool if takers[face] == len(slots)]
    placed = sorted((face for face in pool if takers[face] < len(slots)), key=takers.__getitem__)
    for face in placed:
        total = rest + sum(room[i] for i in range(len(slots)) if not barred[i][face])
        strict = total > 0
        if not strict:
            total = rest + sum(room)
        choice = int(rng.random() * total)
        for i in range(len(slots)):
            if room[i] and not (strict and barred[i][face]):
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
    broken = _repair(info, rng, slots, hands, bars)
    return {s: hands[i] for i, s in enumerate(slots)}, broken


def _repair(
    info: Knowledge,
    rng: random.Random,
    slots: Sequence[int],
    hands: list[list[int]],
    bars: _Bars,
) -> int:
    """Mend what a layout gave a seat against what it showed: a card of a category it is void in (R5.2;
    the greedy placement can run out of other room late in a hand) or one its follows show it lacks
    (``bars``), or the second copy of a pair of a category it holds no pair of (R5.3,
    ``Knowledge.unpaired``). Each such copy moves along a shortest
    chain of swaps (a breadth-first search over the hands and the cards no sampled hand holds) that
    ends by filling the room it left; every card on the chain goes where it may be. What no chain
    mends stays (an inconsistent history must not stop the search); shown cards are never moved.
    Returns the copies left broken."""
    category = info.ctx.category
    barred = bars.barred
    unpaired = [info.unpaired[s] if info.unpaired else [False] * 5 for s in slots]
    pinned = [info.pinned.get(s) for s in slots]

    def excess(j: int, face: int) -> int:
        """The copies of ``face`` seat j holds against what it showed."""
        cat = category[face]
        held = hands[j][face]
        return held if barred[j][face] else held - 1 if unpaired[j][cat] and held > 1 else 0

    wrong = [(i, f) for i, faces in enumerate(bars.suspects) for f in faces if hands[i][f] and excess(i, f)]
    if not wrong:
        return 0
    pool = len(slots)  # the cards no sampled hand holds: a slot that takes anything, never moved from empty
    held = [*hands, [info.unseen[f] - sum(h[f] for h in hands) for f in range(NUM_FACES)]]

    def takes(j: int, face: int) -> bool:
        if j == pool:
            return True
        cat = category[face]
        return not barred[j][face] and not (unpaired[j][cat] and held[j][face])

    def movable(j: int, face: int) -> bool:
        shown = pinned[j] if j < pool else None
        return held[j][face] > (shown[face] if shown is not None else 0)

    order = list(range(pool + 1))
    for i, face in wrong:
        while excess(i, face) and movable(i, face):
            rng.shuffle(order)
            chain = _chain(i, face, order, held, takes=takes, movable=movable)
            if chain is None:
                break
            for j, g, k in chain:  # g moves from slot j to slot k
                held[j][g] -= 1
                held[k][g] += 1
    return sum(excess(i, f) for i, f in wrong)


def _chain(
    start: int,
    face: int,
    order: Sequence[int],
    held: list[list[int]],
    *,
    takes: Callable[[int, int], bool],
    movable: Callable[[int, int], bool],
) -> list[tuple[int, int, int]] | None:
    """The moves (from, face, to) of a shortest chain that takes ``face`` out of slot ``start``, gives
    it to a slot that takes it, that slot's displaced card to another, and so on until a card lands
    back in ``start``; None when there is none."""
    came: dict[int, tuple[int, int]] = {}  # slot -> (slot it got its card from, the card)
    frontier = [(start, face)]
    while frontier:
        nxt: list[tuple[int, int]] = []
        for j, g in frontier:
            for k in order:
                if k == start or k in came or not takes(k, g):
                    continue
                came[k] = (j, g)
                for h in range(NUM_FACES):
                    if h != g and held[k][h] and movable(k, h) and takes(start, h):
                        moves = [(k, h, start)]
                        at = k
                        while at != start:
                            src, card = came[at]
                            moves.append((src, card, at))
                            at = src
                        return moves
                nxt.extend((k, h) for h in range(NUM_FACES) if h != g and held[k][h] and movable(k, h))
        frontier = nxt
    return None


def _pin(
    info: Knowledge,
    rng: random.Random,
    *,
    slots: Sequence[int],
    hands: list[list[int]],
    room: list[int],
    rest: int,
    unseen: list[int],
) -> int:
    """Place the shown cards first (taken out of ``unseen``): in their seat's hand when it is sampled,
    else among the cards not sampled (``rest``); the dealer's in his hand or, weighted by the bottom's
    size, in the bottom (he may have buried them, R11). Returns what is left of ``rest``."""
    index = {seat: i for i, seat in enumerate(slots)}
    for seat, counts in info.pinned.items():
        i = index.get(seat)
        for face in range(NUM_FACES):
            for _ in range(min(counts[face], unseen[face])):
                unseen[face] -= 1
                if i is not None and room[i] > 0:
                    buried = seat == info.loose and rest > 0
                    if not buried or rng.random() * (room[i] + min(rest, info.bottom_size)) < room[i]:
                        hands[i][face] += 1
                        room[i] -= 1
                        continue
                if rest > 0:
                    rest -= 1
                else:  # an inconsistent view: no room left anywhere but a sampled hand
                    for j in range(len(slots)):
                        if room[j]:
                            hands[j][face] += 1
                            room[j] -= 1
                            break
    return rest
