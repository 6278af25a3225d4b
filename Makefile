# tractor-rules: every target installs what it needs into .venv by itself.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
INSTALLED := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench-core demo clean

$(INSTALLED): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --disable-pip-version-check -U pip==26.0.1
	$(BIN)/pip install -q --disable-pip-version-check -e . --group dev
	touch $@

run: demo  ## start the service (until it exists: play one seeded hand through rules_core)

demo: $(INSTALLED)
	$(BIN)/python -m rules_core.demo --seed 7

test: lint typecheck unit  ## the whole suite: ruff, mypy --strict, pytest

lint: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(INSTALLED)
	$(BIN)/mypy rules_core

unit: $(INSTALLED)
	$(BIN)/pytest -n 2

bench-core: $(INSTALLED)  ## rules_core speed: medians against targets
	$(BIN)/python -m benchmarks.bench_core

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache
