"""AuditHand on a whole hand played through the wire: every seat auto-played (SuggestPlay), every trick
resolved (ResolveTrick); the record then audits valid, and each kind of broken record is caught."""

from __future__ import annotations

import copy
import random
from collections import Counter
from typing import Any

import grpc
import pytest
from wire import call, message, names, notation, rejected

from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

Stub = rules_service_pb2_grpc.RulesServiceStub
CONTEXT = {"level": "RANK_2", "contract": "CONTRACT_NO_TRUMP"}  # nobody declares: no-trump (R10.8)
DEALER = 0


def _deal(seed: int) -> tuple[list[list[str]], list[str]]:
    deck = [name for name in [*_SUITED, "SJ", "BJ"] for _ in range(2)]
    random.Random(seed).shuffle(deck)
    return [deck[i * 25 : (i + 1) * 25] for i in range(4)], deck[100:]


_SUITED = [
    suit + rank
    for suit in "SHCD"
    for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "Jack" if suit == "S" else "J", "Q", "K", "A")
]


@pytest.fixture(scope="module")
def played(stub: Stub) -> dict[str, Any]:
    """A later hand (dealer 0 by rotation, nobody declares) played to the end with auto-play."""
    dealt, bottom = _deal(seed=2024)
    hands = [Counter(hand) for hand in dealt]  # the dealer buries the bottom he picked up
    leader, score, tricks = DEALER, 0, []
    for index in range(25):
        plays: list[dict[str, Any]] = []
        for offset in range(4):
            seat = (leader + offset) % 4
            request = {
                **CONTEXT,
                "seat": seat,
                "hand": names(hands[seat].elements()),
                "trick": {"leader": leader, "plays": plays},
                "policy": "PLAY_POLICY_RIGHTMOST_SMALLEST",  # single leads: 25 tricks of one card
            }
            cards = notation(call(stub.SuggestPlay, message(pb.SuggestPlayRequest, request)).cards)
            hands[seat] -= Counter(cards)
            plays.append({"seat": seat, "cards": names(cards)})
        last = {"last_trick": True, "bottom": names(bottom)} if index == 24 else {}
        trick = {**CONTEXT, "leader": leader, "dealer": DEALER, "plays": plays, **last}
        result = call(stub.ResolveTrick, message(pb.ResolveTrickRequest, trick))
        leader, score = result.winner, score + result.attacker_points
        tricks.append({"plays": plays})
    assert not any(hands)
    record = {
        "level": "RANK_2",
        "attacker_level": "RANK_2",
        "hands": [{"seat": s, "cards": names(hand)} for s, hand in enumerate(dealt)],
        "bottom": names(bottom),
        "dealer": DEALER,
        "buried": names(bottom),
        "tricks": tricks,
    }
    return {"record": record, "score": score}


def _audit(stub: Stub, record: dict[str, Any]) -> pb.AuditHandResponse:
    response: pb.AuditHandResponse = call(stub.AuditHand, message(pb.AuditHandRequest, record))
    return response


def test_a_legal_hand_audits_valid_and_is_settled(stub: Stub, played: dict[str, Any]) -> None:
    response = _audit(stub, played["record"])
    assert response.valid and response.finding == pb.AUDIT_FINDING_UNSPECIFIED and not response.message
    assert response.contract == types_pb2.CONTRACT_NO_TRUMP and response.overturn_multiplier == 1
    assert response.dealer == DEALER
    assert len(response.tricks) == 25 and response.score == played["score"]
    assert response.tricks[-1].score_after == played["score"]
    assert response.settlement.winner in (types_pb2.SIDE_DEALER_TEAM, types_pb2.SIDE_ATTACKERS)
    assert response.settlement.take_over == (played["score"] >= 80)


