# mypy: disable-error-code="untyped-decorator,no-untyped-call"
# (Locust's event hooks and shape base class are unannotated.)
"""Step load: add tables in equal steps and measure each plateau, to find where latency breaks.

Add this file to ``-f`` (``-f loadtest/locustfile.py,loadtest/shapes.py``) to use it. The run lasts
``--run-time`` (default 60 s), cut into steps of ``--step-time`` seconds; step *i* runs ``i x
--step-users`` users. For each step the shape measures, from Locust's own statistics (so it works the
same under ``--processes`` and master/worker, where the master holds the merged numbers):

* the rate: requests per second over the step, after ``--step-settle`` seconds of ramp;
* p50 / p99 over the same window, from the difference of Locust's response-time histograms;
* the failures during the whole step.

The capacity is the highest rate of a step with no failure and a p99 under ``--slo-p99-ms`` (25 ms);
steps above it that miss show where latency breaks. At the end the table is logged and written to
``<--csv>_steps.csv``.
"""

from __future__ import annotations

import csv
import logging
import os
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from locust import LoadTestShape, events
from locust.runners import MasterRunner

from loadtest.server import SERVICE_PID_ENV, process_tree_cpu
from loadtest.stats import histogram_percentile

DEFAULT_RUN_TIME: Final = 60
DEFAULT_STEP_TIME: Final = 12.0
DEFAULT_STEP_USERS: Final = 120
DEFAULT_SETTLE: Final = 2.0
DEFAULT_SLO_P99_MS: Final = 25.0
DEFAULT_HAND_MINUTES: Final = 8.0
DEFAULT_CALLS_PER_HAND: Final = 120
MAX_SPAWN_RATE: Final = 100
"""Users started per second at most: Locust warns that faster ramps misbehave."""

_log = logging.getLogger("loadtest.shapes")


@events.init_command_line_parser.add_listener
def _add_options(parser: Any) -> None:
    """Register this module's options with Locust's parser (flags, environment variables, web UI)."""
    group = parser.add_argument_group("step load (loadtest/shapes.py)")
    group.add_argument("--step-time", type=float, default=DEFAULT_STEP_TIME, env_var="LOADTEST_STEP_TIME")
    group.add_argument("--step-users", type=int, default=DEFAULT_STEP_USERS, env_var="LOADTEST_STEP_USERS")
    group.add_argument("--step-settle", type=float, default=DEFAULT_SETTLE, env_var="LOADTEST_STEP_SETTLE")
    group.add_argument("--slo-p99-ms", type=float, default=DEFAULT_SLO_P99_MS, env_var="LOADTEST_SLO_P99_MS")
    group.add_argument(
        "--hand-minutes",
        type=float,
        default=DEFAULT_HAND_MINUTES,
        env_var="LOADTEST_HAND_MINUTES",
        help="real length of a hand, to turn the capacity into tables",
    )


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Locust's cumulative totals at one moment."""

    at: float
    requests: int
    failures: int
    times: Counter[int]
    """Response-time histogram: Locust's rounded milliseconds -> count."""
    locust_cpu: float | None
    """CPU seconds of this Locust process; None on a master, whose workers do the work."""
    service_cpu: float | None
    """CPU seconds of the service, when ``loadtest.run`` started it on this machine."""


@dataclass(frozen=True, slots=True)
class StepResult:
    """One plateau of the step load."""

    step: int
    users: int
    rps: float
    p50_ms: float
    p99_ms: float
    requests: int
    failures: int
    locust_cpu: float | None
    """Share of one core the Locust process used during the step (None on a master)."""
    service_cpu: float | None
    """Share of one core the service used during the step (None when unknown)."""

    COLUMNS: ClassVar[tuple[str, ...]] = (
        "step",
        "users",
        "rps",
        "p50_ms",
        "p99_ms",
        "requests",
        "failures",
        "locust_cpu",
        "service_cpu",
        "meets_slo",
    )

    def row(self, slo_p99_ms: float) -> tuple[object, ...]:
        """The step as a CSV row, in ``COLUMNS`` order."""
        service = "" if self.service_cpu is None else f"{self.service_cpu:.2f}"
        return (
            self.step,
            self.users,
            f"{self.rps:.1f}",
            self.p50_ms,
            self.p99_ms,
            self.requests,
            self.failures,
            "" if self.locust_cpu is None else f"{self.locust_cpu:.2f}",
            service,
            self.meets(slo_p99_ms),
        )

    def meets(self, slo_p99_ms: float) -> bool:
        """Zero failures, p99 under the objective, and traffic to judge."""
        return self.failures == 0 and self.requests > 0 and self.p99_ms < slo_p99_ms


