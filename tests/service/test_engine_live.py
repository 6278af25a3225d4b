"""The rules_core build in a live service: each worker logs it and ``/metrics`` shows it, and a SIGHUP
moves the workers onto a compiled build that appeared after the service started (``make run``)."""

from __future__ import annotations

import re
import shutil
import signal
import time
import urllib.request
from pathlib import Path

import pytest

from loadtest.server import ServerProcess, load_flags, run_serve
from rules_core import engine

pytestmark = pytest.mark.skipif(
    not engine.build_matches(engine.compiled_dir()), reason="no compiled build of this source (make compiled)"
)


def engines_shown(server: ServerProcess) -> set[str]:
    """The ``engine`` labels of ``tractor_rules_build_info`` (one series per build live workers run)."""
    with urllib.request.urlopen(server.metrics_url, timeout=10) as response:
        text = response.read().decode()
    return set(re.findall(r'^tractor_rules_build_info\{.*engine="(\w+)".*\} 1\.0$', text, re.MULTILINE))


def workers_logged(server: ServerProcess, count: int) -> list[str]:
    """The engines of the first ``count`` ``worker serving`` lines (workers log after they signal ready)."""
    deadline = time.monotonic() + 10
    while len(server.logged("worker serving")) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return [str(entry["engine"]) for entry in server.logged("worker serving")[:count]]


def test_sighup_moves_the_workers_onto_a_build_made_after_the_start(tmp_path: Path) -> None:
    build = tmp_path / "compiled"  # nothing there yet: auto serves on the pure engine
    env = {engine.ENV: "auto", engine.DIR_ENV: str(build)}
    with ServerProcess(*load_flags(workers=2), env=env, metrics_dir=tmp_path / "m") as server:
        assert workers_logged(server, 2) == ["python", "python"]
        assert engines_shown(server) == {"python"}
        shutil.copytree(engine.compiled_dir(), build)
        server.proc.send_signal(signal.SIGHUP)
        server.wait_for("recycle done", 60)
        assert workers_logged(server, 4)[2:] == ["compiled", "compiled"]
        assert engines_shown(server) == {"compiled"}  # the retired pure workers' series are gone
        assert server.serving["engine"] == "python"  # the supervisor's line: what the workers started on
        assert not server.errors(), server.errors()


def test_a_missing_build_asked_for_by_name_stops_the_start(tmp_path: Path) -> None:
    """The image asks for the compiled engine by name: without it, a clean exit 2 before any worker forks."""
    env = {engine.ENV: "compiled", engine.DIR_ENV: str(tmp_path / "nothing")}
    done = run_serve(*load_flags(workers=1), env=env, metrics_dir=tmp_path / "m")
    assert done.returncode == 2 and "TRACTOR_RULES_ENGINE=compiled but no build" in done.stderr
    assert "Traceback" not in done.stderr
