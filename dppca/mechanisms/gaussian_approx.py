"""The Gaussian mechanism for matrix approximation with a target spectrum
(Mangoubi and Vishnoi 2022).

Given a symmetric ``M`` and a target spectrum ``Lambda = diag(lambda_1 >= ... >=
lambda_d)``, add ``G + G^T`` (``G`` with i.i.d. ``N(0, sigma^2)`` entries),
diagonalise ``M + G + G^T = V^ S^ V^T`` and release ``H = V^ Lambda V^T``
(slides "Re-Analyze Gauss", NeurIPS 2022, Algorithm).

Calibration (derived in the book's chapter on this mechanism). The noise ``N = G
+ G^T`` has independent upper-triangle entries, ``N_ii ~ N(0, 4 sigma^2)`` and
``N_ij ~ N(0, 2 sigma^2)``, so its density is proportional to ``exp(-||N||_F^2 /
(8 sigma^2))``. For a change ``D = M' - M`` the Mahalanobis distance of the
upper-triangle vectors is therefore ``sqrt(sum_i D_ii^2 / (4 sigma^2) +
sum_{i<j} D_ij^2 / (2 sigma^2)) = ||D||_F / (2 sigma)``: releasing ``M + N`` is
the Gaussian mechanism with l2-sensitivity ``sup ||D||_F / 2`` and unit-free
noise ``sigma``. Two neighbouring relations:

* ``"rank_one_update"`` (the slides): ``M' - M = x x^T``, ``||x|| <= 1``: ``sup
  ||D||_F = 1``;
* ``"replace_one"`` (Chaudhuri et al. 2013, Dwork et al. 2014): ``A = X^T X /
  n`` with one row replaced, ``D = (v v^T - w w^T) / n``: ``||D||_F^2 = (||v||^4
  + ||w||^4 - 2 (v.w)^2) / n^2``, largest (``2 / n^2``) for orthogonal unit
  rows: ``sup ||D||_F = sqrt(2) / n``.

``sigma`` is then the exact (Balle and Wang 2018) analytic Gaussian calibration.

Noise kinds (``dppca.privacy.noise``): ``noise="float"`` adds float64 ``G +
G^T``,
private as mathematics only. ``noise="safe"`` (the default) rounds ``M``
to a grid of granularity ``gamma`` (a power of two) and adds exact discrete
Gaussian noise with the variances of ``G + G^T`` (``4 sigma^2`` on the diagonal,
``2 sigma^2`` off it). In grid units the Frobenius distance of neighbours grows
by at most ``d`` (each entry moves by at most one more unit), so the calibration
uses the sensitivity ``(sup ||D||_F / gamma + d) / 2`` and the discrete
Gaussian's concentrated-DP guarantee (``safe_noise_sigma``).

Preconditions. Under ``"replace_one"`` the matrix handed in must be ``A = X^T X
/ n``: it is checked by :func:`dppca.validation.check_second_moment` (symmetric,
finite, positive semidefinite, trace at most one, ``n`` a positive integer), and
the caller vouches that it really comes from the ``n`` rows, each of norm at
most one, of the data set. Under ``"rank_one_update"`` any finite symmetric
``M`` is allowed (the guarantee concerns the change ``x x^T``, whatever ``M``);
the caller vouches that neighbouring inputs differ by such a change. The X entry
points accept dense arrays and ``scipy.sparse`` matrices.
"""

from __future__ import annotations

import numpy as np

from ..float_state import owns_float_state
from ..linalg.moments import unit_rows_second_moment
from ..privacy.calibration import (
    analytic_gaussian_sigma,
    discrete_gaussian_sigma,
    safe_granularity,
)
from ..privacy.drawable import (
    check_gaussian_drawable,
    check_moment_granularity,
)
from ..privacy.guarantees import (
    REPLACE_ONE,
    Release,
    Released,
    gaussian_release,
    noise_record,
    released,
    zcdp_release,
)
from ..privacy.noise import (
    MAX_GAUSSIAN_GRID_SIGMA,
    check_granularity,
    check_noise_kind,
    perturb_symmetric_goe,
)
from ..privacy.sensitivity import frobenius_sensitivity_second_moment
from ..privacy.zcdp import gaussian_zcdp_rho
from ..validation import (
    as_generator,
    check_delta,
    check_epsilon,
    check_k,
    check_n,
    check_second_moment,
    check_symmetric,
)
from .spec import MechanismSpec, select

