"""Server settings from command-line flags, then ``TRACTOR_RULES_*`` environment variables, then defaults.

Kept free of grpc and prometheus_client imports: the CLI reads the configuration before it decides the
metrics directory and forks workers, and both must happen before those libraries set anything up.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Final

ENV_PREFIX: Final = "TRACTOR_RULES_"
KIB: Final = 1024
MIB: Final = 1024 * KIB
MAX_MESSAGE_BYTES: Final = 384 * KIB
"""The default ``max_message_bytes``: twice the largest request any RPC can legally carry (a batch of
100 ResolveTrick items, 69,600 bytes), rounded up to 64 KiB; ``services.sizes`` computes it from the
validation bounds and a test keeps the two equal. gRPC's own default, 4 MiB, is 60 times that."""
ENV_ONLY: Final = "env_only"
"""Field metadata key: a secret read from the environment only, so it never shows in ``ps`` output."""


def _default_workers() -> int:
    return os.cpu_count() or 1


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """Everything ``tractor-rules serve`` can be told. Each field has a flag and an environment variable."""

    address: str = "0.0.0.0"
    """Host to bind the gRPC port on (use ``[::]`` for IPv6, ``127.0.0.1`` for loopback only)."""
    port: int = 50051
    """gRPC port; 0 picks a free one (logged at start)."""
    metrics_address: str = "0.0.0.0"
    """Host to bind the Prometheus HTTP endpoint on."""
    metrics_port: int = 9464
    """Prometheus ``/metrics`` port; 0 picks a free one, -1 turns the endpoint off."""
    workers: int = 0
    """Worker processes sharing the port with SO_REUSEPORT; 0 means one per CPU."""
    threads: int = 8
    """Request threads per worker."""
    max_message_bytes: int = MAX_MESSAGE_BYTES
    """Largest request or response accepted, in bytes; larger ones are RESOURCE_EXHAUSTED, undecoded."""
    grace_seconds: float = 10.0
    """On SIGTERM, the whole shutdown budget: drain, then in-flight calls finish or are cancelled."""
    drain_seconds: float = 1.0
    """On SIGTERM, how long health reports NOT_SERVING while calls are still served (within the grace)."""
    log_level: str = "INFO"
    """Logging level of the JSON log lines on stderr."""
    tls_cert: str = ""
    """PEM certificate chain the server presents; with ``tls_key`` it turns TLS on (empty: plaintext)."""
    tls_key: str = ""
    """PEM private key of ``tls_cert``."""
    tls_client_ca: str = ""
    """PEM CA bundle: with it every client must present a certificate this CA signed (mutual TLS)."""
    auth_token_file: str = ""
    """File of bearer tokens, one per line (several during a rotation): every RPC but health must send
    ``authorization: Bearer <token>``."""
    auth_token: str = field(default="", repr=False, metadata={ENV_ONLY: True})
    """One bearer token, from ``TRACTOR_RULES_AUTH_TOKEN`` only (no flag: a flag shows in ``ps``)."""
    max_concurrent_rpcs: int = 1000
    """Calls one worker holds at once, running or queued; beyond it RESOURCE_EXHAUSTED; 0: no limit."""
    body_first: bool = True
    """Read a unary call's request body before spending a thread on it, so stalled clients hold none
    (needs the grpcio whose private API ``services.grpc_private`` was checked on; on any other the
    server warns and falls back); false: gRPC's plain thread pool, ``max_concurrent_rpcs`` enforced by
    gRPC itself."""
    max_request_seconds: float = 5.0
    """Server-side ceiling on a call's time in a worker, whatever its deadline: checked on arrival and
    between steps, past it RESOURCE_EXHAUSTED; 0: none."""
    worker_restarts: int = 5
    """Workers that may die and be replaced within a minute; one more stops the service (status 1)."""
    health_port: int = -1
    """A second, plaintext port serving only ``grpc.health.v1`` (the main port's status), for probes that
    cannot speak TLS, such as Kubernetes' native gRPC probes; 0 picks a free one, -1: none."""
    max_connection_age_seconds: float = 0.0
    """Close each client connection after about this long (gRPC's GOAWAY; calls in flight get the grace
    period), so clients reconnect, re-resolve and reach pods added since; 0: never."""
    keepalive_time_seconds: float = 60.0
    """Ping each connection after this long (idle ones too), so dead peers are found; 0: gRPC's own
    default (two hours)."""
    keepalive_timeout_seconds: float = 20.0
    """Close a connection whose keepalive ping is not answered within this long."""
    min_client_ping_seconds: float = 10.0
    """Shortest interval between a client's keepalive pings without calls that the server tolerates;
    a client pinging more often is sent GOAWAY ``too_many_pings``."""
    max_connection_idle_seconds: float = 0.0
    """Close a connection that has had no call for this long (GOAWAY; clients reconnect when they next
    call); 0: never."""

    def __post_init__(self) -> None:
        problems = []
        for name in ("port", "metrics_port", "health_port"):
            value = getattr(self, name)
            if not (0 if name == "port" else -1) <= value <= 65535:
                problems.append(f"{name} must be a port number, got {value}")
        if self.health_port > 0 and self.health_port == self.port:
            problems.append("health_port must differ from port")
        if self.workers < 0 or self.threads < 1:
            problems.append("workers must be >= 0 and threads >= 1")
        if self.max_message_bytes < 1024:
            problems.append("max_message_bytes must be at least 1024")
        if self.grace_seconds < 0 or self.drain_seconds < 0:
            problems.append("grace_seconds and drain_seconds must be >= 0")
        if bool(self.tls_cert) != bool(self.tls_key):
            problems.append("tls_cert and tls_key go together")
        if self.tls_client_ca and not self.tls_cert:
            problems.append("tls_client_ca (mutual TLS) needs tls_cert and tls_key")
        if self.auth_token and self.auth_token_file:
            problems.append("give auth_token or auth_token_file, not both")
        if min(self.max_concurrent_rpcs, self.max_request_seconds, self.worker_restarts) < 0:
            problems.append("max_concurrent_rpcs, max_request_seconds and worker_restarts must be >= 0")
        connection = (
            "max_connection_age_seconds",
            "keepalive_time_seconds",
            "min_client_ping_seconds",
            "max_connection_idle_seconds",
        )
        for name in connection:
            if getattr(self, name) < 0:
                problems.append(f"{name} must be >= 0")
        if self.keepalive_time_seconds and self.keepalive_timeout_seconds <= 0:
            problems.append("keepalive_timeout_seconds must be > 0 when keepalive_time_seconds is set")
        if problems:
            raise ValueError("; ".join(problems))

    @property
    def worker_count(self) -> int:
        """The number of worker processes to fork (``workers``, or the CPU count when 0)."""
        return self.workers or _default_workers()

    @property
    def drain(self) -> float:
        """The drain period, never longer than the grace period it is part of."""
        return min(self.drain_seconds, self.grace_seconds)

    @property
    def transport(self) -> str:
        """``plaintext``, ``tls`` or ``mtls``: what the gRPC port speaks."""
        if not self.tls_cert:
            return "plaintext"
        return "mtls" if self.tls_client_ca else "tls"

    @property
    def authenticates(self) -> bool:
        """Whether RPCs need a bearer token."""
        return bool(self.auth_token or self.auth_token_file)


