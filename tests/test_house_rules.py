"""R16 house rules: each option against a brute-force reading, the presets unchanged, bad values named."""

from __future__ import annotations

import dataclasses
import time
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_properties import DECK, positions
from test_properties import _sub_multisets as sub_multisets

from rules_core.audit import HandRecord, audit_hand
from rules_core.bidding import Declaration, resolve_declarations
from rules_core.cards import FULL_DECK, NUM_FACES, Hand, Suit, parse_cards
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import check_follow
from rules_core.legal_plays import MAX_LIMIT, legal_plays
from rules_core.ruffing import NO_KEY, ruff_key
from rules_core.rules import (
    DEFAULT_RULES,
    MUST_PLAY_SETS,
    PRESETS,
    RULEBOOK_000,
    SEEDS_TABLE,
    EndRule,
    FollowRule,
    JackRule,
    LevelTable,
    MustPlaySet,
    NoBid,
    RuffStructure,
    Rules,
    ThrowPenalty,
    ThrowRuffCompare,
)
from rules_core.seating import SeatCards
from rules_core.selfplay import play_hand
from rules_core.settlement import FailedThrow, Side, level_gain, settle_hand, winning_side
from rules_core.shapes import decompose
from rules_core.strategy.model import model_follow
from rules_core.trick import Judgement, resolve_trick, standing_of
from rules_core.trump import TRUMP, TrumpContext, trump_context
from rules_core.turn import list_plays, validate_play
from rules_core.verdicts import Illegal, Legal, Violation

