"""Private PCA for the spiked covariance model, after Cai, Xia and Zha
(2024, arXiv:2401.03820), for rows in a public ball and replace-one
neighbours.

The paper's model is ``Σ = U Λ Uᵀ + σ² I_d`` (``U`` a ``d x k`` orthonormal
basis, ``Λ`` the spikes) with sub-Gaussian rows. Its estimator privatises
the top-k *spectral projector* and the top-k *eigenvalues* separately,
because the two have very different sensitivities, and estimates the noise
level ``σ²`` privately from the bulk of the spectrum. This module builds that
estimator for the book's domain: rows ``x_i`` with ``‖x_i‖ ≤ R`` for a public
``R`` (``data_norm``), divided by ``R`` so that the unit-ball bounds apply,
and ``A = XᵀX/n`` the (uncentred) second moment. Four Gaussian steps, each
ρ_j-zCDP for replace-one neighbours (``S`` the shares, default
``DEFAULT_SHARES``):

1. **the eigengap** ``g = λ_k(A) − λ_{k+1}(A)``, ℓ₂ sensitivity ``2/n`` (each
   eigenvalue moves by at most ``1/n`` when one row of norm ≤ 1 is removed
   and another added: interlacing), released as a *lower bound*
   ``g̃ = g + Z − τ`` whose offset ``τ`` (``SpikedCalibration.gap_offset``)
   makes ``g̃ ≤ min(g(D), g(D′))`` except with probability ``δ_ptr``;
2. **the projector** ``P = V_k V_kᵀ`` of ``A`` plus symmetric Gaussian noise
   calibrated to ``Δ_P(g̃) = min(4/(n g̃), √(2 min(k, d − k)))``
   (``projector_sensitivity``: Davis–Kahan in the form of Yu, Wang and
   Samworth 2015, Thm 2, ``‖P − P′‖_F ≤ 2√2 min(√k ‖E‖₂, ‖E‖_F)/g`` with
   ``‖E‖₂ ≤ 1/n``, ``‖E‖_F ≤ √2/n``); the released basis ``Ũ`` is the top-k
   eigenvectors of the noisy projector;
3. **the top-k eigenvalues** of ``A``, ℓ₂ sensitivity ``√2/n``
   (Hoffman–Wielandt, or interlacing twice);
4. **the noise level**, the mean of the ``d − k`` bulk eigenvalues, ℓ₂
   sensitivity ``1/(n (d − k))`` (the bulk's sum moves by at most ``1/n``:
   removing a row lowers every eigenvalue, adding one raises every
   eigenvalue, each by ``‖x‖²/n`` in total).

Steps 1, 3 and 4 have worst-case sensitivities; step 2's holds whenever the
gap bound holds (propose-test-release). For one neighbouring pair, the run
differs from an *ideal* run (step 2 calibrated to the cap whenever ``g̃``
overshoots either data set's gap) only on that event, of probability at
most ``δ_ptr`` on either data set; the ideal run is ρ-zCDP (adaptive
composition, Bun and Steinke 2016), hence (ε, δ_z)-DP (Canonne, Kamath and
Steinke 2020), and the run is (ε, δ_z + (1 + e^ε) δ_ptr)-DP. The calibration
takes ``δ_z = δ/2`` and ``δ_ptr = (δ/2)/(1 + e^ε)`` (``PTR_DELTA_SHARE``), so
the run is (ε, δ)-DP. Nothing refuses on the data: a gap bound at or below
zero only sets ``Δ_P`` to its cap.

**Float arithmetic.** The sensitivities above are for the exact eigenvalues
and eigenvectors of the exact second moment. The computed ones differ by
LAPACK's backward error; every step adds a public margin (``float_margin``:
``2¹⁰ d u + γ_n`` per eigenvalue, ``u = 2⁻⁵³``: the summation error of
``A`` and LAPACK's stated ``p(d) u ‖A‖₂``, ``‖A‖₂ ≤ 1``, for any modest
``p(d)``). That constant is
assumed, not proved, so the record says ``proved=False`` and why, whatever
the noise kind; the tests check the margin a posteriori on their data.

**What differs from the paper** (notes in the book's issue 42): the paper's
sensitivities are high-probability bounds under its sub-Gaussian model,
which pay ``‖x‖ ‖Uᵀx‖`` per row; here they hold for every data set in the
ball and pay ``‖x‖² ≤ 1``, a factor of about ``√(tr Σ / (k λ₁))`` more noise
on the projector. The rate in ``n`` is unchanged: the privacy term falls as
``1/n`` and the sampling term as ``1/√n``. The gap test, the budget shares,
the bulk mean (rather than another statistic of the bulk) and the
post-processing are ours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..float_state import owns_float_state
from ..linalg import float_error
from ..linalg.dense import top_k_subspace
from ..linalg.moments import unit_rows_second_moment
from ..privacy.calibration import safe_granularity
from ..privacy.drawable import check_gaussian_drawable
from ..privacy.guarantees import (
    FLOAT_NOISE_CAVEAT,
    Release,
    Released,
    released,
)
from ..privacy.noise import (
    MAX_GAUSSIAN_GRID_SIGMA,
    add_gaussian,
    check_noise_kind,
    discrete_gaussian_parameters,
    perturb_symmetric,
)
from ..privacy.zcdp import zcdp_rho
from ..validation import (
    as_generator,
    as_real_array,
    check_data,
    check_delta,
    check_epsilon,
    check_k,
    check_n,
    check_positive,
)
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
    "the eigen-decomposition's float error is covered by a public margin "
    "(2^10 d u per eigenvalue, plus the sum's rounding) assumed from "
    "LAPACK's backward stability, not proved for every data set"
)

#: The privacy the release provides.
PRIVACY = (
    "(ε, δ)-DP for replace-one neighbours, rows of norm ≤ data_norm: four "
    "Gaussian steps (eigengap 2/n, released as a lower bound; projector "
    "min(4/(n g̃), √(2 min(k, d−k))) given that bound; top-k eigenvalues "
    "√2/n; bulk mean 1/(n(d−k)); unit-ball units) composed as ρ-zCDP with "
    "δ/2 for the conversion and δ/2 for the gap test (propose-test-release). "
    "Structure after Cai, Xia and Zha (2024); calibration the book's own."
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


def _check_shares(shares) -> tuple:
    shares = tuple(float(s) for s in shares)
    if len(shares) != len(STEPS) or not all(
        math.isfinite(s) and s > 0 for s in shares
    ):
        raise ValueError(
            f"shares must be {len(STEPS)} numbers > 0 {STEPS}; got {shares!r}"
        )
    if sum(shares) > 1.0 + 1e-12:
        raise ValueError(f"shares must add up to at most 1; got {shares!r}")
    return shares


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
    """The calibration of :func:`spiked_pca` (module docstring).

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
    shares = _check_shares(shares)
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


