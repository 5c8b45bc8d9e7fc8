"""Tests for dppca.mechanisms.gaussian_approx (Mangoubi–Vishnoi mechanism) and its
bounds."""

import numpy as np
import pytest
from scipy import stats

from dppca.book.bounds import gaussian_approx as bounds
from dppca.mechanisms import gaussian_approx as ga
from dppca.privacy import analytic_gaussian_sigma


def test_mahalanobis_distance_matches_frobenius_over_two():
    rng = np.random.default_rng(1)
    for _ in range(5):
        A = rng.standard_normal((6, 6))
        D = A + A.T
        assert ga.mahalanobis_distance(D, 0.7) == pytest.approx(
            np.linalg.norm(D) / 1.4, rel=1e-12
        )


def test_noise_covariance_is_frobenius_isotropic():
    """Empirical variances of G + G^T: 4 sigma^2 on the diagonal, 2 sigma^2
    off it."""
    rng = np.random.default_rng(2)
    N = np.stack([ga.goe_noise(4, 1.5, rng) for _ in range(20000)])
    var = N.var(axis=0)
    se = var * np.sqrt(2 / N.shape[0]) * 4.5
    expected = np.where(np.eye(4, dtype=bool), 4 * 1.5**2, 2 * 1.5**2)
    assert np.all(np.abs(var - expected) < se)


def test_calibration_against_independent_computation():
    """sigma solves the Balle–Wang condition, computed here from scratch with
    scipy."""
    for relation, n, sens in (
        ("rank_one_update", None, 1.0),
        ("replace_one", 100, np.sqrt(2) / 100),
    ):
        eps, delta = 0.5, 1e-5
        s = ga.noise_sigma(eps, delta, relation, n)
        dist = sens / (
            2 * s
        )  # Mahalanobis distance of the worst-case neighbours
        independent = stats.norm.cdf(dist / 2 - eps / dist) - np.exp(
            eps
        ) * stats.norm.cdf(-dist / 2 - eps / dist)
        assert independent == pytest.approx(delta, rel=1e-6)
        assert s == pytest.approx(
            analytic_gaussian_sigma(sens / 2, eps, delta), rel=1e-12
        )


def test_replace_one_worst_case_is_orthogonal_unit_rows():
    rng = np.random.default_rng(3)
    n = 10
    worst = 0.0
    for _ in range(2000):
        v, w = rng.standard_normal((2, 5))
        v /= max(1, np.linalg.norm(v))
        w /= max(1, np.linalg.norm(w))
        worst = max(worst, np.linalg.norm(np.outer(v, v) - np.outer(w, w)) / n)
    assert worst <= ga.frobenius_sensitivity("replace_one", n) + 1e-12
    e1, e2 = np.eye(5)[:2]
    assert np.linalg.norm(
        np.outer(e1, e1) - np.outer(e2, e2)
    ) / n == pytest.approx(ga.frobenius_sensitivity("replace_one", n))


def test_privacy_loss_distribution_on_worst_case():
    """L ~ N(eta, 2 eta), eta = ||D||_F^2 / (8 sigma^2), for the calibrated
    sigma."""
    rng = np.random.default_rng(4)
    d = 5
    s = ga.noise_sigma(1.0, 1e-3)
    x = np.ones(d) / np.sqrt(d)
    M = np.diag(np.arange(d, dtype=float))
    G = rng.standard_normal((40000, d, d)) * s
    L = ga.privacy_loss(
        M + G + np.swapaxes(G, -1, -2), M, M + np.outer(x, x), s
    )
    eta = 1 / (8 * s**2)
    assert abs(L.mean() - eta) < 4.5 * np.sqrt(2 * eta / L.size)
    assert abs(L.var() - 2 * eta) < 4.5 * 2 * eta * np.sqrt(2 / L.size)


def test_mechanism_outputs_and_spectrum():
    rng = np.random.default_rng(5)
    M = np.diag([5.0, 3.0, 1.0, 0.0])
    lam = np.array([2.0, 1.0, 0.0, 0.0])
    H = ga.gaussian_matrix_approximation(
        M, lam, epsilon=1.0, delta=1e-5, rng=rng
    )
    assert np.allclose(H, H.T)
    assert np.allclose(np.sort(np.linalg.eigvalsh(H)), np.sort(lam), atol=1e-10)
    X = rng.standard_normal((300, 6))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    V = ga.gaussian_subspace_recovery(X, 2, epsilon=1.0, delta=1e-5, rng=rng)
    assert V.shape == (6, 2) and np.allclose(V.T @ V, np.eye(2))
    R = ga.rank_k_covariance_approximation(
        X, 2, epsilon=1.0, delta=1e-5, rng=rng
    )
    assert np.linalg.matrix_rank(R) == 2


