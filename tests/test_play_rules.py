"""Unit tests of the play engine's typed answers: reasons, messages, judgements and bounds (R4–R8)."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest
from worked_cases import all_cases

from rules_core.cards import Suit, format_cards, hand_of, parse_cards
from rules_core.follow import check_follow
from rules_core.legal_plays import MAX_LIMIT, legal_plays
from rules_core.rules import DEFAULT_RULES, DigShape, RuffStructure
from rules_core.shapes import Shape, decompose
from rules_core.throw import check_lead, describe_throw
from rules_core.trick import Judgement, resolve_trick
from rules_core.trump import trump_context
from rules_core.verdicts import Illegal, Legal, Violation

CTX = trump_context(5, Suit.H)  # spades plain, hearts trump
TESTED_AREAS = {
    "order", "lead", "throw", "follow", "trick", "ruff", "dig",
    "settle", "taodou", "penalty", "autolead", "declare", "bury", "friends",
}  # fmt: skip


def c(text: str) -> tuple[int, ...]:
    return parse_cards(text.split())


def h(text: str) -> tuple[int, ...]:
    return hand_of(c(text))


def test_every_worked_case_area_has_a_test() -> None:
    """A new area in worked_cases.jsonl must not go untested silently."""
    assert {case["area"] for case in all_cases()} == TESTED_AREAS
    assert len(all_cases()) == 418


@pytest.mark.parametrize(
    ("hand", "lead", "reason"),
    [
        ("SA SK", "", Violation.EMPTY_PLAY),
        ("SA SK", "SQ", Violation.CARDS_NOT_IN_HAND),
        ("SA SK", "SA SA", Violation.CARDS_NOT_IN_HAND),
        ("SA HA", "SA HA", Violation.MIXED_CATEGORY_LEAD),  # WC-061, R4.3
    ],
)
def test_illegal_leads_have_typed_reasons(hand: str, lead: str, reason: Violation) -> None:
    verdict = check_lead(CTX, DEFAULT_RULES, hand=h(hand), lead=c(lead), others={})
    assert isinstance(verdict, Illegal) and verdict.reason is reason and verdict.message


def test_single_component_leads_are_never_checked() -> None:
    """R4.2: a tractor lead is legal even when another hand holds a bigger tractor."""
    verdict = check_lead(
        CTX, DEFAULT_RULES, hand=h("S8 S8 S9 S9"), lead=c("S8 S8 S9 S9"), others={1: h("SQ SQ SK SK")}
    )
    assert isinstance(verdict, Legal) and verdict.throw is None and verdict.play.shape is Shape.TRACTOR


def test_failed_throw_reports_evidence_and_returned_cards() -> None:
    """R4.7: the forced pair is led, the rest goes back, and the evidence names who beats what."""
    verdict = check_lead(
        CTX,
        DEFAULT_RULES,
        hand=h("S9 S9 S8 S4 S4"),
        lead=c("S9 S9 S8 S4 S4"),
        others={2: h("S6 S6"), 3: h("S7")},
    )
    assert isinstance(verdict, Legal) and verdict.throw is not None
    outcome = verdict.throw
    assert not outcome.succeeded and outcome.forced is not None
    assert Counter(outcome.led) == Counter(c("S4 S4"))
    assert Counter(outcome.returned) == Counter(c("S9 S9 S8"))
    assert [(b.seat, format_cards(b.cards)) for b in outcome.evidence] == [(2, "S6 S6")]
    assert "seat 2 holds S6 S6" in describe_throw(CTX, outcome)


@pytest.mark.parametrize(
    ("hand", "lead", "play", "reason", "required"),
    [
        ("S6 S7 HA", "S3", "S6 S7", Violation.WRONG_CARD_COUNT, ""),
        ("S6 S7 HA", "S3", "SA", Violation.CARDS_NOT_IN_HAND, ""),
        ("S6 S7 HA", "S3", "HA", Violation.MUST_FOLLOW_SUIT, "S6"),
        ("S3 S3 S9 SK", "S6 S6", "S9 SK", Violation.MUST_PLAY_PAIR, "S3 S3"),  # WC-063
        ("SQ SQ SK SK S2 D3", "S8 S8 S9 S9", "SQ SQ SK S2", Violation.MUST_PLAY_TRACTOR, "SK SK SQ SQ"),
        ("S3 S3 S6 S6 SJack D4", "S8 S8 S9 S9", "S3 S3 S6 SJack", Violation.MUST_PLAY_PAIR, "S6 S6 + S3 S3"),
    ],
)
def test_illegal_follows_name_the_obligation(
    hand: str, lead: str, play: str, reason: Violation, required: str
) -> None:
    verdict = check_follow(CTX, hand=h(hand), lead=c(lead), play=c(play))
    assert isinstance(verdict, Illegal)
    assert verdict.reason is reason
    if required:
        owed = " + ".join(part.describe() for part in verdict.required)
        assert owed == required or Counter(c(owed.replace("+", ""))) == Counter(c(required.replace("+", "")))


def test_follow_rejects_a_malformed_lead() -> None:
    with pytest.raises(ValueError, match="one category"):
        check_follow(CTX, hand=h("SA"), lead=c("SA HA"), play=c("SA"))


def test_trick_judgements_cover_ruff_over_ruff_under_ruff_and_discard() -> None:
    """R6.4, R6.5, R7.3: a ruff takes the trick, an equal ruff does not, a stronger one over-ruffs."""
    plays = [c("SA"), c("H3"), c("H3"), c("H4")]
    result = resolve_trick(CTX, DEFAULT_RULES, leader=2, plays=plays, dealer=0)
    assert result.judgements == (Judgement.LEAD, Judgement.RUFF, Judgement.UNDER_RUFF, Judgement.OVER_RUFF)
    assert (result.winner, result.won_by) == (1, Judgement.OVER_RUFF)  # seat 2 + 3 = seat 1
    discard = resolve_trick(
        CTX, DEFAULT_RULES, leader=0, plays=[c("S3 S3"), c("HA HK"), c("D2 D2"), c("S4 S2")], dealer=0
    )
    assert discard.judgements == (Judgement.LEAD, Judgement.DISCARD, Judgement.DISCARD, Judgement.FOLLOW)
    assert discard.winner == 0 and discard.attacker_points == 0  # the dealer's team keeps it


def test_attackers_collect_trick_points() -> None:
    ctx = trump_context(2, Suit.H)  # S5 is a plain spade here
    result = resolve_trick(
        ctx, DEFAULT_RULES, leader=0, plays=[c("SK"), c("SA"), c("S10"), c("S5")], dealer=0
    )
    assert (result.winner, result.points, result.attacker_points) == (1, 25, 25)  # R8.2, WC-100


def test_dig_shape_variant_uses_the_winning_play() -> None:
    """WC-109: a pair ruff of a single lead digs ×2 by the lead, ×4 by the winner's shape."""
    plays = [c("S5 S4 S3"), c("H10 H10 HK"), c("D2 D3 D4"), c("C2 C3 C6")]
    bottom = c("S10 S5 D2 D3 D4 D6 D7 D8")
    ctx = trump_context(11, Suit.H)
    lead_rule = resolve_trick(ctx, DEFAULT_RULES, leader=0, plays=plays, dealer=0, last=True, bottom=bottom)
    winner_rule = resolve_trick(
        ctx,
        dataclasses.replace(DEFAULT_RULES, dig_shape=DigShape.WINNER),
        leader=0,
        plays=plays,
        dealer=0,
        last=True,
        bottom=bottom,
    )
    assert lead_rule.dig is not None and winner_rule.dig is not None
    assert (lead_rule.dig.multiplier, winner_rule.dig.multiplier) == (2, 4)
    assert lead_rule.attacker_points == 35 + 30


