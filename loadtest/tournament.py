"""``make tournament``: the strong auto-play (rules_core.strategy) against weaker players, duplicate format.

Each seeded deal (``rules_core.selfplay.deal``, a random level, the deal's declarations or none, which
is no-trump, R10.8, and a random dealer) is played twice with the two teams' players swapped: same
seats, same cards, same bury, so card luck cancels. For the player P under test,

    points per deal = (attackers' final score, dig included, when P's team attacks)
                    - (attackers' final score when P's team deals)

and the report gives its mean with a 95 % confidence interval (mean ± 1.96·sd/√n over the deals) and the
share of deals where P did better. Every game is audited with ``rules_core.audit.audit_hand``; a record
that fails its audit, or whose audited score differs from the table's, stops the run with an error.

The whole hand is played (:func:`play_game`). The cards are dealt one at a time in the shuffle's order,
round the table from the dealer, and every seat is asked for its declaration whenever what it knows
changed (a card received, an act shown; :func:`dealt_declarations`): its act is judged by R10
(``rules_core.bidding``), an act R10 rejects stops the run. The dealer's side's bury policy buries (R11),
then the hand is played. Each side brings its :class:`Habits` (declaration and bury policies), which
move with its seats in the duplicate pair:

* strong: ``SuggestDeclaration``'s and ``SuggestBury``'s strong policies
  (``rules_core.strategy.declaration`` and ``.bury``);
* R13.6 and random: never declare (``DeclarationPolicy.NONE``, a seat that is away) and R13.6's auto-bury
  (the 8 bottom cards received), what R13 does for a seat nobody plays;
* greedy and careful: the casual declaration (``loadtest.casual.casual_declaration``) and the casual
  bury (:func:`bury`: the weakest plain non-point cards, shortest suits first).

``--plays-only`` keeps the old comparison of the card play alone: the deal's self-play declarations
(``selfplay.declare``) and :func:`bury` for everyone. Players are pluggable: anything with a ``name`` and
``__call__(ctx, rules, view, seed) -> play`` (the :class:`Player` protocol) takes a seat, with the habits
its name has in :data:`HABITS` unless it carries its own ``habits``; ``seed`` is the deal's, the same for
every play of it, as a table's per-hand seed.

``--service`` plays the strong side through a live ``tractor-rules serve`` started on 127.0.0.1 port 0,
``--target HOST:PORT`` through a running loopback server (:class:`ServicePlayer`): every decision of that
side is the service's answer: SuggestDeclaration for what it has received and the acts so far,
SuggestBury for the dealer's 33 cards, SuggestPlay for the request a real table sends (its hand, the
trick so far, the dealer, every finished trick, the attackers' points, the bottom for the dealer, the
deal's seed), and the report gives each play suggestion's round-trip latency. The same policy on the
same view and seed makes the same decisions in both modes, so the pairings' figures are the in-process
ones.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import heapq
import math
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, Protocol, TextIO

import grpc

from loadtest.casual import CarefulPlayer, casual_declaration
from loadtest.contract import CONTRACTS
from loadtest.server import ServerProcess, load_flags
from loadtest.stats import percentile as _percentile
from rules_core.audit import HandRecord, SeatsRecord, TrickRecord, audit_hand, audit_table
from rules_core.autoplay import suggest_play, suggest_table_bury
from rules_core.bidding import Declaration, resolve_declarations
from rules_core.bidding import declare as declare_acts
from rules_core.cards import (
    BOTTOM_SIZE,
    FULL_DECK,
    HAND_SIZE,
    NUM_FACES,
    PLAYERS,
    POINTS,
    SMALL_JOKER,
    Hand,
    add,
    deal_sizes,
    faces_of,
    hand_of,
    remove,
)
from rules_core.errors import InvalidArgumentError
from rules_core.friends import FriendCall, call_count, check_calls
from rules_core.legal_plays import legal_plays
from rules_core.rules import DEFAULT_RULES, PRESETS, FollowRule, Partners, Rules
from rules_core.seating import SeatCards
from rules_core.selfplay import IllegalPlayError, Played, Style, deal, declare, play_out
from rules_core.shapes import decompose
from rules_core.strategy import DEFAULT_BUDGET, SeatView, strong_play, winning_play
from rules_core.strategy.bury import BuryPolicy, suggest_bury
from rules_core.strategy.declaration import suggest_declaration
from rules_core.strategy.shown import with_bidding
from rules_core.trick import resolve_trick, standing_of
from rules_core.trump import TRUMP, TrumpContext, trump_context
from services.convert import cards as faces_in
from services.convert import cards_out
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc
from tractor.rules.v1 import types_pb2 as t

DEFAULT_DEALS = 200
"""Deals per pairing by default: three pairings of 2 × 200 games take about a minute on 2 idle cores."""
SLOWEST: Final = 10
"""How many of the slowest suggestions the in-process run replays."""
RPC_TIMEOUT: Final = 10.0
"""Seconds one SuggestPlay may take before the run stops (it answers in milliseconds)."""
LOOPBACK_HOSTS: Final = ("127.0.0.1", "localhost", "[::1]")
"""What ``--target`` accepts: the tournament only ever drives a server on this machine."""


class Player(Protocol):
    """A seat's brain: given the trick context, the rules, what the seat knows and the deal's seed, a
    play."""

    name: str

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]: ...


class AuditError(IllegalPlayError):
    """A finished game failed its audit, or the audit's score differs from the table's."""


class SeatDeclarer(Protocol):
    """A seat's declaration policy: (rules, level, seat, the cards it received so far in deal order, the
    deal's acts so far; ``dealer``, the hand's rotation dealer: every deal here is a later hand, R10.7)
    → the cards to show now, or () for none (R10)."""

    def __call__(
        self,
        rules: Rules,
        level: int,
        seat: int,
        received: tuple[int, ...],
        acts: tuple[Declaration, ...],
        /,
        *,
        dealer: int,
    ) -> tuple[int, ...]: ...


SeatBurier = Callable[[TrumpContext, Rules, Hand, tuple[int, ...]], tuple[int, ...]]
"""A dealer's bury policy: (context, rules, his 33 cards, the 8 bottom cards he received) → 8 cards (R11);
on another table his hand and the bottom together, no bottom apart, → the table's bottom size (R14.2)."""


@dataclass(frozen=True, slots=True)
class Habits:
    """What a side does outside the card play: its declaration and bury policies."""

    declare: SeatDeclarer
    bury: SeatBurier


def _acts_in(
    acts: Sequence[Declaration], seat: int
) -> list[tuple[int, tuple[int, ...], tuple[int, ...] | None]]:
    """The acts as SuggestDeclaration's engine call takes them (seat, cards, and the hand shown from for
    ``seat``'s own acts only: other seats' received cards are private to them)."""
    return [(d.seat, d.cards, None if d.hand is None or d.seat != seat else faces_of(d.hand)) for d in acts]


