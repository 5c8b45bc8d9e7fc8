"""Tests for dppca.samplers.dyson: SDE coefficients against finite differences of the
exact simulation,
strong convergence on a shared Brownian path, and input validation."""

import numpy as np
import pytest

from dppca.samplers import dyson

SIGMA = np.array([0.0, 1.5, 3.5, 5.0, 8.0])


@pytest.fixture(scope="module")
def one_step():
    """Exact one-step samples of M + B(h) from M = diag(SIGMA)."""
    rng = np.random.default_rng(11)
    h, n = 1e-4, 40000
    dB = dyson.brownian_increments(SIGMA.size, 1, h, rng, batch=(n,))[0]
    g, U = np.linalg.eigh(np.diag(SIGMA) + dB)
    U = U * np.sign(np.diagonal(U, axis1=1, axis2=2))[:, None, :]
    return h, dB, g, U


def _within(samples, value, z=4.5):
    return abs(samples.mean() - value) < z * samples.std(ddof=1) / np.sqrt(
        samples.size
    )


def test_eigenvalue_drift_against_finite_differences(one_step):
    h, dB, g, _ = one_step
    fd = (g - SIGMA - np.diagonal(dB, axis1=1, axis2=2)) / h
    predicted = dyson.eigenvalue_drift(SIGMA)
    for i in range(SIGMA.size):
        assert _within(fd[:, i], predicted[i]), i


def test_eigenvalue_diffusion_against_finite_differences(one_step):
    h, _, g, _ = one_step
    for i in range(SIGMA.size):
        assert _within(
            (g[:, i] - SIGMA[i]) ** 2 / h, dyson.EIGENVALUE_VARIANCE_RATE
        ), i
    cross = (g[:, 0] - SIGMA[0]) * (g[:, 1] - SIGMA[1]) / h
    assert _within(cross, 0.0)


def test_eigenvector_ito_correction_and_diffusion(one_step):
    h, _, _, U = one_step
    inv = 1 / (SIGMA[:, None] - SIGMA[None, :] + np.eye(SIGMA.size)) - np.eye(
        SIGMA.size
    )
    for i in range(SIGMA.size):
        correction = -dyson.EIGENVECTOR_ITO_CORRECTION * np.sum(inv[i] ** 2)
        assert _within((U[:, i, i] - 1) / h, correction), i
        j = (i + 1) % SIGMA.size
        rate = dyson.OFF_DIAGONAL_VARIANCE_RATE / (SIGMA[i] - SIGMA[j]) ** 2
        assert _within(U[:, j, i] ** 2 / h, rate), (i, j)


def test_eigenvalue_drift_matches_direct_sum():
    rng = np.random.default_rng(0)
    g = np.sort(rng.standard_normal(300)) * 5
    direct = np.array(
        [2 * np.sum(1 / (g[i] - np.delete(g, i))) for i in range(g.size)]
    )
    assert np.allclose(
        dyson.eigenvalue_drift(g), direct, rtol=1e-10, atol=1e-10
    )
    assert np.allclose(
        dyson.EigenvalueDrift(300, block=7)(g),
        direct / 2,
        rtol=1e-10,
        atol=1e-10,
    )


def test_exact_path_is_sorted_and_sde_single_step_close():
    rng = np.random.default_rng(1)
    M = np.diag(SIGMA * 3)
    inc = dyson.brownian_increments(5, 4, 1e-4, rng)
    g, U = dyson.exact_path(M, inc)
    assert g.shape == (5, 5) and np.all(np.diff(g, axis=-1) > 0)
    assert np.allclose(np.swapaxes(U, -1, -2) @ U, np.eye(5), atol=1e-10)
    gs, Us = dyson.sde_path(M, inc, 1e-4, "milstein")
    assert np.abs(gs - g[-1]).max() < 1e-4


