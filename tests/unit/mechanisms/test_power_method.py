import numpy as np
import pytest
import scipy.sparse
from scipy import stats

import dppca
from dppca.mechanisms import power_method as pm
from dppca.privacy import (
    analytic_gaussian_delta,
    composed_gaussian_sigma,
    delta_from_privacy_losses,
    gaussian_zcdp_rho,
    zcdp_epsilon,
    zcdp_rho_for,
)
from dppca.privacy.sensitivity import power_step_sensitivity


def _spiked_rows(n, d, top, rng):
    scales = np.full(d, 0.2)
    scales[: len(top)] = top
    return dppca.validation.normalize_rows(rng.standard_normal((n, d)) * scales)


# --- calibration ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "eps, delta", [(0.1, 1e-6), (1.0, 1e-5), (5.0, 1e-3), (0.5, 0.2)]
)
def test_zcdp_closed_form_inverts_the_conversion(eps, delta):
    rho = zcdp_rho_for(eps, delta)
    assert zcdp_epsilon(rho, delta) == pytest.approx(eps, rel=1e-12)
    # a larger rho spends more than eps
    assert zcdp_epsilon(1.01 * rho, delta) > eps


@pytest.mark.parametrize("calibration", ["zcdp", "gdp"])
def test_run_sigma_spends_exactly_the_budget(calibration):
    n, L, eps, delta = 1000, 12, 0.7, 1e-6
    sigma = pm.noisy_power_sigma(n, 3, eps, delta, L, calibration)
    sens = np.sqrt(2) / n
    if calibration == "zcdp":
        rho = L * gaussian_zcdp_rho(sens, sigma)
        assert zcdp_epsilon(rho, delta) == pytest.approx(eps, rel=1e-10)
    else:  # the L-fold composition is one Gaussian mechanism of sensitivity √L Δ
        assert analytic_gaussian_delta(
            sigma, np.sqrt(L) * sens, eps
        ) == pytest.approx(delta, rel=1e-6)
    # block size 1: sensitivity 1/n, hence σ smaller by √2
    assert pm.noisy_power_sigma(
        n, 1, eps, delta, L, calibration
    ) == pytest.approx(sigma / np.sqrt(2))


def test_calibrations_against_dp_accounting():
    """RDP (tighter than the zCDP conversion) must certify at most ε for the zCDP σ; the PLD
    accountant must find ε for the exact (GDP) σ."""
    dp_accounting = pytest.importorskip("dp_accounting")
    from dp_accounting import pld, rdp

    n, L, eps, delta = 500, 15, 1.0, 1e-6
    sens = np.sqrt(2) / n
    for calibration in ("zcdp", "gdp"):
        sigma = composed_gaussian_sigma(sens, L, eps, delta, calibration)
        event = dp_accounting.SelfComposedDpEvent(
            dp_accounting.GaussianDpEvent(sigma / sens), L
        )
        rdp_eps = rdp.RdpAccountant().compose(event).get_epsilon(delta)
        pld_eps = (
            pld.PLDAccountant(value_discretization_interval=1e-4)
            .compose(event)
            .get_epsilon(delta)
        )
        if calibration == "zcdp":
            assert rdp_eps <= eps * (1 + 1e-9)
            assert (
                rdp_eps > 0.8 * eps
            )  # the zCDP conversion is not wildly loose
            assert pld_eps < 0.9 * eps  # ... but exact accounting finds slack
        else:  # exact: PLD agrees; RDP, a bound, must find more than ε
            assert pld_eps == pytest.approx(eps, rel=5e-3)
            assert rdp_eps > eps


def test_zcdp_sigma_is_never_below_the_exact_one():
    for L in (1, 5, 40):
        for eps, delta in [(0.1, 1e-6), (1.0, 1e-3), (8.0, 1e-8)]:
            z = composed_gaussian_sigma(1.0, L, eps, delta, "zcdp")
            g = composed_gaussian_sigma(1.0, L, eps, delta, "gdp")
            assert g <= z


# --- sensitivity of one step ------------------------------------------------------------------


