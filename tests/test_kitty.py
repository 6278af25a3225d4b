"""Burying the bottom (R11): worked cases, both violations, malformed states and random-deal properties."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st
from worked_cases import Case, cards, cases

from rules_core.cards import (
    BOTTOM_SIZE,
    DEALER_HAND_SIZE,
    FULL_DECK,
    HAND_SIZE,
    add,
    faces_of,
    hand_of,
    hand_size,
    parse_cards,
    points_of,
)
from rules_core.kitty import BuryResult, check_bury
from rules_core.verdicts import Violation


def parsed(names: str) -> tuple[int, ...]:
    """Space-separated card names to faces."""
    return parse_cards(names.split())


# 33 cards: the hand of WC-147 (L=2, T=H).
HAND = hand_of(
    parsed(
        "BJ SJ D2 HQ HJ H10 H8 H6 H5 H5 H4 H3 SA SA SK SQ SJack SJack S6 S6 S4 CJ C10 C9 C5 "
        "DA DA DJ D7 D6 D5 D4 D3"
    )
)


def bury(names: str) -> BuryResult:
    return check_bury(hand=HAND, bury=parsed(names))


@pytest.mark.parametrize("case", cases("bury"))
def test_worked_case(case: Case) -> None:
    hand = hand_of(cards(case["input"]["hand"]))
    buried = cards(case["input"]["bury"])
    result = check_bury(hand=hand, bury=buried)
    assert {"legal": result.legal} == case["expect"]
    if result.legal:
        assert result.remaining is not None
        assert hand_size(result.remaining) == HAND_SIZE
        assert add(result.remaining, buried) == hand
    else:
        assert result.reason is Violation.WRONG_CARD_COUNT  # every illegal line buries 7 or 9 cards


def test_worked_cases_are_present() -> None:
    assert len(cases("bury")) == 4


def test_legal_bury_returns_the_rest_and_the_bottom() -> None:
    result = bury("SJ SA SA H5 H5 H10 SK D5")
    rest = "BJ D2 HQ HJ H8 H6 H4 H3 SQ SJack SJack S6 S6 S4 CJ C10 C9 C5 DA DA DJ D7 D6 D4 D3"
    expected = BuryResult(
        legal=True, remaining=hand_of(parsed(rest)), bottom=tuple(sorted(parsed("SJ SA SA H5 H5 H10 SK D5")))
    )
    assert result == expected
    assert points_of(result.bottom) == 35


def test_trumps_jokers_and_points_may_be_buried() -> None:
    # R11.3: BJ SJ (jokers), D2 (level card), H10 H5 H5 (trump points), SK (points).
    assert bury("BJ SJ D2 HQ H10 H5 H5 SK").legal


@pytest.mark.parametrize("names", ["", "SA", "SA SA S6 S6 S4 CJ C10", "SA SA S6 S6 S4 CJ C10 C9 C5"])
def test_wrong_count(names: str) -> None:
    result = bury(names)
    assert (result.legal, result.reason, result.remaining, result.bottom) == (
        False,
        Violation.WRONG_CARD_COUNT,
        None,
        (),
    )
    assert f"buried {len(names.split())} cards" in result.message


@pytest.mark.parametrize(
    ("names", "missing"),
    [
        pytest.param("HA SA SA S6 S6 S4 CJ C10", "HA", id="absent-face"),
        pytest.param("BJ BJ SA SA S6 S6 S4 CJ", "BJ", id="second-copy"),
        pytest.param("CA CA SA SA S6 S6 S4 CJ", "CA CA", id="both-copies"),
    ],
)
def test_cards_not_in_hand(names: str, missing: str) -> None:
    result = bury(names)
    assert (result.legal, result.reason, result.remaining) == (False, Violation.CARDS_NOT_IN_HAND, None)
    assert result.message.startswith(f"{missing} not in")


def test_count_is_checked_before_holdings() -> None:
    assert bury("HA").reason is Violation.WRONG_CARD_COUNT


@pytest.mark.parametrize(
    ("hand", "match"),
    [
        pytest.param(hand_of(range(32)), "33 cards, got 32", id="32-cards"),
        pytest.param(hand_of(range(34)), "33 cards, got 34", id="34-cards"),
        pytest.param(HAND[:-1], "54 counts", id="short-vector"),
        pytest.param((3,) * 11 + (0,) * 43, "54 counts", id="three-copies"),
    ],
)
def test_malformed_hand_raises(hand: tuple[int, ...], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        check_bury(hand=hand, bury=parsed("SA SA S6 S6 S4 CJ C10 C9"))


@pytest.mark.parametrize(
    ("faces", "match"),
    [
        pytest.param((54, 0, 0, 1, 1, 2, 2, 3), "unknown face", id="face-54"),
        pytest.param((12, 12, 12, 1, 1, 2, 2, 3), "copies", id="third-copy"),
    ],
)
def test_malformed_bury_raises(faces: tuple[int, ...], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        check_bury(hand=HAND, bury=faces)


def test_result_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        bury("").legal = True  # type: ignore[misc]


Dealt = tuple[tuple[int, ...], list[int]]
"""A dealer's 33 cards as a count vector and as a list of faces."""


@st.composite
def dealer_hands(draw: st.DrawFn) -> Dealt:
    """A dealer's 33 cards from a shuffled two-deck deal, as a hand and as a list in random order."""
    deck = draw(st.permutations(faces_of(FULL_DECK)))
    faces = list(deck[:DEALER_HAND_SIZE])
    return hand_of(faces), faces


@given(dealer_hands(), st.data())
def test_any_eight_held_cards_are_legal(dealt: Dealt, data: st.DataObject) -> None:
    hand, faces = dealt
    chosen = data.draw(st.lists(st.sampled_from(range(len(faces))), min_size=8, max_size=8, unique=True))
    buried = [faces[index] for index in chosen]
    result = check_bury(hand=hand, bury=buried)
    assert result.legal
    assert result.reason is None
    assert result.remaining is not None
    assert hand_size(result.remaining) == HAND_SIZE
    assert add(result.remaining, result.bottom) == hand
    assert result.bottom == tuple(sorted(buried))


@given(dealer_hands(), st.data())
def test_other_counts_are_illegal(dealt: Dealt, data: st.DataObject) -> None:
    hand, faces = dealt
    size = data.draw(st.integers(0, DEALER_HAND_SIZE).filter(lambda n: n != BOTTOM_SIZE))
    buried = data.draw(st.permutations(faces))[:size]
    assert check_bury(hand=hand, bury=buried).reason is Violation.WRONG_CARD_COUNT


@given(dealer_hands(), st.data())
def test_a_card_from_outside_is_illegal(dealt: Dealt, data: st.DataObject) -> None:
    hand, faces = dealt
    stranger = data.draw(st.sampled_from([face for face in range(len(hand)) if hand[face] < 2]))
    extra = 1 if hand[stranger] == 0 else 2  # a face not held, or a second copy of a face held once
    held = [face for face in data.draw(st.permutations(faces)) if face != stranger]
    result = check_bury(hand=hand, bury=[stranger] * extra + held[: BOTTOM_SIZE - extra])
    assert result.reason is Violation.CARDS_NOT_IN_HAND
