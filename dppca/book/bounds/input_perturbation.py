"""Bounds of the input-perturbation papers, one plain function per theorem.

Chaudhuri, Sarwate and Sinha (2013), "A near-optimal algorithm for
differentially-private principal components" (JMLR) and Jiang, Xie and Zhang
(2016), "Wishart mechanism for differentially private principal components
analysis" (AAAI).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize

from ...privacy.calibration import mod_sulq_beta
from ...validation import check_delta, check_epsilon


def wishart_top_eigenvalue_tail(
    m: int, scale_eigenvalues, theta: float
) -> float:
    """Lemma 1 of Jiang et al. (2016) (after Zhu 2012): for W ~ W_d(m, C) and
    θ ≥ 0,
    P(λ₁(W) ≥ (m + √(2mθ(r+2)) + 2θr) λ₁(C)) ≤ d e^{−θ}, r = tr(C)/‖C‖₂.
    Returns the threshold."""
    lam = np.asarray(scale_eigenvalues, dtype=float)
    top = lam.max()
    r = lam.sum() / top
    return float(
        (m + np.sqrt(2.0 * m * theta * (r + 2.0)) + 2.0 * theta * r) * top
    )


def wishart_noise_norm_bound(d: int, scale: float, eta: float) -> float:
    """λ₁(W) bound holding with probability ≥ 1 − η for W ~ W_d(d+1, cI):
    Lemma 1 with
    θ = log(d/η) (Jiang et al. 2016, proof of Theorem 7)."""
    return wishart_top_eigenvalue_tail(
        d + 1, np.full(d, scale), np.log(d / eta)
    )


def noise_magnitude_rates(d) -> dict:
    """Growth in d of the spectral norm of each noise matrix, Jiang et al.
    (2016), Table 1
    (with n ε fixed): Laplace d^1.5, SULQ-style d^1.5 √log d, Wishart d log
    d, Analyze Gauss √d."""
    d = np.asarray(d, dtype=float)
    return {
        "laplace": d**1.5,
        "mod_sulq": d**1.5 * np.sqrt(np.log(d)),
        "wishart": d * np.log(d),
        "analyze_gauss": np.sqrt(d),
    }


def laplace_wishart_ratio(
    l11_sensitivity: float, nuclear_sensitivity: float
) -> float:
    """The quantity max‖Δ‖_{1,1} / max‖Δ‖_* of Jiang et al. (2016), Theorem
    5: Wishart noise is
    smaller than Laplace noise when it grows faster than √(d log d)."""
    return float(l11_sensitivity) / float(nuclear_sensitivity)


def davis_kahan_subspace_bound(noise_norm, gap, k: int):
    """Jiang et al. (2016), Theorem 6: if σ_k − σ_{k+1} ≥ 2‖W‖₂ then
    ‖V_kV_kᵀ − V̂_kV̂_kᵀ‖_F ≤ 2√k ‖W‖₂ / (σ_k − σ_{k+1}). Returns the bound (inf
    if the gap
    condition fails)."""
    noise_norm = np.asarray(noise_norm, dtype=float)
    out = 2.0 * np.sqrt(k) * noise_norm / gap
    return np.where(gap >= 2.0 * noise_norm, out, np.inf)[()]


def wishart_sample_complexity(
    d: int, epsilon: float, rho: float, eta: float, eigengap: float
) -> float:
    """Jiang et al. (2016), Theorem 7: n above which the Wishart mechanism is
    a (ρ, η)-close
    approximation to the top eigenvector (ρ ≥ √2/2):
    n ≥ 3[(d+1) + √(2(d+1)(d+2) log(d/η)) + 2d log(d/η)] / (2ε(1−ρ²)(λ₁−λ₂)).

    The factor 3 (from λ₁(C) = 3/(2nε)) multiplies the whole bracket, in the
    statement and in the proof. Where the paper's text leaves the extent of
    the square root unclear, the bracket follows Lemma 1, whose bound on
    ‖W‖₂ it is: only 2(d+1)(d+2) log(d/η) is under the root.
    """
    eps = check_epsilon(epsilon)
    theta = np.log(d / eta)
    num = 3.0 * (
        (d + 1) + np.sqrt(2.0 * (d + 1) * (d + 2) * theta) + 2.0 * d * theta
    )
    return float(num / (2.0 * eps * (1.0 - rho**2) * eigengap))


def ppca_sample_complexity(
    d: int,
    epsilon: float,
    rho: float,
    eta: float,
    lambda1: float,
    eigengap: float,
) -> float:
    """Jiang et al. (2016), Theorem 8 (= Chaudhuri et al. 2013, Theorem 7 for
    PPCA):
    n ≥ d/(ε(1−ρ)(λ₁−λ₂)) · (log(1/η)/d + log(4λ₁/((1−ρ²)(λ₁−λ₂))))."""
    eps = check_epsilon(epsilon)
    return float(
        d
        / (eps * (1 - rho) * eigengap)
        * (
            np.log(1 / eta) / d
            + np.log(4 * lambda1 / ((1 - rho**2) * eigengap))
        )
    )


def low_rank_approximation_bound(lambda_k_plus_1: float, noise_norm):
    """Deterministic core of Jiang et al. (2016), Theorem 9 (Achlioptas and
    McSherry 2001):
    ‖A − Â_k‖₂ ≤ λ_{k+1}(A) + 2‖W‖₂ for Â_k the best rank-k approximation of
    A + W."""
    return lambda_k_plus_1 + 2.0 * np.asarray(noise_norm, dtype=float)


def wishart_low_rank_bound(
    lambda_k_plus_1: float, d: int, epsilon: float, eta: float
) -> float:
    """Theorem 9 of Jiang et al. (2016) with explicit constants, A = XXᵀ (so
    C = 3/(2ε) I): with
    probability ≥ 1 − η, ‖A − Â_k‖₂ ≤ λ_{k+1} + 2 λ₁-bound of Lemma 1 at θ =
    log(d/η),
    which is λ_{k+1} + O(d log d / ε)."""
    return float(
        lambda_k_plus_1
        + 2.0 * wishart_noise_norm_bound(d, 1.5 / check_epsilon(epsilon), eta)
    )


def low_rank_lower_bound_rate(d, epsilon: float):
    """Rate d/ε of the Ω(d/ε) lower bound of Jiang et al. (2016), Theorem 10
    (no constant given)."""
    return np.asarray(d, dtype=float) / check_epsilon(epsilon)


def _packing_log_size(d: int, phi):
    """log K of the packing of Chaudhuri et al. (2013), Lemma 11, eq. (12):
    K = (1/8) exp((d−1) log(1/√(1−φ²)))."""
    return (d - 1) * np.log(1.0 / np.sqrt(1.0 - phi**2)) - np.log(8.0)


def mod_sulq_correlation_bound_from_beta(
    d: int, beta: float, grid: int = 2000
) -> float:
    """Chaudhuri et al. (2013), Theorem 15, eqs. (21)-(22), for a given noise
    level β:
    min over φ ∈ Φ of 1 − (1−φ)/4 · (1 − (1/β² + log 2)/log K(φ))², where Φ
    starts at the largest of (2πd)^{-1/2}, √(1 − exp(−2 log(8d)/(d−1))) and √(1
    − exp(−(2/β² + log 256)/(d−1))).
    """
    lower = max(
        1.0 / np.sqrt(2.0 * np.pi * d),
        np.sqrt(-np.expm1(-2.0 * np.log(8.0 * d) / (d - 1))),
        np.sqrt(-np.expm1(-(2.0 / beta**2 + np.log(256.0)) / (d - 1))),
    )
    if lower >= 1.0:
        return 1.0
    phi = lower + (1.0 - lower) * (
        1.0 - np.logspace(0, -12, grid)
    )  # dense near the lower end
    phi = np.unique(np.clip(phi, lower, 1.0 - 1e-15))
    logk = _packing_log_size(d, phi)
    inner = 1.0 - (1.0 / beta**2 + np.log(2.0)) / logk
    values = np.where(inner > 0, 1.0 - (1.0 - phi) / 4.0 * inner**2, 1.0)
    best = float(values.min())
    i = int(values.argmin())
    lo, hi = phi[max(i - 1, 0)], phi[min(i + 1, phi.size - 1)]
    if hi > lo:

        def f(p):
            inn = 1.0 - (1.0 / beta**2 + np.log(2.0)) / _packing_log_size(d, p)
            return 1.0 - (1.0 - p) / 4.0 * inn**2 if inn > 0 else 1.0

        res = optimize.minimize_scalar(
            f, bounds=(lo, hi), method="bounded", options={"xatol": 1e-13}
        )
        best = min(best, float(res.fun))
    return min(best, 1.0)


def mod_sulq_correlation_bound(
    d: int, n: int, epsilon: float, delta: float
) -> float:
    """Theorem 15 of Chaudhuri et al. (2013) at the β of Algorithm 1, eq.
    (5): an upper bound on
    E|⟨v̂₁, v₁⟩| for MOD-SULQ on a hard data set of n copies of one unit
    vector (their Figure 1)."""
    return mod_sulq_correlation_bound_from_beta(
        d, mod_sulq_beta(d, n, epsilon, delta)
    )


def mod_sulq_sample_complexity_rate(d, epsilon: float, delta: float):
    """Rate d^{3/2} √log(d/δ) / ε of Chaudhuri et al. (2013), Theorem 9
    (constants unspecified)."""
    d = np.asarray(d, dtype=float)
    return (
        d**1.5
        * np.sqrt(np.log(d / check_delta(delta)))
        / check_epsilon(epsilon)
    )


__all__ = [
    "wishart_top_eigenvalue_tail",
    "wishart_noise_norm_bound",
    "noise_magnitude_rates",
    "laplace_wishart_ratio",
    "davis_kahan_subspace_bound",
    "wishart_sample_complexity",
    "ppca_sample_complexity",
    "low_rank_approximation_bound",
    "wishart_low_rank_bound",
    "low_rank_lower_bound_rate",
    "mod_sulq_correlation_bound_from_beta",
    "mod_sulq_correlation_bound",
    "mod_sulq_sample_complexity_rate",
]
