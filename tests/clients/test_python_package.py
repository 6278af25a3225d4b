"""The client distribution ``tractor-rules-client`` proves its ranges (issue 15).

Its wheel and sdist pass ``twine check``, hold the client and nothing of the server, and declare ranges;
installed into a fresh venv on the lowest dependencies its ranges admit (exact lower bounds) and into
one on the newest available, it runs ``client_suite.py`` against a live server: every RPC, the batch
RPCs, both batchers, errors decoded into ``RulesError``, a retried call. In the lowest venv the README's
Python example gets its verdict.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, Final

import clientdist
import pytest
from clientdist import (
    CLIENT,
    EXTRA,
    Dists,
    clean_env,
    lowest,
    metadata,
    requirements,
    run,
    sdist_names,
    wheel_names,
)
from packaging.requirements import Requirement
from packaging.version import Version

from loadtest.server import ROOT, ServerProcess
from tests.contract import canonicalize
from tractor.rules.v1 import rules_service_pb2 as pb

SUITE: Final = Path(__file__).with_name("client_suite.py")
DEPENDENCIES: Final = {"grpcio", "protobuf", "googleapis-common-protos"}
README: Final = ROOT / "README.md"
README_ADDRESS: Final = "localhost:50051"


@pytest.fixture(scope="session")
def dists() -> Dists:
    """The client's wheel and sdist (built once for its sources, kept under build/clients)."""
    return clientdist.dists()


@pytest.fixture(scope="session")
def client_venv() -> Callable[[str], Path]:
    """The python of the ``lowest`` or ``newest`` venv (made once for its versions, kept)."""
    return clientdist.venv


@pytest.fixture(scope="module")
def served() -> Iterator[ServerProcess]:
    """``tractor-rules serve`` as deployed (supervisor and one forked worker) on 127.0.0.1."""
    with ServerProcess("--workers", "1") as server:
        yield server


def source_files() -> set[str]:
    """The client's modules, stubs and marker as they lie in ``clients/python/tractor``."""
    return {
        path.relative_to(CLIENT).as_posix()
        for path in (CLIENT / "tractor").rglob("*")
        if path.is_file() and path.suffix in {".py", ".pyi", ".typed"}
    }


def test_twine_check_passes(dists: Dists) -> None:
    out = run(sys.executable, "-m", "twine", "check", "--strict", dists.wheel, dists.sdist)
    assert out.count("PASSED") == 2, out


def test_wheel_holds_the_client_and_nothing_of_the_server(dists: Dists) -> None:
    names = wheel_names(dists.wheel)
    package = {name for name in names if ".dist-info/" not in name}
    assert package == source_files()
    assert {
        "tractor/py.typed",
        "tractor/rules/v1/rules_service_pb2.pyi",
        "tractor/rules/v1/types_pb2.pyi",
    } <= package
    assert all(name.startswith("tractor/") for name in package)
    assert not [name for name in names if name.startswith(("services/", "rules_core/", "loadtest/"))]


def test_sdist_builds_the_same_client(dists: Dists) -> None:
    names = set(sdist_names(dists.sdist))
    assert {"pyproject.toml", "README.md", "PKG-INFO"} <= names
    assert {name for name in names if name.startswith("tractor/")} == source_files()
    assert not [name for name in names if name.startswith(("services/", "rules_core/"))]


def test_metadata_declares_ranges_not_pins(dists: Dists) -> None:
    meta = metadata(dists.wheel)
    assert (meta["Name"], meta["Version"]) == ("tractor-rules-client", "0.1.0")
    assert meta["Description-Content-Type"] == "text/markdown"
    assert meta.get_payload() == (CLIENT / "README.md").read_text(encoding="utf-8")
    declared = requirements(dists.wheel)
    assert {requirement.name for requirement in declared} == DEPENDENCIES
    typing = requirements(dists.wheel, EXTRA)
    assert {requirement.name for requirement in typing} == {"types-grpcio", "types-protobuf"}
    assert meta.get_all("Provides-Extra") == [EXTRA]
    for requirement in [*declared, *typing]:
        operators = sorted(spec.operator for spec in requirement.specifier)
        assert operators == ["<", ">="], f"{requirement}: a range, lower and upper bound"


