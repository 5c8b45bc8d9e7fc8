"""The float64 error of the rows' computations, bounded and absorbed: the
proof, its constants and the shrinks it chooses.

The mechanisms of the book are calibrated to a replace-one sensitivity of
the *exact* second moment ``A = (1/n) Σ z_i z_iᵀ`` of rows of norm at most one:
the Gaussian ones to ``‖A − A'‖_F ≤ Δ = √2/n``, the bound this module proves
for the computed matrix. The others are calibrated in another norm and lean
on this bound through a conversion: Laplace's entrywise ℓ₁ (upper triangle)
sensitivity ``2d/n`` is at least ``s²(d/√2 + 1)/n + √(d(d + 1))(1 − s²)/n``,
what the bound allows (red team 19); the one-vector noisy power method's
``‖(A − A')v‖ ≤ 1/n`` holds within ``1 + (√2 − 1)(1 − s²)``, which its
products absorb (``power_method.product_shrink``, ``input_shrink``); the
exponential mechanisms' score (PPCA, Amin et al.: ``tr(Vᵀ(A − A')V)``, at
most ``1/n`` exactly) within a similar factor (about ``1 + 4·10⁻⁵`` at
``n = 2²⁷``), not absorbed: their records say they are not fully proved.
The rows are ``z_i = clip_B(x_i − c) / B``: the
data row, minus a public centre ``c``, clipped to the public bound ``B`` and
divided by it (or first clipped to ``R`` about the origin, the private-mean
path of :class:`dppca.PrivatePCA`). The sibling modules
:mod:`dppca.linalg.rows` (norms, clipping) and :mod:`dppca.linalg.clipped_sums`
(the chunked and expansion second moment, the row sum) compute ``A`` in
float64; this module proves that the *computed* matrix ``fl(A)`` still has
sensitivity at most ``Δ``; the proof below is the one the book cites.

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
:func:`~dppca.linalg.rows.row_norms` and for underflow, which is below
``u B²`` because
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

The same argument gives
:func:`~dppca.linalg.clipped_sums.clipped_row_sum`: rows clipped to
``T = R s`` have ``‖Σ v_i − Σ v'_i‖ ≤ 2T``, and the computed sum and its
division by ``n`` add at most ``(γ_M + u(1 + γ_M)) n T`` per data set, in
ℓ₂ and, times ``√d``, in ℓ₁; ``s (1 + n(γ_M + u(1 + γ_M))) ≤ 1`` keeps
``fl(Σ v_i / n)`` within the sensitivity ``2R/n`` (ℓ₂) and ``2R√d/n`` (ℓ₁)
of the exact mean of rows clipped to ``R``.

**Corollary (add/remove neighbours, a public cap).** Let ``N`` be a public
cap on the number of rows and let the computation above run on ``n ≤ N``
rows with the shrink ``s`` of (★) *at* ``N`` (``Δ = √2/N``, ``γ_M`` with
``M = M(N)``), and divide by ``N`` instead of ``n``
(:func:`~dppca.linalg.clipped_sums.clipped_second_moment` with
``max_samples=N``). The result is the second moment of the data set padded
with ``N − n`` zero rows. If two data sets of at most ``N`` rows differ by
one row added or removed, ``‖fl(A) − fl(A')‖_F ≤ Δ = √2/N``: the bound
(★) gives at ``n = N`` for two data sets of ``N`` rows that differ in one
row, as for the padded data sets, where a zero row is replaced by ``z``.
(Fixing ``s`` from ``N`` keeps the rows functions of ``x_i`` and public
values only, so the argument of step (1) still applies; the number of
rows ``n`` is not public here.)

*Proof.* (1) The exact part is ``‖z zᵀ‖_F/N = ‖z‖²/N ≤ s²/N ≤ Δ s²``.
(2) Each data set's float error is at most
``γ_{M(n)} L (1/N) Σ_{i ≤ n} ‖z_i‖² + τ/2 ≤ γ_{M(N)} L s² + τ/2``: the
chunk plan gives ``M(n) ≤ M(N)`` for ``n ≤ N`` (``p = min(chunk, n)``,
the number of chunks and ``K + ⌈N/K⌉`` with ``K = ⌈√N⌉`` never decrease
with ``n``; checked for every ``n`` up to 2²⁰ in the tests), and
``Σ ‖z_i‖² ≤ n s² ≤ N s²``; the division by ``N`` is one rounding, as
the division by ``n`` was. (3) Together they are (★) at ``N``. ∎

So under add/remove the shrink depends on the cap, never on the private
``n``; the guarantee covers data sets of 1 to ``N`` rows, and a data set
of more rows is refused (it lies outside the relation's domain). At
``N = 2²⁷`` (``ADD_REMOVE_MAX_SAMPLES``) ``η`` is ``4.7·10⁻⁵``
(``d = 10``), ``2.8·10⁻⁵`` (``d = 1000``) and ``5.5·10⁻⁵``
(``d = 10⁵``); at ``N = 2³¹`` it is ``9.4·10⁻⁴`` for ``d = 10`` and above
:data:`MAX_SHRINK` for ``d = 10⁵``.

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

import functools
import math
import numbers
from fractions import Fraction

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

#: The default public cap on the number of rows under add/remove
#: neighbours (``max_samples``): ``2²⁷ = 134,217,728`` rows, at which the
#: shrink is below ``6·10⁻⁵`` for ``d`` up to ``10⁵`` (module docstring).
ADD_REMOVE_MAX_SAMPLES = 2**27

#: The sparse expansion about a centre is used when the shrink it needs is at
#: most this (or at most the chunked path's own shrink).
EXPANSION_MAX_SHRINK = 1e-5

#: A chunk of dense rows holds at most this many bytes ...
CHUNK_BYTES = 2**24

#: ... and at most this many rows.
MAX_CHUNK_ROWS = 4096


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
    """``ε_d = γ_{d+6}``:
    :func:`~dppca.linalg.rows.row_norms` (and the chunk norms) return
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