def strong_declaration(
    rules: Rules,
    level: int,
    seat: int,
    received: tuple[int, ...],
    acts: tuple[Declaration, ...],
    *,
    dealer: int,
) -> tuple[int, ...]:
    """SuggestDeclaration's strong policy, in process, told the hand's dealer (a later hand, R10.7)."""
    advice = suggest_declaration(
        rules=rules,
        level=level,
        seat=seat,
        received=received,
        acts=_acts_in(acts, seat),
        first_hand=False,
        dealer=dealer,
    )
    return advice.cards


def no_declaration(
    rules: Rules,
    level: int,
    seat: int,
    received: tuple[int, ...],
    acts: tuple[Declaration, ...],
    *,
    dealer: int,
) -> tuple[int, ...]:
    """DeclarationPolicy.NONE: the seat never shows a card (as if it were away)."""
    return ()


def strong_bury(ctx: TrumpContext, rules: Rules, hand33: Hand, bottom: tuple[int, ...]) -> tuple[int, ...]:
    """SuggestBury's strong policy, in process."""
    return suggest_bury(ctx, rules, hand=faces_of(hand33), bottom=bottom, policy=BuryPolicy.STRONG).cards


def auto_bury(ctx: TrumpContext, rules: Rules, hand33: Hand, bottom: tuple[int, ...]) -> tuple[int, ...]:
    """SuggestBury's AUTO_BURY: R13.6's 8 bottom cards received, as CalculatePenalty buries them; on
    another table, where R13.6's auto-bury is not ruled (R14.10), the table bury."""
    if not rules.rulebook_table:
        return table_bury(ctx, rules, hand33)
    return suggest_bury(ctx, rules, hand=faces_of(hand33), bottom=bottom, policy=BuryPolicy.AUTO_BURY).cards


def casual_bury(ctx: TrumpContext, rules: Rules, hand33: Hand, bottom: tuple[int, ...]) -> tuple[int, ...]:
    """The casual bury: :func:`bury`, the weakest plain non-point cards, shortest suits first; on another
    table, the table bury."""
    if not rules.rulebook_table:
        return table_bury(ctx, rules, hand33)
    return bury(ctx, hand33)


def table_bury(ctx: TrumpContext, rules: Rules, held: Hand) -> tuple[int, ...]:
    """The plain bury of another table (``autoplay.suggest_table_bury``) from the dealer's hand and
    the bottom together (R14.2)."""
    return suggest_table_bury(ctx, rules, hand=faces_of(held))


STRONG_HABITS: Final = Habits(strong_declaration, strong_bury)
AWAY: Final = Habits(no_declaration, auto_bury)
"""A seat nobody plays for (R13): never declares, buries the bottom it received (R13.6)."""
CASUAL: Final = Habits(casual_declaration, casual_bury)
HABITS: Final[dict[str, Habits]] = {
    "strong": STRONG_HABITS,
    "R13.6": AWAY,
    "random": AWAY,
    "greedy": CASUAL,
    "careful": CASUAL,
}
"""The habits of each player kind, by its name (a player with its own ``habits`` attribute uses those;
an unknown name is :data:`AWAY`)."""


def habits_of(player: Player) -> Habits:
    """The player's own ``habits`` when it has them (the timed and the live strong player), else its
    kind's."""
    own = getattr(player, "habits", None)
    return own if isinstance(own, Habits) else HABITS.get(player.name, AWAY)


