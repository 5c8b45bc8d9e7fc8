"""The sums over clipped rows: the second moment (chunked, or the sparse
expansion about a centre) and the row sum of the private mean, their float64
error absorbed as :mod:`dppca.linalg.float_error` proves.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg.blas
import scipy.sparse

from ..float_state import owns_float_state
from ..validation import ROW_NORM_TOLERANCE
from .dense import DENSE_COLUMN_FRACTION
from .float_error import (
    EXPANSION_MAX_SHRINK,
    UNIT_ROUNDOFF,
    _check_bound,
    _check_chunk_rows,
    _chunk_plan,
    _row_sum_shrink,
    _second_moment_shrink,
    _spread,
    check_max_samples,
    norm_relative_error,
    rounding_gamma,
)
from .rows import (
    TAME_FACTOR,
    _as_rows,
    _checked_norms,
    _factors_to,
    _public_scale,
    _refuse_long_rows,
    _refuse_overflow,
    _squares,
    check_centre,
    row_norms,
    tame_rows,
)

#: Largest ratio of a public scale (centre, pre-clip bound) to the bound.
_MAX_PUBLIC_RATIO = 1e240


# ------------------------------------------------------------------------------
# Sums over chunks of rows
# ------------------------------------------------------------------------------


class _TwoLevelSum:
    """Sum of per-chunk results: chunks add into a block, each full block of
    ``per_block`` chunks adds into the total (``K + ⌈N/K⌉`` roundings)."""

    def __init__(self, per_block: int):
        self.per_block = per_block
        self.block = None
        self.count = 0
        self.total = None

    @staticmethod
    def _add(into, parts):
        for i, part in enumerate(parts):
            if scipy.sparse.issparse(into[i]) or scipy.sparse.issparse(part):
                into[i] = into[i] + part
            else:
                into[i] += part

    def add(self, *parts):
        """Add one chunk's results (fresh arrays: the first is kept as is)."""
        if self.block is None:
            self.block = list(parts)
        else:
            self._add(self.block, parts)
        self.count += 1
        if self.count == self.per_block:
            self._flush()

    def _flush(self):
        if self.total is None:
            self.total = self.block
        else:
            self._add(self.total, self.block)
        self.block, self.count = None, 0

    def result(self):
        if self.block is not None:
            self._flush()
        return self.total


def _row_chunks(n: int, p: int):
    for start in range(0, n, p):
        yield start, min(start + p, n)


def _csr_rows(X, start, stop):
    """Rows ``start:stop`` of a CSR matrix, sharing its arrays."""
    lo, hi = X.indptr[start], X.indptr[stop]
    return scipy.sparse.csr_matrix(
        (X.data[lo:hi], X.indices[lo:hi], X.indptr[start : stop + 1] - lo),
        shape=(stop - start, X.shape[1]),
    )


def _dense_block(X, start, stop):
    if scipy.sparse.issparse(X):
        return _csr_rows(X, start, stop).toarray()
    return X[start:stop]


@dataclass(frozen=True)
class ClippedRowSum:
    """Result of :func:`clipped_row_sum`.

    ``total``: ``Σ f_i x_i`` with ``‖f_i x_i‖ ≤ bound · shrink``;
    ``n_clipped``: rows whose computed norm exceeds ``bound``; ``shrink``:
    ``1 − η`` (:func:`~dppca.linalg.float_error.row_sum_shrink`).
    """

    total: np.ndarray
    n_clipped: int
    shrink: float


