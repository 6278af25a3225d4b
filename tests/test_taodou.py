"""Tao Dou coins (R12): the worked cases of section K, the rounding and short-balance rules, properties."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from worked_cases import Case, cases, rules_for

from rules_core.cards import parse_rank
from rules_core.rules import DEFAULT_RULES, RULEBOOK_000, RULEBOOK_003, Rules
from rules_core.settlement import Side, settle_hand
from rules_core.taodou import CoinSettlement, score_coefficient, settle_coins

DEALER = 2
"""The worked cases name no seats: the dealer team is seats 2 and 0, the attackers 1 and 3."""
DEALER_TEAM_SEATS = (0, 2)
ATTACKER_SEATS = (1, 3)

SCORES = st.integers(min_value=0, max_value=160).map(lambda n: n * 5)
STAKE = {
    "base": st.integers(min_value=0, max_value=10_000),
    "dealer_level": st.integers(min_value=2, max_value=14),
    "overturn": st.sampled_from((1, 2, 4, 8)),
    "score": SCORES,
    "rake_bp": st.integers(min_value=0, max_value=10_000),
    "dealer_seat": st.integers(min_value=0, max_value=3),
    "g_eff": st.none() | st.integers(min_value=0, max_value=13),
}
BALANCES = st.tuples(*[st.integers(min_value=0, max_value=2_000_000)] * 4)


def coins(**overrides: Any) -> CoinSettlement:
    """settle_coins at WC-149's stake (B=100, DL=5, O=2, s=0, r=5%) with some arguments replaced."""
    args: dict[str, Any] = {
        "rules": DEFAULT_RULES,
        "base": 100,
        "dealer_level": 5,
        "overturn": 2,
        "score": 0,
        "rake_bp": 500,
        "dealer_seat": 0,
    }
    return settle_coins(**(args | overrides))


def seats_of(side: Side, dealer_seat: int) -> tuple[int, int]:
    """The two seats of a side."""
    dealer_team = (dealer_seat, (dealer_seat + 2) % 4)
    attackers = ((dealer_seat + 1) % 4, (dealer_seat + 3) % 4)
    return dealer_team if side is Side.DEALER_TEAM else attackers


@pytest.mark.parametrize("case", cases("taodou"))
def test_worked_case(case: Case) -> None:
    given_ = case["input"]
    rules = rules_for(case)
    g_eff = None
    if "dealer_level" in given_:  # K is also limited by the must-play cap, computed as in `settle`
        g_eff = settle_hand(
            rules=rules,
            dealer_seat=DEALER,
            dealer_level=parse_rank(given_["dealer_level"]),
            attacker_level=parse_rank(given_["attacker_level"]),
            score=given_["score"],
        ).g_eff
    result = settle_coins(
        rules=rules,
        base=given_["B"],
        dealer_level=given_["DL"],
        overturn=given_["O"],
        score=given_["score"],
        rake_bp=basis_points(given_["rake_pct"]),
        dealer_seat=DEALER,
        g_eff=g_eff,
    )
    losers = ATTACKER_SEATS if result.winners is Side.DEALER_TEAM else DEALER_TEAM_SEATS
    answer = {
        "K": result.K,
        "total": result.total,
        "winners": str(result.winners),
        "winner_gain": result.winner_gain,
        "loser_losses": sorted(-result.deltas[seat] for seat in losers),
    }
    assert answer == case["expect"]
    winners = DEALER_TEAM_SEATS if result.winners is Side.DEALER_TEAM else ATTACKER_SEATS
    assert [result.deltas[seat] for seat in winners] == [case["expect"]["winner_gain"]] * 2


def basis_points(percent: float) -> int:
    """A worked case's ``rake_pct`` (12.5 means 12.5 %) in basis points, exactly (R12.6, WC-168)."""
    bp = Fraction(str(percent)) * 100
    assert bp.denominator == 1, f"{percent} % is not a whole number of basis points"
    return int(bp)


def test_the_worked_cases_are_all_there() -> None:
    assert len(cases("taodou")) >= 17  # CASES.md; an empty parametrisation would only skip


# R12.5's table, transcribed: (score, K).
COEFFICIENTS = [
    (0, 4),
    (5, 3),
    (35, 3),
    (40, 2),
    (75, 2),
    (80, 1),
    (115, 1),
    (120, 2),
    (155, 2),
    (160, 3),
    (195, 3),
    (200, 4),
    (480, 11),
    (520, 12),
    (600, 12),
    (5000, 12),
]


@pytest.mark.parametrize(("score", "k"), COEFFICIENTS)
def test_coefficient_table(score: int, k: int) -> None:
    assert score_coefficient(score) == k


@pytest.mark.parametrize(
    ("score", "g_eff", "k"), [(200, 2, 3), (130, 0, 1), (0, 1, 2), (0, 3, 4), (600, 12, 12)]
)
def test_coefficient_must_play_cap(score: int, g_eff: int, k: int) -> None:
    assert score_coefficient(score, g_eff=g_eff) == k


