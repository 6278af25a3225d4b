"""Helpers for building requests in the proto JSON mapping and reading rich errors off the wire.

Cards are written in RULES.md notation ("SA SK S10 SJack SJ BJ") and become ``CARD_*`` names, exactly
what a JSON client sends.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from prometheus_client import CollectorRegistry

from tractor.rules.client.cards import names as card_names
from tractor.rules.v1 import types_pb2

M = TypeVar("M", bound=Message)
RPC_TIMEOUT = 10.0


@dataclass(frozen=True)
class Live:
    """A started server (the ``live`` fixture): where it listens, a channel to it, its metrics registry."""

    port: int
    channel: grpc.Channel
    registry: CollectorRegistry
    server: Any


def names(text: str | Iterable[str]) -> list[str]:
    """RULES.md card notation to Card enum names: ``"SA SJack"`` -> ``["CARD_SA", "CARD_SJACK"]``."""
    tokens = text.split() if isinstance(text, str) else list(text)
    return [f"CARD_{token.upper()}" for token in tokens]


def notation(values: Iterable[int]) -> list[str]:
    """Card enum numbers back to RULES.md notation (SJack for the jack of spades)."""
    names = card_names(map(types_pb2.Card.ValueType, values))
    return ["SJack" if name == "SJACK" else name for name in names]


def multiset(values: Iterable[int]) -> Counter[str]:
    """Cards as an order-free multiset of notation strings (CASES.md compares card lists this way)."""
    return Counter(notation(values))


def message(cls: type[M], body: dict[str, Any]) -> M:
    """A request built from its proto JSON mapping; unknown fields fail the test."""
    return json_format.ParseDict(body, cls())


def call(method: Callable[..., M], request: Message) -> M:
    """Call an RPC with a deadline (no test hangs)."""
    return method(request, timeout=RPC_TIMEOUT)


def rejected(method: Callable[..., Any], request: Message) -> tuple[grpc.StatusCode, list[tuple[str, str]]]:
    """Call an RPC that must fail; its code and its BadRequest violations as (field, reason) pairs."""
    try:
        method(request, timeout=RPC_TIMEOUT)
    except grpc.RpcError as error:
        status = rpc_status.from_call(error)
        violations: list[tuple[str, str]] = []
        for detail in status.details if status else ():
            if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                bad = error_details_pb2.BadRequest()
                detail.Unpack(bad)
                violations += [(v.field, v.reason) for v in bad.field_violations]
        return error.code(), violations
    raise AssertionError("the call succeeded")
