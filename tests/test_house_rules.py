"""R16 house rules: each option against a brute-force reading, the presets unchanged, bad values named."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_properties import DECK, positions
from test_properties import _sub_multisets as sub_multisets

from rules_core.audit import HandRecord, audit_hand
from rules_core.bidding import Declaration, resolve_declarations
from rules_core.cards import NUM_FACES, Hand, Suit, parse_cards
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import check_follow
from rules_core.legal_plays import MAX_LIMIT, legal_plays
from rules_core.rules import (
    DEFAULT_RULES,
    MUST_PLAY_SETS,
    PRESETS,
    SEEDS_TABLE,
    EndRule,
    FollowRule,
    JackRule,
    LevelTable,
    MustPlaySet,
    NoBid,
    Rules,
    ThrowPenalty,
)
from rules_core.seating import SeatCards
from rules_core.selfplay import play_hand
from rules_core.settlement import FailedThrow, Side, level_gain, settle_hand, winning_side
from rules_core.trump import TrumpContext, trump_context
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
