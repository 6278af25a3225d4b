"""Tables of three and four decks: tuples of up to D copies, their tractors, and R3–R8 on them (R14).

A component is still a :class:`~rules_core.shapes.Component`: ``pairs`` is its number of rungs (0 for a
single) and its *width* (copies per rung) is its size over that, so a triple is ``pairs`` 1 with three
cards and a tractor of triples ``pairs`` k with 3k. Grades order wider first, then longer (R14.4).

Every function here reduces to the two-deck engine on cards of at most two copies (the decomposition
even calls it), and the brute-force test checks the rest against it; the request entry points in
:mod:`rules_core.table` send two-deck tables to the two-deck modules, so their hot path is untouched.

>>> from rules_core.cards import parse_cards, Suit
>>> from rules_core.trump import trump_context
>>> ctx = trump_context(5, Suit.H)
>>> decompose_wide(ctx, parse_cards("S9 S9 S9 S8 S8 S8 S6 S6 S4 S4 S4 S3".split())).describe()
'throw: S9 S9 S9 S8 S8 S8 + S4 S4 S4 + S6 S6 + S3'
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from rules_core.cards import Hand, contains, format_cards
from rules_core.component import Component
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import DigMultiplier, Rules, ThrowCheck
from rules_core.shapes import Decomposition, _cut_pairs, decompose
from rules_core.trump import CATEGORY_NAMES, TRUMP, TrumpContext
from rules_core.verdicts import Beat, Illegal, Legal, ThrowResult, Violation

MAX_WORK = 100_000
"""R14.6: the most search steps one follow check or ruff key may take (each is one memoised state)."""

NO_KEY = -1
"""The key of a play that is not a valid ruff (as ``rules_core.ruffing``)."""

Grade = tuple[int, int]
"""(width, rungs) of a component: wider first, then longer (R14.4)."""

LADDER: dict[int, tuple[tuple[Grade, ...], ...]] = {
    2: (((2, 1),),),
    3: (((3, 1),), ((2, 1),)),
    4: (((4, 1),), ((3, 1),), ((2, 2),), ((2, 1), (2, 1)), ((2, 1),)),
}
"""R14.6: the rungs of a w-tuple step's ladder, in order; below the last, nothing is owed."""


def width(component: Component) -> int:
    """Copies per rung: 1 for a single, 2 for pairs and their tractors, 3 triples, 4 quadruples."""
    return len(component.cards) // component.pairs if component.pairs else 1


def grade(component: Component) -> Grade:
    """(width, rungs): the order of R14.4, highest first when sorted in reverse."""
    return width(component), max(component.pairs, 1)


def counts_of(faces: Sequence[int]) -> dict[int, int]:
    """How many copies of each face ``faces`` holds."""
    counts: dict[int, int] = {}
    for face in faces:
        counts[face] = counts.get(face, 0) + 1
    return counts


def decompose_wide(ctx: TrumpContext, faces: Sequence[int]) -> Decomposition:
    """R14.4: each face's copies one tuple; tractors cut widest first; components by grade, strongest
    first. Cards of at most two copies take the two-deck decomposition (R3.6) itself."""
    counts = counts_of(faces)
    if not counts or max(counts.values()) <= 2:
        return decompose(ctx, faces)
    if len({ctx.category[face] for face in counts}) != 1:
        return Decomposition(category=None, components=())
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
    return Decomposition(ctx.category[held[0]], tuple(components))


# R14.5: leads and throws


def beating_wide(
    strength: tuple[int, ...], faces: tuple[int, ...], hand: Sequence[int], component: Component
) -> tuple[int, ...]:
    """The strongest cards of ``hand`` that beat ``component`` (R14.5), or (): k consecutive rungs, each
    with a face held at least w times, the top strictly stronger. ``faces``: the category, strongest first."""
    w, k = grade(component)
    top = component.top
    run: list[int] = []
    last = -2
    for face in faces:
        if hand[face] < w:
            continue
        s = strength[face]
        if s == last:  # a second face on the rung (off-suit level cards): the first one is taken
            continue
        if s == last - 1:
            run.append(face)
        elif s <= top:  # a run starting here cannot top the component
            return ()
        else:
            run = [face]
        last = s
        if len(run) == k:
            return tuple(f for face in run for f in (face,) * w)
    return ()


