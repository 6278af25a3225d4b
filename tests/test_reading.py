"""Reading the follows (rules_core.strategy.reading): what each kind of follow of a single lead shows a
seat does not hold, that the reads are true of the careful player whose habits they read (whole hands of
self-play, the true hands checked at every turn), and that every sampled layout keeps them."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Sequence

import pytest

from loadtest.casual import CarefulPlayer
from rules_core.cards import NUM_FACES, PLAYERS, Hand, Suit, format_cards, hand_of, parse_cards
from rules_core.rules import DEFAULT_RULES, Partners, Rules
from rules_core.selfplay import deal, play_out
from rules_core.strategy import SeatView, strong_play
from rules_core.strategy.knowledge import knowledge
from rules_core.strategy.reading import read_follows
from rules_core.strategy.sampling import sample
from rules_core.trump import TRUMP, TrumpContext, trump_context

CTX = trump_context(2, Suit.H)  # level 2, hearts trump: spades, clubs and diamonds are plain


def read(
    leader: int, cards: Sequence[str], tricks: Sequence[tuple[int, Sequence[str]]] = ()
) -> list[frozenset[int]]:
    """Per seat, the faces read absent from a trick of single cards led by ``leader`` (after ``tricks``)."""
    history = [(lead, [parse_cards([c]) for c in plays]) for lead, plays in tricks]
    history.append((leader, [parse_cards([c]) for c in cards]))
    absent = read_follows(CTX, DEFAULT_RULES, history)
    return [frozenset(f for f in range(NUM_FACES) if absent[s][f]) for s in range(PLAYERS)]


def faces(text: str) -> frozenset[int]:
    return frozenset(parse_cards(text.split()))


NONE: frozenset[int] = frozenset()


def test_a_follower_that_does_not_beat_an_opponents_card_holds_no_master() -> None:
    """Seat 0 leads S9, seat 1 (an opponent, not last) follows S3: it holds no SA, the strongest spade
    not yet played (the leader and the seats still to play show nothing)."""
    assert read(0, ["S9", "S3"]) == [NONE, faces("SA"), NONE, NONE]
    # One SA played before: the other copy is still the master.
    assert read(0, ["S9", "S3"], [(2, ["SA", "S3", "S4", "S6"])])[1] == faces("SA")
    # Both played: the master is SK.
    both = [(2, ["SA", "S3", "S4", "S6"]), (2, ["SA", "S7", "S4", "S6"])]
    assert read(0, ["S9", "S3"], both)[1] == faces("SK")


def test_the_last_seat_that_does_not_take_an_opponents_card_holds_nothing_above_it() -> None:
    """Seat 1 leads S9 and wins; seat 0, last, follows S4: nothing above S9 (R7.1); seat 2 (not last)
    no SA."""
    absent = read(1, ["S9", "S4", "S6", "S4"])
    assert absent[0] == faces("S10 SJack SQ SK SA")
    assert absent[2] == faces("SA")


def test_a_follower_that_gives_points_to_an_opponent_holds_no_cheaper_card() -> None:
    """Seat 1 follows S10 under seat 0's SA: it holds no spade of fewer points (no 5 and no card
    without points; level 2 makes S2 a trump); the 5 would have cost less."""
    assert read(0, ["SA", "S10"])[1] == faces("S3 S4 S5 S6 S7 S8 S9 SJack SQ SA")


def test_the_last_seat_feeds_its_partner_the_most_points_it_holds() -> None:
    """Seat 1 wins with SA; seat 3, its partner and last, follows S5: it holds no S10 and no SK."""
    assert read(0, ["S9", "SA", "S3", "S5"])[3] == faces("S10 SK")


def test_the_last_seat_takes_with_its_cheapest_winner() -> None:
    """Seat 3, last, takes seat 0's S9 (seat 2's S3 did not) with SK: it holds no S10, SJack, SQ."""
    assert read(0, ["S9", "S4", "S3", "SK"])[3] == faces("S10 SJack SQ")


def test_a_discard_on_a_trick_worth_ruffing_shows_no_trump_to_take_it() -> None:
    """Seat 0 leads SK (10 points) and wins; seat 1, void in spades, discards D3: it holds no trump.
    Once seat 2 ruffs with H4, seat 3's discard shows no trump above the H4 (R7.1: an over-ruff)."""
    absent = read(0, ["SK", "D3", "H4", "C3"])
    assert absent[1] == frozenset(CTX.faces[TRUMP])
    h4 = CTX.strength[parse_cards(["H4"])[0]]
    assert absent[3] == frozenset(f for f in CTX.faces[TRUMP] if CTX.strength[f] > h4)
    assert faces("BJ SJ HA S2 D2") <= absent[3]  # the jokers, the trump suit's ace, the level cards