@owns_float_state
def clipped_row_sum(
    X, bound: float, *, clip: bool = True, chunk_rows: int | None = None
) -> ClippedRowSum:
    """``Σ clip(x_i)`` for the private mean, its float error absorbed.

    Rows are clipped to ``bound · (1 − η)`` (``clip=False``: rows above
    ``bound · (1 + ROW_NORM_TOLERANCE)`` are refused first) and summed in
    chunks. The computed ``total`` and ``fl(total / n)`` then have replace-one
    sensitivity at most ``2 bound`` and ``2 bound / n`` in ℓ₂ (times ``√d``
    in ℓ₁), the sensitivity of the exact mean of rows clipped to ``bound``
    (module docstring). Dense and scipy.sparse ``X``; sparse is never
    densified.
    """
    X = _as_rows(X)
    n, d = X.shape
    bound = _check_bound(bound, "data_norm")
    chunk_rows = _check_chunk_rows(chunk_rows, d)
    X = tame_rows(X, bound)
    _, s = _row_sum_shrink(n, d, chunk_rows)
    target = bound * s * (1.0 - 2 * UNIT_ROUNDOFF)  # ≤ bound · s exactly
    p, per_block, _ = _chunk_plan(n, chunk_rows)
    error = norm_relative_error(d)
    sparse = scipy.sparse.issparse(X)
    if sparse:
        all_norms = row_norms(X)
    total = _TwoLevelSum(per_block)
    refused = clipped = 0
    largest = 0.0
    for start, stop in _row_chunks(n, p):
        block = _csr_rows(X, start, stop) if sparse else X[start:stop]
        norms = all_norms[start:stop] if sparse else row_norms(block)
        _refuse_overflow(norms, "X")
        largest = max(largest, float(norms.max()))
        over = norms > bound
        clipped += int(over.sum())
        if not clip:
            refused += int(np.sum(norms > bound * (1 + ROW_NORM_TOLERANCE)))
            if refused:
                continue
        _checked_norms(norms, target)
        factors = _factors_to(norms, target, error)
        if sparse:
            total.add(np.asarray(block.T @ factors).ravel())
        else:
            total.add(factors @ block)
    if refused:
        _refuse_long_rows(refused, n, largest, bound)
    return ClippedRowSum(total.result()[0], clipped, s)


# ------------------------------------------------------------------------------
# The second moment
# ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ClippedSecondMoment:
    """Result of :func:`clipped_second_moment`.

    Attributes
    ----------
    matrix : ndarray (d, d)
        ``(1/n) Σ z_i z_iᵀ`` (``1/max_samples`` with it), exactly symmetric.
    n_clipped : int
        Rows whose computed distance to the centre exceeds the bound (rows
        within rounding of the bound may count differently in different
        storage formats).
    n_pre_clipped : int
        Rows clipped to ``pre_clip`` about the origin (0 without it).
    shrink : float
        ``s = 1 − η``: every row has norm at most ``s``.
    method : str
        ``"chunks"`` (dense, or sparse densified a chunk at a time) or
        ``"expansion"`` (sparse, about the centre, within its a-priori bound).
    accuracy_bound : float
        Bound on ``‖matrix − A*‖_F``, ``A*`` the exact second moment of the
        exactly clipped rows without shrink (module docstring).
    """

    matrix: np.ndarray
    n_clipped: int
    n_pre_clipped: int
    shrink: float
    method: str
    accuracy_bound: float


def _symmetric(upper, n: int) -> np.ndarray:
    """``upper / n`` made exactly symmetric from its upper triangle."""
    upper = np.asarray(upper) / n
    return np.triu(upper) + np.triu(upper, 1).T


class _Refusals:
    """Counts of clipped and refused rows, over the chunks."""

    def __init__(self, bound, clip):
        self.bound, self.clip = bound, clip
        self.clipped = self.refused = 0
        self.largest = 0.0

    def judge(self, norms) -> bool:
        """Record one chunk's norms; False once a row has been refused."""
        self.largest = max(self.largest, float(norms.max(initial=0.0)))
        self.clipped += int(np.sum(norms > self.bound))
        if not self.clip:
            limit = self.bound * (1 + ROW_NORM_TOLERANCE)
            self.refused += int(np.sum(norms > limit))
        return not self.refused

    def raise_if_refused(self, n):
        if self.refused:
            _refuse_long_rows(self.refused, n, self.largest, self.bound)


