"""Seeded self-play: whole hands played by the engine itself, for demos, tests, benchmarks and load corpora.

Every choice comes from the engine's own listings (``legal_plays``) and verdicts, so a record made here
is legal by construction, and the same seed always gives the same hand. Seats play uniformly random
legal plays unless a :data:`Chooser` is given for them (:func:`strong_seat`: the strong auto-play, so
the hand has the throws, ruffs and point fights of real games); every chosen play is checked.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from rules_core.audit import HandRecord, TrickRecord
from rules_core.bidding import Declaration, resolve_declarations
from rules_core.cards import (
    BOTTOM_SIZE,
    NUM_FACES,
    PLAYERS,
    Hand,
    Suit,
    add,
    deal_sizes,
    hand_of,
    remove,
)
from rules_core.follow import follow_verdict
from rules_core.friends import CallState, FriendCall, Play, SidesAfter, Trick, final_score, replay_sides
from rules_core.legal_plays import legal_plays
from rules_core.rules import DEFAULT_RULES, Partners, Rules
from rules_core.shapes import Decomposition, decompose
from rules_core.strategy import DEFAULT_BUDGET, SeatView, strong_play
from rules_core.throw import check_lead
from rules_core.trick import resolve_trick, standing_of
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Illegal


@dataclass(frozen=True, slots=True)
class Style:
    """How the seats play: how often a leader tries a throw, and how often a declaration is overturned."""

    throw_rate: float = 0.15
    overturn_rate: float = 0.3


Chooser = Callable[[TrumpContext, Rules, SeatView], tuple[int, ...]]
"""A seat's play for what it knows: a lead when ``view.plays`` is empty, else a follow of
``view.plays[0]``. It must be legal (self-play asserts it)."""


def strong_seat(seed: int, budget: int = DEFAULT_BUDGET) -> Chooser:
    """The strong policy (rules_core.strategy) as a seat, seeded for the hand: deterministic."""

    def choose(ctx: TrumpContext, rules: Rules, view: SeatView) -> tuple[int, ...]:
        return strong_play(ctx, rules, view, seed=seed, budget=budget)

    return choose


def deal(
    rng: random.Random, decks: int = 2, seats: int = PLAYERS
) -> tuple[tuple[Hand, ...], tuple[int, ...]]:
    """Shuffle D decks into N equal hands and the bottom (R1.6: four 25-card hands and 8 cards; R14.2)."""
    size = deal_sizes(decks, seats)[0]
    deck = [face for face in range(NUM_FACES) for _ in range(decks)]
    rng.shuffle(deck)
    hands = tuple(hand_of(deck[i * size : (i + 1) * size], decks) for i in range(seats))
    return hands, tuple(sorted(deck[seats * size :]))


def declare(rng: random.Random, hands: tuple[Hand, ...], level: int, style: Style) -> tuple[Declaration, ...]:
    """A plausible bidding: one seat shows a level card, and perhaps another overturns with a pair (R10)."""
    acts: list[Declaration] = []
    singles = [(seat, suit) for seat in range(PLAYERS) for suit in Suit if hands[seat][suit * 13 + level - 2]]
    if not singles:
        return ()
    seat, suit = rng.choice(singles)
    acts.append(Declaration(seat, (suit * 13 + level - 2,)))
    pairs = [
        (other, s)
        for other in range(PLAYERS)
        for s in Suit
        if other != seat and s != suit and hands[other][s * 13 + level - 2] == 2
    ]
    if pairs and rng.random() < style.overturn_rate:
        other, s = rng.choice(pairs)
        acts.append(Declaration(other, (s * 13 + level - 2,) * 2))
    return tuple(acts)


def play_hand(
    *,
    seed: int,
    rules: Rules = DEFAULT_RULES,
    level: int = 2,
    attacker_level: int = 2,
    dealer: int | None = None,
    style: Style = Style(),
    choosers: Mapping[int, Chooser] | None = None,
) -> HandRecord:
    """Deal, bid, bury and play one whole hand with seeded random legal choices.

    ``dealer`` None makes it a first hand, whose dealer the bidding decides (R10.6, R10.8). ``choosers``
    plays the seats it names (seat → chooser) with what each seat knows; the others play at random, from
    the same random stream as without choosers.
    """
    rng = random.Random(seed)
    hands, bottom = deal(rng)
    declarations = declare(rng, hands, level, style)
    bidding = resolve_declarations(
        rules=rules, level=level, sequence=declarations, first_hand=dealer is None, dealer=dealer
    )
    assert bidding.dealer is not None
    seat = bidding.dealer
    ctx = trump_context(level, bidding.contract)
    big = add(hands[seat], bottom)
    buried = _bury(ctx, rng, big)
    live = list(hands)
    live[seat] = remove(big, buried)
    chosen = choosers or {}
    anyone = random_seat(ctx, rng, style)
    seats = [_seated(ctx, rules, chosen[s]) if s in chosen else anyone for s in range(PLAYERS)]
    tricks = play_out(ctx, rules, live, dealer=seat, buried=buried, seats=seats).tricks
    return HandRecord(
        level=level,
        attacker_level=attacker_level,
        deal=hands,
        bottom=bottom,
        declarations=declarations,
        buried=buried,
        tricks=tricks,
        first_hand=dealer is None,
        dealer=dealer,
    )


def _seated(ctx: TrumpContext, rules: Rules, chooser: Chooser) -> Seat:
    return lambda view: chooser(ctx, rules, view)


def _bury(ctx: TrumpContext, rng: random.Random, hand: Hand) -> tuple[int, ...]:
    """Bury 8 cards, mostly weak plain cards, as a dealer would (R11)."""
    plain = [face for face in range(NUM_FACES) if not ctx.is_trump(face) for _ in range(hand[face])]
    pool = plain if len(plain) >= BOTTOM_SIZE else [f for f in range(NUM_FACES) for _ in range(hand[f])]
    pool.sort(key=lambda face: ctx.strength[face] + rng.random() * 4)
    return tuple(sorted(pool[:BOTTOM_SIZE]))


class IllegalPlayError(Exception):
    """A seat made a play the engine rejects (R4, R5): the table refuses it and the hand stops."""


Seat = Callable[[SeatView], Sequence[int]]
"""A seat at the table: its play for what it knows (a lead when ``view.plays`` is empty)."""


@dataclass(frozen=True, slots=True)
class Played:
    """A hand played out: its tricks as recorded, and the attackers' final score (dig included, R8)."""

    tricks: tuple[TrickRecord, ...]
    score: int
    attackers: frozenset[int] = frozenset()
    """The final attackers: every other seat from the dealer, or under finding friends every seat off
    the dealer's final side (R15.8)."""


