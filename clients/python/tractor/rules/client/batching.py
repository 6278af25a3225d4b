"""Client-side batching of ValidatePlay: many callers' plays travel as one ValidatePlays call.

A batched verdict costs the server several times less CPU than a unary call, but a backend mostly asks
about one play at a time, from many threads or tasks. ``PlayBatcher`` (threads, ``grpc.Channel``) and
``AsyncPlayBatcher`` (one event loop, ``grpc.aio.Channel``) gather the calls made within a short window
(``max_wait`` seconds, or ``max_items`` items, whichever comes first) into one ValidatePlays call and
hand each caller its own answer, as if it had called ValidatePlay itself:

* a malformed request raises, for its caller only, a ``RulesError`` that reads like the unary
  call's error: INVALID_ARGUMENT, the same details, and the same ``google.rpc.Status`` in the trailing
  metadata (``grpc_status.rpc_status.from_call`` works) with the field paths of the unary request
  (``trick.plays[1].cards[0]``, not ``items[3].trick.plays[1].cards[0]``);
* a failed batch call (UNAVAILABLE, ...) fails each of its callers with that call's code and details;
* every caller's ``timeout`` is its own: it gets DEADLINE_EXCEEDED at its deadline even while its batch
  is in flight, an item whose caller has given up is not sent, and the batch call's deadline is the
  latest of its items' (none if one of them has none).

The cost is latency: a call waits up to ``max_wait`` for batch-mates before it is sent.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Final, Self

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from tractor.rules.client.errors import BAD_REQUEST, ERROR_INFO, RulesError
from tractor.rules.v1 import rules_service_pb2 as pb

MAX_BATCH_ITEMS: Final = 100
"""The most items the service takes in one ValidatePlays call (``services.servicer.MAX_BATCH_ITEMS``)."""
DEFAULT_MAX_WAIT: Final = 0.002
"""How long a call waits for batch-mates by default (seconds): small next to a network round trip."""
VALIDATE_PLAYS: Final = "/tractor.rules.v1.RulesService/ValidatePlays"


def deadline_exceeded() -> RulesError:
    """What gRPC raises for a call past its deadline."""
    return RulesError(grpc.StatusCode.DEADLINE_EXCEEDED, "Deadline Exceeded")


def unbatched_status(status: status_pb2.Status, index: int) -> status_pb2.Status:
    """Item ``index``'s error as the unary call gives it: field paths without the ``items[i].`` prefix.

    The prefix is stripped from the message, from BadRequest field violations and from ErrorInfo
    metadata values; other details are kept as they are.
    """
    prefix = f"items[{index}]."
    result = status_pb2.Status(code=status.code, message=status.message.replace(prefix, "", 1))
    for detail in status.details:
        if detail.TypeName() == BAD_REQUEST:
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            for violation in bad.field_violations:
                violation.field = violation.field.removeprefix(prefix)
            result.details.append(_packed(bad))
        elif detail.TypeName() == ERROR_INFO:
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            for key, value in info.metadata.items():
                info.metadata[key] = value.removeprefix(prefix)
            result.details.append(_packed(info))
        else:
            result.details.append(detail)
    return result


def _packed(message: Any) -> any_pb2.Any:
    packed = any_pb2.Any()
    packed.Pack(message)
    return packed


def _check_knobs(max_items: int, max_wait: float) -> None:
    if not 1 <= max_items <= MAX_BATCH_ITEMS:
        raise ValueError(f"max_items must be 1..{MAX_BATCH_ITEMS}, got {max_items}")
    if not 0 <= max_wait <= 1:
        raise ValueError(f"max_wait must be 0..1 seconds, got {max_wait}")


def _check_request(request: object) -> None:
    """Refuse a wrong type in its caller's thread: once in a batch it would fail its batch-mates."""
    if not isinstance(request, pb.ValidatePlayRequest):
        raise TypeError(f"validate_play takes a ValidatePlayRequest, not {type(request).__name__}")


def _batch_timeout(deadlines: Sequence[float | None], now: float) -> float | None:
    """The batch call's timeout: until the latest item deadline; none if one item has none."""
    if any(deadline is None for deadline in deadlines):
        return None
    return max(d for d in deadlines if d is not None) - now


def _results(response: pb.ValidatePlaysResponse, count: int) -> list[pb.ValidatePlayResponse | RulesError]:
    """Each item's answer or its error, in item order; INTERNAL for all when the answer is malformed."""
    if len(response.results) != count:
        error = f"ValidatePlays answered {len(response.results)} results for {count} items"
        return [RulesError(grpc.StatusCode.INTERNAL, error) for _ in range(count)]
    answers: list[pb.ValidatePlayResponse | RulesError] = []
    for index, result in enumerate(response.results):
        kind = result.WhichOneof("result")
        if kind == "response":
            answers.append(result.response)
        elif kind == "error":
            answers.append(RulesError.from_status(unbatched_status(result.error, index)))
        else:
            answers.append(RulesError(grpc.StatusCode.INTERNAL, f"ValidatePlays left item {index} empty"))
    return answers


