"""Hand settlement (R9): the worked cases of section H, properties over every score, and edge cases."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from worked_cases import Case, cases, failed_throws, last_trick_win, rules_for

from rules_core.cards import format_rank, parse_rank
from rules_core.errors import InvalidArgumentError
from rules_core.rules import (
    DEFAULT_RULES,
    RULEBOOK_000,
    RULEBOOK_003,
    EndRule,
    JackRule,
    Partners,
    Rules,
    ThrowPenalty,
    require_rulebook_table,
)
from rules_core.settlement import (
    FailedThrow,
    Settlement,
    Side,
    back_to_two,
    capped_level,
    fixed_side,
    level_gain,
    must_play_levels,
    score_coefficient,
    settle_hand,
    throw_penalty,
    winning_side,
)

DEALER = 3
"""The worked cases name no seats; seat 3 makes both next-dealer rules wrap around the table."""
PARTNER, NEXT = 1, 0

LEVELS = st.integers(min_value=2, max_value=14)
SCORES = st.integers(min_value=0, max_value=160).map(lambda n: n * 5)
RULESETS = st.builds(
    Rules,
    must_play=st.frozensets(LEVELS, max_size=5),
    end=st.sampled_from(EndRule),
)
LITERAL = dataclasses.replace(DEFAULT_RULES, end=EndRule.PAST_ACE)


def settle(
    rules: Rules, dealer_level: int, attacker_level: int, score: int, seat: int = DEALER
) -> Settlement:
    """settle_hand with positional shorthand for the tests."""
    return settle_hand(
        rules=rules, dealer_seat=seat, dealer_level=dealer_level, attacker_level=attacker_level, score=score
    )


def as_case(result: Settlement, dealer_seat: int) -> dict[str, Any]:
    """The engine's answer in the ``expect`` format of CASES.md's ``settle`` area."""
    seats = {(dealer_seat + 2) % 4: "partner", (dealer_seat + 1) % 4: "next"}
    return {
        "winner_side": str(result.winner_side),
        "g": result.g,
        "g_eff": result.g_eff,
        "take_over": result.take_over,
        "dealer_level_after": _rank(result.dealer_level_after),
        "attacker_level_after": _rank(result.attacker_level_after),
        "next_dealer": seats.get(result.next_dealer, f"seat {result.next_dealer}"),
        "next_level": _rank(result.next_level),
        "game_over": result.game_over,
        "game_winner": None if result.game_winner is None else str(result.game_winner),
        "K": result.K,
    }


def _rank(level: int | None) -> str | None:
    return None if level is None else format_rank(level)


@pytest.mark.parametrize("case", cases("settle"))
def test_worked_case(case: Case) -> None:
    given_ = case["input"]
    result = settle_hand(
        rules=rules_for(case),
        dealer_seat=DEALER,
        dealer_level=parse_rank(given_["dealer_level"]),
        attacker_level=parse_rank(given_["attacker_level"]),
        score=given_["score"],
        failed_throws=[FailedThrow(seat, n) for seat, n in failed_throws(case, DEALER)],  # R16.2
        last_trick_win=last_trick_win(case, DEALER),  # R16.4
    )
    found = as_case(result, DEALER)
    if "throw_penalty" in case["expect"]:
        found["throw_penalty"] = result.throw_penalty
    if "back_to_two" in case["expect"]:
        found["back_to_two"] = result.back_to_two
    assert found == case["expect"]


def test_the_worked_cases_are_all_there() -> None:
    assert len(cases("settle")) >= 28  # CASES.md; an empty parametrisation would only skip


# R9.1 and R12.5, transcribed from the tables of RULES.md.
GAIN_TABLE = [
    (0, 3),
    (5, 2),
    (35, 2),
    (40, 1),
    (75, 1),
    (80, 0),
    (115, 0),
    (120, 1),
    (155, 1),
    (160, 2),
    (195, 2),
    (200, 3),
    (235, 3),
    (240, 4),
    (480, 10),
    (1000, 23),
]


@pytest.mark.parametrize(("score", "gain"), GAIN_TABLE)
def test_level_gain_table(score: int, gain: int) -> None:
    assert level_gain(score) == gain


@pytest.mark.parametrize(
    ("score", "side"),
    [(0, Side.DEALER_TEAM), (75, Side.DEALER_TEAM), (80, Side.ATTACKERS), (600, Side.ATTACKERS)],
)
def test_winning_side(score: int, side: Side) -> None:
    assert winning_side(score) is side


@pytest.mark.parametrize("score", [-5, 3, 81, 2.5, True, "80", None])
def test_impossible_scores_are_rejected(score: Any) -> None:
    with pytest.raises(ValueError, match="score"):
        level_gain(score)
    with pytest.raises(ValueError, match="score"):
        settle(DEFAULT_RULES, 7, 4, score)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("dealer_level", 1),
        ("dealer_level", 15),
        ("attacker_level", 0),
        ("attacker_level", "7"),
        ("dealer_seat", 4),
        ("dealer_seat", -1),
    ],
)
def test_invalid_inputs_name_the_field(field: str, value: Any) -> None:
    args: dict[str, Any] = {"dealer_seat": 0, "dealer_level": 7, "attacker_level": 4, "score": 0}
    args[field] = value
    with pytest.raises(ValueError, match=field):
        settle_hand(rules=DEFAULT_RULES, **args)


@pytest.mark.parametrize(("seat", "partner", "next_"), [(0, 2, 1), (1, 3, 2), (2, 0, 3), (3, 1, 0)])
def test_next_dealer_by_seat(seat: int, partner: int, next_: int) -> None:
    assert settle(DEFAULT_RULES, 7, 4, 75, seat).next_dealer == partner
    assert settle(DEFAULT_RULES, 7, 4, 80, seat).next_dealer == next_


def test_scores_above_200() -> None:
    # R9.1 "依此类推": 600 points is +13; R9.6: A caps it (g_eff 12), END-LITERAL ends the game instead.
    capped = settle(DEFAULT_RULES, 7, 2, 600)
    assert (capped.g, capped.g_eff, capped.attacker_level_after, capped.game_over, capped.K) == (
        13,
        12,
        14,
        False,
        12,
    )
    ended = settle(LITERAL, 7, 2, 600)
    assert (ended.g_eff, ended.attacker_level_after, ended.game_over, ended.game_winner) == (
        13,
        None,
        True,
        Side.ATTACKERS,
    )
    assert ended.dealer_level_after == 7
    assert ended.K == 12


def test_level_two_dealer_team() -> None:
    result = settle(DEFAULT_RULES, 2, 2, 0)
    assert (result.dealer_level_after, result.attacker_level_after, result.next_level) == (5, 2, 5)


def test_dealer_team_at_ace_wins_the_game_with_any_winning_score() -> None:
    for score in range(0, 80, 5):
        result = settle(DEFAULT_RULES, 14, 9, score)
        assert result.game_over
        assert result.game_winner is Side.DEALER_TEAM
        assert result.next_level is None
        assert result.g_eff == result.g  # R12.5 last ambiguity: passing A at the end is not capped


def test_attackers_at_ace_take_over_but_stay_at_ace() -> None:
    result = settle(DEFAULT_RULES, 9, 14, 200)
    assert (result.take_over, result.g, result.g_eff, result.K) == (True, 3, 0, 1)
    assert (result.attacker_level_after, result.next_level, result.game_over) == (14, 14, False)
    literal = settle(LITERAL, 9, 14, 120)
    assert (literal.game_over, literal.game_winner, literal.attacker_level_after) == (
        True,
        Side.ATTACKERS,
        None,
    )
    assert settle(LITERAL, 9, 14, 115).game_over is False


def test_attackers_beating_a_dealer_team_at_ace_leaves_it_at_ace() -> None:
    result = settle(DEFAULT_RULES, 14, 5, 80)
    assert (result.dealer_level_after, result.attacker_level_after, result.next_level) == (14, 5, 5)
    assert not result.game_over


MUST_5_10_K = dataclasses.replace(DEFAULT_RULES, must_play=frozenset({5, 10, 13}))


@pytest.mark.parametrize(
    ("dealer_level", "attacker_level", "score", "winner_after", "g_eff"),
    [
        (3, 2, 0, 5, 2),  # the dealer team stops at 5
        (5, 2, 0, 8, 3),  # 5 was played as dealer: +3, the next cap 10 is not reached
        (8, 2, 0, 10, 2),  # stops at 10
        (10, 2, 0, 13, 3),  # lands exactly on K
        (13, 2, 5, 14, 1),  # K played; A is always must-play under END-REC
        (7, 5, 240, 5, 0),  # attackers standing on 5 take over and stay there
        (7, 4, 240, 5, 1),  # attackers at 4 stop at 5
        (7, 12, 200, 13, 1),  # attackers at Q stop at K
        (7, 13, 200, 13, 0),  # attackers standing on K stay there
    ],
)
def test_must_play_5_10_k(
    dealer_level: int, attacker_level: int, score: int, winner_after: int, g_eff: int
) -> None:
    result = settle(MUST_5_10_K, dealer_level, attacker_level, score)
    after = result.dealer_level_after if score < 80 else result.attacker_level_after
    assert (after, result.g_eff, result.next_level) == (winner_after, g_eff, winner_after)
    assert min(level_gain(score) + 1, g_eff + 1) == result.K


@pytest.mark.parametrize(
    ("dealer_level", "score", "level_after"),
    [(12, 40, 13), (12, 5, 14), (12, 0, None), (13, 40, 14), (13, 5, None), (13, 0, None), (14, 75, None)],
)
def test_end_literal_from_q_and_k(dealer_level: int, score: int, level_after: int | None) -> None:
    result = settle(LITERAL, dealer_level, 4, score)
    assert result.dealer_level_after == level_after
    assert result.game_over is (level_after is None)
    assert result.game_winner is (Side.DEALER_TEAM if level_after is None else None)


def test_end_literal_keeps_caps_below_ace() -> None:
    rules = dataclasses.replace(LITERAL, must_play=frozenset({13}))
    assert settle(rules, 12, 4, 0).dealer_level_after == 13
    assert settle(rules, 13, 4, 0).game_over  # K played as dealer; nothing above it caps the gain


def test_must_play_levels() -> None:
    assert must_play_levels(RULEBOOK_003) == {10, 14}
    assert must_play_levels(RULEBOOK_000) == frozenset()
    assert must_play_levels(DEFAULT_RULES) == {14}


def test_capped_level_rejects_a_negative_gain() -> None:
    with pytest.raises(ValueError, match="gain"):
        capped_level(must_play=frozenset(), level=5, gain=-1, was_dealer=True)


def _gain(before: int, after: int | None) -> float:
    """Levels a team gained; going past A (None) beats any finite gain."""
    return math.inf if after is None else after - before


@given(rules=RULESETS, dealer_level=LEVELS, attacker_level=LEVELS, seat=st.integers(0, 3))
def test_settlement_is_monotone_in_the_score(
    rules: Rules, dealer_level: int, attacker_level: int, seat: int
) -> None:
    results = [settle(rules, dealer_level, attacker_level, score, seat) for score in range(0, 805, 5)]
    winners = [result.winner_side for result in results]
    assert winners == sorted(winners, key=lambda side: side is Side.ATTACKERS)  # switches once, at most
    dealer_gains = [_gain(dealer_level, result.dealer_level_after) for result in results]
    attacker_gains = [_gain(attacker_level, result.attacker_level_after) for result in results]
    assert dealer_gains == sorted(dealer_gains, reverse=True)
    assert attacker_gains == sorted(attacker_gains)


@given(rules=RULESETS, dealer_level=LEVELS, attacker_level=LEVELS, score=SCORES, seat=st.integers(0, 3))
def test_settlement_invariants(
    rules: Rules, dealer_level: int, attacker_level: int, score: int, seat: int
) -> None:
    result = settle(rules, dealer_level, attacker_level, score, seat)
    dealer_won = score < 80
    before = dealer_level if dealer_won else attacker_level
    after = result.dealer_level_after if dealer_won else result.attacker_level_after
    reached = before + result.g_eff  # above 14 when the team went past A
    caps = rules.must_play | ({14} if rules.end is EndRule.DEALER_AT_ACE else set())
    # The losing team's level never moves.
    assert (result.attacker_level_after if dealer_won else result.dealer_level_after) == (
        attacker_level if dealer_won else dealer_level
    )
    assert 0 <= result.g_eff <= result.g
    assert after == (None if reached > 14 else reached)
    # R9.5: nobody jumps over a must-play level; a shortened gain stops on one (or stays on one).
    assert not any(before < cap < reached for cap in caps)
    if result.g_eff < result.g:
        assert reached in caps
    # R9.6
    assert result.game_over is (after is None) is (result.next_level is None)
    assert result.game_winner is (result.winner_side if result.game_over else None)
    if result.game_over and rules.end is EndRule.DEALER_AT_ACE:
        assert dealer_won and dealer_level == 14
    # R9.3, R9.4: the winners deal next, at their new level.
    partners = {seat, (seat + 2) % 4}
    assert (result.next_dealer in partners) is dealer_won
    assert result.next_level == after
    assert score_coefficient(score, g_eff=result.g_eff) == result.K
    assert 1 <= result.K <= min(12, result.g_eff + 1)


# R16.2, R16.4 and R14.10 on every table: each stated once, the dealer's side and the table a parameter

PENALTY_RULES = dataclasses.replace(
    DEFAULT_RULES,
    throw_penalty=ThrowPenalty.PER_CARD,
    throw_penalty_points=10,
    jack_rule=JackRule.SINGLE_JACK,
)
FRIENDS_5 = dataclasses.replace(PENALTY_RULES, seats=5, partners=Partners.FRIENDS)
JACKS = (9, 9 + 13)
"""The jacks of spades and hearts (faces 9 and 22): level cards at J (R2)."""


def test_throw_penalty_charges_the_thrower_s_final_side() -> None:
    """R16.2: under finding friends the side is the final one (seat 3 joined the dealer), under fixed partners
    every other seat from the dealer; both through the one function."""
    failed = [FailedThrow(3, 2), FailedThrow(1, 3)]
    assert throw_penalty(FRIENDS_5, frozenset({0, 3}), failed) == 20 - 30
    assert throw_penalty(PENALTY_RULES, fixed_side(0), failed) == -20 - 30  # seats 1 and 3 attack
    hand = settle_hand(
        rules=PENALTY_RULES, dealer_seat=0, dealer_level=5, attacker_level=5, score=80, failed_throws=failed
    )
    assert hand.throw_penalty == -50


@pytest.mark.parametrize(
    ("rules", "failed", "field"),
    [
        (PENALTY_RULES, [FailedThrow(1, 2)] * 26, "failed_throws"),  # R1.6: 25 tricks
        (FRIENDS_5, [FailedThrow(1, 2)] * 21, "failed_throws"),  # R14.2: 20 cards a hand at 2 decks, 5 seats
        (PENALTY_RULES, [FailedThrow(4, 2)], "failed_throws[0].seat"),
        (FRIENDS_5, [FailedThrow(5, 2)], "failed_throws[0].seat"),
        (FRIENDS_5, [FailedThrow(4, 21)], "failed_throws[0].cards"),
    ],
)
def test_failed_throws_are_bounded_by_the_table(rules: Rules, failed: list[FailedThrow], field: str) -> None:
    """A hand has at most its hand size of tricks, each seat one of the table's (R14.1, R14.2)."""
    with pytest.raises(InvalidArgumentError) as caught:
        throw_penalty(rules, frozenset({0}), failed)
    assert caught.value.argument == field
    throw_penalty(FRIENDS_5, frozenset({0}), [FailedThrow(4, 20)] * 20)  # the largest the table allows


