"""Which build of rules_core runs: the pure-Python modules or the mypyc-compiled ones, from the same source.

``build_engine.py`` (``make compiled``) compiles every module of this package except ``__init__`` and
this one into ``build/compiled/rules_core/`` (``TRACTOR_RULES_ENGINE_DIR`` elsewhere), and the service's
conversion module (:data:`SHELL_MODULES`) into ``build/compiled/services/``, beside a manifest of the
sources' SHA-256. When the package is first imported, ``TRACTOR_RULES_ENGINE`` chooses:

- ``python``: the source modules;
- ``compiled``: the compiled modules, and an ImportError when the build is missing or does not match the
  source (a CI pass or an image that asked for it never runs the pure engine by mistake);
- ``auto`` (unset): the compiled modules when the build matches the source, else the pure ones.

The choice is made before any engine module is imported: the compiled folder goes in front of the
package's ``__path__``, so ``rules_core.cards`` and the rest load from there. An edited module makes the
build stale (its hash changes), and stale compiled code never runs. A process forked from one that
imported only the package (the service's supervisor) chooses again with ``choose_again``.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import sys
import sysconfig
from collections.abc import MutableSequence
from pathlib import Path
from typing import Final

ENV: Final = "TRACTOR_RULES_ENGINE"
DIR_ENV: Final = "TRACTOR_RULES_ENGINE_DIR"
CHOICES: Final = ("auto", "compiled", "python")
MANIFEST: Final = "manifest.json"
PURE_MODULES: Final = frozenset({"__init__.py", "engine.py"})
"""Never compiled: they choose the build before any compiled module may load."""
SHELL_MODULES: Final = ("services/convert.py",)
"""Modules of the service compiled into the same build: the conversion every request passes through
(``services.choose_shell`` loads it when this package runs compiled). Named by path only: the engine
never imports the service."""
PROBE: Final = "rules_core.cards"
"""The module whose file says which build actually loaded (every engine module imports it)."""


def source_dir() -> Path:
    """The package's source folder."""
    return Path(__file__).resolve().parent


def compiled_dir() -> Path:
    """The compiled build's folder: ``TRACTOR_RULES_ENGINE_DIR``, else ``build/compiled`` by the package."""
    given = os.environ.get(DIR_ENV)
    return Path(given) if given else source_dir().parent / "build" / "compiled"


def compiled_sources() -> list[Path]:
    """The modules the compiled build holds: all of the package but the two that choose, and the service's
    :data:`SHELL_MODULES` where they sit beside the package (a checkout, or an install of both)."""
    shell = [source_dir().parent / name for name in SHELL_MODULES]
    own = (p for p in source_dir().glob("*.py") if p.name not in PURE_MODULES)
    return sorted([*own, *(p for p in shell if p.is_file())])


def manifest_text(modules: list[Path]) -> str:
    """The manifest of a build of ``modules``: this interpreter's extension suffix and each source's hash,
    by its path from the folder that holds the package."""
    root = source_dir().parent
    sources = {m.relative_to(root).as_posix(): hashlib.sha256(m.read_bytes()).hexdigest() for m in modules}
    return json.dumps({"ext_suffix": sysconfig.get_config_var("EXT_SUFFIX"), "sources": sources}, indent=1)


def build_matches(out: Path) -> bool:
    """Whether ``out`` holds a build of today's source for this interpreter."""
    try:
        return (out / MANIFEST).read_text() == manifest_text(compiled_sources())
    except OSError:
        return False


def choose(package_path: MutableSequence[str]) -> tuple[str, str]:
    """Apply ``TRACTOR_RULES_ENGINE`` to the package's ``__path__``; the engine chosen and why."""
    wanted = os.environ.get(ENV, "").strip().lower() or "auto"
    if wanted not in CHOICES:
        raise ImportError(f"{ENV}={wanted!r}: expected one of {', '.join(CHOICES)}")
    if wanted == "python":
        return "python", f"{ENV}=python"
    out = compiled_dir()
    if build_matches(out):
        package_path.insert(0, str(out / "rules_core"))
        return "compiled", f"{ENV}={wanted}, build at {out}"
    why = f"no build of this source at {out} (make compiled)"
    if wanted == "compiled":
        raise ImportError(f"{ENV}=compiled but {why}")
    return "python", f"{ENV}=auto, {why}"


def running() -> str:
    """The build that actually loaded, read off the probe module's file: ``compiled`` or ``python``."""
    module = importlib.import_module(PROBE)
    return "python" if str(module.__file__).endswith(".py") else "compiled"


def choose_again() -> str:
    """Choose afresh in a forked worker whose parent imported no engine module: the build may have changed.

    Returns the engine now chosen. A process that already imported an engine module keeps its choice:
    two builds never mix in one process.
    """
    package = sys.modules[__name__.rpartition(".")[0]]
    loaded = [name for name in sys.modules if name.startswith(package.__name__ + ".") and name != __name__]
    if not loaded:
        package.__path__[:] = [str(source_dir())]
        chosen, reason = choose(package.__path__)
        vars(package).update(ENGINE=chosen, ENGINE_REASON=reason)
    return str(vars(package)["ENGINE"])
