# mypy: disable-error-code="untyped-decorator,no-untyped-call"
# (Locust's event hooks and shape base class are unannotated.)
"""A Locust user that speaks gRPC, the way Locust documents it: gevent-patched grpc and an interceptor.

Locust runs every simulated user in a gevent greenlet, so grpc must cooperate with gevent
(``init_gevent()``, before any channel exists) or one blocking call would stall every user of the
process. Each user gets its own intercepted channel; the interceptor fires one ``events.request`` per
call with its ``perf_counter`` time and the response size, and reports a transport error or a wrong
verdict as the call's failure.

The intercepted channels share a small pool of connections per Locust process (``--grpc-connections``,
default 4), because that is how game frontends talk to the service: one backend process multiplexes all
its tables over a few HTTP/2 connections. One connection per simulated table (``--grpc-connections 0``,
as in Locust's own example) makes hundreds of nearly idle connections, which the Python gRPC server
serves with long tail latencies that no real deployment would see. More connections than service
workers keep SO_REUSEPORT's per-connection balancing even.
"""

from __future__ import annotations

from locust import User, events  # first: importing locust monkey-patches the standard library for gevent

# isort: split
import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ClassVar, Final

import grpc
import grpc.experimental.gevent as grpc_gevent
from google.protobuf.message import Message
from locust.env import Environment
from locust.exception import LocustError

from loadtest.contract import RESPONSES, method_path
from loadtest.replay import Call, VerdictMismatchError, check

grpc_gevent.init_gevent()

CHANNEL_OPTIONS: Final = (
    ("grpc.max_receive_message_length", 4 * 1024 * 1024),
    ("grpc.enable_retries", 0),  # a failure must show as a failure, not be retried away
    # Every address the target resolves to gets calls: with ``dns:///`` and a headless Service (the
    # k8s/locust manifests) each channel spreads over every pod instead of sticking to the first one.
    ("grpc.lb_policy_name", "round_robin"),
)
DEFAULT_TIMEOUT: Final = 10.0
"""Per-call deadline in seconds: a stuck call fails instead of hanging the user."""
DEFAULT_CONNECTIONS: Final = 4
"""Connections per Locust process, shared by its users (0: one per user)."""
TOKEN_ENV: Final = "LOADTEST_AUTH_TOKEN"
"""A bearer token for a service that requires one (environment only: a flag would show in ``ps``)."""

Checker = Callable[[str, Message], None]


@events.init_command_line_parser.add_listener
def _add_options(parser: Any) -> None:
    """Register this module's options with Locust's parser (flags, environment variables, web UI)."""
    parser.add_argument(
        "--grpc-connections",
        type=int,
        default=DEFAULT_CONNECTIONS,
        env_var="LOADTEST_GRPC_CONNECTIONS",
        help="gRPC connections per Locust process, shared by its users (0: one per user)",
    )
    parser.add_argument(
        "--grpc-tls-ca",
        default="",
        env_var="LOADTEST_GRPC_TLS_CA",
        help="PEM CA bundle: speak TLS to the service and trust this CA (default: plaintext)",
    )


def open_channel(target: str, tls_ca: str) -> grpc.Channel:
    """A plaintext channel, or a TLS one trusting the CA bundle at ``tls_ca``."""
    if not tls_ca:
        return grpc.insecure_channel(target, options=CHANNEL_OPTIONS)
    credentials = grpc.ssl_channel_credentials(root_certificates=Path(tls_ca).read_bytes())
    return grpc.secure_channel(target, credentials, options=CHANNEL_OPTIONS)


class ConnectionPool:
    """A process's shared connections to one target, handed out round robin."""

    def __init__(self) -> None:
        self._channels: dict[tuple[str, str], list[grpc.Channel]] = {}
        self._next = 0

    def get(self, target: str, size: int, tls_ca: str = "") -> grpc.Channel:
        """A connection to ``target`` from a pool of ``size`` (opened on first use)."""
        channels = self._channels.setdefault((target, tls_ca), [])
        if len(channels) < size:
            channels.append(open_channel(target, tls_ca))
            return channels[-1]
        self._next += 1
        return channels[self._next % len(channels)]


