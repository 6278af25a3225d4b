"""Who may call: TLS or mutual TLS on the port, and an optional bearer token checked by an interceptor.

* TLS (``tls_cert`` + ``tls_key``) encrypts the port; mutual TLS (plus ``tls_client_ca``) refuses in the
  handshake every client without a certificate signed by that CA, before any RPC exists.
* A bearer token (``auth_token_file`` or ``TRACTOR_RULES_AUTH_TOKEN``) is for deployments without mTLS:
  every RPC must carry ``authorization: Bearer <token>``, or it ends UNAUTHENTICATED before its request
  is even decoded. Health checks stay open, so load balancers and orchestrators can probe without one.
* Plaintext without a token is the local default; the supervisor logs a WARNING when it serves that way.

:func:`check` reads and checks the files in the parent, before any worker is forked, so a bad path or
a key that does not match its certificate is a clean start-up error (stdlib ``ssl``: no gRPC object
exists before the fork). Each worker reads the files again when it starts, so a replaced worker picks
up rotated certificates and tokens.
"""

from __future__ import annotations

import functools
import hmac
import logging
import ssl
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

import grpc
from grpc_health.v1 import health

from services import logs
from services.config import ServerConfig, env_name

OPEN_SERVICES: Final = (f"/{health.SERVICE_NAME}/",)
"""Method prefixes callable without a token: the standard health service (``Check``, ``Watch``)."""
BEARER: Final = "bearer "
MIN_TOKEN_LENGTH: Final = 16
"""Shorter tokens are refused at start-up: they can be guessed."""

_log = logs.get("auth")


def _read(path: str, setting: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"{env_name(setting)}: cannot read {path!r}: {error.strerror or error}") from None


def tokens(config: ServerConfig) -> tuple[bytes, ...]:
    """The accepted bearer tokens (empty: no authentication). Raises ValueError for unusable ones."""
    if config.auth_token:
        found = [config.auth_token.strip()]
        setting = "auth_token"
    elif config.auth_token_file:
        text = _read(config.auth_token_file, "auth_token_file").decode("utf-8", errors="strict")
        found = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]
        setting = "auth_token_file"
        if not found:
            raise ValueError(f"{env_name(setting)}: {config.auth_token_file!r} holds no token")
    else:
        return ()
    for token in found:
        if len(token) < MIN_TOKEN_LENGTH or not token.isascii() or any(c.isspace() for c in token):
            raise ValueError(
                f"{env_name(setting)}: a token is {MIN_TOKEN_LENGTH}+ printable ASCII characters, no spaces"
            )
    return tuple(token.encode() for token in found)


def tls_material(config: ServerConfig) -> tuple[bytes, bytes, bytes | None] | None:
    """(certificate chain, private key, client CA or None) as PEM bytes; None when serving plaintext."""
    if not config.tls_cert:
        return None
    cert = _read(config.tls_cert, "tls_cert")
    key = _read(config.tls_key, "tls_key")
    client_ca = _read(config.tls_client_ca, "tls_client_ca") if config.tls_client_ca else None
    return cert, key, client_ca


def check(config: ServerConfig) -> None:
    """Read every security file and check it with stdlib ``ssl``: ValueError naming the setting if not."""
    tokens(config)
    if not config.tls_cert:
        return
    tls_material(config)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(config.tls_cert, config.tls_key)
    except (ssl.SSLError, OSError) as error:
        raise ValueError(
            f"{env_name('tls_cert')}/{env_name('tls_key')}: not a PEM certificate chain and its key ({error})"
        ) from None
    if config.tls_client_ca:
        try:
            context.load_verify_locations(cafile=config.tls_client_ca)
        except (ssl.SSLError, OSError) as error:
            raise ValueError(f"{env_name('tls_client_ca')}: not a PEM CA bundle ({error})") from None


def server_credentials(config: ServerConfig) -> Any | None:
    """``grpc.ssl_server_credentials`` for the configured files; None for plaintext."""
    material = tls_material(config)
    if material is None:
        return None
    cert, key, client_ca = material
    return grpc.ssl_server_credentials(
        [(key, cert)], root_certificates=client_ca, require_client_auth=client_ca is not None
    )


def describe(config: ServerConfig) -> dict[str, str]:
    """Log fields saying how the port is protected (never a secret)."""
    return {"transport": config.transport, "auth": "bearer" if config.authenticates else "none"}


def _kind(handler: Any) -> str:
    """Which of the four RPC kinds a handler serves (unary for an unknown method)."""
    if handler is None or handler.unary_unary is not None:
        return "unary_unary"
    if handler.unary_stream is not None:
        return "unary_stream"
    return "stream_unary" if handler.stream_unary is not None else "stream_stream"


@functools.cache
def _refusal(kind: str, problem: str) -> Any:
    """A handler of ``kind`` that ends the call UNAUTHENTICATED with an ErrorInfo saying why.

    Its request is never decoded (identity deserializer): an unauthenticated caller costs no parsing.
    One handler per kind and problem (a handful), so the error interceptor wraps each once.
    """
    # here, not at import: the CLI reads security before prometheus_client may be imported (services.cli)
    from services.interceptor import unauthenticated_status  # noqa: PLC0415

    status = unauthenticated_status(problem)

    def abort(_request: Any, context: Any) -> Any:
        context.abort_with_status(status)

    return getattr(grpc, f"{kind}_rpc_method_handler")(abort)


class BearerAuthInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]  # grpc is untyped
    """Ends every call without a valid ``authorization: Bearer <token>`` UNAUTHENTICATED (health aside).

    Tokens are compared in constant time; the reason a call was refused is logged, never the token.
    """

    def __init__(self, accepted: tuple[bytes, ...]) -> None:
        if not accepted:
            raise ValueError("a bearer interceptor needs at least one token")
        self._accepted = accepted
        self._throttle = logs.Throttle()

    def _problem(self, metadata: Any) -> str:
        """Why the call's metadata does not authenticate it, or "" when it does."""
        values = [value for key, value in metadata or () if key == "authorization"]
        if not values:
            return "missing authorization metadata"
        if len(values) > 1:
            return "more than one authorization header"
        value = values[0] if isinstance(values[0], str) else values[0].decode("latin-1")
        if value[: len(BEARER)].lower() != BEARER:
            return "authorization is not a Bearer token"
        presented = value[len(BEARER) :].strip().encode("latin-1", errors="replace")
        matched = False
        for token in self._accepted:  # compare with every token: timing says nothing about which
            matched |= hmac.compare_digest(presented, token)
        return "" if matched else "unknown bearer token"

    def intercept_service(self, continuation: Callable[[Any], Any], handler_call_details: Any) -> Any:
        """Pass authenticated calls and health checks on; refuse the rest."""
        method: str = handler_call_details.method or ""
        if method.startswith(OPEN_SERVICES):
            return continuation(handler_call_details)
        problem = self._problem(handler_call_details.invocation_metadata)
        handler = continuation(handler_call_details)
        if not problem:
            return handler
        # an unknown method is refused the same way, so a caller without a token learns nothing
        logs.throttled(
            _log,
            self._throttle,
            logging.WARNING,
            "unauthenticated",
            {"method": method, "code": "UNAUTHENTICATED", "reason": problem},
        )
        return _refusal(_kind(handler), problem)


def interceptors(config: ServerConfig) -> list[Any]:
    """The security interceptors the configuration asks for (the bearer check, or none)."""
    accepted = tokens(config)
    return [BearerAuthInterceptor(accepted)] if accepted else []
