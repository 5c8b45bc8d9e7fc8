# The two commands of the README: `make book` and `make test`. Both create the virtual
# environment on first use, so a fresh machine needs only Python >= 3.11 and pip.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

# A local mirror of the UCI files (byte-identical, checked by sha256) avoids downloads.
# Point DPPCA_DATA_MIRROR at one; a ../shared/data folder beside the clone is used if present.
DPPCA_DATA_MIRROR ?= $(if $(wildcard ../shared/data/MANIFEST.md),$(abspath ../shared/data),)
export DPPCA_DATA_MIRROR

# One BLAS thread per kernel: parallel notebooks otherwise oversubscribe the cores.
BLAS1 := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

.PHONY: book test lint unit notebooks render-fast browser-check check-stripped env clean clean-cache bench lab

env: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[book,test,peers,dask]'
	touch $@

## make book: execute every chapter at full scale (2 at a time; cached by notebook, dppca
## sources and pins), then render HTML to _build/html with a strict build
book: $(STAMP)
	$(BLAS1) $(BIN)/python tools/execute_chapters.py --jobs 2
	$(BIN)/python tools/render_book.py full

## make test: stripped notebooks, lint, unit tests + every chapter in FAST mode, then render those
## and open every page of that HTML in headless Chromium (when installed)
test: $(STAMP) check-stripped lint
	$(BLAS1) $(BIN)/python -m pytest -n auto --dist worksteal tests
	$(BIN)/python tools/render_book.py fast
	$(MAKE) --no-print-directory browser-check

# Chromium is a system package (Debian: apt-get install chromium), not a pip one. Without it
# the check is skipped with a plain message, unless DPPCA_REQUIRE_BROWSER=1 (.ci/run sets it).
CHROMIUM ?= /usr/bin/chromium
export CHROMIUM
browser-check: $(STAMP)
	@if [ -x "$(CHROMIUM)" ]; then \
	  $(BIN)/python tools/browser_check.py _build/fast/_build/html; \
	elif [ "$$DPPCA_REQUIRE_BROWSER" = 1 ]; then \
	  echo "browser check FAILED: no Chromium at $(CHROMIUM)"; exit 1; \
	else \
	  echo "browser check SKIPPED: no Chromium at $(CHROMIUM) (apt-get install chromium)"; \
	fi

unit: $(STAMP)
	$(BLAS1) $(BIN)/python -m pytest -n auto tests -m "not notebook"

notebooks: $(STAMP)
	$(BLAS1) $(BIN)/python -m pytest -n auto tests -m notebook

render-fast: $(STAMP)
	$(BIN)/python tools/render_book.py fast

## make lint: ruff's formatter and linter over package, tests, tools and chapters; the GitHub
## workflows against their JSON schema (bundled with check-jsonschema: works offline)
lint: $(STAMP)
	$(BIN)/ruff format --check --quiet .
	$(BIN)/ruff check --quiet .
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml

check-stripped: $(STAMP)
	$(BIN)/nbstripout --verify chapters/*.ipynb

bench: $(STAMP)
	for script in benchmarks/bench_*.py; do $(BIN)/python $$script || exit 1; done

## make lab: open the chapters in JupyterLab (installs the dev extra on first use)
lab: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[book,test,peers,dask,dev]'
	$(BIN)/jupyter lab chapters/

clean-cache:
	rm -rf _build/.jupyter_cache _build/full

clean:
	rm -rf _build
