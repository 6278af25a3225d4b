"""Play shapes: singles, pairs, tractors and the canonical decomposition of a throw (R3).

A *component* is one single, pair or k-tractor. Its grade is its number of pairs (0, 1 or k), so "higher
grade" is simply "more pairs" (R3.6: longer tractor > shorter tractor > pair > single). Components of one
grade compare by the strength of their top rung (R3.7).

>>> from rules_core.cards import parse_cards, Suit
>>> from rules_core.trump import trump_context
>>> ctx = trump_context(5, Suit.H)
>>> decompose(ctx, parse_cards("CJ CJ CQ CQ CA".split())).describe()
'throw: CQ CQ CJ CJ + CA'
>>> decompose(ctx, parse_cards("H5 H5 S5 S5".split())).shape
<Shape.TRACTOR: 'tractor'>
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import chain

from rules_core.cards import format_cards
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


@dataclass(frozen=True, slots=True)
class Component:
    """One single, pair or tractor inside a play (R3.1–R3.3)."""

    pairs: int
    """0 for a single, 1 for a pair, k for a k-tractor: the component's grade."""
    top: int
    """Strength of its strongest rung (R3.7)."""
    order: int
    """The top face's total order, to break ties between equal components deterministically (R3.6)."""
    cards: tuple[int, ...]
    """Its faces with repeats, strongest first."""

    @property
    def kind(self) -> str:
        """'single', 'pair' or 'tractor'."""
        return "single" if self.pairs == 0 else "pair" if self.pairs == 1 else "tractor"

    @property
    def size(self) -> int:
        """Number of cards."""
        return len(self.cards)

    def describe(self) -> str:
        """Cards as text, e.g. ``'CQ CQ CJ CJ'``."""
        return format_cards(self.cards)


@dataclass(frozen=True, slots=True)
class Decomposition:
    """The canonical split of a set of cards into components (R3.6)."""

    category: int | None
    """The single category of all the cards, or None when they mix categories."""
    components: tuple[Component, ...]
    """By grade (most pairs first), then strongest first; weakest last within a grade."""

    @property
    def shape(self) -> Shape:
        """Single, pair, tractor, throw or mixed."""
        if self.category is None:
            return Shape.MIXED
        if len(self.components) > 1:
            return Shape.THROW
        return (Shape.SINGLE, Shape.PAIR, Shape.TRACTOR)[min(self.components[0].pairs, 2)]

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
    strength = ctx.strength
    if len(pair_faces) == 2:  # the commonest case: one 2-tractor or two separate pairs
        high, low = sorted(pair_faces, key=ctx.order.__getitem__, reverse=True)
        return ([[high, low]], []) if strength[high] - strength[low] == 1 else ([], [high, low])
    by_rung: dict[int, list[int]] = {}
    for face in sorted(pair_faces, key=ctx.order.__getitem__, reverse=True):
        by_rung.setdefault(strength[face], []).append(face)
    tractors: list[list[int]] = []
    while len(by_rung) >= 2:
        best_top, best_length, top, length, previous = -1, 1, -1, 0, -2
        for rung in sorted(by_rung, reverse=True):
            top, length = (top, length + 1) if rung == previous - 1 else (rung, 1)
            if length > best_length:  # strictly longer: an equal run further down is weaker
                best_top, best_length = top, length
            previous = rung
        if best_length < 2:
            break
        tractor = []
        for rung in range(best_top, best_top - best_length, -1):
            tractor.append(by_rung[rung].pop(0))
            if not by_rung[rung]:
                del by_rung[rung]
        tractors.append(tractor)
    return tractors, [face for rung in sorted(by_rung, reverse=True) for face in by_rung[rung]]


def decompose(ctx: TrumpContext, faces: Sequence[int]) -> Decomposition:
    """Split cards (faces with repeats, at most two of a face) into components (R3.6).

    On the hot path of every check, so the common shapes (one card, one pair, no pairs) skip the
    tractor search.
    """
    category, strength, order = ctx.category, ctx.strength, ctx.order
    if len(faces) == 1 or (len(faces) == 2 and faces[0] == faces[1]):
        face = faces[0]
        return Decomposition(
            category[face], (Component(len(faces) - 1, strength[face], order[face], tuple(faces)),)
        )
    if not faces:
        return Decomposition(category=None, components=())
    cat = category[faces[0]]
    counts: dict[int, int] = {}
    for face in faces:
        if category[face] != cat:
            return Decomposition(category=None, components=())
        counts[face] = counts.get(face, 0) + 1
    pair_faces = [f for f, n in counts.items() if n >= 2]
    components = [Component(0, strength[f], order[f], (f,)) for f, n in counts.items() if n == 1]
    if len(pair_faces) == 1:
        f = pair_faces[0]
        components.append(Component(1, strength[f], order[f], (f, f)))
    elif pair_faces:
        tractors, pairs = split_pairs(ctx, pair_faces)
        components += [
            Component(len(t), strength[t[0]], order[t[0]], tuple(chain.from_iterable(zip(t, t, strict=True))))
            for t in tractors
        ]
        components += [Component(1, strength[f], order[f], (f, f)) for f in pairs]
    if len(components) > 1:
        components.sort(key=_grade_order, reverse=True)
    return Decomposition(cat, tuple(components))


def _grade_order(component: Component) -> tuple[int, int]:
    return component.pairs, component.order
