"""The corpus of another table (R14, R15): three decks, six seats, finding friends, from seeded deals.

Each script is one hand as a frontend of that table sends it: the dealer's bury (ValidateBury), then for
each trick the lead (throws included) and the five follows (ValidatePlay, a few follows first tried
illegally) and
ResolveTrick with the friend calls and the tricks before it, and at the end SettleHand with every seat's
level. The cards are dealt by R14's sizes (``rules_core.cards.deal_sizes``: hands of 26, a bottom of 6),
the dealer calls ``call_count`` friends that ``rules_core.friends.check_calls`` accepts, and every
expected answer is ``rules_core``'s (``turn``, ``trick``, ``friends``), never the service's.

The players draw their plays from ``rules_core.legal_plays.legal_plays`` (the listing for other
tables): a lead is one component (a single, a tuple or a tractor, R4.2) or now and then a throw of a
whole category (a failed one leads its forced part, R4.7, and is recorded with its attempt and counted
in SettleHand's failed throws), a follow any listed one, and a seat void in a plain lead ruffs with its
widest trump tuples when ``rules_core.follow.check_follow`` takes them. The same seed always gives the
same bytes.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from loadtest.expect import play_expect, trick_expect
from loadtest.replay import Call, Script
from rules_core.cards import NUM_FACES, POINTS, Suit, deal_sizes, hand_of
from rules_core.follow import check_follow
from rules_core.friends import CallState, FriendCall, call_count, check_calls
from rules_core.kitty import validate_bury
from rules_core.legal_plays import legal_plays
from rules_core.rules import PRESETS, Partners
from rules_core.selfplay import Seat, play_out
from rules_core.settlement import FailedThrow
from rules_core.shapes import decompose
from rules_core.strategy import SeatView
from rules_core.taodou import settle_table_hand
from rules_core.trick import RecordedTrick, judge_trick
from rules_core.trump import TRUMP, TrumpContext, trump_context
from rules_core.turn import validate_play
from rules_core.verdicts import Illegal, Legal
from services.convert import cards_out
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

KIND: Final = "friends"
DECKS: Final = 3
SEATS: Final = 6
SEED_BASE: Final = 6_000_000
ILLEGAL_FOLLOW_RATE: Final = 0.04
"""Share of follows a player first tries with cards of another category while holding the led one."""
RUFF_RATE: Final = 0.6
"""Share of void follows that ruff with trumps when the seat holds enough of them."""
LEAD_CHOICES: Final = 200
"""Leads listed per position (a 26-card hand has fewer one-component leads)."""
THROW_RATE: Final = 0.15
"""Share of leads that throw a whole category's holding when the hand has one to throw."""
MAX_THROW: Final = 25
"""The longest throw scripted: R16.2 counts a failed one's cards, 2..25 (SettleHand.failed_throws)."""
FOLLOW_CHOICES: Final = 24
"""Follows listed per position, one drawn."""
CONTRACTS: Final = {
    Suit.S: t.CONTRACT_SPADES,
    Suit.H: t.CONTRACT_HEARTS,
    Suit.C: t.CONTRACT_CLUBS,
    Suit.D: t.CONTRACT_DIAMONDS,
    None: t.CONTRACT_NO_TRUMP,
}

WIRE_RULESET: Final = t.Ruleset(preset="default", decks=DECKS, seats=SEATS, partners=t.PARTNERS_FRIENDS)
RULES: Final = replace(PRESETS["default"], decks=DECKS, seats=SEATS, partners=Partners.FRIENDS)
"""The table's rules as the service must read ``WIRE_RULESET`` (R14.1, R15.1)."""


def _seated(plays: Sequence[tuple[int, Sequence[int]]]) -> list[t.SeatCards]:
    return [t.SeatCards(seat=seat, cards=cards_out(cards)) for seat, cards in plays]


def _bytes(message: Any) -> bytes:
    data: bytes = message.SerializeToString(deterministic=True)
    return data


def _calls_out(calls: Sequence[FriendCall]) -> list[t.FriendCall]:
    return [t.FriendCall(card=cards_out([call.face])[0], copy=call.copy) for call in calls]


def _states(states: Sequence[CallState], prefix: str) -> dict[str, Any]:
    """What the calls' states must say (R15.5, R15.6): who met each, and whether it joined."""
    expect: dict[str, Any] = {}
    for i, state in enumerate(states):
        expect[f"{prefix}.{i}.played"] = state.played
        expect[f"{prefix}.{i}.joined"] = state.joined
        if state.met_by is not None:
            expect[f"{prefix}.{i}.met_by"] = state.met_by
    return expect


