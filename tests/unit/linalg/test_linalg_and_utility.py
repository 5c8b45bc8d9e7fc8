import numpy as np
import pytest
from scipy import stats

import dppca


def spiked_matrix(d=6, seed=0):
    rng = np.random.default_rng(seed)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    vals = np.linspace(1.0, 0.1, d)
    return (Q * vals) @ Q.T, Q, vals


def test_second_moment_matches_definition():
    X = dppca.validation.normalize_rows(
        np.random.default_rng(0).standard_normal((30, 4))
    )
    A = dppca.linalg.second_moment(X)
    expected = sum(np.outer(x, x) for x in X) / 30
    np.testing.assert_allclose(A, expected, atol=1e-14)


def test_second_moment_validates():
    with pytest.raises(ValueError, match="norm > 1"):
        dppca.linalg.second_moment(np.full((3, 2), 5.0))


def test_top_k_eigh_and_rank_k_approximation():
    A, Q, vals = spiked_matrix()
    top_vals, V = dppca.linalg.top_k_eigh(A, 2)
    np.testing.assert_allclose(top_vals, vals[:2])
    np.testing.assert_allclose(np.abs(V.T @ Q[:, :2]), np.eye(2), atol=1e-10)
    approx = dppca.linalg.rank_k_approximation(A, 2)
    np.testing.assert_allclose(
        approx, (Q[:, :2] * vals[:2]) @ Q[:, :2].T, atol=1e-12
    )
    # Eckart-Young: the error equals the discarded spectrum
    np.testing.assert_allclose(
        np.linalg.norm(A - approx), np.linalg.norm(vals[2:])
    )


def test_haar_subspace_is_orthonormal_and_reproducible():
    V = dppca.linalg.haar_subspace(7, 3, rng=5)
    np.testing.assert_allclose(V.T @ V, np.eye(3), atol=1e-12)
    np.testing.assert_array_equal(V, dppca.linalg.haar_subspace(7, 3, rng=5))


def test_haar_subspace_mean_captured_variance():
    """E[q_F(V)] = tr(A) k / d for a Haar-random V; checked with a 99.9% confidence bound."""
    A, _, _ = spiked_matrix(d=6)
    rng = np.random.default_rng(11)
    samples = np.array(
        [
            dppca.captured_variance(A, dppca.linalg.haar_subspace(6, 2, rng))
            for _ in range(4000)
        ]
    )
    expected = np.trace(A) * 2 / 6
    half_width = (
        stats.norm.ppf(0.9995) * samples.std(ddof=1) / np.sqrt(samples.size)
    )
    assert abs(samples.mean() - expected) < half_width


def test_haar_first_coordinate_distribution():
    """For k = 1, x_1^2 of a uniform unit vector in R^d is Beta(1/2, (d-1)/2)."""
    rng = np.random.default_rng(3)
    x1sq = np.array(
        [dppca.linalg.haar_subspace(5, 1, rng)[0, 0] ** 2 for _ in range(3000)]
    )
    assert stats.kstest(x1sq, stats.beta(0.5, 2.0).cdf).pvalue > 1e-3


def test_utility_measures_on_hand_computed_cases():
    A = np.diag([3.0, 2.0, 1.0])
    e = np.eye(3)
    assert dppca.captured_variance(A, e[:, :2]) == pytest.approx(5.0)
    assert dppca.captured_variance(A, e[:, [2]]) == pytest.approx(1.0)
    assert dppca.utility.captured_variance_ratio(
        A, e[:, [0, 2]]
    ) == pytest.approx(4.0 / 5.0)
    v = np.array([1.0, 1.0, 0.0]) / np.sqrt(2)
    assert dppca.utility.top_vector_correlation(v, e[:, 0]) == pytest.approx(
        1 / np.sqrt(2)
    )
    assert dppca.utility.top_vector_correlation(
        -e[:, 0], e[:, 0]
    ) == pytest.approx(1.0)
    # orthogonal lines: ||P - Q||_F = sqrt(2); same plane with another basis: 0
    assert dppca.subspace_distance(e[:, [0]], e[:, [1]]) == pytest.approx(
        np.sqrt(2)
    )
    rot = np.array([[np.cos(0.3), -np.sin(0.3)], [np.sin(0.3), np.cos(0.3)]])
    assert dppca.subspace_distance(e[:, :2], e[:, :2] @ rot) == pytest.approx(
        0.0, abs=1e-12
    )
    # one principal angle theta: distance sqrt(2) sin(theta)
    w = np.array([np.cos(0.4), np.sin(0.4), 0.0])
    assert dppca.subspace_distance(e[:, [0]], w[:, None]) == pytest.approx(
        np.sqrt(2) * np.sin(0.4)
    )


def test_utility_measures_reject_bad_input():
    A = np.diag([3.0, 2.0, 1.0])
    with pytest.raises(ValueError, match="orthonormal"):
        dppca.captured_variance(A, np.ones((3, 1)))
    with pytest.raises(ValueError, match="rows"):
        dppca.captured_variance(A, np.eye(4)[:, :1])
    with pytest.raises(ValueError, match="unit vector"):
        dppca.utility.top_vector_correlation(np.ones(3), np.eye(3)[0])


def test_pca_recovers_planted_subspace():
    rng = np.random.default_rng(2)
    basis = np.linalg.qr(rng.standard_normal((8, 2)))[0]
    X = rng.standard_normal(
        (2000, 2)
    ) @ basis.T * 3 + 0.05 * rng.standard_normal((2000, 8))
    X = dppca.validation.scale_to_unit_ball(X)
    V = dppca.linalg.pca(X, 2)
    assert dppca.subspace_distance(V, basis) < 0.05


def test_symmetrize_upper_roundtrip():
    M = dppca.linalg.symmetrize_upper(np.arange(6.0), 3)
    np.testing.assert_array_equal(M, M.T)
    np.testing.assert_array_equal(M[np.triu_indices(3)], np.arange(6.0))


def test_sin_theta_is_the_sine_of_the_largest_principal_angle():
    from scipy.linalg import subspace_angles

    from dppca import sin_theta, subspace_distance
    from dppca.linalg import haar_subspace

    rng = np.random.default_rng(7)
    for d, k_v, k_u in [(6, 2, 2), (10, 4, 3), (5, 1, 1)]:
        V, U = haar_subspace(d, k_v, rng), haar_subspace(d, k_u, rng)
        angles = subspace_angles(V, U)  # scipy: largest first
        assert sin_theta(V, U) == pytest.approx(np.sin(angles[0]), rel=1e-10)
        if k_v == k_u:
            fro = np.sqrt(np.sum(np.sin(angles) ** 2))
            assert sin_theta(V, U, "fro") == pytest.approx(fro, rel=1e-10)
            assert subspace_distance(V, U) == pytest.approx(
                np.sqrt(2) * fro, rel=1e-10
            )
    assert sin_theta(V, V) < 1e-12
    with pytest.raises(ValueError, match="ambient"):
        sin_theta(np.eye(3)[:, :1], np.eye(4)[:, :1])
