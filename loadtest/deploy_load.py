"""A small deterministic load driver for the deploy tests: every RPC, every kind of outcome, through the wire.

The deploy tests need every dashboard panel and every recording rule to return data, so the load must
produce every series the dashboard reads: legal and illegal plays, throws that succeed and fail, tricks
won each way, settlements in several bands, penalties in every phase, every preset, and some malformed
requests (non-OK codes). The corpus is built from seeded self-play hands (``rules_core.selfplay``), so
the same seeds always give the same requests, and replayed from a few threads until a time limit.

Run by hand against a server, from the repository root:
``.venv/bin/python -m loadtest.deploy_load --target 127.0.0.1:50051 --seconds 10``.
It is not the capacity tool (that is the Locust tooling in ``loadtest/``): it favours coverage over realism.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from rules_core.bidding import resolve_declarations
from rules_core.cards import NUM_FACES, PLAYERS, Hand, Suit, add, remove
from rules_core.follow import check_follow
from rules_core.rules import PRESETS, Rules
from rules_core.selfplay import Style, play_hand
from rules_core.trick import resolve_trick
from rules_core.trump import TrumpContext, trump_context
from rules_core.verdicts import Illegal
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc
from tractor.rules.v1 import types_pb2 as t

SEEDS: Final = (11, 12)
"""Self-play hands per preset: two give every trick outcome and both throw outcomes."""
THROW_STYLE: Final = Style(throw_rate=0.7, overturn_rate=0.5)
"""Leaders try many throws, so both throw outcomes show up in a couple of hands."""
SCORES: Final = (0, 20, 40, 60, 80, 120, 160, 200)
"""Attackers' scores that land in different settlement bands (R9)."""
RPC_TIMEOUT: Final = 5.0
ROOT: Final = Path(__file__).resolve().parents[1]
CONTRACT_DIR: Final = ROOT / "tests" / "contract"
CONTRACTS: Final[dict[Suit | None, t.Contract.ValueType]] = {
    Suit.S: t.CONTRACT_SPADES,
    Suit.H: t.CONTRACT_HEARTS,
    Suit.C: t.CONTRACT_CLUBS,
    Suit.D: t.CONTRACT_DIAMONDS,
    None: t.CONTRACT_NO_TRUMP,
}


@dataclass(frozen=True, slots=True)
class Call:
    """One request of the corpus: the RPC's name on the stub and its message."""

    method: str
    request: Message


def card_values(faces: Sequence[int]) -> list[t.Card.ValueType]:
    """Engine faces (0..53) to ``Card`` enum numbers (face + 1).

    >>> card_values([0, 53])
    [1, 54]
    """
    return [t.Card.ValueType(face + 1) for face in faces]


def hand_values(hand: Hand) -> list[t.Card.ValueType]:
    """A count vector as a list of ``Card`` enum numbers, with repeats."""
    return card_values([face for face in range(NUM_FACES) for _ in range(hand[face])])


def rank(level: int) -> t.Rank.ValueType:
    """A level (2..14) as a ``Rank``: the enum is numbered by value."""
    return t.Rank.ValueType(level)


def _seat_cards(hands: Sequence[Hand], seats: Iterable[int]) -> list[t.SeatCards]:
    return [t.SeatCards(seat=seat, cards=hand_values(hands[seat])) for seat in seats]


def _illegal_follow(
    ctx: TrumpContext, rules: Rules, hand: Hand, lead: Sequence[int], play: Sequence[int]
) -> list[int]:
    """A play of the right size that breaks R5 (one card swapped), or [] when every swap stays legal."""
    held = sorted({face for face in range(NUM_FACES) if hand[face]})
    for i, other in itertools.product(range(len(play)), held):
        candidate = [*play[:i], other, *play[i + 1 :]]
        try:
            remove(hand, candidate)
        except ValueError:
            continue
        if isinstance(check_follow(ctx, rules, hand=hand, lead=lead, play=candidate), Illegal):
            return candidate
    return []


@dataclass(frozen=True, slots=True)
class Table:
    """What every play request of one hand shares: the ruleset, the level and the contract."""

    ruleset: t.Ruleset
    level: t.Rank.ValueType
    contract: t.Contract.ValueType

    def play(self, seat: int, hand: Hand, cards: Sequence[int], **more: Any) -> Call:
        """A ValidatePlay request (``more``: the trick, or the other hands for a lead)."""
        request = pb.ValidatePlayRequest(
            ruleset=self.ruleset,
            level=self.level,
            contract=self.contract,
            seat=seat,
            hand=hand_values(hand),
            cards=card_values(cards),
            **more,
        )
        return Call("ValidatePlay", request)

    def turn(self, seat: int, hand: Hand, trick: pb.Trick) -> list[Call]:
        """ListLegalPlays and SuggestPlay for a seat to play into ``trick``."""
        cards = hand_values(hand)
        listing = pb.ListLegalPlaysRequest(
            ruleset=self.ruleset, level=self.level, contract=self.contract, seat=seat, hand=cards, trick=trick
        )
        listing.max_plays = 50
        suggest = pb.SuggestPlayRequest(
            ruleset=self.ruleset, level=self.level, contract=self.contract, seat=seat, hand=cards, trick=trick
        )
        return [Call("ListLegalPlays", listing), Call("SuggestPlay", suggest)]


