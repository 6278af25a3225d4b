"""``--max-concurrent-rpcs`` holds whether or not the body-first deferral runs (services.grpc_private).

On the grpcio its private API was checked on, the pool reads bodies first and refuses calls past the
limit itself (with an ErrorInfo); with the deferral off (``--body-first false``, or any other grpcio) the
server warns at start, shows ``tractor_rules_body_first_deferral 0``, and hands the limit to gRPC's own
``maximum_concurrent_rpcs``. Either way, stalled calls count against the limit and the next call is
refused at once.
"""

from __future__ import annotations

import urllib.request

import grpc
import pytest

from loadtest import corpus
from loadtest.server import ServerProcess
from loadtest.stall import Stall
from services import grpc_private
from tractor.rules.client import RulesError
from tractor.rules.v1 import rules_service_pb2 as pb
from tractor.rules.v1 import rules_service_pb2_grpc

LIMIT = 4
GAUGE = "tractor_rules_body_first_deferral"
WARNING = (
    "body-first deferral off: a stalled client holds a thread; gRPC's maximum_concurrent_rpcs limits calls"
)


def gauge(server: ServerProcess) -> float:
    with urllib.request.urlopen(server.metrics_url, timeout=5) as response:
        text = response.read().decode()
    return next(float(line.split()[-1]) for line in text.splitlines() if line.startswith(GAUGE + " "))


def test_only_the_checked_grpcio_runs_the_deferral() -> None:
    assert grpc_private.available(grpc_private.CHECKED_AGAINST) == (True, "")
    supported, why = grpc_private.available("1.99.0")
    assert not supported and "1.99.0" in why


@pytest.mark.parametrize("body_first", ["true", "false"])
def test_calls_past_the_limit_are_refused_with_the_deferral_on_or_off(body_first: str) -> None:
    deferred = body_first == "true"
    flags = ("--workers", "1", "--threads", "8", "--max-concurrent-rpcs", str(LIMIT))
    with ServerProcess(*flags, "--body-first", body_first, "--max-request-seconds", "30") as server:
        warned = server.logged(WARNING)
        assert bool(warned) is not deferred, warned
        assert gauge(server) == (1.0 if deferred else 0.0)
        attack = Stall("127.0.0.1", server.port, connections=1, streams=LIMIT)
        attack.start()
        try:
            assert attack.opened == LIMIT
            with grpc.insecure_channel(server.target) as channel:
                error = refusal(rules_service_pb2_grpc.RulesServiceStub(channel))
        finally:
            attack.stop()
        assert error.code() is grpc.StatusCode.RESOURCE_EXHAUSTED, error
        # the pool's own refusal carries the service's ErrorInfo; gRPC's carries none
        assert error.reason == ("TOO_MANY_CALLS" if deferred else "")


def refusal(rules: rules_service_pb2_grpc.RulesServiceStub) -> RulesError:
    """The first error of valid calls made while the stalled streams are held (they reach the server's
    count within moments of being opened, so a few tries at most succeed)."""
    play = next(
        pb.ValidatePlayRequest.FromString(call.request)
        for call in corpus.self_play(1, first_seed=3)[0].calls
        if call.method == "ValidatePlay"
    )
    for _ in range(100):
        try:
            rules.ValidatePlay(play, timeout=5)
        except grpc.RpcError as error:
            return RulesError.from_call(error)
    raise AssertionError("100 calls past the limit were all answered")
