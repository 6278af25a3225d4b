"""The bench's "where the time goes": the in-process split of a mix's cost and the ratios printed from it."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from loadtest.bench import Result, breakdown
from loadtest.bench_ab import export
from loadtest.bench_engines import ROOT
from loadtest.bench_servicer import MixCost, StubContext, mix_costs, recording
from loadtest.contract import REQUESTS
from loadtest.corpus import table_scripts
from services import servicer as servicer_module
from services.metrics import Metrics

CALLS = [(call.method, call.request) for script in table_scripts("003", 1) for call in script.calls]


def _serve(calls: list[tuple[str, bytes]]) -> None:
    """Each request of ``calls`` through a fresh in-process servicer, as ``mix_costs`` serves them."""
    servicer = servicer_module.RulesServicer(Metrics(CollectorRegistry()))
    context: Any = StubContext()
    for method, data in calls:
        getattr(servicer, method)(REQUESTS[method].FromString(data), context)


def test_recording_captures_the_engine_calls_and_restores_the_module() -> None:
    validate_play = vars(servicer_module)["validate_play"]
    with recording(servicer_module) as calls:
        assert vars(servicer_module)["validate_play"] is not validate_play
        _serve(CALLS[:40])
    assert vars(servicer_module)["validate_play"] is validate_play
    engine = {function.__module__ for function, _, _ in calls}
    assert engine and all(module.startswith("rules_core.") for module in engine)


def test_the_engine_is_a_part_of_the_servicer() -> None:
    """A whole hand: every request of a table's traffic reaches the engine once, and replaying the recorded
    calls gives the same answers (the engine is pure), so the replay ``make bench`` times alone is the very
    work the servicer did. How the two times compare is the bench's figure, not an assertion: CPU time on a
    busy machine swings too much for one (this comparison once failed CI)."""
    assert {method for method, _ in CALLS} >= {"ValidatePlay", "ResolveTrick", "SettleHand", "AuditHand"}
    with recording(servicer_module) as calls:
        _serve(CALLS)
    assert len(calls) == len(CALLS)
    answers = [function(*args, **kwargs) for function, args, kwargs in calls]
    assert answers == [function(*args, **kwargs) for function, args, kwargs in calls]
    cost = mix_costs(CALLS, passes=1)
    assert cost.servicer > 0 and cost.engine > 0


def _result(target: str, rps: float, cpu: float) -> Result:
    return Result(target, "closed", int(rps), 0, 1.0, [1.0], server_cpu=cpu, client_cpu=0.5)


def test_breakdown_prints_the_bounds_from_cpu_per_call() -> None:
    capacity = {
        "service": _result("service", 5_000, 1.0),  # 200 µs a call
        "echo": _result("echo", 20_000, 1.0),  # 50 µs
    }
    lines = breakdown(capacity, MixCost(servicer=50.0, engine=12.5))
    assert lines[0] == "server CPU per call: service 200 µs, echo 50 µs"
    assert lines[-2].endswith("50 / (50 + 50) = 0.50")
    assert lines[-1].endswith("50 / (50 + 12) = 0.80")  # 12.5 printed rounded, the ratio exact


def test_the_ab_bench_exports_the_commit_it_is_given(tmp_path: Path) -> None:
    """``make bench-core BENCH_CORE_ARGS="--against REV"`` runs REV's own tree: the export is that commit's
    files, not the working tree's."""
    first = subprocess.run(
        ["git", "rev-list", "--max-parents=0", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()[0]
    tree = export(first, tmp_path)
    listed = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", first], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert sorted(str(p.relative_to(tree)) for p in tree.rglob("*") if p.is_file()) == sorted(listed)
    for name in listed:
        blob = subprocess.run(["git", "show", f"{first}:{name}"], cwd=ROOT, capture_output=True, check=True)
        assert (tree / name).read_bytes() == blob.stdout, name
