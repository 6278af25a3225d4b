"""Advice and declarations on other tables over the wire (R14, R14.11): ListLegalPlays, SuggestPlay,
SuggestBury, SuggestDeclaration and ValidateDeclaration through a live loopback server.

Every answer is checked with the engine's own wire checks (ValidatePlay, ValidateBury,
ValidateDeclaration), so each test asserts legality rather than a particular policy's choice.
"""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tables_wire import _cards, _seat, _seated, _st_common, _table_ruleset
from test_worked_cases_wire import _CONTRACTS, rank, ruleset
from wire import call, message, names, notation, rejected
from worked_cases import Case, cases, seat, table_of

from rules_core.cards import NUM_FACES, format_card
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

Stub = rules_service_pb2_grpc.RulesServiceStub
INVALID = grpc.StatusCode.INVALID_ARGUMENT
TABLES = [(3, 6, "PARTNERS_FRIENDS"), (4, 8, "PARTNERS_FIXED"), (2, 6, "PARTNERS_FIXED")]


def _table(decks: int, seats: int, partners: str = "PARTNERS_FIXED") -> dict[str, Any]:
    return {"preset": "default", "decks": decks, "seats": seats, "partners": partners}


def _deal(rng: random.Random, decks: int, seats: int, size: int) -> list[list[str]]:
    deck = [format_card(f) for f in range(NUM_FACES) for _ in range(decks)]
    rng.shuffle(deck)
    return [deck[i * size : (i + 1) * size] for i in range(seats)] + [deck[seats * size :]]


_SIZES = {(3, 6): (26, 6), (4, 8): (26, 8), (2, 6): (17, 6)}


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_a_trick_by_suggestions(stub: Stub, decks: int, seats: int, partners: str) -> None:
    """R14.5, R14.6: every seat's listing, unranked and ranked by the strong evaluation, holds only legal
    plays and its suggestion (the strong policy's, so labelled) is legal, checked by ValidatePlay against
    the other hands as they are."""
    rng = random.Random(decks * 10 + seats)
    size, _ = _SIZES[(decks, seats)]
    table = _table(decks, seats, partners)
    for _ in range(2):
        hands = _deal(rng, decks, seats, size)[:seats]
        head = {"ruleset": table, "level": "RANK_5", "contract": "CONTRACT_SPADES"}
        plays: list[dict[str, Any]] = []
        for i in range(seats):
            turn = {**head, "seat": i, "hand": names(hands[i]), "trick": {"leader": 0, "plays": plays}}
            listing = call(stub.ListLegalPlays, message(pb.ListLegalPlaysRequest, {**turn, "max_plays": 12}))
            suggestion = call(stub.SuggestPlay, message(pb.SuggestPlayRequest, turn))
            others = (
                [{"seat": s, "cards": names(hands[s])} for s in range(seats) if s != i] if not plays else []
            )
            ranked = call(
                stub.ListLegalPlays,
                message(pb.ListLegalPlaysRequest, {**turn, "max_plays": 12, "rank": True}),
            )
            assert suggestion.policy == pb.PLAY_POLICY_STRONG and suggestion.reason.startswith("strong:")
            assert all(p.HasField("score") for p in ranked.plays)  # the strong evaluation, every table
            scores = [p.score for p in ranked.plays]
            assert scores == sorted(scores, reverse=True)
            candidates = [
                *[list(p.cards) for p in listing.plays][:4],
                *[list(p.cards) for p in ranked.plays][:2],
                list(suggestion.cards),
            ]
            assert listing.plays and len(listing.plays) <= 12
            for cards in candidates:
                check = {**turn, "cards": cards, "other_hands": others}
                verdict = call(stub.ValidatePlay, message(pb.ValidatePlayRequest, check))
                assert verdict.legal, (notation(cards), verdict.message)
            played = notation(suggestion.cards)
            for name in played:
                hands[i].remove(name)
            plays.append({"seat": i, "cards": names(played)})


