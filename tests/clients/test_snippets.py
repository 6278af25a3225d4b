"""Every example of the client READMEs and of ``docs/clients.md`` compiles and runs as a new user would
copy it (issue 27): each ```ts block with strict ``tsc`` in a scratch project made of the TypeScript
README's ``package.json`` fields and ``tsconfig.json``, each ```python block with ``mypy --strict`` in a
venv with ``tractor-rules-client[typing]``, then each one against a live server on loopback, at the
``lowest`` and the ``newest`` versions the packages declare (``tsproject``, ``clientdist``). What a
block prints must be what its comments show: ``print(...)  # shown`` and ``console.log(...); // shown``,
a shown line ending in ``...`` being a prefix.

The root README's Python example is checked here with mypy too (``tests/service/test_readme.py`` runs it),
and ``tests/node/usage.ts`` (the typed surface, with the mistakes the types must reject) compiles beside
the TypeScript examples.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import clientdist
import pytest
import tsproject
from clientdist import CACHE, clean_env
from servers import rules_server

from loadtest.server import ROOT

SOURCES: Final = {
    "python": [ROOT / "clients/python/README.md", ROOT / "docs/clients.md", ROOT / "README.md"],
    "ts": [ROOT / "clients/typescript/README.md", ROOT / "docs/clients.md"],
}
ADDRESSES: Final = ("localhost:50051", "rules.internal:50051")
SHOWN: Final = {
    "python": re.compile(r"^\s*print\(.*\)  # (.+)$"),
    "ts": re.compile(r"console\.log\(.*\); // (.+)$"),
}
RUN_TIMEOUT: Final = 60.0


def blocks(language: str) -> list[tuple[str, str]]:
    """Every ```LANGUAGE block of the sources: (where it is, its code)."""
    found = []
    for path in SOURCES[language]:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(rf"^```{language}\n(.*?)^```$", text, re.DOTALL | re.MULTILINE):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{path.relative_to(ROOT)}:{line}", match.group(1)))
    return found


def shown(language: str, code: str) -> list[str]:
    """What the block's comments say it prints, line by line."""
    return [match.group(1) for line in code.splitlines() if (match := SHOWN[language].search(line))]


def aimed(code: str, port: int) -> str:
    """The block aimed at the test server: only the address changes."""
    for address in ADDRESSES:
        code = code.replace(address, f"127.0.0.1:{port}")
    return code


def check_output(where: str, out: str, expected: list[str]) -> None:
    lines = out.splitlines()
    assert len(lines) == len(expected), f"{where} printed {lines}, its comments show {expected}"
    for line, want in zip(lines, expected, strict=True):
        if want.endswith("..."):
            assert line.startswith(want.removesuffix("...")), (where, line, want)
        else:
            assert line == want, (where, line, want)


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    """The rules server on 127.0.0.1:0 (in process), for every block of the module."""
    with rules_server() as bound:
        yield bound


SECTIONS: Final = [
    "Install",
    "First call",
    "Errors",
    "Batching",
    "Cards",
    "Deadlines and retries",
    "Versions",
]


def test_both_readmes_hold_the_same_sections_in_the_same_order() -> None:
    for language in ("python", "ts"):
        text = SOURCES[language][0].read_text(encoding="utf-8")
        assert re.findall(r"^## (.+)$", text, re.MULTILINE) == SECTIONS, language


def test_the_sources_hold_examples() -> None:
    python, ts = blocks("python"), blocks("ts")
    assert len(python) >= 8 and len(ts) >= 6
    assert [where for where, _ in ts if "77]" in _] == [], "a Card list with a bare number does not compile"


@pytest.mark.parametrize("kind", tsproject.KINDS)
def test_every_typescript_example_compiles_and_runs(kind: str, port: int, tmp_path: Path) -> None:
    folder = tsproject.workspace(kind, tmp_path)
    examples = blocks("ts")
    for index, (_, code) in enumerate(examples):
        (folder / f"example{index:02}.ts").write_text(aimed(code, port), encoding="utf-8")
    # the typed surface beside them: its `@ts-expect-error` lines fail the build if the mistakes compile
    (folder / "usage.ts").write_bytes((ROOT / "tests" / "node" / "usage.ts").read_bytes())
    compiled = tsproject.tsc(folder)
    assert compiled.returncode == 0, f"tsc {tsproject.versions(kind)}:\n{compiled.stdout}{compiled.stderr}"
    for index, (where, code) in enumerate(examples):
        result = subprocess.run(
            ["node", f"dist/example{index:02}.js"],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        assert result.returncode == 0, f"{where}:\n{result.stdout}{result.stderr}"
        check_output(where, result.stdout, shown("ts", code))


@pytest.mark.parametrize("kind", clientdist.KINDS)
def test_every_python_example_passes_mypy_strict_and_runs(kind: str, port: int, tmp_path: Path) -> None:
    python = clientdist.venv(kind)
    examples = blocks("python")
    for index, (_, code) in enumerate(examples):
        (tmp_path / f"example{index:02}.py").write_text(aimed(code, port), encoding="utf-8")
    mypy = Path(sys.executable).parent / "mypy"  # the dev group's, checking against the venv's packages
    cache = CACHE / f"mypy-{kind}"  # mypy checks its cache against the files it reads
    args = ["--strict", "--python-executable", str(python), "--cache-dir", str(cache), "--no-color-output"]
    checked = subprocess.run(
        [str(mypy), *args, *sorted(path.name for path in tmp_path.glob("example*.py"))],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert checked.returncode == 0, f"mypy --strict ({kind}):\n{checked.stdout}{checked.stderr}"
    for index, (where, code) in enumerate(examples):
        result = subprocess.run(
            [str(python), "-I", f"example{index:02}.py"],
            cwd=tmp_path,
            env=clean_env(),
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT,
            check=False,
        )
        assert result.returncode == 0, f"{where}:\n{result.stdout}{result.stderr}"
        check_output(where, result.stdout, shown("python", code))
