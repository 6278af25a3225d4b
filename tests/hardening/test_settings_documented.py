"""Every setting is documented where operators look: its flag and environment variable in the
configuration tables of ``services/README.md`` and of the repository README."""

from __future__ import annotations

from dataclasses import fields

import pytest

from hardening.server import ROOT
from services.config import ENV_ONLY, ServerConfig, env_name


@pytest.mark.parametrize("readme", ["services/README.md", "README.md"])
def test_every_setting_is_in_the_configuration_table(readme: str) -> None:
    text = (ROOT / readme).read_text(encoding="utf-8")
    for item in fields(ServerConfig):
        assert f"`{env_name(item.name)}`" in text, (readme, item.name)
        if not item.metadata.get(ENV_ONLY):
            assert f"`--{item.name.replace('_', '-')}`" in text, (readme, item.name)
