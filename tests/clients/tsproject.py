"""The npm package as a new user gets it: ``npm pack`` of ``clients/typescript`` (cached by its sources),
and scratch projects that install the tarball beside exact versions of its runtime and of the user's
tools, at the ``lowest`` or the ``newest`` end of what the package declares:

* lowest: ``@grpc/grpc-js`` and ``@bufbuild/protobuf`` at the lower bounds of the package's ranges,
  ``typescript`` and ``@types/node`` at the lower bounds of its optional peer ranges;
* newest: the newest release each range admits (``npm view``), and the newest ``typescript`` and
  ``@types/node``.

Each project is the README's ``package.json`` (its fields, with these versions) and its ``tsconfig.json``
as the README shows them, installed by ``npm install --prefer-offline``, kept under
``build/clients/`` by a hash of the tarball and the versions, so a rerun installs nothing.
``workspace`` gives a test a folder of its own that shares the project's ``node_modules``.
"""

from __future__ import annotations

import functools
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Final

from clientdist import cached, digest, run

from loadtest.server import ROOT

PACKAGE: Final = ROOT / "clients" / "typescript"
README: Final = PACKAGE / "README.md"
NPM_QUIET: Final = ("--no-audit", "--no-fund", "--loglevel=error")
RUNTIME: Final = ("@grpc/grpc-js", "@bufbuild/protobuf")
TOOLS: Final = ("typescript", "@types/node")
KINDS: Final = ("lowest", "newest")


def manifest() -> dict[str, Any]:
    """The package's package.json."""
    loaded: dict[str, Any] = json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))
    return loaded


def readme_json(name: str) -> dict[str, Any]:
    """The README's ```json block that follows the first mention of ``name`` (``package.json``...)."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"`{name}`")
    match = re.compile(r"^```json\n(.*?)^```$", re.DOTALL | re.MULTILINE).search(text, start)
    assert match is not None, f"the README shows no {name}"
    loaded: dict[str, Any] = json.loads(match.group(1))
    return loaded


def floor(spec: str) -> str:
    """The lowest version a range admits (``^1.10.0`` or ``>=5.9.3`` -> ``1.10.0``)."""
    match = re.fullmatch(r"(?:\^|>=)(\d+\.\d+\.\d+)", spec)
    assert match, f"{spec}: not a caret or >= range"
    return match.group(1)


@functools.cache
def newest(name: str, spec: str | None = None) -> str:
    """The newest release of ``name`` (within ``spec``), as npm's registry answers now."""
    out = run("npm", "view", name if spec is None else f"{name}@{spec}", "version", "--json")
    found = json.loads(out)
    return str(found[-1] if isinstance(found, list) else found)


@functools.cache
def versions(kind: str) -> dict[str, str]:
    """The exact version of each runtime package and tool in the ``kind`` project."""
    assert kind in KINDS
    declared = {**manifest()["dependencies"], **manifest()["peerDependencies"]}
    if kind == "lowest":
        return {name: floor(declared[name]) for name in (*RUNTIME, *TOOLS)}
    ranged = {name: newest(name, declared[name]) for name in RUNTIME}
    return {**ranged, **{name: newest(name) for name in TOOLS}}


@functools.cache
def tarball() -> Path:
    """``npm pack`` of the package (``prepack`` compiles dist/ with the package's locked tsc)."""
    sources = [
        PACKAGE / name for name in ("src", "package.json", "package-lock.json", "tsconfig.json", "README.md")
    ]

    def pack(out: Path) -> None:
        if not (PACKAGE / "node_modules" / ".package-lock.json").exists():
            raise AssertionError("the npm package needs its tools: run `make node-deps`")
        run("npm", "pack", "--pack-destination", out, *NPM_QUIET, cwd=PACKAGE)

    # the lock of cached("npm-pack", ...) is the one tests/service/node_client.py packs under
    (found,) = cached("npm-pack", digest(*sources), pack).glob("*.tgz")
    return found


@functools.cache
def project(kind: str) -> Path:
    """The ``kind`` scratch project, installed (cached by the tarball and the versions)."""
    exact = versions(kind)
    packed = tarball()
    fields = readme_json("package.json")
    config = readme_json("tsconfig.json")

    def make(folder: Path) -> None:
        shutil.copy(packed, folder / packed.name)
        body = {
            "name": f"tractor-rules-{kind}",
            "version": "0.0.0",
            "private": True,
            **fields,
            "dependencies": {
                manifest()["name"]: f"file:{packed.name}",
                **{name: exact[name] for name in fields["dependencies"] if name in exact},
            },
            "devDependencies": {name: exact[name] for name in fields["devDependencies"]},
        }
        (folder / "package.json").write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
        (folder / "tsconfig.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
        run("npm", "install", "--prefer-offline", *NPM_QUIET, cwd=folder)

    folder = cached(f"npm-{kind}", digest(packed, exact, fields, config), make)
    check_installed(folder, exact)
    return folder


def installed(folder: Path, name: str) -> str:
    """The version of ``name`` in ``folder``'s node_modules."""
    meta = json.loads((folder / "node_modules" / name / "package.json").read_text(encoding="utf-8"))
    return str(meta["version"])


def check_installed(folder: Path, exact: dict[str, str]) -> None:
    """Exactly the versions asked for, and one copy of each runtime package (the client's own deps are
    the project's, not nested copies)."""
    for name, version in exact.items():
        assert installed(folder, name) == version, (name, installed(folder, name), version)
    nested = folder / "node_modules" / manifest()["name"] / "node_modules"
    assert not [name for name in RUNTIME if (nested / name).exists()], "a nested copy of the runtime"


def workspace(kind: str, dest: Path) -> Path:
    """``dest`` as a project of its own on the ``kind`` project's install: its package.json and
    tsconfig.json, and its node_modules linked."""
    source = project(kind)
    for name in ("package.json", "tsconfig.json"):
        shutil.copy(source / name, dest / name)
    (dest / "node_modules").symlink_to(source / "node_modules", target_is_directory=True)
    return dest


def tsc(folder: Path) -> subprocess.CompletedProcess[str]:
    """The project's own tsc on ``folder`` (its tsconfig.json)."""
    return subprocess.run(
        [str(folder / "node_modules" / ".bin" / "tsc"), "-p", str(folder)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
