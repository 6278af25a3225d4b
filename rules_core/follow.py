"""Following a lead: count, category, pair and tractor obligations (R5).

The follower plays exactly as many cards as were led (R5.1), from the led category as far as he can
(R5.2). When he holds more cards of that category than were led, he also owes structure (R5.3): the
lead's components are taken in grade order (tractors longest first, then pairs); each owes a tractor of
its length if the follower's remaining cards have one, else as many pairs as they have, up to its length.
A follow is legal exactly when that procedure can produce it for some choice of cards.

Only pair units matter for the structure, so the check works on *pair profiles*: how many pairs the
follower holds on each rung of the category's ladder (at most one per rung, except the off-suit level
rung of the trumps, which can hold three).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import combinations

from rules_core.cards import Hand, contains, format_cards
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import Rules
from rules_core.shapes import Component, Decomposition, decompose, run_tops
from rules_core.trump import CATEGORY_NAMES, TrumpContext
from rules_core.verdicts import Illegal, Legal, Violation

Profile = tuple[int, ...]
"""Pairs held per strength rung, index 0 = weakest rung."""


def check_follow(
    ctx: TrumpContext, rules: Rules, *, hand: Hand, lead: Sequence[int], play: Sequence[int]
) -> Legal | Illegal:
    """Validate ``play`` from ``hand`` against the cards actually ``lead`` (R5). Never raises for an illegal
    play; raises InvalidArgumentError only for a malformed lead (empty, or from two categories)."""
    led = decompose(ctx, lead)
    if led.category is None or not lead:
        raise InvalidArgumentError(
            "lead", Problem.INCONSISTENT, "the lead must be non-empty cards of one category"
        )
    return follow_verdict(ctx, hand=hand, led=led, play=play, shape=decompose(ctx, play))


def follow_verdict(
    ctx: TrumpContext, *, hand: Hand, led: Decomposition, play: Sequence[int], shape: Decomposition
) -> Legal | Illegal:
    """:func:`check_follow` for a lead and a play already decomposed (``led``, ``shape``): a request
    decomposes each once. ``led`` is a lead of one category."""
    assert led.category is not None
    n = led.size
    if len(play) != n:  # R5.1
        return Illegal(Violation.WRONG_CARD_COUNT, f"play exactly {n} cards, not {len(play)}")
    if not contains(hand, play):
        return Illegal(Violation.CARDS_NOT_IN_HAND, f"{format_cards(play)} is not in the hand")
    category = led.category
    cat_of = ctx.category
    held = [face for face in ctx.faces[category] if hand[face]]
    h_size = sum(hand[face] for face in held)
    in_category = sum(1 for face in play if cat_of[face] == category)
    if in_category < min(n, h_size):  # R5.2
        owed = min(n, h_size)
        return Illegal(
            Violation.MUST_FOLLOW_SUIT,
            f"must play {owed} card(s) of {CATEGORY_NAMES[category]}, played {in_category}",
            required=_some_cards(ctx, hand, held, owed),
        )
    steps = _obligations(led)
    if h_size <= n or not steps:  # R5.3 applies only when more is held than was led
        return Legal(shape)
    strength = ctx.strength
    hand_profile = _profile(ctx.rungs(category), (strength[f] for f in held if hand[f] == 2))
    if len(steps) == 1:  # one pair or one tractor led: no choices to search
        failure = _single_shortfall(steps[0], hand_profile, shape)
    else:
        play_counts: dict[int, int] = {}
        for face in play:
            play_counts[face] = play_counts.get(face, 0) + 1
        pairs = (strength[f] for f, c in play_counts.items() if c == 2)
        failure = _shortfall(steps, hand_profile, _profile(ctx.rungs(category), pairs))
    if failure is None:
        return Legal(shape)
    required = _owed_structure(ctx, hand, category, steps)
    what = " + ".join(c.describe() for c in required)
    return Illegal(failure, f"must play {_name(failure)} of {CATEGORY_NAMES[category]}: {what}", required)


def _single_shortfall(k: int, hand: Profile, play: Decomposition) -> Violation | None:
    """R5.3 rules 2 and 3 for a one-component lead of k pairs, read off the play's decomposition.

    The greedy decomposition takes the longest run first, so the play holds a k-run exactly when its
    first component has at least k pairs.
    """
    if k >= 2 and run_tops(hand, k):
        return None if play.components[0].pairs >= k else Violation.MUST_PLAY_TRACTOR
    owed = min(k, sum(hand))
    return None if sum(c.pairs for c in play.components) >= owed else Violation.MUST_PLAY_PAIR


def _name(reason: Violation) -> str:
    return "a tractor" if reason is Violation.MUST_PLAY_TRACTOR else "pairs"


def _some_cards(ctx: TrumpContext, hand: Hand, held: list[int], owed: int) -> tuple[Component, ...]:
    """An example of the in-category cards owed under R5.2 (the weakest ones), as singles."""
    cards = [face for face in reversed(held) for _ in range(hand[face])][:owed]
    strength, order = ctx.strength, ctx.order
    return tuple(Component(0, strength[f], order[f], (f,)) for f in cards)


def _profile(size: int, strengths: Iterable[int]) -> Profile:
    counts = [0] * size
    for s in strengths:
        counts[s] += 1
    return tuple(counts)


def _obligations(led: Decomposition) -> tuple[int, ...]:
    """The structure steps a lead imposes: its tractor lengths, longest first, then 1 per pair (R5.3)."""
    return tuple(c.pairs for c in led.components if c.pairs >= 1)


def _take(profile: Profile, rungs: Iterable[int]) -> Profile:
    counts = list(profile)
    for s in rungs:
        counts[s] -= 1
    return tuple(counts)


def _rungs(profile: Profile) -> list[int]:
    return [s for s, count in enumerate(profile) for _ in range(count)]


def _shortfall(steps: tuple[int, ...], hand: Profile, play: Profile) -> Violation | None:
    """None if some run of the R5.3 procedure yields ``play``'s pairs, else the first unmet obligation.

    Depth-first over the procedure's choices, memoised per call: the states are subsets of the play's
    pairs, which the two-deck card counts keep small even for adversarial 25-card throws.
    """
    memo: dict[tuple[int, Profile], Violation | None] = {}
    owed_after = [sum(steps[i:]) for i in range(len(steps) + 1)]

    def search(i: int, hand: Profile, play: Profile) -> Violation | None:
        key = (i, play)  # the hand's profile is determined by i and what is left of the play
        if key not in memo:
            memo[key] = step(i, hand, play)
        return memo[key]

    def step(i: int, hand: Profile, play: Profile) -> Violation | None:
        if i == len(steps) or play == hand:  # with every pair of the hand in the play, all is met
            return None
        if sum(play) < min(owed_after[i], sum(hand)):  # each step spends min(k, pairs held) of both
            owes_tractor = steps[i] >= 2 and run_tops(hand, steps[i])
            return Violation.MUST_PLAY_TRACTOR if owes_tractor else Violation.MUST_PLAY_PAIR
        k = steps[i]
        if k == 1:  # only pair steps remain, each owing a pair while the hand has one (R5.3 rule 2)
            owed = min(len(steps) - i, sum(hand))
            return None if sum(play) >= owed else Violation.MUST_PLAY_PAIR
        if run_tops(hand, k):  # R5.3 rule 3: a k-tractor is owed
            options: list[Sequence[int]] = [range(top, top - k, -1) for top in reversed(run_tops(play, k))]
            if not options:
                return Violation.MUST_PLAY_TRACTOR
        else:  # otherwise as many pairs as the hand has, up to k
            owed = min(k, sum(hand))
            if sum(play) < owed:
                return Violation.MUST_PLAY_PAIR
            if owed < k:
                return None  # every pair of the hand is spent: nothing further is owed
            options = [*sorted(set(combinations(_rungs(play), k)))]  # which k of the play's pairs
        first: Violation | None = None
        for taken in options:
            outcome = search(i + 1, _take(hand, taken), _take(play, taken))
            if outcome is None:
                return None
            first = first or outcome
        return first

    return search(0, hand, play)


def _owed_structure(
    ctx: TrumpContext, hand: Hand, category: int, steps: tuple[int, ...]
) -> tuple[Component, ...]:
    """An example of the structure the follower owes, strongest units first (for messages, R5.3)."""
    strength, order = ctx.strength, ctx.order
    pool = [face for face in ctx.faces[category] if hand[face] == 2]
    owed: list[Component] = []
    for k in steps:
        run = _strongest_run(ctx, pool, k) if k >= 2 else None
        groups = [run] if run else [[face] for face in pool[: min(k, len(pool))]]
        for faces in groups:
            for face in faces:
                pool.remove(face)
            cards = tuple(f for face in faces for f in (face, face))
            owed.append(Component(len(faces), strength[faces[0]], order[faces[0]], cards))
    return tuple(owed)


def _strongest_run(ctx: TrumpContext, pool: list[int], k: int) -> list[int] | None:
    strength = ctx.strength
    for top in sorted({strength[f] for f in pool}, reverse=True):
        faces = []
        for s in range(top, top - k, -1):
            face = next((f for f in pool if strength[f] == s), None)
            if face is None:
                break
            faces.append(face)
        if len(faces) == k:
            return faces
    return None
