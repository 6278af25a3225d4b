"""gRPC core's own log lines never reach stderr as unthrottled prose: ``tractor-rules serve`` runs gRPC
core silent (``GRPC_VERBOSITY=NONE``) unless the operator asks for its lines, so a client flooding a TLS
port with plaintext connection attempts (one core error line each) leaves only the service's JSON.
"""

from __future__ import annotations

import contextlib
import socket
import time
from pathlib import Path

import tlscerts

from loadtest.server import ServerProcess

ATTEMPTS = 1000


def _plaintext_attempts(port: int, count: int) -> None:
    """What a client without TLS sends first: the HTTP/2 preface, which no TLS handshake accepts."""
    for _ in range(count):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
            with contextlib.suppress(OSError):
                sock.recv(1024)


def _flood(tmp_path: Path, certs: tlscerts.Certificates, env: dict[str, str]) -> ServerProcess:
    flags = ["--workers", "1", "--tls-cert", str(certs.server.cert), "--tls-key", str(certs.server.key)]
    with ServerProcess(*flags, env=env, metrics_dir=tmp_path / "m") as server:
        _plaintext_attempts(server.port, ATTEMPTS)
        time.sleep(0.5)
    return server


def test_plaintext_attempts_on_a_tls_port_leave_only_json(
    tmp_path: Path, certs: tlscerts.Certificates
) -> None:
    server = _flood(tmp_path, certs, {"GRPC_VERBOSITY": ""})  # unset, whatever the test runner has
    non_json = [entry["line"] for entry in server.log if entry.get("msg") == "non-json"]
    assert non_json == [], non_json[:5]
    assert len(server.log) < 50, len(server.log)  # start, stop: nothing per attempt
    assert server.logged("shut down")


def test_the_operator_can_turn_core_logs_on(tmp_path: Path, certs: tlscerts.Certificates) -> None:
    """The control, and how to debug a handshake: GRPC_VERBOSITY set explicitly is respected; then
    the same flood prints gRPC core's own lines (the handshake failures are INFO lines, one per attempt)."""
    server = _flood(tmp_path, certs, {"GRPC_VERBOSITY": "INFO"})
    non_json = [entry["line"] for entry in server.log if entry.get("msg") == "non-json"]
    assert len(non_json) >= ATTEMPTS // 2, len(non_json)
