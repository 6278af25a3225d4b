"""The client distribution as a user gets it: its wheel and sdist built from ``clients/python``
(``build``), what they hold and declare, and fresh venvs with the wheel on the lowest or the newest
dependencies its ranges admit (``make_venv``).

What a test run builds is shared by its pytest-xdist workers (``shared``: a file lock in the run's
temporary folder), since several tests use each build and venv. No conftest here: a ``conftest``
module in this folder, collected for doctests before ``tests/conftest.py``, would take its name.
"""

from __future__ import annotations

import email.parser
import fcntl
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Final

import pytest
from packaging.requirements import Requirement

from loadtest.server import ROOT

CLIENT: Final = ROOT / "clients" / "python"
SUBPROCESS_TIMEOUT: Final = 300.0
COPIED: Final = ("pyproject.toml", "README.md", "tractor")
"""What the build sees of ``clients/python``: no egg-info or build/ left by an editable install."""
KINDS: Final = ("lowest", "newest")
BINARY_ONLY: Final = "grpcio,protobuf"
"""Never compile these from source: a missing wheel fails fast rather than building for minutes."""


@dataclass(frozen=True)
class Dists:
    """The built distributions."""

    wheel: Path
    sdist: Path


def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    """Run a command to its end; its output, or a failure that shows it."""
    result = subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=SUBPROCESS_TIMEOUT,
        check=False,
    )
    assert result.returncode == 0, f"{args} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def clean_env() -> dict[str, str]:
    """The environment of a venv's python: nothing of the checkout on its path."""
    return {name: value for name, value in os.environ.items() if not name.startswith("PYTHON")}


def wheel_names(wheel: Path) -> list[str]:
    """Every file in the wheel."""
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


def sdist_names(sdist: Path) -> list[str]:
    """Every file in the sdist, without its top folder (``tractor_rules_client-0.1.0/``)."""
    with tarfile.open(sdist) as archive:
        return [m.name.split("/", 1)[1] for m in archive.getmembers() if m.isfile() and "/" in m.name]


def metadata(wheel: Path) -> Message:
    """The wheel's ``METADATA`` (core metadata: a header block, then the description)."""
    with zipfile.ZipFile(wheel) as archive:
        (name,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.parser.Parser().parsestr(archive.read(name).decode("utf-8"))


def requirements(wheel: Path) -> list[Requirement]:
    """The wheel's ``Requires-Dist``."""
    return [Requirement(line) for line in metadata(wheel).get_all("Requires-Dist") or []]


def lowest(wheel: Path) -> list[str]:
    """Each dependency pinned to the lower bound of its range (``grpcio>=1.63.0,<2`` -> ``==1.63.0``)."""
    pins = []
    for requirement in requirements(wheel):
        (bound,) = (spec.version for spec in requirement.specifier if spec.operator == ">=")
        pins.append(f"{requirement.name}=={bound}")
    return pins


def shared(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name`` of this test run, filled by ``make`` in the first worker that asks for it."""
    base = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # the run's folder, above each worker's own
    folder = base / name
    with (base / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".done").exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            (folder / ".done").touch()
    return folder


def build(out: Path) -> None:
    """``python -m build``: the sdist, then the wheel from the sdist (so the sdist must be complete).

    Without build isolation: the backend is the dev group's pinned setuptools, already installed,
    rather than a fresh download for each build."""
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "python"
        source.mkdir()
        for name in COPIED:
            copy = shutil.copytree if (CLIENT / name).is_dir() else shutil.copy2
            copy(CLIENT / name, source / name)
        for cache in list(source.rglob("__pycache__")):
            shutil.rmtree(cache)
        run(sys.executable, "-m", "build", "--no-isolation", "--outdir", out, source)


def pip(python: Path, *args: str) -> str:
    """This venv's pip (pip 26, the dev group's) acting on the venv of ``python``."""
    return run(sys.executable, "-m", "pip", "--python", python, *args)


def make_venv(wheel: Path, kind: str) -> Callable[[Path], None]:
    """A maker of a venv with ``wheel`` installed on the ``kind`` end of its ranges."""

    def make(folder: Path) -> None:
        run(sys.executable, "-m", "venv", "--without-pip", folder)
        python = folder / "bin" / "python"
        pins = lowest(wheel) if kind == "lowest" else []
        pip(python, "install", "-q", "--only-binary", BINARY_ONLY, str(wheel), *pins)
        pip(python, "check")

    return make
