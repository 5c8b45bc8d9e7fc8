"""Trace-sensitive covariance estimation: Dong, Liang and Yi (NeurIPS 2022),
"Differentially private covariance revisited", for replace-one neighbours.

The estimator releases ``A = XᵀX/n`` of rows of norm at most one. Its error
adapts to the trace ``tr A = (1/n) Σ ‖x_i‖²`` (the typical squared row norm)
instead of the worst-case bound ``‖x_i‖ ≤ 1`` that Analyze Gauss pays for.
Two ideas (paper, Section 1.1 and the tail-sensitive algorithm after it):

* **Separate release** (the paper's trace-sensitive algorithm). Release the
  eigenvectors ``P̃`` of ``A + E`` (Gaussian noise ``E`` on the upper
  triangle) and, separately, the eigenvalues ``λ(A) + z`` (Gaussian ``z``);
  output ``P̃ diag(λ(A) + z) P̃ᵀ``. Its Frobenius error is at most
  ``2 √(tr A · ‖E‖₂) + ‖z‖₂`` whatever ``A`` and ``E`` are
  (``separate_error_bound``, proved in chapter 18), which is of order
  ``d^{1/4} √(tr A / n) ρ^{-1/4} + √d / (n √ρ)``, against ``d / (n √ρ)`` for
  noise on the whole matrix.
* **Adaptive clipping** (the paper's tail-sensitive algorithm). Estimate
  ``tr A`` and the profile of the row norms privately, choose a clipping
  radius ``r`` (a power of two) and a release (separate, or Gaussian noise on
  the whole matrix) by minimising a bound on the error, then release the
  second moment of the rows clipped to ``r``: every noise scale shrinks by
  ``r²``, at the price of the clipping bias.

The adaptive estimator (``trace_sensitive_covariance``, ``method=
"adaptive"``) runs four Gaussian steps on the same data, each ρ_j-zCDP for
replace-one neighbours (one row replaced, ``n`` fixed):

1. the trace of the rows clipped to the unit ball, ℓ₂ sensitivity ``1/n``
   (plus ``5u``, ``u = 2⁻⁵³``, for its float evaluation:
   ``trace_sensitivity``), budget ``ρ/8``;
2. the histogram of the row norms over the dyadic levels ``(2^{-j-1},
   2^{-j}]`` (``norm_levels``), ℓ₂ sensitivity ``√2`` (one row leaves a
   bin and enters another), budget ``ρ/8``;
3. post-processing of 1 and 2: the radius and the release
   (``choose_radius``);
4. the release on ``A_r``, the second moment of ``clip_r(x_i)/r`` computed by
   ``dppca.linalg.clipped_sums.clipped_second_moment`` (Frobenius
   sensitivity ``√2/n``, proved in float64), budget ``3ρ/4``: either the
   Gaussian mechanism on its upper triangle, or the separate release,
   ``3ρ/8`` for the eigenvectors
   ``P̃`` (same sensitivity) and then ``3ρ/8`` for the eigenvalues, taken as
   the Rayleigh quotients ``diag(P̃ᵀ A_r P̃)`` along the released ``P̃``
   (linear in ``A_r`` once ``P̃`` is public: ℓ₂ sensitivity ``√2/n``, up to
   the public ``BASIS_DEFECT`` and ``rayleigh_margin``). The output is
   ``r²`` times the result with its spectrum projected onto ``[0, 1]``
   (post-processing). No step reads a data-dependent condition that could
   refuse: the release always returns.

zCDP composes adaptively by adding the ρ's (Bun and Steinke 2016), so the run
is ρ-zCDP with ρ = ``dppca.privacy.zcdp_rho`` (ε, δ), the conversion of
Canonne, Kamath and Steinke (2020), hence (ε, δ)-DP. With ``noise="safe"``
(default) every step rounds its values to a grid and adds exact discrete
Gaussian noise (``dppca.privacy.noise``), calibrated for the rounding, and the
release is private as a program; ``noise="float"`` uses numpy's Gaussian
sampler (private as mathematics only).

**Choices of the authors' code and of ours** (the paper fixes the structure;
chapter 18 says which is whose):

* the paper selects the radius with the sparse vector technique; we release
  the dyadic norm histogram with Gaussian noise instead and select by
  post-processing, so that every step is a Gaussian mechanism (one zCDP
  composition, safe noise throughout);
* the budget split ``(1/8, 1/8, 3/4)``, the even split of the release's
  budget and the projection onto ``[0, r²]`` follow the authors' code; the
  candidate radii are ``2^{-j}``, ``j < 30`` (``DEFAULT_LEVELS``), ours;
* the selection compares high-probability bounds with failure probability
  β = 0.1 (``choose_radius``), with constants of our own derivation
  (``wigner_norm_bound`` and companions), and by default divides the
  separate release's trace term by 6, the heuristic of the authors' code
  (``selection="authors"``);
* the eigenvalues are the Rayleigh quotients of ``A_r`` along the released
  eigenvectors instead of its eigenvalues: the same sensitivity, no
  eigenvalue computation to verify, and never a larger error (chapter 18).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..linalg import clipped_sums, float_error, rows
from ..linalg.dense import top_k_subspace
from ..privacy.calibration import gaussian_zcdp_rho, safe_granularity, zcdp_rho
from ..privacy.guarantees import (
    Release,
    Released,
    noise_record,
    released,
    zcdp_release,
)
from ..privacy.noise import (
    MAX_GAUSSIAN_GRID_SIGMA,
    add_gaussian,
    check_noise_kind,
    perturb_symmetric,
)
from ..validation import (
    as_generator,
    check_choice,
    check_data,
    check_delta,
    check_epsilon,
    check_k,
    check_n,
    check_positive_int,
)
from .spec import MechanismSpec, select

#: The privacy each release provides (chapter 18).
PRIVACY = {
    "trace_sensitive_covariance": "(ε, δ)-DP for replace-one neighbours: "
    "four Gaussian steps (trace of the rows, ℓ₂ sensitivity 1/n; dyadic "
    "norm histogram, √2; the release on the clipped rows' second moment, "
    "√2/n for the matrix and for its eigenvalues) composed as ρ-zCDP, ρ = "
    "zcdp_rho(ε, δ) (Canonne–Kamath–Steinke conversion); the radius and the "
    "release are post-processing. Dong, Liang and Yi (2022), recalibrated "
    "for replace-one by the book (chapter 18).",
    "separate_covariance": "(ε, δ)-DP for replace-one neighbours: the "
    "separate release alone on the unclipped rows (eigenvectors of A + E and "
    "eigenvalues of A + z, ℓ₂ sensitivity √2/n each, ρ/2 each), ρ-zCDP "
    "(chapter 18).",
}

#: Budget shares of the adaptive estimator: trace, norm histogram, release.
DEFAULT_SHARES = (0.125, 0.125, 0.75)

#: Share of the release's budget spent on the eigenvalues (separate release).
VALUE_SHARE = 0.5

#: Number of dyadic norm levels (candidate radii 1, 1/2, ..., 2⁻²⁹).
DEFAULT_LEVELS = 30

#: Failure probability of the bounds the radius selection minimises.
DEFAULT_BETA = 0.1

#: The releases: the adaptive estimator, or the separate release alone.
METHODS = ("adaptive", "separate")

#: Margin of the eigenvalue sensitivity, relative to √2/n: the float
#: eigenvalues may differ from the exact ones by at most this (verified).
#: Kept for ``verified_eigenvalues``; the release no longer needs it.
EIGENVALUE_MARGIN = 2.0**-16

#: Largest defect ``‖P̃ᵀP̃ − I‖₂`` (bounded through the Frobenius norm) of the
#: released eigenvectors along which the eigenvalue step takes its Rayleigh
#: quotients; beyond it (never seen) the identity basis is used. Public: it
#: is checked on the released matrix only.
BASIS_DEFECT = 2.0**-20

#: Bound on ``‖A‖_F`` for the computed clipped second moment (rows of norm
#: at most one: ``‖A‖_F ≤ tr A ≤ 1`` up to rounding).
_MOMENT_NORM = 2.0

#: Selection rules of the adaptive estimator (``choose_radius``).
SELECTIONS = ("authors", "bounds")

#: The authors' heuristic: the separate release's trace term divided by 6
#: (``AdaptiveCov`` in the code published with [DLY22]).
AUTHORS_TRACE_DISCOUNT = 1.0 / 6.0

#: Relative margin on every discrete calibration (absorbs float rounding).
_CALIBRATION_MARGIN = 2.0**-40

_U = 2.0**-53


# ------------------------------------------------------------------------------
# High-probability norms of the noise (constants of our own derivation)
# ------------------------------------------------------------------------------


def _check_beta(beta) -> float:
    beta = float(beta)
    if not 0.0 < beta < 1.0:
        raise ValueError(f"beta must lie in (0, 1); got {beta!r}")
    return beta


def gaussian_norm_bound(d: int, beta: float) -> float:
    """``η = √d + √(2 log(1/β))``: ``P(‖z‖₂ > η) ≤ β`` for ``z ~ N(0, I_d)``.

    ``‖z‖`` is 1-Lipschitz with ``E‖z‖ ≤ √d``; Gaussian concentration of
    Lipschitz functions (Boucheron, Lugosi and Massart 2013, Thm 5.6).
    """
    return float(
        math.sqrt(d) + math.sqrt(2.0 * math.log(1.0 / _check_beta(beta)))
    )


def wigner_norm_bound(d: int, beta: float) -> float:
    """``ν = 2√d + 2√(log(2/β))``: ``P(‖W‖₂ > ν) ≤ β`` for the symmetric
    ``W`` with i.i.d. ``N(0, 1)`` entries on and above the diagonal.

    ``λ_max(W) = max_u uᵀWu``; for unit ``u, v`` the increments satisfy
    ``E(uᵀWu − vᵀWv)² ≤ 2‖uuᵀ − vvᵀ‖_F² ≤ 4‖u − v‖²``, those of
    ``2⟨g, u⟩``, so ``E λ_max ≤ 2 E‖g‖ ≤ 2√d`` (Sudakov–Fernique), and
    likewise for ``−λ_min``. Both are √2-Lipschitz in the ``d(d+1)/2``
    Gaussian entries, hence each exceeds ``2√d + t`` with probability at most
    ``e^{−t²/4}``.
    """
    beta = _check_beta(beta)
    return float(2.0 * math.sqrt(d) + 2.0 * math.sqrt(math.log(2.0 / beta)))


def wigner_frobenius_bound(d: int, beta: float) -> float:
    """``ω = d + 2√(log(1/β))``: ``P(‖W‖_F > ω) ≤ β`` for ``W`` as in
    ``wigner_norm_bound`` (``E‖W‖_F ≤ √(E‖W‖_F²) = d``, and ``‖W‖_F`` is
    √2-Lipschitz in the entries)."""
    beta = _check_beta(beta)
    return float(d + 2.0 * math.sqrt(math.log(1.0 / beta)))


# ------------------------------------------------------------------------------
# The error of the separate release
# ------------------------------------------------------------------------------


def separate_error_bound(trace, vector_noise_norm, value_noise_norm) -> float:
    """``2 √(tr A · ‖E‖₂) + ‖z‖₂``: the Frobenius error of the separate
    release ``P̃ diag(λ(A) + z) P̃ᵀ`` for every PSD ``A``, every symmetric
    ``E`` (``P̃`` the eigenvectors of ``A + E``, both spectra in decreasing
    order) and every ``z``.

    The deterministic core of the trace-sensitive bound of Dong, Liang and Yi
    (2022, Section 1.1), with the constant of the book's proof (chapter 18):
    with ``M = P̃ Λ P̃ᵀ``, ``‖M − A‖_F² = 2 Σ λ_i (λ_i − λ̂_i) + 2⟨M, E⟩ ≤
    4 tr A ‖E‖₂`` by Weyl's inequality and ``|⟨M, E⟩| ≤ ‖M‖_* ‖E‖₂``; the
    eigenvalue noise adds ``‖z‖₂``, and sorting the noisy eigenvalues or
    projecting them onto an interval that contains the spectrum of ``A``
    never increases it.
    """
    trace = float(trace)
    if trace < 0 or vector_noise_norm < 0 or value_noise_norm < 0:
        raise ValueError("the trace and the noise norms must be >= 0")
    return float(
        2.0 * math.sqrt(trace * float(vector_noise_norm))
        + float(value_noise_norm)
    )


# ------------------------------------------------------------------------------
# Calibration of every step
# ------------------------------------------------------------------------------


@dataclass(frozen=True)
class GaussianStep:
    """One Gaussian step: the ℓ₂ sensitivity of the computed values, the
    noise σ, and (safe noise) the grid γ and the rounding term ``r`` (cells,
    ℓ₂) by which the rounding can grow the sensitivity.

    ``rho`` is ``(Δ + r γ)² / (2σ²)``: a Gaussian (discrete Gaussian on the
    grid) of that shift is that zCDP (Canonne, Kamath and Steinke 2020); the
    sampler never draws a smaller variance than σ².
    """

    label: str
    sensitivity: float
    sigma: float
    granularity: float | None = None
    rounding: float = 0.0

    @property
    def rho(self) -> float:
        shift = self.sensitivity + self.rounding * (self.granularity or 0.0)
        return gaussian_zcdp_rho(shift, self.sigma)


def _step(label, sensitivity, rho, rounding, noise, grid=None) -> GaussianStep:
    """σ (and, safe noise, a grid) making a step of this sensitivity ρ-zCDP.

    Safe noise: the grid of ``dppca.privacy.safe_granularity`` (the
    rounding grows the shift by at most 1/1024 of Δ) unless ``grid`` is
    given, and σ = (Δ + r γ)/√(2ρ), raised by a relative 2⁻⁴⁰.
    """
    sigma_float = sensitivity / math.sqrt(2.0 * rho)
    if noise == "float":
        return GaussianStep(label, sensitivity, sigma_float)
    if grid is None:
        grid = safe_granularity(
            sensitivity, rounding, sigma_float, MAX_GAUSSIAN_GRID_SIGMA
        )
    shift = sensitivity + rounding * grid
    sigma = shift / math.sqrt(2.0 * rho) * (1.0 + _CALIBRATION_MARGIN)
    return GaussianStep(label, sensitivity, sigma, float(grid), rounding)


def trace_sensitivity(n: int) -> float:
    """ℓ₂ sensitivity of the computed trace ``fl(fsum(t)/n)``, ``t_i =
    min(fl(ν_i²), 1)`` in ``[0, 1]``: ``1/n + 5u``.

    Each ``t_i`` depends on row ``i`` alone, so the exact ``Σ t_i / n`` moves
    by at most ``1/n``; ``math.fsum`` rounds the sum once and the division
    once, so the computed value is ``(Σ t_i/n)(1 + θ)`` with ``|θ| ≤ 2u +
    u²``, and ``Σ t_i/n ≤ 1`` on both data sets.
    """
    return 1.0 / check_n(n) + 5.0 * _U


def eigenvalue_margin(n: int, d: int) -> float:
    """The largest distance allowed between the float eigenvalues of a
    matrix and its exact ones (ℓ₂): ``max(2⁻¹⁶ √2/n, 64 d² u)``, public.
    ``verified_eigenvalues`` refuses a decomposition it cannot prove
    within it."""
    return max(EIGENVALUE_MARGIN * math.sqrt(2.0) / check_n(n), 64 * d * d * _U)


@dataclass(frozen=True)
class TraceSensitiveCalibration:
    """Every step of a run, calibrated from public parameters only.

    ``steps`` maps ``"trace"``, ``"histogram"`` (adaptive only),
    ``"gaussian"`` (adaptive only), ``"vectors"`` and ``"values"`` to their
    ``GaussianStep``. ``rho`` is the zCDP of the run: the selection
    steps plus the larger of the two releases (the radius and the release
    are chosen after the selection steps, so the run pays for one release).
    """

    n: int
    d: int
    epsilon: float
    delta: float
    method: str
    noise: str
    rho_target: float
    shares: tuple
    n_levels: int
    steps: dict = field(default_factory=dict)

    @property
    def rho(self) -> float:
        s = self.steps
        separate = s["vectors"].rho + s["values"].rho
        if self.method == "separate":
            return separate
        return (
            s["trace"].rho
            + s["histogram"].rho
            + max(s["gaussian"].rho, separate)
        )


def _check_shares(shares) -> tuple:
    shares = tuple(float(s) for s in shares)
    if len(shares) != 3 or not all(s > 0 for s in shares):
        raise ValueError(
            f"shares must be three numbers > 0 (trace, histogram, release); "
            f"got {shares!r}"
        )
    if not math.isclose(sum(shares), 1.0, rel_tol=1e-12) and sum(shares) > 1:
        raise ValueError(f"shares must add up to at most 1; got {shares!r}")
    return shares


def trace_sensitive_calibration(
    n,
    d,
    epsilon,
    delta,
    *,
    method: str = "adaptive",
    noise: str = "safe",
    shares=DEFAULT_SHARES,
    n_levels: int = DEFAULT_LEVELS,
) -> TraceSensitiveCalibration:
    """σ (and grid) of every step, for ρ = ``dppca.privacy.zcdp_rho``
    (ε, δ).

    ``method="separate"`` spends the whole ρ on the separate release on the
    unclipped rows (half on the eigenvectors, half on the eigenvalues).
    ``method="adaptive"`` spends ``shares`` = (trace, histogram, release) of
    ρ (default ``(1/8, 1/8, 3/4)``); the release's budget goes whole to the
    Gaussian release or, split by ``VALUE_SHARE``, to the separate one.
    Sensitivities (replace-one, rows of norm ≤ 1): trace
    ``trace_sensitivity``; histogram ``√2`` (integer counts, grid 1, no
    rounding); matrix ``√2/n`` on the ``d(d+1)/2`` upper-triangle entries
    (rounding ``√(d(d+1)/2)`` cells); eigenvalues (the Rayleigh quotients
    of ``A`` along the released eigenvectors, ``rayleigh_quotients``)
    ``(1 + BASIS_DEFECT) √2/n`` plus twice ``rayleigh_margin`` (rounding
    ``√d`` cells).
    """
    n = check_n(n)
    d = check_positive_int(d, "d")
    if d < 2:
        raise ValueError(f"d must be at least 2; got {d}")
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    method = check_choice(method, METHODS, "method")
    noise = check_noise_kind(noise)
    shares = _check_shares(shares)
    n_levels = check_positive_int(n_levels, "n_levels")
    if n_levels < 2:
        raise ValueError(f"n_levels must be at least 2; got {n_levels}")
    rho = zcdp_rho(epsilon, delta)
    release = rho if method == "separate" else shares[2] * rho
    matrix = math.sqrt(2.0) / n
    entries = math.sqrt(d * (d + 1) / 2)
    steps = {
        "vectors": _step(
            "eigenvectors", matrix, (1 - VALUE_SHARE) * release, entries, noise
        ),
        "values": _step(
            "eigenvalues",
            (1.0 + BASIS_DEFECT) * matrix + 2 * rayleigh_margin(d),
            VALUE_SHARE * release,
            math.sqrt(d),
            noise,
        ),
    }
    if method == "adaptive":
        steps["trace"] = _step(
            "trace", trace_sensitivity(n), shares[0] * rho, 1.0, noise
        )
        steps["histogram"] = _step(
            "norm histogram", math.sqrt(2.0), shares[1] * rho, 0.0, noise, 1.0
        )
        steps["gaussian"] = _step("matrix", matrix, release, entries, noise)
    return TraceSensitiveCalibration(
        n, d, epsilon, delta, method, noise, rho, shares, n_levels, steps
    )


def trace_sensitive_guarantee(
    n,
    d,
    epsilon,
    delta,
    *,
    method: str = "adaptive",
    noise: str = "safe",
    shares=DEFAULT_SHARES,
    n_levels: int = DEFAULT_LEVELS,
) -> Release:
    """Guarantee record of ``trace_sensitive_covariance`` with these
    settings: a ρ-zCDP release, ρ summed over the calibrated steps
    (``TraceSensitiveCalibration``), from public parameters only."""
    calibration = trace_sensitive_calibration(
        n,
        d,
        epsilon,
        delta,
        method=method,
        noise=noise,
        shares=shares,
        n_levels=n_levels,
    )
    return _record(calibration)


def _record(calibration: TraceSensitiveCalibration) -> Release:
    label = (
        "trace-sensitive covariance"
        if calibration.method == "adaptive"
        else "separate covariance"
    )
    if calibration.noise == "safe":
        label += " (safe noise)"
    return zcdp_release(
        label,
        calibration.rho,
        calibration.epsilon,
        calibration.delta,
        **noise_record(calibration.noise),
        theorem="[DLY22, Sec. 1.1]; replace-one calibration: the book's own",
        chapter="chapter 18",
    )


# ------------------------------------------------------------------------------
# The steps on the data
# ------------------------------------------------------------------------------


def norm_levels(norms, n_levels: int = DEFAULT_LEVELS) -> np.ndarray:
    """Dyadic level of each row norm ν: ``j`` with ``2^{-j-1} < ν ≤ 2^{-j}``,
    0 for ``ν > 1/2`` (norms up to the tolerance above 1 included) and
    ``n_levels − 1`` for every ``ν ≤ 2^{-(n_levels − 1)}`` (zero included).
    Exact: read off the binary exponent (``numpy.frexp``)."""
    norms = np.asarray(norms, dtype=float)
    if np.any(~np.isfinite(norms)) or np.any(norms < 0):
        raise ValueError("norms must be finite and >= 0")
    mantissa, exponent = np.frexp(norms)  # ν = m 2^e, 1/2 ≤ m < 1
    level = np.where(mantissa == 0.5, 1 - exponent, -exponent)
    level = np.where(norms == 0, n_levels - 1, level)
    return np.clip(level, 0, n_levels - 1).astype(np.int64)


def norm_histogram(norms, n_levels: int = DEFAULT_LEVELS) -> np.ndarray:
    """Counts of rows per dyadic level (``norm_levels``): replacing one
    row moves one count down and one up, ℓ₂ sensitivity √2."""
    return np.bincount(norm_levels(norms, n_levels), minlength=n_levels)


def clipped_trace(norms) -> float:
    """``fl(fsum(min(fl(ν_i²), 1)) / n)``: the trace of the rows clipped to
    the unit ball, computed with sensitivity ``trace_sensitivity``."""
    norms = np.asarray(norms, dtype=float)
    squares = np.minimum(norms * norms, 1.0)
    return math.fsum(squares.tolist()) / norms.size


def project_spectrum(M, upper: float = 1.0) -> np.ndarray:
    """The symmetric ``M`` with its eigenvalues clipped to ``[0, upper]``:
    the Frobenius projection onto ``{0 ⪯ S ⪯ upper·I}``, which never moves
    ``M`` away from a matrix of that set."""
    lam, V = np.linalg.eigh(np.asarray(M, dtype=float))
    lam = np.clip(lam, 0.0, upper)
    out = (V * lam) @ V.T
    return (out + out.T) / 2


def verified_eigenvalues(A) -> tuple[np.ndarray, float]:
    """The eigenvalues of the float symmetric ``A`` (decreasing) and a
    proved bound on their ℓ₂ distance to the exact eigenvalues of ``A``.

    With ``(λ, V)`` from LAPACK, ``R = AV − VΛ`` and ``G = VᵀV − I``,
    ``‖G‖₂ ≤ η < 1``, write ``V = QS`` (polar factor ``Q``, ``S =
    (VᵀV)^{1/2}``): ``QᵀAQ − Λ = (SΛ − ΛS)S^{-1} + S^{-1}VᵀRS^{-1}``, so by
    Hoffman–Wielandt the exact eigenvalues lie within ``2‖G‖_F‖λ‖_∞/√(1−η)
    + √(1+η)‖R‖_F/(1−η)`` of ``λ`` (ℓ₂, both sorted). ``R`` and ``G`` are
    computed in float64; their rounding errors (at most ``2γ_{d+3}`` times
    ``(‖A‖_F + ‖λ‖_∞)‖V‖_F`` and ``γ_{d+3}(‖V‖_F² + d)``, every product
    being a sum of ``d`` products in some order, Higham 2002, Sec. 3.1) and
    those of the norms (relative ``γ_{d²+2}``) are added.
    """
    A = np.asarray(A, dtype=float)
    d = A.shape[0]
    lam, V = np.linalg.eigh(A)
    # products: γ_{d+3} per entry (inner products of length d); norms of d²
    # entries: relative γ_{d²+2}, so a computed norm times `grow` bounds it
    gamma = float_error.rounding_gamma(d + 3)
    grow = 1.0 / (1.0 - float_error.rounding_gamma(d * d + 2))
    norm_V = float(np.linalg.norm(V)) * grow
    norm_A = float(np.linalg.norm(A)) * grow
    top = float(np.max(np.abs(lam), initial=0.0))
    G = V.T @ V - np.eye(d)
    R = A @ V - V * lam
    g = float(np.linalg.norm(G)) * grow + gamma * (norm_V**2 + d)
    r = float(np.linalg.norm(R)) * grow + 2 * gamma * (norm_A + top) * norm_V
    if not g < 0.5:
        return lam[::-1], math.inf
    bound = 2 * g * top / math.sqrt(1 - g) + math.sqrt(1 + g) * r / (1 - g)
    return lam[::-1], float(bound * grow)


def rayleigh_margin(d: int) -> float:
    """ℓ₂ bound on the float error of ``rayleigh_quotients(A, P)`` for the
    computed clipped second moment ``A`` (``‖A‖_F ≤ 2``) and a basis with
    ``‖PᵀP − I‖₂ ≤ BASIS_DEFECT``: ``√d γ_{2d} · 2 (1 + BASIS_DEFECT)``.

    ``fl(A p)`` is within ``γ_d |A||p|`` of ``A p`` and the inner product
    with ``p`` adds ``γ_d`` relative, so each quotient is within
    ``γ_{2d} |p|ᵀ|A||p| ≤ γ_{2d} ‖A‖_F ‖p‖²`` of ``pᵀAp`` (Higham 2002,
    Sec. 3.1), and ``‖p‖² ≤ ‖P‖₂² ≤ 1 + BASIS_DEFECT``. Public.
    """
    d = check_positive_int(d, "d")
    gamma = float_error.rounding_gamma(2 * d)
    return float(
        math.sqrt(d) * gamma * _MOMENT_NORM * (1.0 + BASIS_DEFECT) * (1 + _U)
    )


def released_basis(noisy_matrix) -> np.ndarray:
    """The eigenvectors ``P̃`` of the released ``A + E`` (decreasing
    eigenvalues), if their computed defect ``‖P̃ᵀP̃ − I‖_F`` (plus its
    rounding) is at most ``BASIS_DEFECT``; otherwise the identity. A
    function of the release alone: the branch is post-processing."""
    M = np.asarray(noisy_matrix, dtype=float)
    d = M.shape[0]
    P = np.linalg.eigh(M)[1][:, ::-1]
    gamma = float_error.rounding_gamma(d + 3)
    grow = 1.0 / (1.0 - float_error.rounding_gamma(d * d + 2))
    norm_P = float(np.linalg.norm(P)) * grow
    G = P.T @ P - np.eye(d)
    defect = float(np.linalg.norm(G)) * grow + gamma * (norm_P**2 + d)
    if not defect <= BASIS_DEFECT:
        return np.eye(d)
    return np.ascontiguousarray(P)


def rayleigh_quotients(A, P) -> np.ndarray:
    """``(p_iᵀ A p_i)_i`` for the columns ``p_i`` of ``P``: the diagonal of
    ``PᵀAP``. For a fixed (released) ``P`` this is linear in ``A``, with
    ℓ₂ sensitivity at most ``‖P‖₂² ‖A − A′‖_F``; with orthonormal ``P``
    it is the diagonal ``D`` that brings ``P D Pᵀ`` closest to ``A`` in
    Frobenius norm, and every entry lies in ``[λ_d(A), λ_1(A)]``."""
    A = np.asarray(A, dtype=float)
    P = np.asarray(P, dtype=float)
    return np.einsum("ji,ji->i", P, A @ P)


@dataclass(frozen=True)
class RadiusChoice:
    """What ``choose_radius`` read and chose (all post-processing of
    released values). Arrays are indexed by the level ``j`` (radius
    ``2^{-j}``): ``bias`` bounds the clipping bias, ``separate`` and
    ``gaussian`` the noise error of each release, at probability 1 − β."""

    radius: float
    level: int
    release: str
    trace_bound: float
    radii: np.ndarray
    bias: np.ndarray
    separate: np.ndarray
    gaussian: np.ndarray

    @property
    def predicted(self) -> np.ndarray:
        """Bound on the Frobenius error of the best release at each radius."""
        return self.bias + np.minimum(self.separate, self.gaussian)


def choose_radius(
    trace_estimate,
    histogram,
    n,
    d,
    calibration: TraceSensitiveCalibration,
    beta: float = DEFAULT_BETA,
    selection: str = "authors",
) -> RadiusChoice:
    """The radius ``2^{-j}`` and the release minimising a predicted error.

    For each level ``j`` (radius ``r = 2^{-j}``), from the noisy histogram
    ``ĉ`` (negative counts read as zero) and the noisy trace ``T̃``:

    * clipping bias ``(1/n) Σ_{l<j} ĉ_l (4^{-l} − r²)``, a bound on
      ``‖A − A_clip‖_* ≥ ‖A − A_clip‖_F`` that uses the top of each level;
    * separate release ``r² (2 √(min(T⁺/r², 1) N_V) + N_λ)``
      (``separate_error_bound``), with ``T⁺ = T̃ + σ_T √(2 log(1/β))``,
      ``N_V = σ_V ν(d, β/2)`` and ``N_λ = σ_λ η(d, β/2)``;
    * Gaussian release ``r² σ_G ω(d, β)``.

    The first level with the smallest bias plus the smaller release bound
    wins (the largest radius among ties). The grid rounding adds at most
    half a cell per entry, far below σ, and is left out of the bounds.

    ``selection="bounds"`` compares these bounds as they are.
    ``selection="authors"`` (default) divides the separate release's trace
    term ``2 √(·)`` by 6 (``AUTHORS_TRACE_DISCOUNT``), the heuristic of the
    code published with [DLY22]: the lemma's worst case is rarely reached
    (chapter 18 measures both rules). Either is post-processing of the
    released trace and histogram, so the privacy is the same.
    """
    n = check_n(n)
    beta = _check_beta(beta)
    selection = check_choice(selection, SELECTIONS, "selection")
    discount = AUTHORS_TRACE_DISCOUNT if selection == "authors" else 1.0
    histogram = np.maximum(np.asarray(histogram, dtype=float), 0.0)
    levels = histogram.size
    s = calibration.steps
    j = np.arange(levels)
    radii = np.ldexp(1.0, -j)
    tops = radii**2  # top of level l: 4^{-l}
    bias = np.array(
        [
            np.sum(histogram[:i] * (tops[:i] - tops[i])) / n
            for i in range(levels)
        ]
    )
    trace_bound = max(
        float(trace_estimate)
        + s["trace"].sigma * math.sqrt(2.0 * math.log(1.0 / beta)),
        0.0,
    )
    vectors = s["vectors"].sigma * wigner_norm_bound(d, beta / 2)
    values = s["values"].sigma * gaussian_norm_bound(d, beta / 2)
    scaled_trace = np.minimum(trace_bound / tops, 1.0)
    separate = tops * (
        discount * 2.0 * np.sqrt(scaled_trace * vectors) + values
    )
    gaussian = tops * s["gaussian"].sigma * wigner_frobenius_bound(d, beta)
    total = bias + np.minimum(separate, gaussian)
    best = int(np.argmin(total))
    release = "separate" if separate[best] < gaussian[best] else "gaussian"
    return RadiusChoice(
        float(radii[best]),
        best,
        release,
        trace_bound,
        radii,
        bias,
        separate,
        gaussian,
    )


def _noisy(values, step: GaussianStep, noise, rng) -> np.ndarray:
    return add_gaussian(
        np.asarray(values, dtype=float),
        step.sigma,
        noise=noise,
        rng=rng,
        granularity=step.granularity,
    )


def _noisy_matrix(A, step: GaussianStep, noise, rng) -> np.ndarray:
    return perturb_symmetric(
        A,
        step.sigma,
        distribution="gaussian",
        noise=noise,
        rng=rng,
        granularity=step.granularity,
    )


def _separate(A, calibration, rng):
    """The separate release on ``A`` (rows of norm ≤ 1): the eigenvectors
    ``P̃`` of ``A + E`` (``released_basis``), then the Rayleigh quotients of
    ``A`` along them plus ``z``, projected onto ``[0, 1]``. Nothing here
    can refuse: every branch reads released values only."""
    s, noise = calibration.steps, calibration.noise
    noisy_matrix = _noisy_matrix(A, s["vectors"], noise, rng)
    P = released_basis(noisy_matrix)
    noisy_values = _noisy(rayleigh_quotients(A, P), s["values"], noise, rng)
    values = np.clip(noisy_values, 0.0, 1.0)
    out = (P * values) @ P.T
    return (out + out.T) / 2


def separate_estimate(noisy_matrix, values, interval=None) -> np.ndarray:
    """``P̃ diag(v) P̃ᵀ``: the eigenvectors ``P̃`` of ``noisy_matrix`` (``A +
    E``, decreasing eigenvalues) with ``values`` (``λ(A) + z``) sorted in
    decreasing order and, when ``interval = (lo, hi)`` is given, projected
    onto it. The separate release's post-processing, deterministic, whose
    error ``separate_error_bound`` bounds (chapter 18)."""
    P = np.linalg.eigh(noisy_matrix)[1][:, ::-1]
    values = np.sort(np.asarray(values, dtype=float))[::-1]
    if interval is not None:
        values = np.clip(values, *interval)
    out = (P * values) @ P.T
    return (out + out.T) / 2


@dataclass(frozen=True)
class TraceSensitiveRun:
    """The released intermediate values of one adaptive run (public: each is
    a private release or post-processing of one): the noisy trace and norm
    histogram, and the ``RadiusChoice`` made from them."""

    trace_estimate: float
    histogram: np.ndarray
    choice: RadiusChoice


def trace_sensitive_covariance(
    X,
    epsilon: float,
    delta: float,
    rng=None,
    noise: str = "safe",
    *,
    method: str = "adaptive",
    beta: float = DEFAULT_BETA,
    selection: str = "authors",
    return_run: bool = False,
    moment_cache: dict | None = None,
):
    """Private second moment ``A = XᵀX/n`` whose error adapts to ``tr A``
    (Dong, Liang and Yi 2022; module docstring).

    ``X`` is ``n x d`` (dense or scipy.sparse) with rows of norm at most one
    (checked, ``dppca.check_data``). ``method="adaptive"`` (default)
    estimates the trace and the norm profile, clips the rows to the chosen
    radius and releases separately or with Gaussian noise on the matrix;
    ``method="separate"`` is the paper's trace-sensitive release alone on
    the unclipped rows. ``beta`` is the failure probability of the bounds the
    selection compares, ``selection`` the rule (``choose_radius``: the
    authors' heuristic by default, or ``"bounds"``). ``noise``: ``"safe"``
    (default) or ``"float"``.

    Returns the ``d x d`` estimate as a ``dppca.privacy.guarantees.Released``
    array (and, with ``return_run``, the ``TraceSensitiveRun``; None for
    ``method="separate"``). (ε, δ)-DP for replace-one neighbours
    (``PRIVACY``).

    ``moment_cache``: for many releases on the *same* ``X`` (experiments), a
    dict the caller keeps between calls; it maps a radius to the second
    moment of the rows clipped to it, which is a deterministic function of
    ``X`` and the radius, so reusing it leaves every release's law unchanged.
    Never share one dict between different data.
    """
    X = check_data(X, accept_sparse=True)
    n, d = X.shape
    method = check_choice(method, METHODS, "method")
    beta = _check_beta(beta)
    selection = check_choice(selection, SELECTIONS, "selection")
    calibration = trace_sensitive_calibration(
        n, d, epsilon, delta, method=method, noise=noise
    )
    record = _record(calibration)
    rng = as_generator(rng)
    run, radius, release = None, 1.0, "separate"
    if method == "adaptive":
        s = calibration.steps
        norms = rows.row_norms(X)
        trace_estimate = float(
            _noisy([clipped_trace(norms)], s["trace"], noise, rng)[0]
        )
        histogram = _noisy(
            norm_histogram(norms, calibration.n_levels),
            s["histogram"],
            noise,
            rng,
        )
        choice = choose_radius(
            trace_estimate, histogram, n, d, calibration, beta, selection
        )
        run = TraceSensitiveRun(trace_estimate, histogram, choice)
        radius, release = choice.radius, choice.release
    if moment_cache is None:
        A_r = clipped_sums.clipped_second_moment(X, radius).matrix
    else:
        key = float(radius)
        if key not in moment_cache:
            moment_cache[key] = clipped_sums.clipped_second_moment(
                X, radius
            ).matrix
        A_r = moment_cache[key]
    if release == "gaussian":
        M = project_spectrum(
            _noisy_matrix(A_r, calibration.steps["gaussian"], noise, rng)
        )
    else:
        M = _separate(A_r, calibration, rng)
    estimate = released(M * (radius * radius), record)
    return (estimate, run) if return_run else estimate


def trace_sensitive_subspace(
    X, k: int, epsilon: float, delta: float, rng=None, noise="safe", **options
) -> Released:
    """The top-``k`` eigenvectors (``d x k``) of
    ``trace_sensitive_covariance`` (post-processing: same record).
    ``options`` go to it (``method``, ``beta``)."""
    options.pop("return_run", None)
    cov = trace_sensitive_covariance(X, epsilon, delta, rng, noise, **options)
    k = check_k(k, cov.shape[0])
    return Released(top_k_subspace(np.asarray(cov), k), cov.guarantee)


def trace_sensitive_error_bound(
    n,
    d,
    trace,
    epsilon,
    delta,
    *,
    beta: float = DEFAULT_BETA,
    noise: str = "safe",
) -> float:
    """Bound on the Frobenius error of the separate release
    (``method="separate"``) at these settings, with probability at least
    1 − β over Gaussian noise: ``separate_error_bound`` with
    ``‖E‖₂ ≤ σ_V ν(d, β/2)`` and ``‖z‖₂ ≤ σ_λ η(d, β/2)``, plus (safe noise)
    half a grid cell per rounded entry.

    Of order ``d^{1/4} √(tr/n) ρ^{-1/4} + √d/(n√ρ)``: the trace-sensitive rate
    of Dong, Liang and Yi (2022, Section 1.1), with constants of the book's
    derivation. For discrete Gaussian noise the concentration step is
    checked numerically (chapter 18), not proved.
    """
    beta = _check_beta(beta)
    cal = trace_sensitive_calibration(
        n, d, epsilon, delta, method="separate", noise=noise
    )
    v, z = cal.steps["vectors"], cal.steps["values"]
    vector_norm = v.sigma * wigner_norm_bound(d, beta / 2)
    value_norm = z.sigma * gaussian_norm_bound(d, beta / 2)
    if noise == "safe":
        vector_norm += v.granularity * v.rounding / 2
        value_norm += z.granularity * z.rounding / 2
    return separate_error_bound(trace, vector_norm, value_norm)


# ------------------------------------------------------------------------------
# The declaration: the trace-sensitive mechanism, once
# ------------------------------------------------------------------------------


def _run_rows(Z, n, k, epsilon, delta, rng, options):
    cov = trace_sensitive_covariance(Z, epsilon, delta, rng=rng, **options)
    # post-processing of the released matrix: top-k axes and its spectrum
    values, vectors = np.linalg.eigh(np.asarray(cov))
    values, vectors = values[::-1], vectors[:, ::-1]
    return vectors[:, :k], values[:k], float(values[values > 0].sum())


def _guarantee(n, d, k, epsilon, delta, options):
    return trace_sensitive_guarantee(
        n, d, epsilon, delta, **select(options, "noise", "method")
    )


def _from_rows(rows, k, epsilon, delta, rng=None, cache=None):
    """The top-k axes of the private covariance; ``cache`` holds the clipped
    rows' second moments of one subset (``moment_cache``: deterministic in
    the rows and the radius, so the law of each release is unchanged)."""
    V = trace_sensitive_subspace(
        rows, k, epsilon, delta, rng=rng, moment_cache=cache
    )
    return np.asarray(V)


def _release(X, k, epsilon, delta, rng=None):
    return _from_rows(X, k, epsilon, delta, rng)


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="trace_sensitive",
        label="trace-sensitive (Dong et al.)",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run_rows=_run_rows,
        guarantee=_guarantee,
        privacy=PRIVACY["trace_sensitive_covariance"],
        options_of=trace_sensitive_covariance,
        additive_noise=True,
        releases_eigenvalues=False,
        experiment_key="trace_sensitive",
        experiment_label="trace-sensitive (DLY22)",
        short_notion="(ε, δ)-DP",
        entry_point=(__name__, "trace_sensitive_subspace"),
        release=_release,
        from_rows=_from_rows,
        row_reason="clips the rows to a radius chosen privately from "
        "their norms",
        style=dict(color="olive", linestyle="-.", marker="H"),
    ),
)


__all__ = [
    "SPECS",
    "AUTHORS_TRACE_DISCOUNT",
    "BASIS_DEFECT",
    "DEFAULT_BETA",
    "DEFAULT_LEVELS",
    "DEFAULT_SHARES",
    "EIGENVALUE_MARGIN",
    "GaussianStep",
    "METHODS",
    "PRIVACY",
    "RadiusChoice",
    "SELECTIONS",
    "TraceSensitiveCalibration",
    "TraceSensitiveRun",
    "VALUE_SHARE",
    "choose_radius",
    "clipped_trace",
    "eigenvalue_margin",
    "gaussian_norm_bound",
    "norm_histogram",
    "norm_levels",
    "project_spectrum",
    "rayleigh_margin",
    "rayleigh_quotients",
    "released_basis",
    "separate_error_bound",
    "separate_estimate",
    "trace_sensitive_calibration",
    "trace_sensitive_covariance",
    "trace_sensitive_error_bound",
    "trace_sensitive_guarantee",
    "trace_sensitive_subspace",
    "trace_sensitivity",
    "verified_eigenvalues",
    "wigner_frobenius_bound",
    "wigner_norm_bound",
]
