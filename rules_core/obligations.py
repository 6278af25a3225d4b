"""R5.3, once: what a follower owes a lead, step by step, and every way to meet it.

When the follower holds more cards of the led category than were led, he owes structure. The lead's
components are taken in grade order (tractors longest first, then pairs, rule 4.2); each step is judged
on the follower's *remaining* cards (rules 4.3 and 4.4): a k-tractor step owes a k-tractor if they have
one, else as many pairs as they have, up to k (rule 3); a pair step owes a pair while one is left (rule
2); the rest of the play is any cards (rule 4.5). A follow is legal exactly when the procedure can
produce it for some choice of cards.

This module is the only place that procedure is written. :func:`owed` says what a step owes and
:func:`ways` how that step can be met from a set of pairs; two walks are built on them:

* :func:`structures` enumerates every way to meet all the steps from a hand's pairs (the legal-play
  listing fills each with filler); :func:`first_way` is its first, from strongest-first pairs: the
  example of what is owed that an Illegal carries;
* :func:`shortfall` asks whether some way lies entirely within the play's pairs (the follow check), and
  otherwise names the first obligation no way of the play meets.

Only pair units matter, and pairs on one rung (the off-suit level cards) are interchangeable for the
obligations, so what is owed is read off *pair profiles*: the pairs held on each rung of the category's
ladder, index 0 the weakest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations, product
from typing import NamedTuple

from rules_core.shapes import Decomposition, run_tops
from rules_core.trump import TrumpContext
from rules_core.verdicts import Violation

Profile = tuple[int, ...]
"""Pairs held per strength rung, index 0 = weakest rung."""


class Owed(NamedTuple):
    """What one step of the procedure owes, given the pairs still held (a tuple: it is on the hot path)."""

    tractor: int
    """k when a k-tractor is owed (R5.3 rule 3, first case), else 0."""
    pairs: int
    """How many pairs the step takes: k for a tractor, else as many as are held, up to the step's size."""
    next: int
    """The index of the step after this one: the trailing pair steps are met together."""

    @property
    def violation(self) -> Violation:
        """The reason a play that does not meet this step is illegal."""
        return Violation.MUST_PLAY_TRACTOR if self.tractor else Violation.MUST_PLAY_PAIR


Path = list[tuple[Owed, tuple[int, ...]]]
"""One way through the steps: each step's obligation and the pair faces taken for it."""


def obligations(led: Decomposition) -> tuple[int, ...]:
    """The structure steps a lead imposes: its tractor lengths, longest first, then 1 per pair (R5.3 4.2)."""
    return tuple(c.pairs for c in led.components if c.pairs >= 1)


def profile(size: int, strengths: Iterable[int]) -> Profile:
    """The pair profile of pairs on the rungs ``strengths`` of a ladder of ``size`` rungs."""
    counts = [0] * size
    for s in strengths:
        counts[s] += 1
    return tuple(counts)


def owed(steps: tuple[int, ...], i: int, held: Profile) -> Owed:
    """What step ``i`` owes when the follower's remaining cards hold the pairs ``held`` (R5.3 rules 2, 3).

    The pair steps come last (grade order) and each owes a pair while one is left, so together they owe
    as many pairs as are held, up to their number: they are one step here.
    """
    k = steps[i]
    if k == 1:
        n = len(steps)
        return Owed(0, min(n - i, sum(held)), n)
    if run_tops(held, k):
        return Owed(k, k, i + 1)
    return Owed(0, min(k, sum(held)), i + 1)


def ways(
    ctx: TrumpContext, need: Owed, pairs: Sequence[int], *, every_face: bool = True
) -> Iterator[tuple[int, ...]]:
    """Every choice of pair faces from ``pairs`` that meets ``need``, in the order of ``pairs``.

    A tractor is one face on each of k consecutive rungs (top first), taken by top rung in the order the
    rungs first appear in ``pairs``; any other step takes ``need.pairs`` of them. Weakest-first ``pairs``
    give the weakest ways first, strongest-first the strongest. Without ``every_face`` a tractor is given
    once per set of rungs, on the first face of each: for a search that only asks which rungs are left.
    """
    if not need.tractor:
        return combinations(pairs, need.pairs)
    k, strength = need.tractor, ctx.strength
    if not every_face:  # the first face of each rung; a list: the check's search is on the hot path
        first: dict[int, int] = {}
        for face in pairs:
            first.setdefault(strength[face], face)
        return iter(
            [
                tuple([first[top - d] for d in range(k)])
                for top in first
                if top - k + 1 in first and (k == 2 or all(top - d in first for d in range(1, k - 1)))
            ]
        )
    by_rung: dict[int, list[int]] = {}
    for face in pairs:
        by_rung.setdefault(strength[face], []).append(face)
    return (
        way
        for top in by_rung
        if all(top - d in by_rung for d in range(1, k))
        for way in product(*(by_rung[top - d] for d in range(k)))
    )


