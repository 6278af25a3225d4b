"""Metrics recorded by a real server into an injected registry: the standard gRPC series and the
domain series, each with bounded labels."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest
from prometheus_client.mmap_dict import MmapedDict, mmap_key
from prometheus_client.multiprocess import MultiProcessCollector
from wire import Live, call, message, names, rejected

import rules_core
from services.metrics import ChurnProofCollector
from services.server import RULES_SERVICE
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

Stub = rules_service_pb2_grpc.RulesServiceStub
HEARTS_5 = {"level": "RANK_5", "contract": "CONTRACT_HEARTS"}


def _value(live: Live, name: str, **labels: str) -> float:
    return live.registry.get_sample_value(name, labels) or 0.0


def _rpc(method: str, **extra: str) -> dict[str, str]:
    return {"grpc_type": "unary", "grpc_service": RULES_SERVICE, "grpc_method": method, **extra}


def test_calls_are_counted_timed_and_labelled(live: Live, stub: Stub) -> None:
    follow = {
        **HEARTS_5,
        "seat": 1,
        "hand": names("SQ SQ S2 S3 H9"),
        "trick": {"leader": 0, "plays": [{"seat": 0, "cards": names("S9 S9")}]},
    }
    call(stub.ValidatePlay, message(pb.ValidatePlayRequest, {**follow, "cards": names("SQ SQ")}))
    call(stub.ValidatePlay, message(pb.ValidatePlayRequest, {**follow, "cards": names("S2 S3")}))
    rejected(stub.ValidatePlay, message(pb.ValidatePlayRequest, {**follow, "seat": 9}))

    assert _value(live, "grpc_server_started_total", **_rpc("ValidatePlay")) == 3
    assert _value(live, "grpc_server_handled_total", **_rpc("ValidatePlay", grpc_code="OK")) == 2
    assert (
        _value(live, "grpc_server_handled_total", **_rpc("ValidatePlay", grpc_code="INVALID_ARGUMENT")) == 1
    )
    assert _value(live, "grpc_server_handling_seconds_count", **_rpc("ValidatePlay")) == 3
    for bound in ("5e-05", "0.0001", "0.00025", "0.0005"):  # sub-millisecond buckets are exported
        labels = _rpc("ValidatePlay", le=bound)
        assert live.registry.get_sample_value("grpc_server_handling_seconds_bucket", labels) is not None
    assert _value(live, "grpc_server_handling_seconds_bucket", **_rpc("ValidatePlay", le="+Inf")) == 3
    handling = _value(live, "grpc_server_handling_seconds_sum", **_rpc("ValidatePlay"))
    busy = _value(live, "tractor_rules_worker_busy_seconds_total", pid=str(os.getpid()))
    assert busy >= handling > 0  # every call's time, summed, in this process's own series

    verdicts = {"grpc_method": "ValidatePlay", "preset": "default"}
    assert _value(live, "tractor_rules_verdicts_total", **verdicts, reason="legal") == 1
    assert _value(live, "tractor_rules_verdicts_total", **verdicts, reason="must_play_pair") == 1
    presets = _value(
        live, "tractor_rules_requests_by_preset_total", grpc_method="ValidatePlay", preset="default"
    )
    assert presets == 3  # counted once the ruleset is read, before the bad seat is found


def test_domain_series(live: Live, stub: Stub) -> None:
    trick = {
        **HEARTS_5,
        "plays": [{"seat": s, "cards": names(c)} for s, c in enumerate(["S9", "SA", "H2", "S3"])],
    }
    call(stub.ResolveTrick, message(pb.ResolveTrickRequest, trick))  # seat 2 ruffs
    settle = {"dealer": 0, "dealer_team_level": "RANK_7", "attacker_level": "RANK_4", "score": 0}
    call(stub.SettleHand, message(pb.SettleHandRequest, settle))
    quit_ = {
        "ruleset": {"preset": "rulebook-003"},
        "phase": "QUIT_PHASE_Q1_BEFORE_DECLARATION",
        "role": "ROLE_ATTACKER",
        "base": 1,
        "dealer_level": "RANK_2",
        "overturn_multiplier": 1,
    }
    call(stub.CalculatePenalty, message(pb.CalculatePenaltyRequest, quit_))
    throw = {
        **HEARTS_5,
        "hand": names("SK SQ"),
        "cards": names("SK SQ"),
        "other_hands": [{"seat": 1, "cards": names("SA")}, {"seat": 2}, {"seat": 3}],
    }
    call(stub.ValidatePlay, message(pb.ValidatePlayRequest, throw))
    call(stub.ValidatePlay, message(pb.ValidatePlayRequest, {**throw, "ruleset": {"preset": "rulebook-003"}}))

    assert _value(live, "tractor_rules_tricks_total", won_by="ruff") == 1
    assert _value(live, "tractor_rules_settlements_total", band="dealer_team+3") == 1
    assert _value(live, "tractor_rules_penalties_total", phase="q1") == 1
    assert _value(live, "tractor_rules_throws_total", outcome="failed") == 2
    # verdicts by preset (the illegal-play alert needs them): the one rulebook-003 play is on its own
    labels = {"grpc_method": "ValidatePlay", "preset": "rulebook-003", "reason": "legal"}
    assert _value(live, "tractor_rules_verdicts_total", **labels) == 1
    assert (
        _value(
            live,
            "tractor_rules_requests_by_preset_total",
            grpc_method="CalculatePenalty",
            preset="rulebook-003",
        )
        == 1
    )


def test_build_info_is_one(live: Live) -> None:
    samples = [
        sample
        for family in live.registry.collect()
        if family.name == "tractor_rules_build_info"
        for sample in family.samples
    ]
    assert len(samples) == 1 and samples[0].value == 1
    assert set(samples[0].labels) == {"version", "python", "grpcio", "engine"}
    assert samples[0].labels["engine"] == rules_core.ENGINE  # the build this process chose and runs


# --------------------------------------------------------------------------------------------------
# the parent's collector, against metric files caught mid-change


def _write(path: Path, metric: str, value: float, **labels: str) -> None:
    """One value in a prometheus_client metric file, as a worker's ``MultiProcessValue`` writes it."""
    values = MmapedDict(str(path))  # type: ignore[no-untyped-call]  # untyped upstream
    values.write_value(mmap_key(metric, metric, list(labels), list(labels.values()), "help"), value, 0.0)  # type: ignore[no-untyped-call]
    values.close()  # type: ignore[no-untyped-call]


