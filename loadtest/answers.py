"""Every answer of the load corpus as one fingerprint: proof that a change left today's tables alone.

A change that extends the contract or the ruleset (house rules, more decks) must not move a single byte
of the answers to requests that set none of the new fields. This replays every call of the corpus files
(``make corpus``, or ``--corpus DIR``) through the servicer in process, the very code a worker runs,
and prints a SHA-256 per corpus file and RPC over the serialized responses (deterministic serialization) or,
for a refused request, its error's type, field and message.

Replay the same corpus files before and after a change, and compare::

    git stash; .venv/bin/python -m loadtest.answers > /tmp/before.txt; git stash pop
    .venv/bin/python -m loadtest.answers > /tmp/after.txt; diff /tmp/before.txt /tmp/after.txt

(or check out the old commit in a worktree and point both runs at the same ``--corpus``). The corpus
is generated from the code, so the comparison must replay one set of files, not regenerate it.
"""

from __future__ import annotations

import argparse
import hashlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry

from loadtest.bench_servicer import StubContext
from loadtest.replay import KINDS, Call, corpus_dir, corpus_path, read
from services.metrics import Metrics
from services.servicer import RulesServicer


def answer(servicer: RulesServicer, call: Call, context: Any) -> bytes:
    """The response's bytes, or a refusal's type and message (what the interceptor turns into a status)."""
    try:
        response = getattr(servicer, call.method)(call.message(), context)
    except Exception as error:  # every refusal is part of the answer being fingerprinted
        return f"!{type(error).__name__}:{error}".encode()
    data: bytes = response.SerializeToString(deterministic=True)
    return data


def fingerprints(calls: Iterable[Call]) -> dict[str, tuple[int, str]]:
    """Per RPC: how many calls, and the SHA-256 over each call's request and answer, in order."""
    servicer = RulesServicer(Metrics(registry=CollectorRegistry()))
    context: Any = StubContext()  # the two methods the servicer calls
    digests: dict[str, Any] = {}
    counts: dict[str, int] = {}
    for call in calls:
        digest = digests.setdefault(call.method, hashlib.sha256())
        for part in (call.request, answer(servicer, call, context)):
            digest.update(len(part).to_bytes(4, "big"))
            digest.update(part)
        counts[call.method] = counts.get(call.method, 0) + 1
    return {method: (counts[method], digests[method].hexdigest()) for method in sorted(digests)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=None, help="default: loadtest/corpus")
    args = parser.parse_args(argv)
    directory: Path = args.corpus or corpus_dir()
    for kind in KINDS:
        path = corpus_path(kind, directory)
        if not path.exists():
            print(f"{kind:8} (no {path.name})", flush=True)
            continue
        for method, (count, digest) in fingerprints(c for script in read(path) for c in script.calls).items():
            print(f"{kind:8} {method:20} {count:7} calls  sha256 {digest}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
