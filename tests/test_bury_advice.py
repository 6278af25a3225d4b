"""SuggestBury's engine (rules_core.strategy.bury): always a legal bury (R11) over seeded deals in every
preset, R13.6's auto-bury exactly as CalculatePenalty's, and the strong policy's choices."""

from __future__ import annotations

import random

import pytest

from rules_core.cards import (
    BOTTOM_SIZE,
    PLAYERS,
    Suit,
    add,
    faces_of,
    hand_of,
    parse_cards,
    points_of,
    remove,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.forced_quit import Phase, Role, forced_quit
from rules_core.kitty import check_bury
from rules_core.rules import PRESETS, RULEBOOK_003
from rules_core.selfplay import deal
from rules_core.strategy.bury import BuryPolicy, suggest_bury
from rules_core.trump import TRUMP, trump_context


def cards(names: str) -> tuple[int, ...]:
    return parse_cards(names.split())


def seeded_dealer(seed: int) -> tuple[int, Suit | None, tuple[int, ...], tuple[int, ...]]:
    """A seeded deal's level, contract, dealer's 33 cards and the bottom he received."""
    rng = random.Random(seed)
    hands, bottom = deal(rng)
    level, trump = rng.randint(2, 14), rng.choice([*Suit, None])
    return level, trump, faces_of(add(hands[rng.randrange(PLAYERS)], bottom)), bottom


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_bury_is_legal_and_keeps_trumps(preset: str) -> None:
    """R11.2: 8 of the dealer's own 33 cards, for both policies over 60 seeded deals per preset; the
    strong policy buries a trump only when fewer than 8 plain cards exist."""
    for seed in range(60):
        level, trump, hand, bottom = seeded_dealer(seed)
        ctx = trump_context(level, trump)
        for policy in BuryPolicy:
            advice = suggest_bury(ctx, PRESETS[preset], hand=hand, bottom=bottom, policy=policy)
            verdict = check_bury(hand=hand_of(hand), bury=advice.cards)
            assert verdict.legal and advice.bottom_points == verdict.bottom_points, (seed, policy)
        strong = suggest_bury(ctx, PRESETS[preset], hand=hand)
        plain = sum(1 for face in hand if not ctx.is_trump(face))
        buried_trumps = sum(1 for face in strong.cards if ctx.is_trump(face))
        assert buried_trumps == max(0, BOTTOM_SIZE - plain), (seed, strong.cards)


def test_auto_bury_is_calculate_penalty_s() -> None:
    """R13.6: the AUTO_BURY policy buries exactly what CalculatePenalty buries for a dealer who quits."""
    for seed in range(40):
        level, trump, hand, bottom = seeded_dealer(seed)
        ctx = trump_context(level, trump)
        advice = suggest_bury(ctx, RULEBOOK_003, hand=hand, bottom=bottom, policy=BuryPolicy.AUTO_BURY)
        quit_ = forced_quit(
            rules=RULEBOOK_003,
            phase=Phase.Q2,
            role=Role.DEALER,
            seat=0,
            base=1,
            dealer_level=level,
            overturn=1,
            balance=0,
            ctx=ctx,
            dealer_hand=hand,
            bottom=bottom,
        )
        assert advice.cards == quit_.auto_bury == bottom


# Hearts trump at level 2. Clubs are three low singles; spades and diamonds are long and hold pairs.
SHORT_CLUBS = (
    "BJ SJ H2 S2 HA HK HQ H9 H8 H7 H6 "  # 11 trumps
    "SA SK SQ SJack SJack S9 S9 S7 S4 "  # 9 spades with a pair of jacks and of nines
    "C3 C4 C6 "  # a short plain suit, no points
    "DA DK DQ DQ D9 D8 D8 D7 D6 D4"  # 10 diamonds
)


def test_the_strong_bury_voids_a_short_suit() -> None:
    """The three low clubs go (a void: the dealer can ruff clubs, R6), and no trump is buried."""
    ctx = trump_context(2, Suit.H)
    hand = cards(SHORT_CLUBS)
    advice = suggest_bury(ctx, PRESETS["default"], hand=hand)
    left = remove(hand_of(hand), advice.cards)
    assert not any(left[face] for face in ctx.faces[Suit.C])
    assert not any(ctx.is_trump(face) for face in advice.cards)
    assert "voids C" in advice.reason


def test_a_second_void_is_worth_a_king() -> None:
    """Clubs (CK C4 C3) and diamonds (five low cards) fill the 8 cards exactly: the bury voids both and
    buries the king's 10 points, rather than keeping the king with a low spade buried in its place. Two
    suits to ruff (R6) take more of the attackers' points than a non-master king can save (VOID_BONUS)."""
    ctx = trump_context(2, Suit.H)
    hand = cards(
        "BJ SJ H2 S2 HA HK HQ H9 H8 "  # 9 trumps
        "CK C4 C3 D9 D7 D6 D4 D3 "  # the two short suits
        "SA SA SK SK SQ SJack S10 S9 S9 S8 S7 S6 S5 S4 S3 S3"  # 16 spades
    )
    advice = suggest_bury(ctx, PRESETS["default"], hand=hand)
    assert advice.cards == cards("C3 C4 CK D3 D4 D6 D7 D9"), advice
    assert "voids C D, buries 10 points" in advice.reason


def test_the_strong_bury_keeps_pairs_and_masters() -> None:
    """SA (a master), the jack and nine pairs of spades and the diamond pairs stay."""
    ctx = trump_context(2, Suit.H)
    advice = suggest_bury(ctx, PRESETS["default"], hand=cards(SHORT_CLUBS))
    assert not set(advice.cards) & set(cards("SA DA SJack S9 DQ D8"))


def test_points_are_buried_only_with_a_safe_last_trick() -> None:
    """With few trumps the attackers may dig (R8.3–R8.5): no point card is buried while enough low cards
    exist. With a wall of trumps (jokers, level cards, 14 trumps) the dealer may bury a point card that
    the low cards would otherwise protect: it does bury one or more."""
    weak = cards(
        "H3 H4 "  # 4 trumps (hearts, HA HK below), no joker, no level card
        "SK S10 S5 S3 S4 S6 S7 S8 "
        "CK C10 C5 C3 C4 C6 C7 C8 "
        "DK D10 D5 D3 D4 D6 D7 D8 D9 DJ DQ HA HK SA CA"
    )
    ctx = trump_context(2, Suit.H)
    weak_advice = suggest_bury(ctx, PRESETS["default"], hand=weak)
    assert points_of(weak_advice.cards) == 0, weak_advice
    strong = cards(
        "BJ BJ SJ SJ H2 H2 S2 S2 C2 D2 HA HA HK HQ "  # 14 trumps: every joker, six level cards
        "S5 S10 SK SQ SJack S9 "  # spades: 6 with 15 points
        "C5 C10 CK CQ CJ C9 "  # clubs: 6 with 15 points
        "D5 D10 DK DQ DJ D9 D8"  # diamonds: 7
    )
    strong_advice = suggest_bury(ctx, PRESETS["default"], hand=strong)
    assert points_of(strong_advice.cards) > 0, strong_advice


@pytest.mark.parametrize(
    ("hand", "bottom", "policy", "field", "problem"),
    [
        ("S3 S4", "", BuryPolicy.STRONG, "hand", Problem.BAD_SIZE),
        (SHORT_CLUBS, "", BuryPolicy.AUTO_BURY, "bottom", Problem.MISSING),
        (SHORT_CLUBS, "BJ SJ", BuryPolicy.AUTO_BURY, "bottom", Problem.BAD_SIZE),
        (SHORT_CLUBS, "BJ SJ H2 S2 HA HK HQ CA", BuryPolicy.STRONG, "bottom[7]", Problem.INCONSISTENT),
        (SHORT_CLUBS.replace("C6", "SJack"), "", BuryPolicy.STRONG, "hand[22]", Problem.TOO_MANY_COPIES),
    ],
)
def test_malformed_requests_name_the_field(
    hand: str, bottom: str, policy: BuryPolicy, field: str, problem: Problem
) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        suggest_bury(
            trump_context(2, Suit.H),
            PRESETS["default"],
            hand=cards(hand),
            bottom=cards(bottom),
            policy=policy,
        )
    assert (caught.value.argument, caught.value.problem) == (field, problem)


def test_no_trump_contract_buries_plain_cards() -> None:
    """Under no-trump only jokers and level cards are trumps (R2.10): they stay."""
    level, _, hand, _ = seeded_dealer(7)
    ctx = trump_context(level, None)
    advice = suggest_bury(ctx, PRESETS["default"], hand=hand)
    assert all(ctx.category[face] != TRUMP for face in advice.cards)
