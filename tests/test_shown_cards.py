"""What the bidding showed reaches the seat's knowledge (rules_core.strategy.shown, .knowledge, .sampling):
every sampled layout keeps each shown card with its seat until that seat plays it (R10.2; the dealer's in
his hand or the bottom, R11), the declarations are validated as ValidateDeclaration would judge them, and
a position where the shown cards change the best play."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import pytest

from rules_core.autoplay import suggest_play
from rules_core.bidding import Declaration, resolve_declarations
from rules_core.cards import (
    BIG_JOKER,
    BOTTOM_SIZE,
    COPIES,
    NUM_FACES,
    PLAYERS,
    SMALL_JOKER,
    Hand,
    Suit,
    add,
    faces_of,
    parse_cards,
    remove,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import DEFAULT_RULES
from rules_core.selfplay import deal, play_out
from rules_core.strategy import SeatView, strong_play
from rules_core.strategy.knowledge import knowledge
from rules_core.strategy.sampling import sample
from rules_core.trump import TrumpContext, trump_context
from rules_core.turn import HandSoFar, Turn, check_turn, seat_view

Acts = tuple[tuple[int, tuple[int, ...]], ...]


def bidding(rng: random.Random, hands: tuple[Hand, ...], level: int) -> Acts:
    """A random bidding R10 accepts: each seat in a random order offers the acts it could make with its
    whole hand (a single, a level pair, a joker pair); the accepted ones are kept."""
    offers = []
    for seat in range(PLAYERS):
        hand = hands[seat]
        for suit in Suit:
            face = suit * 13 + level - 2
            if hand[face]:
                offers.append((seat, (face,) * rng.choice([1, hand[face]])))
        for joker in (SMALL_JOKER, BIG_JOKER):
            if hand[joker] == COPIES:
                offers.append((seat, (joker, joker)))
    rng.shuffle(offers)
    acts: list[tuple[int, tuple[int, ...]]] = []
    for seat, cards in offers[: rng.randint(0, 4)]:
        sequence = [Declaration(s, c) for s, c in [*acts, (seat, cards)]]
        if resolve_declarations(rules=DEFAULT_RULES, level=level, sequence=sequence, first_hand=True).acts[
            -1
        ]:
            acts.append((seat, cards))
    return tuple(acts)


def held_by(acts: Acts) -> list[list[int]]:
    """Per seat, the copies of each face its acts showed: a single and then its second copy (or the
    whole pair again, A2) show the pair."""
    shown = [[0] * NUM_FACES for _ in range(PLAYERS)]
    for seat, cards in acts:
        shown[seat][cards[0]] = min(COPIES, shown[seat][cards[0]] + len(cards))
    return shown


@dataclass
class Checker:
    """A seat for ``play_out`` that, at every turn, validates the history with the bidding, samples
    layouts of the unseen cards and checks the shown cards in each, then leads a pair when it holds one
    and otherwise plays R13.6's card."""

    ctx: TrumpContext
    dealer: int
    acts: Acts
    rng: random.Random
    layouts: int = 0
    unpaired: int = 0
    """(seat, category) pairs known to hold no pair (R5.3) over the layouts: the inference was exercised."""

    def __call__(self, view: SeatView) -> tuple[int, ...]:
        ctx, dealer, shown = self.ctx, self.dealer, held_by(self.acts)
        so_far = HandSoFar(
            dealer=dealer,
            tricks=tuple(seated(leader, plays) for leader, plays in view.tricks),
            bottom=view.bottom,
            declarations=self.acts,
        )
        turn = check_turn(
            ctx,
            DEFAULT_RULES,
            seat=view.seat,
            hand=faces_of(view.hand),
            trick_leader=view.leader,
            trick_plays=seated(view.leader, view.plays),
        )
        full = seat_view(ctx, DEFAULT_RULES, turn, so_far, "hand_so_far")
        info = knowledge(ctx, DEFAULT_RULES, full)
        played = [[0] * NUM_FACES for _ in range(PLAYERS)]
        for leader, plays in [*full.tricks, (full.leader, full.plays)]:
            for i, p in enumerate(plays):
                for face in p:
                    played[(leader + i) % PLAYERS][face] += 1
        still = [[max(0, shown[s][f] - played[s][f]) for f in range(NUM_FACES)] for s in range(PLAYERS)]
        others = [s for s in range(PLAYERS) if s != view.seat]
        for _ in range(12):
            layout = sample(info, self.rng, others)
            self.layouts += 1
            for s in others:
                assert sum(layout[s]) == info.sizes[s]
                for face in range(NUM_FACES):
                    elsewhere = sum(still[o][face] for o in others if o not in (s, dealer))
                    if s != dealer:
                        assert layout[s][face] >= still[s][face], (view, s, face)
                    assert layout[s][face] + elsewhere <= info.unseen[face], (view, s, face)
                    cat = ctx.category[face]
                    assert not (info.voids[s][cat] and layout[s][face]), (view, s, face)  # R5.2
                    assert not (info.unpaired[s][cat] and layout[s][face] >= 2), (view, s, face)  # R5.3
            self.unpaired += sum(info.unpaired[s].count(True) for s in others)
        pairs = [f for f in range(NUM_FACES) if view.hand[f] >= 2]
        if not view.plays and pairs:  # a pair lead: the followers show the pairs they lack (R5.3)
            return (pairs[0], pairs[0])
        return suggest_play(ctx, hand=view.hand, lead=view.plays[0] if view.plays else ())


