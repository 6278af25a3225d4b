"""What a trick's worked case expects of a ResolveTrick answer, on every table (R6-R8, R14.7-R14.9).

The rulebooks' table (test_worked_cases_wire) and other tables (test_tables_wire) send their requests
differently and check the same answer: these are those checks, written once.
"""

from __future__ import annotations

from worked_cases import Case, seat

from tractor.rules.v1 import rules_service_pb2 as pb

RUFFS = {pb.JUDGEMENT_RUFF, pb.JUDGEMENT_OVER_RUFF, pb.JUDGEMENT_UNDER_RUFF}
"""The judgements of a valid ruff (R6, R14.7)."""


def check_trick(response: pb.ResolveTrickResponse, case: Case) -> None:
    """R7, R14.8: a legal trick with the line's winner and the points of all its plays."""
    assert response.legal
    assert response.winner == seat(case["expect"]["winner"])
    assert response.trick_points == case["expect"]["points"]


def check_ruff(response: pb.ResolveTrickResponse, case: Case) -> None:
    """R6, R14.7: which follows are valid ruffs, and who wins."""
    expect = case["expect"]
    assert response.winner == seat(expect["winner"])
    assert response.trick_points == expect["points"]
    for label, valid in expect["valid_ruff"].items():
        assert (response.plays[seat(label)].judgement in RUFFS) == valid, label


def check_dig(response: pb.ResolveTrickResponse, case: Case) -> None:
    """R8.3-R8.5, R14.9: the last trick's winner, its points, the multiplier, what the bottom adds, and
    the attackers' points (the trick and the bottom when an attacker won it)."""
    data, expect = case["input"], case["expect"]
    assert response.winner == seat(expect["winner"])
    assert response.trick_points == expect["trick_points"]
    assert response.dig_multiplier == (expect["multiplier"] or 0)
    assert response.bottom_added == expect["bottom_added"]
    attacked = f"P{response.winner + 1}" in data["attackers"]
    assert response.attacker_points == (expect["trick_points"] + expect["bottom_added"] if attacked else 0)