def _samples(collector: MultiProcessCollector) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in collector.collect()  # type: ignore[no-untyped-call]  # the stock one is untyped
        for sample in family.samples
    }


def test_the_collector_reads_past_files_caught_mid_change(tmp_path: Path) -> None:
    """A worker that starts during a scrape has created its file but not sized it; one that dies has its
    live gauges removed; a file can be caught half-written. The stock collector fails the scrape (HTTP 500)
    on the first; ours answers, keeping each unreadable file's last good values, so counters summed over
    workers never go backwards. On whole files it answers exactly what the stock one does."""
    _write(tmp_path / "counter_11.db", "grpc_server_handled_total", 5, grpc_code="OK")
    _write(tmp_path / "counter_12.db", "grpc_server_handled_total", 7, grpc_code="OK")
    _write(tmp_path / "gauge_livesum_11.db", "tractor_rules_requests_in_flight", 2)
    _write(tmp_path / "gauge_livesum_12.db", "tractor_rules_requests_in_flight", 1)
    stock, ours = MultiProcessCollector(None, str(tmp_path)), ChurnProofCollector(None, str(tmp_path))  # type: ignore[no-untyped-call]
    whole = _samples(ours)
    assert whole == _samples(stock)
    handled = ("grpc_server_handled_total", (("grpc_code", "OK"),))
    assert whole[handled] == 12 and whole[("tractor_rules_requests_in_flight", ())] == 3

    (tmp_path / "counter_13.db").touch()  # a worker starting: created, not yet sized
    with pytest.raises(struct.error):
        _samples(stock)
    assert _samples(ours) == whole

    half = (tmp_path / "counter_12.db").read_bytes()[:20]  # caught mid-write: shorter than it says
    (tmp_path / "counter_12.db").write_bytes(half)
    assert _samples(ours)[handled] == 12  # its last good values

    (tmp_path / "counter_12.db").unlink()  # a counter file never vanishes; if it does, it still counts
    (tmp_path / "gauge_livesum_12.db").unlink()  # a dead worker's live gauge goes with it
    after = _samples(ours)
    assert after[handled] == 12 and after[("tractor_rules_requests_in_flight", ())] == 2
