"""Other tables over the wire (R14, R15): every worked case of a table other than two decks and four seats,
and every finding-friends case, through a live loopback server; bad table inputs; the worst throw.

Requests are built in the proto JSON mapping as any client would build them (``ruleset.decks``,
``ruleset.seats``, ``friend_calls``, ``tricks_before``, ``seat_levels``); answers are compared as CASES.md
says. The finding-friends lines go trick by trick through ResolveTrick (the sides after each trick) and,
with levels, through SettleHand (each seat's level change).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st
from test_worked_cases_wire import context, rank, ruleset
from trick_checks import check_dig, check_ruff, check_trick
from wire import call, message, multiset, names, rejected
from worked_cases import Case, cases, seat, table_of

from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

Stub = rules_service_pb2_grpc.RulesServiceStub
INVALID = grpc.StatusCode.INVALID_ARGUMENT
_FRIEND_OPTIONS = {"PARTNERS": "partners", "MULTIPLE_JOIN": "multiple_join"}


def table_cases(area: str) -> list[Any]:
    """An area's lines of other tables (R14): the rulebooks' table is test_worked_cases_wire's."""
    return [param for param in cases(area, tables=True) if table_of(param.values[0]) != (2, 4)]


def table_context(case: Case, **extra: Any) -> dict[str, Any]:
    """The case's context on its table: ``ruleset.decks`` and ``ruleset.seats`` (R14), plus ``extra``; an
    odd table finds friends (R15.1)."""
    body = context(case)
    decks, seats = table_of(case)
    partners = {"partners": "PARTNERS_FRIENDS"} if seats % 2 else {}
    body["ruleset"] = {**body["ruleset"], "decks": decks, "seats": seats, **partners, **extra}
    return body


def _seats(case: Case) -> int:
    return table_of(case)[1]


# ------------------------------------------------------------------------------------------------
# R14: leads, throws, follows, tricks, ruffs, digs


def wide_components(components: Any) -> list[tuple[str, int, int, Counter[str]]]:
    """Wire components as (type, rungs, width, cards), order-free (R14.3)."""
    return sorted(
        (
            types_pb2.ComponentType.Name(c.type).removeprefix("COMPONENT_TYPE_").lower(),
            c.pairs,
            c.width,
            multiset(c.cards),
        )
        for c in components
    )


@pytest.mark.parametrize("case", table_cases("lead"))
def test_lead(stub: Stub, case: Case) -> None:
    """R14.3: a lead's shape and its tuples, with their widths."""
    lead = case["input"]["cards"]
    others = [{"seat": s} for s in range(1, _seats(case))]
    body = {
        **table_context(case),
        "seat": 0,
        "hand": names(lead),
        "cards": names(lead),
        "other_hands": others,
    }
    response = call(stub.ValidatePlay, message(pb.ValidatePlayRequest, body))
    expect = case["expect"]
    assert response.shape == types_pb2.Shape.Value(f"SHAPE_{expect['shape'].upper()}")
    want = sorted((c["type"], c["pairs"], c["width"], Counter(c["cards"])) for c in expect["components"])
    assert wide_components(response.components) == want
    assert response.legal


@pytest.mark.parametrize("case", table_cases("throw"))
def test_throw(stub: Stub, case: Case) -> None:
    """R14.5: a throw against the other N - 1 hands; when it fails, the forced component and the evidence."""
    attempt, given = case["input"]["throw"], case["input"]["others"]
    hands = {seat(label): hand for label, hand in given.items()}
    others = [{"seat": s, "cards": names(hands.get(s, []))} for s in range(1, _seats(case))]
    body = {**table_context(case), "seat": 0, "hand": names(attempt), "cards": names(attempt)}
    response = call(stub.ValidatePlay, message(pb.ValidatePlayRequest, {**body, "other_hands": others}))
    expect = case["expect"]
    assert response.legal
    outcome = response.throw_outcome
    ok = outcome.result != types_pb2.THROW_RESULT_FAILED
    assert ok == expect["ok"]
    if ok:
        return
    assert multiset(outcome.forced.cards) == Counter(expect["forced"])
    assert multiset(outcome.returned) + multiset(outcome.led) == Counter(attempt)  # R4.7
    assert outcome.evidence
    for beat in outcome.evidence:
        assert multiset(beat.cards) <= Counter(hands[beat.seat])