@dataclass(slots=True)
class _Hand:
    """One hand in play: the seats' cards, the record so far and the calls the script made."""

    rng: random.Random
    ctx: TrumpContext
    contract: t.Contract.ValueType
    dealer: int
    levels: tuple[int, ...]
    hands: list[list[int]]
    bottom: list[int]
    friend_calls: tuple[FriendCall, ...] = ()
    record: list[RecordedTrick] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)
    dig: int = 0
    failed: list[FailedThrow] = field(default_factory=list)
    """The hand's failed throws (R16.2), for SettleHand."""
    attempts: dict[int, list[int]] = field(default_factory=dict)
    """A failed throw's whole attempt by trick index: the record's ``attempted_lead`` (R4.7)."""
    """The last trick's dig (bottom points times the multiplier, R8.3-R8.5): SettleHand's ``dig_points``."""

    def wire(self) -> dict[str, Any]:
        """The fields every play request of this hand shares."""
        return {"ruleset": WIRE_RULESET, "level": t.Rank.ValueType(self.ctx.level), "contract": self.contract}


def deal(seed: int) -> _Hand:
    """Shuffle three decks, deal six hands and the bottom (R14.2), draw the dealer, the seats' levels
    (the dealer's is the hand's, R15.11) and the contract."""
    rng = random.Random(seed)
    size, _ = deal_sizes(DECKS, SEATS)
    deck = [face for face in range(NUM_FACES) for _ in range(DECKS)]
    rng.shuffle(deck)
    hands = [sorted(deck[i * size : (i + 1) * size]) for i in range(SEATS)]
    dealer = rng.randrange(SEATS)
    levels = tuple(rng.randint(2, 14) for _ in range(SEATS))
    suit = rng.choice([*Suit, None])
    ctx = trump_context(levels[dealer], suit)
    return _Hand(rng, ctx, CONTRACTS[suit], dealer, levels, hands, sorted(deck[SEATS * size :]))


def bury(hand: _Hand) -> None:
    """The dealer takes the bottom and buries as many cards (R14.2): its weakest plain cards, points last;
    ValidateBury scripted with validate_bury's verdict."""
    held = sorted(hand.hands[hand.dealer] + hand.bottom)
    count = len(hand.bottom)
    ranked = sorted(held, key=lambda f: (hand.ctx.is_trump(f), POINTS[f] > 0, hand.ctx.strength[f], f))
    buried = ranked[:count]
    verdict = validate_bury(RULES, hand=held, bury=buried)
    assert verdict.legal, verdict.message
    request = pb.ValidateBuryRequest(ruleset=WIRE_RULESET, hand=cards_out(held), bury=cards_out(buried))
    expect = {"legal": True, "bottom_points": verdict.bottom_points}
    hand.calls.append(Call("ValidateBury", _bytes(request), expect))
    left = Counter(held) - Counter(buried)
    hand.hands[hand.dealer] = sorted(left.elements())
    hand.bottom = sorted(buried)


def call_friends(hand: _Hand) -> None:
    """The dealer's calls (R15.3): plain aces and kings it does not hold every copy of, the copy drawn,
    kept only when ``check_calls`` accepts the set."""
    wanted = call_count(RULES)
    candidates = [f for f in range(NUM_FACES) if not hand.ctx.is_trump(f) and f % 13 in (11, 12)]
    hand.rng.shuffle(candidates)
    for tried in itertools.combinations(candidates, wanted):
        calls = tuple(FriendCall(face, hand.rng.randint(1, DECKS)) for face in tried)
        try:
            check_calls(RULES, hand.ctx, calls)
        except ValueError:
            continue
        hand.friend_calls = calls
        return
    raise AssertionError("no friend call fits the table")


def lead(hand: _Hand, seat: int) -> list[int]:
    """A lead drawn from ``legal_plays``' leads: at :data:`THROW_RATE` one of its whole-category
    throws (R4.4, R14.5) of at most :data:`MAX_THROW` cards, else a one-component lead (R4.2, R14.4: a
    single, a tuple or a tractor), its size drawn first."""
    listing = legal_plays(hand.ctx, hand=hand_of(hand.hands[seat], DECKS), limit=LEAD_CHOICES, decks=DECKS)
    throws = [list(play) for play in listing.plays if _components(hand, play) > 1 and len(play) <= MAX_THROW]
    if throws and hand.rng.random() < THROW_RATE:
        return hand.rng.choice(throws)
    leads = [list(play) for play in listing.plays if _components(hand, play) == 1]
    size = hand.rng.choice(sorted({len(play) for play in leads}))  # wide leads as often as singles
    return hand.rng.choice([play for play in leads if len(play) == size])


