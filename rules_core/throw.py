"""Leads and throws (甩牌): a lead is checked against the leader's hand and, for a throw, the others (R4).

A lead of one component (single, tuple or tractor) is always legal (R4.2), on every table. A throw of
several components of one category is legal too, but it *succeeds* only when no other hand beats any
checked component (R4.4); otherwise its forced component is led and the rest returns to the hand (R4.7).
A failed throw is a legal outcome with evidence, never an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rules_core.cards import Hand, contains, format_cards
from rules_core.component import Component, Grade
from rules_core.rules import Rules, ThrowCheck
from rules_core.shapes import Decomposition, decompose
from rules_core.trump import CATEGORY_NAMES, TrumpContext
from rules_core.verdicts import (
    Beat,
    Illegal,
    Legal,
    ThrowResult,
    Violation,
    new_beat,
    new_legal,
    new_throw_result,
)


def check_lead(
    ctx: TrumpContext, rules: Rules, *, hand: Hand, lead: Sequence[int], others: Mapping[int, Hand]
) -> Legal | Illegal:
    """Validate a lead from ``hand``; a throw is also judged against ``others`` (seat → hand), R4."""
    return lead_verdict(ctx, rules, hand, lead, decompose(ctx, lead), others)


def lead_verdict(  # noqa: PLR0917 (check_lead calls it by position: a tenth of a throw check's cost)
    ctx: TrumpContext,
    rules: Rules,
    hand: Hand,
    lead: Sequence[int],
    play: Decomposition,
    others: Mapping[int, Hand],
) -> Legal | Illegal:
    """:func:`check_lead` for a lead already decomposed (``play``): a request decomposes a play once."""
    if not lead:
        return Illegal(Violation.EMPTY_PLAY, "a lead needs at least one card")
    if not contains(hand, lead):
        return Illegal(Violation.CARDS_NOT_IN_HAND, f"{format_cards(lead)} is not in the hand")
    if play.category is None:  # R4.3
        return Illegal(
            Violation.MIXED_CATEGORY_LEAD,
            f"{format_cards(lead)} mixes categories; a lead is one suit or trumps",
        )
    if len(play.components) == 1:  # R4.2
        return new_legal((play, None))
    return new_legal((play, judge_throw(ctx, rules, play, others)))


def judge_throw(
    ctx: TrumpContext, rules: Rules, play: Decomposition, others: Mapping[int, Hand]
) -> ThrowResult:
    """Whether a throw succeeds against the other hands, and if not, what is forced (R4.4–R4.7).

    The checked components come in the order in which the variant picks the forced one, so the first
    beaten one is the answer and the rest are never looked at. Each other hand is read once per checked
    grade, from its strongest card down, and only as far as the component's strength.
    """
    assert play.category is not None
    faces, components, strength = ctx.faces[play.category], play.components, ctx.strength
    for component in _checked_components(rules, components):
        evidence = _beaters(strength, faces, others, component)
        if evidence:
            returned = [face for c in components if c is not component for face in c.cards]
            return new_throw_result((False, component.cards, component, tuple(returned), tuple(evidence)))
    return new_throw_result((True, tuple([face for c in components for face in c.cards]), None, (), ()))


def _checked_components(rules: Rules, components: tuple[Component, ...]) -> list[Component]:
    """The components to test, in the order the variant picks the forced one (R4.5, R4.6, R14.5).

    Only the weakest component of each grade (the last of its grade: ``components`` is by grade, then
    strongest first) is tested: beating is monotone, so if any component of a grade is beaten, so is the
    weakest. A grade is (width, rungs), told apart by (rungs, size). THROW-000 tests every grade, top
    grade first; THROW-003 tuples (pairs), then singles, never tractors.
    """
    first, last = components[0], components[-1]
    if first.pairs == last.pairs and len(first.cards) == len(last.cards):  # one grade: the commonest throw
        return [last] if rules.throw is ThrowCheck.TOP_DOWN or last.pairs <= 1 else []
    weakest = []
    previous = first
    for component in components[1:]:
        if component.pairs != previous.pairs or len(component.cards) != len(previous.cards):
            weakest.append(previous)
        previous = component
    weakest.append(previous)
    if rules.throw is ThrowCheck.TOP_DOWN:
        return weakest
    return [c for c in weakest if c.pairs <= 1]


def _beaters(
    strength: tuple[int, ...], faces: tuple[int, ...], others: Mapping[int, Hand], component: Component
) -> list[Beat]:
    """Each other seat whose hand beats ``component`` (R4.4, R14.5), with its strongest beating cards, by
    seat: the same grade (w copies on each of k consecutive rungs), the top strictly stronger.

    ``faces`` is the component's category, strongest first. Equal strength never beats. Each hand is
    read from its strongest card down and only as far as it settles the question: the top single, the
    top tuple, or a run's top at the component's strength. One loop per kind over the seats (a call per
    seat was a fifth of a failed throw's cost).
    """
    top, found = component.top, []
    if component.pairs == 0:
        for seat, hand in others.items():
            for face in faces:
                if hand[face]:
                    if strength[face] > top:
                        found.append(new_beat((seat, component, (face,))))
                    break
    elif component.pairs == 1:
        w = len(component.cards)
        for seat, hand in others.items():
            for face in faces:
                if strength[face] <= top:
                    break
                if hand[face] >= w:
                    found.append(new_beat((seat, component, (face,) * w)))
                    break
    else:
        w = len(component.cards) // component.pairs
        for seat, hand in others.items():
            if cards := _beating_run(strength, faces, hand, (w, component.pairs), top):
                found.append(new_beat((seat, component, cards)))
    if len(found) > 1:
        found.sort()  # by seat (seats are distinct): sorting the few beaters, not every seat
    return found


def _beating_run(
    strength: tuple[int, ...], faces: tuple[int, ...], hand: Hand, unit: Grade, top: int
) -> tuple[int, ...]:
    """The strongest run of k w-tuples in ``hand`` whose top is stronger than ``top``, or (): a tractor is
    beaten by any such run, even one cut from a longer tractor."""
    w, k = unit
    run: list[int] = []  # one tuple face per rung of the current run, top first
    last = -2
    for face in faces:
        if hand[face] < w:
            continue
        s = strength[face]
        if s == last:  # a second tuple on the same rung (off-suit level cards): the first one is taken
            continue
        if s == last - 1:
            run.append(face)
        elif s <= top:  # a new run from here on cannot top the component
            return ()
        else:
            run = [face]
        last = s
        if len(run) == k:
            return tuple(f for face in run for f in (face,) * w)
    return ()


def describe_throw(ctx: TrumpContext, result: ThrowResult) -> str:
    """A one-line account of a throw's outcome, for logs and messages."""
    if result.succeeded:
        return f"throw {format_cards(result.led)} succeeds"
    assert result.forced is not None
    who = ", ".join(f"seat {b.seat} holds {format_cards(b.cards)}" for b in result.evidence)
    return (
        f"throw fails in {CATEGORY_NAMES[ctx.category[result.led[0]]]}: {who}; "
        f"{format_cards(result.led)} is led, {format_cards(result.returned)} go back"
    )
