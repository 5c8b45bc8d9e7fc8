"""Rows: norms, clipping and centring, dense or sparse, each computed row
within its bound in float64.

Every row a mechanism sees is ``z_i = clip_B(x_i − c) / B``
(``unit_ball_rows``), computed so that its float64 norm is at most its bound
(:func:`clip_factors`); the proof that the float error of the second moment
of such rows is absorbed, and the constants and limits it needs, are in
:mod:`dppca.linalg.float_error`; the sums themselves in
:mod:`dppca.linalg.clipped_sums`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

from ..float_state import owns_float_state
from ..validation import ROW_NORM_TOLERANCE
from .float_error import (
    MAX_MAGNITUDE,
    UNIT_ROUNDOFF,
    _check_bound,
    _check_features,
    _check_n,
    default_chunk_rows,
    norm_relative_error,
)

#: Sums of squares outside ``[2⁻⁹⁶⁰, 2⁹⁶⁰]`` are recomputed by
#: :func:`row_norms` with the row scaled by its largest entry.
_SAFE_SQUARES = (2.0**-960, 2.0**960)

#: Most norm-to-bound ratio :func:`clip_factors` accepts: the factor then stays
#: a normal float.
_MAX_CLIP_RATIO = 1e290


def check_centre(centre, d: int):
    """``centre`` as a float vector of length ``d`` (or None), refused if
    not finite or if a coordinate exceeds :data:`MAX_MAGNITUDE`, the range
    where the float64 error bounds are verified."""
    if centre is None:
        return None
    centre = np.asarray(centre, dtype=float).ravel()
    if centre.shape != (d,):
        raise ValueError(
            f"centre must be a vector of length {d}; got shape {centre.shape}"
        )
    if not np.all(np.isfinite(centre)):
        raise ValueError("centre contains NaN or Inf")
    largest = float(np.max(np.abs(centre)))
    if largest > MAX_MAGNITUDE:
        raise ValueError(
            f"centre has a coordinate of magnitude {largest:.3g} > "
            f"{MAX_MAGNITUDE:g}: x − c or its square could overflow, so the "
            "float64 error bound cannot be verified; rescale the data"
        )
    return centre


def _as_rows(X):
    """Dense float64 2-D array or canonical float64 CSR matrix."""
    if scipy.sparse.issparse(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D; got shape {X.shape}")
        X = X.tocsr()
        if X.dtype != np.float64:
            X = X.astype(np.float64)
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
    else:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D; got shape {X.shape}")
    _check_n(X.shape[0])
    _check_features(X.shape[1])
    return X


def _refuse_overflow(squares, what: str):
    if not np.all(np.isfinite(squares)):
        raise ValueError(
            f"{what} contains NaN or Inf, or a row whose squared norm "
            "overflows float64 (entries beyond about 1e154): the float64 "
            "error bound cannot be verified; rescale the data"
        )


def _refuse_long_rows(count, total, largest, bound):
    """Refuse rows above a public bound (``clip=False``). The message names
    no count or norm of the rows: an error is an output too."""
    raise ValueError(
        f"X has rows of norm above the public bound {bound:.6g} (the norm "
        "of x - c when a public centre c is subtracted), which clip=False "
        "refuses; pass clip=True to clip them or a larger public bound"
    )


#: Rows whose norm exceeds ``TAME_FACTOR`` times the largest public scale of
#: a computation (bound, centre, pre-clip bound) are first scaled down by a
#: power of two (:func:`tame_rows`).
TAME_FACTOR = 2.0**40

#: ... and never to more than this, so that sums of squares cannot overflow.
_TAME_CEILING = 2.0**500

#: ... nor to more than this many times the bound the rows are clipped to
#: first (``clip_to``): a margin below :data:`_MAX_CLIP_RATIO` that the
#: rounding of a norm cannot cross, so that :func:`clip_factors` accepts
#: every tamed row whatever the public scales.
_TAME_RATIO = 2.0**900


def tame_rows(X, scale: float, clip_to: float | None = None):
    """``X`` with every finite row of norm above ``L = TAME_FACTOR · scale``
    (capped at ``2⁵⁰⁰``, and at ``2⁹⁰⁰ · clip_to`` when given), or whose sum
    of squares overflows, multiplied by a power of two that brings its norm
    to at most ``L``: the original ``X`` when no row is that long.

    ``clip_to`` is the bound the rows are clipped to first (a pre-clip
    bound far below ``scale``): a tamed row's clip factor is then a normal
    float, and :func:`clip_factors` accepts it, for every pair of public
    scales, so that no row of any length is refused where another is
    clipped.

    ``scale`` is public (the largest of the bound, the centre's norm and the
    pre-clip bound), so this is a map on each row alone and neighbours stay
    neighbours. Such a row lies far beyond every bound, so the clipping that
    follows keeps only its direction, which an exact power-of-two scaling
    does not change (entries more than ``2⁻¹⁰⁷⁴`` below the row's largest
    may underflow). So any finite row is clipped like any other, however
    large its entries, instead of overflowing. Rows with NaN or Inf are
    left as they are (refused as non-finite).
    """
    limit = min(TAME_FACTOR * float(scale), _TAME_CEILING)
    if clip_to is not None:
        limit = min(limit, _TAME_RATIO * float(clip_to))
    sparse = scipy.sparse.issparse(X)
    with np.errstate(over="ignore", invalid="ignore"):
        if sparse:
            squares = _csr_row_reduce(X, X.data * X.data)
        else:
            squares = _squares(X)
        long_rows = np.sqrt(squares) > limit
        long_rows |= np.isinf(squares)
    if not long_rows.any():
        return X
    (index,) = np.nonzero(long_rows)
    if sparse:
        largest = _csr_row_reduce(X, np.abs(X.data), np.maximum)[index]
    else:
        largest = np.max(np.abs(X[index]), axis=1)
    keep = np.isfinite(largest)
    index, largest = index[keep], largest[keep]
    # largest · 2^-e ≤ limit / (2 √d): the scaled norm is at most limit
    width = max(X.shape[1], 1)
    exponents = np.frexp(largest)[1] - np.frexp(limit / (2 * width**0.5))[1]
    exponents = np.maximum(exponents, 0)
    X = X.copy()
    if sparse:
        factors = np.ones(X.shape[0])
        factors[index] = np.ldexp(1.0, -exponents)
        X.data = X.data * np.repeat(factors, np.diff(X.indptr))
    else:
        X[index] = np.ldexp(X[index], -exponents[:, None])
    return X


def _public_scale(bound, centre=None, pre=None) -> float:
    """The largest public scale of a computation (for :func:`tame_rows`)."""
    scale = float(bound) if pre is None else max(float(bound), float(pre))
    if centre is not None:
        scale = max(scale, float(np.linalg.norm(centre)))
    return scale


# ------------------------------------------------------------------------------
# Norms, clipping, projection
# ------------------------------------------------------------------------------


def _csr_row_reduce(X, values, ufunc=np.add):
    """Per-row ``ufunc.reduce`` of ``values`` (aligned with ``X.data``)."""
    out = np.zeros(X.shape[0])
    filled = np.diff(X.indptr) > 0
    if X.nnz:
        out[filled] = ufunc.reduceat(values, X.indptr[:-1][filled])
    return out


def _squares(block) -> np.ndarray:
    return np.einsum("ij,ij->i", block, block)


@owns_float_state
def row_norms(X) -> np.ndarray:
    """Euclidean norms of the rows of a dense or scipy.sparse matrix.

    Sparse input is never densified. A row whose sum of squares overflows or
    underflows (entries beyond about ``1e154`` or below ``1e-145``) is
    recomputed scaled by its largest entry, so every finite row gets a finite
    norm with relative error at most
    :func:`~dppca.linalg.float_error.norm_relative_error`. Rows with
    NaN give NaN, rows with an infinite entry ``inf``.
    """
    return _row_norms(X)


def _row_norms(X) -> np.ndarray:
    """:func:`row_norms` for a caller already under the package's float
    state (``dppca.float_state``), which costs about 20 µs to enter."""
    if scipy.sparse.issparse(X):
        X = X.tocsr()
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        data = np.asarray(X.data, dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):
            squares = _csr_row_reduce(X, data * data)
        rescue = ~(
            (squares >= _SAFE_SQUARES[0]) & (squares <= _SAFE_SQUARES[1])
        )
        norms = np.sqrt(squares)
        if np.any(rescue & (np.diff(X.indptr) > 0)):
            largest = _csr_row_reduce(X, np.abs(data), np.maximum)
            ok = rescue & (largest > 0) & np.isfinite(largest)
            scale = np.where(ok, largest, 1.0)
            scaled = data / np.repeat(scale, np.diff(X.indptr))
            sums = _csr_row_reduce(X, scaled * scaled)
            norms[ok] = largest[ok] * np.sqrt(sums[ok])
            norms[rescue & np.isinf(largest)] = np.inf
        return norms
    X = np.asarray(X, dtype=float)
    squares = _squares(X)
    norms = np.sqrt(squares)
    (rescue,) = np.nonzero(
        ~((squares >= _SAFE_SQUARES[0]) & (squares <= _SAFE_SQUARES[1]))
    )
    step = default_chunk_rows(max(X.shape[1], 1))
    for start in range(0, rescue.size, step):
        rows = rescue[start : start + step]
        block = X[rows]
        largest = np.max(np.abs(block), axis=1, initial=0.0)
        ok = (largest > 0) & np.isfinite(largest)
        scaled = block[ok] / largest[ok, None]
        norms[rows[ok]] = largest[ok] * np.sqrt(_squares(scaled))
        norms[rows[np.isinf(largest)]] = np.inf
    return norms


def _factors_to(norms, target: float, relative_error: float) -> np.ndarray:
    """``min(1, T'/ν)`` with ``T' = fl(T fl(1 − κ))``, ``κ = ε + 8u``."""
    inner = target * (1.0 - (relative_error + 8 * UNIT_ROUNDOFF))
    factors = np.ones_like(norms)
    over = norms > inner
    factors[over] = inner / norms[over]
    return factors


def _checked_norms(norms, bound):
    norms = np.asarray(norms, dtype=float)
    if not np.all(np.isfinite(norms)):
        raise ValueError("row norms contain NaN or Inf")
    largest = float(norms.max(initial=0.0))
    if largest > bound * _MAX_CLIP_RATIO:
        raise ValueError(
            f"a row norm exceeds the bound ({bound:.3g}) by more than "
            f"{_MAX_CLIP_RATIO:g}: its clip factor would be a subnormal "
            "float; scale it first (tame_rows)"
        )
    return norms, largest


def clip_factors(
    norms, bound: float, clip: bool, *, n_features: int | None = None
) -> np.ndarray:
    """Per-row factors that bring every row within ``bound``.

    ``clip=True``: ``f_i = min(1, T/ν_i)`` with ``T = fl(bound fl(1 − κ))``;
    ``clip=False``: the same after checking that no row has norm above
    ``bound · (1 + ROW_NORM_TOLERANCE)`` (``ValueError`` naming how many do);
    the rows within the tolerance are brought inside quietly.

    Guarantee: the computed row ``fl(f_i x_i)`` (and the exact ``f_i x_i``)
    has norm at most ``bound``, provided ``ν_i ≥ (1 − ε)‖x_i‖``. With
    ``n_features=d`` the norms may be those of :func:`row_norms`
    (``ε = ε_d``,
    :func:`~dppca.linalg.float_error.norm_relative_error`), so the computed
    norm of the
    clipped row is within ``bound`` too; without it the norms must be exact or
    over-estimates (``ε = 0``). Proof: ``κ = ε + 8u``, and
    ``T ≤ bound (1 − κ)(1 + u)²``. If ``f_i = 1``,
    ``‖x_i‖ ≤ ν_i/(1 − ε) ≤ T/(1 − ε) ≤ bound``. Otherwise
    ``f_i = fl(T/ν_i) ≤ (1 + u) T/ν_i`` and ``‖fl(f_i x_i)‖ ≤ (1 + u) f_i
    ‖x_i‖ + √d 2⁻¹⁰⁷⁵ ≤ (1 + u)⁴ (1 − κ) bound/(1 − ε) + √d 2⁻¹⁰⁷⁵ ≤
    bound``, the underflow term being below ``u bound`` as
    ``bound ≥``
    :data:`~dppca.linalg.float_error.MIN_BOUND`; the factor is a normal float as
    ``ν_i ≤ 10²⁹⁰ bound`` (else ``ValueError``).
    """
    bound = _check_bound(bound, "data_norm")
    norms, largest = _checked_norms(norms, bound)
    if not clip:
        too_long = norms > bound * (1.0 + ROW_NORM_TOLERANCE)
        if np.any(too_long):
            _refuse_long_rows(int(too_long.sum()), norms.size, largest, bound)
    error = 0.0 if n_features is None else norm_relative_error(n_features)
    return _factors_to(norms, bound, error)


def project_to_ball(v, radius: float) -> np.ndarray:
    """``v`` scaled down onto the ball of the given radius if it lies
    outside."""
    norm = float(np.linalg.norm(v))
    return v * (radius / norm) if norm > radius else v


@owns_float_state
def clip_rows(X, bound: float = 1.0) -> np.ndarray:
    """A new dense array: the rows of ``X`` clipped to norm ``bound``
    (:func:`clip_factors`: each computed row has norm at most ``bound``)."""
    X = np.asarray(X, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError("clip_rows expects a finite 2-D array")
    if X.shape[0] == 0:
        return X.copy()
    X = tame_rows(X, _check_bound(bound, "data_norm"))
    factors = clip_factors(row_norms(X), bound, True, n_features=X.shape[1])
    return X * factors[:, None]


@owns_float_state
def unit_ball_rows(
    X,
    bound: float,
    *,
    centre=None,
    clip: bool = True,
    pre_clip: float | None = None,
):
    """The rows a row-wise mechanism sees: ``x_i`` (clipped first to norm
    ``pre_clip`` when given), minus ``centre`` when given, divided by
    ``bound`` and clipped to norm one (``clip=True``) or refused above it
    (``clip=False``, :func:`clip_factors`).

    Each output row depends on its own input row only (and on the public or
    already released ``centre``), so replace-one neighbours stay replace-one
    neighbours, and every computed output row has norm at most one
    (:func:`clip_factors` on the computed rows). Without a centre a
    ``scipy.sparse`` input stays sparse (CSR); otherwise the result is a new
    dense array.
    """
    bound = _check_bound(bound, "bound")
    sparse = scipy.sparse.issparse(X)
    if sparse:
        X = scipy.sparse.csr_matrix(X, dtype=float)
        d = X.shape[1]
    else:
        X = np.asarray(X, dtype=float)
        if X.ndim != 2 or not np.all(np.isfinite(X)):
            raise ValueError("unit_ball_rows expects a finite 2-D array")
        d = X.shape[1]
    if centre is not None:
        centre = check_centre(centre, d)
    X = tame_rows(X, _public_scale(bound, centre, pre_clip), pre_clip)
    if pre_clip is not None:
        factors = clip_factors(row_norms(X), pre_clip, True, n_features=d)
        X = scipy.sparse.diags(factors) @ X if sparse else X * factors[:, None]
    if centre is not None:
        X = (X.toarray() if sparse else X) - centre
        sparse = False
    scaled = X * (1.0 / bound) if sparse else X / bound
    if sparse:
        scaled = scipy.sparse.csr_matrix(scaled)
    factors = clip_factors(row_norms(scaled), 1.0, clip, n_features=d)
    if sparse:
        return scipy.sparse.csr_matrix(scipy.sparse.diags(factors) @ scaled)
    return scaled * factors[:, None]


def clipped_finite_rows(rows, bound) -> tuple:
    """``(clipped rows, finite)``: every finite row clipped to norm
    ``bound`` by :func:`clip_rows` (a row of any finite length, 1e200 or
    1e-200 included, gets its norm without overflow or underflow), every
    other row set to 0 and marked."""
    finite = np.all(np.isfinite(rows), axis=1)
    out = np.zeros_like(rows)
    if finite.any():
        out[finite] = clip_rows(rows[finite], bound)
    return out, finite


__all__ = [
    "TAME_FACTOR",
    "clip_factors",
    "clip_rows",
    "clipped_finite_rows",
    "project_to_ball",
    "row_norms",
    "tame_rows",
    "unit_ball_rows",
]
