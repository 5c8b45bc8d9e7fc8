"""Input perturbation: release A + E for A = XᵀX/n and a random symmetric
noise matrix E.

Four mechanisms of the book (chapter 2 and chapter 3), all for replace-one
neighbours (one row of the n x d data replaced by another row of norm <= 1):

* MOD-SULQ (Chaudhuri, Sarwate and Sinha 2013, Algorithm 1): Gaussian entries
  N(0, β²), eq. (5);
* Analyze Gauss (Dwork, Talwar, Thakurta and Zhang 2014): Gaussian entries
  calibrated to the ℓ₂ sensitivity √2/n (classical or analytic calibration);
* Laplace input perturbation (Jiang, Xie and Zhang 2016, Algorithm 1): Lap(0,
  2d/(nε)) entries;
* Wishart input perturbation (Jiang, Xie and Zhang 2016, Algorithm 2): W ~
  W_d(d+1, 3/(2nε) I).

Each function returns the noisy symmetric d x d matrix; the private subspace
is ``dppca.linalg.top_k_subspace(noisy, k)``. ``PRIVACY`` states what each
mechanism really provides. With ``max_samples=N`` the X entry points are
private under add/remove-one neighbours instead (n private, 1 to N rows;
:mod:`dppca.mechanisms.padding`).

The noise is drawn through ``dppca.privacy.noise``. ``noise="safe"`` (the
default) rounds A to a grid of granularity γ (a power of two) and adds exact
discrete Laplace / discrete Gaussian noise, calibrated for the rounding
(``dppca.privacy.safe_laplace_input_calibration``,
``dppca.privacy.safe_gaussian_input_calibration``): private as a program.
``noise="float"`` is the float64 noise of the papers: differentially private
as mathematics only (its low-order bits leak, chapter 10); such a release
warns (:class:`~dppca.exceptions.UnprovedGuaranteeWarning`).

Every function returns a :class:`dppca.privacy.guarantees.Released` array whose
``guarantee`` is the release's record, built by the ``*_guarantee`` function
of the mechanism (``dppca.mechanisms.input_perturbation_guarantees``) from
the same parameters (grid included) that drew the noise.
The Wishart mechanisms are float only: their noise is a Wishart matrix, whose
privacy proof rests on the continuous law's support and density, not on
independent additive entries. They are defined, with their noise
(``wishart_noise``), in :mod:`dppca.mechanisms.input_perturbation_wishart`;
this module declares all five mechanisms of the family (``SPECS``) and states
their privacy (``PRIVACY``).

The X entry points accept a dense array or a ``scipy.sparse`` matrix (only
``XᵀX/n`` is needed; see ``dppca.linalg.second_moment``). The
``*_from_second_moment`` entry points check ``A`` and ``n`` with
:func:`dppca.validation.check_second_moment` (symmetric, finite, positive
semidefinite, trace at most one, ``n`` a positive integer); the caller still
vouches that ``A`` really is ``XᵀX/n`` of the ``n`` rows of the data set, each
of norm at most one, and that ``n`` is the true number of rows.
"""

from __future__ import annotations

import numpy as np

from ..float_state import owns_float_state
from ..privacy.calibration import (
    analyze_gauss_sigma,
    laplace_input_scale,
    mod_sulq_beta,
    safe_gaussian_input_calibration,
    safe_laplace_input_calibration,
)
from ..privacy.guarantees import released
from ..privacy.noise import check_noise_kind, perturb_symmetric
from ..validation import (
    as_generator,
    check_second_moment,
)
from .input_perturbation_guarantees import (
    analyze_gauss_covariance_plan,
    analyze_gauss_forecast_noise,
    analyze_gauss_guarantee,
    check_mod_sulq_options,
    laplace_input_forecast_noise,
    laplace_input_guarantee,
    mod_sulq_guarantee,
    wishart_delta_guarantee,
    wishart_published_guarantee,
)
from .input_perturbation_wishart import (
    wishart_input_perturbation,
    wishart_input_perturbation_delta,
    wishart_input_perturbation_delta_from_second_moment,
    wishart_input_perturbation_from_second_moment,
)
from .padding import restated, second_moment_for
from .spec import CovarianceHooks, MechanismSpec, noisy_matrix_release, select

