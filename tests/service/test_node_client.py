"""An independent Node.js client (``tests/node``: protoc-gen-es stubs, @grpc/grpc-js) replays every golden
pair of ``tests/contract`` against a live server, and fails when a golden and the server disagree."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from node_client import CONTRACT, build_client, replay
from wire import Live


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The client, compiled from a fresh run of the TypeScript template."""
    return build_client(tmp_path_factory.mktemp("node-client"))


def pairs(contract: Path) -> list[str]:
    return sorted(
        f"{path.parent.name}/{path.name.removesuffix('.request.json')}"
        for path in contract.glob("*/*.request.json")
    )


def test_the_node_client_replays_every_golden_pair(live: Live, client: Path) -> None:
    result = replay(client, live.port)
    assert result.returncode == 0, result.stdout + result.stderr
    replayed = sorted(line.split()[1] for line in result.stdout.splitlines() if line.startswith("ok "))
    assert replayed == pairs(CONTRACT)
    assert len(replayed) >= 27
    assert f"{len(replayed)} ok, 0 failed" in result.stdout


def test_the_node_client_fails_on_a_golden_the_server_contradicts(
    live: Live, client: Path, tmp_path: Path
) -> None:
    contract = tmp_path / "contract"
    shutil.copytree(CONTRACT, contract)
    altered = contract / "SettleHand" / "must_play_cap_with_coins.response.json"
    body = json.loads(altered.read_text(encoding="utf-8"))
    assert body["coins"]["rake"] == "84"
    body["coins"]["rake"] = "85"  # still canonical ProtoJSON, but not what the server answers
    altered.write_text(json.dumps(body, indent=2) + "\n", encoding="utf-8")
    result = replay(client, live.port, contract)
    assert result.returncode == 1, result.stdout + result.stderr
    failures = [line for line in result.stderr.splitlines() if line.startswith("FAIL ")]
    assert failures == ['FAIL SettleHand/must_play_cap_with_coins: $.coins.rake: expected "85", got "84"']
    assert f"{len(pairs(CONTRACT)) - 1} ok, 1 failed" in result.stdout
