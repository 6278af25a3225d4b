"""Random requests, mostly malformed, to every RPC: the answer is always OK or INVALID_ARGUMENT.

The strategies draw enum numbers past the defined range, seats past 3, card lists of any size with
unknown cards and extra copies, and rulesets with unknown presets and options, the way a client that
knows only the proto might. INTERNAL, or a call running into its deadline, fails the test.
"""

from __future__ import annotations

from typing import Any

import grpc
from hypothesis import given, settings
from hypothesis import strategies as st
from wire import RPC_TIMEOUT

from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

Stub = rules_service_pb2_grpc.RulesServiceStub
ANSWERS = {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT}

cards = st.lists(st.integers(0, 60), max_size=30)
real_cards = st.lists(st.integers(1, 54), max_size=26)  # known cards: reaches the rules more often
seat = st.integers(0, 5)
rank = st.integers(0, 16)
contract = st.integers(0, 6)
ruleset = st.fixed_dictionaries(
    {},
    optional={
        "preset": st.sampled_from(["", "default", "rulebook-000", "rulebook-003", "house"]),
        "throw_check": st.integers(0, 3),
        "ruff_structure": st.integers(0, 3),
        "dig_multiplier": st.integers(0, 3),
        "end_rule": st.integers(0, 3),
        "must_play": st.fixed_dictionaries({"levels": st.lists(rank, max_size=3)}),
        "coins": st.booleans(),
    },
)
seat_cards = st.fixed_dictionaries({"seat": seat, "cards": st.one_of(cards, real_cards)})
trick = st.fixed_dictionaries({"leader": seat, "plays": st.lists(seat_cards, max_size=4)})
context = {"ruleset": ruleset, "level": rank, "contract": contract}

REQUESTS: dict[str, st.SearchStrategy[dict[str, Any]]] = {
    "ValidatePlay": st.fixed_dictionaries(
        {**context, "seat": seat, "hand": real_cards, "cards": real_cards},
        optional={"trick": trick, "other_hands": st.lists(seat_cards, max_size=4)},
    ),
    "ResolveTrick": st.fixed_dictionaries(
        {**context, "leader": seat, "dealer": seat, "plays": st.lists(seat_cards, min_size=3, max_size=5)},
        optional={"hands": st.lists(seat_cards, max_size=4), "last_trick": st.booleans(), "bottom": cards},
    ),
    "SettleHand": st.fixed_dictionaries(
        {
            "ruleset": ruleset,
            "dealer": seat,
            "dealer_team_level": rank,
            "attacker_level": rank,
            "score": st.integers(0, 2000),
        },
        optional={
            "tao_dou": st.fixed_dictionaries(
                {
                    "base": st.integers(0, 2**63),
                    "overturn_multiplier": st.integers(0, 9),
                    "rake_percent": st.integers(0, 120),
                    "balances": st.lists(st.integers(0, 2**64 - 1), max_size=5),
                }
            )
        },
    ),
    "CalculatePenalty": st.fixed_dictionaries(
        {
            "ruleset": ruleset,
            "phase": st.integers(0, 5),
            "seat": seat,
            "role": st.integers(0, 4),
            "base": st.integers(0, 2**63),
            "dealer_level": rank,
            "overturn_multiplier": st.integers(0, 9),
            "balance": st.integers(0, 2**64 - 1),
        },
        optional={
            "quitter_side_lost": st.booleans(),
            "owed": st.integers(0, 2**64 - 1),
            "level": rank,
            "contract": contract,
            "dealer_hand": st.lists(st.integers(1, 54), max_size=34),
            "bottom": st.lists(st.integers(1, 54), max_size=9),
        },
    ),
    "ValidateDeclaration": st.fixed_dictionaries(
        {"ruleset": ruleset, "level": rank, "first_hand": st.booleans(), "first_seated": seat},
        optional={
            "dealer": seat,
            "declarations": st.lists(
                st.fixed_dictionaries({"seat": seat, "cards": cards}, optional={"hand": real_cards}),
                max_size=5,
            ),
        },
    ),
    "ValidateBury": st.fixed_dictionaries(
        {"ruleset": ruleset, "hand": st.lists(st.integers(1, 54), min_size=30, max_size=34), "bury": cards}
    ),
    "ListLegalPlays": st.fixed_dictionaries(
        {**context, "seat": seat, "hand": real_cards, "max_plays": st.integers(0, 1100)},
        optional={"trick": trick},
    ),
    "SuggestPlay": st.fixed_dictionaries(
        {**context, "seat": seat, "hand": real_cards}, optional={"trick": trick}
    ),
    "SuggestDeclaration": st.fixed_dictionaries(
        {"ruleset": ruleset, "level": rank, "seat": seat, "received": real_cards},
        optional={
            "policy": st.integers(0, 3),
            "declarations": st.lists(
                st.fixed_dictionaries({"seat": seat, "cards": cards}, optional={"hand": real_cards}),
                max_size=5,
            ),
        },
    ),
    "SuggestBury": st.fixed_dictionaries(
        {**context, "hand": st.lists(st.integers(1, 54), min_size=30, max_size=34)},
        optional={"bottom": st.lists(st.integers(1, 54), max_size=9), "policy": st.integers(0, 3)},
    ),
    "AuditHand": st.fixed_dictionaries(
        {
            "ruleset": ruleset,
            "level": rank,
            "attacker_level": rank,
            "hands": st.lists(seat_cards, max_size=4),
            "bottom": cards,
            "buried": cards,
        },
        optional={
            "first_hand": st.booleans(),
            "dealer": seat,
            "tricks": st.lists(
                st.fixed_dictionaries({"plays": st.lists(seat_cards, max_size=4)}), max_size=3
            ),
        },
    ),
}

