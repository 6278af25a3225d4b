"""The gRPC shell around rules_core: servicer, proto <-> domain conversion, bootstrap, metrics, CLI.

Layout (one job per module):

- ``convert``: the single place where wire types meet domain types; every field is validated here.
- ``servicer``: the RulesService methods, each a thin call into rules_core.
- ``interceptor``: the one place errors become statuses, and where every RPC is timed, counted and
  held to its deadline and the server's work ceiling.
- ``security``: TLS and mutual TLS credentials, the bearer-token interceptor.
- ``wireformat``: the field where undecodable request bytes go wrong.
- ``metrics``: every Prometheus series, built on an injectable registry.
- ``server``: ``create_server(config, ...)`` (an unstarted, fully wired server) and one worker's loop.
- ``supervisor``: the parent process: forks workers, serves ``/metrics``, relays SIGTERM.
- ``config`` / ``cli``: settings from flags and ``TRACTOR_RULES_*`` environment variables.

The conversion module runs compiled with the engine: when ``rules_core`` runs its compiled build, that
build also holds ``convert`` (``rules_core.engine.SHELL_MODULES``), and :func:`choose_shell` puts its
folder in front of this package's path before ``convert`` is first imported.
"""

import sys
from pathlib import Path


def choose_shell() -> None:
    """Load ``convert`` from the engine's compiled build when the engine runs compiled (the build's
    manifest then matched ``convert``'s source too), else from the source.

    Chosen on import and again in each forked worker after ``rules_core.engine.choose_again``; a process
    that already imported ``convert`` keeps it (its file says which it is).
    """
    if f"{__name__}.convert" in sys.modules:
        return
    __path__[:] = [str(Path(__file__).resolve().parent)]
    try:
        import rules_core  # noqa: PLC0415  # the engine's own choice
    except ImportError:  # a build asked for by name and missing: whoever imports the engine next says so
        return  # (``tractor-rules serve`` exits 2 with the reason)
    if rules_core.ENGINE == "compiled":
        __path__.insert(0, str(rules_core.engine.compiled_dir() / __name__))


choose_shell()
