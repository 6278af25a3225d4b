"""Build and run the Node.js contract client (``tests/node``) from the client templates' output.

The client is compiled in a folder of its own: ``buf generate`` with ``protos/buf.gen.typescript.yaml``
writes the stubs there, ``tsc`` compiles them with ``replay.ts``, and ``node_modules`` links to the
packages ``make node-deps`` installed, so parallel test workers never share a build.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "tests" / "node"
CONTRACT = ROOT / "tests" / "contract"
BUF = Path(sys.executable).parent / "buf"
TEMPLATES = {
    "python": ROOT / "protos" / "buf.gen.python.yaml",
    "typescript": ROOT / "protos" / "buf.gen.typescript.yaml",
}
TIMEOUT = 120.0


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
    """The node executable and the client's installed packages, or a test failure saying how to get them."""
    found = shutil.which("node")
    if found is None or not (NODE_DIR / "node_modules" / ".package-lock.json").exists():
        pytest.fail("the Node.js client needs node and its packages: run `make node-deps`")
    return found


def generate(template: str, out: Path) -> None:
    """Run one client template (``buf generate``) from the repository root into ``out``."""
    env = {**os.environ, "PATH": f"{NODE_DIR / 'node_modules' / '.bin'}{os.pathsep}{os.environ['PATH']}"}
    checked([str(BUF), "generate", "--template", str(TEMPLATES[template]), "--output", str(out)], env=env)


def build_client(dest: Path) -> Path:
    """Generate the TypeScript stubs into ``dest``, compile them with the client; the client's entry point."""
    node()
    for name in ("package.json", "tsconfig.json", "replay.ts"):
        shutil.copy(NODE_DIR / name, dest / name)
    (dest / "node_modules").symlink_to(NODE_DIR / "node_modules", target_is_directory=True)
    generate("typescript", dest)
    checked([str(NODE_DIR / "node_modules" / ".bin" / "tsc"), "-p", str(dest)])
    return dest / "dist" / "replay.js"


def replay(client: Path, port: int, contract: Path = CONTRACT) -> subprocess.CompletedProcess[str]:
    """Run the client against the server on 127.0.0.1:``port`` over the goldens in ``contract``."""
    return run([node(), str(client), "--target", f"127.0.0.1:{port}", "--contract", str(contract)])
