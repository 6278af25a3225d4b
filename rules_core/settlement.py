"""Hand settlement: who won, the levels gained, who deals next and whether the game is over (R9).

One call turns the attackers' final score into the whole outcome of a hand. The must-play caps of R9.5
follow RULES.md's three recommended readings:

1. the cap applies to both teams;
2. attackers who stand on a must-play level take over but stay on it (``g_eff = 0``): they must play it
   as dealer;
3. a dealer team on a must-play level that wins has played it, and moves on to the next cap.

The end of the game follows the ruleset's ``end`` (R9.6): under ``EndRule.DEALER_AT_ACE`` A is always
must-play, so only a dealer team at A can go past it, and that wins the game; under ``EndRule.PAST_ACE``
any gain carrying a team past A ends the game.

>>> from rules_core.rules import DEFAULT_RULES
>>> result = settle_hand(rules=DEFAULT_RULES, dealer_seat=0, dealer_level=7, attacker_level=4, score=0)
>>> result.winner_side, result.dealer_level_after, result.next_dealer, result.K
(<Side.DEALER_TEAM: 'dealer_team'>, 10, 2, 4)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from rules_core.cards import PLAYERS, deal_sizes, rank_of
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import (
    SEEDS_TABLE,
    EndRule,
    JackRule,
    LevelTable,
    Rules,
    ThrowPenalty,
    require_rulebook_table,
)

ACE: Final = 14
"""The top level (R2.1); a team "goes around" (转一圈) by passing it (R9.6)."""
LOWEST_LEVEL: Final = 2
TAKE_OVER_SCORE: Final = SEEDS_TABLE.take_over
"""R9.2: the attackers win the hand from 80 points (the seeds' table; LEVEL-TABLE sets another)."""
POINTS_PER_LEVEL: Final = SEEDS_TABLE.step_points
"""R9.1: one more level for every further 40 points (the seeds' table)."""
SCORE_STEP: Final = 5
"""Every point card is worth a multiple of 5 (R8.1), so every score is too."""
MAX_COEFFICIENT: Final = 12
"""R12.5: the Tao Dou score coefficient K is at most 12."""


class Side(StrEnum):
    """The two sides of a hand (R0.4)."""

    DEALER_TEAM = "dealer_team"
    ATTACKERS = "attackers"


@dataclass(frozen=True, slots=True)
class Settlement:
    """The outcome of one hand (R9), plus its Tao Dou coefficient (R12.5)."""

    winner_side: Side
    """R9.2: the dealer team below 80 points, the attackers from 80."""
    g: int
    """R9.1: levels the winning side gains by the table, before any cap."""
    g_eff: int
    """R9.5: levels actually gained after the must-play caps (the new level minus the old one)."""
    take_over: bool
    """Whether the attackers become the dealer team (上台)."""
    dealer_level_after: int | None
    """The dealer team's level after the hand; None when it went past A (the game is over)."""
    attacker_level_after: int | None
    """The attackers' level after the hand; None when they went past A (END-LITERAL only)."""
    next_dealer: int
    """R9.3: seat of the next dealer, the dealer's partner or his next player, even when the game ended."""
    next_level: int | None
    """R9.4: level rank L of the next hand; None when there is no next hand."""
    game_over: bool
    """R9.6: a team went past A."""
    game_winner: Side | None
    """The side that won the game, when it is over."""
    K: int
    """R12.5: the Tao Dou score coefficient, limited by the must-play cap (RULES.md's letter K)."""
    throw_penalty: int = 0
    """R16.2: points the failed throws added to the attackers' score (negative when they cost the
    attackers); the table was read at score + throw_penalty, which may be below zero."""
    back_to_two: bool = False
    """R16.4 (勾J): the dealer team was reset to 2 before the hand's level changes applied."""


@dataclass(frozen=True, slots=True)
class FailedThrow:
    """One failed throw (R4.7) as THROW-PENALTY counts it: who tried it and how many cards it held."""

    seat: int
    cards: int
    """The cards of the whole attempt (R16.2's per-card unit), 2..25."""


JACK: Final = 11
"""The level of the jack rule (R16.4)."""

MAX_FAILED_THROWS: Final = 25
"""A hand has at most 25 tricks, so at most 25 failed throws (R16.2)."""


def check_int(name: str, value: object, *, low: int = 0, high: int | None = None) -> None:
    """Reject anything but an int in ``low..high``, naming the argument; a bool is a caller's bug, not 1."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidArgumentError(name, Problem.OUT_OF_RANGE, f"{name} must be an int, got {value!r}")
    if value < low or (high is not None and value > high):
        bounds = f"{low}..{high}" if high is not None else f">= {low}"
        raise InvalidArgumentError(name, Problem.OUT_OF_RANGE, f"{name} must be {bounds}, got {value!r}")


def check_score(score: int) -> None:
    """Reject a score that no hand can produce: negative, or not a multiple of 5 (R8.1)."""
    check_int("score", score)
    if score % SCORE_STEP:
        raise InvalidArgumentError(
            "score", Problem.OUT_OF_RANGE, f"a score is a multiple of {SCORE_STEP} (R8.1), got {score!r}"
        )


def check_level(name: str, level: int) -> None:
    """Reject a level outside 2..A (R2.1); ``name`` is the argument named in the error."""
    check_int(name, level, low=LOWEST_LEVEL, high=ACE)


def check_seat(name: str, seat: int) -> None:
    """Reject a seat outside 0..3 (R1.5)."""
    check_int(name, seat, high=PLAYERS - 1)


def winning_side(score: int, table: LevelTable = SEEDS_TABLE) -> Side:
    """R9.2: the side that wins the hand at this score (from the table's take-over score, LEVEL-TABLE).

    >>> winning_side(75), winning_side(80)
    (<Side.DEALER_TEAM: 'dealer_team'>, <Side.ATTACKERS: 'attackers'>)
    """
    check_score(score)
    return Side.DEALER_TEAM if score < table.take_over else Side.ATTACKERS


def level_gain(score: int, table: LevelTable = SEEDS_TABLE) -> int:
    """R9.1: levels the winning side gains at a card score (non-negative, a multiple of 5); see ``_gain``."""
    check_score(score)
    return _gain(score, table)


def _gain(score: int, table: LevelTable) -> int:
    """R9.1: levels the winning side gains, before any cap; +1 per further step, unbounded (LEVEL-TABLE).

    Below the take-over the dealer team gains one level per step it is short of it, one more for a
    shut-out (0 points exactly); from it the attackers gain one per full step above it, less the dead zone.

    >>> [level_gain(s) for s in (0, 5, 35, 40, 75, 80, 115, 120, 200, 480)]
    [3, 2, 2, 1, 1, 0, 0, 1, 3, 10]
    >>> [level_gain(s, LevelTable(30, 3, 0)) for s in (0, 5, 30, 85, 90, 115, 120)]
    [4, 3, 2, 1, 1, 1, 2]

    Below zero (failed-throw penalties, R16.2) every started step adds one more level:
    >>> [_gain(s, SEEDS_TABLE) for s in (-5, -40, -45, -80, -85)]
    [4, 4, 5, 5, 6]
    """
    step, take_over = table.step_points, table.take_over
    if score >= take_over:
        return (score - take_over) // step + 1 - table.dead_zone_steps
    if score > 0:
        return table.take_over_steps - score // step
    return table.take_over_steps + 1 + (step - 1 - score) // step  # R16.2: 0, then one per step below


def penalised_gain(score: int, table: LevelTable) -> int:
    """R9.1 at a final score that failed-throw penalties (R16.2) may have taken below zero; the N-seat
    settlement (R15) reads it as :func:`settle_hand` does.

    >>> penalised_gain(-45, SEEDS_TABLE), penalised_gain(120, SEEDS_TABLE)
    (5, 1)
    """
    check_int("score", score, low=-(10**12))
    return _gain(score, table)


def score_coefficient(score: int, *, g_eff: int | None = None, table: LevelTable = SEEDS_TABLE) -> int:
    """R12.5: the Tao Dou coefficient K, 1..12: levels gained + 1, capped at 12 and at ``g_eff + 1``.

    ``g_eff`` is the gain left by the must-play caps (``Settlement.g_eff``); None means no cap applies.
    The 80–115 band ("无倍数") gives 1, not 0, and 35 points counts as "under 40" (both R12.5 ambiguities).

    >>> score_coefficient(0), score_coefficient(35), score_coefficient(80), score_coefficient(600)
    (4, 3, 1, 12)
    >>> score_coefficient(200, g_eff=2)
    3
    """
    check_score(score)
    return final_coefficient(score, g_eff, table)


def final_coefficient(score: int, g_eff: int | None, table: LevelTable) -> int:
    """R12.5 at any final score, a penalised one below zero included (R16.2)."""
    coefficient = min(_gain(score, table) + 1, MAX_COEFFICIENT)
    if g_eff is None:
        return coefficient
    check_int("g_eff", g_eff)
    return min(coefficient, g_eff + 1)  # R12.5 must-play cap


def must_play_levels(rules: Rules) -> frozenset[int]:
    """R9.5/R9.6: the levels no team may jump past; A joins the set under ``EndRule.DEALER_AT_ACE``.

    Under ``EndRule.PAST_ACE`` the configured set is used as it is, so listing 14 there gives back the
    recommended end of the game.

    >>> from rules_core.rules import RULEBOOK_000, RULEBOOK_003
    >>> sorted(must_play_levels(RULEBOOK_003)), sorted(must_play_levels(RULEBOOK_000))
    ([10, 14], [])
    """
    if rules.end is EndRule.DEALER_AT_ACE:
        return rules.must_play | {ACE}
    return rules.must_play


def capped_level(*, must_play: frozenset[int], level: int, gain: int, was_dealer: bool) -> int:
    """R9.5: where a team at ``level`` that gains ``gain`` levels lands; above 14 means past A.

    >>> capped_level(must_play=frozenset({10}), level=8, gain=3, was_dealer=False)
    10
    >>> capped_level(must_play=frozenset({10}), level=10, gain=1, was_dealer=False)
    10
    >>> capped_level(must_play=frozenset({10}), level=10, gain=2, was_dealer=True)
    12
    """
    check_level("level", level)
    check_int("gain", gain)
    if gain == 0:
        return level
    if level in must_play and not was_dealer:
        return level  # R9.5 reading 2: taking over on a must-play level, which must be played as dealer
    caps = [cap for cap in must_play if cap > level]  # R9.5 reading 3: a level played as dealer is done
    return min([level + gain, *caps])


def fixed_side(dealer: int, seats: int = PLAYERS) -> frozenset[int]:
    """R0.4, R15.1: the dealer's side under fixed partners, every other seat from the dealer."""
    return frozenset((dealer + offset) % seats for offset in range(0, seats, 2))


def hand_size(rules: Rules) -> int:
    """R1.6, R14.2: the table's hand size (25 on the rulebooks' table), so its most tricks."""
    return deal_sizes(rules.decks, rules.seats)[0]


def throw_penalty(rules: Rules, side: frozenset[int], failed: Sequence[FailedThrow]) -> int:
    """R16.2 on every table: the points the failed throws add to the attackers' score: each failure costs
    its thrower's side (``side`` is the dealer's, final under finding friends): minus the penalty for an
    attacker's, plus it for one of the dealer's side; 0 under ``ThrowPenalty.NONE`` (R4.7), the throws
    checked all the same.

    >>> from dataclasses import replace
    >>> from rules_core.rules import DEFAULT_RULES
    >>> rules = replace(DEFAULT_RULES, throw_penalty=ThrowPenalty.PER_ATTEMPT)
    >>> throw_penalty(rules, fixed_side(0), [FailedThrow(1, 3), FailedThrow(2, 5), FailedThrow(3, 2)])
    -10
    """
    most = hand_size(rules)
    if len(failed) > most:
        raise InvalidArgumentError(
            "failed_throws", Problem.BAD_SIZE, f"a hand has at most {most} failed throws"
        )
    total = 0
    for i, attempt in enumerate(failed):
        check_int(f"failed_throws[{i}].seat", attempt.seat, high=rules.seats - 1)
        check_int(f"failed_throws[{i}].cards", attempt.cards, low=2, high=most)
        units = attempt.cards if rules.throw_penalty is ThrowPenalty.PER_CARD else 1
        cost = units * rules.throw_penalty_points
        total += cost if attempt.seat in side else -cost  # R16.2: the thrower's side pays
    return 0 if rules.throw_penalty is ThrowPenalty.NONE else total


def back_to_two(
    rules: Rules, side: frozenset[int], level: int, last_trick_win: tuple[int, Sequence[int]] | None
) -> bool:
    """R16.4 (勾J) on every table: whether the dealer's side (``side``, final under finding friends),
    playing J, goes back to 2: a seat off it won the last trick with a single jack. ``last_trick_win`` is
    the winner's seat and the cards he won with (checked whatever the rule, so a malformed one is refused
    under every ruleset).

    >>> from dataclasses import replace
    >>> from rules_core.rules import DEFAULT_RULES
    >>> rules = replace(DEFAULT_RULES, jack_rule=JackRule.SINGLE_JACK)
    >>> back_to_two(rules, fixed_side(0), 11, (1, (9,))), back_to_two(rules, fixed_side(0), 11, (2, (9,)))
    (True, False)
    """
    if last_trick_win is None:
        return False
    seat, cards = last_trick_win
    check_int("last_trick_winner.seat", seat, high=rules.seats - 1)
    most = hand_size(rules)
    if not 1 <= len(cards) <= most:
        raise InvalidArgumentError(
            "last_trick_winner.cards",
            Problem.BAD_SIZE,
            f"the winning play holds 1..{most} cards, got {len(cards)}",
        )
    return (
        rules.jack_rule is JackRule.SINGLE_JACK
        and level == JACK
        and seat not in side  # an attacker won it
        and len(cards) == 1
        and rank_of(cards[0]) == JACK  # any jack: all are level cards at J (R2)
    )


def settle_hand(
    *,
    rules: Rules,
    dealer_seat: int,
    dealer_level: int,
    attacker_level: int,
    score: int,
    failed_throws: Sequence[FailedThrow] = (),
    last_trick_win: tuple[int, Sequence[int]] | None = None,
) -> Settlement:
    """R9: settle a hand from the two teams' levels (2..14) and the attackers' final score; with
    THROW-PENALTY (R16.2) the failed throws move that score first, possibly below zero; with the jack
    rule (R16.4) a dealer team dug at J by a single jack is reset to 2 before the level changes apply."""
    require_rulebook_table(rules, "settlement")  # R14.10: scaled by decks with R15
    check_seat("dealer_seat", dealer_seat)
    check_level("dealer_level", dealer_level)
    check_level("attacker_level", attacker_level)
    check_score(score)
    side = fixed_side(dealer_seat)
    reset = back_to_two(rules, side, dealer_level, last_trick_win)
    dealer_from = LOWEST_LEVEL if reset else dealer_level  # R16.4: "all rank changes apply after the reset"
    table = rules.level_table
    penalty = throw_penalty(rules, side, failed_throws)
    final = score + penalty
    winner = Side.DEALER_TEAM if final < table.take_over else Side.ATTACKERS  # R9.2
    gain = _gain(final, table)
    dealer_won = winner is Side.DEALER_TEAM
    before = dealer_from if dealer_won else attacker_level
    after = capped_level(must_play=must_play_levels(rules), level=before, gain=gain, was_dealer=dealer_won)
    g_eff = after - before  # R12.5 game-end ambiguity: passing A at the end leaves g_eff = g
    game_over = after > ACE  # R9.6: 转一圈
    new_level = None if game_over else after
    return Settlement(
        winner_side=winner,
        g=gain,
        g_eff=g_eff,
        take_over=not dealer_won,
        dealer_level_after=new_level if dealer_won else dealer_from,
        attacker_level_after=attacker_level if dealer_won else new_level,
        next_dealer=(dealer_seat + (2 if dealer_won else 1)) % PLAYERS,  # R9.3: partner, else next player
        next_level=new_level,  # R9.4: the winners are the next dealer team
        game_over=game_over,
        game_winner=winner if game_over else None,
        K=final_coefficient(final, g_eff, table),
        throw_penalty=penalty,
        back_to_two=reset,
    )
