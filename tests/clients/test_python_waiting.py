"""The Python client keeps the same word as the TypeScript one (``test_typescript_package.py``), over
``channel()``: a call made before the server is up waits for it until its deadline; the channel retries
UNAVAILABLE and CANCELLED, up to 3 attempts, and nothing else, not a call the caller cancelled; an
attempt left unanswered is retried after ``ATTEMPT_TIMEOUT``; every failure is a ``RulesError``. No
assertion reads a duration but the lower bound of a deadline or of that timeout."""

from __future__ import annotations

import time

import grpc
import pytest
from servers import Scripted, refusing_port, rules_server, scripted_server

from tractor.rules.client import ATTEMPT_TIMEOUT, RulesError, cards, channel
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

TIMEOUT = 60.0


def play() -> pb.ValidatePlayRequest:
    return pb.ValidatePlayRequest(
        level=types_pb2.RANK_5,
        contract=types_pb2.CONTRACT_HEARTS,
        hand=cards.cards("SA HA"),
        cards=cards.cards("SA"),
    )


def test_a_call_made_before_the_server_is_up_waits_for_it() -> None:
    with refusing_port() as (sock, port), channel(f"127.0.0.1:{port}") as ch:
        rules = rules_service_pb2_grpc.RulesServiceStub(ch)
        with pytest.raises(RulesError) as fail_fast:
            rules.ValidatePlay(play(), timeout=TIMEOUT, wait_for_ready=False)
        assert fail_fast.value.code() == grpc.StatusCode.UNAVAILABLE  # the channel found nothing there
        call = rules.ValidatePlay.future(play(), timeout=TIMEOUT)
        sock.close()
        with rules_server(port):
            assert call.result().legal


def test_a_call_to_a_port_that_never_opens_ends_at_its_deadline() -> None:
    with refusing_port() as (_, port), channel(f"127.0.0.1:{port}") as ch:
        rules = rules_service_pb2_grpc.RulesServiceStub(ch)
        started = time.monotonic()
        with pytest.raises(RulesError) as raised:
            rules.ValidatePlay(play(), timeout=1.5)
        elapsed = time.monotonic() - started
    assert raised.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert elapsed >= 1.5 - 0.02  # at the deadline, not at once


def test_the_channel_retries_unavailable_and_cancelled_and_nothing_else() -> None:
    scripted = Scripted()
    outcomes: dict[int, str] = {}
    with scripted_server(scripted) as port, channel(f"127.0.0.1:{port}") as ch:
        rules = rules_service_pb2_grpc.RulesServiceStub(ch)
        for seat in (1, 2, 3, 4, 5, 6):
            try:
                outcomes[seat] = str(
                    rules.ValidatePlay(pb.ValidatePlayRequest(seat=seat), timeout=TIMEOUT).legal
                )
            except RulesError as error:
                outcomes[seat] = error.code().name
        with pytest.raises(RulesError) as deadline:
            rules.ValidatePlay(pb.ValidatePlayRequest(seat=7), timeout=0.3)
        held = rules.ValidatePlay.future(pb.ValidatePlayRequest(seat=8), timeout=TIMEOUT)
        while not rules.ValidatePlay(pb.ValidatePlayRequest(seat=9), timeout=TIMEOUT).legal:
            pass  # until the server holds the seat-8 call
        held.cancel()
        assert held.cancelled()
    assert outcomes == {
        1: "True",
        2: "UNAVAILABLE",
        3: "True",
        4: "INVALID_ARGUMENT",
        5: "RESOURCE_EXHAUSTED",
        6: "INTERNAL",
    }
    attempts = scripted.attempts
    assert attempts[1] == attempts[2] == [None, "1", "2"]
    assert attempts[3] == [None, "1"]
    assert attempts[4] == attempts[5] == attempts[6] == [None]
    assert deadline.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    assert attempts[7] == [None]
    assert attempts[8] == [None]


def test_an_attempt_left_unanswered_is_retried_after_the_attempt_timeout() -> None:
    # a connection the server closed that gRPC core still holds READY swallows an attempt the same way
    scripted = Scripted()
    with scripted_server(scripted) as port, channel(f"127.0.0.1:{port}") as ch:
        rules = rules_service_pb2_grpc.RulesServiceStub(ch)
        started = time.monotonic()
        answer = rules.ValidatePlay(pb.ValidatePlayRequest(seat=10), timeout=TIMEOUT)
        elapsed = time.monotonic() - started
    assert answer.legal
    assert scripted.attempts[10] == [None, "1"]  # the first attempt held, cut, and retried
    assert elapsed >= float(ATTEMPT_TIMEOUT.removesuffix("s")) - 0.02  # given its whole time first
