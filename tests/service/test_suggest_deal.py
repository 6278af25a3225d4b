"""SuggestDeclaration and SuggestBury over the wire: every suggestion is what ValidateDeclaration and
ValidateBury accept, the auto-bury is CalculatePenalty's, and malformed requests name their field."""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest
from wire import RPC_TIMEOUT, Live, message, names, rejected

from rules_core.cards import PLAYERS, add, faces_of
from rules_core.selfplay import deal
from services.server import RULES_SERVICE
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc
from tractor.rules.v1 import types_pb2 as t

Stub = rules_service_pb2_grpc.RulesServiceStub


def cards(faces: Any) -> list[t.Card.ValueType]:
    return [t.Card.ValueType(face + 1) for face in faces]


@pytest.mark.parametrize("preset", ["default", "rulebook-000"])
def test_a_whole_deal_of_suggested_declarations_validates(stub: Stub, preset: str) -> None:
    """Cards dealt one by one; each seat asks after each card and shows what it is told. ValidateDeclaration
    accepts every suggested act (R10) with the act SuggestDeclaration named."""
    rng = random.Random(11)
    deck = [face for face in range(54) for _ in range(2)]
    rng.shuffle(deck)
    received: list[list[int]] = [[] for _ in range(PLAYERS)]
    acts: list[pb.Declaration] = []
    shown = 0
    for i in range(100):
        seat = i % PLAYERS
        received[seat].append(deck[i])
        request = pb.SuggestDeclarationRequest(
            ruleset=t.Ruleset(preset=preset),
            level=t.RANK_2,
            seat=seat,
            received=cards(received[seat]),
            declarations=[  # the table's record, stripped of other seats' received cards (private)
                act if act.seat == seat else pb.Declaration(seat=act.seat, cards=act.cards) for act in acts
            ],
        )
        answer = stub.SuggestDeclaration(request, timeout=RPC_TIMEOUT)
        assert answer.policy == pb.DECLARATION_POLICY_STRONG and answer.reason.startswith("strong")
        if not answer.cards:
            assert answer.act == pb.DECLARATION_ACT_UNSPECIFIED
            continue
        acts.append(pb.Declaration(seat=seat, cards=answer.cards, hand=cards(received[seat])))
        check = pb.ValidateDeclarationRequest(
            ruleset=request.ruleset, level=t.RANK_2, declarations=acts, first_hand=True
        )
        verdict = stub.ValidateDeclaration(check, timeout=RPC_TIMEOUT)
        assert verdict.accepted and verdict.verdicts[-1].act == answer.act
        shown += 1
    assert shown >= 1


def test_the_none_policy_shows_nothing(stub: Stub) -> None:
    request = message(
        pb.SuggestDeclarationRequest,
        {"level": "RANK_2", "seat": 0, "received": names("H2 H2 BJ BJ"), "policy": "DECLARATION_POLICY_NONE"},
    )
    answer = stub.SuggestDeclaration(request, timeout=RPC_TIMEOUT)
    assert not answer.cards and answer.policy == pb.DECLARATION_POLICY_NONE


def dealer_cards(seed: int) -> tuple[list[t.Card.ValueType], list[t.Card.ValueType]]:
    hands, bottom = deal(random.Random(seed))
    return cards(faces_of(add(hands[0], bottom))), cards(bottom)


@pytest.mark.parametrize("seed", range(5))
def test_suggested_burys_are_legal_and_auto_bury_is_calculate_penalty_s(stub: Stub, seed: int) -> None:
    """R11: ValidateBury accepts the strong bury; R13.6: the auto-bury is CalculatePenalty's auto_bury."""
    hand, bottom = dealer_cards(seed)
    request = pb.SuggestBuryRequest(level=t.RANK_7, contract=t.CONTRACT_CLUBS, hand=hand)
    strong = stub.SuggestBury(request, timeout=RPC_TIMEOUT)
    assert strong.policy == pb.BURY_POLICY_STRONG and len(strong.cards) == 8
    verdict = stub.ValidateBury(pb.ValidateBuryRequest(hand=hand, bury=strong.cards), timeout=RPC_TIMEOUT)
    assert verdict.legal and verdict.bottom_points == strong.bottom_points
    request.policy, request.bottom[:] = pb.BURY_POLICY_AUTO_BURY, bottom
    auto = stub.SuggestBury(request, timeout=RPC_TIMEOUT)
    quit_ = pb.CalculatePenaltyRequest(
        ruleset=t.Ruleset(preset="rulebook-003"),
        phase=pb.QUIT_PHASE_Q2_BEFORE_BURYING,
        role=pb.ROLE_DEALER,
        base=1,
        dealer_level=t.RANK_7,
        overturn_multiplier=1,
        level=t.RANK_7,
        contract=t.CONTRACT_CLUBS,
        dealer_hand=hand,
        bottom=bottom,
    )
    penalty = stub.CalculatePenalty(quit_, timeout=RPC_TIMEOUT)
    assert list(auto.cards) == list(penalty.auto_bury) and auto.policy == pb.BURY_POLICY_AUTO_BURY


