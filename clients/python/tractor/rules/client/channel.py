"""Channels with the settings the service recommends: retries of its pure RPCs, keepalive, message limits.

    from tractor.rules.client import channel
    from tractor.rules.v1 import rules_service_pb2_grpc

    with channel("rules.internal:50051") as ch:
        rules = rules_service_pb2_grpc.RulesServiceStub(ch)

Every RulesService RPC is a pure function of its request, so retrying is always safe (``SERVICE_CONFIG``);
keepalive pings find a dead connection in about 80 s rather than the kernel's two hours; the message
limits are the server's default, so a request too big for the server fails in the client, before it is
sent. Callers still bound every call with a deadline (``timeout=``).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

import grpc

SERVICE: Final = "tractor.rules.v1.RulesService"
SERVICE_CONFIG: Final = {
    "methodConfig": [
        {
            "name": [{"service": SERVICE}],
            "waitForReady": True,
            "retryPolicy": {
                "maxAttempts": 3,
                "initialBackoff": "0.05s",
                "maxBackoff": "0.5s",
                "backoffMultiplier": 2,
                "retryableStatusCodes": ["UNAVAILABLE", "CANCELLED"],
            },
        }
    ]
}
"""The client service config: every RulesService RPC is a pure function of its request, so retrying
UNAVAILABLE (a worker replaced or draining mid-call) is safe and hides it; and waiting for a connection,
rather than failing fast, rides out a reconnect that lands on a dying worker (the channel's reconnect
backoff is about a second). CANCELLED is retried too: a server that stops cancels the calls that reached
its gRPC core in the instant of the stop, before any handler saw them (gRPC core's "zombie" calls; no
server API avoids it), and an application's own cancel is never retried (gRPC stops retrying when the
caller cancels)."""
MAX_MESSAGE_BYTES: Final = 384 * 1024
"""The server's default message limit (``--max-message-bytes``): twice the largest legal request."""
KEEPALIVE_TIME_MS: Final = 60_000
KEEPALIVE_TIMEOUT_MS: Final = 20_000
"""A keepalive ping every minute while calls are open, the connection closed if one goes unanswered for
20 s; the server tolerates pings every 10 s (``--min-client-ping-seconds``), so these are never too many."""

CHANNEL_OPTIONS: Final[tuple[tuple[str, Any], ...]] = (
    ("grpc.service_config", json.dumps(SERVICE_CONFIG)),
    ("grpc.enable_retries", 1),
    ("grpc.keepalive_time_ms", KEEPALIVE_TIME_MS),
    ("grpc.keepalive_timeout_ms", KEEPALIVE_TIMEOUT_MS),
    ("grpc.max_send_message_length", MAX_MESSAGE_BYTES),
    ("grpc.max_receive_message_length", MAX_MESSAGE_BYTES),
)
"""The options ``channel`` and ``aio_channel`` set; ``options`` given to them override by name."""

Options = Sequence[tuple[str, Any]]


def options(overrides: Options = ()) -> list[tuple[str, Any]]:
    """``CHANNEL_OPTIONS`` with ``overrides`` replacing options of the same name (and any others added).

    >>> dict(options([("grpc.keepalive_time_ms", 30_000)]))["grpc.keepalive_time_ms"]
    30000
    """
    merged = dict(CHANNEL_OPTIONS)
    merged.update(dict(overrides))
    return list(merged.items())


def channel(
    target: str, *, credentials: grpc.ChannelCredentials | None = None, overrides: Options = ()
) -> grpc.Channel:
    """A blocking-API channel to ``target`` (``host:port``) with the recommended options; TLS when
    ``credentials`` are given (``grpc.ssl_channel_credentials(...)``), plaintext otherwise."""
    if credentials is None:
        return grpc.insecure_channel(target, options=options(overrides))
    return grpc.secure_channel(target, credentials, options=options(overrides))


def aio_channel(
    target: str, *, credentials: grpc.ChannelCredentials | None = None, overrides: Options = ()
) -> grpc.aio.Channel:
    """The same for asyncio (``grpc.aio``); create it inside the event loop that uses it."""
    if credentials is None:
        return grpc.aio.insecure_channel(target, options=options(overrides))
    return grpc.aio.secure_channel(target, credentials, options=options(overrides))
