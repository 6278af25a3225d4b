"""Settings precedence (flag > environment > default) and the CLI's failure modes, which must be clean
exits with a status, never tracebacks."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from loadtest.server import run_serve
from services import config


def test_defaults() -> None:
    settings = config.parse([], env={})
    assert (settings.port, settings.metrics_port) == (50051, 9464)
    assert settings.worker_count == (os.cpu_count() or 1)
    assert settings.max_message_bytes == 384 * 1024
    assert settings.drain <= settings.grace_seconds


def test_environment_then_flags() -> None:
    env = {"TRACTOR_RULES_PORT": "6000", "TRACTOR_RULES_WORKERS": "3", "TRACTOR_RULES_LOG_LEVEL": "debug"}
    from_env = config.parse([], env=env)
    assert (from_env.port, from_env.workers, from_env.log_level) == (6000, 3, "DEBUG")
    both = config.parse(["--port", "7000", "--grace-seconds", "2.5"], env=env)
    assert (both.port, both.workers, both.grace_seconds) == (7000, 3, 2.5)


def test_drain_never_exceeds_the_grace_period() -> None:
    assert config.parse(["--grace-seconds", "0.5", "--drain-seconds", "3"], env={}).drain == 0.5


@pytest.mark.parametrize(
    ("argv", "env", "named"),
    [
        ([], {"TRACTOR_RULES_PORT": "http"}, "TRACTOR_RULES_PORT"),
        (["--port", "70000"], {}, "port"),
        (["--threads", "0"], {}, "threads"),
        (["--max-message-bytes", "10"], {}, "max_message_bytes"),
    ],
)
def test_bad_settings_name_the_setting(argv: list[str], env: dict[str, str], named: str) -> None:
    with pytest.raises(ValueError, match=named):
        config.parse(argv, env=env)


def test_cli_rejects_a_bad_environment_value(tmp_path: Path) -> None:
    done = run_serve(env={"TRACTOR_RULES_GRACE_SECONDS": "soon"}, metrics_dir=tmp_path)
    assert done.returncode == 2
    assert "TRACTOR_RULES_GRACE_SECONDS" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.parametrize("flag", ["--port", "--health-port"])
def test_cli_exits_1_when_a_port_is_taken(flag: str, tmp_path: Path) -> None:
    """A plain listener (no SO_REUSEPORT) holds the port: one JSON error line, exit status 1."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        ports = {"--port": "0", "--health-port": "0", flag: port}
        flags = [item for pair in ports.items() for item in pair]
        done = run_serve("--address", "127.0.0.1", *flags, "--metrics-port", "-1", metrics_dir=tmp_path)
    assert done.returncode == 1
    assert '"msg": "cannot bind"' in done.stderr and "Traceback" not in done.stderr
    assert f'"{flag[2:].replace("-", "_")}": {port}' in done.stderr
