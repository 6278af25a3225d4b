"""Valid requests for every RPC, from whole hands of seeded self-play, with the answers they must get.

The fuzzer mutates these (a request that is nearly right reaches much deeper into the engine than
random bytes), and the soak replays them as tables would: each :class:`Table` is one hand in play
order (declarations, bury, every lead and follow, each trick resolved, settlement, penalty, audit).
Expected answers are the engine's own (``rules_core.selfplay`` plays only legal moves), so a wrong
answer under load is an error like any failed call. The same seeds always give the same bytes.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from google.protobuf.message import Message

from loadtest.replay import SERVICE
from rules_core.audit import HandRecord, audit_hand
from rules_core.bidding import Bidding, resolve_declarations
from rules_core.cards import PLAYERS, Hand, add, faces_of, remove
from rules_core.rules import PRESETS, Rules
from rules_core.selfplay import play_hand
from rules_core.settlement import Side
from rules_core.trick import resolve_trick
from rules_core.trump import trump_context
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

METHODS: Final = tuple(method.name for method in SERVICE.methods)
PRESET_NAMES: Final = ("default", "rulebook-000", "rulebook-003")
CONTRACTS: Final = {0: t.CONTRACT_SPADES, 1: t.CONTRACT_HEARTS, 2: t.CONTRACT_CLUBS, 3: t.CONTRACT_DIAMONDS}


@dataclass(frozen=True, slots=True)
class Call:
    """One valid request and the response fields it must come back with (``expect``: field -> value)."""

    method: str
    request: Message
    expect: Mapping[str, Any] = field(default_factory=dict)

    def check(self, response: Message) -> str:
        """Empty when ``response`` has every expected value, else what differs."""
        for name, want in self.expect.items():
            got = getattr(response, name)
            if got != want:
                return f"{self.method}: {name} is {got!r}, expected {want!r}"
        return ""


@dataclass(frozen=True, slots=True)
class Table:
    """One hand as a table's backend sends it, in order."""

    seed: int
    calls: tuple[Call, ...]


def _faces(values: tuple[int, ...]) -> list[t.Card.ValueType]:
    """Faces as Card enum numbers (face + 1)."""
    return [t.Card.ValueType(face + 1) for face in values]


def _hand(hand: Hand) -> list[t.Card.ValueType]:
    """A hand (counts per face) as Card enum numbers."""
    return _faces(faces_of(hand))


def _rank(level: int) -> t.Rank.ValueType:
    return t.Rank.ValueType(level)


@dataclass
class _Hand:
    """One self-played hand and what the calls about it share."""

    seed: int
    rng: random.Random
    preset: str
    rules: Rules
    record: HandRecord
    rotation: int | None
    bidding: Bidding
    dealer: int
    contract: t.Contract.ValueType
    calls: list[Call] = field(default_factory=list)

    @property
    def ruleset(self) -> t.Ruleset:
        return t.Ruleset(preset=self.preset)

    @property
    def context(self) -> dict[str, Any]:
        return {"ruleset": self.ruleset, "level": _rank(self.record.level), "contract": self.contract}

    @property
    def declarations(self) -> list[pb.Declaration]:
        return [pb.Declaration(seat=d.seat, cards=_faces(d.cards)) for d in self.record.declarations]

    @property
    def dealer_cards(self) -> Hand:
        """The dealer's 33 cards: his hand and the bottom he picks up."""
        return add(self.record.deal[self.dealer], self.record.bottom)


def _start(seed: int) -> _Hand:
    rng = random.Random(seed)
    preset = PRESET_NAMES[seed % len(PRESET_NAMES)]
    rules = PRESETS[preset]
    level = 2 + rng.randrange(13)
    attacker_level = 2 + rng.randrange(13)
    rotation = None if rng.random() < 0.25 else rng.randrange(PLAYERS)
    record = play_hand(seed=seed, rules=rules, level=level, attacker_level=attacker_level, dealer=rotation)
    bidding = resolve_declarations(
        rules=rules, level=level, sequence=record.declarations, first_hand=rotation is None, dealer=rotation
    )
    assert bidding.dealer is not None
    contract = t.CONTRACT_NO_TRUMP if bidding.contract is None else CONTRACTS[int(bidding.contract)]
    return _Hand(seed, rng, preset, rules, record, rotation, bidding, bidding.dealer, contract)