def _components(hand: _Hand, play: Sequence[int]) -> int:
    shape = decompose(hand.ctx, play) if play else None
    return 0 if shape is None else len(shape.components)


def follow(hand: _Hand, seat: int, led: Sequence[int]) -> list[int]:
    """A follow drawn from ``legal_plays`` (R5, R14.6); a seat void in the led plain suit ruffs with
    its widest trump tuples when ``check_follow`` takes them (R6) at :data:`RUFF_RATE`."""
    held = hand.hands[seat]
    category = hand.ctx.category[led[0]]
    trumps = [f for f in held if hand.ctx.category[f] == TRUMP]
    void = all(hand.ctx.category[f] != category for f in held)
    if void and category != TRUMP and len(trumps) >= len(led) and hand.rng.random() < RUFF_RATE:
        ruff = sorted(trumps, key=lambda f: (-trumps.count(f), f))[: len(led)]
        if isinstance(
            check_follow(hand.ctx, hand=hand_of(held, DECKS), lead=led, play=ruff, decks=DECKS), Legal
        ):
            return ruff
    listing = legal_plays(hand.ctx, hand=hand_of(held, DECKS), lead=led, limit=FOLLOW_CHOICES, decks=DECKS)
    return list(hand.rng.choice(listing.plays))


def _illegal_attempt(hand: _Hand, seat: int, led: Sequence[int]) -> list[int] | None:
    """Cards of another category while the led one is held: what a careless player tries first."""
    held = hand.hands[seat]
    category = hand.ctx.category[led[0]]
    outside = [f for f in held if hand.ctx.category[f] != category]
    if len(outside) < len(led) or len(outside) == len(held):
        return None
    return outside[: len(led)]


def validate(
    hand: _Hand, seat: int, plays: Sequence[tuple[int, list[int]]], cards: Sequence[int]
) -> tuple[Call, Legal | Illegal]:
    """ValidatePlay with ``validate_play``'s verdict; a lead carries every other hand (R14.5)."""
    others = [] if plays else [(s, hand.hands[s]) for s in range(SEATS) if s != seat]
    request = pb.ValidatePlayRequest(
        **hand.wire(),
        seat=seat,
        hand=cards_out(hand.hands[seat]),
        cards=cards_out(cards),
        other_hands=_seated(others),
    )
    if plays:
        request.trick.CopyFrom(pb.Trick(leader=plays[0][0], plays=_seated(plays)))
    verdict = validate_play(
        hand.ctx,
        RULES,
        seat=seat,
        hand=hand.hands[seat],
        trick_leader=plays[0][0] if plays else None,
        trick_plays=[(s, tuple(c)) for s, c in plays],
        cards=cards,
        others=[(s, tuple(c)) for s, c in others] or None,
    ).verdict
    return Call("ValidatePlay", _bytes(request), play_expect(verdict)), verdict


def _seat(hand: _Hand, seat: int) -> Seat:
    """The corpus's player at ``seat`` for :func:`rules_core.selfplay.play_out`: it scripts its ValidatePlay
    calls (some follows tried illegally first) and, leading a new trick, the last trick's ResolveTrick."""

    def choose(view: SeatView) -> tuple[int, ...]:
        if not view.plays:
            _finish(hand, view.tricks)
        plays = [((view.leader + i) % SEATS, list(cards)) for i, cards in enumerate(view.plays)]
        if plays and hand.rng.random() < ILLEGAL_FOLLOW_RATE:
            attempt = _illegal_attempt(hand, seat, plays[0][1])
            if attempt is not None:
                call, _ = validate(hand, seat, plays, attempt)
                assert call.expect["legal"] is False
                hand.calls.append(call)
        cards = follow(hand, seat, plays[0][1]) if plays else lead(hand, seat)
        call, verdict = validate(hand, seat, plays, cards)
        assert isinstance(verdict, Legal), call.expect
        hand.calls.append(call)
        if verdict.throw is not None and not verdict.throw.succeeded:  # R4.7: play_out leads the forced part
            hand.failed.append(FailedThrow(seat, len(cards)))
            hand.attempts[len(view.tricks)] = cards
        return tuple(cards)

    return choose


def _finish(hand: _Hand, tricks: Sequence[tuple[int, Sequence[Sequence[int]]]]) -> None:
    """Every trick play_out has finished but the record has not: its plays leave the hands, ResolveTrick."""
    for leader, cards in tricks[len(hand.record) :]:
        plays = [((leader + i) % SEATS, list(play)) for i, play in enumerate(cards)]
        for seat, play in plays:
            hand.hands[seat] = sorted((Counter(hand.hands[seat]) - Counter(play)).elements())
        resolve(hand, leader, plays)


