"""Calibration of the classical noise-adding mechanisms.

Shared by every mechanism chapter. The privacy-loss tools with which the
chapters check these calibrations are in :mod:`dppca.privacy.privacy_loss`;
the conversions between zero-concentrated DP and (ε, δ)-DP that the discrete
Gaussian and the composed Gaussian steps are calibrated through are in
:mod:`dppca.privacy.zcdp`.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np
from scipy import optimize, special

from ..validation import check_delta, check_epsilon, check_n
from .sensitivity import frobenius_sensitivity_second_moment
from .zcdp import zcdp_rho, zcdp_rho_for


def laplace_scale(l1_sensitivity: float, epsilon: float) -> float:
    """Scale b = Δ₁/ε of the Laplace mechanism, which is (ε, 0)-DP (Dwork et
    al. 2006)."""
    if not l1_sensitivity > 0:
        raise ValueError(f"sensitivity must be > 0; got {l1_sensitivity!r}")
    return float(l1_sensitivity) / check_epsilon(epsilon)


def gaussian_sigma_classical(
    l2_sensitivity: float, epsilon: float, delta: float
) -> float:
    """σ = Δ₂ √(2 ln(1.25/δ)) / ε: the classical Gaussian mechanism (Dwork
    and Roth 2014, Thm A.1).

    The proof of that bound needs ε < 1; larger ε raises ``ValueError`` (use
    :func:`analytic_gaussian_sigma`, which is exact for every ε).
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if eps >= 1:
        raise ValueError(
            "the classical Gaussian calibration is only proved for epsilon < "
            f"1; got {eps}"
        )
    if not l2_sensitivity > 0:
        raise ValueError(f"sensitivity must be > 0; got {l2_sensitivity!r}")
    return float(l2_sensitivity) * np.sqrt(2.0 * np.log(1.25 / dl)) / eps


def analytic_gaussian_delta(
    sigma: float, l2_sensitivity: float, epsilon: float
) -> float:
    """Smallest δ for which adding N(0, σ² I) to a query of ℓ₂-sensitivity Δ
    is (ε, δ)-DP.

    Balle and Wang (2018), Theorem 8: δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) −
    εσ/Δ). Computed with log-CDFs for accuracy.
    """
    eps = check_epsilon(epsilon)
    if not (sigma > 0 and l2_sensitivity > 0):
        raise ValueError("sigma and the sensitivity must be > 0")
    a = l2_sensitivity / (2.0 * sigma)
    b = eps * sigma / l2_sensitivity
    first = special.log_ndtr(a - b)
    second = eps + special.log_ndtr(-a - b)
    if second >= first:
        return 0.0
    return float(np.exp(first) * -np.expm1(second - first))