def _stub(channel: Any) -> Any:
    return channel.unary_unary(
        VALIDATE_PLAYS,
        request_serializer=pb.ValidatePlaysRequest.SerializeToString,
        response_deserializer=pb.ValidatePlaysResponse.FromString,
    )


# -------------------------------------------------------------------------------------------------
# threads


@dataclass(slots=True, eq=False)
class _Item:
    request: pb.ValidatePlayRequest
    deadline: float | None
    answer: concurrent.futures.Future[pb.ValidatePlayResponse] = field(
        default_factory=concurrent.futures.Future
    )


class PlayBatcher:
    """Batches blocking ``validate_play`` calls from many threads into ValidatePlays calls.

    One flusher thread, started with the first call, sends a window when ``max_wait`` has passed since
    its first item; it sleeps on a condition while nothing is pending (no polling). A window that
    reaches ``max_items`` is sent at once by the thread that filled it. The calls are asynchronous
    (``future``), so a slow batch never holds up the next window. ``close()`` sends what is pending and
    stops the thread; it does not close the channel, which stays the caller's.
    """

    def __init__(
        self, channel: grpc.Channel, *, max_items: int = MAX_BATCH_ITEMS, max_wait: float = DEFAULT_MAX_WAIT
    ) -> None:
        _check_knobs(max_items, max_wait)
        self.max_items = max_items
        self.max_wait = max_wait
        self._call = _stub(channel)
        self._cond = threading.Condition()
        self._pending: list[_Item] = []
        self._window_end = 0.0
        self._closed = False
        self._thread: threading.Thread | None = None

    def validate_play(
        self, request: pb.ValidatePlayRequest, timeout: float | None = None
    ) -> pb.ValidatePlayResponse:
        """ValidatePlay's answer for ``request``; raises its error (a ``grpc.RpcError``) as it would."""
        _check_request(request)
        now = time.monotonic()
        item = _Item(request, None if timeout is None else now + timeout)
        full: list[_Item] = []
        with self._cond:
            if self._closed:
                raise RuntimeError("the PlayBatcher is closed")
            self._pending.append(item)
            if len(self._pending) >= self.max_items:
                full = self._cut()
            elif len(self._pending) == 1:
                self._window_end = now + self.max_wait
                if self._thread is None:
                    self._thread = threading.Thread(target=self._flusher, name="PlayBatcher", daemon=True)
                    self._thread.start()
                self._cond.notify()
        if full:
            self._send(full)
        remaining = None if item.deadline is None else item.deadline - time.monotonic()
        try:
            return item.answer.result(timeout=None if remaining is None else max(remaining, 0.0))
        except concurrent.futures.TimeoutError:
            item.answer.cancel()  # still waiting for its window: it will not be sent
            raise deadline_exceeded() from None

    def _cut(self) -> list[_Item]:
        """Take the pending window (the condition is held)."""
        batch, self._pending = self._pending, []
        return batch

    def _flusher(self) -> None:
        """Send each window when its time is up; sleep while nothing is pending."""
        while True:
            with self._cond:
                while True:
                    if self._pending:
                        wait = self._window_end - time.monotonic()
                        if wait <= 0 or self._closed:
                            batch = self._cut()
                            break
                        self._cond.wait(wait)
                    elif self._closed:
                        return
                    else:
                        self._cond.wait()
            self._send(batch)

    def _send(self, batch: list[_Item]) -> None:
        """Send the items whose callers still wait; answer the expired ones DEADLINE_EXCEEDED."""
        now = time.monotonic()
        live: list[_Item] = []
        for item in batch:
            if not item.answer.set_running_or_notify_cancel():
                continue  # the caller gave up
            if item.deadline is not None and item.deadline <= now:
                item.answer.set_exception(deadline_exceeded())
            else:
                live.append(item)
        if not live:
            return
        try:
            request = pb.ValidatePlaysRequest(items=[item.request for item in live])
            timeout = _batch_timeout([item.deadline for item in live], now)
            future = self._call.future(request, timeout=timeout)
        except Exception as error:  # a closed channel raises here: fail the callers, keep the flusher
            for item in live:
                item.answer.set_exception(RulesError(grpc.StatusCode.UNKNOWN, f"cannot call: {error}"))
            return
        future.add_done_callback(lambda done: self._deliver(live, done))

    @staticmethod
    def _deliver(items: list[_Item], done: Any) -> None:
        """Hand each caller its result (on a gRPC thread, when the batch call ends)."""
        try:
            answers = _results(done.result(), len(items))
        except grpc.RpcError as error:
            answers = [RulesError.from_call(error) for _ in items]
        except Exception as error:  # cancelled, or an undecodable answer
            answers = [RulesError(grpc.StatusCode.UNKNOWN, repr(error)) for _ in items]
        for item, answer in zip(items, answers, strict=True):
            if isinstance(answer, RulesError):
                item.answer.set_exception(answer)
            else:
                item.answer.set_result(answer)

    def close(self) -> None:
        """Send what is pending now, stop the flusher thread; later calls raise RuntimeError."""
        with self._cond:
            self._closed = True
            self._cond.notify()
            thread = self._thread
        if thread is not None:
            thread.join()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


