"""HandSoFar.declarations over the wire: what the bidding showed reaches SuggestPlay's sampling (the
worked position of tests/test_shown_cards.py), and an impossible bidding is INVALID_ARGUMENT naming the
field."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from wire import RPC_TIMEOUT, message, names, rejected

from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

Stub = rules_service_pb2_grpc.RulesServiceStub

POSITION: dict[str, Any] = {
    "level": "RANK_10",
    "contract": "CONTRACT_NO_TRUMP",
    "seat": 1,
    "hand": names("SJ D10 C3 C4"),
    "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names("S10")}]},
    "seed": 2,
}


SHOWN: dict[str, Any] = {"dealer": 0, "declarations": [{"seat": 3, "cards": names("BJ BJ")}]}
"""Seat 3 (seat 1's partner, last to play) showed BJ BJ (A7: the no-trump contract)."""


def _cards(text: str) -> list[Any]:
    return list(message(pb.Declaration, {"cards": names(text)}).cards)


def test_the_partners_shown_big_jokers_change_the_suggestion(stub: Stub) -> None:
    """Without the bidding seat 1 spends SJ on the S10; told of seat 3's BJ BJ it feeds D10. The hint
    listing (ListLegalPlays with rank) ranks it first too."""
    plain = message(pb.SuggestPlayRequest, {**POSITION, "hand_so_far": {"dealer": 0}})
    shown = message(pb.SuggestPlayRequest, {**POSITION, "hand_so_far": SHOWN})
    assert list(stub.SuggestPlay(plain, timeout=RPC_TIMEOUT).cards) == _cards("SJ")
    assert list(stub.SuggestPlay(shown, timeout=RPC_TIMEOUT).cards) == _cards("D10")
    ranked = message(pb.ListLegalPlaysRequest, {**POSITION, "rank": True, "hand_so_far": SHOWN})
    assert list(stub.ListLegalPlays(ranked, timeout=RPC_TIMEOUT).plays[0].cards) == _cards("D10")


@pytest.mark.parametrize(
    ("declarations", "field", "reason"),
    [
        (
            [{"seat": 3, "cards": names("BJ BJ")}, {"seat": 2, "cards": names("SJ SJ")}],
            "hand_so_far.declarations[1].cards",
            "INCONSISTENT",
        ),
        ([{"seat": 3, "cards": names("H10")}], "hand_so_far.declarations", "INCONSISTENT"),
        ([{"seat": 7, "cards": names("BJ BJ")}], "hand_so_far.declarations[0].seat", "OUT_OF_RANGE"),
        ([{"seat": 3, "cards": [99]}], "hand_so_far.declarations[0].cards", "UNKNOWN_VALUE"),
        (
            [{"seat": 3, "cards": names("SJ SJ")}, {"seat": 2, "cards": names("BJ BJ")}],
            "hand_so_far.declarations[0].cards[1]",
            "TOO_MANY_COPIES",
        ),
        ([{"seat": 0, "cards": names("BJ")}] * 101, "hand_so_far.declarations", "BAD_SIZE"),
    ],
)
def test_an_impossible_bidding_is_refused_naming_the_field(
    stub: Stub, declarations: list[dict[str, Any]], field: str, reason: str
) -> None:
    """Each act must be one ValidateDeclaration accepts after those before it (R10.3, R10.4), ending in
    the request's contract, seats 0..3, known cards, no third copy with the seat's own hand."""
    request = message(
        pb.SuggestPlayRequest, {**POSITION, "hand_so_far": {"dealer": 0, "declarations": declarations}}
    )
    code, violations = rejected(stub.SuggestPlay, request)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert violations[0][0].startswith(field) and violations[0][1] == reason, violations