def structures(ctx: TrumpContext, steps: tuple[int, ...], pairs: Sequence[int]) -> Iterator[Path]:
    """Every way the procedure meets ``steps`` from the pair faces ``pairs`` (of one category): the path
    of each. The order of ``pairs`` orders the ways (weakest first for the listing, strongest first for
    the example an Illegal carries).

    A state (steps met, pairs left) reached again by choices taken in another order is not expanded
    again: it would only repeat plays.
    """
    size = ctx.rungs(ctx.category[pairs[0]]) if pairs else 0
    strength = ctx.strength
    visited: set[tuple[int, tuple[int, ...]]] = set()

    def walk(i: int, pairs: tuple[int, ...]) -> Iterator[Path]:
        state = (i, pairs)
        if state in visited:
            return
        visited.add(state)
        if i == len(steps):
            yield []
            return
        need = owed(steps, i, profile(size, (strength[f] for f in pairs)))
        for way in ways(ctx, need, pairs):
            for path in walk(need.next, tuple(f for f in pairs if f not in way)):
                yield [(need, way), *path]

    return walk(0, tuple(pairs))


def first_way(ctx: TrumpContext, steps: tuple[int, ...], held: Profile, pairs: Sequence[int]) -> Path:
    """The way :func:`structures` yields first (the first choice at every step), without its search:
    from strongest-first ``pairs`` (whose profile is ``held``), the example an Illegal carries."""
    strength = ctx.strength
    counts = list(held)
    path: Path = []
    i = 0
    while i < len(steps):
        need = owed(steps, i, tuple(counts))
        way = next(ways(ctx, need, pairs, every_face=False))  # a step can always be met from the hand
        for face in way:
            counts[strength[face]] -= 1
        pairs = [f for f in pairs if f not in way]
        path.append((need, way))
        i = need.next
    return path


def shortfall(
    ctx: TrumpContext, steps: tuple[int, ...], held: Profile, within: tuple[int, ...]
) -> Violation | None:
    """None if some way of meeting ``steps`` from the pairs ``held`` takes only pairs of ``within`` (the
    play's pair faces, weakest first), else the reason of the first obligation the play fails.

    Depth-first over :func:`ways`, memoised per call on the pairs left of the hand's: with the play
    fixed, they fix what is left of the play's up to faces of one rung, which the obligations do not
    tell apart, and they are subsets of a play's at most 12 pairs.
    """
    memo: dict[tuple[int, Profile], Violation | None] = {}
    owed_after = [sum(steps[i:]) for i in range(len(steps) + 1)]
    strength = ctx.strength

    def search(i: int, held: Profile, within: tuple[int, ...]) -> Violation | None:
        key = (i, held)
        if key not in memo:
            memo[key] = step(i, held, within)
        return memo[key]

    def step(i: int, held: Profile, within: tuple[int, ...]) -> Violation | None:
        remaining = sum(held)
        if i == len(steps) or len(within) == remaining:  # every pair left is in the play: all is met
            return None
        need = owed(steps, i, held)
        if len(within) < min(owed_after[i], remaining):  # each step takes min(size, pairs left)
            return need.violation
        found = ways(ctx, need, within, every_face=False)  # faces of one rung are alike here
        if need.next == len(steps) or need.pairs == remaining:  # nothing is owed after: one way will do
            return None if next(found, None) is not None else need.violation
        first: Violation | None = None
        for way in found:
            counts = list(held)
            for face in way:
                counts[strength[face]] -= 1
            left = tuple(counts)
            key = (need.next, left)  # looked up first: a way on other faces of the same rungs is a hit
            outcome = memo[key] if key in memo else search(need.next, left, _without(within, way))
            if outcome is None:
                return None
            first = first or outcome
        return first or need.violation

    return search(0, held, within)


def _without(faces: tuple[int, ...], way: tuple[int, ...]) -> tuple[int, ...]:
    return tuple([f for f in faces if f not in way])