def side_view(
    rules: Rules,
    calls: Sequence[FriendCall],
    after: SidesAfter | None,
    *,
    dealer: int,
    seat: int,
    hand: Hand,
) -> tuple[frozenset[int], int | None, bool]:
    """What a seat knows of the sides under finding friends (R15.5-R15.8), as ``SeatView`` carries it:
    the friends who joined (public, ``after`` the last trick), the friends still to come, and its own
    side: on the dealer's side when it holds every copy a call still needs, a known attacker when it
    holds no copy of any open call. Under fixed partners nothing (every other seat is a partner)."""
    if rules.partners is Partners.FIXED:
        return frozenset(), None, False
    side = after.dealer_side if after is not None else frozenset({dealer})
    states = after.calls if after is not None else tuple(CallState(c, 0) for c in calls)
    open_calls = [state for state in states if state.met_by is None]
    allies = side - {dealer}
    if seat in side:
        return allies, len(open_calls), True
    if any(hand[st.call.face] >= st.call.copy - st.played for st in open_calls):
        return allies | {seat}, len(open_calls) - 1, True
    if not any(hand[st.call.face] for st in open_calls):
        return allies, len(open_calls), True
    return allies, len(open_calls), False


def play_out(
    ctx: TrumpContext,
    rules: Rules,
    hands: Sequence[Hand],
    *,
    dealer: int,
    buried: tuple[int, ...],
    seats: Sequence[Seat],
    names: Sequence[str] = (),
    calls: Sequence[FriendCall] = (),
) -> Played:
    """The one game loop, on every table (R14, R15): the dealer leads (R4.1), ``seats[s]`` plays seat s
    with what it knows, every play is checked (a failed throw leads its forced component, R4.7), the
    winner leads next (R7.4). Under finding friends the dealer's ``calls`` decide the sides trick by trick
    (R15.5-R15.8) and the final sides the score (R15.9).

    A seat's view carries the sides as far as they are public (:func:`side_view`).

    Raises IllegalPlayError, naming the seat by ``names`` (default "seat s"), when a seat breaks a rule.
    """
    n = rules.seats
    label = tuple(names) or tuple(f"seat {s}" for s in range(n))
    live = list(hands)
    history: list[tuple[int, tuple[tuple[int, ...], ...]]] = []
    tricks: list[TrickRecord] = []
    record: list[Trick] = []  # R15.15: the tricks as the sides are replayed from them
    friends = rules.partners is Partners.FRIENDS
    leader, score = dealer, 0
    sides: SidesAfter | None = None
    while sum(live[leader]):
        plays: list[tuple[int, ...]] = []
        attempted: tuple[int, ...] = ()
        for offset in range(n):
            seat = (leader + offset) % n
            allies, unfound, settled = side_view(
                rules, calls, sides, dealer=dealer, seat=seat, hand=live[seat]
            )
            view = SeatView(
                seat=seat,
                hand=live[seat],
                leader=leader,
                plays=tuple(plays),
                dealer=dealer,
                tricks=tuple(history),
                attacker_points=score,
                bottom=buried if seat == dealer else (),
                allies=allies,
                unfound=unfound,
                settled=settled,
            )
            play = tuple(seats[seat](view))
            if offset == 0:
                play, attempted, led = _laid_lead(ctx, rules, live, seat, play, label[seat])
            else:
                verdict = follow_verdict(
                    ctx, rules, hand=live[seat], led=led, play=play, shape=decompose(ctx, play)
                )
                if isinstance(verdict, Illegal):
                    raise IllegalPlayError(f"{label[seat]} followed illegally: {verdict.message}")
            plays.append(play)
        for offset, play in enumerate(plays):
            live[(leader + offset) % n] = remove(live[(leader + offset) % n], play)
        last = not any(sum(h) for h in live)
        attackers: frozenset[int] | None = None  # fixed partners: every other seat from the dealer
        if friends:  # R15.8: who attacks after this trick, its own copies of the calls included
            winner = (leader + standing_of(ctx, rules, plays).best) % n
            record.append(Trick(tuple(Play((leader + i) % n, p) for i, p in enumerate(plays)), winner))
            sides = replay_sides(rules, ctx, dealer, calls, record)[-1]
            attackers = frozenset(range(n)) - sides.dealer_side
        result = resolve_trick(
            ctx,
            rules,
            leader=leader,
            plays=plays,
            dealer=dealer,
            last=last,
            bottom=buried,
            attackers=attackers,
        )
        if sides is not None:  # R15.9: the final sides score every trick, the dig with the last
            score = final_score(sides, record, result.dig.added if result.dig else 0)
        else:
            score += result.attacker_points
        tricks.append(TrickRecord(tuple(plays), attempted))
        history.append((leader, tuple(plays)))
        leader = result.winner
    if sides is not None:
        final = frozenset(range(n)) - sides.dealer_side
    else:
        final = frozenset(s for s in range(n) if (s - dealer) % 2 == 1)
    return Played(tuple(tricks), score, final)


