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

.PHONY: book test lint unit notebooks render-fast browser-check pdf check-stripped env clean clean-cache bench lab wheel-check privacy portable-check portable-snapshots

env: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[book,test,peers,dask]'
	touch $@

## make book: execute every chapter at full scale (2 at a time; cached by notebook, dppca
## sources and pins), then render HTML to _build/html with a strict build, then the whole
## book as one PDF, _build/html/_static/dppca-book.pdf (make pdf)
book: $(STAMP)
	$(BLAS1) $(BIN)/python tools/execute_chapters.py --jobs 2
	$(BIN)/python tools/render_book.py full
	$(MAKE) --no-print-directory pdf

## make test: stripped notebooks, lint, the wheel in a fresh venv, the release snapshots under
## other CPUs' kernels (make portable-snapshots), unit tests + every chapter in FAST mode, then
## render those, print them to the book's PDF and open every page of that HTML in headless
## Chromium (when installed)
test: $(STAMP) check-stripped lint wheel-check portable-snapshots
	$(BLAS1) $(BIN)/python -m pytest -n auto --dist worksteal tests
	$(BIN)/python tools/render_book.py fast
	$(MAKE) --no-print-directory pdf PDF_HTML=_build/fast/_build/html
	$(MAKE) --no-print-directory browser-check

## make wheel-check: build the wheel (from a copy of the package: no stale build/ leaks in), install
## it with the core dependencies only (pinned by constraints.txt) into a fresh venv under _build/,
## and use it from a directory outside the source tree
WHEEL_DIR := _build/wheel
define WHEEL_SMOKE
import importlib, pathlib, sys
import numpy as np
import dppca
where = pathlib.Path(dppca.__file__).resolve()
assert pathlib.Path(sys.prefix).resolve() in where.parents, where
X = np.random.default_rng(0).standard_normal((300, 6))
X /= np.linalg.norm(X, axis=1).max()
pca = dppca.PrivatePCA(
    2, epsilon=1.0, delta=1e-5, data_norm=1.0, random_state=0
).fit(X)
assert pca.components_.shape == (2, 6), pca.components_.shape
for module, extra in [("dppca.book.plotting", "plot"), ("dppca.book.datasets", "data")]:
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        assert f"dppca[{extra}]" in str(error), error
    else:
        raise AssertionError(f"{module} imported without the {extra} extra")
print(f"wheel check: dppca {dppca.__version__} from {where.parent}: OK")
endef
export WHEEL_SMOKE
wheel-check: $(STAMP)
	rm -rf $(WHEEL_DIR) && mkdir -p $(WHEEL_DIR)/src $(WHEEL_DIR)/run
	cp -R pyproject.toml README.md dppca $(wildcard LICENSE*) $(WHEEL_DIR)/src/
	find $(WHEEL_DIR)/src -name __pycache__ -prune -exec rm -rf {} +
	$(BIN)/python -m pip wheel --quiet --no-deps -w $(WHEEL_DIR) ./$(WHEEL_DIR)/src
	$(PYTHON) -m venv $(WHEEL_DIR)/venv
	$(WHEEL_DIR)/venv/bin/python -m pip install --quiet --disable-pip-version-check \
	  -c constraints.txt $(WHEEL_DIR)/dppca-*.whl
	cd $(WHEEL_DIR)/run && ../venv/bin/python -c "$$WHEEL_SMOKE"

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

## make pdf: print the rendered book (PDF_HTML, default _build/html) to one PDF with an outline,
## $(PDF_HTML)/_static/dppca-book.pdf, and its API reference to another, _static/dppca-api.pdf,
## in the same Chromium, offline (tools/book_pdf.py); the download menu of every page links to
## both ("Book (PDF)", "API reference (PDF)"). Without Chromium: as the browser check
PDF_HTML ?= _build/html
pdf: $(STAMP)
	@if [ -x "$(CHROMIUM)" ]; then \
	  $(BIN)/python tools/book_pdf.py $(PDF_HTML) && \
	  $(BIN)/python tools/book_pdf.py --api $(PDF_HTML); \
	elif [ "$$DPPCA_REQUIRE_BROWSER" = 1 ]; then \
	  echo "book PDF FAILED: no Chromium at $(CHROMIUM)"; exit 1; \
	else \
	  echo "book PDF SKIPPED: no Chromium at $(CHROMIUM) (apt-get install chromium);" \
	    "the pages' Book (PDF) link leads nowhere"; \
	fi

## make privacy: the privacy suite alone (tests/privacy/, marker "privacy"): tries to break every
## privacy claim of the package; make test runs it with everything else
privacy: $(STAMP)
	$(BLAS1) $(BIN)/python -m pytest -n auto tests -m privacy

## make portable-check: the release snapshots and the privacy suite again as other CPUs compute
## them (issue 37): OpenBLAS's Sandybridge kernels (AVX) with numpy's AVX2 and AVX-512 paths off,
## then OpenBLAS's Haswell kernels (AVX2) with numpy's AVX-512 paths off. The last bits of float
## results change; no test may notice. OPENBLAS_CORETYPE picks the kernels of numpy's and scipy's
## bundled OpenBLAS; NPY_DISABLE_CPU_FEATURES ignores names a CPU or numpy does not know.
## About 2 x 2 min on 2 cores; make portable-snapshots (inside make test) reruns only the snapshots
PORTABLE_RUNS := Sandybridge:X86_V3,X86_V4,AVX512_ICL,AVX512_SPR Haswell:X86_V4,AVX512_ICL,AVX512_SPR
PORTABLE_TESTS ?= tests/policy/test_release_snapshots.py tests/privacy
PORTABLE_JOBS ?= auto
define KERNEL_NAME
import numpy, threadpoolctl
print(", ".join(f"{i['internal_api']} {i.get('architecture')}" for i in threadpoolctl.threadpool_info()))
endef
export KERNEL_NAME
portable-check: $(STAMP)
	@for run in $(PORTABLE_RUNS); do \
	  core=$${run%%:*}; features=$$(echo $${run#*:} | tr , ' '); \
	  export OPENBLAS_CORETYPE=$$core NPY_DISABLE_CPU_FEATURES="$$features"; \
	  echo "portable check: OPENBLAS_CORETYPE=$$core NPY_DISABLE_CPU_FEATURES='$$features'" \
	    "(kernels in use: $$($(BIN)/python -c "$$KERNEL_NAME"))"; \
	  $(BLAS1) $(BIN)/python -m pytest -q -p no:cacheprovider -n $(PORTABLE_JOBS) \
	    $(PORTABLE_TESTS) || exit 1; \
	done

portable-snapshots: $(STAMP)
	@$(MAKE) --no-print-directory portable-check PORTABLE_JOBS=0 \
	  PORTABLE_TESTS=tests/policy/test_release_snapshots.py

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
	$(BIN)/python tools/check_docstrings.py
	$(BIN)/check-jsonschema --builtin-schema vendor.github-workflows .github/workflows/*.yml

check-stripped: $(STAMP)
	$(BIN)/nbstripout --verify chapters/*.ipynb

bench: $(STAMP)
	for script in benchmarks/bench_*.py; do $(BLAS1) $(BIN)/python $$script || exit 1; done

## make lab: open the chapters in JupyterLab (installs the dev extra on first use)
lab: $(STAMP)
	$(BIN)/python -m pip install --quiet -c constraints.txt -e '.[book,test,peers,dask,dev]'
	$(BIN)/jupyter lab chapters/

clean-cache:
	rm -rf _build/.jupyter_cache _build/full

clean:
	rm -rf _build