def _bidding_calls(hand: _Hand) -> None:
    """ValidateDeclaration and ValidateBury."""
    declare = pb.ValidateDeclarationRequest(
        ruleset=hand.ruleset,
        level=_rank(hand.record.level),
        declarations=hand.declarations,
        first_hand=hand.rotation is None,
    )
    if hand.rotation is not None:
        declare.dealer = hand.rotation
    hand.calls.append(Call("ValidateDeclaration", declare, {"declared": hand.bidding.declared}))
    bury = pb.ValidateBuryRequest(
        ruleset=hand.ruleset, hand=_hand(hand.dealer_cards), bury=_faces(hand.record.buried)
    )
    hand.calls.append(Call("ValidateBury", bury, {"legal": True}))


def _play_calls(hand: _Hand) -> list[int]:
    """Every lead and follow (ValidatePlay, some ListLegalPlays and SuggestPlay) and each ResolveTrick;
    the leader of each trick."""
    record, context, leader = hand.record, hand.context, hand.dealer
    ctx = trump_context(record.level, hand.bidding.contract)
    held = list(record.deal)
    held[hand.dealer] = remove(hand.dealer_cards, record.buried)
    leaders = []
    for index, trick in enumerate(record.tricks):
        leaders.append(leader)
        others = [t.SeatCards(seat=s, cards=_hand(held[s])) for s in range(PLAYERS) if s != leader]
        led = _faces(trick.attempted or trick.plays[0])
        lead = pb.ValidatePlayRequest(
            **context, seat=leader, hand=_hand(held[leader]), cards=led, other_hands=others
        )
        hand.calls.append(Call("ValidatePlay", lead, {"legal": True}))
        plays = [t.SeatCards(seat=leader, cards=_faces(trick.plays[0]))]
        for offset in (1, 2, 3):
            seat = (leader + offset) % PLAYERS
            so_far = pb.Trick(leader=leader, plays=plays)
            position = {**context, "seat": seat, "hand": _hand(held[seat]), "trick": so_far}
            if index % 6 == offset:
                hand.calls.append(Call("ListLegalPlays", pb.ListLegalPlaysRequest(**position, max_plays=50)))
            if index % 7 == offset:
                hand.calls.append(Call("SuggestPlay", pb.SuggestPlayRequest(**position)))
            cards = _faces(trick.plays[offset])
            hand.calls.append(
                Call("ValidatePlay", pb.ValidatePlayRequest(**position, cards=cards), {"legal": True})
            )
            plays.append(t.SeatCards(seat=seat, cards=cards))
        last = index == len(record.tricks) - 1
        result = resolve_trick(
            ctx,
            hand.rules,
            leader=leader,
            plays=trick.plays,
            dealer=hand.dealer,
            last=last,
            bottom=record.buried,
        )
        resolve = pb.ResolveTrickRequest(
            **context, leader=leader, plays=plays, dealer=hand.dealer, last_trick=last
        )
        if last:
            resolve.bottom.extend(_faces(record.buried))
        if index % 3 == 0:  # with the hands, every play is checked too
            resolve.hands.extend(t.SeatCards(seat=s, cards=_hand(held[s])) for s in range(PLAYERS))
        hand.calls.append(Call("ResolveTrick", resolve, {"winner": result.winner, "legal": True}))
        for offset, play in enumerate(trick.plays):
            seat = (leader + offset) % PLAYERS
            held[seat] = remove(held[seat], play)
        leader = result.winner
    return leaders


