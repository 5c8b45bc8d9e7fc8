"""The noisy power method's calibration: its default number of steps, the
Gaussian noise of each step (float and safe), and the shrink that absorbs the
float error of each computed product (moved from
:mod:`dppca.mechanisms.power_method`, which re-exports every name)."""

from __future__ import annotations

import math

from ..linalg.float_error import rounding_gamma
from ..privacy.calibration import (
    composed_gaussian_sigma,
    discrete_gaussian_sigma,
    safe_granularity,
)
from ..privacy.noise import (
    MAX_GAUSSIAN_GRID_SIGMA,
)
from ..privacy.sensitivity import power_step_sensitivity
from ..validation import (
    ROW_NORM_TOLERANCE,
    check_n,
)


def default_iterations(d: int) -> int:
    """Data-independent number of steps, ``max(10, ceil(3 ln d))``.

    The analyses ask for L of order (λ_k / gap) log(d / error) (Hardt and Price
    2014, Cor. 1.1; Balcan et al. 2016, Thm 2.2); the gap is private, so the
    default assumes a moderate one. Each extra step costs privacy (σ grows like
    √L), so callers who know more should say so.
    """
    return max(10, math.ceil(3.0 * math.log(d)))


def safe_noisy_power_calibration(
    n: int, block_size: int, d: int, epsilon: float, delta: float, L: int
) -> tuple[float, float]:
    """``(σ, γ)`` of the floating-point-safe noisy power method.

    Each step rounds ``A V`` (d x p entries) to the grid γ and adds exact
    discrete Gaussian noise (:mod:`dppca.privacy.noise`). In grid units a step's
    ℓ₂
    sensitivity is Δ/γ + √(dp) (:func:`dppca.privacy.rounded_sensitivity`), and
    a discrete Gaussian of that shift is Δ_k²/(2σ_k²)-zCDP (Canonne, Kamath and
    Steinke 2020). L steps add their ρ's; ρ = :func:`dppca.privacy.zcdp_rho`
    (ε, δ) for the whole run gives σ = √L times the one-release calibration
    :func:`dppca.privacy.discrete_gaussian_sigma`.
    """
    sensitivity = power_step_sensitivity(check_n(n), block_size)
    rounding = math.sqrt(d * block_size)
    sigma_float = noisy_power_sigma(n, block_size, epsilon, delta, L)
    grid = safe_granularity(
        sensitivity, rounding, sigma_float, MAX_GAUSSIAN_GRID_SIGMA
    )
    one = discrete_gaussian_sigma(sensitivity, epsilon, delta, grid, rounding)
    return one * math.sqrt(L), grid