@pytest.mark.parametrize(
    ("method", "body", "field", "reason"),
    [
        ("SuggestDeclaration", {"level": "RANK_2", "seat": 0}, "received", "BAD_SIZE"),
        ("SuggestDeclaration", {"seat": 0, "received": names("H2")}, "level", "MISSING"),
        (
            "SuggestDeclaration",
            {"level": "RANK_2", "seat": 5, "received": names("H2")},
            "seat",
            "OUT_OF_RANGE",
        ),
        (
            "SuggestDeclaration",
            {"level": "RANK_2", "received": names("H2 H2 H2")},
            "received[2]",
            "TOO_MANY_COPIES",
        ),
        (
            "SuggestDeclaration",
            {
                "level": "RANK_2",
                "received": names("S2"),
                "declarations": [{"seat": 1, "cards": names("S2 S2")}],
            },
            "received",
            "INCONSISTENT",
        ),
        (
            "SuggestDeclaration",
            {"level": "RANK_2", "received": names("H2"), "policy": 9},
            "policy",
            "UNKNOWN_VALUE",
        ),
        (
            "SuggestBury",
            {"level": "RANK_2", "contract": "CONTRACT_HEARTS", "hand": names("S3 S4")},
            "hand",
            "BAD_SIZE",
        ),
        ("SuggestBury", {"level": "RANK_2", "hand": names("S3")}, "contract", "MISSING"),
        ("SuggestBury", {"contract": "CONTRACT_HEARTS", "hand": [99]}, "level", "MISSING"),
    ],
)
def test_malformed_requests_are_invalid_argument_naming_the_field(
    stub: Stub, method: str, body: dict[str, Any], field: str, reason: str
) -> None:
    request_type = pb.SuggestDeclarationRequest if method == "SuggestDeclaration" else pb.SuggestBuryRequest
    code, violations = rejected(getattr(stub, method), message(request_type, body))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert violations[0] == (field, reason)


def test_a_bury_needs_the_bottom_for_the_auto_bury_and_a_real_one(stub: Stub) -> None:
    """R13.6 buries the bottom received: without it MISSING, with a card the dealer lacks INCONSISTENT."""
    hand, bottom = dealer_cards(3)
    request = pb.SuggestBuryRequest(
        level=t.RANK_7, contract=t.CONTRACT_CLUBS, hand=hand, policy=pb.BURY_POLICY_AUTO_BURY
    )
    assert rejected(stub.SuggestBury, request)[1][0] == ("bottom", "MISSING")
    missing = next(face for face in range(1, 55) if face not in hand)
    request.bottom[:] = [*bottom[:7], t.Card.ValueType(missing)]
    assert rejected(stub.SuggestBury, request)[1][0] == ("bottom[7]", "INCONSISTENT")


