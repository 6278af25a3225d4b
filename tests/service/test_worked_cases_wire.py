"""RULES.md's worked cases replayed through the wire: proto JSON requests, generated stubs, a live server.

Every area an RPC answers is covered (the ``order`` area asks about the ranking tables themselves, which
no RPC exposes). Requests are built in the proto JSON mapping from the case lines, the way any client
would, and answers are compared as CASES.md says: card lists as multisets.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import Any

import pytest
from trick_checks import check_dig, check_ruff, check_trick
from wire import call, message, multiset, names
from worked_cases import FROM_DEALER, Case, cases, failed_throws, seat

from rules_core.rules import (
    DigMultiplier,
    DigShape,
    EndRule,
    FirstDealer,
    FollowRule,
    JackRule,
    NoBid,
    RuffStructure,
    ThrowCheck,
    ThrowPenalty,
    ThrowRuffCompare,
)
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

Stub = rules_service_pb2_grpc.RulesServiceStub

_OPTIONS: dict[str, tuple[str, str, Any]] = {
    # case option -> (Ruleset field, enum value prefix, the engine enum that names the value)
    "THROW": ("throw_check", "THROW_CHECK_", ThrowCheck),
    "RUFF": ("ruff_structure", "RUFF_STRUCTURE_", RuffStructure),
    "DIG": ("dig_multiplier", "DIG_MULTIPLIER_", DigMultiplier),
    "DIG_SHAPE": ("dig_shape", "DIG_SHAPE_", DigShape),
    "FIRST_DEALER": ("first_dealer", "FIRST_DEALER_", FirstDealer),
    "END": ("end_rule", "END_RULE_", EndRule),
    "THROW_PENALTY": ("throw_penalty", "THROW_PENALTY_", ThrowPenalty),
    "FOLLOW": ("follow_rule", "FOLLOW_RULE_", FollowRule),
    "JACK": ("jack_rule", "JACK_RULE_", JackRule),
    "NO_BID": ("no_bid", "NO_BID_", NoBid),
    "THROW_RUFF": ("throw_ruff_compare", "THROW_RUFF_COMPARE_", ThrowRuffCompare),
}
_CONTRACTS = {
    "S": "CONTRACT_SPADES",
    "H": "CONTRACT_HEARTS",
    "C": "CONTRACT_CLUBS",
    "D": "CONTRACT_DIAMONDS",
    "NT": "CONTRACT_NO_TRUMP",
}
_SIDES = {"dealer_team": types_pb2.SIDE_DEALER_TEAM, "attackers": types_pb2.SIDE_ATTACKERS}


def ruleset(case: Case) -> dict[str, Any]:
    """The case's options as a wire Ruleset: the default preset plus overrides."""
    body: dict[str, Any] = {"preset": "default"}
    for option, value in case["opts"].items():
        if option == "MUST_PLAY":
            body["must_play"] = {"levels": [rank(level) for level in value]}
        elif option == "THROW_PENALTY_POINTS":
            body["throw_penalty_points"] = value  # R16.2
        elif option == "MUST_PLAY_SET":
            body["must_play"] = {"named": f"MUST_PLAY_SET_{value}"}  # R16.5
        elif option == "LEVEL_TABLE":
            body["level_table"] = dict(value)  # R16.1: the wire names the parameters as the case does
        else:
            field, prefix, domain = _OPTIONS[option]
            body[field] = prefix + domain(value).name
    return body


def last_win(case: Case) -> dict[str, Any]:
    """A settle line's last-trick winner (R16.4) as the request's ``last_trick_winner``, dealer at 0."""
    win = case["input"].get("last_trick_win")
    if win is None:
        return {}
    return {"last_trick_winner": {"seat": FROM_DEALER[win["seat"]], "cards": names(win["cards"])}}


def rank(text: str) -> str:
    """A level name ("7", "J") as a Rank enum name."""
    return f"RANK_{text}"


def context(case: Case) -> dict[str, Any]:
    """Ruleset, level and contract of a case."""
    return {"ruleset": ruleset(case), "level": rank(case["level"]), "contract": _CONTRACTS[case["trump"]]}


def component_multiset(components: Any) -> list[tuple[int, Counter[str]]]:
    """Wire components as (pairs, cards) for order-free comparison."""
    return sorted(((c.pairs, multiset(c.cards)) for c in components), key=repr)


