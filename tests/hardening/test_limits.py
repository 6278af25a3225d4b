"""Limits: message size, cards per field, calls per worker, deadlines and the work ceiling, log volume.

Over a limit the answer is RESOURCE_EXHAUSTED or INVALID_ARGUMENT with a message (and the field, when
there is one), never a crash: after every refusal the same server answers a valid call.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent import futures

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status
from inproc import SLOW, Running, config, running

from loadtest.hardening.judge import STATUS_DETAILS, Outcome
from services import logs
from services.convert import MAX_CARDS
from services.interceptor import TOO_MANY_CALLS, WORK_CEILING
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

TIMEOUT = 10.0


def _call(target: str, method: str, request: bytes, timeout: float = TIMEOUT) -> Outcome:
    with grpc.insecure_channel(target) as channel:
        return _on(channel, method, request, timeout)


def _on(channel: grpc.Channel, method: str, request: bytes, timeout: float = TIMEOUT) -> Outcome:
    try:
        reply = channel.unary_unary(method)(request, timeout=timeout)
    except grpc.RpcError as error:
        return Outcome(error.code(), error.details() or "", list(error.trailing_metadata() or ()))
    return Outcome(grpc.StatusCode.OK, "", (), reply)


def _still_serving(server: Running, valid: dict[str, Message]) -> None:
    with grpc.insecure_channel(server.target) as channel:
        reply = rules_service_pb2_grpc.RulesServiceStub(channel).ValidatePlay(
            valid["ValidatePlay"], timeout=TIMEOUT
        )
    assert reply.legal


def _info(detail: object) -> error_details_pb2.ErrorInfo:
    info = error_details_pb2.ErrorInfo()
    detail.Unpack(info)  # type: ignore[attr-defined]
    return info


def _error_info(outcome: Outcome) -> error_details_pb2.ErrorInfo | None:
    for key, value in outcome.trailing:
        if key == STATUS_DETAILS:
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info
    return None


def test_an_oversized_message_is_resource_exhausted(valid: dict[str, Message]) -> None:
    with running(config(max_message_bytes=64 * 1024)) as server:
        request = pb.ValidatePlayRequest()
        request.ParseFromString(valid["ValidatePlay"].SerializeToString())
        request.ruleset.preset = "x" * 70_000
        outcome = _call(
            server.target, "/tractor.rules.v1.RulesService/ValidatePlay", request.SerializeToString()
        )
        assert outcome.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "larger than max" in outcome.details
        _still_serving(server, valid)


@pytest.mark.parametrize("size", [MAX_CARDS + 1, 10_000])
def test_a_card_list_longer_than_two_decks_is_refused_by_its_length(
    valid: dict[str, Message], size: int
) -> None:
    with running(config()) as server, grpc.insecure_channel(server.target) as channel:
        request = pb.ValidatePlayRequest()
        request.ParseFromString(valid["ValidatePlay"].SerializeToString())
        request.cards.extend([types_pb2.Card.ValueType(1)] * size)
        outcome = _on(channel, "/tractor.rules.v1.RulesService/ValidatePlay", request.SerializeToString())
        assert outcome.code == grpc.StatusCode.INVALID_ARGUMENT
        assert [(v.field, v.reason) for v in outcome.violations()] == [("cards", "BAD_SIZE")]
        assert f"at most {MAX_CARDS} cards" in outcome.violations()[0].description


def test_calls_past_the_concurrency_limit_are_resource_exhausted(valid: dict[str, Message]) -> None:
    """One thread, two calls at most: of five slow calls at once, three are refused straight away."""
    with (
        running(config(threads=1, max_concurrent_rpcs=2)) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        slow = channel.unary_unary(SLOW)
        calls = [slow.future(b"0.5", timeout=TIMEOUT) for _ in range(5)]
        codes = []
        for call in calls:
            try:
                call.result()
                codes.append(grpc.StatusCode.OK)
            except grpc.RpcError as error:
                codes.append(error.code())
                assert "max_concurrent_rpcs" in (error.details() or "")
                status = rpc_status.from_call(error)
                assert status is not None
                reasons = [_info(detail).reason for detail in status.details]
                assert reasons == [TOO_MANY_CALLS]
        assert codes.count(grpc.StatusCode.OK) == 2
        assert codes.count(grpc.StatusCode.RESOURCE_EXHAUSTED) == 3
        _still_serving(server, valid)


def test_a_call_running_past_the_work_ceiling_stops_at_its_next_check() -> None:
    """The ceiling holds whatever the caller's deadline (here 10 s)."""
    with running(config(max_request_seconds=0.2)) as server:
        started = time.monotonic()
        outcome = _call(server.target, SLOW, b"3")
        assert outcome.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "work ceiling of 0.2 s" in outcome.details
        assert time.monotonic() - started < 1.5
        info = _error_info(outcome)
        assert info is not None and info.reason == WORK_CEILING and info.metadata["ceiling_seconds"] == "0.2"