@pytest.mark.parametrize("case", table_cases("follow"))
def test_follow(stub: Stub, case: Case) -> None:
    """R14.6: the follow ladder; an illegal follow carries a reason and a message."""
    data = case["input"]
    body = {
        **table_context(case),
        "seat": 1,
        "hand": names(data["hand"]),
        "cards": names(data["play"]),
        "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names(data["lead"])}]},
    }
    response = call(stub.ValidatePlay, message(pb.ValidatePlayRequest, body))
    assert response.legal == case["expect"]["legal"]
    assert (response.violation == types_pb2.VIOLATION_UNSPECIFIED) == response.legal
    assert bool(response.message) != response.legal


def _seating(case: Case) -> dict[str, Any]:
    """Request fields that seat the line's attackers (R14.9): fixed partners on an even table (checked to be
    the line's), and on an odd one finding friends (R15): the dealer calls the other defenders' clubs, and
    a trick before this one, won by the leader of this one (seat 0), brings them onto his side."""
    n = _seats(case)
    labels = case["input"].get("attackers")
    attackers = {seat(label) for label in labels} if labels else set(range(1, n, 2))
    defenders = sorted(set(range(n)) - attackers)
    dealer = defenders[0]
    if n % 2 == 0:
        assert attackers == {(dealer + k) % n for k in range(1, n, 2)}, "fixed partners seat these attackers"
        return {"dealer": dealer}
    friends = defenders[1:]
    called = dict(zip(friends, ["CK", "CQ", "CJ"], strict=False))
    spare = iter(["C7", "C8", "C9", "C10", "C6"])
    order = [(dealer + i) % n for i in range(n)]
    cards = {s: "CA" if s == 0 else called.get(s) or next(spare) for s in order}
    before = {"plays": [{"seat": s, "cards": names([cards[s]])} for s in order], "winner": 0}
    return {
        "ruleset_extra": {"partners": "PARTNERS_FRIENDS", "friend_calls": len(friends)},
        "dealer": dealer,
        "friend_calls": [{"card": names([called[s]])[0], "copy": 1} for s in friends],
        "tricks_before": [before],
    }


def _resolve(stub: Stub, case: Case, plays: list[list[str]], **extra: Any) -> pb.ResolveTrickResponse:
    seating = _seating(case)
    body = {
        **table_context(case, **seating.pop("ruleset_extra", {})),
        **seating,
        "leader": 0,
        "plays": [{"seat": i, "cards": names(cards)} for i, cards in enumerate(plays)],
        **extra,
    }
    response: pb.ResolveTrickResponse = call(stub.ResolveTrick, message(pb.ResolveTrickRequest, body))
    if "tricks_before" in seating:  # R15.8: the sides the record makes are the line's
        attackers = {seat(label) for label in case["input"]["attackers"]}
        assert set(response.dealer_side) == set(range(_seats(case))) - attackers
    return response


@pytest.mark.parametrize("case", table_cases("trick"))
def test_trick(stub: Stub, case: Case) -> None:
    """R14.8: the winner among N plays, and the points of all of them."""
    response = _resolve(stub, case, case["input"]["plays"])
    check_trick(response, case)
    assert len(response.plays) == _seats(case)


@pytest.mark.parametrize("case", table_cases("ruff"))
def test_ruff(stub: Stub, case: Case) -> None:
    """R14.7: which follows are valid ruffs of tuples (every mapping), and who wins."""
    check_ruff(_resolve(stub, case, case["input"]["plays"]), case)


@pytest.mark.parametrize("case", table_cases("dig"))
def test_dig(stub: Stub, case: Case) -> None:
    """R14.9: the dig on the table's bottom, 2^(1 + (w - 1) k) per shape."""
    data = case["input"]
    response = _resolve(stub, case, data["last_trick"], last_trick=True, bottom=names(data["bottom"]))
    check_dig(response, case)


# ------------------------------------------------------------------------------------------------
# R15: finding friends


def friends_ruleset(case: Case) -> dict[str, Any]:
    """A friends line's ruleset on the wire: its table, then its options (R15.1-R15.6, R15.12)."""
    opts = dict(case["opts"])
    extra: dict[str, Any] = {"decks": case["input"]["decks"], "seats": case["input"]["seats"]}
    for option, field in _FRIEND_OPTIONS.items():
        if option in opts:
            extra[field] = f"{field.upper()}_{opts.pop(option)}"
    if "FRIEND_CALLS" in opts:
        extra["friend_calls"] = opts.pop("FRIEND_CALLS")
    if "FRIEND_LIMITS" in opts:
        extra["friend_limits"] = {"limits": [f"FRIEND_LIMIT_{limit}" for limit in opts.pop("FRIEND_LIMITS")]}
    if "SMALL_TEAM_BONUS" in opts:
        extra["small_team_bonus"] = opts.pop("SMALL_TEAM_BONUS")
    return {**ruleset({**case, "opts": opts}), **extra}


