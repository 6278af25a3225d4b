"""The corpus format and the verdict checker that Locust and the bench rely on."""

from __future__ import annotations

import doctest
import subprocess
import sys
from pathlib import Path

import pytest

import loadtest.contract
import loadtest.protowire
import loadtest.replay
import loadtest.run
from loadtest.contract import RESPONSES
from loadtest.corpus import (
    LOAD,
    RANDOM_LOAD,
    WON_BY,
    generate,
    mix_counts,
    stress_script,
    table_scripts,
)
from loadtest.corpus import main as corpus_main
from loadtest.replay import (
    KINDS,
    Call,
    Script,
    VerdictMismatchError,
    check,
    corpus_path,
    cycle_from,
    read,
    write,
)
from loadtest.server import ROOT, python_env
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t


def test_check_accepts_the_expected_fields_only() -> None:
    response = pb.ValidatePlayResponse(
        legal=True,
        throw_outcome=t.ThrowOutcome(result=t.THROW_RESULT_FAILED, led=[t.CARD_S3, t.CARD_S3, t.CARD_H4]),
    )
    check("ValidatePlay", response, {"legal": True, "throw_outcome.result": t.THROW_RESULT_FAILED})
    check("ValidatePlay", response, {"throw_outcome.led~": [t.CARD_H4, t.CARD_S3, t.CARD_S3]})
    with pytest.raises(VerdictMismatchError, match="legal is True, the rules say False"):
        check("ValidatePlay", response, {"legal": False})
    with pytest.raises(VerdictMismatchError):  # without ~ the order counts
        check("ValidatePlay", response, {"throw_outcome.led": [t.CARD_H4, t.CARD_S3, t.CARD_S3]})
    with pytest.raises(VerdictMismatchError, match="no field"):
        check("ValidatePlay", response, {"nonsense": 1})


def test_check_indexes_repeated_fields() -> None:
    rejected = pb.DeclarationVerdict(rejection=pb.DECLARATION_REJECTION_NOT_LEVEL_CARDS)
    response = pb.ValidateDeclarationResponse(verdicts=[pb.DeclarationVerdict(accepted=True), rejected])
    expect = {"verdicts.0.accepted": True, "verdicts.-1.rejection": pb.DECLARATION_REJECTION_NOT_LEVEL_CARDS}
    check("ValidateDeclaration", response, expect)
    with pytest.raises(VerdictMismatchError):
        check("ValidateDeclaration", response, {"verdicts.-1.rejection": pb.DECLARATION_REJECTION_SAME_SUIT})


def test_corpus_round_trips_and_is_deterministic(tmp_path: Path) -> None:
    generate(tmp_path / "a", hands=3, stress=3)
    generate(tmp_path / "b", hands=3, stress=3)
    for kind in KINDS:
        first, second = corpus_path(kind, tmp_path / "a"), corpus_path(kind, tmp_path / "b")
        assert first.read_bytes() == second.read_bytes()
        scripts = read(first)
        write(tmp_path / "copy.jsonl.gz", scripts)
        assert read(tmp_path / "copy.jsonl.gz") == scripts
        for script in scripts:
            for call in script.calls:
                assert call.method in RESPONSES
                assert call.expect


def test_a_hand_script_follows_a_frontend() -> None:
    """Declarations first, then the bury, plays and tricks, settlement, and the audit last."""
    for script in table_scripts("003", 4) + table_scripts("000", 2):
        methods = [call.method for call in script.calls]
        assert methods[0] == "ValidateDeclaration"
        assert methods[-1] == "AuditHand"
        assert "ValidateBury" in methods
        assert methods.count("SettleHand") == 1
        assert methods.count("ResolveTrick") >= 10
        assert methods.count("ValidatePlay") >= 4 * methods.count("ResolveTrick")
        assert methods.index("SettleHand") > max(i for i, m in enumerate(methods) if m == "ResolveTrick")


def test_stress_leads_are_long_throws() -> None:
    script = stress_script(9_000_000, "rulebook-003")
    lead = pb.ValidatePlayRequest.FromString(script.calls[0].request)
    assert len(lead.cards) >= 8
    assert len(set(lead.cards)) < len(lead.cards)  # pairs in it
    assert script.calls[-1].method == "ResolveTrick"


def test_tables_play_their_hands_in_order() -> None:
    scripts = [Script(str(i), (Call("SettleHand", b"", {}),)) for i in range(3)]
    hands = cycle_from(scripts, 2)
    assert [next(hands).name for _ in range(4)] == ["2", "0", "1", "2"]


def test_a_missing_corpus_says_how_to_make_it(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="make corpus"):
        read(tmp_path / "000.jsonl.gz")


def test_doctests() -> None:
    """The examples in the docstrings (shapes.py and the locustfile import Locust, which patches the
    process: a child)."""
    for module in (loadtest.contract, loadtest.protowire, loadtest.replay, loadtest.run):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__
    probe = (
        "import doctest, sys, loadtest.shapes as s, loadtest.locustfile as f;"
        "a, b = doctest.testmod(s), doctest.testmod(f);"
        "sys.exit(a.failed + b.failed or b.attempted == 0)"
    )
    command = [sys.executable, "-c", probe]
    done = subprocess.run(command, check=False, cwd=ROOT, env=python_env(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stdout


def test_the_mix_report_sets_the_random_and_the_strong_corpus_side_by_side(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Per-hand figures read from both corpora's scripts, consistent with each other; the strong seats
    fail far fewer throws than random ones (they throw what card counting proves safe)."""
    counts = [
        mix_counts([*table_scripts("000", 3, mix), *table_scripts("003", 3, mix)])
        for mix in (RANDOM_LOAD, LOAD)
    ]
    for per_hand in counts:
        won = sum(per_hand[f"tricks won by {how}"] for how in WON_BY.values())
        assert won == pytest.approx(per_hand["calls: ResolveTrick"]) and won > 0
        assert per_hand["throws failed"] <= per_hand["throws attempted"]
        assert per_hand["calls: SettleHand"] == per_hand["calls: AuditHand"] == 1
        assert 0 <= per_hand["attackers' points (audited score)"] <= 200 * 6  # the dig multiplies the bottom
    random_seats, strong_seats = counts
    assert strong_seats["throws failed"] < random_seats["throws failed"] / 2
    same_bidding = "calls: ValidateDeclaration"  # the seats are drawn from their own random stream
    assert strong_seats[same_bidding] == random_seats[same_bidding]
    assert corpus_main(["--mix-report", "--hands", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "per hand, 6 hands (3 [000] + 3 [003])"
    assert lines[1].split() == ["all", "random", "3", "strong", "+", "1", "random"]
    shown = {line[:-38].strip(): [float(x) for x in line[-38:].split()] for line in lines[2:]}
    for key, (random_value, strong_value) in shown.items():
        if key != "CPU seconds to build":
            assert (random_value, strong_value) == (round(random_seats[key], 2), round(strong_seats[key], 2))