def seated(leader: int, plays: Sequence[tuple[int, ...]]) -> tuple[tuple[int, tuple[int, ...]], ...]:
    return tuple(((leader + i) % PLAYERS, p) for i, p in enumerate(plays))


@pytest.mark.parametrize("seed", range(6))
def test_every_sampled_layout_keeps_every_shown_card_with_its_seat(seed: int) -> None:
    """Seeded whole hands with a random accepted bidding and a random bury (the dealer may bury a shown
    card, R11): at every turn the history validates, and in 12 layouts sampled for every other seat each
    non-dealer seat holds every shown card it has not played, and no seat holds one another seat still
    holds; the dealer's are in his hand or in no other seat's. No seat holds a card of a category it
    showed void in (R5.2), nor a pair of one it followed a pair lead of with fewer pairs (R5.3)."""
    rng = random.Random(seed)
    checked = inferred = 0
    while checked < 3:
        hands, bottom = deal(rng)
        level = rng.randint(2, 14)
        acts = bidding(rng, hands, level)
        if not acts:
            continue
        checked += 1
        sequence = [Declaration(s, c) for s, c in acts]
        contract = resolve_declarations(rules=DEFAULT_RULES, level=level, sequence=sequence, first_hand=True)
        ctx = trump_context(level, contract.contract)
        dealer = rng.randrange(PLAYERS)
        buried = tuple(sorted(rng.sample(list(faces_of(add(hands[dealer], bottom))), BOTTOM_SIZE)))
        live = list(hands)
        live[dealer] = remove(add(hands[dealer], bottom), buried)
        checker = Checker(ctx, dealer, acts, rng)
        play_out(ctx, DEFAULT_RULES, live, dealer=dealer, buried=buried, seats=[checker] * PLAYERS)
        assert checker.layouts >= 12 * 25  # at least one turn a trick
        inferred += checker.unpaired
    assert inferred  # some seat followed a pair lead with fewer pairs: its layouts were checked pairless


