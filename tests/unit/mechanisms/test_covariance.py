"""Amin et al. (2019) iterative eigenvector sampling: exact law in low dimension, replace-one
sensitivities, exact privacy loss on worst-case neighbours, validation and seeding."""

import numpy as np
import pytest

import dppca
from dppca.book.diagnostics.bingham import importance_expectation
from dppca.linalg import second_moment
from dppca.mechanisms import covariance
from dppca.mechanisms.covariance import amin_covariance_from_second_moment
from dppca.privacy import circle_privacy_loss, sensitivity


def random_rows(n, d, rng):
    X = rng.standard_normal((n, d))
    return (
        X / np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(0, 1, (n, 1))
    )


# ---------------------------------------------------------------------------------------------
# The law of the released vectors
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("method", covariance.METHODS)
def test_first_vector_matches_importance_sampling(method):
    """u_1 ∝ exp(η u^T A u) on S^{d-1}: E[u_1 u_1^T] against importance sampling (d = 4)."""
    rng = np.random.default_rng(11)
    A = np.diag([0.5, 0.3, 0.15, 0.05])
    n, eps = 40, 0.3  # η = n ε / 2 = 6
    B = covariance.bingham_inverse_temperature(n, eps) * A
    exact, se_exact, _ = importance_expectation(
        B, 1, lambda Q: Q[:, :, 0] ** 2, 400_000, rng=rng
    )
    draws = 6000
    U = np.array(
        [
            covariance.iterative_eigenvectors(
                A, n, [eps], rng=rng, method=method
            )[:, 0]
            for _ in range(draws)
        ]
    )
    mean = (U**2).mean(0)
    se = (U**2).std(0) / np.sqrt(draws)
    z = np.abs(mean - exact) / np.sqrt(se**2 + se_exact**2)
    assert z.max() < 5.0, (mean, exact, z)


def _second_vector_exact(A, eta1, eta2, n_outer, rng, m=256):
    """E[(u_2)_j^2] for d = 3: outer expectation over u_1 by importance sampling from the
    uniform law, inner expectation over the circle u_1^⊥ by the trapezoid rule."""
    G = rng.standard_normal((n_outer, 3))
    U1 = G / np.linalg.norm(G, axis=1, keepdims=True)
    log_w = eta1 * np.einsum("mi,ij,mj->m", U1, A, U1)
    # orthonormal basis (a, b) of u_1^⊥
    helper = np.where(np.abs(U1[:, :1]) < 0.9, [[1.0, 0, 0]], [[0, 1.0, 0]])
    a = np.cross(U1, helper)
    a /= np.linalg.norm(a, axis=1, keepdims=True)
    b = np.cross(U1, a)
    t = np.linspace(0, 2 * np.pi, m, endpoint=False)
    circle = (
        np.cos(t)[None, :, None] * a[:, None, :]
        + np.sin(t)[None, :, None] * b[:, None, :]
    )  # (n_outer, m, 3)
    log_c = eta2 * np.einsum("mti,ij,mtj->mt", circle, A, circle)
    weights = np.exp(log_c - log_c.max(1, keepdims=True))
    weights /= weights.sum(1, keepdims=True)
    inner = np.einsum("mt,mti->mi", weights, circle**2)
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    est = w @ inner
    se = np.sqrt((w**2) @ (inner - est) ** 2)
    return est, se


@pytest.mark.parametrize("method", covariance.METHODS)
def test_second_vector_matches_quadrature(method):
    """u_2 | u_1 ∝ exp(η_2 u^T A u) on the circle u_1^⊥ (d = 3, k = 2): E[u_2 u_2^T] exact."""
    rng = np.random.default_rng(12)
    A = np.diag([0.5, 0.35, 0.15])
    n, eps = 30, np.array([0.4, 0.6])
    etas = [covariance.bingham_inverse_temperature(n, e) for e in eps]
    exact, se_exact = _second_vector_exact(A, *etas, 60_000, rng, m=96)
    draws = 3000
    U2 = np.array(
        [
            covariance.iterative_eigenvectors(
                A, n, eps, rng=rng, method=method
            )[:, 1]
            for _ in range(draws)
        ]
    )
    mean = (U2**2).mean(0)
    se = (U2**2).std(0) / np.sqrt(draws)
    z = np.abs(mean - exact) / np.sqrt(se**2 + se_exact**2)
    assert z.max() < 5.0, (mean, exact, z)