def test_nothing_is_read_from_a_cheap_trick_or_a_trump_lead_not_worth_taking() -> None:
    """A void seat discarding on a trick of no points, and a trump follower not taking a pointless
    trump lead short of the last seat, show nothing (a careful player keeps its trumps)."""
    assert read(0, ["S9", "D3"]) == [NONE] * PLAYERS
    assert read(0, ["H9", "H3"]) == [NONE] * PLAYERS


def test_nothing_is_read_under_finding_friends() -> None:
    """Finding friends (R15): a follower may not have known the winner's side, so nothing is read."""
    rules = dataclasses.replace(DEFAULT_RULES, partners=Partners.FRIENDS)
    history = [(0, [parse_cards(["S9"]), parse_cards(["S3"])])]
    assert read_follows(CTX, rules, history) == []


class Reader:
    """A careful seat that, at each of its turns, checks the reads against every seat's true hand and
    that sampled layouts keep them."""

    def __init__(self, ctx: TrumpContext, rules: Rules, live: list[Hand], seed: int) -> None:
        self.ctx, self.rules, self.live = ctx, rules, live
        self.careful = CarefulPlayer()
        self.rng = random.Random(seed)
        self.reads = 0
        self.read_layouts = 0  # layouts sampled with some read in force

    def __call__(self, view: SeatView) -> tuple[int, ...]:
        tricks = (*view.tricks, (view.leader, view.plays))
        absent = read_follows(self.ctx, self.rules, tricks)
        for seat in range(self.rules.seats):
            held = self.live[seat]
            wrong = [f for f in range(NUM_FACES) if absent[seat][f] and held[f]]
            assert not wrong, (seat, format_cards(wrong), view)
            self.reads += sum(absent[seat])
        info = knowledge(self.ctx, self.rules, view)
        others = [s for s in range(self.rules.seats) if s != view.seat]
        for _ in range(2):
            layout = sample(info, self.rng, others)
            self.read_layouts += any(any(row) for row in absent)
            for seat in others:
                barred = [f for f in range(NUM_FACES) if info.barred[seat][f] and layout[seat][f]]
                assert not barred, (seat, format_cards(barred), view)
        return self.careful(self.ctx, self.rules, view, 0)


@pytest.mark.parametrize("seed", range(4))
def test_the_reads_are_true_of_the_careful_player_and_every_layout_keeps_them(seed: int) -> None:
    """Four careful seats play whole hands: at every turn no seat holds a face its follows were read
    not to hold, and two layouts sampled for the other seats give no seat a barred face (a void, R5.2,
    or a read)."""
    rng = random.Random(seed)
    hands, _ = deal(rng)
    ctx = trump_context(rng.randint(2, 14), rng.choice([*Suit, None]))
    live = list(hands)  # play_out keeps its own copies; this one follows them through the views
    dealer = rng.randrange(PLAYERS)
    reader = Reader(ctx, DEFAULT_RULES, live, seed)

    def seat(view: SeatView) -> tuple[int, ...]:
        live[view.seat] = view.hand
        return reader(view)

    play_out(ctx, DEFAULT_RULES, live, dealer=dealer, buried=(), seats=[seat] * PLAYERS)
    assert reader.reads > 0  # some follow showed something
    assert reader.read_layouts > 0  # and the layouts were checked against it


HAND = "SK S6 S7 S8 C6 C7 C8 C9 CJ CQ D3 D4 D6 D7 D8 D9 DJ H3 H6 H7 H8 H9 HJ"
"""Seat 0's 23 cards in the worked position: its only point card is the SK."""


def _lead(tricks: Sequence[tuple[int, Sequence[str]]], seed: int) -> tuple[int, ...]:
    """Seat 0 leads the third trick; seat 2 deals (so 1 and 3 attack)."""
    view = SeatView(
        seat=0,
        hand=hand_of(parse_cards(HAND.split())),
        leader=0,
        dealer=2,
        tricks=tuple((leader, tuple(parse_cards([c]) for c in plays)) for leader, plays in tricks),
        attacker_points=0,
    )
    return strong_play(CTX, DEFAULT_RULES, view, seed=seed)


@pytest.mark.parametrize("seed", range(4))
def test_the_reads_make_a_king_safe_to_lead(seed: int) -> None:
    """The worked position. The same eight cards, none with points, were played in the first two tricks,
    in two orders. Read: under seat 2's S9, seat 3 followed S3 short of the last seat (no master: no SA)
    and seat 1, last, S6 (nothing above the S9): no attacker holds an SA, so seat 0 leads its SK, which
    takes the trick and keeps its 10 points for the dealer's side. Unread: seat 3 took seat 2's S3 with
    the S9 and its partner fed it; either attacker may hold an SA, and the SK is not led."""
    read = [(2, ["S9", "S3", "S4", "S6"]), (2, ["C3", "C4", "CA", "C4"])]
    unread = [(2, ["S3", "S9", "S4", "S6"]), (3, ["C3", "CA", "C4", "C4"])]
    sk = parse_cards(["SK"])
    assert _lead(read, seed) == sk
    assert _lead(unread, seed) != sk
