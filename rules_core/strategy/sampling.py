"""Sampling the unseen cards: seeded layouts of the other hands consistent with what the seat saw (the
cards played, the voids shown, R5.2, every hand's size, and the bottom when the seat dealt)."""

from __future__ import annotations

import random
from collections.abc import Sequence

from rules_core.cards import NUM_FACES
from rules_core.strategy.knowledge import Knowledge

Layout = dict[int, list[int]]
"""Seat → its sampled count vector."""


def sample(info: Knowledge, rng: random.Random, seats: Sequence[int]) -> Layout:
    """One layout of the unseen cards: count vectors for ``seats`` of their sizes, voids respected, and
    every card the bidding showed with its seat (R10.2; the dealer's in his hand or the bottom).

    Cards of a category some seat is void in are placed first, each among the slots that may hold it
    (the bottom and unrecorded tricks are a slot that is never void), weighted by room; the rest then
    fill the remaining room in shuffled order. A card no slot can take without breaking a void goes
    where there is room: an inconsistent history must not stop the search.
    """
    category = info.ctx.category
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
    voids = [info.voids[s] for s in slots]
    constrained = [any(v[cat] for v in voids) for cat in range(5)]
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