#: The privacy each mechanism really provides, as checked in chapter 2 and
#: chapter 3.
PRIVACY = {
    "mod_sulq": "(ε, δ)-DP as claimed (Chaudhuri et al. 2013, Thm 5); very "
    "conservative: the exact δ at the claimed ε is many orders of magnitude "
    "below the target δ (chapter 2).",
    "analyze_gauss": "(ε, δ)-DP; exact (tight) with calibration='analytic' "
    "(Balle–Wang), conservative with 'classical' (valid for ε < 1 only).",
    "laplace_input_perturbation": "(ε, 0)-DP as claimed (Jiang et al. 2016, "
    "Thm 3); the true ε is at most (1/(2√2) + 1/(2d)) of the nominal one "
    "(chapter 3).",
    "wishart_input_perturbation": "NOT (ε, 0)-DP as claimed by Jiang et al. "
    "(2016, Thm 4): the support of A + W depends on A, and the mechanism is "
    "exactly (ε', 1 − exp(−ε/3))-DP for every ε' ≥ 0 and no better "
    "(chapter 3).",
    "wishart_input_perturbation_delta": "(0, δ)-DP, hence (ε, δ)-DP for every "
    "ε ≥ 0 (chapter 3).",
}


def symmetric_gaussian_noise(d: int, sigma: float, rng=None) -> np.ndarray:
    """Symmetric d x d matrix with i.i.d. N(0, σ²) entries on and above the
    diagonal."""
    G = as_generator(rng).normal(0.0, sigma, size=(d, d))
    upper = np.triu(G)
    return upper + np.triu(G, 1).T


def symmetric_laplace_noise(d: int, scale: float, rng=None) -> np.ndarray:
    """Symmetric d x d matrix with i.i.d. Lap(0, b) entries on and above the
    diagonal (Jiang et al. 2016, Algorithm 1, step 1)."""
    G = as_generator(rng).laplace(0.0, scale, size=(d, d))
    upper = np.triu(G)
    return upper + np.triu(G, 1).T


def _gaussian_noise(A, n, epsilon, delta, sigma, rng, noise, granularity):
    """A + symmetric Gaussian noise of the requested kind (module docstring)."""
    if check_noise_kind(noise) == "safe":
        sigma, granularity = safe_gaussian_input_calibration(
            A.shape[0], n, epsilon, delta, sigma, granularity
        )
    return perturb_symmetric(
        A,
        sigma,
        distribution="gaussian",
        noise=noise,
        rng=rng,
        granularity=granularity,
    )


# ------------------------------------------------------------------------------
# The mechanisms
# ------------------------------------------------------------------------------


@owns_float_state
def mod_sulq_from_second_moment(
    A,
    n: int,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    exact_beta: bool = False,
    noise: str = "safe",
    granularity: float | None = None,
) -> np.ndarray:
    """MOD-SULQ on a second-moment matrix A = XᵀX/n of n rows (Chaudhuri et
    al. 2013, Alg. 1): A + N, N symmetric with i.i.d. N(0, β²) entries, β from
    eq. (5) (or its exact quadratic root).

    ``noise="safe"``: A on a grid of granularity γ plus exact discrete Gaussian
    noise of standard deviation max(β, the discrete calibration) (module
    docstring). ``A`` and ``n`` are checked by
    :func:`dppca.validation.check_second_moment`; the caller vouches that ``A``
    is ``XᵀX/n`` of the ``n`` rows (each of norm at most one) of the data set
    and that ``n`` is its true number of rows. Returns a
    :class:`dppca.privacy.guarantees.Released` matrix.
    """
    A, n = check_second_moment(A, n)  # the theorems' checkable premises
    d = A.shape[0]
    record = mod_sulq_guarantee(
        n,
        d,
        epsilon,
        delta,
        noise=noise,
        granularity=granularity,
        exact_beta=exact_beta,
    )
    beta = mod_sulq_beta(d, n, epsilon, delta, exact=exact_beta)
    noisy = _gaussian_noise(A, n, epsilon, delta, beta, rng, noise, granularity)
    return released(noisy, record)


