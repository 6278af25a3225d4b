"""``make loadtest``: start the service on a free loopback port, run Locust headless against it, stop both.

Everything stays on 127.0.0.1 and is bounded: Locust runs for ``--time`` and is killed if it overstays
(``--time`` plus a margin), the service is stopped whatever happens, and the exit status is non-zero on
any failed call, on a run that made no calls, or when the service died. Reports go to ``--results``
(``loadtest/results/`` by default): ``<name>_stats.csv``, ``<name>_stats_history.csv``,
``<name>_failures.csv``, ``<name>_exceptions.csv``, ``<name>_steps.csv`` (step load), ``<name>.html``,
``<name>_summary.json`` (the exact totals the verdict is based on) and ``<name>_service.log``.

Modes:

* default: the step load of ``loadtest/shapes.py`` for ``--time`` (60 s), to find the capacity;
* ``--smoke``: a fixed 4 users for ``--time`` (5 s), as CI runs it;
* ``--processes N``: Locust's own fork of N worker processes under one master;
* ``--distributed N``: a master and N separate ``locust --worker`` processes, as on several machines
  (``loadtest/distributed.sh`` shows the commands for real machines).

``--port PORT`` targets a service already listening on 127.0.0.1:PORT instead of starting one. Arguments
after ``--`` go to Locust unchanged.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from loadtest.replay import KINDS, corpus_path
from loadtest.server import LOOPBACK, ROOT, SERVICE_PID_ENV, ServerProcess, load_flags, python_env

RESULTS_DIR: Final = ROOT / "loadtest" / "results"
LOCUSTFILE: Final = "loadtest/locustfile.py"
SHAPEFILE: Final = "loadtest/shapes.py"
KILL_MARGIN: Final = 60.0
"""Seconds beyond ``--time`` before a Locust process that did not stop by itself is killed."""
SMOKE_USERS: Final = 4


def seconds(text: str) -> int:
    """Locust's time format (``90``, ``90s``, ``2m``, ``1h30m``) in seconds.

    >>> seconds("60s"), seconds("2m"), seconds("1h1m1s"), seconds("45")
    (60, 120, 3661, 45)
    """
    if text.isdigit():
        return int(text)
    parts = re.fullmatch(r"(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?", text.strip())
    if not parts or not any(parts.groups()):
        raise argparse.ArgumentTypeError(f"not a duration: {text!r} (use 60s, 2m, 1h30m)")
    hours, minutes, secs = (int(part or 0) for part in parts.groups())
    return hours * 3600 + minutes * 60 + secs


def free_port() -> int:
    """A free loopback TCP port (for the Locust master)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])


def locust_command(args: argparse.Namespace, host: str, prefix: Path) -> list[str]:
    """The headless Locust command line of a local or master run."""
    files = LOCUSTFILE if args.smoke or args.users else f"{LOCUSTFILE},{SHAPEFILE}"
    command = [str(Path(sys.executable).with_name("locust")), "-f", files, "--headless", "--host", host]
    command += ["-t", f"{args.time}s", "--csv", str(prefix), "--csv-full-history", "--html", f"{prefix}.html"]
    command += ["--only-summary", "--stop-timeout", "2", "--loglevel", "INFO"]
    if args.smoke or args.users:
        users = args.users or SMOKE_USERS
        command += ["-u", str(users), "-r", str(args.spawn_rate or users)]
    if args.processes:
        port = free_port()
        command += ["--processes", str(args.processes), "--master-bind-host", LOOPBACK]
        command += ["--master-bind-port", str(port), "--master-port", str(port)]
    return [*command, *args.locust_args]


def run_locust(args: argparse.Namespace, host: str, prefix: Path, env: dict[str, str]) -> int:
    """Run Locust (and its workers in ``--distributed`` mode); its exit status."""
    command = locust_command(args, host, prefix)
    limit = args.time + KILL_MARGIN
    if not args.distributed:
        print("$", " ".join(command), flush=True)
        try:
            return subprocess.run(command, cwd=ROOT, env=env, timeout=limit, check=False).returncode
        except subprocess.TimeoutExpired:
            print(f"locust did not stop within {limit:.0f}s: killed", file=sys.stderr)
            return 1
    port = free_port()
    master = [*command, "--master", "--master-bind-host", LOOPBACK, "--master-bind-port", str(port)]
    master += ["--expect-workers", str(args.distributed), "--expect-workers-max-wait", "30"]
    worker = [command[0], "-f", command[2], "--worker", "--master-host", LOOPBACK, "--master-port", str(port)]
    print("$", " ".join(master), flush=True)
    print(f"$ {' '.join(worker)}  # x{args.distributed}", flush=True)
    with ExitStack() as stack:
        leader = subprocess.Popen(master, cwd=ROOT, env=env)
        stack.callback(_reap, leader)
        for _ in range(args.distributed):
            stack.callback(_reap, subprocess.Popen(worker, cwd=ROOT, env=env, stdout=subprocess.DEVNULL))
        try:
            return leader.wait(limit + 30)
        except subprocess.TimeoutExpired:
            print(f"locust master did not stop within {limit + 30:.0f}s: killed", file=sys.stderr)
            return 1


def _reap(proc: subprocess.Popen[bytes]) -> None:
    """Wait a little for a process that should be exiting, then kill it."""
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(15)