#: Privacy notion of each mechanism of this module (and any failure the book
#: found).
PRIVACY = {
    "gaussian_matrix_approximation": "(ε, δ)-DP for the chosen relation: "
    "rank-one update "
    "M' − M = xxᵀ, ‖x‖ ≤ 1 (slides), or replace-one on XᵀX/n",
    "rank_k_covariance_approximation": "(ε, δ)-DP, replace-one; releases the "
    "NOISY top-k eigenvalues "
    "(the true ones are not private)",
    "gaussian_subspace_recovery": "(ε, δ)-DP, replace-one",
}

RELATIONS = ("rank_one_update", "replace_one")


def frobenius_sensitivity(
    relation: str = "rank_one_update", n: int | None = None
) -> float:
    """Largest ``||M' - M||_F`` over neighbours: 1 for a rank-one update ``x
    x^T`` with ``||x|| <= 1``,
    ``sqrt(2)/n`` for replacing one row of ``X`` in ``X^T X / n`` (module
    docstring)."""
    if relation == "rank_one_update":
        if n is not None:
            raise ValueError(
                "n is not used by the rank-one-update relation; pass n=None"
            )
        return 1.0
    if relation == "replace_one":
        if n is None:
            raise ValueError(
                "the replace-one relation needs the number of rows n"
            )
        return frobenius_sensitivity_second_moment(n)
    raise ValueError(f"relation must be one of {RELATIONS}; got {relation!r}")


def mahalanobis_distance(D, sigma: float) -> float:
    """Distance between the laws of ``M + G + G^T`` and ``M + D + G + G^T``,
    measured entry by entry.

    Whitens the upper-triangle vector of ``D`` with the noise standard
    deviations (``2 sigma`` on the diagonal, ``sqrt(2) sigma`` off it). Equals
    ``||D||_F / (2 sigma)``.
    """
    D = check_symmetric(D, name="D")
    if not sigma > 0:
        raise ValueError(f"sigma must be > 0; got {sigma!r}")
    diagonal = np.diagonal(D) / (2.0 * sigma)
    upper = D[np.triu_indices(D.shape[0], 1)] / (np.sqrt(2.0) * sigma)
    return float(np.sqrt(diagonal @ diagonal + upper @ upper))


def noise_sigma(
    epsilon: float,
    delta: float,
    relation: str = "rank_one_update",
    n: int | None = None,
) -> float:
    """Smallest ``sigma`` (entries of ``G``) making ``M + G + G^T`` (ε, δ)-DP
    for ``relation``:
    the analytic Gaussian mechanism with sensitivity ``frobenius_sensitivity
    / 2``."""
    sensitivity = frobenius_sensitivity(relation, n)
    return analytic_gaussian_sigma(
        sensitivity / 2.0, check_epsilon(epsilon), check_delta(delta)
    )


def safe_noise_sigma(
    epsilon: float,
    delta: float,
    d: int,
    relation: str = "rank_one_update",
    n: int | None = None,
    granularity: float | None = None,
) -> tuple[float, float]:
    """``(sigma, gamma)`` of the floating-point-safe ``M + G + G^T`` (module
    docstring):
    ``sigma = max(noise_sigma, discrete calibration)`` with sensitivity
    ``(sup ||D||_F / gamma + d) / 2``; default ``gamma`` from
    :func:`dppca.privacy.safe_granularity`."""
    sigma_float = noise_sigma(epsilon, delta, relation, n)
    half_sensitivity = frobenius_sensitivity(relation, n) / 2.0
    if granularity is None:
        granularity = safe_granularity(
            half_sensitivity,
            d / 2.0,
            2.0 * sigma_float,
            MAX_GAUSSIAN_GRID_SIGMA,
        )
    g = check_granularity(granularity)
    sigma = discrete_gaussian_sigma(
        half_sensitivity, epsilon, delta, g, d / 2.0
    )
    return max(sigma_float, sigma), g


