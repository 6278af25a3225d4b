"""Play shapes: singles, tuples, tractors and the canonical decomposition of a throw (R3, R14.3, R14.4).

A *component* is one single, one w-tuple (a pair is a tuple of width 2; three and four decks add triples
and quadruples) or a k-tractor of w-tuples. On two decks its grade is its number of pairs (0, 1 or k), so
"higher grade" is simply "more pairs" (R3.6: longer tractor > shorter tractor > pair > single); on more
decks grades order wider first, then longer (R14.4, :func:`rules_core.component.grade`). Components of
one grade compare by the strength of their top rung (R3.7). One decomposition serves every table: cards
of at most two copies never reach the tuple code.

>>> from rules_core.cards import parse_cards, Suit
>>> from rules_core.trump import trump_context
>>> ctx = trump_context(5, Suit.H)
>>> decompose(ctx, parse_cards("CJ CJ CQ CQ CA".split())).describe()
'throw: CQ CQ CJ CJ + CA'
>>> decompose(ctx, parse_cards("H5 H5 S5 S5".split())).shape
<Shape.TRACTOR: 'tractor'>
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from functools import partial
from itertools import chain
from typing import Final, NamedTuple

from rules_core.component import Component, grade
from rules_core.trump import TrumpContext


class Shape(StrEnum):
    """What a set of cards is as a lead (R3, R4.3)."""

    SINGLE = "single"
    PAIR = "pair"
    TRACTOR = "tractor"
    THROW = "throw"
    """A combination (散牌/甩牌) of two or more components of one category (R3.5)."""
    MIXED = "mixed"
    """Cards of two or more categories: never a legal lead (R4.3)."""
    TUPLE = "tuple"
    """Three or four copies of one face, on three or four decks (R14.3); two copies are a PAIR."""


class Decomposition(NamedTuple):
    """The canonical split of a set of cards into components (R3.6).

    A typed named tuple, like the verdicts (``rules_core.verdicts``): every check decomposes a play, and a
    named tuple is built by one ``tuple.__new__`` where a frozen dataclass sets each field in turn.
    """

    category: int | None
    """The single category of all the cards, or None when they mix categories."""
    components: tuple[Component, ...]
    """By grade (most pairs first), then strongest first; weakest last within a grade."""

    @property
    def shape(self) -> Shape:
        """Single, pair, tuple, tractor, throw or mixed."""
        if self.category is None:
            return Shape.MIXED
        if len(self.components) > 1:
            return Shape.THROW
        top = self.components[0]
        if top.pairs == 1 and len(top.cards) > 2:  # R14.3: a lone triple or quadruple
            return Shape.TUPLE
        return (Shape.SINGLE, Shape.PAIR, Shape.TRACTOR)[min(top.pairs, 2)]

    @property
    def size(self) -> int:
        """Number of cards."""
        return sum(len(c.cards) for c in self.components)

    @property
    def top_grade(self) -> int:
        """Pairs of the highest-grade component (R6.6's type τ, R8.5's shape)."""
        return self.components[0].pairs if self.components else 0

    def describe(self) -> str:
        """Shape and components as text."""
        return f"{self.shape}: " + " + ".join(c.describe() for c in self.components)


new_decomposition: Final[Callable[[tuple[int | None, tuple[Component, ...]]], Decomposition]] = partial(
    tuple.__new__, Decomposition
)
"""``Decomposition(category, components)`` from one tuple, without the named tuple's Python-level
``__new__``: every check decomposes its plays (see ``rules_core.verdicts``)."""


def runs(strengths: Iterable[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive strengths as (top, length), strongest first (R2.8, R3.3).

    Repeated strengths count once: a tractor holds at most one off-suit level pair (R3.3).

    >>> runs([9, 3, 8, 7, 4, 7])
    [(9, 3), (4, 2)]
    """
    found: list[tuple[int, int]] = []
    for s in sorted(set(strengths), reverse=True):
        if found and found[-1][0] - found[-1][1] == s:
            top, length = found[-1]
            found[-1] = (top, length + 1)
        else:
            found.append((s, 1))
    return found