def checked_components(rules: Rules, components: tuple[Component, ...]) -> list[Component]:
    """The weakest component of each grade, highest grade first (THROW-000); THROW-003 keeps tuples and
    singles (k = 1), never tractors (R14.5)."""
    weakest: dict[Grade, Component] = {}
    for component in components:  # by grade, strongest first: the last of a grade is its weakest
        weakest[grade(component)] = component
    found = list(weakest.values())
    if rules.throw is ThrowCheck.TOP_DOWN:
        return found
    return [c for c in found if c.pairs <= 1]


def judge_throw_wide(
    ctx: TrumpContext, rules: Rules, play: Decomposition, others: Mapping[int, Sequence[int]]
) -> ThrowResult:
    """R14.5: whether a throw succeeds against each other hand (count vectors), and what is forced."""
    assert play.category is not None
    faces, components, strength = ctx.faces[play.category], play.components, ctx.strength
    seats = sorted(others.items())
    for component in checked_components(rules, components):
        evidence = [
            Beat(seat, component, cards)
            for seat, hand in seats
            if (cards := beating_wide(strength, faces, hand, component))
        ]
        if evidence:
            returned = [face for c in components if c is not component for face in c.cards]
            return ThrowResult(False, component.cards, component, tuple(returned), tuple(evidence))
    return ThrowResult(True, tuple([face for c in components for face in c.cards]), None, (), ())


def lead_wide(
    ctx: TrumpContext, rules: Rules, *, hand: Hand, lead: Sequence[int], others: Mapping[int, Sequence[int]]
) -> Legal | Illegal:
    """R4 with R14.5: a lead from ``hand``; a throw is judged against ``others`` (seat → count vector)."""
    if not lead:
        return Illegal(Violation.EMPTY_PLAY, "a lead needs at least one card")
    if not contains(hand, lead):
        return Illegal(Violation.CARDS_NOT_IN_HAND, f"{format_cards(lead)} is not in the hand")
    play = decompose_wide(ctx, lead)
    if play.category is None:  # R4.3
        return Illegal(
            Violation.MIXED_CATEGORY_LEAD,
            f"{format_cards(lead)} mixes categories; a lead is one suit or trumps",
        )
    if len(play.components) == 1:  # R4.2
        return Legal(play)
    return Legal(play, judge_throw_wide(ctx, rules, play, others))


# R14.6: following by the ladder


