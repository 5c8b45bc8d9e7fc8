"""Iterative eigenvector sampling: Amin, Dick, Kulesza, Muñoz Medina and
Vassilvitskii (NeurIPS
2019), "Differentially Private Covariance Estimation", Algorithm 1, under the
book's neighbours.

The mechanism releases a spectrum and an orthonormal frame separately:

1. (Alg. 1, step 1) the top-``k`` eigenvalues of ``A = X^T X / n`` plus Laplace
   noise, with budget ``ε_0``;
2. (Alg. 1, step 2) for ``i = 1..k``, a unit vector ``u_i`` drawn, with budget
   ``ε_i``, from the vector Bingham law ``∝ exp(η_i u^T A u)`` on the unit
   sphere of the orthogonal complement of ``u_1, ..., u_{i-1}`` (the exponential
   mechanism with score ``n u^T A u = |X u|^2``);
3. (Alg. 1, step 3) the rank-``k`` estimate ``Σ_i λ̂_i u_i u_i^T``.

Each vector draw is exact (``dppca.samplers.bingham.sample_vector_bingham``,
rejection from an angular central Gaussian), so the release is pure ``(ε_0 + ε_1
+ ... + ε_k)``-DP by sequential composition for every ``k`` (paper, Theorem 1),
up to floating point.

**Neighbours.** The paper (and diffprivlib, OpenDP) count add/remove-one
neighbours on ``C = X^T X``; the book replaces one row (``n`` fixed) and works
with ``A = C / n``. Under replace-one (``dppca.privacy.sensitivity``):

* the score ``n u^T A u`` moves by ``(u^T x)^2 - (u^T y)^2 ∈ [-1, 1]``:
  sensitivity 1, as under add/remove, but no longer one-sided. The exponential
  mechanism ``∝ exp(η n u^T A u)`` is then ``2η``-DP, so ``η_i = ε_i / 2`` (the
  paper samples ``∝ exp(ε_i/4 · u^T C u)``, twice as conservative: its vectors
  are ``ε_i/2``-DP under either relation);
* the ``ℓ_1`` distance of the sorted eigenvalue vectors is at most ``‖v v^T - w
  w^T‖_* / n ≤ 2/n`` (Lidskii), attained, where add/remove gives ``1/n`` (the
  trace of ``x x^T``); for ``k = 1`` the top eigenvalue alone moves by at most
  ``1/n``. The paper's noise ``Lap(2/ε_0)`` on ``C`` is exactly the replace-one
  calibration ``Lap(2/(n ε_0))`` on ``A``.
"""

from __future__ import annotations

import numpy as np

from ..float_state import owns_float_state
from ..privacy.calibration import (
    discrete_laplace_scale,
    laplace_scale,
    safe_granularity,
)
from ..privacy.guarantees import (
    FLOAT_NOISE_CAVEAT,
    FLOAT_SAMPLER_CAVEAT,
    Release,
    Released,
    released,
)
from ..privacy.noise import (
    MAX_LAPLACE_GRID_SCALE,
    add_laplace,
    check_noise_kind,
)
from ..privacy.sensitivity import (
    bingham_score_sensitivity,
    top_eigenvalues_l1_sensitivity,
)
from ..samplers import bingham
from ..samplers.bingham import sample_vector_bingham
from ..validation import (
    as_generator,
    check_choice,
    check_data,
    check_epsilon,
    check_k,
    check_n,
    check_second_moment,
    check_symmetric,
)
from .exponential import check_public_concentration
from .padding import check_cap, restated, second_moment_for
from .spec import MechanismSpec

#: Privacy notion of each mechanism of this module.
PRIVACY = {
    "amin_subspace": "ε-DP (pure) under replace-one neighbours for every k: k "
    "exact "
    "vector-Bingham draws, each an exponential mechanism with budget εᵢ on "
    "the "
    "complement of the vectors already released, composed sequentially "
    "(Amin et al. 2019, Theorem 1, recalibrated to replace-one). Exact up to "
    "floating point (the rejection sampler has no tuning and no chain).",
    "amin_covariance": "ε-DP (pure) under replace-one neighbours: Laplace "
    "noise on the "
    "top-k eigenvalues (ℓ1 sensitivity 2/n, 1/n for k = 1) with budget ε₀, "
    "plus "
    "the k vector draws of amin_subspace with the rest (Amin et al. 2019, "
    "Algorithm 1 and Theorem 1). Up to floating point in the Laplace draws.",
}

