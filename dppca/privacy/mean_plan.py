"""One calibration for a private vector: how :class:`dppca.PrivatePCA`
draws its private mean, and :class:`dppca.scaler.PrivateStandardScaler` its
column sums, with the guarantee record of each draw, from public
quantities only (``n``, ``d``, the bound and the budget): Laplace noise for
a pure budget, analytic (or safe discrete) Gaussian noise otherwise. The
release plan (:mod:`dppca.decomposition.plan`), the scaler and the forecast all
read it, so they cannot calibrate a vector release differently.
"""

from __future__ import annotations

import math
import sys

from .. import privacy
from . import drawable, noise
from .guarantees import Release, gaussian_release, noise_record, zcdp_release


def _safe_gaussian_sigma(sigma, sensitivity, epsilon, delta, d, grid):
    """σ of the safe Gaussian mean on ``grid``: at least ``sigma`` and the
    discrete calibration with the rounding's √d cells."""
    return max(
        sigma,
        privacy.discrete_gaussian_sigma(
            sensitivity, epsilon, delta, grid, math.sqrt(d)
        ),
    )


def _check_gaussian_mean_range(epsilon, delta, d) -> None:
    """Refuse, from (ε, δ, d) alone, a safe Gaussian mean whose noise no
    grid can hold. On a grid γ the noise is σ/γ = (Δ/γ + √d)/√(2ρ) grid
    units (:func:`dppca.privacy.discrete_gaussian_sigma`), which falls
    towards √d/√(2ρ) as γ grows: if that limit is below half the exact
    sampler's range a coarse enough grid draws it, whatever the bound Δ;
    otherwise the fit is refused before any charge, whatever the bound."""
    limit = math.sqrt(d / (2.0 * privacy.zcdp_rho(epsilon, delta)))
    if limit > noise.MAX_GAUSSIAN_GRID_SIGMA / 2:
        raise ValueError(
            "epsilon is too small: the private mean (ε = "
            f"{epsilon:.3g}, δ = {delta:.3g}, d = {d}) would need a "
            "discrete Gaussian beyond the exact sampler's range; "
            "nothing was charged"
        )


def vector_release_plan(
    l2_sensitivity, d, epsilon, delta, kind, name, fields, l1_sensitivity=None
):
    """Calibrate one release of ``d`` numbers with replace-one ℓ₂
    sensitivity ``l2_sensitivity`` and ℓ₁ sensitivity ``l1_sensitivity``
    (default ``√d`` times the ℓ₂ one, its largest value):
    Laplace noise for a pure budget (``delta`` None), analytic Gaussian
    otherwise; with ``kind="safe"`` on a grid, as exact discrete noise whose
    calibration counts the rounding's ``d`` (ℓ₁) or ``√d`` (ℓ₂) cells.
    Returns ``(law, scale, grid, record)``, ``record`` labelled ``name``
    with the extra ``fields``; raises (before any charge) when no grid can
    hold the noise. The private mean, the private scaler and the forecast
    all calibrate through it."""
    fields = dict(fields, **noise_record(kind))
    safe = kind == "safe"
    if delta is None:
        if l1_sensitivity is None:
            l1_sensitivity = l2_sensitivity * math.sqrt(d)
        scale, grid = l1_sensitivity / epsilon, None
        if safe:  # rounding to the grid grows the ℓ₁ sensitivity by d cells
            grid = privacy.safe_granularity(
                l1_sensitivity, d, scale, noise.MAX_LAPLACE_GRID_SCALE
            )
            scale = privacy.discrete_laplace_scale(
                l1_sensitivity, epsilon, grid, d
            )
            limit = noise.MAX_LAPLACE_GRID_SCALE
            while scale / grid > limit:
                # the rounding's d cells raised t past the sampler's range:
                # t = ⌈(Δ₁/γ + d)/ε⌉ falls towards d/ε as γ grows
                if d / epsilon > limit / 2:
                    raise ValueError(
                        f"epsilon is too small: the {name}Laplace) at ε = "
                        f"{epsilon:.3g} on d = {d} coordinates needs a noise "
                        "scale beyond the exact sampler's range; nothing was "
                        "charged"
                    )
                grid *= 2
                scale = privacy.discrete_laplace_scale(
                    l1_sensitivity, epsilon, grid, d
                )
        record = Release(f"{name}Laplace)", "pure", epsilon, **fields)
        return "laplace", scale, grid, record
    try:
        sigma = privacy.analytic_gaussian_sigma(l2_sensitivity, epsilon, delta)
        low, high = math.sqrt(sys.float_info.min), math.sqrt(sys.float_info.max)
        if not low <= sigma <= high:  # σ² beyond float64's range
            raise ValueError(
                f"the noise scale sigma = {sigma:.3g} leaves float64's range"
            )
    except ValueError as error:  # δ beyond float64's reach: before any charge
        raise ValueError(
            f"{name}Gaussian) cannot be calibrated at its share of the budget "
            f"(ε = {epsilon:.3g}, δ = {delta:.3g}): {error}; nothing was "
            "charged"
        ) from error
    if not safe:
        record = gaussian_release(
            f"{name}Gaussian)", sigma, l2_sensitivity, epsilon, delta, **fields
        )
        return "gaussian", sigma, None, record
    _check_gaussian_mean_range(epsilon, delta, d)
    # ... and its ℓ₂ sensitivity by √d cells
    grid = privacy.safe_granularity(
        l2_sensitivity, math.sqrt(d), sigma, noise.MAX_GAUSSIAN_GRID_SIGMA
    )
    sigma = _safe_gaussian_sigma(sigma, l2_sensitivity, epsilon, delta, d, grid)
    while not drawable.gaussian_drawable(sigma, grid):
        # the rounding's √d cells raised σ past the sampler's range: a
        # coarser grid lowers σ/γ towards its limit, below half the range
        # (checked above from ε, δ, d alone), so this ends
        grid *= 2
        sigma = _safe_gaussian_sigma(
            sigma, l2_sensitivity, epsilon, delta, d, grid
        )
    # ρ of the σ used, with the rounding's √d cells
    rho = privacy.gaussian_zcdp_rho(l2_sensitivity + math.sqrt(d) * grid, sigma)
    record = zcdp_release(
        f"{name}Gaussian, safe noise)", rho, epsilon, delta, **fields
    )
    return "gaussian", sigma, grid, record


def private_mean_plan(est, n, d, bound, budget, pure):
    """How the private mean will be drawn, and its guarantee record,
    before any noise: ``(law, scale, grid, record)``
    (:func:`vector_release_plan` with sensitivity ``2R/n``)."""
    epsilon, delta = budget
    fields = dict(
        row_bound=f"‖x_i‖₂ ≤ {bound:.6g} (clipped)",
        theorem="Laplace / analytic Gaussian mechanism, sensitivity 2R/n",
        chapter="chapter 13",
    )
    return vector_release_plan(
        2.0 * bound / n,
        d,
        epsilon,
        None if pure else delta,
        noise.check_noise_kind(est.noise),
        "private mean (",
        fields,
    )


__all__ = ["private_mean_plan", "vector_release_plan"]
