"""Calibration of the classical noise-adding mechanisms.

Shared by every mechanism chapter; later chapters add privacy-loss tools here.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize, special

from .validation import check_delta, check_epsilon


def laplace_scale(l1_sensitivity: float, epsilon: float) -> float:
    """Scale b = Δ₁/ε of the Laplace mechanism, which is (ε, 0)-DP (Dwork et al. 2006)."""
    if not l1_sensitivity > 0:
        raise ValueError(f"sensitivity must be > 0; got {l1_sensitivity!r}")
    return float(l1_sensitivity) / check_epsilon(epsilon)


def gaussian_sigma_classical(l2_sensitivity: float, epsilon: float, delta: float) -> float:
    """σ = Δ₂ √(2 ln(1.25/δ)) / ε: the classical Gaussian mechanism (Dwork and Roth 2014, Thm A.1).

    The proof of that bound needs ε < 1; larger ε raises ``ValueError`` (use
    :func:`analytic_gaussian_sigma`, which is exact for every ε).
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if eps >= 1:
        raise ValueError(f"the classical Gaussian calibration is only proved for epsilon < 1; got {eps}")
    if not l2_sensitivity > 0:
        raise ValueError(f"sensitivity must be > 0; got {l2_sensitivity!r}")
    return float(l2_sensitivity) * np.sqrt(2.0 * np.log(1.25 / dl)) / eps


def analytic_gaussian_delta(sigma: float, l2_sensitivity: float, epsilon: float) -> float:
    """Smallest δ for which adding N(0, σ² I) to a query of ℓ₂-sensitivity Δ is (ε, δ)-DP.

    Balle and Wang (2018), Theorem 8:
    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ). Computed with log-CDFs for accuracy.
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


def analytic_gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest σ making the Gaussian mechanism (ε, δ)-DP, for any ε > 0 (Balle and Wang 2018).

    Solves :func:`analytic_gaussian_delta` (decreasing in σ) for σ by bracketing root-finding.
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    if not l2_sensitivity > 0:
        raise ValueError(f"sensitivity must be > 0; got {l2_sensitivity!r}")

    def gap(log_sigma):
        return np.log(analytic_gaussian_delta(np.exp(log_sigma), l2_sensitivity, eps) + 1e-300) - np.log(dl)

    lo, hi = np.log(l2_sensitivity) - 10.0, np.log(l2_sensitivity) + 10.0
    while gap(lo) < 0:
        lo -= 10.0
    while gap(hi) > 0:
        hi += 10.0
    return float(np.exp(optimize.brentq(gap, lo, hi, xtol=1e-14, rtol=1e-12)))


def gaussian_mechanism_epsilon(sigma: float, l2_sensitivity: float, delta: float) -> float:
    """Smallest ε such that N(0, σ² I) noise on a Δ-sensitive query is (ε, δ)-DP (inverse of
    :func:`analytic_gaussian_delta` in ε)."""
    dl = check_delta(delta)
    if analytic_gaussian_delta(sigma, l2_sensitivity, 1e-12) <= dl:
        return 0.0
    return float(optimize.brentq(
        lambda e: analytic_gaussian_delta(sigma, l2_sensitivity, e) - dl, 1e-12, 1e4, xtol=1e-13))


def laplace_privacy_loss_bound(l1_sensitivity: float, scale: float) -> float:
    """Largest privacy loss ε = Δ₁/b of Laplace noise of scale b on a Δ₁-sensitive query."""
    return float(l1_sensitivity) / float(scale)


__all__ = [
    "laplace_scale", "gaussian_sigma_classical", "analytic_gaussian_delta",
    "analytic_gaussian_sigma", "gaussian_mechanism_epsilon", "laplace_privacy_loss_bound",
]
