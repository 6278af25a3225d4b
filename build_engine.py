"""Compile rules_core with mypyc into a folder of its own: the compiled engine, from the same source.

The Python source stays the one truth: this writes C extension modules for ``rules_core``'s modules
(its ``__init__`` stays pure: it chooses the engine, see ``rules_core.engine``) into
``build/compiled/rules_core/`` (or ``--out``), and the service's conversion module
(``rules_core.engine.SHELL_MODULES``) into ``build/compiled/services/``, with a manifest of the
sources' hashes. The engine is
used only when selected (``TRACTOR_RULES_ENGINE=compiled``, or ``auto`` and the build matches the
source), so an edited module never runs stale compiled code. Needs a C compiler and the pinned mypy
(``make compiled``; the image runs it at build time). Exits 3 when no C compiler is present.
``--reload PID`` then sends SIGHUP to a running ``tractor-rules serve``: ``make run`` serves on the pure
engine at once while this compiles in the background, then the workers are recycled onto the build.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))  # rules_core.engine from this checkout, not an installed copy
os.environ["TRACTOR_RULES_ENGINE"] = "python"  # this process only reads the source, whatever is asked

from rules_core import engine  # noqa: E402

GROUP = "rules_core.engine_native"
"""The shared library of the compiled modules, a submodule of rules_core: found through its ``__path__``."""
NO_COMPILER = 3


def has_compiler() -> bool:
    """Whether the C compiler Python was built with (or ``$CC``) is on PATH."""
    compiler = os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "cc")
    return shutil.which(compiler.split()[0]) is not None


def compile_into(out: Path, modules: list[Path], *, opt_level: str, quiet: bool) -> None:
    """Compile ``modules`` with mypyc and put the extension modules and the manifest into ``out``."""
    from mypyc.build import mypycify  # noqa: PLC0415  # a build-time dependency only
    from setuptools import Distribution  # noqa: PLC0415

    with tempfile.TemporaryDirectory(prefix="tractor-rules-mypyc-") as scratch:
        cwd = Path.cwd()
        os.chdir(ROOT)  # mypyc names the modules from the paths, relative to the checkout
        try:
            extensions = mypycify(
                [str(m.relative_to(ROOT)) for m in modules],
                opt_level=opt_level,
                target_dir=str(Path(scratch) / "c"),
                group_name=GROUP,
            )
            for extension in extensions:
                # mypyc compiles with -Werror; a newer gcc's flow warnings about mypyc's own generated C
                # (maybe-uninitialized) must not fail the build: they stay warnings
                extension.extra_compile_args.append("-Wno-error")
            dist = Distribution({"name": "tractor-rules-engine", "ext_modules": extensions})
            build = dist.get_command_obj("build_ext")
            build.build_lib = str(Path(scratch) / "lib")
            build.build_temp = str(Path(scratch) / "tmp")
            dist.verbose = not quiet
            dist.run_command("build_ext")
        finally:
            os.chdir(cwd)
        fresh = out.with_name(out.name + ".new")
        shutil.rmtree(fresh, ignore_errors=True)
        shutil.copytree(Path(scratch) / "lib", fresh)
        (fresh / engine.MANIFEST).write_text(engine.manifest_text(modules))
    # Replace the old build whole, so a reader never sees half of each.
    shutil.rmtree(out, ignore_errors=True)
    fresh.rename(out)


def handles_sighup(pid: int) -> bool:
    """Whether process ``pid`` catches SIGHUP (Linux /proc): a serving supervisor, which recycles on it."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    if b"tractor-rules" not in command:  # gone, and its pid taken by another process
        return False
    caught = next((line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), "0")
    return bool(int(caught, 16) >> (signal.SIGHUP - 1) & 1)


def reload(pid: int) -> None:
    """SIGHUP the supervisor ``pid``: it recycles its workers one at a time, and the new ones load this build.

    Only a process that catches SIGHUP gets it (the default action would end it); one still starting
    is waited for a while.
    """
    for _ in range(60):
        if handles_sighup(pid):
            os.kill(pid, signal.SIGHUP)
            print(f"build_engine: SIGHUP sent to {pid}: its workers move to the compiled engine")
            return
        time.sleep(1)
    print(f"build_engine: {pid} does not catch SIGHUP (not serving?): not signalled", file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", type=Path, default=engine.compiled_dir(), help="default: %(default)s")
    parser.add_argument("--opt-level", default="3", help="the C compiler's -O level (default 3)")
    parser.add_argument("--if-stale", action="store_true", help="do nothing when the build matches")
    parser.add_argument("--check", action="store_true", help="only exit 0 when the build matches, else 1")
    parser.add_argument("--quiet", action="store_true")
    parser.add_argument("--reload", type=int, metavar="PID", help="then SIGHUP this tractor-rules serve")
    args = parser.parse_args()
    if args.check:
        return 0 if engine.build_matches(args.out) else 1
    if args.if_stale and engine.build_matches(args.out):
        print(f"build_engine: {args.out} matches the source")
        return 0
    if not has_compiler():
        print("build_engine: no C compiler: the pure-Python engine stays in use", file=sys.stderr)
        return NO_COMPILER
    start = time.perf_counter()
    compile_into(args.out, engine.compiled_sources(), opt_level=args.opt_level, quiet=args.quiet)
    print(f"build_engine: compiled rules_core into {args.out} in {time.perf_counter() - start:.0f} s")
    if args.reload:
        reload(args.reload)
    return 0


if __name__ == "__main__":
    sys.exit(main())
