"""The service's own cost per call, without the network: ValidatePlay through the servicer in-process.

Prints the median µs per call for (a) decoding the request and encoding a response of the same size
(what any gRPC service pays, the baseline), and (b) the whole servicer: validation, the engine, metrics
and the response. The difference is what the rules service adds to the gRPC stack per call.
Run: ``.venv/bin/python -m benchmarks.bench_servicer``.
"""

from __future__ import annotations

import statistics
import timeit
from collections.abc import Callable

from google.protobuf import json_format
from prometheus_client import CollectorRegistry

from services.metrics import Metrics
from services.servicer import RulesServicer
from tractor.rules.v1 import rules_service_pb2 as pb

HAND = [
    "SK",
    "SK",
    "SQ",
    "SQ",
    "S3",
    "S3",
    "H9",
    "HA",
    "D2",
    "D3",
    "D4",
    "D5",
    "D6",
    "D7",
    "D8",
    "D9",
    "C2",
    "C3",
    "C4",
    "C6",
    "C7",
    "C8",
    "C9",
    "BJ",
    "SJ",
]
REQUEST = json_format.ParseDict(
    {
        "level": "RANK_5",
        "contract": "CONTRACT_HEARTS",
        "seat": 1,
        "hand": [f"CARD_{card.upper()}" for card in HAND],
        "cards": ["CARD_SK", "CARD_SK", "CARD_SQ", "CARD_SQ"],
        "trick": {"leader": 0, "plays": [{"seat": 0, "cards": ["CARD_S9", "CARD_S9", "CARD_S8", "CARD_S8"]}]},
    },
    pb.ValidatePlayRequest(),
).SerializeToString()


class _Context:
    """The two things the servicer asks of a gRPC context."""

    def time_remaining(self) -> float:
        return 10.0

    def is_active(self) -> bool:
        return True


def median_micros(call: Callable[[], object]) -> float:
    timer = timeit.Timer(call)
    number, _ = timer.autorange()
    return statistics.median(t / number for t in timer.repeat(7, number)) * 1e6


def main() -> None:
    servicer = RulesServicer(Metrics(registry=CollectorRegistry()))
    context = _Context()
    answer = servicer.ValidatePlay(pb.ValidatePlayRequest.FromString(REQUEST), context).SerializeToString()

    def codec_only() -> bytes:
        pb.ValidatePlayRequest.FromString(REQUEST)
        return pb.ValidatePlayResponse.FromString(answer).SerializeToString()

    def servicer_call() -> bytes:
        request = pb.ValidatePlayRequest.FromString(REQUEST)
        return servicer.ValidatePlay(request, context).SerializeToString()

    base = median_micros(codec_only)
    whole = median_micros(servicer_call)
    print(f"decode + encode only (baseline): {base:6.1f} µs")
    print(f"ValidatePlay through the servicer: {whole:6.1f} µs  ({whole / base:.1f} × baseline)")
    print(f"the rules service adds:            {whole - base:6.1f} µs per call")


if __name__ == "__main__":
    main()
