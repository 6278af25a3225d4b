"""Bytes that do not decode are INVALID_ARGUMENT naming the malformed field, found by walking the wire
format with the request's descriptor (``services.wireformat``)."""

from __future__ import annotations

import grpc
import pytest
from google.protobuf.message import DecodeError, Message
from inproc import config, running

from loadtest.hardening.judge import Outcome
from loadtest.protowire import delimited, varint
from services.wireformat import MAX_DEPTH, locate
from tractor.rules.v1 import rules_service_pb2 as pb

PLAY = delimited(2, b"\x08\x01" + delimited(2, b"\x05\x06"))  # SeatCards(seat=1, cards=[5, 6])

CASES = [
    # (bytes of a ValidatePlayRequest, field named, what is wrong)
    (delimited(7, PLAY + varint(2 << 3 | 2) + varint(9) + b"\x08"), "trick.plays[1]", "runs past the end"),
    (delimited(7, PLAY + PLAY[:-1]), "trick.plays[1]", "runs past the end"),
    (delimited(1, delimited(1, b"rule\xffbook")), "ruleset.preset", "not UTF-8"),
    (delimited(5, b"\x05\x80"), "hand", "packed value is truncated"),
    (b"\x20\x80\x80", "seat", "varint is truncated"),
    (delimited(7, b"\x0f"), "trick.leader", "wire type 7"),
    (delimited(7, b"\x7f"), "trick.15", "wire type 7"),
    (b"\x00\x01", "0", "numbered 0"),
    (b"\x7b" * (MAX_DEPTH + 1) + b"\x7c" * (MAX_DEPTH + 1), "15", f"nested more than {MAX_DEPTH}"),
    (b"\x7b\x08\x01", "15", "never ends"),
    (b"\x7c", "15", "end-group marker"),
    (delimited(7, PLAY) + b"\x85", "", "field tag is truncated"),
]


@pytest.mark.parametrize(
    ("data", "field", "problem"), CASES, ids=[f"{c[1] or 'framing'}:{c[2]}" for c in CASES]
)
def test_the_first_malformed_field_is_located(data: bytes, field: str, problem: str) -> None:
    with pytest.raises(DecodeError):
        pb.ValidatePlayRequest.FromString(data)  # upb refuses it too
    found = locate(data, pb.ValidatePlayRequest.DESCRIPTOR)
    assert found is not None and found.field == field and problem in found.problem


def test_bytes_that_decode_have_nothing_to_locate(valid: dict[str, Message]) -> None:
    for message in valid.values():
        assert (
            locate(message.SerializeToString(), pb.DESCRIPTOR.message_types_by_name[type(message).__name__])
            is None
        )
    nested = b"\x7b" * MAX_DEPTH + b"\x7c" * MAX_DEPTH  # exactly the limit: fine
    pb.ValidatePlayRequest.FromString(nested)
    assert locate(nested, pb.ValidatePlayRequest.DESCRIPTOR) is None


@pytest.mark.parametrize(("data", "field", "problem"), CASES[:5], ids=[c[1] for c in CASES[:5]])
def test_the_server_names_the_malformed_field(data: bytes, field: str, problem: str) -> None:
    with (
        running(config()) as server,
        grpc.insecure_channel(server.target) as channel,
        pytest.raises(grpc.RpcError) as failure,
    ):
        channel.unary_unary("/tractor.rules.v1.RulesService/ValidatePlay")(data, timeout=10)
    error = failure.value
    outcome = Outcome(error.code(), error.details() or "", list(error.trailing_metadata() or ()))
    assert outcome.code == grpc.StatusCode.INVALID_ARGUMENT
    violations = outcome.violations()
    assert [(v.field, v.reason) for v in violations] == [(field, "MALFORMED")]
    assert problem in violations[0].description and "does not decode" in violations[0].description