def hand_corpus(seed: int, preset: str) -> list[Call]:
    """Every request a table would send for one self-played hand: bidding, bury, each trick, the audit."""
    rules = PRESETS[preset]
    record = play_hand(seed=seed, rules=rules, style=THROW_STYLE)
    bidding = resolve_declarations(
        rules=rules, level=record.level, sequence=record.declarations, first_hand=record.first_hand
    )
    assert bidding.dealer is not None
    dealer = bidding.dealer
    ctx = trump_context(record.level, bidding.contract)
    table = Table(t.Ruleset(preset=preset), rank(record.level), CONTRACTS[bidding.contract])
    acts = [pb.Declaration(seat=act.seat, cards=card_values(act.cards)) for act in record.declarations]
    big = add(record.deal[dealer], record.bottom)
    calls = [
        Call(
            "ValidateDeclaration",
            pb.ValidateDeclarationRequest(
                ruleset=table.ruleset, level=table.level, declarations=acts, first_hand=True
            ),
        ),
        *(
            Call(
                "ValidateBury",
                pb.ValidateBuryRequest(ruleset=table.ruleset, hand=hand_values(big), bury=card_values(bury)),
            )
            for bury in (record.buried, record.buried[:7])  # legal, then one card short
        ),
    ]
    hands = list(record.deal)
    hands[dealer] = remove(big, record.buried)
    leaders = [dealer]
    recorded = []
    for index, trick in enumerate(record.tricks):
        leader = leaders[-1]
        seats = [(leader + i) % PLAYERS for i in range(PLAYERS)]
        others = _seat_cards(hands, seats[1:])
        calls.append(table.play(leader, hands[leader], trick.attempted or trick.plays[0], other_hands=others))
        follower = seats[1]
        lead = pb.Trick(leader=leader, plays=[t.SeatCards(seat=leader, cards=card_values(trick.plays[0]))])
        wrong = _illegal_follow(ctx, rules, hands[follower], trick.plays[0], trick.plays[1])
        for play in (trick.plays[1], wrong) if wrong else (trick.plays[1],):
            calls.append(table.play(follower, hands[follower], play, trick=lead))
        calls += table.turn(follower, hands[follower], lead)
        plays = [
            t.SeatCards(seat=seat, cards=card_values(play))
            for seat, play in zip(seats, trick.plays, strict=True)
        ]
        resolve = pb.ResolveTrickRequest(
            ruleset=table.ruleset,
            level=table.level,
            contract=table.contract,
            leader=leader,
            dealer=dealer,
            plays=plays,
            hands=_seat_cards(hands, range(PLAYERS)),
        )
        if index == len(record.tricks) - 1:
            resolve.last_trick = True
            resolve.bottom.extend(card_values(record.buried))
        calls.append(Call("ResolveTrick", resolve))
        recorded.append(pb.RecordedTrick(plays=plays, attempted_lead=card_values(trick.attempted)))
        for seat, play in zip(seats, trick.plays, strict=True):
            hands[seat] = remove(hands[seat], play)
        leaders.append(resolve_trick(ctx, rules, leader=leader, plays=trick.plays, dealer=dealer).winner)
    audit = pb.AuditHandRequest(
        ruleset=table.ruleset,
        level=table.level,
        attacker_level=rank(record.attacker_level),
        hands=_seat_cards(record.deal, range(PLAYERS)),
        bottom=card_values(record.bottom),
        declarations=acts,
        first_hand=True,
        buried=card_values(record.buried),
        tricks=recorded,
    )
    calls.append(Call("AuditHand", audit))
    return calls


QUIT_PHASES: Final = (
    pb.QUIT_PHASE_Q0_BEFORE_DEALING,
    pb.QUIT_PHASE_Q1_BEFORE_DECLARATION,
    pb.QUIT_PHASE_Q2_BEFORE_BURYING,
    pb.QUIT_PHASE_Q3_BEFORE_SETTLEMENT,
)
ROLES: Final = (pb.ROLE_DEALER, pb.ROLE_PARTNER, pb.ROLE_ATTACKER)