def _contract(case: Case) -> str:
    """The line's contract on the wire (its options go through ``friends_ruleset``)."""
    contract: str = context({**case, "opts": {}})["contract"]
    return contract


def _calls(case: Case) -> list[dict[str, Any]]:
    return [{"card": names([c["card"]])[0], "copy": c["copy"]} for c in case["input"]["calls"]]


def _recorded(trick: dict[str, Any]) -> dict[str, Any]:
    plays = [{"seat": play["seat"], "cards": names(play["cards"])} for play in trick["plays"]]
    return {"plays": plays, "winner": trick["winner"]}


def _trick_request(case: Case, index: int) -> pb.ResolveTrickRequest:
    """The line's trick ``index`` as a ResolveTrick request, with the calls and the tricks before it."""
    data = case["input"]
    tricks = data["tricks"]
    if tricks:
        trick = tricks[index]
    else:  # a refused line has no trick: a plain one from the dealer, of cards no call names
        free = ("C3", "C4", "C6", "C7", "C8", "C9", "CJ", "CQ")
        seats = data["seats"]
        trick = {"plays": [{"seat": (data["dealer"] + i) % seats, "cards": [free[i]]} for i in range(seats)]}
    body = {
        "ruleset": friends_ruleset(case),
        "level": rank(case["level"]),
        "contract": _contract(case),
        "leader": trick["plays"][0]["seat"],
        "dealer": data["dealer"],
        "plays": [{"seat": play["seat"], "cards": names(play["cards"])} for play in trick["plays"]],
        "friend_calls": _calls(case),
        "tricks_before": [_recorded(before) for before in tricks[:index]],
    }
    return message(pb.ResolveTrickRequest, body)


def _call_states(states: Any) -> list[dict[str, Any]]:
    return [
        {
            "met_by": state.met_by if state.HasField("met_by") else None,
            "trick": state.trick if state.HasField("trick") else None,
            "joined": state.joined,
        }
        for state in states
    ]


def _settle(stub: Stub, case: Case) -> dict[str, Any]:
    """SettleHand on the line's table: the whole record, each seat's level (R15.8-R15.13)."""
    data = case["input"]
    body = {
        "ruleset": friends_ruleset(case),
        "dealer": data["dealer"],
        "contract": _contract(case),
        "seat_levels": [rank(level) for level in data["levels"]],
        "friend_calls": _calls(case),
        "tricks": [_recorded(trick) for trick in data["tricks"]],
        "dig_points": data.get("dig_points", 0),
        "failed_throws": data.get("failed_throws", []),
    }
    response = call(stub.SettleHand, message(pb.SettleHandRequest, body))
    return {
        "score": response.table_score,
        "winner_side": "dealer_team" if response.winner == types_pb2.SIDE_DEALER_TEAM else "attackers",
        "g": response.levels_gained,
        "small_team": response.small_team,
        "bonus": response.small_team_bonus,
        "levels_after": [_level(result.level_after) for result in response.seats],
        "next_dealer": response.next_dealer,
        "next_level": _level(response.next_level),
        "game_over": response.game_over,
        "throw_penalty": response.throw_penalty,
        "back_to_two": response.back_to_two,
    }


def _level(value: int) -> str | None:
    if value == types_pb2.RANK_UNSPECIFIED:
        return None
    return types_pb2.Rank.Name(types_pb2.Rank.ValueType(value)).removeprefix("RANK_")


def _wire_field(field: str) -> str:
    """A friends line's refused argument as the service names it: calls are request fields, the rest the
    ruleset's (CASES.md)."""
    return field if field.startswith("friend_calls") else f"ruleset.{field}"


@pytest.mark.parametrize("case", cases("friends"))
def test_friends(stub: Stub, case: Case) -> None:
    """R15: the sides and the points after each trick, the calls, and with levels each seat's settlement."""
    expect, data = case["expect"], case["input"]
    if "error" in expect:
        code, violations = rejected(stub.ResolveTrick, _trick_request(case, 0))
        assert code == INVALID
        assert (_wire_field(expect["error"]["field"]), expect["error"]["problem"]) in violations
        return
    sides, won, points, calls = [], [], [], []
    for index, trick in enumerate(data["tricks"]):
        response = call(stub.ResolveTrick, _trick_request(case, index))
        assert response.legal
        assert response.winner == trick["winner"]  # the line's winner is the one R7 names (CASES.md)
        side = list(response.dealer_side)
        sides.append(side)
        won.append((response.winner, response.trick_points))
        points.append(sum(value for winner, value in won if winner not in side))
        calls = _call_states(response.calls)
    assert sides == expect["sides"]
    assert points == expect["points"]
    assert calls == expect["calls"]
    settlement = _settle(stub, case) if data.get("levels") else None
    assert settlement == expect["settlement"]