def analytic_gaussian_sigma(
    l2_sensitivity: float, epsilon: float, delta: float
) -> float:
    """Smallest σ making the Gaussian mechanism (ε, δ)-DP, for any ε > 0
    (Balle and Wang 2018).

    Solves :func:`analytic_gaussian_delta` (decreasing in σ) for σ by bracketing
    root-finding.
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if not l2_sensitivity > 0:
        raise ValueError(f"sensitivity must be > 0; got {l2_sensitivity!r}")
    return _analytic_gaussian_sigma(float(l2_sensitivity), eps, dl)


#: The bracket of the analytic calibration's root search, in log σ: beyond
#: it σ (or σ²) leaves float64, and the search would not end (a δ below
#: about 1e-300 is never met).
_LOG_SIGMA_MIN, _LOG_SIGMA_MAX = -690.0, 690.0
_SIGMA_RANGE_MESSAGE = (
    "no noise scale sigma in float64's range makes the Gaussian mechanism "
    "(epsilon={eps!r}, delta={dl!r})-DP; use a larger epsilon or delta"
)


@functools.lru_cache(maxsize=4096)  # a pure function of public figures
def _analytic_gaussian_sigma(
    l2_sensitivity: float, eps: float, dl: float
) -> float:
    def gap(log_sigma):
        return np.log(
            analytic_gaussian_delta(np.exp(log_sigma), l2_sensitivity, eps)
            + 1e-300
        ) - np.log(dl)

    lo, hi = np.log(l2_sensitivity) - 10.0, np.log(l2_sensitivity) + 10.0
    while gap(lo) < 0:
        lo -= 10.0
        if lo < _LOG_SIGMA_MIN:
            raise ValueError(_SIGMA_RANGE_MESSAGE.format(eps=eps, dl=dl))
    while gap(hi) > 0:
        hi += 10.0
        if hi > _LOG_SIGMA_MAX:  # δ below float64's reach (the 1e-300 floor)
            raise ValueError(_SIGMA_RANGE_MESSAGE.format(eps=eps, dl=dl))
    return float(np.exp(optimize.brentq(gap, lo, hi, xtol=1e-14, rtol=1e-12)))


def gaussian_mechanism_epsilon(
    sigma: float, l2_sensitivity: float, delta: float
) -> float:
    """Smallest ε such that N(0, σ² I) noise on a Δ-sensitive query is (ε,
    δ)-DP (inverse of
    :func:`analytic_gaussian_delta` in ε)."""
    dl = check_delta(delta)
    if analytic_gaussian_delta(sigma, l2_sensitivity, 1e-12) <= dl:
        return 0.0
    return float(
        optimize.brentq(
            lambda e: analytic_gaussian_delta(sigma, l2_sensitivity, e) - dl,
            1e-12,
            1e4,
            xtol=1e-13,
        )
    )


# ------------------------------------------------------------------------------
# Calibrations of the input-perturbation mechanisms (replace-one neighbours, A =
# X^T X / n)
# ------------------------------------------------------------------------------


def _union_bound_log_term(d: int, delta: float) -> float:
    """L = sqrt(2 log((d² + d) / (2 √(2π) δ))): the noise threshold γ/β of
    the proof of
    Chaudhuri et al. (2013), Theorem 5 (union bound over the d(d+1)/2 noise
    entries)."""
    return float(
        np.sqrt(
            2.0 * np.log((d * d + d) / (2.0 * np.sqrt(2.0 * np.pi) * delta))
        )
    )


def mod_sulq_beta(
    d: int, n: int, epsilon: float, delta: float, exact: bool = False
) -> float:
    """Noise level β of MOD-SULQ (Chaudhuri et al. 2013, Algorithm 1, eq. (5)).

    The proof of Theorem 5 asks for ε = (d+1) L/(nβ) + 1/(n²β²), a quadratic in
    β with L = ``_union_bound_log_term``. ``exact=True`` returns its
    positive root β = [(d+1)L + √((d+1)²L² + 4ε)] / (2nε); the default is the
    simpler upper bound printed in eq. (5), β = (d+1)L/(nε) + 1/(n√ε), which is
    never smaller.
    """
    eps, dl, n = check_epsilon(epsilon), check_delta(delta), check_n(n)
    if d < 2:
        raise ValueError(f"d must be at least 2; got {d}")
    L = _union_bound_log_term(d, dl)
    if exact:
        return float(
            ((d + 1) * L + np.sqrt(((d + 1) * L) ** 2 + 4.0 * eps))
            / (2.0 * n * eps)
        )
    return float((d + 1) * L / (n * eps) + 1.0 / (n * np.sqrt(eps)))


def analyze_gauss_sigma(
    n: int, epsilon: float, delta: float, calibration: str = "analytic"
) -> float:
    """Entry standard deviation of Analyze Gauss (Dwork, Talwar, Thakurta and
    Zhang 2014) for
    A = XᵀX/n under replace-one neighbours (ℓ₂ sensitivity √2/n).

    ``calibration="classical"`` uses σ = Δ√(2 ln(1.25/δ))/ε (proved for ε < 1
    only); ``"analytic"`` uses the exact calibration of Balle and Wang (2018).
    """
    sens = frobenius_sensitivity_second_moment(n, upper_triangle=True)
    if calibration == "classical":
        return gaussian_sigma_classical(sens, epsilon, delta)
    if calibration == "analytic":
        return analytic_gaussian_sigma(sens, epsilon, delta)
    raise ValueError(
        f"calibration must be 'analytic' or 'classical'; got {calibration!r}"
    )


def laplace_input_scale(d: int, n: int, epsilon: float) -> float:
    """Laplace scale b = 2d/(nε) of Jiang et al. (2016), Algorithm 1 (from
    Lemma 2: s₁ < 2d/n)."""
    return float(2.0 * d / (check_n(n) * check_epsilon(epsilon)))


def wishart_input_scale(n: int, epsilon: float) -> float:
    """Eigenvalue c = 3/(2nε) of the Wishart scale matrix C = cI (Jiang et
    al. 2016, Algorithm 2)."""
    return float(3.0 / (2.0 * check_n(n) * check_epsilon(epsilon)))


# ------------------------------------------------------------------------------
# Neighbouring pairs and sensitivities
# ------------------------------------------------------------------------------


def upper_triangle(M) -> np.ndarray:
    """Entries M_ij with i ≤ j (row-major order of ``numpy.triu_indices``):
    the coordinates in
    which a symmetric noise matrix with independent entries on and above the
    diagonal lives."""
    M = np.asarray(M, dtype=float)
    return M[np.triu_indices(M.shape[0])]


# ------------------------------------------------------------------------------
# Wishart input perturbation: the support of A + W depends on A
# ------------------------------------------------------------------------------


def wishart_support_gap_probability(
    scale: float, n: int, squared_norm: float = 1.0
) -> float:
    """P(W − uuᵀ/n is not positive definite) for W ~ W_d(d+1, cI) and ‖u‖² = r².

    By Sherman–Morrison, W − uuᵀ/n ≻ 0 iff uᵀW⁻¹u < n, and (uᵀC⁻¹u)/(uᵀW⁻¹u) ~
    χ² with m − d + 1 = 2 degrees of freedom for m = d + 1 (Muirhead 1982,
    Theorem 3.2.12). Hence the probability is P(χ²₂ < r²/(nc)) = 1 −
    exp(−r²/(2nc)), whatever d. For c = 3/(2nε) it is 1 − exp(−r²ε/3).
    """
    kappa = float(squared_norm) / (2.0 * check_n(n) * float(scale))
    return float(-np.expm1(-kappa))


def wishart_privacy_profile(epsilon_claimed: float, epsilon=0.0) -> np.ndarray:
    """Exact δ(ε') of the published Wishart mechanism (Jiang et al. 2016,
    Algorithm 2), worst
    case over replace-one pairs of unit-ball rows: δ(ε') = 1 − exp(−ε/3) for
    every ε' ≥ 0.

    The book's derivation (chapter 3): on the common support the log density
    ratio is the constant (ε/3)(‖v‖² − ‖v̂‖²) ≤ ε/3, and the outputs possible
    under one dataset only have probability at most 1 − exp(−ε‖v̂‖²/3);
    combining both terms the sup over pairs equals 1 − exp(−ε/3), attained by
    v = 0, v̂ a unit vector. The mechanism is therefore not (ε', δ)-DP for any
    δ < 1 − exp(−ε/3), and in particular not (ε, 0)-DP as Theorem 4 claims.
    """
    eps = check_epsilon(epsilon_claimed)
    eps_prime = np.asarray(epsilon, dtype=float)
    if np.any(eps_prime < 0):
        raise ValueError("epsilon' must be >= 0")
    return np.full(eps_prime.shape, -np.expm1(-eps / 3.0))[()]


def wishart_scale_for_delta(n: int, delta: float) -> float:
    """Scale c making W_d(d+1, cI) input perturbation (0, δ)-DP (hence (ε, δ)
    for every ε ≥ 0):
    solve 1 − exp(−1/(2nc)) = δ, i.e. c = 1/(2n log(1/(1 − δ))). See chapter
    3 for the proof."""
    dl = check_delta(delta)
    return float(1.0 / (2.0 * check_n(n) * -np.log1p(-dl)))


# ------------------------------------------------------------------------------
# Floating-point-safe calibration: rounding to a grid, then discrete noise
# (dppca.privacy.noise)
# ------------------------------------------------------------------------------

#: Default fineness of the grid. The rounding adds at most 1/1024 to the
#: sensitivity.
SAFE_GRID_REFINEMENT = 1024

#: Relative margin added to discrete calibrations, absorbing float rounding of
#: their inputs.
_CALIBRATION_MARGIN = 2.0**-40


def rounded_sensitivity(
    sensitivity: float, granularity: float, rounding_term: float
) -> float:
    """Sensitivity, in grid units, of k = round(a/γ) when a has sensitivity
    Δ: Δ/γ + r.

    Each coordinate moves by ``|round(x) − round(y)| ≤ |x − y| + 1`` (both
    roundings are within 1/2), and only coordinates that change move at all.
    Over m coordinates the ℓ₁ norm of the change grows by at most r = m, the ℓ₂
    norm (Minkowski) by r = √m; for a d × d symmetric matrix the Frobenius norm
    grows by r = d. Upper bound, valid for every neighbouring pair.
    """
    g = float(granularity)
    if not (sensitivity > 0 and g > 0 and rounding_term >= 0):
        raise ValueError(
            "need sensitivity > 0, granularity > 0, rounding_term >= 0"
        )
    return float(sensitivity) / g + float(rounding_term)


def safe_granularity(
    sensitivity: float,
    rounding_term: float,
    noise_scale: float,
    max_grid_scale: float,
    refinement: int = SAFE_GRID_REFINEMENT,
) -> float:
    """Default grid of a floating-point-safe mechanism: the largest power of
    two γ with
    r·γ ≤ Δ/``refinement`` (the rounding inflates the sensitivity, hence the
    noise, by at most 1/refinement), coarsened if needed so that the noise,
    ``noise_scale``/γ grid units, stays
    below ``max_grid_scale``/4 (the range of the exact integer samplers)."""
    from .noise import power_of_two_at_most

    rounding = max(float(rounding_term), 1.0)
    fine = float(sensitivity) / (refinement * rounding)
    coarse_enough = 4.0 * float(noise_scale) / float(max_grid_scale)
    # The rounding's r cells add about r·σ/Δ grid units of noise whatever
    # γ (σ/Δ the noise per unit of sensitivity). Past a quarter of the range
    # the rule above may leave no room for the rest, Δ/γ·σ/Δ: a coarser γ
    # keeps that part within half of what is left (only at budgets so small
    # that σ/Δ is in the millions; elsewhere the grid is as before).
    from_rounding = rounding * float(noise_scale) / float(sensitivity)
    if max_grid_scale / 4 < from_rounding < max_grid_scale:
        left = float(max_grid_scale) - from_rounding
        coarse_enough = max(coarse_enough, 4.0 * float(noise_scale) / left)
    return power_of_two_at_most(max(fine, coarse_enough))


def discrete_laplace_scale(
    l1_sensitivity: float, epsilon: float, granularity: float, entries: int
) -> float:
    """Scale b = γ·t of the safe Laplace mechanism on ``entries``
    coordinates: t = ⌈Δ_k/ε⌉
    grid units, Δ_k = Δ₁/γ + m (:func:`rounded_sensitivity`).

    The released γ(k + Z), Z i.i.d. discrete Laplace P(z) ∝ exp(−|z|/t), has
    output probabilities in ratio at most exp(‖k − k'‖₁/t) ≤ exp(ε) on
    neighbours: (ε, 0)-DP as a program. t is an integer (computed in exact
    rational arithmetic with a 2**-40 margin).
    """
    eps = check_epsilon(epsilon)
    sens = rounded_sensitivity(l1_sensitivity, granularity, int(entries))
    t = math.ceil(
        Fraction(sens) / Fraction(eps) * (1 + Fraction(_CALIBRATION_MARGIN))
    )
    return float(t) * float(granularity)


def discrete_gaussian_sigma(
    l2_sensitivity: float,
    epsilon: float,
    delta: float,
    granularity: float,
    rounding_term: float,
) -> float:
    """Standard deviation σ = γ·σ_k of the safe Gaussian mechanism: (ε, δ)-DP
    as a program.

    In grid units the query k = round(a/γ) has ℓ₂ sensitivity Δ_k = Δ₂/γ + r
    (:func:`rounded_sensitivity`). Adding independent discrete Gaussians N_Z(0,
    σ_k²) to the integer coordinates is ρ-zCDP with ρ = Δ_k²/(2σ_k²): for an
    integer shift μ the Rényi divergence of order α of N_Z(μ, σ²) from N_Z(0,
    σ²) is at most αμ²/(2σ²) (Canonne, Kamath and Steinke 2020, Section 2), and
    Rényi divergences of independent coordinates add. σ_k = Δ_k/√(2ρ) with ρ =
    :func:`~dppca.privacy.zcdp.zcdp_rho` (ε, δ) then gives (ε, δ)-DP by their
    conversion (:func:`~dppca.privacy.zcdp.zcdp_delta`).
    """
    sens = rounded_sensitivity(l2_sensitivity, granularity, rounding_term)
    rho = zcdp_rho(epsilon, delta)
    sigma_grid = sens / np.sqrt(2.0 * rho) * (1.0 + _CALIBRATION_MARGIN)
    return float(sigma_grid * float(granularity))


def safe_laplace_input_calibration(
    d: int, n: int, epsilon: float, granularity: float | None = None
) -> tuple[float, float]:
    """(b, γ) of the safe Laplace input perturbation on the d(d+1)/2
    upper-triangle entries of
    A = XᵀX/n: the same ℓ₁ sensitivity 2d/n as Jiang et al. (2016, Lemma 2),
    grown by the
    rounding (:func:`discrete_laplace_scale`). Default γ:
    :func:`safe_granularity`."""
    from .noise import MAX_LAPLACE_GRID_SCALE, check_granularity

    n, eps = check_n(n), check_epsilon(epsilon)
    entries = d * (d + 1) // 2
    sensitivity = 2.0 * d / n
    chosen = granularity is None
    if chosen:
        granularity = safe_granularity(
            sensitivity, entries, sensitivity / eps, MAX_LAPLACE_GRID_SCALE
        )
    g = check_granularity(granularity)
    scale = discrete_laplace_scale(sensitivity, eps, g, entries)
    while chosen and scale / g > MAX_LAPLACE_GRID_SCALE:
        # t = ⌈(Δ₁/γ + m)/ε⌉ falls towards m/ε (m entries) as γ grows
        if entries / eps > MAX_LAPLACE_GRID_SCALE / 2:
            raise ValueError(
                f"epsilon={epsilon!r} is too small for safe Laplace noise on "
                f"the {entries} entries of A: the exact sampler's range "
                "cannot hold it on any grid"
            )
        g *= 2
        scale = discrete_laplace_scale(sensitivity, eps, g, entries)
    return scale, g


def safe_gaussian_input_calibration(
    d: int,
    n: int,
    epsilon: float,
    delta: float,
    sigma_float: float,
    granularity: float | None = None,
) -> tuple[float, float]:
    """(σ, γ) of the safe Gaussian input perturbation (MOD-SULQ, Analyze
    Gauss) on the
    d(d+1)/2 upper-triangle entries of A = XᵀX/n: σ = max(σ_float,
    :func:`discrete_gaussian_sigma` with ℓ₂ sensitivity √2/n and r =
    √(d(d+1)/2)). Never less noise than the float mechanism,
    and (ε, δ)-DP as a program by the discrete Gaussian's guarantee."""
    from .noise import MAX_GAUSSIAN_GRID_SIGMA, check_granularity

    entries = d * (d + 1) // 2
    sensitivity = frobenius_sensitivity_second_moment(n, upper_triangle=True)
    if granularity is None:
        granularity = safe_granularity(
            sensitivity,
            np.sqrt(entries),
            sigma_float,
            MAX_GAUSSIAN_GRID_SIGMA,
        )
    g = check_granularity(granularity)
    sigma = discrete_gaussian_sigma(
        sensitivity, epsilon, delta, g, np.sqrt(entries)
    )
    return max(float(sigma_float), sigma), g


# ------------------------------------------------------------------------------
# Composition of Gaussian steps: zero-concentrated DP (Bun and Steinke 2016)
# ------------------------------------------------------------------------------


def composed_gaussian_sigma(
    l2_sensitivity: float,
    n_steps: int,
    epsilon: float,
    delta: float,
    calibration: str = "zcdp",
) -> float:
    """Per-step σ for ``n_steps`` adaptively composed Gaussian mechanisms,
    each of ℓ₂-sensitivity
    at most Δ, whose composition is (ε, δ)-DP, with δ spent once for the whole
    run.

    ``"zcdp"``: each step is Δ²/(2σ²)-zCDP, the run n_steps Δ²/(2σ²)-zCDP;
    setting that equal to :func:`~dppca.privacy.zcdp.zcdp_rho_for` gives σ =
    Δ √(n_steps / (2ρ)).
    ``"gdp"`` (exact): the composition of Gaussian mechanisms is a single
    Gaussian mechanism of sensitivity √(n_steps) Δ (Dong, Roth and Su 2022, Cor.
    3.3, adaptive), calibrated with :func:`analytic_gaussian_sigma`; never
    larger than the zCDP value.
    """
    if isinstance(n_steps, bool) or int(n_steps) != n_steps or n_steps < 1:
        raise ValueError(f"n_steps must be a positive integer; got {n_steps!r}")
    if not l2_sensitivity > 0:
        raise ValueError(f"sensitivity must be > 0; got {l2_sensitivity!r}")
    if calibration == "zcdp":
        rho = zcdp_rho_for(epsilon, delta)
        return float(l2_sensitivity * np.sqrt(n_steps / (2.0 * rho)))
    if calibration == "gdp":
        return analytic_gaussian_sigma(
            np.sqrt(n_steps) * l2_sensitivity, epsilon, delta
        )
    raise ValueError(
        f"calibration must be 'zcdp' or 'gdp'; got {calibration!r}"
    )


__all__ = [
    "laplace_scale",
    "gaussian_sigma_classical",
    "analytic_gaussian_delta",
    "analytic_gaussian_sigma",
    "gaussian_mechanism_epsilon",
    "mod_sulq_beta",
    "analyze_gauss_sigma",
    "laplace_input_scale",
    "wishart_input_scale",
    "upper_triangle",
    "wishart_support_gap_probability",
    "wishart_privacy_profile",
    "wishart_scale_for_delta",
    "SAFE_GRID_REFINEMENT",
    "rounded_sensitivity",
    "safe_granularity",
    "discrete_laplace_scale",
    "discrete_gaussian_sigma",
    "safe_laplace_input_calibration",
    "safe_gaussian_input_calibration",
    "composed_gaussian_sigma",
]
