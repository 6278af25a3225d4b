"""Legal plays on any table (R14): the ListLegalPlays listing generalized to tuples of up to D copies.

Two decks (any seats) keep :func:`rules_core.legal_plays.legal_plays` unchanged. On three and four
decks, leads are every one-component lead (a single, each w-tuple, each tractor of w-tuples with all its
sub-runs, R4.2, R14.4) plus each category's whole holding as a throw (a bounded set: the full set of
throws is exponential). Follows are built by the R14.6 ladder itself, the procedure
:func:`rules_core.tuples.follow_wide` asks: every step's first rung the hand can meet, in each way it
can be met, then any filler of the led category. Each play built so is legal (its path is the witness
the check looks for), and every legal follow has such a path, so an untruncated listing is complete.
The listing stops at ``limit`` plays, at the candidate budget, or at :data:`rules_core.tuples.MAX_WORK`
construction steps, whichever comes first (``truncated``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import islice

from rules_core.cards import Hand
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.layout import LAYOUT_GROUPS
from rules_core.legal_plays import CANDIDATE_BUDGET, MAX_LIMIT, PlayList, _multiset_choices, legal_plays
from rules_core.rules import FollowRule, Rules
from rules_core.table import Counter, _check_hand
from rules_core.trump import TrumpContext
from rules_core.tuples import LADDER, MAX_WORK, Grade, _meets, decompose_wide, grade, unit_ways

__all__ = ["table_legal_plays", "wide_legal_plays"]


class _OutOfWorkError(Exception):
    """The listing spent :data:`MAX_WORK` construction steps."""


class _Work:
    """A step counter shared by one listing (R14.6's work ceiling)."""

    def __init__(self) -> None:
        self.spent = 0

    def tick(self) -> None:
        self.spent += 1
        if self.spent > MAX_WORK:
            raise _OutOfWorkError


def table_legal_plays(
    ctx: TrumpContext,
    rules: Rules,
    *,
    hand: Sequence[int],
    lead: Sequence[int] = (),
    limit: int = 100,
) -> PlayList:
    """R4/R5 on the ruleset's table: up to ``limit`` legal plays from ``hand`` (faces), follows of
    ``lead`` (faces) or leads when it is empty. Cards are counted against D copies (R14.1)."""
    counter = Counter(rules.decks)
    _check_hand(hand, "hand", rules)
    held = counter.add(hand, "hand")
    if lead:
        counter.add(lead, "lead")
    structure = rules.follow is FollowRule.STRUCTURE  # R16.3
    if rules.decks == 2:
        return legal_plays(ctx, hand=held, lead=lead, limit=limit, structure=structure)
    return wide_legal_plays(ctx, hand=held, lead=lead, limit=limit, structure=structure)


def wide_legal_plays(
    ctx: TrumpContext, *, hand: Hand, lead: Sequence[int] = (), limit: int = 100, structure: bool = True
) -> PlayList:
    """Up to ``limit`` distinct legal plays from the count vector ``hand`` (up to four copies a face)."""
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidArgumentError(
            "max_plays", Problem.OUT_OF_RANGE, f"the limit (max_plays) is 1..{MAX_LIMIT}, got {limit}"
        )
    work = _Work()
    source = _follows(ctx, hand, lead, structure, work) if lead else _leads(ctx, hand, work)
    seen: dict[tuple[int, ...], None] = {}
    try:
        for tried, play in enumerate(source):
            seen.setdefault(tuple(sorted(play)), None)
            if len(seen) > limit or tried >= CANDIDATE_BUDGET * limit:
                return PlayList(tuple(islice(seen, limit)), True)
    except _OutOfWorkError:
        return PlayList(tuple(islice(seen, limit)), True)
    return PlayList(tuple(seen), False)


# Leads (R4.2, R14.4)


def _leads(ctx: TrumpContext, hand: Hand, work: _Work) -> Iterator[tuple[int, ...]]:
    """Singles, each w-tuple, each tractor of w-tuples (all sub-runs), then each category's whole
    holding as a throw."""
    for category in range(5):
        held = [face for face in ctx.faces[category] if hand[face]]
        yield from ((face,) for face in held)
        for w in range(2, max((hand[f] for f in held), default=0) + 1):
            wide = [face for face in held if hand[face] >= w]
            yield from ((face,) * w for face in wide)
            for run in _runs(ctx, wide, work):
                yield tuple(f for face in run for f in (face,) * w)
    for category in range(5):
        whole = tuple(face for face in ctx.faces[category] for _ in range(hand[face]))
        work.tick()
        if whole and len(decompose_wide(ctx, whole).components) > 1:
            yield whole


def _runs(ctx: TrumpContext, faces: Sequence[int], work: _Work) -> Iterator[list[int]]:
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


# Follows (R5, R14.6)


def _follows(
    ctx: TrumpContext, hand: Hand, lead: Sequence[int], structure: bool, work: _Work
) -> Iterator[tuple[int, ...]]:
    """Legal follows of ``lead`` by the R14.6 ladder, weakest choices first."""
    led = decompose_wide(ctx, lead)
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
    """The counts left after each way of meeting ``pending`` (R14.6), as ``tuples._Search`` reads it:
    a tractor step the hand cannot meet becomes its w-tuple steps; a w-tuple step takes its ladder's first
    rung the hand meets; trailing pair steps take as many pairs as held, up to their number."""
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
    (w, k), rest = pending[0], pending[1:]
    if k >= 2:
        if next(unit_ways(strength, counts, (w, k)), None) is None:
            yield from _ladder(strength, counts, ((w, 1),) * k + rest, work)
            return
        rung: tuple[Grade, ...] = ((w, k),)
    else:
        met = [r for r in LADDER[w] if _meets(strength, counts, r)]
        if not met:
            yield from _ladder(strength, counts, rest, work)
            return
        rung = met[0]
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
