"""Finding friends (找朋友, R15): the dealer's friend calls, the sides they make trick by trick, who scored,
and each seat's level change, on tables of 4 to 8 seats and 2 to 4 decks.

The service is stateless, so the sides are never stored: :func:`replay_sides` finds them again from the
calls and the tricks so far, and :func:`settle_table` settles a whole hand from the same record. The trick
winners are an input (the N-seat trick judge is R7/R14's, not this module's); the cards a seat played are
the ones it actually put down, so a failed throw's taken-back cards (R4.7) are not in the record.

>>> from rules_core.cards import Suit, parse_card
>>> from rules_core.rules import DEFAULT_RULES, Partners
>>> from rules_core.trump import trump_context
>>> from dataclasses import replace
>>> rules = replace(DEFAULT_RULES, seats=5, decks=2, partners=Partners.FRIENDS)
>>> calls = (FriendCall(parse_card("SA"), 2),)
>>> first = Trick((Play(0, (parse_card("S3"),)), Play(1, (parse_card("SA"),)), Play(2, (parse_card("S4"),)),
...                Play(3, (parse_card("S6"),)), Play(4, (parse_card("S7"),))), winner=1)
>>> second = Trick((Play(1, (parse_card("S8"),)), Play(2, (parse_card("S9"),)), Play(3, (parse_card("SA"),)),
...                 Play(4, (parse_card("S2"),)), Play(0, (parse_card("S5"),))), winner=3)
>>> replayed = replay_sides(rules, trump_context(2, Suit.H), 0, calls, (first, second))
>>> [sorted(after.dealer_side) for after in replayed]
[[0], [0, 3]]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from rules_core.cards import NUM_FACES, POINTS, format_card, rank_of
from rules_core.errors import InvalidArgumentError, Problem
from rules_core.rules import (
    FriendLimit,
    LevelTable,
    MultipleJoin,
    Partners,
    Rules,
    deck_table,
)
from rules_core.settlement import (
    FailedThrow,
    Side,
    back_to_two,
    capped_level,
    check_int,
    fixed_side,
    must_play_levels,
    penalised_gain,
    throw_penalty,
)
from rules_core.trump import TRUMP, TrumpContext

ACE: Final = 14
KING: Final = 13
POINT_RANKS: Final = frozenset({5, 10, 13})
"""R8.1: the ranks that carry points."""
MAX_DIG_POINTS: Final = 10**12
"""R15.9: a ceiling on the dig's points, far above any bottom times any multiplier (R8.4, R8.8)."""


@dataclass(frozen=True, slots=True)
class FriendCall:
    """One friend call (R15.3): "the ``copy``-th ``face`` played", copy counted from 1."""

    face: int
    copy: int


@dataclass(frozen=True, slots=True)
class Play:
    """One seat's cards in a trick, as it put them down."""

    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick: every seat's play in turn order from the leader, and the seat that won it (R7)."""

    plays: tuple[Play, ...]
    winner: int


@dataclass(frozen=True, slots=True)
class CallState:
    """Where one call stands (R15.5, R15.6)."""

    call: FriendCall
    played: int
    """Copies of the called face played so far (counting stops once the call is met)."""
    met_by: int | None = None
    """The seat whose copy met the call; None while it is open (R15.7: maybe for ever)."""
    trick: int | None = None
    """The index of the trick in which it was met."""
    joined: bool = False
    """Whether it brought a seat onto the dealer's side; False for a copy spent by a seat already there."""


@dataclass(frozen=True, slots=True)
class SidesAfter:
    """The sides after one trick (R15.8): the dealer's side, every call's state, the running points."""

    dealer_side: frozenset[int]
    """The dealer and every seat that joined so far; every other seat is attacking."""
    calls: tuple[CallState, ...]
    attackers_points: int
    """Points of the tricks so far won by seats outside the dealer's side as it stands now (provisional:
    a seat that joins later takes its tricks with it, R15.8)."""


@dataclass(frozen=True, slots=True)
class SeatResult:
    """One seat's settlement (R15.11)."""

    side: Side
    level_before: int
    gain: int
    """Levels its side earned for it (the table and any small-team bonus) before the caps; 0 for a loser."""
    level_after: int | None
    """The seat's new level; None past A (the game is over, R9.6)."""
    gained: int
    """Levels actually gained: the new level less the one the seat played from (2 after the jack rule);
    past A, as if A were not a cap."""