def test_forced_friend_follow_over_the_wire(stub: Stub) -> None:
    """WC-407 (R15.5): the friend's SA was its only legal follow; ValidatePlay on its full hand agrees."""
    (case,) = [param.values[0] for param in cases("friends") if param.id == "WC-407"]
    forced = case["input"]["forced"]
    trick = case["input"]["tricks"][forced["trick"]]
    plays = trick["plays"]
    position = next(i for i, play in enumerate(plays) if play["seat"] == forced["seat"])
    body = {
        "ruleset": friends_ruleset(case),
        "level": rank(case["level"]),
        "contract": _contract(case),
        "seat": forced["seat"],
        "hand": names(forced["hand"]),
        "cards": names(plays[position]["cards"]),
        "trick": {
            "leader": plays[0]["seat"],
            "plays": [{"seat": p["seat"], "cards": names(p["cards"])} for p in plays[:position]],
        },
    }
    listing = call(stub.ValidatePlay, message(pb.ValidatePlayRequest, body))
    assert listing.legal


# ------------------------------------------------------------------------------------------------
# refusals


def _table(decks: int, seats: int, **extra: Any) -> dict[str, Any]:
    return {"preset": "default", "decks": decks, "seats": seats, **extra}


def _play(ruleset: dict[str, Any], **extra: Any) -> pb.ValidatePlayRequest:
    body = {"ruleset": ruleset, "level": "RANK_5", "contract": "CONTRACT_HEARTS", "seat": 0}
    return message(
        pb.ValidatePlayRequest, {**body, "hand": names(["SA", "SK"]), "cards": names(["SA"]), **extra}
    )


BAD_RULESETS = [
    pytest.param(_table(5, 4), "ruleset.decks", "OUT_OF_RANGE", id="five-decks"),
    pytest.param(_table(2, 9), "ruleset.seats", "OUT_OF_RANGE", id="nine-seats"),
    pytest.param(
        _table(3, 4, ruff_structure="RUFF_STRUCTURE_COUNT"),
        "ruleset.ruff_structure",
        "INCONSISTENT",
        id="count",
    ),
    pytest.param(
        {"preset": "rulebook-000", "decks": 3}, "ruleset.ruff_structure", "INCONSISTENT", id="book-3-decks"
    ),
    pytest.param(_table(2, 6, friend_calls=5), "ruleset.friend_calls", "OUT_OF_RANGE", id="calls"),
    pytest.param(
        _table(2, 4, friend_limits={"limits": ["FRIEND_LIMIT_UNSPECIFIED"]}),
        "ruleset.friend_limits.limits[0]",
        "UNKNOWN_VALUE",
        id="limit",
    ),
    pytest.param(_table(3, 6, partners=9), "ruleset.partners", "UNKNOWN_VALUE", id="partners"),
]


@pytest.mark.parametrize(("ruleset", "field", "reason"), BAD_RULESETS)
def test_bad_table_rulesets(stub: Stub, ruleset: dict[str, Any], field: str, reason: str) -> None:
    """R14.1, R14.7, R14.10, R15.2, R15.4: a ruleset no table has is INVALID_ARGUMENT naming its field."""
    assert rejected(stub.ValidatePlay, _play(ruleset)) == (INVALID, [(field, reason)])


def _other_rpcs() -> list[Any]:
    six = _table(3, 6)
    friends4 = _table(2, 4, partners="PARTNERS_FRIENDS")
    return [
        pytest.param(
            "AuditHand",
            pb.AuditHandRequest,
            {"ruleset": friends4, "tao_dou": {"base": 1}},
            "ruleset.partners",
            id="audit-stake",
        ),
        pytest.param(
            "CalculatePenalty", pb.CalculatePenaltyRequest, {"ruleset": six}, "ruleset.decks", id="penalty"
        ),
        pytest.param(
            "SettleHand",
            pb.SettleHandRequest,
            {"ruleset": six, "tao_dou": {"base": 1}},
            "ruleset.decks",
            id="stake",
        ),
    ]


