"""The dashboard and the recording rules against real data: a live service, real Prometheus, real queries.

One module-wide stack on 127.0.0.1: ``tractor-rules serve`` with two workers, Debian's Prometheus
scraping it every second with the shipped scrape config and rules (evaluated every second), and a
short deterministic load (``loadtest.deploy_load``) that reaches every RPC and every outcome the dashboard
shows. Then every recording rule and every dashboard panel query (Grafana variables substituted as
Grafana would) must return data through the HTTP API. Every wait is bounded; every process is stopped.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import pytest
import yaml
from deploy_support import DASHBOARD, DEPLOY, PROMETHEUS_DIR, load_yaml, prometheus

from loadtest.contract import SERVICE
from loadtest.deploy_load import corpus, drive
from loadtest.server import ServerProcess

LOAD_SECONDS: Final = 8.0
START_TIMEOUT: Final = 60.0
DATA_TIMEOUT: Final = 60.0
STOP_TIMEOUT: Final = 20.0
GRAFANA_VALUES: Final = {
    # what Grafana substitutes with the dashboard's defaults and a 15 s scrape interval
    "__rate_interval": "1m",
    "__interval": "15s",
    "__range": "5m",
    "job": "tractor-rules",
    "namespace": ".*",  # "All" (allValue)
    "method": ".*",
    "workers": "2",
}
_VARIABLE: Final = re.compile(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)")


def grafana_expr(expr: str) -> str:
    """A panel query with its Grafana variables replaced; an unknown variable fails the test.

    >>> grafana_expr('rate(x{job=~"$job"}[$__rate_interval]) / ${workers}')
    'rate(x{job=~"tractor-rules"}[1m]) / 2'
    """

    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        assert name in GRAFANA_VALUES, f"dashboard variable ${name} has no test value"
        return GRAFANA_VALUES[name]

    return _VARIABLE.sub(value, expr)


def free_port() -> int:
    """A port nobody listens on right now (for Prometheus, which cannot pick its own)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(what: str, check: Callable[[], Any], timeout: float, interval: float = 0.5) -> Any:
    """Poll ``check`` until it returns something truthy; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        with contextlib.suppress(OSError, ValueError):
            last = check()
            if last:
                return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}; last answer: {last!r}")


def stop(proc: subprocess.Popen[Any], timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM, bounded wait, then SIGKILL: nothing the tests started outlives them."""
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