def _record(cal: SpikedCalibration) -> Release:
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
        chapter="issue 42",
    )


def spiked_guarantee(
    n, d, k, epsilon, delta, *, noise="safe", shares=DEFAULT_SHARES
) -> Release:
    """Guarantee record of :func:`spiked_pca` with these settings.

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
    return _record(
        spiked_calibration(n, d, k, epsilon, delta, noise=noise, shares=shares)
    )


# ------------------------------------------------------------------------------
# The statistics (deterministic; the privacy tests read them)
# ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpectralStatistics:
    """The pre-noise statistics of a run on ``A`` (unit-ball units): the
    computed eigengap, top-k projector, top-k eigenvalues (decreasing) and
    the mean of the ``d − k`` bulk eigenvalues."""

    gap: float
    projector: np.ndarray
    values: np.ndarray
    noise_level: float


def spectral_statistics(A, k: int) -> SpectralStatistics:
    """The four statistics :func:`spiked_pca` privatises, from ``A``.

    Parameters
    ----------
    A : array-like of shape (d, d)
        A symmetric second moment (rows of norm at most one).
    k : int
        Number of spikes, ``1 <= k < d``.

    Returns
    -------
    SpectralStatistics
        Gap ``λ_k − λ_{k+1}``, projector ``V_k V_kᵀ``, ``λ_1..λ_k`` and
        ``Σ_{j>k} λ_j/(d − k)``.
    """
    A = np.asarray(A, dtype=float)
    d = A.shape[0]
    k = check_k(k, d)
    values, vectors = np.linalg.eigh(A)
    values, vectors = values[::-1], vectors[:, ::-1]
    V = vectors[:, :k]
    return SpectralStatistics(
        gap=float(values[k - 1] - values[k]),
        projector=V @ V.T,
        values=values[:k].copy(),
        noise_level=math.fsum(values[k:].tolist()) / (d - k),
    )


# ------------------------------------------------------------------------------
# The release
# ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SpikedRelease:
    """What :func:`spiked_pca` releases, in the data's units.

    ``components`` (``d x k``, orthonormal) and ``eigenvalues`` (``k``,
    decreasing, in ``[0, R²]``) carry the record; ``noise_variance`` is the
    private bulk level (in ``[0, R²]``), ``gap_bound`` the released lower
    bound on the eigengap and ``projector_sigma`` the projector's noise
    (unit-ball units; both public, post-processing of the gap step).
    """

    components: Released
    eigenvalues: Released
    noise_variance: float
    gap_bound: float
    projector_sigma: float
    guarantee: Release

    def covariance(self) -> np.ndarray:
        """``Ũ diag(λ̃) Ũᵀ + σ̃² (I − Ũ Ũᵀ)``: the spiked-model estimate
        (post-processing).

        Returns
        -------
        numpy.ndarray
            The ``d x d`` estimate of the second moment.
        """
        U = np.asarray(self.components)
        lam = np.asarray(self.eigenvalues)
        out = (U * lam) @ U.T + self.noise_variance * (
            np.eye(U.shape[0]) - U @ U.T
        )
        return (out + out.T) / 2


def _unit_rows(X, data_norm):
    R = check_positive(data_norm, "data_norm")
    X = as_real_array(X)
    return check_data(np.asarray(X, dtype=float) / R), R


@owns_float_state
def spiked_pca(
    X,
    k: int,
    *,
    epsilon: float,
    delta: float,
    data_norm: float = 1.0,
    rng=None,
    noise: str = "safe",
    shares=DEFAULT_SHARES,
) -> SpikedRelease:
    """Private spiked-model PCA (Cai, Xia and Zha 2024; module docstring).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most ``data_norm`` (checked after the
        division by it, never clipped).
    k : int
        Number of spikes, ``1 <= k < n_features``.
    epsilon, delta : float
        The privacy budget: ε > 0 and 0 < δ < 1.
    data_norm : float, default=1.0
        The public bound ``R`` on the rows' norms.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh entropy.
    noise : {"safe", "float"}, default="safe"
        ``"safe"``: values rounded to a grid and exact discrete Gaussian
        noise; ``"float"``: float64 noise.
    shares : tuple of four floats, default=DEFAULT_SHARES
        Shares of ρ: gap, projector, eigenvalues, noise level.

    Returns
    -------
    SpikedRelease
        The private basis, eigenvalues and noise level, with the record.
    """
    rows, R = _unit_rows(X, data_norm)
    n, d = rows.shape
    cal = spiked_calibration(
        n, d, k, epsilon, delta, noise=noise, shares=shares
    )
    record = _record(cal)
    rng = as_generator(rng)
    stats = spectral_statistics(unit_rows_second_moment(rows), cal.k)
    s = cal.steps

    def noisy(values, step):
        return add_gaussian(
            np.atleast_1d(np.asarray(values, dtype=float)),
            step.sigma,
            noise=noise,
            rng=rng,
            granularity=step.granularity,
        )

    gap_bound = float(noisy(stats.gap, s["gap"])[0]) - cal.gap_offset
    step = cal.projector_step(gap_bound)
    noisy_projector = perturb_symmetric(
        stats.projector,
        step.sigma,
        distribution="gaussian",
        noise=noise,
        rng=rng,
        granularity=step.granularity,
    )
    basis = top_k_subspace(noisy_projector, cal.k)
    values = np.sort(np.clip(noisy(stats.values, s["values"]), 0.0, 1.0))
    level = float(np.clip(noisy(stats.noise_level, s["noise_level"])[0], 0, 1))
    scale = R * R
    return SpikedRelease(
        components=released(basis, record),
        eigenvalues=Released(values[::-1] * scale, record),
        noise_variance=level * scale,
        gap_bound=gap_bound,
        projector_sigma=step.sigma,
        guarantee=record,
    )


@owns_float_state
def spiked_subspace(
    X,
    k: int,
    *,
    epsilon: float,
    delta: float,
    data_norm: float = 1.0,
    rng=None,
    noise: str = "safe",
) -> Released:
    """The private basis of :func:`spiked_pca` alone (same record).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most ``data_norm``.
    k : int
        Number of spikes, ``1 <= k < n_features``.
    epsilon, delta : float
        The privacy budget.
    data_norm : float, default=1.0
        The public bound on the rows' norms.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh entropy.
    noise : {"safe", "float"}, default="safe"
        The noise kind.

    Returns
    -------
    Released of shape (n_features, k)
        An orthonormal basis of the private top-k subspace.
    """
    return spiked_pca(
        X,
        k,
        epsilon=epsilon,
        delta=delta,
        data_norm=data_norm,
        rng=rng,
        noise=noise,
    ).components


__all__ = [
    "DEFAULT_SHARES",
    "FLOAT_FACTOR",
    "PRIVACY",
    "PTR_DELTA_SHARE",
    "STEPS",
    "SpectralStatistics",
    "SpikedCalibration",
    "SpikedRelease",
    "float_margin",
    "projector_sensitivity",
    "spectral_statistics",
    "spiked_calibration",
    "spiked_guarantee",
    "spiked_pca",
    "spiked_subspace",
]