def test_a_call_that_queued_past_the_work_ceiling_is_refused_before_any_work(
    valid: dict[str, Message],
) -> None:
    """One thread, busy for 0.6 s with work that cannot be interrupted: a rules call queued behind it
    is refused when it reaches the handler, before the rules run."""
    with (
        running(config(threads=1, max_request_seconds=0.2)) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        blocking = channel.unary_unary(SLOW).future(b"0.6!", timeout=TIMEOUT)
        time.sleep(0.05)
        queued = _on(
            channel, "/tractor.rules.v1.RulesService/ValidatePlay", valid["ValidatePlay"].SerializeToString()
        )
        assert blocking.result() == b"done"  # work already running is never thrown away
        assert queued.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        info = _error_info(queued)
        assert info is not None and info.reason == WORK_CEILING
        assert server.handled("ValidatePlay", "RESOURCE_EXHAUSTED") == 1
        assert server.verdicts("ValidatePlay") == 0  # refused before the rules ran
        _still_serving(server, valid)
        assert server.verdicts("ValidatePlay") > 0  # and the rules do count verdicts


def test_a_deadline_spent_in_the_queue_skips_the_work(valid: dict[str, Message]) -> None:
    """A call whose deadline passes while it waits for a thread never runs the rules."""
    with (
        running(config(threads=1, max_request_seconds=0)) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        blocking = channel.unary_unary(SLOW).future(b"0.6!", timeout=TIMEOUT)
        time.sleep(0.05)
        late = _on(
            channel,
            "/tractor.rules.v1.RulesService/ValidatePlay",
            valid["ValidatePlay"].SerializeToString(),
            0.2,
        )
        assert late.code == grpc.StatusCode.DEADLINE_EXCEEDED
        blocking.result()
        time.sleep(0.2)
        assert server.verdicts("ValidatePlay") == 0
        assert server.in_flight() == 0
        _still_serving(server, valid)
        assert server.verdicts("ValidatePlay") > 0


def test_a_deadline_is_honoured_mid_call() -> None:
    with running(config()) as server:
        started = time.monotonic()
        outcome = _call(server.target, SLOW, b"5", timeout=0.3)
        assert outcome.code == grpc.StatusCode.DEADLINE_EXCEEDED
        deadline = time.monotonic() + 5
        while server.handled("Sleep", "DEADLINE_EXCEEDED", "test.Slow") < 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert time.monotonic() - started < 2  # the handler stopped at its next check, not after 5 s
        assert server.in_flight() == 0


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


def test_a_flood_of_bad_requests_cannot_flood_the_log() -> None:
    """Client errors are logged through a token bucket; what it holds back is counted in the next line."""
    records = _Records()
    logger = logging.getLogger("tractor_rules.rpc")
    logger.addHandler(records)
    level = logger.level
    logger.setLevel(logging.INFO)
    try:
        with running(config()) as server, grpc.insecure_channel(server.target) as channel:
            bad = channel.unary_unary("/tractor.rules.v1.RulesService/ValidatePlay")
            pending = [bad.future(b"\x10\x63", timeout=TIMEOUT) for _ in range(400)]  # level 99
            for call in pending:
                with pytest.raises(grpc.RpcError):
                    call.result()
            assert server.handled("ValidatePlay", "INVALID_ARGUMENT") == 400
            time.sleep(0.2)  # a few tokens come back
            with pytest.raises(grpc.RpcError):
                bad(b"\x10\x63", timeout=TIMEOUT)
    finally:
        logger.removeHandler(records)
        logger.setLevel(level)
    lines = [r for r in records.records if r.getMessage() == "invalid argument"]
    assert 100 <= len(lines) < 250
    assert (
        len(lines) + sum(getattr(line, "suppressed", 0) for line in lines) == 401
    )  # every one accounted for
    assert getattr(lines[-1], "suppressed", 0) > 0


def test_the_throttle_refills_at_its_rate() -> None:
    throttle = logs.Throttle(rate=100.0, burst=5)
    assert [throttle.allow() for _ in range(7)] == [0, 0, 0, 0, 0, None, None]
    time.sleep(0.05)
    assert throttle.allow() == 2


def test_nothing_is_left_in_flight_after_refusals(valid: dict[str, Message]) -> None:
    with (
        running(config(threads=2, max_concurrent_rpcs=4)) as server,
        grpc.insecure_channel(server.target) as channel,
    ):
        call = channel.unary_unary("/tractor.rules.v1.RulesService/AuditHand")
        with futures.ThreadPoolExecutor(8) as pool:
            list(
                pool.map(
                    lambda _: _on(
                        channel,
                        "/tractor.rules.v1.RulesService/AuditHand",
                        valid["AuditHand"].SerializeToString(),
                    ),
                    range(40),
                )
            )
        assert call(valid["AuditHand"].SerializeToString(), timeout=TIMEOUT)
        assert server.in_flight() == 0


def test_request_threads_start_with_the_server() -> None:
    """All request threads exist from the start, so a worker's threads and memory do not creep up
    with each new peak of load (what the soak measures as flat)."""
    before = set(threading.enumerate())
    with running(config(threads=6)):
        deadline = time.monotonic() + 5
        started: set[threading.Thread] = set()
        while len(started) < 6 and time.monotonic() < deadline:
            started = {t for t in threading.enumerate() if t.name.startswith("rpc")} - before
            time.sleep(0.01)
        assert len(started) == 6
