"""Cards, deck census and the trump context (R1, R2), including worked cases WC-001…WC-008."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from worked_cases import Case, cases, context_for, multiset

from rules_core.cards import (
    BOTTOM_SIZE,
    COPIES,
    DECK_SIZE,
    FULL_DECK,
    HAND_SIZE,
    NUM_FACES,
    PLAYERS,
    POINTS,
    TOTAL_POINTS,
    Suit,
    add,
    format_card,
    hand_of,
    parse_card,
    remove,
)
from rules_core.trump import TRUMP, describe_ladder, trump_context

ALL_CONTEXTS = [(level, trump) for level in range(2, 15) for trump in (*Suit, None)]


@pytest.mark.parametrize("case", cases("order"))
def test_worked_case_order(case: Case) -> None:
    question = case["input"]["question"]
    expect = case["expect"]
    if question == "deck":  # WC-008, R1.1, R1.6, R8.1
        assert expect == {
            "cards": DECK_SIZE,
            "faces": NUM_FACES,
            "copies": COPIES,
            "players": PLAYERS,
            "hand_size": HAND_SIZE,
            "bottom": BOTTOM_SIZE,
            "points": sum(POINTS) * COPIES,
        }
        assert PLAYERS * HAND_SIZE + BOTTOM_SIZE == DECK_SIZE
        return
    ctx = context_for(case)
    if question == "trumps":  # R2.3, R2.10
        trumps = Counter({face: COPIES for face in range(NUM_FACES) if ctx.is_trump(face)})
        assert sum(trumps.values()) == expect["count"]
        assert trumps == multiset(expect["cards"])
        return
    category = TRUMP if question == "trump_order" else int(Suit[case["input"]["suit"]])
    rungs = [set(rung) for rung in reversed(ctx.ladder[category])]  # strongest first
    assert rungs == [set(multiset(rung)) for rung in expect["order"]]


def test_point_total() -> None:
    """R8.1: 200 points in the two decks."""
    assert sum(POINTS) * COPIES == TOTAL_POINTS


@pytest.mark.parametrize("face", range(NUM_FACES))
def test_card_names_round_trip(face: int) -> None:
    assert parse_card(format_card(face)) == face


@pytest.mark.parametrize("bad", ["", "X5", "S1", "S11", "SJJ", "H", "10", "joker"])
def test_unknown_card_names_are_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match="unknown card"):
        parse_card(bad)


def test_hand_counts_refuse_a_third_copy() -> None:
    with pytest.raises(ValueError, match="more than 2 copies"):
        hand_of([5, 5, 5])
    with pytest.raises(ValueError, match="not in the hand"):
        remove(hand_of([5]), [6])
    assert add(remove(FULL_DECK, [0, 0]), [0]) == hand_of([f for f in range(NUM_FACES) for _ in (0, 1)][1:])


@pytest.mark.parametrize(("level", "trump"), ALL_CONTEXTS)
def test_every_context_partitions_the_deck(level: int, trump: Suit | None) -> None:
    """R2.3/R2.10: 36 trumps in a suit contract, 12 in no-trump; every face sits on exactly one rung."""
    ctx = trump_context(level, trump)
    faces = [face for cat in range(5) for rung in ctx.ladder[cat] for face in rung]
    assert sorted(faces) == list(range(NUM_FACES))
    assert sum(ctx.is_trump(f) for f in range(NUM_FACES)) * COPIES == (36 if trump is not None else 12)
    for cat in range(5):
        for strength, rung in enumerate(ctx.ladder[cat]):
            assert all(ctx.strength[f] == strength and ctx.category[f] == cat for f in rung)
        assert list(ctx.faces[cat]) == sorted(ctx.faces[cat], key=ctx.order.__getitem__, reverse=True)


def test_ladder_digest_is_pinned() -> None:
    """A golden digest over all 65 contexts: any change to ordering or adjacency must be deliberate."""
    text = "\n".join(
        f"{level}/{'NT' if trump is None else trump.name}: "
        + " | ".join(describe_ladder(trump_context(level, trump), cat) for cat in range(5))
        for level, trump in ALL_CONTEXTS
    )
    assert "BJ > SJ > H5 > S5 = C5 = D5 > HA" in text
    assert hashlib.sha256(text.encode()).hexdigest()[:16] == LADDER_DIGEST


LADDER_DIGEST = "81e0e9e514531099"
