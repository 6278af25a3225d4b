"""Hostile inputs checked from outside (``loadtest.hardening.hostile``) against ``tractor-rules serve``:
oversized messages, 10,000-card hands, unknown enum values, negative balances, duplicate seats, deeply
inconsistent tricks, corrupt bytes. Each gets the status, field and reason due; no worker dies."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from loadtest.hardening import hostile
from loadtest.server import ServerProcess

SLOWEST_SECONDS = 2.0
"""Generous for a noisy CI machine; on a quiet one every answer takes a few milliseconds."""


@pytest.fixture(scope="module")
def results(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[list[hostile.Result], ServerProcess, list[int]]]:
    with ServerProcess("--workers", "2", metrics_dir=tmp_path_factory.mktemp("metrics")) as server:
        before = server.workers()
        yield hostile.run(server.target), server, before


def test_every_hostile_input_gets_the_answer_due(
    results: tuple[list[hostile.Result], ServerProcess, list[int]],
) -> None:
    answered, _, _ = results
    assert len(answered) == len(hostile.cases()) >= 35
    wrong = [result.line() for result in answered if result.problem]
    assert not wrong, "\n".join(wrong)
    slow = [result.line() for result in answered if result.outcome.seconds > SLOWEST_SECONDS]
    assert not slow, "\n".join(slow)


def test_the_issue_s_hostile_families_are_all_there() -> None:
    names = " ".join(case.name for case in hostile.cases())
    for family in (
        "oversized",
        "10,000-card",
        "unknown",
        "negative balance",
        "duplicate seat",
        "another deal",
    ):
        assert family in names, family


def test_the_server_is_unharmed(results: tuple[list[hostile.Result], ServerProcess, list[int]]) -> None:
    _, server, before = results
    assert server.workers() == before
    assert not server.errors()
    with grpc.insecure_channel(server.target) as channel:
        status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10).status
    assert status == health_pb2.HealthCheckResponse.SERVING
