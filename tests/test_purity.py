"""rules_core stays pure: standard library only, no gRPC or protobuf, no I/O at import (STYLE point 1)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "rules_core"


def test_rules_core_imports_only_the_standard_library() -> None:
    outside = set()
    for path in CORE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                top = name.split(".")[0]
                if top != "rules_core" and top not in sys.stdlib_module_names:
                    outside.add(f"{path.name}: {name}")
    assert not outside, sorted(outside)


def test_importing_every_module_loads_no_grpc() -> None:
    modules = sorted(p.stem for p in CORE.glob("*.py") if p.stem != "__init__")
    code = (
        "import sys\n"
        + "".join(f"import rules_core.{m}\n" for m in modules)
        + "bad = [m for m in sys.modules if m.split('.')[0] in ('grpc', 'google', 'prometheus_client')]\n"
        + "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
