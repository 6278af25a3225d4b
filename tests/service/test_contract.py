"""Golden request/response pairs (``tests/contract/``, see its README) replayed against a live server.

Goldens are canonical ProtoJSON (``MessageToJson``); a response is printed the same way and compared
with its golden as parsed JSON, human-readable text for presence only.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from google.protobuf.message import Message
from wire import Live

from tractor.rules.v1 import rules_service_pb2 as pb

CONTRACT = Path(__file__).resolve().parents[1] / "contract"
sys.path.insert(0, str(CONTRACT))
import canonicalize  # noqa: E402 (tests/contract is no package)

PROSE_KEYS = {"message", "description"}
"""JSON keys of human-readable text at any depth (``message`` fields, FieldViolation descriptions)."""
PROSE_TOP = {"SuggestPlay": {"reason"}}
"""Per method, top-level keys of the response that are prose too."""


def _cases() -> list[Any]:
    return [
        pytest.param(path, id=f"{path.parent.name}/{path.name.removesuffix('.request.json')}")
        for path in sorted(CONTRACT.glob("*/*.request.json"))
    ]


def blank_prose(tree: Any, top: frozenset[str] = frozenset()) -> Any:
    """``tree`` with every non-empty prose string replaced by a marker: only its presence is compared."""
    if isinstance(tree, list):
        return [blank_prose(item) for item in tree]
    if isinstance(tree, dict):
        return {
            key: "<text>"
            if (key in PROSE_KEYS or key in top) and isinstance(value, str) and value
            else blank_prose(value)
            for key, value in tree.items()
        }
    return tree


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
    top = frozenset(PROSE_TOP.get(method, ())) if suffix == ".response.json" else frozenset()
    assert blank_prose(as_json(answer), top) == blank_prose(expected, top)
