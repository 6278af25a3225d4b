"""The engine against an earlier commit's: ``make bench-core`` figures before and after a change.

A change that must not slow the default table (a house rule, more decks) is measured here: the commit
``--against`` is exported (``git archive``) into a temporary folder, and each round runs that tree's
``loadtest.bench_core --json --cpu-time`` and this tree's in fresh processes on the pure engine, the two
interleaved round by round so that what load the machine has falls on both alike. The table shows each
figure's median over the rounds and the ratio after / before (below 1: faster now), for the figures both
trees measure. Run: ``make bench-core BENCH_CORE_ARGS="--against REV"`` (``--rounds``, default 3).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from pathlib import Path

from loadtest.bench_engines import ROOT, measure


def export(revision: str, into: Path) -> Path:
    """The tree of ``revision`` written under ``into`` (the repository's own history, no network)."""
    archive = subprocess.run(
        ["git", "archive", "--format=tar", revision], cwd=ROOT, capture_output=True, check=True
    ).stdout
    tar = into / "tree.tar"
    tar.write_bytes(archive)
    tree = into / "tree"
    with tarfile.open(tar) as bundle:
        bundle.extractall(tree, filter="data")
    return tree


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, help="the earlier commit (any git revision)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    with tempfile.TemporaryDirectory(prefix="bench-ab-") as tmp:
        trees = {"before": export(args.against, Path(tmp)), "after": ROOT}
        for index in range(args.rounds):
            for name, tree in trees.items():
                runs[name].append(measure("python", "loadtest.bench_core", "--json", "--cpu-time", root=tree))
            print(f"round {index + 1}/{args.rounds} done", file=sys.stderr)
    medians = {
        name: {key: statistics.median(run[key] for run in rounds) for key in rounds[0]}
        for name, rounds in runs.items()
    }
    shared = [key for key in medians["after"] if key in medians["before"]]
    print(f"pure engine, median of {args.rounds} rounds, µs of CPU per call; before = {args.against}\n")
    print(f"{'measure':62} {'before':>9} {'after':>9} {'after/before':>13}")
    for key in shared:
        before, after = medians["before"][key], medians["after"][key]
        print(f"{key[:62]:62} {before:9.1f} {after:9.1f} {after / before:12.2f}×")
    ratios = [medians["after"][key] / medians["before"][key] for key in shared]
    print(f"\nmedian after/before over the {len(shared)} figures: {statistics.median(ratios):.2f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