def test_calls_are_counted_like_every_rpc(live: Live, stub: Stub) -> None:
    """The interceptor's gRPC series and the per-preset count cover both RPCs, by method name."""
    rpc = {"grpc_type": "unary", "grpc_service": RULES_SERVICE}
    before = {
        method: live.registry.get_sample_value(
            "grpc_server_handled_total", {**rpc, "grpc_method": method, "grpc_code": "OK"}
        )
        or 0.0
        for method in ("SuggestDeclaration", "SuggestBury")
    }
    hand, _ = dealer_cards(1)
    ruleset = t.Ruleset(preset="rulebook-003")
    stub.SuggestBury(
        pb.SuggestBuryRequest(ruleset=ruleset, level=t.RANK_3, contract=t.CONTRACT_NO_TRUMP, hand=hand),
        timeout=RPC_TIMEOUT,
    )
    stub.SuggestDeclaration(
        pb.SuggestDeclarationRequest(ruleset=ruleset, level=t.RANK_3, received=hand[:5]), timeout=RPC_TIMEOUT
    )
    for method in ("SuggestDeclaration", "SuggestBury"):
        handled = live.registry.get_sample_value(
            "grpc_server_handled_total", {**rpc, "grpc_method": method, "grpc_code": "OK"}
        )
        assert handled == before[method] + 1
        presets = {"grpc_method": method, "preset": "rulebook-003"}
        assert live.registry.get_sample_value("tractor_rules_requests_by_preset_total", presets) == 1


HEARTS_096 = "H2 SJ HA HK H9 H7 H5 S3 S4 S6 S8 SK C3 C5 C7 C9 CK CA D3 D4 D6 D8 D9 DQ DA"
"""Hearts worth 0.96 of an average hand's trumps (tests/test_declaration_advice.py)."""


def test_first_hand_and_dealer_reach_the_policy(stub: Stub) -> None:
    """Unset ``first_hand`` with no dealer is a first hand (nothing worth showing here); a later hand
    with seat 0 or its partner dealing shows H2 (the dealer's side picks the trump it defends, R10.7);
    seat 1 dealing, nothing."""
    body: dict[str, Any] = {"level": "RANK_2", "seat": 0, "received": names(HEARTS_096)}
    assert not stub.SuggestDeclaration(message(pb.SuggestDeclarationRequest, body), timeout=RPC_TIMEOUT).cards
    first = message(pb.SuggestDeclarationRequest, {**body, "first_hand": True})
    assert not stub.SuggestDeclaration(first, timeout=RPC_TIMEOUT).cards
    for dealer, shows in ((0, True), (2, True), (1, False), (3, False)):
        request = message(pb.SuggestDeclarationRequest, {**body, "dealer": dealer})  # first_hand unset
        answer = stub.SuggestDeclaration(request, timeout=RPC_TIMEOUT)
        assert bool(answer.cards) is shows, dealer
        explicit = message(pb.SuggestDeclarationRequest, {**body, "dealer": dealer, "first_hand": False})
        assert stub.SuggestDeclaration(explicit, timeout=RPC_TIMEOUT) == answer
        if shows:
            check = pb.ValidateDeclarationRequest(
                level=t.RANK_2,
                declarations=[pb.Declaration(seat=0, cards=answer.cards, hand=request.received)],
                first_hand=False,
                dealer=dealer,
            )
            verdict = stub.ValidateDeclaration(check, timeout=RPC_TIMEOUT)
            assert verdict.accepted and verdict.verdicts[-1].act == answer.act


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        ({"first_hand": True, "dealer": 1}, "INCONSISTENT"),
        ({"first_hand": False}, "MISSING"),
        ({"dealer": 6}, "OUT_OF_RANGE"),  # 0..3 at four seats, 0..5 at six (R14.1)
    ],
)
@pytest.mark.parametrize("ruleset", [{"preset": "default"}, {"preset": "default", "decks": 3, "seats": 6}])
def test_the_deal_context_is_validated_like_validate_declaration(
    stub: Stub, extra: dict[str, Any], reason: str, ruleset: dict[str, Any]
) -> None:
    """A first hand names no dealer (R10.6), a later hand names one in range (R10.7): else the field."""
    body = {"ruleset": ruleset, "level": "RANK_2", "seat": 0, "received": names("H3"), **extra}
    code, violations = rejected(stub.SuggestDeclaration, message(pb.SuggestDeclarationRequest, body))
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert violations[0] == ("dealer", reason)


def test_a_six_seat_tables_dealer_may_be_seat_5(stub: Stub) -> None:
    """R14.1: a later hand on six seats names a dealer 0..5."""
    body = {"ruleset": {"preset": "default", "decks": 3, "seats": 6}, "level": "RANK_2", "seat": 0}
    request = message(pb.SuggestDeclarationRequest, {**body, "received": names("H3"), "dealer": 5})
    assert stub.SuggestDeclaration(request, timeout=RPC_TIMEOUT).policy == pb.DECLARATION_POLICY_STRONG