def test_step_sensitivity_is_attained_and_never_exceeded():
    rng = np.random.default_rng(0)
    d, n = 6, 7
    for k in (1, 2, 4):
        bound = power_step_sensitivity(n, k)
        worst = 0.0
        for _ in range(3000):
            V = dppca.linalg.haar_subspace(d, k, rng)
            v, w = rng.standard_normal((2, d))
            v *= rng.random() ** (1 / d) / np.linalg.norm(v)
            w *= rng.random() ** (1 / d) / np.linalg.norm(w)
            # worst rows inside span(V) are the interesting ones: mix them in
            if rng.random() < 0.5:
                v = V @ rng.standard_normal(k)
                v /= np.linalg.norm(v)
            D = (np.outer(v, v) - np.outer(w, w)) / n
            worst = max(worst, np.linalg.norm(D @ V))
        assert worst <= bound * (1 + 1e-12)
        # attained: orthogonal unit rows in span(V) (k >= 2), or v = V, w = 0 (k = 1)
        V = dppca.linalg.haar_subspace(d, k, rng)
        v = V[:, 0]
        w = V[:, 1] if k >= 2 else np.zeros(d)
        D = (np.outer(v, v) - np.outer(w, w)) / n
        assert np.linalg.norm(D @ V) == pytest.approx(bound, rel=1e-12)


# --- the privacy loss of the implementation on worst-case neighbours --------------------------


def _neighbours(n, d, rng):
    shared = (
        dppca.validation.normalize_rows(rng.standard_normal((n - 1, d))) * 0.6
    )
    e = np.eye(d)
    X, X_prime = np.vstack([shared, e[0]]), np.vstack([shared, e[1]])
    return dppca.linalg.second_moment(X), dppca.linalg.second_moment(X_prime)


def test_one_step_privacy_loss_is_the_gaussian_one():
    """Block size p = d makes V_0 = I, so the step releases A + G: on orthogonal rows the
    privacy loss of Y is N(η, 2η), η = Δ²/(2σ²) with Δ = √2/n, for the package's own draws."""
    rng = np.random.default_rng(1)
    n, d, eps, delta = 5, 3, 1.0, 1e-3
    A, A_prime = _neighbours(n, d, rng)
    sigma = pm.noisy_power_sigma(n, d, eps, delta, 1)
    losses = []
    for _ in range(4000):
        run = pm.noisy_power_method_from_second_moment(
            A,
            n,
            1,
            epsilon=eps,
            delta=delta,
            n_iterations=1,
            block_size=d,
            rng=rng,
            diagnostics=True,
            noise="float",
        )
        V0, G = run.iterates[0], run.noise[0]
        np.testing.assert_array_equal(V0, np.eye(d))
        Y = A @ V0 + G
        losses.append(
            (np.sum((Y - A_prime) ** 2) - np.sum((Y - A) ** 2)) / (2 * sigma**2)
        )
    eta = (np.sqrt(2) / n) ** 2 / (2 * sigma**2)
    assert (
        stats.kstest(losses, stats.norm(eta, np.sqrt(2 * eta)).cdf).pvalue
        > 1e-4
    )


def test_whole_run_privacy_loss_spends_the_target_delta():
    """With p = d every V_l is orthogonal, so every step shifts the mean by exactly
    ||A − A'||_F = √2/n: the transcript's privacy loss is N(Lη, 2Lη) and, with the exact (GDP)
    calibration, δ(ε) of the run equals the target δ. Estimated from the package's draws."""
    rng = np.random.default_rng(2)
    n, d, L, eps, delta = 5, 3, 4, 1.0, 0.05
    A, A_prime = _neighbours(n, d, rng)
    losses = []
    for _ in range(6000):
        run = pm.noisy_power_method_from_second_moment(
            A,
            n,
            1,
            epsilon=eps,
            delta=delta,
            n_iterations=L,
            block_size=d,
            calibration="gdp",
            rng=rng,
            diagnostics=True,
            noise="float",
        )
        total = 0.0
        for V, G in zip(run.iterates[:-1], run.noise):
            Y = A @ V + G
            total += (
                np.sum((Y - A_prime @ V) ** 2) - np.sum((Y - A @ V) ** 2)
            ) / (2 * run.sigma**2)
        losses.append(total)
    estimate = delta_from_privacy_losses(losses, eps, level=0.9999)
    assert estimate.low <= delta <= estimate.high