def server_pins() -> dict[str, Version]:
    """The server's own exact pins (the root pyproject) of the client's dependencies."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    pins = (Requirement(line) for line in re.findall(r'^\s+"([\w-]+==[\w.]+)",', text, re.MULTILINE))
    return {pin.name: Version(next(iter(pin.specifier)).version) for pin in pins if pin.name in DEPENDENCIES}


def suite_report(python: Path, server: ServerProcess, tmp_path: Path) -> dict[str, Any]:
    """``client_suite.py`` run by ``python`` against ``server``: isolated mode (its venv alone), and a
    RuntimeWarning (the stubs' warning about too old a grpcio) fails it."""
    flags = ["-I", "-W", "error::RuntimeWarning"]
    args = ["--target", server.target, "--contract", str(canonicalize.CONTRACT)]
    out = run(python, *flags, SUITE, *args, cwd=tmp_path, env=clean_env())
    report: dict[str, Any] = json.loads(out)
    return report


def check_environment(report: dict[str, Any], python: Path, expected: dict[str, str] | None) -> None:
    """The wheel was imported from the venv, nothing of the server or grpcio-status is there."""
    assert Path(report["tractor"]).is_relative_to(python.parent.parent), "the checkout's tractor was used"
    assert report["importable"] == {"services": False, "rules_core": False, "grpc_status": False}
    versions = report["versions"]
    if expected is not None:  # the lowest venv: exactly the lower bounds
        assert {name: versions[name] for name in expected} == expected
    else:  # the newest venv: at least what the server itself pins
        for name, pinned in server_pins().items():
            assert Version(versions[name]) >= pinned, (name, versions[name])


def check_contract(answers: dict[str, dict[str, Any]]) -> None:
    """Every golden of tests/contract answered as the golden says (prose for presence only)."""
    requests = sorted(canonicalize.CONTRACT.glob("*/*.request.json"))
    assert len(answers) == len(requests)
    methods = {case.split("/")[0] for case in answers}
    assert methods == {m.name for m in pb.DESCRIPTOR.services_by_name["RulesService"].methods}
    for case, answer in answers.items():
        method, name = case.split("/")
        response = canonicalize.CONTRACT / method / f"{name}.response.json"
        error = response.with_name(f"{name}.error.json")
        if response.exists():
            assert "response" in answer, (case, answer)
            top = canonicalize.PROSE_TOP.get(method, frozenset())
            golden = json.loads(response.read_text(encoding="utf-8"))
            assert canonicalize.comparable(answer["response"], top) == canonicalize.comparable(golden, top)
        else:
            check_error(case, answer, json.loads(error.read_text(encoding="utf-8")))


def check_error(case: str, answer: dict[str, Any], golden: dict[str, Any]) -> None:
    """A failed call as ``RulesError`` decoded it: the golden status, and its parts as attributes."""
    assert "error" in answer, (case, answer)
    decoded = answer["error"]
    assert decoded["type"] == "RulesError"
    assert canonicalize.comparable(decoded["status"]) == canonicalize.comparable(golden)
    (info,) = (d for d in golden["details"] if d["@type"].endswith("google.rpc.ErrorInfo"))
    assert (decoded["reason"], decoded["domain"], decoded["metadata"]) == (
        info["reason"],
        info["domain"],
        info.get("metadata", {}),
    )
    violations = [
        [v["field"], v.get("reason", "")]
        for d in golden["details"]
        if d["@type"].endswith("google.rpc.BadRequest")
        for v in d["fieldViolations"]
    ]
    assert decoded["field_violations"] == violations


def check_batcher(result: dict[str, Any]) -> None:
    """Good plays answered as the unary call answers them; malformed ones raise ``RulesError`` with the
    unary call's fields (no ``items[i].`` prefix); fewer ValidatePlays calls than plays."""
    answers = result["answers"]
    assert [a.get("same_as_unary") for a in answers[0::2]] == [True] * len(answers[0::2])
    for answer in answers[1::2]:
        assert answer["raised"] == "RulesError"
        assert answer["error"]["code"] == "INVALID_ARGUMENT"
        assert answer["error"]["field_violations"] == [["hand[1]", "UNKNOWN_VALUE"]]
    assert 1 <= result["batch_calls"] < len(answers)


def check_retries(retries: dict[str, Any]) -> None:
    """The recommended channel retried UNAVAILABLE and CANCELLED, and gave up an attempt left unanswered
    and retried it (the second attempt says it is one); a channel without the service config did not."""
    for code in ("UNAVAILABLE", "CANCELLED", "UNANSWERED"):
        assert retries[code]["attempts"] == [None, "1"], code
        assert retries[code]["same_as_unary"] is True, retries[code]
    assert retries["plain_channel"]["attempts"] == [None]
    assert retries["plain_channel"]["error"]["code"] == "UNAVAILABLE"


@pytest.mark.parametrize("kind", ["lowest", "newest"])
def test_client_suite(
    kind: str, client_venv: Callable[[str], Path], dists: Dists, served: ServerProcess, tmp_path: Path
) -> None:
    python = client_venv(kind)
    report = suite_report(python, served, tmp_path)
    expected = dict(pin.split("==") for pin in lowest(dists.wheel)) if kind == "lowest" else None
    check_environment(report, python, expected)
    check_contract(report["contract"])
    check_batcher(report["thread_batcher"])
    check_batcher(report["async_batcher"])
    check_retries(report["retries"])


def readme_example(readme: Path) -> tuple[str, list[str]]:
    """A README's Python example (the block that calls ValidatePlay on ``localhost:50051``) and the
    lines its ``print(...)  # shown`` comments say it prints."""
    text = readme.read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```$", text, re.DOTALL | re.MULTILINE)
    code = next(block for block in blocks if "ValidatePlay(" in block and README_ADDRESS in block)
    shown = re.findall(r"^\s*print\(.*\)  # (.+)$", code, re.MULTILINE)
    assert shown, "the example shows no output"
    return code, shown


@pytest.mark.parametrize("readme", [README, CLIENT / "README.md"], ids=["README", "clients-python-README"])
def test_readme_example_on_the_lowest_dependencies(
    readme: Path, client_venv: Callable[[str], Path], served: ServerProcess, tmp_path: Path
) -> None:
    """The README's example (the top-level one is ``validate.py``), saved outside the checkout, prints
    what the README shows in the lowest venv, where ``services`` and ``rules_core`` are not installed."""
    python = client_venv("lowest")
    code, shown = readme_example(readme)
    (tmp_path / "validate.py").write_text(code.replace(README_ADDRESS, served.target), encoding="utf-8")
    assert run(python, "-I", "validate.py", cwd=tmp_path, env=clean_env()).splitlines() == shown
    for module in ("services", "rules_core"):
        probe = f"try:\n    import {module}\nexcept ModuleNotFoundError:\n    print('absent')"
        assert run(python, "-I", "-c", probe, cwd=tmp_path, env=clean_env()).strip() == "absent"
