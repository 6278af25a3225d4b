"""The client suite that ``test_python_package.py`` runs with the python of a venv holding only the
``tractor-rules-client`` wheel and its dependencies (the checkout is not on its path), against a live
``tractor-rules serve``; it prints one JSON report, and the test judges it.

    VENV/bin/python tests/clients/client_suite.py --target 127.0.0.1:PORT --contract tests/contract

* every golden request of ``tests/contract`` (every RPC, the batch RPCs included) over ``channel()``:
  the answer as canonical ProtoJSON, or the error as the typed ``RulesError`` decoded it;
* ``PlayBatcher`` (threads) and ``AsyncPlayBatcher`` (asyncio, over ``aio_channel()``): good and
  malformed plays at once, each caller's answer beside the unary call's, and how many ValidatePlays
  calls carried them;
* a retried call: a flaky gRPC server on 127.0.0.1 refuses the first attempt (UNAVAILABLE, then
  CANCELLED) or leaves it unanswered (the channel gives it up after ``ATTEMPT_TIMEOUT``) and forwards
  the retry to the live server; it records each attempt's ``grpc-previous-rpc-attempts``;
* the versions installed, where ``tractor`` was imported from, and that ``services``, ``rules_core``
  and ``grpc_status`` are not importable.

Only the client and the standard library are imported: this file runs on the lowest grpcio and protobuf
the client declares.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import importlib.util
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

import tractor
from tractor.rules.client import AsyncPlayBatcher, PlayBatcher, RulesError, aio_channel, channel
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

TIMEOUT = 10.0
DISTRIBUTIONS = ("grpcio", "protobuf", "googleapis-common-protos", "tractor-rules-client")
ABSENT = ("services", "rules_core", "grpc_status")
"""Modules the client must do without: the server's packages, and grpcio-status (not a dependency)."""
GOOD_PLAY = "ValidatePlay/follow_must_play_tractor"
BAD_PLAY = "ValidatePlay/error_unknown_card"
BATCH = 8
"""Plays per batcher check, half good and half malformed: one window (``max_items``)."""
PREVIOUS_ATTEMPTS = "grpc-previous-rpc-attempts"


def as_json(message: Message) -> Any:
    """``message`` as canonical ProtoJSON (``MessageToJson``'s defaults), parsed."""
    return json.loads(json_format.MessageToJson(message))


def decoded(error: grpc.RpcError) -> dict[str, Any]:
    """What ``RulesError`` makes of a failed call."""
    failure = RulesError.from_call(error)
    return {
        "type": type(failure).__name__,
        "code": failure.code().name,
        "status": None if failure.status is None else as_json(failure.status),
        "reason": failure.reason,
        "domain": failure.domain,
        "metadata": dict(failure.metadata),
        "field_violations": [[v.field, v.reason] for v in failure.field_violations],
    }


def requests(contract: Path) -> dict[str, Message]:
    """Every golden request, by ``Method/case``."""
    found: dict[str, Message] = {}
    for path in sorted(contract.glob("*/*.request.json")):
        method = path.parent.name
        message = getattr(pb, f"{method}Request")()
        found[f"{method}/{path.name.removesuffix('.request.json')}"] = json_format.Parse(
            path.read_text(encoding="utf-8"), message
        )
    return found


def call(stub: Any, case: str, request: Message) -> dict[str, Any]:
    """One unary call: ``{"response": ProtoJSON}`` or ``{"error": decoded}``."""
    try:
        return {"response": as_json(getattr(stub, case.split("/", maxsplit=1)[0])(request, timeout=TIMEOUT))}
    except grpc.RpcError as error:
        return {"error": decoded(error)}


def contract_answers(target: str, cases: dict[str, Message]) -> dict[str, dict[str, Any]]:
    """Each golden request's outcome over the recommended channel."""
    with channel(target) as ch:
        stub = rules_service_pb2_grpc.RulesServiceStub(ch)
        return {case: call(stub, case, request) for case, request in cases.items()}


