"""The trump context of a hand: categories, strength and adjacency (R2).

Everything that depends on the level rank L and the contract (a trump suit or no-trump) is computed once
per (L, T) into tuples indexed by face, and cached: there are 13 × 5 = 65 contexts. Rule code then only
indexes tuples.

*Strength* numbers the rungs of a category's ladder from the weakest (0) up, so "stronger" is ">", and two
positions are adjacent (R2.8) exactly when their strengths differ by one. Equal cards (the off-suit level
cards, R2.7) share a strength. ``order`` refines strength into a total order that breaks those ties by the
suit order S, H, C, D (R3.6): of two equal cards the earlier suit has the larger ``order``.

>>> from rules_core.cards import parse_card
>>> ctx = trump_context(5, Suit.H)
>>> ctx.is_trump(parse_card("S5")), ctx.is_trump(parse_card("S6"))
(True, False)
>>> ctx.strength[parse_card("S5")] == ctx.strength[parse_card("D5")]
True
>>> describe_ladder(trump_context(4, None), TRUMP)
'BJ > SJ > S4 = H4 = C4 = D4'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Final

from rules_core.cards import BIG_JOKER, NUM_FACES, SMALL_JOKER, Suit, face_of, format_card
from rules_core.component import Component
from rules_core.errors import InvalidArgumentError, Problem

TRUMP: Final = 4
"""The trump category. The plain categories are the suit values 0..3 (R2.11)."""

CATEGORY_NAMES: Final = ("S", "H", "C", "D", "trump")


@dataclass(frozen=True, slots=True)
class TrumpContext:
    """Per-(level, contract) tables (R2). Build with :func:`trump_context`, never directly."""

    level: int
    """The level rank L of the hand, 2..14 (R2.1)."""
    trump: Suit | None
    """The trump suit, or None for no-trump (R2.10)."""
    category: tuple[int, ...]
    """Face → category: TRUMP or the printed plain suit (R2.11)."""
    strength: tuple[int, ...]
    """Face → rung on its category's ladder, 0 = weakest (R2.5, R2.6, R2.10)."""
    order: tuple[int, ...]
    """Face → total order inside its category: strength, then suit order S > H > C > D for equal cards."""
    ladder: tuple[tuple[tuple[int, ...], ...], ...]
    """Category → rungs from the weakest up; each rung lists its faces in suit order S, H, C, D."""
    faces: tuple[tuple[int, ...], ...]
    """Category → its faces, strongest first (the default layout of R13.6)."""
    rank: tuple[int, ...]
    """Face → its category, then its order, as one sort key (``category * 256 + order``): one sort of a
    play by it groups the cards by category, strongest first, so a lead's category check is free."""
    singles: tuple[Component, ...] = field(repr=False, compare=False)
    """Face → its single component in this context (R3.1): shared, never built per play."""
    pairs: tuple[Component, ...] = field(repr=False, compare=False)
    """Face → its pair component in this context (R3.2)."""

    def is_trump(self, face: int) -> bool:
        """Whether a face is a trump in this context."""
        return self.category[face] == TRUMP

    def rungs(self, category: int) -> int:
        """How many strength rungs a category's ladder has."""
        return len(self.ladder[category])


def _ladders(level: int, trump: Suit | None) -> list[list[list[int]]]:
    """Each category's rungs, strongest first, as in R2.5, R2.6 and R2.10."""
    ranks_high_to_low = [rank for rank in range(14, 1, -1) if rank != level]
    plain = [
        [[face_of(suit, rank)] for rank in ranks_high_to_low] if suit is not trump else [] for suit in Suit
    ]
    trumps: list[list[int]] = [[BIG_JOKER], [SMALL_JOKER]]
    if trump is None:
        trumps.append([face_of(suit, level) for suit in Suit])
    else:
        trumps.append([face_of(trump, level)])
        trumps.append([face_of(suit, level) for suit in Suit if suit is not trump])
        trumps.extend([face_of(trump, rank)] for rank in ranks_high_to_low)
    return [*plain, trumps]


@cache
def trump_context(level: int, trump: Suit | None) -> TrumpContext:
    """The cached context for level rank ``level`` (2..14) and trump suit ``trump`` (None = no-trump)."""
    if not 2 <= level <= 14:
        raise InvalidArgumentError("level", Problem.OUT_OF_RANGE, f"level must be 2..14, got {level}")
    category = [0] * NUM_FACES
    strength = [0] * NUM_FACES
    order = [0] * NUM_FACES
    ladder: list[tuple[tuple[int, ...], ...]] = []
    faces: list[tuple[int, ...]] = []
    for cat, rungs in enumerate(_ladders(level, trump)):
        top = len(rungs) - 1
        for position, rung in enumerate(rungs):
            for tie, face in enumerate(rung):
                category[face] = cat
                strength[face] = top - position
                order[face] = (top - position) * 4 + (3 - tie)
        ladder.append(tuple(tuple(rung) for rung in reversed(rungs)))
        faces.append(tuple(face for rung in rungs for face in rung))
    return TrumpContext(
        level=level,
        trump=trump,
        category=tuple(category),
        strength=tuple(strength),
        order=tuple(order),
        ladder=tuple(ladder),
        faces=tuple(faces),
        rank=tuple(cat * 256 + rung for cat, rung in zip(category, order, strict=True)),
        singles=tuple(Component(0, strength[f], order[f], (f,)) for f in range(NUM_FACES)),
        pairs=tuple(Component(1, strength[f], order[f], (f, f)) for f in range(NUM_FACES)),
    )


def describe_ladder(ctx: TrumpContext, category: int) -> str:
    """A category's ladder as text, strongest first (used in messages and golden tests)."""
    return " > ".join(
        " = ".join(format_card(face) for face in rung) for rung in reversed(ctx.ladder[category])
    )