@dataclass
class StrongPlayer:
    """rules_core.strategy.strong_play, timed per suggestion."""

    budget: int = DEFAULT_BUDGET
    name: str = "strong"
    latencies: list[float] = field(default_factory=list)
    """Wall-clock seconds per suggestion."""
    cpu: list[float] = field(default_factory=list)
    """CPU seconds per suggestion (this thread's): what it costs without other processes' noise."""
    collected: list[float] = field(default_factory=list)
    """CPU seconds of the suggestions during which a full (generation 2) garbage collection ran: that
    pause is this whole process's heap (the tournament's own records included), not the position; a
    server worker freezes its start-up heap out of the collector's sight (``gc.freeze``)."""
    slowest: list[tuple[float, int, TrumpContext, Rules, SeatView, int]] = field(default_factory=list)
    """The SLOWEST suggestions by CPU, to replay: (seconds, order, context, rules, view, seed), a min-heap."""
    asked: dict[str, int] = field(default_factory=lambda: {"declaration": 0, "bury": 0})
    """How many declaration and bury decisions this player made."""
    declaration_cpu: list[float] = field(default_factory=list)
    """CPU seconds per declaration suggestion (one per card a seat receives while the cards are dealt)."""
    bury_cpu: list[float] = field(default_factory=list)
    """CPU seconds per bury suggestion."""
    bidding: tuple[SeatCards, ...] = ()
    """What this game's bidding showed (each act's seat and cards), told to every play's view."""

    def hear_bidding(self, acts: tuple[SeatCards, ...]) -> None:
        """The table's acts of this game (public), as a backend sends them in HandSoFar.declarations."""
        self.bidding = acts

    @property
    def habits(self) -> Habits:
        """The strong declaration and bury policies, counted."""
        return Habits(self.declare, self.bury)

    def declare(
        self,
        rules: Rules,
        level: int,
        seat: int,
        received: tuple[int, ...],
        acts: tuple[Declaration, ...],
        *,
        dealer: int,
    ) -> tuple[int, ...]:
        self.asked["declaration"] += 1
        cpu = time.thread_time()
        act = strong_declaration(rules, level, seat, received, acts, dealer=dealer)
        self.declaration_cpu.append(time.thread_time() - cpu)
        return act

    def bury(self, ctx: TrumpContext, rules: Rules, hand33: Hand, bottom: tuple[int, ...]) -> tuple[int, ...]:
        self.asked["bury"] += 1
        cpu = time.thread_time()
        buried = strong_bury(ctx, rules, hand33, bottom)
        self.bury_cpu.append(time.thread_time() - cpu)
        return buried

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        full = gc.get_stats()[2]["collections"]
        start, cpu = time.perf_counter(), time.thread_time()
        view = with_bidding(ctx, rules, view, self.bidding)  # as seat_view tells the service's view
        play = strong_play(ctx, rules, view, seed=seed, budget=self.budget)
        self.latencies.append(time.perf_counter() - start)
        spent = time.thread_time() - cpu
        self.cpu.append(spent)
        if gc.get_stats()[2]["collections"] != full:
            self.collected.append(spent)
        entry = (spent, len(self.cpu), ctx, rules, view, seed)
        if len(self.slowest) < SLOWEST:
            heapq.heappush(self.slowest, entry)
        elif spent > self.slowest[0][0]:
            heapq.heapreplace(self.slowest, entry)
        return play

    def replay_slowest(self, rounds: int = 20) -> tuple[float, SeatView]:
        """The worst of the slowest positions replayed: each one's median CPU seconds over ``rounds``
        replays (one reading on a busy machine may be a collection or a preemption, not the position),
        and the view of the worst."""
        worst: tuple[float, SeatView] | None = None
        for _, _, ctx, rules, view, seed in self.slowest:
            spent = []
            for _ in range(rounds):
                cpu = time.thread_time()
                strong_play(ctx, rules, view, seed=seed, budget=self.budget)
                spent.append(time.thread_time() - cpu)
            median = sorted(spent)[rounds // 2]
            if worst is None or median > worst[0]:
                worst = (median, view)
        assert worst is not None
        return worst


def preset_of(rules: Rules) -> str:
    """The preset name whose rules these are: a request carries a preset, not a Rules object."""
    for name, preset in PRESETS.items():
        if preset == rules:
            return name
    raise ValueError("the service player plays only a preset's rules")


def _seated(leader: int, plays: Sequence[Sequence[int]]) -> list[t.SeatCards]:
    return [t.SeatCards(seat=(leader + i) % PLAYERS, cards=cards_out(p)) for i, p in enumerate(plays)]


def suggest_request(
    ctx: TrumpContext,
    rules: Rules,
    view: SeatView,
    *,
    seed: int,
    budget: int,
    declarations: Sequence[SeatCards] = (),
) -> pb.SuggestPlayRequest:
    """The SuggestPlay request a real table sends for this seat: its hand, the trick so far, and the hand
    so far (the dealer, every finished trick, the attackers' points, the bottom when it is the dealer,
    what the bidding showed).

    The tournament's view does not keep a failed throw's whole attempt, so ``attempted_lead`` stays
    empty; the strong policy reads only the plays, in process and in the service alike.
    """
    so_far = pb.HandSoFar(
        tricks=[pb.RecordedTrick(plays=_seated(leader, plays)) for leader, plays in view.tricks],
        bottom=cards_out(view.bottom),
        declarations=[t.SeatCards(seat=seat, cards=cards_out(cards)) for seat, cards in declarations],
    )
    if view.dealer is not None:
        so_far.dealer = view.dealer
    if view.attacker_points is not None:
        so_far.attacker_points = view.attacker_points
    return pb.SuggestPlayRequest(
        ruleset=t.Ruleset(preset=preset_of(rules)),
        level=t.Rank.ValueType(ctx.level),
        contract=CONTRACTS[ctx.trump],
        seat=view.seat,
        hand=cards_out(faces_of(view.hand)),
        trick=pb.Trick(leader=view.leader, plays=_seated(view.leader, view.plays)),
        policy=pb.PLAY_POLICY_STRONG,
        hand_so_far=so_far,
        seed=seed,
        budget=budget,
    )


@dataclass
class ServicePlayer:
    """The strong policy through a live service: each play is SuggestPlay's answer, timed client-side
    (the whole round trip, as a table's backend sees it)."""

    stub: rules_service_pb2_grpc.RulesServiceStub
    budget: int = DEFAULT_BUDGET
    name: str = "strong"
    latencies: list[float] = field(default_factory=list)
    """Round-trip seconds per play suggestion."""
    asked: dict[str, int] = field(default_factory=lambda: {"declaration": 0, "bury": 0})
    """How many SuggestDeclaration and SuggestBury calls this player made."""
    bidding: tuple[SeatCards, ...] = ()
    """What this game's bidding showed, sent in every SuggestPlay's HandSoFar.declarations."""

    def hear_bidding(self, acts: tuple[SeatCards, ...]) -> None:
        """The table's acts of this game (public)."""
        self.bidding = acts

    @property
    def habits(self) -> Habits:
        """SuggestDeclaration's and SuggestBury's strong policies, through the service."""
        return Habits(self.declare, self.bury)

    def declare(
        self,
        rules: Rules,
        level: int,
        seat: int,
        received: tuple[int, ...],
        acts: tuple[Declaration, ...],
        *,
        dealer: int,
    ) -> tuple[int, ...]:
        """The service's SuggestDeclaration for this seat now (the acts, with the hands they were shown
        from for this seat's own only; the rotation dealer of this later hand, R10.7)."""
        request = pb.SuggestDeclarationRequest(
            ruleset=t.Ruleset(preset=preset_of(rules)),
            level=t.Rank.ValueType(level),
            seat=seat,
            received=cards_out(received),
            declarations=[
                pb.Declaration(  # a seat's own received cards only: the others' are private
                    seat=d.seat,
                    cards=cards_out(d.cards),
                    hand=cards_out(faces_of(d.hand) if d.hand and d.seat == seat else ()),
                )
                for d in acts
            ],
            policy=pb.DECLARATION_POLICY_STRONG,
            first_hand=False,
            dealer=dealer,
        )
        self.asked["declaration"] += 1
        response = self.stub.SuggestDeclaration(request, timeout=RPC_TIMEOUT)
        if response.policy != pb.DECLARATION_POLICY_STRONG:
            raise IllegalPlayError(f"SuggestDeclaration answered with policy {response.policy}")
        return faces_in(response.cards, "cards")

    def bury(self, ctx: TrumpContext, rules: Rules, hand33: Hand, bottom: tuple[int, ...]) -> tuple[int, ...]:
        """The service's SuggestBury for the dealer's 33 cards."""
        request = pb.SuggestBuryRequest(
            ruleset=t.Ruleset(preset=preset_of(rules)),
            level=t.Rank.ValueType(ctx.level),
            contract=CONTRACTS[ctx.trump],
            hand=cards_out(faces_of(hand33)),
            bottom=cards_out(bottom),
            policy=pb.BURY_POLICY_STRONG,
        )
        self.asked["bury"] += 1
        response = self.stub.SuggestBury(request, timeout=RPC_TIMEOUT)
        if response.policy != pb.BURY_POLICY_STRONG:
            raise IllegalPlayError(f"SuggestBury answered with policy {response.policy}")
        return faces_in(response.cards, "cards")

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        request = suggest_request(ctx, rules, view, seed=seed, budget=self.budget, declarations=self.bidding)
        start = time.perf_counter()
        response = self.stub.SuggestPlay(request, timeout=RPC_TIMEOUT)
        self.latencies.append(time.perf_counter() - start)
        if response.policy != pb.PLAY_POLICY_STRONG:
            raise IllegalPlayError(f"SuggestPlay answered with policy {response.policy}, not the strong one")
        return faces_in(response.cards, "cards")


@dataclass
class RightmostSmallest:
    """R13.6's auto-play: rules_core.autoplay.suggest_play."""

    name: str = "R13.6"

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        return suggest_play(ctx, hand=view.hand, lead=view.plays[0] if view.plays else ())


@dataclass
class RandomPlayer:
    """A uniformly random play from the engine's listing (seeded)."""

    seed: int = 0
    name: str = "random"
    rng: random.Random = field(init=False)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        lead = view.plays[0] if view.plays else ()
        listed = legal_plays(ctx, hand=view.hand, lead=lead, limit=200, decks=rules.decks)
        return self.rng.choice(listed.plays)


@dataclass
class GreedyPlayer:
    """A casual player: win the trick cheaply when possible, otherwise play low; feed a winning partner.

    Leads its longest tractor, else a top pair, else a top single of a plain suit, else its lowest card.
    """

    name: str = "greedy"

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        hand = view.hand

        def cost(play: Sequence[int]) -> int:  # trumps dearer than plain cards, high dearer than low
            return sum(ctx.strength[f] + (20 if ctx.category[f] == TRUMP else 0) for f in play)

        if not view.plays:
            leads = [p for p in legal_plays(ctx, hand=hand, limit=200).plays if _components(ctx, p) == 1]
            tractors = [p for p in leads if len(p) >= 4]
            if tractors:
                return max(tractors, key=len)
            top = {cat: ctx.rungs(cat) - 1 for cat in range(5)}
            for size in (2, 1):
                tops = [
                    p
                    for p in leads
                    if len(p) == size
                    and ctx.category[p[0]] != TRUMP
                    and ctx.strength[p[0]] >= top[ctx.category[p[0]]]
                ]
                if tops:
                    return tops[0]
            return min((p for p in leads if len(p) == 1), key=lambda p: (POINTS[p[0]], cost(p)))
        lead = view.plays[0]
        options = list(legal_plays(ctx, hand=hand, lead=lead, limit=40).plays)
        trumps = [f for f in reversed(ctx.faces[TRUMP]) for _ in range(hand[f])]
        if not any(ctx.category[f] == ctx.category[lead[0]] for f in hand_faces(hand)) and len(trumps) >= len(
            lead
        ):
            options.append(tuple(trumps[: len(lead)]))  # a cheap ruff
        me = len(view.plays)
        best = winning_play(ctx, rules, view.plays)
        if (me - best) % 2 == 0:  # partner is winning: feed him points
            return max(options, key=lambda p: (sum(POINTS[f] for f in p), -cost(p)))
        winners = [p for p in options if winning_play(ctx, rules, [*view.plays, p]) == me]
        if winners:
            return min(winners, key=cost)
        return min(options, key=lambda p: (sum(POINTS[f] for f in p), cost(p)))


def hand_faces(hand: Hand) -> list[int]:
    """The faces of a hand, once per copy."""
    return [f for f in range(NUM_FACES) for _ in range(hand[f])]


def _components(ctx: TrumpContext, play: Sequence[int]) -> int:
    return len(decompose(ctx, play).components)


def bury(ctx: TrumpContext, hand33: Hand) -> tuple[int, ...]:
    """The shared bury (R11): the weakest plain non-point cards, shortest suits first, then anything."""
    length = {cat: sum(hand33[f] for f in ctx.faces[cat]) for cat in range(4)}
    faces = hand_faces(hand33)
    faces.sort(
        key=lambda f: (
            ctx.category[f] == TRUMP,
            POINTS[f] > 0,
            length.get(ctx.category[f], 99),
            ctx.strength[f],
        )
    )
    return tuple(sorted(faces[:BOTTOM_SIZE]))


@dataclass(frozen=True, slots=True)
class Deal:
    """One seeded deal: cards, level, declarations and dealer, shared by both games of the pair."""

    hands: tuple[Hand, ...]
    bottom: tuple[int, ...]
    level: int
    attacker_level: int
    dealer: int
    declarations: tuple[Declaration, ...]
    """The self-play bidding (``selfplay.declare``), used by ``--plays-only``."""
    seed: int
    """The deal's seed, which every player gets for every play (the strong policy's sampling)."""
    order: tuple[tuple[int, ...], ...]
    """Each seat's 25 cards in the order it receives them (the shuffle's order)."""


def make_deal(seed: int) -> Deal:
    """The deal of one seed (R1.6, R10): selfplay's shuffle and a plausible bidding."""
    rng = random.Random(seed)
    shuffled = rng.getstate()
    hands, bottom = deal(rng)
    level = rng.randint(2, 14)
    dealer = rng.randrange(PLAYERS)
    declarations = declare(rng, hands, level, Style())
    order = _deal_order(shuffled)
    if tuple(hand_of(cards) for cards in order) != hands:  # pragma: no cover - selfplay.deal changed
        raise AssertionError("the replayed shuffle does not give selfplay.deal's hands")
    return Deal(hands, bottom, level, rng.randint(2, 14), dealer, declarations, seed, order)


def _deal_order(state: tuple[object, ...]) -> tuple[tuple[int, ...], ...]:
    """selfplay.deal's shuffle replayed from the generator's ``state``: seat s's cards are the deck's
    s-th block of 25, in the deck's order (checked against the hands by :func:`make_deal`)."""
    rng = random.Random()
    rng.setstate(state)
    deck = [face for face in range(NUM_FACES) for _ in range(FULL_DECK[face])]
    rng.shuffle(deck)
    return tuple(tuple(deck[s * HAND_SIZE : (s + 1) * HAND_SIZE]) for s in range(PLAYERS))


@dataclass(frozen=True, slots=True)
class Game:
    """One audited game: the attackers' final score (dig included), and its share by phase."""

    score: int
    record: HandRecord
    phases: tuple[int, ...] = ()
    """The attackers' points from the tricks of each of :data:`PHASES` (the dig in the last)."""


PHASES: Final = ("opening", "middle", "end game", "last trick and dig")
"""The phases of a hand the report splits points by: tricks begun with more than 16 cards in hand,
9 to 16, 2 to 8, and the last trick with its dig (R8.3)."""


def phase_of(cards_left: int, last: bool) -> int:
    """The index in :data:`PHASES` of a trick begun with ``cards_left`` cards in each hand."""
    if last:
        return 3
    return 0 if cards_left > 16 else 1 if cards_left > 8 else 2


def phase_points(
    ctx: TrumpContext, rules: Rules, dealer: int, buried: tuple[int, ...], tricks: Sequence[TrickRecord]
) -> tuple[int, ...]:
    """The attackers' points of a played hand by phase, each trick judged as play_out judged it (R7,
    R8; the dig in the last trick)."""
    points = [0] * len(PHASES)
    leader, left = dealer, HAND_SIZE
    for index, trick in enumerate(tricks):
        last = index == len(tricks) - 1
        result = resolve_trick(
            ctx, rules, leader=leader, plays=trick.plays, dealer=dealer, last=last, bottom=buried
        )
        points[phase_of(left, last)] += result.attacker_points
        left -= len(trick.plays[0])
        leader = result.winner
    return tuple(points)


Declarer = Callable[[Rules, Deal, Sequence[SeatDeclarer]], tuple[Declaration, ...]]
"""How the deal's acts come about (R10), given each seat's declaration policy."""
Burier = Callable[[TrumpContext, Rules, Hand], tuple[int, ...]]
"""A bury everyone uses (R11), instead of the dealer's own policy: ``--plays-only``'s."""


def dealt_declarations(rules: Rules, spec: Deal, policies: Sequence[SeatDeclarer]) -> tuple[Declaration, ...]:
    """Deal the cards one at a time round the table from the dealer, in the shuffle's order, and ask a
    seat for its act whenever what it knows changed (R10.1): the seat that just got a card, and after an
    act every seat. A question whose inputs did not change is not asked again (every policy here is
    deterministic). Each act is recorded with the hand it was shown from and judged by R10; a rejected one
    raises IllegalPlayError (so at most one act per stage, a bounded number)."""
    received: list[list[int]] = [[] for _ in range(PLAYERS)]
    acts: list[Declaration] = []
    asked = [(-1, -1)] * PLAYERS

    def ask_round(first: int) -> None:
        changed = True
        while changed:
            changed = False
            for offset in range(PLAYERS):
                seat = (first + offset) % PLAYERS
                if asked[seat] == (len(received[seat]), len(acts)) or not received[seat]:
                    continue
                asked[seat] = (len(received[seat]), len(acts))
                cards = tuple(
                    policies[seat](
                        rules, spec.level, seat, tuple(received[seat]), tuple(acts), dealer=spec.dealer
                    )
                )
                if cards:
                    _accept(rules, spec, acts, Declaration(seat, cards, hand_of(received[seat])))
                    changed = True

    for k in range(HAND_SIZE):
        for offset in range(PLAYERS):
            seat = (spec.dealer + offset) % PLAYERS
            received[seat].append(spec.order[seat][k])
            ask_round(seat)
    return tuple(acts)


def _accept(rules: Rules, spec: Deal, acts: list[Declaration], act: Declaration) -> None:
    """Append ``act`` if R10 accepts it after ``acts``; a rejected act is a broken rule."""
    bidding = resolve_declarations(
        rules=rules, level=spec.level, sequence=[*acts, act], first_hand=False, dealer=spec.dealer
    )
    if bidding.acts[-1] is None:
        raise IllegalPlayError(f"seat {act.seat} declared illegally: {bidding.rejections[-1].message}")
    acts.append(act)


def deal_declarations(rules: Rules, spec: Deal, policies: Sequence[SeatDeclarer]) -> tuple[Declaration, ...]:
    """``--plays-only``: the deal's own plausible bidding (``selfplay.declare``), whoever sits."""
    return spec.declarations


def shared_bury(ctx: TrumpContext, rules: Rules, hand33: Hand) -> tuple[int, ...]:
    """``--plays-only``: :func:`bury`, the same for every player."""
    return bury(ctx, hand33)


def play_game(
    rules: Rules,
    spec: Deal,
    seats: Sequence[Player],
    *,
    declarer: Declarer = dealt_declarations,
    burier: Burier | None = None,
) -> Game:
    """Play one whole hand: the declarations (``declarer`` with each seat's declaration policy), the
    dealer's bury (his side's bury policy, or ``burier`` for everyone), then ``seats[s]`` playing seat s
    through ``rules_core.selfplay.play_out`` (every play checked); the record is audited. Raises
    IllegalPlayError when a player breaks a rule, AuditError when the audit disagrees."""
    habits = [habits_of(player) for player in seats]
    declarations = declarer(rules, spec, [h.declare for h in habits])
    shown = tuple((d.seat, d.cards) for d in declarations)
    for player in seats:  # what the bidding showed is public: a player that reads it is told
        hear = getattr(player, "hear_bidding", None)
        if hear is not None:
            hear(shown)
    bidding = resolve_declarations(
        rules=rules, level=spec.level, sequence=declarations, first_hand=False, dealer=spec.dealer
    )
    ctx = trump_context(spec.level, bidding.contract)
    dealer = spec.dealer
    hand33 = add(spec.hands[dealer], spec.bottom)
    chosen = burier(ctx, rules, hand33) if burier else habits[dealer].bury(ctx, rules, hand33, spec.bottom)
    buried = tuple(sorted(chosen))
    played = _played(ctx, rules, spec, buried, seats)
    record = HandRecord(
        level=spec.level,
        attacker_level=spec.attacker_level,
        deal=spec.hands,
        bottom=spec.bottom,
        declarations=declarations,
        buried=buried,
        tricks=played.tricks,
        dealer=dealer,
    )
    audit = audit_hand(rules, record)
    if not audit.valid or audit.score != played.score:
        raise AuditError(f"audit failed: {audit.error} (table score {played.score}, audit {audit.score})")
    phases = phase_points(ctx, rules, dealer, buried, played.tricks)
    if sum(phases) != played.score:  # pragma: no cover - the phases replay what play_out judged
        raise AuditError(f"the phases give {sum(phases)} points, the table {played.score}")
    return Game(played.score, record, phases)


def _seat(
    ctx: TrumpContext, rules: Rules, player: Player, seed: int
) -> Callable[[SeatView], tuple[int, ...]]:
    return lambda view: tuple(player(ctx, rules, view, seed))


def _played(  # noqa: PLR0917 (the hand's parts, each once)
    ctx: TrumpContext,
    rules: Rules,
    spec: Deal | TableDeal,
    buried: tuple[int, ...],
    seats: Sequence[Player],
    calls: Sequence[FriendCall] = (),
) -> Played:
    """The dealt hand played out by ``seats`` (``rules_core.selfplay.play_out``, every play checked), the
    dealer holding the bottom less what he buried (R11)."""
    hands = list(spec.hands)
    hands[spec.dealer] = remove(add(hands[spec.dealer], spec.bottom, rules.decks), buried)
    return play_out(
        ctx,
        rules,
        hands,
        dealer=spec.dealer,
        buried=buried,
        seats=[_seat(ctx, rules, player, spec.seed) for player in seats],
        names=[player.name for player in seats],
        calls=calls,
    )


@dataclass(frozen=True, slots=True)
class PairingResult:
    """P against Q over n deals: P's points per deal, each deal's difference."""

    player: str
    opponent: str
    deltas: tuple[int, ...]
    games: int
    audited: int
    phase_deltas: tuple[tuple[int, ...], ...] = ()
    """Per deal, P's points by phase of the hand (:data:`PHASES`): they sum to the deal's delta."""

    @property
    def phase_means(self) -> tuple[float, ...]:
        """P's mean points per deal in each phase of the hand."""
        n = len(self.phase_deltas)
        return tuple(sum(d[i] for d in self.phase_deltas) / n if n else 0.0 for i in range(len(PHASES)))

    @property
    def mean(self) -> float:
        return sum(self.deltas) / len(self.deltas)

    @property
    def half_width(self) -> float:
        """1.96 · sd / √n, the 95 % confidence half-width of the mean."""
        n = len(self.deltas)
        if n < 2:
            return math.inf
        sd = math.sqrt(sum((d - self.mean) ** 2 for d in self.deltas) / (n - 1))
        return 1.96 * sd / math.sqrt(n)

    @property
    def better(self) -> float:
        return sum(1 for d in self.deltas if d > 0) / len(self.deltas)

    @property
    def ties(self) -> float:
        return sum(1 for d in self.deltas if d == 0) / len(self.deltas)


Progress = Callable[["PairingResult"], None]
"""Called after every deal with the pairing so far (the progress line)."""


def run_pairing(
    rules: Rules,
    p: Player,
    make_q: Callable[[int], Player],
    deals: int,
    seed: int,
    *,
    declarer: Declarer = dealt_declarations,
    burier: Burier | None = None,
    progress: Progress | None = None,
) -> PairingResult:
    """Duplicate games of P against Q: each deal twice, P's team on seats 0/2 then on 1/3; each side's
    declaration and bury policies (its habits) move with its seats."""
    deltas: list[int] = []
    by_phase: list[tuple[int, ...]] = []
    name = make_q(0).name
    games = audited = 0
    for i in range(deals):
        spec = make_deal(seed * 1_000_003 + i)
        scores = []
        phases: list[tuple[int, tuple[int, ...]]] = []
        for p_seats in (0, 1):
            q = make_q(seed * 7919 + i * 2 + p_seats)
            seats: list[Player] = [p if (s - p_seats) % 2 == 0 else q for s in range(PLAYERS)]
            game = play_game(rules, spec, seats, declarer=declarer, burier=burier)
            games += 1
            audited += 1
            scores.append((p_seats, game.score))
            phases.append((p_seats, game.phases))
        attack = next(score for p_seats, score in scores if (p_seats - spec.dealer) % 2 == 1)
        defend = next(score for p_seats, score in scores if (p_seats - spec.dealer) % 2 == 0)
        deltas.append(attack - defend)
        won = next(split for p_seats, split in phases if (p_seats - spec.dealer) % 2 == 1)
        lost = next(split for p_seats, split in phases if (p_seats - spec.dealer) % 2 == 0)
        by_phase.append(tuple(a - b for a, b in zip(won, lost, strict=True)))
        if progress is not None:
            progress(PairingResult(p.name, name, tuple(deltas), games, audited, tuple(by_phase)))
    return PairingResult(p.name, name, tuple(deltas), games, audited, tuple(by_phase))


# --- other tables (R14, R15): --decks, --seats, --partners ------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableDeal:
    """One seeded deal on another table: D decks dealt to N seats (R14.2), a level, a dealer, and the
    one declaration that sets the contract (R14.11), shared by both games of the pair."""

    hands: tuple[Hand, ...]
    bottom: tuple[int, ...]
    level: int
    dealer: int
    declarations: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...]
    """(seat, shown cards, its dealt hand): the first seat from the dealer holding a level card shows one
    (none held: no-trump, R10.8)."""
    seed: int