def product_shrink(
    n: int,
    d: int,
    p: int,
    summands: int | None = None,
    input_shrink: float | None = None,
) -> float:
    """Factor ``s < 1`` applied to every computed product ``fl(A V)`` so that
    the *computed* step keeps the sensitivity Δ the noise is calibrated to
    (:func:`dppca.privacy.sensitivity.power_step_sensitivity`).

    Three things separate the computed product from the exact ``A V`` of rows
    of norm at most one with an orthonormal ``V``, and each is bounded:

    * rows accepted within ``1 + ROW_NORM_TOLERANCE`` of the unit norm grow
      ``A − A'`` by at most ``t = (1 + ROW_NORM_TOLERANCE)²``;
    * ``V`` is a computed Householder QR factor (LAPACK), orthonormal only to
      rounding: ``‖V̂ − Q‖_F ≤ √p γ_{c d p}`` for an exactly orthonormal
      ``Q`` (Higham 2002, Thm 19.4; ``c = 16`` here), so ``‖V̂‖₂ ≤ 1 + q``,
      ``q = √p γ_{16 d p}``, and ``‖(A − A')V̂‖_F ≤ (1 + q) t Δ``;
    * the product is a sum of ``m`` products (``m = summands``: ``d`` for a
      precomputed ``A``, ``n + d`` for a sum over rows of dot products, the
      default), at most ``M = m + 3`` roundings per term in any order, the
      scaling by ``s`` included (Higham 2002, Sec. 3.1):
      its error is at most ``γ_M (1/n) Σ_i ‖x_i‖² ‖V̂‖_F ≤ e = γ_M t (1 + q)
      √p`` in Frobenius norm for each data set (``‖A‖_F ≤ tr A ≤ t``).

    So neighbouring computed products differ by at most ``(1 + q) t Δ + 2e``,
    and ``s = Δ / ((1 + q) t Δ + 2e)`` brings that back to Δ.

    A computed second moment (``input_shrink``, the shrink ``s_in`` of
    :func:`dppca.linalg.clipped_sums.clipped_second_moment`) is not exactly
    ``XᵀX/n``: the float-error proposition of :mod:`dppca.linalg.float_error`
    bounds its neighbours' difference in Frobenius norm only, by ``√2/n``
    (the exact part ``s_in² √2/n``, the rounding at most ``√2(1 − s_in²)/n``).
    For ``p ≥ 2`` that is Δ. For ``p = 1``, ``Δ = 1/n``, the exact part moves
    ``A v`` by at most ``s_in²/n`` and the rounding by ``√2(1 − s_in²)/n``:
    ``(1 + κ) Δ`` with ``κ = (√2 − 1)(1 − s_in²)``, absorbed here as a factor
    ``1 + κ`` on Δ (red team 18: without it the computed step could move by
    ``1 + 3.9·10⁻⁵`` times Δ at ``n = 2²⁷``). A uniform
    scaling leaves the subspace unchanged; over rows ``1 − s`` is about
    ``3·10⁻⁶`` at ``n = 10⁵``, and from ``A`` about ``10⁻⁸`` at ``n = 10⁵``,
    ``d = 100``. The ``multiply`` of :func:`noisy_power_method_from_operator`
    must be such a sum (a Strassen-type product is not).
    """
    delta = power_step_sensitivity(check_n(n), p)
    m = n + d if summands is None else int(summands)
    t = (1.0 + ROW_NORM_TOLERANCE) ** 2
    q = math.sqrt(p) * rounding_gamma(16 * d * p)
    error = rounding_gamma(m + 3) * t * (1.0 + q) * math.sqrt(p)
    moved = delta
    if input_shrink is not None and p == 1:
        s_in = float(input_shrink)
        if not 0.0 < s_in <= 1.0:
            raise ValueError(f"input_shrink must lie in (0, 1]; got {s_in!r}")
        # (√2 − 1)(1 − s²), rounded up by a relative 2⁻⁴⁰ for its own float
        kappa = (math.sqrt(2.0) - 1.0) * (1.0 - s_in * s_in)
        moved = delta * (1.0 + kappa * (1.0 + 2.0**-40) + 2.0**-50)
    return delta / ((1.0 + q) * t * moved + 2.0 * error)


def noisy_power_sigma(
    n: int,
    block_size: int,
    epsilon: float,
    delta: float,
    n_iterations: int,
    calibration: str = "zcdp",
) -> float:
    """Per-entry σ of the noise ``G_l`` so that ``n_iterations`` steps are
    (ε, δ)-DP together.

    ``"zcdp"`` (default): σ = Δ √(L / (2ρ)) with Δ = √2/n (1/n for block size 1)
    and ρ = (√(ε + log 1/δ) − √(log 1/δ))², the closed form derived in chapter
    14. ``"gdp"``: the exact composition of Gaussian mechanisms (smaller σ, same
    guarantee).
    """
    sensitivity = power_step_sensitivity(check_n(n), block_size)
    return composed_gaussian_sigma(
        sensitivity, n_iterations, epsilon, delta, calibration
    )


__all__ = [
    "default_iterations",
    "noisy_power_sigma",
    "product_shrink",
    "safe_noisy_power_calibration",
]