@pytest.mark.parametrize(("method", "cls", "body", "field"), _other_rpcs())
def test_rpcs_ruled_for_the_rulebooks_table(
    stub: Stub, method: str, cls: Any, body: dict[str, Any], field: str
) -> None:
    """R14.10: what stays two-deck, four-seat (coins, forced quits) refuses another table, naming the
    field that makes it one; AuditHand answers there but refuses a stake. (The strong ranking answers on
    every table: tests/service/test_tables_advice_wire.py.)"""
    code, violations = rejected(getattr(stub, method), message(cls, body))
    assert code == INVALID
    assert [name for name, _ in violations] == [field]


BAD_TABLE_INPUTS = [
    pytest.param({"hand": names(["SA"] * 5), "cards": names(["SA"])}, "hand[4]", id="fifth-copy"),
    pytest.param({"seat": 6}, "seat", id="seat"),
    pytest.param(
        {
            "hand": names(
                [c for c in ["SA", "SK", "SQ", "SJack", "S10", "S9", "S8", "S7", "S6"] for _ in range(4)]
            )
        },
        "hand",
        id="hand-size",
    ),
]


@pytest.mark.parametrize(("extra", "field"), BAD_TABLE_INPUTS)
def test_bad_table_plays(stub: Stub, extra: dict[str, Any], field: str) -> None:
    """R14.1, R14.2: copies past D, seats past N, hands past the table's size name their field."""
    code, violations = rejected(stub.ValidatePlay, _play(_table(4, 6), **extra))
    assert code == INVALID
    assert field in [name for name, _ in violations]


def _friend_trick(**extra: Any) -> pb.ResolveTrickRequest:
    ruleset = _table(3, 6, partners="PARTNERS_FRIENDS")
    body = {
        "ruleset": ruleset,
        "level": "RANK_5",
        "contract": "CONTRACT_HEARTS",
        "leader": 0,
        "dealer": 0,
        "plays": [
            {"seat": s, "cards": names([card])} for s, card in enumerate(["C3", "C4", "C6", "C7", "C8", "C9"])
        ],
        "friend_calls": [{"card": "CARD_SA", "copy": 1}, {"card": "CARD_DA", "copy": 2}],
    }
    return message(pb.ResolveTrickRequest, {**body, **extra})


BAD_FRIEND_INPUTS = [
    pytest.param(
        {"friend_calls": [{"card": "CARD_SA", "copy": 1}, {"card": "CARD_DA", "copy": 4}]},
        "friend_calls[1].copy",
    ),
    pytest.param({"friend_calls": [{"card": "CARD_SA", "copy": 1}, {"copy": 1}]}, "friend_calls[1].card"),
    pytest.param(
        {"tricks_before": [{"plays": [{"seat": s, "cards": names(["D3"])} for s in range(6)]}]},
        "tricks_before[0].winner",
    ),
    pytest.param({"dealer": 6}, "dealer"),
]


@pytest.mark.parametrize(("extra", "field"), BAD_FRIEND_INPUTS)
def test_bad_friend_inputs(stub: Stub, extra: dict[str, Any], field: str) -> None:
    """R15.3, R15.15: a bad call, a trick without its winner, a dealer off the table name their field."""
    code, violations = rejected(stub.ResolveTrick, _friend_trick(**extra))
    assert code == INVALID
    assert field in [name for name, _ in violations]


def test_friend_trick_reports_the_sides(stub: Stub) -> None:
    """R15.5, R15.8: the SA played in this trick brings its seat onto the dealer's side, with the trick."""
    plays = ["C3", "C4", "C6", "SA", "C8", "C9"]
    request = _friend_trick(
        plays=[{"seat": s, "cards": names([card])} for s, card in enumerate(plays)], last_trick=False
    )
    response = call(stub.ResolveTrick, request)
    assert list(response.dealer_side) == [0, 3]
    assert response.calls[0].met_by == 3 and response.calls[0].joined
    assert not response.calls[1].HasField("met_by")


def _worst_throw() -> tuple[list[str], list[dict[str, Any]]]:
    """Four decks, eight seats at level 2: 26 spades of every width (a quadruple, triple tractors, pair
    tractors, singles) and the other seven hands full, the spades the leader lacks at seat 1."""
    spades = ["S3", "S4", "S5", "S6", "S7", "S8", "S9", "S10", "SJack", "SQ", "SK", "SA"]
    copies = [2, 2, 2, 1, 1, 2, 2, 2, 2, 3, 3, 4]  # 26 cards, strongest last
    throw = [card for card, k in zip(spades, copies, strict=True) for _ in range(k)]
    rest = [card for card, k in zip(spades, copies, strict=True) for _ in range(4 - k)]
    ranks = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    pool = [f"{suit}{rank}" for suit in "HCD" for rank in ranks for _ in range(4)]
    pool += ["SJ", "BJ"] * 4 + [f"{suit}2" for suit in "SHCD" for _ in range(4)]
    others = [{"seat": 1, "cards": names(rest)}]
    for s in range(2, 8):
        others.append({"seat": s, "cards": names(pool[(s - 2) * 26 : (s - 1) * 26])})
    return throw, others