class StepLoad(LoadTestShape):
    """``--step-users`` more users every ``--step-time`` seconds for ``--run-time``; per-step results."""

    use_common_options: ClassVar[bool] = True  # read --run-time

    def __init__(self) -> None:
        super().__init__()
        self.results: list[StepResult] = []
        self._step = -1
        self._start: Snapshot | None = None
        self._settled: Snapshot | None = None

    def _option(self, name: str, default: Any) -> Any:
        options = self.runner.environment.parsed_options if self.runner else None
        value = getattr(options, name, None) if options is not None else None
        return default if value is None else value

    def _snapshot(self) -> Snapshot:
        """Locust's totals and both sides' CPU now."""
        assert self.runner is not None
        total = self.runner.stats.total
        pid = os.environ.get(SERVICE_PID_ENV)
        return Snapshot(
            at=time.perf_counter(),
            requests=total.num_requests,
            failures=total.num_failures,
            times=Counter(total.response_times),
            locust_cpu=None if isinstance(self.runner, MasterRunner) else time.process_time(),
            service_cpu=process_tree_cpu(int(pid)) if pid else None,
        )

    def tick(self) -> tuple[int, float] | None:
        """Users for now; closes a step's measurement when the next one starts, None at the end."""
        run_time = float(self._option("run_time", DEFAULT_RUN_TIME))
        step_time = float(self._option("step_time", DEFAULT_STEP_TIME))
        step_users = int(self._option("step_users", DEFAULT_STEP_USERS))
        settle = float(self._option("step_settle", DEFAULT_SETTLE))
        elapsed = self.get_run_time()
        steps = max(int(run_time // step_time), 1)
        step = min(int(elapsed // step_time), steps)
        if step != self._step:
            self._close_step()
            if step >= steps or elapsed >= run_time:
                self._report()
                return None
            self._step, self._start, self._settled = step, self._snapshot(), None
        if self._settled is None and elapsed - step * step_time >= settle:
            self._settled = self._snapshot()
        return (step + 1) * step_users, float(min(step_users, MAX_SPAWN_RATE))

    def _close_step(self) -> None:
        """Measure the step that just ended, from its settled snapshot to now."""
        if self._start is None or self._settled is None:
            return
        end = self._snapshot()
        window = end.times - self._settled.times
        seconds = max(end.at - self._settled.at, 1e-9)
        self.results.append(
            StepResult(
                step=self._step + 1,
                users=(self._step + 1) * int(self._option("step_users", DEFAULT_STEP_USERS)),
                rps=(end.requests - self._settled.requests) / seconds,
                p50_ms=histogram_percentile(window, 0.50),
                p99_ms=histogram_percentile(window, 0.99),
                requests=end.requests - self._settled.requests,
                failures=end.failures - self._start.failures,
                locust_cpu=(
                    (end.locust_cpu - self._settled.locust_cpu) / seconds
                    if end.locust_cpu is not None and self._settled.locust_cpu is not None
                    else None
                ),
                service_cpu=(
                    (end.service_cpu - self._settled.service_cpu) / seconds
                    if end.service_cpu is not None and self._settled.service_cpu is not None
                    else None
                ),
            )
        )

    def capacity(self) -> StepResult | None:
        """The step with the highest rate that met the objective (None if none did).

        The highest, not the last before the first miss: on a shared machine a stall of the host can
        spoil one low step, and the issue asks for the highest rate the service sustained.
        """
        slo = float(self._option("slo_p99_ms", DEFAULT_SLO_P99_MS))
        passed = [result for result in self.results if result.meets(slo)]
        return max(passed, key=lambda result: result.rps) if passed else None

    def _report(self) -> None:
        """Log the step table and the capacity; write ``<--csv>_steps.csv``."""
        slo = float(self._option("slo_p99_ms", DEFAULT_SLO_P99_MS))
        lines = [
            f"{'step':>4} {'users':>6} {'req/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'fails':>6} "
            f"{'Locust CPU':>10} {'service CPU':>11}  SLO"
        ]
        for r in self.results:
            verdict = "ok" if r.meets(slo) else "MISSED"
            service = f"{r.service_cpu:>11.0%}" if r.service_cpu is not None else f"{'n/a':>11}"
            locust = f"{r.locust_cpu:>10.0%}" if r.locust_cpu is not None else f"{'n/a':>10}"
            lines.append(
                f"{r.step:>4} {r.users:>6} {r.rps:>8.0f} {r.p50_ms:>7.0f} {r.p99_ms:>7.0f} "
                f"{r.failures:>6} {locust} {service}  {verdict}"
            )
        best = self.capacity()
        if best is None:
            lines.append(f"capacity: no step met zero failures and p99 < {slo:g} ms")
        else:
            hand_seconds = float(self._option("hand_minutes", DEFAULT_HAND_MINUTES)) * 60
            tables = best.rps * hand_seconds / DEFAULT_CALLS_PER_HAND
            lines.append(
                f"capacity: {best.rps:.0f} req/s sustained (step {best.step}, p99 {best.p99_ms:.0f} ms, "
                f"0 failures) ~ {tables:,.0f} tables at {DEFAULT_CALLS_PER_HAND} calls per "
                f"{hand_seconds / 60:g}-minute hand"
            )
            above = [r for r in self.results if r.step > best.step]
            below = [r for r in self.results if r.step < best.step and not r.meets(slo)]
            if above:
                lines.append(f"latency breaks above it: step {above[0].step} ({above[0].rps:.0f} req/s)")
            else:
                lines.append("no step above it missed the objective: the capacity is at least this")
            if below:
                steps = ", ".join(str(r.step) for r in below)
                lines.append(f"missed below the capacity (transient stalls; see README): step {steps}")
        _log.info("step load results\n%s", "\n".join(lines))
        prefix = self._option("csv_prefix", None)
        if prefix:
            with open(f"{prefix}_steps.csv", "w", newline="", encoding="utf-8") as out:
                writer = csv.writer(out)
                writer.writerow(StepResult.COLUMNS)
                writer.writerows(r.row(slo) for r in self.results)
