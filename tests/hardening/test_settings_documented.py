"""Every setting is documented where operators look: its flag and environment variable in the
configuration tables of ``services/README.md`` and of the repository README; and the client config
that README recommends is the one the fault tests use."""

from __future__ import annotations

import json
import re
from dataclasses import fields
from typing import Any

import pytest

from loadtest.server import ROOT
from services.config import ENV_ONLY, ServerConfig, env_name
from tractor.rules.client import ATTEMPT_TIMEOUT, SERVICE_CONFIG


@pytest.mark.parametrize("readme", ["services/README.md", "README.md"])
def test_every_setting_is_in_the_configuration_table(readme: str) -> None:
    text = (ROOT / readme).read_text(encoding="utf-8")
    for item in fields(ServerConfig):
        assert f"`{env_name(item.name)}`" in text, (readme, item.name)
        if not item.metadata.get(ENV_ONLY):
            assert f"`--{item.name.replace('_', '-')}`" in text, (readme, item.name)


def test_the_documented_client_config_is_the_one_the_tests_use() -> None:
    """The retry and wait-for-ready config clients copy from the README is ``SERVICE_CONFIG``, which the
    fault tests prove; a README edited alone would recommend something untested."""
    text = (ROOT / "services/README.md").read_text(encoding="utf-8")
    block = re.search(r"```json\n(\{\"methodConfig\".*?)```", text, re.DOTALL)
    assert block is not None
    assert json.loads(block.group(1)) == SERVICE_CONFIG


def test_the_attempt_timeout_outlasts_every_answer_of_a_default_server() -> None:
    """An attempt is cut only when the server can no longer answer it: a default server ends every call it
    holds within ``--max-request-seconds`` (RESOURCE_EXHAUSTED), so a slow answer is never retried."""
    config: Any = SERVICE_CONFIG  # JSON: nested lists and dicts
    assert config["methodConfig"][0]["retryPolicy"]["perAttemptRecvTimeout"] == ATTEMPT_TIMEOUT
    assert float(ATTEMPT_TIMEOUT.removesuffix("s")) > ServerConfig().max_request_seconds
