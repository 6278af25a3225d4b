"""Every RPC over the wire, for what the worked cases leave out: checked tricks, listings, auto-play,
coins with balances, a quitting dealer after burying, declarations against hands, and presets."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from wire import call, message, multiset, names, notation

from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

Stub = rules_service_pb2_grpc.RulesServiceStub

HEARTS_5 = {"level": "RANK_5", "contract": "CONTRACT_HEARTS"}
"""L=5, T=H: the context of most RULES.md examples."""

# One legal deal's worth of four hands at L=5, T=H (25 cards each, no face more than twice overall).
HANDS = {
    0: "S9 S9 S8 S8 SA SK S3 H2 H3 H4 C2 C3 C4 C6 C7 D2 D3 D4 D6 D7 D8 D9 D10 DJ DQ",
    1: "SQ SQ SJack SJack S2 S4 H6 H7 H8 H9 C8 C9 C10 CJ CQ CK CA D2 D3 D4 D6 D7 D8 D9 D10",
    2: "S6 S6 S7 S7 S10 H10 HJ HQ HK HA C2 C3 C4 C6 C7 C8 C9 C10 CJ CQ CK CA DJ DQ DK",
    3: "S2 S3 S4 SA SK S10 H2 H3 H4 H6 H7 H8 H9 H10 HJ HQ HK HA BJ BJ SJ SJ DK DA DA",
}


def seat_hands(*seats: int) -> list[dict[str, Any]]:
    return [{"seat": s, "cards": names(HANDS[s])} for s in seats]


def trick_request(trick: list[str], *, hands: bool, **extra: Any) -> pb.ResolveTrickRequest:
    body: dict[str, Any] = {
        **HEARTS_5,
        "leader": 0,
        "plays": [{"seat": s, "cards": names(cards)} for s, cards in enumerate(trick)],
        **extra,
    }
    if hands:
        body["hands"] = seat_hands(0, 1, 2, 3)
    return message(pb.ResolveTrickRequest, body)


def test_hands_are_one_deal() -> None:
    """The fixture itself: 100 cards, no face more than twice."""
    cards = [card for hand in HANDS.values() for card in hand.split()]
    assert len(cards) == 100
    assert max(Counter(cards).values()) == 2


def test_checked_trick_resolves_with_every_play_checked(stub: Stub) -> None:
    """With hands, each play is validated; a legal trick is resolved and every judgement says so."""
    response = call(stub.ResolveTrick, trick_request(["S9 S9", "SQ SQ", "S6 S6", "S2 S3"], hands=True))
    assert response.legal and not response.message
    assert response.winner == 1
    assert response.won_by == pb.JUDGEMENT_BEAT
    assert [p.seat for p in response.plays] == [0, 1, 2, 3]
    assert all(p.checked and p.legal for p in response.plays)
    assert [p.judgement for p in response.plays] == [
        pb.JUDGEMENT_LEAD,
        pb.JUDGEMENT_BEAT,
        pb.JUDGEMENT_FOLLOW,
        pb.JUDGEMENT_FOLLOW,
    ]


def test_checked_trick_with_an_illegal_follow_is_not_resolved(stub: Stub) -> None:
    """Seat 2 holds spade pairs but plays two singles: the answer is OK, legal=false, with the reason."""
    response = call(stub.ResolveTrick, trick_request(["S9 S9", "SQ SQ", "S10 S7", "S2 S3"], hands=True))
    assert not response.legal
    assert "seat 2" in response.message
    assert response.winner == 0 and response.won_by == pb.JUDGEMENT_UNSPECIFIED
    checked = response.plays[2]
    assert checked.checked and not checked.legal
    assert checked.violation == types_pb2.VIOLATION_MUST_PLAY_PAIR and checked.message
    assert response.plays[1].legal


def test_checked_trick_with_a_failing_throw_is_not_resolved(stub: Stub) -> None:
    """SA SK as a throw fails (seat 3 holds the other SA); only the forced card would be led."""
    response = call(stub.ResolveTrick, trick_request(["SA SK", "SQ SQ", "S7 S6", "S2 S3"], hands=True))
    assert not response.legal and "throw" in response.message
    lead = response.plays[0]
    assert lead.checked and lead.legal
    assert lead.throw_outcome.result == types_pb2.THROW_RESULT_FAILED
    assert notation(lead.throw_outcome.led) == ["SK"]


def test_unchecked_trick_trusts_the_plays(stub: Stub) -> None:
    """Without hands only the table is judged: the same illegal follow simply cannot win."""
    response = call(stub.ResolveTrick, trick_request(["S9 S9", "SQ SQ", "S10 S7", "S2 S3"], hands=False))
    assert response.legal and response.winner == 1
    assert not any(p.checked for p in response.plays)


def test_last_trick_digs_for_the_attackers(stub: Stub) -> None:
    """R8.4: an attacker (seat 1, dealer 0) wins the last trick with a pair: the bottom counts x4."""
    bottom = names("S5 S5 SK H7 C5 D5 D10 D7")  # 40 points
    request = trick_request(["S9 S9", "SQ SQ", "S6 S6", "S2 S3"], hands=False, last_trick=True, bottom=bottom)
    response = call(stub.ResolveTrick, request)
    assert (response.winner, response.dig_multiplier) == (1, 4)
    assert (response.bottom_points, response.bottom_added) == (40, 160)
    assert response.attacker_points == response.trick_points + 160


def test_follow_listing_is_legal_and_bounded(stub: Stub) -> None:
    """Every listed follow passes ValidatePlay; a limit of 2 truncates the listing."""
    body = {
        **HEARTS_5,
        "seat": 1,
        "hand": names(HANDS[1]),
        "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names("S9 S9")}]},
    }
    listing = call(stub.ListLegalPlays, message(pb.ListLegalPlaysRequest, body))
    assert listing.plays and not listing.truncated
    for play in listing.plays:
        verdict = call(
            stub.ValidatePlay, message(pb.ValidatePlayRequest, {**body, "cards": notation_names(play.cards)})
        )
        assert verdict.legal, notation(play.cards)
    assert {tuple(sorted(notation(p.cards))) for p in listing.plays} >= {("SQ", "SQ"), ("SJack", "SJack")}
    short = call(stub.ListLegalPlays, message(pb.ListLegalPlaysRequest, {**body, "max_plays": 1}))
    assert len(short.plays) == 1 and short.truncated


def notation_names(values: Any) -> list[str]:
    return names(notation(values))


def test_lead_listing_has_every_single_and_pair(stub: Stub) -> None:
    """R4.2: all singles, pairs and tractors lead legally; the whole spade holding is offered as a throw."""
    body = {**HEARTS_5, "seat": 0, "hand": names(HANDS[0]), "max_plays": 1000}
    listing = call(stub.ListLegalPlays, message(pb.ListLegalPlaysRequest, body))
    plays = {tuple(sorted(notation(p.cards))): p.shape for p in listing.plays}
    assert all((card,) in plays for card in HANDS[0].split())
    assert plays[("S9", "S9")] == types_pb2.SHAPE_PAIR
    assert plays[("S8", "S8", "S9", "S9")] == types_pb2.SHAPE_TRACTOR
    assert types_pb2.SHAPE_THROW in plays.values()


def test_suggested_lead_is_the_rightmost_smallest_card(stub: Stub) -> None:
    """R13.6: the default layout ends with the diamonds, so the lowest diamond is led."""
    body = {**HEARTS_5, "seat": 0, "hand": names(HANDS[0]), "policy": "PLAY_POLICY_RIGHTMOST_SMALLEST"}
    response = call(stub.SuggestPlay, message(pb.SuggestPlayRequest, body))
    assert notation(response.cards) == ["D2"]
    assert response.shape == types_pb2.SHAPE_SINGLE and "R13.6" in response.reason
    assert response.policy == pb.PLAY_POLICY_RIGHTMOST_SMALLEST


def test_suggested_follow_is_legal(stub: Stub) -> None:
    """Auto-play never plays illegally: it owes a pair here and plays the weakest one."""
    body = {
        **HEARTS_5,
        "seat": 1,
        "hand": names(HANDS[1]),
        "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names("S9 S9")}]},
        "policy": "PLAY_POLICY_RIGHTMOST_SMALLEST",
    }
    response = call(stub.SuggestPlay, message(pb.SuggestPlayRequest, body))
    assert multiset(response.cards) == Counter(["SJack", "SJack"])
    play = {key: value for key, value in body.items() if key != "policy"}
    verdict = call(
        stub.ValidatePlay, message(pb.ValidatePlayRequest, {**play, "cards": notation_names(response.cards)})
    )
    assert verdict.legal


def test_settlement_with_short_balances(stub: Stub) -> None:
    """R12.6 with balances: a short loser pays what he has; the deltas and the rake balance out."""
    body = {
        "ruleset": {"preset": "rulebook-003"},
        "dealer": 0,
        "dealer_team_level": "RANK_5",
        "attacker_level": "RANK_4",
        "score": 0,
        "tao_dou": {
            "base": 100,
            "overturn_multiplier": 2,
            "rake_percent": 5,
            "balances": [0, 1000, 0, 100000],
        },
    }
    response = call(stub.SettleHand, message(pb.SettleHandRequest, body))
    coins = response.coins
    assert coins.total == 4000 and coins.winners == types_pb2.SIDE_DEALER_TEAM
    assert coins.deltas[1] == -1000 and coins.deltas[3] == -4000
    assert sum(coins.deltas) == -coins.rake
    assert response.score_coefficient == coins.score_coefficient == 4


def test_settlement_without_stake_has_no_coins(stub: Stub) -> None:
    body = {"dealer": 3, "dealer_team_level": "RANK_7", "attacker_level": "RANK_4", "score": 120}
    response = call(stub.SettleHand, message(pb.SettleHandRequest, body))
    assert not response.HasField("coins")
    assert response.take_over and response.next_dealer == 0  # the dealer's next player, seat 3 + 1


def test_dealer_quitting_after_burying_gets_only_the_auto_lead(stub: Stub) -> None:
    """R13.6 with 25 cards: nothing to bury, the opening lead is still automatic."""
    body = {
        **HEARTS_5,
        "phase": "QUIT_PHASE_Q3_BEFORE_SETTLEMENT",
        "seat": 0,
        "role": "ROLE_DEALER",
        "base": 10,
        "dealer_level": "RANK_5",
        "overturn_multiplier": 1,
        "balance": 10**6,
        "dealer_hand": names(HANDS[3]),
    }
    response = call(stub.CalculatePenalty, message(pb.CalculatePenaltyRequest, body))
    assert not response.auto_bury
    assert notation([response.auto_lead]) == ["DK"]  # no plain diamond below K in this hand
    assert response.penalty == 10 * 5 * 1 * 5


def test_declaration_against_the_cards_received(stub: Stub) -> None:
    """R10.1: with the seat's cards so far, showing a card it does not hold is rejected with a reason."""
    body = {
        "level": "RANK_2",
        "first_hand": True,
        "declarations": [
            {"seat": 0, "cards": names("H2"), "hand": names("H2 S9 C4")},
            {"seat": 1, "cards": names("S2 S2"), "hand": names("S2 C7")},
        ],
    }
    response = call(stub.ValidateDeclaration, message(pb.ValidateDeclarationRequest, body))
    assert [v.accepted for v in response.verdicts] == [True, False]
    assert response.verdicts[1].rejection == pb.DECLARATION_REJECTION_CARDS_NOT_HELD
    assert not response.accepted  # the last act is the one being validated
    assert response.contract == types_pb2.CONTRACT_HEARTS and response.dealer == 0


