"""The calibration of the spiked-model PCA of :mod:`dppca.mechanisms.spiked`
(after Cai, Xia and Zha 2024), from public parameters only: the float
margin of the eigen-decomposition, the four steps' sensitivities and noise,
the gap test's offset and the guarantee record.

Every σ here is for rows of norm at most one (the release divides by the
public ``data_norm`` first) and replace-one neighbours; the derivation is in
the module docstring of :mod:`dppca.mechanisms.spiked` and on the book's
page 19.2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..linalg import float_error
from ..privacy.calibration import safe_granularity
from ..privacy.drawable import check_gaussian_drawable
from ..privacy.guarantees import FLOAT_NOISE_CAVEAT, Release
from ..privacy.noise import (
    MAX_GAUSSIAN_GRID_SIGMA,
    check_noise_kind,
    discrete_gaussian_parameters,
)
from ..privacy.zcdp import check_budget_shares, zcdp_rho
from ..validation import check_delta, check_epsilon, check_k, check_n
from .trace_sensitive_calibration import GaussianStep

#: Shares of ρ: eigengap, projector, eigenvalues, noise level (ours).
DEFAULT_SHARES = (0.1, 0.6, 0.15, 0.15)

#: Names of the four steps, in the order they draw noise.
STEPS = ("gap", "projector", "values", "noise_level")

#: Half of δ goes to the zCDP conversion, half (divided by 1 + e^ε) to the
#: probability that the released gap bound overshoots the true gap.
PTR_DELTA_SHARE = 0.5

#: Multiple of ``d u`` that bounds the float error of each computed
#: eigenvalue (and of the computed basis' orthonormality): LAPACK's backward
#: error is ``p(d) u ‖A‖₂`` for a modest ``p(d)``, assumed ``≤ 2¹⁰ d``.
FLOAT_FACTOR = 2.0**10

#: Relative margin on every σ (absorbs the rounding of the calibration).
_CALIBRATION_MARGIN = 2.0**-40

_U = 2.0**-53

FLOAT_EIGEN_CAVEAT = (
    "the float error of the eigendecomposition is covered by a public margin "
    "(1024·d·u per eigenvalue, u = 2⁻⁵³, plus the sum's rounding) "
    "assumed from LAPACK's backward stability, not proved for every data "
    "set"
)


def float_margin(n: int, d: int) -> float:
    """``2¹⁰ d u + γ_n``: the public bound on the float error of each
    computed eigenvalue of the computed ``A`` against the exact second
    moment of the (shrunk) unit rows, and on the defect of the computed
    orthonormal basis.

    ``γ_n = n u/(1 − n u)`` bounds the summation error of ``A`` in
    ``‖·‖₂`` (each entry's error is at most ``γ_n (|X|ᵀ|X|/n)_ij``, Higham
    2002, Sec. 3.1, whose Frobenius norm is at most ``Σ ‖x_i‖²/n ≤ 1``);
    ``2¹⁰ d u`` is the assumed bound on LAPACK's backward error for
    ``‖A‖₂ ≤ 1`` (module docstring: assumed, not proved)."""
    return FLOAT_FACTOR * d * _U + float_error.rounding_gamma(n)


def projector_sensitivity(n: int, d: int, k: int, gap: float) -> float:
    """Frobenius sensitivity of the computed top-k projector when the exact
    eigengap of both neighbours' ``A`` is at least ``gap`` (rows of norm ≤ 1).

    ``2√2 min(√k, √2)/(n g)`` by Davis–Kahan (Yu, Wang and Samworth 2015,
    Thm 2, with ``‖P − P′‖_F = √2 ‖sin Θ‖_F``), plus twice the float error of
    a computed projector (``2√2 √k m/g`` from the backward error ``m`` and
    ``2√k m`` from the basis' defect, ``m = float_margin(n, d)``); never more
    than ``√(2 min(k, d − k))`` (plus the same defect), the largest distance
    of two rank-k projectors, which is also the value for ``gap ≤ 0``.
    """
    m = float_margin(n, d)
    defect = 4.0 * math.sqrt(k) * m
    cap = math.sqrt(2.0 * min(k, d - k)) + defect
    if not gap > 0:
        return cap
    exact = 2.0 * math.sqrt(2.0) * min(math.sqrt(k), math.sqrt(2.0)) / n
    backward = 2.0 * (2.0 * math.sqrt(2.0) * math.sqrt(k) * m)
    return min((exact + backward) / gap + defect, cap)


def _gaussian_step(label, sensitivity, rho, rounding, noise) -> GaussianStep:
    """σ (and, safe noise, the grid of ``safe_granularity``) making a step of
    this sensitivity ρ-zCDP: ``σ = (Δ + r γ)/√(2ρ)``, raised by 2⁻⁴⁰."""
    sigma_float = sensitivity / math.sqrt(2.0 * rho)
    if noise == "float":
        return GaussianStep(label, sensitivity, sigma_float)
    grid = safe_granularity(
        sensitivity, rounding, sigma_float, MAX_GAUSSIAN_GRID_SIGMA
    )
    shift = sensitivity + rounding * grid
    sigma = shift / math.sqrt(2.0 * rho) * (1.0 + _CALIBRATION_MARGIN)
    return GaussianStep(label, sensitivity, sigma, float(grid), rounding)


def _tail(step: GaussianStep, probability: float) -> float:
    """``t`` with ``P(Z ≥ t) ≤ probability`` for the noise the step draws:
    ``s √(2 log(1/p))``, ``s²`` the variance parameter (for the discrete
    Gaussian the one the sampler really uses, ``≥ σ²``); both laws are
    ``s²``-sub-Gaussian (Canonne, Kamath and Steinke 2020)."""
    variance = step.sigma**2
    if step.granularity is not None:
        t, c = discrete_gaussian_parameters(
            (step.sigma / step.granularity) ** 2
        )
        variance = max(variance, t * c * step.granularity**2)
    return math.sqrt(2.0 * variance * math.log(1.0 / probability))


@dataclass(frozen=True)
class SpikedCalibration:
    """Every step of a run, from public parameters only (unit-ball units).

    ``steps`` holds the gap, eigenvalue and noise-level steps; the
    projector's σ depends on the released gap bound
    (:meth:`projector_step`). ``rho`` is the zCDP of the ideal run,
    ``delta_ptr`` the probability that the gap bound overshoots.
    """

    n: int
    d: int
    k: int
    epsilon: float
    delta: float
    noise: str
    rho: float
    delta_ptr: float
    shares: tuple
    steps: dict = field(default_factory=dict)

    @property
    def gap_offset(self) -> float:
        """``τ``: subtracted from the noisy computed gap so that it falls
        below both neighbours' exact gaps except with probability
        ``delta_ptr``: the noise's tail, the neighbour's ``2/n``, the float
        error of the computed gap ``2 m`` and half a grid cell."""
        step = self.steps["gap"]
        return (
            _tail(step, self.delta_ptr)
            + 2.0 / self.n
            + 2.0 * float_margin(self.n, self.d)
            + (step.granularity or 0.0) / 2
        )

    def projector_step(self, gap_bound: float) -> GaussianStep:
        """The projector's step for a released gap bound (public)."""
        sensitivity = projector_sensitivity(self.n, self.d, self.k, gap_bound)
        return _gaussian_step(
            "projector",
            sensitivity,
            self.shares[1] * self.rho,
            math.sqrt(self.d * (self.d + 1) / 2),
            self.noise,
        )


def spiked_calibration(
    n, d, k, epsilon, delta, *, noise="safe", shares=DEFAULT_SHARES
) -> SpikedCalibration:
    """The calibration of :func:`~dppca.mechanisms.spiked.spiked_pca`
    (module docstring).

    Sensitivities, unit ball, float margins ``m = float_margin(n, d)``
    included: gap ``2/n + 4m`` (rounding 1 cell), top-k eigenvalues
    ``√2/n + 2√k m`` (``√k`` cells), bulk mean ``1/(n(d−k)) + 2m`` (1 cell).
    ``ρ = zcdp_rho(ε, δ PTR_DELTA_SHARE)``; ``δ_ptr = δ (1 −
    PTR_DELTA_SHARE)/(1 + e^ε)``.
    """
    n = check_n(n)
    d = int(d)
    if d < 2:
        raise ValueError(f"d must be at least 2; got {d}")
    k = check_k(k, d)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    noise = check_noise_kind(noise)
    shares = check_budget_shares(shares, len(STEPS), ", ".join(STEPS))
    rho = zcdp_rho(epsilon, delta * PTR_DELTA_SHARE)
    delta_ptr = delta * (1.0 - PTR_DELTA_SHARE) / (1.0 + math.exp(epsilon))
    m = float_margin(n, d)
    steps = {
        "gap": _gaussian_step(
            "eigengap", 2.0 / n + 4.0 * m, shares[0] * rho, 1.0, noise
        ),
        "values": _gaussian_step(
            "eigenvalues",
            math.sqrt(2.0) / n + 2.0 * math.sqrt(k) * m,
            shares[2] * rho,
            math.sqrt(k),
            noise,
        ),
        "noise_level": _gaussian_step(
            "noise level",
            1.0 / (n * (d - k)) + 2.0 * m,
            shares[3] * rho,
            1.0,
            noise,
        ),
    }
    return SpikedCalibration(
        n, d, k, epsilon, delta, noise, rho, delta_ptr, shares, steps
    )


def spiked_record(cal: SpikedCalibration) -> Release:
    """The guarantee record of a run with this calibration.

    Parameters
    ----------
    cal : SpikedCalibration
        The run's calibration (public parameters only).

    Returns
    -------
    Release
        An ``"approximate"`` (ε, δ) record, not proved; with safe noise,
        every step's σ (the projector's at its cap) is checked drawable
        first.
    """
    label = "spiked PCA (Cai–Xia–Zha)"
    if cal.noise == "safe":
        steps = dict(cal.steps, projector=cal.projector_step(0.0))
        for name, step in steps.items():
            check_gaussian_drawable(
                step.sigma, step.granularity, what=f"{label}'s {name} step"
            )
        label += " (safe noise)"
        caveat = FLOAT_EIGEN_CAVEAT
    else:
        caveat = FLOAT_NOISE_CAVEAT + "; " + FLOAT_EIGEN_CAVEAT
    return Release(
        label,
        "approximate",
        cal.epsilon,
        cal.delta,
        noise=cal.noise,
        proved=False,
        caveat=caveat,
        theorem="structure [CXZ24]; replace-one calibration, gap test "
        "(propose-test-release) and composition (ρ-zCDP, δ/2 + δ/2): "
        "the book's own",
        chapter="chapter 19",
    )


def spiked_guarantee(
    n, d, k, epsilon, delta, *, noise="safe", shares=DEFAULT_SHARES
) -> Release:
    """Guarantee record of :func:`~dppca.mechanisms.spiked.spiked_pca`
    with these settings.

    Parameters
    ----------
    n, d, k : int
        Rows, columns and number of components (``1 <= k < d``).
    epsilon, delta : float
        The privacy budget.
    noise : {"safe", "float"}, default="safe"
        The noise kind.
    shares : tuple of four floats, default=DEFAULT_SHARES
        Shares of ρ: gap, projector, eigenvalues, noise level.

    Returns
    -------
    Release
        An ``"approximate"`` (ε, δ) record, replace-one, public parameters
        only; not proved (the float eigen-decomposition's margin is
        assumed).
    """
    return spiked_record(
        spiked_calibration(n, d, k, epsilon, delta, noise=noise, shares=shares)
    )


__all__ = [
    "DEFAULT_SHARES",
    "FLOAT_EIGEN_CAVEAT",
    "FLOAT_FACTOR",
    "PTR_DELTA_SHARE",
    "STEPS",
    "SpikedCalibration",
    "float_margin",
    "projector_sensitivity",
    "spiked_calibration",
    "spiked_guarantee",
    "spiked_record",
]
