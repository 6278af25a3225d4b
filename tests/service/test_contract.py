"""Golden request/response pairs (``tests/contract/``, see its README) replayed against a live server.

Goldens are canonical ProtoJSON (``MessageToJson``); a response is printed the same way and compared
with its golden as parsed JSON, human-readable text for presence only.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from wire import Live

from tests.contract import canonicalize
from tractor.rules.v1 import rules_service_pb2 as pb

CONTRACT = canonicalize.CONTRACT


def _cases() -> list[Any]:
    return [
        pytest.param(path, id=f"{path.parent.name}/{path.name.removesuffix('.request.json')}")
        for path in sorted(CONTRACT.glob("*/*.request.json"))
    ]


def as_json(message: Message) -> Any:
    """``message`` as canonical ProtoJSON, parsed."""
    return json.loads(canonicalize.canonical(message))


def test_every_rpc_has_goldens() -> None:
    methods = {path.parent.name for path in CONTRACT.glob("*/*.request.json")}
    service = pb.DESCRIPTOR.services_by_name["RulesService"]
    assert methods == {method.name for method in service.methods}


def test_every_golden_is_canonical_protojson() -> None:
    assert len(canonicalize.goldens()) > 50
    assert canonicalize.stale() == []


@pytest.mark.parametrize("request_path", _cases())
def test_golden_pair(live: Live, request_path: Path) -> None:
    method = request_path.parent.name
    name = request_path.name.removesuffix(".request.json")
    response_path = request_path.with_name(f"{name}.response.json")
    error_path = request_path.with_name(f"{name}.error.json")
    assert response_path.exists() != error_path.exists(), "one expected outcome per request"
    suffix, answer = canonicalize.outcome(live.channel, method, canonicalize.parse(request_path))
    assert suffix == (".error.json" if error_path.exists() else ".response.json")
    expected = json.loads((error_path if error_path.exists() else response_path).read_text(encoding="utf-8"))
    top = canonicalize.PROSE_TOP.get(method, frozenset()) if suffix == ".response.json" else frozenset()
    assert canonicalize.comparable(as_json(answer), top) == canonicalize.comparable(expected, top)
