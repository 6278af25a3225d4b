"""The one game loop on every table (issue 25 item 3): ``selfplay.play_out`` plays 2-4 decks at 4-8 seats,
fixed partners and finding friends, every play checked by the one engine (R14, R15).

Each hand is dealt by R14.2, buried by the dealer, and played out by random legal seats; the record must
hold every card once, each trick one play per seat in turn from the last winner, and the loop's score
must be the settlement's: the attackers' points by the final sides plus the dig (R15.9), which
``friends.settle_table`` recomputes from the same record independently.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest

from rules_core.cards import NUM_FACES, POINTS, Suit, add, deal_sizes, deck_points, faces_of, remove
from rules_core.friends import FriendCall, Play, Trick, call_count, replay_sides, settle_table
from rules_core.rules import DEFAULT_RULES, FriendLimit, Partners, Rules
from rules_core.selfplay import IllegalPlayError, Style, deal, play_out, random_seat
from rules_core.strategy import SeatView
from rules_core.trick import resolve_trick
from rules_core.trump import TRUMP, trump_context

TABLES = [
    (2, 4, Partners.FIXED),
    (2, 4, Partners.FRIENDS),
    (2, 5, Partners.FRIENDS),
    (3, 6, Partners.FRIENDS),
    (3, 6, Partners.FIXED),
    (4, 8, Partners.FIXED),
    (4, 7, Partners.FRIENDS),
]


def _calls(
    rules: Rules, rng: random.Random, dealer_hand: tuple[int, ...], level: int
) -> tuple[FriendCall, ...]:
    """Friend calls of plain cards the dealer does not hold all copies of (R15.2-R15.4)."""
    ctx = trump_context(level, Suit.S)
    faces = [f for f in range(NUM_FACES) if ctx.category[f] != TRUMP and dealer_hand[f] < rules.decks]
    chosen = rng.sample(faces, call_count(rules))
    return tuple(FriendCall(face, 1) for face in chosen)


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_whole_hands_on_every_table(decks: int, seats: int, partners: Partners) -> None:
    rules = replace(
        DEFAULT_RULES,
        decks=decks,
        seats=seats,
        partners=partners,
        friend_limits=frozenset({FriendLimit.TRUMPS}),
    )
    bottom_size = deal_sizes(decks, seats)[1]
    for seed in range(3):
        rng = random.Random(seed * 100 + decks * 10 + seats)
        level = rng.randint(2, 14)
        ctx = trump_context(level, Suit.S)
        hands, bottom = deal(rng, decks, seats)
        dealer = rng.randrange(seats)
        big = add(hands[dealer], bottom, decks)
        buried = tuple(faces_of(big)[:bottom_size])  # any cards of the bottom's size (R11.3)
        live = list(hands)
        live[dealer] = remove(big, buried)
        calls = _calls(rules, rng, live[dealer], level) if partners is Partners.FRIENDS else ()
        seat = random_seat(ctx, rng, Style(), decks)
        played = play_out(ctx, rules, live, dealer=dealer, buried=buried, seats=[seat] * seats, calls=calls)
        cards = Counter(f for trick in played.tricks for play in trick.plays for f in play)
        assert cards == Counter(f for hand in live for f in faces_of(hand))  # every card once
        leader, record, points = dealer, [], 0
        for i, trick in enumerate(played.tricks):
            result = resolve_trick(
                ctx,
                rules,
                leader=leader,
                plays=trick.plays,
                dealer=dealer,
                last=i == len(played.tricks) - 1,
                bottom=buried,
                attackers=frozenset(),
            )
            plays = tuple(Play((leader + k) % seats, p) for k, p in enumerate(trick.plays))
            record.append(Trick(plays, result.winner))
            points += result.points
            leader = result.winner
        assert points + sum(POINTS[f] for f in buried) == deck_points(decks)
        final = replay_sides(rules, ctx, dealer, calls, record)[-1]
        last = resolve_trick(
            ctx,
            rules,
            leader=record[-1].plays[0].seat,
            plays=played.tricks[-1].plays,
            dealer=dealer,
            last=True,
            bottom=buried,
            attackers=frozenset(range(seats)) - final.dealer_side,
        )
        dig = last.dig.added if last.dig else 0
        settled = settle_table(
            rules,
            ctx,
            dealer=dealer,
            levels=(level,) * seats,
            calls=calls,
            tricks=tuple(record),
            dig_points=dig,
            failed_throws=(),
        )
        assert played.score == settled.score


def test_an_illegal_seat_is_named_on_a_wide_table() -> None:
    """The loop checks every play by the table's rules: a seat that discards while holding the led
    category is stopped and named (R5.2 on six seats, three decks)."""
    rules = replace(DEFAULT_RULES, decks=3, seats=6)
    rng = random.Random(5)
    ctx = trump_context(7, Suit.H)
    hands, bottom = deal(rng, 3, 6)
    big = add(hands[0], bottom, 3)
    buried = tuple(faces_of(big)[: deal_sizes(3, 6)[1]])
    live = list(hands)
    live[0] = remove(big, buried)
    honest = random_seat(ctx, rng, Style(), 3)

    def cheat(view: SeatView) -> tuple[int, ...]:
        if view.plays:
            led = ctx.category[view.plays[0][0]]
            off = [f for f in faces_of(view.hand) if ctx.category[f] != led]
            if off and any(ctx.category[f] == led for f in faces_of(view.hand)):
                return (
                    tuple(off[: len(view.plays[0])])
                    if len(off) >= len(view.plays[0])
                    else tuple(honest(view))
                )
        return tuple(honest(view))

    seats = [honest, cheat, honest, honest, honest, honest]
    names = [f"player {s}" for s in range(6)]
    with pytest.raises(IllegalPlayError, match="player 1 followed illegally"):
        play_out(ctx, rules, live, dealer=0, buried=buried, seats=seats, names=names)