@dataclass(frozen=True, slots=True)
class TableSettlement:
    """The outcome of one hand on any table (R15.8–R15.13)."""

    score: int
    """The attackers' final points (R15.8, R15.9) with the failed-throw penalties (R16.2): maybe below 0."""
    winner_side: Side
    g: int
    """Levels the table gives the winning side at this score (R15.10), before bonus and caps."""
    small_team: bool
    """FRIENDS: the dealer's side ended with fewer seats than 1 + the calls (R15.7)."""
    bonus: bool
    """R15.12: the small team won and earned one more level."""
    seats: tuple[SeatResult, ...]
    dealer_side: frozenset[int]
    next_dealer: int
    """R15.13: the first seat after the dealer, in turn order, on the winning side."""
    next_level: int | None
    """The next dealer's new level, the next hand's L; None when the game is over."""
    game_over: bool
    throw_penalty: int = 0
    """R16.2: the points the failed throws moved, by the throwers' final sides."""
    back_to_two: bool = False
    """R16.4: the dealer's side was reset to 2 before its level changes."""


def call_count(rules: Rules) -> int:
    """R15.2: how many friends the dealer calls: none under fixed partners, else the ruleset's number or,
    unset, seats // 2 - 1 (rbtying/shengji's default).

    >>> from rules_core.rules import DEFAULT_RULES
    >>> from dataclasses import replace
    >>> [call_count(replace(DEFAULT_RULES, seats=n, partners=Partners.FRIENDS)) for n in range(4, 9)]
    [1, 1, 2, 2, 3]
    """
    if rules.partners is Partners.FIXED:
        return 0
    return rules.seats // 2 - 1 if rules.friend_calls is None else rules.friend_calls


def check_calls(rules: Rules, ctx: TrumpContext, calls: Sequence[FriendCall]) -> None:
    """R15.1–R15.4: the calls fit the table and the ruleset, or InvalidArgumentError names the field."""
    if rules.partners is Partners.FIXED and rules.seats % 2:
        raise InvalidArgumentError(
            "partners",
            Problem.INCONSISTENT,
            f"{rules.seats} seats cannot sit in fixed partners: call friends",
        )
    wanted = call_count(rules)
    if len(calls) != wanted:
        raise InvalidArgumentError(
            "friend_calls", Problem.BAD_SIZE, f"this table calls exactly {wanted} friends, got {len(calls)}"
        )
    for i, call in enumerate(calls):
        _check_call(rules, ctx, call, f"friend_calls[{i}]")
        if call in calls[:i]:
            raise InvalidArgumentError(
                f"friend_calls[{i}]", Problem.INCONSISTENT, "the same copy of the same card is called twice"
            )


def _check_call(rules: Rules, ctx: TrumpContext, call: FriendCall, path: str) -> None:
    """R15.3, R15.4: a card that exists, a copy the decks hold, a kind of card the limits allow."""
    check_int(f"{path}.card", call.face, high=NUM_FACES - 1)
    check_int(f"{path}.copy", call.copy, low=1, high=rules.decks)
    barred = _barred(rules.friend_limits, ctx, call.face)
    if barred is not None:
        raise InvalidArgumentError(
            f"{path}.card", Problem.INCONSISTENT, f"{format_card(call.face)} may not be called: {barred}"
        )


def _barred(limits: frozenset[FriendLimit], ctx: TrumpContext, face: int) -> str | None:
    """R15.4: why ``face`` may not be called under ``limits``, or None when it may."""
    category = ctx.category[face]
    if FriendLimit.TRUMPS in limits and category == TRUMP:
        return "it is a trump"
    if FriendLimit.TOP in limits and ctx.strength[face] == ctx.rungs(category) - 1:
        return "it is the top card of its suit"
    rank = rank_of(face)
    if FriendLimit.POINTS in limits and rank in POINT_RANKS and not (rank == KING and ctx.level == ACE):
        return "it is a point card"
    return None


def replay_sides(
    rules: Rules, ctx: TrumpContext, dealer: int, calls: Sequence[FriendCall], tricks: Sequence[Trick]
) -> tuple[SidesAfter, ...]:
    """R15.5–R15.8: the sides after each trick, from the calls and the tricks so far, all of them checked
    (R15.15); no tricks give no entries. Cost: linear in the cards played times the calls."""
    check_int("dealer", dealer, high=rules.seats - 1)
    check_calls(rules, ctx, calls)
    _check_tricks(rules, dealer, tricks)
    side = _initial_side(rules, dealer)
    states = [CallState(call, 0) for call in calls]
    result: list[SidesAfter] = []
    won: list[tuple[int, int]] = []  # (winner, points) of each trick so far
    for index, trick in enumerate(tricks):
        for play in trick.plays:
            side = _play_copies(rules.multiple_join, states, side, play, index)
        won.append((trick.winner, sum(POINTS[face] for play in trick.plays for face in play.cards)))
        points = sum(value for winner, value in won if winner not in side)
        result.append(SidesAfter(side, tuple(states), points))
    return tuple(result)


