"""Rows: norms, clipping, centring and the second moment of the clipped rows,
dense or sparse, with every floating-point error bounded and absorbed.

Every mechanism of the book is calibrated to the replace-one sensitivity of
the *exact* second moment ``A = (1/n) Σ z_i z_iᵀ`` of rows of norm at most one,
``‖A − A'‖_F ≤ Δ = √2/n``. The rows are ``z_i = clip_B(x_i − c) / B``: the
data row, minus a public centre ``c``, clipped to the public bound ``B`` and
divided by it (or first clipped to ``R`` about the origin, the private-mean
path of :class:`dppca.estimator.PrivatePCA`). This module computes ``A`` in
float64 and proves that the *computed* matrix ``fl(A)`` still has sensitivity
at most ``Δ``; the proof below is the one the book cites.

Why it needs care. Expanding ``‖x − c‖² = ‖x‖² − 2⟨x, c⟩ + ‖c‖²`` and
``Σ (x_i − c)(x_i − c)ᵀ = Σ x_i x_iᵀ − u cᵀ − c uᵀ + n c cᵀ`` cancels
catastrophically when ``‖c‖ ≫ B``: each term is of size ``‖c‖²`` and its
rounding error ``u‖c‖²`` (``u = 2⁻⁵³``) swamps the ``B²`` that is left. At
``‖c‖ = 10⁷ B`` two neighbouring data sets of 1000 rows then give matrices
several ``Δ`` apart (hundreds at ``10⁸ B``), and for one such centre a row at
distance ``3B`` is measured at ``3.46B`` (``10⁸ B``) or ``0`` (``10¹⁰ B``).
Here every row is centred *before* any product or norm: one float
subtraction has relative error at most ``u`` on the difference itself, however
large ``c`` is.

Notation. ``u = 2⁻⁵³``; ``γ_k = k u / (1 − k u)``. A quantity that goes
through ``k`` roundings, each ``(1 + δ)`` with ``|δ| ≤ u``, is within
``γ_k`` of its exact value (Higham, *Accuracy and Stability of Numerical
Algorithms*, 2002, Lemma 3.1). A sum of products computed in any order,
with or without fused multiply-adds, has error at most ``γ_m Σ|terms|``
when every term goes through at most ``m`` roundings (ibid., Sec. 3.1);
BLAS products are sums of products in some order (no Strassen-type
algorithms: OpenBLAS, MKL, BLIS and Accelerate qualify). Underflow adds an
absolute error of at most ``2⁻¹⁰⁷⁵`` to a product and none to a sum.

**Proposition (sensitivity of the computed matrix).** Let ``n`` rows be
processed in chunks of ``p`` rows (:func:`default_chunk_rows`), ``N = ⌈n/p⌉``
chunks, ``K = ⌈√N⌉`` chunks per block, and ``M = p + K + ⌈N/K⌉ + 8``. Let
``L = 1`` for the chunked computation and ``L = (1 + 2r)²``, ``r ≥ ‖m‖/B``,
for the sparse expansion about ``m`` below. If ``s = 1 − η`` satisfies

    Δ s² + 2 γ_M L s² + 2τ ≤ Δ,        τ = d · 2⁻¹⁰⁷⁰,              (★)

then ``‖fl(A) − fl(A')‖_F ≤ Δ`` for every pair of data sets that differ in
one row. :func:`float_error_shrink` chooses ``η`` (about ``γ_M L n/√2``) and
checks (★) in exact rational arithmetic.

*Proof.* (1) *Rows.* The computed rows ``z_i`` are float vectors (for the
sparse expansion: the real vectors ``a_i x_i − b_i m`` with float scalars
``a_i, b_i``, never formed). Each depends on ``x_i`` and the public
``c, B, R, n, d`` only, so neighbouring data sets give row lists that differ in
one row. Each has exact norm ``‖z_i‖ ≤ s``: the chunked path computes
``y = fl(x − c)`` and ``ν = fl(‖y‖)``, with ``ν ≥ (1 − ε_d)‖y‖``,
``ε_d = γ_{d+6}`` (:func:`norm_relative_error`: ``d`` roundings in the sum of
squares, one in the square root, and room for the scaled recomputation of
:func:`row_norms` and for underflow, which is below ``u B²`` because
``B ≥ 10⁻¹⁵⁰``); it scales by ``t = fl(s'/max(ν, B))`` with
``s' = fl(s fl(1 − κ))``, ``κ = ε_d + 8u``, and
``‖fl(t y)‖ ≤ (1+u)⁴ s (1 − κ)‖y‖/max(ν, B) + √d 2⁻¹⁰⁷⁵ ≤ (1+u)⁴ (1 − κ)
s/(1 − ε_d) + √d 2⁻¹⁰⁷⁵ ≤ s`` (the underflow term is below ``u s``). The
division by ``B`` is the same multiplication, by ``t = fl(s'/B)`` for every
row inside the bound; the subtraction's error does not enter at all, since
``y`` is itself a function of ``x_i``. The sparse expansion (pre-clip
factor ``f_i``, 1 without ``R``) uses instead of ``ν`` an upper bound
``U_i ≥ ‖f'_i x_i − m‖`` for ``f'_i = a_i/b_i``, ``a_i = fl(t_i f_i)``,
``b_i = t_i``: with ``ξ_i = fl(‖x_i‖)`` and ``q_i`` the computed
``f_i² ξ_i² − 2 f_i ⟨x_i, m⟩ + ‖m‖²``, whose error is at most
``2.5γ_{d+8} (f_i‖x_i‖ + ‖m‖)²`` (``ξ_i²`` is within ``2ε_d + 3u`` of
``‖x_i‖²``, the rest within ``γ_{d+4}``), ``e_i = 3γ_{d+8} (f_i ξ_i +
‖m‖)²`` bounds it as ``ξ_i ≥ (1 − ε_d)‖x_i‖``,
``U_i = fl(√(q_i⁺ + e_i)) (1 + 8u) + 4u f_i ξ_i`` (the last term covers
``|f'_i − f_i| ≤ u f_i``); then ``t_i = fl(fl(s(1 − 4u))/max(U_i, B))`` and
``‖z_i‖ = t_i ‖f'_i x_i − m‖ ≤ t_i U_i ≤ s``.
Hence ``‖A(z) − A(z')‖_F = ‖z zᵀ − z' z'ᵀ‖_F / n ≤ √(‖z‖⁴ + ‖z'‖⁴)/n ≤ Δ s²``
for the exact second moment ``A(z)`` of the computed rows.

(2) *The sum.* Every entry of ``Σ z_i z_iᵀ`` is a sum over the rows of
products. In the chunked path a term goes through one rounding in the
product, at most ``p − 1`` in its chunk's BLAS product, at most ``K`` into
its block and ``⌈N/K⌉`` into the total, and one in the division by ``n``:
fewer than ``M``. (Chunk products are formed separately and then added: a
BLAS ``C += ...`` would let the running sum go through every chunk's
roundings.) So ``|fl(A) − A(z)|_{jk} ≤ γ_M (1/n) Σ_i |z_ij||z_ik|`` and
``‖fl(A) − A(z)‖_F ≤ γ_M (1/n) Σ_i ‖z_i‖² ≤ γ_M s²``. The sparse expansion
``Σ a_i² x_i x_iᵀ − u mᵀ − m uᵀ + β m mᵀ`` (``u = Σ a_i b_i x_i``,
``β = Σ b_i²``) adds at most six roundings per term (the scaled entries
``fl(a_i x_ij)``, the outer products, the three combinations; when every row
has the same ``a_i = b_i = a_0`` the rows are left unscaled and the sums
multiplied by ``fl(a_0²)``, two roundings instead of the scaling), so its
error
is at most ``γ_M (1/n) Σ_i (a_i‖x_i‖ + b_i‖m‖)²``; as
``a_i‖x_i‖ ≤ ‖z_i‖ + b_i‖m‖`` and ``b_i ≤ s/B``, each term is at most
``s²(1 + 2‖m‖/B)² ≤ L s²``. Underflow adds at most ``τ/2`` to each. The
result is made exactly symmetric by copying its upper triangle, which adds
no rounding.

(3) *Together.* ``‖fl(A) − fl(A')‖_F ≤ ‖A(z) − A(z')‖_F + 2γ_M L s² + 2τ
≤ Δ s² + 2γ_M L s² + 2τ ≤ Δ`` by (★). ∎

The same argument gives :func:`clipped_row_sum`: rows clipped to
``T = R s`` have ``‖Σ v_i − Σ v'_i‖ ≤ 2T``, and the computed sum and its
division by ``n`` add at most ``(γ_M + u(1 + γ_M)) n T`` per data set, in
ℓ₂ and, times ``√d``, in ℓ₁; ``s (1 + n(γ_M + u(1 + γ_M))) ≤ 1`` keeps
``fl(Σ v_i / n)`` within the sensitivity ``2R/n`` (ℓ₂) and ``2R√d/n`` (ℓ₁)
of the exact mean of rows clipped to ``R``.

*Sizes.* With ``p = 4096`` rows per chunk, ``η ≈ 8·10⁻¹¹`` at ``n = 10³``,
``7·10⁻⁸`` at ``n = 2·10⁵`` and ``3·10⁻⁶`` at ``n = 10⁷`` (times ``L`` for the
expansion). A uniform shrink leaves the eigenvectors of ``A`` unchanged and
costs a factor ``s²`` in signal against the noise. Above
:data:`MAX_SHRINK` (``n`` beyond about ``2·10⁹``) the bound is refused.

*What is refused* (``ValueError``): non-finite entries; rows whose squared
norm (after centring) overflows float64, i.e. entries beyond about
``10¹⁵⁴``; centre coordinates beyond :data:`MAX_MAGNITUDE`; bounds outside
``[MIN_BOUND, MAX_MAGNITUDE]``; more than :data:`MAX_FEATURES` columns; a
row norm more than ``10²⁹⁰`` times the bound it is clipped to. The
bound holds for any centre within those limits, ``‖c‖ = 10¹² B`` included.

*Dense and sparse.* Dense rows are processed in chunks: centre, norms,
factors, scale, ``dsyrk``. Sparse rows (CSR, CSC) use the expansion above
when its shrink ``η`` (with ``L``) is at most
``max(EXPANSION_MAX_SHRINK, η with L = 1)``: a condition on the public
``n, d, ‖m‖/B`` only. Otherwise they are densified a chunk at a time
(``p × d`` floats, at most 16 MiB). Both formats use the same ``η``, so
the result does not depend on the storage format beyond rounding.

*Accuracy.* Against the exact second moment ``A*`` of the exactly clipped
rows ``clip_B(x_i − c)/B`` (no shrink),
``‖fl(A) − A*‖_F ≤ 2η + 2ρ + γ_M L + τ`` with ``ρ`` the relative error of a
computed row (``ClippedSecondMoment.accuracy_bound``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import scipy.linalg.blas
import scipy.sparse

from ..validation import ROW_NORM_TOLERANCE
from .dense import DENSE_COLUMN_FRACTION

#: Unit roundoff of float64, ``u = 2⁻⁵³``.
UNIT_ROUNDOFF = 2.0**-53

#: Largest centre coordinate and bound accepted, so that ``(2 · 10¹⁵⁰)²``
#: summed over :data:`MAX_FEATURES` columns cannot overflow.
MAX_MAGNITUDE = 1e150

#: Smallest bound accepted, so that underflow stays below ``u B²``.
MIN_BOUND = 1e-150

#: Most columns accepted (the underflow terms of the proof assume it).
MAX_FEATURES = 10**7

#: Largest shrink ``η`` accepted; beyond it the float64 bound is refused.
MAX_SHRINK = 1e-3

#: The sparse expansion about a centre is used when the shrink it needs is at
#: most this (or at most the chunked path's own shrink).
EXPANSION_MAX_SHRINK = 1e-5

#: A chunk of dense rows holds at most this many bytes ...
CHUNK_BYTES = 2**24

#: ... and at most this many rows.
MAX_CHUNK_ROWS = 4096

#: Sums of squares outside ``[2⁻⁹⁶⁰, 2⁹⁶⁰]`` are recomputed by
#: :func:`row_norms` with the row scaled by its largest entry.
_SAFE_SQUARES = (2.0**-960, 2.0**960)

#: Most norm-to-bound ratio :func:`clip_factors` accepts: the factor then stays
#: a normal float.
_MAX_CLIP_RATIO = 1e290

#: Largest ratio of a public scale (centre, pre-clip bound) to the bound.
_MAX_PUBLIC_RATIO = 1e240

_U = Fraction(1, 2**53)


# ------------------------------------------------------------------------------
# Error constants
# ------------------------------------------------------------------------------


def rounding_gamma(k: int) -> float:
    """``γ_k = k u / (1 − k u)``: the relative error after ``k`` roundings."""
    k = int(k)
    if not 0 <= k * UNIT_ROUNDOFF < 0.5:
        raise ValueError(f"gamma_k needs 0 <= k u < 1/2; got k = {k}")
    return k * UNIT_ROUNDOFF / (1.0 - k * UNIT_ROUNDOFF)


def _exact_gamma(k: int) -> Fraction:
    return k * _U / (1 - k * _U)


def norm_relative_error(n_features: int) -> float:
    """``ε_d = γ_{d+6}``: :func:`row_norms` (and the chunk norms) return
    ``ν ≥ (1 − ε_d)‖x‖`` for rows of ``d`` finite entries."""
    return rounding_gamma(_check_features(n_features) + 6)


def default_chunk_rows(n_features: int) -> int:
    """Rows per chunk: ``min(4096, 2²¹ // d)`` (at most 16 MiB of floats),
    and at least one."""
    d = _check_features(n_features)
    return max(1, min(MAX_CHUNK_ROWS, CHUNK_BYTES // (8 * d)))


def _chunk_plan(n: int, chunk_rows: int) -> tuple[int, int, int]:
    """``(p, K, M)``: rows per chunk, chunks per block and the longest
    chain of roundings of one term (module docstring)."""
    p = min(int(chunk_rows), n)
    chunks = -(-n // p)
    per_block = math.isqrt(chunks - 1) + 1  # ⌈√N⌉
    return p, per_block, p + per_block + -(-chunks // per_block) + 8


def _spread(centre_ratio: float, n_features: int) -> Fraction:
    """``L = (1 + 2r)²`` with ``r`` rounded up from the computed ratio."""
    if not (math.isfinite(centre_ratio) and centre_ratio >= 0):
        raise ValueError(f"centre_ratio must be >= 0; got {centre_ratio!r}")
    slack = 1.0 + 2.0 * norm_relative_error(n_features) + 8 * UNIT_ROUNDOFF
    r = Fraction(centre_ratio * slack)
    return (1 + 2 * r) ** 2


def _second_moment_shrink(n, d, chunk_rows, centre_ratio):
    """``(η, s)`` of the proposition, (★) checked in rational arithmetic."""
    n, d = _check_n(n), _check_features(d)
    chunk_rows = _check_chunk_rows(chunk_rows, d)
    _, _, M = _chunk_plan(n, chunk_rows)
    gamma, L = _exact_gamma(M), _spread(centre_ratio, d)
    tau = Fraction(d, 2**1070)
    first_order = gamma * L * n * Fraction(1000, 1414)  # γ L n / √2
    eta = math.inf
    if first_order <= MAX_SHRINK:
        eta = float(first_order) * (1 + 1e-6) + 2.0**-50
    for _ in range(60):
        if eta > MAX_SHRINK:
            break
        s = 1.0 - eta
        S = Fraction(s) ** 2
        # Δ s² + 2γLs² + 2τ ≤ Δ  ⇔  4 n² (γLs² + τ)² ≤ 2 (1 − s²)²
        if 4 * n * n * (gamma * L * S + tau) ** 2 <= 2 * (1 - S) ** 2:
            return eta, s
        eta *= 1.25
    raise ValueError(
        f"the float64 error of a second moment of n = {n} rows (chunks of "
        f"{chunk_rows}, centre ratio {centre_ratio:.3g}) needs a shrink "
        f"above {MAX_SHRINK:g}: the privacy bound cannot be verified in "
        "float64"
    )


def float_error_shrink(
    n: int,
    n_features: int,
    chunk_rows: int | None = None,
    *,
    centre_ratio: float = 0.0,
) -> float:
    """The shrink ``η`` that absorbs the float error of a second moment.

    Rows scaled to norm at most ``s = 1 − η`` give a computed ``fl(A)`` whose
    replace-one sensitivity is at most ``√2/n`` (module docstring, (★)).
    ``centre_ratio`` is ``‖m‖/B`` for the sparse expansion about ``m`` (its
    spread ``L = (1 + 2r)²``); 0 for the chunked computation. About
    ``γ_M L n/√2`` with ``M ≈ p + 2√(n/p)``; raises ``ValueError`` above
    :data:`MAX_SHRINK`.
    """
    return _second_moment_shrink(n, n_features, chunk_rows, centre_ratio)[0]


def _row_sum_shrink(n, d, chunk_rows):
    n, d = _check_n(n), _check_features(d)
    chunk_rows = _check_chunk_rows(chunk_rows, d)
    _, _, M = _chunk_plan(n, chunk_rows)
    gamma = _exact_gamma(M)
    growth = 1 + n * (gamma + _U * (1 + gamma))
    eta = float(growth - 1) * (1 + 1e-6) + 2.0**-50
    for _ in range(60):
        if eta > MAX_SHRINK:
            break
        s = 1.0 - eta
        if Fraction(s) * growth <= 1:
            return eta, s
        eta *= 1.25
    raise ValueError(
        f"the float64 error of a sum of n = {n} rows needs a shrink above "
        f"{MAX_SHRINK:g}: the privacy bound cannot be verified in float64"
    )


def row_sum_shrink(
    n: int, n_features: int, chunk_rows: int | None = None
) -> float:
    """The shrink ``η`` of :func:`clipped_row_sum`: rows clipped to
    ``R (1 − η)`` give a computed sum (and mean, ``fl(total / n)``) within the
    sensitivity ``2R`` (``2R/n``) of rows clipped to ``R``, in ℓ₂ and ℓ₁."""
    return _row_sum_shrink(n, n_features, chunk_rows)[0]


# ------------------------------------------------------------------------------
# Checks
# ------------------------------------------------------------------------------


def _check_n(n) -> int:
    n = int(n)
    if n < 1:
        raise ValueError(f"need at least one row; got n = {n}")
    return n


def _check_features(d) -> int:
    d = int(d)
    if not 1 <= d <= MAX_FEATURES:
        raise ValueError(
            f"the number of columns must be in [1, {MAX_FEATURES}]; got {d}"
        )
    return d


def _check_chunk_rows(chunk_rows, d) -> int:
    if chunk_rows is None:
        return default_chunk_rows(d)
    chunk_rows = int(chunk_rows)
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows must be >= 1; got {chunk_rows}")
    return chunk_rows


def _check_bound(bound, name: str = "bound") -> float:
    value = float(bound)
    if not (math.isfinite(value) and MIN_BOUND <= value <= MAX_MAGNITUDE):
        raise ValueError(
            f"{name} must be a finite number in [{MIN_BOUND:g}, "
            f"{MAX_MAGNITUDE:g}] (float64 error bounds are verified only "
            f"there); got {bound!r}"
        )
    return value


def _check_centre(centre, d: int):
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
        f"X has rows of norm above the public bound {bound:.6g}, which "
        "clip=False refuses; pass clip=True to clip them or a larger public "
        "bound"
    )


#: Rows whose norm exceeds ``TAME_FACTOR`` times the largest public scale of
#: a computation (bound, centre, pre-clip bound) are first scaled down by a
#: power of two (:func:`tame_rows`).
TAME_FACTOR = 2.0**40

#: ... and never to more than this, so that sums of squares cannot overflow.
_TAME_CEILING = 2.0**500


def tame_rows(X, scale: float):
    """``X`` with every finite row of norm above ``L = TAME_FACTOR · scale``
    (capped at ``2⁵⁰⁰``), or whose sum of squares overflows, multiplied by a
    power of two that brings its norm to at most ``L``: the original ``X``
    when no row is that long.

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


def row_norms(X) -> np.ndarray:
    """Euclidean norms of the rows of a dense or scipy.sparse matrix.

    Sparse input is never densified. A row whose sum of squares overflows or
    underflows (entries beyond about ``1e154`` or below ``1e-145``) is
    recomputed scaled by its largest entry, so every finite row gets a finite
    norm with relative error at most :func:`norm_relative_error`. Rows with
    NaN give NaN, rows with an infinite entry ``inf``.
    """
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
    (``ε = ε_d``, :func:`norm_relative_error`), so the computed norm of the
    clipped row is within ``bound`` too; without it the norms must be exact or
    over-estimates (``ε = 0``). Proof: ``κ = ε + 8u``, and
    ``T ≤ bound (1 − κ)(1 + u)²``. If ``f_i = 1``,
    ``‖x_i‖ ≤ ν_i/(1 − ε) ≤ T/(1 − ε) ≤ bound``. Otherwise
    ``f_i = fl(T/ν_i) ≤ (1 + u) T/ν_i`` and ``‖fl(f_i x_i)‖ ≤ (1 + u) f_i
    ‖x_i‖ + √d 2⁻¹⁰⁷⁵ ≤ (1 + u)⁴ (1 − κ) bound/(1 − ε) + √d 2⁻¹⁰⁷⁵ ≤
    bound``, the underflow term being below ``u bound`` as
    ``bound ≥`` :data:`MIN_BOUND`; the factor is a normal float as
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
        centre = _check_centre(centre, d)
    X = tame_rows(X, _public_scale(bound, centre, pre_clip))
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
    ``1 − η`` (:func:`row_sum_shrink`).
    """

    total: np.ndarray
    n_clipped: int
    shrink: float


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
        ``(1/n) Σ z_i z_iᵀ``, exactly symmetric.
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


def clipped_second_moment(
    X,
    bound: float,
    *,
    centre=None,
    clip: bool = True,
    pre_clip: float | None = None,
    chunk_rows: int | None = None,
) -> ClippedSecondMoment:
    """``(1/n) Σ z_i z_iᵀ`` of the clipped, centred, scaled rows, with a
    proved float64 sensitivity.

    ``z_i = s · clip_B(x̃_i − c) / B`` with ``B = bound``, ``c = centre`` (0 if
    None), ``x̃_i = clip_R(x_i)`` for ``R = pre_clip`` (about the origin: the
    private-mean path) or ``x_i``, and ``s = 1 −`` :func:`float_error_shrink`.
    ``clip=False`` refuses (``ValueError`` naming how many) rows above a bound
    by more than ``ROW_NORM_TOLERANCE`` instead of clipping them. The computed
    matrix has replace-one sensitivity at most ``√2/n`` in Frobenius norm, the
    sensitivity the mechanisms are calibrated to (module docstring).

    ``X`` may be a dense array or a scipy.sparse matrix (CSR, CSC, any);
    sparse ``X`` is never densified whole. Returns a
    :class:`ClippedSecondMoment`.
    """
    X = _as_rows(X)
    n, d = X.shape
    bound = _check_bound(bound)
    pre = None if pre_clip is None else _check_bound(pre_clip, "pre_clip")
    centre = _check_centre(centre, d)
    chunk_rows = _check_chunk_rows(chunk_rows, d)
    scale = _public_scale(bound, centre, pre)
    if scale / bound > _MAX_PUBLIC_RATIO:
        raise ValueError(
            "the centre or pre-clip bound exceeds the bound by more than "
            f"{_MAX_PUBLIC_RATIO:g}: clip factors would be subnormal floats"
        )
    X = tame_rows(X, scale)
    eta_chunks, s_chunks = _second_moment_shrink(n, d, chunk_rows, 0.0)
    ratio = 0.0
    if centre is not None:
        ratio = float(np.sqrt(centre @ centre)) / bound
    try:
        eta, s = _second_moment_shrink(n, d, chunk_rows, ratio)
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
    matrix = _symmetric(gram, n)
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
    "CHUNK_BYTES",
    "ClippedRowSum",
    "ClippedSecondMoment",
    "EXPANSION_MAX_SHRINK",
    "MAX_CHUNK_ROWS",
    "MAX_FEATURES",
    "MAX_MAGNITUDE",
    "MAX_SHRINK",
    "MIN_BOUND",
    "UNIT_ROUNDOFF",
    "clip_factors",
    "clip_rows",
    "clipped_row_sum",
    "clipped_second_moment",
    "default_chunk_rows",
    "float_error_shrink",
    "norm_relative_error",
    "project_to_ball",
    "row_norms",
    "row_sum_shrink",
    "rounding_gamma",
    "tame_rows",
    "unit_ball_rows",
]
