"""Golden request/response pairs (``tests/contract/``, see its README) replayed against a live server."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from wire import RPC_TIMEOUT, rejected

from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

CONTRACT = Path(__file__).resolve().parents[1] / "contract"
PROSE = {("SuggestPlayResponse", "reason")}
"""Text fields besides every ``message``: compared for presence only."""

Stub = rules_service_pb2_grpc.RulesServiceStub


def _cases() -> list[Any]:
    return [
        pytest.param(path, id=f"{path.parent.name}/{path.name.removesuffix('.request.json')}")
        for path in sorted(CONTRACT.glob("*/*.request.json"))
    ]


def _blank_prose(message: Message) -> None:
    """Replace human-readable text by a marker, so only its presence is compared."""
    for field, value in message.ListFields():
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            for item in value if field.is_repeated else [value]:
                _blank_prose(item)
        elif field.name == "message" or (message.DESCRIPTOR.name, field.name) in PROSE:
            setattr(message, field.name, "<text>")


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def test_every_rpc_has_goldens() -> None:
    methods = {path.parent.name for path in CONTRACT.glob("*/*.request.json")}
    service = pb.DESCRIPTOR.services_by_name["RulesService"]
    assert methods == {method.name for method in service.methods}


@pytest.mark.parametrize("request_path", _cases())
def test_golden_pair(stub: Stub, request_path: Path) -> None:
    method = request_path.parent.name
    name = request_path.name.removesuffix(".request.json")
    request = json_format.ParseDict(_load(request_path), getattr(pb, f"{method}Request")())
    response_path = request_path.with_name(f"{name}.response.json")
    error_path = request_path.with_name(f"{name}.error.json")
    assert response_path.exists() != error_path.exists(), "one expected outcome per request"
    if error_path.exists():
        expected = _load(error_path)
        code, violations = rejected(getattr(stub, method), request)
        assert code == grpc.StatusCode[expected["code"]]
        assert violations == [(v["field"], v["reason"]) for v in expected["field_violations"]]
        return
    actual = getattr(stub, method)(request, timeout=RPC_TIMEOUT)
    expected_message = json_format.ParseDict(_load(response_path), type(actual)())
    _blank_prose(actual)
    _blank_prose(expected_message)
    assert json_format.MessageToDict(actual, preserving_proto_field_name=True) == json_format.MessageToDict(
        expected_message, preserving_proto_field_name=True
    )