def test_worst_throw_answers_within_the_ceiling(stub: Stub) -> None:
    """R14.5: a 26-card throw at four decks and eight seats against seven full hands answers (or names
    ``cards`` past the work ceiling, RULES.md R14.5) well inside the RPC deadline."""
    throw, others = _worst_throw()
    body = {
        "ruleset": _table(4, 8),
        "level": "RANK_2",
        "contract": "CONTRACT_HEARTS",
        "seat": 0,
        "hand": names(throw),
        "cards": names(throw),
        "other_hands": others,
    }
    request = message(pb.ValidatePlayRequest, body)
    started = time.perf_counter()
    try:
        response = call(stub.ValidatePlay, request)
    except grpc.RpcError:
        code, violations = rejected(stub.ValidatePlay, request)
        assert (code, [name for name, _ in violations]) == (INVALID, ["cards"])
    else:
        assert response.legal
        assert response.throw_outcome.result in {
            types_pb2.THROW_RESULT_FAILED,
            types_pb2.THROW_RESULT_SUCCEEDED,
        }
    assert time.perf_counter() - started < 5.0


def _long_record(tricks: int) -> list[dict[str, Any]]:
    """``tricks`` recorded tricks of six single clubs, each won by the dealer (seat 0), who leads the next."""
    faces = ["C3", "C4", "C6", "C7", "C8", "C9", "C10", "CJ", "CQ", "CK", "D3", "D4", "D6", "D7", "D8", "D9"]
    return [
        {
            "plays": [{"seat": s, "cards": names([faces[(t * 6 + s) % len(faces)]])} for s in range(6)],
            "winner": 0,
        }
        for t in range(tricks)
    ]


def test_a_record_past_four_decks_is_refused_by_length(stub: Stub) -> None:
    """R14.1, R15.15: a hand record holds at most four decks (216 cards), counted before a card is read."""
    wide = [{"plays": [{"seat": s, "cards": names(["C3"] * 52)} for s in range(6)], "winner": 0}]
    code, violations = rejected(stub.ResolveTrick, _friend_trick(tricks_before=wide))
    assert code == INVALID
    assert [name for name, _ in violations] == ["tricks_before[0]"]


def test_a_batch_carries_one_hand_record(stub: Stub) -> None:
    """The ResolveTricks bound (services/sizes.py): one hand's record in all its items, else ``items``."""
    body = json_format.MessageToDict(_friend_trick())
    item = message(pb.ResolveTrickRequest, {**body, "tricks_before": _long_record(30)})
    code, violations = rejected(stub.ResolveTricks, pb.ResolveTricksRequest(items=[item, item]))
    assert (code, [name for name, _ in violations]) == (INVALID, ["items"])
    answered = call(stub.ResolveTricks, pb.ResolveTricksRequest(items=[item]))
    assert answered.results[0].WhichOneof("result") in {"response", "error"}


def test_validate_bury_on_a_table(stub: Stub) -> None:
    """R14.2: three decks at five seats hold hands of 31 and a bottom of 7; exactly 7 are buried."""
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    held = [f"S{rank}" for rank in ranks] * 2 + [f"H{rank}" for rank in ranks]  # 39 cards
    hand = held[:38]
    request = {"ruleset": _table(3, 5, partners="PARTNERS_FRIENDS"), "hand": names(hand)}
    good = call(stub.ValidateBury, message(pb.ValidateBuryRequest, {**request, "bury": names(hand[:7])}))
    assert good.legal
    short = call(stub.ValidateBury, message(pb.ValidateBuryRequest, {**request, "bury": names(hand[:8])}))
    assert (short.legal, short.violation) == (False, types_pb2.VIOLATION_WRONG_CARD_COUNT)
    code, violations = rejected(
        stub.ValidateBury, message(pb.ValidateBuryRequest, {**request, "hand": names(hand[:30])})
    )
    assert (code, [name for name, _ in violations]) == (INVALID, ["hand"])


# ------------------------------------------------------------------------------------------------
# random requests on other tables: always OK or INVALID_ARGUMENT