def run_tops(profile: Sequence[int], k: int) -> list[int]:
    """Tops of every run of ``k`` consecutive occupied rungs of a per-rung count profile, weakest first.

    >>> run_tops([1, 1, 0, 1, 1, 1], 2)
    [1, 4, 5]
    """
    tops = []
    streak = 0
    for s, count in enumerate(profile):
        streak = streak + 1 if count else 0
        if streak >= k:
            tops.append(s)
    return tops


def split_pairs(ctx: TrumpContext, pair_faces: Sequence[int]) -> tuple[list[list[int]], list[int]]:
    """Greedy R3.6 step 2: cut tractors (lists of faces, top first) out of pair units; return the rest.

    Repeatedly takes the longest run of consecutive strengths, ties to the stronger top. Equal units
    (off-suit level pairs) are used in suit order S, H, C, D.
    """
    return _cut_pairs(ctx.strength, sorted(pair_faces, key=ctx.order.__getitem__, reverse=True))


def _cut_pairs(strength: tuple[int, ...], ordered: list[int]) -> tuple[list[list[int]], list[int]]:
    """:func:`split_pairs` for pair faces already strongest first (by ``order``), as decompose has them."""
    if len(ordered) == 2:  # the commonest case: one 2-tractor or two separate pairs
        high, low = ordered
        return ([[high, low]], []) if strength[high] - strength[low] == 1 else ([], [high, low])
    if len({strength[face] for face in ordered}) == len(ordered):
        return _maximal_runs(strength, ordered)
    rungs: list[list[int]] = []  # the pair faces of each rung, strongest rung first, in suit order
    tops: list[int] = []  # each rung's strength
    for face in ordered:
        if tops and tops[-1] == strength[face]:
            rungs[-1].append(face)
        else:
            tops.append(strength[face])
            rungs.append([face])
    tractors: list[list[int]] = []
    while True:
        best_start, best_length, start, length = -1, 1, 0, 0
        for i, faces in enumerate(rungs):
            if not faces:
                length = 0
                continue
            if length and tops[i] == tops[i - 1] - 1:  # rung i - 1 is not empty: length counts it
                length += 1
            else:
                start, length = i, 1
            if length > best_length:  # strictly longer: an equal run further down is weaker
                best_start, best_length = start, length
        if best_length < 2:
            break
        tractors.append([rungs[i].pop(0) for i in range(best_start, best_start + best_length)])
    return tractors, [face for faces in rungs for face in faces]


def _maximal_runs(strength: tuple[int, ...], ordered: list[int]) -> tuple[list[list[int]], list[int]]:
    """:func:`split_pairs` when no two pairs share a rung (strongest first): then the longest run is
    always a whole maximal run, so the greedy cut takes the maximal runs, longest first, ties stronger
    first, and leaves the lone pairs."""
    runs: list[list[int]] = [[ordered[0]]]
    for face in ordered[1:]:
        if strength[face] == strength[runs[-1][-1]] - 1:
            runs[-1].append(face)
        else:
            runs.append([face])
    tractors = sorted((run for run in runs if len(run) > 1), key=len, reverse=True)  # stable: ties keep order
    return tractors, [run[0] for run in runs if len(run) == 1]