@pytest.mark.parametrize(("decks", "seats", "partners"), [*TABLES, (4, 4, "PARTNERS_FIXED")])
def test_suggestions_told_the_tables_history(stub: Stub, decks: int, seats: int, partners: str) -> None:
    """SuggestPlay and a ranked ListLegalPlays told the finished tricks of N plays (``hand_so_far``, as
    a table sends them) answer on every table, each suggestion legal; a history longer than the table's
    hand has tricks (R14.2: 52 on four decks and four seats) is refused naming ``hand_so_far.tricks``."""
    rng = random.Random(decks * 100 + seats)
    size = {(4, 4): 52}.get((decks, seats)) or _SIZES[(decks, seats)][0]
    table = _table(decks, seats, partners)
    hands = _deal(rng, decks, seats, size)[:seats]
    head = {"ruleset": table, "level": "RANK_5", "contract": "CONTRACT_SPADES"}
    tricks: list[dict[str, Any]] = []
    leader = 0
    for _ in range(3):
        plays: list[dict[str, Any]] = []
        for offset in range(seats):
            seat_ = (leader + offset) % seats
            so_far = {"dealer": 0, "tricks": tricks}
            turn = {
                **head,
                "seat": seat_,
                "hand": names(hands[seat_]),
                "trick": {"leader": leader, "plays": plays},
            }
            suggestion = call(
                stub.SuggestPlay, message(pb.SuggestPlayRequest, {**turn, "hand_so_far": so_far})
            )
            ranked = {**turn, "hand_so_far": so_far, "rank": True, "max_plays": 4}
            assert call(stub.ListLegalPlays, message(pb.ListLegalPlaysRequest, ranked)).plays
            others = (
                [{"seat": s, "cards": names(hands[s])} for s in range(seats) if s != seat_]
                if not plays
                else []
            )
            check = {**turn, "cards": list(suggestion.cards), "other_hands": others}
            verdict = call(stub.ValidatePlay, message(pb.ValidatePlayRequest, check))
            assert verdict.legal, (notation(suggestion.cards), verdict.message)
            led = verdict.throw_outcome.led if verdict.HasField("throw_outcome") else suggestion.cards
            played = notation(led)  # R4.7: a failed throw leads its forced component
            for name in played:
                hands[seat_].remove(name)
            plays.append({"seat": seat_, "cards": names(played)})
        tricks.append({"plays": plays})
        fixed = {**head, "ruleset": {**table, "partners": "PARTNERS_FIXED"}}  # the winner is the same
        done = message(pb.ResolveTrickRequest, {**fixed, "leader": leader, "plays": plays, "dealer": 0})
        leader = call(stub.ResolveTrick, done).winner
    longer = {"dealer": 0, "tricks": [tricks[0]] * (size + 1)}
    turn = {**head, "seat": 0, "hand": names(hands[0]), "hand_so_far": longer}
    code, violations = rejected(stub.SuggestPlay, message(pb.SuggestPlayRequest, turn))
    assert code == INVALID and ("hand_so_far.tricks", "BAD_SIZE") in violations


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_bury_suggestion(stub: Stub, decks: int, seats: int, partners: str) -> None:
    """R14.2: the suggested bury is the bottom's size and ValidateBury finds it legal."""
    rng = random.Random(seats)
    size, bottom = _SIZES[(decks, seats)]
    dealt = _deal(rng, decks, seats, size)
    head = {"ruleset": _table(decks, seats, partners), "level": "RANK_5", "contract": "CONTRACT_SPADES"}
    hand = names(dealt[0] + dealt[-1])
    advice = call(stub.SuggestBury, message(pb.SuggestBuryRequest, {**head, "hand": hand}))
    assert len(advice.cards) == bottom
    body = {"ruleset": head["ruleset"], "hand": hand, "bury": list(advice.cards)}
    assert call(stub.ValidateBury, message(pb.ValidateBuryRequest, body)).legal
    auto = {**head, "hand": hand, "policy": "BURY_POLICY_AUTO_BURY"}
    assert rejected(stub.SuggestBury, message(pb.SuggestBuryRequest, auto))[0] == INVALID


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_declaration_suggestion(stub: Stub, decks: int, seats: int, partners: str) -> None:
    """R14.11: D copies of a level card with enough trumps are suggested, and ValidateDeclaration
    accepts them with the same act."""
    received = ["H5"] * decks + ["H2", "H3", "H4", "SJ"]
    head = {"ruleset": _table(decks, seats, partners), "level": "RANK_5"}
    body = {**head, "seat": 1, "received": names(received)}
    advice = call(stub.SuggestDeclaration, message(pb.SuggestDeclarationRequest, body))
    assert notation(advice.cards) == ["H5"] * decks
    act = {"seat": 1, "cards": list(advice.cards), "hand": names(received)}
    check = {**head, "declarations": [act], "first_hand": True}
    verdicts = call(stub.ValidateDeclaration, message(pb.ValidateDeclarationRequest, check))
    assert verdicts.accepted and verdicts.verdicts[0].act == advice.act
    assert verdicts.contract == types_pb2.CONTRACT_HEARTS and verdicts.dealer == 1