_cards = st.lists(st.integers(1, 54), max_size=12)
_seat = st.integers(0, 9)
_table_ruleset = st.fixed_dictionaries(
    {  # mostly real tables, so that the calls reach the rules
        "decks": st.one_of(st.integers(2, 4), st.integers(0, 5)),
        "seats": st.one_of(st.integers(4, 8), st.integers(0, 9)),
    },
    optional={
        "partners": st.integers(0, 3),
        "friend_calls": st.integers(0, 8),
        "multiple_join": st.integers(0, 3),
        "friend_limits": st.fixed_dictionaries({"limits": st.lists(st.integers(0, 4), max_size=4)}),
        "small_team_bonus": st.booleans(),
        "ruff_structure": st.integers(0, 2),
        "coins": st.booleans(),
    },
)
_seated = st.lists(st.fixed_dictionaries({"seat": _seat, "cards": _cards}), max_size=9)
_st_calls = st.lists(
    st.fixed_dictionaries({"card": st.integers(0, 55), "copy": st.integers(0, 5)}), max_size=4
)
_record = st.lists(
    st.fixed_dictionaries({"plays": _seated}, optional={"winner": _seat, "attempted_lead": _cards}),
    max_size=3,
)
_st_common: dict[str, st.SearchStrategy[Any]] = {
    "ruleset": _table_ruleset,
    "level": st.integers(0, 15),
    "contract": st.integers(0, 6),
}
_st_requests: st.SearchStrategy[tuple[str, dict[str, Any]]] = st.one_of(
    st.tuples(
        st.just("ValidatePlay"),
        st.fixed_dictionaries(
            {**_st_common, "seat": _seat, "hand": _cards, "cards": _cards},
            optional={
                "trick": st.fixed_dictionaries({"leader": _seat, "plays": _seated}),
                "other_hands": _seated,
            },
        ),
    ),
    st.tuples(
        st.just("ResolveTrick"),
        st.fixed_dictionaries(
            {**_st_common, "leader": _seat, "dealer": _seat, "plays": _seated},
            optional={
                "hands": _seated,
                "last_trick": st.booleans(),
                "bottom": _cards,
                "friend_calls": _st_calls,
                "tricks_before": _record,
            },
        ),
    ),
    st.tuples(
        st.just("SettleHand"),
        st.fixed_dictionaries(
            {"ruleset": _table_ruleset, "dealer": _seat, "contract": st.integers(0, 6), "tricks": _record},
            optional={
                "seat_levels": st.lists(st.integers(0, 15), max_size=9),
                "friend_calls": _st_calls,
                "dig_points": st.integers(0, 10**13),
                "failed_throws": st.lists(
                    st.fixed_dictionaries({"seat": _seat, "cards": st.integers(0, 60)}), max_size=3
                ),
            },
        ),
    ),
)


@settings(max_examples=150, deadline=None)
@given(_st_requests)
def test_random_table_requests_are_answered_or_refused(stub: Stub, drawn: tuple[str, dict[str, Any]]) -> None:
    """R14, R15 over the wire: whatever a client sends is answered or INVALID_ARGUMENT, never INTERNAL."""
    method, body = drawn
    cls = getattr(pb, f"{method}Request")
    request = cls()
    json_format.ParseDict(body, request)
    try:
        getattr(stub, method)(request, timeout=10.0)
    except grpc.RpcError as error:
        assert error.code() == INVALID, (error.code(), error.details())


def test_coins_are_inert_on_other_tables(stub: Stub) -> None:
    """R14.10: COINS may stay on in a ruleset of another table; only the coin calls refuse that table."""
    response = call(stub.ValidatePlay, _play(_table(3, 6, coins=True)))
    assert response.legal


def test_worst_follow_ladder_answers_quickly(stub: Stub) -> None:
    """R14.6 (the worst four-deck follow of tests/test_tables.py): six non-adjacent triples led against
    six quadruples and six singles; the ladder's search answers well inside the RPC deadline."""
    led = ["H2", "H4", "H7", "H9", "HJ", "HK"]  # at L=5, T=C: every other heart
    held = ["H3", "H6", "H8", "H10", "HQ", "HA"]
    body = {
        "ruleset": _table(4, 6),
        "level": "RANK_5",
        "contract": "CONTRACT_CLUBS",
        "seat": 1,
        "hand": names([card for card in held for _ in range(4)] + led),
        "cards": names([card for card in held for _ in range(3)]),
        "trick": {
            "leader": 0,
            "plays": [{"seat": 0, "cards": names([card for card in led for _ in range(3)])}],
        },
    }
    started = time.perf_counter()
    response = call(stub.ValidatePlay, message(pb.ValidatePlayRequest, body))
    assert response.legal  # six triples cut from six quadruples follow six triples
    assert time.perf_counter() - started < 5.0