def make_table_deal(rules: Rules, seed: int) -> TableDeal:
    """The deal of one seed on ``rules``' table."""
    rng = random.Random(seed)
    deck = [face for face in range(NUM_FACES) for _ in range(rules.decks)]
    rng.shuffle(deck)
    size, _ = deal_sizes(rules.decks, rules.seats)
    cards = [tuple(deck[s * size : (s + 1) * size]) for s in range(rules.seats)]
    level = rng.randint(2, 14)
    dealer = rng.randrange(rules.seats)
    acts: tuple[tuple[int, tuple[int, ...], tuple[int, ...]], ...] = ()
    for offset in range(rules.seats):
        seat = (dealer + offset) % rules.seats
        shown = [f for f in cards[seat] if f < SMALL_JOKER and f % 13 + 2 == level]
        if shown:
            acts = ((seat, (shown[0],), cards[seat]),)
            break
    hands = tuple(hand_of(c, rules.decks) for c in cards)
    return TableDeal(hands, tuple(sorted(deck[rules.seats * size :])), level, dealer, acts, seed)


def table_calls(rules: Rules, ctx: TrumpContext, hand: Hand) -> tuple[FriendCall, ...]:
    """R15.2-R15.4: the dealer calls the first copy of the strongest plain cards he holds none of (the
    ruleset's number of calls), skipping kinds the friend limits bar; checked by ``check_calls``."""
    calls: list[FriendCall] = []
    for face in sorted(range(SMALL_JOKER), key=lambda f: (-ctx.strength[f], f)):
        if len(calls) == call_count(rules):
            break
        if hand[face] or ctx.category[face] == TRUMP:
            continue
        trial = [*calls, FriendCall(face, 1)]
        try:  # this many calls so far, each one the limits allow (R15.4)
            check_calls(replace(rules, friend_calls=len(trial)), ctx, trial)
        except InvalidArgumentError:
            continue
        calls = trial
    check_calls(rules, ctx, calls)
    return tuple(calls)


