"""Worked cases of leads, throws, following, tricks, ruffs and digging (R3–R8), one test per case line."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from worked_cases import Case, attackers_of, cards, cases, context_for, multiset, rules_for, seat

from rules_core.cards import hand_of
from rules_core.component import width
from rules_core.follow import check_follow
from rules_core.ruffing import NO_KEY, ruff_key
from rules_core.rules import FollowRule
from rules_core.shapes import decompose
from rules_core.throw import check_lead
from rules_core.trick import TrickResult, resolve_trick
from rules_core.verdicts import Illegal, Legal


def _component_multiset(components: list[tuple[str, int, Counter[int]]]) -> list[tuple[str, int, list[int]]]:
    return sorted((kind, pairs, sorted(c.elements())) for kind, pairs, c in components)


@pytest.mark.parametrize("case", cases("lead", tables=True))
def test_lead_shape(case: Case) -> None:
    """R3: the shape of a proposed lead and its canonical decomposition (R3.6, R14.4)."""
    ctx = context_for(case)
    play = decompose(ctx, cards(case["input"]["cards"]))  # R3.6, R14.4: one decomposition
    assert play.shape == case["expect"]["shape"]
    got = [(c.kind, c.pairs, Counter(c.cards)) for c in play.components]
    want = [(c["type"], c["pairs"], multiset(c["cards"])) for c in case["expect"]["components"]]
    assert _component_multiset(got) == _component_multiset(want)
    widths = sorted(c["width"] for c in case["expect"]["components"] if "width" in c)
    assert widths in ([], sorted(width(c) for c in play.components))


@pytest.mark.parametrize("case", cases("throw", tables=True))
def test_throw(case: Case) -> None:
    """R4: a throw against the other hands; the forced component when it fails (R14.5 on N seats)."""
    ctx, rules = context_for(case), rules_for(case)
    attempt = cards(case["input"]["throw"])
    listed = {seat(label): cards(hand) for label, hand in case["input"]["others"].items()}
    others = {s: tuple(Counter(faces)[f] for f in range(54)) for s, faces in listed.items()}
    verdict = check_lead(ctx, rules, hand=hand_of(attempt, rules.decks), lead=attempt, others=others)
    expect = case["expect"]
    if isinstance(verdict, Illegal):
        assert (expect["ok"], expect["forced"]) == (False, None)
        return
    outcome = verdict.throw
    ok = outcome is None or outcome.succeeded
    assert ok == expect["ok"]
    if ok:
        assert expect["forced"] is None
        return
    assert outcome is not None and outcome.forced is not None
    assert Counter(outcome.forced.cards) == multiset(expect["forced"])
    assert Counter(outcome.returned) + Counter(outcome.led) == Counter(attempt)  # R4.7
    for beat in outcome.evidence:  # the evidence really is in that hand and beats the forced component
        assert Counter(beat.cards) <= Counter({f: n for f, n in enumerate(others[beat.seat]) if n})
        assert beat.component == outcome.forced


@pytest.mark.parametrize("case", cases("follow", tables=True))
def test_follow(case: Case) -> None:
    """R5: whether the follower may play this (R5.3 off under FOLLOW-SUIT-ONLY, R16.3; R14.6's ladder)."""
    ctx, rules = context_for(case), rules_for(case)
    verdict = check_follow(
        ctx,
        structure=rules.follow is FollowRule.STRUCTURE,
        hand=hand_of(cards(case["input"]["hand"]), rules.decks),
        lead=cards(case["input"]["lead"]),
        play=cards(case["input"]["play"]),
        decks=rules.decks,
    )
    assert isinstance(verdict, Legal) == case["expect"]["legal"], verdict


def _resolve(case: Case, plays: list[list[str]], dealer: int = 0, **kwargs: Any) -> TrickResult:
    ctx, rules, faces = context_for(case), rules_for(case), [cards(p) for p in plays]
    sides = kwargs.pop("attackers", None) or attackers_of(case)  # R14.8, R15.8: N plays, the line's sides
    return resolve_trick(ctx, rules, leader=0, plays=faces, dealer=dealer, attackers=sides, **kwargs)


@pytest.mark.parametrize("case", cases("trick", tables=True))
def test_trick(case: Case) -> None:
    """R7: the winner and the trick's points."""
    result = _resolve(case, case["input"]["plays"])
    assert (result.winner, result.points) == (seat(case["expect"]["winner"]), case["expect"]["points"])


@pytest.mark.parametrize("case", cases("ruff", tables=True))
def test_ruff(case: Case) -> None:
    """R6: which plays are valid ruffs under the line's RUFF option, and who wins (R14.7 on N seats)."""
    ctx, rules = context_for(case), rules_for(case)
    plays = [cards(p) for p in case["input"]["plays"]]
    result = _resolve(case, case["input"]["plays"])
    assert (result.winner, result.points) == (seat(case["expect"]["winner"]), case["expect"]["points"])
    lead = decompose(ctx, plays[0])
    valid = {f"P{i + 1}": ruff_key(ctx, rules, lead, plays[i]) != NO_KEY for i in range(1, len(plays))}
    assert valid == case["expect"]["valid_ruff"]


@pytest.mark.parametrize("case", cases("dig", tables=True))
def test_dig(case: Case) -> None:
    """R8.3–R8.5: the last trick's winner, its points, the multiplier and what the bottom adds (R14.9)."""
    attackers = frozenset(seat(label) for label in case["input"]["attackers"])
    dealer = next(s for s in range(len(case["input"]["last_trick"])) if s not in attackers)
    result = _resolve(
        case,
        case["input"]["last_trick"],
        dealer=dealer,
        last=True,
        bottom=cards(case["input"]["bottom"]),
        attackers=attackers,
    )
    assert result.dig is not None
    got = {
        "winner": f"P{result.winner + 1}",
        "trick_points": result.points,
        "multiplier": result.dig.multiplier,
        "bottom_added": result.dig.added,
    }
    assert got == case["expect"]
    scored = result.points + result.dig.added if result.winner in attackers else 0
    assert result.attacker_points == scored