# --- mechanism behaviour ----------------------------------------------------------------------


def test_entry_points_share_one_law():
    rng = np.random.default_rng(3)
    X = _spiked_rows(3000, 12, [3.0, 2.0, 1.5], rng)
    A = dppca.linalg.second_moment(X)
    V_rows = pm.noisy_power_method(X, 3, epsilon=1.0, delta=1e-6, rng=7)
    V_moment = pm.noisy_power_method_from_second_moment(
        A, 3000, 3, epsilon=1.0, delta=1e-6, rng=7
    )
    V_sparse = pm.noisy_power_method(
        scipy.sparse.csr_matrix(X), 3, epsilon=1.0, delta=1e-6, rng=7
    )
    np.testing.assert_allclose(V_rows, V_moment, atol=1e-9)
    np.testing.assert_allclose(V_rows, V_sparse, atol=1e-9)
    dppca.validation.check_orthonormal(V_rows)


def test_utility_with_large_n_and_a_clear_gap():
    rng = np.random.default_rng(4)
    X = _spiked_rows(50_000, 30, [3.0, 2.5, 2.0], rng)
    A = dppca.linalg.second_moment(X)
    best = dppca.linalg.top_k_eigh(A, 3)[0].sum()
    V = pm.noisy_power_method(X, 3, epsilon=0.5, delta=1e-6, rng=rng)
    assert dppca.captured_variance(A, V) > 0.99 * best
    # with a tiny n the same ε gives a noisy subspace: far below the optimum
    V_small = pm.noisy_power_method(X[:50], 3, epsilon=0.5, delta=1e-6, rng=rng)
    A_small = dppca.linalg.second_moment(X[:50])
    assert dppca.captured_variance(A_small, V_small) < 0.9 * (
        dppca.linalg.top_k_eigh(A_small, 3)[0].sum()
    )


def test_error_below_the_noise_over_gap_bound():
    """Hardt and Price (2014, Cor. 1.1): once L is large, ||(I − V Vᵀ) U_k|| ≤ 5 max||G_l|| /
    (λ_k − λ_{k+1}) when that ratio is small; checked on the package's own noise draws."""
    rng = np.random.default_rng(5)
    d, k = 40, 2
    # a valid second moment: trace <= 1 (rows of norm <= 1)
    eigenvalues = np.concatenate([[0.4, 0.2], np.linspace(0.01, 0.001, d - 2)])
    assert eigenvalues.sum() <= 1
    Q = dppca.linalg.haar_subspace(d, d - 1, rng)
    Q = np.column_stack([Q, np.linalg.svd(Q.T)[2][-1]])
    A = (Q * eigenvalues) @ Q.T
    U = Q[:, :k]
    checked = 0
    for n in (2_000, 20_000, 200_000):
        run = pm.noisy_power_method_from_second_moment(
            A,
            n,
            k,
            epsilon=1.0,
            delta=1e-6,
            n_iterations=30,
            rng=rng,
            diagnostics=True,
        )
        error = np.linalg.norm(U - run.V @ (run.V.T @ U), 2)
        noise = max(np.linalg.norm(G, 2) for G in run.noise)
        bound = 5 * noise / (eigenvalues[k - 1] - eigenvalues[k])
        if bound < 1:
            checked += 1
            assert error <= bound
    assert checked >= 1  # the bound was informative at least once