def plays(labels: list[list[str]]) -> list[dict[str, Any]]:
    """Four plays in play order from seat 0."""
    return [{"seat": i, "cards": names(cards)} for i, cards in enumerate(labels)]


@pytest.mark.parametrize("case", cases("lead"))
def test_lead(stub: Stub, case: Case) -> None:
    """R3: a lead's shape and decomposition, with its verdict (a mixed lead is illegal, R4.3)."""
    lead = case["input"]["cards"]
    others = [{"seat": s} for s in (1, 2, 3)]  # empty hands: only the shape is in question here
    request = message(
        pb.ValidatePlayRequest,
        {**context(case), "seat": 0, "hand": names(lead), "cards": names(lead), "other_hands": others},
    )
    response = call(stub.ValidatePlay, request)
    expect = case["expect"]
    assert response.shape == types_pb2.Shape.Value(f"SHAPE_{expect['shape'].upper()}")
    want = [(c["pairs"], Counter(c["cards"])) for c in expect["components"]]
    assert component_multiset(response.components) == sorted(want, key=repr)
    mixed = expect["shape"] == "mixed"
    assert response.legal is not mixed
    assert response.violation == (types_pb2.VIOLATION_MIXED_CATEGORY_LEAD if mixed else 0)


@pytest.mark.parametrize("case", cases("throw"))
def test_throw(stub: Stub, case: Case) -> None:
    """R4: a throw against the other three hands; when it fails, the forced component and the evidence."""
    attempt = case["input"]["throw"]
    others = [{"seat": seat(label), "cards": names(hand)} for label, hand in case["input"]["others"].items()]
    request = message(
        pb.ValidatePlayRequest,
        {**context(case), "seat": 0, "hand": names(attempt), "cards": names(attempt), "other_hands": others},
    )
    response = call(stub.ValidatePlay, request)
    expect = case["expect"]
    if not response.legal:  # a lead from two categories is not allowed at all
        assert (expect["ok"], expect["forced"]) == (False, None)
        assert response.violation == types_pb2.VIOLATION_MIXED_CATEGORY_LEAD
        return
    outcome = response.throw_outcome
    ok = outcome.result != types_pb2.THROW_RESULT_FAILED
    assert ok == expect["ok"]
    if ok:
        assert expect["forced"] is None
        return
    assert multiset(outcome.forced.cards) == Counter(expect["forced"])
    assert multiset(outcome.led) == Counter(expect["forced"])
    assert multiset(outcome.returned) + multiset(outcome.led) == Counter(attempt)  # R4.7
    assert outcome.evidence, "a failed throw names who beats it"
    held = {seat(label): Counter(hand) for label, hand in case["input"]["others"].items()}
    for beat in outcome.evidence:
        assert multiset(beat.cards) <= held[beat.seat]


@pytest.mark.parametrize("case", cases("follow"))
def test_follow(stub: Stub, case: Case) -> None:
    """R5: whether the follower may play this; an illegal follow carries a typed reason and a message."""
    data = case["input"]
    request = message(
        pb.ValidatePlayRequest,
        {
            **context(case),
            "seat": 1,
            "hand": names(data["hand"]),
            "cards": names(data["play"]),
            "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names(data["lead"])}]},
        },
    )
    response = call(stub.ValidatePlay, request)
    assert response.legal == case["expect"]["legal"]
    assert (response.violation == types_pb2.VIOLATION_UNSPECIFIED) == response.legal
    assert bool(response.message) != response.legal


def _resolve(stub: Stub, case: Case, trick: list[list[str]], **extra: Any) -> pb.ResolveTrickResponse:
    request = message(pb.ResolveTrickRequest, {**context(case), "leader": 0, "plays": plays(trick), **extra})
    response: pb.ResolveTrickResponse = call(stub.ResolveTrick, request)
    return response


@pytest.mark.parametrize("case", cases("trick"))
def test_trick(stub: Stub, case: Case) -> None:
    """R7: the winner, and the point value of all four plays."""
    check_trick(_resolve(stub, case, case["input"]["plays"]), case)


@pytest.mark.parametrize("case", cases("ruff"))
def test_ruff(stub: Stub, case: Case) -> None:
    """R6: which follows are valid ruffs, and who wins."""
    check_ruff(_resolve(stub, case, case["input"]["plays"]), case)


