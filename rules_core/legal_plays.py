"""Enumerating legal plays, bounded, for clients that offer choices and for auto-play (托管).

Follows are generated *by construction* from the R5.3 procedure (:mod:`rules_core.obligations`: owed
tractors and pairs first, then filler), the same one the follow check asks, so every play listed is
legal without a separate check, and the listing stops at ``limit``.
Leads are every one-component lead (single, pair, tractor, R4.2) plus, per category, the whole holding
as a throw: the full set of throws is exponential and no client needs it.

On three and four decks (R14.4-R14.6) leads add each w-tuple and each tractor of w-tuples with all its
sub-runs, and follows are built by the R14.6 ladder itself (:func:`rules_core.follow.ladder_step`, the
step the follow check takes): every step's first rung the hand can meet, in each way it can be met, then
any filler of the led category. Each play built so is legal (its path is the witness the check looks
for), and every legal follow has such a path, so an untruncated listing is complete. That listing also
stops at :data:`rules_core.follow.MAX_WORK` construction steps (``truncated``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import islice

from rules_core.cards import Hand
from rules_core.component import Grade, grade
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import MAX_WORK, ladder_step, unit_ways
from rules_core.layout import LAYOUT_GROUPS, default_layout
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
    ctx: TrumpContext,
    *,
    hand: Hand,
    lead: Sequence[int] = (),
    limit: int = 100,
    structure: bool = True,
    decks: int = 2,
) -> PlayList:
    """Up to ``limit`` distinct legal plays from ``hand``: follows of ``lead``, or leads when it is empty.
    ``structure`` False lists the follows of FOLLOW-SUIT-ONLY (R16.3): R5.3 is not applied. More
    ``decks`` than two list by R14.4-R14.6."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgumentError(
            "max_plays", Problem.OUT_OF_RANGE, f"the limit (max_plays) is 1..{MAX_LIMIT}, got {limit}"
        )
    if decks > 2:
        work = _Work()
        source = _wide_follows(ctx, hand, lead, structure, work) if lead else _wide_leads(ctx, hand, work)
    else:
        source = _follows(ctx, hand, lead, structure) if lead else _leads(ctx, hand)
    seen: dict[tuple[int, ...], None] = {}
    try:
        for tried, play in enumerate(source):  # distinct plays, within a budget of candidates
            seen.setdefault(tuple(sorted(play)), None)
            if len(seen) > limit or tried >= CANDIDATE_BUDGET * limit:
                return PlayList(tuple(islice(seen, limit)), True)
    except _OutOfWorkError:
        return PlayList(tuple(islice(seen, limit)), True)
    return PlayList(tuple(seen), False)


class _OutOfWorkError(Exception):
    """A listing spent :data:`MAX_WORK` construction steps."""


class _Work:
    """A step counter shared by one listing (R14.6's work ceiling)."""

    __slots__ = ("spent",)

    def __init__(self) -> None:
        self.spent = 0

    def tick(self) -> None:
        self.spent += 1
        if self.spent > MAX_WORK:
            raise _OutOfWorkError


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


# Three and four decks: leads (R4.2, R14.4)


def _wide_leads(ctx: TrumpContext, hand: Hand, work: _Work) -> Iterator[tuple[int, ...]]:
    """Singles, each w-tuple, each tractor of w-tuples (all sub-runs), then each category's whole
    holding as a throw."""
    for category in range(5):
        held = [face for face in ctx.faces[category] if hand[face]]
        yield from ((face,) for face in held)
        for w in range(2, max((hand[f] for f in held), default=0) + 1):
            wide = [face for face in held if hand[face] >= w]
            yield from ((face,) * w for face in wide)
            for run in _wide_runs(ctx, wide, work):
                yield tuple(f for face in run for f in (face,) * w)
    for category in range(5):
        whole = tuple(face for face in ctx.faces[category] for _ in range(hand[face]))
        work.tick()
        if whole and len(decompose(ctx, whole).components) > 1:
            yield whole