def test_validation_and_explicit_clipping():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((100, 5))
    with pytest.raises(ValueError, match="norm > 1"):
        pm.noisy_power_method(X, 2, epsilon=1.0, delta=1e-5, rng=0)
    with pytest.raises(ValueError, match="norm > 1"):
        pm.noisy_power_method(
            scipy.sparse.csr_matrix(X), 2, epsilon=1.0, delta=1e-5, rng=0
        )
    from dppca.linalg.distributed import clip_rows

    clipped = clip_rows(X)
    assert np.linalg.norm(clipped, axis=1).max() <= 1 + 1e-12
    np.testing.assert_allclose(
        pm.noisy_power_method(X, 2, epsilon=1.0, delta=1e-5, clip=True, rng=0),
        pm.noisy_power_method(clipped, 2, epsilon=1.0, delta=1e-5, rng=0),
    )
    with pytest.raises(ValueError, match="block_size"):
        pm.noisy_power_method(
            clipped, 3, epsilon=1.0, delta=1e-5, block_size=2, rng=0
        )
    with pytest.raises(ValueError):
        pm.noisy_power_method(clipped, 2, epsilon=0.0, delta=1e-5, rng=0)
    with pytest.raises(ValueError):
        pm.noisy_power_method(clipped, 2, epsilon=1.0, delta=1.0, rng=0)


def test_registry_runs_it():
    from dppca.book import mechanism_table

    registry = mechanism_table.mechanisms()
    assert "noisy_power_method" in registry
    mech = registry["noisy_power_method"]
    rng = np.random.default_rng(8)
    X = _spiked_rows(500, 8, [2.0, 1.0], rng)
    V = mech(X, 2, 1.0, 1e-5, rng=3)
    W = mech.run_from_moment(
        dppca.linalg.second_moment(X), 500, 2, 1.0, 1e-5, rng=3
    )
    np.testing.assert_allclose(V, W, atol=1e-9)


def test_safe_noise_run_spends_at_most_its_zcdp_budget():
    """noise='safe': discrete Gaussian on the rounded products. The run's ρ
    (with the rounding's √(dp) cells in every step's sensitivity) is at most
    the ρ whose CKS conversion is (ε, δ); the noise is √L times the one-release
    calibration; and the subspace is as useful as with float noise."""
    from dppca.privacy import discrete_gaussian_sigma, zcdp_rho
    from dppca.privacy.sensitivity import power_step_sensitivity

    rng = np.random.default_rng(11)
    n, d, k, L = 5_000, 30, 2, 12
    X = dppca.validation.normalize_rows(
        rng.standard_normal((n, d)) * np.linspace(3, 1, d)
    )
    run = pm.noisy_power_method(
        X,
        k,
        epsilon=1.0,
        delta=1e-6,
        n_iterations=L,
        rng=1,
        diagnostics=True,
        noise="safe",
    )
    assert run.rho <= zcdp_rho(1.0, 1e-6) * (1 + 1e-9)
    sigma, grid = pm.safe_noisy_power_calibration(n, k, d, 1.0, 1e-6, L)
    one = discrete_gaussian_sigma(
        power_step_sensitivity(n, k), 1.0, 1e-6, grid, np.sqrt(d * k)
    )
    assert run.sigma == pytest.approx(one * np.sqrt(L))
    assert grid == 2.0 ** np.round(np.log2(grid))  # a power of two
    A = dppca.linalg.second_moment(X)
    safe = [
        dppca.captured_variance(
            A,
            pm.noisy_power_method(
                X,
                k,
                epsilon=1.0,
                delta=1e-6,
                n_iterations=L,
                rng=s,
                noise="safe",
            ),
        )
        for s in range(5)
    ]
    flt = [
        dppca.captured_variance(
            A,
            pm.noisy_power_method(
                X, k, epsilon=1.0, delta=1e-6, n_iterations=L, rng=s
            ),
        )
        for s in range(5)
    ]
    # The safe calibration converts zCDP with CKS's tight formula, the float
    # default with Bun and Steinke's closed form: less noise despite the grid.
    assert run.sigma <= pm.noisy_power_sigma(n, k, 1.0, 1e-6, L)
    assert np.mean(safe) >= 0.95 * np.mean(flt)
    with pytest.raises(ValueError, match="zCDP"):
        pm.noisy_power_method(
            X, k, epsilon=1.0, delta=1e-6, calibration="gdp", noise="safe"
        )
