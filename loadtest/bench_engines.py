"""The compiled engine against the pure one: ``make bench-core`` figures and the servicer's cost per call.

Each round runs ``loadtest.bench_core --json`` and the in-process servicer bench in a fresh process per
engine (``TRACTOR_RULES_ENGINE`` chooses it when rules_core is first imported), timing the process's CPU
time (``--cpu-time``: other processes' load does not count), the engines interleaved round by round so
that what load remains falls on both alike; the table shows each figure's median over the rounds and its
speed-up (pure µs / compiled µs). Needs a current build (``make compiled``).
Run: ``make bench-core BENCH_CORE_ARGS=--engines`` (``--rounds``, default 3).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rules_core import engine

ROOT = Path(__file__).resolve().parent.parent
ENGINES = ("python", "compiled")
SERVICER = "ValidatePlay through the servicer (in process)"
CODEC = "its decode + encode only"


def servicer_figures() -> dict[str, float]:
    """The servicer bench's two medians (loadtest.bench_servicer) in this process's engine."""
    from prometheus_client import CollectorRegistry  # noqa: PLC0415  # the child only

    from loadtest.bench_servicer import REQUEST, StubContext  # noqa: PLC0415
    from loadtest.stats import median_micros  # noqa: PLC0415
    from services.metrics import Metrics  # noqa: PLC0415
    from services.servicer import RulesServicer  # noqa: PLC0415
    from tractor.rules.v1 import rules_service_pb2 as pb  # noqa: PLC0415

    servicer = RulesServicer(Metrics(registry=CollectorRegistry()))
    context: Any = StubContext()
    answer = servicer.ValidatePlay(pb.ValidatePlayRequest.FromString(REQUEST), context).SerializeToString()

    def codec_only() -> bytes:
        pb.ValidatePlayRequest.FromString(REQUEST)
        return pb.ValidatePlayResponse.FromString(answer).SerializeToString()

    def servicer_call() -> bytes:
        return servicer.ValidatePlay(pb.ValidatePlayRequest.FromString(REQUEST), context).SerializeToString()

    return {
        SERVICER: median_micros(servicer_call, clock=time.process_time),
        CODEC: median_micros(codec_only, clock=time.process_time),
    }


def measure(engine_name: str, module: str, *args: str, root: Path = ROOT) -> dict[str, float]:
    """One child process on ``engine_name`` in the checkout at ``root``: the JSON object its last line
    prints."""
    env = {**os.environ, engine.ENV: engine_name, "PYTHONPATH": str(root)}
    done = subprocess.run(
        [sys.executable, "-m", module, *args], env=env, cwd=root, capture_output=True, text=True, check=True
    )
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(servicer_figures()))
        return 0
    if not engine.build_matches(engine.compiled_dir()):
        print(f"no build of this source at {engine.compiled_dir()}: run make compiled first", file=sys.stderr)
        return 1
    rounds: dict[str, list[dict[str, float]]] = {name: [] for name in ENGINES}
    for index in range(args.rounds):
        for name in ENGINES:
            core = measure(name, "loadtest.bench_core", "--json", "--cpu-time")
            rounds[name].append(core | measure(name, "loadtest.bench_engines", "--child"))
        print(f"round {index + 1}/{args.rounds} done", file=sys.stderr)
    medians = {
        name: {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        for name, runs in rounds.items()
    }
    print(f"median of {args.rounds} rounds, µs per call; speed-up = pure / compiled\n")
    print(f"{'measure':62} {'pure':>9} {'compiled':>9} {'speed-up':>9}")
    for key, pure in medians["python"].items():
        compiled = medians["compiled"][key]
        print(f"{key:62} {pure:9.1f} {compiled:9.1f} {pure / compiled:8.1f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
