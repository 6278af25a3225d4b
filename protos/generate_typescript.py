"""Generate the rules contract's TypeScript code into the npm package (``make protos``, with the Python).

``buf generate`` with ``protos/buf.gen.typescript.yaml`` (the template client teams use) and the package's
own locked protoc-gen-es (``clients/typescript/node_modules/.bin``, installed by ``make node-deps``)
writes ``tractor/rules/v1/*_pb.ts`` and ``google/rpc/*_pb.ts``; they are committed under
``clients/typescript/src/gen/``, so ``npm pack`` needs no buf. ``--check`` regenerates into a temporary
folder and fails when the committed files differ (``tests/service/test_node_client.py`` runs it): a
proto edited without ``make protos`` is caught, as for the Python stubs (``protos/generate.py --check``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "protos" / "buf.gen.typescript.yaml"
PACKAGE = ROOT / "clients" / "typescript"
GENERATED = PACKAGE / "src" / "gen"
"""Where the committed code lives: the template's ``gen/ts`` output, moved under the package's sources."""
PLUGINS = PACKAGE / "node_modules" / ".bin"
BUF = ROOT / ".venv" / "bin" / "buf"
TIMEOUT_S = 120.0


def generate(out: Path) -> None:
    """Run the TypeScript template from the repository root; its output lands in ``out``."""
    if not (PLUGINS / "protoc-gen-es").exists():
        raise SystemExit("protoc-gen-es not found: run `make node-deps` (npm ci in clients/typescript)")
    buf = str(BUF) if BUF.exists() else shutil.which("buf")
    if buf is None:
        raise SystemExit("buf not found: run `make .venv/.installed` (the `protos` dependency group)")
    env = {**os.environ, "PATH": f"{PLUGINS}{os.pathsep}{os.environ.get('PATH', '')}"}
    with tempfile.TemporaryDirectory() as tmp:
        args = [buf, "generate", "--template", str(TEMPLATE), "--output", tmp]
        subprocess.run(args, cwd=ROOT, env=env, check=True, timeout=TIMEOUT_S)
        shutil.copytree(Path(tmp) / "gen" / "ts", out, dirs_exist_ok=True)


def _files(root: Path) -> dict[Path, bytes]:
    """Every file under ``root``, keyed by its relative path."""
    return {path.relative_to(root): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


def stale_files() -> list[str]:
    """Committed files that differ from a fresh generation (missing, extra or changed), as paths."""
    with tempfile.TemporaryDirectory() as tmp:
        generate(Path(tmp))
        fresh = _files(Path(tmp))
    committed = _files(GENERATED) if GENERATED.exists() else {}
    return sorted(
        str(path) for path in fresh.keys() | committed.keys() if fresh.get(path) != committed.get(path)
    )


def main(argv: list[str] | None = None) -> int:
    """Generate in place, or with ``--check`` report stale generated files and exit 1."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the committed code is stale")
    args = parser.parse_args(argv)
    if args.check:
        stale = stale_files()
        if stale:
            print("TypeScript code is stale; run `make protos`:", *stale, sep="\n  ", file=sys.stderr)
            return 1
        print("TypeScript code is up to date")
        return 0
    shutil.rmtree(GENERATED, ignore_errors=True)
    generate(GENERATED)
    print(f"generated {len(_files(GENERATED))} files under {GENERATED.relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
