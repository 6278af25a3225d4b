"""The strong policy on every table (R14, R15): the sides it reads, and the request checks of its view.

The rulebooks' table's plays are pinned by tests/test_strategy.py (unchanged); here the table is the
parameter: N seats, D copies, the table's sizes, and the sides under finding friends as far as the seat
knows them.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from rules_core.cards import BIG_JOKER, SMALL_JOKER, Suit, deal_sizes, hand_of, parse_cards
from rules_core.errors import InvalidArgumentError
from rules_core.rules import DEFAULT_RULES, Partners, Rules
from rules_core.strategy import SeatView, strong_play
from rules_core.strategy.knowledge import knowledge, sides
from rules_core.trump import trump_context
from rules_core.turn import HandSoFar, Policy, suggest


def _rules(decks: int, seats: int, partners: Partners) -> Rules:
    return replace(DEFAULT_RULES, decks=decks, seats=seats, partners=partners)


def test_fixed_partners_are_every_other_seat_and_exact() -> None:
    """R1.5, R14.9: under fixed partners every other seat is a partner; with the dealer known every side
    is certain, on the rulebooks' table as on eight seats."""
    for seats in (4, 8):
        rules = _rules(2 if seats == 4 else 4, seats, Partners.FIXED)
        view = SeatView(seat=1, hand=hand_of([0]), leader=1, dealer=2)
        kin, side, exact = sides(rules, view, 2)
        assert exact
        assert [kin[1][s] for s in range(seats)] == [-1.0 if s % 2 == 0 else 1.0 for s in range(seats)]
        assert side == [1.0 if s % 2 == 0 else 0.0 for s in range(seats)]


def test_finding_friends_sides_are_shares_of_the_friends_still_to_come() -> None:
    """R15.2, R15.5, R15.8: the dealer and the friends who joined are on the dealer's side; with the
    seat's own side unknown every other seat holds an equal share of the friends still to come; once
    none is left, everyone else attacks (every side known)."""
    rules = _rules(3, 6, Partners.FRIENDS)  # two calls (R15.2)
    open_view = SeatView(seat=3, hand=hand_of([0], 3), leader=3, dealer=0)
    kin, side, exact = sides(rules, open_view, 0)
    assert not exact and side[0] == 1.0
    assert side[1:] == [2 / 5] * 5
    assert kin[3][3] == 1.0 and -1.0 < kin[3][0] < 0.0  # the seat may be a friend: not a sure opponent
    joined = replace(open_view, allies=frozenset({4}), unfound=1, settled=True)  # seat 3 knows it attacks
    _kin, side, exact = sides(rules, joined, 0)
    assert side == [1.0, 1 / 3, 1 / 3, 0.0, 1.0, 1 / 3] and not exact
    done = replace(joined, unfound=0)
    kin, side, exact = sides(rules, done, 0)
    assert exact and side == [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    assert kin[3][1] == 1.0 and kin[3][4] == -1.0


def test_a_known_friend_feeds_the_dealers_sure_trick_and_an_attacker_does_not() -> None:
    """R15.8: the dealer (seat 0) leads the big joker, which nothing can beat (equal cards never beat,
    R7.3); seat 2, void in trumps, discards. Known to be the dealer's friend it gives the K, a point card
    the attackers could take later; known to attack it keeps the K and gives a low card."""
    rules = _rules(3, 6, Partners.FRIENDS)
    ctx = trump_context(7, Suit.H)
    hand = hand_of(parse_cards(["SK", "S3", "S4", "C9", "C6", "D8", "D4"]), 3)
    plays = ((BIG_JOKER,), (SMALL_JOKER,))
    friend = SeatView(
        seat=2, hand=hand, leader=0, plays=plays, dealer=0, allies=frozenset({2}), unfound=1, settled=True
    )
    attacker = replace(friend, allies=frozenset(), unfound=2)
    king = parse_cards(["SK"])
    assert strong_play(ctx, rules, friend, seed=3) == king
    assert strong_play(ctx, rules, attacker, seed=3) != king


@pytest.mark.parametrize(("decks", "seats", "partners"), [(3, 6, Partners.FRIENDS), (4, 8, Partners.FIXED)])
def test_the_view_counts_the_tables_seats_and_sizes(decks: int, seats: int, partners: Partners) -> None:
    """R14.1, R14.2: the knowledge holds N seats, D copies of each unseen face less the hand, and the
    table's bottom size."""
    rules = _rules(decks, seats, partners)
    hand = hand_of([0] * decks + [1], decks)
    info = knowledge(trump_context(5, Suit.S), rules, SeatView(seat=0, hand=hand, leader=0, dealer=0))
    assert len(info.sizes) == len(info.voids) == len(info.kin) == seats == info.seats
    assert info.unseen[0] == 0 and info.unseen[1] == decks - 1 and info.unseen[2] == decks
    assert info.bottom_size == deal_sizes(decks, seats)[1]


def _suggest(rules: Rules, so_far: HandSoFar, seat: int = 1, hand: str = "SA") -> str:
    ctx = trump_context(5, Suit.H)
    advice = suggest(
        ctx,
        rules,
        seat=seat,
        hand=parse_cards(hand.split()),
        trick_leader=seat,
        trick_plays=[],
        policy=Policy.STRONG,
        so_far=so_far,
    )
    return advice.reason


def test_hand_so_far_is_checked_for_the_tables_sizes() -> None:
    """R14.1, R14.2: a finished trick holds one play per seat (six here), the dealer is a seat of the
    table, the bottom is the table's size, and only the dealer may send it (R11)."""
    rules = _rules(3, 6, Partners.FRIENDS)
    four = ((0, (0,)), (1, (1,)), (2, (2,)), (3, (3,)))
    cases = [
        (HandSoFar(dealer=0, tricks=(four,)), "hand_so_far.tricks[0].plays"),
        (HandSoFar(dealer=6), "hand_so_far.dealer"),
        (HandSoFar(dealer=1, bottom=tuple(range(8))), "hand_so_far.bottom"),
        (HandSoFar(dealer=0, bottom=tuple(range(6))), "hand_so_far.bottom"),
    ]
    for so_far, field in cases:
        with pytest.raises(InvalidArgumentError) as error:
            _suggest(rules, so_far)
        assert error.value.argument == field, (so_far, error.value)
    six = tuple((s, (11 - s,)) for s in range(6))  # spades led by the dealer (0): his SK wins (R7.1)
    hand = " ".join(["C2 C3 C4 C5 C6 C7 C8 C9 C10 CJ CQ CK CA", "D2 D3 D4 D5 D6 D7 D8 D9 D10 DJ DQ DK"])
    reason = _suggest(rules, HandSoFar(dealer=0, tricks=(six,)), seat=0, hand=hand)  # 1 + 25 cards (R14.2)
    assert reason.startswith("strong:")
