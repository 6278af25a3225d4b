"""AuditHand on other tables over the wire (R14, R15): whole random hands played by the engine's advice,
audited through a live loopback server; the answer is the engine's (trick winners, sides after each
trick, per-seat settlement); a tampered record is flagged; malformed fields are INVALID_ARGUMENT naming
them."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import grpc
import pytest
from test_table_audit import TABLES, PlayedHand
from wire import call, rejected

from rules_core.cards import Suit
from rules_core.rules import DEFAULT_RULES, Partners, Rules
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

Stub = rules_service_pb2_grpc.RulesServiceStub
INVALID = grpc.StatusCode.INVALID_ARGUMENT
_CONTRACTS = {
    None: types_pb2.CONTRACT_NO_TRUMP,
    Suit.S: types_pb2.CONTRACT_SPADES,
    Suit.H: types_pb2.CONTRACT_HEARTS,
    Suit.C: types_pb2.CONTRACT_CLUBS,
    Suit.D: types_pb2.CONTRACT_DIAMONDS,
}
_PARTNERS = {Partners.FIXED: types_pb2.PARTNERS_FIXED, Partners.FRIENDS: types_pb2.PARTNERS_FRIENDS}


def _rules(decks: int, seats: int, partners: Partners) -> Rules:
    return replace(DEFAULT_RULES, decks=decks, seats=seats, partners=partners)


def _cards(faces: Any) -> list[types_pb2.Card.ValueType]:
    """Faces as Card enum numbers (face + 1)."""
    return [types_pb2.Card.ValueType(face + 1) for face in faces]


def _rank(value: int) -> types_pb2.Rank.ValueType:
    """A level as its Rank enum number (RANK_2 is 2)."""
    return types_pb2.Rank.ValueType(value)


def request_of(rules: Rules, hand: PlayedHand, tricks: Any = None) -> pb.AuditHandRequest:
    """The hand's record as a client sends it: ``ruleset.decks``/``seats``/``partners``, ``friend_calls``,
    ``seat_levels`` (R14, R15)."""
    request = pb.AuditHandRequest(
        level=_rank(hand.level),
        attacker_level=_rank(hand.level),
        bottom=_cards(hand.bottom),
        buried=_cards(hand.buried),
        dealer=hand.dealer,
        seat_levels=[_rank(level) for level in hand.levels],
    )
    request.ruleset.preset = "default"
    request.ruleset.decks = rules.decks
    request.ruleset.seats = rules.seats
    request.ruleset.partners = _PARTNERS[rules.partners]
    for seat, cards in enumerate(hand.dealt):
        request.hands.add(seat=seat, cards=_cards(cards))
    for seat, shown, _ in hand.declarations:
        request.declarations.add(seat=seat, cards=_cards(shown))
    for call_ in hand.calls:
        request.friend_calls.add(card=_cards([call_.face])[0], copy=call_.copy)
    for recorded, _ in hand.tricks if tricks is None else tricks:
        trick = request.tricks.add()
        for seat, played in recorded:
            trick.plays.add(seat=seat, cards=_cards(played))
    return request


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_whole_hands_answer_as_the_engine(stub: Stub, decks: int, seats: int, partners: Partners) -> None:
    """R14.8 winners, R15.8 sides trick by trick, R15.10-R15.13 each seat's level change."""
    rules = _rules(decks, seats, partners)
    hand = PlayedHand(rules, decks * 100 + seats * 10)
    response = call(stub.AuditHand, request_of(rules, hand))
    assert response.valid and not response.HasField("trick")
    assert response.contract == _CONTRACTS[hand.ctx.trump]
    assert [t.result.winner for t in response.tricks] == hand.winners
    audit = hand.audit(rules)
    assert [list(t.dealer_side) for t in response.tricks] == [sorted(s.dealer_side) for s in audit.sides]
    expected = audit.settlement
    assert expected is not None
    again = hand.settled(rules, expected.score - expected.throw_penalty - audit.sides[-1].attackers_points)
    assert again == expected
    settlement = response.settlement
    assert settlement.table_score == expected.score
    assert list(settlement.dealer_side) == sorted(expected.dealer_side) == list(response.dealer_side)
    assert [s.level_after for s in settlement.seats] == [
        0 if r.level_after is None else r.level_after for r in expected.seats
    ]
    assert settlement.next_dealer == expected.next_dealer
    assert len(response.calls) == len(hand.calls) == len(settlement.calls)


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_tampered_follow_is_flagged(stub: Stub, decks: int, seats: int, partners: Partners) -> None:
    """R5, R14.6: a follow of a card the seat does not hold is ILLEGAL_FOLLOW at that trick and seat."""
    rules = _rules(decks, seats, partners)
    hand = PlayedHand(rules, decks + seats)
    index = len(hand.tricks) // 2
    plays, attempted = hand.tricks[index]
    seat = plays[1][0]
    held = {f for t in hand.tricks[index:] for s, c in t[0] if s == seat for f in c}
    foreign = next(f for f in range(54) if f not in held)
    tampered = list(hand.tricks)
    tampered[index] = ([plays[0], (seat, (foreign, *plays[1][1][1:])), *plays[2:]], attempted)
    response = call(stub.AuditHand, request_of(rules, hand, tampered))
    assert not response.valid
    assert (response.finding, response.trick, response.seat) == (pb.AUDIT_FINDING_ILLEGAL_FOLLOW, index, seat)
    assert len(response.tricks) == index
    assert not response.HasField("settlement")


def test_bad_fields_are_named(stub: Stub) -> None:
    """Malformed records are INVALID_ARGUMENT naming the field (R14.1, R15.2, R15.11)."""
    rules = _rules(3, 6, Partners.FRIENDS)
    hand = PlayedHand(rules, 7)
    short = request_of(rules, hand)
    del short.seat_levels[-1]
    assert rejected(stub.AuditHand, short) == (INVALID, [("seat_levels", "BAD_SIZE")])
    uncalled = request_of(rules, hand)
    del uncalled.friend_calls[:]
    assert rejected(stub.AuditHand, uncalled)[1][0][0] == "friend_calls"
    extra = request_of(rules, hand)
    extra.hands[0].cards.extend(_cards([0] * 4))
    assert rejected(stub.AuditHand, extra)[1][0][0].startswith("hands[0].cards")
    staked = request_of(rules, hand)
    staked.tao_dou.base = 1
    assert rejected(stub.AuditHand, staked)[1][0][0] == "ruleset.decks"
