"""Finding friends (R15): the worked cases, the checks, and a brute-force replay on random hands of 4 to 8
seats and 2 to 4 decks."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from worked_cases import Case, cases, context_for, table_rules_for

from rules_core.cards import (
    NUM_FACES,
    POINTS,
    format_rank,
    hand_of,
    parse_card,
    parse_cards,
    parse_rank,
    rank_of,
)
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.follow import check_follow
from rules_core.friends import (
    FriendCall,
    Play,
    SidesAfter,
    TableSettlement,
    Trick,
    call_count,
    check_calls,
    replay_sides,
    settle_table,
)
from rules_core.rules import (
    DEFAULT_RULES,
    SEEDS_TABLE,
    EndRule,
    JackRule,
    LevelTable,
    MultipleJoin,
    Partners,
    Rules,
    ThrowPenalty,
    deck_table,
)
from rules_core.settlement import FailedThrow, capped_level, must_play_levels, settle_hand
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Legal

CTX = trump_context(5, None)  # no-trump at 5: every suit plain, no call is barred for being a trump suit
FRIENDS = dataclasses.replace(DEFAULT_RULES, partners=Partners.FRIENDS)


def _calls(case: Case) -> tuple[FriendCall, ...]:
    return tuple(FriendCall(parse_card(call["card"]), call["copy"]) for call in case["input"]["calls"])


def _tricks(case: Case) -> tuple[Trick, ...]:
    return tuple(
        Trick(
            tuple(Play(play["seat"], parse_cards(play["cards"])) for play in trick["plays"]), trick["winner"]
        )
        for trick in case["input"]["tricks"]
    )


def _answer(case: Case) -> dict[str, Any]:
    """The engine's answer to a ``friends`` line, in its ``expect`` format (CASES.md)."""
    rules, ctx, given_ = table_rules_for(case), context_for(case), case["input"]
    replayed = replay_sides(rules, ctx, given_["dealer"], _calls(case), _tricks(case))
    answer: dict[str, Any] = {
        "sides": [sorted(after.dealer_side) for after in replayed],
        "calls": _call_states(replayed, len(given_["calls"])),
        "points": [after.attackers_points for after in replayed],
        "settlement": None,
    }
    if given_.get("levels") is not None:
        answer["settlement"] = _settlement(
            settle_table(
                rules,
                ctx,
                dealer=given_["dealer"],
                levels=[parse_rank(level) for level in given_["levels"]],
                calls=_calls(case),
                tricks=_tricks(case),
                dig_points=given_.get("dig_points", 0),
                failed_throws=[
                    FailedThrow(entry["seat"], entry["cards"]) for entry in given_.get("failed_throws", [])
                ],
            )
        )
    return answer


def _call_states(replayed: tuple[SidesAfter, ...], count: int) -> list[dict[str, Any]]:
    if not replayed:
        return [{"met_by": None, "trick": None, "joined": False}] * count
    return [
        {"met_by": state.met_by, "trick": state.trick, "joined": state.joined} for state in replayed[-1].calls
    ]


def _settlement(result: TableSettlement) -> dict[str, Any]:
    return {
        "score": result.score,
        "winner_side": str(result.winner_side),
        "g": result.g,
        "small_team": result.small_team,
        "bonus": result.bonus,
        "levels_after": [_rank(seat.level_after) for seat in result.seats],
        "next_dealer": result.next_dealer,
        "next_level": _rank(result.next_level),
        "game_over": result.game_over,
        "throw_penalty": result.throw_penalty,
        "back_to_two": result.back_to_two,
    }


def _rank(level: int | None) -> str | None:
    return None if level is None else format_rank(level)


@pytest.mark.parametrize("case", cases("friends"))
def test_friends_worked_case(case: Case) -> None:
    """R15: every finding-friends worked case, answers and refusals alike."""
    expect = case["expect"]
    if "error" in expect:
        with pytest.raises(InvalidArgumentError) as refused:
            _answer(case)
        assert (refused.value.argument, str(refused.value.problem)) == (
            expect["error"]["field"],
            expect["error"]["problem"],
        )
    else:
        assert _answer(case) == expect


def test_there_are_enough_friends_cases() -> None:
    """Issue 18: at least 15 cases for R15 (an empty parametrisation would only skip)."""
    assert len(cases("friends")) >= 15


