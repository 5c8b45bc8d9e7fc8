"""The calibration of the trace-sensitive covariance
(:mod:`dppca.mechanisms.trace_sensitive`): the sensitivity, σ and grid of
every Gaussian step of a run, and so its ρ, from public parameters only
(``n``, ``d``, ε, δ, the method and the noise kind).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..linalg import float_error
from ..privacy.calibration import safe_granularity
from ..privacy.noise import MAX_GAUSSIAN_GRID_SIGMA, check_noise_kind
from ..privacy.zcdp import gaussian_zcdp_rho, zcdp_rho
from ..validation import (
    check_choice,
    check_delta,
    check_epsilon,
    check_n,
    check_positive_int,
)

#: Budget shares of the adaptive estimator: trace, norm histogram, release.
DEFAULT_SHARES = (0.125, 0.125, 0.75)

#: Share of the release's budget spent on the eigenvalues (separate release).
VALUE_SHARE = 0.5

#: Number of dyadic norm levels (candidate radii 1, 1/2, ..., 2⁻²⁹).
DEFAULT_LEVELS = 30

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

#: Relative margin on every discrete calibration (absorbs float rounding).
_CALIBRATION_MARGIN = 2.0**-40

_U = 2.0**-53


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


__all__ = [
    "BASIS_DEFECT",
    "DEFAULT_LEVELS",
    "DEFAULT_SHARES",
    "EIGENVALUE_MARGIN",
    "GaussianStep",
    "METHODS",
    "TraceSensitiveCalibration",
    "VALUE_SHARE",
    "eigenvalue_margin",
    "rayleigh_margin",
    "trace_sensitive_calibration",
    "trace_sensitivity",
]