@pytest.mark.parametrize("case", cases("dig"))
def test_dig(stub: Stub, case: Case) -> None:
    """R8.3-R8.5: the last trick's winner, its points, and what the bottom adds."""
    data = case["input"]
    dealer = next(s for s in range(4) if f"P{s + 1}" not in data["attackers"])
    response = _resolve(
        stub, case, data["last_trick"], last_trick=True, bottom=names(data["bottom"]), dealer=dealer
    )
    check_dig(response, case)


def _level_after(value: int) -> str | None:
    return (
        None
        if value == types_pb2.RANK_UNSPECIFIED
        else types_pb2.Rank.Name(types_pb2.Rank.ValueType(value)).removeprefix("RANK_")
    )


@pytest.mark.parametrize("case", cases("settle"))
def test_settle(stub: Stub, case: Case) -> None:
    """R9: levels, take-over, the next dealer and level, the end of the game, and K (R12.5)."""
    data = case["input"]
    request = message(
        pb.SettleHandRequest,
        {
            "ruleset": ruleset(case),
            "dealer": 0,
            "dealer_team_level": rank(data["dealer_level"]),
            "attacker_level": rank(data["attacker_level"]),
            "score": data["score"],
            "failed_throws": [{"seat": seat, "cards": n} for seat, n in failed_throws(case, 0)],  # R16.2
            **last_win(case),
        },
    )
    response = call(stub.SettleHand, request)
    expect = case["expect"]
    assert response.throw_penalty == expect.get("throw_penalty", 0)
    assert response.back_to_two == expect.get("back_to_two", False)
    assert response.winner == _SIDES[expect["winner_side"]]
    assert (response.levels_gained, response.effective_levels_gained) == (expect["g"], expect["g_eff"])
    assert response.take_over == expect["take_over"]
    assert _level_after(response.dealer_team_level_after) == expect["dealer_level_after"]
    assert _level_after(response.attacker_level_after) == expect["attacker_level_after"]
    assert response.next_dealer == (2 if expect["next_dealer"] == "partner" else 1)
    assert _level_after(response.next_level) == expect["next_level"]
    assert response.game_over == expect["game_over"]
    assert response.game_winner == _SIDES.get(expect["game_winner"] or "", types_pb2.SIDE_UNSPECIFIED)
    assert response.score_coefficient == expect["K"]


@pytest.mark.parametrize("case", cases("taodou"))
def test_taodou(stub: Stub, case: Case) -> None:
    """R12: K, the total, who wins and what moves; settled through SettleHand with a stake."""
    data = case["input"]
    dealer_level = int(data["DL"])
    # Without the teams' levels no must-play cap applies: attackers at 2 never meet A's cap below K=12.
    levels = (
        (rank(data["dealer_level"]), rank(data["attacker_level"]))
        if "dealer_level" in data
        else (dealer_level, "RANK_2")
    )
    request = message(
        pb.SettleHandRequest,
        {
            "ruleset": ruleset(case),
            "dealer": 0,
            "dealer_team_level": levels[0],
            "attacker_level": levels[1],
            "score": data["score"],
            "tao_dou": {
                "base": data["B"],
                "overturn_multiplier": data["O"],
                **rake(data["rake_pct"]),
            },
        },
    )
    coins = call(stub.SettleHand, request).coins
    expect = case["expect"]
    assert (coins.score_coefficient, coins.total) == (expect["K"], expect["total"])
    assert coins.winners == _SIDES[expect["winners"]]
    assert coins.winner_gain == expect["winner_gain"]
    winners = {0, 2} if expect["winners"] == "dealer_team" else {1, 3}
    assert [coins.deltas[s] for s in winners] == [expect["winner_gain"]] * 2
    assert sorted(-coins.deltas[s] for s in {0, 1, 2, 3} - winners) == sorted(expect["loser_losses"])


def rake(percent: float) -> dict[str, int]:
    """A whole percentage as ``rake_percent`` (the field v1 has always had), any other as
    ``rake_basis_points`` (R12.6: r need not be whole; WC-168's 12.5 % is 1250)."""
    if float(percent).is_integer():
        return {"rake_percent": int(percent)}
    basis_points = Fraction(str(percent)) * 100
    assert basis_points.denominator == 1
    return {"rake_basis_points": int(basis_points)}


_PHASES = {
    "Q0": "QUIT_PHASE_Q0_BEFORE_DEALING",
    "Q1": "QUIT_PHASE_Q1_BEFORE_DECLARATION",
    "Q2": "QUIT_PHASE_Q2_BEFORE_BURYING",
    "Q3": "QUIT_PHASE_Q3_BEFORE_SETTLEMENT",
}


@pytest.mark.parametrize("case", cases("penalty"))
def test_penalty(stub: Stub, case: Case) -> None:
    """R13.2-R13.5: the penalty, what is deducted, the disconnect and where the coins go."""
    data = case["input"]
    body = {
        "phase": _PHASES[data["phase"]],
        "seat": 1,
        "role": f"ROLE_{data['role'].upper()}",
        "base": data["B"],
        "dealer_level": data["DL"],
        "overturn_multiplier": data["O"],
        "balance": data["balance"],
    }
    if "owed" in data:
        body |= {"quitter_side_lost": data["quitter_side_lost"], "owed": data["owed"]}
    response = call(stub.CalculatePenalty, message(pb.CalculatePenaltyRequest, body))
    expect = case["expect"]
    assert (response.penalty, response.deducted) == (expect["penalty"], expect["deducted"])
    assert response.capped == (expect["deducted"] < expect["penalty"])
    assert response.disconnects == expect["disconnects"]
    if "paid_on_behalf" in expect:
        assert (response.paid_on_behalf, response.confiscated) == (
            expect["paid_on_behalf"],
            expect["confiscated"],
        )
    else:
        assert not response.HasField("paid_on_behalf") and not response.HasField("confiscated")


@pytest.mark.parametrize("case", cases("autolead"))
def test_autolead(stub: Stub, case: Case) -> None:
    """R13.6: a quitting dealer's automatic bury (the bottom he received) and opening lead."""
    data = case["input"]
    body = {
        **context(case),
        "phase": "QUIT_PHASE_Q2_BEFORE_BURYING",
        "seat": 0,
        "role": "ROLE_DEALER",
        "base": 1,
        "dealer_level": 2,
        "overturn_multiplier": 1,
        "dealer_hand": names(data["hand"]),
        "bottom": names(data.get("bottom", [])),
    }
    response = call(stub.CalculatePenalty, message(pb.CalculatePenaltyRequest, body))
    assert multiset(response.auto_bury) == Counter(data.get("bottom", []))
    assert multiset([response.auto_lead]) == Counter([case["expect"]["card"]])


@pytest.mark.parametrize("case", cases("declare"))
def test_declare(stub: Stub, case: Case) -> None:
    """R10: each act accepted with its label or rejected; the contract, O and the first dealer."""
    data = case["input"]
    body = {
        "ruleset": ruleset(case),
        "level": rank(case["level"]),
        "declarations": [
            {"seat": seat(act["seat"]), "cards": names(act["cards"])} for act in data["sequence"]
        ],
        "first_hand": data["first_hand"],
        "first_seated": seat(data["first_seated"]),
        "bottom": names(data.get("bottom", [])),  # R16.6
    }
    response = call(stub.ValidateDeclaration, message(pb.ValidateDeclarationRequest, body))
    expect = case["expect"]
    assert response.bottom_revealed == expect.get("bottom_revealed", 0)
    assert response.contract == types_pb2.Contract.Value(_CONTRACTS[expect["contract"]])
    assert response.overturn_multiplier == expect["O"]
    assert (seat(expect["dealer"]) if expect["dealer"] else None) == (
        response.dealer if response.HasField("dealer") else None
    )
    rejected = [i for i, verdict in enumerate(response.verdicts) if not verdict.accepted]
    assert rejected == expect["rejected"]
    labels = [
        pb.DeclarationAct.Name(v.act).removeprefix("DECLARATION_ACT_")[:2] if v.accepted else "REJECTED"
        for v in response.verdicts
    ]
    assert labels == expect["acts"]
    for verdict in response.verdicts:
        assert (verdict.rejection != pb.DECLARATION_REJECTION_UNSPECIFIED) == (not verdict.accepted)


@pytest.mark.parametrize("case", cases("bury"))
def test_bury(stub: Stub, case: Case) -> None:
    """R11: exactly 8 of the dealer's 33 cards."""
    data = case["input"]
    body = {"hand": names(data["hand"]), "bury": names(data["bury"])}
    response = call(stub.ValidateBury, message(pb.ValidateBuryRequest, body))
    assert response.legal == case["expect"]["legal"]
    assert (response.violation == types_pb2.VIOLATION_UNSPECIFIED) == response.legal
