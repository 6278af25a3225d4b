"""Container health check: ask the local server's grpc.health.v1 service; exit 0 when it is SERVING.

Docker and Compose run it from the image's HEALTHCHECK (Kubernetes uses its native gRPC probes
instead). It reads the port the server reads (``TRACTOR_RULES_PORT``, default 50051), so one image
setting moves both. NOT_SERVING (draining after SIGTERM), no answer in time, or no server all exit 1.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

DEFAULT_PORT = 50051
TIMEOUT_SECONDS = 2.0


def check(target: str, service: str = "", timeout: float = TIMEOUT_SECONDS) -> bool:
    """Whether ``target`` reports ``service`` ("" = the whole server) as SERVING within ``timeout``."""
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=timeout)
        except grpc.RpcError:
            return False
    return bool(reply.status == health_pb2.HealthCheckResponse.SERVING)


def main(argv: Sequence[str] | None = None) -> int:
    """``healthcheck.py [TARGET [SERVICE]]``: 0 when SERVING, 1 otherwise (Docker's convention)."""
    args = list(sys.argv[1:] if argv is None else argv)
    port = os.environ.get("TRACTOR_RULES_PORT") or str(DEFAULT_PORT)
    target = args[0] if args else f"127.0.0.1:{port}"
    service = args[1] if len(args) > 1 else ""
    return 0 if check(target, service) else 1


if __name__ == "__main__":
    sys.exit(main())
