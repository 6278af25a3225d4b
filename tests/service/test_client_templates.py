"""The client teams' ``buf generate`` templates (``protos/buf.gen.*.yaml``, docs/clients.md) produce
stubs that work: the Python ones import on their own, round-trip a golden request and call a live
server; the TypeScript ones compile into the Node.js client and load."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from node_client import CONTRACT, ROOT, build_client, checked, generate, node, run
from wire import Live

from tests.contract.canonicalize import comparable

PYTHON_CLIENT = """
import json, sys
import grpc
from google.protobuf import json_format
from tractor.rules.v1 import rules_service_pb2, rules_service_pb2_grpc

out, request_path, port = sys.argv[1:]
assert rules_service_pb2.__file__.startswith(out), rules_service_pb2.__file__  # not the repository's copy
text = open(request_path, encoding="utf-8").read()
request = json_format.Parse(text, rules_service_pb2.ValidatePlayRequest())
again = rules_service_pb2.ValidatePlayRequest.FromString(request.SerializeToString())
assert again == request and json_format.MessageToJson(again) + "\\n" == text
with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
    response = rules_service_pb2_grpc.RulesServiceStub(channel).ValidatePlay(request, timeout=10)
print(json_format.MessageToJson(response))
"""


def test_the_python_template_gives_importable_typed_stubs_that_call_the_server(
    live: Live, tmp_path: Path
) -> None:
    generate("python", tmp_path)
    package = tmp_path / "gen" / "python" / "tractor" / "rules" / "v1"
    expected = {
        f"{module}{suffix}"
        for module in ("types_pb2", "types_pb2_grpc", "rules_service_pb2", "rules_service_pb2_grpc")
        for suffix in (".py", ".pyi")
    }
    assert {path.name for path in package.iterdir()} == expected
    committed = ROOT / "tractor" / "rules" / "v1"
    for name in sorted(expected - {"types_pb2.py", "rules_service_pb2.py"}):  # those differ in json_name
        assert (package / name).read_bytes() == (committed / name).read_bytes(), name
    assert "class ValidatePlayRequest(" in (package / "rules_service_pb2.pyi").read_text(encoding="utf-8")
    assert "class RulesServiceStub" in (package / "rules_service_pb2_grpc.pyi").read_text(encoding="utf-8")
    out = str(tmp_path / "gen" / "python")
    case = CONTRACT / "ValidatePlay" / "follow_must_play_tractor"
    env = {**os.environ, "PYTHONPATH": out}
    answer = checked(
        [sys.executable, "-c", PYTHON_CLIENT, out, f"{case}.request.json", str(live.port)],
        cwd=tmp_path,
        env=env,
    )
    golden = json.loads(Path(f"{case}.response.json").read_text(encoding="utf-8"))
    assert comparable(json.loads(answer)) == comparable(golden)


def test_the_typescript_template_is_what_the_node_client_compiles_and_loads(tmp_path: Path) -> None:
    client = build_client(tmp_path)
    stubs = tmp_path / "gen" / "ts"
    assert sorted(str(path.relative_to(stubs)) for path in stubs.rglob("*.ts")) == [
        "google/rpc/error_details_pb.ts",
        "google/rpc/status_pb.ts",
        "tractor/rules/v1/rules_service_pb.ts",
        "tractor/rules/v1/types_pb.ts",
    ]
    assert (tmp_path / "dist" / "gen" / "ts" / "tractor" / "rules" / "v1" / "rules_service_pb.js").exists()
    usage = run([node(), str(client)])  # no target: every generated module loaded, then the usage line
    assert usage.returncode == 2, usage.stdout + usage.stderr
    assert "usage: node dist/replay.js --target HOST:PORT --contract DIR" in usage.stderr