def _boolean(text: str) -> bool:
    """``true``/``false`` (also ``1``/``0``, ``yes``/``no``, ``on``/``off``), any case."""
    value = text.strip().lower()
    if value in {"true", "1", "yes", "on"}:
        return True
    if value in {"false", "0", "no", "off"}:
        return False
    raise ValueError(f"not a boolean: {text!r}")


_PARSERS: Final[dict[str, Callable[[str], Any]]] = {
    "address": str,
    "port": int,
    "metrics_address": str,
    "metrics_port": int,
    "workers": int,
    "threads": int,
    "max_message_bytes": int,
    "grace_seconds": float,
    "drain_seconds": float,
    "log_level": str.upper,
    "tls_cert": str,
    "tls_key": str,
    "tls_client_ca": str,
    "auth_token_file": str,
    "auth_token": str,
    "max_concurrent_rpcs": int,
    "body_first": _boolean,
    "max_request_seconds": float,
    "worker_restarts": int,
    "max_connection_age_seconds": float,
    "keepalive_time_seconds": float,
    "keepalive_timeout_seconds": float,
    "min_client_ping_seconds": float,
    "max_connection_idle_seconds": float,
    "health_port": int,
}


def env_name(field: str) -> str:
    """The environment variable of a setting: ``port`` -> ``TRACTOR_RULES_PORT``."""
    return ENV_PREFIX + field.upper()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add one ``--flag`` per setting; unset flags fall back to the environment, then the default."""
    for item in fields(ServerConfig):
        if item.metadata.get(ENV_ONLY):
            continue
        flag = "--" + item.name.replace("_", "-")
        parser.add_argument(
            flag,
            dest=item.name,
            type=_PARSERS[item.name],
            default=None,
            help=f"(env {env_name(item.name)}, default {item.default!r})",
        )


def load(args: argparse.Namespace | None = None, env: Mapping[str, str] | None = None) -> ServerConfig:
    """Build the configuration: a flag wins over its environment variable, which wins over the default.

    Raises ValueError naming the setting when a value does not parse or is out of range.
    """
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    for item in fields(ServerConfig):
        flag_value = getattr(args, item.name, None) if args is not None else None
        if flag_value is not None:
            values[item.name] = flag_value
            continue
        raw = env.get(env_name(item.name))
        if raw is None or raw == "":
            continue
        try:
            values[item.name] = _PARSERS[item.name](raw)
        except ValueError:
            raise ValueError(f"{env_name(item.name)}={raw!r} is not a valid {item.name}") from None
    return ServerConfig(**values)


def parse(argv: Sequence[str], env: Mapping[str, str] | None = None) -> ServerConfig:
    """Parse ``serve`` flags alone (used by tests and by the CLI)."""
    parser = argparse.ArgumentParser(prog="tractor-rules serve", allow_abbrev=False)
    add_arguments(parser)
    return load(parser.parse_args(list(argv)), env)
