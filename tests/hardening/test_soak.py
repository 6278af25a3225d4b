"""The short soak CI runs: realistic tables for 20 s on two workers; no error, no worker lost, memory
flat after a 5 s warm-up. ``make soak`` runs the same for 10 minutes (``SOAK_SECONDS``)."""

from __future__ import annotations

from typing import Any

from loadtest.hardening import soak


def test_a_short_soak(record_property: Any) -> None:
    report = soak.soak(seconds=20, warmup=5, rate=300, tables=8, interval=1, quiet=True)
    summary = report.summary()
    print(summary)
    record_property("hardening_summary", summary)
    assert report.calls > 3000 and not report.errors, summary
    assert not report.replaced and report.workers_after == report.workers_before, summary
    assert report.growth() and report.passed, summary
