# Hardening evidence: fuzzing, hostile inputs, soak. Included from the root Makefile, which defines
# BIN (the virtualenv's bin) and INSTALLED (its stamp). Every tool starts its own `tractor-rules serve`
# on 127.0.0.1 ephemeral ports, bounds its own load and stops the server when done.

FUZZ_REQUESTS ?= 100000
FUZZ_SEED ?= 1
FUZZ_LONG_REQUESTS ?= 2000000
FUZZ_LONG_SEED ?= 7
SOAK_SECONDS ?= 600
SOAK_RATE ?= 400

.PHONY: fuzz fuzz-long hostile soak soak-short hardening typecheck-hardening

fuzz: $(INSTALLED)  ## 100,000 seeded fuzzed requests through `tractor-rules serve`; prints the count and verdict
	$(BIN)/python -m loadtest.hardening.fuzz --requests $(FUZZ_REQUESTS) --seed $(FUZZ_SEED)

fuzz-long: $(INSTALLED)  ## the long fuzz run (FUZZ_LONG_REQUESTS, default 2,000,000: 10 to 20 minutes on 2 cores)
	$(BIN)/python -m loadtest.hardening.fuzz --requests $(FUZZ_LONG_REQUESTS) --seed $(FUZZ_LONG_SEED)

hostile: $(INSTALLED)  ## hostile inputs from outside: each with the status and field it must get
	$(BIN)/python -m loadtest.hardening.hostile

soak: $(INSTALLED)  ## realistic load for SOAK_SECONDS (default 600): errors, p99 drift, memory growth per worker
	$(BIN)/python -m loadtest.hardening.soak --seconds $(SOAK_SECONDS) --rate $(SOAK_RATE)

soak-short: $(INSTALLED)  ## the 20-second soak CI runs
	$(BIN)/python -m loadtest.hardening.soak --seconds 20 --warmup 5 --interval 1

hardening: $(INSTALLED)  ## the hardening tests alone (TLS, limits, faults, fuzz, hostile, soak)
	$(BIN)/pytest -n 2 tests/hardening

typecheck-hardening: $(INSTALLED)  ## mypy --strict on loadtest/hardening alone
	$(BIN)/mypy --strict loadtest/hardening
