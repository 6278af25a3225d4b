"""A privacy probe over the wire: the three suggestion RPCs refuse another seat's private cards with
INVALID_ARGUMENT naming the field (rules_core.strategy.privacy), on the rulebooks' table and on others,
and accept the same request once the backend strips them; every field of the three requests is classified,
so a field added later needs a privacy decision before this passes."""

from __future__ import annotations

import random
from typing import Any

import grpc
import pytest
from wire import RPC_TIMEOUT, message, names, rejected

from rules_core.cards import PLAYERS, deal_sizes
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc
from tractor.rules.v1 import types_pb2 as t

Stub = rules_service_pb2_grpc.RulesServiceStub

RULEBOOK: dict[str, Any] = {"preset": "default"}
WIDE: dict[str, Any] = {"preset": "default", "decks": 3, "seats": 6}
"""Another table (R14): the same refusals hold there."""

PUBLIC_OR_OWN: dict[str, set[str]] = {
    "SuggestPlayRequest": {
        "ruleset",
        "level",
        "contract",
        "seat",
        "hand",  # the asking seat's own
        "trick",  # on the table
        "policy",
        "hand_so_far",  # public facts, but for its bottom (the dealer's own: refused from others)
        "seed",
        "budget",
    },
    "HandSoFar": {"dealer", "tricks", "attacker_points", "bottom", "declarations"},
    "SuggestDeclarationRequest": {
        "ruleset",
        "level",
        "seat",
        "received",  # the asking seat's own
        "declarations",  # public acts, but for their `hand` (refused for other seats)
        "policy",
        "first_hand",
        "dealer",
    },
    "Declaration": {"seat", "cards", "hand"},
    "SuggestBuryRequest": {"ruleset", "level", "contract", "hand", "bottom", "policy"},  # the dealer's own
}


def test_every_field_of_the_suggestion_requests_is_classified() -> None:
    """A new field of a suggestion request must be judged public, own or private before it ships."""
    for message_type in (pb.SuggestPlayRequest, pb.HandSoFar, pb.SuggestDeclarationRequest, pb.Declaration):
        assert {f.name for f in message_type.DESCRIPTOR.fields} == PUBLIC_OR_OWN[message_type.__name__]
    assert {f.name for f in pb.SuggestBuryRequest.DESCRIPTOR.fields} == PUBLIC_OR_OWN["SuggestBuryRequest"]


def _dealt(seed: int) -> list[list[int]]:
    rng = random.Random(seed)
    deck = [face for face in range(54) for _ in range(2)]
    rng.shuffle(deck)
    return [deck[s * 25 : (s + 1) * 25] for s in range(PLAYERS)]


def _cards(faces: list[int]) -> list[t.Card.ValueType]:
    return [t.Card.ValueType(face + 1) for face in faces]


@pytest.mark.parametrize("ruleset", [RULEBOOK, WIDE], ids=["rulebook", "three-decks-six-seats"])
def test_suggest_declaration_refuses_another_seats_received_cards(
    stub: Stub, ruleset: dict[str, Any]
) -> None:
    """Seat 1 showed H2 from the cards it had; seat 0 asks. With seat 1's hand in the act: refused,
    naming ``declarations[0].hand``; stripped to the public act: answered."""
    body = {
        "ruleset": ruleset,
        "level": "RANK_2",
        "seat": 0,
        "received": names("S3 S4 D5"),
        "declarations": [{"seat": 1, "cards": names("H2"), "hand": names("H2 C7 C8")}],
    }
    request = message(pb.SuggestDeclarationRequest, body)
    code, violations = rejected(stub.SuggestDeclaration, request)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert violations[0] == ("declarations[0].hand", "INCONSISTENT")
    request.declarations[0].ClearField("hand")
    answer = stub.SuggestDeclaration(request, timeout=RPC_TIMEOUT)
    assert answer.policy == pb.DECLARATION_POLICY_STRONG


def test_the_asking_seats_own_received_cards_may_be_sent_but_must_be_its_own(stub: Stub) -> None:
    """Its own hand in its own act is its own knowledge; cards it does not hold now are a contradiction."""
    body = {
        "level": "RANK_2",
        "seat": 0,
        "received": names("H2 C7 C8 D9"),
        "declarations": [{"seat": 0, "cards": names("H2"), "hand": names("H2 C7 C8")}],
    }
    request = message(pb.SuggestDeclarationRequest, body)
    assert stub.SuggestDeclaration(request, timeout=RPC_TIMEOUT).policy == pb.DECLARATION_POLICY_STRONG
    request.declarations[0].hand[:] = message(pb.Declaration, {"hand": names("H2 C7 SA")}).hand
    code, violations = rejected(stub.SuggestDeclaration, request)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert violations[0] == ("declarations[0].hand", "INCONSISTENT")