def _settlement_calls(hand: _Hand, leaders: list[int]) -> None:
    """SettleHand, CalculatePenalty (coin rulesets) and AuditHand."""
    record, rng = hand.record, hand.rng
    audit = audit_hand(hand.rules, record)
    assert audit.valid and audit.settlement is not None
    stake = pb.TaoDouStake(
        base=1 + rng.randrange(1000),
        overturn_multiplier=hand.bidding.overturn_multiplier,
        rake_percent=rng.randrange(11),
        balances=[rng.randrange(100_000) for _ in range(PLAYERS)] if rng.random() < 0.5 else [],
    )
    settle = pb.SettleHandRequest(
        ruleset=hand.ruleset,
        dealer=hand.dealer,
        dealer_team_level=_rank(record.level),
        attacker_level=_rank(record.attacker_level),
        score=audit.score,
        tao_dou=stake if hand.rules.coins else None,
    )
    won = t.SIDE_DEALER_TEAM if audit.settlement.winner_side is Side.DEALER_TEAM else t.SIDE_ATTACKERS
    hand.calls.append(
        Call("SettleHand", settle, {"winner": won, "next_dealer": audit.settlement.next_dealer})
    )
    if hand.rules.coins:
        hand.calls.append(Call("CalculatePenalty", _penalty(hand, stake)))
    request = pb.AuditHandRequest(
        ruleset=hand.ruleset,
        level=_rank(record.level),
        attacker_level=_rank(record.attacker_level),
        hands=[t.SeatCards(seat=s, cards=_hand(record.deal[s])) for s in range(PLAYERS)],
        bottom=_faces(record.bottom),
        declarations=hand.declarations,
        first_hand=hand.rotation is None,
        buried=_faces(record.buried),
        tricks=[
            pb.RecordedTrick(
                plays=[
                    t.SeatCards(seat=(leader + offset) % PLAYERS, cards=_faces(play))
                    for offset, play in enumerate(trick.plays)
                ],
                attempted_lead=_faces(trick.attempted),
            )
            for trick, leader in zip(record.tricks, leaders, strict=True)
        ],
        tao_dou=stake if hand.rules.coins else None,
    )
    if hand.rotation is not None:
        request.dealer = hand.rotation
    hand.calls.append(Call("AuditHand", request, {"valid": True, "score": audit.score}))


def _penalty(hand: _Hand, stake: pb.TaoDouStake) -> pb.CalculatePenaltyRequest:
    """A forced quit by a random seat, with the dealer's cards for the automatic actions half the time."""
    rng = hand.rng
    quitter = rng.randrange(PLAYERS)
    if quitter == hand.dealer:
        role = pb.ROLE_DEALER
    else:
        role = pb.ROLE_PARTNER if quitter == (hand.dealer + 2) % PLAYERS else pb.ROLE_ATTACKER
    phases = [
        pb.QUIT_PHASE_Q1_BEFORE_DECLARATION,
        pb.QUIT_PHASE_Q2_BEFORE_BURYING,
        pb.QUIT_PHASE_Q3_BEFORE_SETTLEMENT,
    ]
    penalty = pb.CalculatePenaltyRequest(
        ruleset=hand.ruleset,
        phase=rng.choice(phases),
        seat=quitter,
        role=role,
        base=stake.base,
        dealer_level=_rank(hand.record.level),
        overturn_multiplier=hand.bidding.overturn_multiplier,
        balance=rng.randrange(1_000_000),
    )
    if role == pb.ROLE_DEALER and rng.random() < 0.5:
        penalty.level, penalty.contract = _rank(hand.record.level), hand.contract
        penalty.dealer_hand.extend(_hand(hand.dealer_cards))
        penalty.bottom.extend(_faces(hand.record.bottom))
    return penalty


def table(seed: int) -> Table:
    """Self-play hand ``seed`` and turn it into the calls a backend would make, with their answers."""
    hand = _start(seed)
    _bidding_calls(hand)
    leaders = _play_calls(hand)
    _settlement_calls(hand, leaders)
    return Table(seed, tuple(hand.calls))


def tables(count: int, *, first_seed: int = 1) -> list[Table]:
    """``count`` tables from consecutive seeds."""
    return [table(seed) for seed in range(first_seed, first_seed + count)]


def calls(count: int, *, first_seed: int = 1) -> list[Call]:
    """Every call of ``count`` tables, flattened: the fuzzer's seed corpus."""
    return [call for hand in tables(count, first_seed=first_seed) for call in hand.calls]