@dataclass(frozen=True, slots=True)
class TableGame:
    """One audited game on another table: the attackers' final score (dig included) and the final
    attackers (R15.8)."""

    score: int
    attackers: frozenset[int]


def play_table_game(rules: Rules, spec: TableDeal, seats: Sequence[Player]) -> TableGame:
    """One whole hand on ``rules``' table: the deal's declaration, the dealer's bury by his habits (the
    hand and the bottom together, R14.2), the dealer's friend calls under FRIENDS (:func:`table_calls`), then
    ``seats[s]`` playing seat s through ``rules_core.selfplay.play_out`` (every play checked, the sides
    as far as they are public in each view); the record is audited by ``rules_core.audit.audit_table``:
    a broken rule or a different score raises."""
    n = rules.seats
    bidding = declare_acts(
        rules=rules, level=spec.level, acts=spec.declarations, first_hand=False, dealer=spec.dealer
    )
    ctx = trump_context(spec.level, bidding.contract)
    dealer = spec.dealer
    held = [f for f in range(NUM_FACES) for _ in range(spec.hands[dealer][f])] + list(spec.bottom)
    bury = habits_of(seats[dealer]).bury
    buried = tuple(sorted(bury(ctx, rules, hand_of(held, rules.decks), ())))
    calls = table_calls(rules, ctx, spec.hands[dealer]) if rules.partners is Partners.FRIENDS else ()
    played = _played(ctx, rules, spec, buried, seats, calls)
    recorded: list[tuple[list[SeatCards], tuple[int, ...]]] = []
    leader = dealer
    for trick in played.tricks:
        recorded.append(([((leader + i) % n, p) for i, p in enumerate(trick.plays)], trick.attempted))
        leader = (leader + standing_of(ctx, rules, trick.plays).best) % n  # R7.4
    record = SeatsRecord(
        level=spec.level,
        seat_levels=(spec.level,) * n,
        hands=tuple(
            (s, tuple(f for f in range(NUM_FACES) for _ in range(spec.hands[s][f]))) for s in range(n)
        ),
        bottom=tuple(spec.bottom),
        declarations=tuple(spec.declarations),
        buried=buried,
        tricks=tuple(recorded),
        calls=tuple(calls),
        dealer=dealer,
    )
    audit = audit_table(rules, record)
    if audit.error is not None or audit.score != played.score:
        raise AuditError(f"audit failed: {audit.error} (table score {played.score}, audit {audit.score})")
    return TableGame(played.score, played.attackers)