@functools.lru_cache(maxsize=4096)  # a pure function of public sizes
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


def check_max_samples(max_samples) -> int:
    """``max_samples``: a public cap, an integer ``>= 1`` (not a bool)."""
    if isinstance(max_samples, bool) or not isinstance(
        max_samples, numbers.Integral
    ):
        raise TypeError(
            f"max_samples must be an integer >= 1; got {max_samples!r}"
        )
    if max_samples < 1:
        raise ValueError(f"max_samples must be >= 1; got {max_samples!r}")
    return int(max_samples)


def check_row_cap(
    n: int, cap: int, whose: str = "the", nothing: str = "charged"
) -> None:
    """Refuse ``n`` rows above the public cap ``max_samples``: the
    add/remove guarantee covers data sets of 1 to ``cap`` rows. Whether
    this raises depends on ``n``, outside the relation's domain only (as a
    row above a public bound with ``clip=False``). ``whose``: whose
    guarantee the message names; ``nothing``: what did not happen."""
    if n > cap:
        raise ValueError(
            f"X has {n} rows, more than max_samples = {cap}: {whose} "
            "add/remove guarantee covers data sets of 1 to max_samples rows "
            f"(a public cap; raise it). Nothing was {nothing}"
        )


def check_cap_shrink(cap: int, d: int, nothing: str = "charged") -> None:
    """Refuse a cap ``max_samples`` too large for the float64 proof at
    ``d`` features, from public values before anything private happens: the
    shrink is computed for the cap (:func:`float_error_shrink`), and above
    ``MAX_SHRINK`` it cannot be verified (red team 18: refused only after
    the charge before). ``nothing``: what the message says did not happen
    (``"charged"`` for the estimators, ``"drawn"`` for the functions)."""
    try:
        float_error_shrink(cap, d)
    except ValueError as error:
        raise ValueError(
            f"max_samples={cap} is too large for the float64 proof at "
            f"d = {d} ({error}); choose a smaller public cap. Nothing was "
            f"{nothing}"
        ) from None


def add_remove_shrink(
    max_samples: int,
    n_features: int,
    chunk_rows: int | None = None,
    *,
    centre_ratio: float = 0.0,
) -> float:
    """The shrink ``η`` of a second moment under add/remove neighbours:
    :func:`float_error_shrink` at the public cap ``N = max_samples``, which
    covers every data set of at most ``N`` rows divided by ``N`` (module
    docstring, the corollary). Raises ``ValueError`` above
    :data:`MAX_SHRINK`."""
    N = check_max_samples(max_samples)
    return _second_moment_shrink(N, n_features, chunk_rows, centre_ratio)[0]


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
    """The shrink ``η`` of
    :func:`~dppca.linalg.clipped_sums.clipped_row_sum`: rows clipped to
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


__all__ = [
    "ADD_REMOVE_MAX_SAMPLES",
    "CHUNK_BYTES",
    "EXPANSION_MAX_SHRINK",
    "MAX_CHUNK_ROWS",
    "MAX_FEATURES",
    "MAX_MAGNITUDE",
    "MAX_SHRINK",
    "MIN_BOUND",
    "UNIT_ROUNDOFF",
    "add_remove_shrink",
    "check_cap_shrink",
    "check_max_samples",
    "check_row_cap",
    "default_chunk_rows",
    "float_error_shrink",
    "norm_relative_error",
    "row_sum_shrink",
    "rounding_gamma",
]