@pytest.mark.parametrize(
    "plays",
    [
        [c("SA")] * 3,
        [c("SA"), c("SK SQ"), c("S2"), c("S3")],
        [c("SA HA"), c("S2 S3"), c("S4 S6"), c("S7 S8")],
        [(), (), (), ()],
    ],
)
def test_malformed_tricks_raise(plays: list[tuple[int, ...]]) -> None:
    with pytest.raises(ValueError):
        resolve_trick(CTX, DEFAULT_RULES, leader=0, plays=plays, dealer=0)


def test_ruff_count_and_cover_differ_as_in_wc_086() -> None:
    plays = [c("S4 S4 S5 S5 S6 S6"), c("H7 H7 H8 H8 HQ HQ"), c("S2 S3 S7 S8 S9 S10"), c("C2 C3 C4 C6 C7 C8")]
    ctx = trump_context(11, Suit.H)
    cover = resolve_trick(ctx, DEFAULT_RULES, leader=0, plays=plays, dealer=0)
    count = resolve_trick(
        ctx, dataclasses.replace(DEFAULT_RULES, ruff=RuffStructure.COUNT), leader=0, plays=plays, dealer=0
    )
    assert (cover.winner, count.winner) == (0, 1)


def test_legal_play_listing_is_bounded_and_honest() -> None:
    hand = h("SA SA SK SK SQ S9 S9 S7 S3 H2 H3 D4 D5 C6 C7")
    full = legal_plays(CTX, hand=hand, lead=c("S8"), limit=MAX_LIMIT)
    assert not full.truncated and len(full.plays) == 6  # the distinct spades, R5.3 rule 1
    short = legal_plays(CTX, hand=hand, lead=c("S8"), limit=3)
    assert short.truncated and short.plays == full.plays[:3]
    assert all(isinstance(check_follow(CTX, hand=hand, lead=c("S8 S8"), play=p), Legal)
               for p in legal_plays(CTX, hand=hand, lead=c("S8 S8")).plays)  # fmt: skip
    leads = legal_plays(CTX, hand=hand).plays
    assert all(decompose(CTX, lead).category is not None for lead in leads)
    for bad in (0, MAX_LIMIT + 1):
        with pytest.raises(ValueError, match="limit"):
            legal_plays(CTX, hand=hand, limit=bad)
