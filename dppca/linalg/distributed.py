"""The second moment and the power-method products on Dask, for rows that do
not fit in memory.

A ``dask.array`` of shape ``n x d`` chunked along the rows (one chunk across the
columns) holds the data set: in memory on a cluster, generated lazily
(:func:`synthetic_rows`) or read chunk by chunk from Parquet files
(:func:`read_parquet_rows`). Every pass validates each chunk as it is read
(finite entries, row norms <= 1; or, only when asked, clips rows explicitly),
reduces it to a d x d (``XᵀX``) or d x p (``Xᵀ X V``) partial sum, and adds the
partial sums in Dask's tree reduction. Only these small sums travel to the
client, which divides by n and, for a private release, adds the noise once
(:mod:`dppca.mechanisms.power_method`,
:mod:`dppca.mechanisms.input_perturbation`).

Trust model: differential privacy here protects the people in the data against
whoever sees the *released* output. The machines that run the computation — the
workers that hold or read the rows, the scheduler, and the client that receives
the exact sums ``XᵀX`` or ``XᵀXV`` and adds the noise — form one trusted
aggregator. Nothing noisy is computed on the workers, and a party that controls
a worker or the client is not protected against. (Distributed protocols that
avoid a trusted aggregator, with noise shares and secure aggregation, are out of
scope.)

The same code runs on the local threaded scheduler, on a ``LocalCluster`` and on
a multi-machine ``dask.distributed`` cluster: whichever ``Client`` is current
executes the graphs. Workers must be able to import ``dppca`` and ``numpy``.
"""

from __future__ import annotations

import pathlib
import threading
import time

import numpy as np

from ..float_state import owns_float_state
from ..validation import ROW_NORM_TOLERANCE, check_data, check_n
from . import rows

try:  # dask.distributed is optional: without it only the local schedulers run
    from distributed.diagnostics.plugin import WorkerPlugin
except ImportError:  # pragma: no cover
    WorkerPlugin = object


def is_dask_array(X) -> bool:
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks")


@owns_float_state
def clip_rows(X) -> np.ndarray:
    """Return ``X`` with every row of norm > 1 rescaled to norm 1 (the others
    untouched).

    An explicit, per-row preprocessing step: each output row depends on its own
    input row only, so a mechanism that is private for rows in the unit ball
    stays private for the raw rows. The factors are those of
    :func:`dppca.linalg.rows.clip_factors`, so every computed row has norm at
    most 1
    (rows a few ulps inside the sphere may move by as much).
    """
    return rows.clip_rows(X, 1.0)


@owns_float_state
def _checked_block(block, clip=False):
    """Validate (or, with ``clip``, clip) one chunk of rows; runs on the
    workers."""
    block = np.asarray(block, dtype=float)
    if block.shape[0] == 0:
        return block
    if clip:
        return clip_rows(block)
    norms = rows.row_norms(block)  # one pass; scaled where squares overflow
    if not np.all(np.isfinite(norms)):
        raise ValueError("X contains NaN or Inf (in one chunk of rows)")
    too_long = ~(norms <= 1.0 + ROW_NORM_TOLERANCE)
    if np.any(too_long):
        raise ValueError(
            "X has rows with Euclidean norm > 1; the privacy guarantees "
            "assume ||x_i|| <= 1. Rescale by a public bound or pass clip=True."
        )
    return block


def checked_rows(X, *, clip: bool = False):
    """The lazy dask array of validated (or explicitly clipped) rows, one
    column chunk wide.

    Nothing is computed here: the check runs inside every later pass, chunk by
    chunk, so data larger than memory is never held whole. Unknown chunk sizes
    (from a data frame) are computed.
    """
    import dask.array as da

    if not is_dask_array(X):
        raise TypeError(f"expected a dask array; got {type(X).__name__}")
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n, d); got shape {X.shape}")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    n, d = X.shape
    if n < 1 or d < 2:
        raise ValueError(
            f"X must have at least 1 row and 2 columns; got {X.shape}"
        )
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    return da.map_blocks(_checked_block, X, clip=clip, dtype=float)


@owns_float_state
def _block_gram(block):
    return (block.T @ block)[None]


@owns_float_state
def _block_product(block, V):
    return (block.T @ (block @ V))[None]


def _stacked(X, function, width, **kwargs):
    """Apply ``function`` to every row chunk, giving a (chunks x d x width)
    stack to sum."""
    d = X.shape[1]
    return X.map_blocks(
        function,
        chunks=((1,) * X.numblocks[0], (d,), (width,)),
        new_axis=2,
        dtype=float,
        meta=np.empty((0, 0, 0)),
        **kwargs,
    )