class Counting:
    """A channel that counts the calls made through the callables it hands out (the batchers call
    ``channel.unary_unary``), and otherwise is the channel it wraps."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.calls: Counter[str] = Counter()

    def unary_unary(self, method: str, **kwargs: Any) -> Any:
        callable_ = self.inner.unary_unary(method, **kwargs)
        calls = self.calls

        class Counted:
            def __call__(self, *args: Any, **kw: Any) -> Any:
                calls[method] += 1
                return callable_(*args, **kw)

            def future(self, *args: Any, **kw: Any) -> Any:
                calls[method] += 1
                return callable_.future(*args, **kw)

        return Counted()


def outcome(answer: object, unary: pb.ValidatePlayResponse) -> dict[str, Any]:
    """A batched caller's answer: a response (and whether it is the unary call's), or its error."""
    if isinstance(answer, pb.ValidatePlayResponse):
        return {"response": True, "same_as_unary": answer == unary}
    if isinstance(answer, grpc.RpcError):
        return {"error": decoded(answer), "raised": type(answer).__name__}
    return {"unexpected": repr(answer)}


def batch(cases: dict[str, Message]) -> list[pb.ValidatePlayRequest]:
    """``BATCH`` plays, good and malformed by turns."""
    good, bad = cases[GOOD_PLAY], cases[BAD_PLAY]
    assert isinstance(good, pb.ValidatePlayRequest) and isinstance(bad, pb.ValidatePlayRequest)
    return [good if index % 2 == 0 else bad for index in range(BATCH)]


def thread_batcher(target: str, cases: dict[str, Message], unary: pb.ValidatePlayResponse) -> dict[str, Any]:
    """``PlayBatcher``: ``BATCH`` threads call at once; the window is sent when it is full."""
    with channel(target) as ch:
        counting = Counting(ch)
        start = threading.Barrier(BATCH)

        def one(request: pb.ValidatePlayRequest) -> object:
            start.wait()
            try:
                return batcher.validate_play(request, timeout=TIMEOUT)
            except grpc.RpcError as error:
                return error

        with (
            PlayBatcher(counting, max_items=BATCH, max_wait=1.0) as batcher,
            ThreadPoolExecutor(BATCH) as pool,
        ):
            answers = list(pool.map(one, batch(cases)))
    return {"answers": [outcome(a, unary) for a in answers], "batch_calls": sum(counting.calls.values())}


async def async_batcher(
    target: str, cases: dict[str, Message], unary: pb.ValidatePlayResponse
) -> dict[str, Any]:
    """``AsyncPlayBatcher`` on ``aio_channel()``: ``BATCH`` tasks of one loop call at once."""
    async with aio_channel(target) as ch:
        counting = Counting(ch)
        async with AsyncPlayBatcher(counting, max_items=BATCH, max_wait=1.0) as batcher:
            answers = await asyncio.gather(
                *(batcher.validate_play(request, timeout=TIMEOUT) for request in batch(cases)),
                return_exceptions=True,
            )
    return {"answers": [outcome(a, unary) for a in answers], "batch_calls": sum(counting.calls.values())}


class Flaky(rules_service_pb2_grpc.RulesServiceServicer):
    """ValidatePlay that refuses every first attempt with ``code`` and forwards the retries upstream."""

    def __init__(self, upstream: Any) -> None:
        self.upstream = upstream
        self.code: grpc.StatusCode | None = grpc.StatusCode.UNAVAILABLE
        """None: the first attempt is held unanswered until the client gives it up."""
        self.attempts: list[str | None] = []

    def ValidatePlay(self, request: pb.ValidatePlayRequest, context: Any) -> pb.ValidatePlayResponse:  # noqa: N802
        previous = dict(context.invocation_metadata()).get(PREVIOUS_ATTEMPTS)
        self.attempts.append(previous)
        if previous is None and self.code is None:
            given_up = threading.Event()
            context.add_callback(given_up.set)
            given_up.wait(TIMEOUT)
            context.abort(grpc.StatusCode.INTERNAL, "flaky: held")
        if previous is None:
            context.abort(self.code, "flaky: the first attempt is refused")
        answer: pb.ValidatePlayResponse = self.upstream.ValidatePlay(request, timeout=TIMEOUT)
        return answer


@contextmanager
def flaky_server(upstream: Any) -> Iterator[tuple[str, Flaky]]:
    """A real gRPC server on 127.0.0.1 (ephemeral port) serving ``Flaky``."""
    servicer = Flaky(upstream)  # type: ignore[abstract]  # the stub declares every RPC; one is served
    server = grpc.server(ThreadPoolExecutor(max_workers=4))
    rules_service_pb2_grpc.add_RulesServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield f"127.0.0.1:{port}", servicer
    finally:
        server.stop(None).wait(5)


def retries(target: str, cases: dict[str, Message], unary: pb.ValidatePlayResponse) -> dict[str, Any]:
    """The recommended channel retries a refused first attempt (UNAVAILABLE, CANCELLED) and one left
    unanswered; a plain channel, without the service config, does not."""
    report: dict[str, Any] = {}
    with channel(target) as upstream_channel:
        upstream = rules_service_pb2_grpc.RulesServiceStub(upstream_channel)
        with flaky_server(upstream) as (flaky_target, servicer):
            for code in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, None):
                servicer.code, servicer.attempts = code, []
                with channel(flaky_target) as ch:
                    answer = call(rules_service_pb2_grpc.RulesServiceStub(ch), GOOD_PLAY, cases[GOOD_PLAY])
                same = answer.get("response") == as_json(unary)
                name = code.name if code is not None else "UNANSWERED"
                report[name] = {"attempts": servicer.attempts, "same_as_unary": same, **answer}
            servicer.code, servicer.attempts = grpc.StatusCode.UNAVAILABLE, []
            with grpc.insecure_channel(flaky_target) as plain:
                answer = call(rules_service_pb2_grpc.RulesServiceStub(plain), GOOD_PLAY, cases[GOOD_PLAY])
            report["plain_channel"] = {"attempts": servicer.attempts, **answer}
    return report


def environment() -> dict[str, Any]:
    """Versions installed, where ``tractor`` comes from, and what must not be importable."""
    return {
        "versions": {name: importlib.metadata.version(name) for name in DISTRIBUTIONS},
        "tractor": str(Path(tractor.__file__).resolve()),
        "importable": {name: importlib.util.find_spec(name) is not None for name in ABSENT},
    }


def run(target: str, contract: Path) -> dict[str, Any]:
    """The whole suite's report."""
    cases = requests(contract)
    with channel(target) as ch:
        unary = rules_service_pb2_grpc.RulesServiceStub(ch).ValidatePlay(cases[GOOD_PLAY], timeout=TIMEOUT)
    checks: dict[str, Callable[[], Any]] = {
        "contract": lambda: contract_answers(target, cases),
        "thread_batcher": lambda: thread_batcher(target, cases, unary),
        "async_batcher": lambda: asyncio.run(async_batcher(target, cases, unary)),
        "retries": lambda: retries(target, cases, unary),
    }
    return {**environment(), **{name: check() for name, check in checks.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--target", required=True, help="the live server, 127.0.0.1:PORT")
    parser.add_argument("--contract", required=True, type=Path, help="tests/contract")
    args = parser.parse_args()
    print(json.dumps(run(args.target, args.contract), indent=1))


if __name__ == "__main__":
    main()
