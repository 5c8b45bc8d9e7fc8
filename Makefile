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

.PHONY: book test lint unit notebooks render-fast check-stripped env clean clean-cache bench lab

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
test: $(STAMP) check-stripped lint
	$(BLAS1) $(BIN)/python -m pytest -n auto --dist worksteal tests
	$(BIN)/python tools/render_book.py fast

unit: $(STAMP)
	$(BLAS1) $(BIN)/python -m pytest -n auto tests -m "not notebook"

notebooks: $(STAMP)
	$(BLAS1) $(BIN)/python -m pytest -n auto tests -m notebook

render-fast: $(STAMP)
	$(BIN)/python tools/render_book.py fast

## make lint: ruff's formatter and linter over package, tests, tools and chapters
lint: $(STAMP)
	$(BIN)/ruff format --check --quiet .
	$(BIN)/ruff check --quiet .

check-stripped: $(STAMP)
	$(BIN)/nbstripout --verify chapters/*.ipynb

bench: $(STAMP)
	for script in benchmarks/*.py; do $(BIN)/python $$script || exit 1; done

## make lab: open the chapters in JupyterLab (installs the dev extra on first use)
lab: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[book,test,peers,dask,dev]'
	$(BIN)/jupyter lab chapters/

clean-cache:
	rm -rf _build/.jupyter_cache _build/full

clean:
	rm -rf _build
