"""Advice on other tables (R14, R15): whole random hands played by the suggestions, every play legal.

The checks are the engine's own request checks (R14.5 leads against the other hands as they are, R14.6
follows), independent of the advice's internal check.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from rules_core.bidding import Shown, declare
from rules_core.cards import BIG_JOKER, NUM_FACES, SMALL_JOKER, Suit, deal_sizes, hand_of
from rules_core.kitty import validate_bury
from rules_core.rules import DEFAULT_RULES, Partners, Rules
from rules_core.strategy import MAX_BUDGET, SeatView, search_plays
from rules_core.strategy.bury import BuryPolicy, suggest_bury
from rules_core.strategy.declaration import DeclarationPolicy, suggest_declaration
from rules_core.trick import standing_of
from rules_core.trump import trump_context
from rules_core.turn import HandSoFar, Policy, suggest, validate_play
from rules_core.verdicts import Legal

TABLES = [(3, 6, Partners.FRIENDS), (4, 8, Partners.FIXED), (2, 5, Partners.FRIENDS)]


def _rules(decks: int, seats: int, partners: Partners) -> Rules:
    return replace(DEFAULT_RULES, decks=decks, seats=seats, partners=partners)


@pytest.mark.parametrize("policy", list(Policy))
@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_whole_hands_are_legal(decks: int, seats: int, partners: Partners, policy: Policy) -> None:
    """R14.2 bury, then every trick of the hand by SuggestPlay's own call under each policy, told what a
    seat at the table knows (the dealer, the finished tricks of N plays, the bottom for the dealer): each
    play legal by ValidatePlay's check against the other hands as they are (a throw that fails leads its
    forced component, R4.7), and answered with its policy, the strong one read off the reason too."""
    rules = _rules(decks, seats, partners)
    rng = random.Random(decks * 100 + seats)
    size, bottom = deal_sizes(decks, seats)
    for _ in range(2):
        ctx = trump_context(rng.randint(2, 14), rng.choice([Suit.S, Suit.H, Suit.C, Suit.D, None]))
        deck = [f for f in range(NUM_FACES) for _ in range(decks)]
        rng.shuffle(deck)
        hands = [deck[i * size : (i + 1) * size] for i in range(seats)]
        dealer = rng.randrange(seats)
        held = hands[dealer] + deck[seats * size :]
        bury = suggest_bury(ctx, rules, hand=held, policy=BuryPolicy.STRONG)  # the strong bury
        buried = list(bury.cards)
        assert validate_bury(rules, hand=held, bury=buried).legal and len(buried) == bottom
        assert bury.reason.startswith("strong:") and bury.policy is BuryPolicy.STRONG
        for face in buried:
            held.remove(face)
        hands[dealer] = held
        leader = dealer
        tricks: list[tuple[tuple[int, tuple[int, ...]], ...]] = []
        while hands[leader]:
            plays: list[tuple[int, tuple[int, ...]]] = []
            for i in range(seats):
                seat = (leader + i) % seats
                so_far = HandSoFar(
                    dealer=dealer, tricks=tuple(tricks), bottom=tuple(buried) if seat == dealer else ()
                )
                advice = suggest(
                    ctx,
                    rules,
                    seat=seat,
                    hand=hands[seat],
                    trick_leader=leader,
                    trick_plays=plays,
                    policy=policy,
                    so_far=so_far,
                    seed=len(tricks),
                )
                assert advice.policy is policy
                assert advice.reason.startswith("strong:") == (policy is Policy.STRONG), advice.reason
                others = None if plays else [(s, tuple(hands[s])) for s in range(seats) if s != seat]
                verdict = validate_play(
                    ctx,
                    rules,
                    seat=seat,
                    hand=hands[seat],
                    trick_leader=leader,
                    trick_plays=plays,
                    cards=advice.cards,
                    others=others,
                ).verdict
                assert isinstance(verdict, Legal), (advice.cards, verdict)
                cards = advice.cards
                if verdict.throw is not None:
                    cards = tuple(verdict.throw.led)  # R4.7: a failed throw leads its forced component
                for face in cards:
                    hands[seat].remove(face)
                plays.append((seat, cards))
            tricks.append(tuple(plays))
            leader = plays[standing_of(ctx, rules, [p for _, p in plays]).best][0]
        assert not any(hands)


@pytest.mark.parametrize("first_hand", [True, False])
@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_declarations_are_accepted(decks: int, seats: int, partners: Partners, first_hand: bool) -> None:
    """R14.11: SuggestDeclaration's strong policy on every table, first hand or later: each suggested act
    is accepted when replayed (only the seat's own received cards sent), some seat declares over the
    deals, and a hand of every copy of a level card among many trumps shows them all."""
    rules = _rules(decks, seats, partners)
    rng = random.Random(decks + seats)
    size = deal_sizes(decks, seats)[0]
    suggested = 0
    for _ in range(40):
        level = rng.randint(2, 14)
        dealer = None if first_hand else rng.randrange(seats)
        deck = [f for f in range(NUM_FACES) for _ in range(decks)]
        rng.shuffle(deck)
        acts: list[Shown] = []
        for seat in range(seats):
            received = tuple(deck[seat * size : seat * size + rng.randint(size // 2, size)])
            asked = [(who, cards, held if who == seat else None) for who, cards, held in acts]
            advice = suggest_declaration(
                rules=rules,
                level=level,
                seat=seat,
                received=received,
                acts=asked,
                first_hand=first_hand,
                dealer=dealer,
            )
            assert advice.policy is DeclarationPolicy.STRONG and advice.reason.startswith("strong:")
            if advice.act is None:
                assert advice.cards == ()
                continue
            suggested += 1
            acts.append((seat, advice.cards, received))
            replay = declare(rules=rules, level=level, acts=acts, first_hand=first_hand, dealer=dealer)
            assert replay.acts[-1] == advice.act
    assert suggested > 0
    level_face = 13 + 3  # H5
    hearts = tuple(f for f in range(13, 26) if f != level_face for _ in range(decks))[: size - decks - 2]
    received = (level_face,) * decks + hearts + (SMALL_JOKER, BIG_JOKER)
    advice = suggest_declaration(rules=rules, level=5, seat=0, received=received, acts=[])
    assert advice.cards == (level_face,) * decks and advice.act is not None, advice


@pytest.mark.parametrize(("decks", "seats", "partners"), TABLES)
def test_the_strong_table_bury_keeps_trumps_and_voids_a_short_suit(
    decks: int, seats: int, partners: Partners
) -> None:
    """R11, R14.2: the strong bury on every table buries the table's bottom size of the dealer's cards,
    no trump while plain cards are enough, and empties a plain suit short enough to fit the bottom."""
    rules = _rules(decks, seats, partners)
    size, bottom = deal_sizes(decks, seats)
    rng = random.Random(decks * 7 + seats)
    ctx = trump_context(2, Suit.S)
    for _ in range(10):
        deck = [f for f in range(NUM_FACES) for _ in range(decks)]
        rng.shuffle(deck)
        held = deck[: size + bottom]
        advice = suggest_bury(ctx, rules, hand=held, policy=BuryPolicy.STRONG)
        assert validate_bury(rules, hand=held, bury=advice.cards).legal
        plain = [f for f in held if not ctx.is_trump(f)]
        if len(plain) >= bottom:
            assert not any(ctx.is_trump(f) for f in advice.cards), advice
        short = [
            cat
            for cat in range(4)
            if 0 < sum(1 for f in held if ctx.category[f] == cat) <= bottom // 2
            and not any(ctx.is_trump(f) for f in held if ctx.category[f] == cat)
        ]
        if short:
            left = list(held)
            for f in advice.cards:
                left.remove(f)
            voids = [cat for cat in range(4) if not any(ctx.category[f] == cat for f in left)]
            assert voids, (short, advice)


def test_a_strong_suggestion_names_the_layouts_its_search_used() -> None:
    """On eight seats and four decks a first lead's candidates fill the search's work bound before the
    budget does (``rules_core.strategy.MAX_WORK``): the reason names the fewer layouts sampled, those
    of the search itself, not the budget asked for."""
    rules = _rules(4, 8, Partners.FIXED)
    ctx = trump_context(7, Suit.H)
    rng = random.Random(8)
    size, _ = deal_sizes(4, 8)
    deck = [f for f in range(NUM_FACES) for _ in range(4)]
    rng.shuffle(deck)
    hand = deck[:size]
    advice = suggest(ctx, rules, seat=0, hand=hand, trick_leader=0, trick_plays=(), budget=MAX_BUDGET)
    found = search_plays(ctx, rules, SeatView(seat=0, hand=hand_of(hand, 4), leader=0), budget=MAX_BUDGET)
    assert 1 <= found.layouts < MAX_BUDGET
    assert f"over {found.layouts} sampled layouts" in advice.reason, advice.reason
    assert advice.cards == found.best
