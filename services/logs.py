"""Structured logs: one JSON object per line on stderr, tracebacks folded into the same line.

A log line is an event with fields (``method``, ``code``, ``reason``, ``pid``), so a collector can index
it without parsing prose, and one error never spans several lines.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
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


class Throttle:
    """A token bucket for log lines a caller can cause (bad requests, refused tokens): at most ``rate``
    lines a second after a burst of ``burst``, so a hostile or broken client cannot flood the log.

    Lines it holds back are counted; the next line let through carries the count (``suppressed``).
    Server faults (INTERNAL) are never throttled. Thread-safe.
    """

    def __init__(self, rate: float = 20.0, burst: int = 100) -> None:
        self._rate = rate
        self._burst = float(burst)
        self._tokens = float(burst)
        self._last = time.monotonic()
        self._suppressed = 0
        self._lock = threading.Lock()

    def allow(self) -> int | None:
        """None to hold this line back; otherwise the number of lines held back since the last one."""
        with self._lock:
            now = time.monotonic()
            self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
            self._last = now
            if self._tokens < 1:
                self._suppressed += 1
                return None
            self._tokens -= 1
            suppressed, self._suppressed = self._suppressed, 0
            return suppressed


def throttled(
    logger: logging.Logger, throttle: Throttle, level: int, msg: str, extra: dict[str, Any]
) -> None:
    """Log ``msg`` unless ``throttle`` holds it back; a line after a pause says how many were dropped."""
    suppressed = throttle.allow()
    if suppressed is None or not logger.isEnabledFor(level):
        return
    if suppressed:
        extra = {**extra, "suppressed": suppressed}
    logger.log(level, msg, extra=extra)
