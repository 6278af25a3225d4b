"""Auditing whole hand records (deal, bidding, bury, tricks, settlement), and catching tampered ones."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules_core.audit import Finding, HandRecord, TrickRecord, audit_hand
from rules_core.bidding import Declaration
from rules_core.cards import NUM_FACES, TOTAL_POINTS, hand_of, points_of
from rules_core.rules import DEFAULT_RULES, RULEBOOK_000, RULEBOOK_003, Rules
from rules_core.selfplay import play_hand
from rules_core.settlement import settle_hand
from rules_core.trick import is_attacker
from rules_core.verdicts import Violation


@given(
    st.integers(0, 10_000), st.sampled_from([DEFAULT_RULES, RULEBOOK_000, RULEBOOK_003]), st.integers(2, 14)
)
@settings(max_examples=40)
def test_self_played_hands_pass_their_audit(seed: int, rules: Rules, level: int) -> None:
    record = play_hand(seed=seed, rules=rules, level=level)
    audit = audit_hand(rules, record)
    assert audit.valid, audit.error
    assert audit.settlement is not None and audit.dealer is not None
    assert len(audit.tricks) == len(record.tricks)
    # the score is what the attackers won, recomputed here from the resolved tricks (R8.2, R8.3)
    won = sum(t.points for t in audit.tricks if is_attacker(t.winner, audit.dealer))
    dig = audit.tricks[-1].dig
    assert dig is not None and dig.bottom_points == points_of(record.buried)
    assert audit.score == won + dig.added
    assert sum(t.points for t in audit.tricks) + dig.bottom_points == TOTAL_POINTS
    expected = settle_hand(
        rules=rules, dealer_seat=audit.dealer, dealer_level=level, attacker_level=2, score=audit.score
    )
    assert audit.settlement == expected


@pytest.fixture(scope="module")
def record() -> HandRecord:
    """A hand with at least one failed throw in it (seed found by search, fixed for reproducibility)."""
    for seed in range(100):
        hand = play_hand(seed=seed)
        if any(t.attempted for t in hand.tricks):
            return hand
    raise AssertionError("no seed in 0..99 gives a failed throw")


def _with_trick(record: HandRecord, index: int, trick: TrickRecord) -> HandRecord:
    tricks = list(record.tricks)
    tricks[index] = trick
    return dataclasses.replace(record, tricks=tuple(tricks))


def test_a_swapped_follow_is_caught(record: HandRecord) -> None:
    """Give a follower a card from another seat's play: CARDS_NOT_IN_HAND at that trick (R5)."""
    trick = record.tricks[0]
    plays = list(trick.plays)
    plays[1], plays[2] = plays[2], plays[1]
    audit = audit_hand(DEFAULT_RULES, _with_trick(record, 0, dataclasses.replace(trick, plays=tuple(plays))))
    assert audit.error is not None
    assert (audit.error.finding, audit.error.trick, audit.error.violation) == (
        Finding.ILLEGAL_FOLLOW,
        0,
        Violation.CARDS_NOT_IN_HAND,
    )
    assert audit.settlement is None


def test_a_failed_throw_recorded_as_a_success_is_caught(record: HandRecord) -> None:
    """R4.7: a throw some hand beats leads only its forced component, never the whole attempt."""
    index = next(i for i, t in enumerate(record.tricks) if t.attempted)
    trick = record.tricks[index]
    claimed = TrickRecord((trick.attempted, *trick.plays[1:]))
    audit = audit_hand(DEFAULT_RULES, _with_trick(record, index, claimed))
    assert audit.error is not None and audit.error.finding is Finding.THROW_MISRECORDED
    assert audit.error.trick == index and len(audit.tricks) == index


def test_a_missing_trick_leaves_the_hand_unfinished(record: HandRecord) -> None:
    audit = audit_hand(DEFAULT_RULES, dataclasses.replace(record, tricks=record.tricks[:-1]))
    assert audit.error is not None and audit.error.finding is Finding.HAND_NOT_FINISHED


def test_a_trick_after_the_last_is_caught(record: HandRecord) -> None:
    audit = audit_hand(DEFAULT_RULES, dataclasses.replace(record, tricks=(*record.tricks, record.tricks[-1])))
    assert audit.error is not None and audit.error.finding is Finding.HAND_NOT_FINISHED
    assert len(audit.tricks) == len(record.tricks)


def test_burying_seven_cards_is_caught(record: HandRecord) -> None:
    audit = audit_hand(DEFAULT_RULES, dataclasses.replace(record, buried=record.buried[:7]))
    assert audit.error is not None
    assert (audit.error.finding, audit.error.violation) == (Finding.ILLEGAL_BURY, Violation.WRONG_CARD_COUNT)


def test_a_deal_that_is_not_two_decks_is_caught(record: HandRecord) -> None:
    bottom = (record.bottom[0],) * 2 + record.bottom[2:]  # a third copy of one face, one face missing
    audit = audit_hand(DEFAULT_RULES, dataclasses.replace(record, bottom=bottom))
    assert audit.error is not None and audit.error.finding is Finding.DEAL_NOT_A_DECK


def test_a_later_hand_needs_a_dealer(record: HandRecord) -> None:
    audit = audit_hand(DEFAULT_RULES, dataclasses.replace(record, first_hand=False, dealer=None))
    assert audit.error is not None and audit.error.finding is Finding.NO_DEALER


def test_declarations_are_checked_against_the_deal(record: HandRecord) -> None:
    """R10.1: a seat cannot show a level card it was never dealt; the act is rejected, not the record."""
    seat = 0
    missing = next(f for f in range(NUM_FACES) if f % 13 == 0 and record.deal[seat][f] == 0 and f < 52)
    fake = dataclasses.replace(record, declarations=(Declaration(seat, (missing,)),))
    audit = audit_hand(DEFAULT_RULES, fake)
    assert audit.bidding.rejected == (0,)
    assert not audit.bidding.declared


def test_malformed_values_raise() -> None:
    with pytest.raises(ValueError, match="level"):
        audit_hand(DEFAULT_RULES, dataclasses.replace(play_hand(seed=1), level=15))
    assert hand_of([1, 1])[1] == 2
