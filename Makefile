# One entry point for people and CI. `make report` builds the bundled article;
# `make test` runs every check (ruff, mypy, pytest).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARTICLE ?= runs/paiton-kimi-k3.1-pro

.PHONY: report test lint bench bench-build check clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

report: $(STAMP)
	$(BIN)/reportgen build $(ARTICLE) --out build

lint: $(STAMP)
	$(BIN)/ruff check reportgen tests benchmarks conftest.py
	$(BIN)/ruff format --check reportgen tests benchmarks conftest.py
	$(BIN)/mypy

test: lint
	$(BIN)/pytest

bench: $(STAMP)
	$(BIN)/python benchmarks/validate_bench.py
	$(BIN)/python benchmarks/build_bench.py

bench-build: $(STAMP)
	$(BIN)/python benchmarks/build_bench.py

check: $(STAMP)
	$(BIN)/reportgen check $(ARTICLE) --published ../shared/seed/paiton-kimi-k3.1-pro.txt

clean:
	rm -rf build $(VENV)
