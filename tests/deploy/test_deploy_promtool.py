"""promtool on the shipped Prometheus files: the config, the rules, and the alert unit tests.

These are the checks a Prometheus would do on reload (and CI runs them): a config or rule file that
promtool rejects is one Prometheus refuses to load, keeping the old rules silently.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from deploy_support import PROMETHEUS_DIR, load_yaml, promtool, run

RULE_FILES = sorted((PROMETHEUS_DIR / "rules").glob("*.yml"))
TEST_FILES = sorted((PROMETHEUS_DIR / "tests").glob("*.yml"))


def _check(args: list[str | Path]) -> str:
    result = run([promtool(), *args])
    assert result.returncode == 0, f"promtool {' '.join(map(str, args))}:\n{result.stdout}\n{result.stderr}"
    return result.stdout + result.stderr


def test_promtool_check_config() -> None:
    """The plain scrape config, with the rule files it names."""
    out = _check(["check", "config", PROMETHEUS_DIR / "prometheus.yml"])
    assert "2 rule files found" in out


def test_promtool_check_rules() -> None:
    """Every rule file parses, every expression is valid PromQL."""
    assert RULE_FILES
    _check(["check", "rules", *RULE_FILES])


def test_promtool_test_rules() -> None:
    """The unit tests of the recording and alert rules pass."""
    assert TEST_FILES
    out = _check(["test", "rules", *TEST_FILES])
    assert "FAILED" not in out


def test_promtool_rejects_a_broken_rule(tmp_path: Path) -> None:
    """The checker bites: a rule with a typo'd field or bad PromQL fails."""
    for rule in ({"alrt": "X", "expr": "up"}, {"alert": "X", "expr": "sum by (job (up)"}):
        path = tmp_path / "bad.yml"
        path.write_text(yaml.safe_dump({"groups": [{"name": "g", "rules": [rule]}]}), encoding="utf-8")
        assert run([promtool(), "check", "rules", path]).returncode != 0


def _alerts() -> set[str]:
    return {
        rule["alert"]
        for path in RULE_FILES
        for g in load_yaml(path)["groups"]
        for rule in g["rules"]
        if "alert" in rule
    }


def _alert_tests() -> list[dict[str, Any]]:
    return [
        case
        for path in TEST_FILES
        for test in load_yaml(path)["tests"]
        for case in test.get("alert_rule_test", [])
    ]


def test_every_alert_is_shown_firing_and_quiet() -> None:
    """Each alert has a unit test where it fires and one where it must not (promtool runs them above)."""
    cases = _alert_tests()
    for alert in _alerts():
        mine = [case for case in cases if case["alertname"] == alert]
        assert any(case.get("exp_alerts") for case in mine), f"{alert}: no test shows it firing"
        assert any(not case.get("exp_alerts") for case in mine), f"{alert}: no test shows it quiet"


def test_alerts_are_routable() -> None:
    """Every alert has a severity label, a summary, a description and a runbook pointer."""
    for path in RULE_FILES:
        for group in load_yaml(path)["groups"]:
            for rule in group["rules"]:
                if "alert" in rule:
                    assert rule["labels"]["severity"] in {"critical", "warning"}, rule["alert"]
                    assert {"summary", "description", "runbook"} <= set(rule["annotations"]), rule["alert"]
