"""The fuzz run: 100,000 seeded requests through ``tractor-rules serve`` (two workers), and Hypothesis-drawn
messages of every request type through an in-process server.

The big run is :func:`loadtest.hardening.fuzz.fuzz`, the same code as ``make fuzz``: random, boundary,
inconsistent and corrupted requests over real channels; no INTERNAL, no hang, every INVALID_ARGUMENT
naming a field of the request, health SERVING throughout, no worker crashed or replaced, no INTERNAL
in ``/metrics``, no error in the server's log. Its summary (with the request count) is printed at the
end of the pytest run. ``TRACTOR_FUZZ_REQUESTS`` may raise the count, never lower it below 100,000.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.descriptor import FieldDescriptor
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inproc import Running, config, running

from loadtest import contract
from loadtest.hardening import fuzz
from loadtest.hardening.judge import Outcome, judge
from loadtest.hardening.messages import descriptor_of

REQUESTS = max(100_000, int(os.environ.get("TRACTOR_FUZZ_REQUESTS", "100000")))


def test_the_fuzz_run(record_property: Any) -> None:
    report = fuzz.fuzz(requests=REQUESTS, seed=1, workers=2)
    summary = report.summary()
    print(summary)
    record_property("hardening_summary", summary)
    assert report.requests == REQUESTS
    assert report.codes["INTERNAL"] == report.codes["UNKNOWN"] == report.hangs == 0, summary
    assert report.crashed_workers == 0 and report.workers_after == report.workers_before, summary
    assert report.passed, summary


# --------------------------------------------------------------------------------------------------
# Hypothesis: messages drawn from the descriptors, every field at its boundaries


def _scalar(field: Any) -> st.SearchStrategy[Any]:
    kind = field.type
    if kind == FieldDescriptor.TYPE_ENUM:
        numbers = [value.number for value in field.enum_type.values]
        edges = [*numbers, max(numbers) + 1, -1, 2**31 - 1, -(2**31)]
        return st.one_of(st.sampled_from(edges), st.integers(-(2**31), 2**31 - 1))
    if kind == FieldDescriptor.TYPE_UINT32:
        return st.one_of(
            st.sampled_from([0, 1, 3, 4, 5, 8, 13, 14, 25, 33, 1000, 1001, 2**32 - 1]),
            st.integers(0, 2**32 - 1),
        )
    if kind == FieldDescriptor.TYPE_UINT64:
        return st.one_of(
            st.sampled_from([0, 1, 10**12, 10**12 + 1, 2**63 - 1, 2**63, 2**64 - 1]),
            st.integers(0, 2**64 - 1),
        )
    if kind == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if kind == FieldDescriptor.TYPE_STRING:
        return st.one_of(
            st.sampled_from(["", "default", "rulebook-003", "rulebook-001"]), st.text(max_size=30)
        )
    raise AssertionError(field.full_name)


@st.composite
def _message(draw: st.DrawFn, descriptor: Any, depth: int = 0) -> dict[str, Any]:
    """Field values for a message of ``descriptor``: each field present or not, lists of any length up to
    a little past two decks, sub-messages three deep."""
    values: dict[str, Any] = {}
    for field in descriptor.fields:
        if not draw(st.booleans()):
            continue
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if depth >= 3:
                continue
            sub = _message(field.message_type, depth + 1)
            values[field.name] = draw(st.lists(sub, max_size=5) if field.is_repeated else sub)
        elif field.is_repeated:
            cards = field.type == FieldDescriptor.TYPE_ENUM and field.enum_type.name == "Card"
            element = st.one_of(st.integers(1, 54), _scalar(field)) if cards else _scalar(field)
            values[field.name] = draw(st.lists(element, max_size=draw(st.sampled_from([4, 26, 34, 110]))))
        else:
            values[field.name] = draw(_scalar(field))
    return values


def _build(message: Any, values: dict[str, Any]) -> Any:
    for name, value in values.items():
        field = message.DESCRIPTOR.fields_by_name[name]
        if field.type == FieldDescriptor.TYPE_MESSAGE:
            if field.is_repeated:
                for item in value:
                    _build(getattr(message, name).add(), item)
            else:
                getattr(message, name).SetInParent()
                _build(getattr(message, name), value)
        elif field.is_repeated:
            getattr(message, name).extend(value)
        else:
            setattr(message, name, value)
    return message


_CASES = st.sampled_from(sorted(contract.METHODS)).flatmap(
    lambda method: st.tuples(st.just(method), _message(descriptor_of(method)))
)


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[Running, grpc.Channel]]:
    with (
        running(config(threads=4)) as running_server,
        grpc.insecure_channel(running_server.target) as channel,
    ):
        yield running_server, channel


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)
@given(case=_CASES)
def test_hypothesis_messages_of_every_type_get_a_good_answer(
    server: tuple[Running, grpc.Channel], case: tuple[str, dict[str, Any]]
) -> None:
    method, values = case
    request = _build(contract.REQUESTS[method](), values)
    _, channel = server
    try:
        reply = channel.unary_unary(contract.method_path(method))(request.SerializeToString(), timeout=10)
        outcome = Outcome(grpc.StatusCode.OK, "", (), reply)
    except grpc.RpcError as error:
        outcome = Outcome(error.code(), error.details() or "", list(error.trailing_metadata() or ()))
    problem = judge(outcome, method=method, descriptor=descriptor_of(method), request=request)
    assert not problem, (method, values, problem)