def test_a_whole_deals_record_forwarded_unstripped_is_refused_at_every_act(stub: Stub) -> None:
    """The probe a careless backend makes: the record of acts as ValidateDeclaration takes it (every
    act with its seat's hand) sent to each seat's SuggestDeclaration. Every other seat's act is named."""
    hands = _dealt(5)
    level = t.RANK_2
    acts: list[pb.Declaration] = []
    level_faces = {s * 13 for s in range(4)}  # the level-2 cards of each suit
    for seat in range(PLAYERS):
        shown = next((f for f in hands[seat][:20] if f in level_faces), None)
        if shown is None or acts:
            continue
        acts.append(pb.Declaration(seat=seat, cards=_cards([shown]), hand=_cards(hands[seat][:20])))
    assert acts, "seed 5 gives some seat a level card among its first 20"
    for seat in range(PLAYERS):
        request = pb.SuggestDeclarationRequest(
            level=level, seat=seat, received=_cards(hands[seat][:21]), declarations=acts
        )
        if acts[0].seat == seat:
            stub.SuggestDeclaration(request, timeout=RPC_TIMEOUT)
            continue
        assert rejected(stub.SuggestDeclaration, request)[1][0] == ("declarations[0].hand", "INCONSISTENT")


@pytest.mark.parametrize("ruleset", [RULEBOOK, WIDE], ids=["rulebook", "three-decks-six-seats"])
def test_suggest_play_refuses_the_bottom_from_any_seat_but_the_dealer(
    stub: Stub, ruleset: dict[str, Any]
) -> None:
    """R11: the buried cards are the dealer's alone. Seat 1 asks with the dealer's bottom: refused,
    naming ``hand_so_far.bottom``; as the dealer (seat 1 dealing) the same bottom is its own and answered.
    The bottom is the table's size (R14.2: six cards of three decks at six seats)."""
    size = deal_sizes(ruleset.get("decks", 2), ruleset.get("seats", PLAYERS))[1]
    body = {
        "ruleset": ruleset,
        "level": "RANK_5",
        "contract": "CONTRACT_SPADES",
        "seat": 1,
        "hand": names("HA HK"),
        "hand_so_far": {"dealer": 0, "bottom": names("C3 C4 C6 C7 C8 C9 D3 D4")[:size]},
    }
    request = message(pb.SuggestPlayRequest, body)
    code, violations = rejected(stub.SuggestPlay, request)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert violations[0] == ("hand_so_far.bottom", "INCONSISTENT")
    request.hand_so_far.ClearField("dealer")  # no dealer named: nobody may claim the bottom
    assert rejected(stub.SuggestPlay, request)[1][0] == ("hand_so_far.bottom", "INCONSISTENT")
    request.hand_so_far.dealer = 1
    assert stub.SuggestPlay(request, timeout=RPC_TIMEOUT).cards


def test_suggest_play_takes_the_dealers_own_bottom(stub: Stub) -> None:
    """The dealer leading the first trick with its bottom known: answered."""
    hands = _dealt(9)
    bottom = hands[3][:8]
    hand = hands[0]
    request = pb.SuggestPlayRequest(
        level=t.RANK_5,
        contract=t.CONTRACT_SPADES,
        seat=0,
        hand=_cards(hand),
        hand_so_far=pb.HandSoFar(dealer=0, bottom=_cards(bottom)),
    )
    assert len(stub.SuggestPlay(request, timeout=RPC_TIMEOUT).cards) >= 1
    request.seat = 2
    request.trick.leader = 2
    assert rejected(stub.SuggestPlay, request)[1][0] == ("hand_so_far.bottom", "INCONSISTENT")


def test_suggest_bury_has_no_place_for_another_seats_cards(stub: Stub) -> None:
    """SuggestBury's fields are the dealer's own: a bottom that is not among its 33 cards is refused as
    the contradiction it is, so another seat's cards cannot ride in as a 'bottom' either."""
    hands = _dealt(4)
    hand33 = hands[0] + hands[1][:8]
    request = pb.SuggestBuryRequest(
        level=t.RANK_2, contract=t.CONTRACT_HEARTS, hand=_cards(hand33), bottom=_cards(hands[2][:8])
    )
    code, violations = rejected(stub.SuggestBury, request)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert violations[0][0].startswith("bottom")