def _strong_order(scheme, rng):
    d, T, n_fine, paths = 4, 0.1, 2**10, 40
    M = np.diag(np.arange(d) * 3.0)
    inc = dyson.brownian_increments(d, n_fine, T / n_fine, rng, batch=(paths,))
    g_exact, _ = dyson.exact_path(M, inc, store=False)
    steps = 2 ** np.arange(3, 11)
    errors = np.array(
        [
            np.abs(
                dyson.sde_path(
                    M, dyson.coarsen(inc, n_fine // n), T / n, scheme
                )[0]
                - g_exact
            ).max(axis=-1)
            for n in steps
        ]
    )
    dts = np.log(T / steps)
    slope = np.polyfit(dts, np.log(errors.mean(axis=1)), 1)[0]
    boot = [
        np.polyfit(
            dts,
            np.log(errors[:, rng.integers(0, paths, paths)].mean(axis=1)),
            1,
        )[0]
        for _ in range(400)
    ]
    return slope, np.quantile(boot, [0.0005, 0.9995])


@pytest.mark.parametrize("scheme, order", [("euler", 0.5), ("milstein", 1.0)])
def test_strong_convergence_order(scheme, order):
    slope, (low, high) = _strong_order(scheme, np.random.default_rng(2))
    assert low <= order <= high, (scheme, slope, low, high)


def test_eigenvalue_path_law_at_short_time():
    """In-law SDE: mean and variance of gamma(T) - sigma match the exact ones
    to first order."""
    rng = np.random.default_rng(3)
    init = SIGMA * 4
    T = 1e-3
    finals = np.array(
        [dyson.eigenvalue_path(init, T, 4, rng)[1][-1] for _ in range(3000)]
    )
    incr = finals - init
    mean_pred = dyson.eigenvalue_drift(init) * T
    for i in range(init.size):
        se = incr[:, i].std(ddof=1) / np.sqrt(incr.shape[0])
        assert abs(incr[:, i].mean() - mean_pred[i]) < 4.5 * se
        assert abs(incr[:, i].var() / T - 4.0) < 4.5 * 4.0 * np.sqrt(
            2 / incr.shape[0]
        )


def test_eigenvalue_path_splits_keep_order():
    rng = np.random.default_rng(4)
    times, gammas, splits = dyson.eigenvalue_path(
        [0.0, 1e-3, 1.0], 0.5, 10, rng, store_every=1
    )
    assert splits > 0 and times.size == 11
    assert np.all(np.diff(gammas, axis=-1) > 0)


def test_quadratic_variation_rate_formula():
    g = np.array([0.0, 1.0, 3.0])
    lam = np.array([0.0, 0.0, 2.0])
    # pairs with lambda differing: (0,2): 4/9, (1,2): 4/4 -> 4 * (4/9 + 1)
    assert dyson.quadratic_variation_rate(g, lam) == pytest.approx(
        4 * (4 / 9 + 1)
    )


def test_semicircle_cdf():
    assert dyson.semicircle_cdf(0.0, 2.0) == pytest.approx(0.5)
    assert dyson.semicircle_cdf(2.0, 2.0) == pytest.approx(1.0)
    assert dyson.semicircle_radius(8, 0.5) == pytest.approx(2 * np.sqrt(8))


def test_bad_inputs():
    with pytest.raises(ValueError):
        dyson.brownian_increments(1, 3, 0.1)
    with pytest.raises(ValueError):
        dyson.brownian_increments(3, 0, 0.1)
    with pytest.raises(ValueError):
        dyson.brownian_increments(3, 3, -0.1)
    with pytest.raises(ValueError):
        dyson.coarsen(np.zeros((6, 2, 2)), 4)
    with pytest.raises(ValueError):
        dyson.sde_path(
            np.eye(3), np.zeros((2, 3, 3)), 0.1
        )  # repeated eigenvalues
    with pytest.raises(ValueError):
        dyson.sde_path(
            np.diag([0.0, 1.0, 2.0]), np.zeros((2, 3, 3)), 0.1, scheme="rk4"
        )
    with pytest.raises(ValueError):
        dyson.exact_path(np.eye(3), np.zeros((2, 4, 4)))
    with pytest.raises(ValueError):
        dyson.eigenvalue_path([1.0, 1.0], 1.0, 10)
    with pytest.raises(ValueError):
        dyson.eigenvalue_path([1.0, np.inf], 1.0, 10)
    with pytest.raises(ValueError):
        dyson.eigenvalue_path([0.0, 1.0], 0.0, 10)
