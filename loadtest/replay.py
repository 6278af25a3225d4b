"""The corpus as the load generators read it: scripted calls, each with the answer it must get.

Deliberately free of rules_core: Locust and the bench only replay serialized requests and compare a few
response fields with the answers ``loadtest.corpus`` computed offline, so the load generator spends its
CPU on load, not on rules.

A corpus file is gzip'd JSON lines, one *script* per line: ``{"name": ..., "calls": [[method,
base64 request, expect], ...]}``. ``expect`` maps a field path of the response to its value:

* ``a.b`` walks nested messages, an integer segment (``verdicts.-1``) indexes a repeated field;
* enum fields compare by number, repeated scalars as lists;
* a trailing ``~`` (``throw_outcome.led~``) compares a card list as a multiset, since the contract says
  card order never matters.
"""

from __future__ import annotations

import base64
import gzip
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from google.protobuf.message import Message

from loadtest.contract import REQUESTS, RESPONSES

CORPUS_DIR: Final = Path(__file__).resolve().parent / "corpus"
CORPUS_ENV: Final = "LOADTEST_CORPUS"
"""Environment variable naming another corpus directory (the smoke test points it at its own)."""
KINDS: Final = ("000", "003", "stress", "friends")
"""The corpus files: the [000]/[001] frontend's tables, the [003] frontend's tables, worst-case throws,
and a three-deck, six-seat finding-friends table (R14, R15; ``loadtest.table_corpus``)."""
MULTISET: Final = "~"


@dataclass(frozen=True, slots=True)
class Call:
    """One request as sent, and the response fields it must come back with."""

    method: str
    request: bytes
    expect: Mapping[str, Any]

    def message(self) -> Message:
        """The request decoded (a fresh message each time, free to change)."""
        return REQUESTS[self.method].FromString(self.request)


@dataclass(frozen=True, slots=True)
class Script:
    """What one table sends for one hand (or one stress position), in order."""

    name: str
    calls: tuple[Call, ...]


class VerdictMismatchError(AssertionError):
    """The service answered, but not what the rules say: reported to Locust as a failure."""


def corpus_dir() -> Path:
    """The corpus directory: ``$LOADTEST_CORPUS`` when set, else ``loadtest/corpus``."""
    return Path(os.environ.get(CORPUS_ENV) or CORPUS_DIR)


def corpus_path(kind: str, directory: Path | None = None) -> Path:
    """The file of one corpus kind (``000``, ``003``, ``stress`` or ``friends``)."""
    if kind not in KINDS:
        raise ValueError(f"unknown corpus kind {kind!r}; one of {', '.join(KINDS)}")
    return (directory or corpus_dir()) / f"{kind}.jsonl.gz"


def write(path: Path, scripts: Iterable[Script]) -> int:
    """Write scripts to ``path`` (gzip'd JSON lines, reproducible bytes); the number of calls written."""
    calls = 0
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        for script in scripts:
            line = {
                "name": script.name,
                "calls": [
                    [call.method, base64.b64encode(call.request).decode("ascii"), dict(call.expect)]
                    for call in script.calls
                ],
            }
            out.write(json.dumps(line, separators=(",", ":"), sort_keys=True).encode() + b"\n")
            calls += len(script.calls)
    return calls


def read(path: Path) -> list[Script]:
    """Every script of a corpus file. Raises FileNotFoundError with a hint when it was never generated."""
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing: run `make corpus` first")
    scripts = []
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            data = json.loads(line)
            calls = tuple(
                Call(method, base64.b64decode(request), expect) for method, request, expect in data["calls"]
            )
            for call in calls:
                if call.method not in RESPONSES:
                    raise ValueError(f"{path}: {data['name']} calls unknown method {call.method!r}")
            scripts.append(Script(data["name"], calls))
    if not scripts:
        raise ValueError(f"{path} holds no scripts")
    return scripts


def field(message: Message, path: str) -> Any:
    """The value at a dotted field path; repeated fields come back as lists.

    >>> from tractor.rules.v1 import rules_service_pb2 as pb
    >>> response = pb.ValidateDeclarationResponse(verdicts=[pb.DeclarationVerdict(rejection=3)])
    >>> field(response, "verdicts.-1.rejection")
    3
    """
    value: Any = message
    for segment in path.split("."):
        value = value[int(segment)] if segment.lstrip("-").isdigit() else getattr(value, segment)
    if not isinstance(value, Message) and hasattr(value, "__len__") and not isinstance(value, str | bytes):
        return list(value)
    return value


def check(method: str, response: Message, expect: Mapping[str, Any]) -> None:
    """Raise VerdictMismatchError at the first expected field the response gets wrong."""
    for key, wanted in expect.items():
        path = key.removesuffix(MULTISET)
        try:
            actual = field(response, path)
        except (AttributeError, IndexError) as error:
            raise VerdictMismatchError(f"no field {path} in the {method} response ({error})") from None
        expected = sorted(wanted) if key.endswith(MULTISET) else wanted
        if key.endswith(MULTISET):
            actual = sorted(actual)
        if actual != expected:
            raise VerdictMismatchError(f"{path} is {actual!r}, the rules say {expected!r}")


def batched(calls: Iterable[Call], method: str, size: int) -> list[Call]:
    """``method``'s calls of ``calls`` gathered ``size`` at a time into its batch RPC (``ValidatePlay`` ->
    ``ValidatePlays``), each item's expected fields kept under ``results.<i>.response.``: what a backend
    that multiplexes many tables sends. A last, partial batch is dropped."""
    plural = f"{method}s"
    if plural not in RESPONSES:
        raise ValueError(f"{method} has no batch RPC")
    items = [call for call in calls if call.method == method]
    request_type, batch_type = REQUESTS[method], REQUESTS[plural]
    batches = []
    for start in range(0, len(items) - size + 1, size):
        chunk = items[start : start + size]
        batch = batch_type(items=[request_type.FromString(call.request) for call in chunk])
        expect = {
            f"results.{i}.response.{key}": value
            for i, call in enumerate(chunk)
            for key, value in call.expect.items()
        }
        batches.append(Call(plural, batch.SerializeToString(deterministic=True), expect))
    return batches


def cycle_from(scripts: list[Script], start: int) -> Iterator[Script]:
    """Scripts in corpus order from ``start``, round and round: a table plays its hands in order."""
    index = start % len(scripts)
    while True:
        yield scripts[index]
        index = (index + 1) % len(scripts)