@pytest.mark.parametrize(
    ("rake_bp", "gain"),
    [(0, 6), (1000, 6), (1700, 5), (5000, 3), (9900, 1), (10_000, 0), (1250, 6), (1667, 5)],
)
def test_rake_is_rounded_down(rake_bp: int, gain: int) -> None:
    # Total = 1 × 3 × 1 × 2 = 6; the rake is ⌊6 × r⌋ (R12.6), r in basis points.
    result = coins(base=1, dealer_level=3, overturn=1, score=40, rake_bp=rake_bp)
    assert (result.total, result.winner_gain) == (6, gain)
    assert result.rake == 2 * (6 - gain)


def test_dealer_seat_decides_who_is_paid() -> None:
    result = coins(dealer_seat=1, score=120)  # attackers (seats 2 and 0) win; K = 2, Total = 2,000
    assert result.deltas == (1900, -2000, 1900, -2000)


def test_short_loser_pays_what_he_has_and_winners_split_it() -> None:
    # WC-149's stake: Total 4,000; the losers (seats 1 and 3) hold 1,000 and 5,000.
    result = coins(balances=(0, 1000, 0, 5000))
    assert result.deltas == (2375, -1000, 2375, -4000)  # pot 5,000: 2,500 each, less ⌊2,500 × 5%⌋ = 125
    assert (result.winner_gain, result.loser_loss, result.rake) == (2375, 4000, 250)


def test_odd_pot_leaves_the_indivisible_coin_with_the_house() -> None:
    result = coins(rake_bp=0, balances=(0, 1001, 0, 0))
    assert result.deltas == (500, -1001, 500, 0)
    assert result.rake == 1


def test_ample_balances_change_nothing() -> None:
    assert coins(balances=(0, 4000, 0, 4000)) == coins()


def test_coins_off_in_rulesets_without_tao_dou() -> None:
    with pytest.raises(ValueError, match="Tao Dou is off"):
        coins(rules=RULEBOOK_000)
    assert coins(rules=RULEBOOK_003) == coins()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("base", -1),
        ("base", 1.5),
        ("dealer_level", 1),
        ("dealer_level", 15),
        ("overturn", 0),
        ("overturn", 3),
        ("overturn", 16),
        ("overturn", True),
        ("rake_bp", -1),
        ("rake_bp", 10_001),
        ("rake_bp", 12.5),
        ("score", 7),
        ("score", -5),
        ("dealer_seat", 4),
        ("g_eff", -1),
        ("balances", (1, 2, 3)),
        ("balances", (1, 2, 3, -4)),
    ],
)
def test_invalid_inputs_name_the_field(field: str, value: Any) -> None:
    with pytest.raises(ValueError, match=field):
        coins(**{field: value})


@given(score=SCORES, g_eff=st.none() | st.integers(min_value=0, max_value=30))
def test_coefficient_range(score: int, g_eff: int | None) -> None:
    k = score_coefficient(score, g_eff=g_eff)
    assert 1 <= k <= 12
    if g_eff is not None:
        assert k <= g_eff + 1


@given(stake=st.fixed_dictionaries(STAKE), rules=st.sampled_from((DEFAULT_RULES, RULEBOOK_003)))
def test_full_balances(stake: dict[str, Any], rules: Rules) -> None:
    result = settle_coins(rules=rules, **stake)
    k = score_coefficient(stake["score"], g_eff=stake["g_eff"])
    total = stake["base"] * stake["dealer_level"] * stake["overturn"] * k
    rake = math.floor(Fraction(total) * Fraction(stake["rake_bp"], 10_000))
    winners = seats_of(result.winners, stake["dealer_seat"])
    for seat in range(4):
        assert result.deltas[seat] == (total - rake if seat in winners else -total)
    assert sum(result.deltas) == -result.rake == -2 * rake


@given(stake=st.fixed_dictionaries(STAKE), balances=BALANCES)
def test_losses_never_exceed_balances(stake: dict[str, Any], balances: tuple[int, int, int, int]) -> None:
    result = settle_coins(rules=DEFAULT_RULES, balances=balances, **stake)
    winners = seats_of(result.winners, stake["dealer_seat"])
    losers = [seat for seat in range(4) if seat not in winners]
    for seat in losers:
        assert -result.deltas[seat] == min(result.total, balances[seat])
    assert sum(result.deltas) == -result.rake
    assert 0 <= result.rake <= -sum(result.deltas[seat] for seat in losers)
    gains = {result.deltas[seat] for seat in winners}
    assert gains == {result.winner_gain}
    assert 0 <= result.winner_gain <= result.total


@given(stake=st.fixed_dictionaries(STAKE))
def test_rake_free_settlement_conserves_coins(stake: dict[str, Any]) -> None:
    result = settle_coins(rules=DEFAULT_RULES, **(stake | {"rake_bp": 0}))
    assert sum(result.deltas) == 0
    assert result.rake == 0