def test_the_bidding_facts_are_validated() -> None:
    """Each act one ValidateDeclaration accepts, ending in the request's contract; seats in range; the
    asking seat's own shown cards held or played; no third copy with what the seat holds."""
    ctx = trump_context(2, Suit.H)
    hand = parse_cards(["SA", "SK"])

    def turn_of() -> Turn:
        return check_turn(ctx, DEFAULT_RULES, seat=0, hand=hand, trick_leader=None, trick_plays=())

    def refused(acts: Acts, dealer: int | None = 1) -> tuple[str, Problem]:
        with pytest.raises(InvalidArgumentError) as caught:
            seat_view(
                ctx, DEFAULT_RULES, turn_of(), HandSoFar(dealer=dealer, declarations=acts), "hand_so_far"
            )
        return caught.value.argument, caught.value.problem

    h2, s2 = parse_cards(["H2"])[0], parse_cards(["S2"])[0]
    assert refused(((1, (h2,)), (3, (s2,)))) == ("hand_so_far.declarations[1].cards", Problem.INCONSISTENT)
    assert refused(((1, (s2,)),)) == ("hand_so_far.declarations", Problem.INCONSISTENT)  # spades, not hearts
    assert refused(((5, (h2,)),)) == ("hand_so_far.declarations[0].seat", Problem.OUT_OF_RANGE)
    text = "SA SK SQ SJack S10 S9 S8 S7 S6 S5 S4 S3 HA HK HQ HJ H10 H9 H8 H7 H6 H5 H4 H3 CA"
    full = parse_cards(text.split(" "))
    turn = check_turn(ctx, DEFAULT_RULES, seat=0, hand=full, trick_leader=None, trick_plays=())
    with pytest.raises(InvalidArgumentError) as caught:  # seat 0 holds all 25 cards and no H2
        seat_view(ctx, DEFAULT_RULES, turn, HandSoFar(dealer=1, declarations=((0, (h2,)),)), "hand_so_far")
    assert (caught.value.argument, caught.value.problem) == (
        "hand_so_far.declarations[0].cards",
        Problem.INCONSISTENT,
    )
    both = parse_cards(["H2", "H2", "SA"])
    turn = check_turn(ctx, DEFAULT_RULES, seat=0, hand=both, trick_leader=None, trick_plays=())
    with pytest.raises(InvalidArgumentError) as caught:  # a third H2
        seat_view(ctx, DEFAULT_RULES, turn, HandSoFar(dealer=0, declarations=((1, (h2,)),)), "hand_so_far")
    assert caught.value.problem is Problem.TOO_MANY_COPIES
    view = seat_view(ctx, DEFAULT_RULES, turn_of(), HandSoFar(dealer=0, declarations=((1, (h2, h2)),)), "hf")
    assert view.shown == ((1, (h2, h2)),)


def _follow(acts: Acts, seed: int) -> tuple[int, ...]:
    """Level 10, no-trump: seat 0 deals and leads S10 (a trump, 10 points); seat 1, an attacker, holds
    SJ D10 C3 C4 four cards from the end and plays second."""
    ctx = trump_context(10, None)
    turn = check_turn(
        ctx,
        DEFAULT_RULES,
        seat=1,
        hand=parse_cards(["SJ", "D10", "C3", "C4"]),
        trick_leader=0,
        trick_plays=((0, parse_cards(["S10"])),),
    )
    view = seat_view(ctx, DEFAULT_RULES, turn, HandSoFar(dealer=0, declarations=acts), "hand_so_far")
    return strong_play(ctx, DEFAULT_RULES, view, seed=seed)


@pytest.mark.parametrize("seed", range(4))
def test_a_partners_shown_big_jokers_turn_a_win_into_feeding_points(seed: int) -> None:
    """The worked position. Without the bidding, seat 1 spends its SJ on the S10: only a BJ beats it,
    and the two BJs may be anywhere. Seat 3, its partner and last to play, showed BJ BJ (A7, the
    no-trump contract) and has played neither: the trick is the partner's whatever seat 2 does, so
    seat 1 feeds its D10 (10 points to the attackers) and keeps the SJ."""
    bj = parse_cards(["BJ"])[0]
    sj, d10 = parse_cards(["SJ"])[0], parse_cards(["D10"])[0]
    assert _follow((), seed) == (sj,)
    assert _follow(((3, (bj, bj)),), seed) == (d10,)


def test_no_inference_from_an_act_not_made() -> None:
    """The ruling (rules_core.strategy.shown): R10 obliges no declaration, so a seat that did not
    overturn may still hold the level pair; layouts still give seat 2 both D2s when only seat 1 showed."""
    ctx = trump_context(2, Suit.H)
    text = "SA SK SQ SJack S10 S9 S8 S7 S6 S5 S4 S3 HA HK HQ HJ H10 H9 H8 H7 H6 H5 H4 H3 CA"
    turn = check_turn(
        ctx, DEFAULT_RULES, seat=0, hand=parse_cards(text.split(" ")), trick_leader=None, trick_plays=()
    )
    h2, d2 = parse_cards(["H2"])[0], parse_cards(["D2"])[0]
    view = seat_view(ctx, DEFAULT_RULES, turn, HandSoFar(dealer=0, declarations=((1, (h2,)),)), "hand_so_far")
    info = knowledge(ctx, DEFAULT_RULES, view)
    rng = random.Random(3)
    layouts = [sample(info, rng, [1, 2, 3]) for _ in range(400)]
    assert all(layout[1][h2] >= 1 for layout in layouts)
    assert any(layout[2][d2] == COPIES for layout in layouts)
