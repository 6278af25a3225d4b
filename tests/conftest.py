"""Shared pytest configuration: hypothesis profiles (CI runs more examples, deterministically)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

pytest_plugins = ["loadtest.hardening.pytest_plugin"]  # prints the fuzz and soak summaries (request counts)

settings.register_profile("ci", max_examples=300, derandomize=True, deadline=None)
settings.register_profile(
    "dev", max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))