def test_the_friend_of_wc_407_was_forced() -> None:
    """WC-407: seat 1's SA was its only legal follow to the SK lead (R5.2), checked by the follow engine."""
    (case,) = [case.values[0] for case in cases("friends") if case.id == "WC-407"]
    forced = case["input"]["forced"]
    trick = case["input"]["tricks"][forced["trick"]]
    lead = parse_cards(trick["plays"][0]["cards"])
    hand = parse_cards(forced["hand"])
    played = parse_cards(trick["plays"][1]["cards"])
    legal = {
        face
        for face in set(hand)
        if isinstance(check_follow(context_for(case), hand=hand_of(hand), lead=lead, play=(face,)), Legal)
    }
    assert legal == set(played) == {parse_card("SA")}


# --- the checks (R15.15) ------------------------------------------------------------------------------


def _singles(seats: int, leader: int, cards: list[str], winner: int) -> Trick:
    return Trick(
        tuple(Play((leader + i) % seats, (parse_card(card),)) for i, card in enumerate(cards)), winner
    )


FIRST = _singles(4, 0, ["S3", "S4", "S6", "S7"], 2)
SA = (FriendCall(parse_card("SA"), 1),)


@pytest.mark.parametrize(
    ("tricks", "field", "problem"),
    [
        ((_singles(4, 1, ["S3", "S4", "S6", "S7"], 2),), "tricks[0].plays[0].seat", Problem.OUT_OF_ORDER),
        (
            (FIRST, _singles(4, 0, ["S8", "S9", "S2", "SQ"], 0)),
            "tricks[1].plays[0].seat",
            Problem.OUT_OF_ORDER,
        ),
        ((Trick(FIRST.plays[:3], 2),), "tricks[0].plays", Problem.BAD_SIZE),
        (
            (Trick((FIRST.plays[0], Play(1, (4, 5)), *FIRST.plays[2:]), 2),),
            "tricks[0].plays[1].cards",
            Problem.BAD_SIZE,
        ),
        ((Trick(FIRST.plays, 4),), "tricks[0].winner", Problem.OUT_OF_RANGE),
        (
            (_singles(4, 0, ["S3", "S3", "S3", "S7"], 2),),
            "tricks[0].plays[2].cards[0]",
            Problem.TOO_MANY_COPIES,
        ),
        (
            (Trick((Play(0, (54,)), *FIRST.plays[1:]), 2),),
            "tricks[0].plays[0].cards[0]",
            Problem.OUT_OF_RANGE,
        ),
        ((FIRST,) * 28, "tricks", Problem.BAD_SIZE),
    ],
)
def test_malformed_tricks_are_refused(tricks: tuple[Trick, ...], field: str, problem: Problem) -> None:
    """R15.15: the record's order (R4.1), sizes (R5.1), winner, copies (R1.2) and length, named."""
    with pytest.raises(InvalidArgumentError) as refused:
        replay_sides(FRIENDS, CTX, 0, SA, tricks)
    assert (refused.value.argument, refused.value.problem) == (field, problem)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"dealer": 4}, "dealer"),
        ({"levels": (5, 5, 5)}, "levels"),
        ({"levels": (5, 5, 15, 5)}, "levels[2]"),
        ({"levels": (6, 5, 5, 5)}, "levels[0]"),
        ({"dig_points": -5}, "dig_points"),
        ({"dig_points": 7}, "dig_points"),
        ({"tricks": ()}, "tricks"),
        ({"calls": (FriendCall(parse_card("SA"), 3),)}, "friend_calls[0].copy"),
        ({"calls": (FriendCall(54, 1),)}, "friend_calls[0].card"),
    ],
)
def test_malformed_settlements_are_refused(changes: dict[str, Any], field: str) -> None:
    """R15.11, R15.9, R15.3: levels per seat at the dealer's L, a dig in steps of 5, a hand of tricks."""
    arguments: dict[str, Any] = {"dealer": 0, "levels": (5, 5, 5, 5), "calls": SA, "tricks": (FIRST,)}
    with pytest.raises(InvalidArgumentError) as refused:
        settle_table(FRIENDS, CTX, **(arguments | changes))
    assert refused.value.argument == field