def test_jack_rule_reads_the_dealer_s_side() -> None:
    """R16.4: a seat off the dealer's side wins the last trick with a single jack at J; a friend of the dealer
    doing so, a pair of jacks, or another level resets nothing."""
    side = frozenset({0, 3})
    assert back_to_two(FRIENDS_5, side, 11, (1, (JACKS[0],)))
    assert not back_to_two(FRIENDS_5, side, 11, (3, (JACKS[1],)))
    assert not back_to_two(FRIENDS_5, side, 11, (1, (JACKS[0], JACKS[0])))
    assert not back_to_two(FRIENDS_5, side, 10, (1, (JACKS[0],)))
    assert back_to_two(PENALTY_RULES, fixed_side(1), 11, (2, (JACKS[1],)))
    with pytest.raises(InvalidArgumentError) as caught:
        back_to_two(FRIENDS_5, side, 11, (5, (JACKS[0],)))
    assert caught.value.argument == "last_trick_winner.seat"


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"decks": 3, "seats": 6}, "ruleset.decks", "X is ruled for two decks only (R14.10), not 3"),
        ({"seats": 6}, "ruleset.seats", "X is ruled for four seats only (R14.10), not 6"),
        (
            {"partners": Partners.FRIENDS},
            "ruleset.partners",
            "X is ruled for fixed partners only (R14.10, R15)",
        ),
    ],
)
def test_one_refusal_for_the_rulebooks_table(changes: dict[str, Any], field: str, message: str) -> None:
    """R14.10: the one refusal every call ruled for the rulebooks' table uses: decks, then seats, then
    partners, in the same words, naming the request's ruleset field."""
    rules = dataclasses.replace(DEFAULT_RULES, **changes)
    with pytest.raises(InvalidArgumentError) as caught:
        require_rulebook_table(rules, "X")
    assert (caught.value.argument, caught.value.message) == (field, message)
    require_rulebook_table(DEFAULT_RULES, "X")
    assert DEFAULT_RULES.rulebook_table and not rules.rulebook_table
