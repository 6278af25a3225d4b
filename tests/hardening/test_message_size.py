"""The default message limit: just above the largest legal request, and what it protects.

``services.sizes`` builds each RPC's largest legal request from the validation bounds; the default
``--max-message-bytes`` is twice the largest of them, rounded up to 64 KiB (384 KiB, against gRPC's own
4 MiB). Each maximal request is judged by a server on the default limit (never refused by size), a
byte more than the limit is, the largest real responses fit under it, and sixteen clients flooding
the largest garbage the limit admits (and garbage just past it) keep every worker under 150 MiB while
an ordinary client is served throughout.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf.message import Message
from inproc import config, running

from loadtest import corpus
from loadtest.contract import method_path
from loadtest.server import ServerProcess, rss_kib
from services.config import MAX_MESSAGE_BYTES, ServerConfig
from services.servicer import MAX_BATCH_ITEMS
from services.sizes import BOUNDS, default_max_message_bytes, largest_requests, maximal_request
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

TIMEOUT = 10.0
FLOOD_SECONDS = 5.0
FLOOD_CLIENTS = 16
RSS_LIMIT_KIB = 150 * 1024
OPTIONS = [("grpc.use_local_subchannel_pool", 1)]


def test_the_default_limit_is_twice_the_largest_legal_request() -> None:
    sizes = largest_requests()
    assert set(sizes) == set(pb.DESCRIPTOR.services_by_name["RulesService"].methods_by_name)
    largest = max(sizes, key=sizes.__getitem__)
    assert largest in ("ValidatePlays", "ResolveTricks")  # a batch of MAX_BATCH_ITEMS items
    assert ServerConfig().max_message_bytes == MAX_MESSAGE_BYTES == default_max_message_bytes()
    assert 2 * sizes[largest] <= MAX_MESSAGE_BYTES < 2 * sizes[largest] + 64 * 1024


def test_the_batch_bound_is_the_servicers() -> None:
    """A batch one item longer than the bound counted here is refused: the bound is the real one."""
    assert BOUNDS["ValidatePlays"]["items"] == BOUNDS["ResolveTricks"]["items"] == MAX_BATCH_ITEMS
    with running(config()) as server, grpc.insecure_channel(server.target) as channel:
        stub = rules_service_pb2_grpc.RulesServiceStub(channel)
        with pytest.raises(grpc.RpcError) as refused:
            stub.ValidatePlays(
                pb.ValidatePlaysRequest(items=[pb.ValidatePlayRequest()] * (MAX_BATCH_ITEMS + 1)),
                timeout=TIMEOUT,
            )
    assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT


@pytest.mark.parametrize("method", sorted(BOUNDS))
def test_the_largest_legal_request_is_judged_not_refused_by_size(method: str) -> None:
    """The maximal request (a card list at its bound repeats one card, so most are then INVALID_ARGUMENT
    for it) reaches the servicer on the default limit; padded past the limit it is refused unread."""
    data = maximal_request(method).SerializeToString()
    pad = MAX_MESSAGE_BYTES - len(data) + 1 - 5  # an unknown bytes field: 2 bytes of tag, 3 of length
    length = bytes([0x80 | (pad & 0x7F), 0x80 | ((pad >> 7) & 0x7F), pad >> 14])
    over = data + b"\xfa\x3e" + length + bytes(pad)
    assert len(over) == MAX_MESSAGE_BYTES + 1
    with running(config()) as server, grpc.insecure_channel(server.target) as channel:
        call = channel.unary_unary(method_path(method))
        try:
            call(data, timeout=TIMEOUT)
        except grpc.RpcError as error:
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, (error.code(), error.details())
        with pytest.raises(grpc.RpcError) as refused:
            call(over, timeout=TIMEOUT)
    assert refused.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def _largest_responses() -> tuple[pb.ValidatePlayRequest, pb.ResolveTrickRequest]:
    """From a few self-played hands, the ValidatePlay and ResolveTrick requests with the largest answers."""
    plays: list[tuple[int, Message]] = []
    tricks: list[tuple[int, Message]] = []
    for script in corpus.self_play(4, first_seed=7):
        for call in script.calls:
            if call.method == "ValidatePlay":
                plays.append((len(call.request), pb.ValidatePlayRequest.FromString(call.request)))
            elif call.method == "ResolveTrick":
                tricks.append((len(call.request), pb.ResolveTrickRequest.FromString(call.request)))
    play = max(plays, key=lambda item: item[0])[1]
    trick = max(tricks, key=lambda item: item[0])[1]
    assert isinstance(play, pb.ValidatePlayRequest) and isinstance(trick, pb.ResolveTrickRequest)
    return play, trick


def test_full_batches_of_large_answers_fit() -> None:
    """The limit bounds responses too: full batches of the largest real requests are answered OK."""
    play, trick = _largest_responses()
    with running(config()) as server, grpc.insecure_channel(server.target) as channel:
        stub = rules_service_pb2_grpc.RulesServiceStub(channel)
        plays = stub.ValidatePlays(pb.ValidatePlaysRequest(items=[play] * MAX_BATCH_ITEMS), timeout=TIMEOUT)
        tricks = stub.ResolveTricks(pb.ResolveTricksRequest(items=[trick] * MAX_BATCH_ITEMS), timeout=TIMEOUT)
        listed = stub.ListLegalPlays(
            pb.ListLegalPlaysRequest(
                ruleset=play.ruleset,
                level=play.level,
                contract=play.contract,
                seat=play.seat,
                hand=play.hand,
                trick=play.trick if play.trick.plays else None,
                max_plays=1000,
            ),
            timeout=TIMEOUT,
        )
    assert len(plays.results) == len(tricks.results) == MAX_BATCH_ITEMS
    assert all(result.WhichOneof("result") == "response" for result in plays.results)
    assert all(result.WhichOneof("result") == "response" for result in tricks.results)
    assert max(plays.ByteSize(), tricks.ByteSize(), listed.ByteSize()) < MAX_MESSAGE_BYTES // 2


class _Flood:
    """``clients`` connections sending the largest garbage the limit admits, and one byte more."""

    def __init__(self, target: str, clients: int, limit: int) -> None:
        self.sent = 0
        self.codes: dict[grpc.StatusCode, int] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        garbage = os.urandom(limit + 1)
        self._payloads = (garbage[:limit], garbage)
        self._threads = [threading.Thread(target=self._run, args=(target, i)) for i in range(clients)]
        for thread in self._threads:
            thread.start()

    def _run(self, target: str, index: int) -> None:
        with grpc.insecure_channel(target, options=OPTIONS) as channel:
            call = channel.unary_unary(method_path("ValidatePlays" if index % 2 else "AuditHand"))
            turn = index
            while not self._stop.is_set():
                turn += 1
                try:
                    call(self._payloads[turn % 2], timeout=TIMEOUT)
                    code = grpc.StatusCode.OK
                except grpc.RpcError as error:
                    code = error.code()
                with self._lock:
                    self.sent += 1
                    self.codes[code] = self.codes.get(code, 0) + 1

    def stop(self) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join(30)


def test_a_flood_of_the_largest_garbage_keeps_workers_small(
    tmp_path: Path, valid: dict[str, Message]
) -> None:
    with ServerProcess("--workers", "2", metrics_dir=tmp_path / "m") as server:
        workers = server.workers()
        flood = _Flood(server.target, FLOOD_CLIENTS, MAX_MESSAGE_BYTES)
        peak = dict.fromkeys(workers, 0)
        served = failed = 0
        with grpc.insecure_channel(server.target, options=OPTIONS) as channel:
            stub = rules_service_pb2_grpc.RulesServiceStub(channel)
            end = time.monotonic() + FLOOD_SECONDS
            while time.monotonic() < end:
                for pid in workers:
                    peak[pid] = max(peak[pid], rss_kib(pid) or 0)
                try:
                    served += stub.ValidatePlay(valid["ValidatePlay"], timeout=TIMEOUT).legal
                except grpc.RpcError:
                    failed += 1
                time.sleep(0.02)
        flood.stop()
        assert server.workers() == workers
    print(f"flood: {flood.sent} garbage calls {flood.codes}; peak RSS KiB {peak}; normal calls {served}")
    assert flood.sent > 100
    assert set(flood.codes) <= {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED}
    assert flood.codes.get(grpc.StatusCode.RESOURCE_EXHAUSTED, 0) > 0
    assert failed == 0 and served > 20
    assert max(peak.values()) < RSS_LIMIT_KIB, peak
