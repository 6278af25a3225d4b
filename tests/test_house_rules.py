"""R14 house rules: each option against a brute-force reading, the presets unchanged, bad values named."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import PRESETS, SEEDS_TABLE, LevelTable, Rules
from rules_core.settlement import Side, level_gain, settle_hand, winning_side

# --------------------------------------------------------------------------------------------------
# R14.1 LEVEL-TABLE
# --------------------------------------------------------------------------------------------------


def seeds_gain(score: int) -> int:
    """R9.1 row by row, as the rulebooks write it (not through the parameters)."""
    if score == 0:
        return 3
    if score <= 35:
        return 2
    if score <= 75:
        return 1
    if score <= 115:
        return 0
    return 1 + (score - 120) // 40


def counted_gain(score: int, table: LevelTable) -> tuple[Side, int]:
    """R14.1 by counting thresholds: the dealer team gains one per step mark above the score (and one for
    a shut-out); the attackers one per mark T + k*S (k >= d) they reached."""
    step, steps, dead = table.step_points, table.take_over_steps, table.dead_zone_steps
    take_over = step * steps
    if score < take_over:
        marks = [step * k for k in range(1, steps + 1)]
        return Side.DEALER_TEAM, sum(score < mark for mark in marks) + (score == 0)
    marks = [take_over + step * k for k in range(dead, score // step + 2)]
    return Side.ATTACKERS, sum(score >= mark for mark in marks)


TABLES = st.builds(
    LevelTable,
    step_points=st.integers(min_value=1, max_value=10).map(lambda n: n * 5),
    take_over_steps=st.integers(min_value=1, max_value=4),
    dead_zone_steps=st.integers(min_value=0, max_value=1),
)
LEVELS = st.integers(min_value=2, max_value=14)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_keeps_the_seeds_table(name: str) -> None:
    """R14.1 is off in every preset: the table is R9.1's for every score a hand can reach."""
    table = PRESETS[name].level_table
    assert table == SEEDS_TABLE
    for score in range(0, 1205, 5):
        assert level_gain(score, table) == seeds_gain(score), score
        assert winning_side(score, table) is (Side.DEALER_TEAM if score < 80 else Side.ATTACKERS)


@given(
    step=st.integers(min_value=1, max_value=40),
    steps=st.integers(min_value=1, max_value=40),
    dead=st.integers(min_value=0, max_value=1),
    score=st.integers(min_value=0, max_value=200).map(lambda n: n * 5),
)
def test_level_table_matches_the_counted_reading(step: int, steps: int, dead: int, score: int) -> None:
    """R14.1: every valid table against the threshold count; an invalid one is named, never a crash."""
    points = step * 5
    if points * steps > 200:
        with pytest.raises(InvalidArgumentError) as error:
            LevelTable(points, steps, dead)
        assert (error.value.argument, error.value.problem) == (
            "level_table.take_over_steps",
            Problem.INCONSISTENT,
        )
        return
    table = LevelTable(points, steps, dead)
    assert (winning_side(score, table), level_gain(score, table)) == counted_gain(score, table)


@given(
    table=TABLES,
    score=st.integers(min_value=0, max_value=120).map(lambda n: n * 5),
    levels=st.tuples(LEVELS, LEVELS),
)
def test_settlement_under_a_table(table: LevelTable, score: int, levels: tuple[int, int]) -> None:
    """R14.1 with R9: the settlement takes the table's gain and winner; K is g + 1 under the caps."""
    dealer_level, attacker_level = levels
    rules = dataclasses.replace(Rules(), level_table=table)
    result = settle_hand(
        rules=rules, dealer_seat=0, dealer_level=dealer_level, attacker_level=attacker_level, score=score
    )
    side, gain = counted_gain(score, table)
    assert (result.winner_side, result.g) == (side, gain)
    assert result.take_over is (side is Side.ATTACKERS)
    assert 0 <= result.g_eff <= gain
    assert min(gain + 1, 12, result.g_eff + 1) == result.K


@pytest.mark.parametrize(
    ("args", "field", "problem"),
    [
        ((42, 2, 1), "level_table.step_points", Problem.OUT_OF_RANGE),
        ((0, 2, 1), "level_table.step_points", Problem.OUT_OF_RANGE),
        ((40, 0, 1), "level_table.take_over_steps", Problem.OUT_OF_RANGE),
        ((40, 2, 2), "level_table.dead_zone_steps", Problem.OUT_OF_RANGE),
        ((45, 5, 0), "level_table.take_over_steps", Problem.INCONSISTENT),
    ],
)
def test_bad_tables_name_the_field(args: tuple[int, int, int], field: str, problem: Problem) -> None:
    with pytest.raises(InvalidArgumentError) as error:
        LevelTable(*args)
    assert (error.value.argument, error.value.problem) == (field, problem)