def _table_declare_cases() -> list[Any]:
    return [p for p in cases("declare", tables=True) if table_of(p.values[0]) != (2, 4)]


@pytest.mark.parametrize("case", _table_declare_cases())
def test_declare_cases(stub: Stub, case: Case) -> None:
    """WC-340 onwards over the wire: each act's label, the contract, O and the first dealer (R14.11)."""
    decks, seats = table_of(case)
    data = case["input"]
    partners = "PARTNERS_FRIENDS" if seats % 2 else "PARTNERS_FIXED"
    body = {
        "ruleset": {**ruleset(case), "decks": decks, "seats": seats, "partners": partners},
        "level": rank(case["level"]),
        "declarations": [{"seat": seat(a["seat"]), "cards": names(a["cards"])} for a in data["sequence"]],
        "first_hand": data["first_hand"],
        "first_seated": seat(data["first_seated"]),
    }
    response = call(stub.ValidateDeclaration, message(pb.ValidateDeclarationRequest, body))
    expect = case["expect"]
    assert response.contract == types_pb2.Contract.Value(_CONTRACTS[expect["contract"]])
    assert response.overturn_multiplier == expect["O"]
    assert response.dealer == seat(expect["dealer"])
    labels = [
        pb.DeclarationAct.Name(v.act).removeprefix("DECLARATION_ACT_")[:2] if v.accepted else "REJECTED"
        for v in response.verdicts
    ]
    assert labels == expect["acts"]


BAD = [
    pytest.param(
        "ValidateDeclaration",
        pb.ValidateDeclarationRequest,
        {"level": "RANK_2", "declarations": [{"seat": 0, "cards": names(["H2"] * 4)}]},
        "declarations[0].cards[3]",
        id="fourth-copy",
    ),
    pytest.param(
        "ValidateDeclaration",
        pb.ValidateDeclarationRequest,
        {"level": "RANK_2", "declarations": [{"seat": 6, "cards": names(["H2"])}]},
        "declarations[0].seat",
        id="seat",
    ),
    pytest.param(
        "ValidateDeclaration",
        pb.ValidateDeclarationRequest,
        {"level": "RANK_2", "bottom": names(["H2"] * 6)},
        "bottom",
        id="bottom",
    ),
    pytest.param(
        "ListLegalPlays",
        pb.ListLegalPlaysRequest,
        {"level": "RANK_2", "contract": "CONTRACT_SPADES", "seat": 6, "hand": names(["SA"])},
        "seat",
        id="list-seat",
    ),
    pytest.param(
        "ListLegalPlays",
        pb.ListLegalPlaysRequest,
        {
            "level": "RANK_2",
            "contract": "CONTRACT_SPADES",
            "seat": 1,
            "hand": names(["HA", "HA", "HK"]),
            "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names(["HA", "HA"])}]},
        },
        "trick.plays[0].cards[1]",
        id="list-lead-copies",
    ),
    pytest.param(
        "SuggestPlay",
        pb.SuggestPlayRequest,
        {
            "level": "RANK_2",
            "contract": "CONTRACT_SPADES",
            "seat": 1,
            "hand": names(["HA", "HK"]),
            "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names(["HQ", "CQ"])}]},
        },
        "trick.plays[0].cards",
        id="suggest-mixed-lead",
    ),
    pytest.param(
        "SuggestPlay",
        pb.SuggestPlayRequest,
        {"level": "RANK_2", "contract": "CONTRACT_SPADES", "seat": 0, "hand": names(["SA"] * 4)},
        "hand[3]",
        id="suggest-copies",
    ),
    pytest.param(
        "SuggestBury",
        pb.SuggestBuryRequest,
        {"level": "RANK_2", "contract": "CONTRACT_SPADES", "hand": names(["SA"])},
        "hand",
        id="bury-size",
    ),
    pytest.param(
        "SuggestDeclaration",
        pb.SuggestDeclarationRequest,
        {"level": "RANK_2", "seat": 9, "received": names(["SA"])},
        "seat",
        id="declare-seat",
    ),
]