# -------------------------------------------------------------------------------------------------
# asyncio


@dataclass(slots=True, eq=False)
class _AsyncItem:
    request: pb.ValidatePlayRequest
    deadline: float | None
    answer: asyncio.Future[pb.ValidatePlayResponse]


class AsyncPlayBatcher:
    """Batches ``await validate_play`` calls of the tasks of one event loop into ValidatePlays calls.

    No thread: a window is sent by a loop timer ``max_wait`` after its first item, or at once by the
    call that fills it to ``max_items``; each batch call runs as its own task. ``await close()`` (or
    ``async with``) sends what is pending and waits for the calls in flight; the channel stays open.
    """

    def __init__(
        self, channel: Any, *, max_items: int = MAX_BATCH_ITEMS, max_wait: float = DEFAULT_MAX_WAIT
    ) -> None:
        _check_knobs(max_items, max_wait)
        self.max_items = max_items
        self.max_wait = max_wait
        self._call = _stub(channel)
        self._pending: list[_AsyncItem] = []
        self._timer: asyncio.TimerHandle | None = None
        self._in_flight: set[asyncio.Task[None]] = set()
        self._closed = False

    async def validate_play(
        self, request: pb.ValidatePlayRequest, timeout: float | None = None
    ) -> pb.ValidatePlayResponse:
        """ValidatePlay's answer for ``request``; raises its error (a ``grpc.RpcError``) as it would."""
        _check_request(request)
        if self._closed:
            raise RuntimeError("the AsyncPlayBatcher is closed")
        loop = asyncio.get_running_loop()
        now = loop.time()
        item = _AsyncItem(request, None if timeout is None else now + timeout, loop.create_future())
        self._pending.append(item)
        if len(self._pending) >= self.max_items:
            self._flush()
        elif len(self._pending) == 1:
            self._timer = loop.call_later(self.max_wait, self._flush)
        if timeout is None:
            return await item.answer
        try:
            # On timeout wait_for cancels the answer: a pending item is then not sent.
            return await asyncio.wait_for(item.answer, max(timeout - (loop.time() - now), 0.0))
        except TimeoutError:
            raise deadline_exceeded() from None

    def _flush(self) -> None:
        """Send the pending window as one call (its own task)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        batch, self._pending = self._pending, []
        loop = asyncio.get_running_loop()
        now = loop.time()
        live: list[_AsyncItem] = []
        for item in batch:
            if item.answer.done():
                continue  # cancelled: the caller gave up
            if item.deadline is not None and item.deadline <= now:
                item.answer.set_exception(deadline_exceeded())
            else:
                live.append(item)
        if live:
            task = loop.create_task(self._send(live, _batch_timeout([item.deadline for item in live], now)))
            self._in_flight.add(task)
            task.add_done_callback(self._in_flight.discard)

    async def _send(self, items: list[_AsyncItem], timeout: float | None) -> None:
        answers: list[pb.ValidatePlayResponse | RulesError]
        try:
            request = pb.ValidatePlaysRequest(items=[item.request for item in items])
            answers = _results(await self._call(request, timeout=timeout), len(items))
        except grpc.RpcError as error:
            answers = [RulesError.from_call(error) for _ in items]
        except asyncio.CancelledError:
            answers = [RulesError(grpc.StatusCode.CANCELLED, "Locally cancelled") for _ in items]
            self._answer(items, answers)
            raise
        except Exception as error:  # an undecodable answer, a closed channel
            answers = [RulesError(grpc.StatusCode.UNKNOWN, repr(error)) for _ in items]
        self._answer(items, answers)

    @staticmethod
    def _answer(items: list[_AsyncItem], answers: list[pb.ValidatePlayResponse | RulesError]) -> None:
        for item, answer in zip(items, answers, strict=True):
            if item.answer.done():
                continue  # the caller's deadline passed while the batch was in flight
            if isinstance(answer, RulesError):
                item.answer.set_exception(answer)
            else:
                item.answer.set_result(answer)

    async def close(self) -> None:
        """Send what is pending now and wait for the calls in flight; later calls raise RuntimeError."""
        self._closed = True
        if self._pending:
            self._flush()
        if self._in_flight:
            await asyncio.gather(*self._in_flight, return_exceptions=True)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