@owns_float_state
def mod_sulq(
    X,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    noise: str = "safe",
    max_samples: int | None = None,
) -> np.ndarray:
    """MOD-SULQ (Chaudhuri, Sarwate and Sinha 2013, Algorithm 1; (ε, δ)-DP by
    Theorem 5): returns XᵀX/n + N with N symmetric, i.i.d. N(0, β²) on and
    above the diagonal, β of eq. (5). ``noise``: ``"safe"`` or ``"float"``
    (module docstring).

    A matrix release (no ``k``): its top-k eigenvectors
    (``dppca.linalg.top_k_subspace``) are post-processing.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most 1 (checked; one just above 1, within
        the float tolerance, is scaled to 1; with ``max_samples`` every row
        is shrunk for N rows: :mod:`dppca.mechanisms.padding`).
    epsilon, delta : float
        The privacy budget: ε > 0 and 0 < δ < 1.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh entropy.
    noise : {"safe", "float"}, default="safe"
        ``"safe"``: values rounded to a grid and exact discrete noise (proved
        as a program); ``"float"``: float64 noise (recorded as unproved).
    max_samples : int or None, default=None
        A public cap N: add/remove-one neighbours (n private; 1 to N rows,
        more refused before any draw), the mechanism run on XᵀX/N at n = N
        (:mod:`dppca.mechanisms.padding`). ``None``: replace-one, n public.

    Returns
    -------
    Released of shape (n_features, n_features)
        The noisy symmetric second moment with its guarantee record
        (``.guarantee``); its top-k eigenvectors are the private subspace.
        With ``max_samples=N`` it estimates XᵀX/N and n is not released: for
        XᵀX/n, multiply by N/max(1, n̂), n̂ a count released by
        ``dppca.privacy.private_bounds.private_row_count`` (its own ε;
        post-processing).
    """
    A, n = second_moment_for("mod_sulq", X, max_samples)
    noisy = mod_sulq_from_second_moment(
        A, n, epsilon=epsilon, delta=delta, rng=rng, noise=noise
    )
    return restated(noisy, max_samples)


@owns_float_state
def analyze_gauss_from_second_moment(
    A,
    n: int,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    calibration: str = "analytic",
    noise: str = "safe",
    granularity: float | None = None,
) -> np.ndarray:
    """Analyze Gauss on A = XᵀX/n: A + E, E symmetric with i.i.d. N(0, σ²)
    entries, σ = ``dppca.privacy.analyze_gauss_sigma`` (ℓ₂ sensitivity
    √2/n).

    ``noise="safe"``: A on a grid plus exact discrete Gaussian noise, σ raised
    to the discrete calibration (zCDP,
    ``dppca.privacy.discrete_gaussian_sigma``) where it is larger. ``A`` and
    ``n`` are checked by :func:`dppca.validation.check_second_moment`; the
    caller vouches that ``A`` is ``XᵀX/n`` of the ``n`` rows (each of norm at
    most one) of the data set and that ``n`` is its true number of rows.
    Returns a :class:`dppca.privacy.guarantees.Released` matrix.
    """
    A, n = check_second_moment(A, n)  # the theorems' checkable premises
    record = analyze_gauss_guarantee(
        n,
        A.shape[0],
        epsilon,
        delta,
        noise=noise,
        granularity=granularity,
        calibration=calibration,
    )
    sigma = analyze_gauss_sigma(n, epsilon, delta, calibration)
    noisy = _gaussian_noise(
        A, n, epsilon, delta, sigma, rng, noise, granularity
    )
    return released(noisy, record)


@owns_float_state
def analyze_gauss(
    X,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    calibration: str = "analytic",
    noise: str = "safe",
    max_samples: int | None = None,
) -> np.ndarray:
    """Analyze Gauss (Dwork, Talwar, Thakurta and Zhang 2014) for replace-one
    neighbours: XᵀX/n + E with E symmetric Gaussian, calibrated classically or
    exactly (Balle and Wang 2018). ``noise``: ``"safe"`` or ``"float"``
    (module docstring).

    A matrix release (no ``k``): its top-k eigenvectors
    (``dppca.linalg.top_k_subspace``) are post-processing.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most 1 (checked; one just above 1, within
        the float tolerance, is scaled to 1; with ``max_samples`` every row
        is shrunk for N rows: :mod:`dppca.mechanisms.padding`).
    epsilon, delta : float
        The privacy budget: ε > 0 and 0 < δ < 1.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh entropy.
    calibration : {"analytic", "classical"}, default="analytic"
        The Gaussian's σ: the exact analytic calibration (Balle and Wang
        2018) or the classical one.
    noise : {"safe", "float"}, default="safe"
        ``"safe"``: values rounded to a grid and exact discrete noise (proved
        as a program); ``"float"``: float64 noise (recorded as unproved).
    max_samples : int or None, default=None
        A public cap N: add/remove-one neighbours (n private; 1 to N rows,
        more refused before any draw), the mechanism run on XᵀX/N at n = N
        (:mod:`dppca.mechanisms.padding`). ``None``: replace-one, n public.

    Returns
    -------
    Released of shape (n_features, n_features)
        The noisy symmetric second moment with its guarantee record
        (``.guarantee``); its top-k eigenvectors are the private subspace.
        With ``max_samples=N`` it estimates XᵀX/N and n is not released: for
        XᵀX/n, multiply by N/max(1, n̂), n̂ a count released by
        ``dppca.privacy.private_bounds.private_row_count`` (its own ε;
        post-processing).
    """
    A, n = second_moment_for("analyze_gauss", X, max_samples)
    noisy = analyze_gauss_from_second_moment(
        A,
        n,
        epsilon=epsilon,
        delta=delta,
        rng=rng,
        calibration=calibration,
        noise=noise,
    )
    return restated(noisy, max_samples)


