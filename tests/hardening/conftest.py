"""Fixtures of the hardening tests: certificates made at test time, and a valid request per RPC.

Also prints the fuzz and soak summaries at the end of the run (the request count belongs in the CI log).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import tlscerts
from google.protobuf.message import Message

from loadtest import corpus
from loadtest.contract import METHODS

PLUGIN = "loadtest.hardening.pytest_plugin"


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> tlscerts.Certificates:
    """A fresh CA, server certificate and clients (good, from another CA, expired)."""
    return tlscerts.make(tmp_path_factory.mktemp("certs"))


@pytest.fixture(scope="session")
def valid() -> dict[str, Message]:
    """One valid request per RPC, from a self-played hand (its illegal attempts left out)."""
    found: dict[str, Message] = {}
    for call in corpus.self_play(1, first_seed=3)[0].calls:
        if call.expect.get("legal") is not False and call.expect.get("accepted") is not False:
            found.setdefault(call.method, call.message())
    assert set(found) == set(METHODS), set(METHODS) - set(found)
    return found


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    """A token file with two tokens (a rotation in progress) and a comment."""
    path = tmp_path / "tokens"
    path.write_text(
        "# old and new during a rotation\nold-token-0123456789abcdef\nnew-token-fedcba9876543210\n"
    )
    return path


# ``--doctest-modules`` collects every conftest.py as a module named "conftest". When pytest is given
# this folder and tests/service as arguments it loads both conftests up front, and the one loaded last
# stays in sys.modules as "conftest", so collecting the other fails ("import file mismatch"). Hence: this
# conftest is not collected (it has no doctests), and "conftest" leaves sys.modules before collection
# starts, as pytest itself does before importing each conftest.
collect_ignore = ["conftest.py"]


def pytest_collection(session: pytest.Session) -> None:
    """Forget the cached "conftest" module (see above); the registered plugins are unaffected."""
    sys.modules.pop("conftest", None)


def pytest_configure(config: pytest.Config) -> None:
    """Print the fuzz and soak summaries at the end (unless the root conftest already registered it)."""
    if not config.pluginmanager.has_plugin(PLUGIN):
        config.pluginmanager.import_plugin(PLUGIN)
