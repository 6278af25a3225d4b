"""Following a lead: count, category, pair and tractor obligations (R5).

The follower plays exactly as many cards as were led (R5.1), from the led category as far as he can
(R5.2). When he holds more cards of that category than were led, he also owes structure (R5.3): the
lead's components are taken in grade order (tractors longest first, then pairs); each owes a tractor of
its length if the follower's remaining cards have one, else as many pairs as they have, up to its length.
A follow is legal exactly when that procedure can produce it for some choice of cards.

On three and four decks (R14.6) a lead's tuples owe by the *ladder*: a w-tuple step owes the first rung
of its ladder the follower can meet (a quadruple, else a triple, else two pairs as a tractor, else two
pairs, else a pair), a tractor step its tractor or else its tuple steps. The ladder is written once,
:func:`ladder_step`, and the check (:class:`_Search`), the owed example (:func:`owed_example`) and the
listing (``rules_core.legal_plays``) all take their steps from it. On two decks the same procedure is
R5.3's, written for pairs in :mod:`rules_core.obligations` (its check asks whether some way of meeting
the steps lies within the play's pairs, as the two-deck listing asks it for every way): the fast path
of every follow check on the rulebooks' table, never reached by a table of more decks.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from rules_core.cards import Hand, contains, format_cards
from rules_core.component import Component, Grade, grade
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.obligations import Owed, Profile, first_way, obligations, owed, profile, shortfall
from rules_core.rules import FollowRule, Rules
from rules_core.shapes import Decomposition, counts_of, decompose
from rules_core.trump import CATEGORY_NAMES, TrumpContext
from rules_core.verdicts import Illegal, Legal, Violation, new_legal


def check_follow(
    ctx: TrumpContext,
    *,
    hand: Hand,
    lead: Sequence[int],
    play: Sequence[int],
    structure: bool = True,
    decks: int = 2,
) -> Legal | Illegal:
    """Validate ``play`` from ``hand`` against the cards actually ``lead`` (R5, R14.6 on more ``decks``).
    Never raises for an illegal play; raises InvalidArgumentError only for a malformed lead (empty, or
    from two categories). ``structure`` False is FOLLOW-SUIT-ONLY (R16.3): R5.3 is not applied."""
    led = decompose(ctx, lead)
    if led.category is None or not lead:
        raise InvalidArgumentError(
            "lead", Problem.INCONSISTENT, "the lead must be non-empty cards of one category"
        )
    return _verdict(ctx, hand, led, play, decompose(ctx, play), structure, decks > 2)


def follow_verdict(
    ctx: TrumpContext,
    rules: Rules,
    *,
    hand: Hand,
    led: Decomposition,
    play: Sequence[int],
    shape: Decomposition,
) -> Legal | Illegal:
    """:func:`check_follow` on the ruleset's table for a lead and a play already decomposed (``led``,
    ``shape``): a request decomposes each once. ``led`` is a lead of one category. The one reading of
    FOLLOW (R16.3) and of the table's decks for following."""
    return _verdict(ctx, hand, led, play, shape, rules.follow is FollowRule.STRUCTURE, rules.decks > 2)


def _verdict(  # noqa: PLR0917 (the two entry points' one body)
    ctx: TrumpContext,
    hand: Hand,
    led: Decomposition,
    play: Sequence[int],
    shape: Decomposition,
    structure: bool,
    wide: bool,
) -> Legal | Illegal:
    """R5.1 and R5.2, then the structure owed: R5.3 on two decks, R14.6's ladder on more."""
    assert led.category is not None
    n = led.size
    if len(play) != n:  # R5.1
        return Illegal(Violation.WRONG_CARD_COUNT, f"play exactly {n} cards, not {len(play)}")
    if not contains(hand, play):
        return Illegal(Violation.CARDS_NOT_IN_HAND, f"{format_cards(play)} is not in the hand")
    category = led.category
    cat_of = ctx.category
    held_faces = [face for face in ctx.faces[category] if hand[face]]  # strongest first
    h_size = sum(hand[face] for face in held_faces)
    in_category = sum(1 for face in play if cat_of[face] == category)
    if in_category < min(n, h_size):  # R5.2
        count = min(n, h_size)
        return Illegal(
            Violation.MUST_FOLLOW_SUIT,
            f"must play {count} card(s) of {CATEGORY_NAMES[category]}, played {in_category}",
            required=_some_cards(ctx, hand, held_faces, count),
        )
    if h_size <= n or not structure or led.top_grade == 0:  # R5.3: more held than led; off under R16.3
        return new_legal((shape, None))
    if wide:
        return _by_ladder(ctx, hand, led, play, shape, held_faces)
    steps = obligations(led)
    strength = ctx.strength
    held = profile(ctx.rungs(category), (strength[f] for f in held_faces if hand[f] == 2))
    if len(steps) == 1:  # one pair or one tractor led: read off the play's decomposition
        failure = _single_shortfall(owed(steps, 0, held), shape)
    else:
        play_counts: dict[int, int] = {}
        for face in play:
            play_counts[face] = play_counts.get(face, 0) + 1
        pairs = tuple(f for f in held_faces[::-1] if play_counts.get(f) == 2)  # weakest first
        failure = shortfall(ctx, steps, held, pairs)
    if failure is None:
        return new_legal((shape, None))
    required = _owed_structure(ctx, steps, held, [f for f in held_faces if hand[f] == 2])
    what = " + ".join(c.describe() for c in required)
    return Illegal(failure, f"must play {_name(failure)} of {CATEGORY_NAMES[category]}: {what}", required)