def decompose(ctx: TrumpContext, faces: Sequence[int]) -> Decomposition:
    """Split cards (faces with repeats) into components (R3.6; R14.4 for three or four copies of a face).

    On the hot path of every check, so the common shapes (one card, one pair, no pairs) skip the
    tractor search, singles and pairs come ready-made from the context's tables, and one sort by the
    context's ``rank`` both orders the cards and tells whether they share a category.
    """
    if len(faces) == 1 or (len(faces) == 2 and faces[0] == faces[1]):
        face = faces[0]
        return new_decomposition(
            (ctx.category[face], ((ctx.pairs if len(faces) == 2 else ctx.singles)[face],))
        )
    if not faces:
        return _MIXED
    if len(faces) == 2:  # two singles (a pair was answered above): the commonest throw
        return _two_singles(ctx, faces[0], faces[1])
    held = sorted(set(faces), key=ctx.rank.__getitem__, reverse=True)  # by category, strongest first (R3.6)
    cat = ctx.category[held[0]]
    if ctx.category[held[-1]] != cat:
        return _MIXED
    singles, pairs = ctx.singles, ctx.pairs
    if len(held) == len(faces):  # no pairs: the commonest throw
        return new_decomposition((cat, tuple(map(singles.__getitem__, held))))
    paired = _repeated(faces)
    if len(faces) > len(held) + len(paired):  # a face of three or four copies (R14.3)
        return _tuples(ctx, faces)
    pair_faces = [f for f in held if f in paired]
    components = [singles[f] for f in held if f not in paired]
    if len(pair_faces) == 1:
        components.insert(0, pairs[pair_faces[0]])
    elif pair_faces:
        tractors, rest = _cut_pairs(ctx.strength, pair_faces)  # ``rest`` keeps the strongest-first order
        strength, order = ctx.strength, ctx.order
        found = [
            Component(len(t), strength[t[0]], order[t[0]], tuple(chain.from_iterable(zip(t, t, strict=True))))
            for t in tractors
        ]
        if len(found) > 1:
            found.sort(key=_grade_order, reverse=True)
        components[:0] = [*found, *(pairs[f] for f in rest)]
    return new_decomposition((cat, tuple(components)))


def counts_of(faces: Sequence[int]) -> dict[int, int]:
    """How many copies of each face ``faces`` holds."""
    counts: dict[int, int] = {}
    for face in faces:
        counts[face] = counts.get(face, 0) + 1
    return counts


def _tuples(ctx: TrumpContext, faces: Sequence[int]) -> Decomposition:
    """R14.4: each face's copies one tuple; tractors cut widest first (R3.6's greedy cut per width);
    components by grade, strongest first."""
    counts = counts_of(faces)
    strength, order = ctx.strength, ctx.order
    held = sorted(counts, key=order.__getitem__, reverse=True)
    singles = ctx.singles
    components = [singles[f] for f in held if counts[f] == 1]
    for w in range(max(counts.values()), 1, -1):
        tuples = [f for f in held if counts[f] == w]
        tractors, rest = _cut_pairs(strength, tuples) if len(tuples) > 1 else ([], tuples)
        components += [
            Component(len(t), strength[t[0]], order[t[0]], tuple(f for face in t for f in (face,) * w))
            for t in tractors
        ]
        components += [Component(1, strength[f], order[f], (f,) * w) for f in rest]
    components.sort(key=lambda c: (*grade(c), c.order), reverse=True)
    return new_decomposition((ctx.category[held[0]], tuple(components)))


def _two_singles(ctx: TrumpContext, first: int, second: int) -> Decomposition:
    """:func:`decompose` of two different faces, without a sort: both singles, strongest first, or mixed."""
    cat = ctx.category[first]
    if ctx.category[second] != cat:
        return _MIXED
    singles = ctx.singles
    if ctx.order[first] < ctx.order[second]:
        first, second = second, first
    return new_decomposition((cat, (singles[first], singles[second])))


_MIXED: Final = new_decomposition((None, ()))
"""No cards, or cards of two or more categories: no components (R4.3)."""


def _repeated(faces: Sequence[int]) -> set[int]:
    """The faces that occur more than once."""
    seen: set[int] = set()
    repeated: set[int] = set()
    for face in faces:
        if face in seen:
            repeated.add(face)
        else:
            seen.add(face)
    return repeated


def _grade_order(component: Component) -> tuple[int, int]:
    return component.pairs, component.order
