"""What only the book needs, beside the library: never imported by
``import dppca``. Its dependencies are the extras ``data`` (pandas, tqdm),
``plot`` (matplotlib, seaborn), ``peers`` (diffprivlib, OpenDP) and ``book``.

Its modules:

datasets
    The UCI data sets of the real-data chapters (extra ``data``).
experiments
    The experiment protocol: the mechanisms' table for experiments, utility
    against n and against ε, classification accuracy (extra ``data``).
peers
    Adapters for the peer libraries' PCA (extra ``peers``).
plotting
    The book's figures (extra ``plot``).
bounds
    Every theorem's bound as a plain function, to compare measurements with.
time_limit
    A helper that shows a computation does not return in time.
sparse_data
    Synthetic sparse rows for the sparse-input experiments.
"""
