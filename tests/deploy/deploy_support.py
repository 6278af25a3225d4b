"""Shared helpers of the deploy tests: where things are, the external tools, rendered manifests.

The tools come from ``make deploy-deps`` (Debian's prometheus package, the ``deploy`` dependency group,
the npm validator in deploy/validate). A missing tool fails the test with the command that installs
it: these checks are the deliverable, so skipping them would let CI pass without running them.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

import yaml

ROOT: Final = Path(__file__).resolve().parents[2]
DEPLOY: Final = ROOT / "deploy"
K8S: Final = DEPLOY / "k8s"
PROMETHEUS_DIR: Final = DEPLOY / "prometheus"
GRAFANA_DIR: Final = DEPLOY / "grafana"
DASHBOARD: Final = GRAFANA_DIR / "dashboards" / "tractor-rules.json"
VALIDATE_DIR: Final = DEPLOY / "validate"
KUSTOMIZATIONS: Final = {
    "base": K8S / "base",
    "dev": K8S / "overlays" / "dev",
    "prod": K8S / "overlays" / "prod",
    "locust": K8S / "locust",
    "grafana": GRAFANA_DIR,
}
"""Every kustomization directory of deploy/, by a short name."""
INSTALL_HINT: Final = "run `make deploy-deps` (or `make -f Makefile -f deploy/deploy.mk deploy-deps`)"
COMMAND_TIMEOUT: Final = 120.0


class MissingToolError(AssertionError):
    """A checker the deploy tests need is not installed (a failure, never a skip)."""


def tool(name: str, *candidates: Path) -> Path:
    """The path of an external tool: the first existing candidate, else ``name`` on PATH; or fail."""
    for candidate in candidates:
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which(name)
    if found:
        return Path(found)
    raise MissingToolError(f"{name} is not installed: {INSTALL_HINT}")


def venv_tool(name: str) -> Path:
    """A console script of the project's virtualenv (the ``deploy`` dependency group installs them)."""
    return tool(name, Path(sys.executable).parent / name, ROOT / ".venv" / "bin" / name)


def prometheus() -> Path:
    """Debian's /usr/bin/prometheus."""
    return tool("prometheus", Path("/usr/bin/prometheus"))


def promtool() -> Path:
    """Debian's /usr/bin/promtool."""
    return tool("promtool", Path("/usr/bin/promtool"))


def run(
    args: list[str | Path], *, cwd: Path = ROOT, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a checker with a time limit; the caller asserts on the exit code and output."""
    return subprocess.run(
        [str(arg) for arg in args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=COMMAND_TIMEOUT,
        check=False,
    )


def load_yaml(path: Path) -> Any:
    """One YAML document."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


@functools.cache
def kustomize(name: str) -> tuple[dict[str, Any], ...]:
    """The objects ``kubectl kustomize`` renders for one kustomization of :data:`KUSTOMIZATIONS`."""
    result = run([venv_tool("kubectl"), "kustomize", KUSTOMIZATIONS[name]])
    assert result.returncode == 0, f"kustomize build {name} failed:\n{result.stderr}"
    return tuple(doc for doc in yaml.safe_load_all(result.stdout) if doc)


def find(docs: tuple[dict[str, Any], ...], kind: str, name: str | None = None) -> dict[str, Any]:
    """The one object of ``kind`` (and ``name``) among ``docs``."""
    matches = [d for d in docs if d["kind"] == kind and (name is None or d["metadata"]["name"] == name)]
    assert len(matches) == 1, f"expected one {kind} {name or ''}, found {len(matches)}"
    return matches[0]