def table_corpus(preset: str) -> list[Call]:
    """Settlements across the bands, penalties in every phase and role, and malformed requests."""
    ruleset = t.Ruleset(preset=preset)
    calls = []
    for dealer, score in itertools.product((0, 1), SCORES):
        settle = pb.SettleHandRequest(
            ruleset=ruleset, dealer=dealer, dealer_team_level=rank(5), attacker_level=rank(6), score=score
        )
        if PRESETS[preset].coins:
            settle.tao_dou.CopyFrom(pb.TaoDouStake(base=10, overturn_multiplier=1, rake_percent=5))
        calls.append(Call("SettleHand", settle))
    for phase, role, balance in itertools.product(QUIT_PHASES, ROLES, (10_000, 50)):
        penalty = pb.CalculatePenaltyRequest(
            ruleset=ruleset,
            phase=phase,
            seat=1,
            role=role,
            base=100,
            dealer_level=rank(7),
            overturn_multiplier=2,
            balance=balance,
        )
        calls.append(Call("CalculatePenalty", penalty))  # INVALID_ARGUMENT for a preset without coins
    # malformed on purpose: an unknown card, a score that is not a multiple of 5 (INVALID_ARGUMENT)
    nothing = [t.CARD_UNSPECIFIED]
    unknown = pb.ValidatePlayRequest(
        ruleset=ruleset, level=rank(2), contract=t.CONTRACT_SPADES, hand=nothing, cards=nothing
    )
    odd = pb.SettleHandRequest(ruleset=ruleset, dealer_team_level=rank(5), attacker_level=rank(5), score=3)
    return [*calls, Call("ValidatePlay", unknown), Call("SettleHand", odd)]


def golden_corpus(folder: Path = CONTRACT_DIR) -> list[Call]:
    """The contract goldens' requests (worked cases: an over-ruff, a failed throw, errors), sorted by path."""
    calls = []
    for path in sorted(folder.glob("*/*.request.json")):
        method = path.parent.name
        request = json_format.Parse(path.read_text(encoding="utf-8"), getattr(pb, f"{method}Request")())
        calls.append(Call(method, request))
    return calls


def corpus(presets: Sequence[str] = tuple(PRESETS), seeds: Sequence[int] = SEEDS) -> list[Call]:
    """The whole deterministic corpus, presets interleaved so that a short run still sees every one."""
    per_preset = [[*table_corpus(p), *(c for s in seeds for c in hand_corpus(s, p))] for p in presets]
    mixed = [call for group in itertools.zip_longest(*per_preset) for call in group if call is not None]
    return [*golden_corpus(), *mixed]


def drive(
    target: str, calls: Sequence[Call], *, seconds: float, threads: int = 4, min_rounds: int = 1
) -> Counter[tuple[str, str]]:
    """Replay ``calls`` from ``threads`` channels until ``seconds`` pass (and at least ``min_rounds``).

    Each thread has its own channel with a local subchannel pool, so each opens its own connection and the
    kernel spreads them over the server's SO_REUSEPORT workers. Returns counts by (method, status code).
    """
    counts: Counter[tuple[str, str]] = Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    hard_stop = deadline + 60.0 * min_rounds  # never run away, even when the server is slow

    def worker(offset: int) -> None:
        channel = grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        stub = rules_service_pb2_grpc.RulesServiceStub(channel)
        local: Counter[tuple[str, str]] = Counter()
        done = 0
        try:
            grpc.channel_ready_future(channel).result(timeout=10)
            for i in itertools.count(offset * 7):
                now = time.monotonic()
                if now > hard_stop or (now > deadline and done >= min_rounds * len(calls)):
                    break
                call = calls[i % len(calls)]
                method: Callable[..., Any] = getattr(stub, call.method)
                try:
                    method(call.request, timeout=RPC_TIMEOUT)
                    code = grpc.StatusCode.OK
                except grpc.RpcError as error:
                    code = error.code()
                local[(call.method, code.name)] += 1
                done += threads
        finally:
            channel.close()
            with lock:
                counts.update(local)

    pool = [threading.Thread(target=worker, args=(n,), daemon=True) for n in range(threads)]
    for thread in pool:
        thread.start()
    for thread in pool:
        thread.join(max(hard_stop - time.monotonic(), 0) + RPC_TIMEOUT + 10)
    return counts


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: drive a running server for a while and print the outcome counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--target", default="127.0.0.1:50051", help="gRPC target (host:port or dns:///...)")
    parser.add_argument("--seconds", type=float, default=10.0, help="how long to drive (bounded)")
    parser.add_argument("--threads", type=int, default=4, help="client threads, one connection each")
    args = parser.parse_args(argv)
    calls = corpus()
    counts = drive(args.target, calls, seconds=min(args.seconds, 600.0), threads=args.threads)
    for (method, code), n in sorted(counts.items()):
        print(f"{method:22} {code:18} {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