def run_table_pairing(
    rules: Rules,
    p: Player,
    make_q: Callable[[int], Player],
    deals: int,
    seed: int,
    *,
    progress: Progress | None = None,
) -> PairingResult:
    """Duplicate games on another table: each deal twice, P on the even seats then on the odd ones.

    A game is worth, to P, the mean over P's seats of the attackers' score signed by that seat's final
    side (+ attacking, - on the dealer's side, R15.8); the deal's figure is the sum over its two games.
    With fixed partners on four seats it is the rulebooks' table's figure (attack minus defence)."""
    deltas: list[int] = []
    name = make_q(0).name
    games = 0
    for i in range(deals):
        spec = make_table_deal(rules, seed * 1_000_003 + i)
        total = 0.0
        for p_seats in (0, 1):
            q = make_q(seed * 7919 + i * 2 + p_seats)
            seats: list[Player] = [p if (s - p_seats) % 2 == 0 else q for s in range(rules.seats)]
            game = play_table_game(rules, spec, seats)
            games += 1
            mine = [s for s in range(rules.seats) if (s - p_seats) % 2 == 0]
            total += sum(game.score if s in game.attackers else -game.score for s in mine) / len(mine)
        deltas.append(round(total))
        if progress is not None:
            progress(PairingResult(p.name, name, tuple(deltas), games, games))
    return PairingResult(p.name, name, tuple(deltas), games, games)


