"""The client distribution as a user gets it: its wheel and sdist built from ``clients/python``
(``build``), what they hold and declare, and fresh venvs with the wheel on the lowest or the newest
dependencies its ranges admit (``make_venv``).

What a test run builds is shared by its pytest-xdist workers and kept for the next run (``cached``: a
folder under ``build/clients/`` named by a hash of what made it, the client's sources and the exact
versions installed, behind a file lock), since several tests use each build and venv and a rerun with
nothing changed needs none of them again. No conftest here: a ``conftest``
module in this folder, collected for doctests before ``tests/conftest.py``, would take its name.
"""

from __future__ import annotations

import email.parser
import fcntl
import functools
import hashlib
import json
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

from packaging.requirements import Requirement

from loadtest.server import ROOT

CLIENT: Final = ROOT / "clients" / "python"
SUBPROCESS_TIMEOUT: Final = 300.0
COPIED: Final = ("pyproject.toml", "README.md", "tractor")
"""What the build sees of ``clients/python``: no egg-info or build/ left by an editable install."""
CACHE: Final = ROOT / "build" / "clients"
KINDS: Final = ("lowest", "newest")
EXTRA: Final = "typing"
"""The client's extra for a typed setup (types-grpcio, types-protobuf): every venv here installs it."""
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


def requirements(wheel: Path, extra: str | None = None) -> list[Requirement]:
    """The wheel's ``Requires-Dist``: the runtime dependencies, or those of ``extra`` alone."""
    found = [Requirement(line) for line in metadata(wheel).get_all("Requires-Dist") or []]
    if extra is None:
        return [requirement for requirement in found if requirement.marker is None]
    return [r for r in found if r.marker is not None and r.marker.evaluate({"extra": extra})]


def lowest(wheel: Path, extra: str | None = None) -> list[str]:
    """Each dependency (of ``extra`` when given) pinned to the lower bound of its range
    (``grpcio>=1.63.0,<2`` -> ``==1.63.0``)."""
    pins = []
    for requirement in requirements(wheel, extra):
        (bound,) = (spec.version for spec in requirement.specifier if spec.operator == ">=")
        pins.append(f"{requirement.name}=={bound}")
    return pins


def digest(*parts: object) -> str:
    """A short hash of ``parts`` (paths by their bytes, folders by every file in them, the rest by repr)."""
    sha = hashlib.sha256()
    for part in parts:
        if isinstance(part, Path):
            files = sorted(p for p in part.rglob("*") if p.is_file()) if part.is_dir() else [part]
            for path in files:
                if "__pycache__" in path.parts or ".egg-info" in str(path):
                    continue
                sha.update(path.relative_to(ROOT).as_posix().encode() + b"\0" + path.read_bytes())
        else:
            sha.update(repr(part).encode())
    return sha.hexdigest()[:16]


def cached(name: str, key: str, make: Callable[[Path], None]) -> Path:
    """``build/clients/NAME-KEY``, made by ``make`` unless a run made it already (a file lock keeps
    parallel workers and runs from making it twice); older folders of the same name are removed."""
    CACHE.mkdir(parents=True, exist_ok=True)
    folder = CACHE / f"{name}-{key}"
    with (CACHE / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / ".done").exists():
            for stale in CACHE.glob(f"{name}-*"):
                shutil.rmtree(stale, ignore_errors=True)
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


@functools.cache
def sources() -> str:
    """The hash of what the client's wheel is built from."""
    return digest(*(CLIENT / name for name in COPIED))


def dists() -> Dists:
    """The wheel and sdist of the client's current sources (built once, then cached)."""
    out = cached("dists", sources(), build)
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return Dists(wheel, sdist)


def pins(wheel: Path, kind: str) -> list[str]:
    """What the ``kind`` venv installs beside ``wheel[typing]``: every range at its lower bound, or the
    newest releases the ranges admit (resolved now by pip, without installing)."""
    if kind == "lowest":
        return lowest(wheel) + lowest(wheel, EXTRA)
    args = ["install", "--dry-run", "--ignore-installed", "-q", "--report", "-", "--only-binary", BINARY_ONLY]
    report = json.loads(run(sys.executable, "-m", "pip", *args, f"{wheel}[{EXTRA}]"))
    found = (item["metadata"] for item in report["install"])
    client = "tractor-rules-client"
    return sorted(f"{meta['name']}=={meta['version']}" for meta in found if meta["name"] != client)


@functools.cache
def venv(kind: str) -> Path:
    """The python of a venv with the client's wheel and its typing extra on the ``kind`` end of the
    ranges, cached by the client's sources and the exact versions."""
    assert kind in KINDS
    wheel = dists().wheel
    exact = pins(wheel, kind)
    return cached(f"venv-{kind}", digest(sources(), exact), make_venv(wheel, exact)) / "bin" / "python"


def make_venv(wheel: Path, exact: list[str]) -> Callable[[Path], None]:
    """A maker of a venv with ``wheel`` (and its typing extra) installed under a constraints file that
    pins ``exact``, as a backend with pinned runtimes installs it (``pip install -c``)."""

    def make(folder: Path) -> None:
        run(sys.executable, "-m", "venv", "--without-pip", folder)
        python = folder / "bin" / "python"
        constraints = folder / "constraints.txt"
        constraints.write_text("".join(f"{pin}\n" for pin in exact), encoding="utf-8")
        args = ["install", "-q", "--only-binary", BINARY_ONLY, "-c", str(constraints), f"{wheel}[{EXTRA}]"]
        pip(python, *args)
        pip(python, "check")

    return make
