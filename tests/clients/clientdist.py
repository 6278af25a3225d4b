"""The client distribution's files: what a wheel or an sdist holds, a wheel's core metadata and the lower
bounds of its ranges; and running a command (a venv's python, pip, build) to its end."""

from __future__ import annotations

import email.parser
import os
import subprocess
import tarfile
import zipfile
from dataclasses import dataclass
from email.message import Message
from pathlib import Path
from typing import Final

from packaging.requirements import Requirement

from loadtest.server import ROOT

CLIENT: Final = ROOT / "clients" / "python"
SUBPROCESS_TIMEOUT: Final = 300.0


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