def test_every_preset_has_fixed_partners_and_no_calls() -> None:
    """R15.1: finding friends is off in every preset; four seats alternate (R1.5)."""
    assert DEFAULT_RULES.partners is Partners.FIXED and call_count(DEFAULT_RULES) == 0
    (after,) = replay_sides(DEFAULT_RULES, CTX, 3, (), (_singles(4, 3, ["S3", "S4", "S6", "S7"], 0),))
    assert after.dealer_side == {1, 3} and after.attackers_points == 0
    with pytest.raises(InvalidArgumentError):
        check_calls(DEFAULT_RULES, CTX, SA)


@pytest.mark.parametrize("calls", [-1, 7])
def test_the_number_of_calls_fits_the_table(calls: int) -> None:
    """R15.2: 0..seats - 2 friends, so one seat at least attacks."""
    with pytest.raises(InvalidArgumentError) as refused:
        dataclasses.replace(FRIENDS, seats=8, friend_calls=calls)
    assert refused.value.argument == "friend_calls"


def test_the_level_table_scales_with_the_decks() -> None:
    """R15.10: two decks keep the table itself; 20 points a deck for the seeds' 40 (rbtying/shengji)."""
    assert deck_table(SEEDS_TABLE, 2) is SEEDS_TABLE
    assert [
        (deck_table(SEEDS_TABLE, d).step_points, deck_table(SEEDS_TABLE, d).take_over) for d in (3, 4)
    ] == [
        (60, 120),
        (80, 160),
    ]
    assert deck_table(LevelTable(200, 1, 0), 4).take_over == 400  # beyond the two decks' 200, within four's
    with pytest.raises(InvalidArgumentError):
        deck_table(LevelTable(15, 2, 1), 3)


LEVELS = st.integers(min_value=2, max_value=14)


FOUR_SEAT_RULES = st.builds(
    Rules,
    must_play=st.frozensets(LEVELS, max_size=3),
    end=st.sampled_from(EndRule),
    throw_penalty=st.sampled_from(ThrowPenalty),
    jack_rule=st.sampled_from(JackRule),
)
THROWS = st.lists(st.builds(FailedThrow, st.integers(0, 3), st.integers(2, 25)), max_size=4)


@given(
    rules=FOUR_SEAT_RULES,
    dealer_level=st.sampled_from([11, 11, *range(2, 15)]),
    attacker_level=LEVELS,
    score=st.integers(0, 80).map(lambda n: n * 5),
    dealer=st.integers(0, 3),
    winning_card=st.sampled_from(["S2", "SK", "DJ", "HJ"]),
    failed=THROWS,
)
def test_fixed_partners_at_four_seats_settle_as_today(
    *,
    rules: Rules,
    dealer_level: int,
    attacker_level: int,
    score: int,
    dealer: int,
    winning_card: str,
    failed: list[FailedThrow],
) -> None:
    """R15.1, R15.14: four seats, two decks, fixed partners settle as R9 and R16 do today: the same score,
    penalty, jack reset, levels, winner and next dealer."""
    levels = [attacker_level] * 4
    levels[dealer] = levels[(dealer + 2) % 4] = dealer_level
    if score < POINTS[parse_card(winning_card)]:
        winning_card = "S2"
    cards = ["S3", winning_card, "S4", "S6"]  # the next seat, an attacker, takes the last trick
    last = Trick(
        tuple(Play((dealer + i) % 4, (parse_card(card),)) for i, card in enumerate(cards)), (dealer + 1) % 4
    )
    ours = settle_table(
        rules,
        trump_context(dealer_level, None),
        dealer=dealer,
        levels=levels,
        calls=(),
        tricks=(last,),
        dig_points=score - POINTS[parse_card(winning_card)],
        failed_throws=failed,
    )
    today = settle_hand(
        rules=rules,
        dealer_seat=dealer,
        dealer_level=dealer_level,
        attacker_level=attacker_level,
        score=score,
        failed_throws=failed,
        last_trick_win=((dealer + 1) % 4, (parse_card(winning_card),)),
    )
    assert (ours.score, ours.throw_penalty, ours.back_to_two) == (
        score + today.throw_penalty,
        today.throw_penalty,
        today.back_to_two,
    )
    assert (ours.winner_side, ours.g, ours.next_dealer, ours.next_level, ours.game_over) == (
        today.winner_side,
        today.g,
        today.next_dealer,
        today.next_level,
        today.game_over,
    )
    assert [seat.level_after for seat in ours.seats[dealer::2]] == [today.dealer_level_after] * len(
        ours.seats[dealer::2]
    )
    assert ours.seats[(dealer + 1) % 4].level_after == today.attacker_level_after
    winners = [seat for seat in ours.seats if seat.gain]
    assert all(seat.gained == today.g_eff for seat in winners)


