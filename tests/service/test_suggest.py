"""SuggestPlay's policies and what a seat knows (HandSoFar), and ranked ListLegalPlays, over the wire.

Positions come from whole self-played hands: at a trick of the hand, the seat to play is given its hand,
the trick so far and the hand's finished tricks, the dealer, the attackers' points and (for the dealer)
the bottom, exactly as a table's backend would send them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import grpc
import pytest
from wire import RPC_TIMEOUT, rejected

from loadtest.contract import CONTRACTS
from rules_core.audit import audit_hand
from rules_core.cards import PLAYERS, Hand, add, faces_of, remove
from rules_core.rules import DEFAULT_RULES
from rules_core.selfplay import play_hand
from rules_core.strategy import DEFAULT_BUDGET, MAX_BUDGET
from services.convert import cards_out
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc
from tractor.rules.v1 import types_pb2 as t

Stub = rules_service_pb2_grpc.RulesServiceStub


def position(seed: int, trick: int, offset: int) -> tuple[pb.SuggestPlayRequest, dict[int, Hand]]:
    """The SuggestPlay request of the seat playing ``offset``-th in trick ``trick`` of self-played hand
    ``seed``, with everything a table knows; and every seat's hand at that moment."""
    record = play_hand(seed=seed, level=5, dealer=seed % PLAYERS)
    audit = audit_hand(DEFAULT_RULES, record)
    assert audit.valid and audit.dealer is not None
    dealer, leaders = audit.dealer, audit.leaders
    hands = list(record.deal)
    hands[dealer] = remove(add(hands[dealer], record.bottom), record.buried)
    for index, done in enumerate(record.tricks[:trick]):
        for i, play in enumerate(done.plays):
            seat = (leaders[index] + i) % PLAYERS
            hands[seat] = remove(hands[seat], play)
    leader = leaders[trick]
    seat = (leader + offset) % PLAYERS
    contract = audit.bidding.contract
    request = pb.SuggestPlayRequest(
        level=t.RANK_5,
        contract=CONTRACTS[contract],
        seat=seat,
        hand=cards_out(faces_of(hands[seat])),
        trick=pb.Trick(leader=leader, plays=seated(leader, record.tricks[trick].plays[:offset])),
        hand_so_far=pb.HandSoFar(
            dealer=dealer,
            tricks=[
                pb.RecordedTrick(plays=seated(leaders[index], done.plays))
                for index, done in enumerate(record.tricks[:trick])
            ],
            attacker_points=sum(result.attacker_points for result in audit.tricks[:trick]),
            bottom=cards_out(record.buried) if seat == dealer else [],
        ),
        seed=seed,
    )
    return request, {s: hands[s] for s in range(PLAYERS)}


def seated(leader: int, plays: Sequence[Sequence[int]]) -> list[t.SeatCards]:
    return [t.SeatCards(seat=(leader + i) % PLAYERS, cards=cards_out(play)) for i, play in enumerate(plays)]


def legal(stub: Stub, request: pb.SuggestPlayRequest, play: Any, hands: dict[int, Hand]) -> bool:
    """ValidatePlay's verdict on the suggestion (a lead judged against the real other hands)."""
    leads = not request.trick.plays
    others = [
        t.SeatCards(seat=s, cards=cards_out(faces_of(h))) for s, h in hands.items() if s != request.seat
    ]
    check = pb.ValidatePlayRequest(
        ruleset=request.ruleset,
        level=request.level,
        contract=request.contract,
        seat=request.seat,
        hand=request.hand,
        cards=play,
        trick=request.trick,
        other_hands=others if leads else [],
    )
    return bool(stub.ValidatePlay(check, timeout=RPC_TIMEOUT).legal)


@pytest.mark.parametrize(
    ("seed", "trick", "offset"), [(1, 0, 0), (2, 3, 1), (3, 10, 2), (4, 17, 3), (5, 23, 1)]
)
def test_the_strong_policy_is_the_default_legal_and_deterministic(
    stub: Stub, seed: int, trick: int, offset: int
) -> None:
    request, hands = position(seed, trick, offset)
    first = stub.SuggestPlay(request, timeout=RPC_TIMEOUT)
    assert first.policy == pb.PLAY_POLICY_STRONG and first.reason.startswith("strong")
    assert legal(stub, request, first.cards, hands)
    assert stub.SuggestPlay(request, timeout=RPC_TIMEOUT).cards == first.cards  # the same seed, the same play
    plain = pb.SuggestPlayRequest()
    plain.CopyFrom(request)
    plain.ClearField("hand_so_far")  # on less information it still plays, legally
    assert legal(stub, plain, stub.SuggestPlay(plain, timeout=RPC_TIMEOUT).cards, hands)
    capped = pb.SuggestPlayRequest()
    capped.CopyFrom(request)
    capped.budget = 10**9  # clamped to the hard cap, not refused or run
    answer = stub.SuggestPlay(capped, timeout=RPC_TIMEOUT)
    assert legal(stub, capped, answer.cards, hands)
    assert MAX_BUDGET < 10**9
    for reason, most in ((first.reason, DEFAULT_BUDGET), (answer.reason, MAX_BUDGET)):
        assert _layouts(reason) <= most, reason  # what the search used, never more than asked