@owns_float_state
def laplace_input_perturbation_from_second_moment(
    A,
    n: int,
    *,
    epsilon: float,
    rng=None,
    noise: str = "safe",
    granularity: float | None = None,
) -> np.ndarray:
    """Laplace input perturbation on A = XᵀX/n (Jiang et al. 2016, Algorithm
    1): A + L with (d²+d)/2 i.i.d. Lap(0, 2d/(nε)) entries mirrored to a
    symmetric L.

    ``noise="safe"``: A on a grid of granularity γ plus γ × exact discrete
    Laplace noise, scale from
    ``dppca.privacy.safe_laplace_input_calibration``: (ε, 0)-DP as a
    program. ``A`` and ``n`` are checked by
    :func:`dppca.validation.check_second_moment`; the caller vouches that ``A``
    is ``XᵀX/n`` of the ``n`` rows (each of norm at most one) of the data set
    and that ``n`` is its true number of rows. Returns a
    :class:`dppca.privacy.guarantees.Released` matrix.
    """
    A, n = check_second_moment(A, n)  # the theorems' checkable premises
    d = A.shape[0]
    record = laplace_input_guarantee(
        n, d, epsilon, noise=noise, granularity=granularity
    )
    scale = laplace_input_scale(d, n, epsilon)
    if check_noise_kind(noise) == "safe":
        scale, granularity = safe_laplace_input_calibration(
            d, n, epsilon, granularity
        )
    noisy = perturb_symmetric(
        A,
        scale,
        distribution="laplace",
        noise=noise,
        rng=rng,
        granularity=granularity,
    )
    return released(noisy, record)


@owns_float_state
def laplace_input_perturbation(
    X,
    *,
    epsilon: float,
    rng=None,
    noise: str = "safe",
    max_samples: int | None = None,
) -> np.ndarray:
    """Laplace input perturbation (Jiang, Xie and Zhang 2016, Algorithm 1;
    (ε, 0)-DP, Theorem 3). ``noise``: ``"safe"`` or ``"float"`` (module
    docstring).

    A matrix release (no ``k``): its top-k eigenvectors
    (``dppca.linalg.top_k_subspace``) are post-processing.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most 1 (checked; one just above 1, within
        the float tolerance, is scaled to 1; with ``max_samples`` every row
        is shrunk for N rows: :mod:`dppca.mechanisms.padding`).
    epsilon : float
        The privacy budget, ε > 0 (pure DP).
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh entropy.
    noise : {"safe", "float"}, default="safe"
        ``"safe"``: values rounded to a grid and exact discrete noise (proved
        as a program); ``"float"``: float64 noise (recorded as unproved).
    max_samples : int or None, default=None
        A public cap N: add/remove-one neighbours (n private; 1 to N rows,
        more refused before any draw), the mechanism run on XᵀX/N at n = N
        (:mod:`dppca.mechanisms.padding`). ``None``: replace-one, n public.

    Returns
    -------
    Released of shape (n_features, n_features)
        The noisy symmetric second moment with its guarantee record
        (``.guarantee``); its top-k eigenvectors are the private subspace.
        With ``max_samples=N`` it estimates XᵀX/N and n is not released: for
        XᵀX/n, multiply by N/max(1, n̂), n̂ a count released by
        ``dppca.privacy.private_bounds.private_row_count`` (its own ε;
        post-processing).
    """
    A, n = second_moment_for("laplace_input_perturbation", X, max_samples)
    noisy = laplace_input_perturbation_from_second_moment(
        A, n, epsilon=epsilon, rng=rng, noise=noise
    )
    return restated(noisy, max_samples)


# ------------------------------------------------------------------------------
# The declarations: each mechanism of this family, once
# ------------------------------------------------------------------------------


def _budget(arguments, epsilon, delta) -> dict:
    """The budget keywords of a mechanism that takes ``arguments``."""
    both = {"epsilon": epsilon, "delta": delta}
    return (
        both if arguments == "epsilon_delta" else {arguments: both[arguments]}
    )


