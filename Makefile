# citeledger — every target creates .venv and installs what it needs on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: all demo test lint typecheck update-golden bench clean corpus

all: test

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/python examples/run_demo.py

LINTED := src tests filters bench examples tools

test: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/mypy src/citeledger
	$(BIN)/python -m pytest $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

typecheck: $(STAMP)
	$(BIN)/mypy src/citeledger

update-golden: $(STAMP)
	CITELEDGER_UPDATE_GOLDEN=1 $(BIN)/python -m pytest tests/test_golden.py tests/test_edits.py::test_golden_evidence_pages -q
	git --no-pager diff --stat -- tests/golden || true

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache examples/*/out