class _Search:
    """The R14.6 procedure over one follow: may the play meet every step for some choice of cards?

    Cards are counted per position of the led category's faces (strongest first). Everything a step
    takes comes from the play, so the cards left in the hand follow from the play's cards left, which
    is the memo key with the steps still pending.
    """

    def __init__(self, ctx: TrumpContext, faces: Sequence[int], hand: list[int], play: list[int]) -> None:
        self.strength = [ctx.strength[f] for f in faces]
        self.spare = [h - p for h, p in zip(hand, play, strict=True)]  # hand cards the play leaves out
        self.play = tuple(play)
        self.memo: dict[tuple[tuple[Grade, ...], tuple[int, ...]], Violation | None] = {}
        self.work = 0

    def run(self, steps: tuple[Grade, ...]) -> Violation | None:
        """None when the play meets the steps, else the reason of the first obligation it fails."""
        return self.search(steps, self.play)

    def search(self, pending: tuple[Grade, ...], left: tuple[int, ...]) -> Violation | None:
        key = (pending, left)
        if key not in self.memo:
            self.work += 1
            if self.work > MAX_WORK:
                raise InvalidArgumentError(
                    "cards",
                    Problem.OUT_OF_RANGE,
                    f"the follow check passed its work ceiling ({MAX_WORK}, R14.6)",
                )
            self.memo[key] = self.step(pending, left)
        return self.memo[key]

    def step(self, pending: tuple[Grade, ...], left: tuple[int, ...]) -> Violation | None:
        if not pending:
            return None
        held = [s + r for s, r in zip(self.spare, left, strict=True)]
        if all(
            g == (2, 1) for g in pending
        ):  # trailing pair steps: as many pairs as held, up to their number
            owed = min(len(pending), sum(c // 2 for c in held))
            return None if sum(c // 2 for c in left) >= owed else Violation.MUST_PLAY_PAIR
        (w, k), rest = pending[0], pending[1:]
        if k >= 2:
            if next(self.ways(held, ((w, k),)), None) is None:  # no such tractor: k w-tuple steps
                return self.search(((w, 1),) * k + rest, left)
            return self.meet(((w, k),), rest, left, Violation.MUST_PLAY_TRACTOR)
        for rung in LADDER[w]:
            if next(self.ways(held, rung), None) is not None:
                reason = (
                    Violation.MUST_PLAY_TRACTOR if any(u[1] >= 2 for u in rung) else Violation.MUST_PLAY_PAIR
                )
                return self.meet(rung, rest, left, reason)
        return self.search(rest, left)

    def meet(
        self, rung: tuple[Grade, ...], rest: tuple[Grade, ...], left: tuple[int, ...], reason: Violation
    ) -> Violation | None:
        """Some way of taking ``rung`` from the play's cards ``left`` after which the rest is met."""
        first: Violation | None = None
        for after in self.ways(list(left), rung):
            outcome = self.search(rest, after)
            if outcome is None:
                return None
            first = first or outcome
        return first or reason

    def ways(self, counts: list[int], rung: tuple[Grade, ...]) -> Iterator[tuple[int, ...]]:
        """Every distinct ``counts`` left after taking the units of ``rung`` from them, one by one."""
        if not rung:
            yield tuple(counts)
            return
        seen: set[tuple[int, ...]] = set()
        for taken in unit_ways(self.strength, counts, rung[0]):
            for after in self.ways(taken, rung[1:]):
                if after not in seen:
                    seen.add(after)
                    yield after


def unit_ways(strength: Sequence[int], counts: Sequence[int], unit: Grade) -> Iterator[list[int]]:
    """``counts`` less each way of one unit (w, k): k consecutive rungs, on each one face with ≥ w copies."""
    w, k = unit
    by_rung: dict[int, list[int]] = {}
    for i, c in enumerate(counts):
        if c >= w:
            by_rung.setdefault(strength[i], []).append(i)
    for top in sorted(by_rung, reverse=True):
        if all(top - d in by_rung for d in range(1, k)):
            yield from _pick(counts, [by_rung[top - d] for d in range(k)], w)


def _pick(counts: Sequence[int], rungs: list[list[int]], w: int) -> Iterator[list[int]]:
    """One face of each rung, w copies of each, taken from ``counts``."""
    if not rungs:
        yield list(counts)
        return
    for i in rungs[0]:
        taken = list(counts)
        taken[i] -= w
        yield from _pick(taken, rungs[1:], w)


def follow_wide(
    ctx: TrumpContext, *, hand: Hand, led: Decomposition, play: Sequence[int], structure: bool = True
) -> Legal | Illegal:
    """R5 with R14.6: ``play`` from ``hand`` (count vector) on the lead ``led`` (one category)."""
    assert led.category is not None
    shape = decompose_wide(ctx, play)
    n = led.size
    if len(play) != n:  # R5.1
        return Illegal(Violation.WRONG_CARD_COUNT, f"play exactly {n} cards, not {len(play)}")
    if not contains(hand, play):
        return Illegal(Violation.CARDS_NOT_IN_HAND, f"{format_cards(play)} is not in the hand")
    category = led.category
    faces = [face for face in ctx.faces[category] if hand[face]]  # strongest first
    held = [hand[face] for face in faces]
    in_category = sum(1 for face in play if ctx.category[face] == category)
    if in_category < min(n, sum(held)):  # R5.2
        count = min(n, sum(held))
        return Illegal(
            Violation.MUST_FOLLOW_SUIT,
            f"must play {count} card(s) of {CATEGORY_NAMES[category]}, played {in_category}",
        )
    steps = tuple(grade(c) for c in led.components if c.pairs >= 1)
    if sum(held) <= n or not steps or not structure:  # R5.3: more held than led; off under R16.3
        return Legal(shape)
    played = counts_of(play)
    failure = _Search(ctx, faces, held, [played.get(face, 0) for face in faces]).run(steps)
    if failure is None:
        return Legal(shape)
    what = "a tractor" if failure is Violation.MUST_PLAY_TRACTOR else "tuples"
    required = owed_example(ctx, faces, held, steps)
    owed = " + ".join(c.describe() for c in required)
    return Illegal(
        failure, f"must play {what} of {CATEGORY_NAMES[category]} by the ladder (R14.6): {owed}", required
    )


def owed_example(
    ctx: TrumpContext, faces: Sequence[int], held: Sequence[int], steps: tuple[Grade, ...]
) -> tuple[Component, ...]:
    """An example of what the ladder owes (R14.6): each step's first rung the hand can meet, met with its
    strongest cards, for the message and the ``required`` of an Illegal."""
    strength = [ctx.strength[f] for f in faces]
    counts = list(held)
    pending = list(steps)
    owed: list[Component] = []
    while pending:
        w, k = pending.pop(0)
        if k >= 2 and next(unit_ways(strength, counts, (w, k)), None) is None:
            pending[:0] = [(w, 1)] * k
            continue
        rungs = (((w, k),),) if k >= 2 else LADDER[w]
        rung = next((r for r in rungs if _meets(strength, counts, r)), ())
        for unit in rung:
            taken = next(unit_ways(strength, counts, unit))
            cards = tuple(faces[i] for i in range(len(faces)) for _ in range(counts[i] - taken[i]))
            top = cards[0]
            owed.append(Component(unit[1], ctx.strength[top], ctx.order[top], cards))
            counts = taken
    return tuple(owed)


def _meets(strength: Sequence[int], counts: Sequence[int], rung: tuple[Grade, ...]) -> bool:
    """Whether ``counts`` hold every unit of ``rung`` without overlap (R14.6)."""
    if not rung:
        return True
    return any(_meets(strength, taken, rung[1:]) for taken in unit_ways(strength, counts, rung[0]))


# R14.7 and R14.8: ruffs and the trick


def ruff_key_wide(ctx: TrumpContext, lead: Decomposition, play: Sequence[int]) -> int:
    """R14.7: the key of ``play`` as a ruff of the plain ``lead``, or NO_KEY. The best top a unit given to
    a component of the lead's top grade can have, over every assignment (RUFF-COVER)."""
    if lead.category is None or lead.category == TRUMP or len(play) != lead.size:
        return NO_KEY
    if any(ctx.category[face] != TRUMP for face in play):
        return NO_KEY
    strength = ctx.strength
    if lead.components[0].pairs == 0:  # singles ask for no structure: the strongest card
        return max(strength[face] for face in play)
    needs = [grade(c) for c in lead.components if c.pairs >= 1]
    tau = needs[0]
    counts = counts_of(play)
    faces = sorted(counts)
    ranks = [strength[f] for f in faces]
    memo: dict[tuple[int, tuple[int, ...]], int | None] = {}
    work = [0]

    def best(i: int, free: tuple[int, ...]) -> int | None:
        """The best τ-top over completions from need i with ``free`` left; None if none fits."""
        if (i, free) not in memo:
            work[0] += 1
            if work[0] > MAX_WORK:
                raise InvalidArgumentError(
                    "plays",
                    Problem.OUT_OF_RANGE,
                    f"the ruff check passed its work ceiling ({MAX_WORK}, R14.7)",
                )
            memo[i, free] = fit(i, free)
        return memo[i, free]

    def fit(i: int, free: tuple[int, ...]) -> int | None:
        if i == len(needs):
            return NO_KEY
        result: int | None = None
        for taken in unit_ways(ranks, free, needs[i]):
            below = best(i + 1, tuple(taken))
            if below is None:
                continue
            top = max(ranks[j] for j in range(len(free)) if free[j] != taken[j])
            candidate = max(below, top) if needs[i] == tau else below
            result = candidate if result is None else max(result, candidate)
        return result

    found = best(0, tuple(counts[f] for f in faces))
    return NO_KEY if found is None else found


def beats_in_category(lead: Decomposition, follow: Decomposition) -> bool:
    """R14.8: a same-category follow has the lead's format: one component of the same (w, k)."""
    return (
        len(lead.components) == 1
        and len(follow.components) == 1
        and grade(follow.components[0]) == grade(lead.components[0])
    )


def dig_exponent(rules: Rules, shape: Decomposition) -> int:
    """R14.9: M = 2^(1 + (w − 1)k) for the shape's top component; DIG-003 caps it at ×8."""
    if not shape.components:
        return 1
    w, k = grade(shape.components[0])
    exponent = 1 + (w - 1) * k if w > 1 else 1
    return min(exponent, 3) if rules.dig_multiplier is DigMultiplier.CAPPED else exponent
