# citeledger — every target creates .venv and installs what it needs on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PYTEST_ARGS ?=

.PHONY: all venv demo examples test test-fast test-long lint typecheck update-golden bench clean corpus fuzz

all: test

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	$(MAKE) --no-print-directory $(BIN)/pandoc
	touch $(STAMP)

# pandoc next to citeledger: the README's `pandoc …` lines work with only .venv/bin on PATH
# (the binary ships inside the pypandoc_binary wheel; a system pandoc is not assumed).
$(BIN)/pandoc:
	ln -sf "$$($(BIN)/python -c 'import pathlib, pypandoc; print(pathlib.Path(pypandoc.__file__).parent / "files" / "pandoc")')" $@

venv: $(STAMP) $(BIN)/pandoc

demo: $(STAMP) $(BIN)/pandoc
	$(BIN)/python examples/run_demo.py

# examples/thesis and examples/site built by their own Makefiles, in copies (make test runs
# them too, as slow tests): the strict PDF's text and every relative link of public/ checked
examples: $(STAMP) $(BIN)/pandoc
	$(BIN)/python -m pytest -q tests/test_examples.py tests/test_readme.py

LINTED := src tests filters bench examples tools

test: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy src/citeledger
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# the inner loop: everything but the corpus, browser, compile and concurrency tests
test-fast: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	$(BIN)/mypy src/citeledger
	$(BIN)/python -m pytest -m "not slow" $(PYTEST_ARGS)

lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)

typecheck: $(STAMP)
	$(BIN)/mypy src/citeledger

update-golden: $(STAMP)
	CITELEDGER_UPDATE_GOLDEN=1 $(BIN)/python -m pytest tests/test_golden.py tests/test_edits.py::test_golden_evidence_pages -q
	git --no-pager diff --stat -- tests/golden || true

# The long trials left out of `make test`: verify killed at random points of a 2,000-source run
# (tests/test_verify_scale.py; about four minutes).
test-long: $(STAMP)
	CITELEDGER_LONG=1 $(BIN)/python -m pytest -q -p no:cacheprovider tests/test_verify_scale.py

# The property tests over generated ledgers, styles and ASTs, for a long time (make test runs
# the same files with a few dozen examples each). FUZZ_EXAMPLES=… to go longer.
FUZZ_EXAMPLES ?= 2000
fuzz: $(STAMP)
	CITELEDGER_FUZZ_EXAMPLES=$(FUZZ_EXAMPLES) $(BIN)/python -m pytest -q -p no:cacheprovider \
		tests/test_fuzz.py tests/test_ledger_styles.py

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache examples/*/out \
		examples/*/build examples/site/public