def resolve(hand: _Hand, leader: int, plays: Sequence[tuple[int, list[int]]]) -> int:
    """ResolveTrick with the calls and the tricks before it (R15.15); the answer is
    ``judge_trick``'s: the winner, the points, the dig on the last trick, the sides after it."""
    last = not hand.hands[leader]
    bottom = hand.bottom if last else []
    seated = tuple((s, tuple(c)) for s, c in plays)
    judged = judge_trick(
        hand.ctx,
        RULES,
        leader=leader,
        plays=seated,
        dealer=hand.dealer,
        last=last,
        bottom=bottom,
        hands=(),
        calls=hand.friend_calls,
        before=hand.record,
    )
    assert judged.result is not None and judged.sides is not None, judged.problem
    request = pb.ResolveTrickRequest(
        **hand.wire(),
        leader=leader,
        plays=_seated(plays),
        last_trick=last,
        bottom=cards_out(bottom),
        dealer=hand.dealer,
        friend_calls=_calls_out(hand.friend_calls),
        tricks_before=_recorded(hand),
    )
    expect = trick_expect(judged.result) | {"dealer_side": sorted(judged.sides.dealer_side)}
    expect |= _states(judged.sides.calls, "calls")
    hand.calls.append(Call("ResolveTrick", _bytes(request), expect))
    hand.record.append((seated, judged.result.winner))
    if last and judged.result.dig is not None:
        hand.dig = judged.result.dig.added
    return judged.result.winner


def _recorded(hand: _Hand) -> list[pb.RecordedTrick]:
    """The record so far on the wire: each trick's plays and winner, a failed throw's attempt."""
    return [
        pb.RecordedTrick(
            plays=_seated(plays), winner=winner, attempted_lead=cards_out(hand.attempts.get(i, []))
        )
        for i, (plays, winner) in enumerate(hand.record)
    ]


def settle(hand: _Hand, dig_points: int) -> None:
    """SettleHand from the whole record and every seat's level (R15.8-R15.13), ``settle_table_hand``'s
    answer: the sides, the score, the levels."""
    settled, states = settle_table_hand(
        RULES,
        hand.ctx,
        dealer=hand.dealer,
        levels=hand.levels,
        calls=hand.friend_calls,
        tricks=hand.record,
        dig_points=dig_points,
        failed_throws=hand.failed,
    )
    request = pb.SettleHandRequest(
        ruleset=WIRE_RULESET,
        dealer=hand.dealer,
        contract=hand.contract,
        seat_levels=[t.Rank.ValueType(level) for level in hand.levels],
        friend_calls=_calls_out(hand.friend_calls),
        tricks=_recorded(hand),
        dig_points=dig_points,
        failed_throws=[pb.FailedThrow(seat=throw.seat, cards=throw.cards) for throw in hand.failed],
    )
    expect: dict[str, Any] = {
        "throw_penalty": settled.throw_penalty,
        "winner": int(t.Side.Value("SIDE_" + settled.winner_side.name)),
        "levels_gained": settled.g,
        "table_score": settled.score,
        "next_dealer": settled.next_dealer,
        "next_level": settled.next_level or 0,
        "game_over": settled.game_over,
        "dealer_side": sorted(settled.dealer_side),
        "small_team": settled.small_team,
        "small_team_bonus": settled.bonus,
    }
    for seat, result in enumerate(settled.seats):
        expect[f"seats.{seat}.level_after"] = result.level_after or 0
        expect[f"seats.{seat}.gained"] = result.gained
    expect |= _states(states, "calls")
    hand.calls.append(Call("SettleHand", _bytes(request), expect))


def hand_script(seed: int) -> Script:
    """One seeded hand of the table, every call with the rules' answer."""
    hand = deal(seed)
    bury(hand)
    call_friends(hand)
    seats = [_seat(hand, seat) for seat in range(SEATS)]
    held = [hand_of(cards, DECKS) for cards in hand.hands]
    played = play_out(  # R15.15: the dealer leads the first trick; the one game loop plays the rest
        hand.ctx,
        RULES,
        held,
        dealer=hand.dealer,
        buried=tuple(hand.bottom),
        seats=seats,
        calls=hand.friend_calls,
    )
    leaders = [hand.dealer, *(winner for _, winner in hand.record if winner is not None)]
    _finish(hand, [(leader, trick.plays) for leader, trick in zip(leaders, played.tricks, strict=True)])
    settle(hand, hand.dig)
    return Script(f"{KIND}/seed-{seed}", tuple(hand.calls))


def table_scripts(hands: int) -> list[Script]:
    """``hands`` hands of the three-deck, six-seat finding-friends table."""
    return [hand_script(SEED_BASE + i) for i in range(hands)]
