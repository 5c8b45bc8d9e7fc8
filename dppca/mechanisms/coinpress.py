"""CoinPress covariance estimation: Biswas, Dong, Kamath and Ullman (NeurIPS
2020), "CoinPress: practical private mean and covariance estimation", for
replace-one neighbours (one row replaced, ``n`` fixed).

Analyze Gauss clips the rows to a ball fixed in advance and pays noise of
the size of that ball. When the scale of the data is only loosely known
(the rows lie in the unit ball, but their covariance ``Σ`` may be far
smaller than ``I``), that noise swamps the signal. CoinPress keeps a public
*whitening* matrix ``T`` with ``T Σ Tᵀ ⪯ I`` (about), and refines it:

1. whiten and clip: ``y_i = clip_r(T (x_i − c)) / r``, with ``r`` the
   radius inside which a row with ``T Σ Tᵀ ⪯ I`` falls with probability
   ``1 − β`` (``clip_radius``);
2. release ``N = (1/n) Σ y_i y_iᵀ + E`` (Gaussian ``E`` on the upper
   triangle, mirrored) and take ``Z = r² N`` projected onto the positive
   semidefinite matrices: an estimate of ``T Σ Tᵀ``;
3. shrink the confidence region: ``U = Z + η I`` with ``η`` a public bound
   on ``‖Z − T Σ Tᵀ‖₂`` (sampling and noise, ``step_margin``), so that
   ``T Σ Tᵀ ⪯ U`` about; the next whitening is ``T ← U^{-1/2} T``.

The last step's ``Z`` is turned back into the original coordinates:
``Σ̂ = T⁻¹ Z T⁻ᵀ``. The first ``T`` is ``I/√cov_upper``, from the weak
prior ``Σ ⪯ cov_upper · I`` (rows in the unit ball give it for
``cov_upper = 1``). Each step multiplies the eigenvalues of ``T Σ Tᵀ`` that
are far below one by about ``1/η``, so ``O(log κ)`` steps bring it close to
``I`` when ``Σ ⪰ (cov_upper/κ) I`` (the paper's analysis; ``κ`` enters only
the number of steps, never the noise).

**Sensitivity of one step (replace-one).** ``T``, ``r`` and ``c`` are public
(functions of earlier releases and of public parameters), so step ``j`` is a
function of the rows through ``M = (1/n) Σ y_i y_iᵀ`` with ``‖y_i‖ ≤ 1``.
Replacing row ``i`` changes ``M`` by ``D = (y yᵀ − y′ y′ᵀ)/n``, and
``n² ‖D‖_F² = ‖y‖⁴ + ‖y′‖⁴ − 2 (yᵀy′)² ≤ 2``, with equality for orthogonal
unit ``y, y′`` (both rows clipped, in orthogonal directions). The noise is
drawn on the ``d(d+1)/2`` upper-triangle entries, whose ℓ₂ norm is
``√((‖D‖_F² + Σ D_ii²)/2) ≤ ‖D‖_F``: the step's sensitivity is ``√2/n``,
reached when ``y, y′`` are two coordinate axes (then ``Σ D_ii² =
‖D‖_F²``). ``dppca.linalg.clipped_sums.clipped_second_moment``
computes ``M`` with that sensitivity proved in float64, so the step is the
Gaussian mechanism of ``trace_sensitive_calibration``'s matrix step:
``ρ_j = (√2/n + rounding)² / (2σ_j²)``.

**Composition.** zCDP composes adaptively by adding the ρ's (Bun and Steinke
2016): the run is ``Σ_j ρ_j``-zCDP, ``Σ_j ρ_j ≤ zcdp_rho(ε, δ)`` (the
conversion of Canonne, Kamath and Steinke 2020), hence (ε, δ)-DP. Nothing
after the noise reads the rows; no step can refuse on a data-dependent
condition.

**What is the paper's and what is ours.** The structure (whiten, clip, noisy
second moment, shrink, repeat; budget ``(1/4)/(t−1)`` for each of the first
``t − 1`` steps and ``3/4`` for the last) follows the paper and the authors'
code. Ours: the radius ``r = min(γ, R ‖T‖₂)`` (rows of norm at most ``R``
about the centre never leave that ball, so the first step is Analyze Gauss
when ``1/√cov_upper ≤ γ``); ``γ`` per row with ``β = 0.1`` as in the
authors' code (the paper's analysis takes a union bound over the rows);
``η`` adds a bound on the noise's spectral norm to the sampling term, so
that ``U`` bounds ``T Σ Tᵀ`` whatever the noise; left multiplication
``T ← U^{-1/2} T``; safe discrete Gaussian noise and the replace-one
calibration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..float_state import owns_float_state
from ..linalg import clipped_sums, float_error, rows
from ..linalg.dense import top_k_subspace
from ..privacy.drawable import (
    check_gaussian_drawable,
)
from ..privacy.guarantees import Release, Released, noise_record, zcdp_release
from ..privacy.guarantees import released as wrap_released
from ..privacy.noise import (
    check_noise_kind,
    perturb_symmetric,
)
from ..privacy.zcdp import check_budget_shares, zcdp_rho
from ..validation import (
    as_generator,
    check_data,
    check_delta,
    check_epsilon,
    check_k,
    check_n,
    check_positive,
    check_positive_int,
)
from .spec import MechanismSpec, select
from .trace_sensitive_calibration import GaussianStep, _step
from .trace_sensitive_radius import wigner_norm_bound

#: Default number of steps: enough for ``κ`` up to about ``10³`` at the
#: book's sizes (chapter 19's CoinPress section measures it).
DEFAULT_ITERATIONS = 4

#: Per-row failure probability of the clipping radius and of the noise
#: bound in ``η`` (the authors' code uses 0.1 for the radius).
DEFAULT_BETA = 0.1

#: Share of the budget of the last step (the authors' schedule); the first
#: ``t − 1`` steps share the rest equally.
LAST_SHARE = 0.75

_PRIVACY_TEXT = (
    "(ε, δ)-DP for replace-one neighbours: t Gaussian steps on the second "
    "moment of rows whitened by a public matrix and clipped to the unit "
    "ball (ℓ₂ sensitivity √2/n each), composed as ρ-zCDP, ρ = zcdp_rho(ε, "
    "δ) (Canonne–Kamath–Steinke conversion); the whitening matrices are "
    "post-processing of earlier steps. Biswas, Dong, Kamath and Ullman "
    "(2020), recalibrated for replace-one by the book (chapter 19)."
)

#: The privacy each release provides (chapter 19).
PRIVACY = {
    "coinpress_covariance": _PRIVACY_TEXT,
    "coinpress_subspace": _PRIVACY_TEXT + " Its top-k eigenvectors are "
    "post-processing.",
}


def gaussian_radius(d: int, beta: float = DEFAULT_BETA) -> float:
    """``γ = √(d + 2√(d log(1/β)) + 2 log(1/β))``: a standard Gaussian
    vector in ``d`` dimensions has norm above ``γ`` with probability at most
    ``β`` (Laurent and Massart 2000, the chi-square upper tail)."""
    d = check_positive_int(d, "d")
    beta = _check_beta(beta)
    t = math.log(1.0 / beta)
    return math.sqrt(d + 2.0 * math.sqrt(d * t) + 2.0 * t)


def _check_beta(beta) -> float:
    beta = float(beta)
    if not 0.0 < beta < 1.0:
        raise ValueError(f"beta must lie in (0, 1); got {beta!r}")
    return beta


def budget_shares(n_iterations: int) -> tuple:
    """The authors' schedule: ``3/4`` of ρ for the last step, the rest
    split evenly among the others (the whole ρ when ``t = 1``)."""
    t = check_positive_int(n_iterations, "n_iterations")
    if t == 1:
        return (1.0,)
    return tuple([(1.0 - LAST_SHARE) / (t - 1)] * (t - 1) + [LAST_SHARE])


@dataclass(frozen=True)
class CoinPressCalibration:
    """Every step of a run, from public parameters only: ``steps[j]`` is the
    ``GaussianStep`` (sensitivity ``√2/n``) of step ``j``; ``rho`` their
    zCDP sum, at most ``rho_target = zcdp_rho(ε, δ)``."""

    n: int
    d: int
    epsilon: float
    delta: float
    noise: str
    rho_target: float
    shares: tuple
    steps: tuple

    @property
    def rho(self) -> float:
        return float(sum(step.rho for step in self.steps))


def coinpress_calibration(
    n,
    d,
    epsilon,
    delta,
    *,
    n_iterations=DEFAULT_ITERATIONS,
    shares=None,
    noise: str = "safe",
) -> CoinPressCalibration:
    """σ (and, safe noise, the grid) of every step for ρ = ``zcdp_rho(ε,
    δ)`` split by ``shares`` (default ``budget_shares``)."""
    n = check_n(n)
    d = check_positive_int(d, "d")
    if d < 2:
        raise ValueError(f"d must be at least 2; got {d}")
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    noise = check_noise_kind(noise)
    t = check_positive_int(n_iterations, "n_iterations")
    shares = check_budget_shares(
        budget_shares(t) if shares is None else shares, t, "one per step"
    )
    rho = zcdp_rho(epsilon, delta)
    sensitivity = math.sqrt(2.0) / n
    entries = math.sqrt(d * (d + 1) / 2)
    steps = tuple(
        _step(f"step {j + 1}", sensitivity, share * rho, entries, noise)
        for j, share in enumerate(shares)
    )
    return CoinPressCalibration(n, d, epsilon, delta, noise, rho, shares, steps)


def _record(calibration: CoinPressCalibration) -> Release:
    label = "CoinPress covariance"
    if calibration.noise == "safe":
        for step in calibration.steps:
            check_gaussian_drawable(
                step.sigma, step.granularity, what=f"CoinPress's {step.label}"
            )
        label += " (safe noise)"
    return zcdp_release(
        label,
        calibration.rho,
        calibration.epsilon,
        calibration.delta,
        **noise_record(calibration.noise),
        theorem="[BDKU20, Alg. MVCRec]; replace-one calibration: the "
        "book's own",
        chapter="chapter 19",
    )


def coinpress_guarantee(
    n,
    d,
    epsilon,
    delta,
    *,
    n_iterations=DEFAULT_ITERATIONS,
    shares=None,
    noise: str = "safe",
) -> Release:
    """Guarantee record of ``coinpress_covariance`` with these settings,
    from public parameters only."""
    return _record(
        coinpress_calibration(
            n,
            d,
            epsilon,
            delta,
            n_iterations=n_iterations,
            shares=shares,
            noise=noise,
        )
    )


# ------------------------------------------------------------------------------
# One step
# ------------------------------------------------------------------------------


def whitened_moment(X, T, radius: float, centre=None) -> np.ndarray:
    """``(1/n) Σ y_i y_iᵀ``, ``y_i = s · clip_radius(T (x_i − c)) / radius``
    (``s ≤ 1`` the float64 shrink of ``clipped_second_moment``): the
    quantity one step releases, Frobenius sensitivity ``√2/n`` for every
    public ``T`` and ``radius``."""
    X = np.asarray(X, dtype=float)
    if centre is not None:
        X = X - np.asarray(centre, dtype=float)
    W = X @ np.asarray(T, dtype=float).T
    return clipped_sums.clipped_second_moment(W, float(radius)).matrix


def clip_radius(T, d: int, beta: float, row_bound: float) -> float:
    """``min(γ(d, β), row_bound · ‖T‖₂)``: the Gaussian radius, or the
    largest norm a whitened row can have when it is smaller (public)."""
    top = float(np.linalg.norm(np.asarray(T, dtype=float), 2))
    return min(gaussian_radius(d, beta), row_bound * top)


def step_margin(n: int, d: int, radius: float, step: GaussianStep, beta):
    """``η = 2√(d/n) + d/n + r² σ ν(d, β)``: the sampling error of a
    whitened second moment near ``I`` plus a bound on the spectral norm of
    the step's noise in whitened units (``wigner_norm_bound``, probability
    ``1 − β``). Public."""
    sampling = 2.0 * math.sqrt(d / n) + d / n
    return sampling + radius**2 * step.sigma * wigner_norm_bound(d, beta)


def _psd(M) -> np.ndarray:
    values, vectors = scipy.linalg.eigh((M + M.T) / 2, check_finite=False)
    out = (vectors * np.maximum(values, 0.0)) @ vectors.T
    return (out + out.T) / 2


def _inverse_sqrt(U) -> np.ndarray:
    values, vectors = scipy.linalg.eigh((U + U.T) / 2, check_finite=False)
    return (vectors / np.sqrt(values)) @ vectors.T


@dataclass(frozen=True)
class CoinPressRun:
    """The public values of one run: the whitening matrix, clip radius and
    margin ``η`` of every step (each a function of earlier releases and
    public parameters)."""

    whitenings: tuple
    radii: tuple
    margins: tuple


# ------------------------------------------------------------------------------
# The release
# ------------------------------------------------------------------------------


@owns_float_state
def check_cov_upper(cov_upper) -> float:
    """The weak prior ``Σ ⪯ cov_upper · I``: a finite number > 0 (not a
    boolean) with ``1/√cov_upper`` at least the smallest bound whose float64
    error bounds are verified (``dppca.linalg.float_error.MIN_BOUND``), so
    that the first clipping radius ``min(γ, R/√cov_upper)``, ``R ≥ 1``,
    is one the clipped second moment accepts: refused here, before any
    charge, not after it."""
    if isinstance(cov_upper, (bool, np.bool_)):
        raise TypeError(f"cov_upper must be a number; got {cov_upper!r}")
    value = check_positive(cov_upper, "cov_upper")
    largest = 1.0 / float_error.MIN_BOUND**2
    if not (math.isfinite(value) and value <= largest):
        raise ValueError(
            f"cov_upper must be a finite number in (0, {largest:g}]; got "
            f"{cov_upper!r}"
        )
    return value


def coinpress_covariance(
    X,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    noise: str = "safe",
    cov_upper: float = 1.0,
    n_iterations: int = DEFAULT_ITERATIONS,
    shares=None,
    beta: float = DEFAULT_BETA,
    centre=None,
    return_run: bool = False,
):
    """Private second moment ``XᵀX/n`` (about ``centre``, public) by
    CoinPress (module docstring).

    ``X`` is ``n x d`` with rows of norm at most one (checked,
    ``dppca.validation.check_data``). ``cov_upper`` is the weak prior
    ``Σ ⪯ cov_upper · I`` that sets the first whitening ``I/√cov_upper``;
    ``n_iterations`` the number of steps ``t``; ``shares`` the budget of
    each step (default ``budget_shares(t)``); ``beta`` the failure
    probability of the clip radius and of the noise bound in ``η``.
    ``noise``: ``"safe"`` (default, exact discrete Gaussian on a grid) or
    ``"float"``.

    Returns the ``d x d`` estimate as a ``Released`` array (and, with
    ``return_run``, the ``CoinPressRun``). (ε, δ)-DP for replace-one
    neighbours (``PRIVACY``).
    """
    X = check_data(X)
    n, d = X.shape
    cov_upper = check_cov_upper(cov_upper)
    beta = _check_beta(beta)
    calibration = coinpress_calibration(
        n,
        d,
        epsilon,
        delta,
        n_iterations=n_iterations,
        shares=shares,
        noise=noise,
    )
    record = _record(calibration)
    row_bound = 1.0
    if centre is not None:
        centre = rows.check_centre(centre, d)
        row_bound = 1.0 + float(np.linalg.norm(centre))
    rng = as_generator(rng)
    T = np.eye(d) / math.sqrt(cov_upper)
    whitenings, radii, margins = [], [], []
    Z = None
    for j, step in enumerate(calibration.steps):
        r = clip_radius(T, d, beta, row_bound)
        M = whitened_moment(X, T, r, centre)
        noisy = perturb_symmetric(
            M,
            step.sigma,
            distribution="gaussian",
            noise=calibration.noise,
            rng=rng,
            granularity=step.granularity,
        )
        # post-processing of the release from here on
        Z = _psd(r * r * noisy)
        eta = step_margin(n, d, r, step, beta)
        whitenings.append(T)
        radii.append(r)
        margins.append(eta)
        if j + 1 < len(calibration.steps):
            T = _inverse_sqrt(Z + eta * np.eye(d)) @ T
    T_inv = np.linalg.inv(T)
    estimate = T_inv @ Z @ T_inv.T
    estimate = wrap_released((estimate + estimate.T) / 2, record)
    if return_run:
        return estimate, CoinPressRun(
            tuple(whitenings), tuple(radii), tuple(margins)
        )
    return estimate


@owns_float_state
def coinpress_subspace(
    X,
    k: int,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    noise="safe",
    **options,
) -> Released:
    """The top-``k`` eigenvectors (``d x k``) of ``coinpress_covariance``
    (post-processing: same record). ``options`` go to it, except
    ``return_run``: the run belongs to the covariance, so ask
    ``coinpress_covariance`` for it (a true value raises ``TypeError``)."""
    if options.pop("return_run", False):
        raise TypeError(
            "coinpress_subspace returns the subspace only; call "
            "coinpress_covariance(..., return_run=True) for the run"
        )
    cov = coinpress_covariance(
        X, epsilon=epsilon, delta=delta, rng=rng, noise=noise, **options
    )
    k = check_k(k, cov.shape[0])
    return Released(top_k_subspace(np.asarray(cov), k), cov.guarantee)


# ------------------------------------------------------------------------------
# The declaration
# ------------------------------------------------------------------------------


def _run_rows(Z, n, k, epsilon, delta, rng, options):
    if hasattr(Z, "toarray"):
        Z = Z.toarray()
    cov = coinpress_covariance(
        Z, epsilon=epsilon, delta=delta, rng=rng, **options
    )
    values, vectors = np.linalg.eigh(np.asarray(cov))
    values, vectors = values[::-1], vectors[:, ::-1]
    return vectors[:, :k], values[:k], float(values[values > 0].sum())


def _guarantee(n, d, k, epsilon, delta, options):
    return coinpress_guarantee(
        n,
        d,
        epsilon,
        delta,
        **select(options, "noise", "n_iterations", "shares"),
    )


def _check_options(options, n, d, k, epsilon) -> dict:
    """The ``mechanism_options`` checked from public values: ``d ≥ 2``,
    ``n``, ε, the steps and their shares as the release will check them
    (any δ in (0, 1) serves here: the estimator checks its own)."""
    if "centre" in options:
        raise ValueError(
            "coinpress takes its centre from PrivatePCA's center, not from "
            "mechanism_options"
        )
    t = options.get("n_iterations", DEFAULT_ITERATIONS)
    t = check_positive_int(t, "n_iterations")
    coinpress_calibration(
        n, d, epsilon, 0.5, n_iterations=t, shares=options.get("shares")
    )
    beta = options.get("beta")
    if beta is not None and not 0 < float(beta) < 1:
        raise ValueError(f"beta must lie in (0, 1); got {beta!r}")
    if options.get("cov_upper") is not None:
        check_cov_upper(options["cov_upper"])
    return dict(options)


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="coinpress",
        label="CoinPress (Biswas et al.)",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run_rows=_run_rows,
        guarantee=_guarantee,
        privacy=PRIVACY["coinpress_covariance"],
        options_of=coinpress_covariance,
        check_options=_check_options,
        additive_noise=True,
        releases_eigenvalues=False,
        releases_spectrum=True,
        guide_rank=60,
        proof="yes (Biswas et al. 2020)",
    ),
)


__all__ = [
    "check_cov_upper",
    "CoinPressCalibration",
    "CoinPressRun",
    "DEFAULT_BETA",
    "DEFAULT_ITERATIONS",
    "LAST_SHARE",
    "PRIVACY",
    "SPECS",
    "budget_shares",
    "clip_radius",
    "coinpress_calibration",
    "coinpress_covariance",
    "coinpress_guarantee",
    "coinpress_subspace",
    "gaussian_radius",
    "step_margin",
    "whitened_moment",
]