def _laid_lead(  # noqa: PLR0917 (one private step of play_out)
    ctx: TrumpContext, rules: Rules, live: Sequence[Hand], seat: int, play: tuple[int, ...], label: str
) -> tuple[tuple[int, ...], tuple[int, ...], Decomposition]:
    """A lead checked against the other hands (R4, R14.5) as the table lays it out: the cards led, the
    throw attempted when it failed (R4.7: only the forced component is led) or (), and its shape."""
    others = {s: live[s] for s in range(len(live)) if s != seat}
    verdict = check_lead(ctx, rules, hand=live[seat], lead=play, others=others)
    if isinstance(verdict, Illegal):
        raise IllegalPlayError(f"{label} led illegally: {verdict.message}")
    if verdict.throw is None:
        return play, (), verdict.play
    led = tuple(verdict.throw.led)
    return led, () if verdict.throw.succeeded else play, decompose(ctx, led)


def random_seat(ctx: TrumpContext, rng: random.Random, style: Style, decks: int = 2) -> Seat:
    """A seat that plays uniformly random legal plays from ``rng`` on a table of ``decks`` decks (a leader
    tries a throw at ``style.throw_rate``)."""

    def choose(view: SeatView) -> tuple[int, ...]:
        if view.plays:
            return rng.choice(
                legal_plays(ctx, hand=view.hand, lead=view.plays[0], limit=40, decks=decks).plays
            )
        leads = legal_plays(ctx, hand=view.hand, limit=200, decks=decks).plays
        throws = [lead for lead in leads if len(lead) > 2 and len(set(lead)) > 1]
        simple = [lead for lead in leads if lead not in throws]
        pool = throws if throws and rng.random() < style.throw_rate else simple or leads
        return rng.choice(pool)

    return choose