@owns_float_state
def second_moment_dask(
    X, *, clip: bool = False, split_every: int | None = None, lazy=False
):
    """``A = XᵀX/n`` of a dask array of rows, by a tree reduction of
    per-chunk ``XᵢᵀXᵢ``.

    One pass over the data; each task holds one chunk and one d x d partial sum.
    Returns a numpy array (or, with ``lazy=True``, the dask array of A, to
    ``persist``/``compute`` or watch with a progress bar). Trust model: see the
    module docstring.
    """
    rows = checked_rows(X, clip=clip)
    n, d = rows.shape
    A = _stacked(rows, _block_gram, d).sum(axis=0, split_every=split_every)
    A = A / n
    if lazy:
        return A
    A = np.asarray(A.compute())
    return (A + A.T) / 2


def second_moment_operator(X, *, clip: bool = False):
    """``(multiply, n, d)`` with ``multiply(V) = Xᵀ (X V) / n`` computed as a
    Dask reduction.

    Each call is one pass over the rows (validated chunk by chunk); ``V`` (d x
    p, small) is sent with the graph and only the d x p sum comes back. Used by
    :func:`dppca.mechanisms.power_method.noisy_power_method` for dask inputs;
    the noise is
    then added on the client (trusted aggregator, module docstring).
    """
    rows = checked_rows(X, clip=clip)
    n, d = rows.shape
    n = check_n(int(n))

    @owns_float_state  # the products run on the workers and here
    def multiply(V):
        V = np.asarray(V, dtype=float)
        partial = _stacked(rows, _block_product, V.shape[1], V=V)
        return np.asarray(partial.sum(axis=0).compute()) / n

    return multiply, n, d


