# mypy: disable-error-code="untyped-decorator,no-untyped-call"
# (Locust's event hooks and shape base class are unannotated.)
"""Locust scenarios: simulated tables of each game frontend, replaying whole hands from the corpus.

Run: ``locust -f loadtest/locustfile.py --headless -u 20 -r 10 -t 60s --host 127.0.0.1:50051`` (add
``loadtest/shapes.py`` to ``-f`` for the step load; ``make loadtest`` does all of it). Every user is one
table: it plays its hands in order, call after call, waiting a think time between calls. The traffic mix
is whatever the hands contain (about 95 ValidatePlay, 22 ResolveTrick, 1 SettleHand and 1 AuditHand
per hand), so it follows the frontends rather than a weight table.

Extra options (flags or environment variables):

* ``--think-time SECONDS`` (``LOADTEST_THINK_TIME``, default 0.1): mean pause between a table's calls,
  drawn uniformly from 0.5x to 1.5x. Humans take seconds; the default compresses time so that a few
  hundred users make a load test.
* ``--max-fail-ratio RATIO`` (``LOADTEST_MAX_FAIL_RATIO``, default 0.05): stop the whole run early when
  this share of calls has failed (a broken build should not burn the full run time).
* ``--stop-after METHOD=N,...`` (``LOADTEST_STOP_AFTER``, default none): stop the run as soon as every
  named method has been called at least N times (``-t`` still bounds it). A smoke test then asks for
  the traffic it checks, not for a time: a slow machine runs longer, a fast one stops sooner.
* ``--grpc-connections N`` (``LOADTEST_GRPC_CONNECTIONS``, default 4): connections per Locust process,
  shared by its tables (see ``loadtest.grpc_user``).
* ``LOADTEST_CORPUS``: a directory with another corpus (see ``loadtest.replay``).
"""

from __future__ import annotations

from loadtest.grpc_user import GrpcUser  # first: gevent and grpc are set up there

# isort: split
import argparse
import functools
import json
import logging
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar, Final

import gevent  # type: ignore[import-untyped]  # gevent ships no stubs
from locust import events, task
from locust.env import Environment
from locust.runners import WorkerRunner

from loadtest.replay import Call, Script, batched, corpus_path, cycle_from, read

DEFAULT_THINK_TIME: Final = 0.1
DEFAULT_MAX_FAIL_RATIO: Final = 0.05
FAIL_CHECK_SECONDS: Final = 1.0
GOAL_CHECK_SECONDS: Final = 0.2
"""How often ``--stop-after`` looks at the counts."""
MIN_REQUESTS_FOR_RATIO: Final = 50
"""Requests before the fail ratio is trusted (one early failure is not a 100% ratio)."""

_log = logging.getLogger("loadtest")


@events.init_command_line_parser.add_listener
def _add_options(parser: Any) -> None:
    """Register this module's options with Locust's parser (flags, environment variables, web UI)."""
    parser.add_argument(
        "--think-time",
        type=float,
        default=DEFAULT_THINK_TIME,
        env_var="LOADTEST_THINK_TIME",
        help="mean seconds a table waits between its calls (uniform 0.5x..1.5x)",
    )
    parser.add_argument(
        "--stop-after",
        type=call_goals,
        default={},
        env_var="LOADTEST_STOP_AFTER",
        help="METHOD=N,...: stop once every named method has been called N times (-t still bounds it)",
    )
    parser.add_argument(
        "--max-fail-ratio",
        type=float,
        default=DEFAULT_MAX_FAIL_RATIO,
        env_var="LOADTEST_MAX_FAIL_RATIO",
        help="stop the run when this share of calls failed",
    )


def call_goals(text: str) -> dict[str, int]:
    """``--stop-after``'s value: ``"ValidatePlay=20,ResolveTrick=5"`` → {method: calls}.

    >>> call_goals("ValidatePlay=20, ResolveTrick=5")
    {'ValidatePlay': 20, 'ResolveTrick': 5}
    >>> call_goals("")
    {}
    >>> call_goals("ValidatePlay")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: 'ValidatePlay': want METHOD=N with N >= 1
    """
    goals: dict[str, int] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        method, _, count = item.partition("=")
        if not method or not count.isdigit() or int(count) < 1:
            raise argparse.ArgumentTypeError(f"{item!r}: want METHOD=N with N >= 1")
        goals[method.strip()] = int(count)
    return goals


@events.init.add_listener
def _stop_after_calls(environment: Environment, **_kwargs: Any) -> None:
    """Stop the run once every method of ``--stop-after`` has been called its number of times (the exit
    status stays Locust's: 1 when any call failed); on master/local only."""
    runner = environment.runner
    options = environment.parsed_options
    if runner is None or isinstance(runner, WorkerRunner) or options is None or not options.stop_after:
        return
    goals: dict[str, int] = options.stop_after

    def watch() -> None:
        while True:
            gevent.sleep(GOAL_CHECK_SECONDS)
            calls = {entry.name: entry.num_requests for entry in runner.stats.entries.values()}
            if all(calls.get(method, 0) >= count for method, count in goals.items()):
                _log.info("every method of --stop-after reached its calls: stopping the run")
                runner.quit()
                return

    gevent.spawn(watch)


