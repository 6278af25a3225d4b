# Load tests (loadtest/, loadtest/README.md). Included from the root Makefile, which defines BIN and
# INSTALLED; every target installs Locust (the `loadtest` dependency group) by itself.
# Everything runs against 127.0.0.1 only and stops by itself.

_loadtest_saved_goal := $(.DEFAULT_GOAL)

# The root Makefile's names, for when this file is read first (same values as there).
BIN ?= .venv/bin
INSTALLED ?= $(dir $(BIN)).installed

LOADTEST_TIME ?= 60s
LOADTEST_SMOKE_TIME ?= 5s
LOADTEST_DISTRIBUTED_WORKERS ?= 2
LOADTEST_ARGS ?=
BENCH_ARGS ?=
BENCH_BATCHING_ARGS ?=
CAPACITY_ARGS ?=

LOADTEST_INSTALLED := $(dir $(BIN)).installed-loadtest
LOADTEST_PY := PYTHONPATH=$(CURDIR) $(BIN)/python
CORPUS_FILES := loadtest/corpus/000.jsonl.gz loadtest/corpus/003.jsonl.gz loadtest/corpus/stress.jsonl.gz loadtest/corpus/friends.jsonl.gz

.PHONY: corpus corpus-answers loadtest loadtest-smoke bench bench-batching capacity loadtest-distributed bench-core bench-servicer bench-metrics

$(LOADTEST_INSTALLED): pyproject.toml | $(INSTALLED)
	$(BIN)/pip install -q --disable-pip-version-check -e . --group loadtest
	touch $@

# The corpus is generated, not committed: the same seeds always give the same bytes.
$(CORPUS_FILES) &: loadtest/corpus.py loadtest/table_corpus.py loadtest/replay.py $(wildcard rules_core/*.py rules_core/*/*.py) | $(INSTALLED) $(LOADTEST_INSTALLED)
	$(LOADTEST_PY) -m loadtest.corpus

corpus: $(INSTALLED) $(LOADTEST_INSTALLED)  ## regenerate loadtest/corpus/ from seeded self-play
	$(LOADTEST_PY) -m loadtest.corpus

corpus-answers: $(INSTALLED) $(LOADTEST_INSTALLED) $(CORPUS_FILES) $(GENERATED)  ## SHA-256 of every corpus answer: run before and after a change, compare
	$(LOADTEST_PY) -m loadtest.answers

loadtest: $(INSTALLED) $(LOADTEST_INSTALLED) $(CORPUS_FILES) $(GENERATED)  ## step load, LOADTEST_TIME (60s); reports in loadtest/results/
	$(LOADTEST_PY) -m loadtest.run --time $(LOADTEST_TIME) $(LOADTEST_ARGS)

loadtest-smoke: $(INSTALLED) $(LOADTEST_INSTALLED) $(CORPUS_FILES) $(GENERATED)  ## 4 tables for LOADTEST_SMOKE_TIME (5s)
	$(LOADTEST_PY) -m loadtest.run --smoke --time $(LOADTEST_SMOKE_TIME) $(LOADTEST_ARGS)

bench: $(INSTALLED) $(LOADTEST_INSTALLED) $(CORPUS_FILES) $(GENERATED)  ## service vs echo server, one async client
	$(LOADTEST_PY) -m loadtest.bench $(BENCH_ARGS)

bench-batching: $(INSTALLED) $(LOADTEST_INSTALLED) $(GENERATED)  ## ValidatePlay from 32 threads, unary vs PlayBatcher: calls/s, p50/p99, server CPU (about 30 s)
	$(LOADTEST_PY) -m loadtest.bench_batching $(BENCH_BATCHING_ARGS)

loadtest-distributed: $(INSTALLED) $(LOADTEST_INSTALLED) $(CORPUS_FILES) $(GENERATED)  ## Locust master + workers on this machine
	loadtest/distributed.sh local $(LOADTEST_DISTRIBUTED_WORKERS) --time $(LOADTEST_TIME) $(LOADTEST_ARGS)

capacity: $(INSTALLED) $(LOADTEST_INSTALLED) $(CORPUS_FILES) $(GENERATED)  ## latency vs load curve, unary/batched/echo: CSV, PNG and the knee (about 3 min)
	$(LOADTEST_PY) -m loadtest.capacity $(CAPACITY_ARGS)

BENCH_CORE_ARGS ?=

bench-core: $(INSTALLED)  ## rules_core speed: medians against targets (BENCH_CORE_ARGS=--engines: pure vs compiled; "--against REV": before vs after)
	$(LOADTEST_PY) -m loadtest.bench_core $(BENCH_CORE_ARGS)

bench-servicer: $(INSTALLED) $(GENERATED)  ## the service's own cost per ValidatePlay, without the network
	$(BIN)/python -m loadtest.bench_servicer

bench-metrics: $(INSTALLED)  ## one call's metrics: Metrics against writing them straight to the files (about 10 s)
	$(BIN)/python -m loadtest.bench_metrics

# Included before the root Makefile's first target, this file must not become the default goal.
.DEFAULT_GOAL := $(_loadtest_saved_goal)
