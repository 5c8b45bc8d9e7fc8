"""What only the book needs, beside the library: never imported by
``import dppca``. Its dependencies are the extras ``data`` (pandas, tqdm),
``plot`` (matplotlib, seaborn), ``peers`` (diffprivlib, OpenDP) and ``book``.

Its modules:

datasets
    The UCI data sets of the real-data chapters, their tables and matrices
    (extra ``data``).
data_files
    Where the data sets' files come from (cache, mirror, download), their
    sha256 checks and the cache.
preprocessing
    Section 6.1's one-hot encoding and scaling, and the cached matrices (extra
    ``data``).
experiments
    The experiment protocol: utility against n, within a work cap and against
    ε, classification accuracy, summaries (extra ``data``).
mechanism_table
    The mechanisms' table for experiments: baselines, the registry's
    mechanisms, the peer libraries'.
experiment_runner
    What every experiment does for one release: a subset's rows, the release
    within its work cap, its outcome.
synthetic_data
    Synthetic dense rows: Section 6.5's Gaussian data, chapter 17's spiked
    sphere.
peers
    Adapters for the peer libraries' PCA (extra ``peers``).
flipped_bingham
    The law the peer libraries' eigenvector samplers really draw from, and
    the cost of their acceptance test.
contents
    The book's pages as data: numbers, titles, prerequisite edges, toolkit
    sections.
plotting
    The book's figures (extra ``plot``).
bounds
    Every theorem's bound as a plain function, to compare measurements with.
diagnostics
    The chapters' diagnostics of the samplers and mechanisms: convergence
    checks, sampler audits, Monte Carlo error draws, reference laws.
time_limit
    A helper that shows a computation does not return in time.
sparse_data
    Synthetic sparse rows for the sparse-input experiments.
"""


def install_hint(extra: str) -> str:
    """How to install the extra ``extra``: from PyPI, or in a clone of the
    book's repository (where the package is installed in editable mode)."""
    return (
        f'pip install "dppca[{extra}]" (in a clone of the repository: '
        f'pip install -e ".[{extra}]")'
    )