TABLE_OPPONENTS: dict[str, Callable[[int], Player]] = {
    "R13.6": lambda seed: TableR136(),
    "random": RandomPlayer,
    "careful": lambda seed: CarefulPlayer(),
}
"""The opponents on another table (greedy is a four-seat player)."""


@dataclass
class TableR136:
    """R13.6's auto-play on any table (``autoplay.suggest_play`` with the table's decks)."""

    name: str = "R13.6"

    def __call__(self, ctx: TrumpContext, rules: Rules, view: SeatView, seed: int) -> tuple[int, ...]:
        lead = view.plays[0] if view.plays else ()
        return suggest_play(
            ctx, hand=view.hand, lead=lead, decks=rules.decks, structure=rules.follow is FollowRule.STRUCTURE
        )


def result_line(result: PairingResult) -> str:
    """P's points per deal with its 95 % interval, the shares and the audit count."""
    low, high = result.mean - result.half_width, result.mean + result.half_width
    return (
        f"{result.player} vs {result.opponent}: {result.mean:+.1f} points/deal "
        f"(95% CI {low:+.1f} .. {high:+.1f}), better in {result.better:.0%} of deals, "
        f"equal in {result.ties:.0%}; {result.games} games, {result.audited} audited legal"
    )


def phase_line(result: PairingResult) -> str:
    """P's points per deal by phase of the hand: where a change gains."""
    means = zip(PHASES, result.phase_means, strict=True)
    return "  by phase of the hand (points/deal): " + ", ".join(f"{what} {mean:+.1f}" for what, mean in means)


def progress_line(every: int = 10, out: TextIO | None = None) -> Progress:
    """A progress line every ``every`` deals: deals done, the running mean and its 95 % interval."""

    def show(so_far: PairingResult) -> None:
        n = len(so_far.deltas)
        if n % every == 0:
            low, high = so_far.mean - so_far.half_width, so_far.mean + so_far.half_width
            print(
                f"  {so_far.player} vs {so_far.opponent}: {n} deals, {so_far.mean:+.1f} points/deal "
                f"(95% CI {low:+.1f} .. {high:+.1f})",
                file=out or sys.stderr,
                flush=True,
            )

    return show


OPPONENTS: dict[str, Callable[[int], Player]] = {
    "R13.6": lambda seed: RightmostSmallest(),
    "random": RandomPlayer,
    "greedy": lambda seed: GreedyPlayer(),
    "careful": lambda seed: CarefulPlayer(),
}


def _latency_line(what: str, seconds: Sequence[float]) -> str:
    ms = [x * 1000 for x in seconds]
    return (
        f"strong latency per suggestion ({what}): p50 {_percentile(ms, 0.5):.2f} ms, "
        f"p99 {_percentile(ms, 0.99):.2f} ms, max {max(ms):.2f} ms over {len(ms)} suggestions"
    )


def _loopback(target: str) -> str:
    """``--target``'s HOST:PORT, refused unless HOST is this machine."""
    host, _, port = target.rpartition(":")
    if host not in LOOPBACK_HOSTS or not port.isdigit():
        raise argparse.ArgumentTypeError(
            f"HOST:PORT on this machine ({', '.join(LOOPBACK_HOSTS)}), not {target!r}"
        )
    return target


@contextlib.contextmanager
def service_stub(target: str) -> Iterator[rules_service_pb2_grpc.RulesServiceStub]:
    """A stub on one channel to ``target``, ready (or an error within RPC_TIMEOUT), closed at the end."""
    with grpc.insecure_channel(target) as channel:
        grpc.channel_ready_future(channel).result(timeout=RPC_TIMEOUT)
        yield rules_service_pb2_grpc.RulesServiceStub(channel)