def _chunked_second_moment(X, bound, s, centre, pre, p, per_block, clip):
    """Centre, norm, clip and scale each chunk of rows, then ``dsyrk``."""
    n, d = X.shape
    error = norm_relative_error(d)
    scale_numerator = s * (1.0 - (error + 8 * UNIT_ROUNDOFF))
    outer = _Refusals(bound, clip)
    inner = _Refusals(pre, clip) if pre is not None else None
    buffer = np.empty((min(p, n), d))
    total = _TwoLevelSum(per_block)
    for start, stop in _row_chunks(n, p):
        block = _dense_block(X, start, stop)
        rows = buffer[: stop - start]
        if pre is not None:
            norms = row_norms(block)  # any finite row: scaled if need be
            _refuse_overflow(norms, "X")
            if not inner.judge(norms):
                continue
            _checked_norms(norms, pre)
            np.multiply(block, _factors_to(norms, pre, error)[:, None], rows)
            if centre is not None:
                rows -= centre
        elif centre is not None:
            np.subtract(block, centre, out=rows)
        else:
            rows = block
        squares = _squares(rows)
        norms = np.sqrt(squares)
        if not np.all(np.isfinite(squares)):  # centred rows beyond 1e154
            overflow = ~np.isfinite(squares)
            norms[overflow] = row_norms(rows[overflow])
            _refuse_overflow(norms, "X" if centre is None else "X − centre")
        if not outer.judge(norms) or (inner is not None and inner.refused):
            continue
        scale = scale_numerator / np.maximum(norms, bound)
        rows = np.multiply(rows, scale[:, None], out=buffer[: stop - start])
        total.add(scipy.linalg.blas.dsyrk(1.0, rows.T, trans=0, lower=0))
    if inner is not None:
        inner.raise_if_refused(n)
    outer.raise_if_refused(n)
    return total.result()[0], outer.clipped, inner.clipped if inner else 0


