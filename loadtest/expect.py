"""What the service must answer, as a corpus call's ``expect``: rules_core's verdicts in wire terms.

Shared by the corpus of the rulebooks' table (``loadtest.corpus``) and of other tables
(``loadtest.table_corpus``), so neither imports the other.
"""

from __future__ import annotations

from typing import Any

from rules_core.trick import TrickResult
from rules_core.verdicts import Illegal, Legal, Violation
from services.convert import cards_out
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t


def violation(reason: Violation) -> int:
    """A rules_core violation as its ``Violation`` enum number."""
    return int(t.Violation.Value("VIOLATION_" + reason.name))


def play_expect(verdict: Legal | Illegal) -> dict[str, Any]:
    """What ValidatePlay must say about a verdict: legality, the violation, a throw's outcome."""
    if isinstance(verdict, Illegal):
        return {"legal": False, "violation": violation(verdict.reason)}
    expect: dict[str, Any] = {"legal": True, "violation": 0}
    if verdict.throw is not None:
        succeeded = verdict.throw.succeeded
        expect["throw_outcome.result"] = t.THROW_RESULT_SUCCEEDED if succeeded else t.THROW_RESULT_FAILED
        expect["throw_outcome.led~"] = cards_out(verdict.throw.led)
    return expect


def trick_expect(result: TrickResult) -> dict[str, Any]:
    """What ResolveTrick must say: winner, how it won, points, and the dig on the last trick."""
    expect: dict[str, Any] = {
        "legal": True,
        "winner": result.winner,
        "won_by": int(pb.Judgement.Value("JUDGEMENT_" + result.won_by.name)),
        "trick_points": result.points,
        "attacker_points": result.attacker_points,
    }
    if result.dig is not None:
        expect["bottom_points"] = result.dig.bottom_points
        expect["bottom_added"] = result.dig.added
        expect["dig_multiplier"] = result.dig.multiplier or 0
    return expect