# --------------------------------------------------------------------------------------------------
# R16.1 LEVEL-TABLE
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
    """R16.1 by counting thresholds: the dealer team gains one per step mark above the score (and one for
    a shut-out); the attackers one per mark T + k*S (k >= d) they reached."""
    step, steps, dead = table.step_points, table.take_over_steps, table.dead_zone_steps
    take_over = step * steps
    if score < take_over:  # R16.2: below zero every started step is one more mark
        marks = [step * k for k in range(1, steps + 1)] + [-step * k for k in range(-score // step + 2)]
        return Side.DEALER_TEAM, sum(score < mark for mark in marks) + (score <= 0)
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
    """R16.1 is off in every preset: the table is R9.1's for every score a hand can reach."""
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
    """R16.1: every valid table against the threshold count; an invalid one is named, never a crash."""
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
    """R16.1 with R9: the settlement takes the table's gain and winner; K is g + 1 under the caps."""
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


# --------------------------------------------------------------------------------------------------
# R16.2 THROW-PENALTY
# --------------------------------------------------------------------------------------------------

PENALTIES = st.builds(
    lambda kind, points: dataclasses.replace(DEFAULT_RULES, throw_penalty=kind, throw_penalty_points=points),
    st.sampled_from(ThrowPenalty),
    st.integers(min_value=1, max_value=20).map(lambda n: n * 5),
)
FAILURES = st.lists(
    st.builds(FailedThrow, st.integers(min_value=0, max_value=3), st.integers(min_value=2, max_value=25)),
    max_size=6,
)


def charged(rules: Rules, dealer: int, failed: list[FailedThrow]) -> int:
    """R16.2 read literally: each failure costs its side; the attackers' cost is subtracted from their
    total, the dealer team's is added to it."""
    if rules.throw_penalty is ThrowPenalty.NONE:
        return 0
    moved = 0
    for attempt in failed:
        cost = rules.throw_penalty_points * (
            attempt.cards if rules.throw_penalty is ThrowPenalty.PER_CARD else 1
        )
        dealer_team = attempt.seat in {dealer, (dealer + 2) % 4}
        moved = moved + cost if dealer_team else moved - cost
    return moved


@given(
    rules=PENALTIES,
    failed=FAILURES,
    score=st.integers(min_value=0, max_value=60).map(lambda n: n * 5),
    dealer=st.integers(min_value=0, max_value=3),
    levels=st.tuples(LEVELS, LEVELS),
)
def test_penalised_settlement_matches_the_literal_reading(
    rules: Rules, failed: list[FailedThrow], score: int, dealer: int, levels: tuple[int, int]
) -> None:
    """R16.2 with R9: the moved score, below zero included, settles by the counted table."""
    result = settle_hand(
        rules=rules,
        dealer_seat=dealer,
        dealer_level=levels[0],
        attacker_level=levels[1],
        score=score,
        failed_throws=failed,
    )
    moved = charged(rules, dealer, failed)
    side, gain = counted_gain(score + moved, rules.level_table)
    assert (result.throw_penalty, result.winner_side, result.g) == (moved, side, gain)
    assert min(gain + 1, 12, result.g_eff + 1) == result.K


def test_no_penalty_in_any_preset() -> None:
    """R4.7 stays the rulebooks' reading: failed throws move no points unless a table says so."""
    for rules in PRESETS.values():
        result = settle_hand(
            rules=rules, dealer_seat=0, dealer_level=7, attacker_level=4, score=75,
            failed_throws=[FailedThrow(1, 5), FailedThrow(3, 2)],
        )  # fmt: skip
        assert (result.throw_penalty, result.winner_side) == (0, Side.DEALER_TEAM)


@pytest.fixture(scope="module")
def thrown() -> HandRecord:
    """A self-played hand with failed throws in it (the first seed that has one)."""
    return next(
        hand
        for hand in (play_hand(seed=seed) for seed in range(100))
        if any(t.attempted for t in hand.tricks)
    )


@pytest.mark.parametrize("kind", [ThrowPenalty.PER_ATTEMPT, ThrowPenalty.PER_CARD])
def test_the_audit_charges_the_recorded_failures(thrown: HandRecord, kind: ThrowPenalty) -> None:
    """R16.2: AuditHand finds each failed throw's leader and size in the record and settles with them."""
    rules = dataclasses.replace(DEFAULT_RULES, throw_penalty=kind)
    audit = audit_hand(rules, thrown)
    assert audit.valid and audit.settlement is not None and audit.dealer is not None, audit.error
    failed = [
        FailedThrow(leader, len(trick.attempted))
        for leader, trick in zip(audit.leaders, thrown.tricks, strict=True)
        if trick.attempted
    ]
    expected = settle_hand(
        rules=rules,
        dealer_seat=audit.dealer,
        dealer_level=thrown.level,
        attacker_level=thrown.attacker_level,
        score=audit.score,
        failed_throws=failed,
    )
    assert audit.settlement == expected
    assert failed and expected.throw_penalty == charged(rules, audit.dealer, failed)


@pytest.mark.parametrize(
    ("failed", "field"),
    [
        ([FailedThrow(4, 3)], "failed_throws[0].seat"),
        ([FailedThrow(1, 3), FailedThrow(2, 1)], "failed_throws[1].cards"),
        ([FailedThrow(1, 2)] * 26, "failed_throws"),
    ],
)
def test_bad_failed_throws_name_the_field(failed: list[FailedThrow], field: str) -> None:
    with pytest.raises(InvalidArgumentError) as error:
        settle_hand(
            rules=DEFAULT_RULES,
            dealer_seat=0,
            dealer_level=7,
            attacker_level=4,
            score=0,
            failed_throws=failed,
        )
    assert error.value.argument == field


@pytest.mark.parametrize("points", [0, 7, 105, True])
def test_bad_penalty_amounts_are_refused(points: int) -> None:
    with pytest.raises(InvalidArgumentError) as error:
        dataclasses.replace(
            DEFAULT_RULES, throw_penalty=ThrowPenalty.PER_ATTEMPT, throw_penalty_points=points
        )
    assert error.value.argument == "throw_penalty_points"


# --------------------------------------------------------------------------------------------------
# R16.3 FOLLOW-SUIT-ONLY
# --------------------------------------------------------------------------------------------------


def suit_only_follows(ctx: TrumpContext, hand: Hand, lead: tuple[int, ...]) -> set[tuple[int, ...]]:
    """R5.1 and R5.2 alone, by brute force: every n cards of the hand holding as many of the led
    category as the hand can give."""
    category, n = ctx.category[lead[0]], len(lead)
    cards = [face for face in range(NUM_FACES) for _ in range(hand[face])]
    owed = min(n, sum(1 for face in cards if ctx.category[face] == category))
    return {
        play
        for play in sub_multisets(cards, n)
        if sum(1 for face in play if ctx.category[face] == category) >= owed
    }


@given(positions())
@settings(max_examples=300)
def test_suit_only_follows_match_the_brute_force(
    position: tuple[TrumpContext, Hand, tuple[int, ...]],
) -> None:
    """R16.3: the check and the listing both give exactly the count-and-category plays."""
    ctx, hand, lead = position
    legal = suit_only_follows(ctx, hand, lead)
    cards = [face for face in range(NUM_FACES) for _ in range(hand[face])]
    for play in sub_multisets(cards, len(lead)):
        verdict = check_follow(ctx, hand=hand, lead=lead, play=play, structure=False)
        assert isinstance(verdict, Legal) == (play in legal), (lead, play, verdict)
        if isinstance(verdict, Illegal):
            assert verdict.reason is Violation.MUST_FOLLOW_SUIT
    listing = legal_plays(ctx, hand=hand, lead=lead, limit=MAX_LIMIT, structure=False)
    assert listing.truncated or set(listing.plays) == legal
    assert set(listing.plays) <= legal


def test_suit_only_through_the_ruleset() -> None:
    """R16.3 reaches every caller through Rules.follow: ValidatePlay's check and the listing."""
    ctx = trump_context(5, Suit.H)
    hand = parse_cards(["SK", "SK", "SQ", "SQ", "S3", "S3", "H9"])
    lead = parse_cards(["S9", "S9", "S8", "S8"])
    play = parse_cards(["SK", "SQ", "S3", "S3"])
    suit_only = dataclasses.replace(DEFAULT_RULES, follow=FollowRule.SUIT_ONLY)
    trick: tuple[SeatCards, ...] = ((0, lead),)
    verdicts = {
        rules.follow: validate_play(
            ctx, rules, seat=1, hand=hand, trick_leader=0, trick_plays=trick, cards=play, others=None
        ).verdict
        for rules in (DEFAULT_RULES, suit_only)
    }
    assert isinstance(verdicts[FollowRule.STRUCTURE], Illegal)  # R5.3: the tractor is owed
    assert isinstance(verdicts[FollowRule.SUIT_ONLY], Legal)
    listed = list_plays(ctx, suit_only, seat=1, hand=hand, trick_leader=0, trick_plays=trick, limit=100)
    assert tuple(sorted(play)) in {tuple(sorted(p)) for p, _ in listed.plays}


# --------------------------------------------------------------------------------------------------
# R16.4 JACK (勾J)
# --------------------------------------------------------------------------------------------------

JACK_RULES = dataclasses.replace(DEFAULT_RULES, jack_rule=JackRule.SINGLE_JACK)
WINS = st.tuples(
    st.integers(min_value=0, max_value=3),
    st.lists(st.integers(min_value=0, max_value=NUM_FACES - 1), min_size=1, max_size=2).map(tuple),
)


@given(
    rules=st.sampled_from([DEFAULT_RULES, JACK_RULES]),
    win=WINS,
    score=st.integers(min_value=0, max_value=60).map(lambda n: n * 5),
    dealer=st.integers(min_value=0, max_value=3),
    levels=st.tuples(st.sampled_from([10, 11, 11, 11]), LEVELS),
)
def test_the_jack_rule_is_a_reset_before_the_table(
    rules: Rules, win: tuple[int, tuple[int, ...]], score: int, dealer: int, levels: tuple[int, int]
) -> None:
    """R16.4 read literally: a single jack won by an attacker at J puts the dealer team at 2, and the
    hand then settles as if it had been played from 2; otherwise nothing changes."""
    dealer_level, attacker_level = levels
    seat, cards = win
    result = settle_hand(
        rules=rules, dealer_seat=dealer, dealer_level=dealer_level, attacker_level=attacker_level,
        score=score, last_trick_win=win,
    )  # fmt: skip
    jack = len(cards) == 1 and cards[0] < 52 and cards[0] % 13 == 9  # face % 13 == 9 is a J (R0.2)
    reset = (
        rules.jack_rule is JackRule.SINGLE_JACK and dealer_level == 11 and (seat - dealer) % 2 == 1 and jack
    )
    plain = settle_hand(
        rules=rules, dealer_seat=dealer, dealer_level=2 if reset else dealer_level,
        attacker_level=attacker_level, score=score,
    )  # fmt: skip
    assert result.back_to_two is reset
    assert result == dataclasses.replace(plain, back_to_two=reset)


@pytest.mark.parametrize("seed", [1])
def test_the_audit_reads_the_last_trick(seed: int) -> None:
    """R16.4: AuditHand finds the last trick's winner and winning play in the record (seed 1 at J is dug
    with a single jack)."""
    record = play_hand(seed=seed, rules=JACK_RULES, level=11)
    audit = audit_hand(JACK_RULES, record)
    assert audit.valid and audit.settlement is not None and audit.dealer is not None, audit.error
    leader = audit.leaders[-1]
    winner = audit.tricks[-1].winner
    expected = settle_hand(
        rules=JACK_RULES,
        dealer_seat=audit.dealer,
        dealer_level=11,
        attacker_level=record.attacker_level,
        score=audit.score,
        last_trick_win=(winner, record.tricks[-1].plays[(winner - leader) % 4]),
    )
    assert audit.settlement == expected and expected.back_to_two
    unruled = settle_hand(
        rules=DEFAULT_RULES, dealer_seat=audit.dealer, dealer_level=11,
        attacker_level=record.attacker_level, score=audit.score,
    )  # fmt: skip
    assert audit_hand(DEFAULT_RULES, record).settlement == unruled  # every preset: no reset


@pytest.mark.parametrize(
    ("win", "field"),
    [((4, (9,)), "last_trick_winner.seat"), ((1, ()), "last_trick_winner.cards")],
)
def test_bad_last_tricks_name_the_field(win: tuple[int, tuple[int, ...]], field: str) -> None:
    with pytest.raises(InvalidArgumentError) as error:
        settle_hand(
            rules=DEFAULT_RULES, dealer_seat=0, dealer_level=11, attacker_level=4, score=0, last_trick_win=win
        )
    assert error.value.argument == field


# --------------------------------------------------------------------------------------------------
# R16.5 DEFEND-POINTS (a named must-play set)
# --------------------------------------------------------------------------------------------------

DEFEND = dataclasses.replace(DEFAULT_RULES, must_play=MUST_PLAY_SETS[MustPlaySet.DEFEND_POINTS])


def climbed(level: int, gain: int, *, was_dealer: bool, end: EndRule) -> int:
    """R9.5 with 5, 10, K read one level at a time: a team climbs level by level and stops on a point
    rank it has not defended as dealer; A stops it too under END-REC (R9.6)."""
    must = {5, 10, 13} | ({14} if end is EndRule.DEALER_AT_ACE else set())
    if gain and level in must and not was_dealer:
        return level  # taking over on a point rank: it must be defended first
    for _ in range(gain):
        level += 1
        if level in must:
            break
    return level


@given(
    end=st.sampled_from(EndRule),
    score=st.integers(min_value=0, max_value=100).map(lambda n: n * 5),
    levels=st.tuples(LEVELS, LEVELS),
)
def test_defend_points_cannot_be_skipped(end: EndRule, score: int, levels: tuple[int, int]) -> None:
    """R16.5: no team passes 5, 10 or K without having played it as the dealer team."""
    dealer_level, attacker_level = levels
    rules = dataclasses.replace(DEFEND, end=end)
    result = settle_hand(
        rules=rules, dealer_seat=0, dealer_level=dealer_level, attacker_level=attacker_level, score=score
    )
    dealer_won = result.winner_side is Side.DEALER_TEAM
    before = dealer_level if dealer_won else attacker_level
    after = climbed(before, result.g, was_dealer=dealer_won, end=end)
    assert result.g_eff == after - before
    assert result.next_level == (None if after > 14 else after)


# --------------------------------------------------------------------------------------------------
# R16.6 NO-BID from the bottom
# --------------------------------------------------------------------------------------------------

BOTTOMS = st.lists(st.sampled_from(DECK), min_size=8, max_size=8).filter(
    lambda cards: all(cards.count(face) <= 2 for face in cards)
)


def turned_up(rule: NoBid, level: int, bottom: list[int]) -> tuple[Suit, int]:
    """R16.6 as a player turns the cards: one at a time, stopping at the deciding card; the highest seen
    so far is replaced only by a strictly higher rank."""
    best: tuple[int, int] | None = None  # (rank, face)
    for turned, face in enumerate(bottom, start=1):
        if face >= 52:
            continue  # a joker names no suit
        rank = face % 13 + 2
        if rule is NoBid.BOTTOM_FIRST_CARD or rank == level:
            return Suit(face // 13), turned
        if best is None or rank > best[0]:
            best = (rank, face)
    assert best is not None
    return Suit(best[1] // 13), 8


@given(
    rule=st.sampled_from([NoBid.BOTTOM_FIRST_CARD, NoBid.BOTTOM_LEVEL_OR_HIGHEST]),
    level=LEVELS,
    bottom=BOTTOMS,
    declared=st.booleans(),
)
def test_trump_from_the_bottom_matches_turning_it_up(
    rule: NoBid, level: int, bottom: list[int], declared: bool
) -> None:
    """R16.6: nobody declared, the bottom names the suit as turning it up does; a declaration wins."""
    rules = dataclasses.replace(DEFAULT_RULES, no_bid=rule)
    level_card = level - 2  # the spade of the level (R10.2)
    sequence = [Declaration(seat=1, cards=(level_card,))] if declared and bottom.count(level_card) < 2 else []
    result = resolve_declarations(rules=rules, level=level, sequence=sequence, first_hand=True, bottom=bottom)
    if sequence:
        assert (result.contract, result.bottom_revealed) == (Suit.S, 0)
    else:
        assert (result.contract, result.bottom_revealed) == turned_up(rule, level, bottom)
        assert (result.overturn_multiplier, result.dealer, result.declared) == (1, 0, False)


def test_the_bottom_is_needed_only_when_nobody_declared() -> None:
    """R16.6: without a declaration the bottom is required (named), with one it is not."""
    rules = dataclasses.replace(DEFAULT_RULES, no_bid=NoBid.BOTTOM_LEVEL_OR_HIGHEST)
    with pytest.raises(InvalidArgumentError) as error:
        resolve_declarations(rules=rules, level=7, sequence=[], first_hand=True)
    assert (error.value.argument, error.value.problem) == ("bottom", Problem.MISSING)
    declared = resolve_declarations(
        rules=rules, level=7, sequence=[Declaration(seat=0, cards=(5,))], first_hand=True
    )
    assert declared.contract is Suit.S
    with pytest.raises(InvalidArgumentError) as error:
        resolve_declarations(rules=DEFAULT_RULES, level=7, sequence=[], first_hand=True, bottom=[0] * 3)
    assert (error.value.argument, error.value.problem) == ("bottom", Problem.BAD_SIZE)


# --------------------------------------------------------------------------------------------------
# R16.7 THROW-RUFF
# --------------------------------------------------------------------------------------------------

Reading = tuple[tuple[int, int], ...]
"""A ruff read as the lead (brute force): for each unit of the lead, in the lead's order, (grade, top)."""

CONTEXTS = st.builds(trump_context, st.integers(2, 14), st.sampled_from([*Suit, None]))


def brute_readings(ctx: TrumpContext, lead: tuple[int, ...], play: tuple[int, ...]) -> set[Reading]:
    """Every way to serve the lead's units, in order, with units of the ruff's cards (R16.7): a run of k
    distinct consecutive strengths held twice for a k-tractor, a face held twice for a pair, any card for
    a single. Empty when ``play`` is no all-trump play of the lead's size (R6.1)."""
    if len(play) != len(lead) or any(ctx.category[face] != TRUMP for face in play):
        return set()
    grades = [c.pairs for c in decompose(ctx, lead).components]
    strength = ctx.strength
    found: set[Reading] = set()

    def go(i: int, left: Counter[int], served: tuple[tuple[int, int], ...]) -> None:
        if i == len(grades):
            found.add(served)
            return
        grade = grades[i]
        held = sorted(face for face, n in left.items() if n >= (2 if grade else 1))
        for units in combinations(held, max(grade, 1)):
            strengths = sorted(strength[face] for face in units)
            if grade >= 2 and strengths != list(range(strengths[0], strengths[0] + grade)):
                continue
            used = Counter(dict.fromkeys(units, 2 if grade else 1))
            go(i + 1, left - used, (*served, (grade, strengths[-1])))

    go(0, Counter(play), ())
    return found


def _sorted_within_grades(reading: Reading) -> Reading:
    """A reading with the units of each grade strongest first (a relabelling of equal lead units)."""
    return tuple(sorted(reading, key=lambda unit: (-unit[0], -unit[1])))


def _all_beats(later: set[Reading], standing: set[Reading]) -> bool:
    """ALL, literally: however the standing ruff is read, some reading of the later ruff beats it unit
    for unit, position by position (the later ruff's readings include every order of equal units)."""
    return all(
        any(all(a[1] > b[1] for a, b in zip(mine, theirs, strict=True)) for mine in later)
        for theirs in {_sorted_within_grades(r) for r in standing}
    )


def _length_order(reading: Reading) -> list[int]:
    """TRICK_UNIT_LENGTH's sequence: longer units first, strongest first within a length; singles only
    when the lead has nothing else."""
    units = _sorted_within_grades(reading)
    longest = units[0][0]
    return [top for grade, top in units if grade > 0 or longest == 0]


def _unit_length_beats(later: set[Reading], standing: set[Reading]) -> bool:
    """TRICK_UNIT_LENGTH, literally: the first unequal unit decides, for every reading of the standing."""

    def first_unequal_is_mine(mine: list[int], theirs: list[int]) -> bool:
        for a, b in zip(mine, theirs, strict=True):
            if a != b:
                return a > b
        return False

    return all(
        any(first_unequal_is_mine(_length_order(a), _length_order(b)) for a in later) for b in standing
    )


def _r66_key(readings: set[Reading]) -> int:
    """R6.6 under RUFF-COVER: the strongest unit of the lead's top grade over every reading."""
    return max(max(top for grade, top in r if grade == r[0][0]) for r in readings)


def brute_beats(
    ctx: TrumpContext,
    policy: ThrowRuffCompare,
    lead: tuple[int, ...],
    later: tuple[int, ...],
    standing: tuple[int, ...],
) -> bool:
    """Whether the later valid ruff takes the trick from the standing one (R16.7, R6.6), literally."""
    if policy is ThrowRuffCompare.HIGHEST:
        return max(ctx.strength[f] for f in later) > max(ctx.strength[f] for f in standing)
    mine, theirs = brute_readings(ctx, lead, later), brute_readings(ctx, lead, standing)
    if policy is ThrowRuffCompare.ALL:
        return _all_beats(mine, theirs)
    if policy is ThrowRuffCompare.TRICK_UNIT_LENGTH:
        return _unit_length_beats(mine, theirs)
    return _r66_key(mine) > _r66_key(theirs)


@st.composite
def thrown_tricks(
    draw: st.DrawFn, ruffs: int = 0
) -> tuple[TrumpContext, tuple[int, ...], list[tuple[int, ...]]]:
    """A plain throw of two to four units and three follows: mostly ruffs built unit by unit from the
    trumps left (so many are valid and compete; the first ``ruffs`` always, while trumps last), some
    random trumps, some discards."""
    ctx = draw(CONTEXTS)
    suit = draw(st.sampled_from([c for c in range(4) if ctx.faces[c]]))
    faces = list(ctx.faces[suit])
    count = draw(st.integers(2, min(4, len(faces))))
    start = draw(st.integers(0, len(faces) - count))
    chosen = faces[start : start + count] if draw(st.booleans()) else draw(st.permutations(faces))[:count]
    lead = tuple(f for f in chosen for _ in range(draw(st.integers(1, 2))))
    assume(len(decompose(ctx, lead).components) >= 2)  # a throw (R3.5)
    left = Counter(DECK) - Counter(lead)
    rng = draw(st.randoms(use_true_random=False))
    follows: list[tuple[int, ...]] = []
    for i in range(3):
        kind = (
            "units" if i < ruffs else draw(st.sampled_from(["units", "units", "units", "trumps", "discard"]))
        )
        play = draw(_unit_ruff(ctx, lead, left)) if kind == "units" else []
        if not play:
            trumps = kind != "discard"
            pool = [
                f for f in left.elements() if (ctx.category[f] == TRUMP) == trumps and ctx.category[f] != suit
            ]
            if len(pool) < len(lead):
                pool = [f for f in left.elements() if ctx.category[f] != suit]
            play = rng.sample(sorted(pool), len(lead))
        left -= Counter(play)
        follows.append(tuple(play))
    return ctx, lead, follows


def _unit_ruff(ctx: TrumpContext, lead: tuple[int, ...], left: Counter[int]) -> st.SearchStrategy[list[int]]:
    """Trumps for each unit of the lead, a unit of the same kind at a random rung; [] if they run out."""

    @st.composite
    def build(draw: st.DrawFn) -> list[int]:
        rungs = ctx.ladder[TRUMP]  # weakest first: a rung's index is its strength
        spare = Counter(left)
        play: list[int] = []
        for component in decompose(ctx, lead).components:
            need, copies = max(component.pairs, 1), 2 if component.pairs else 1
            tops = [
                top
                for top in range(need - 1, len(rungs))
                if all(any(spare[f] >= copies for f in rungs[s]) for s in range(top - need + 1, top + 1))
            ]
            if not tops:
                return []
            top = draw(st.sampled_from(tops))
            for s in range(top - need + 1, top + 1):
                face = draw(st.sampled_from([f for f in rungs[s] if spare[f] >= copies]))
                play += [face] * copies
                spare[face] -= copies
        return play

    return build()


RUFF_RULESETS = [
    *(dataclasses.replace(DEFAULT_RULES, throw_ruff_compare=policy) for policy in ThrowRuffCompare),
    dataclasses.replace(RULEBOOK_000, throw_ruff_compare=ThrowRuffCompare.HIGHEST),  # HIGHEST under COUNT
]


@given(thrown_tricks(), st.sampled_from(RUFF_RULESETS))
@settings(max_examples=250)
def test_throw_ruffs_match_the_brute_force(
    trick: tuple[TrumpContext, tuple[int, ...], list[tuple[int, ...]]], rules: Rules
) -> None:
    """R16.7 (and R6.6 as its default): every follow of a random throw judged as the literal reading
    judges it: the first valid ruff takes the trick (R6.4), a later one only when it beats the standing
    ruff under the policy, and everything else is a discard."""
    ctx, lead, follows = trick
    shape = decompose(ctx, lead)
    valid = [ruff_key(ctx, rules, shape, play) != NO_KEY for play in follows]
    if rules.ruff is RuffStructure.COVER:  # R6.2: a valid ruff is one that can be read as the lead
        assert valid == [bool(brute_readings(ctx, lead, play)) for play in follows]
    expected = [Judgement.LEAD]
    standing: tuple[int, ...] | None = None
    for play, ok in zip(follows, valid, strict=True):
        if not ok:
            expected.append(Judgement.DISCARD)
        elif standing is None:
            expected.append(Judgement.RUFF)
            standing = play
        elif brute_beats(ctx, rules.throw_ruff_compare, lead, play, standing):
            expected.append(Judgement.OVER_RUFF)
            standing = play
        else:
            expected.append(Judgement.UNDER_RUFF)
    result = resolve_trick(ctx, rules, leader=0, plays=[lead, *follows], dealer=0)
    assert list(result.judgements) == expected, (lead, follows)
    winner = max((i for i, j in enumerate(expected) if j in (Judgement.RUFF, Judgement.OVER_RUFF)), default=0)
    assert result.winner == winner


@given(thrown_tricks(ruffs=2))
@settings(max_examples=120)
def test_the_policies_coincide_where_rules_md_says(
    trick: tuple[TrumpContext, tuple[int, ...], list[tuple[int, ...]]],
) -> None:
    """R16.7's coincidences, on the engine: ALL over-ruffs only where the three others do; TRICK_UNIT_LENGTH
    agrees with R6.6 wherever R6.6's keys differ; HIGHEST is R6.6 on a throw of singles."""
    ctx, lead, follows = trick
    shape = decompose(ctx, lead)
    keys = [ruff_key(ctx, DEFAULT_RULES, shape, play) for play in follows[:2]]
    assume(NO_KEY not in keys)
    took = {
        policy: resolve_trick(
            ctx,
            dataclasses.replace(DEFAULT_RULES, throw_ruff_compare=policy),
            leader=0,
            plays=[lead, *follows],
            dealer=0,
        ).judgements[2]
        is Judgement.OVER_RUFF
        for policy in ThrowRuffCompare
    }
    if took[ThrowRuffCompare.ALL]:
        assert all(took.values()), took
    if keys[0] != keys[1]:
        assert took[ThrowRuffCompare.TRICK_UNIT_LENGTH] is took[ThrowRuffCompare.R6_6]
    if shape.top_grade == 0:
        assert took[ThrowRuffCompare.HIGHEST] is took[ThrowRuffCompare.R6_6]


@pytest.mark.parametrize(
    "plays",
    [
        ["SA", "BJ", "SJ", "H2"],  # a single lead
        ["SA SA", "H3 H3", "H9 H9", "BJ BJ"],  # a pair lead
        ["S9 S9 S8 S8", "H3 H3 H4 H4", "BJ BJ SJ SJ", "HQ HQ HJ HJ"],  # a tractor lead
    ],
)
def test_one_component_leads_are_r6_6_under_every_policy(plays: list[str]) -> None:
    """R16.7 applies to throws only: a single, a pair or a tractor lead is ruffed as R6.6 says."""
    ctx = trump_context(7, Suit.H)
    cards = [parse_cards(p.split()) for p in plays]
    default = resolve_trick(ctx, DEFAULT_RULES, leader=0, plays=cards, dealer=0)
    for policy in ThrowRuffCompare:
        rules = dataclasses.replace(DEFAULT_RULES, throw_ruff_compare=policy)
        assert resolve_trick(ctx, rules, leader=0, plays=cards, dealer=0) == default


def test_every_preset_compares_by_r6_6() -> None:
    """R16.7 is off in every preset."""
    assert {rules.throw_ruff_compare for rules in PRESETS.values()} == {ThrowRuffCompare.R6_6}


@pytest.mark.parametrize("policy", [ThrowRuffCompare.ALL, ThrowRuffCompare.TRICK_UNIT_LENGTH])
def test_unit_readings_need_ruff_cover(policy: ThrowRuffCompare) -> None:
    """R16.7: ALL and TRICK_UNIT_LENGTH with RUFF-COUNT are refused, naming the field; HIGHEST is not."""
    with pytest.raises(InvalidArgumentError) as error:
        dataclasses.replace(RULEBOOK_000, throw_ruff_compare=policy)
    assert (error.value.argument, error.value.problem) == ("throw_ruff_compare", Problem.INCONSISTENT)
    assert (
        dataclasses.replace(RULEBOOK_000, throw_ruff_compare=ThrowRuffCompare.HIGHEST).ruff
        is RuffStructure.COUNT
    )
    both = dataclasses.replace(RULEBOOK_000, throw_ruff_compare=policy, ruff=RuffStructure.COVER)
    assert both.throw_ruff_compare is policy


def _cards(text: str) -> tuple[int, ...]:
    return parse_cards(text.split())


def test_a_long_throw_is_compared_in_bounded_time() -> None:
    """R16.7's readings stay few for the longest throws: 16 cards, four pairs and eight singles, ruffed
    twice with eight trump pairs each (70 readings a ruff), under ALL."""
    ctx = trump_context(2, Suit.S)
    lead = _cards("HA HA HK HQ HQ HJ H10 H10 H9 H8 H8 H7 H6 H5 H4 H3")
    first = _cards("SQ SQ SJack SJack S10 S10 S9 S9 S8 S8 S7 S7 S6 S6 S5 S5")
    second = _cards("BJ BJ SJ SJ S2 S2 H2 H2 C2 C2 D2 D2 SA SA SK SK")
    clubs = _cards("C3 C3 C4 C4 C5 C5 C6 C6 C7 C7 C8 C8 C9 C9 C10 C10")
    rules = dataclasses.replace(DEFAULT_RULES, throw_ruff_compare=ThrowRuffCompare.ALL)
    started = time.perf_counter()
    result = resolve_trick(ctx, rules, leader=0, plays=[lead, first, second, clubs], dealer=0)
    elapsed = time.perf_counter() - started
    assert result.judgements[1:3] == (
        Judgement.RUFF,
        Judgement.OVER_RUFF,
    )  # every unit of ``second`` is stronger
    assert elapsed < 2.0, elapsed


@pytest.mark.parametrize("standing", ["BJ H3 H3", "HK H3 H3"])
@pytest.mark.parametrize("policy", list(ThrowRuffCompare))
def test_the_opponent_model_ruffs_a_throw_only_to_take_it(policy: ThrowRuffCompare, standing: str) -> None:
    """R16.7 in SuggestPlay's model: a void seat holding H9 H9 HA ruffs WC-189's throw (SA SA SK) over
    P2's ruff exactly when the policy lets that ruff take the trick (R6.6, TRICK_UNIT_LENGTH: the pair
    decides; HIGHEST and ALL: HA must beat BJ or HK too)."""
    ctx = trump_context(7, Suit.H)
    rules = dataclasses.replace(DEFAULT_RULES, throw_ruff_compare=policy)
    plays = [_cards("SA SA SK"), _cards(standing)]
    ruff = _cards("H9 H9 HA")
    hand = [0] * NUM_FACES
    for face in (*ruff, *_cards("C5 C6 C8")):
        hand[face] += 1
    lead = decompose(ctx, plays[0])
    answer = model_follow(
        ctx,
        rules,
        hand,
        lead,
        partner_winning=False,
        standing=standing_of(ctx, rules, plays),
        trick_points=20,
        outside=FULL_DECK,
        last=False,
    )
    takes = (
        resolve_trick(ctx, rules, leader=0, plays=[*plays, ruff, _cards("D2 D3 D4")], dealer=0).winner == 2
    )
    assert (sorted(answer) == sorted(ruff)) is takes
    keeps = {ThrowRuffCompare.HIGHEST, ThrowRuffCompare.ALL}  # HA does not beat BJ
    assert takes is not (policy in keeps and standing.startswith("BJ"))
