"""The npm package keeps its README's word (issue 27), in scratch projects at the lowest and the newest
versions it declares (``tsproject``), as plain JavaScript from ``tests/node``:

* a call made before the server is up waits for it (``waits.mjs``): it succeeds when the port opens
  after the call was made, and against a port that never opens it ends with DEADLINE_EXCEEDED at its
  deadline, where a fail-fast call (``waitForReady: false``) got UNAVAILABLE at once;
* what the channel retries (``retries.mjs``, against a scripted server counting the attempts):
  UNAVAILABLE and CANCELLED, up to 3 attempts; nothing else, and not a call the caller cancelled;
* the batcher, the card names and the type registry (``sdk.mjs``): batched answers are the unary
  ones, one batch in flight at a time, at most ``maxItems`` items, each caller's deadline its own; every
  card named as the Python client names it; a rich status printed as the error golden.

No assertion reads a duration but the lower bound of a deadline: a slower machine passes the same.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import grpc
import pytest
import tsproject
from servers import Scripted, generic_server, refusing_port, rules_server, scripted_server

from loadtest.server import ROOT
from tests.contract import canonicalize
from tractor.rules.client import cards
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc, types_pb2

NODE_DIR: Final = ROOT / "tests" / "node"
TIMEOUT: Final = 120.0
HELD_SEAT: Final = 3
"""A ValidatePlays batch whose first item has this seat is held by the proxy until its deadline."""


@pytest.fixture(scope="module")
def rules_port() -> Iterator[int]:
    with rules_server() as port:
        yield port


@pytest.fixture(scope="module", params=tsproject.KINDS)
def project(request: pytest.FixtureRequest) -> Path:
    """The scratch project of this kind, with the scripts of tests/node beside its install."""
    kind: str = request.param
    folder = tsproject.project(kind)
    for name in ("waits.mjs", "retries.mjs", "sdk.mjs"):
        (folder / name).write_bytes((NODE_DIR / name).read_bytes())
    return folder


def node(project: Path, *args: str) -> dict[str, Any]:
    """Run a script of the project to its end; the JSON object it prints last."""
    result = subprocess.run(
        ["node", *args], cwd=project, capture_output=True, text=True, timeout=TIMEOUT, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    report: dict[str, Any] = json.loads(result.stdout.splitlines()[-1])
    return report


# -------------------------------------------------------------------------------------------------
# waiting for the server


def test_a_call_made_before_the_server_is_up_waits_for_it(project: Path) -> None:
    with refusing_port() as (sock, port):
        proc = subprocess.Popen(
            ["node", "waits.mjs", f"127.0.0.1:{port}", "60000"],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert proc.stdout is not None
            assert proc.stdout.readline().strip() == "calling"  # the call is made, the port refuses
            sock.close()
            with rules_server(port):
                out, err = proc.communicate(timeout=TIMEOUT)
        finally:
            proc.kill()
    assert proc.returncode == 0, err
    report = json.loads(out.splitlines()[-1])
    assert report["failFast"] == {"error": "UNAVAILABLE"}  # the channel had found nothing there
    assert report["waited"] == {"legal": True}


def test_a_call_to_a_port_that_never_opens_ends_at_its_deadline(project: Path) -> None:
    with refusing_port() as (_, port):
        report = node(project, "waits.mjs", f"127.0.0.1:{port}", "1500")
    assert report["failFast"] == {"error": "UNAVAILABLE"}
    assert report["waited"] == {"error": "DEADLINE_EXCEEDED"}
    assert report["elapsedMs"] >= report["timeoutMs"] - 20  # at the deadline, not at once


# -------------------------------------------------------------------------------------------------
# retries


def test_the_channel_retries_unavailable_and_cancelled_and_nothing_else(project: Path) -> None:
    scripted = Scripted()
    with scripted_server(scripted) as port:
        report = node(project, "retries.mjs", f"127.0.0.1:{port}")
    attempts = scripted.attempts
    assert report["unavailableTwice"] == {"legal": True}
    assert attempts[1] == [None, "1", "2"]  # the third attempt answered
    assert report["alwaysUnavailable"] == {"error": "UNAVAILABLE"}
    assert attempts[2] == [None, "1", "2"]  # 3 attempts in all
    assert report["cancelledOnce"] == {"legal": True}
    assert attempts[3] == [None, "1"]
    for mode, seat in (("invalidArgument", 4), ("resourceExhausted", 5), ("internal", 6)):
        assert report[mode]["error"] == Scripted.FAILURES[seat][0].name
        assert attempts[seat] == [None], mode  # not retried
    assert report["deadline"] == {"error": "DEADLINE_EXCEEDED"}
    assert attempts[7] == [None]
    assert report["abort"] == {"error": "CANCELLED"}
    assert attempts[8] == [None]  # the caller's own cancel is not retried


# -------------------------------------------------------------------------------------------------
# batcher, card names, registry


class CountingProxy:
    """ValidatePlays forwarded to the rules server, each batch recorded (its first seat, its size) with
    the most batches in flight at once; a batch led by HELD_SEAT is held until its caller gives up."""

    def __init__(self, rules_port: int) -> None:
        self.channel = grpc.insecure_channel(f"127.0.0.1:{rules_port}")
        self.stub = rules_service_pb2_grpc.RulesServiceStub(self.channel)
        self.batches: list[tuple[int, int]] = []
        self.in_flight = 0
        self.most_in_flight = 0
        self.lock = threading.Lock()

    def validate_plays(
        self, request: pb.ValidatePlaysRequest, context: grpc.ServicerContext
    ) -> pb.ValidatePlaysResponse:
        with self.lock:
            self.batches.append((request.items[0].seat if request.items else -1, len(request.items)))
            self.in_flight += 1
            self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            if request.items and request.items[0].seat == HELD_SEAT:
                ended = threading.Event()
                context.add_callback(ended.set)
                ended.wait(TIMEOUT)
                context.abort(grpc.StatusCode.INTERNAL, "held")
            response: pb.ValidatePlaysResponse = self.stub.ValidatePlays(request, timeout=TIMEOUT)
            return response
        finally:
            with self.lock:
                self.in_flight -= 1


@pytest.fixture(scope="module")
def sdk(project: Path, rules_port: int) -> tuple[dict[str, Any], CountingProxy]:
    """What ``sdk.mjs`` reports, and what the proxy saw."""
    proxy = CountingProxy(rules_port)
    method = grpc.unary_unary_rpc_method_handler(
        proxy.validate_plays,
        request_deserializer=pb.ValidatePlaysRequest.FromString,
        response_serializer=pb.ValidatePlaysResponse.SerializeToString,
    )
    try:
        with generic_server({"ValidatePlays": method}) as port:
            report = node(project, "sdk.mjs", f"127.0.0.1:{rules_port}", f"127.0.0.1:{port}")
    finally:
        proxy.channel.close()
    return report, proxy


def test_the_batcher_answers_as_the_unary_call_one_batch_in_flight(
    sdk: tuple[dict[str, Any], CountingProxy],
) -> None:
    report, proxy = sdk
    assert (report["maxBatchItems"], report["defaultMaxWaitMs"]) == (100, 2)
    assert report["sameAsUnary"] == [True] * 250
    for answer in report["batched"][1::2]:  # the malformed ones: the unary call's fields, no items[i].
        assert answer["error"] == {
            "code": "INVALID_ARGUMENT",
            "fields": ["hand[1]"],
            "reason": "UNKNOWN_VALUE",
        }
    assert all("response" in answer for answer in report["batched"][0::2])
    assert proxy.most_in_flight == 1
    sizes = [size for _, size in proxy.batches]
    assert sum(sizes) == 250 + 25 + 1  # each call sent once: the 250, the small batcher's 25, the held one
    totals = list(itertools.accumulate(sizes))
    first = sizes[: totals.index(250) + 1]
    assert len(first) >= 3 and max(first) <= 100  # 250 calls need three batches of at most 100
    small = sizes[len(first) : -1]
    assert sum(small) == 25 and max(small) <= 10
    assert proxy.batches[-1] == (HELD_SEAT, 1)  # the call queued behind it was never sent


def test_each_batched_callers_deadline_is_its_own(sdk: tuple[dict[str, Any], CountingProxy]) -> None:
    report, _ = sdk
    assert report["deadlines"] == {
        "held": {"error": {"code": "DEADLINE_EXCEEDED", "fields": [], "reason": ""}},
        "queued": {"error": {"code": "DEADLINE_EXCEEDED", "fields": [], "reason": ""}},
    }
    assert report["closed"] == "Error: the PlayBatcher is closed"
    assert report["knobs"] == ["RangeError", "RangeError"]


def test_the_card_names_are_the_python_clients(sdk: tuple[dict[str, Any], CountingProxy]) -> None:
    report, _ = sdk
    python = {value.name: value.number for value in types_pb2.Card.DESCRIPTOR.values if value.number}
    assert report["cards"] == python
    assert report["names"] == [name.removeprefix("CARD_") for name in python]
    assert report["parsed"] == list(cards.cards("SK SK SJACK BJ"))
    assert report["seatCards"] == {"seat": 1, "cards": ["CARD_S3", "CARD_S3"]}
    assert report["partners"] == [[cards.partner(s), list(cards.team(s))] for s in range(4)]
    assert report["refused"] == ["RangeError", "RangeError", "RangeError"]


def test_the_registry_prints_a_rich_status_as_the_golden(sdk: tuple[dict[str, Any], CountingProxy]) -> None:
    report, _ = sdk
    golden = canonicalize.CONTRACT / "ValidatePlay" / "error_unknown_card.error.json"
    assert report["statusJson"] == json.loads(golden.read_text(encoding="utf-8"))
    assert "is not in the type registry" in report["withoutRegistry"]