#: Default share of ε spent on the eigenvalues in the covariance release (paper,
#: Corollary 1).
DEFAULT_EIGENVALUE_SHARE = 0.5

#: Failure probability in the threshold τ of the adaptive vector split (paper,
#: Corollary 1).
DEFAULT_BETA = 0.01

VECTOR_SPLITS = ("uniform", "adaptive")


def bingham_inverse_temperature(n: int, epsilon_i) -> float:
    """``η_i = n ε_i / (2 Δ)`` with ``Δ = 1``: the vector step is ``∝ exp(η_i
    u^T A u)``.

    The exponential mechanism with a score of sensitivity ``Δ`` (here ``n u^T A
    u``, ``Δ = 1`` under replace-one) and density ``∝ exp(ε q / (2Δ))`` is ε-DP
    (McSherry and Talwar 2007).
    """
    return (
        check_n(n)
        * check_epsilon(epsilon_i)
        / (2.0 * bingham_score_sensitivity())
    )


def check_vector_weights(weights, k: int) -> np.ndarray:
    """``k`` finite positive vector weights, normalised to sum one."""
    w = np.asarray(weights, dtype=float).ravel()
    if w.size != k or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError(
            f"vector weights must be {k} finite positive numbers; got "
            f"{weights!r}"
        )
    return w / w.sum()


METHODS = ("eigenbasis", "householder")