def _parser() -> argparse.ArgumentParser:
    """The command line: deals, seed, budget, opponents, progress, plays-only and where the service is."""
    parser = argparse.ArgumentParser(prog="loadtest.tournament", description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=DEFAULT_DEALS, help="deals per pairing")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET, help="the strong player's budget")
    parser.add_argument(
        "--opponents", default=",".join(OPPONENTS), help="comma-separated: R13.6,random,greedy,careful"
    )
    parser.add_argument(
        "--progress",
        type=int,
        default=10,
        metavar="N",
        help="a progress line on stderr every N deals (0: none)",
    )
    parser.add_argument(
        "--plays-only",
        action="store_true",
        help="compare the card play alone: the deal's self-play declarations and one bury for everyone",
    )
    parser.add_argument("--decks", type=int, default=2, help="another table (R14): 2..4 decks")
    parser.add_argument("--seats", type=int, default=4, help="another table (R14): 4..8 seats")
    parser.add_argument(
        "--partners",
        choices=[p.value for p in Partners],
        default=Partners.FIXED.value,
        help="FIXED (every other seat, R14.9) or FRIENDS (the dealer calls friends, R15)",
    )
    live = parser.add_mutually_exclusive_group()
    live.add_argument(
        "--service",
        action="store_true",
        help="the strong side's every decision through SuggestDeclaration, SuggestBury and SuggestPlay of a "
        "tractor-rules serve started on 127.0.0.1 port 0",
    )
    live.add_argument(
        "--target", type=_loopback, metavar="HOST:PORT", help="the same through a running loopback server"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the pairings and print points per deal, confidence intervals, shares and latencies."""
    parser = _parser()
    args = parser.parse_args(argv)
    names = _checked_args(parser, args)
    table = _table_of(parser, args, names)
    if not table.rulebook_table:
        return _main_table(table, args, names)
    start = time.perf_counter()
    print(f"duplicate tournament: {args.deals} deals per pairing, seed {args.seed}, budget {args.budget}")
    with contextlib.ExitStack() as stack:
        strong: StrongPlayer | ServicePlayer
        target = args.target
        if args.service:
            target = stack.enter_context(ServerProcess(*load_flags())).target
        if target:
            strong = ServicePlayer(stack.enter_context(service_stub(target)), budget=args.budget)
            print(
                "strong side: SuggestDeclaration, SuggestBury and SuggestPlay at "
                f"{target} ({'started here' if args.service else 'running'})"
            )
        else:
            strong = StrongPlayer(budget=args.budget)
        print(
            "declarations and bury: "
            + ("the deal's self-play bidding, one bury for all" if args.plays_only else "each side's own")
        )
        sys.stdout.flush()
        declarer: Declarer = deal_declarations if args.plays_only else dealt_declarations
        burier: Burier | None = shared_bury if args.plays_only else None
        for name in names:
            progress = progress_line(args.progress) if args.progress else None
            result = run_pairing(
                DEFAULT_RULES,
                strong,
                OPPONENTS[name],
                args.deals,
                args.seed,
                declarer=declarer,
                burier=burier,
                progress=progress,
            )
            print(result_line(result))
            print(phase_line(result))
            sys.stdout.flush()
    print(
        f"strong decisions outside the play: {strong.asked['declaration']} declarations asked, "
        f"{strong.asked['bury']} buries"
    )
    if isinstance(strong, ServicePlayer):
        print(_latency_line("round trip", strong.latencies))
    else:
        _print_costs(strong)
    print(f"took {time.perf_counter() - start:.1f} s")
    return 0


def _print_costs(strong: StrongPlayer) -> None:
    """The in-process strong player's costs: wall and CPU per play suggestion, the ones a full garbage
    collection hit counted apart, the declaration and bury suggestions, the slowest replayed."""
    print(_latency_line("wall", strong.latencies))
    print(_latency_line("CPU", strong.cpu))
    if strong.collected:
        clean = sorted(strong.cpu)
        for paused in strong.collected:
            clean.remove(paused)
        print(
            f"{len(strong.collected)} suggestion(s) hit a full garbage collection (max "
            f"{max(strong.collected) * 1000:.2f} ms CPU); the max without them "
            f"{(clean[-1] if clean else 0.0) * 1000:.2f} ms"
        )
    for what, seconds in (
        ("SuggestDeclaration CPU", strong.declaration_cpu),
        ("SuggestBury CPU", strong.bury_cpu),
    ):
        if seconds:
            print(_latency_line(what, seconds))
    if strong.slowest:
        worst, view = strong.replay_slowest()
        print(
            f"the {len(strong.slowest)} slowest suggestions replayed 20 times each: the worst median "
            f"{worst * 1000:.2f} ms CPU ({sum(view.hand)} cards in hand, "
            f"{len(view.plays)} plays in the trick)"
        )


def _checked_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    """The opponents' names, once the numbers are in range (else the usage error)."""
    if args.deals < 1:
        parser.error("--deals must be at least 1")
    if args.progress < 0:
        parser.error("--progress must be at least 0")
    if args.seed < 0 or args.budget < 1:
        parser.error("--seed must be at least 0 and --budget at least 1 (a request's uint fields)")
    names = [name.strip() for name in args.opponents.split(",") if name.strip()]
    unknown = [name for name in names if name not in OPPONENTS]
    if unknown:
        parser.error(f"unknown opponents {unknown}; choose from {sorted(OPPONENTS)}")
    return names


def _table_of(parser: argparse.ArgumentParser, args: argparse.Namespace, names: Sequence[str]) -> Rules:
    """The table the flags ask for (R14, R15.1), and on another table only what plays there."""
    try:
        table = replace(DEFAULT_RULES, decks=args.decks, seats=args.seats, partners=Partners(args.partners))
    except InvalidArgumentError as error:
        parser.error(f"no such table: {error.message}")
    if not table.rulebook_table:
        if args.service or args.target or args.plays_only:
            parser.error(
                "another table plays in process only "
                "(--service, --target and --plays-only are the rulebooks' table's)"
            )
        unknown = [name for name in names if name not in TABLE_OPPONENTS]
        if unknown:
            parser.error(
                f"opponents {unknown} play four seats only; on another table: {sorted(TABLE_OPPONENTS)}"
            )
    return table


def _main_table(rules: Rules, args: argparse.Namespace, names: Sequence[str]) -> int:
    """The pairings on another table (:func:`run_table_pairing`), with the strong player's latency."""
    start = time.perf_counter()
    print(
        f"duplicate tournament on {rules.decks} decks, {rules.seats} seats, {rules.partners.value} partners: "
        f"{args.deals} deals per pairing, seed {args.seed}, budget {args.budget}"
    )
    print(
        "declarations and bury: the deal's one declaration; the strong dealer buries with SuggestBury's "
        "strong policy, the others with the table bury"
    )
    sys.stdout.flush()
    strong = StrongPlayer(budget=args.budget)
    for name in names:
        progress = progress_line(args.progress) if args.progress else None
        result = run_table_pairing(
            rules, strong, TABLE_OPPONENTS[name], args.deals, args.seed, progress=progress
        )
        print(result_line(result))
        sys.stdout.flush()
    _print_costs(strong)
    print(f"took {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
