"""Seeded self-play: whole hands played by the engine itself, for demos, tests, benchmarks and load corpora.

Every choice comes from the engine's own listings (``legal_plays``) and verdicts, so a record made here
is legal by construction, and the same seed always gives the same hand. Seats play uniformly random
legal plays unless a :data:`Chooser` is given for them (:func:`strong_seat`: the strong auto-play, so
the hand has the throws, ruffs and point fights of real games); every chosen play is checked.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from rules_core.audit import HandRecord, TrickRecord
from rules_core.bidding import Declaration, resolve_declarations
from rules_core.cards import (
    BOTTOM_SIZE,
    FULL_DECK,
    HAND_SIZE,
    NUM_FACES,
    PLAYERS,
    Hand,
    Suit,
    add,
    hand_of,
    remove,
)
from rules_core.follow import check_follow
from rules_core.legal_plays import legal_plays
from rules_core.rules import DEFAULT_RULES, Rules
from rules_core.strategy import DEFAULT_BUDGET, SeatView, strong_play
from rules_core.throw import check_lead
from rules_core.trick import resolve_trick
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Legal


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


def deal(rng: random.Random) -> tuple[tuple[Hand, ...], tuple[int, ...]]:
    """Shuffle two decks into four 25-card hands and an 8-card bottom (R1.6)."""
    deck = [face for face in range(NUM_FACES) for _ in range(FULL_DECK[face])]
    rng.shuffle(deck)
    hands = tuple(hand_of(deck[i * HAND_SIZE : (i + 1) * HAND_SIZE]) for i in range(PLAYERS))
    return hands, tuple(sorted(deck[PLAYERS * HAND_SIZE :]))


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
    tricks = _play(ctx, rules, rng, live, leader=seat, style=style, choosers=choosers or {}, buried=buried)
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


def _bury(ctx: TrumpContext, rng: random.Random, hand: Hand) -> tuple[int, ...]:
    """Bury 8 cards, mostly weak plain cards, as a dealer would (R11)."""
    plain = [face for face in range(NUM_FACES) if not ctx.is_trump(face) for _ in range(hand[face])]
    pool = plain if len(plain) >= BOTTOM_SIZE else [f for f in range(NUM_FACES) for _ in range(hand[f])]
    pool.sort(key=lambda face: ctx.strength[face] + rng.random() * 4)
    return tuple(sorted(pool[:BOTTOM_SIZE]))


def _play(
    ctx: TrumpContext,
    rules: Rules,
    rng: random.Random,
    hands: list[Hand],
    *,
    leader: int,
    style: Style,
    choosers: Mapping[int, Chooser],
    buried: tuple[int, ...],
) -> tuple[TrickRecord, ...]:
    """Play tricks until the hands are empty, each seat choosing among its legal plays (or its chooser)."""
    dealer, points = leader, 0
    history: list[tuple[int, tuple[tuple[int, ...], ...]]] = []
    tricks: list[TrickRecord] = []

    def view(seat: int, leader: int, plays: list[tuple[int, ...]]) -> SeatView:
        """What ``seat`` knows now: its hand, the trick, the finished tricks, the points, its bottom."""
        return SeatView(
            seat=seat,
            hand=hands[seat],
            leader=leader,
            plays=tuple(plays),
            dealer=dealer,
            tricks=tuple(history),
            attacker_points=points,
            bottom=buried if seat == dealer else (),
        )

    while sum(hands[leader]):
        chooser = choosers.get(leader)
        if chooser is None:
            leads = legal_plays(ctx, hand=hands[leader], limit=200).plays
            throws = [lead for lead in leads if len(lead) > 2 and len(set(lead)) > 1]
            simple = [lead for lead in leads if lead not in throws]
            pool = throws if throws and rng.random() < style.throw_rate else simple or leads
            attempt = rng.choice(pool)
        else:
            attempt = tuple(chooser(ctx, rules, view(leader, leader, [])))
        others = {s: hands[s] for s in range(PLAYERS) if s != leader}
        verdict = check_lead(ctx, rules, hand=hands[leader], lead=attempt, others=others)
        assert isinstance(verdict, Legal)
        failed = verdict.throw is not None and not verdict.throw.succeeded
        lead = verdict.throw.led if verdict.throw else attempt
        plays = [tuple(lead)]
        for offset in (1, 2, 3):
            seat = (leader + offset) % PLAYERS
            chooser = choosers.get(seat)
            if chooser is None:
                play = rng.choice(legal_plays(ctx, hand=hands[seat], lead=lead, limit=40).plays)
            else:
                play = tuple(chooser(ctx, rules, view(seat, leader, plays)))
            assert isinstance(check_follow(ctx, hand=hands[seat], lead=lead, play=play), Legal)
            plays.append(play)
        for offset, play in enumerate(plays):
            hands[(leader + offset) % PLAYERS] = remove(hands[(leader + offset) % PLAYERS], play)
        tricks.append(TrickRecord(tuple(plays), tuple(attempt) if failed else ()))
        result = resolve_trick(ctx, rules, leader=leader, plays=plays, dealer=dealer)
        points += result.attacker_points
        history.append((leader, tuple(plays)))
        leader = result.winner
    return tuple(tricks)