def _initial_side(rules: Rules, dealer: int) -> frozenset[int]:
    """R15.1: the dealer alone under FRIENDS, every other seat from him under FIXED."""
    if rules.partners is Partners.FRIENDS:
        return frozenset({dealer})
    return fixed_side(dealer, rules.seats)


def _play_copies(
    policy: MultipleJoin, states: list[CallState], side: frozenset[int], play: Play, trick: int
) -> frozenset[int]:
    """R15.5, R15.6: count one play's copies for every open call, in the dealer's call order."""
    for i, state in enumerate(states):
        copies = play.cards.count(state.call.face)
        if state.met_by is not None or not copies:
            continue
        played = state.played + copies
        reached = played >= state.call.copy
        outside = play.seat not in side
        if policy is MultipleJoin.SPENT and reached:  # the k-th copy is in this play: always used
            states[i] = CallState(state.call, state.call.copy, play.seat, trick, outside)
        elif reached and outside:  # PASSES_ON: the k-th or a later copy, from a seat outside the side
            states[i] = CallState(state.call, played, play.seat, trick, True)
        else:
            states[i] = CallState(state.call, played)
            continue
        side = side | {play.seat}
    return side


def _check_tricks(rules: Rules, dealer: int, tricks: Sequence[Trick]) -> None:
    """R15.15: at most a hand of tricks, each a play from every seat in turn order from the right leader
    (the dealer, then each winner: R4.1), the same number of cards in each play (R5.1), and no face more
    often than the decks hold (R1.2, R14)."""
    seats = rules.seats
    most = NUM_FACES * rules.decks // seats
    if len(tricks) > most:
        raise InvalidArgumentError("tricks", Problem.BAD_SIZE, f"a hand has at most {most} tricks here")
    counts = [0] * NUM_FACES
    leader = dealer
    for t, trick in enumerate(tricks):
        _check_trick(seats, leader, trick, f"tricks[{t}]")
        for p, play in enumerate(trick.plays):
            _count_cards(counts, rules.decks, play.cards, f"tricks[{t}].plays[{p}].cards")
        leader = trick.winner


def _check_trick(seats: int, leader: int, trick: Trick, path: str) -> None:
    """One trick: ``seats`` plays from ``leader`` on, equal sizes, a winner among the seats."""
    if len(trick.plays) != seats:
        raise InvalidArgumentError(f"{path}.plays", Problem.BAD_SIZE, f"a trick holds {seats} plays")
    size = len(trick.plays[0].cards)
    for p, play in enumerate(trick.plays):
        if play.seat != (leader + p) % seats:
            raise InvalidArgumentError(
                f"{path}.plays[{p}].seat",
                Problem.OUT_OF_ORDER,
                f"seat {(leader + p) % seats} plays here (the leader is {leader})",
            )
        if not play.cards or len(play.cards) != size:
            raise InvalidArgumentError(
                f"{path}.plays[{p}].cards", Problem.BAD_SIZE, f"every play of this trick holds {size} cards"
            )
    check_int(f"{path}.winner", trick.winner, high=seats - 1)


def _count_cards(counts: list[int], decks: int, cards: Sequence[int], path: str) -> None:
    """Add one play's cards to the hand's count; a face past the decks' copies is refused."""
    for i, face in enumerate(cards):
        check_int(f"{path}[{i}]", face, high=NUM_FACES - 1)
        counts[face] += 1
        if counts[face] > decks:
            raise InvalidArgumentError(
                f"{path}[{i}]", Problem.TOO_MANY_COPIES, f"{decks} decks hold {decks} {format_card(face)}"
            )


def final_score(final: SidesAfter, tricks: Sequence[Trick], dig_points: int) -> int:
    """R15.8, R15.9: the attackers' points by the final sides, plus the dig when the last trick's winner
    ends on the attacking side."""
    check_int("dig_points", dig_points, high=MAX_DIG_POINTS)
    if dig_points % 5:
        raise InvalidArgumentError("dig_points", Problem.OUT_OF_RANGE, "the dig adds a multiple of 5 points")
    dug = bool(tricks) and tricks[-1].winner not in final.dealer_side
    return final.attackers_points + (dig_points if dug else 0)