DECK = [
    suit + rank
    for suit in "SHCD"
    for rank in ("2", "3", "4", "5", "6", "7", "8", "9", "10", "JACK" if suit == "S" else "J", "Q", "K", "A")
] + ["SJ", "BJ"]
DECK = [f"CARD_{card}" for card in DECK for _ in range(2)]


def _category(card: str) -> str:
    """At level 2 in no-trump the trumps are the jokers and the 2s (R2.10)."""
    return "trump" if card in ("CARD_SJ", "CARD_BJ") or card.endswith("2") else card[5]


@st.composite
def dealt_trick(draw: st.DrawFn) -> dict[str, Any]:
    """A trick from a real deal: a one-category lead and random follows of its size; sometimes with the
    hands, so every play is also judged (legal or not)."""
    deck = draw(st.permutations(DECK))
    hands = [deck[i * 25 : (i + 1) * 25] for i in range(4)]
    leader = draw(st.integers(0, 3))
    size = draw(st.integers(1, 6))
    lead = [card for card in hands[leader] if _category(card) == _category(hands[leader][0])][:size]
    plays = [{"seat": leader, "cards": lead}]
    for offset in (1, 2, 3):
        seat_hand = draw(st.permutations(hands[(leader + offset) % 4]))
        plays.append({"seat": (leader + offset) % 4, "cards": list(seat_hand[: len(lead)])})
    body: dict[str, Any] = {
        "level": "RANK_2",
        "contract": "CONTRACT_NO_TRUMP",
        "leader": leader,
        "dealer": draw(st.integers(0, 3)),
        "plays": plays,
    }
    if draw(st.booleans()):
        body["hands"] = [{"seat": s, "cards": hand} for s, hand in enumerate(hands)]
    if draw(st.booleans()):
        body |= {"last_trick": True, "bottom": list(deck[100:])}
    return body


@st.composite
def dealt_play(draw: st.DrawFn) -> dict[str, Any]:
    """A lead (a random same-category set, judged against the other hands) or a random follow."""
    trick = draw(dealt_trick())
    hands = {play["seat"]: play["cards"] for play in trick["plays"]}
    deck = draw(st.permutations(DECK))
    full = [deck[i * 25 : (i + 1) * 25] for i in range(4)]
    leader = trick["leader"]
    if draw(st.booleans()):
        category = _category(full[leader][0])
        lead = [card for card in full[leader] if _category(card) == category][: draw(st.integers(1, 10))]
        others = [{"seat": s, "cards": full[s]} for s in range(4) if s != leader]
        return {
            "level": "RANK_2",
            "contract": "CONTRACT_NO_TRUMP",
            "seat": leader,
            "hand": full[leader],
            "cards": lead,
            "other_hands": others,
        }
    follower = (leader + 1) % 4
    held = [card for card in full[follower] if card not in hands[leader]] or full[follower]
    return {
        "level": "RANK_2",
        "contract": "CONTRACT_NO_TRUMP",
        "seat": follower,
        "hand": held,
        "cards": list(draw(st.permutations(held))[: len(hands[leader])]),
        "trick": {"leader": leader, "plays": [trick["plays"][0]]},
    }


CASES = [(method, strategy) for method, strategy in sorted(REQUESTS.items())]
CASES += [("ResolveTrick", dealt_trick()), ("ValidatePlay", dealt_play())]
method_and_request = st.sampled_from(range(len(CASES))).flatmap(
    lambda i: st.tuples(st.just(CASES[i][0]), CASES[i][1])
)


@settings(max_examples=300, deadline=None)
@given(method_and_request)
def test_no_request_gets_internal(stub: Stub, call: tuple[str, dict[str, Any]]) -> None:
    method, body = call
    from google.protobuf import json_format  # noqa: PLC0415  # keeps module import cheap for xdist

    request = json_format.ParseDict(body, getattr(pb, f"{method}Request")())
    try:
        getattr(stub, method)(request, timeout=RPC_TIMEOUT)
        code = grpc.StatusCode.OK
    except grpc.RpcError as error:
        code = error.code()
    assert code in ANSWERS, (method, body, code)