def _expansion_second_moment(X, bound, s, centre, pre, p, per_block, clip):
    """The sparse expansion about ``m``, with rigorous upper bounds ``U_i``
    on ``‖x̃_i − m‖`` (module docstring)."""
    n, d = X.shape
    u = UNIT_ROUNDOFF
    xi = row_norms(X)  # ‖x_i‖ within ε_d
    _refuse_overflow(xi, "X")
    pre_clipped = 0
    if pre is not None:
        inner = _Refusals(pre, clip)
        inner.judge(xi)
        inner.raise_if_refused(n)
        pre_clipped = inner.clipped
        _checked_norms(xi, pre)
        f = _factors_to(xi, pre, norm_relative_error(d))
    else:
        f = np.ones(n)
    # q ≈ ‖f x − m‖², within 2.5γ_{d+8} (f‖x‖ + ‖m‖)² (module docstring);
    # e bounds that from the computed ξ ≥ (1 − ε_d)‖x‖.
    fx = f * xi
    if centre is not None:
        m_norm = float(np.sqrt(centre @ centre))
        q = fx * fx - 2.0 * f * np.asarray(X @ centre).ravel()
        q += m_norm * m_norm
        reach = fx + m_norm
    else:
        q, reach = fx * fx, fx
    e = (math.sqrt(3 * rounding_gamma(d + 8)) * reach) ** 2
    _refuse_overflow(q + e, "X − centre")
    estimate = np.sqrt(np.maximum(q, 0.0))
    outer = _Refusals(bound, clip)
    outer.judge(estimate)
    outer.raise_if_refused(n)
    # U ≥ ‖f' x − m‖ for f' = a/t = f(1 + δ): the core (1 + 8u) covers the
    # roundings of q + e and of the square root, 4u f ξ the factor's rounding.
    upper = np.sqrt(np.maximum(q, 0.0) + e) * (1.0 + 8 * u) + 4 * u * fx
    t = (s * (1.0 - 4 * u)) / np.maximum(upper, bound)
    a = t * f if pre is not None else t
    # Columns stored in many rows are multiplied as dense blocks (as in
    # dppca.linalg.sparse_gram), together with one more column holding b = t
    # when there is a centre: its products give u = Σ a_i b_i x_i and
    # β = Σ b_i² in the same BLAS call.
    density = np.bincount(X.indices, minlength=d) / n
    dense_cols = np.flatnonzero(density > DENSE_COLUMN_FRACTION)
    sparse_cols = np.flatnonzero(density <= DENSE_COLUMN_FRACTION)
    n_dense = dense_cols.size
    width = n_dense + (centre is not None)
    # Every row inside both bounds (the common case): a_i = b_i = a_0, so the
    # rows are left unscaled and the sums multiplied by fl(a_0²) at the end
    # (two roundings, as the scaling would have cost).
    uniform = bool(np.all(a == a[0])) and (
        centre is None or bool(np.all(t == a[0]))
    )
    if uniform:
        common, a, t = a[0], np.ones(n), np.ones(n)
    XD = X[:, dense_cols].tocsr() if n_dense else None
    XS = None
    if sparse_cols.size:
        XS = X[:, sparse_cols].tocsr()
        if not uniform:
            XS.data = XS.data * np.repeat(a, np.diff(XS.indptr))
    dense_ss = sparse_cols.size**2 <= 2**22
    total = _TwoLevelSum(per_block)
    for start, stop in _row_chunks(n, p):
        parts = []
        if width:
            block = np.empty((stop - start, width))
            if n_dense:
                dense = _csr_rows(XD, start, stop).toarray()
                if uniform:
                    block[:, :n_dense] = dense
                else:
                    scale = a[start:stop, None]
                    np.multiply(dense, scale, out=block[:, :n_dense])
            if centre is not None:
                block[:, -1] = t[start:stop]
            parts.append(scipy.linalg.blas.dsyrk(1.0, block.T, lower=0))
        if XS is not None:
            rows = _csr_rows(XS, start, stop)
            if width:
                parts.append(np.asarray(rows.T @ block))
            ss = rows.T @ rows
            parts.append(ss.toarray() if dense_ss else ss.tocsr())
        total.add(*parts)
    parts = list(total.result())
    gram = np.zeros((d, d))
    weighted = np.zeros(d)
    if width:
        upper = parts.pop(0)
        block = np.triu(upper) + np.triu(upper, 1).T
        gram[np.ix_(dense_cols, dense_cols)] = block[:n_dense, :n_dense]
        weighted[dense_cols] = block[:n_dense, -1]
        beta = block[-1, -1]
    if XS is not None:
        if width:
            cross = parts.pop(0)
            gram[np.ix_(sparse_cols, dense_cols)] = cross[:, :n_dense]
            gram[np.ix_(dense_cols, sparse_cols)] = cross[:, :n_dense].T
            weighted[sparse_cols] = cross[:, -1]
        ss = parts.pop(0)
        gram[np.ix_(sparse_cols, sparse_cols)] = (
            ss if isinstance(ss, np.ndarray) else ss.toarray()
        )
    if centre is not None:
        correction = np.outer(weighted, centre)
        gram -= correction
        gram -= correction.T
        gram += np.outer(beta * centre, centre)
    if uniform:
        gram *= common * common
    return gram, outer.clipped, pre_clipped


