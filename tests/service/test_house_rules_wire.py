"""R16's house rules on the wire where the worked cases cannot reach: AuditHand charges the failed throws
it finds in a record (R16.2), and a request without the new fields answers as before (R16.7 too)."""

from __future__ import annotations

import dataclasses

import pytest

from loadtest.corpus import audit_request
from rules_core.audit import HandRecord, audit_hand
from rules_core.cards import parse_cards
from rules_core.rules import DEFAULT_RULES, JackRule, ThrowPenalty
from rules_core.selfplay import play_hand
from services.convert import cards_out
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

Stub = rules_service_pb2_grpc.RulesServiceStub


@pytest.fixture(scope="module")
def thrown() -> HandRecord:
    """A self-played hand with failed throws in it (the first seed that has one)."""
    hands = (play_hand(seed=seed) for seed in range(100))
    return next(hand for hand in hands if any(t.attempted for t in hand.tricks))


@pytest.mark.parametrize("kind", [ThrowPenalty.PER_ATTEMPT, ThrowPenalty.PER_CARD])
def test_audit_charges_failed_throws(stub: Stub, thrown: HandRecord, kind: ThrowPenalty) -> None:
    """R16.2: the wire's settlement is the engine's, its throw_penalty included; without the option, 0."""
    rules = dataclasses.replace(DEFAULT_RULES, throw_penalty=kind, throw_penalty_points=15)
    audit = audit_hand(rules, thrown)
    assert audit.valid and audit.settlement is not None, audit.error
    penalty = types_pb2.ThrowPenalty.Value(f"THROW_PENALTY_{kind.name}")
    ruleset = types_pb2.Ruleset(throw_penalty=penalty, throw_penalty_points=15)
    response = stub.AuditHand(audit_request(thrown, audit.leaders, ruleset), timeout=10)
    assert response.valid
    assert response.settlement.throw_penalty == audit.settlement.throw_penalty
    assert response.settlement.levels_gained == audit.settlement.g
    assert response.settlement.winner == (1 if audit.settlement.winner_side.value == "dealer_team" else 2)
    plain = stub.AuditHand(audit_request(thrown, audit.leaders, types_pb2.Ruleset()), timeout=10)
    assert plain.valid and plain.settlement.throw_penalty == 0
    assert plain.score == response.score  # R16.2 moves the settlement's score, not the cards' points


def test_audit_applies_the_jack_rule(stub: Stub) -> None:
    """R16.4: seed 1 at J ends with the attackers winning the last trick with a single jack; the wire's
    audit resets the dealer team to 2 under the rule and not without it."""
    rules = dataclasses.replace(DEFAULT_RULES, jack_rule=JackRule.SINGLE_JACK)
    record = play_hand(seed=1, rules=rules, level=11)
    audit = audit_hand(rules, record)
    assert audit.valid and audit.settlement is not None and audit.settlement.back_to_two, audit.error
    ruled = types_pb2.Ruleset(jack_rule=types_pb2.JACK_RULE_SINGLE_JACK)
    response = stub.AuditHand(audit_request(record, audit.leaders, ruled), timeout=10)
    assert response.valid and response.settlement.back_to_two
    assert response.settlement.dealer_team_level_after == types_pb2.RANK_2
    plain = stub.AuditHand(audit_request(record, audit.leaders, types_pb2.Ruleset()), timeout=10)
    assert plain.valid and not plain.settlement.back_to_two
    assert plain.settlement.dealer_team_level_after != types_pb2.RANK_2


def _throw_trick(ruleset: types_pb2.Ruleset) -> pb.ResolveTrickRequest:
    """WC-189's trick: a pair-and-single throw ruffed twice, where the four policies disagree."""
    plays = ["SA SA SK", "BJ H3 H3", "H9 H9 H4", "C4 C3 C2"]
    return pb.ResolveTrickRequest(
        ruleset=ruleset,
        level=types_pb2.RANK_7,
        contract=types_pb2.CONTRACT_HEARTS,
        leader=0,
        plays=[
            types_pb2.SeatCards(seat=i, cards=cards_out(parse_cards(p.split()))) for i, p in enumerate(plays)
        ],
    )


def test_throw_ruffs_unset_is_r6_6_byte_for_byte(stub: Stub) -> None:
    """R16.7: a request without throw_ruff_compare is answered exactly as R6.6 (and as before); the
    option, when set, reaches the trick (ALL keeps P2's big joker, R6.6 gives P3 the trick)."""
    unset = stub.ResolveTrick(_throw_trick(types_pb2.Ruleset()), timeout=10)
    r66 = stub.ResolveTrick(
        _throw_trick(types_pb2.Ruleset(throw_ruff_compare=types_pb2.THROW_RUFF_COMPARE_R6_6)), timeout=10
    )
    assert unset.SerializeToString(deterministic=True) == r66.SerializeToString(deterministic=True)
    assert unset.winner == 2
    every = stub.ResolveTrick(
        _throw_trick(types_pb2.Ruleset(throw_ruff_compare=types_pb2.THROW_RUFF_COMPARE_ALL)), timeout=10
    )
    assert every.winner == 1
    assert every.plays[2].judgement == pb.JUDGEMENT_UNDER_RUFF
