"""Issue 25 item 5 over the real wire: a slice of the table-invariance matrix through a live loopback server.

``tests/test_table_invariance.py`` sends the whole matrix through the servicer in process; this sends a
slice as a client would (proto JSON, generated stubs, the rich INVALID_ARGUMENT status): a few cases of
each play area, the goldens, and the ruff and throw-ruff cases where the option decides the winner, under
two presets, on every table, in the seating where the extra seats sit between the original plays.
"""

from __future__ import annotations

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from table_invariance import REQUESTS, TABLES, Answer, Body, Item, Refused, differences, items
from wire import message

from tractor.rules.v1 import rules_service_pb2_grpc

Stub = rules_service_pb2_grpc.RulesServiceStub
DECIDING = ("WC-086a", "WC-086b", "WC-188a", "WC-189a", "WC-190a", "WC-191a", "ResolveTrick/")
"""Cases whose winner an option decides (R6.2's RUFF-COUNT, R16.7's THROW-RUFF), every combination."""


def _slice() -> list[Item]:
    chosen: list[Item] = []
    per_area: dict[str, int] = {}
    for item in items():
        if item.id.startswith(DECIDING) or item.id.split("/")[0] in ("ValidatePlay", "ListLegalPlays"):
            chosen.append(item)
        elif item.id.endswith("-own") and per_area.get(item.area, 0) < 3:
            per_area[item.area] = per_area.get(item.area, 0) + 1
            chosen.append(item)
    return chosen


def _violations(error: grpc.RpcError) -> tuple[str, ...]:
    """The fields of INVALID_ARGUMENT's BadRequest detail."""
    status = rpc_status.from_call(error)
    fields: list[str] = []
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            fields += [v.field for v in bad.field_violations]
    return tuple(fields)


@pytest.mark.parametrize("item", [pytest.param(i, id=i.id) for i in _slice()])
def test_the_answer_is_the_rulebooks_tables_on_the_wire(stub: Stub, item: Item) -> None:
    """R14, R15 on the wire: the invariant answer on every table is the rulebooks' table answer."""

    def call(method: str, body: Body) -> Answer:
        try:
            answer: Answer = getattr(stub, method)(message(REQUESTS[method], body), timeout=10)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error
            return Refused(_violations(error))
        return answer

    found, sent = differences(
        item, call, presets=("default", "rulebook-003"), tables=TABLES, layouts=("between",)
    )
    assert not found, "\n".join(found)
    assert sent > 0