def synthetic_rows(
    n: int, d: int, eigenvalues, *, chunk_rows: int = 100_000, seed: int = 0
):
    """A lazy ``n x d`` dask array of unit-norm rows, never materialised whole.

    Chunk i draws ``chunk_rows`` Gaussian rows with covariance
    ``diag(eigenvalues)`` (padded with the last value to length d) from
    ``numpy.random.default_rng([seed, i])`` and projects each row onto the unit
    sphere; every pass regenerates the same rows. The top eigenvectors of its
    second moment are the first coordinate axes (in the order of the
    eigenvalues).
    """
    import dask.array as da

    n, d, chunk_rows = int(n), int(d), int(chunk_rows)
    eigenvalues = np.atleast_1d(np.asarray(eigenvalues, dtype=float))
    scales = np.full(d, np.sqrt(eigenvalues[-1]))
    scales[: min(d, eigenvalues.size)] = np.sqrt(eigenvalues[:d])
    sizes = [chunk_rows] * (n // chunk_rows)
    if n % chunk_rows:
        sizes.append(n % chunk_rows)

    def make(block_info=None):
        info = block_info[None]
        i = info["chunk-location"][0]
        rows = info["chunk-shape"][0]
        g = np.random.default_rng([seed, i]).standard_normal((rows, d))
        g *= scales
        return g / np.linalg.norm(g, axis=1, keepdims=True)

    return da.map_blocks(
        make, chunks=(tuple(sizes), (d,)), dtype=float, meta=np.empty((0, 0))
    )


def _write_block(block, file, compression):
    import pyarrow as pa
    import pyarrow.parquet as pq

    block = np.asarray(block, dtype=float)
    table = pa.table(
        {
            f"x{j}": np.ascontiguousarray(block[:, j])
            for j in range(block.shape[1])
        }
    )
    pq.write_table(table, file, compression=compression, use_dictionary=False)
    return block.shape[0]


def write_parquet_rows(
    X, path, *, chunk_rows: int | None = None, compression: str = "snappy"
) -> None:
    """Write the rows of ``X`` (numpy or dask array) to a directory of
    Parquet files
    ``part.<i>.parquet``, one file (one row group) per row chunk, columns ``x0,
    x1, ...``.

    A dask input is written chunk by chunk by whichever scheduler is current (on
    a cluster, by the workers: ``path`` must then be a directory they all can
    write). No chunk is ever gathered.
    """
    import dask
    import dask.array as da

    if not is_dask_array(X):
        X = check_data(X)
        X = da.from_array(X, chunks=(chunk_rows or X.shape[0], X.shape[1]))
    elif chunk_rows is not None:
        X = X.rechunk((chunk_rows, -1))
    X = X.rechunk({1: -1})
    path = pathlib.Path(path)
    path.mkdir(parents=True, exist_ok=True)
    write = dask.delayed(_write_block, pure=False)
    tasks = [
        write(block, str(path / f"part.{i}.parquet"), compression)
        for i, block in enumerate(X.to_delayed().ravel())
    ]
    dask.compute(*tasks)


def _parquet_pieces(path):
    """``[(file, row group, rows)]`` of a Parquet file or directory, from
    metadata only."""
    import re

    import pyarrow.parquet as pq

    path = pathlib.Path(path)
    if path.is_dir():
        files = sorted(
            path.glob("*.parquet"),
            key=lambda f: [
                int(t) if t.isdigit() else t for t in re.split(r"(\d+)", f.name)
            ],
        )
    else:
        files = [path]
    if not files:
        raise FileNotFoundError(f"no .parquet files in {path}")
    pieces = []
    for file in files:
        metadata = pq.ParquetFile(file).metadata
        for group in range(metadata.num_row_groups):
            rows = metadata.row_group(group).num_rows
            if rows:
                pieces.append((str(file), group, rows))
    return pieces


def _read_piece(file, group, columns):
    import pyarrow.parquet as pq

    table = pq.ParquetFile(file).read_row_group(group, columns=columns)
    return np.column_stack(
        [np.asarray(c.to_numpy(), dtype=float) for c in table.columns]
    )


def read_parquet_rows(path, columns=None):
    """A lazy dask array of the rows stored in a Parquet file or directory,
    one chunk per row
    group, in file order (natural sort of the names) then row-group order.

    Only the files' metadata are read here (row counts and column names); each
    chunk is read by the task that needs it, so the data set is never loaded
    whole. ``columns`` selects and orders the columns (default: all, in the
    file's order).
    """
    import dask
    import dask.array as da
    import pyarrow.parquet as pq

    pieces = _parquet_pieces(path)
    names = pq.ParquetFile(pieces[0][0]).schema_arrow.names
    columns = list(names if columns is None else columns)
    missing = set(columns) - set(names)
    if missing:
        raise ValueError(f"columns not in the file: {sorted(missing)}")
    read = dask.delayed(_read_piece, pure=True)
    blocks = [
        da.from_delayed(
            read(file, group, columns), shape=(rows, len(columns)), dtype=float
        )
        for file, group, rows in pieces
    ]
    return da.concatenate(blocks, axis=0)


class WorkerMemorySampler(WorkerPlugin):
    """A worker plugin that samples its worker's resident memory (RSS) in a
    background thread.

    Register it with ``client.register_plugin(WorkerMemorySampler(interval))``;
    afterwards :func:`collect_memory_samples` returns, per worker, arrays of
    times and bytes. Works offline and on any cluster (it only needs ``psutil``,
    which ``distributed`` depends on).
    """

    name = "dppca-memory-sampler"

    def __init__(self, interval: float = 0.05):
        self.interval = float(interval)

    def setup(self, worker):
        """Start sampling the worker process's resident memory."""
        import psutil

        self.samples = []
        self._stop = threading.Event()
        process = psutil.Process()

        def loop():
            while not self._stop.is_set():
                self.samples.append((time.time(), process.memory_info().rss))
                self._stop.wait(self.interval)

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def teardown(self, worker):
        """Stop sampling."""
        self._stop.set()


def _worker_samples(dask_worker):
    plugin = dask_worker.plugins[WorkerMemorySampler.name]
    return list(plugin.samples)


def collect_memory_samples(client) -> dict:
    """``{worker address: (times, rss bytes)}`` from every worker's
    :class:`WorkerMemorySampler`."""
    raw = client.run(_worker_samples)
    out = {}
    for address, samples in raw.items():
        samples = np.asarray(samples, dtype=float).reshape(-1, 2)
        out[address] = (samples[:, 0], samples[:, 1])
    return out


def worker_memory_limits(client) -> dict:
    """``{worker address: memory limit in bytes}`` as the scheduler knows
    them."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    return {address: info["memory_limit"] for address, info in workers.items()}


__all__ = [
    "WorkerMemorySampler",
    "checked_rows",
    "clip_rows",
    "collect_memory_samples",
    "is_dask_array",
    "read_parquet_rows",
    "second_moment_dask",
    "second_moment_operator",
    "synthetic_rows",
    "worker_memory_limits",
    "write_parquet_rows",
]
