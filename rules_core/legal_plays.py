"""Enumerating legal plays, bounded, for clients that offer choices and for auto-play (托管).

Follows are generated *by construction* from the R5.3 procedure (:mod:`rules_core.obligations`: owed
tractors and pairs first, then filler), the same one the follow check asks, so every play listed is
legal without a separate check, and the listing stops at ``limit``.
Leads are every one-component lead (single, pair, tractor, R4.2) plus, per category, the whole holding
as a throw: the full set of throws is exponential and no client needs it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from rules_core.cards import Hand
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.layout import default_layout
from rules_core.obligations import obligations, structures
from rules_core.shapes import decompose
from rules_core.trump import TrumpContext

MAX_LIMIT = 1000
"""The most plays one listing returns, whatever the caller asks: it bounds the cost of a request."""


CANDIDATE_BUDGET = 8
"""Candidates examined per play asked for: different choices can give the same play, and the budget
keeps a listing's cost proportional to its limit whatever the hand."""


@dataclass(frozen=True, slots=True)
class PlayList:
    """A bounded listing of legal plays."""

    plays: tuple[tuple[int, ...], ...]
    """Distinct plays, each sorted by face, in generation order."""
    truncated: bool
    """True when the listing may be incomplete: more plays exist, or the candidate budget ran out."""


def legal_plays(
    ctx: TrumpContext, *, hand: Hand, lead: Sequence[int] = (), limit: int = 100, structure: bool = True
) -> PlayList:
    """Up to ``limit`` distinct legal plays from ``hand``: follows of ``lead``, or leads when it is empty.
    ``structure`` False lists the follows of FOLLOW-SUIT-ONLY (R16.3): R5.3 is not applied."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgumentError(
            "max_plays", Problem.OUT_OF_RANGE, f"the limit (max_plays) is 1..{MAX_LIMIT}, got {limit}"
        )
    source = _follows(ctx, hand, lead, structure) if lead else _leads(ctx, hand)
    seen: dict[tuple[int, ...], None] = {}
    for tried, play in enumerate(source):  # distinct plays, within a budget of candidates
        seen.setdefault(tuple(sorted(play)), None)
        if len(seen) > limit or tried >= CANDIDATE_BUDGET * limit:
            return PlayList(tuple(islice(seen, limit)), True)
    return PlayList(tuple(seen), False)


def _leads(ctx: TrumpContext, hand: Hand) -> Iterator[tuple[int, ...]]:
    """Singles, pairs and every tractor (all sub-runs), then each category's whole holding as a throw."""
    for category in range(5):
        held = [face for face in ctx.faces[category] if hand[face]]
        yield from ((face,) for face in held)
        pairs = [face for face in held if hand[face] == 2]
        yield from ((face, face) for face in pairs)
        for run in _runs(ctx, pairs):
            yield tuple(f for face in run for f in (face, face))
    for category in range(5):
        whole = tuple(face for face in ctx.faces[category] for _ in range(hand[face]))
        if whole and len(decompose(ctx, whole).components) > 1:
            yield whole


def _runs(ctx: TrumpContext, pair_faces: Sequence[int], length: int = 0) -> Iterator[list[int]]:
    """Every run of pair faces on consecutive rungs (of exactly ``length``, or of any length ≥ 2)."""
    strength = ctx.strength
    by_rung: dict[int, list[int]] = {}
    for face in pair_faces:
        by_rung.setdefault(strength[face], []).append(face)

    def extend(run: list[int]) -> Iterator[list[int]]:
        if (length and len(run) == length) or (not length and len(run) >= 2):
            yield run
        if length and len(run) == length:
            return
        for face in by_rung.get(strength[run[-1]] - 1, ()):
            yield from extend([*run, face])

    for rung in sorted(by_rung):  # weakest runs first: auto-play takes the first
        for face in by_rung[rung]:
            yield from extend([face])


def _follows(
    ctx: TrumpContext, hand: Hand, lead: Sequence[int], structure: bool = True
) -> Iterator[tuple[int, ...]]:
    """Legal follows of ``lead`` (R5) by the R5.3 procedure, weakest first: the rightmost cards of the
    default layout (R13.6) come first, so the first play listed is the auto-play."""
    led = decompose(ctx, lead)
    if led.category is None:
        raise InvalidArgumentError("lead", Problem.INCONSISTENT, "the lead must be cards of one category")
    n = len(lead)
    own = [face for face in reversed(ctx.faces[led.category]) for _ in range(hand[face])]  # weakest first
    if len(own) <= n:  # R5.2: all of the category, then anything
        rest = [face for face in reversed(default_layout(ctx, hand)) if ctx.category[face] != led.category]
        for extra in _multiset_choices(rest, n - len(own)):
            yield (*own, *extra)
        return
    if not structure:  # R16.3 FOLLOW-SUIT-ONLY: any n cards of the category
        yield from _multiset_choices(own, n)
        return
    pairs = [face for face in reversed(ctx.faces[led.category]) if hand[face] == 2]
    for path in structures(ctx, obligations(led), pairs):
        taken = [face for _, way in path for face in way]
        chosen = [f for face in taken for f in (face, face)]
        remaining = [face for face in own if face not in taken]
        for extra in _multiset_choices(remaining, n - len(chosen)):
            yield (*chosen, *extra)


def _multiset_choices(cards: list[int], k: int) -> Iterator[tuple[int, ...]]:
    """Distinct k-card sub-multisets of ``cards``, in the order of ``cards`` (lexicographic by position).

    Branches that cannot reach k cards are cut, so each yielded choice costs O(len(cards)).
    """
    counts: dict[int, int] = {}
    for face in cards:
        counts[face] = counts.get(face, 0) + 1
    faces = list(counts)
    after = [0] * (len(faces) + 1)  # cards available from position i on
    for i in range(len(faces) - 1, -1, -1):
        after[i] = after[i + 1] + counts[faces[i]]

    def pick(i: int, k: int) -> Iterator[tuple[int, ...]]:
        if k == 0:
            yield ()
            return
        if after[i] < k:
            return
        face = faces[i]
        for take in range(min(counts[face], k), -1, -1):
            for tail in pick(i + 1, k - take):
                yield (face,) * take + tail

    yield from pick(0, k)
