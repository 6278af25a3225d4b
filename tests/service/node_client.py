"""Build and run the Node.js contract client (``tests/node``) on the npm package as a backend installs it.

``npm pack`` makes the tarball of ``clients/typescript`` (its ``prepack`` compiles ``dist/`` with tsc); a
scratch project holds that tarball and nothing else but its dependencies, installed by ``npm ci`` from a
lockfile written from the package's own (the versions ``make node-deps`` put in npm's cache, so no
network); ``replay.ts`` is compiled there against the installed package's ``.d.ts`` files, and
``probe.mjs`` runs there as plain JavaScript. Every build is a folder of its own, so parallel test
workers never share one.

By hand: ``.venv/bin/python tests/service/node_client.py OUT`` builds the project in ``OUT``.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "tests" / "node"
PACKAGE = ROOT / "clients" / "typescript"
MODULES = PACKAGE / "node_modules"
"""The package's locked dev tools (tsc, @types/node, protoc-gen-es) and dependencies: ``make node-deps``."""
CONTRACT = ROOT / "tests" / "contract"
BUF = Path(sys.executable).parent / "buf"
TEMPLATES = {
    "python": ROOT / "protos" / "buf.gen.python.yaml",
    "typescript": ROOT / "protos" / "buf.gen.typescript.yaml",
}
TIMEOUT = 120.0
NPM_QUIET = ["--no-audit", "--no-fund", "--loglevel=error"]


def run(
    args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a command with a time limit, capturing its output."""
    return subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )


def checked(args: list[str], cwd: Path = ROOT, env: dict[str, str] | None = None) -> str:
    """Run a command that must succeed; its stdout."""
    result = run(args, cwd, env)
    assert result.returncode == 0, f"{args} exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    return result.stdout


def node() -> str:
    """The node executable, with npm and the package's installed tools, or a test failure saying how."""
    found = shutil.which("node")
    if found is None or shutil.which("npm") is None or not (MODULES / ".package-lock.json").exists():
        pytest.fail("the Node.js client needs node, npm and the package's tools: run `make node-deps`")
    return found


def generate(template: str, out: Path) -> None:
    """Run one client template (``buf generate``) from the repository root into ``out``."""
    env = {**os.environ, "PATH": f"{MODULES / '.bin'}{os.pathsep}{os.environ['PATH']}"}
    checked([str(BUF), "generate", "--template", str(TEMPLATES[template]), "--output", str(out)], env=env)


PACK_LOCK = ROOT / "build" / "clients" / "npm-pack.lock"
"""Held while ``npm pack`` runs: its ``prepack`` rebuilds the package's dist/, so two at once (this and
``tests/clients/tsproject.py``'s, in another test worker) would pack each other's half-built files."""


def pack(dest: Path) -> Path:
    """``npm pack`` the package into ``dest`` (``prepack`` builds it first); the tarball."""
    node()
    PACK_LOCK.parent.mkdir(parents=True, exist_ok=True)
    with PACK_LOCK.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        checked(["npm", "pack", "--pack-destination", str(dest), *NPM_QUIET], cwd=PACKAGE)
    [tarball] = dest.glob("*.tgz")
    return tarball


def _integrity(path: Path) -> str:
    """npm's Subresource Integrity string of a file."""
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode("ascii")


def _lockfile(project: dict[str, Any], tarball: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    """The scratch project's package-lock.json: the tarball, and the package's own locked runtime packages
    (every entry of its lockfile that is not a dev tool), so ``npm ci`` installs exactly those versions."""
    locked = json.loads((PACKAGE / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    runtime = {path: entry for path, entry in locked.items() if path and not entry.get("dev")}
    entry = {
        "version": manifest["version"],
        "resolved": f"file:{tarball.name}",
        "integrity": _integrity(tarball),
        "license": manifest["license"],
        "dependencies": manifest["dependencies"],
        "engines": manifest["engines"],
    }
    root = {key: project[key] for key in ("name", "version", "dependencies")}
    packages = {"": root, f"node_modules/{manifest['name']}": entry, **runtime}
    return {
        "name": project["name"],
        "version": project["version"],
        "lockfileVersion": 3,
        "requires": True,
        "packages": packages,
    }


def install(dest: Path, tarball: Path) -> None:
    """A Node project in ``dest`` whose only dependency is the tarball (plus @bufbuild/protobuf, the one
    the package's messages need in a caller's code, in the package's own range), installed by npm ci."""
    manifest = json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))
    protobuf = "@bufbuild/protobuf"
    project = {
        "name": "tractor-rules-scratch",
        "version": "0.0.0",
        "private": True,
        "type": "module",
        "dependencies": {
            manifest["name"]: f"file:{tarball.name}",
            protobuf: manifest["dependencies"][protobuf],
        },
    }
    if tarball.parent != dest:
        shutil.copy(tarball, dest / tarball.name)
    (dest / "package.json").write_text(json.dumps(project, indent=2) + "\n", encoding="utf-8")
    lockfile = _lockfile(project, tarball, manifest)
    (dest / "package-lock.json").write_text(json.dumps(lockfile, indent=2) + "\n", encoding="utf-8")
    checked(["npm", "ci", "--prefer-offline", *NPM_QUIET], cwd=dest)


def build_client(dest: Path) -> Path:
    """Pack the package, install it into a scratch project in ``dest``, compile ``replay.ts`` there against
    the installed package (with ``usage.ts``, its typed surface), and copy ``probe.mjs`` beside it; the
    replay's entry point."""
    install(dest, pack(dest))
    for name in ("tsconfig.json", "replay.ts", "usage.ts", "probe.mjs"):
        shutil.copy(NODE_DIR / name, dest / name)
    # @types/node from the package's dev tools: the scratch project holds no dev tool of its own
    checked([str(MODULES / ".bin" / "tsc"), "-p", str(dest), "--typeRoots", str(MODULES / "@types")])
    return dest / "dist" / "replay.js"


def replay(client: Path, port: int, contract: Path = CONTRACT) -> subprocess.CompletedProcess[str]:
    """Run the client against the server on 127.0.0.1:``port`` over the goldens in ``contract``."""
    return run([node(), str(client), "--target", f"127.0.0.1:{port}", "--contract", str(contract)])


if __name__ == "__main__":
    out = Path(sys.argv[1]).resolve()
    out.mkdir(parents=True, exist_ok=True)
    print(build_client(out))