# --- a brute-force replay, copy by copy ---------------------------------------------------------------


@dataclasses.dataclass
class Deal:
    """A random hand of a random table, played to the end with random (legal-looking) plays."""

    rules: Rules
    ctx: TrumpContext
    dealer: int
    calls: tuple[FriendCall, ...]
    tricks: tuple[Trick, ...]
    levels: tuple[int, ...]
    dig_points: int
    failed: tuple[FailedThrow, ...]


@st.composite
def deals(draw: st.DrawFn) -> Deal:
    """N = 4..8 seats, D = 2..4 decks, fixed partners on some even tables, either join policy; calls on
    cards that are in play (some twice, some on copies never reached), up to 6 cards a seat."""
    seats, decks = draw(st.integers(4, 8)), draw(st.integers(2, 4))
    partners = draw(
        st.sampled_from([Partners.FRIENDS, Partners.FIXED] if seats % 2 == 0 else [Partners.FRIENDS])
    )
    rules = dataclasses.replace(
        DEFAULT_RULES,
        seats=seats,
        decks=decks,
        partners=partners,
        friend_limits=frozenset(),
        multiple_join=draw(st.sampled_from(MultipleJoin)),
        small_team_bonus=draw(st.booleans()),
        friend_calls=draw(st.none() | st.integers(0, seats - 2)),
        throw_penalty=draw(st.sampled_from(ThrowPenalty)),
        jack_rule=draw(st.sampled_from(JackRule)),
    )
    rng = random.Random(draw(st.integers(0, 2**32)))
    deck = [face for face in rng.sample(range(NUM_FACES), 6) for _ in range(decks)]  # few faces: many copies
    rng.shuffle(deck)
    size = min(len(deck) // seats, draw(st.integers(1, 6)))
    hands = [deck[seat * size : (seat + 1) * size] for seat in range(seats)]
    dealer = draw(st.integers(0, seats - 1))
    faces = sorted(set(deck))
    pool = [FriendCall(face, copy) for face in faces for copy in range(1, decks + 1)]
    calls = tuple(rng.sample(pool, call_count(rules)))
    levels = list(draw(st.lists(LEVELS, min_size=seats, max_size=seats)))
    levels[dealer] = draw(st.sampled_from([11, 11, levels[dealer]]))  # J often: the jack rule (R16.4)
    failed = draw(st.lists(st.builds(FailedThrow, st.integers(0, seats - 1), st.integers(2, 6)), max_size=3))
    return Deal(
        rules,
        trump_context(levels[dealer], None),
        dealer,
        calls,
        _play_out(rng, hands, dealer),
        tuple(levels),
        5 * draw(st.integers(0, 40)),
        tuple(failed),
    )


def _play_out(rng: random.Random, hands: list[list[int]], leader: int) -> tuple[Trick, ...]:
    """Every seat plays the same random number of its cards each trick; a random seat wins."""
    seats, tricks = len(hands), []
    while hands[0]:
        count = rng.randint(1, min(3, len(hands[0])))
        plays = []
        for i in range(seats):
            seat = (leader + i) % seats
            cards = tuple(hands[seat].pop(rng.randrange(len(hands[seat]))) for _ in range(count))
            plays.append(Play(seat, cards))
        leader = rng.randrange(seats)
        tricks.append(Trick(tuple(plays), leader))
    return tuple(tricks)


def brute_replay(deal: Deal) -> list[tuple[frozenset[int], list[tuple[int, int, bool] | None], int]]:
    """R15.5–R15.8 read literally: every card is one copy, counted for every open call in the dealer's
    order; the seat playing the k-th copy joins (or, PASSES_ON, the first seat outside the side at or
    after it). After each trick: the side, each call's (seat, trick, joined), the attackers' points."""
    rules = deal.rules
    if rules.partners is Partners.FIXED:
        side = {seat for seat in range(rules.seats) if (seat - deal.dealer) % 2 == 0}
    else:
        side = {deal.dealer}
    seen = [0] * len(deal.calls)
    met: list[tuple[int, int, bool] | None] = [None] * len(deal.calls)
    history = []
    for t, trick in enumerate(deal.tricks):
        for play in trick.plays:
            for i, call in enumerate(deal.calls):
                for face in play.cards:
                    if face != call.face or met[i] is not None:
                        continue
                    seen[i] += 1
                    if seen[i] < call.copy:
                        continue
                    if play.seat not in side:
                        met[i] = (play.seat, t, True)
                        side.add(play.seat)
                    elif rules.multiple_join is MultipleJoin.SPENT:
                        met[i] = (play.seat, t, False)
        points = sum(
            POINTS[face]
            for earlier in deal.tricks[: t + 1]
            if earlier.winner not in side
            for play in earlier.plays
            for face in play.cards
        )
        history.append((frozenset(side), list(met), points))
    return history


def brute_gain(score: int, table: LevelTable) -> int:
    """R16.1 by counting thresholds: below the take-over, the steps still between the score and it (and
    one more at 0, and one more for every step started below 0, R16.2); from it, the step lines at or
    below the score past the dead zone."""
    step, take_over = table.step_points, table.take_over
    if score <= 0:
        return table.take_over_steps + 1 + len(range(0, score, -step))  # the lines 0, -step, … above it
    if score < take_over:
        return sum(1 for line in range(step, take_over + 1, step) if line > score)
    return sum(1 for line in range(take_over + table.dead_zone_steps * step, score + 1, step))


@settings(max_examples=150, deadline=None)
@given(deals())
def test_replay_agrees_with_a_copy_by_copy_reading(deal: Deal) -> None:
    """R15.5–R15.13 on random hands of every table shape: the sides, the calls, the points and each
    seat's settlement agree with the brute-force reading."""
    replayed = replay_sides(deal.rules, deal.ctx, deal.dealer, deal.calls, deal.tricks)
    brute = brute_replay(deal)
    assert [(after.dealer_side, after.attackers_points) for after in replayed] == [
        (s, p) for s, _, p in brute
    ]
    states = [None if c.met_by is None else (c.met_by, c.trick, c.joined) for c in replayed[-1].calls]
    assert states == brute[-1][1]
    result = settle_table(
        deal.rules,
        deal.ctx,
        dealer=deal.dealer,
        levels=deal.levels,
        calls=deal.calls,
        tricks=deal.tricks,
        dig_points=deal.dig_points,
        failed_throws=deal.failed,
    )
    side, _, points = brute[-1]
    rules, last = deal.rules, deal.tricks[-1]
    unit = {ThrowPenalty.NONE: 0, ThrowPenalty.PER_ATTEMPT: 10, ThrowPenalty.PER_CARD: 10}[
        rules.throw_penalty
    ]
    penalty = sum(
        unit
        * (f.cards if rules.throw_penalty is ThrowPenalty.PER_CARD else 1)
        * (1 if f.seat in side else -1)
        for f in deal.failed
    )
    score = points + (deal.dig_points if last.winner not in side else 0) + penalty
    table = LevelTable(20 * rules.decks, 2, 1)  # rbtying: 20 points a deck, two steps, one dead step
    dealer_won = score < table.take_over
    small = rules.partners is Partners.FRIENDS and len(side) < 1 + len(deal.calls)
    gain = brute_gain(score, table) + (dealer_won and small and rules.small_team_bonus)
    (won_with,) = [play.cards for play in last.plays if play.seat == last.winner]
    reset = (
        rules.jack_rule is JackRule.SINGLE_JACK
        and deal.ctx.level == 11
        and last.winner not in side
        and [rank_of(face) for face in won_with] == [11]
    )
    expected = [
        capped_level(
            must_play=must_play_levels(rules),
            level=2 if reset and seat in side else level,
            gain=gain if (seat in side) == dealer_won else 0,
            was_dealer=dealer_won,
        )
        for seat, level in enumerate(deal.levels)
    ]
    assert (result.score, result.small_team, result.throw_penalty, result.back_to_two) == (
        score,
        small,
        penalty,
        reset,
    )
    assert [seat.level_after for seat in result.seats] == [
        None if level > 14 else level for level in expected
    ]
    following = [(deal.dealer + o) % rules.seats for o in range(1, rules.seats + 1)]
    assert result.next_dealer == next(seat for seat in following if (seat in side) == dealer_won)