def goe_noise(d: int, sigma: float, rng=None) -> np.ndarray:
    """``G + G^T`` with ``G`` a ``d x d`` matrix of i.i.d. ``N(0, sigma^2)``
    entries: a GOE matrix
    (variance ``4 sigma^2`` on the diagonal, ``2 sigma^2`` off it). Not the
    upper-triangle noise of
    :func:`dppca.mechanisms.input_perturbation.symmetric_gaussian_noise`, whose
    entries all
    have variance
    ``sigma^2``."""
    if int(d) < 2:
        raise ValueError(f"d must be at least 2; got {d!r}")
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number > 0; got {sigma!r}")
    G = as_generator(rng).standard_normal((int(d), int(d))) * sigma
    return G + G.T


def check_target_spectrum(Lambda, d: int) -> np.ndarray:
    """Validate a target spectrum: ``d`` finite values sorted
    non-increasingly."""
    Lambda = np.asarray(Lambda, dtype=float)
    if Lambda.ndim != 1 or Lambda.size != d:
        raise ValueError(
            f"Lambda must be a vector of length d = {d}; got shape "
            f"{Lambda.shape}"
        )
    if not np.all(np.isfinite(Lambda)):
        raise ValueError("Lambda contains NaN or Inf")
    if np.any(np.diff(Lambda) > 0):
        raise ValueError(
            "Lambda must be sorted non-increasingly (lambda_1 >= ... >= "
            "lambda_d)"
        )
    return Lambda


@owns_float_state
def noisy_eigendecomposition(
    M, sigma: float, rng=None, noise: str = "safe", granularity=None
):
    """Eigen-decomposition of ``M + G + G^T``: values descending, vectors as
    columns.
    ``noise="safe"``: ``M`` on the grid ``granularity`` plus exact discrete
    noise with the same
    variances (:func:`dppca.privacy.noise.perturb_symmetric_goe`)."""
    M = check_symmetric(M)
    if check_noise_kind(noise) == "safe":
        noisy = perturb_symmetric_goe(
            M, sigma, rng=rng, granularity=granularity
        )
    else:
        noisy = M + goe_noise(M.shape[0], sigma, rng)
    values, vectors = np.linalg.eigh(noisy)
    return values[::-1], vectors[:, ::-1]


def _calibrated_sigma(epsilon, delta, d, relation, n, noise, granularity):
    if check_noise_kind(noise) == "safe":
        return safe_noise_sigma(epsilon, delta, d, relation, n, granularity)
    return noise_sigma(epsilon, delta, relation, n), None


def gaussian_approx_guarantee(
    epsilon,
    delta,
    d,
    relation="replace_one",
    n=None,
    *,
    noise="safe",
    granularity=None,
    label="Mangoubi–Vishnoi",
) -> Release:
    """Guarantee record of ``M + G + G^T``: G + Gᵀ is the Gaussian mechanism
    with sensitivity ``frobenius_sensitivity / 2`` and noise σ (module
    docstring). Safe noise: ρ-zCDP with the rounding's d/2 grid cells added
    to the sensitivity, for the grid actually used."""
    sensitivity = frobenius_sensitivity(relation, n) / 2.0
    neighbours = (
        REPLACE_ONE
        if relation == "replace_one"
        else "rank-one update M' = M + xxᵀ, ‖x‖ ≤ 1"
    )
    record = dict(
        neighbours=neighbours,
        theorem="[MV22, Thm 2.2] (Gaussian mechanism)",
        chapter="chapter 5",
    )
    if check_noise_kind(noise) == "safe":
        if granularity is not None:
            check_moment_granularity(granularity)
        sigma, grid = safe_noise_sigma(
            epsilon, delta, d, relation, n, granularity
        )
        # the diagonal of G + Gᵀ has variance 4 (σ/γ)² grid units
        check_gaussian_drawable(sigma, grid, factor=4, what=label)
        return zcdp_release(
            f"{label} (safe noise)",
            gaussian_zcdp_rho(sensitivity + grid * d / 2, sigma),
            epsilon,
            delta,
            **noise_record("safe"),
            **record,
        )
    sigma = noise_sigma(epsilon, delta, relation, n)
    return gaussian_release(
        label,
        sigma,
        sensitivity,
        epsilon,
        delta,
        **noise_record("float"),
        **record,
    )


