"""Following a lead: count, category, pair and tractor obligations (R5).

The follower plays exactly as many cards as were led (R5.1), from the led category as far as he can
(R5.2). When he holds more cards of that category than were led, he also owes structure (R5.3): the
lead's components are taken in grade order (tractors longest first, then pairs); each owes a tractor of
its length if the follower's remaining cards have one, else as many pairs as they have, up to its length.
A follow is legal exactly when that procedure can produce it for some choice of cards.

The procedure is written once, in :mod:`rules_core.obligations`; this check asks it whether some way of
meeting the steps lies within the play's pairs, as the legal-play listing asks it for every way.
"""

from __future__ import annotations

from collections.abc import Sequence

from rules_core.cards import Hand, contains, format_cards
from rules_core.component import Component
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.obligations import Owed, Profile, first_way, obligations, owed, profile, shortfall
from rules_core.shapes import Decomposition, decompose
from rules_core.trump import CATEGORY_NAMES, TrumpContext
from rules_core.verdicts import Illegal, Legal, Violation, new_legal


def check_follow(
    ctx: TrumpContext, *, hand: Hand, lead: Sequence[int], play: Sequence[int], structure: bool = True
) -> Legal | Illegal:
    """Validate ``play`` from ``hand`` against the cards actually ``lead`` (R5). Never raises for an illegal
    play; raises InvalidArgumentError only for a malformed lead (empty, or from two categories).
    ``structure`` False is FOLLOW-SUIT-ONLY (R16.3): R5.3 is not applied."""
    led = decompose(ctx, lead)
    if led.category is None or not lead:
        raise InvalidArgumentError(
            "lead", Problem.INCONSISTENT, "the lead must be non-empty cards of one category"
        )
    return follow_verdict(ctx, hand=hand, led=led, play=play, shape=decompose(ctx, play), structure=structure)


def follow_verdict(
    ctx: TrumpContext,
    *,
    hand: Hand,
    led: Decomposition,
    play: Sequence[int],
    shape: Decomposition,
    structure: bool = True,
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
    steps = obligations(led)
    if h_size <= n or not steps or not structure:  # R5.3: more held than led; off under R16.3
        return new_legal((shape, None))
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
