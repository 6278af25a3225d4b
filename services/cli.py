"""``tractor-rules``: the command line of the rules service.

``tractor-rules serve`` reads its settings (flags, then ``TRACTOR_RULES_*`` variables, then defaults),
prepares the Prometheus multiprocess directory and only then imports the server, because
prometheus_client picks its multiprocess storage when it is first imported and the workers inherit
that choice when they are forked.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Final

GRPC_VERBOSITY_ENV: Final = "GRPC_VERBOSITY"
if not os.environ.get(GRPC_VERBOSITY_ENV):
    # gRPC core logs in its own plain-text format, unthrottled, one line per event a client can cause
    # (each plaintext connection attempt on a TLS port: a "Handshake failed" line), so by default it is
    # silent and stderr holds only the service's JSON lines. Set GRPC_VERBOSITY (ERROR, INFO, DEBUG;
    # with GRPC_TRACE for more) to see them while debugging. Set before grpc is first imported.
    os.environ[GRPC_VERBOSITY_ENV] = "NONE"

from services import config as config_module  # noqa: E402  # after GRPC_VERBOSITY: see above
from services import demo, logs, security  # noqa: E402

MULTIPROC_ENV: Final = "PROMETHEUS_MULTIPROC_DIR"


def prepare_metrics_dir() -> Path | None:
    """Point prometheus_client at an empty directory; return it when we created it (to remove it later).

    A directory given in ``PROMETHEUS_MULTIPROC_DIR`` is kept but emptied of old ``*.db`` files, since
    values left by a previous run would be summed into this one.
    """
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        directory = Path(given)
        directory.mkdir(parents=True, exist_ok=True)
        for stale in directory.glob("*.db"):
            stale.unlink()
        return None
    created = Path(tempfile.mkdtemp(prefix="tractor-rules-metrics-"))
    os.environ[MULTIPROC_ENV] = str(created)
    return created


def serve(config: config_module.ServerConfig) -> int:
    """Run the service until SIGTERM; the exit status of the supervisor."""
    logs.configure(config.log_level)
    if "prometheus_client" in sys.modules and not os.environ.get(MULTIPROC_ENV):
        raise RuntimeError("prometheus_client was imported before the metrics directory was set")
    created = prepare_metrics_dir()
    try:
        from services import supervisor  # noqa: PLC0415  # after the metrics directory: see the docstring

        return supervisor.run(config)
    finally:
        if created is not None:
            shutil.rmtree(created, ignore_errors=True)


def build_parser() -> argparse.ArgumentParser:
    """The ``tractor-rules`` argument parser with its ``serve`` command."""
    parser = argparse.ArgumentParser(prog="tractor-rules", description="The Tractor rules service.")
    commands = parser.add_subparsers(dest="command", required=True)
    # no abbreviations: "--auth-token SECRET" must not be taken for "--auth-token-file SECRET"
    serve_parser = commands.add_parser("serve", help="serve the gRPC rules service", allow_abbrev=False)
    config_module.add_arguments(serve_parser)
    demo_parser = commands.add_parser("demo", help="play one seeded hand through the engine and print it")
    demo.add_arguments(demo_parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tractor-rules`` console script."""
    args = build_parser().parse_args(argv)
    if args.command == "demo":
        return demo.main(args)
    try:
        config = config_module.load(args)
        security.check(config)  # unreadable certificates or tokens: a clean exit 2, before any fork
        import rules_core  # noqa: F401, PLC0415  # a build asked for by name but missing: exit 2 too
    except (ValueError, ImportError) as error:
        print(f"tractor-rules: {error}", file=sys.stderr)
        return 2
    return serve(config)


if __name__ == "__main__":
    sys.exit(main())
