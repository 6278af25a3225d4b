"""The contract's tooling: generated code is fresh, ``buf lint`` is clean, ``buf breaking`` holds against
the committed baseline, and every engine enum has a wire value (rules_core's purity: tests/test_purity.py)."""

from __future__ import annotations

import subprocess
import sys
from enum import Enum
from pathlib import Path
from typing import Any

import pytest

from loadtest.server import ROOT
from rules_core.bidding import Act, BidRejection
from rules_core.forced_quit import Phase, Role
from rules_core.rules import PRESETS
from rules_core.settlement import Side
from rules_core.trick import Judgement
from rules_core.verdicts import Violation
from services import convert
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

BUF = Path(sys.executable).parent / "buf"
CODEGEN_PYTHON = ROOT / ".venv-codegen" / "bin" / "python"
"""``make protos``'s interpreter (``make unit`` makes the codegen venv before pytest runs)."""


def _buf(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(BUF), *args], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False
    )


def test_generated_code_is_not_stale() -> None:
    """``make protos`` output is committed; a proto edited without regenerating fails here and in CI. The
    check runs where ``make protos`` does, in the codegen venv (the client's oldest toolchain): another
    grpcio-tools writes other bytes."""
    done = subprocess.run(
        [str(CODEGEN_PYTHON), "protos/generate.py", "--check"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_buf_lint_is_clean() -> None:
    done = _buf("lint")
    assert done.returncode == 0, done.stdout + done.stderr


def test_no_breaking_change_against_the_baseline() -> None:
    done = _buf("breaking", "--against", "protos/baseline.binpb")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("domain", "table"),
    [
        (Violation, convert.VIOLATIONS),
        (Judgement, convert.JUDGEMENTS),
        (BidRejection, convert.REJECTIONS),
        (Act, convert.ACTS),
        (Side, convert.SIDES),
    ],
)
def test_every_engine_value_has_a_wire_value(domain: type[Enum], table: dict[Any, Any]) -> None:
    """A value added to rules_core without a proto counterpart would otherwise fail at request time."""
    assert set(table) == set(domain)
    assert len(set(table.values())) == len(table)


@pytest.mark.parametrize(("domain", "table"), [(Phase, convert.PHASES), (Role, convert.ROLES)])
def test_every_wire_choice_reaches_the_engine(domain: type[Enum], table: dict[Any, Any]) -> None:
    assert set(table.values()) == set(domain)


def test_every_wire_violation_is_an_engine_violation() -> None:
    """No orphan enum value: each VIOLATION_* (but UNSPECIFIED) is something the engine can answer."""
    wire = {value for name, value in t.Violation.items() if name != "VIOLATION_UNSPECIFIED"}
    assert wire == set(convert.VIOLATIONS.values())
    rejections = {v for n, v in pb.DeclarationRejection.items() if n != "DECLARATION_REJECTION_UNSPECIFIED"}
    assert rejections == set(convert.REJECTIONS.values())


def test_every_ruleset_option_and_preset_is_reachable() -> None:
    """Each override enum names every engine option, and the presets the contract documents exist."""
    for field, attribute, wrapper, prefix, domain in convert._OVERRIDES:
        names = {
            name.removeprefix(prefix) for name, _ in wrapper.items() if not name.endswith("_UNSPECIFIED")
        }
        assert names == {member.name for member in domain}, field
        assert attribute in PRESETS["default"].__dataclass_fields__
    documented = (ROOT / "protos/tractor/rules/v1/types.proto").read_text()
    for name in PRESETS:
        assert f'"{name}"' in documented