def test_later_hand_keeps_the_rotation_dealer(stub: Stub) -> None:
    body = {"level": "RANK_2", "dealer": 3, "declarations": [{"seat": 1, "cards": names("D2")}]}
    response = call(stub.ValidateDeclaration, message(pb.ValidateDeclarationRequest, body))
    assert response.accepted and response.dealer == 3 and response.contract == types_pb2.CONTRACT_DIAMONDS


@pytest.mark.parametrize(("count", "legal"), [(8, True), (7, False), (9, False)])
def test_bury_count(stub: Stub, count: int, legal: bool) -> None:
    """R11.2: exactly 8; a legal bury reports its points (scored only on a dig)."""
    hand = HANDS[2] + " S5 S5 C5 H5 D5 SK DA S3"
    bury = hand.split()[-count:]
    response = call(
        stub.ValidateBury, message(pb.ValidateBuryRequest, {"hand": names(hand), "bury": names(bury)})
    )
    assert response.legal == legal
    if legal:
        assert response.bottom_points == 5 * 5 + 10
    else:
        assert response.violation == types_pb2.VIOLATION_WRONG_CARD_COUNT and response.message


def test_presets_change_the_answer(stub: Stub) -> None:
    """R4.5 vs R4.6: a throw whose tractor and single are both beaten. THROW-000 forces the tractor;
    rulebook-003 (THROW-003) never checks tractors and forces the single, as does the plain override."""
    others = [
        {"seat": 1, "cards": names("SA SA SK SK")},
        {"seat": 2, "cards": names("D3")},
        {"seat": 3, "cards": names("D4")},
    ]
    throw = names("SQ SQ SJack SJack S2")
    body = {**HEARTS_5, "seat": 0, "hand": throw, "cards": throw, "other_hands": others}
    forced = {}
    for name, ruleset in [
        ("default", {}),
        ("rulebook", {"preset": "rulebook-003"}),
        ("override", {"throw_check": "THROW_CHECK_PAIRS_FIRST"}),
    ]:
        outcome = call(
            stub.ValidatePlay, message(pb.ValidatePlayRequest, {**body, "ruleset": ruleset})
        ).throw_outcome
        assert outcome.result == types_pb2.THROW_RESULT_FAILED
        assert [beat.seat for beat in outcome.evidence] == [1]
        forced[name] = multiset(outcome.forced.cards)
    assert forced["default"] == Counter(["SQ", "SQ", "SJack", "SJack"])
    assert forced["rulebook"] == forced["override"] == Counter(["S2"])
