"""The malformed-request matrix: one bad field per case, each answered INVALID_ARGUMENT naming that field.

Every case starts from a valid request (checked first), breaks exactly one thing, and expects the
``google.rpc.BadRequest`` violation to name the broken field by its path, with its reason code. Nothing
may come back INTERNAL, and every call has a deadline, so nothing can hang.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from wire import call, message, names, rejected

from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

Stub = rules_service_pb2_grpc.RulesServiceStub
Body = dict[str, Any]

FOLLOWER = "SQ SQ SJack SJack S2 S4 H6 H7 H8 H9 C8 C9 C10 CJ CQ CK CA D2 D3 D4 D6 D7 D8 D9 D10"
LEADER = "S9 S9 S8 S8 SA SK S3 H2 H3 H4 C2 C3 C4 C6 C7 D2 D3 D4 D6 D7 D8 D9 D10 DJ DQ"
DEALER_33 = LEADER + " S5 S5 C5 H5 D5 DK DA DA"
BOTTOM = "S5 S5 C5 H5 D5 DK DA DA"


def follow() -> Body:
    """Seat 1 follows seat 0's S9 S9 at L=5, T=H."""
    return {
        "level": "RANK_5",
        "contract": "CONTRACT_HEARTS",
        "seat": 1,
        "hand": names(FOLLOWER),
        "cards": names("SQ SQ"),
        "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names("S9 S9")}]},
    }


def lead() -> Body:
    """Seat 0 throws S9 S9 S8 S8 SA against the other three hands."""
    return {
        "level": "RANK_5",
        "contract": "CONTRACT_HEARTS",
        "seat": 0,
        "hand": names(LEADER),
        "cards": names("S9 S9 S8 S8 SA"),
        "other_hands": [
            {"seat": 1, "cards": names(FOLLOWER)},
            {"seat": 2, "cards": names("S6 S6 S7")},
            {"seat": 3, "cards": names("C5 C5")},
        ],
    }


def trick() -> Body:
    return {
        "level": "RANK_5",
        "contract": "CONTRACT_HEARTS",
        "leader": 0,
        "dealer": 0,
        "plays": [{"seat": s, "cards": names(c)} for s, c in enumerate(["S9 S9", "SQ SQ", "S6 S6", "S2 S3"])],
    }


def settle() -> Body:
    return {
        "ruleset": {"preset": "rulebook-003"},
        "dealer": 0,
        "dealer_team_level": "RANK_7",
        "attacker_level": "RANK_4",
        "score": 40,
        "tao_dou": {"base": 100, "overturn_multiplier": 2, "rake_percent": 5},
    }


def quit_() -> Body:
    return {
        "phase": "QUIT_PHASE_Q2_BEFORE_BURYING",
        "seat": 0,
        "role": "ROLE_DEALER",
        "base": 100,
        "dealer_level": "RANK_5",
        "overturn_multiplier": 2,
        "balance": 5000,
        "level": "RANK_5",
        "contract": "CONTRACT_HEARTS",
        "dealer_hand": names(DEALER_33),
        "bottom": names(BOTTOM),
    }


def declare() -> Body:
    return {
        "level": "RANK_2",
        "first_hand": True,
        "declarations": [
            {"seat": 0, "cards": names("H2"), "hand": names("H2 S9")},
            {"seat": 1, "cards": names("S2 S2")},
        ],
    }


def bury() -> Body:
    return {"hand": names(DEALER_33), "bury": names(BOTTOM)}


def listing() -> Body:
    body = follow()
    del body["cards"]
    return body


RPCS: dict[str, tuple[str, type[Message], Callable[[], Body]]] = {
    "follow": ("ValidatePlay", pb.ValidatePlayRequest, follow),
    "lead": ("ValidatePlay", pb.ValidatePlayRequest, lead),
    "trick": ("ResolveTrick", pb.ResolveTrickRequest, trick),
    "settle": ("SettleHand", pb.SettleHandRequest, settle),
    "quit": ("CalculatePenalty", pb.CalculatePenaltyRequest, quit_),
    "declare": ("ValidateDeclaration", pb.ValidateDeclarationRequest, declare),
    "bury": ("ValidateBury", pb.ValidateBuryRequest, bury),
    "list": ("ListLegalPlays", pb.ListLegalPlaysRequest, listing),
    "suggest": ("SuggestPlay", pb.SuggestPlayRequest, listing),
}