def totals(summary_json: Path) -> dict[str, Any]:
    """The run's final totals from ``<name>_summary.json`` (written by the locustfile when Locust quits)."""
    if not summary_json.exists():
        return {"requests": 0, "failures": 0, "rps": 0.0, "p50_ms": None, "p99_ms": None, "errors": []}
    data: dict[str, Any] = json.loads(summary_json.read_text(encoding="utf-8"))
    return data


def build_parser() -> argparse.ArgumentParser:
    """The options of ``python -m loadtest.run``."""
    parser = argparse.ArgumentParser(prog="loadtest.run", description=__doc__.splitlines()[0])
    parser.add_argument("--time", type=seconds, default=None, help="run time (default 60s, smoke 5s)")
    parser.add_argument("--smoke", action="store_true", help=f"{SMOKE_USERS} users, no step load")
    parser.add_argument("--users", type=int, default=0, help="a fixed number of users instead of the steps")
    parser.add_argument("--spawn-rate", type=float, default=0.0, help="users started per second")
    parser.add_argument("--processes", type=int, default=0, help="Locust worker processes (--processes)")
    parser.add_argument("--distributed", type=int, default=0, help="master + N separate Locust workers")
    parser.add_argument("--workers", type=int, default=1, help="service worker processes (default 1)")
    parser.add_argument("--port", type=int, default=0, help="use the service already on 127.0.0.1:PORT")
    parser.add_argument("--results", type=Path, default=RESULTS_DIR, help="report directory")
    parser.add_argument("--name", default="", help="report file prefix (default: the mode)")
    parser.add_argument("--no-pin", dest="pin", action="store_false", help="do not split service/Locust CPUs")
    parser.add_argument("locust_args", nargs=argparse.REMAINDER, help="-- then extra Locust arguments")
    return parser


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a run went: Locust's and the service's exit statuses and the CPU each side used."""

    locust_code: int
    service_code: int
    wall: float
    locust_cpu: float
    service_cpu: float | None


def execute(args: argparse.Namespace, prefix: Path) -> Outcome:
    """Start the service (unless ``--port``), run Locust, stop the service."""
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    pin = args.pin and len(cpus) >= 2 and not (args.processes or args.distributed)
    server_cpus, locust_cpus = ({cpus[0]}, set(cpus[1:])) if pin else (None, None)
    with ExitStack() as stack:
        service = None
        host = f"{LOOPBACK}:{args.port}"
        if not args.port:
            log = prefix.with_name(f"{prefix.name}_service.log")
            service = stack.enter_context(
                ServerProcess(*load_flags(workers=args.workers), log_path=log, cpus=server_cpus)
            )
            host = service.target
            print(f"service: {host} ({args.workers} worker(s)), metrics {service.metrics_url}, log {log}")
        if locust_cpus:
            os.sched_setaffinity(0, locust_cpus)  # inherited by Locust
        service_before = service.cpu_seconds() if service else 0.0
        started = time.perf_counter()
        env = python_env(**({SERVICE_PID_ENV: str(service.proc.pid)} if service else {}))
        code = run_locust(args, host, prefix, env)
        wall = time.perf_counter() - started
        children = resource.getrusage(resource.RUSAGE_CHILDREN)  # Locust only: the service is not reaped yet
        service_cpu = (service.cpu_seconds() - service_before) / wall if service else None
        service_code = service.stop() if service else 0
    return Outcome(code, service_code, wall, (children.ru_utime + children.ru_stime) / wall, service_cpu)


def main(argv: Sequence[str] | None = None) -> int:
    """Run and judge: non-zero on any failed call, no traffic, or a service that did not stop cleanly."""
    args = build_parser().parse_args(argv)
    args.time = args.time if args.time is not None else (5 if args.smoke else 60)
    args.locust_args = args.locust_args[1:] if args.locust_args[:1] == ["--"] else args.locust_args
    for kind in KINDS:
        if not corpus_path(kind).exists():
            print(f"{corpus_path(kind)} is missing: run `make corpus` first", file=sys.stderr)
            return 2
    name = args.name or ("smoke" if args.smoke else "distributed" if args.distributed else "loadtest")
    args.results.mkdir(parents=True, exist_ok=True)
    prefix = args.results / name
    for stale in [*args.results.glob(f"{name}_*.csv"), *args.results.glob(f"{name}_*.json")]:
        stale.unlink()
    outcome = execute(args, prefix)
    summary = totals(Path(f"{prefix}_summary.json"))
    requests, failures = summary["requests"], summary["failures"]
    for error in summary["errors"][:10]:
        print(f"  failure x{error['occurrences']}: {error['method']}: {error['error']}", file=sys.stderr)
    service_cpu = f", service {outcome.service_cpu:.0%}" if outcome.service_cpu is not None else ""
    print(
        f"\n{name}: {requests} requests, {failures} failures, {summary['rps']:.0f} req/s overall, "
        f"p50 {summary['p50_ms']} ms, p99 {summary['p99_ms']} ms; CPU: Locust {outcome.locust_cpu:.0%}"
        f"{service_cpu} of one core; reports in {args.results}/{name}*"
    )
    if outcome.locust_code != 0 or failures:
        print(f"FAILED: Locust exit status {outcome.locust_code}, {failures} failed calls", file=sys.stderr)
        return outcome.locust_code or 1
    if requests == 0:
        print("FAILED: no request was made", file=sys.stderr)
        return 1
    if outcome.service_code != 0:
        print(f"FAILED: the service exited with status {outcome.service_code}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
