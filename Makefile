# The two commands of the README: `make run` and `make test`.
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: run test install install-test warmup warmup-all bench clean

# Virtual environment with the package (editable) and what it needs to run: `make run`
# plays a demo with this alone.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -e .
	touch $@

# The test dependencies besides (the `test` extra: several hundred MB), for `make test`.
$(TEST_STAMP): $(STAMP)
	$(BIN)/pip install --quiet --disable-pip-version-check -e ".[test]"
	touch $@

install: $(STAMP)

install-test: $(TEST_STAMP)

# Compile the numba kernels once into the on-disk cache: those a default game calls,
# or (warmup-all) every kernel and every rule's pattern tables, as the tests use them.
warmup: install
	$(BIN)/gomoku-engine warmup

warmup-all: install
	$(BIN)/gomoku-engine warmup --all

# A short demonstration game between two engine processes through the protocol.
run: warmup
	$(BIN)/gomoku-engine demo

test: install-test warmup-all
	$(BIN)/python -m pytest -q -rs

bench: warmup
	$(BIN)/gomoku-engine bench

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
	find src -name __pycache__ -type d -prune -exec rm -rf {} +
