"""Requests from whole hands of seeded self-play, with the rules' answers: the one corpus of the harness.

``make corpus`` writes the load-test corpus (Locust and the bench replay it); the fuzzer's seeds, the
soak's tables, the hostile inputs' bases and the deploy live load are built here too, from the same
hands, with a different :class:`Mix` (more illegal attempts, a quit in every coin hand, ListLegalPlays
and SuggestPlay), never by a copy of this code.

In the load corpus three seats of each hand play the strong auto-play (rules_core.strategy) and one,
drawn per hand, plays at random, so the traffic has the throws, ruffs and point fights of real games
(``--mix-report`` compares it with every seat random); the other mixes keep every seat random.

Each table script is one hand as a game frontend sends it, in order: the declarations, the bury, for
each trick the lead (throws included) and the three follows, some preceded by an illegal attempt the
player makes first, then ``ResolveTrick``; at the end ``SettleHand``, ``CalculatePenalty`` when someone
quit, and ``AuditHand``. Illegal attempts are made from the real position (a pair broken, a suit not
followed, a card not held, a mixed lead) so their verdicts are the ones players actually trigger.

Every expected answer is computed here with ``rules_core`` directly (check_lead, check_follow,
resolve_trick, settle_hand, ...), never through the service, which is what the load test checks. The same
seeds always give the same bytes, so the corpus is generated rather than committed.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from google.protobuf.message import Message

from loadtest import table_corpus
from loadtest.contract import CONTRACTS
from loadtest.expect import play_expect, trick_expect, violation
from loadtest.replay import CORPUS_DIR, Call, Script, corpus_path, write
from rules_core.audit import HandRecord, audit_hand
from rules_core.bidding import Bidding, Declaration, resolve_declarations
from rules_core.cards import (
    COPIES,
    HAND_SIZE,
    NUM_FACES,
    PLAYERS,
    Hand,
    Suit,
    add,
    faces_of,
    hand_of,
    points_of,
    remove,
)
from rules_core.follow import check_follow
from rules_core.forced_quit import Phase, Role, auto_bury, auto_lead, penalty
from rules_core.kitty import check_bury
from rules_core.legal_plays import legal_plays
from rules_core.rules import PRESETS, Rules
from rules_core.selfplay import Chooser, Style, play_hand, strong_seat
from rules_core.settlement import Settlement, Side, settle_hand
from rules_core.strategy import DEFAULT_BUDGET
from rules_core.taodou import CoinSettlement, settle_coins
from rules_core.throw import check_lead
from rules_core.trick import resolve_trick
from rules_core.trump import TRUMP, TrumpContext, trump_context
from rules_core.verdicts import Illegal, Legal
from services.convert import cards_out
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

DEFAULT_HANDS: Final = 160
"""Hands per table kind: enough that tables rarely replay the same hand at the same time."""
DEFAULT_STRESS: Final = 240
"""Worst-case positions in the stress corpus."""
SEED_BASE: Final = {"000": 1_000_000, "003": 3_000_000, "stress": 9_000_000}

ILLEGAL_FOLLOW_RATE: Final = 0.04
"""Share of follows to a single a player first tries illegally (frontends let the server reject them);
three times that after a pair, tractor or throw."""
ILLEGAL_LEAD_RATE: Final = 0.03
"""Share of leads first tried as a mixed-category lead."""
BATCH_ITEMS: Final = 50
"""Items per ValidatePlays of a hand re-checked in batches (the service takes at most 100)."""
BAD_DECLARATION_RATE: Final = 0.12
BAD_BURY_RATE: Final = 0.08
FORCED_QUIT_RATE: Final = 0.08
"""Share of [003] hands in which a player quits (强退): they get a CalculatePenalty."""
FIRST_HAND_RATE: Final = 0.1
PLAYERS_STYLE: Final = Style()
"""How the random seats of the load corpus play (self-play's defaults)."""
STRONG_SEATS: Final = 3
"""Seats of each load-corpus hand that play the strong auto-play; the other one, drawn per hand, plays
at random (a weak or careless player), so the traffic has real games' throws, ruffs and point fights."""
STRONG_BUDGET: Final = DEFAULT_BUDGET
"""The strong seats' budget (sampled layouts per play): the policy's default."""
SELF_PLAY_PRESETS: Final = ("default", "rulebook-000", "rulebook-003")
"""The presets :func:`self_play` cycles through by seed: both throw procedures, coins and none."""

PHASES: Final = {Phase.Q2: pb.QUIT_PHASE_Q2_BEFORE_BURYING, Phase.Q3: pb.QUIT_PHASE_Q3_BEFORE_SETTLEMENT}
ROLES: Final = {Role.DEALER: pb.ROLE_DEALER, Role.PARTNER: pb.ROLE_PARTNER, Role.ATTACKER: pb.ROLE_ATTACKER}


@dataclass(frozen=True, slots=True)
class Mix:
    """What a self-played hand's script holds besides the calls every table makes; :data:`LOAD` is the
    load corpus (what frontends send).

    The rates are the shares of positions first tried illegally and of coin hands in which a player
    quits; ``turns_every`` adds ListLegalPlays and SuggestPlay before the first follow of every n-th
    trick (0: never). ``style`` is how the random seats play; ``strong_seats`` seats, drawn per hand,
    play the strong policy with ``strong_budget`` instead (0: every seat random). The same seed and mix
    always give the same bytes.
    """

    style: Style = PLAYERS_STYLE
    strong_seats: int = 0
    strong_budget: int = STRONG_BUDGET
    illegal_follow_rate: float = ILLEGAL_FOLLOW_RATE
    illegal_lead_rate: float = ILLEGAL_LEAD_RATE
    bad_declaration_rate: float = BAD_DECLARATION_RATE
    bad_bury_rate: float = BAD_BURY_RATE
    forced_quit_rate: float = FORCED_QUIT_RATE
    first_hand_rate: float = FIRST_HAND_RATE
    turns_every: int = 0
    batches: bool = False
    """After the tricks, the hand's plays again as ValidatePlays and its tricks as ResolveTricks (a
    backend re-checking a finished hand), each item with the same answer as alone."""


LOAD: Final = Mix(strong_seats=STRONG_SEATS)
"""The load corpus: what game frontends send, from hands three strong seats and one random seat play."""
RANDOM_LOAD: Final = Mix()
"""The load corpus as it was with every seat random: the baseline of ``--mix-report``."""
EVERY_RPC: Final = Mix(forced_quit_rate=1.0, turns_every=3, batches=True)
"""The fuzzer's seeds, the soak's tables, the hostile bases: every RPC in each hand of a coin preset."""


# --------------------------------------------------------------------------------------------------
# wire values


def rank(level: int) -> t.Rank.ValueType:
    """A level (2..14) as its ``Rank`` enum number, which is the same number."""
    return t.Rank.ValueType(level)


def side(value: Side | None) -> int:
    """A side as its ``Side`` enum number (0 for none)."""
    return 0 if value is None else int(t.Side.Value("SIDE_" + value.name))


def contract(bidding: Bidding) -> int:
    """The contract the declarations set."""
    return int(CONTRACTS[bidding.contract])


def seat_cards(hands: dict[int, Hand]) -> list[t.SeatCards]:
    """Hands by seat as ``SeatCards``."""
    return [t.SeatCards(seat=seat, cards=cards_out(faces_of(hand))) for seat, hand in sorted(hands.items())]


def settle_expect(settlement: Settlement, coins: CoinSettlement | None, prefix: str = "") -> dict[str, Any]:
    """What a settlement must say (SettleHand, or AuditHand's ``settlement``)."""
    expect: dict[str, Any] = {
        "winner": side(settlement.winner_side),
        "levels_gained": settlement.g,
        "effective_levels_gained": settlement.g_eff,
        "take_over": settlement.take_over,
        "next_dealer": settlement.next_dealer,
        "next_level": settlement.next_level or 0,
        "game_over": settlement.game_over,
        "score_coefficient": settlement.K,
    }
    if coins is not None:
        expect |= {"coins.total": coins.total, "coins.deltas": list(coins.deltas), "coins.rake": coins.rake}
    return {prefix + key: value for key, value in expect.items()}


# --------------------------------------------------------------------------------------------------
# illegal attempts from real positions


def illegal_follow(
    ctx: TrumpContext, rules: Rules, rng: random.Random, hand: Hand, lead: Sequence[int]
) -> tuple[tuple[int, ...], Illegal] | None:
    """A follow a player could misclick from this position, with the engine's verdict; None if none found.

    Tries what players get wrong: right suit but pairs broken, a card of another suit while the led one
    is held, and a card that is not in the hand.
    """
    n = len(lead)
    category = ctx.category[lead[0]]
    held = faces_of(hand)
    in_category = [face for face in held if ctx.category[face] == category]
    attempts: list[tuple[int, ...]] = []
    distinct = sorted(set(in_category), key=lambda face: rng.random())
    if len(distinct) >= n > 1:  # the right suit with every pair split: the classic mistake
        attempts.append(tuple(distinct[:n]))
    for _ in range(12):
        roll = rng.random()
        if roll < 0.55 and len(in_category) >= n:  # the right suit, structure ignored
            attempts.append(tuple(rng.sample(in_category, n)))
        elif roll < 0.85 and len(held) >= n:  # any n cards
            attempts.append(tuple(rng.sample(held, n)))
        else:  # one card not held (another seat has it)
            missing = [face for face in range(NUM_FACES) if hand[face] < COPIES]
            chosen = list(rng.sample(held, n)) if len(held) >= n else list(held[:n])
            chosen[rng.randrange(len(chosen))] = rng.choice(missing)
            attempts.append(tuple(chosen))
    for attempt in attempts:
        verdict = check_follow(ctx, hand=hand, lead=lead, play=attempt)
        if isinstance(verdict, Illegal):
            return tuple(sorted(attempt)), verdict
    return None


def mixed_lead(ctx: TrumpContext, rng: random.Random, hand: Hand) -> tuple[int, ...] | None:
    """Two cards of different categories from the leader's hand (R4.3), or None if he holds one category."""
    held = faces_of(hand)
    first = rng.choice(held)
    others = [face for face in held if ctx.category[face] != ctx.category[first]]
    return (first, rng.choice(others)) if others else None


# --------------------------------------------------------------------------------------------------
# one hand as a frontend sends it


@dataclass
class _Stake:
    """A [003] table's Tao Dou stake and wallets."""

    base: int
    rake: int
    balances: list[int] | None


@dataclass(frozen=True, slots=True)
class _Played:
    """A hand as played: the record, what the declarations decided, and its trump context."""

    record: HandRecord
    bidding: Bidding
    dealer: int
    ctx: TrumpContext


def _batch_expect(alone: Sequence[Call]) -> dict[str, Any]:
    """What a batch of these calls must answer: item ``i`` what call ``i`` must answer alone."""
    return {
        f"results.{i}.response.{key}": value
        for i, call in enumerate(alone)
        for key, value in call.expect.items()
    }


@dataclass
class HandScript:
    """Builds one table's calls for one hand of self-play."""

    kind: str
    seed: int
    preset: str
    rng: random.Random
    mix: Mix = LOAD
    calls: list[Call] = field(default_factory=list)

    @property
    def rules(self) -> Rules:
        """The preset's rules, which the expected answers are computed with."""
        return PRESETS[self.preset]

    def add(self, method: str, request: Message, expect: dict[str, Any]) -> None:
        """Script a call (deterministic bytes, so the same seeds give the same corpus file)."""
        self.calls.append(Call(method, request.SerializeToString(deterministic=True), expect))

    def ruleset(self) -> t.Ruleset:
        """The request's ruleset: the frontend's preset, no overrides."""
        return t.Ruleset(preset=self.preset)

    def build(self) -> Script:
        """Play the hand with rules_core and script every call, with its expected answer."""
        rng, rules = self.rng, self.rules
        level, attacker_level = rng.randint(2, 14), rng.randint(2, 14)
        dealer = None if rng.random() < self.mix.first_hand_rate else rng.randrange(PLAYERS)
        seats = random.Random(f"strong-seats-{self.seed}")  # its own stream: the other draws stay
        strong = sorted(seats.sample(range(PLAYERS), self.mix.strong_seats))
        choosers: dict[int, Chooser] = {s: strong_seat(self.seed, self.mix.strong_budget) for s in strong}
        record = play_hand(
            seed=self.seed,
            rules=rules,
            level=level,
            attacker_level=attacker_level,
            dealer=dealer,
            style=self.mix.style,
            choosers=choosers,
        )
        bidding = self.declarations(record)
        assert bidding.dealer is not None
        seat = bidding.dealer
        ctx = trump_context(level, bidding.contract)
        hand = _Played(record, bidding, seat, ctx)
        coins = rules.coins
        stake = _Stake(
            base=rng.choice((10, 50, 100, 500)),
            rake=rng.choice((0, 3, 5)),
            balances=[rng.randint(0, 400_000) for _ in range(PLAYERS)] if rng.random() < 0.5 else None,
        )
        quitter = rng.randrange(PLAYERS) if coins and rng.random() < self.mix.forced_quit_rate else None
        if quitter is not None and quitter == seat and rng.random() < 0.5:
            self.dealer_quits_before_burying(hand, stake)
            quitter = None
        self.bury(record, seat)
        if self.mix.turns_every:
            self.auto_deal(record, bidding, seat)
        score = self.tricks(record, ctx, seat, checked=coins)
        if self.mix.batches:
            self.batches()
        settlement = self.settle(hand, score, stake if coins else None)
        if quitter is not None:
            self.quit_after_settlement(hand, quitter, score=score, settlement=settlement, stake=stake)
        self.audit(record, stake if coins else None)
        return Script(f"{self.kind}/{self.preset}/seed-{self.seed}", tuple(self.calls))

    def auto_deal(self, record: HandRecord, bidding: Bidding, dealer: int) -> None:
        """托管 before the play: SuggestDeclaration for the dealer with its dealt cards after the hand's
        acts, and SuggestBury of its 33 cards (R13.6's auto-bury in odd seeds, the strong one in even)."""
        level = t.Rank.ValueType(record.level)
        declaration = pb.SuggestDeclarationRequest(
            ruleset=self.ruleset(),
            level=level,
            seat=dealer,
            received=cards_out(faces_of(record.deal[dealer])),
            declarations=[
                pb.Declaration(seat=act.seat, cards=cards_out(act.cards)) for act in record.declarations
            ],
        )
        self.add("SuggestDeclaration", declaration, {})
        bury = pb.SuggestBuryRequest(
            ruleset=self.ruleset(),
            level=level,
            contract=CONTRACTS[bidding.contract],
            hand=cards_out(faces_of(add(record.deal[dealer], record.bottom))),
            bottom=cards_out(record.bottom),
            policy=pb.BURY_POLICY_AUTO_BURY if self.seed % 2 else pb.BURY_POLICY_STRONG,
        )
        self.add("SuggestBury", bury, {"policy": int(bury.policy)})

    def declarations(self, record: HandRecord) -> Bidding:
        """ValidateDeclaration as each act comes in (the acts so far plus the new one); some bad acts."""
        rules, acts = self.rules, list(record.declarations)

        def request(sequence: Sequence[Declaration]) -> tuple[pb.ValidateDeclarationRequest, Bidding]:
            message = pb.ValidateDeclarationRequest(
                ruleset=self.ruleset(),
                level=rank(record.level),
                declarations=[pb.Declaration(seat=d.seat, cards=cards_out(d.cards)) for d in sequence],
                first_hand=record.first_hand,
                first_seated=record.first_seated,
            )
            if record.dealer is not None:
                message.dealer = record.dealer
            bidding = resolve_declarations(
                rules=rules,
                level=record.level,
                sequence=sequence,
                first_hand=record.first_hand,
                first_seated=record.first_seated,
                dealer=record.dealer,
            )
            return message, bidding

        for i in range(len(acts)):
            message, bidding = request(acts[: i + 1])
            expect: dict[str, Any] = {
                "accepted": bidding.acts[-1] is not None,
                "contract": contract(bidding),
                "overturn_multiplier": bidding.overturn_multiplier,
            }
            if bidding.acts[-1] is None:
                expect["verdicts.-1.rejection"] = int(
                    pb.DeclarationRejection.Value(
                        "DECLARATION_REJECTION_" + bidding.rejections[-1].reason.name
                    )
                )
            self.add("ValidateDeclaration", message, expect)
        if self.rng.random() < self.mix.bad_declaration_rate:  # a card that is not of the level rank
            wrong_rank = record.level + 1 if record.level < 14 else 2
            bad = Declaration(self.rng.randrange(PLAYERS), (self.rng.randrange(4) * 13 + wrong_rank - 2,))
            message, bidding = request([*acts, bad])
            rejection = bidding.rejections[-1].reason.name
            self.add(
                "ValidateDeclaration",
                message,
                {
                    "accepted": False,
                    "verdicts.-1.rejection": int(
                        pb.DeclarationRejection.Value("DECLARATION_REJECTION_" + rejection)
                    ),
                },
            )
        return request(acts)[1]

    def bury(self, record: HandRecord, dealer: int) -> None:
        """ValidateBury of the dealer's 33 cards; sometimes a first attempt with a card too few."""
        hand33 = add(record.deal[dealer], record.bottom)
        attempts = [record.buried]
        if self.rng.random() < self.mix.bad_bury_rate:
            attempts.insert(0, record.buried[:-1])
        for bury in attempts:
            result = check_bury(hand=hand33, bury=bury)
            expect: dict[str, Any] = {"legal": result.legal}
            if result.legal:
                expect["bottom_points"] = points_of(bury)
            elif result.reason is not None:
                expect["violation"] = violation(result.reason)
            request = pb.ValidateBuryRequest(
                ruleset=self.ruleset(), hand=cards_out(faces_of(hand33)), bury=cards_out(bury)
            )
            self.add("ValidateBury", request, expect)

    def tricks(self, record: HandRecord, ctx: TrumpContext, dealer: int, *, checked: bool) -> int:
        """Every trick: the lead, each follow (after any illegal attempt), then ResolveTrick; the score.

        ``checked`` frontends send the four hands with ResolveTrick so the service checks each play again.
        """
        rng, rules = self.rng, self.rules
        hands = list(record.deal)
        hands[dealer] = remove(add(hands[dealer], record.bottom), record.buried)
        leader, score = dealer, 0
        for index, trick in enumerate(record.tricks):
            before = list(hands)
            others = {s: hands[s] for s in range(PLAYERS) if s != leader}
            attempt = trick.attempted or trick.plays[0]
            base: dict[str, Any] = {
                "ruleset": self.ruleset(),
                "level": record.level,
                "contract": CONTRACTS[ctx.trump],
            }
            leads: list[tuple[int, ...]] = []
            if rng.random() < self.mix.illegal_lead_rate and (mixed := mixed_lead(ctx, rng, hands[leader])):
                leads.append(mixed)
            leads.append(tuple(attempt))
            for lead in leads:
                verdict = check_lead(ctx, rules, hand=hands[leader], lead=lead, others=others)
                request = pb.ValidatePlayRequest(
                    **base,
                    seat=leader,
                    hand=cards_out(faces_of(hands[leader])),
                    cards=cards_out(lead),
                    trick=pb.Trick(leader=leader),
                    other_hands=seat_cards(others),
                )
                self.add("ValidatePlay", request, play_expect(verdict))
            led = trick.plays[0]
            for offset in (1, 2, 3):
                seat = (leader + offset) % PLAYERS
                so_far = pb.Trick(
                    leader=leader,
                    plays=[
                        t.SeatCards(seat=(leader + i) % PLAYERS, cards=cards_out(trick.plays[i]))
                        for i in range(offset)
                    ],
                )
                follows: list[tuple[tuple[int, ...], Legal | Illegal]] = []
                if offset == 1 and self.mix.turns_every and index % self.mix.turns_every == 0:
                    self.turn(base, seat, hands[seat], so_far)
                rate = self.mix.illegal_follow_rate * (
                    3 if len(led) > 1 else 1
                )  # pairs led get misplayed most
                if rng.random() < rate and (wrong := illegal_follow(ctx, rules, rng, hands[seat], led)):
                    follows.append(wrong)
                play = trick.plays[offset]
                follows.append((play, check_follow(ctx, hand=hands[seat], lead=led, play=play)))
                for cards_played, verdict in follows:
                    request = pb.ValidatePlayRequest(
                        **base,
                        seat=seat,
                        hand=cards_out(faces_of(hands[seat])),
                        cards=cards_out(cards_played),
                        trick=so_far,
                    )
                    self.add("ValidatePlay", request, play_expect(verdict))
            for offset, play in enumerate(trick.plays):
                hands[(leader + offset) % PLAYERS] = remove(hands[(leader + offset) % PLAYERS], play)
            last = not any(sum(hand) for hand in hands)
            result = resolve_trick(
                ctx, rules, leader=leader, plays=trick.plays, dealer=dealer, last=last, bottom=record.buried
            )
            resolve = pb.ResolveTrickRequest(
                **base,
                leader=leader,
                plays=[
                    t.SeatCards(seat=(leader + i) % PLAYERS, cards=cards_out(play))
                    for i, play in enumerate(trick.plays)
                ],
                last_trick=last,
                bottom=cards_out(record.buried) if last else [],
                dealer=dealer,
            )
            if checked:
                resolve.hands.extend(seat_cards(dict(enumerate(before))))
            self.add("ResolveTrick", resolve, trick_expect(result))
            score += result.attacker_points
            leader = result.winner
        return score

    def turn(self, base: dict[str, Any], seat: int, hand: Hand, trick: pb.Trick) -> None:
        """ListLegalPlays and SuggestPlay for ``seat`` to play into ``trick`` (a frontend's hints)."""
        position: dict[str, Any] = {**base, "seat": seat, "hand": cards_out(faces_of(hand)), "trick": trick}
        self.add("ListLegalPlays", pb.ListLegalPlaysRequest(**position, max_plays=50), {})
        self.add("SuggestPlay", pb.SuggestPlayRequest(**position), {})

    def batches(self) -> None:
        """The hand's ValidatePlay calls as ValidatePlays of BATCH_ITEMS, its ResolveTrick calls as one
        ResolveTricks; item ``i`` must get the answer the call got alone."""
        plays = [call for call in self.calls if call.method == "ValidatePlay"]
        for start in range(0, len(plays), BATCH_ITEMS):
            chunk = plays[start : start + BATCH_ITEMS]
            items = [pb.ValidatePlayRequest.FromString(call.request) for call in chunk]
            self.add("ValidatePlays", pb.ValidatePlaysRequest(items=items), _batch_expect(chunk))
        tricks = [call for call in self.calls if call.method == "ResolveTrick"]
        resolves = [pb.ResolveTrickRequest.FromString(call.request) for call in tricks]
        self.add("ResolveTricks", pb.ResolveTricksRequest(items=resolves), _batch_expect(tricks))

    def settle(self, hand: _Played, score: int, stake: _Stake | None) -> Settlement:
        """SettleHand, with the Tao Dou stake at a [003] table."""
        record, bidding, dealer = hand.record, hand.bidding, hand.dealer
        settlement = settle_hand(
            rules=self.rules,
            dealer_seat=dealer,
            dealer_level=record.level,
            attacker_level=record.attacker_level,
            score=score,
        )
        request = pb.SettleHandRequest(
            ruleset=self.ruleset(),
            dealer=dealer,
            dealer_team_level=rank(record.level),
            attacker_level=rank(record.attacker_level),
            score=score,
        )
        coins = None
        if stake is not None:
            coins = self.coins(hand, score, settlement, stake)
            request.tao_dou.CopyFrom(
                pb.TaoDouStake(
                    base=stake.base,
                    overturn_multiplier=bidding.overturn_multiplier,
                    rake_percent=stake.rake,
                    balances=stake.balances or [],
                )
            )
        self.add("SettleHand", request, settle_expect(settlement, coins))
        return settlement

    def coins(self, hand: _Played, score: int, settlement: Settlement, stake: _Stake) -> CoinSettlement:
        """R12 for this hand's stake."""
        return settle_coins(
            rules=self.rules,
            base=stake.base,
            dealer_level=hand.record.level,
            overturn=hand.bidding.overturn_multiplier,
            score=score,
            rake_bp=stake.rake * 100,
            dealer_seat=hand.dealer,
            g_eff=settlement.g_eff,
            balances=stake.balances,
        )

    def dealer_quits_before_burying(self, hand: _Played, stake: _Stake) -> None:
        """Q2: the dealer quits holding 33 cards; the system buries the bottom and leads for him (R13.6)."""
        record, bidding, dealer, ctx = hand.record, hand.bidding, hand.dealer, hand.ctx
        hand33 = add(record.deal[dealer], record.bottom)
        hand25, buried = auto_bury(hand33=hand33, bottom=record.bottom)
        balance = self.rng.randint(0, 200_000)
        result = penalty(
            rules=self.rules,
            phase=Phase.Q2,
            role=Role.DEALER,
            base=stake.base,
            dealer_level=record.level,
            overturn=bidding.overturn_multiplier,
            balance=balance,
        )
        request = pb.CalculatePenaltyRequest(
            ruleset=self.ruleset(),
            phase=PHASES[Phase.Q2],
            seat=dealer,
            role=ROLES[Role.DEALER],
            base=stake.base,
            dealer_level=rank(record.level),
            overturn_multiplier=bidding.overturn_multiplier,
            balance=balance,
            level=rank(record.level),
            contract=CONTRACTS[ctx.trump],
            dealer_hand=cards_out(faces_of(hand33)),
            bottom=cards_out(record.bottom),
        )
        expect = {
            "penalty": result.penalty,
            "deducted": result.deducted,
            "capped": result.capped,
            "disconnects": result.disconnects,
            "auto_bury~": cards_out(buried),
            "auto_lead": auto_lead(ctx, hand25) + 1,
        }
        self.add("CalculatePenalty", request, expect)

    def quit_after_settlement(
        self, hand: _Played, quitter: int, *, score: int, settlement: Settlement, stake: _Stake
    ) -> None:
        """Q3: a player quit during play; the hand was auto-played and settled, then his penalty (R13.4)."""
        record, bidding, dealer = hand.record, hand.bidding, hand.dealer
        role = (
            Role.DEALER
            if quitter == dealer
            else Role.PARTNER
            if quitter == (dealer + 2) % PLAYERS
            else Role.ATTACKER
        )
        coins = self.coins(hand, score, settlement, stake)
        on_dealer_team = quitter in (dealer, (dealer + 2) % PLAYERS)
        lost = (coins.winners is Side.DEALER_TEAM) != on_dealer_team
        owed = coins.loser_loss if lost else 0
        balance = self.rng.randint(0, 300_000)
        result = penalty(
            rules=self.rules,
            phase=Phase.Q3,
            role=role,
            base=stake.base,
            dealer_level=record.level,
            overturn=bidding.overturn_multiplier,
            balance=balance,
            quitter_side_lost=lost,
            owed=owed,
        )
        request = pb.CalculatePenaltyRequest(
            ruleset=self.ruleset(),
            phase=PHASES[Phase.Q3],
            seat=quitter,
            role=ROLES[role],
            base=stake.base,
            dealer_level=rank(record.level),
            overturn_multiplier=bidding.overturn_multiplier,
            balance=balance,
            quitter_side_lost=lost,
            owed=owed,
        )
        expect = {
            "penalty": result.penalty,
            "deducted": result.deducted,
            "capped": result.capped,
            "paid_on_behalf": result.paid_on_behalf,
            "confiscated": result.confiscated,
        }
        self.add("CalculatePenalty", request, expect)

    def audit(self, record: HandRecord, stake: _Stake | None) -> None:
        """AuditHand of the whole record: valid, its score, and the settlement (with coins at [003])."""
        audit = audit_hand(self.rules, record)
        assert audit.valid and audit.settlement is not None and audit.dealer is not None, audit.error
        leaders = (audit.dealer, *(r.winner for r in audit.tricks))[: len(record.tricks)]
        request = audit_request(record, leaders, self.ruleset())
        if record.dealer is not None:
            request.dealer = record.dealer
        coins = None
        if stake is not None:
            overturn = audit.bidding.overturn_multiplier
            request.tao_dou.CopyFrom(
                pb.TaoDouStake(
                    base=stake.base,
                    overturn_multiplier=overturn,
                    rake_percent=stake.rake,
                    balances=stake.balances or [],
                )
            )
            coins = settle_coins(
                rules=self.rules,
                base=stake.base,
                dealer_level=record.level,
                overturn=overturn,
                score=audit.score,
                rake_bp=stake.rake * 100,
                dealer_seat=audit.dealer,
                g_eff=audit.settlement.g_eff,
                balances=stake.balances,
            )
        expect = {
            "valid": True,
            "finding": 0,
            "score": audit.score,
            "dealer": audit.dealer,
            "contract": contract(audit.bidding),
            "overturn_multiplier": audit.bidding.overturn_multiplier,
        } | settle_expect(audit.settlement, coins, prefix="settlement.")
        self.add("AuditHand", request, expect)


# --------------------------------------------------------------------------------------------------
# worst cases: long throws full of pairs and tractors


def audit_request(record: HandRecord, leaders: Sequence[int], ruleset: t.Ruleset) -> pb.AuditHandRequest:
    """A hand record as a client sends it to AuditHand: every trick's plays by seat (``leaders[i]`` led
    trick ``i``), a failed throw's whole attempt."""
    return pb.AuditHandRequest(
        ruleset=ruleset,
        level=rank(record.level),
        attacker_level=rank(record.attacker_level),
        hands=seat_cards(dict(enumerate(record.deal))),
        bottom=cards_out(record.bottom),
        declarations=[pb.Declaration(seat=d.seat, cards=cards_out(d.cards)) for d in record.declarations],
        first_hand=record.first_hand,
        first_seated=record.first_seated,
        buried=cards_out(record.buried),
        tricks=[
            pb.RecordedTrick(
                plays=[
                    t.SeatCards(seat=(leader + i) % PLAYERS, cards=cards_out(play))
                    for i, play in enumerate(trick.plays)
                ],
                attempted_lead=cards_out(trick.attempted),
            )
            for trick, leader in zip(record.tricks, leaders, strict=True)
        ],
    )


def _rich_hand(
    ctx: TrumpContext, rng: random.Random, pool: list[int], category: int, *, pairs: int, singles: int
) -> list[int]:
    """Take from ``pool`` pairs (runs of adjacent rungs where possible) and some singles of a category."""
    ladder = [face for rung in ctx.ladder[category] for face in rung]
    start = rng.randrange(max(len(ladder) - pairs, 1))
    chosen: list[int] = []
    for face in ladder[start:] + ladder[:start]:
        if len(chosen) >= 2 * pairs:
            break
        if pool.count(face) == COPIES:
            chosen += [face, face]
            pool.remove(face)
            pool.remove(face)
    for face in [f for f in rng.sample(pool, len(pool)) if ctx.category[f] == category][:singles]:
        chosen.append(face)
        pool.remove(face)
    return chosen


def stress_script(seed: int, preset: str) -> Script:
    """A lead that throws a whole trump holding of pairs and tractors, three follows, and ResolveTrick.

    The followers hold more trumps than were led, with pairs, so every follow check runs the full
    structure search (R5.3); one follow in three is first tried illegally.
    """
    rng = random.Random(seed)
    rules = PRESETS[preset]
    level = rng.randint(2, 14)
    trump = rng.choice([Suit.S, Suit.H, Suit.C, Suit.D, None])
    ctx = trump_context(level, trump)
    pool = [face for face in range(NUM_FACES) for _ in range(COPIES)]
    rng.shuffle(pool)
    leader = rng.randrange(PLAYERS)
    hands: dict[int, list[int]] = {
        leader: _rich_hand(ctx, rng, pool, TRUMP, pairs=rng.randint(4, 6), singles=rng.randint(0, 2))
    }
    follower = (leader + rng.randint(1, 3)) % PLAYERS
    hands[follower] = _rich_hand(ctx, rng, pool, TRUMP, pairs=rng.randint(5, 7), singles=rng.randint(3, 6))
    for seat in range(PLAYERS):
        taken = hands.setdefault(seat, [])
        while len(taken) < HAND_SIZE:
            taken.append(pool.pop())
    counts = {seat: hand_of(faces) for seat, faces in hands.items()}
    lead = tuple(sorted(face for face in hands[leader] if ctx.category[face] == TRUMP))
    calls: list[Call] = []
    base: dict[str, Any] = {"ruleset": t.Ruleset(preset=preset), "level": level, "contract": CONTRACTS[trump]}
    others = {seat: counts[seat] for seat in range(PLAYERS) if seat != leader}
    verdict = check_lead(ctx, rules, hand=counts[leader], lead=lead, others=others)
    request = pb.ValidatePlayRequest(
        **base,
        seat=leader,
        hand=cards_out(faces_of(counts[leader])),
        cards=cards_out(lead),
        trick=pb.Trick(leader=leader),
        other_hands=seat_cards(others),
    )
    calls.append(Call("ValidatePlay", request.SerializeToString(deterministic=True), play_expect(verdict)))
    plays = [lead]
    verdicts: list[Legal | Illegal] = [verdict]
    for offset in (1, 2, 3):
        seat = (leader + offset) % PLAYERS
        trick = pb.Trick(
            leader=leader,
            plays=[t.SeatCards(seat=(leader + i) % PLAYERS, cards=cards_out(p)) for i, p in enumerate(plays)],
        )
        options = legal_plays(ctx, hand=counts[seat], lead=lead, limit=50).plays
        play = tuple(sorted(rng.choice(options)))
        attempts = []
        if rng.random() < 1 / 3 and (wrong := illegal_follow(ctx, rules, rng, counts[seat], lead)):
            attempts.append(wrong[0])
        attempts.append(play)
        for attempt in attempts:
            follow = check_follow(ctx, hand=counts[seat], lead=lead, play=attempt)
            request = pb.ValidatePlayRequest(
                **base,
                seat=seat,
                hand=cards_out(faces_of(counts[seat])),
                cards=cards_out(attempt),
                trick=trick,
            )
            calls.append(
                Call("ValidatePlay", request.SerializeToString(deterministic=True), play_expect(follow))
            )
        verdicts.append(follow)
        plays.append(play)
    resolve = pb.ResolveTrickRequest(
        **base,
        leader=leader,
        plays=[t.SeatCards(seat=(leader + i) % PLAYERS, cards=cards_out(p)) for i, p in enumerate(plays)],
        hands=seat_cards(counts),
        dealer=rng.randrange(PLAYERS),
    )
    throw = verdict.throw if isinstance(verdict, Legal) else None
    if throw is not None and not throw.succeeded:  # checked trick: a failed throw is not resolved
        expect: dict[str, Any] = {"legal": False, "winner": 0, "plays.0.checked": True}
    else:
        result = resolve_trick(ctx, rules, leader=leader, plays=plays, dealer=resolve.dealer)
        expect = trick_expect(result)
    calls.append(Call("ResolveTrick", resolve.SerializeToString(deterministic=True), expect))
    return Script(f"stress/{preset}/seed-{seed}", tuple(calls))


# --------------------------------------------------------------------------------------------------
# the command


def hand_script(seed: int, preset: str, *, mix: Mix = LOAD, kind: str | None = None) -> Script:
    """Self-play hand ``seed`` under ``preset`` and script every call a table makes, with its answer.

    Coin presets get a Tao Dou stake, checked tricks (the four hands sent with ResolveTrick) and, at
    ``mix.forced_quit_rate``, a CalculatePenalty. ``kind`` starts the script's name.
    """
    return HandScript(kind or "self-play", seed, preset, random.Random(seed), mix).build()


def table_scripts(kind: str, hands: int, mix: Mix = LOAD) -> list[Script]:
    """``hands`` hands of one frontend: [000] tables alternate rulebook-000 and -001, [003] is coins."""
    presets = ("rulebook-000", "rulebook-001") if kind == "000" else ("rulebook-003",)
    return [
        hand_script(SEED_BASE[kind] + i, presets[i % len(presets)], mix=mix, kind=kind) for i in range(hands)
    ]


def self_play(
    count: int, *, first_seed: int, presets: Sequence[str] = SELF_PLAY_PRESETS, mix: Mix = EVERY_RPC
) -> list[Script]:
    """``count`` hands from consecutive seeds, seed ``s`` under ``presets[s % len(presets)]``."""
    return [
        hand_script(seed, presets[seed % len(presets)], mix=mix)
        for seed in range(first_seed, first_seed + count)
    ]


def calls(count: int, *, first_seed: int, mix: Mix = EVERY_RPC) -> list[Call]:
    """Every call of :func:`self_play` hands, flattened: the fuzzer's seed corpus."""
    return [call for script in self_play(count, first_seed=first_seed, mix=mix) for call in script.calls]


def stress_scripts(count: int) -> list[Script]:
    """``count`` worst-case positions, alternating the two throw procedures (THROW-000, THROW-003)."""
    presets = ("rulebook-000", "rulebook-003")
    return [stress_script(SEED_BASE["stress"] + i, presets[i % 2]) for i in range(count)]


def generate(directory: Path, *, hands: int = DEFAULT_HANDS, stress: int = DEFAULT_STRESS) -> dict[str, int]:
    """Write the corpus files into ``directory``; calls written per kind. The other table's kind
    (``friends``, ``hands`` hands) comes last, so the rulebooks' kinds are built exactly as before."""

    written = {}
    for kind in ("000", "003"):
        written[kind] = write(corpus_path(kind, directory), table_scripts(kind, hands))
    written["stress"] = write(corpus_path("stress", directory), stress_scripts(stress))
    written[table_corpus.KIND] = write(
        corpus_path(table_corpus.KIND, directory), table_corpus.table_scripts(hands)
    )
    return written


MIX_METHODS: Final = (
    "ValidateDeclaration",
    "ValidateBury",
    "ValidatePlay",
    "ResolveTrick",
    "SettleHand",
    "CalculatePenalty",
    "AuditHand",
)
WON_BY: Final = {
    int(pb.JUDGEMENT_LEAD): "lead",
    int(pb.JUDGEMENT_BEAT): "beat",
    int(pb.JUDGEMENT_RUFF): "ruff",
    int(pb.JUDGEMENT_OVER_RUFF): "over-ruff",
}


def mix_counts(scripts: Sequence[Script]) -> dict[str, float]:
    """Per hand, on average: calls by method, throws tried and failed, how tricks were won, illegal
    attempts and the attackers' points, all read from the scripts' requests and expected answers."""
    totals: dict[str, float] = {f"calls: {method}": 0 for method in MIX_METHODS}
    keys = ("throws attempted", "throws failed", "illegal ValidatePlay attempts")
    totals |= dict.fromkeys(keys, 0)
    totals |= {f"tricks won by {how}": 0 for how in WON_BY.values()}
    totals["attackers' points (audited score)"] = 0
    for script in scripts:
        for call in script.calls:
            expect = call.expect
            totals[f"calls: {call.method}"] = totals.get(f"calls: {call.method}", 0) + 1
            if call.method == "ValidatePlay":
                if "throw_outcome.result" in expect:
                    totals["throws attempted"] += 1
                    totals["throws failed"] += expect["throw_outcome.result"] == t.THROW_RESULT_FAILED
                totals["illegal ValidatePlay attempts"] += not expect["legal"]
            elif call.method == "ResolveTrick":
                totals[f"tricks won by {WON_BY[expect['won_by']]}"] += 1
            elif call.method == "AuditHand":
                totals["attackers' points (audited score)"] += expect["score"]
    return {key: value / max(len(scripts), 1) for key, value in totals.items()}


def mix_report(hands: int) -> list[str]:
    """The load corpus's tables ([000] and [003], ``hands`` each) with every seat random and with
    :data:`STRONG_SEATS` strong seats, side by side: what the strong seats change in the traffic."""
    columns: list[tuple[str, dict[str, float], float]] = []
    for title, mix in (("all random", RANDOM_LOAD), (f"{STRONG_SEATS} strong + 1 random", LOAD)):
        started = time.process_time()
        scripts = [*table_scripts("000", hands, mix), *table_scripts("003", hands, mix)]
        columns.append((title, mix_counts(scripts), time.process_time() - started))
    (_, before, _), (_, after, _) = columns
    keys = [*before, *(key for key in after if key not in before)]
    width = max(len(key) for key in keys)
    lines = [f"per hand, {2 * hands} hands ({hands} [000] + {hands} [003])"]
    lines.append(f"{'':{width}}  {columns[0][0]:>14}  {columns[1][0]:>20}")
    for key in keys:
        lines.append(f"{key:{width}}  {before.get(key, 0):>14.2f}  {after.get(key, 0):>20.2f}")
    lines.append(f"{'CPU seconds to build':{width}}  {columns[0][2]:>14.1f}  {columns[1][2]:>20.1f}")
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m loadtest.corpus [--out DIR] [--hands N] [--stress N] [--mix-report]``."""
    parser = argparse.ArgumentParser(prog="loadtest.corpus", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=CORPUS_DIR, help="directory (default loadtest/corpus)")
    parser.add_argument("--hands", type=int, default=DEFAULT_HANDS, help="hands per table kind")
    parser.add_argument("--stress", type=int, default=DEFAULT_STRESS, help="worst-case positions")
    parser.add_argument(
        "--mix-report",
        action="store_true",
        help="write nothing: print the request mix per hand with every seat random and with strong seats",
    )
    args = parser.parse_args(argv)
    if args.mix_report:
        print("\n".join(mix_report(args.hands)))
        return 0
    started = time.perf_counter()
    written = generate(args.out, hands=args.hands, stress=args.stress)
    for kind, calls in written.items():
        size = corpus_path(kind, args.out).stat().st_size
        print(f"{corpus_path(kind, args.out)}: {calls} calls, {size / 1024:.0f} KiB")
    print(f"corpus generated in {time.perf_counter() - started:.1f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
