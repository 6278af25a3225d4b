"""A port that another process serves is refused: SO_REUSEPORT works across every process of the same
user, so without the check a second ``tractor-rules serve`` started by mistake on a live port would log
"serving" and silently take half of the connections. Two real processes, on loopback."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from loadtest.server import ServerProcess, run_serve


def _entries(stderr: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stderr.splitlines() if line.strip()]


def _refused(stderr: str) -> dict[str, Any]:
    (entry,) = [entry for entry in _entries(stderr) if entry["msg"] == "cannot bind"]
    assert entry["level"] == "error"
    return entry


def _serving(stderr: str) -> list[dict[str, Any]]:
    return [entry for entry in _entries(stderr) if entry["msg"] == "serving"]


def test_a_second_server_on_a_served_port_refuses_to_start(tmp_path: Path) -> None:
    with ServerProcess("--workers", "2", metrics_dir=tmp_path / "first") as first:
        second = run_serve(
            *("--address", "127.0.0.1", "--port", str(first.port), "--metrics-port", "-1"),
            metrics_dir=tmp_path / "second",
        )
        assert second.returncode == 1, second.stderr
        entry = _refused(second.stderr)
        assert entry["port"] == first.port and "already served by another process" in entry["reason"]
        assert not _serving(second.stderr)
        assert len(first.workers()) == 2 and first.proc.poll() is None  # the first one is untouched
        with grpc.insecure_channel(first.target) as channel:
            reply = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_a_served_health_port_is_refused_too(tmp_path: Path) -> None:
    with ServerProcess("--workers", "1", "--health-port", "0", metrics_dir=tmp_path / "first") as first:
        health_port = int(first.serving["health_port"])
        second = run_serve(
            *("--address", "127.0.0.1", "--port", "0", "--metrics-port", "-1"),
            *("--health-port", str(health_port)),
            metrics_dir=tmp_path / "second",
        )
    assert second.returncode == 1, second.stderr
    entry = _refused(second.stderr)
    assert entry["health_port"] == health_port and "already served" in entry["reason"]


def test_a_port_held_by_a_plain_listener_is_refused(tmp_path: Path) -> None:
    """Any listener counts, not only another tractor-rules (this one sets neither reuse option)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        second = run_serve(
            "--address", "127.0.0.1", "--port", str(port), "--metrics-port", "-1", metrics_dir=tmp_path
        )
    assert second.returncode == 1, second.stderr
    assert _refused(second.stderr)["port"] == port


def test_the_port_is_free_again_once_its_server_has_stopped(tmp_path: Path) -> None:
    """A restart on the same port (connections of the old server left in TIME_WAIT) is not refused."""
    with ServerProcess("--workers", "1", metrics_dir=tmp_path / "first") as first:
        port = first.port
        with grpc.insecure_channel(first.target) as channel:
            health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert first.stop(30) == 0
    with ServerProcess("--workers", "1", "--port", str(port), metrics_dir=tmp_path / "second") as again:
        assert again.port == port
