"""Forced quit (R13): penalties (section L), where the coins go, auto-bury and the auto-lead."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from worked_cases import Case, cards, cases, context_for, multiset, rules_for

from rules_core.cards import (
    HAND_SIZE,
    NUM_FACES,
    Suit,
    faces_of,
    format_card,
    hand_of,
    parse_cards,
    suit_of,
)
from rules_core.forced_quit import (
    Penalty,
    Phase,
    Role,
    auto_bury,
    auto_lead,
    default_layout,
    penalty,
)
from rules_core.rules import DEFAULT_RULES, RULEBOOK_000
from rules_core.trump import TRUMP, TrumpContext, trump_context

CONTEXTS = st.builds(trump_context, st.integers(min_value=2, max_value=14), st.none() | st.sampled_from(Suit))
HANDS = st.lists(st.integers(min_value=0, max_value=2), min_size=NUM_FACES, max_size=NUM_FACES).map(tuple)
NON_EMPTY_HANDS = HANDS.filter(any)
GROUP_ORDER = {TRUMP: 0, Suit.S: 1, Suit.H: 2, Suit.C: 3, Suit.D: 4}
"""R13.6's layout, left to right, transcribed independently of the module's own constant."""


def quit_(**overrides: Any) -> Penalty:
    """penalty() for an attacker quitting in Q3 at B=100, DL=7, O=2 with a large balance, with changes."""
    args: dict[str, Any] = {
        "rules": DEFAULT_RULES,
        "phase": Phase.Q3,
        "role": Role.ATTACKER,
        "base": 100,
        "dealer_level": 7,
        "overturn": 2,
        "balance": 1_000_000,
    }
    return penalty(**(args | overrides))


@pytest.mark.parametrize("case", cases("penalty"))
def test_penalty_worked_case(case: Case) -> None:
    given_ = case["input"]
    result = penalty(
        rules=rules_for(case),
        phase=Phase(given_["phase"]),
        role=Role(given_["role"]),
        base=given_["B"],
        dealer_level=given_["DL"],
        overturn=given_["O"],
        balance=given_["balance"],
        quitter_side_lost=given_.get("quitter_side_lost"),
        owed=given_.get("owed"),
    )
    answer: dict[str, int | None] = {
        "penalty": result.penalty,
        "deducted": result.deducted,
        "disconnects": result.disconnects,
    }
    if "owed" in given_:
        answer |= {"paid_on_behalf": result.paid_on_behalf, "confiscated": result.confiscated}
    else:
        assert (result.paid_on_behalf, result.confiscated) == (None, None)
    assert answer == case["expect"]
    assert result.capped is (result.deducted < result.penalty)


@pytest.mark.parametrize("case", cases("autolead"))
def test_autolead_worked_case(case: Case) -> None:
    ctx = context_for(case)
    hand = hand_of(cards(case["input"]["hand"]))
    if "bottom" in case["input"]:
        hand, buried = auto_bury(hand33=hand, bottom=cards(case["input"]["bottom"]))
        assert Counter(buried) == multiset(case["input"]["bottom"])
    assert sum(hand) == HAND_SIZE
    assert format_card(auto_lead(ctx, hand)) == case["expect"]["card"]


def test_the_worked_cases_are_all_there() -> None:
    assert len(cases("penalty")) >= 12  # CASES.md; an empty parametrisation would only skip
    assert len(cases("autolead")) >= 2


@pytest.mark.parametrize(
    ("phase", "role", "amount"),
    [
        (Phase.Q0, Role.DEALER, 0),
        (Phase.Q1, Role.DEALER, 100 * 7 * 8 * 5),  # O does not matter before the declaration
        (Phase.Q1, Role.PARTNER, 100 * 7 * 8 * 5),
        (Phase.Q2, Role.DEALER, 100 * 7 * 2 * 5 * 2),
        (Phase.Q2, Role.PARTNER, 100 * 7 * 2 * 5),
        (Phase.Q2, Role.ATTACKER, 100 * 7 * 2 * 5),
        (Phase.Q3, Role.DEALER, 100 * 7 * 2 * 5),
    ],
)
def test_penalty_table(phase: Phase, role: Role, amount: int) -> None:
    result = quit_(phase=phase, role=role)
    assert (result.penalty, result.deducted, result.capped, result.disconnects) == (amount, amount, False, 1)


def test_strings_are_accepted_for_phase_and_role() -> None:
    assert quit_(phase="Q2", role="dealer") == quit_(phase=Phase.Q2, role=Role.DEALER)


def test_losing_side_debt_is_paid_from_the_deduction() -> None:
    # Penalty 7,000, balance 5,000: 5,000 is deducted; the quitter's 3,000 debt is paid, 2,000 confiscated.
    paid = quit_(balance=5000, quitter_side_lost=True, owed=3000)
    assert (paid.deducted, paid.paid_on_behalf, paid.confiscated, paid.capped) == (5000, 3000, 2000, True)
    short = quit_(balance=5000, quitter_side_lost=True, owed=9000)
    assert (short.paid_on_behalf, short.confiscated) == (5000, 0)


def test_winning_side_quitter_receives_nothing() -> None:
    result = quit_(quitter_side_lost=False, owed=0)
    assert (result.paid_on_behalf, result.confiscated) == (0, 7000)


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        ({"balance": -1}, "balance"),
        ({"base": -100}, "base"),
        ({"dealer_level": 15}, "dealer_level"),
        ({"overturn": 3}, "overturn"),
        ({"phase": "Q4"}, "Phase"),
        ({"role": "banker"}, "Role"),
        ({"quitter_side_lost": True}, "owed"),
        ({"owed": 100}, "quitter_side_lost"),
        ({"quitter_side_lost": False, "owed": 100}, "owed"),
        ({"quitter_side_lost": True, "owed": -1}, "owed"),
        ({"rules": RULEBOOK_000}, "off in this ruleset"),
    ],
)
def test_invalid_penalty_inputs(overrides: dict[str, Any], field: str) -> None:
    with pytest.raises(ValueError, match=field):
        quit_(**overrides)


QUITS = st.fixed_dictionaries(
    {
        "phase": st.sampled_from(Phase),
        "role": st.sampled_from(Role),
        "base": st.integers(min_value=0, max_value=10_000),
        "dealer_level": st.integers(min_value=2, max_value=14),
        "overturn": st.sampled_from((1, 2, 4, 8)),
        "balance": st.integers(min_value=0, max_value=10_000_000),
    }
)
SETTLED = st.none() | st.tuples(st.booleans(), st.integers(min_value=0, max_value=10_000_000))
"""None while the hand is unsettled, else (the quitter's side lost, what he would owe)."""


@given(quit_args=QUITS, settled=SETTLED)
def test_penalty_properties(quit_args: dict[str, Any], settled: tuple[bool, int] | None) -> None:
    lost, owed = (None, None) if settled is None else (settled[0], settled[1] if settled[0] else 0)
    result = quit_(**quit_args, quitter_side_lost=lost, owed=owed)
    balance = quit_args["balance"]
    assert 0 <= result.deducted <= min(balance, result.penalty)
    assert result.deducted == min(balance, result.penalty)
    assert result.capped is (balance < result.penalty)
    assert result.disconnects == 1
    if quit_args["phase"] is Phase.Q0:
        assert result.penalty == 0
    if owed is not None:
        assert result.paid_on_behalf is not None
        assert result.confiscated is not None
        assert 0 <= result.paid_on_behalf <= owed
        assert result.paid_on_behalf + result.confiscated == result.deducted


def hand(names: str) -> tuple[int, ...]:
    """A count vector from space-separated card names."""
    return hand_of(parse_cards(names.split()))


@pytest.mark.parametrize(
    ("level", "trump", "names", "lead"),
    [
        (5, Suit.H, "BJ SJ H5 S5 C5 D5 HA SA CA DA D2 D2", "D2"),  # R13.6: normally the lowest diamond
        (5, Suit.D, "BJ DA D2 SA C3 C4", "C3"),  # diamonds are trump: clubs are the rightmost group
        (5, Suit.H, "BJ HA S5 D5", "HA"),  # only trumps: the trump-suit A ranks below the level cards
        (5, Suit.H, "BJ H2 S5 D5", "H2"),  # the trump-suit 2 is the weakest trump
        (5, Suit.H, "BJ S5 D5", "D5"),  # equal off-suit level cards: the later suit is shown last
        (5, None, "SJ S5 H5", "H5"),  # no-trump: the level cards are all equal
        (5, None, "BJ SJ", "SJ"),
        (14, Suit.S, "SK S2 HK DK", "DK"),  # L=A: K tops the plain suits
        (2, Suit.C, "S3 SA H2 BJ", "S3"),  # L=2: H2 is a trump, so spades are the rightmost group
    ],
)
def test_auto_lead(level: int, trump: Suit | None, names: str, lead: str) -> None:
    assert format_card(auto_lead(trump_context(level, trump), hand(names))) == lead


def test_default_layout_order() -> None:
    ctx = trump_context(5, Suit.H)
    layout = default_layout(ctx, hand("D2 C5 H5 SA BJ DK CK S5 H3 SJack SJ D5 D5"))
    assert " ".join(format_card(face) for face in layout) == "BJ SJ H5 S5 C5 D5 D5 H3 SA SJack CK DK D2"


ORIGINAL_25 = "BJ SJ H5 S5 C5 HA HK HQ H10 H9 SA SK SQ S10 S9 S8 CA CK CQ C10 C9 DA DK DQ D10"
BOTTOM_8 = "D2 D3 D4 D6 D7 D8 C2 C2"


def faces(names: str) -> tuple[int, ...]:
    """Faces from space-separated card names, in the order given."""
    return parse_cards(names.split())


def test_auto_bury_returns_the_original_hand() -> None:
    after, buried = auto_bury(hand33=hand(f"{ORIGINAL_25} {BOTTOM_8}"), bottom=faces(BOTTOM_8))
    assert after == hand(ORIGINAL_25)
    assert buried == faces(BOTTOM_8)


@pytest.mark.parametrize(
    ("hand33", "bottom", "message"),
    [
        (f"{ORIGINAL_25} {BOTTOM_8}", "D2 D3 D4 D6 D7 D8 C2 S2", "not in the dealer's hand"),
        (f"{ORIGINAL_25} {BOTTOM_8}", "D2 D3 D4 D6 D7 D8 D8 C2", "not in the dealer's hand"),
        (f"{ORIGINAL_25} {BOTTOM_8}", "D2 D3 D4 D6 D7 D8 C2", "bottom must hold 8"),
        (ORIGINAL_25, BOTTOM_8, "hand33 must hold 33"),
    ],
)
def test_auto_bury_rejects_impossible_requests(hand33: str, bottom: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        auto_bury(hand33=hand(hand33), bottom=faces(bottom))


def test_auto_bury_rejects_unknown_faces() -> None:
    with pytest.raises(ValueError, match="bottom card"):
        auto_bury(hand33=hand(f"{ORIGINAL_25} {BOTTOM_8}"), bottom=(0, 1, 2, 3, 4, 5, 6, 54))


def test_empty_or_malformed_hands_are_rejected() -> None:
    ctx = trump_context(5, Suit.H)
    with pytest.raises(ValueError, match="empty hand"):
        auto_lead(ctx, (0,) * NUM_FACES)
    with pytest.raises(ValueError, match="count vector"):
        auto_lead(ctx, (1,) * 53)
    with pytest.raises(ValueError, match="hand"):
        default_layout(ctx, (3,) + (0,) * 53)


def _layout_key(ctx: TrumpContext, face: int) -> tuple[int, int, int]:
    """Where R13.6 puts a card, left to right: group, then strongest first, then suit order S, H, C, D."""
    suit = suit_of(face)
    return (GROUP_ORDER[ctx.category[face]], -ctx.strength[face], -1 if suit is None else int(suit))


@given(ctx=CONTEXTS, counts=HANDS)
def test_default_layout_is_the_hand_in_r13_6_order(ctx: TrumpContext, counts: tuple[int, ...]) -> None:
    layout = default_layout(ctx, counts)
    assert Counter(layout) == Counter(faces_of(counts))
    keys = [_layout_key(ctx, face) for face in layout]
    assert keys == sorted(keys)


@given(ctx=CONTEXTS, counts=NON_EMPTY_HANDS)
def test_auto_lead_is_the_rightmost_smallest_card(ctx: TrumpContext, counts: tuple[int, ...]) -> None:
    lead = auto_lead(ctx, counts)
    assert counts[lead] > 0
    assert lead == default_layout(ctx, counts)[-1]
    assert all(_layout_key(ctx, face) <= _layout_key(ctx, lead) for face in faces_of(counts))
