"""The Grafana dashboard and its provisioning files, checked without a Grafana.

No Grafana server can be installed here (it is neither on Debian's nor on the language registries),
so these tests check the JSON model and the provisioning against each other; the live test
(test_deploy_prometheus_live.py) runs every panel query against a real Prometheus.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from deploy_support import DASHBOARD, GRAFANA_DIR, load_yaml

BUILTINS: Final = {"__rate_interval", "__interval", "__range", "__range_s", "__interval_ms"}
REQUIRED: Final = {
    # what the issue asks for: a metric (and grouping) some panel must show
    "traffic per method": ("grpc_server_handled_total", "by (grpc_method)"),
    "error ratio": ("grpc_code=~", "by (grpc_method)"),
    "latency p50": ("histogram_quantile(0.5,", "grpc_server_handling_seconds_bucket"),
    "latency p95": ("histogram_quantile(0.95,", "grpc_server_handling_seconds_bucket"),
    "latency p99": ("histogram_quantile(0.99,", "grpc_server_handling_seconds_bucket"),
    "verdicts by reason": ("tractor_rules_verdicts_total", "reason)"),
    "throws by outcome": ("tractor_rules_throws_total", "by (outcome)"),
    "settlements by band": ("tractor_rules_settlements_total", "by (band)"),
    "penalties by phase": ("tractor_rules_penalties_total", "by (phase)"),
    "per-worker saturation": ("rate(tractor_rules_worker_busy_seconds_total{", "$namespace"),
}


def dashboard() -> dict[str, Any]:
    """The dashboard JSON model."""
    data: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return data


def panels() -> list[dict[str, Any]]:
    """The panels with queries (rows excluded)."""
    return [panel for panel in dashboard()["panels"] if panel["type"] != "row"]


def test_dashboard_identity() -> None:
    """A stable uid (links survive re-provisioning), read-only, a schema version Grafana 10+ reads."""
    model = dashboard()
    assert model["uid"] == "tractor-rules" and model["title"]
    assert model["editable"] is False
    assert model["schemaVersion"] >= 36


def test_every_panel_has_queries_on_the_datasource_variable() -> None:
    """Each panel queries through ${datasource}, with unique refIds and non-empty expressions."""
    ids = [panel["id"] for panel in dashboard()["panels"]]
    assert len(ids) == len(set(ids))
    for panel in panels():
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        assert panel["targets"], panel["title"]
        refs = [target["refId"] for target in panel["targets"]]
        assert len(refs) == len(set(refs)), panel["title"]
        for target in panel["targets"]:
            assert target["expr"].strip() and target["datasource"] == panel["datasource"]
        assert panel.get("description"), f"{panel['title']}: say what the panel means"


def test_panels_tile_the_grid() -> None:
    """Panels fit the 24-column grid and do not overlap."""
    cells: set[tuple[int, int]] = set()
    for panel in dashboard()["panels"]:
        box = panel["gridPos"]
        assert box["x"] >= 0 and box["x"] + box["w"] <= 24, panel["title"]
        mine = {
            (x, y) for x in range(box["x"], box["x"] + box["w"]) for y in range(box["y"], box["y"] + box["h"])
        }
        assert not cells & mine, f"{panel['title']} overlaps another panel"
        cells |= mine


def test_every_variable_used_is_defined() -> None:
    """Each $variable of a query is a dashboard variable or a Grafana built-in."""
    defined = {variable["name"] for variable in dashboard()["templating"]["list"]}
    assert {"datasource", "job", "namespace", "method", "workers"} <= defined
    for panel in panels():
        for target in panel["targets"]:
            used = {a or b for a, b in re.findall(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)", target["expr"])}
            assert used <= defined | BUILTINS, f"{panel['title']}: {used - defined - BUILTINS}"


def test_dashboard_covers_what_operators_asked_for() -> None:
    """Traffic, errors, latency quantiles, verdicts, throws, settlements, penalties, saturation."""
    exprs = [target["expr"] for panel in panels() for target in panel["targets"]]
    for need, fragments in REQUIRED.items():
        assert any(all(fragment in expr for fragment in fragments) for expr in exprs), need


def test_rpc_panels_leave_out_health_probes() -> None:
    """gRPC series are restricted to RulesService: probes would otherwise dominate traffic and latency."""
    for panel in panels():
        for target in panel["targets"]:
            if "grpc_server_" in target["expr"]:
                expr = target["expr"]
                restricted = expr.count('grpc_service="tractor.rules.v1.RulesService"')
                assert restricted >= expr.count("grpc_server_"), panel["title"]


def test_provisioning_matches_the_dashboard() -> None:
    """The datasource the dashboard defaults to is the provisioned one; the provider loads files."""
    datasources = load_yaml(GRAFANA_DIR / "provisioning" / "datasources.yml")
    assert datasources["apiVersion"] == 1
    (prometheus,) = datasources["datasources"]
    assert prometheus["type"] == "prometheus"
    variable = next(v for v in dashboard()["templating"]["list"] if v["name"] == "datasource")
    assert variable["current"]["value"] == prometheus["uid"]
    providers = load_yaml(GRAFANA_DIR / "provisioning" / "dashboards.yml")
    assert providers["apiVersion"] == 1
    (provider,) = providers["providers"]
    assert provider["type"] == "file" and provider["options"]["path"].startswith("/")
    assert provider["allowUiUpdates"] is False
