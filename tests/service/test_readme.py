"""The README runs as written: its grpcurl commands and its Python snippet against a live
``tractor-rules serve`` (only the port changes), and every ``make`` target it names is listed by ``make``.

The commands run exactly as a reader would run them in the checkout: ``.venv/bin/grpcurl`` (the pinned
``examples`` group, part of ``dev``) and ``.venv/bin/python``, each compared with the output the README
says it prints.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from loadtest.server import ROOT, ServerProcess

README = (ROOT / "README.md").read_text(encoding="utf-8")
README_ADDRESS = "localhost:50051"
COMMAND_TIMEOUT = 30.0
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.DOTALL | re.MULTILINE)
BLOCKS = [(match.group(1), match.group(2)) for match in FENCE.finditer(README)]


@pytest.fixture(scope="module")
def served() -> Iterator[ServerProcess]:
    """``tractor-rules serve`` as deployed (supervisor and a forked worker) on 127.0.0.1, port 0."""
    with ServerProcess("--workers", "1") as server:
        yield server


def on_port(text: str, server: ServerProcess) -> str:
    """The README's text aimed at the test server: only the port changes."""
    assert README_ADDRESS in text
    return text.replace(README_ADDRESS, f"localhost:{server.port}")


def grpcurl_examples() -> list[tuple[str, str]]:
    """Each ```sh block that calls grpcurl, with the ```json block after it (what it prints)."""
    examples = []
    for index, (language, text) in enumerate(BLOCKS):
        if language == "sh" and ".venv/bin/grpcurl" in text:
            assert index + 1 < len(BLOCKS) and BLOCKS[index + 1][0] == "json", "no output shown after it"
            examples.append((text, BLOCKS[index + 1][1]))
    return examples


def test_readme_shows_both_grpcurl_examples() -> None:
    methods = [text.rsplit(maxsplit=1)[-1] for text, _ in grpcurl_examples()]
    assert methods == ["grpc.health.v1.Health/Check", "tractor.rules.v1.RulesService/ValidatePlay"]


@pytest.mark.parametrize("index", [0, 1], ids=["health", "validate-play"])
def test_grpcurl_example(served: ServerProcess, index: int) -> None:
    block, shown = grpcurl_examples()[index]
    # `make grpcurl` installs the tool (`make test` already has: the dev group includes it); the rest
    # runs as written, in the checkout.
    commands = "\n".join(line for line in block.splitlines() if not line.startswith("make "))
    result = subprocess.run(
        ["bash", "-euc", on_port(commands, served)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(shown)


def test_python_example(served: ServerProcess, tmp_path: Path) -> None:
    """The snippet, saved as the README says, run by the project's interpreter outside the checkout."""
    how = re.search(r"save this as `(\w+\.py)` and run `(\.venv/bin/python) \1`", README)
    assert how is not None
    script, interpreter = how.group(1), ROOT / how.group(2)
    code = next(text for language, text in BLOCKS if language == "python")
    printed = re.search(r"^\s*print\(.*\)  # (.+)$", code, re.MULTILINE)
    assert printed is not None
    (tmp_path / script).write_text(on_port(code, served), encoding="utf-8")
    env = {name: value for name, value in os.environ.items() if name != "PYTHONPATH"}
    result = subprocess.run(
        [str(interpreter), script],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == printed.group(1)
    assert printed.group(1).startswith("False must play a tractor")


def make_quietly(*args: str) -> str:
    """``make ARGS`` in the checkout, as a reader runs it (not as a sub-make of ``make test``)."""
    outer = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")
    env = {name: value for name, value in os.environ.items() if name not in outer}
    result = subprocess.run(
        ["make", "--no-print-directory", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )
    assert result.returncode in (0, 1), result.stderr  # `make -q` answers 1: help is never up to date
    return result.stdout


def listed_targets() -> list[str]:
    """The targets a bare ``make`` lists, in order: one line each, ``make NAME  what it does``."""
    lines = make_quietly().splitlines()
    assert lines, "a bare make printed nothing"
    targets = []
    for line in lines:
        match = re.fullmatch(r"  make ([a-z][a-z0-9-]*) +(\S.*)", line)
        assert match is not None, f"not a help line: {line!r}"
        targets.append(match.group(1))
    return targets


def test_bare_make_lists_every_public_target_once() -> None:
    """``help`` is the default goal (no included file takes it) and every .PHONY target has its line."""
    database = make_quietly("-pq", "help")
    phony = next(line for line in database.splitlines() if line.startswith(".PHONY:"))
    targets = listed_targets()
    assert targets[0] == "help"
    assert len(targets) == len(set(targets))
    assert set(phony.split()[1:]) == set(targets)


def test_readme_names_only_listed_targets() -> None:
    named = set(re.findall(r"`make ([a-z][a-z0-9-]*)", README)) | set(
        re.findall(r"^make ([a-z][a-z0-9-]*)", README, re.MULTILINE)
    )
    assert {"run", "test", "grpcurl"} <= named
    assert named <= set(listed_targets())