def test_fixed_partners_resolve_any_trick_without_a_record(stub: Stub) -> None:
    """R14.9: with fixed partners the sides need no record: seat 3 leads a later trick of a six-seat hand
    dealt by 0, and the dealer's side is 0, 2, 4 whoever leads."""
    body = {
        "ruleset": _table(3, 6),
        "level": "RANK_5",
        "contract": "CONTRACT_HEARTS",
        "leader": 3,
        "dealer": 0,
        "plays": [
            {"seat": (3 + i) % 6, "cards": names([card])}
            for i, card in enumerate(["SK", "S3", "SA", "S4", "S6", "S7"])
        ],
    }
    response = call(stub.ResolveTrick, message(pb.ResolveTrickRequest, body))
    assert response.winner == 5  # SA, played by the third seat from 3
    assert list(response.dealer_side) == [0, 2, 4]
    assert response.attacker_points == response.trick_points == 10  # seat 5 attacks: (5 - 0) is odd


def test_two_deck_tables_have_their_hand_size(stub: Stub) -> None:
    """R14.2: two decks at six seats deal hands of 17: an 18-card hand is refused, naming ``hand``."""
    ranks = ["2", "3", "4", "6", "7", "8", "9", "10", "J"]
    hand = [f"{suit}{rank}" for suit in "CD" for rank in ranks]  # 18 cards
    code, violations = rejected(
        stub.ValidatePlay, _play(_table(2, 6), hand=names(hand), cards=names(hand[:1]))
    )
    assert (code, [name for name, _ in violations]) == (INVALID, ["hand"])
    legal = call(stub.ValidatePlay, _play(_table(2, 6), hand=names(hand[:17]), cards=names(hand[:1])))
    assert legal.legal


def test_batches_mix_tables(stub: Stub) -> None:
    """A ValidatePlays batch judges each item on its own table; a bad table names its item's field."""
    items = [_play({"preset": "default"}), _play(_table(3, 6)), _play(_table(3, 9))]
    results = call(stub.ValidatePlays, pb.ValidatePlaysRequest(items=items)).results
    assert [result.WhichOneof("result") for result in results] == ["response", "response", "error"]
    assert results[0].response == call(stub.ValidatePlay, items[0])
    assert results[1].response == call(stub.ValidatePlay, items[1])
    assert "items[2].ruleset.seats" in results[2].error.message


def test_the_trick_so_far_shares_the_decks_with_the_hand(stub: Stub) -> None:
    """R14.1: four decks hold four SA: two in hand and three already played are refused, naming the play."""
    trick = {"leader": 0, "plays": [{"seat": 0, "cards": names(["SA", "SA", "SA"])}]}
    request = _play(_table(4, 6), seat=1, hand=names(["SA", "SA", "SK"]), cards=names(["SA", "SA", "SK"]))
    request.trick.CopyFrom(message(pb.Trick, trick))
    code, violations = rejected(stub.ValidatePlay, request)
    assert (code, [name for name, _ in violations]) == (INVALID, ["trick.plays[0].cards[2]"])


UNARY_RPCS = [
    method.name
    for method in pb.DESCRIPTOR.services_by_name["RulesService"].methods
    if method.name not in {"ValidatePlays", "ResolveTricks"}
]


@pytest.mark.parametrize("method", UNARY_RPCS)
@pytest.mark.parametrize(
    ("ruleset", "field"),
    [
        pytest.param(_table(2, 5), "ruleset.partners", id="five-seats-fixed"),  # R15.1
        pytest.param(
            _table(3, 6, throw_ruff_compare="THROW_RUFF_COMPARE_ALL"),
            "ruleset.throw_ruff_compare",
            id="all-3-decks",
        ),
        pytest.param(
            _table(4, 8, ruff_structure="RUFF_STRUCTURE_COUNT"), "ruleset.ruff_structure", id="count-4-decks"
        ),
    ],
)
def test_every_rpc_refuses_a_table_the_same_way(
    stub: Stub, method: str, ruleset: dict[str, Any], field: str
) -> None:
    """Issue 25: a table an option cannot apply to is refused by every RPC alike, naming the field (no RPC
    answers it and none ignores the option): decided once, when the ruleset is read."""
    request_type = getattr(pb, f"{method}Request")
    request = message(request_type, {"ruleset": ruleset})
    code, violations = rejected(getattr(stub, method), request)
    assert (code, [name for name, _ in violations]) == (INVALID, [field])
