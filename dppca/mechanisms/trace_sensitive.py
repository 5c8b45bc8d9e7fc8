"""Trace-sensitive covariance estimation: Dong, Liang and Yi (NeurIPS 2022),
"Differentially private covariance revisited", for replace-one neighbours.

The estimator releases ``A = XᵀX/n`` of rows of norm at most one. Its error
adapts to the trace ``tr A = (1/n) Σ ‖x_i‖²`` (the typical squared row norm)
instead of the worst-case bound ``‖x_i‖ ≤ 1`` that Analyze Gauss pays for.
Two ideas (paper, Section 1.1 and the tail-sensitive algorithm after it):

* **Separate release** (the paper's trace-sensitive algorithm). Release the
  eigenvectors ``P̃`` of ``A + E`` (Gaussian noise ``E`` on the upper
  triangle) and, separately, the eigenvalues ``λ(A) + z`` (Gaussian ``z``);
  output ``P̃ diag(λ(A) + z) P̃ᵀ``. Its Frobenius error is at most
  ``2 √(tr A · ‖E‖₂) + ‖z‖₂`` whatever ``A`` and ``E`` are
  (``separate_error_bound``, proved in chapter 18), which is of order
  ``d^{1/4} √(tr A / n) ρ^{-1/4} + √d / (n √ρ)``, against ``d / (n √ρ)`` for
  noise on the whole matrix.
* **Adaptive clipping** (the paper's tail-sensitive algorithm). Estimate
  ``tr A`` and the profile of the row norms privately, choose a clipping
  radius ``r`` (a power of two) and a release (separate, or Gaussian noise on
  the whole matrix) by minimising a bound on the error, then release the
  second moment of the rows clipped to ``r``: every noise scale shrinks by
  ``r²``, at the price of the clipping bias.

The adaptive estimator (``trace_sensitive_covariance``, ``method=
"adaptive"``) runs four Gaussian steps on the same data, each ρ_j-zCDP for
replace-one neighbours (one row replaced, ``n`` fixed):

1. the trace of the rows clipped to the unit ball, ℓ₂ sensitivity ``1/n``
   (plus ``5u``, ``u = 2⁻⁵³``, for its float evaluation:
   ``trace_sensitivity``), budget ``ρ/8``;
2. the histogram of the row norms over the dyadic levels ``(2^{-j-1},
   2^{-j}]`` (``norm_levels``), ℓ₂ sensitivity ``√2`` (one row leaves a
   bin and enters another), budget ``ρ/8``;
3. post-processing of 1 and 2: the radius and the release
   (``choose_radius``);
4. the release on ``A_r``, the second moment of ``clip_r(x_i)/r`` computed by
   ``dppca.linalg.clipped_sums.clipped_second_moment`` (Frobenius
   sensitivity ``√2/n``, proved in float64), budget ``3ρ/4``: either the
   Gaussian mechanism on its upper triangle, or the separate release,
   ``3ρ/8`` for the eigenvectors
   ``P̃`` (same sensitivity) and then ``3ρ/8`` for the eigenvalues, taken as
   the Rayleigh quotients ``diag(P̃ᵀ A_r P̃)`` along the released ``P̃``
   (linear in ``A_r`` once ``P̃`` is public: ℓ₂ sensitivity ``√2/n``, up to
   the public ``BASIS_DEFECT`` and ``rayleigh_margin``). The output is
   ``r²`` times the result with its spectrum projected onto ``[0, 1]``
   (post-processing). No step reads a data-dependent condition that could
   refuse: the release always returns.

zCDP composes adaptively by adding the ρ's (Bun and Steinke 2016), so the run
is ρ-zCDP with ρ = ``dppca.privacy.zcdp_rho`` (ε, δ), the conversion of
Canonne, Kamath and Steinke (2020), hence (ε, δ)-DP. With ``noise="safe"``
(default) every step rounds its values to a grid and adds exact discrete
Gaussian noise (``dppca.privacy.noise``), calibrated for the rounding, and the
release is private as a program; ``noise="float"`` uses numpy's Gaussian
sampler (private as mathematics only).

**Choices of the authors' code and of ours** (the paper fixes the structure;
chapter 18 says which is whose):

* the paper selects the radius with the sparse vector technique; we release
  the dyadic norm histogram with Gaussian noise instead and select by
  post-processing, so that every step is a Gaussian mechanism (one zCDP
  composition, safe noise throughout);
* the budget split ``(1/8, 1/8, 3/4)``, the even split of the release's
  budget and the projection onto ``[0, r²]`` follow the authors' code; the
  candidate radii are ``2^{-j}``, ``j < 30`` (``DEFAULT_LEVELS``), ours;
* the selection compares high-probability bounds with failure probability
  β = 0.1 (``choose_radius``), with constants of our own derivation
  (``wigner_norm_bound`` and companions), and by default divides the
  separate release's trace term by 6, the heuristic of the authors' code
  (``selection="authors"``);
* the eigenvalues are the Rayleigh quotients of ``A_r`` along the released
  eigenvectors instead of its eigenvalues: the same sensitivity, no
  eigenvalue computation to verify, and never a larger error (chapter 18);
* the adaptive release, clipped to eigenvalues in ``[0, 1]``, is then
  projected onto the PSD matrices with eigenvalues at most one and trace at
  most ``(t̂ + 3σ_t)/r²`` (``t̂`` the released trace, ``σ_t`` its noise;
  ``project_spectrum_with_trace``), ours: post-processing of two releases,
  never farther from the clipped rows' second moment than the clipped
  release whenever the bound holds (probability 0.99865 or more); it
  removes most of the positive part of the noise's spectrum that clipping
  at zero leaves.

The family's other modules: ``trace_sensitive_calibration`` (every step's
noise, from public parameters), ``trace_sensitive_radius`` (the radius
selection) and ``trace_sensitive_spectrum`` (the linear algebra of the
releases).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..float_state import owns_float_state
from ..linalg import clipped_sums, rows
from ..linalg.dense import top_k_subspace
from ..privacy.drawable import (
    check_gaussian_drawable,
)
from ..privacy.guarantees import (
    Release,
    Released,
    noise_record,
    released,
    zcdp_release,
)
from ..privacy.noise import (
    add_gaussian,
    perturb_symmetric,
)
from ..validation import as_generator, check_choice, check_data, check_k
from .spec import CovarianceHooks, MechanismSpec, select
from .trace_sensitive_calibration import (
    DEFAULT_LEVELS,
    DEFAULT_SHARES,
    METHODS,
    GaussianStep,
    TraceSensitiveCalibration,
    trace_sensitive_calibration,
)
from .trace_sensitive_radius import (
    DEFAULT_BETA,
    SELECTIONS,
    RadiusChoice,
    _check_beta,
    choose_radius,
    clipped_trace,
    gaussian_norm_bound,
    norm_histogram,
    wigner_norm_bound,
)
from .trace_sensitive_spectrum import (
    capped_simplex_projection,
    project_spectrum,
    project_spectrum_with_trace,
    rayleigh_quotients,
    released_basis,
    separate_error_bound,
)

#: How many standard deviations of the trace's noise the trace bound of the
#: final projection adds to the released trace: the bound fails with
#: probability Φ(−3) = 0.00135 at most (``trace_projection``).
TRACE_BOUND_Z = 3.0

#: The privacy each release provides (chapter 18).
PRIVACY = {
    "trace_sensitive_covariance": "(ε, δ)-DP for replace-one neighbours: "
    "four Gaussian steps (trace of the rows, ℓ₂ sensitivity 1/n; dyadic "
    "norm histogram, √2; the release on the clipped rows' second moment, "
    "√2/n for the matrix and for its eigenvalues) composed as ρ-zCDP, ρ = "
    "zcdp_rho(ε, δ) (Canonne–Kamath–Steinke conversion); the radius and the "
    "release are post-processing. Dong, Liang and Yi (2022), recalibrated "
    "for replace-one by the book (chapter 18).",
    "separate_covariance": "(ε, δ)-DP for replace-one neighbours: the "
    "separate release alone on the unclipped rows (eigenvectors of A + E and "
    "eigenvalues of A + z, ℓ₂ sensitivity √2/n each, ρ/2 each), ρ-zCDP "
    "(chapter 18).",
}


# ------------------------------------------------------------------------------
# The guarantee record
# ------------------------------------------------------------------------------


def trace_sensitive_guarantee(
    n,
    d,
    epsilon,
    delta,
    *,
    method: str = "adaptive",
    noise: str = "safe",
    shares=DEFAULT_SHARES,
    n_levels: int = DEFAULT_LEVELS,
) -> Release:
    """Guarantee record of ``trace_sensitive_covariance`` with these
    settings: a ρ-zCDP release, ρ summed over the calibrated steps
    (``TraceSensitiveCalibration``), from public parameters only."""
    calibration = trace_sensitive_calibration(
        n,
        d,
        epsilon,
        delta,
        method=method,
        noise=noise,
        shares=shares,
        n_levels=n_levels,
    )
    return _record(calibration)


def _record(calibration: TraceSensitiveCalibration) -> Release:
    label = (
        "trace-sensitive covariance"
        if calibration.method == "adaptive"
        else "separate covariance"
    )
    if calibration.noise == "safe":
        for name, step in calibration.steps.items():
            check_gaussian_drawable(
                step.sigma, step.granularity, what=f"{label}'s {name} step"
            )
        label += " (safe noise)"
    return zcdp_release(
        label,
        calibration.rho,
        calibration.epsilon,
        calibration.delta,
        **noise_record(calibration.noise),
        theorem="[DLY22, Sec. 1.1]; replace-one calibration: the book's own",
        chapter="chapter 18",
    )


# ------------------------------------------------------------------------------
# The release
# ------------------------------------------------------------------------------


def _noisy(values, step: GaussianStep, noise, rng) -> np.ndarray:
    return add_gaussian(
        np.asarray(values, dtype=float),
        step.sigma,
        noise=noise,
        rng=rng,
        granularity=step.granularity,
    )


def _noisy_matrix(A, step: GaussianStep, noise, rng) -> np.ndarray:
    return perturb_symmetric(
        A,
        step.sigma,
        distribution="gaussian",
        noise=noise,
        rng=rng,
        granularity=step.granularity,
    )


def _separate(A, calibration, rng, trace_bound=None):
    """The separate release on ``A`` (rows of norm ≤ 1): the eigenvectors
    ``P̃`` of ``A + E`` (``released_basis``), then the Rayleigh quotients of
    ``A`` along them plus ``z``, clipped to ``[0, 1]`` and, with a
    ``trace_bound``, then projected onto the capped simplex of that sum.
    Nothing here can refuse: every branch reads released values only."""
    s, noise = calibration.steps, calibration.noise
    noisy_matrix = _noisy_matrix(A, s["vectors"], noise, rng)
    P = released_basis(noisy_matrix)
    noisy_values = _noisy(rayleigh_quotients(A, P), s["values"], noise, rng)
    values = np.clip(noisy_values, 0.0, 1.0)
    if trace_bound is not None:
        values = capped_simplex_projection(values, trace_bound)
    out = (P * values) @ P.T
    return (out + out.T) / 2


@dataclass(frozen=True)
class TraceSensitiveRun:
    """The released intermediate values of one adaptive run (public: each is
    a private release or post-processing of one): the noisy trace and norm
    histogram, and the ``RadiusChoice`` made from them."""

    trace_estimate: float
    histogram: np.ndarray
    choice: RadiusChoice


@owns_float_state
def trace_sensitive_covariance(
    X,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    noise: str = "safe",
    method: str = "adaptive",
    beta: float = DEFAULT_BETA,
    selection: str = "authors",
    trace_projection: bool = True,
    return_run: bool = False,
    moment_cache: dict | None = None,
):
    """Private second moment ``A = XᵀX/n`` whose error adapts to ``tr A``
    (Dong, Liang and Yi 2022; module docstring).

    ``X`` is ``n x d`` (dense or scipy.sparse) with rows of norm at most one
    (checked, ``dppca.validation.check_data``). ``method="adaptive"`` (default)
    estimates the trace and the norm profile, clips the rows to the chosen
    radius and releases separately or with Gaussian noise on the matrix;
    ``method="separate"`` is the paper's trace-sensitive release alone on
    the unclipped rows. ``beta`` is the failure probability of the bounds the
    selection compares, ``selection`` the rule (``choose_radius``: the
    authors' heuristic by default, or ``"bounds"``). ``noise``: ``"safe"``
    (default) or ``"float"``. ``trace_projection`` (adaptive only): project
    the clipped release onto ``{0 ⪯ S ⪯ I, tr S ≤ min(1, (t̂ + 3σ_t)/r²)}``
    (``t̂`` the released trace of ``A``, ``σ_t`` its noise, ``r`` the radius;
    the clipped rows' ``A_r`` has trace at most ``tr A / r²``),
    post-processing that never moves it away from ``A_r`` when the bound
    holds; ``False`` gives the release clipped to ``[0, 1]`` only.

    Returns the ``d x d`` estimate as a ``dppca.privacy.guarantees.Released``
    array (and, with ``return_run``, the ``TraceSensitiveRun``; None for
    ``method="separate"``). (ε, δ)-DP for replace-one neighbours
    (``PRIVACY``).

    ``moment_cache``: for many releases on the *same* ``X`` (experiments), a
    dict the caller keeps between calls; it maps a radius to the second
    moment of the rows clipped to it, which is a deterministic function of
    ``X`` and the radius, so reusing it leaves every release's law unchanged.
    Never share one dict between different data.
    """
    X = check_data(X, accept_sparse=True)
    n, d = X.shape
    method = check_choice(method, METHODS, "method")
    beta = _check_beta(beta)
    selection = check_choice(selection, SELECTIONS, "selection")
    calibration = trace_sensitive_calibration(
        n, d, epsilon, delta, method=method, noise=noise
    )
    record = _record(calibration)
    rng = as_generator(rng)
    run, radius, release = None, 1.0, "separate"
    if method == "adaptive":
        s = calibration.steps
        norms = rows.row_norms(X)
        trace_estimate = float(
            _noisy([clipped_trace(norms)], s["trace"], noise, rng)[0]
        )
        histogram = _noisy(
            norm_histogram(norms, calibration.n_levels),
            s["histogram"],
            noise,
            rng,
        )
        choice = choose_radius(
            trace_estimate, histogram, n, d, calibration, beta, selection
        )
        run = TraceSensitiveRun(trace_estimate, histogram, choice)
        radius, release = choice.radius, choice.release
    if moment_cache is None:
        A_r = clipped_sums.clipped_second_moment(X, radius).matrix
    else:
        key = float(radius)
        if key not in moment_cache:
            moment_cache[key] = clipped_sums.clipped_second_moment(
                X, radius
            ).matrix
        A_r = moment_cache[key]
    trace_bound = None
    if run is not None and trace_projection:
        sigma_t = calibration.steps["trace"].sigma
        bound = (run.trace_estimate + TRACE_BOUND_Z * sigma_t) / radius**2
        trace_bound = min(1.0, max(bound, 0.0))
    if release == "gaussian":
        noisy = _noisy_matrix(A_r, calibration.steps["gaussian"], noise, rng)
        if trace_bound is None:
            M = project_spectrum(noisy)
        else:
            M = project_spectrum_with_trace(noisy, trace_bound)
    else:
        M = _separate(A_r, calibration, rng, trace_bound)
    estimate = released(M * (radius * radius), record)
    return (estimate, run) if return_run else estimate


@owns_float_state
def trace_sensitive_subspace(
    X,
    k: int,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    noise="safe",
    **options,
) -> Released:
    """The top-``k`` eigenvectors (``d x k``) of
    ``trace_sensitive_covariance`` (post-processing: same record).
    ``options`` go to it (``method``, ``beta``)."""
    options.pop("return_run", None)
    cov = trace_sensitive_covariance(
        X, epsilon=epsilon, delta=delta, rng=rng, noise=noise, **options
    )
    k = check_k(k, cov.shape[0])
    return Released(top_k_subspace(np.asarray(cov), k), cov.guarantee)


def trace_sensitive_error_bound(
    n,
    d,
    trace,
    epsilon,
    delta,
    *,
    beta: float = DEFAULT_BETA,
    noise: str = "safe",
) -> float:
    """Bound on the Frobenius error of the separate release
    (``method="separate"``) at these settings, with probability at least
    1 − β over Gaussian noise: ``separate_error_bound`` with
    ``‖E‖₂ ≤ σ_V ν(d, β/2)`` and ``‖z‖₂ ≤ σ_λ η(d, β/2)``, plus (safe noise)
    half a grid cell per rounded entry.

    Of order ``d^{1/4} √(tr/n) ρ^{-1/4} + √d/(n√ρ)``: the trace-sensitive rate
    of Dong, Liang and Yi (2022, Section 1.1), with constants of the book's
    derivation. For discrete Gaussian noise the concentration step is
    checked numerically (chapter 18), not proved.
    """
    beta = _check_beta(beta)
    cal = trace_sensitive_calibration(
        n, d, epsilon, delta, method="separate", noise=noise
    )
    v, z = cal.steps["vectors"], cal.steps["values"]
    vector_norm = v.sigma * wigner_norm_bound(d, beta / 2)
    value_norm = z.sigma * gaussian_norm_bound(d, beta / 2)
    if noise == "safe":
        vector_norm += v.granularity * v.rounding / 2
        value_norm += z.granularity * z.rounding / 2
    return separate_error_bound(trace, vector_norm, value_norm)


# ------------------------------------------------------------------------------
# The declaration: the trace-sensitive mechanism, once
# ------------------------------------------------------------------------------


def _run_rows(Z, n, k, epsilon, delta, rng, options):
    cov = trace_sensitive_covariance(
        Z, epsilon=epsilon, delta=delta, rng=rng, **options
    )
    # post-processing of the released matrix: top-k axes and its spectrum
    values, vectors = np.linalg.eigh(np.asarray(cov))
    values, vectors = values[::-1], vectors[:, ::-1]
    return vectors[:, :k], values[:k], float(values[values > 0].sum())


def _guarantee(n, d, k, epsilon, delta, options):
    return trace_sensitive_guarantee(
        n, d, epsilon, delta, **select(options, "noise", "method")
    )


def _check_options(options, n, d, k, epsilon) -> dict:
    """The ``mechanism_options`` checked from public values."""
    beta = options.get("beta")
    if beta is not None and not 0 < float(beta) < 1:
        raise ValueError(f"beta must lie in (0, 1); got {beta!r}")
    if "selection" in options:
        check_choice(options["selection"], SELECTIONS, "selection")
    return dict(options)


def _covariance_plan(n, d, epsilon, delta, kind, check):
    """``(sigma, grid, record)`` of the estimator as
    :class:`dppca.PrivateCovariance` releases it: its Gaussian matrix step
    at radius 1; every step's noise checked."""
    calibration = trace_sensitive_calibration(n, d, epsilon, delta, noise=kind)
    for step in calibration.steps.values():
        check(step.sigma, step.granularity, f"the {step.label}")
    step = calibration.steps["gaussian"]
    record = trace_sensitive_guarantee(n, d, epsilon, delta, noise=kind)
    return step.sigma, step.granularity, record


def _covariance_release(Z, n, epsilon, delta, rng, kind, sigma):
    """PrivateCovariance's release on the rows ``z_i``: the noisy matrix,
    floored at the Gaussian step's σ times the released radius squared."""
    noisy, run = trace_sensitive_covariance(
        Z, epsilon=epsilon, delta=delta, rng=rng, noise=kind, return_run=True
    )
    return noisy, sigma * run.choice.radius**2


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="trace_sensitive",
        label="trace-sensitive (Dong et al.)",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run_rows=_run_rows,
        guarantee=_guarantee,
        privacy=PRIVACY["trace_sensitive_covariance"],
        options_of=trace_sensitive_covariance,
        check_options=_check_options,
        additive_noise=True,
        releases_eigenvalues=False,
        releases_spectrum=True,
        guide_rank=50,
        proof="yes (Dong, Liang and Yi 2022)",
        covariance=CovarianceHooks(
            _covariance_plan, _covariance_release, reads_rows=True
        ),
    ),
)


__all__ = [
    "SPECS",
    "PRIVACY",
    "TraceSensitiveRun",
    "trace_sensitive_covariance",
    "trace_sensitive_error_bound",
    "trace_sensitive_guarantee",
    "trace_sensitive_subspace",
]
