"""The README's quickstart examples run as written against a live server (only the address changes)."""

from __future__ import annotations

import contextlib
import io
import json
import re

from google.protobuf import json_format
from wire import Live, call

from loadtest.server import ROOT
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_grpcurl_example_payload(live: Live) -> None:
    payload = re.search(r"grpcurl -plaintext -d '(\{.*?\})' localhost:50051", README, re.DOTALL)
    assert payload is not None
    request = json_format.ParseDict(json.loads(payload.group(1)), pb.ValidatePlayRequest())
    verdict = call(rules_service_pb2_grpc.RulesServiceStub(live.channel).ValidatePlay, request)
    assert verdict.violation == types_pb2.VIOLATION_MUST_PLAY_TRACTOR
    assert verdict.message in README


def test_python_example(live: Live) -> None:
    block = re.search(r"```python\n(.*?)```", README, re.DOTALL)
    assert block is not None
    code = block.group(1).replace("localhost:50051", f"127.0.0.1:{live.port}")
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md", "exec"), {})
    assert printed.getvalue().strip() == "False must play a tractor of S: SK SK SQ SQ"


def test_make_targets_are_documented() -> None:
    assert "make run" in README and "make test" in README