def apply_spectrum(vectors, Lambda) -> np.ndarray:
    """``H = V Lambda V^T`` for eigenvectors ``V`` (columns, matching
    ``Lambda``'s order)."""
    return (vectors * Lambda) @ vectors.T


@owns_float_state
def gaussian_matrix_approximation(
    M,
    Lambda,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    relation: str = "rank_one_update",
    n: int | None = None,
    noise: str = "safe",
):
    """Mangoubi–Vishnoi Gaussian mechanism: ``H = V^ Lambda V^T`` from ``M +
    G + G^T``.

    ``Lambda`` must be data-independent (or itself private); ``sigma`` from
    :func:`noise_sigma` (``noise="float"``) or :func:`safe_noise_sigma`
    (``noise="safe"``, module docstring). With ``relation="replace_one"`` ``M``
    must be ``X^T X / n`` and is checked by
    :func:`dppca.validation.check_second_moment` (the caller vouches for the
    rest: rows of norm at most one, ``n`` the true count); with
    ``"rank_one_update"`` any symmetric ``M`` (module docstring).
    """
    if relation == "replace_one" and n is not None:
        M, n = check_second_moment(M, n, name="M")
    M = check_symmetric(M)
    Lambda = check_target_spectrum(Lambda, M.shape[0])
    sigma, gamma = _calibrated_sigma(
        epsilon, delta, M.shape[0], relation, n, noise, None
    )
    record = gaussian_approx_guarantee(
        epsilon, delta, M.shape[0], relation, n, noise=noise
    )
    _, vectors = noisy_eigendecomposition(M, sigma, rng, noise, gamma)
    return released(apply_spectrum(vectors, Lambda), record)


@owns_float_state
def rank_k_covariance_approximation(
    X, k: int, *, epsilon: float, delta: float, rng=None, noise: str = "safe"
) -> np.ndarray:
    """Private rank-k approximation of ``A = X^T X / n`` (replace-one relation).

    Uses ``lambda_i = sigma^_i`` (i <= k), the top eigenvalues of the NOISY
    matrix: they are post-processing of the private release. The true
    ``sigma_i`` of the corollary would leak. ``noise``: ``"float"`` or
    ``"safe"`` (module docstring). ``X`` may be dense or ``scipy.sparse``.
    """
    A = unit_rows_second_moment(X)
    n, d = np.shape(X)
    k = check_k(k, d)
    sigma, gamma = _calibrated_sigma(
        epsilon, delta, d, "replace_one", n, noise, None
    )
    record = gaussian_approx_guarantee(
        epsilon, delta, d, "replace_one", n, noise=noise
    )
    values, vectors = noisy_eigendecomposition(A, sigma, rng, noise, gamma)
    return released(apply_spectrum(vectors[:, :k], values[:k]), record)