@events.init.add_listener
def _stop_on_fail_ratio(environment: Environment, **_kwargs: Any) -> None:
    """Stop the run (exit code 1) once the fail ratio crosses ``--max-fail-ratio``; on master/local only."""
    runner = environment.runner
    if runner is None or isinstance(runner, WorkerRunner):
        return
    options = environment.parsed_options
    limit = options.max_fail_ratio if options is not None else DEFAULT_MAX_FAIL_RATIO

    def watch() -> None:
        while True:
            gevent.sleep(FAIL_CHECK_SECONDS)
            total = runner.stats.total
            if total.num_requests >= MIN_REQUESTS_FOR_RATIO and total.fail_ratio > limit:
                _log.error("fail ratio %.3f is above %.3f: stopping the run", total.fail_ratio, limit)
                environment.process_exit_code = 1
                runner.quit()
                return

    gevent.spawn(watch)


@events.quitting.add_listener
def _write_summary(environment: Environment, **_kwargs: Any) -> None:
    """Write ``<--csv>_summary.json`` with the exact final totals (Locust's CSVs lag up to a second)."""
    runner, options = environment.runner, environment.parsed_options
    if runner is None or isinstance(runner, WorkerRunner) or options is None or not options.csv_prefix:
        return
    stats = runner.stats

    def entry(item: Any) -> dict[str, Any]:
        return {
            "requests": item.num_requests,
            "failures": item.num_failures,
            "rps": round(item.total_rps, 1),
            "p50_ms": item.get_response_time_percentile(0.5),
            "p99_ms": item.get_response_time_percentile(0.99),
        }

    summary = {
        **entry(stats.total),
        "methods": {item.name: entry(item) for item in stats.entries.values()},
        "errors": [
            {"method": error.name, "error": str(error.error), "occurrences": error.occurrences}
            for error in stats.errors.values()
        ],
    }
    Path(f"{options.csv_prefix}_summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")


@functools.cache
def corpus(kind: str) -> list[Script]:
    """A corpus file, read once per process (workers forked by ``--processes`` each read their own)."""
    return read(corpus_path(kind))


def think_time(user: TableUser) -> float:
    """A table's pause before its next call."""
    options = user.environment.parsed_options
    mean = options.think_time if options is not None else DEFAULT_THINK_TIME
    return random.uniform(0.5 * mean, 1.5 * mean)


class TableUser(GrpcUser):
    """One table of a frontend: plays the corpus hands of its ``kind`` in order, one call per task."""

    abstract = True
    kind: ClassVar[str]
    wait_time = think_time

    def on_start(self) -> None:
        """Start at a random hand so that tables do not move in lockstep."""
        scripts = corpus(self.kind)
        self._hands = cycle_from(scripts, random.randrange(len(scripts)))
        self._calls: Iterator[Call] = iter(())

    @task
    def next_call(self) -> None:
        """The table's next call: the rest of this hand, then the next hand."""
        call = next(self._calls, None)
        if call is None:
            self._calls = iter(next(self._hands).calls)
            call = next(self._calls)
        self.send(call)


class Rulebook000Table(TableUser):
    """The [000] Rushi / [001] Lenovo frontend: no coins, trusts its own play checks in ResolveTrick."""

    weight = 5
    kind = "000"


class Rulebook003Table(TableUser):
    """The [003] Star Tractor frontend: Tao Dou stakes, forced-quit penalties, re-checked tricks."""

    weight = 4
    kind = "003"


class FriendsTable(TableUser):
    """Another table (R14, R15): three decks, six seats, finding friends; the bury, tuple leads, follows
    and ruffs, each trick with the friend calls and the tricks before it, and a per-seat settlement."""

    weight = 2
    kind = "friends"


class StressThrows(TableUser):
    """Worst cases: long trump throws of pairs and tractors, followed by hands full of pairs."""

    weight = 1
    kind = "stress"


BATCH_ITEMS: Final = 32
"""Plays per ValidatePlays call of a multiplexing backend."""


@functools.cache
def batches(size: int) -> list[Script]:
    """Every table's ValidatePlay calls, both frontends, gathered ``size`` per ValidatePlays call."""
    calls = [call for kind in ("000", "003") for script in corpus(kind) for call in script.calls]
    return [Script(f"batch/{i}", (call,)) for i, call in enumerate(batched(calls, "ValidatePlay", size))]


class BatchingBackend(GrpcUser):
    """A game backend that serves many tables and sends their plays in ValidatePlays batches of 32, each
    item checked against the rules' answer (``results.<i>.response.*``)."""

    weight = 1
    wait_time = think_time

    def on_start(self) -> None:
        """Start at a random batch so that backends do not move in lockstep."""
        scripts = batches(BATCH_ITEMS)
        self._batches = cycle_from(scripts, random.randrange(len(scripts)))

    @task
    def next_batch(self) -> None:
        """The next batch of plays."""
        self.send(next(self._batches).calls[0])
