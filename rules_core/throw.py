"""Leads and throws (甩牌): a lead is checked against the leader's hand and, for a throw, the others (R4).

A lead of one component (single, pair or tractor) is always legal (R4.2). A throw of several components
of one category is legal too, but it *succeeds* only when no other hand beats any checked component
(R4.4); otherwise its forced component is led and the rest returns to the hand (R4.7). A failed throw is
a legal outcome with evidence, never an error.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rules_core.cards import Hand, contains, format_cards
from rules_core.rules import Rules, ThrowCheck
from rules_core.shapes import Component, Decomposition, decompose, runs
from rules_core.trump import CATEGORY_NAMES, TrumpContext
from rules_core.verdicts import Beat, Illegal, Legal, ThrowResult, Violation


@dataclass(frozen=True, slots=True)
class Holding:
    """What one hand holds in one category, as far as beating a component goes (R4.4)."""

    singles: tuple[int, ...]
    """Faces held, strongest first."""
    pairs: tuple[int, ...]
    """Faces held twice, strongest first (equal ones in suit order)."""

    @classmethod
    def of(cls, ctx: TrumpContext, hand: Hand, category: int) -> Holding:
        """Read a hand's cards of one category."""
        held = [face for face in ctx.faces[category] if hand[face]]
        return cls(tuple(held), tuple(face for face in held if hand[face] == 2))

    def beating(self, ctx: TrumpContext, component: Component) -> tuple[int, ...]:
        """The strongest cards of this holding that beat ``component`` (R4.4), or () if none do.

        Equal strength never beats; a k-tractor is beaten by any k-run with a stronger top, even one cut
        from a longer tractor.
        """
        strength = ctx.strength
        if component.pairs == 0:
            if self.singles and strength[self.singles[0]] > component.top:
                return (self.singles[0],)
            return ()
        if component.pairs == 1:
            if self.pairs and strength[self.pairs[0]] > component.top:
                return (self.pairs[0],) * 2
            return ()
        k = component.pairs
        for top, length in runs(strength[face] for face in self.pairs):
            if length >= k and top > component.top:
                faces = [next(f for f in self.pairs if strength[f] == s) for s in range(top, top - k, -1)]
                return tuple(f for face in faces for f in (face, face))
        return ()


def check_lead(
    ctx: TrumpContext, rules: Rules, *, hand: Hand, lead: Sequence[int], others: Mapping[int, Hand]
) -> Legal | Illegal:
    """Validate a lead from ``hand``; a throw is also judged against ``others`` (seat → hand), R4."""
    return lead_verdict(ctx, rules, hand=hand, lead=lead, play=decompose(ctx, lead), others=others)


def lead_verdict(
    ctx: TrumpContext,
    rules: Rules,
    *,
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
        return Legal(play)
    return Legal(play, judge_throw(ctx, rules, play, others))


def judge_throw(
    ctx: TrumpContext, rules: Rules, play: Decomposition, others: Mapping[int, Hand]
) -> ThrowResult:
    """Whether a throw succeeds against the other hands, and if not, what is forced (R4.4–R4.7)."""
    assert play.category is not None
    holdings = {seat: Holding.of(ctx, hand, play.category) for seat, hand in others.items()}
    candidates = _checked_components(rules, play)
    for group in candidates:
        beaten = [(m, _beats(ctx, holdings, m)) for m in group]
        beaten = [(m, ev) for m, ev in beaten if ev]
        if beaten:
            forced, evidence = beaten[-1]  # the weakest beaten component of the group
            attempted = [face for c in play.components for face in c.cards]
            for face in forced.cards:
                attempted.remove(face)
            return ThrowResult(False, forced.cards, forced, tuple(attempted), evidence)
    return ThrowResult(True, tuple(face for c in play.components for face in c.cards), None, (), ())


def _checked_components(rules: Rules, play: Decomposition) -> list[list[Component]]:
    """Components to test, in groups: the first group with a beaten member decides (R4.5, R4.6).

    THROW-000 tests only the weakest component of each grade, top grade first. THROW-003 tests pairs,
    then singles, and never tractors. Within a group components are strongest first, so the last beaten
    one is the weakest; beating is monotone, so that is also the weakest of its grade.
    """
    grades = sorted({c.pairs for c in play.components}, reverse=True)
    if rules.throw is ThrowCheck.TOP_DOWN:
        return [[[c for c in play.components if c.pairs == g][-1]] for g in grades]
    return [[c for c in play.components if c.pairs == g] for g in (1, 0) if g in grades]


def _beats(ctx: TrumpContext, holdings: Mapping[int, Holding], component: Component) -> tuple[Beat, ...]:
    """Every seat that beats ``component``, with the cards that do it (R4.4: hands are never combined)."""
    found = []
    for seat, holding in sorted(holdings.items()):
        cards = holding.beating(ctx, component)
        if cards:
            found.append(Beat(seat, component, cards))
    return tuple(found)


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
