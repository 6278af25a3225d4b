"""tractor.rules.client: a call through the SDK's channels raises ``RulesError`` itself (the channels'
client interceptor), on every way of calling a stub, against a real server on loopback; a channel made
otherwise raises gRPC's own error, which ``RulesError.from_call`` still decodes."""

from __future__ import annotations

import asyncio
import threading

import grpc
import pytest
from wire import RPC_TIMEOUT, Live

from tractor.rules.client import RulesError, aio_channel, cards, channel
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2


def malformed() -> pb.ValidatePlayRequest:
    """A lead with an unknown card at hand[1] (INVALID_ARGUMENT with a BadRequest naming it)."""
    request = pb.ValidatePlayRequest(
        level=types_pb2.RANK_5, contract=types_pb2.CONTRACT_HEARTS, seat=0, hand=cards.cards("SA HA C3")
    )
    request.cards.append(types_pb2.CARD_SA)
    request.hand[1] = types_pb2.Card.ValueType(77)
    return request


def legal() -> pb.ValidatePlayRequest:
    """The same lead with every card known: legal."""
    request = malformed()
    request.hand[1] = types_pb2.CARD_HA
    return request


def check(error: BaseException) -> None:
    assert isinstance(error, RulesError), type(error)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (error.reason, error.domain, error.fields) == ("UNKNOWN_VALUE", "rules.tractor", ("hand[1]",))


@pytest.fixture
def stub(live: Live) -> rules_service_pb2_grpc.RulesServiceStub:
    return rules_service_pb2_grpc.RulesServiceStub(channel(f"127.0.0.1:{live.port}"))


def test_a_blocking_call_raises_rules_error(stub: rules_service_pb2_grpc.RulesServiceStub) -> None:
    with pytest.raises(RulesError) as raised:
        stub.ValidatePlay(malformed(), timeout=RPC_TIMEOUT)
    check(raised.value)
    assert stub.ValidatePlay(legal(), timeout=RPC_TIMEOUT).legal  # success passes through untouched


def test_with_call_raises_rules_error_and_returns_the_call(
    stub: rules_service_pb2_grpc.RulesServiceStub,
) -> None:
    with pytest.raises(RulesError) as raised:
        stub.ValidatePlay.with_call(malformed(), timeout=RPC_TIMEOUT)
    check(raised.value)
    response, call = stub.ValidatePlay.with_call(legal(), timeout=RPC_TIMEOUT)
    assert response.legal and call.code() == grpc.StatusCode.OK


def test_a_future_fails_with_rules_error(stub: rules_service_pb2_grpc.RulesServiceStub) -> None:
    future = stub.ValidatePlay.future(malformed(), timeout=RPC_TIMEOUT)
    seen: list[BaseException | None] = []
    called = threading.Event()

    def done(finished: grpc.Future) -> None:
        seen.append(finished.exception())
        called.set()

    future.add_done_callback(done)
    with pytest.raises(RulesError) as raised:
        future.result(timeout=RPC_TIMEOUT)
    check(raised.value)
    error = future.exception(timeout=RPC_TIMEOUT)
    assert error is not None
    check(error)
    assert called.wait(RPC_TIMEOUT)
    assert seen[0] is not None
    check(seen[0])
    assert future.code() == grpc.StatusCode.INVALID_ARGUMENT and future.done()


def test_an_aio_call_raises_rules_error(live: Live) -> None:
    async def main() -> None:
        async with aio_channel(f"127.0.0.1:{live.port}") as ch:
            rules = rules_service_pb2_grpc.RulesServiceStub(ch)
            with pytest.raises(RulesError) as raised:
                await rules.ValidatePlay(malformed(), timeout=RPC_TIMEOUT)
            check(raised.value)
            assert (await rules.ValidatePlay(legal(), timeout=RPC_TIMEOUT)).legal

    asyncio.run(main())


def test_a_raw_channel_raises_grpcs_error_which_from_call_decodes(live: Live) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{live.port}") as raw:
        rules = rules_service_pb2_grpc.RulesServiceStub(raw)
        with pytest.raises(grpc.RpcError) as raised:
            rules.ValidatePlay(malformed(), timeout=RPC_TIMEOUT)
    assert not isinstance(raised.value, RulesError)
    check(RulesError.from_call(raised.value))


def test_a_status_grpc_produces_is_a_rules_error_without_a_reason() -> None:
    # nothing listens on port 1: the call waits for a connection until its deadline
    with channel("127.0.0.1:1") as ch:
        rules = rules_service_pb2_grpc.RulesServiceStub(ch)
        with pytest.raises(RulesError) as raised:
            rules.ValidatePlay(pb.ValidatePlayRequest(), timeout=0.2)
    assert raised.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED  # waits for ready until its deadline
    assert (raised.value.reason, raised.value.status) == ("", None)
