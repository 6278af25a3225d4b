"""The load test's CI smoke: real Locust, headless, for a second or two against the real service.

The service (``tractor-rules serve``, one worker) listens on an ephemeral 127.0.0.1 port; Locust runs as
a subprocess through ``loadtest.run`` with a hard timeout, on a small corpus generated here, until it has
sent the calls each test checks (``--stop-after``), not for a fixed time. The honest corpus must give
zero failures and the traffic asked for; a corpus with deliberately wrong answers must be reported as
failures, with a non-zero exit, which proves the verdict checker can fail.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from loadtest.corpus import generate
from loadtest.replay import CORPUS_ENV, KINDS, Call, Script, corpus_path, read, write
from loadtest.run import KILL_MARGIN
from loadtest.server import ROOT, ServerProcess, load_flags, python_env

RUN_SECONDS = 30
RUN_LIMIT = f"{RUN_SECONDS}s"
"""``--time`` of every run: an upper bound. Each run stops as soon as it has sent the calls its test
checks (``--stop-after``), a second or two on an idle machine; a loaded one takes longer, not fewer
calls."""
RUN_TIMEOUT = RUN_SECONDS + KILL_MARGIN
"""Hard limit for one ``loadtest.run``: RUN_LIMIT plus ``loadtest.run``'s own kill margin."""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small corpus: a few hands per frontend and per other table, and a few stress positions."""
    directory = tmp_path_factory.mktemp("corpus")
    generate(directory, hands=6, stress=6)
    return directory


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The real multi-process server on 127.0.0.1 with a free port, stopped after the module."""
    log = tmp_path_factory.mktemp("service") / "service.log"
    with ServerProcess(*load_flags(), log_path=log) as process:
        yield process
    assert process.proc.returncode == 0, log.read_text()


def run_locust(service: ServerProcess, corpus: Path, results: Path, *args: str) -> tuple[int, dict[str, Any]]:
    """``python -m loadtest.run --smoke`` against the service; (exit status, the run's summary)."""
    command = [sys.executable, "-m", "loadtest.run", "--smoke", "--port", str(service.port)]
    command += ["--results", str(results), "--no-pin", *args]
    done = subprocess.run(
        command,
        cwd=ROOT,
        env=python_env(**{CORPUS_ENV: str(corpus)}),
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
        check=False,
    )
    summary_path = results / "smoke_summary.json"
    assert summary_path.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return done.returncode, json.loads(summary_path.read_text(encoding="utf-8"))


def test_smoke_has_traffic_and_no_failures(service: ServerProcess, corpus: Path, tmp_path: Path) -> None:
    goals = "--stop-after=ValidatePlay=40,ResolveTrick=8"
    code, summary = run_locust(service, corpus, tmp_path, "--time", RUN_LIMIT, "--", goals)
    assert code == 0, summary["errors"]
    assert summary["failures"] == 0, summary["errors"]
    methods = summary["methods"]
    assert methods["ValidatePlay"]["requests"] >= 40 and methods["ResolveTrick"]["requests"] >= 8
    assert (tmp_path / "smoke.html").stat().st_size > 0
    assert (tmp_path / "smoke_stats.csv").exists()


def test_a_backend_sending_batches(service: ServerProcess, corpus: Path, tmp_path: Path) -> None:
    """The multiplexing backend alone: ValidatePlays of 32 plays, every item checked, no failure."""
    args = ("--time", RUN_LIMIT, "--", "--stop-after=ValidatePlays=8", "BatchingBackend")
    code, summary = run_locust(service, corpus, tmp_path, *args)
    assert code == 0, summary["errors"]
    assert summary["methods"]["ValidatePlays"]["requests"] >= 8
    assert summary["failures"] == 0, summary["errors"]
    assert set(summary["methods"]) == {"ValidatePlays"}


def test_the_friends_table(service: ServerProcess, corpus: Path, tmp_path: Path) -> None:
    """The three-deck, six-seat finding-friends table alone (R14, R15), fast enough to finish hands: the
    bury, the plays, each trick with its sides and the per-seat settlement, every answer as scripted."""
    goals = "--stop-after=ValidateBury=1,ValidatePlay=1,ResolveTrick=1,SettleHand=1"
    args = ("--time", RUN_LIMIT, "--", "--think-time", "0.01", goals, "FriendsTable")
    code, summary = run_locust(service, corpus, tmp_path, *args)
    assert code == 0, summary["errors"]
    assert summary["failures"] == 0, summary["errors"]
    assert {"ValidateBury", "ValidatePlay", "ResolveTrick", "SettleHand"} <= set(summary["methods"])
    assert summary["methods"]["ResolveTrick"]["requests"] > summary["methods"]["SettleHand"]["requests"] > 0


def test_a_wrong_expected_verdict_is_a_failure(service: ServerProcess, corpus: Path, tmp_path: Path) -> None:
    wrong = tmp_path / "wrong-corpus"
    for kind in KINDS:  # every trick's winner moved one seat on: the service is right, the corpus is not
        scripts = [
            Script(
                script.name,
                tuple(
                    Call(
                        call.method, call.request, {**call.expect, "winner": (call.expect["winner"] + 1) % 4}
                    )
                    if call.method == "ResolveTrick"
                    else call
                    for call in script.calls
                ),
            )
            for script in read(corpus_path(kind, corpus))
        ]
        write(corpus_path(kind, wrong), scripts)
    goals = "--stop-after=ValidatePlay=20,ResolveTrick=5"
    code, summary = run_locust(service, wrong, tmp_path / "results", "--time", RUN_LIMIT, "--", goals)
    assert code != 0
    assert summary["failures"] > 0
    assert summary["methods"]["ResolveTrick"]["failures"] > 0
    assert summary["methods"].get("ValidatePlay", {}).get("failures", 0) == 0
    assert any(
        "winner is" in error["error"] and "the rules say" in error["error"] for error in summary["errors"]
    )


def test_the_load_generator_does_no_rules_work() -> None:
    """Importing the locustfile (and with it the gRPC user and the replay) never loads rules_core."""
    probe = "import sys, loadtest.locustfile; sys.exit('rules_core' in sys.modules)"
    command = [sys.executable, "-c", probe]
    done = subprocess.run(command, check=False, cwd=ROOT, env=python_env(), capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