def both(first: Callable[[Body], None], second: Callable[[Body], None]) -> Callable[[Body], None]:
    """Two mutations, one after the other."""

    def apply(body: Body) -> None:
        first(body)
        second(body)

    return apply


def put(path: str, value: Any) -> Callable[[Body], None]:
    """A mutation setting ``a.b[1].c`` (lists by index, dicts by key) to ``value``; None deletes it."""

    def apply(body: Body) -> None:
        keys: list[Any] = []
        for part in path.split("."):
            name, _, rest = part.partition("[")
            keys.append(name)
            keys.extend(int(index) for index in rest.rstrip("]").split("][") if index)
        target: Any = body
        for key in keys[:-1]:
            target = target.setdefault(key, {}) if isinstance(target, dict) else target[key]
        if value is None:
            del target[keys[-1]]
        else:
            target[keys[-1]] = value

    return apply


def hand_of(size: int) -> list[str]:
    """``size`` distinct cards (one copy of each face from the 2 of spades on)."""
    return [f"CARD_{name}" for name in [*_SUITED, "SJ", "BJ"][:size]]


_SUITED = [
    suit + rank
    for suit in "SHCD"
    for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "JACK" if suit == "S" else "J", "Q", "K", "A")
]

# (rpc, mutation, field named, reason)
MATRIX: list[tuple[str, Callable[[Body], None], str, str]] = [
    # unknown cards: a number the contract does not define, and the zero value
    ("follow", put("hand[3]", 99), "hand[3]", "UNKNOWN_VALUE"),
    ("follow", put("cards[1]", 0), "cards[1]", "UNKNOWN_VALUE"),
    ("follow", put("trick.plays[0].cards[0]", 55), "trick.plays[0].cards[0]", "UNKNOWN_VALUE"),
    ("lead", put("other_hands[1].cards[0]", 1000), "other_hands[1].cards[0]", "UNKNOWN_VALUE"),
    ("trick", put("plays[3].cards[1]", 77), "plays[3].cards[1]", "UNKNOWN_VALUE"),
    ("bury", put("bury[0]", 0), "bury[0]", "UNKNOWN_VALUE"),
    ("declare", put("declarations[1].cards[0]", 60), "declarations[1].cards[0]", "UNKNOWN_VALUE"),
    # more copies than two decks hold: inside one list, and across fields
    ("follow", put("cards", names("SQ SQ SQ")), "cards[2]", "TOO_MANY_COPIES"),
    ("follow", put("trick.plays[0].cards", names("SQ SQ")), "trick.plays[0].cards[0]", "TOO_MANY_COPIES"),
    ("lead", put("other_hands[2].cards", names("S9 D3")), "other_hands[2].cards[0]", "TOO_MANY_COPIES"),
    ("trick", put("plays[2].cards", names("S9 S9")), "plays[2].cards[0]", "TOO_MANY_COPIES"),
    (
        "trick",
        put("hands", [{"seat": s, "cards": names("S9 S9 H2")} for s in range(4)]),
        "hands[1].cards[0]",
        "TOO_MANY_COPIES",
    ),
    ("bury", put("bury", names("DA DA DA S5 S5 C5 H5 D5")), "bury[2]", "TOO_MANY_COPIES"),
    # hands of impossible size
    ("follow", put("hand", hand_of(26)), "hand", "BAD_SIZE"),
    ("follow", put("hand", []), "hand", "BAD_SIZE"),
    ("follow", put("hand", names("SQ")), "hand", "BAD_SIZE"),  # fewer cards than were led
    ("lead", put("other_hands[0].cards", hand_of(27)), "other_hands[0].cards", "BAD_SIZE"),
    ("bury", put("hand", names(LEADER + " S5")), "hand", "BAD_SIZE"),
    ("quit", put("dealer_hand", names(LEADER + " S5 S5")), "dealer_hand", "BAD_SIZE"),
    ("quit", put("bottom", names("S5 S5")), "bottom", "BAD_SIZE"),
    ("declare", put("declarations[0].hand", hand_of(26)), "declarations[0].hand", "BAD_SIZE"),
    ("trick", put("plays[1].cards", names("SQ")), "plays[1].cards", "BAD_SIZE"),
    ("trick", put("last_trick", True), "bottom", "BAD_SIZE"),
    # a trick out of order
    ("follow", put("seat", 3), "seat", "OUT_OF_ORDER"),
    ("follow", put("trick.plays[0].seat", 2), "trick.plays[0].seat", "OUT_OF_ORDER"),
    ("follow", put("trick.leader", 3), "trick.plays[0].seat", "OUT_OF_ORDER"),
    (
        "follow",
        put("trick.plays", [{"seat": s, "cards": names(c)} for s, c in enumerate(["S9", "S8", "S3", "SA"])]),
        "trick.plays",
        "BAD_SIZE",
    ),
    ("trick", put("plays[2].seat", 3), "plays[2].seat", "OUT_OF_ORDER"),
    ("trick", lambda body: body["plays"].pop(), "plays", "BAD_SIZE"),
    ("lead", put("other_hands[2].seat", 1), "other_hands[2].seat", "OUT_OF_ORDER"),
    ("lead", put("other_hands[0].seat", 0), "other_hands[0].seat", "INCONSISTENT"),
    ("lead", lambda body: body["other_hands"].pop(), "other_hands", "MISSING"),
    ("lead", put("other_hands", None), "other_hands", "MISSING"),
    ("lead", put("trick", {"leader": 2}), "trick.leader", "OUT_OF_ORDER"),
    ("follow", put("trick.plays[0].cards", names("S9 H9")), "trick.plays[0].cards", "INCONSISTENT"),
    # seats out of range
    ("follow", put("seat", 4), "seat", "OUT_OF_RANGE"),
    ("follow", put("trick.leader", 7), "trick.leader", "OUT_OF_RANGE"),
    ("lead", put("other_hands[1].seat", 9), "other_hands[1].seat", "OUT_OF_RANGE"),
    ("trick", put("leader", 4), "leader", "OUT_OF_RANGE"),
    ("trick", put("dealer", 12), "dealer", "OUT_OF_RANGE"),
    ("settle", put("dealer", 4), "dealer", "OUT_OF_RANGE"),
    ("quit", put("seat", 5), "seat", "OUT_OF_RANGE"),
    ("declare", put("declarations[1].seat", 4), "declarations[1].seat", "OUT_OF_RANGE"),
    ("declare", put("first_seated", 8), "first_seated", "OUT_OF_RANGE"),
    ("list", put("seat", 6), "seat", "OUT_OF_RANGE"),
    # ruleset options that do not exist
    ("follow", put("ruleset", {"preset": "rulebook-999"}), "ruleset.preset", "UNKNOWN_VALUE"),
    ("follow", put("ruleset", {"throw_check": 9}), "ruleset.throw_check", "UNKNOWN_VALUE"),
    ("trick", put("ruleset", {"ruff_structure": 3}), "ruleset.ruff_structure", "UNKNOWN_VALUE"),
    ("trick", put("ruleset", {"dig_multiplier": 5}), "ruleset.dig_multiplier", "UNKNOWN_VALUE"),
    ("trick", put("ruleset", {"dig_shape": 4}), "ruleset.dig_shape", "UNKNOWN_VALUE"),
    ("declare", put("ruleset", {"first_dealer": 3}), "ruleset.first_dealer", "UNKNOWN_VALUE"),
    ("declare", put("ruleset", {"bid_set": 3}), "ruleset.bid_set", "UNKNOWN_VALUE"),
    ("declare", put("ruleset", {"bid_stages": 6}), "ruleset.bid_stages", "UNKNOWN_VALUE"),
    ("settle", put("ruleset", {"end_rule": 3}), "ruleset.end_rule", "UNKNOWN_VALUE"),
    (
        "settle",
        put("ruleset", {"must_play": {"levels": [15]}}),
        "ruleset.must_play.levels[0]",
        "UNKNOWN_VALUE",
    ),
    (
        "settle",
        put("ruleset", {"must_play": {"levels": ["RANK_UNSPECIFIED"]}}),
        "ruleset.must_play.levels[0]",
        "MISSING",
    ),
    # R16.1 LEVEL-TABLE: a bad parameter, and a combination past the deck's points
    (
        "settle",
        put("ruleset", {"level_table": {"step_points": 42}}),
        "ruleset.level_table.step_points",
        "OUT_OF_RANGE",
    ),
    (
        "settle",
        put("ruleset", {"level_table": {"dead_zone_steps": 2}}),
        "ruleset.level_table.dead_zone_steps",
        "OUT_OF_RANGE",
    ),
    (
        "settle",
        put("ruleset", {"level_table": {"step_points": 45, "take_over_steps": 5}}),
        "ruleset.level_table.take_over_steps",
        "INCONSISTENT",
    ),
    # R16.2 THROW-PENALTY: an amount without a penalty, a bad amount, bad failed throws
    ("settle", put("ruleset", {"throw_penalty_points": 10}), "ruleset.throw_penalty_points", "INCONSISTENT"),
    (
        "settle",
        put("ruleset", {"throw_penalty": "THROW_PENALTY_PER_CARD", "throw_penalty_points": 7}),
        "ruleset.throw_penalty_points",
        "OUT_OF_RANGE",
    ),
    ("settle", put("ruleset", {"throw_penalty": 9}), "ruleset.throw_penalty", "UNKNOWN_VALUE"),
    ("settle", put("failed_throws", [{"seat": 4, "cards": 3}]), "failed_throws[0].seat", "OUT_OF_RANGE"),
    ("settle", put("failed_throws", [{"seat": 1, "cards": 1}]), "failed_throws[0].cards", "OUT_OF_RANGE"),
    ("settle", put("failed_throws", [{"seat": 1, "cards": 2}] * 26), "failed_throws", "BAD_SIZE"),
    # R16.5: a named must-play set and levels together
    (
        "settle",
        put("ruleset", {"must_play": {"levels": ["RANK_10"], "named": "MUST_PLAY_SET_DEFEND_POINTS"}}),
        "ruleset.must_play.named",
        "INCONSISTENT",
    ),
    ("settle", put("ruleset", {"must_play": {"named": 9}}), "ruleset.must_play.named", "UNKNOWN_VALUE"),
    # R16.6 NO-BID from the bottom: the bottom is required when nobody declared, 8 cards whenever given
    (
        "declare",
        both(put("declarations", []), put("ruleset", {"no_bid": "NO_BID_BOTTOM_LEVEL_OR_HIGHEST"})),
        "bottom",
        "MISSING",
    ),
    ("declare", put("bottom", names("S2 S3 S4")), "bottom", "BAD_SIZE"),
    ("declare", put("ruleset", {"no_bid": 9}), "ruleset.no_bid", "UNKNOWN_VALUE"),
    # R16.4 JACK: the last trick's winner is checked under every ruleset
    (
        "settle",
        put("last_trick_winner", {"seat": 4, "cards": names("SJack")}),
        "last_trick_winner.seat",
        "OUT_OF_RANGE",
    ),
    ("settle", put("last_trick_winner", {"seat": 1}), "last_trick_winner.cards", "BAD_SIZE"),
    (
        "settle",
        put("last_trick_winner", {"seat": 1, "cards": [99]}),
        "last_trick_winner.cards[0]",
        "UNKNOWN_VALUE",
    ),
    ("settle", put("ruleset", {"jack_rule": 7}), "ruleset.jack_rule", "UNKNOWN_VALUE"),
    ("follow", put("ruleset", {"follow_rule": 5}), "ruleset.follow_rule", "UNKNOWN_VALUE"),
    # R16.7 THROW-RUFF: ALL and TRICK_UNIT_LENGTH read units, which RUFF-COUNT (own or the preset's) cannot
    ("trick", put("ruleset", {"throw_ruff_compare": 9}), "ruleset.throw_ruff_compare", "UNKNOWN_VALUE"),
    (
        "trick",
        put("ruleset", {"preset": "rulebook-003", "throw_ruff_compare": "THROW_RUFF_COMPARE_ALL"}),
        "ruleset.throw_ruff_compare",
        "INCONSISTENT",
    ),
    (
        "trick",
        put(
            "ruleset",
            {
                "ruff_structure": "RUFF_STRUCTURE_COUNT",
                "throw_ruff_compare": "THROW_RUFF_COMPARE_TRICK_UNIT_LENGTH",
            },
        ),
        "ruleset.throw_ruff_compare",
        "INCONSISTENT",
    ),
    # required values and ranges
    ("follow", put("level", None), "level", "MISSING"),
    ("follow", put("level", 1), "level", "UNKNOWN_VALUE"),
    ("follow", put("contract", None), "contract", "MISSING"),
    ("follow", put("contract", 6), "contract", "UNKNOWN_VALUE"),
    ("settle", put("dealer_team_level", None), "dealer_team_level", "MISSING"),
    ("settle", put("attacker_level", 15), "attacker_level", "UNKNOWN_VALUE"),
    ("settle", put("score", 42), "score", "OUT_OF_RANGE"),
    ("settle", put("tao_dou.overturn_multiplier", 3), "tao_dou.overturn_multiplier", "OUT_OF_RANGE"),
    ("settle", put("tao_dou.rake_percent", 101), "tao_dou.rake_percent", "OUT_OF_RANGE"),
    ("settle", put("tao_dou.rake_basis_points", 1250), "tao_dou.rake_basis_points", "INCONSISTENT"),
    (
        "settle",
        put("tao_dou", {"base": 1, "overturn_multiplier": 1, "rake_basis_points": 10_001}),
        "tao_dou.rake_basis_points",
        "OUT_OF_RANGE",
    ),
    ("settle", put("tao_dou.balances", [1, 2, 3]), "tao_dou.balances", "BAD_SIZE"),
    ("settle", put("tao_dou.base", 10**13), "tao_dou.base", "OUT_OF_RANGE"),
    ("settle", put("ruleset", {"preset": "rulebook-000"}), "tao_dou", "INCONSISTENT"),
    ("quit", put("phase", None), "phase", "MISSING"),
    ("quit", put("phase", 9), "phase", "UNKNOWN_VALUE"),
    ("quit", put("role", 8), "role", "UNKNOWN_VALUE"),
    ("quit", put("dealer_level", None), "dealer_level", "MISSING"),
    ("quit", put("overturn_multiplier", 0), "overturn_multiplier", "OUT_OF_RANGE"),
    ("quit", put("quitter_side_lost", True), "owed", "MISSING"),
    ("quit", put("owed", 10), "quitter_side_lost", "MISSING"),
    ("quit", put("ruleset", {"coins": False}), "ruleset", "INCONSISTENT"),
    ("quit", put("role", "ROLE_ATTACKER"), "dealer_hand", "INCONSISTENT"),
    ("quit", put("bottom", names("S5 S5 C5 H5 D5 DK DA BJ")), "bottom[7]", "INCONSISTENT"),
    ("quit", put("contract", None), "contract", "MISSING"),
    ("declare", put("level", None), "level", "MISSING"),
    ("declare", put("declarations[1].cards", []), "declarations[1].cards", "MISSING"),
    ("declare", put("dealer", 2), "dealer", "INCONSISTENT"),
    ("declare", put("declarations", [{"seat": 0, "cards": names("H2")}] * 101), "declarations", "BAD_SIZE"),
    ("list", put("max_plays", 1001), "max_plays", "OUT_OF_RANGE"),
    ("suggest", put("hand", []), "hand", "BAD_SIZE"),
]


