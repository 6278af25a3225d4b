"""Keep the contract goldens in canonical ProtoJSON, and record the expected outcome of a new request.

Canonical means exactly what ``google.protobuf.json_format.MessageToJson`` emits with its defaults:
lowerCamelCase JSON names, enums by name, 64-bit integers as strings, fields at their defaults omitted,
two-space indentation (plus a final newline). A client in any language with a spec-compliant ProtoJSON
printer produces the same JSON, so no golden depends on Python's field-name option.

    .venv/bin/python tests/contract/canonicalize.py            rewrite every golden canonically
    .venv/bin/python tests/contract/canonicalize.py --check    list the goldens that are not (exit 1)
    .venv/bin/python tests/contract/canonicalize.py --record ValidatePlays/one_good_one_malformed
        call a live server (in this process, on 127.0.0.1:0) with the request and write the
        .response.json or .error.json it answers; review it before committing: it becomes the contract

An ``.error.json`` is the ``google.rpc.Status`` of the ``grpc-status-details-bin`` trailer.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from tractor.rules.v1 import rules_service_pb2 as pb

CONTRACT = Path(__file__).resolve().parent
KINDS = (".request.json", ".response.json", ".error.json")
_DETAILS = (error_details_pb2.BadRequest, error_details_pb2.ErrorInfo)
"""Imported so that the default pool resolves the ``Any`` details of an error (their ``@type``)."""
PROSE_KEYS = frozenset({"message", "description"})
"""JSON keys of human-readable text at any depth (``message`` fields, FieldViolation descriptions)."""
PROSE_TOP = {method: frozenset({"reason"}) for method in ("SuggestPlay", "SuggestDeclaration", "SuggestBury")}
"""Per method, top-level keys of its response that are prose too."""


def kind(path: Path) -> str:
    """``.request.json``, ``.response.json`` or ``.error.json``."""
    for suffix in KINDS:
        if path.name.endswith(suffix):
            return suffix
    raise ValueError(f"not a golden: {path}")


def message_type(path: Path) -> type[Message]:
    """The message a golden holds: ``<Method>Request``, ``<Method>Response`` or ``google.rpc.Status``."""
    method, suffix = path.parent.name, kind(path)
    if suffix == ".error.json":
        return status_pb2.Status
    cls: type[Message] = getattr(pb, f"{method}{'Request' if suffix == '.request.json' else 'Response'}")
    return cls


def canonical(message: Message) -> str:
    """The canonical ProtoJSON text of ``message``, as a golden file holds it."""
    return json_format.MessageToJson(message) + "\n"


def parse(path: Path) -> Message:
    """A golden as its message; unknown fields are an error."""
    return json_format.Parse(path.read_text(encoding="utf-8"), message_type(path)())


def comparable(tree: Any, top: frozenset[str] = frozenset()) -> Any:
    """A parsed golden or answer with every non-empty prose string replaced by a marker, so that prose
    is compared for presence only (the README's comparison rules); ``top``: prose keys of the root."""
    if isinstance(tree, list):
        return [comparable(item) for item in tree]
    if isinstance(tree, dict):
        return {
            key: "<text>"
            if (key in PROSE_KEYS or key in top) and isinstance(value, str) and value
            else comparable(value)
            for key, value in tree.items()
        }
    return tree


def goldens() -> list[Path]:
    """Every golden file, sorted."""
    return sorted(path for path in CONTRACT.glob("*/*.json"))


def stale() -> list[Path]:
    """The goldens whose text is not the canonical text of what they hold."""
    return [path for path in goldens() if path.read_text(encoding="utf-8") != canonical(parse(path))]


def outcome(channel: grpc.Channel, method: str, request: Message) -> tuple[str, Message]:
    """Call ``method``; its response, or the rich ``google.rpc.Status`` it failed with."""
    response_type = getattr(pb, f"{method}Response")
    call = channel.unary_unary(
        f"/tractor.rules.v1.RulesService/{method}",
        request_serializer=type(request).SerializeToString,
        response_deserializer=response_type.FromString,
    )
    try:
        return ".response.json", call(request, timeout=10)
    except grpc.RpcError as error:
        status = rpc_status.from_call(error)
        if status is None:
            status = status_pb2.Status(code=error.code().value[0], message=error.details() or "")
        return ".error.json", status


def record(cases: list[str]) -> list[Path]:
    """Write the outcome of each ``Method/case`` request, answered by a server started for the purpose."""
    from prometheus_client import CollectorRegistry  # noqa: PLC0415 (only --record needs a server)

    from services.config import ServerConfig  # noqa: PLC0415
    from services.server import create_server  # noqa: PLC0415

    config = ServerConfig(address="127.0.0.1", port=0, threads=2)
    server, port = create_server(config, registry=CollectorRegistry())
    server.start()
    written = []
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            for case in cases:
                request_path = CONTRACT / f"{case}.request.json"
                suffix, answer = outcome(channel, request_path.parent.name, parse(request_path))
                for other in KINDS[1:]:
                    request_path.with_name(request_path.name.replace(".request.json", other)).unlink(
                        missing_ok=True
                    )
                path = request_path.with_name(request_path.name.replace(".request.json", suffix))
                path.write_text(canonical(answer), encoding="utf-8")
                written.append(path)
    finally:
        server.stop(None).wait(10)
    return written


def main(argv: list[str] | None = None) -> int:
    """Rewrite, check or record goldens (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a golden is not canonical")
    parser.add_argument("--record", nargs="+", metavar="METHOD/CASE", help="record these cases' outcomes")
    args = parser.parse_args(argv)
    if args.record:
        for path in record(args.record):
            print(f"recorded {path.relative_to(CONTRACT)}")
        return 0
    if args.check:
        bad = stale()
        for path in bad:
            print(f"not canonical ProtoJSON: {path.relative_to(CONTRACT)}", file=sys.stderr)
        return 1 if bad else 0
    rewritten = 0
    for path in goldens():
        text = canonical(parse(path))
        if path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            rewritten += 1
    print(f"{len(goldens())} goldens, {rewritten} rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