@owns_float_state
def gaussian_subspace_recovery_from_second_moment(
    A,
    n: int,
    k: int,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    noise: str = "safe",
    granularity: float | None = None,
    return_spectrum: bool = False,
) -> np.ndarray:
    """Subspace recovery from ``A = X^T X / n`` and ``n`` (replace-one
    calibration): the top-k
    eigenvectors of ``A + G + G^T`` as a ``d x k`` orthonormal matrix.
    ``noise``: ``"float"`` or ``"safe"`` (module docstring).

    ``return_spectrum=True`` also returns every eigenvalue of the noisy
    matrix, descending: post-processing of ``A + G + G^T``, which is itself
    the (ε, δ)-DP Gaussian mechanism, so it costs no budget.

    ``A`` and ``n`` are checked by :func:`dppca.validation.check_second_moment`;
    the caller vouches that ``A`` is ``X^T X / n`` of the ``n`` rows (each of
    norm at most one) of the data set and that ``n`` is its true number of rows.
    """
    A, n = check_second_moment(A, n)
    k = check_k(k, A.shape[0])
    sigma, gamma = _calibrated_sigma(
        epsilon,
        delta,
        A.shape[0],
        "replace_one",
        check_n(n),
        noise,
        granularity,
    )
    record = gaussian_approx_guarantee(
        epsilon,
        delta,
        A.shape[0],
        "replace_one",
        n,
        noise=noise,
        granularity=granularity,
    )
    values, vectors = noisy_eigendecomposition(A, sigma, rng, noise, gamma)
    V = released(vectors[:, :k].copy(), record)
    return (V, Released(values, record)) if return_spectrum else V


@owns_float_state
def gaussian_subspace_recovery(
    X, k: int, *, epsilon: float, delta: float, rng=None, noise: str = "safe"
) -> np.ndarray:
    """Private top-k subspace of ``A = X^T X / n`` (``lambda_1..k = 1``, rest
    0; replace-one).

    Returns a ``d x k`` orthonormal ``V^_k``; ``H = V^_k V^_k^T``.
    ``noise``: ``"float"`` or ``"safe"`` (module docstring).
    ``scipy.sparse``.
    """
    A = unit_rows_second_moment(X)
    return gaussian_subspace_recovery_from_second_moment(
        A, np.shape(X)[0], k, epsilon=epsilon, delta=delta, rng=rng, noise=noise
    )


def approximation_errors(
    M,
    Lambda,
    noise_sigma: float,
    n_trials: int,
    rng=None,
    batch_size: int = 256,
) -> np.ndarray:
    """Monte Carlo draws of ``||V^ Lambda V^T - V Lambda V^T||_F`` at a given
    noise level.

    ``V Lambda V^T`` uses the eigenvectors of ``M`` (descending); the mechanism
    is run with ``G`` i.i.d. ``N(0, noise_sigma^2)``, in batches of stacked
    ``eigh`` calls.
    """
    M = check_symmetric(M)
    d = M.shape[0]
    Lambda = check_target_spectrum(Lambda, d)
    if not (np.isfinite(noise_sigma) and noise_sigma > 0):
        raise ValueError(
            f"noise_sigma must be a finite number > 0; got {noise_sigma!r}"
        )
    n_trials = check_n(n_trials)
    rng = as_generator(rng)
    _, V = np.linalg.eigh(M)
    target = apply_spectrum(V[:, ::-1], Lambda)
    errors = []
    for start in range(0, n_trials, batch_size):
        m = min(batch_size, n_trials - start)
        G = rng.standard_normal((m, d, d)) * noise_sigma
        _, U = np.linalg.eigh(M + G + np.swapaxes(G, -1, -2))
        U = U[..., ::-1]
        H = (U * Lambda) @ np.swapaxes(U, -1, -2)
        errors.append(np.linalg.norm(H - target, axis=(-2, -1)))
    return np.concatenate(errors)


def privacy_loss(output, M, M_prime, sigma: float) -> np.ndarray:
    """Privacy loss ``log p(output | M) - log p(output | M')`` of ``M + G +
    G^T``.

    ``output`` may hold a batch of noisy matrices (leading axes). Uses the
    density ``exp(-||N||_F^2 / (8 sigma^2))`` of ``N = G + G^T``.
    """
    output = np.asarray(output, dtype=float)
    to_m = np.sum((output - M) ** 2, axis=(-2, -1))
    to_m_prime = np.sum((output - M_prime) ** 2, axis=(-2, -1))
    return (to_m_prime - to_m) / (8.0 * sigma**2)


