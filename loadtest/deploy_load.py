"""A small deterministic load driver for the deploy tests: every RPC, every kind of outcome, through the wire.

The deploy tests need every dashboard panel and every recording rule to return data, so the load must
produce every series the dashboard reads: legal and illegal plays, throws that succeed and fail, tricks
won each way, settlements in several bands, penalties in every phase, every preset, and some malformed
requests (non-OK codes). The hands come from the harness's one corpus (:mod:`loadtest.corpus`, seeded
self-play, with a :data:`MIX` rich in throws and illegal attempts), so the same seeds always give the
same requests, and they are replayed from a few threads until a time limit.

Run by hand against a server, from the repository root:
``.venv/bin/python -m loadtest.deploy_load --target 127.0.0.1:50051 --seconds 10``.
It is not the capacity tool (that is the Locust tooling, ``make loadtest``): it favours coverage over
realism.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from loadtest.contract import REQUESTS, method_path
from loadtest.corpus import Mix, hand_script, rank
from loadtest.replay import Call
from rules_core.rules import PRESETS
from rules_core.selfplay import Style
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

SEEDS: Final = (11, 12)
"""Self-play hands per preset: two give every trick outcome and both throw outcomes."""
MIX: Final = Mix(
    style=Style(throw_rate=0.7, overturn_rate=0.5),
    illegal_follow_rate=0.25,
    illegal_lead_rate=0.1,
    bad_declaration_rate=0.5,
    bad_bury_rate=0.5,
    forced_quit_rate=0.5,
    turns_every=1,
    batches=True,
)
"""Leaders try many throws (both throw outcomes show up in a couple of hands), many illegal attempts,
ListLegalPlays and SuggestPlay in every trick, and the batch RPCs."""
SCORES: Final = (0, 20, 40, 60, 80, 120, 160, 200)
"""Attackers' scores that land in different settlement bands (R9)."""
RPC_TIMEOUT: Final = 5.0
ROOT: Final = Path(__file__).resolve().parents[1]
CONTRACT_DIR: Final = ROOT / "tests" / "contract"


def _call(method: str, request: Message) -> Call:
    """A request built here (not self-played): sent as is, any answer counted."""
    return Call(method, request.SerializeToString(deterministic=True), {})


def hand_corpus(seed: int, preset: str) -> list[Call]:
    """Every request a table would send for one self-played hand: bidding, bury, each trick, the audit."""
    return list(hand_script(seed, preset, mix=MIX).calls)


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
        calls.append(_call("SettleHand", settle))
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
        calls.append(_call("CalculatePenalty", penalty))  # INVALID_ARGUMENT for a preset without coins
    # malformed on purpose: an unknown card, a score that is not a multiple of 5 (INVALID_ARGUMENT)
    nothing = [t.CARD_UNSPECIFIED]
    unknown = pb.ValidatePlayRequest(
        ruleset=ruleset, level=rank(2), contract=t.CONTRACT_SPADES, hand=nothing, cards=nothing
    )
    odd = pb.SettleHandRequest(ruleset=ruleset, dealer_team_level=rank(5), attacker_level=rank(5), score=3)
    return [*calls, _call("ValidatePlay", unknown), _call("SettleHand", odd)]


def golden_corpus(folder: Path = CONTRACT_DIR) -> list[Call]:
    """The contract goldens' requests (worked cases: an over-ruff, a failed throw, errors), sorted by path."""
    calls = []
    for path in sorted(folder.glob("*/*.request.json")):
        method = path.parent.name
        request = json_format.Parse(path.read_text(encoding="utf-8"), REQUESTS[method]())
        calls.append(_call(method, request))
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
    kernel spreads them over the server's SO_REUSEPORT workers. Thread k makes calls k, k + threads, ...:
    together they make every call of a round once, so ``min_rounds`` rounds reach every call however slow
    the machine (a dashboard test needs each outcome the corpus holds). Returns counts by (method, status
    code).
    """
    counts: Counter[tuple[str, str]] = Counter()
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    hard_stop = deadline + 60.0 * min_rounds  # never run away, even when the server is slow

    def worker(offset: int) -> None:
        channel = grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
        stubs = {method: channel.unary_unary(method_path(method)) for method in REQUESTS}
        local: Counter[tuple[str, str]] = Counter()
        done = 0
        try:
            grpc.channel_ready_future(channel).result(timeout=10)
            for i in itertools.count(offset, threads):  # the threads share out each round of calls
                now = time.monotonic()
                if now > hard_stop or (now > deadline and done >= min_rounds * len(calls)):
                    break
                call = calls[i % len(calls)]
                try:
                    stubs[call.method](call.request, timeout=RPC_TIMEOUT)
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