def _layouts(reason: str) -> int:
    """The sampled layouts a strong suggestion's reason names (0 for a lone candidate or the trick's last
    play: nothing sampled)."""
    if reason == "strong: the one candidate play" or re.fullmatch(
        r"strong: the best of \d+ candidate plays, the trick's last play", reason
    ):
        return 0
    found = re.fullmatch(
        r"strong: the best of \d+ candidate plays over (\d+) sampled layouts of the unseen cards", reason
    )
    assert found, reason
    return int(found[1])


def test_the_r13_6_policy_is_still_there(stub: Stub) -> None:
    request, _ = position(6, 4, 0)
    request.policy = pb.PLAY_POLICY_RIGHTMOST_SMALLEST
    answer = stub.SuggestPlay(request, timeout=RPC_TIMEOUT)
    assert answer.policy == pb.PLAY_POLICY_RIGHTMOST_SMALLEST and "R13.6" in answer.reason
    assert len(answer.cards) == 1


Mutation = Callable[[pb.SuggestPlayRequest], None]


def _wrong_leader(request: pb.SuggestPlayRequest) -> None:
    plays = request.hand_so_far.tricks[1].plays
    first = plays[0].seat
    for play in plays:
        play.seat = (play.seat + 1) % PLAYERS
    assert plays[0].seat != first


def _hand_too_big(request: pb.SuggestPlayRequest) -> None:
    request.hand.pop()  # a card fewer than 25 less what the seat played


def _bottom_not_dealer(request: pb.SuggestPlayRequest) -> None:
    request.hand_so_far.bottom.extend([t.CARD_S2] * 8)  # only the dealer knows the bottom


def _points_off(request: pb.SuggestPlayRequest) -> None:
    request.hand_so_far.attacker_points += 5


@pytest.mark.parametrize(
    ("mutate", "field", "reason"),
    [
        (_wrong_leader, "hand_so_far.tricks[1].plays[0].seat", "OUT_OF_ORDER"),
        (_hand_too_big, "hand_so_far.tricks", "INCONSISTENT"),
        (_bottom_not_dealer, "hand_so_far.bottom", "INCONSISTENT"),
        (_points_off, "hand_so_far.attacker_points", "INCONSISTENT"),
    ],
)
def test_an_impossible_history_is_invalid_argument_naming_the_field(
    stub: Stub, mutate: Mutation, field: str, reason: str
) -> None:
    request, _ = position(7, 6, 1)
    assert request.seat != request.hand_so_far.dealer  # (the bottom case needs a seat that is not the dealer)
    mutate(request)
    code, violations = rejected(stub.SuggestPlay, request)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    assert violations[0] == (field, reason)


def test_a_card_played_three_times_is_named(stub: Stub) -> None:
    request, _ = position(8, 5, 2)
    held = request.hand[0]
    played = [
        (k, j, i)
        for k, trick in enumerate(request.hand_so_far.tricks)
        for j, play in enumerate(trick.plays)
        for i, card in enumerate(play.cards)
        if card == held
    ]
    for k, trick in enumerate(request.hand_so_far.tricks):  # make the history show the card twice more
        for j, play in enumerate(trick.plays):
            for i in range(len(play.cards)):
                if len(played) < 2 and (k, j, i) not in played and play.seat != request.seat:
                    play.cards[i] = held
                    played.append((k, j, i))
    code, violations = rejected(stub.SuggestPlay, request)
    assert code is grpc.StatusCode.INVALID_ARGUMENT
    field, problem = violations[0]
    assert problem == "TOO_MANY_COPIES" and field.startswith("hand_so_far.tricks[")


def test_ranked_hints_are_the_listing_best_first(stub: Stub) -> None:
    suggest, _ = position(9, 8, 1)
    listing = pb.ListLegalPlaysRequest(
        level=suggest.level,
        contract=suggest.contract,
        seat=suggest.seat,
        hand=suggest.hand,
        trick=suggest.trick,
        max_plays=50,
    )
    plain = stub.ListLegalPlays(listing, timeout=RPC_TIMEOUT)
    listing.rank = True
    listing.hand_so_far.CopyFrom(suggest.hand_so_far)
    ranked = stub.ListLegalPlays(listing, timeout=RPC_TIMEOUT)
    assert sorted(tuple(sorted(p.cards)) for p in ranked.plays) == sorted(
        tuple(sorted(p.cards)) for p in plain.plays
    )
    scores = [p.score for p in ranked.plays]
    assert all(p.HasField("score") for p in ranked.plays) and scores == sorted(scores, reverse=True)
    assert not any(p.HasField("score") for p in plain.plays)