def _pairs_ratio(sigmas, lambdas):
    sigmas = np.asarray(sigmas, dtype=float)
    lambdas = np.asarray(lambdas, dtype=float)
    if sigmas.shape != lambdas.shape or sigmas.ndim != 1:
        raise ValueError(
            "sigmas and lambdas must be vectors of the same length"
        )
    dl = lambdas[:, None] - lambdas[None, :]
    ds = sigmas[:, None] - sigmas[None, :]
    mask = dl != 0
    if np.any(mask & (ds == 0)):
        raise ValueError(
            "a pair with lambda_i != lambda_j has sigma_i == sigma_j: "
            "prediction infinite"
        )
    return np.where(mask, dl / np.where(mask, ds, 1.0), 0.0)


def sum_of_squares_prediction(sigmas, lambdas, noise_sigma: float) -> float:
    """Leading-order ``E||V^ Lambda V^T - V Lambda V^T||_F^2 = 4 s^2
    sum_{i<j} (l_i - l_j)^2/(s_i - s_j)^2``.

    From Itô's lemma for ``Psi(t) = U(t) Lambda U(t)^T`` (Mangoubi and Vishnoi
    2022, proof step 2): the pair ``(i, j)`` moves ``Psi`` along ``u_i u_j^T +
    u_j u_i^T`` (Frobenius norm² 2) with coefficient ``(l_i - l_j)/(g_i - g_j)``
    times ``dB~_ij`` (variance ``2 dt``), integrated to ``T = noise_sigma^2``
    with the gaps frozen at ``t = 0``. Exact as ``noise_sigma -> 0``.
    """
    ratio = _pairs_ratio(sigmas, lambdas)
    return float(2.0 * noise_sigma**2 * np.sum(ratio**2))


# ------------------------------------------------------------------------------
# The declaration: Gaussian subspace recovery, once
# ------------------------------------------------------------------------------


def _run(A, n, k, epsilon, delta, rng, options):
    budget = dict(epsilon=epsilon, delta=delta, rng=rng)
    V, spectrum = gaussian_subspace_recovery_from_second_moment(
        A, n, k, return_spectrum=True, **budget, **options
    )
    # the noisy matrix's spectrum: post-processing of the release
    spectrum = np.asarray(spectrum)
    return V, spectrum[:k], float(spectrum[spectrum > 0].sum())


def _guarantee(n, d, k, epsilon, delta, options):
    return gaussian_approx_guarantee(
        epsilon,
        delta,
        d,
        "replace_one",
        n,
        **select(options, "noise", "granularity"),
    )


def _forecast_noise(n, d, epsilon, delta, noise, options):
    """The off-diagonal σ of ``G + Gᵀ``, √2 times G's (the forecast's)."""
    grid = options.get("granularity")
    sigma = _calibrated_sigma(epsilon, delta, d, "replace_one", n, noise, grid)
    return float(np.sqrt(2.0)) * sigma[0]


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="gaussian_approx",
        person_level=(
            "Gaussian noise G + Gᵀ on A: Frobenius sensitivity of the "
            "change of A"
        ),
        label="Mangoubi–Vishnoi",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run=_run,
        guarantee=_guarantee,
        privacy=PRIVACY["gaussian_subspace_recovery"],
        options_of=gaussian_subspace_recovery_from_second_moment,
        additive_noise=True,
        releases_spectrum=True,
        forecast_noise=_forecast_noise,
        auto_rank=0,
        guide_rank=30,
        proof="yes (Mangoubi–Vishnoi 2022)",
    ),
)


__all__ = [
    "SPECS",
    "PRIVACY",
    "RELATIONS",
    "frobenius_sensitivity",
    "mahalanobis_distance",
    "noise_sigma",
    "goe_noise",
    "safe_noise_sigma",
    "check_target_spectrum",
    "gaussian_subspace_recovery_from_second_moment",
    "noisy_eigendecomposition",
    "apply_spectrum",
    "gaussian_matrix_approximation",
    "rank_k_covariance_approximation",
    "gaussian_subspace_recovery",
    "approximation_errors",
    "privacy_loss",
    "sum_of_squares_prediction",
]
