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
"""
