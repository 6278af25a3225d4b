"""ValidatePlays and ResolveTricks: every item answered as its unary call would be, errors in their slots."""

from __future__ import annotations

from functools import cache

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from wire import RPC_TIMEOUT, Live

from loadtest.corpus import DEFAULT_HANDS, DEFAULT_STRESS, stress_scripts, table_scripts
from services.servicer import MAX_BATCH_ITEMS
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2


@cache
def corpus_requests(method: str) -> tuple[bytes, ...]:
    """Every ``method`` request of the whole load corpus (both frontends' hands and the stress set)."""
    scripts = [*table_scripts("000", DEFAULT_HANDS), *table_scripts("003", DEFAULT_HANDS)]
    scripts += stress_scripts(DEFAULT_STRESS)
    return tuple(call.request for script in scripts for call in script.calls if call.method == method)


def batches(items: tuple[bytes, ...], size: int) -> list[tuple[bytes, ...]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


@pytest.mark.parametrize(
    ("unary", "batch", "request_type", "batch_type"),
    [
        ("ValidatePlay", "ValidatePlays", pb.ValidatePlayRequest, pb.ValidatePlaysRequest),
        ("ResolveTrick", "ResolveTricks", pb.ResolveTrickRequest, pb.ResolveTricksRequest),
    ],
)
def test_every_batched_answer_equals_the_unary_one_over_the_load_corpus(
    stub: rules_service_pb2_grpc.RulesServiceStub,
    unary: str,
    batch: str,
    request_type: type[Message],
    batch_type: type[Message],
) -> None:
    requests = corpus_requests(unary)
    assert len(requests) > 1000
    compared = 0
    for chunk in batches(requests, MAX_BATCH_ITEMS):
        items = [request_type.FromString(data) for data in chunk]
        answer = getattr(stub, batch)(batch_type(items=items), timeout=RPC_TIMEOUT)
        assert len(answer.results) == len(items)
        for item, result in zip(items, answer.results, strict=True):
            assert result.WhichOneof("result") == "response"
            assert result.response == getattr(stub, unary)(item, timeout=RPC_TIMEOUT)
            compared += 1
    assert compared == len(requests)


def field_violations(status: object) -> list[tuple[str, str]]:
    found = []
    for detail in status.details:  # type: ignore[attr-defined]
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            found += [(v.field, v.reason) for v in bad.field_violations]
    return found


def error_reasons(status: object) -> list[tuple[str, str]]:
    found = []
    for detail in status.details:  # type: ignore[attr-defined]
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            found.append((info.reason, info.domain))
    return found


def test_a_malformed_item_gets_its_own_status_and_the_others_are_answered(
    live: Live, stub: rules_service_pb2_grpc.RulesServiceStub
) -> None:
    good = [pb.ValidatePlayRequest.FromString(data) for data in corpus_requests("ValidatePlay")[:3]]
    bad = pb.ValidatePlayRequest()
    bad.CopyFrom(good[1])
    bad.cards[0] = types_pb2.Card.ValueType(99)  # not a card
    answer = stub.ValidatePlays(pb.ValidatePlaysRequest(items=[good[0], bad, good[2]]), timeout=RPC_TIMEOUT)
    kinds = [result.WhichOneof("result") for result in answer.results]
    assert kinds == ["response", "error", "response"]
    assert answer.results[0].response == stub.ValidatePlay(good[0], timeout=RPC_TIMEOUT)
    assert answer.results[2].response == stub.ValidatePlay(good[2], timeout=RPC_TIMEOUT)
    error = answer.results[1].error
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    with pytest.raises(grpc.RpcError) as unary:
        stub.ValidatePlay(bad, timeout=RPC_TIMEOUT)
    alone = rpc_status.from_call(unary.value)
    assert alone is not None
    assert field_violations(error) == [
        (f"items[1].{field}", reason) for field, reason in field_violations(alone)
    ]
    assert field_violations(error)[0][1] == "UNKNOWN_VALUE"
    assert error_reasons(error) == [("UNKNOWN_VALUE", "rules.tractor")]


def test_too_many_items_fail_the_whole_call(stub: rules_service_pb2_grpc.RulesServiceStub) -> None:
    item = pb.ValidatePlayRequest.FromString(corpus_requests("ValidatePlay")[0])
    with pytest.raises(grpc.RpcError) as caught:
        stub.ValidatePlays(pb.ValidatePlaysRequest(items=[item] * (MAX_BATCH_ITEMS + 1)), timeout=RPC_TIMEOUT)
    assert caught.value.code() is grpc.StatusCode.INVALID_ARGUMENT
    status = rpc_status.from_call(caught.value)
    assert field_violations(status) == [("items", "BAD_SIZE")]
    full = stub.ValidatePlays(pb.ValidatePlaysRequest(items=[item] * MAX_BATCH_ITEMS), timeout=RPC_TIMEOUT)
    assert len(full.results) == MAX_BATCH_ITEMS


def test_domain_metrics_count_each_verdict_and_grpc_metrics_the_call(
    live: Live, stub: rules_service_pb2_grpc.RulesServiceStub
) -> None:
    items = [pb.ValidatePlayRequest.FromString(data) for data in corpus_requests("ValidatePlay")[:7]]
    registry = live.registry

    def verdicts() -> float:
        return sum(
            sample.value
            for metric in registry.collect()
            if metric.name == "tractor_rules_verdicts"
            for sample in metric.samples
            if sample.name.endswith("_total") and sample.labels.get("grpc_method") == "ValidatePlay"
        )

    def handled() -> float:
        labels = {"grpc_type": "unary", "grpc_service": "tractor.rules.v1.RulesService", "grpc_code": "OK"}
        return (
            registry.get_sample_value("grpc_server_handled_total", {**labels, "grpc_method": "ValidatePlays"})
            or 0
        )

    before_verdicts, before_calls = verdicts(), handled()
    stub.ValidatePlays(pb.ValidatePlaysRequest(items=items), timeout=RPC_TIMEOUT)
    assert verdicts() - before_verdicts == len(items)
    assert handled() - before_calls == 1