def settle_table(
    rules: Rules,
    ctx: TrumpContext,
    *,
    dealer: int,
    levels: Sequence[int],
    calls: Sequence[FriendCall],
    tricks: Sequence[Trick],
    dig_points: int = 0,
    failed_throws: Sequence[FailedThrow] = (),
) -> TableSettlement:
    """R15.8–R15.13: settle a whole hand: each seat's side, the score, and each seat's level change.

    ``levels`` are the seats' levels before the hand (``levels[dealer]`` is the hand's L, ``ctx.level``);
    ``dig_points`` is the bottom's points times the dig multiplier (R8.3–R8.5), counted only when the
    attackers win the last trick; ``failed_throws`` are the hand's failed throws (R16.2), read by the
    throwers' final sides. The jack rule (R16.4) is read off the last trick. Under fixed partners the
    calls are empty.
    """
    _check_levels(rules.seats, dealer, levels, ctx)
    if not tricks:
        raise InvalidArgumentError("tricks", Problem.MISSING, "a hand to settle has its tricks")
    final = replay_sides(rules, ctx, dealer, calls, tricks)[-1]
    side = final.dealer_side
    penalty = throw_penalty(rules, side, failed_throws)
    hand = _Hand(
        dealer=dealer,
        side=side,
        score=final_score(final, tricks, dig_points) + penalty,
        small=len(side) < 1 + len(calls),
        penalty=penalty,
        reset=back_to_two(rules, side, ctx.level, _won_with(tricks[-1])),
    )
    return _settle(rules, deck_table(rules.level_table, rules.decks), levels, hand)


def _won_with(last: Trick) -> tuple[int, tuple[int, ...]]:
    """The last trick's winner and the cards he won with (R16.4 reads them)."""
    return last.winner, next(play.cards for play in last.plays if play.seat == last.winner)


@dataclass(frozen=True, slots=True)
class _Hand:
    """What the settlement needs of the hand's record: the final sides and the score."""

    dealer: int
    side: frozenset[int]
    score: int
    small: bool
    penalty: int
    reset: bool


def _check_levels(seats: int, dealer: int, levels: Sequence[int], ctx: TrumpContext) -> None:
    """One level 2..A per seat; the hand is played at the dealer's (R15.11)."""
    check_int("dealer", dealer, high=seats - 1)
    if len(levels) != seats:
        raise InvalidArgumentError("levels", Problem.BAD_SIZE, f"one level for each of the {seats} seats")
    for seat, level in enumerate(levels):
        check_int(f"levels[{seat}]", level, low=2, high=ACE)
    if levels[dealer] != ctx.level:
        raise InvalidArgumentError(
            f"levels[{dealer}]", Problem.INCONSISTENT, "the hand is played at the dealer's level"
        )


def _settle(rules: Rules, table: LevelTable, levels: Sequence[int], hand: _Hand) -> TableSettlement:
    """R15.10–R15.13 from the final sides and score."""
    dealer_won = hand.score < table.take_over
    g = penalised_gain(hand.score, table)
    bonus = dealer_won and hand.small and rules.small_team_bonus
    results = tuple(
        _seat_result(
            rules,
            level,
            seat in hand.side,
            dealer_won=dealer_won,
            gain=g + (1 if bonus else 0),
            reset=hand.reset,
        )
        for seat, level in enumerate(levels)
    )
    seats = rules.seats
    following = ((hand.dealer + offset) % seats for offset in range(1, seats + 1))
    next_dealer = next(seat for seat in following if (seat in hand.side) == dealer_won)
    return TableSettlement(
        score=hand.score,
        winner_side=Side.DEALER_TEAM if dealer_won else Side.ATTACKERS,
        g=g,
        small_team=hand.small,
        bonus=bonus,
        seats=results,
        dealer_side=hand.side,
        next_dealer=next_dealer,
        next_level=results[next_dealer].level_after,
        game_over=any(result.level_after is None for result in results),
        throw_penalty=hand.penalty,
        back_to_two=hand.reset,
    )


def _seat_result(
    rules: Rules, level: int, on_side: bool, *, dealer_won: bool, gain: int, reset: bool
) -> SeatResult:
    """R15.11: one seat's new level: the winners gain from their own level (2 for the dealer's side after the
    jack rule) under the must-play caps, the losers keep theirs."""
    start = 2 if reset and on_side else level
    earned = gain if on_side == dealer_won else 0
    after = capped_level(must_play=must_play_levels(rules), level=start, gain=earned, was_dealer=dealer_won)
    return SeatResult(
        side=Side.DEALER_TEAM if on_side else Side.ATTACKERS,
        level_before=level,
        gain=earned,
        level_after=None if after > ACE else after,
        gained=after - start,
    )
