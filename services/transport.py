"""The gRPC server options of the rules port, in one place: port sharing, message size, connection age
and keepalive.

Keepalive is what reaps dead peers. A client that vanished without closing its TCP connection (a
crashed host, a NAT or load balancer that dropped its state, a cable pulled) leaves the server holding
the connection, its buffers and any call on it until TCP itself gives up, which on Linux takes many
minutes. With keepalive the server pings each connection after ``keepalive_time_seconds`` and closes
it when the ping is not answered within ``keepalive_timeout_seconds``, idle connections too
(``permit_without_calls``; pings without data are not capped). Clients may ping the server as well, but
no more often than ``min_client_ping_seconds`` when they have no calls (more often is refused with
GOAWAY ``too_many_pings``, as gRPC does by default after 5 minutes).
"""

from __future__ import annotations

from typing import Final

from services.config import ServerConfig

Option = tuple[str, int]


def _ms(seconds: float) -> int:
    return round(seconds * 1000)


def message_size_options(config: ServerConfig) -> list[Option]:
    """The largest request and response, both ``max_message_bytes``.

    >>> message_size_options(ServerConfig(max_message_bytes=4096))
    [('grpc.max_receive_message_length', 4096), ('grpc.max_send_message_length', 4096)]
    """
    return [
        ("grpc.max_receive_message_length", config.max_message_bytes),
        ("grpc.max_send_message_length", config.max_message_bytes),
    ]


def connection_age_options(config: ServerConfig) -> list[Option]:
    """gRPC's max connection age (it adds ±10 % jitter) and its grace, when ``max_connection_age_seconds``.

    >>> connection_age_options(ServerConfig(max_connection_age_seconds=300, grace_seconds=10))
    [('grpc.max_connection_age_ms', 300000), ('grpc.max_connection_age_grace_ms', 10000)]
    >>> connection_age_options(ServerConfig())
    []
    """
    if not config.max_connection_age_seconds:
        return []
    return [
        ("grpc.max_connection_age_ms", _ms(config.max_connection_age_seconds)),
        ("grpc.max_connection_age_grace_ms", _ms(config.grace_seconds)),
    ]


def keepalive_options(config: ServerConfig) -> list[Option]:
    """Server keepalive pings that close dead connections, and the client pings the server tolerates.

    >>> keepalive_options(ServerConfig())  # doctest: +NORMALIZE_WHITESPACE
    [('grpc.keepalive_time_ms', 60000), ('grpc.keepalive_timeout_ms', 20000),
     ('grpc.http2.ping_timeout_ms', 20000), ('grpc.keepalive_permit_without_calls', 1),
     ('grpc.http2.max_pings_without_data', 0),
     ('grpc.http2.min_ping_interval_without_data_ms', 10000)]
    >>> keepalive_options(ServerConfig(keepalive_time_seconds=0, max_connection_idle_seconds=600))
    [('grpc.http2.min_ping_interval_without_data_ms', 10000), ('grpc.max_connection_idle_ms', 600000)]
    """
    options: list[Option] = []
    if config.keepalive_time_seconds:
        options += [
            ("grpc.keepalive_time_ms", _ms(config.keepalive_time_seconds)),
            ("grpc.keepalive_timeout_ms", _ms(config.keepalive_timeout_seconds)),
            # grpc 1.85's server closes on an unanswered ping only after the ping timeout, whatever the
            # keepalive timeout says (on its default, not within 25 s): tests/hardening/test_keepalive.py
            ("grpc.http2.ping_timeout_ms", _ms(config.keepalive_timeout_seconds)),
            ("grpc.keepalive_permit_without_calls", 1),  # idle connections are reaped too
            ("grpc.http2.max_pings_without_data", 0),  # the server's pings on an idle connection never stop
        ]
    options.append(("grpc.http2.min_ping_interval_without_data_ms", _ms(config.min_client_ping_seconds)))
    if config.max_connection_idle_seconds:
        options.append(("grpc.max_connection_idle_ms", _ms(config.max_connection_idle_seconds)))
    return options


SHARED_PORT: Final[list[Option]] = [("grpc.so_reuseport", 1)]
"""Every worker binds the same port; the kernel spreads connections over them (``services.supervisor``)."""


def grpc_options(config: ServerConfig) -> list[Option]:
    """Every option of the rules server: the shared port, message size, connection age, keepalive."""
    return [
        *SHARED_PORT,
        *message_size_options(config),
        *connection_age_options(config),
        *keepalive_options(config),
    ]