@pytest.mark.parametrize("rpc", sorted(RPCS))
def test_every_base_request_is_valid(stub: Stub, rpc: str) -> None:
    """The matrix's starting points are accepted, so each case breaks exactly what it says."""
    method, cls, build = RPCS[rpc]
    call(getattr(stub, method), message(cls, build()))


@pytest.mark.parametrize(
    ("rpc", "mutate", "field", "reason"),
    [pytest.param(*case, id=f"{case[0]}:{case[2]}:{case[3]}") for case in MATRIX],
)
def test_malformed_field_is_invalid_argument(
    stub: Stub, rpc: str, mutate: Callable[[Body], None], field: str, reason: str
) -> None:
    method, cls, build = RPCS[rpc]
    body = copy.deepcopy(build())
    mutate(body)
    code, violations = rejected(getattr(stub, method), message(cls, body))
    assert code == grpc.StatusCode.INVALID_ARGUMENT
    assert violations == [(field, reason)]


def test_every_rpc_field_family_is_in_the_matrix() -> None:
    """Each kind of malformation the contract promises is exercised on several RPCs."""
    reasons = {reason for _, _, _, reason in MATRIX}
    assert reasons == {
        "UNKNOWN_VALUE",
        "TOO_MANY_COPIES",
        "BAD_SIZE",
        "OUT_OF_ORDER",
        "OUT_OF_RANGE",
        "MISSING",
        "INCONSISTENT",
    }
    assert {rpc for rpc, *_ in MATRIX} == set(RPCS)