def test_two_methods_agree_in_higher_dimension():
    """d = 12, k = 3, non-diagonal A: both exact implementations give the same E[V V^T]."""
    rng = np.random.default_rng(13)
    X = random_rows(60, 12, rng)
    X[:, :3] *= 3.0
    X /= max(1.0, np.linalg.norm(X, axis=1).max())
    A = second_moment(X)
    draws = 1000
    means = []
    for method in covariance.METHODS:
        P = np.zeros((draws, 12))
        for t in range(draws):
            V = covariance.amin_subspace_from_second_moment(
                A, 60, 3, epsilon=0.5, rng=rng, method=method
            )
            P[t] = np.sum(V**2, axis=1)  # diagonal of V V^T
        means.append((P.mean(0), P.std(0) / np.sqrt(draws)))
    (m1, s1), (m2, s2) = means
    assert (np.abs(m1 - m2) / np.sqrt(s1**2 + s2**2 + 1e-18)).max() < 5.0


def test_release_is_orthonormal_and_seeded():
    rng = np.random.default_rng(3)
    X = random_rows(200, 9, rng)
    for method in covariance.METHODS:
        V1 = covariance.amin_subspace(X, 4, epsilon=1.0, rng=5, method=method)
        V2 = covariance.amin_subspace(X, 4, epsilon=1.0, rng=5, method=method)
        assert np.array_equal(V1, V2)
        np.testing.assert_allclose(V1.T @ V1, np.eye(4), atol=1e-12)
    C1 = covariance.amin_covariance(X, 3, epsilon=1.0, rng=7)
    C2 = covariance.amin_covariance(X, 3, epsilon=1.0, rng=7)
    assert np.array_equal(C1, C2)
    assert not np.array_equal(
        C1, covariance.amin_covariance(X, 3, epsilon=1.0, rng=8)
    )


def test_covariance_release_parts():
    rng = np.random.default_rng(4)
    X = random_rows(500, 6, rng)
    C, lam, V = covariance.amin_covariance(
        X, 3, epsilon=2.0, rng=rng, return_parts=True
    )
    np.testing.assert_allclose(C, (V * lam) @ V.T)
    assert np.all(np.diff(lam) <= 0) and lam.min() >= 0 and lam.max() <= 1
    assert np.linalg.matrix_rank(C) <= 3


# ---------------------------------------------------------------------------------------------
# Budget and sensitivities under replace-one
# ---------------------------------------------------------------------------------------------
def test_budget_split_adds_up():
    eps0, eps_v = covariance.split_budget(0.8, 4, 0.5)
    assert eps0 + eps_v == pytest.approx(0.8)
    w = covariance.adaptive_vector_weights([0.5, 0.2, 0.1, 0.0], 1000, 10, eps0)
    assert w.sum() == pytest.approx(1.0) and np.all(np.diff(w) <= 0)