@owns_float_state
def iterative_eigenvectors(
    A, n: int, vector_epsilons, rng=None, method: str = "eigenbasis"
) -> np.ndarray:
    """Alg. 1, step 2: ``u_i`` drawn exactly ∝ ``exp((n ε_i / 2) u^T A u)``
    on the unit sphere
    of ``span(u_1, ..., u_{i-1})^⊥``, for ``i = 1..k`` (``k =
    len(vector_epsilons)``).

    Two exact implementations of the same law: ``"householder"`` follows the
    paper literally (compress ``A`` to the complement and call
    :func:`dppca.samplers.bingham.sample_vector_bingham`, one ``eigh`` per
    vector);
    ``"eigenbasis"`` (default) factorises ``A`` once and draws each vector by
    the same ACG rejection in the eigenbasis of ``A``, conditioning the Gaussian
    proposal on orthogonality to the vectors already drawn (as the blocked Gibbs
    sampler of :mod:`dppca.samplers.bingham` does for one column), with the
    shift of the
    compressed matrix found by Lanczos. Returns the ``d x k`` matrix ``[u_1,
    ..., u_k]`` (orthonormal columns).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}; got {method!r}")
    A, n = check_second_moment(A, n)
    epsilons = [check_epsilon(e) for e in np.ravel(vector_epsilons)]
    check_k(len(epsilons), A.shape[0])
    rng = as_generator(rng)
    if method == "householder":
        return _householder_vectors(A, n, epsilons, rng)
    return _eigenbasis_vectors(A, n, epsilons, rng)


def _eigenbasis_vectors(A, n, epsilons, rng) -> np.ndarray:
    """One ``eigh`` of ``A``; vector ``i`` by ACG rejection on
    ``range(Y_{<i})^⊥`` in eigen
    coordinates (exact: the envelope is checked on every proposal)."""
    system = bingham.BinghamEigenSystem(A)
    lam_a, d = system.lam, system.d
    k = len(epsilons)
    Y = np.zeros((d, k))
    for i, eps_i in enumerate(epsilons):
        lam = bingham_inverse_temperature(n, eps_i) * lam_a
        Y[:, i] = bingham.sample_on_complement(lam, Y[:, :i], rng)
    return system.U @ Y


def _householder_vectors(A, n, epsilons, rng) -> np.ndarray:
    """The paper's step 2 literally. The complement is carried by Householder
    reflections: ``P_i`` (``d x (d-i+1)``, orthonormal
    columns) spans it and ``C_i = P_i^T A P_i`` is the compressed matrix (the
    paper's ``C_i``); each step draws ``û`` from the vector Bingham with matrix
    ``η_i C_i`` and sets ``u_i = P_i û``. Returns the ``d x k`` matrix ``[u_1,
    ..., u_k]`` (orthonormal columns).
    """
    d = A.shape[0]
    k = len(epsilons)
    P = np.eye(d)
    C = A.copy()
    V = np.empty((d, k))
    for i, eps_i in enumerate(epsilons):
        u_hat = sample_vector_bingham(
            bingham_inverse_temperature(n, eps_i) * C, rng=rng
        )
        V[:, i] = P @ u_hat
        # Householder reflection H = I - 2 w w^T with H u_hat = ±e_1; its
        # columns 2.. span u_hat^⊥, so P <- (P H)[:, 1:] and C <- (H C H)[1:,
        # 1:].
        w = u_hat.copy()
        w[0] += np.copysign(1.0, u_hat[0])
        w /= np.linalg.norm(w)
        Cw = C @ w
        C = (
            C
            - 2.0 * np.outer(w, Cw)
            - 2.0 * np.outer(Cw, w)
            + 4.0 * (w @ Cw) * np.outer(w, w)
        )[1:, 1:]
        C = (C + C.T) / 2.0
        P = (P - 2.0 * np.outer(P @ w, w))[:, 1:]
    return V


def split_budget(
    epsilon,
    k: int,
    eigenvalue_share: float,
) -> tuple[float, float]:
    """``(ε_0, ε_vectors)`` with ``ε_0 = share · ε`` for the eigenvalues and
    the rest for the
    ``k`` vectors (the paper's Theorem 1 holds for any split; Corollary 1
    takes ``ε_0 = ε/2``)."""
    epsilon = check_epsilon(epsilon)
    share = float(eigenvalue_share)
    if not (0.0 < share < 1.0):
        raise ValueError(
            f"eigenvalue_share must lie in (0, 1); got {eigenvalue_share!r}"
        )
    return share * epsilon, (1.0 - share) * epsilon


def adaptive_vector_weights(
    noisy_eigenvalues, n: int, d: int, epsilon_0, beta: float = DEFAULT_BETA
) -> np.ndarray:
    """Weights ``∝ sqrt(λ̂_i + τ)`` of the paper's adaptive split (Corollary
    1), in the units of
    ``A``: ``τ = b log(2d/β)`` with ``b`` the Laplace scale of the eigenvalues,
    a high-probability
    bound on their noise. Uses only released values (post-processing)."""
    lam = np.asarray(noisy_eigenvalues, dtype=float)
    b = laplace_scale(
        top_eigenvalues_l1_sensitivity(n, max(2, lam.size)), epsilon_0
    )
    tau = b * np.log(2.0 * d / float(beta))
    return check_vector_weights(
        np.sqrt(np.maximum(lam + tau, 1e-300)), lam.size
    )


def amin_guarantee(n, d, k, epsilon, *, eigenvalues=False, noise="safe"):
    """Guarantee record of Amin et al.'s release (subspace alone, or with
    Laplace eigenvalues): ε-DP (pure) under replace-one neighbours, each
    vector an exact draw of a float64 rejection sampler (chapter 11)."""
    caveat = FLOAT_SAMPLER_CAVEAT
    if eigenvalues and noise != "safe":
        caveat += "; " + FLOAT_NOISE_CAVEAT
    return Release(
        "Amin et al." + (" (covariance)" if eigenvalues else ""),
        "pure",
        float(epsilon),
        noise="float sampler",
        proved=False,
        caveat=caveat,
        theorem="[ADKMV19, Thm 1], replace-one",
        chapter="chapter 11",
    )


@owns_float_state
def amin_subspace_from_second_moment(
    A,
    n: int,
    k: int,
    *,
    epsilon,
    rng=None,
    vector_weights=None,
    method: str = "eigenbasis",
) -> np.ndarray:
    """The eigenvector part of Alg. 1 alone: ``k`` vectors with budgets ``ε_i
    = w_i ε``
    (``vector_weights`` ``w``, normalised; default equal), ε-DP under
    replace-one.

    ``A = X^T X / n`` (the caller vouches that rows had norm at most 1). Returns
    ``V`` (``d x k``).
    """
    A, n = check_second_moment(A, n)
    k = check_k(k, A.shape[0])
    epsilon = check_epsilon(epsilon)
    w = (
        np.full(k, 1.0 / k)
        if vector_weights is None
        else check_vector_weights(vector_weights, k)
    )
    record = amin_guarantee(n, A.shape[0], k, epsilon)
    V = iterative_eigenvectors(A, n, w * epsilon, rng=rng, method=method)
    return released(V, record)


@owns_float_state
def amin_subspace(
    X,
    k: int,
    *,
    epsilon,
    rng=None,
    max_samples: int | None = None,
    **options,
) -> np.ndarray:
    """Amin et al. (2019), Alg. 1 step 2: a ``d x k`` orthonormal ``V``, ε-DP
    for every ``k``.

    ``X`` is ``n x d`` with rows of norm at most 1 (checked). ``options``:
    ``vector_weights``, ``method`` (see ``iterative_eigenvectors``).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most 1 (checked; one just above 1, within
        the float tolerance, is scaled to 1; with ``max_samples`` every row
        is shrunk for N rows: :mod:`dppca.mechanisms.padding`).
    k : int
        The dimension of the released subspace.
    epsilon : float
        The total ε (pure DP), > 0.
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness; ``None`` draws fresh entropy (never a fixed seed).
    max_samples : int or None, default=None
        ``None``: replace-one neighbours, n public. An integer N, a public
        cap: add/remove-one neighbours, n private, for data sets of 1 to N
        rows (more are refused before anything random is drawn). The
        vectors are drawn from XᵀX/N (X padded with zero rows) with n = N:
        each draw ∝ exp((N εᵢ/2) uᵀAu) = exp((εᵢ/2) ‖Xu‖²), whose score
        moves by at most 1 when a row is added or removed
        (:mod:`dppca.mechanisms.padding`). The concentration Nε/2 must stay
        within the sampler's range (checked on those public values).
    **options
        ``vector_weights``, ``method``: see ``iterative_eigenvectors``.

    Returns
    -------
    Released of shape (n_features, k)
        Orthonormal columns, with their guarantee record (``.guarantee``).
        With ``max_samples=N`` the record names the add/remove relation and
        n is not released; the subspace needs no rescaling.
    """
    if max_samples is not None:  # public values, before any draw
        check_public_concentration(
            check_cap("amin_subspace", max_samples), check_epsilon(epsilon)
        )
    X = check_data(X)
    A, n = second_moment_for(
        "amin_subspace", X, max_samples, accept_sparse=False
    )
    V = amin_subspace_from_second_moment(
        A, n, k, epsilon=epsilon, rng=rng, **options
    )
    return restated(V, max_samples)


@owns_float_state
def amin_covariance_from_second_moment(
    A,
    n: int,
    k: int,
    *,
    epsilon,
    eigenvalue_share: float = DEFAULT_EIGENVALUE_SHARE,
    vector_split: str = "adaptive",
    beta: float = DEFAULT_BETA,
    rng=None,
    method: str = "eigenbasis",
    return_parts: bool = False,
    noise: str = "safe",
):
    """Amin et al. (2019), Algorithm 1 truncated at rank ``k``: an ε-DP
    estimate of ``A``.

    ``ε_0 = eigenvalue_share · ε`` buys ``λ̂ = λ_{1..k}(A) + Lap(Δ/ε_0)`` with
    ``Δ`` from ``dppca.privacy.sensitivity.top_eigenvalues_l1_sensitivity``; the
    rest is split over the ``k`` vectors ``"uniform"``-ly or ``"adaptive"``-ly
    (∝ sqrt(λ̂_i + τ), Corollary 1). The noisy values are clipped to ``[0, 1]``
    (eigenvalues of ``A`` lie there for rows of norm ≤ 1), sorted and paired
    with ``u_1, u_2, ...`` in order. Returns the ``d x d`` matrix ``Σ_i λ̂_i u_i
    u_i^T`` (and ``(λ̂, V)`` too if ``return_parts``).
    """
    A = check_symmetric(A, name="A")
    n = check_n(n)
    d = A.shape[0]
    k = check_k(k, d)
    if vector_split not in VECTOR_SPLITS:
        raise ValueError(
            f"vector_split must be one of {VECTOR_SPLITS}; got {vector_split!r}"
        )
    rng = as_generator(rng)
    epsilon_0, epsilon_vectors = split_budget(epsilon, k, eigenvalue_share)
    top = np.linalg.eigvalsh(A)[::-1][:k]
    sensitivity = top_eigenvalues_l1_sensitivity(n, k)
    scale, grid = laplace_scale(sensitivity, epsilon_0), None
    if check_noise_kind(noise) == "safe":  # k entries, each rounded
        grid = safe_granularity(sensitivity, k, scale, MAX_LAPLACE_GRID_SCALE)
        scale = discrete_laplace_scale(sensitivity, epsilon_0, grid, k)
    noisy = add_laplace(top, scale, noise=noise, rng=rng, granularity=grid)
    noisy = np.sort(np.clip(noisy, 0.0, 1.0))[::-1]
    if vector_split == "uniform":
        weights = np.full(k, 1.0 / k)
    else:
        weights = adaptive_vector_weights(noisy, n, d, epsilon_0, beta=beta)
    V = iterative_eigenvectors(
        A, n, weights * epsilon_vectors, rng=rng, method=method
    )
    record = amin_guarantee(n, d, k, epsilon, eigenvalues=True, noise=noise)
    estimate = released((V * noisy) @ V.T, record)
    if return_parts:
        return estimate, Released(noisy, record), Released(V, record)
    return estimate


@owns_float_state
def amin_covariance(
    X,
    k: int,
    *,
    epsilon,
    eigenvalue_share: float = DEFAULT_EIGENVALUE_SHARE,
    rng=None,
    max_samples: int | None = None,
    **options,
):
    """Amin et al. (2019), Algorithm 1: an ε-DP rank-``k`` estimate of ``A =
    X^T X / n``.

    ``X`` is ``n x d`` with rows of norm at most 1 (checked); ``options`` go to
    :func:`amin_covariance_from_second_moment` (``vector_split``, ``beta``,
    ``return_parts``).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most 1 (checked; one just above 1, within
        the float tolerance, is scaled to 1; with ``max_samples`` every row
        is shrunk for N rows: :mod:`dppca.mechanisms.padding`).
    k : int
        The rank of the estimate.
    epsilon : float
        The total ε (pure DP), > 0.
    eigenvalue_share : float, default=0.5
        The share of ε spent on the eigenvalues; the rest goes to the
        eigenvectors.
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness; ``None`` draws fresh entropy (never a fixed seed).
    max_samples : int or None, default=None
        ``None``: replace-one neighbours, n public. An integer N, a public
        cap: add/remove-one neighbours, n private, for data sets of 1 to N
        rows (more are refused before anything random is drawn). The
        release is made from XᵀX/N (X padded with zero rows) with n = N:
        Laplace noise on its top-k eigenvalues calibrated at n = N (adding a
        row moves them by at most 1/N in ℓ₁, within the replace-one 2/N)
        and the vector draws of :func:`amin_subspace` with a cap
        (:mod:`dppca.mechanisms.padding`).
    **options
        ``vector_split``, ``beta``, ``return_parts``: see
        :func:`amin_covariance_from_second_moment`.

    Returns
    -------
    Released of shape (n_features, n_features)
        The rank-k estimate of ``A``, with its guarantee record (or its parts,
        with ``return_parts=True``). With ``max_samples=N`` it estimates
        XᵀX/N, and n is not released: to estimate XᵀX/n, multiply it (or
        its eigenvalues) by N/max(1, n̂) for a count n̂ released by
        ``dppca.privacy.private_bounds.private_row_count`` (at its own ε,
        composed with this release; post-processing).
    """
    if max_samples is not None:  # public values, before any draw
        check_public_concentration(
            check_cap("amin_covariance", max_samples), check_epsilon(epsilon)
        )
    X = check_data(X)
    A, n = second_moment_for(
        "amin_covariance", X, max_samples, accept_sparse=False
    )
    out = amin_covariance_from_second_moment(
        A,
        n,
        k,
        epsilon=epsilon,
        eigenvalue_share=eigenvalue_share,
        rng=rng,
        **options,
    )
    return restated(out, max_samples)


# ------------------------------------------------------------------------------
# The declaration: Amin et al.'s subspace, once
# ------------------------------------------------------------------------------


def _run(A, n, k, epsilon, delta, rng, options):
    V = amin_subspace_from_second_moment(
        A, n, k, epsilon=epsilon, rng=rng, **options
    )
    return V, None, None


def _check_options(options, n, d, k, epsilon) -> dict:
    """Amin et al.'s ``mechanism_options`` checked from public values."""
    check_choice(options.get("method", "eigenbasis"), METHODS, "method")
    if options.get("vector_weights") is not None:
        check_vector_weights(options["vector_weights"], k)
    check_public_concentration(n, epsilon)
    return dict(options)


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="amin",
        person_level=(
            "Laplace noise on the eigenvalues (ℓ₁ change bounded by "
            "the nuclear norm of the change of A) and exponential "
            "mechanisms with linear scores uᵀ P A P u"
        ),
        label="Amin et al.",
        notion="pure",
        uses_delta=False,
        uses_epsilon=True,
        run=_run,
        guarantee=lambda n, d, k, epsilon, delta, options: amin_guarantee(
            n, d, k, epsilon
        ),
        privacy=PRIVACY["amin_subspace"],
        options_of=amin_subspace_from_second_moment,
        check_options=_check_options,
        guide_rank=110,
        proof="no: float64 sampler (opt in)",
    ),
)