POOL: Final = ConnectionPool()


class RpcFailureError(Exception):
    """A call that ended with a status other than OK: its code and details, without the volatile debug
    string, so Locust groups equal failures together."""

    def __init__(self, error: grpc.RpcError) -> None:
        code = error.code() if hasattr(error, "code") else None
        details = error.details() if hasattr(error, "details") else str(error)
        super().__init__(f"{code.name if code else 'UNKNOWN'}: {details}")


class LocustInterceptor(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]  # grpc has no stubs
    """Times each unary call and fires Locust's request event; ``checker`` judges the response."""

    def __init__(self, environment: Environment, checker: Checker) -> None:
        self._events = environment.events
        self._checker = checker

    def intercept_unary_unary(
        self, continuation: Callable[[Any, Any], Any], client_call_details: Any, request: Any
    ) -> Any:
        """Run the call, then report it: timing covers the RPC only, not the verdict check."""
        name = client_call_details.method.rsplit("/", 1)[-1]
        start = time.perf_counter()
        outcome = continuation(client_call_details, request)
        exception: Exception | None = None
        response = None
        length = 0
        try:
            response = outcome.result()
        except grpc.RpcError as error:
            exception = RpcFailureError(error)
        elapsed_ms = (time.perf_counter() - start) * 1000.0
        if response is not None:
            length = response.ByteSize()
            try:
                self._checker(name, response)
            except VerdictMismatchError as mismatch:
                exception = mismatch
        self._events.request.fire(
            request_type="grpc",
            name=name,
            response_time=elapsed_ms,
            response_length=length,
            response=response,
            context=None,
            exception=exception,
        )
        return outcome


class GrpcUser(User):
    """Base user with an intercepted channel to ``--host HOST:PORT`` (no scheme): plaintext, or TLS with
    ``--grpc-tls-ca``; with ``$LOADTEST_AUTH_TOKEN`` every call carries ``authorization: Bearer ...``.

    ``send(call)`` replays one corpus call: its serialized request goes out as is (the generator does
    no serialization or rules work) and the response is checked against the call's expected fields.
    """

    abstract = True
    timeout: ClassVar[float] = DEFAULT_TIMEOUT

    def __init__(self, environment: Environment) -> None:
        super().__init__(environment)
        if not self.host:
            raise LocustError("give the service as --host HOST:PORT (for example 127.0.0.1:50051)")
        target = self.host.removeprefix("grpc://").removeprefix("http://")
        self._expect: Mapping[str, Any] = {}
        options = environment.parsed_options
        connections = getattr(options, "grpc_connections", DEFAULT_CONNECTIONS)
        tls_ca = getattr(options, "grpc_tls_ca", "") or ""
        token = os.environ.get(TOKEN_ENV, "")
        self._metadata = (("authorization", f"Bearer {token}"),) if token else None
        self._own: grpc.Channel | None = None
        if connections > 0:
            channel = POOL.get(target, connections, tls_ca)
        else:
            channel = self._own = open_channel(target, tls_ca)
        intercepted = grpc.intercept_channel(channel, LocustInterceptor(environment, self._check))
        self._methods = {
            name: intercepted.unary_unary(
                method_path(name), request_serializer=None, response_deserializer=response.FromString
            )
            for name, response in RESPONSES.items()
        }

    def _check(self, method: str, response: Message) -> None:
        check(method, response, self._expect)

    def send(self, call: Call) -> Message | None:
        """Replay one call; None when it failed (the failure is already reported to Locust)."""
        self._expect = call.expect
        try:
            result: Message = self._methods[call.method](
                call.request, timeout=self.timeout, metadata=self._metadata
            )
        except grpc.RpcError:
            return None
        return result

    def on_stop(self) -> None:
        """Close the user's own connection when Locust stops it (pooled ones live with the process)."""
        if self._own is not None:
            self._own.close()
