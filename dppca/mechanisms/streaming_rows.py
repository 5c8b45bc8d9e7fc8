"""The rows of streaming DP-PCA (:mod:`dppca.mechanisms.streaming`): an
array, a scipy.sparse matrix, a ``dask.array`` or an iterable of row blocks,
each block checked (its huge rows scaled) and the rows handed out in
minibatches, each row once, in stream order.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np
import scipy.sparse

from ..validation import as_real_array

#: Rows whose largest entry exceeds ``2^HUGE_EXPONENT`` are scaled by a power
#: of two to bring it to ``(2^(HUGE_EXPONENT−1), 2^HUGE_EXPONENT]``
#: (``scale_huge_rows``): their gradients then never overflow.
HUGE_EXPONENT = 240


def scale_huge_rows(block):
    """Each row whose largest ``|entry|`` exceeds ``2^HUGE_EXPONENT``,
    multiplied by the power of two that brings it to at most that.

    A deterministic map applied to every row alone, so neighbouring data sets
    stay neighbours and the privacy proof (which holds for any rows) is
    unchanged; the scaling is exact and keeps each row's direction, hence the
    direction of its gradient. With entries at most ``2^240``, ``‖x‖² ≤ d
    2^480`` and every gradient ``x (xᵀw)`` and its squared norm stay finite.
    Rows below the threshold (every row of sane data) are untouched, and the
    block is then returned as it is, after two reductions (its largest and
    smallest entry) that allocate nothing of its size."""
    values = block.data if scipy.sparse.issparse(block) else block
    return _scale_huge_rows(block, _largest_magnitude(values))


def _scale_huge_rows(block, largest_entry: float):
    """``scale_huge_rows`` given the block's largest ``|entry|`` (already
    computed by the caller's check, so that a block is scanned once)."""
    limit = 2.0**HUGE_EXPONENT
    if largest_entry <= limit:
        return block
    if scipy.sparse.issparse(block):
        data = np.abs(block.data)
        counts = np.diff(block.indptr)
        nonempty = counts > 0
        largest = np.zeros(block.shape[0])
        largest[nonempty] = np.maximum.reduceat(
            data, block.indptr[:-1][nonempty]
        )
        factor = _power_of_two_factor(largest, limit)
        block = block.copy()
        block.data = block.data * np.repeat(factor, counts)
        return block
    largest = np.max(np.abs(block), axis=1, initial=0.0)
    return block * _power_of_two_factor(largest, limit)[:, None]


def _largest_magnitude(values) -> float:
    """``max |v|`` over an array (0 if empty; NaN if it holds a NaN), from
    its maximum and minimum: no temporary of the array's size."""
    if not values.size:
        return 0.0
    return float(np.max(np.abs([np.max(values), np.min(values)])))


def _power_of_two_factor(largest, limit) -> np.ndarray:
    exponent = np.frexp(largest)[1]  # largest < 2^exponent
    shift = np.where(largest > limit, HUGE_EXPONENT - exponent, 0)
    return np.ldexp(1.0, shift)


def _check_block(block, d: int | None):
    """A block of rows as a float64 dense array or canonical CSR matrix,
    finite, with ``d`` columns, its huge rows scaled (``scale_huge_rows``)."""
    if scipy.sparse.issparse(block):
        block = scipy.sparse.csr_matrix(block, dtype=float)
        if not block.has_canonical_format:
            block.sum_duplicates()
        values = block.data
    else:
        block = as_real_array(block)
        values = block
    if block.ndim != 2:
        raise ValueError(
            f"a block of rows must be 2-D; got shape {block.shape}"
        )
    if d is not None and block.shape[1] != d:
        raise ValueError(
            f"a block of rows has {block.shape[1]} columns, expected {d}"
        )
    largest = _largest_magnitude(values)
    if not math.isfinite(largest):  # NaN or ±Inf
        raise ValueError("X contains NaN or Inf")
    return _scale_huge_rows(block, largest)


class _RowBuffer:
    """Rows of a stream, handed out in minibatches of exact sizes, each row
    once (an offset runs through the current block); counts the rows read."""

    def __init__(self, blocks: Iterable):
        self._blocks = iter(blocks)
        self._pending: list = []  # [block, offset of its first unused row]
        self._count = 0
        self.rows_read = 0
        self.d: int | None = None

    def _pull(self) -> bool:
        for block in self._blocks:
            block = _check_block(block, self.d)
            if self.d is None:
                if block.shape[1] < 2:
                    raise ValueError("X must have at least 2 columns")
                self.d = block.shape[1]
            if block.shape[0]:
                self._pending.append([block, 0])
                self._count += block.shape[0]
                self.rows_read += block.shape[0]
                return True
        return False

    def peek_dimension(self) -> int:
        if self.d is None and not self._pull():
            raise ValueError("X has no rows")
        return self.d

    def take(self, m: int):
        """The next ``m`` rows as a dense array or CSR matrix: a read-only
        view of the block when they lie in one dense block (nothing is
        copied), a fresh array or matrix otherwise."""
        while self._count < m:
            if not self._pull():
                raise ValueError(
                    "the rows ran out before the plan was complete (n_rows "
                    "must be the number of rows of the stream)"
                )
        pieces, got = [], 0
        while got < m:
            block, offset = self._pending[0]
            stop = min(block.shape[0], offset + m - got)
            pieces.append(block[offset:stop])
            got += stop - offset
            if stop == block.shape[0]:
                self._pending.pop(0)
            else:
                self._pending[0][1] = stop
        self._count -= m
        if any(scipy.sparse.issparse(b) for b in pieces):
            out = scipy.sparse.vstack(
                [scipy.sparse.csr_matrix(b) for b in pieces], format="csr"
            )
            out.sum_duplicates()
            return out
        if len(pieces) > 1:
            return np.concatenate(pieces)
        view = pieces[0].view()
        view.flags.writeable = False
        return view


def _is_dask(X) -> bool:
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks")


def dask_row_blocks(X):
    """The row chunks of a ``dask.array`` (n × d, chunked along the rows),
    computed one at a time, in order, by the current scheduler (a
    ``distributed.Client`` if one is active): one pass, one chunk in the
    client's memory at a time. Chunks may be dense or scipy.sparse."""
    import dask.array as da  # noqa: F401  (dask is optional)

    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n, d); got shape {X.shape}")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    for block in X.to_delayed().ravel():
        yield block.compute()


def _input_stream(X, n_rows):
    """``(blocks, n)`` for an array, a sparse matrix, a dask array or an
    iterable of row blocks."""
    if _is_dask(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n, d); got shape {X.shape}")
        if any(np.isnan(c) for c in X.chunks[0]):
            X = X.compute_chunk_sizes()
        return dask_row_blocks(X), int(X.shape[0])
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csr_matrix(X, dtype=float)
        return iter([X]), X.shape[0]
    if isinstance(X, np.ndarray) or (
        isinstance(X, Sequence) and not isinstance(X, (str, bytes))
    ):
        X = as_real_array(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n, d); got shape {X.shape}")
        return iter([X]), X.shape[0]
    if n_rows is None:
        raise ValueError(
            "X is a stream of row blocks: pass n_rows, the number of rows it "
            "holds (public under replace-one neighbours)"
        )
    return iter(X), n_rows


__all__ = [
    "HUGE_EXPONENT",
    "dask_row_blocks",
    "scale_huge_rows",
]
