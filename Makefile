# One entry point for people and CI. `make report` builds the bundled article;
# `make test` runs every check (ruff, mypy, pytest). Both set up what they need on a fresh
# machine: the virtualenv, and the Debian packages named below when they are missing.
# `make test-fast` runs the unit tests alone, for the edit-run loop: no root, Chromium or WeasyPrint.
# The interpreter .venv is made from: the distribution's /usr/bin/python3 when it is 3.11 or
# newer and can make a virtualenv, else the python3 on PATH. Debian builds its Python with
# profile-guided and link-time optimisation, which a build from source lacks by default (pyenv's
# here): the suite takes 0.87x to 0.91x the time on Debian's (docs/development.md).
# `make PYTHON=python3.12 test` picks another; an existing .venv is kept as it is.
SYSTEM_PYTHON := /usr/bin/python3
PYTHON ?= $(shell $(SYSTEM_PYTHON) -c 'import sys, ensurepip; sys.exit(sys.version_info < (3, 11))' \
  >/dev/null 2>&1 && echo $(SYSTEM_PYTHON) || echo python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
ARTICLE ?= runs/paiton-kimi-k3.1-pro

# Debian packages, each with the file that shows it is installed.
#   libpango-1.0-0       WeasyPrint's text layout (report and tests)
#   chromium             the browser test opens the built page in headless Chromium, and
#                        benchmarks/serve_bench.py times a preview's reload in it
#   poppler-utils        pdftotext/pdftoppm: tests read the built PDF as a user's tools do
#   libharfbuzz-subset0  WeasyPrint's font subsetting. The PDF's bytes depend on the subsetter
#                        (HarfBuzz or fontTools), so `make report` installs it too: the same
#                        article gives the same PDF before and after `make test`. The tests
#                        build PDFs on both paths.
REPORT_PACKAGES := libpango-1.0-0:lib:libpango-1.0.so libharfbuzz-subset0:lib:libharfbuzz-subset.so
TEST_PACKAGES := $(REPORT_PACKAGES) chromium:bin:chromium poppler-utils:bin:pdftotext

# $(call system-packages,PACKAGES): install the missing ones (as root), or stop and say how.
define system-packages
@missing=""; \
for spec in $(1); do \
  pkg=$${spec%%:*}; rest=$${spec#*:}; kind=$${rest%%:*}; name=$${rest#*:}; \
  if [ "$$kind" = bin ]; then command -v "$$name" >/dev/null 2>&1 || missing="$$missing $$pkg"; \
  else ldconfig -p 2>/dev/null | grep -q "/$$name" || missing="$$missing $$pkg"; fi; \
done; \
if [ -n "$$missing" ]; then \
  cmd="apt-get update && apt-get install -y --no-install-recommends$$missing"; \
  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
    echo "installing Debian packages:$$missing"; \
    export DEBIAN_FRONTEND=noninteractive; \
    apt-get update -qq && apt-get install -y -qq --no-install-recommends$$missing >/dev/null \
      || { echo "could not install$$missing; run: $$cmd" >&2; exit 1; }; \
  else \
    echo "missing Debian packages:$$missing" >&2; \
    echo "run as root: $$cmd" >&2; exit 1; \
  fi; \
fi
endef

.PHONY: report test test-fast lint bench bench-build check limits realtools dist dist-test hooks-test clean report-packages test-packages

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The distribution was named reportgen until issue 25: an old editable install of that name goes
	# first, or its metadata and its copy of the command would outlive it.
	$(BIN)/python -m pip uninstall --quiet --yes reportgen 2>/dev/null || true
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	# An editable install leaves reportgen's bytecode to its first import, which a machine with
	# PYTHONDONTWRITEBYTECODE never writes: compile it, as pip does for an installed package.
	$(BIN)/python -m compileall -q reportgen
	touch $(STAMP)

report-packages:
	$(call system-packages,$(REPORT_PACKAGES))

test-packages:
	$(call system-packages,$(TEST_PACKAGES))

report: report-packages $(STAMP)
	$(BIN)/reportgen build $(ARTICLE) --out build

RUFF := $(BIN)/ruff check reportgen tests benchmarks conftest.py && \
  $(BIN)/ruff format --check reportgen tests benchmarks conftest.py
MYPY := $(BIN)/mypy  # the files pyproject.toml names: reportgen, tests, benchmarks

lint: $(STAMP)
	$(RUFF)
	$(MYPY)

# pytest keeps the test modules it compiles (their asserts rewritten) in __pycache__, as Python
# keeps reportgen's: on a machine with PYTHONDONTWRITEBYTECODE set, every run and every worker
# would compile them all again, half of what collecting the tests costs.
# On every core, each worker starts with half the tests (modules with long tests first,
# conftest.py) and takes work from the other when it runs out (`--dist worksteal`): xdist's
# default hands out large batches, and one core ran the long tests alone for the last 30 s.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n auto --dist worksteal

# The suite on every core; `$(BIN)/pytest tests/test_x.py` runs a part of it in one process.
# mypy checks on one core while pytest's workers run: alone it left the other core idle for the
# 12 s it takes on a fresh clone (no .mypy_cache). Its report is printed after pytest's, and
# either failing fails the target.
test: test-packages $(STAMP)
	$(RUFF)
	@$(MYPY) >$(VENV)/mypy.out 2>&1 & mypy=$$!; \
	$(PYTEST); tests=$$?; \
	wait $$mypy; types=$$?; \
	echo "mypy:"; cat $(VENV)/mypy.out; \
	[ $$tests -eq 0 ] && [ $$types -eq 0 ]

# The unit tests on every core (18 to 20 s here): the tests marked pdf, browser, process or slow
# (pyproject.toml) are left out, and an unmarked test that imports WeasyPrint or Playwright or
# starts a program fails (conftest.py). No Debian package, no root: the edit-run loop.
# `$(BIN)/pytest --fast tests/test_x.py` runs the fast part of one file.
test-fast: $(STAMP)
	$(PYTEST) --fast

# One table: each figure, its goal, pass/fail, and REGRESSED (red) when more than 10% worse
# than benchmarks/recorded.json. `$(BIN)/python benchmarks/run.py --quick` for a short run.
bench: test-packages $(STAMP)
	$(BIN)/python benchmarks/run.py

bench-build: $(STAMP)
	$(BIN)/python benchmarks/build_bench.py

# Every bundled article under runs/: built, and checked against its run files (and, where
# article.toml names one, its published version).
check: report-packages $(STAMP)
	for article in runs/*/; do $(BIN)/reportgen check "$$article" || exit 1; done

# The worst case the article limits allow (reportgen/article/source/limits.py), built in a fresh process:
# it fails at 10 s or 1 GB. Run on its own, not among the parallel tests, whose load would decide it.
limits: report-packages $(STAMP)
	$(BIN)/python benchmarks/worst_case.py

# The real benchmark tools (pinned, each in its own venv under ~/.cache/reportgen-realtools)
# against a real llama.cpp server, into build/realtools/; then import, init, build and check
# each tool's output, and compare it with the independent reference client.
# About 15 minutes cold on 2 cores, 4 with the venvs kept. tests/realtools/README.md has more.
# GenAI-Perf is left out of CI (its perf_analyzer has failed with an HTTP 400 here); its output is
# committed, and `REALTOOLS=guidellm,aiperf,genai-perf make realtools` runs it.
REALTOOLS ?= guidellm,aiperf,inference-perf
realtools: $(STAMP)
	python3 tests/realtools/produce.py --tools $(REALTOOLS) --out build/realtools
	$(BIN)/python tests/realtools/e2e.py build/realtools --tools $(REALTOOLS)

# The sdist and the wheel, into dist/, built as the index gets them (the wheel from the sdist, in
# an isolated environment). Reproducible: every file is dated at the last commit, so the same
# commit gives the same bytes.
dist: $(STAMP)
	rm -rf dist
	SOURCE_DATE_EPOCH=$$(git log -1 --format=%ct 2>/dev/null || echo 315532800) \
	  $(BIN)/python -m build --outdir dist .

# The built wheel installed into a fresh virtualenv and used from an empty folder outside the
# clone (--version, init, build, check), and the sdist's list of files
# (tests/dist/check_wheel.py, which a plain pytest does not collect). About a minute with
# pip's cache warm.
dist-test: report-packages dist
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -p no:cacheprovider tests/dist/check_wheel.py

# The pre-commit hook (.pre-commit-hooks.yaml) run by pre-commit on a temporary repository: it
# builds the hook's virtualenv and pip-installs this checkout into it (a few minutes cold; the
# environment is kept in ~/.cache/reportgen-hooks). Not part of `make test`; `.ci/run` calls it.
hooks-test: report-packages $(STAMP)
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest tests/ci/hooks_e2e.py -p no:xdist

clean:
	rm -rf build dist $(VENV)
