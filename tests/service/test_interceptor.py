"""The interceptor's status mapping on a real server: INTERNAL hides details, bad bytes are
INVALID_ARGUMENT, deadlines become DEADLINE_EXCEEDED, and each error is one structured log line.

The failing handlers live on a test-only service behind the very interceptor the rules service uses;
nothing is mocked.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from prometheus_client import CollectorRegistry
from wire import Live

from services.errors import FieldViolation, InvalidRequestError, Reason
from services.interceptor import INTERNAL_MESSAGE, Context, RpcInterceptor, check_deadline
from services.logs import JsonFormatter
from services.metrics import Metrics

SERVICE = "test.Faults"
TIMEOUT = 10.0


def _explode(request: bytes, context: Context) -> bytes:
    raise RuntimeError("secret detail: database password is hunter2")


def _slow(request: bytes, context: Context) -> bytes:
    time.sleep(0.3)
    check_deadline(context)
    return b""


def _invalid(request: bytes, context: Context) -> bytes:
    raise InvalidRequestError(
        FieldViolation("a.b[0]", Reason.OUT_OF_RANGE, "first"), FieldViolation("c", Reason.MISSING, "second")
    )


class _Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(scope="module")
def faults() -> Iterator[tuple[grpc.Channel, CollectorRegistry, _Records]]:
    registry = CollectorRegistry()
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=4), interceptors=[RpcInterceptor(Metrics(registry))]
    )
    handlers = {
        name: grpc.unary_unary_rpc_method_handler(fn)
        for name, fn in [("Explode", _explode), ("Slow", _slow), ("Invalid", _invalid)]
    }
    server.add_generic_rpc_handlers([grpc.method_handlers_generic_handler(SERVICE, handlers)])
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    records = _Records()
    logger = logging.getLogger("tractor_rules.rpc")
    logger.addHandler(records)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield channel, registry, records
    finally:
        logger.removeHandler(records)
        channel.close()
        server.stop(None).wait(10)


def _call(channel: grpc.Channel, method: str, timeout: float = TIMEOUT) -> grpc.RpcError:
    with pytest.raises(grpc.RpcError) as failure:
        channel.unary_unary(f"/{SERVICE}/{method}")(b"", timeout=timeout)
    error: grpc.RpcError = failure.value
    return error


def _handled(registry: CollectorRegistry, method: str, code: str) -> float:
    labels = {"grpc_type": "unary", "grpc_service": SERVICE, "grpc_method": method, "grpc_code": code}
    return registry.get_sample_value("grpc_server_handled_total", labels) or 0.0


def test_unexpected_error_is_internal_with_a_generic_message(faults: Any) -> None:
    channel, registry, records = faults
    error = _call(channel, "Explode")
    assert error.code() == grpc.StatusCode.INTERNAL
    assert error.details() == INTERNAL_MESSAGE
    assert "hunter2" not in (error.details() or "")
    assert _handled(registry, "Explode", "INTERNAL") == 1
    logged = [r for r in records.records if getattr(r, "code", "") == "INTERNAL"]
    assert len(logged) == 1
    line = JsonFormatter().format(logged[0])
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["method"] == f"/{SERVICE}/Explode"
    assert "hunter2" in entry["reason"] and "RuntimeError" in entry["exc"]


def test_every_violation_travels_and_is_logged_once(faults: Any) -> None:
    channel, registry, records = faults
    before = len(records.records)
    error = _call(channel, "Invalid")
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert (error.details() or "").startswith("invalid request: a.b[0]: first")
    assert _handled(registry, "Invalid", "INVALID_ARGUMENT") == 1
    new = records.records[before:]
    assert len(new) == 1 and getattr(new[0], "field", None) == "a.b[0]"


def test_a_spent_deadline_is_deadline_exceeded(faults: Any) -> None:
    """The client gives up at 0.1 s; the server notices at its next check and stops the work."""
    channel, registry, _ = faults
    error = _call(channel, "Slow", timeout=0.1)
    assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
    deadline = time.monotonic() + 5
    while _handled(registry, "Slow", "DEADLINE_EXCEEDED") < 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _handled(registry, "Slow", "DEADLINE_EXCEEDED") == 1


def test_bytes_that_do_not_decode_are_invalid_argument(live: Live) -> None:
    """A client with a broken encoder gets INVALID_ARGUMENT, not gRPC's INTERNAL deserialization error."""
    raw = live.channel.unary_unary("/tractor.rules.v1.RulesService/ValidatePlay")
    with pytest.raises(grpc.RpcError) as failure:
        raw(b"\x0a\xff\xff\xff", timeout=TIMEOUT)  # field 1, a length far past the end
    assert failure.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert "does not decode" in (failure.value.details() or "")