def test_top_eigenvalue_sensitivity_is_attained_and_never_exceeded():
    rng = np.random.default_rng(5)
    n, d = 20, 4
    worst = {1: 0.0, 2: 0.0, 3: 0.0}
    for _ in range(2000):
        X = random_rows(n, d, rng)
        Xp = X.copy()
        Xp[rng.integers(n)] = random_rows(1, d, rng)[0]
        la = np.linalg.eigvalsh(second_moment(X))[::-1]
        lb = np.linalg.eigvalsh(second_moment(Xp))[::-1]
        for k in worst:
            worst[k] = max(worst[k], np.abs(la[:k] - lb[:k]).sum())
    for k, value in worst.items():
        assert value <= sensitivity.top_eigenvalues_l1_sensitivity(n, k) + 1e-12
    # the extremal pair: a row along e1 replaced by one along e2, order kept
    X = np.zeros((n, d))
    X[:, 0] = 1.0
    X[: n // 4, 0], X[: n // 4, 1] = 0.0, 1.0
    Xp = X.copy()
    Xp[-1] = [0.0, 1.0, 0.0, 0.0]
    la = np.linalg.eigvalsh(second_moment(X))[::-1]
    lb = np.linalg.eigvalsh(second_moment(Xp))[::-1]
    assert np.abs(la[:2] - lb[:2]).sum() == pytest.approx(2.0 / n)
    assert abs(la[0] - lb[0]) == pytest.approx(1.0 / n)


def _worst_pair_d2(n):
    """D: n - 1 rows e_1 and one row e_2; D': the row e_2 replaced by e_1."""
    X = np.zeros((n, 2))
    X[:, 0] = 1.0
    X[-1] = [0.0, 1.0]
    Xp = X.copy()
    Xp[-1] = [1.0, 0.0]
    return second_moment(X), second_moment(Xp)


def _circle_loss(A, Ap, eta):
    def log_density(M):
        return lambda t: (
            eta
            * (
                M[0, 0] * np.cos(t) ** 2
                + 2 * M[0, 1] * np.cos(t) * np.sin(t)
                + M[1, 1] * np.sin(t) ** 2
            )
        )

    return circle_privacy_loss(log_density(A), log_density(Ap))


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 3.0])
def test_exact_privacy_loss_on_worst_case_neighbours(epsilon):
    """d = 2, k = 1: the released vector's exact privacy loss never exceeds ε and comes close to
    it on the worst-case pair once n ε is large (the factor 2 of replace-one is needed)."""
    rng = np.random.default_rng(6)
    n = 400
    eta = covariance.bingham_inverse_temperature(n, epsilon)
    losses = []
    for _ in range(200):
        X = random_rows(n, 2, rng)
        Xp = X.copy()
        Xp[rng.integers(n)] = random_rows(1, 2, rng)[0]
        losses.append(_circle_loss(second_moment(X), second_moment(Xp), eta))
    A, Ap = _worst_pair_d2(n)
    worst = _circle_loss(A, Ap, eta)
    assert max(losses) <= epsilon * (1 + 1e-9)
    assert worst <= epsilon * (1 + 1e-9)
    if n * epsilon >= 400:
        assert worst >= 0.95 * epsilon
    # with η = n ε (the add/remove monotone calibration) the same pair exceeds ε
    assert _circle_loss(A, Ap, 2 * eta) > 1.5 * epsilon or n * epsilon < 400


# ---------------------------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------------------------
def test_validation():
    rng = np.random.default_rng(7)
    X = random_rows(50, 5, rng)
    with pytest.raises(ValueError):
        covariance.amin_subspace(X * 2, 2, epsilon=1.0)
    with pytest.raises(ValueError):
        covariance.amin_subspace(X, 5, epsilon=1.0)
    with pytest.raises(ValueError):
        covariance.amin_subspace(X, 2, epsilon=-1.0)
    with pytest.raises(ValueError):
        covariance.amin_subspace(X, 2, epsilon=1.0, vector_weights=[1.0, 0.0])
    with pytest.raises(ValueError):
        covariance.amin_subspace(X, 2, epsilon=1.0, method="gibbs")
    with pytest.raises(ValueError):
        covariance.amin_covariance(X, 2, epsilon=1.0, eigenvalue_share=1.0)
    with pytest.raises(ValueError):
        covariance.amin_covariance(X, 2, epsilon=1.0, vector_split="other")
    with pytest.raises(TypeError):
        covariance.amin_subspace(X, 2.5, epsilon=1.0)


