"""The choice of rules_core build (rules_core.engine): explicit, observable, never stale."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import rules_core
import services.convert
from rules_core import engine


def test_the_chosen_build_is_the_one_running() -> None:
    assert engine.running() == rules_core.ENGINE
    wanted = os.environ.get(engine.ENV, "auto")
    if wanted != "auto":  # make unit's two passes ask for each build by name
        assert wanted == rules_core.ENGINE


def test_the_conversion_module_runs_the_engines_build() -> None:
    """The service's conversion module is compiled into the same build and loads with it, and only then."""
    assert services.convert.__file__ is not None
    assert services.convert.__file__.endswith(".py") == (rules_core.ENGINE == "python")


def test_python_is_chosen_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engine.ENV, "python")
    path = ["src"]
    assert engine.choose(path) == ("python", "TRACTOR_RULES_ENGINE=python")
    assert path == ["src"]


def test_an_unknown_choice_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(engine.ENV, "cython")
    with pytest.raises(ImportError, match="expected one of auto, compiled, python"):
        engine.choose([])


def fake_build(out: Path) -> None:
    """A folder with the manifest of today's source (no modules: choose() reads only the manifest)."""
    out.mkdir()
    (out / engine.MANIFEST).write_text(engine.manifest_text(engine.compiled_sources()))


def test_a_matching_build_goes_in_front_of_the_source(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    out = tmp_path / "compiled"
    fake_build(out)
    monkeypatch.setenv(engine.DIR_ENV, str(out))
    for wanted in ("auto", "compiled"):
        monkeypatch.setenv(engine.ENV, wanted)
        path = ["src"]
        assert engine.choose(path)[0] == "compiled"
        assert path == [str(out / "rules_core"), "src"]


def test_an_edited_conversion_module_makes_the_build_stale(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The manifest covers ``services/convert.py`` too: editing it never runs the old compiled one."""
    out = tmp_path / "compiled"
    fake_build(out)
    manifest = out / engine.MANIFEST
    assert '"services/convert.py": "' in manifest.read_text()
    manifest.write_text(manifest.read_text().replace('"services/convert.py": "', '"services/convert.py": "0'))
    monkeypatch.setenv(engine.DIR_ENV, str(out))
    monkeypatch.setenv(engine.ENV, "auto")
    path: list[str] = []
    assert engine.choose(path)[0] == "python" and path == []


def test_a_stale_build_never_runs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    out = tmp_path / "compiled"
    fake_build(out)
    manifest = out / engine.MANIFEST
    manifest.write_text(manifest.read_text().replace('"rules_core/cards.py": "', '"rules_core/cards.py": "0'))
    monkeypatch.setenv(engine.DIR_ENV, str(out))
    monkeypatch.setenv(engine.ENV, "auto")
    path: list[str] = []
    assert engine.choose(path)[0] == "python" and path == []
    monkeypatch.setenv(engine.ENV, "compiled")
    with pytest.raises(ImportError, match="no build of this source"):
        engine.choose(path)
    shutil.rmtree(out)
    with pytest.raises(ImportError, match="no build of this source"):
        engine.choose(path)


def test_choosing_again_keeps_the_build_once_an_engine_module_is_loaded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A worker that already imported engine modules never mixes in the other build."""
    monkeypatch.setenv(engine.ENV, "python" if rules_core.ENGINE == "compiled" else "compiled")
    path = list(rules_core.__path__)
    assert engine.choose_again() == rules_core.ENGINE
    assert rules_core.__path__ == path
