"""Zero-concentrated differential privacy (Bun and Steinke 2016): the ρ of a
Gaussian mechanism and the conversions between ρ-zCDP and (ε, δ)-DP.

Two conversions, each with its inverse: the simple bound of Bun and Steinke
(:func:`zcdp_epsilon`, :func:`zcdp_rho_for`) and the tighter one of Canonne,
Kamath and Steinke (2020) (:func:`zcdp_delta`, :func:`zcdp_rho`). Under
adaptive composition the ρ's add, so these are the accounting in which the
iterative mechanisms (the noisy power method, the streaming pass, CoinPress,
the trace-sensitive covariance) and the safe discrete Gaussian
(:func:`dppca.privacy.calibration.discrete_gaussian_sigma`) spend a budget.
They are separate from :mod:`dppca.privacy.calibration` because they choose
no noise scale: they translate between two notions of privacy, for every
caller that composes Gaussian steps.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import optimize

from ..validation import check_delta, check_epsilon


def gaussian_zcdp_rho(l2_sensitivity: float, sigma: float) -> float:
    """ρ = Δ²/(2σ²): adding N(0, σ² I) to a query of ℓ₂-sensitivity Δ is ρ-zCDP
    (Bun and Steinke 2016, Prop. 1.6). Under adaptive composition the ρ's add
    (their Lemma 2.3)."""
    if not (sigma > 0 and l2_sensitivity > 0):
        raise ValueError("sigma and the sensitivity must be > 0")
    return float(l2_sensitivity**2 / (2.0 * sigma**2))


def zcdp_epsilon(rho: float, delta: float) -> float:
    """ε = ρ + 2√(ρ log(1/δ)): a ρ-zCDP mechanism is (ε, δ)-DP for every δ in
    (0, 1)
    (Bun and Steinke 2016, Prop. 1.3)."""
    if not rho >= 0:
        raise ValueError(f"rho must be >= 0; got {rho!r}")
    log_term = np.log(1.0 / check_delta(delta))
    return float(rho + 2.0 * np.sqrt(rho * log_term))


def zcdp_rho_for(epsilon: float, delta: float) -> float:
    """The largest ρ whose conversion :func:`zcdp_epsilon` gives (ε, δ)-DP.

    With a = log(1/δ), ε = ρ + 2√(ρa) reads (√ρ + √a)² = ε + a, so ρ = (√(ε + a)
    − √a)².
    """
    eps = check_epsilon(epsilon)
    a = np.log(1.0 / check_delta(delta))
    # √(ε + a) − √a written as ε/(√(ε + a) + √a): the difference of two close
    # roots was 0 in float64 for ε ≪ a (ε = 1e-14, δ = 1e-30), and ρ = 0 then
    # divided by zero while planning (red team, round 11)
    return float((eps / (np.sqrt(eps + a) + np.sqrt(a))) ** 2)


def zcdp_delta(rho: float, epsilon: float) -> float:
    """δ such that ρ-zCDP implies (ε, δ)-DP: the conversion of Canonne,
    Kamath and Steinke
    (2020, Section 2.3, Corollary 13)::

        δ = inf over α > 1 of exp((α − 1)(αρ − ε)) / (α − 1) · (1 − 1/α)^α

    Every α gives a valid δ, so a numerical minimiser that misses the infimum
    only loses tightness, never validity.
    """
    eps = check_epsilon(epsilon)
    if not rho > 0:
        raise ValueError(f"rho must be > 0; got {rho!r}")

    def log_delta(log_excess):  # α = 1 + e^{log_excess}
        excess = np.exp(log_excess)
        alpha = 1.0 + excess
        return (
            excess * (alpha * rho - eps)
            - log_excess
            + alpha * (np.log(excess) - np.log(alpha))
        )

    centre = np.log(max((eps + rho) / (2.0 * rho) - 1.0 + 1e-12, 1e-12))
    res = optimize.minimize_scalar(
        log_delta,
        bounds=(min(centre, 0.0) - 30.0, max(centre, 0.0) + 30.0),
        method="bounded",
        options={"xatol": 1e-10},
    )
    return float(min(1.0, np.exp(min(res.fun, log_delta(centre)))))


def zcdp_rho(epsilon: float, delta: float) -> float:
    """Largest ρ (to 1e-12 relative) whose :func:`zcdp_delta` at ε is ≤ δ
    (bisection in log ρ;
    the returned ρ is checked to satisfy the bound). Cached: it is a pure
    function of (ε, δ)."""
    return _zcdp_rho(check_epsilon(epsilon), check_delta(delta))


@functools.lru_cache(maxsize=256)
def _zcdp_rho(eps: float, dl: float) -> float:
    lo, hi = -60.0, np.log(eps) + 10.0
    while zcdp_delta(np.exp(hi), eps) <= dl:
        hi += 10.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if zcdp_delta(np.exp(mid), eps) <= dl:
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-13:
            break
    rho = float(np.exp(lo))
    if not zcdp_delta(rho, eps) <= dl:
        # the only check that rho meets delta: an explicit refusal, which
        # ``python -O`` cannot remove (an assert would be), never an
        # under-calibrated rho
        raise ValueError(
            f"no zCDP rho meets delta = {dl!r} at epsilon = {eps!r} in "
            "float64; use a larger epsilon or delta"
        )
    return rho


def check_budget_shares(shares, count: int, parts: str) -> tuple:
    """The shares of a ρ budget among ``count`` steps, checked.

    Under composition the steps' ρ's add, so shares that are finite, positive
    and sum to at most one keep the run inside its budget. ``parts`` names
    the steps in the error message (for example ``"one per step"``).

    Returns
    -------
    tuple of float
        The shares, as floats.

    Raises
    ------
    ValueError
        If there are not ``count`` shares, one is not a finite number > 0,
        or they add up to more than one (beyond a rounding of 1e-12).
    """
    shares = tuple(float(s) for s in shares)
    if len(shares) != count or not all(
        np.isfinite(s) and s > 0 for s in shares
    ):
        raise ValueError(
            f"shares must be {count} numbers > 0 ({parts}); got {shares!r}"
        )
    if sum(shares) > 1.0 + 1e-12:
        raise ValueError(f"shares must add up to at most 1; got {shares!r}")
    return shares


__all__ = [
    "check_budget_shares",
    "gaussian_zcdp_rho",
    "zcdp_epsilon",
    "zcdp_rho_for",
    "zcdp_delta",
    "zcdp_rho",
]