def _single_shortfall(need: Owed, play: Decomposition) -> Violation | None:
    """Whether a play meets the one step of a one-component lead, read off its decomposition.

    The greedy decomposition takes the longest run first, so the play holds a k-run exactly when its
    first component has at least k pairs.
    """
    if need.tractor:
        return None if play.components[0].pairs >= need.tractor else need.violation
    return None if sum(c.pairs for c in play.components) >= need.pairs else need.violation


def _name(reason: Violation) -> str:
    return "a tractor" if reason is Violation.MUST_PLAY_TRACTOR else "pairs"


def _some_cards(ctx: TrumpContext, hand: Hand, held: list[int], count: int) -> tuple[Component, ...]:
    """An example of the in-category cards owed under R5.2 (the weakest ones), as singles."""
    cards = [face for face in reversed(held) for _ in range(hand[face])][:count]
    strength, order = ctx.strength, ctx.order
    return tuple(Component(0, strength[f], order[f], (f,)) for f in cards)


def _owed_structure(
    ctx: TrumpContext, steps: tuple[int, ...], held: Profile, pairs: list[int]
) -> tuple[Component, ...]:
    """An example of the structure the follower owes: the procedure's strongest way (for messages)."""
    strength, order = ctx.strength, ctx.order
    owed_units: list[Component] = []
    for need, way in first_way(ctx, steps, held, pairs):
        groups = [way] if need.tractor else [(face,) for face in way]
        for faces in groups:
            units = tuple(f for face in faces for f in (face, face))
            owed_units.append(Component(len(faces), strength[faces[0]], order[faces[0]], units))
    return tuple(owed_units)


# R14.6: the ladder of three and four decks

MAX_WORK: Final = 100_000
"""R14.6: the most search steps one follow check, ruff key or listing may take (each one memoised state)."""

LADDER: Final[dict[int, tuple[tuple[Grade, ...], ...]]] = {
    2: (((2, 1),),),
    3: (((3, 1),), ((2, 1),)),
    4: (((4, 1),), ((3, 1),), ((2, 2),), ((2, 1), (2, 1)), ((2, 1),)),
}
"""R14.6: the rungs of a w-tuple step's ladder, in order; below the last, nothing is owed."""


def ladder_step(
    strength: Sequence[int], held: Sequence[int], pending: tuple[Grade, ...]
) -> tuple[tuple[Grade, ...], tuple[Grade, ...], Violation] | None:
    """R14.6's one step for the cards ``held`` (counts per face of the category, strongest first): the
    rung owed now, the steps after it and the violation of missing it; None when nothing more is owed.
    A tractor step the hand cannot meet becomes its w-tuple steps; a w-tuple step owes its ladder's first
    rung the hand can meet, and nothing when it meets none."""
    while pending:
        (w, k), rest = pending[0], pending[1:]
        if k >= 2:
            if next(unit_ways(strength, held, (w, k)), None) is not None:
                return ((w, k),), rest, Violation.MUST_PLAY_TRACTOR
            pending = ((w, 1),) * k + rest
            continue
        for rung in LADDER[w]:
            if _meets(strength, held, rung):
                tractor = any(unit[1] >= 2 for unit in rung)
                return rung, rest, Violation.MUST_PLAY_TRACTOR if tractor else Violation.MUST_PLAY_PAIR
        pending = rest
    return None


def _by_ladder(  # noqa: PLR0917 (one private step of _verdict)
    ctx: TrumpContext,
    hand: Hand,
    led: Decomposition,
    play: Sequence[int],
    shape: Decomposition,
    faces: list[int],
) -> Legal | Illegal:
    """R14.6: whether the play meets the lead's steps by the ladder, for some choice of cards."""
    assert led.category is not None
    steps = tuple(grade(c) for c in led.components if c.pairs >= 1)
    held = [hand[face] for face in faces]
    played = counts_of(play)
    failure = _Search(ctx, faces, held, [played.get(face, 0) for face in faces]).run(steps)
    if failure is None:
        return new_legal((shape, None))
    what = "a tractor" if failure is Violation.MUST_PLAY_TRACTOR else "tuples"
    required = owed_example(ctx, faces, held, steps)
    owed_text = " + ".join(c.describe() for c in required)
    return Illegal(
        failure,
        f"must play {what} of {CATEGORY_NAMES[led.category]} by the ladder (R14.6): {owed_text}",
        required,
    )


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
            due = min(len(pending), sum(c // 2 for c in held))
            return None if sum(c // 2 for c in left) >= due else Violation.MUST_PLAY_PAIR
        step = ladder_step(self.strength, held, pending)
        return None if step is None else self.meet(*step, left=left)

    def meet(
        self, rung: tuple[Grade, ...], rest: tuple[Grade, ...], reason: Violation, *, left: tuple[int, ...]
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


def owed_example(
    ctx: TrumpContext, faces: Sequence[int], held: Sequence[int], steps: tuple[Grade, ...]
) -> tuple[Component, ...]:
    """An example of what the ladder owes (R14.6): each step's first rung the hand can meet, met with its
    strongest cards, for the message and the ``required`` of an Illegal."""
    strength = [ctx.strength[f] for f in faces]
    counts = list(held)
    owed: list[Component] = []
    pending = steps
    while (step := ladder_step(strength, counts, pending)) is not None:
        rung, pending, _ = step
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
