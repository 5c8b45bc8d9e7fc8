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

**What differs from the paper** (notes on page 19.2 of the book): the paper's
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
from dataclasses import dataclass

import numpy as np

from ..float_state import owns_float_state
from ..linalg.dense import top_k_subspace
from ..linalg.moments import unit_rows_second_moment
from ..privacy.guarantees import Release, Released, released
from ..privacy.noise import add_gaussian, perturb_symmetric
from ..validation import (
    as_generator,
    as_real_array,
    check_data,
    check_k,
    check_positive,
)
from .spec import MechanismSpec, select
from .spiked_calibration import (
    DEFAULT_SHARES,
    FLOAT_FACTOR,
    PTR_DELTA_SHARE,
    STEPS,
    SpikedCalibration,
    float_margin,
    projector_sensitivity,
    spiked_calibration,
    spiked_guarantee,
    spiked_record,
)

#: The privacy the release provides, by entry point.
PRIVACY = {
    "spiked_pca": (
        "(ε, δ)-DP for replace-one neighbours, rows of norm ≤ data_norm: four "
        "Gaussian steps (eigengap 2/n, released as a lower bound; projector "
        "min(4/(n g̃), √(2 min(k, d−k))) given that bound; top-k eigenvalues "
        "√2/n; bulk mean 1/(n(d−k)); unit-ball units) composed as ρ-zCDP with "
        "δ/2 for the conversion and δ/2 for the gap test "
        "(propose-test-release). Structure after Cai, Xia and Zha (2024); "
        "calibration the book's own."
    ),
}


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
    record = spiked_record(cal)
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


# ------------------------------------------------------------------------------
# The declaration
# ------------------------------------------------------------------------------


def _run_rows(Z, n, k, epsilon, delta, rng, options):
    """``PrivatePCA``'s run on its rows ``Z`` (unit ball, so ``data_norm``
    1): the basis, the top-k eigenvalues and the trace of the released
    covariance ``Ũ diag(λ̃) Ũᵀ + σ̃² (I − Ũ Ũᵀ)`` (post-processing), so that
    the estimator's ``noise_variance_`` is the released ``σ̃²``."""
    if hasattr(Z, "toarray"):
        Z = Z.toarray()
    out = spiked_pca(Z, k, epsilon=epsilon, delta=delta, rng=rng, **options)
    values = np.asarray(out.eigenvalues, dtype=float)
    d = np.shape(Z)[1]
    total = math.fsum(values.tolist()) + (d - k) * out.noise_variance
    return np.asarray(out.components), values, float(total)


def _guarantee(n, d, k, epsilon, delta, options):
    return spiked_guarantee(
        n, d, k, epsilon, delta, **select(options, "noise", "shares")
    )


def _check_options(options, n, d, k, epsilon) -> dict:
    """The ``mechanism_options`` (``shares``) checked from public values:
    ``k < d`` and the shares as the release will check them (any δ in
    (0, 1) serves here: the estimator checks its own)."""
    spiked_calibration(
        n, d, k, epsilon, 0.5, shares=options.get("shares", DEFAULT_SHARES)
    )
    return dict(options)


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="spiked",
        label="spiked PCA (Cai–Xia–Zha)",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run_rows=_run_rows,
        guarantee=_guarantee,
        privacy=PRIVACY["spiked_pca"],
        # the options are the calibration's (shares); the rows' bound is
        # PrivatePCA's data_norm
        options_of=spiked_calibration,
        check_options=_check_options,
        additive_noise=True,
        releases_eigenvalues=False,
        releases_spectrum=True,
        guide_rank=65,
        proof="no: LAPACK's error bound assumed (opt in)",
    ),
)


__all__ = [
    "DEFAULT_SHARES",
    "FLOAT_FACTOR",
    "PRIVACY",
    "PTR_DELTA_SHARE",
    "SPECS",
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