def _wide_runs(ctx: TrumpContext, faces: Sequence[int], work: _Work) -> Iterator[list[int]]:
    """Every run of ``faces`` on consecutive rungs of length ≥ 2, weakest first (R3.4)."""
    strength = ctx.strength
    by_rung: dict[int, list[int]] = {}
    for face in faces:
        by_rung.setdefault(strength[face], []).append(face)

    def extend(run: list[int]) -> Iterator[list[int]]:
        work.tick()
        if len(run) >= 2:
            yield run
        for face in by_rung.get(strength[run[-1]] - 1, ()):
            yield from extend([*run, face])

    for rung in sorted(by_rung):
        for face in by_rung[rung]:
            yield from extend([face])


# Three and four decks: follows (R5, R14.6)


def _wide_follows(
    ctx: TrumpContext, hand: Hand, lead: Sequence[int], structure: bool, work: _Work
) -> Iterator[tuple[int, ...]]:
    """Legal follows of ``lead`` by the R14.6 ladder, weakest choices first."""
    led = decompose(ctx, lead)
    if led.category is None:
        raise InvalidArgumentError("lead", Problem.INCONSISTENT, "the lead must be cards of one category")
    n = len(lead)
    category = led.category
    own = [face for face in reversed(ctx.faces[category]) for _ in range(hand[face])]  # weakest first
    if len(own) <= n:  # R5.2: all of the category, then anything (rightmost of the layout first)
        layout = [face for group in LAYOUT_GROUPS for face in ctx.faces[group] for _ in range(hand[face])]
        rest = [face for face in reversed(layout) if ctx.category[face] != category]
        for extra in _multiset_choices(rest, n - len(own)):
            work.tick()
            yield (*own, *extra)
        return
    steps = tuple(grade(c) for c in led.components if c.pairs >= 1)
    if not structure or not steps:  # R16.3, or a lead of singles: any n cards of the category
        for choice in _multiset_choices(own, n):
            work.tick()
            yield choice
        return
    faces = [face for face in ctx.faces[category] if hand[face]]  # strongest first, as follow_wide
    strength = [ctx.strength[f] for f in faces]
    held = [hand[f] for f in faces]
    for after in _ladder(strength, held, steps, work):
        taken = [faces[i] for i in range(len(faces)) for _ in range(held[i] - after[i])]
        remaining = [faces[i] for i in reversed(range(len(faces))) for _ in range(after[i])]
        for extra in _multiset_choices(remaining, n - len(taken)):
            work.tick()
            yield (*taken, *extra)


def _ladder(
    strength: Sequence[int], counts: list[int], pending: tuple[Grade, ...], work: _Work
) -> Iterator[list[int]]:
    """The counts left after each way of meeting ``pending`` (R14.6), one :func:`ladder_step` at a time, as
    the follow check takes them; trailing pair steps take as many pairs as held, up to their number."""
    work.tick()
    if not pending:
        yield counts
        return
    if all(g == (2, 1) for g in pending):
        pairs = [i for i in reversed(range(len(counts))) for _ in range(counts[i] // 2)]  # weakest first
        for chosen in _multiset_choices(pairs, min(len(pending), len(pairs))):
            after = list(counts)
            for i in chosen:
                after[i] -= 2
            work.tick()
            yield after
        return
    step = ladder_step(strength, counts, pending)
    if step is None:
        yield counts
        return
    rung, rest, _ = step
    for after in _ways(strength, counts, rung, work):
        yield from _ladder(strength, after, rest, work)


def _ways(
    strength: Sequence[int], counts: list[int], rung: tuple[Grade, ...], work: _Work
) -> list[list[int]]:
    """Every distinct ``counts`` left after taking the units of ``rung``, weakest ways first."""
    found: dict[tuple[int, ...], None] = {tuple(counts): None}
    for unit in rung:
        step: dict[tuple[int, ...], None] = {}
        for before in found:
            for after in unit_ways(strength, before, unit):
                work.tick()
                step.setdefault(tuple(after), None)
        found = step
    return [list(after) for after in reversed(found)]