def _matrix_run(name, arguments):
    """Run a noisy-matrix mechanism on ``A`` and keep the top-k eigenpairs of
    its release (:class:`dppca.PrivatePCA`). The function is looked up by
    ``name`` at each run, as a caller (or a test's probe) of this module
    sees it."""

    def run(A, n, k, epsilon, delta, rng, options):
        budget = _budget(arguments, epsilon, delta)
        noisy = globals()[name](A, n, rng=rng, **budget, **options)
        return noisy_matrix_release(noisy, k)

    return run


def _analyze_gauss_covariance(A, n, epsilon, delta, rng, kind, sigma):
    """PrivateCovariance's release: the noisy matrix, floored at σ."""
    noisy = analyze_gauss_from_second_moment(
        A, n, epsilon=epsilon, delta=delta, rng=rng, noise=kind
    )
    return noisy, sigma


def _spec(key, moment, arguments, record, names=(), **fields):
    """The spec of ``moment``; its ``guarantee`` is ``record(n, d, <the
    budget arguments>, <the options among names>)``."""

    def guarantee(n, d, k, epsilon, delta, options):
        budget = _budget(arguments, epsilon, delta).values()
        return record(n, d, *budget, **select(options, *names))

    return MechanismSpec(
        key=key,
        run=_matrix_run(moment.__name__, arguments),
        options_of=moment,
        releases_eigenvalues=True,
        guarantee=guarantee,
        **fields,
    )


#: The mechanisms of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    _spec(
        "analyze_gauss",
        analyze_gauss_from_second_moment,
        "epsilon_delta",
        analyze_gauss_guarantee,
        ("noise", "granularity", "calibration"),
        person_level=(
            "Gaussian noise on A: ℓ₂ (Frobenius) sensitivity of the change of A"
        ),
        label="Analyze Gauss",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        privacy=PRIVACY["analyze_gauss"],
        additive_noise=True,
        forecast_noise=analyze_gauss_forecast_noise,
        auto_rank=1,
        guide_rank=10,
        proof="yes (safe discrete Gaussian)",
        covariance=CovarianceHooks(
            analyze_gauss_covariance_plan, _analyze_gauss_covariance
        ),
    ),
    _spec(
        "laplace",
        laplace_input_perturbation_from_second_moment,
        "epsilon",
        laplace_input_guarantee,
        ("noise", "granularity"),
        person_level=(
            "Laplace noise on A: ℓ₁ sensitivity of the upper triangle "
            "of the change of A"
        ),
        label="Laplace input",
        notion="pure",
        uses_delta=False,
        uses_epsilon=True,
        privacy=PRIVACY["laplace_input_perturbation"],
        additive_noise=True,
        forecast_noise=laplace_input_forecast_noise,
        auto_rank=0,
        guide_rank=20,
        proof="yes (Jiang et al. 2016, Alg. 1)",
    ),
    _spec(
        "mod_sulq",
        mod_sulq_from_second_moment,
        "epsilon_delta",
        mod_sulq_guarantee,
        ("noise", "granularity", "exact_beta"),
        person_level=(
            "Gaussian noise on A: ℓ₂ sensitivity of the change of A "
            "(safe noise), ℓ₁ and ℓ₂ bounds on its upper triangle "
            "(the paper)"
        ),
        label="MOD-SULQ",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        privacy=PRIVACY["mod_sulq"],
        additive_noise=True,
        check_options=check_mod_sulq_options,
        guide_rank=80,
        proof="yes (Chaudhuri et al. 2013)",
    ),
    _spec(
        "wishart_delta",
        wishart_input_perturbation_delta_from_second_moment,
        "delta",
        wishart_delta_guarantee,
        label="Wishart (δ-calibrated)",
        notion="approximate",
        uses_delta=True,
        uses_epsilon=False,
        privacy=PRIVACY["wishart_input_perturbation_delta"],
        guide_rank=120,
        proof="no: float64 Wishart (opt in)",
    ),
    _spec(
        "wishart_published",
        wishart_input_perturbation_from_second_moment,
        "epsilon",
        wishart_published_guarantee,
        label="Wishart (published)",
        notion="not_dp",
        uses_delta=False,
        uses_epsilon=True,
        privacy=PRIVACY["wishart_input_perturbation"],
        guide_rank=130,
        proof="no (``allow_not_dp``)",
    ),
)


__all__ = [
    "SPECS",
    "PRIVACY",
    "mod_sulq",
    "mod_sulq_from_second_moment",
    "analyze_gauss",
    "analyze_gauss_from_second_moment",
    "laplace_input_perturbation",
    "laplace_input_perturbation_from_second_moment",
    "symmetric_gaussian_noise",
    "symmetric_laplace_noise",
    "wishart_input_perturbation",
    "wishart_input_perturbation_delta",
]