def test_seeded_reproducibility():
    X = np.eye(5)[:4] * 0.5
    a = ga.gaussian_subspace_recovery(X, 2, epsilon=1.0, delta=1e-5, rng=7)
    b = ga.gaussian_subspace_recovery(X, 2, epsilon=1.0, delta=1e-5, rng=7)
    assert np.array_equal(a, b)


@pytest.mark.parametrize(
    "Lambda, message",
    [
        (np.array([1.0, 2.0, 0.0]), "sorted"),
        (np.array([1.0, 0.0]), "length"),
        (np.array([1.0, np.nan, 0.0]), "NaN"),
        (np.ones((3, 1)), "length"),
    ],
)
def test_lambda_validation(Lambda, message):
    with pytest.raises(ValueError, match=message):
        ga.gaussian_matrix_approximation(
            np.eye(3), Lambda, epsilon=1.0, delta=1e-5, rng=0
        )


def test_bad_inputs():
    with pytest.raises(ValueError):
        ga.gaussian_matrix_approximation(
            np.array([[1.0, 2.0], [0.0, 1.0]]),
            [1.0, 0.0],
            epsilon=1.0,
            delta=1e-5,
        )
    with pytest.raises(ValueError):
        ga.noise_sigma(0.0, 1e-5)
    with pytest.raises(ValueError):
        ga.noise_sigma(1.0, 1.5)
    with pytest.raises(ValueError):
        ga.noise_sigma(1.0, 1e-5, relation="add_one")
    with pytest.raises(ValueError):
        ga.frobenius_sensitivity("replace_one")
    with pytest.raises(ValueError):
        ga.frobenius_sensitivity("rank_one_update", n=10)
    with pytest.raises(ValueError):
        ga.goe_noise(3, -1.0)
    X_bad = np.ones((4, 3))  # rows of norm sqrt(3) > 1
    with pytest.raises(ValueError):
        ga.gaussian_subspace_recovery(X_bad, 1, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError):
        ga.gaussian_subspace_recovery(
            np.eye(3) * 0.5, 3, epsilon=1.0, delta=1e-5
        )
    with pytest.raises(TypeError):
        ga.gaussian_subspace_recovery(
            np.eye(3) * 0.5, 1, epsilon=1.0, delta=1e-5, rng="seed"
        )


def test_sum_of_squares_prediction_small_noise():
    """Measured E||H - V Lambda V^T||^2 / prediction -> 1 at small noise
    (first-order exactness)."""
    sig = np.array([6.0, 4.0, 2.5, 1.0, 0.0])
    lam = np.array([3.0, 2.0, 0.0, 0.0, 0.0])
    s = 0.01
    err = ga.approximation_errors(np.diag(sig), lam, s, 4000, rng=8)
    ratio = err**2 / bounds.sum_of_squares_prediction(sig, lam, s)
    assert abs(ratio.mean() - 1) < 4 * ratio.std() / np.sqrt(ratio.size)


def test_bounds_shapes():
    sig = np.array([10.0, 8.0, 1.0, 0.0])
    lam = np.array([10.0, 8.0, 0.0, 0.0])
    # pairs: (1,2): 1; (1,3): 100/81; (1,4): 1; (2,3): 64/49; (2,4): 1
    expected = 4 * (1 + 100 / 81 + 1 + 64 / 49 + 1)
    assert bounds.sum_of_squares_prediction(sig, lam, 1.0) == pytest.approx(
        expected
    )
    with pytest.raises(ValueError):
        bounds.sum_of_squares_prediction(
            np.array([1.0, 1.0]), np.array([1.0, 0.0]), 1.0
        )
    assert bounds.dttz_covariance_bound(4, 16, 1.0) == pytest.approx(16.0)
    assert bounds.mv_covariance_corollary(sig, 2, 1.0) == pytest.approx(
        np.sqrt(8) * 8 / 7
    )
    assert bounds.weyl_gap_constant() == pytest.approx(8 * np.sqrt(2))
