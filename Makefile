# tractor-rules: every target installs what it needs into .venv by itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

TOURNAMENT_ARGS ?=

.PHONY: tournament bench-servicer run serve protos proto-check proto-baseline test lint typecheck unit bench-core demo clean

# The rules contract: protos/ is the source, tractor/rules/v1/ the generated (committed) Python code.
PROTOS := $(wildcard protos/tractor/rules/v1/*.proto)
GENERATED := $(patsubst protos/%.proto,%_pb2.py,$(PROTOS))
PROTO_BASELINE := protos/baseline.binpb

include deploy/deploy.mk
include loadtest/loadtest.mk
include services/hardening.mk

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -U pip==26.0.1
	$(BIN)/pip install -q --disable-pip-version-check -e . --group dev
	touch $@

run: serve  ## start the rules service with its defaults (gRPC :50051, metrics :9464, one worker per CPU)

serve: $(INSTALLED) $(GENERATED)
	$(BIN)/tractor-rules serve

$(GENERATED) &: $(PROTOS) protos/generate.py | $(INSTALLED)
	$(BIN)/python protos/generate.py

protos: $(INSTALLED)  ## regenerate tractor/rules/v1 (code + mypy stubs) from protos/
	$(BIN)/python protos/generate.py

proto-check: $(INSTALLED)  ## buf lint, buf breaking against the baseline, generated code not stale
	$(BIN)/buf lint
	$(BIN)/buf breaking --against $(PROTO_BASELINE)
	$(BIN)/python protos/generate.py --check

proto-baseline: $(INSTALLED)  ## after an intended contract change: make the current protos the baseline
	$(BIN)/buf build --exclude-source-info -o $(PROTO_BASELINE)

demo: $(INSTALLED)  ## play one seeded hand through rules_core and print it
	$(BIN)/python examples/play_hand.py --seed 7

test: lint typecheck unit  ## the whole suite: ruff, mypy --strict, pytest

lint: $(INSTALLED) proto-check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(INSTALLED)
	$(BIN)/mypy rules_core services protos/generate.py hardening

unit: $(INSTALLED) $(GENERATED) deploy-deps
	$(BIN)/pytest -n 2

bench-core: $(INSTALLED)  ## rules_core speed: medians against targets
	$(BIN)/python -m benchmarks.bench_core

tournament: $(INSTALLED)  ## strong auto-play vs R13.6, random and greedy, duplicate deals (TOURNAMENT_ARGS)
	PYTHONPATH=$(CURDIR) $(BIN)/python -m loadtest.tournament $(TOURNAMENT_ARGS)

bench-servicer: $(INSTALLED) $(GENERATED)  ## the service's own cost per ValidatePlay, without the network
	$(BIN)/python -m benchmarks.bench_servicer

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache
