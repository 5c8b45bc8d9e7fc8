"""Guarantee records of the input-perturbation mechanisms
(:mod:`dppca.mechanisms.input_perturbation`; chapters 2 and 3), from the same
calibration as their noise (:mod:`dppca.privacy.calibration`), public
parameters only.

Gaussian noise (MOD-SULQ, Analyze Gauss) is recorded as a Gaussian mechanism
of ℓ₂ sensitivity √2/n on the upper triangle, or, with safe noise, as a
ρ-zCDP release for the σ and grid the mechanism draws with; Laplace noise as
pure ε; the two Wishart mechanisms as float-only (0, δ) records, the
published one with the δ chapter 3 proves it has, not the ε it claims.
"""

from __future__ import annotations

import math

import numpy as np

from ..privacy.calibration import (
    analyze_gauss_sigma,
    laplace_input_scale,
    mod_sulq_beta,
    safe_gaussian_input_calibration,
    safe_laplace_input_calibration,
    wishart_privacy_profile,
)
from ..privacy.drawable import (
    check_gaussian_drawable,
    check_laplace_drawable,
    check_moment_granularity,
)
from ..privacy.guarantees import (
    Release,
    gaussian_release,
    noise_record,
    zcdp_release,
)
from ..privacy.noise import (
    check_noise_kind,
)
from ..privacy.sensitivity import frobenius_sensitivity_second_moment
from ..privacy.zcdp import gaussian_zcdp_rho
from ..validation import check_delta


def _gaussian_input_guarantee(
    label, n, d, epsilon, delta, sigma_float, noise, granularity, **record
) -> Release:
    """Record of a Gaussian input perturbation with float σ ``sigma_float``.

    Safe noise: the σ and grid γ the mechanism draws with (a caller's
    ``granularity`` included), and the ℓ₂ sensitivity √2/n of the upper
    triangle grown by the rounding, √(d(d+1)/2)·γ: a ρ-zCDP release. Float
    noise: a Gaussian release of multiplier σ/(√2/n), not proved as a program.
    """
    sensitivity = frobenius_sensitivity_second_moment(n, upper_triangle=True)
    if check_noise_kind(noise) == "safe":
        if granularity is not None:
            check_moment_granularity(granularity)
        sigma, grid = safe_gaussian_input_calibration(
            d, n, epsilon, delta, sigma_float, granularity
        )
        check_gaussian_drawable(sigma, grid, what=label)
        rho = gaussian_zcdp_rho(
            sensitivity + np.sqrt(d * (d + 1) / 2) * grid, sigma
        )
        return zcdp_release(
            f"{label} (safe noise)",
            rho,
            epsilon,
            delta,
            **noise_record("safe"),
            **record,
        )
    return gaussian_release(
        label,
        sigma_float,
        sensitivity,
        epsilon,
        delta,
        **noise_record("float"),
        **record,
    )


def mod_sulq_guarantee(
    n, d, epsilon, delta, *, noise="safe", granularity=None, exact_beta=False
) -> Release:
    """Guarantee record of MOD-SULQ. Its noise has i.i.d. N(0, β²) entries
    on the upper triangle, whose ℓ₂ sensitivity is √2/n: it is a Gaussian
    mechanism, and an accountant sees its true (smaller) ε (chapter 2)."""
    beta = mod_sulq_beta(d, n, epsilon, delta, exact=exact_beta)
    return _gaussian_input_guarantee(
        "MOD-SULQ",
        n,
        d,
        epsilon,
        delta,
        beta,
        noise,
        granularity,
        theorem="[CSS13, Thm 5]",
        chapter="chapter 2",
    )


def analyze_gauss_guarantee(
    n,
    d,
    epsilon,
    delta,
    *,
    noise="safe",
    granularity=None,
    calibration="analytic",
) -> Release:
    """Guarantee record of Analyze Gauss (same calibration as the noise)."""
    sigma = analyze_gauss_sigma(n, epsilon, delta, calibration)
    return _gaussian_input_guarantee(
        "Analyze Gauss",
        n,
        d,
        epsilon,
        delta,
        sigma,
        noise,
        granularity,
        theorem="[DTTZ14]; analytic σ [BW18, Thm 8]",
        chapter="chapter 2",
    )


def laplace_input_guarantee(
    n, d, epsilon, *, noise="safe", granularity=None
) -> Release:
    """Guarantee record of Laplace input perturbation: pure ε (the safe
    scale is calibrated for the grid actually used, so ε holds for any
    ``granularity``)."""
    if check_noise_kind(noise) == "safe":
        if granularity is not None:
            check_moment_granularity(granularity)
        scale, grid = safe_laplace_input_calibration(d, n, epsilon, granularity)
        check_laplace_drawable(scale, grid, "Laplace input perturbation")
    return Release(
        "Laplace input" + (" (safe noise)" if noise == "safe" else ""),
        "pure",
        float(epsilon),
        **noise_record(noise),
        theorem="[JXZ16, Thm 3]",
        chapter="chapter 3",
    )


def check_mod_sulq_options(options, n, d, k, epsilon) -> dict:
    """MOD-SULQ's ``mechanism_options`` checked from public values
    (``exact_beta`` a bool); returns a copy."""
    value = options.get("exact_beta")
    if value is not None and not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"exact_beta must be True or False; got {value!r}")
    return dict(options)


def analyze_gauss_forecast_noise(n, d, epsilon, delta, noise, options):
    """The off-diagonal σ Analyze Gauss would draw with on ``XᵀX/n`` (rows
    in the unit ball), its ``calibration`` and, with safe noise, the grid's
    σ: the noise the error forecast sees (:mod:`dppca.forecast`)."""
    how = options.get("calibration", "analytic")
    sigma = analyze_gauss_sigma(n, epsilon, delta, how)
    if noise == "safe":
        sigma = safe_gaussian_input_calibration(
            d, n, epsilon, delta, sigma, options.get("granularity")
        )[0]
    return sigma


def laplace_input_forecast_noise(n, d, epsilon, delta, noise, options):
    """The off-diagonal standard deviation of Laplace input perturbation's
    noise on ``XᵀX/n`` (rows in the unit ball): ``√2 b`` for its scale ``b``
    (safe noise: the grid's scale); the forecast's noise
    (:mod:`dppca.forecast`). ``delta`` is not used."""
    if noise == "safe":
        scale = safe_laplace_input_calibration(
            d, n, epsilon, options.get("granularity")
        )[0]
    else:
        scale = laplace_input_scale(d, n, epsilon)
    return math.sqrt(2.0) * scale  # Laplace(b) has variance 2b²


def analyze_gauss_covariance_plan(n, d, epsilon, delta, kind, check):
    """``(sigma, grid, record)`` of Analyze Gauss as
    :class:`dppca.PrivateCovariance` releases it (analytic σ; safe noise on
    its grid), from public quantities only; ``check(sigma, grid, what)``
    refuses a σ the exact sampler cannot draw, before the record is built."""
    sigma = analyze_gauss_sigma(n, epsilon, delta)
    grid = None
    if kind == "safe":
        sigma, grid = safe_gaussian_input_calibration(
            d, n, epsilon, delta, sigma
        )
    check(sigma, grid, "the noisy matrix")
    record = analyze_gauss_guarantee(n, d, epsilon, delta, noise=kind)
    return sigma, grid, record


def wishart_delta_guarantee(n, d, delta) -> Release:
    """Guarantee record of the book's δ-calibrated Wishart mechanism:
    (0, δ)-DP, hence (ε, δ) for every ε ≥ 0; float Wishart draws only."""
    return Release(
        "Wishart (δ-calibrated)",
        "approximate",
        0.0,
        float(check_delta(delta)),
        noise="float",
        proved=False,
        caveat="float64 Wishart draws; the (0, δ) proof is for the "
        "continuous law (chapter 10)",
        theorem="book, Theorem 3.5",
        chapter="chapter 3",
    )


def wishart_published_guarantee(n, d, epsilon) -> Release:
    """Record of the published Wishart mechanism: exactly (ε', 1 − e^(−ε/3))
    for every ε' ≥ 0 (chapter 3), recorded as (0, 1 − e^(−ε/3)); NOT the
    (ε, 0) the paper claims."""
    gap = float(wishart_privacy_profile(epsilon, 0.0))
    return Release(
        "Wishart (published)",
        "approximate",
        0.0,
        gap,
        noise="float",
        proved=False,
        caveat="NOT (ε, 0)-DP as published: exactly (0, 1 − e^{−ε/3}) "
        "(chapter 3)",
        theorem="[JXZ16, Thm 4] refuted",
        chapter="chapter 3",
    )


__all__ = [
    "analyze_gauss_covariance_plan",
    "analyze_gauss_forecast_noise",
    "check_mod_sulq_options",
    "laplace_input_forecast_noise",
    "mod_sulq_guarantee",
    "analyze_gauss_guarantee",
    "laplace_input_guarantee",
    "wishart_delta_guarantee",
    "wishart_published_guarantee",
]
