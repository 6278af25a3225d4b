"""The RulesService contract as tables, for everything that sends raw bytes to a live server.

Taken from the generated descriptors (``tractor.rules.v1``), so a new RPC reaches the load tests, the
fuzzer, the soak and the bench without anyone listing it.
"""

from __future__ import annotations

from typing import Final

from google.protobuf.message import Message

from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import types_pb2 as t

SERVICE: Final = pb.DESCRIPTOR.services_by_name["RulesService"]
METHODS: Final = tuple(method.name for method in SERVICE.methods)
"""Every RPC's name, in the order of the proto."""
REQUESTS: Final[dict[str, type[Message]]] = {
    method.name: getattr(pb, method.input_type.name) for method in SERVICE.methods
}
"""Request class of every RPC, by method name."""
RESPONSES: Final[dict[str, type[Message]]] = {
    method.name: getattr(pb, method.output_type.name) for method in SERVICE.methods
}
"""Response class of every RPC, by method name: what a replayed call's bytes decode into."""
CONTRACTS: Final[dict[int | None, t.Contract.ValueType]] = {
    0: t.CONTRACT_SPADES,
    1: t.CONTRACT_HEARTS,
    2: t.CONTRACT_CLUBS,
    3: t.CONTRACT_DIAMONDS,
    None: t.CONTRACT_NO_TRUMP,
}
"""The wire contract of a trump suit by its number (rules_core's ``Suit`` S H C D, an IntEnum), None for
no-trump: kept as numbers so that the load generator imports no rules_core."""


def method_path(method: str) -> str:
    """The gRPC path of a RulesService method.

    >>> method_path("ValidatePlay")
    '/tractor.rules.v1.RulesService/ValidatePlay'
    """
    return f"/{SERVICE.full_name}/{method}"