class Prometheus:
    """Debian's Prometheus with the shipped scrape config, retargeted to the live service, every second."""

    def __init__(self, workdir: Path, metrics_target: str) -> None:
        config = load_yaml(PROMETHEUS_DIR / "prometheus.yml")
        config["global"].update(scrape_interval="1s", scrape_timeout="1s", evaluation_interval="1s")
        config["rule_files"] = [str(PROMETHEUS_DIR / path) for path in config["rule_files"]]
        (job,) = config["scrape_configs"]  # the shipped config has the one tractor-rules job
        job.update(scrape_interval="1s", scrape_timeout="1s")
        job["static_configs"] = [{"targets": [metrics_target], "labels": {"namespace": "deploy-test"}}]
        path = workdir / "prometheus.yml"
        path.write_text(yaml.safe_dump(config), encoding="utf-8")
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = (workdir / "prometheus.log").open("w")
        self.proc = subprocess.Popen(
            [
                str(prometheus()),
                f"--config.file={path}",
                f"--storage.tsdb.path={workdir / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--storage.tsdb.retention.time=1h",
                "--log.level=warn",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_until("Prometheus ready", self._ready, START_TIMEOUT)
        except AssertionError:
            self.close()
            raise AssertionError(
                f"Prometheus did not start:\n{(workdir / 'prometheus.log').read_text()}"
            ) from None

    def _ready(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"Prometheus exited with {self.proc.returncode}")
        with urllib.request.urlopen(f"{self.url}/-/ready", timeout=2) as reply:
            return bool(reply.status == 200)

    def api(self, path: str, **params: str | list[str]) -> Any:
        """GET /api/v1/<path>; the ``data`` of a successful answer."""
        query = urllib.parse.urlencode(params, doseq=True)
        with urllib.request.urlopen(f"{self.url}/api/v1/{path}?{query}", timeout=10) as reply:
            body = json.load(reply)
        assert body["status"] == "success", body
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        """An instant query's vector (scalars and strings come back as one pseudo-sample)."""
        data = self.api("query", query=expr)
        if data["resultType"] in ("scalar", "string"):
            return [{"metric": {}, "value": data["result"]}]
        return list(data["result"])

    def close(self) -> None:
        stop(self.proc)
        self.log.close()


@dataclass
class Stack:
    """The live service, the Prometheus scraping it, and what the load got back."""

    service: ServerProcess
    prometheus: Prometheus
    outcomes: Counter[tuple[str, str]]


def finite(result: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The samples of an instant result with a real number (NaN: a quantile of no traffic)."""
    return [sample for sample in result if math.isfinite(float(sample["value"][1]))]


def recording_rules() -> list[dict[str, Any]]:
    """Every recording rule of the shipped rule files."""
    return [
        rule
        for name in ("recording.yml", "alerts.yml")
        for group in load_yaml(PROMETHEUS_DIR / "rules" / name)["groups"]
        for rule in group["rules"]
        if "record" in rule
    ]


def panel_queries() -> list[tuple[str, str]]:
    """(panel title / refId, expr) of every query of every dashboard panel."""
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return [
        (f"{panel['title']} / {target['refId']}", target["expr"])
        for panel in dashboard["panels"]
        if panel["type"] != "row"
        for target in panel["targets"]
    ]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Start everything, drive the load, wait until every recording rule has data; stop it all after."""
    workdir = tmp_path_factory.mktemp("deploy-live")
    (workdir / "metrics").mkdir()
    prometheus()  # fail first, with the install hint, when Prometheus is missing
    service = ServerProcess(
        "--workers", "2", "--grace-seconds", "2", "--drain-seconds", "0", metrics_dir=workdir / "metrics"
    )
    try:
        server = Prometheus(workdir, service.metrics_target)
        try:
            up = f'up{{job="tractor-rules", instance="{service.metrics_target}"}} == 1'
            wait_until("the first scrape", lambda: server.query(up), START_TIMEOUT)
            calls = corpus()
            outcomes = drive(service.target, calls, seconds=LOAD_SECONDS / 2, threads=4)
            # A worker dies between two bursts (as an OOM kill would): the supervisor replaces it, the
            # restart counter appears, and TractorRulesWorkerRestarts must fire.
            os.kill(service.serving["workers"][0], signal.SIGKILL)
            service.wait_for("worker replaced", START_TIMEOUT)
            outcomes += drive(service.target, calls, seconds=LOAD_SECONDS / 2, threads=4)
            names = [rule["record"] for rule in recording_rules()]
            wait_until(
                "every recording rule to have data",
                lambda: all(finite(server.query(name)) for name in names),
                DATA_TIMEOUT,
            )
            yield Stack(service, server, outcomes)
        finally:
            server.close()
    finally:
        service.stop(STOP_TIMEOUT)


def test_load_reaches_every_rpc(stack: Stack) -> None:
    """The load driver called every RPC of the contract successfully, and sent some malformed requests."""
    ok = {method for (method, code), n in stack.outcomes.items() if code == "OK" and n}
    assert ok == {method.name for method in SERVICE.methods}
    assert stack.outcomes[("SettleHand", "INVALID_ARGUMENT")] > 0


@pytest.mark.parametrize(
    "rule", recording_rules(), ids=lambda rule: f"{rule['record']}{rule.get('labels', '')}"
)
def test_recording_rule_returns_data(stack: Stack, rule: dict[str, Any]) -> None:
    """Every recording rule yields a real value from the live service's metrics."""
    selector = ",".join(f'{name}="{value}"' for name, value in rule.get("labels", {}).items())
    result = stack.prometheus.query(f"{rule['record']}{{{selector}}}")
    assert finite(result), f"{rule['record']} returned {result}"


@pytest.mark.parametrize(("panel", "expr"), panel_queries(), ids=[title for title, _ in panel_queries()])
def test_dashboard_panel_returns_data(stack: Stack, panel: str, expr: str) -> None:
    """Every query of every dashboard panel, as Grafana would send it, returns real values."""
    result = stack.prometheus.query(grafana_expr(expr))
    assert finite(result), f"panel {panel!r}: {grafana_expr(expr)} returned {result}"


def test_dashboard_variables_resolve(stack: Stack) -> None:
    """The dashboard's variable queries (label_values) find values, and the job default is among them."""
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    pattern = re.compile(r"^label_values\((?:(.+),\s*)?(\w+)\)$")
    for variable in dashboard["templating"]["list"]:
        if variable["type"] != "query":
            continue
        match = pattern.match(variable["query"]["query"])
        assert match, f"variable {variable['name']}: unsupported query {variable['query']}"
        selector, label = grafana_expr(match.group(1) or "up"), match.group(2)
        series = stack.prometheus.api("series", **{"match[]": [selector]})
        values = {s[label] for s in series if label in s}
        assert values, f"variable {variable['name']}: no {label} values for {selector}"
        if "current" in variable and variable["current"].get("value") not in (None, ["$__all"]):
            assert variable["current"]["value"] in values


def test_domain_series_cover_every_outcome(stack: Stack) -> None:
    """The dashboard's domain panels show more than one line: every throw outcome, band, phase, preset."""
    expected = {
        "count by (outcome) (tractor_rules_throws_total)": ("outcome", {"succeeded", "failed"}),
        "count by (phase) (tractor_rules_penalties_total)": ("phase", {"q0", "q1", "q2", "q3"}),
        "count by (preset) (tractor_rules_requests_by_preset_total)": (
            "preset",
            {"default", "rulebook-000", "rulebook-001", "rulebook-003"},
        ),
        "count by (won_by) (tractor_rules_tricks_total)": ("won_by", {"lead", "beat", "ruff", "over_ruff"}),
    }
    for expr, (label, values) in expected.items():
        got = {sample["metric"][label] for sample in stack.prometheus.query(expr)}
        assert values <= got, f"{expr}: {got}"
    bands = {
        s["metric"]["band"]
        for s in stack.prometheus.query("count by (band) (tractor_rules_settlements_total)")
    }
    assert len(bands) >= 5 and any(b.startswith("attackers") for b in bands), bands
    reasons = stack.prometheus.query(
        'count by (reason) (tractor_rules_verdicts_total{grpc_method="ValidatePlay"})'
    )
    assert {"legal"} < {s["metric"]["reason"] for s in reasons}, "no illegal play reached the service"


def test_rules_evaluate_cleanly(stack: Stack) -> None:
    """Prometheus loaded every group of the shipped rule files and evaluates each rule without error."""
    groups = stack.prometheus.api("rules")["groups"]
    loaded = {rule["name"]: rule for group in groups for rule in group["rules"]}
    shipped = {
        rule.get("record") or rule["alert"]
        for name in ("recording.yml", "alerts.yml")
        for group in load_yaml(PROMETHEUS_DIR / "rules" / name)["groups"]
        for rule in group["rules"]
    }
    assert shipped <= set(loaded)
    for name, rule in loaded.items():
        assert rule["health"] == "ok", f"{name}: {rule.get('lastError')}"
    alerts = stack.prometheus.api("alerts")["alerts"]
    firing = {alert["labels"]["alertname"] for alert in alerts if alert["state"] == "firing"}
    assert firing <= {"TractorRulesWorkerRestarts"}, f"alerts firing on a healthy service: {firing}"


def test_worker_restart_alert_fires(stack: Stack) -> None:
    """The worker killed during the load shows: counted once, and its alert fires for that instance."""
    restarts = stack.prometheus.query("tractor_rules_worker_restarts_total")
    assert [float(sample["value"][1]) for sample in restarts] == [1.0]

    def firing() -> list[dict[str, Any]]:
        alerts = stack.prometheus.api("alerts")["alerts"]
        return [
            alert
            for alert in alerts
            if alert["labels"]["alertname"] == "TractorRulesWorkerRestarts" and alert["state"] == "firing"
        ]

    (alert,) = wait_until("TractorRulesWorkerRestarts to fire", firing, DATA_TIMEOUT)
    assert alert["labels"]["instance"] == stack.service.metrics_target


def test_container_healthcheck_script(stack: Stack) -> None:
    """deploy/healthcheck.py (the image's HEALTHCHECK) passes on the live server, fails otherwise."""
    script = [sys.executable, str(DEPLOY / "healthcheck.py")]
    env = {**os.environ, "TRACTOR_RULES_PORT": str(stack.service.serving["port"])}
    assert subprocess.run(script, env=env, timeout=30, check=False).returncode == 0
    whole = [*script, stack.service.target, SERVICE.full_name]
    assert subprocess.run(whole, timeout=30, check=False).returncode == 0
    unknown = [*script, stack.service.target, "no.such.Service"]
    assert subprocess.run(unknown, timeout=30, check=False).returncode == 1
    nobody = [*script, f"127.0.0.1:{free_port()}"]
    assert subprocess.run(nobody, timeout=30, check=False).returncode == 1
