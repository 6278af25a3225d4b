"""The import-direction contracts of pyproject.toml (``make lint`` runs lint-imports) catch a violation.

A tiny stand-in of the project's layout is written to a temporary directory and checked with the real
contracts: clean, it passes; with one product module importing the harness, lint-imports fails and
names the broken contract and the import. So a contract that silently stopped checking would fail here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
LAYOUT = {
    "rules_core/__init__.py": "",
    "rules_core/cards.py": "",
    "tractor/__init__.py": "",
    "services/__init__.py": "",
    "services/servicer.py": "import rules_core.cards\nimport tractor\n",
    "loadtest/__init__.py": "",
    "loadtest/corpus.py": "import rules_core.cards\nimport services.servicer\nimport tractor\n",
    "tests/test_x.py": "import loadtest.corpus\nimport services.servicer\n",
}


def _lint(tmp_path: Path, extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    for name, text in {**LAYOUT, **extra}.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_the_layout_as_it_should_be_passes(tmp_path: Path) -> None:
    done = _lint(tmp_path, {})
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "imported", "contract"),
    [
        ("services/servicer.py", "loadtest.corpus", "services imports only rules_core"),
        ("rules_core/cards.py", "services.servicer", "rules_core imports nothing of the project"),
        ("loadtest/corpus.py", "tests.test_x", "the harness (loadtest) imports the product, never the tests"),
    ],
)
def test_a_product_module_importing_upwards_fails(
    tmp_path: Path, module: str, imported: str, contract: str
) -> None:
    done = _lint(tmp_path, {module: f"{LAYOUT[module]}import {imported}\n"})
    assert done.returncode != 0, done.stdout
    assert f"{contract}" in done.stdout and "BROKEN" in done.stdout
    assert imported in done.stdout, done.stdout
