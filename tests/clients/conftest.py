"""The client distribution as a user gets it: its wheel and sdist built from ``clients/python``, fresh
venvs with the wheel installed on the lowest and the newest dependencies its ranges admit, and a live
``tractor-rules serve`` for them to call.

The builds and the venvs are made once per test run and shared by the pytest-xdist workers (a file
lock in the run's temporary folder), since several tests use each of them.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Final

import pytest
from clientdist import CLIENT, Dists, lowest, run

from loadtest.server import ServerProcess

COPIED: Final = ("pyproject.toml", "README.md", "tractor")
"""What the build sees of ``clients/python``: no egg-info or build/ left by an editable install."""
KINDS: Final = ("lowest", "newest")
BINARY_ONLY: Final = "grpcio,protobuf"
"""Never compile these from source: a missing wheel fails fast rather than building for minutes."""


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


@pytest.fixture(scope="session")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    """The client's wheel and sdist, built once per run."""
    out = shared(tmp_path_factory, "client-dists", build)
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return Dists(wheel, sdist)


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


@pytest.fixture(scope="session")
def client_venv(tmp_path_factory: pytest.TempPathFactory, dists: Dists) -> Callable[[str], Path]:
    """The python of the ``lowest`` or ``newest`` venv (made once per run)."""

    def python(kind: str) -> Path:
        assert kind in KINDS
        return shared(tmp_path_factory, f"client-venv-{kind}", make_venv(dists.wheel, kind)) / "bin/python"

    return python


@pytest.fixture(scope="module")
def served() -> Iterator[ServerProcess]:
    """``tractor-rules serve`` as deployed (supervisor and one forked worker) on 127.0.0.1."""
    with ServerProcess("--workers", "1") as server:
        yield server
