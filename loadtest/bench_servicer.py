"""The service's own cost per call, without the network: ValidatePlay through the servicer in-process.

Prints the median µs per call for (a) decoding the request and encoding a response of the same size
(what any gRPC service pays, the baseline), and (b) the whole servicer: validation, the engine, metrics
and the response. The difference is what the rules service adds to the gRPC stack per call.
Run: ``.venv/bin/python -m loadtest.bench_servicer``.

:func:`mix_costs` splits a whole traffic mix the same way (``make bench`` prints it for the realistic
mix): the servicer per request, and the engine alone, by replaying the very ``rules_core`` calls the
servicer made.
"""

from __future__ import annotations

import contextlib
import inspect
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from google.protobuf import json_format
from prometheus_client import CollectorRegistry

from loadtest.contract import REQUESTS
from loadtest.stats import median_micros
from services import servicer as servicer_module
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


class StubContext:
    """The two things the servicer asks of a gRPC context."""

    def time_remaining(self) -> float:
        return 10.0

    def is_active(self) -> bool:
        return True


EngineCall = tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]


@contextlib.contextmanager
def recording(module: ModuleType) -> Iterator[list[EngineCall]]:
    """Record every call ``module`` makes to a ``rules_core`` function, with its arguments."""
    engine = {
        name: value
        for name, value in vars(module).items()
        # a compiled engine's functions are builtins, not Python functions
        if (inspect.isfunction(value) or inspect.isbuiltin(value))
        and value.__module__.startswith("rules_core.")
    }
    calls: list[EngineCall] = []

    def recorder(function: Callable[..., Any]) -> Callable[..., Any]:
        def record(*args: Any, **kwargs: Any) -> Any:
            calls.append((function, args, kwargs))
            return function(*args, **kwargs)

        return record

    for name, function in engine.items():
        setattr(module, name, recorder(function))
    try:
        yield calls
    finally:
        for name, function in engine.items():
            setattr(module, name, function)


@dataclass(frozen=True, slots=True)
class MixCost:
    """µs per request of one traffic mix, in-process, the best of a few passes."""

    servicer: float
    """Decode, the servicer (conversions, validation, rules, domain metrics), encode."""
    engine: float
    """The ``rules_core`` calls the servicer made, replayed alone (the engine's memo-free, pure)."""


def _best(passes: int, run: Callable[[], object]) -> float:
    """The least CPU time (this process's, so other processes' load does not count) of ``passes`` runs."""
    best = float("inf")
    for _ in range(passes):
        began = time.process_time()
        run()
        best = min(best, time.process_time() - began)
    return best


def mix_costs(calls: Sequence[tuple[str, bytes]], passes: int = 3) -> MixCost:
    """What each request of ``calls`` (method name, request bytes) costs without gRPC, and its engine part."""
    servicer = RulesServicer(Metrics(registry=CollectorRegistry()))
    handlers = [(REQUESTS[name].FromString, getattr(servicer, name), data) for name, data in calls]
    context: Any = StubContext()  # the two methods the servicer calls

    def serve() -> None:
        for decode, handle, data in handlers:
            handle(decode(data), context).SerializeToString()

    with recording(servicer_module) as engine_calls:
        serve()

    def replay() -> None:
        for function, args, kwargs in engine_calls:
            function(*args, **kwargs)

    per_request = 1e6 / len(calls)
    return MixCost(servicer=_best(passes, serve) * per_request, engine=_best(passes, replay) * per_request)


def main() -> None:
    servicer = RulesServicer(Metrics(registry=CollectorRegistry()))
    context: Any = StubContext()  # the two methods the servicer calls
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