def test_safe_noise_puts_the_eigenvalues_on_a_grid():
    """noise='safe': the eigenvalues are rounded to a power-of-two grid and get
    exact discrete Laplace noise, so the released values are grid multiples
    (float Laplace values almost never are: each is a multiple of 2**-50 with
    probability about 1/16), reproducible under a seed."""
    rng = np.random.default_rng(8)
    X = dppca.validation.normalize_rows(
        rng.standard_normal((400, 6)) * np.arange(6, 0, -1)
    )
    A = dppca.linalg.second_moment(X)
    runs = [
        amin_covariance_from_second_moment(
            A, 400, 3, epsilon=1.0, rng=seed, return_parts=True, noise="safe"
        )
        for seed in (0, 0, 1)
    ]
    (_, values, V), (_, again, _), (_, other, _) = runs
    assert np.array_equal(values, again) and not np.array_equal(values, other)
    for v in (values, other):
        assert np.all(v * 2.0**50 == np.round(v * 2.0**50))
    _, float_values, _ = amin_covariance_from_second_moment(
        A, 400, 3, epsilon=1.0, rng=0, return_parts=True, noise="float"
    )
    assert not np.all(
        float_values * 2.0**50 == np.round(float_values * 2.0**50)
    )


@pytest.mark.filterwarnings(
    "ignore::dppca.privacy.guarantees.UnprovedGuaranteeWarning"
)
def test_k_near_d_on_rank_deficient_data():
    """k = d - 1 and d - 2 on rows confined to a subspace (A of rank d - 3,
    as localization's one-hot blocks make it) at a large concentration: the
    late vector draws have more previous vectors than directions below the
    envelope; each release is orthonormal (this raised LinAlgError)."""
    rng = np.random.default_rng(5)
    d, n = 12, 50_000
    X = rng.standard_normal((n, d - 3)) @ rng.standard_normal((d - 3, d))
    X /= np.linalg.norm(X, axis=1).max()
    A = X.T @ X / n
    for k in (d - 1, d - 2):
        V = covariance.amin_subspace_from_second_moment(
            A, n, k, epsilon=1.0, rng=k
        )
        assert V.shape == (d, k)
        np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-10)


# ---------------------------------------------------------------------------------------------
# Add/remove neighbours: max_samples (issue 43, dppca.mechanisms.padding)
# ---------------------------------------------------------------------------------------------
@pytest.mark.filterwarnings(
    "ignore::dppca.privacy.guarantees.UnprovedGuaranteeWarning"
)
def test_a_cap_runs_amin_on_the_padded_moment():
    """``max_samples=N``: both releases are the ``*_from_second_moment``
    ones on the zero-padded ``S/N`` at ``n = N`` (same draws), every
    record (the three parts too) under the add/remove relation."""
    from dppca.linalg.clipped_sums import clipped_second_moment
    from dppca.privacy.guarantees import add_remove_relation

    rng = np.random.default_rng(0)
    X = random_rows(50, 4, rng)
    A = clipped_second_moment(X, 1.0, max_samples=200).matrix
    relation = add_remove_relation(200)
    V = dppca.amin_subspace(X, 2, epsilon=1.0, rng=3, max_samples=200)
    assert np.array_equal(
        V,
        covariance.amin_subspace_from_second_moment(
            A, 200, 2, epsilon=1.0, rng=3
        ),
    )
    assert V.guarantee.neighbours == relation
    parts = dppca.amin_covariance(
        X, 2, epsilon=1.0, rng=3, max_samples=200, return_parts=True
    )
    expected = amin_covariance_from_second_moment(
        A, 200, 2, epsilon=1.0, rng=3, return_parts=True
    )
    for part, same in zip(parts, expected, strict=True):
        assert np.array_equal(part, same)
        assert part.guarantee.neighbours == relation
    plain = dppca.amin_covariance(X, 2, epsilon=1.0, rng=3)
    assert "replace-one" in plain.guarantee.neighbours


def test_a_cap_refuses_more_rows_and_a_concentration_before_any_draw():
    rng = np.random.default_rng(1)
    X = random_rows(50, 4, rng)
    generator = np.random.default_rng(2)
    state = generator.bit_generator.state
    for release in (dppca.amin_subspace, dppca.amin_covariance):
        with pytest.raises(ValueError, match="more than max_samples = 49"):
            release(X, 2, epsilon=1.0, rng=generator, max_samples=49)
        with pytest.raises(ValueError, match="MAX_CONCENTRATION"):
            release(X, 2, epsilon=1e6, rng=generator, max_samples=10**6)
    assert generator.bit_generator.state == state