@pytest.mark.parametrize(("method", "cls", "body", "field"), BAD)
def test_bad_input(stub: Stub, method: str, cls: Any, body: dict[str, Any], field: str) -> None:
    """Bad input on a three-deck six-seat table is INVALID_ARGUMENT naming its field, never INTERNAL."""
    request = message(cls, {"ruleset": _table(3, 6, "PARTNERS_FRIENDS"), **body})
    code, violations = rejected(getattr(stub, method), request)
    assert code == INVALID
    assert [name for name, _ in violations] == [field]


_declarations = st.lists(
    st.fixed_dictionaries({"seat": _seat, "cards": _cards}, optional={"hand": _cards}), max_size=4
)
_st_advice: st.SearchStrategy[tuple[str, dict[str, Any]]] = st.one_of(
    st.tuples(
        st.sampled_from(["ListLegalPlays", "SuggestPlay"]),
        st.fixed_dictionaries(
            {**_st_common, "seat": _seat, "hand": _cards},
            optional={"trick": st.fixed_dictionaries({"leader": _seat, "plays": _seated})},
        ),
    ),
    st.tuples(
        st.just("SuggestBury"),
        st.fixed_dictionaries({**_st_common, "hand": _cards}, optional={"bottom": _cards}),
    ),
    st.tuples(
        st.just("ValidateDeclaration"),
        st.fixed_dictionaries(
            {"ruleset": _table_ruleset, "level": st.integers(0, 15), "declarations": _declarations},
            optional={"first_hand": st.booleans(), "first_seated": _seat, "dealer": _seat},
        ),
    ),
    st.tuples(
        st.just("SuggestDeclaration"),
        st.fixed_dictionaries(
            {
                "ruleset": _table_ruleset,
                "level": st.integers(0, 15),
                "seat": _seat,
                "received": _cards,
                "declarations": _declarations,
            }
        ),
    ),
)


@settings(max_examples=150, deadline=None)
@given(_st_advice)
def test_random_advice_requests_are_answered_or_refused(
    stub: Stub, drawn: tuple[str, dict[str, Any]]
) -> None:
    """Whatever a client sends to the advice RPCs on any table is answered or INVALID_ARGUMENT, never
    INTERNAL; an answered play suggestion is a legal play (ValidatePlay)."""
    method, body = drawn
    request = json_format.ParseDict(body, getattr(pb, f"{method}Request")())
    try:
        answer = getattr(stub, method)(request, timeout=10.0)
    except grpc.RpcError as error:
        assert error.code() == INVALID, (error.code(), error.details())
        return
    if method == "SuggestPlay" and "trick" in body and body["trick"]["plays"]:
        check = json_format.ParseDict({**body, "cards": list(answer.cards)}, pb.ValidatePlayRequest())
        assert call(stub.ValidatePlay, check).legal
