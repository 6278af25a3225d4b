"""A pytest plugin that prints the fuzz and soak summaries at the end of a run, xdist workers included.

Tests attach their summary with ``record_property("hardening_summary", text)``; the reports reach the
controlling process, which prints them after the results, so the request count and the verdict are
in the CI log. Registered by ``tests/hardening/conftest.py`` when that folder is named on the command
line, and for a whole-suite run by ``pytest_plugins = ["loadtest.hardening.pytest_plugin"]`` in the
root conftest.
"""

from __future__ import annotations

from typing import Any, Final

import pytest

PROPERTY: Final = "hardening_summary"
_summaries: list[str] = []


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Collect the summaries from the call phase of each test."""
    if report.when == "call":
        _summaries.extend(str(value) for name, value in report.user_properties if name == PROPERTY)


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print them after the results."""
    for summary in _summaries:
        terminalreporter.write_sep("-", "hardening")
        terminalreporter.write_line(summary)