def test_coins_use_the_declarations_overturn_multiplier(stub: Stub, played: dict[str, Any]) -> None:
    record = {**played["record"], "tao_dou": {"base": 10, "rake_percent": 0}}
    coins = _audit(stub, record).settlement.coins
    assert coins.total == 10 * 2 * 1 * coins.score_coefficient  # B x DL x O x K, O = 1 from no declaration
    assert sum(coins.deltas) == -coins.rake
    code, violations = rejected(
        stub.AuditHand, message(pb.AuditHandRequest, {**record, "tao_dou": {"overturn_multiplier": 4}})
    )
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert violations == [("tao_dou.overturn_multiplier", "INCONSISTENT")]


def _broken(played: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(played["record"])


def test_an_illegal_follow_is_found_in_its_trick(stub: Stub, played: dict[str, Any]) -> None:
    record = _broken(played)
    plays = record["tricks"][3]["plays"]
    plays[1]["cards"], plays[2]["cards"] = (
        plays[2]["cards"],
        plays[1]["cards"],
    )  # each plays the other's cards
    response = _audit(stub, record)
    assert not response.valid and response.finding == pb.AUDIT_FINDING_ILLEGAL_FOLLOW
    assert (response.trick, response.seat) == (3, plays[1]["seat"])
    assert response.violation == types_pb2.VIOLATION_CARDS_NOT_IN_HAND and response.message
    assert len(response.tricks) == 3 and not response.HasField("settlement")


def test_a_trick_led_out_of_turn(stub: Stub, played: dict[str, Any]) -> None:
    record = _broken(played)
    for play in record["tricks"][5]["plays"]:
        play["seat"] = (play["seat"] + 1) % 4
    response = _audit(stub, record)
    assert response.finding == pb.AUDIT_FINDING_PLAY_OUT_OF_TURN
    assert response.trick == 5 and len(response.tricks) == 5


def test_an_unfinished_hand(stub: Stub, played: dict[str, Any]) -> None:
    record = _broken(played)
    record["tricks"].pop()
    response = _audit(stub, record)
    assert response.finding == pb.AUDIT_FINDING_HAND_NOT_FINISHED and len(response.tricks) == 24


def test_an_illegal_bury(stub: Stub, played: dict[str, Any]) -> None:
    record = _broken(played)
    record["buried"] = record["buried"][:7]
    response = _audit(stub, record)
    assert response.finding == pb.AUDIT_FINDING_ILLEGAL_BURY
    assert response.violation == types_pb2.VIOLATION_WRONG_CARD_COUNT and response.seat == DEALER
    assert not response.tricks


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("hands[2].cards", "BAD_SIZE"),
        ("tricks[4].plays", "BAD_SIZE"),
        ("tricks[6].plays[2].seat", "OUT_OF_ORDER"),
        ("bottom", "BAD_SIZE"),
        ("dealer", "INCONSISTENT"),
    ],
)
def test_malformed_records_are_invalid_argument(
    stub: Stub, played: dict[str, Any], path: str, reason: str
) -> None:
    record = _broken(played)
    match path:
        case "hands[2].cards":
            record["hands"][2]["cards"].pop()
        case "tricks[4].plays":
            record["tricks"][4]["plays"].pop()
        case "tricks[6].plays[2].seat":
            record["tricks"][6]["plays"][2]["seat"] = (record["tricks"][6]["plays"][2]["seat"] + 2) % 4
        case "bottom":
            record["bottom"] = record["bottom"][:5]
        case "dealer":
            record["first_hand"] = True
    code, violations = rejected(stub.AuditHand, message(pb.AuditHandRequest, record))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert violations == [(path, reason)]


def test_a_third_copy_across_hands(stub: Stub, played: dict[str, Any]) -> None:
    """A card that seats 0 and 2 hold once each, written into seat 1 too: the third copy is in seat 2."""
    record = _broken(played)
    held = [record["hands"][s]["cards"] for s in range(4)]
    card = next(c for c in held[0] if c in held[2] and c not in held[1])
    held[1][0] = card
    code, violations = rejected(stub.AuditHand, message(pb.AuditHandRequest, record))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert violations == [(f"hands[2].cards[{held[2].index(card)}]", "TOO_MANY_COPIES")]
