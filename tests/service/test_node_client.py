"""The npm package (``clients/typescript``) as a backend installs it: ``npm pack``, the tarball installed
into a project that holds nothing else but its dependencies, and from there an independent Node.js client
(``tests/node``) replays every golden pair of ``tests/contract`` against a live server and fails when a
golden and the server disagree; plain JavaScript gets a typed RulesError, and a call that the channel's
retry policy repeats; the channel defaults are the Python client's."""

from __future__ import annotations

import json
import re
import shutil
import tarfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc
import pytest
from node_client import CONTRACT, PACKAGE, build_client, checked, node, replay
from wire import Live

from tractor.rules.client.channel import CHANNEL_OPTIONS, SERVICE
from tractor.rules.v1 import rules_service_pb2


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The replay, compiled in a scratch project where the packed package is installed."""
    return build_client(tmp_path_factory.mktemp("node-client"))


class Flaky:
    """ValidatePlay that answers its first call with UNAVAILABLE (as a draining worker does), then legal."""

    def __init__(self) -> None:
        self.attempts = 0

    def validate_play(
        self, request: rules_service_pb2.ValidatePlayRequest, context: grpc.ServicerContext
    ) -> rules_service_pb2.ValidatePlayResponse:
        self.attempts += 1
        if self.attempts == 1:
            context.abort(grpc.StatusCode.UNAVAILABLE, "draining")
        return rules_service_pb2.ValidatePlayResponse(legal=True)


@pytest.fixture(scope="module")
def flaky() -> Iterator[tuple[int, Flaky]]:
    """A server on 127.0.0.1:0 whose first call fails with UNAVAILABLE; its port and its handler."""
    handler = Flaky()
    method = grpc.unary_unary_rpc_method_handler(
        handler.validate_play,
        request_deserializer=rules_service_pb2.ValidatePlayRequest.FromString,
        response_serializer=rules_service_pb2.ValidatePlayResponse.SerializeToString,
    )
    server = grpc.server(ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE, {"ValidatePlay": method})])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield port, handler
    finally:
        server.stop(None).wait(10)


@pytest.fixture(scope="module")
def probe(live: Live, client: Path, flaky: tuple[int, Flaky]) -> dict[str, Any]:
    """What ``tests/node/probe.mjs`` (plain JavaScript in the scratch project) reports."""
    targets = [f"127.0.0.1:{live.port}", f"127.0.0.1:{flaky[0]}"]
    report: dict[str, Any] = json.loads(checked([node(), "probe.mjs", *targets], cwd=client.parents[1]))
    return report


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


def test_the_replay_runs_on_the_installed_tarball_and_nothing_else(client: Path) -> None:
    project = client.parents[1]
    installed = project / "node_modules" / "@tractor-rules" / "client"
    assert installed.is_dir() and not installed.is_symlink()  # extracted from the tarball, not a link
    assert sorted(path.name for path in installed.iterdir()) == ["README.md", "dist", "package.json"]
    declared = json.loads((project / "package.json").read_text(encoding="utf-8"))["dependencies"]
    assert declared["@tractor-rules/client"] == "file:tractor-rules-client-0.1.0.tgz"
    assert not (project / "node_modules" / "typescript").exists()  # no dev tool of the package came along
    assert not (project / "gen").exists()  # no stubs of its own: the replay imports the package's
    assert '"@tractor-rules/client"' in (project / "replay.ts").read_text(encoding="utf-8")


def test_plain_javascript_gets_a_typed_error_with_its_field_violation(probe: dict[str, Any]) -> None:
    golden = json.loads(
        (CONTRACT / "ValidatePlay" / "error_unknown_card.error.json").read_text(encoding="utf-8")
    )
    bad_request, error_info = golden["details"]
    assert probe["legal"] is True  # the same hand, a legal lead: the call itself works
    error = probe["error"]
    assert error["name"] == "RulesError"
    assert (error["code"], error["codeName"]) == (3, "INVALID_ARGUMENT")
    assert error["details"] == golden["message"]
    assert (error["reason"], error["domain"]) == (error_info["reason"], "rules.tractor")
    assert error["metadata"] == {"field": "hand[1]"} == error_info["metadata"]
    assert error["fieldViolations"] == bad_request["fieldViolations"]
    assert error["fields"] == ["hand[1]"]


def test_the_package_sets_the_python_clients_channel_options(probe: dict[str, Any]) -> None:
    # one set of defaults, two languages: both clients' option names are gRPC's own channel arguments
    python = dict(CHANNEL_OPTIONS)
    typescript = dict(probe["channelOptions"])
    config = "grpc.service_config"
    assert json.loads(typescript.pop(config)) == json.loads(python.pop(config))
    assert typescript == python
    assert (
        "CANCELLED"
        in json.loads(dict(CHANNEL_OPTIONS)[config])["methodConfig"][0]["retryPolicy"]["retryableStatusCodes"]
    )


def test_the_packages_retry_policy_hides_an_unavailable_server(
    probe: dict[str, Any], flaky: tuple[int, Flaky]
) -> None:
    assert probe["retried"] == {"legal": True}
    assert flaky[1].attempts == 2  # the first attempt failed with UNAVAILABLE, gRPC retried it


def _lower_bound(spec: str) -> tuple[int, ...]:
    """The lowest version a caret range admits (``^1.10.0`` -> (1, 10, 0)); a pin or anything else fails."""
    match = re.fullmatch(r"\^(\d+)\.(\d+)\.(\d+)", spec)
    assert match, f"{spec}: not a caret range"
    return tuple(int(part) for part in match.groups())


def test_the_package_declares_ranges_that_hold_the_locked_runtime(client: Path) -> None:
    manifest = json.loads((PACKAGE / "package.json").read_text(encoding="utf-8"))
    assert manifest["exports"]["."]["types"] == manifest["types"] == "./dist/index.d.ts"
    assert manifest["engines"] == {"node": ">=20"}
    locked = json.loads((PACKAGE / "package-lock.json").read_text(encoding="utf-8"))["packages"]
    for name, spec in manifest["dependencies"].items():
        version = tuple(int(part) for part in locked[f"node_modules/{name}"]["version"].split("."))
        low = _lower_bound(spec)
        assert low <= version and version[0] == low[0], (name, spec, version)
    for name, spec in manifest["devDependencies"].items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", spec), f"dev tool {name} {spec}: not an exact version"
    with tarfile.open(next(client.parents[1].glob("*.tgz"))) as tarball:
        names = set(tarball.getnames())
    assert {
        "package/package.json",
        "package/README.md",
        "package/dist/index.js",
        "package/dist/index.d.ts",
    } <= names
    assert not any(name.startswith(("package/src/", "package/node_modules/")) for name in names)
