"""Shared pytest configuration: hypothesis profiles (CI runs more examples, deterministically), and the
rules_core build under test in the header (``TRACTOR_RULES_ENGINE`` selects it: ``make unit`` runs the
suite on the pure engine, then the engine's own tests again on the compiled one)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

import rules_core

pytest_plugins = ["loadtest.hardening.pytest_plugin"]  # prints the fuzz and soak summaries (request counts)

settings.register_profile("ci", max_examples=300, derandomize=True, deadline=None)
settings.register_profile(
    "dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_report_header() -> str:
    """Which build of rules_core this run tests, and why (``rules_core.engine``)."""
    return f"rules_core engine: {rules_core.ENGINE} ({rules_core.ENGINE_REASON})"
