"""Structured logs: one JSON object per line on stderr, tracebacks folded into the same line.

A log line is an event with fields (``method``, ``code``, ``reason``, ``pid``), so a collector can index
it without parsing prose, and one error never spans several lines.
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any, Final

_STANDARD: Final = frozenset(vars(logging.makeLogRecord({})).keys()) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """Formats a record as one JSON line with its ``extra`` fields at the top level."""

    def format(self, record: logging.LogRecord) -> str:
        """The record as a single line of JSON."""
        entry: dict[str, Any] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "pid": record.process,
            "msg": record.getMessage(),
        }
        entry.update({key: value for key, value in vars(record).items() if key not in _STANDARD})
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


def configure(level: str = "INFO") -> None:
    """Send every ``tractor_rules`` logger to stderr as JSON lines (idempotent)."""
    root = logging.getLogger("tractor_rules")
    root.setLevel(level)
    root.propagate = False
    if not any(getattr(handler, "_tractor_json", False) for handler in root.handlers):
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(JsonFormatter())
        handler._tractor_json = True  # type: ignore[attr-defined]
        root.addHandler(handler)


def get(name: str) -> logging.Logger:
    """A logger under the ``tractor_rules`` hierarchy."""
    return logging.getLogger(f"tractor_rules.{name}")