@owns_float_state
def clipped_second_moment(
    X,
    bound: float,
    *,
    centre=None,
    clip: bool = True,
    pre_clip: float | None = None,
    chunk_rows: int | None = None,
    max_samples: int | None = None,
) -> ClippedSecondMoment:
    """``(1/n) Σ z_i z_iᵀ`` of the clipped, centred, scaled rows, with a
    proved float64 sensitivity.

    ``z_i = s · clip_B(x̃_i − c) / B`` with ``B = bound``, ``c = centre`` (0 if
    None), ``x̃_i = clip_R(x_i)`` for ``R = pre_clip`` (about the origin: the
    private-mean path) or ``x_i``, and ``s = 1 −``
    :func:`~dppca.linalg.float_error.float_error_shrink`.
    ``clip=False`` refuses (``ValueError`` naming how many) rows above a bound
    by more than ``ROW_NORM_TOLERANCE`` instead of clipping them. The computed
    matrix has replace-one sensitivity at most ``√2/n`` in Frobenius norm, the
    sensitivity the mechanisms are calibrated to (module docstring).

    ``max_samples=N`` (add/remove neighbours, ``n`` private): the shrink
    is chosen for the public cap ``N`` and the sum divided by ``N``, not
    ``n``: the second moment of the data set padded with zero rows to ``N``
    rows, ``S/N`` for the unnormalised ``S = Σ z_i z_iᵀ``. Two data sets of
    at most ``N`` rows that differ by one row added or removed then give
    matrices at most ``√2/N`` apart (module docstring of
    :mod:`~dppca.linalg.float_error`, the corollary); more than ``N`` rows
    are refused (``ValueError``).

    ``X`` may be a dense array or a scipy.sparse matrix (CSR, CSC, any);
    sparse ``X`` is never densified whole. Returns a
    :class:`ClippedSecondMoment`.
    """
    X = _as_rows(X)
    n, d = X.shape
    bound = _check_bound(bound)
    pre = None if pre_clip is None else _check_bound(pre_clip, "pre_clip")
    centre = check_centre(centre, d)
    chunk_rows = _check_chunk_rows(chunk_rows, d)
    scale = _public_scale(bound, centre, pre)
    if scale / bound > _MAX_PUBLIC_RATIO:
        raise ValueError(
            "the centre or pre-clip bound exceeds the bound by more than "
            f"{_MAX_PUBLIC_RATIO:g}: clip factors would be subnormal floats"
        )
    divisor = n  # the rows the proof counts: n, or the public cap
    if max_samples is not None:
        divisor = check_max_samples(max_samples)
        if n > divisor:
            raise ValueError(
                f"X has {n} rows, more than max_samples = {divisor}: the "
                "add/remove guarantee covers data sets of at most "
                "max_samples rows (raise it, a public choice)"
            )
    X = tame_rows(X, scale, pre)
    eta_chunks, s_chunks = _second_moment_shrink(divisor, d, chunk_rows, 0.0)
    ratio = 0.0
    if centre is not None:
        ratio = float(np.sqrt(centre @ centre)) / bound
    try:
        eta, s = _second_moment_shrink(divisor, d, chunk_rows, ratio)
    except ValueError:
        eta = math.inf
    # (and only where tamed rows cannot overflow its squares: public)
    expansion = eta <= max(EXPANSION_MAX_SHRINK, eta_chunks)
    expansion = expansion and TAME_FACTOR * scale <= 1e150
    if not expansion:
        eta, s, ratio = eta_chunks, s_chunks, 0.0
    p, per_block, M = _chunk_plan(n, chunk_rows)
    if scipy.sparse.issparse(X) and expansion:
        method, compute = "expansion", _expansion_second_moment
    else:
        method, compute = "chunks", _chunked_second_moment
    with np.errstate(over="ignore", invalid="ignore"):  # refused below
        gram, clipped, pre_clipped = compute(
            X, bound, s, centre, pre, p, per_block, clip
        )
    matrix = _symmetric(gram, divisor)
    spread = float(_spread(ratio, d))
    rho = (
        3 * rounding_gamma(d + 8) * spread
        + 2 * norm_relative_error(d)
        + 16 * UNIT_ROUNDOFF * math.sqrt(spread)
    )
    if pre is not None:
        rho += (
            2 * (pre / bound) * (2 * norm_relative_error(d) + 8 * UNIT_ROUNDOFF)
        )
    accuracy = 2 * eta + 2 * rho + rounding_gamma(M) * spread + d * 2.0**-1070
    return ClippedSecondMoment(
        matrix, clipped, pre_clipped, s, method, accuracy * (1 + 1e-6)
    )


__all__ = [
    "ClippedRowSum",
    "ClippedSecondMoment",
    "clipped_row_sum",
    "clipped_second_moment",
]
