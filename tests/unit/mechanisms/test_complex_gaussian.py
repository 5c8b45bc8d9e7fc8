"""Tests for dppca.mechanisms.complex_gaussian (the complex Gaussian mechanism of
Mangoubi and Vishnoi 2023): shapes and validation, the law of the Hermitian
noise, the calibration, and the utility predictions and bounds."""

import warnings

import numpy as np
import pytest
import scipy.sparse
from scipy import integrate, stats

from dppca.book.bounds import complex_gaussian as cg_bounds
from dppca.book.bounds import gaussian_approx as bounds
from dppca.book.diagnostics import complex_gaussian as cg_diagnostics
from dppca.mechanisms import complex_gaussian as cg
from dppca.montecarlo import mean_ci, proportion_ci
from dppca.privacy import (
    analytic_gaussian_sigma,
    gaussian_zcdp_rho,
    zcdp_delta,
)
from dppca.privacy.guarantees import UnprovedGuaranteeWarning
from dppca.samplers.dyson import eigenvalue_drift


def unit_rows(n, d, seed, scales=None):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (1.0 if scales is None else scales)
    return X / np.linalg.norm(X, axis=1, keepdims=True).max()


def tiny_gap_spectrum(d, k, inner=1e-3):
    top = 20 * np.sqrt(d) + inner * np.arange(k - 1, -1, -1)
    return np.concatenate([top, np.linspace(np.sqrt(d), 0.0, d - k)])


# -- shapes, outputs and validation -------------------------------------------


@pytest.mark.parametrize("noise", ["safe", "float"])
def test_outputs_and_shapes(noise):
    X = unit_rows(300, 6, 1, scales=[3, 2, 1, 0.3, 0.2, 0.1])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
        R = cg.complex_gaussian_approximation(
            X, 2, epsilon=1.0, delta=1e-5, rng=0, noise=noise
        )
        H = cg.complex_gaussian_approximation(
            X,
            2,
            epsilon=1.0,
            delta=1e-5,
            rng=0,
            noise=noise,
            output="hermitian",
        )
        K = cg.complex_gaussian_approximation(
            X, 2, epsilon=1.0, delta=1e-5, rng=0, noise=noise, output="rank_k"
        )
    assert R.shape == H.shape == K.shape == (6, 6)
    assert R.dtype == float and K.dtype == float and H.dtype == complex
    assert np.allclose(H, H.conj().T)
    assert np.array_equal(R, R.T) and np.allclose(K, K.T)
    # same seed, same noise: the real output is the real part of H
    assert np.allclose(R, H.real)
    assert np.linalg.matrix_rank(H) == 2
    assert np.linalg.matrix_rank(K) == 2
    assert 2 <= np.linalg.matrix_rank(R, tol=1e-12) <= 4
    for out in (R, H, K):
        assert out.guarantee.chapter == "chapter 16"
        assert out.guarantee.noise == noise
        assert out.guarantee.proved == (noise == "safe")


def test_spectrum_is_released_and_descending():
    X = unit_rows(200, 5, 2)
    A = X.T @ X / 200
    H, values = cg.complex_gaussian_approximation_from_second_moment(
        A,
        200,
        2,
        epsilon=1.0,
        delta=1e-5,
        rng=3,
        output="hermitian",
        return_spectrum=True,
    )
    assert values.shape == (5,) and np.all(np.diff(values) <= 0)
    assert np.allclose(np.sort(np.linalg.eigvalsh(H))[::-1][:2], values[:2])
    assert values.guarantee == H.guarantee


def test_float_noise_warns_and_safe_does_not():
    X = unit_rows(100, 4, 3)
    with pytest.warns(UnprovedGuaranteeWarning):
        cg.complex_gaussian_approximation(
            X, 1, epsilon=1.0, delta=1e-5, rng=0, noise="float"
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnprovedGuaranteeWarning)
        cg.complex_gaussian_approximation(X, 1, epsilon=1.0, delta=1e-5, rng=0)


def test_seeded_reproducibility_and_sparse_rows():
    X = unit_rows(50, 5, 4)
    a = cg.complex_gaussian_approximation(X, 2, epsilon=1.0, delta=1e-5, rng=7)
    b = cg.complex_gaussian_approximation(
        scipy.sparse.csr_matrix(X), 2, epsilon=1.0, delta=1e-5, rng=7
    )
    assert np.allclose(a, b)
    c = cg.complex_gaussian_approximation(X, 2, epsilon=1.0, delta=1e-5, rng=8)
    assert not np.allclose(a, c)


def test_bad_inputs():
    X = unit_rows(20, 4, 5)
    A = X.T @ X / 20
    f = cg.complex_gaussian_approximation_from_second_moment
    with pytest.raises(ValueError, match="norm"):
        cg.complex_gaussian_approximation(
            np.ones((4, 3)), 1, epsilon=1.0, delta=1e-5
        )
    with pytest.raises(ValueError, match="k must"):
        f(A, 20, 4, epsilon=1.0, delta=1e-5)
    with pytest.raises(TypeError):
        f(A, 20, 1.5, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="output"):
        f(A, 20, 1, epsilon=1.0, delta=1e-5, output="imaginary")
    with pytest.raises(ValueError, match="noise"):
        f(A, 20, 1, epsilon=1.0, delta=1e-5, noise="exact")
    with pytest.raises(ValueError, match="trace"):
        f(A * 20, 20, 1, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="positive semidefinite"):
        f(A - 0.5 * np.eye(4), 20, 1, epsilon=1.0, delta=1e-5)
    with pytest.raises(TypeError):
        f(A.astype(complex), 20, 1, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError):
        f(A, 20.0, 1, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError):
        f(A, 20, 1, epsilon=0.0, delta=1e-5)
    with pytest.raises(ValueError):
        f(A, 20, 1, epsilon=1.0, delta=1.0)
    with pytest.raises(TypeError):
        f(A, 20, 1, epsilon=1.0, delta=1e-5, rng="seed")
    with pytest.raises(ValueError):
        f(A, 20, 1, epsilon=1.0, delta=1e-5, granularity=0.3)
    with pytest.raises(ValueError):
        cg.gue_noise(1, 1.0)
    with pytest.raises(ValueError):
        cg.gue_noise(3, -1.0)
    with pytest.raises(ValueError, match="Hermitian"):
        cg.mahalanobis_distance(np.array([[0, 1j], [1j, 0]]), 1.0)
    with pytest.raises(ValueError):
        cg_diagnostics.rank_k_errors(
            np.eye(3), 1, 1.0, 10, 0, field="real", output="rank_k"
        )
    with pytest.raises(ValueError):
        cg.complex_gaussian_guarantee(20, 4, 0, 1.0, 1e-5)


# -- the law of the Hermitian noise ---------------------------------------------


def test_gue_noise_variances_and_ks():
    """Z_jj ~ N(0, 4s²) real; Re Z_jl, Im Z_jl ~ N(0, 2s²), independent."""
    rng = np.random.default_rng(6)
    s, d, m = 1.5, 4, 40_000
    Z = cg.gue_noise(d, s, rng, batch=(m,))
    assert np.array_equal(Z, np.conj(np.swapaxes(Z, -1, -2)))
    assert np.all(np.diagonal(Z, axis1=-2, axis2=-1).imag == 0)
    iu = np.triu_indices(d, 1)
    parts = {
        "diagonal": (np.diagonal(Z, axis1=-2, axis2=-1).real, 4 * s**2),
        "real": (Z[:, iu[0], iu[1]].real, 2 * s**2),
        "imaginary": (Z[:, iu[0], iu[1]].imag, 2 * s**2),
    }
    for name, (x, variance) in parts.items():
        var = x.var(axis=0)
        se = variance * np.sqrt(2 / m)
        assert np.all(np.abs(var - variance) < 4.5 * se), name
        ks = stats.kstest(x[:, 0] / np.sqrt(variance), "norm")
        assert ks.pvalue > 1e-3, (name, ks)
    corr = np.corrcoef(parts["real"][0][:, 0], parts["imaginary"][0][:, 0])
    assert abs(corr[0, 1]) < 4.5 / np.sqrt(m)
    # the real part has chapter 5's law: the same variances as G + Gᵀ
    R = Z.real
    expected = np.where(np.eye(d, dtype=bool), 4 * s**2, 2 * s**2)
    se = expected * np.sqrt(2 / m)
    assert np.all(np.abs(R.var(axis=0) - expected) < 4.5 * se)


def test_vectorised_noise_is_isotropic():
    """vec(Z) ~ N(0, 4 s² I_{d²}): covariance of the isometric vector."""
    rng = np.random.default_rng(7)
    s, d, m = 0.7, 3, 60_000
    Z = cg.gue_noise(d, s, rng, batch=(m,))
    V = np.array([cg.vectorise_hermitian(z) for z in Z[:20_000]])
    C = np.cov(V.T)
    assert V.shape[1] == d * d
    tol = 4.5 * 4 * s**2 * np.sqrt(2 / V.shape[0])
    assert np.all(np.abs(C - 4 * s**2 * np.eye(d * d)) < tol)
    norms = mean_ci(np.sum(np.abs(Z) ** 2, axis=(-2, -1)), level=0.999)
    assert norms.low <= 4 * s**2 * d**2 <= norms.high


def test_vectorisation_is_an_isometry():
    rng = np.random.default_rng(8)
    H = cg.gue_noise(5, 1.0, rng)
    assert np.linalg.norm(cg.vectorise_hermitian(H)) == pytest.approx(
        np.linalg.norm(H)
    )
    S = rng.standard_normal((5, 5))
    S = S + S.T
    v = cg.vectorise_hermitian(S)
    assert np.all(v[5 + 10 :] == 0)  # real symmetric: no imaginary block


def test_safe_noise_is_on_the_grid_with_the_right_variances():
    """Entries pooled over positions (they are i.i.d. within each group)."""
    rng = np.random.default_rng(9)
    d, s, g, m = 12, 0.25, 2.0**-6, 300
    A = np.diag(np.linspace(0.1, 0.01, d)) + 0.001
    draws = np.stack(
        [cg.perturb_hermitian(A, s, rng, "safe", g) for _ in range(m)]
    )
    assert np.all(np.mod(draws.real / g, 1) == 0)
    assert np.all(np.mod(draws.imag / g, 1) == 0)
    assert np.array_equal(draws, np.conj(np.swapaxes(draws, -1, -2)))
    noise = draws - np.rint(A / g) * g
    iu = np.triu_indices(d, 1)
    for x, variance in (
        (np.diagonal(noise, axis1=-2, axis2=-1).real, 4 * s**2),
        (noise[:, iu[0], iu[1]].real, 2 * s**2),
        (noise[:, iu[0], iu[1]].imag, 2 * s**2),
    ):
        x = x.ravel()
        se = variance * np.sqrt(2 / x.size)
        assert abs(x.var() - variance) < 4.5 * se
        assert abs(x.mean()) < 4.5 * np.sqrt(variance / x.size)


# -- calibration ---------------------------------------------------------------


def test_calibration_against_the_analytic_gaussian_closed_form():
    """s solves the Balle–Wang condition at the Mahalanobis distance of the
    worst neighbours, ||D||_F/(2s) = √2/(2ns), computed here with scipy."""
    for n, eps, delta in ((100, 0.5, 1e-5), (1000, 2.0, 1e-8), (7, 1.0, 0.1)):
        s = cg.noise_sigma(eps, delta, n)
        D = (np.diag([1.0, 0.0, 0.0]) - np.diag([0.0, 1.0, 0.0])) / n
        dist = cg.mahalanobis_distance(D, s)
        assert dist == pytest.approx(np.sqrt(2) / (2 * n * s), rel=1e-12)
        independent = stats.norm.cdf(dist / 2 - eps / dist) - np.exp(
            eps
        ) * stats.norm.cdf(-dist / 2 - eps / dist)
        assert independent == pytest.approx(delta, rel=1e-6)
        assert s == pytest.approx(
            analytic_gaussian_sigma(np.sqrt(2) / (2 * n), eps, delta),
            rel=1e-12,
        )


def test_safe_calibration_converts_back_to_delta():
    float_sigma = cg.noise_sigma(1.0, 1e-6, 500)
    sigma, grid = cg.safe_noise_sigma(1.0, 1e-6, 8, 500)
    assert sigma >= float_sigma
    # ρ of the rounded sensitivity converts back to δ at ε = 1, tightly
    rho = gaussian_zcdp_rho(np.sqrt(2) / 500 / 2 + grid * 8 / 2, sigma)
    assert 0.99e-6 <= zcdp_delta(rho, 1.0) <= 1e-6
    # the rounding adds at most 1/1024 of the sensitivity
    assert grid * 8 / 2 <= (np.sqrt(2) / 500 / 2) / 1024


def test_mahalanobis_distance_of_complex_changes():
    rng = np.random.default_rng(10)
    for _ in range(5):
        D = cg.gue_noise(6, 1.0, rng)
        assert cg.mahalanobis_distance(D, 0.7) == pytest.approx(
            np.linalg.norm(D) / 1.4, rel=1e-12
        )


def test_guarantee_records():
    n, d, k, eps, delta = 1000, 10, 3, 0.5, 1e-6
    safe = cg.complex_gaussian_guarantee(n, d, k, eps, delta)
    flt = cg.complex_gaussian_guarantee(n, d, k, eps, delta, noise="float")
    assert safe.kind == "zcdp" and safe.proved
    assert safe.chapter == "chapter 16" and "Complex" in safe.label
    assert flt.kind == "gaussian" and not flt.proved and flt.caveat
    assert flt.noise_multiplier == pytest.approx(
        cg.noise_sigma(eps, delta, n) / (np.sqrt(2) / (2 * n))
    )
    assert (safe.epsilon, safe.delta) == (eps, delta)


def test_privacy_loss_law_on_the_worst_pair():
    """L ~ N(η, 2η), η = ||D||_F²/(8s²), on complex outputs: the imaginary
    part of the output does not enter."""
    rng = np.random.default_rng(11)
    d, n = 5, 10
    s = cg.noise_sigma(1.0, 1e-3, n)
    M = np.diag(np.linspace(0.3, 0.0, d))
    D = (np.outer(*[np.eye(d)[0]] * 2) - np.outer(*[np.eye(d)[1]] * 2)) / n
    Y = M + cg.gue_noise(d, s, rng, batch=(40_000,))
    L = cg.privacy_loss(Y, M, M + D, s)
    eta = np.linalg.norm(D) ** 2 / (8 * s**2)
    assert abs(L.mean() - eta) < 4.5 * np.sqrt(2 * eta / L.size)
    assert abs(L.var() - 2 * eta) < 4.5 * 2 * eta * np.sqrt(2 / L.size)
    assert np.allclose(L, cg.privacy_loss(Y.real, M, M + D, s))


# -- utility: prediction, bounds and rates against Monte Carlo ----------------


@pytest.mark.parametrize(
    "field, output",
    [
        ("complex", "real"),
        ("complex", "hermitian"),
        ("complex", "rank_k"),
        ("real", "real"),
    ],
)
def test_prediction_is_exact_at_small_noise(field, output):
    sig = np.array([6.0, 4.0, 2.5, 1.0, 0.0])
    s = 0.01
    err = cg_diagnostics.rank_k_errors(
        np.diag(sig), 2, s, 4000, 12, field, output
    )
    ratio = err**2 / cg_bounds.rank_k_error_prediction(sig, 2, s, field, output)
    assert abs(ratio.mean() - 1) < 4 * ratio.std() / np.sqrt(ratio.size)


def test_prediction_closed_form():
    sig = np.array([10.0, 8.0, 1.0, 0.0])
    # pairs i != j with lambda = (10, 8, 0, 0): (1,2) 1; (1,3) 100/81;
    # (1,4) 1; (2,3) 64/49; (2,4) 1 -- each twice; eigenvalues 4 k s²
    pairs = 2 * (1 + 100 / 81 + 1 + 64 / 49 + 1)
    assert cg_bounds.rank_k_error_prediction(
        sig, 2, 1.0, "real"
    ) == pytest.approx(8 + 2 * pairs)
    assert cg_bounds.rank_k_error_prediction(
        sig, 2, 1.0, "complex", "hermitian"
    ) == pytest.approx(8 + 4 * pairs)
    assert cg_bounds.rank_k_error_prediction(
        sig, 2, 1.0, "complex", "real"
    ) == cg_bounds.rank_k_error_prediction(sig, 2, 1.0, "real")


def test_tiny_inner_gaps_prediction_bound_and_assumptions():
    """Inner gaps 10⁻³ (far below √d s), k-th gap 19√d s: chapter 5's
    assumption fails, [MV23]'s holds; the measured error matches the
    prediction, the deterministic bound holds on every draw, and the real
    part is never further from M_k than the Hermitian release."""
    d, k, s = 12, 3, 1.0
    sig = tiny_gap_spectrum(d, k)
    assert not bounds.mv_gap_assumption_holds(sig, k, d, s)
    assert cg_bounds.mv23_gap_condition(sig, k, s)
    for field, output in (("complex", "real"), ("real", "real")):
        err, E, F = cg_diagnostics.rank_k_errors(
            np.diag(sig), k, s, 1500, 13, field, output, return_noise=True
        )
        assert np.all(err <= cg_bounds.davis_kahan_error_bound(sig, k, E, F))
        ratio = mean_ci(
            err**2
            / cg_bounds.rank_k_error_prediction(sig, k, s, field, output),
            level=0.999,
        )
        assert ratio.low - 0.03 <= 1 <= ratio.high + 0.03, (field, ratio)
    real = cg_diagnostics.rank_k_errors(
        np.diag(sig), k, s, 500, 14, "complex", "real"
    )
    herm = cg_diagnostics.rank_k_errors(
        np.diag(sig), k, s, 500, 14, "complex", "hermitian"
    )
    assert np.all(real <= herm + 1e-9)
    assert np.mean(real) < 0.9 * np.mean(herm)


def test_real_part_identity():
    """||H - A_k||² = ||Re H - A_k||² + ||Im H||² for real A_k."""
    rng = np.random.default_rng(15)
    sig = np.array([5.0, 3.0, 1.0, 0.5])
    values, vectors = np.linalg.eigh(np.diag(sig) + cg.gue_noise(4, 0.3, rng))
    H = cg.rank_k_output(values[::-1], vectors[:, ::-1], 2, "hermitian")
    R = cg.rank_k_output(values[::-1], vectors[:, ::-1], 2, "real")
    A_k = np.diag([5.0, 3.0, 0.0, 0.0])
    assert np.linalg.norm(H - A_k) ** 2 == pytest.approx(
        np.linalg.norm(R - A_k) ** 2 + np.linalg.norm(H.imag) ** 2
    )


def test_davis_kahan_bound_is_infinite_without_the_gap():
    sig = np.array([3.0, 2.0, 1.0])
    assert cg_bounds.davis_kahan_error_bound(sig, 1, 1.5, 0.1) == np.inf
    assert np.isfinite(cg_bounds.davis_kahan_error_bound(sig, 1, 0.5, 0.1))


def test_rate_shape_and_typical_norms():
    sig = np.array([10.0, 8.0, 1.0, 0.0])
    assert cg_bounds.mv23_covariance_rate(sig, 2, 1.0) == pytest.approx(
        np.sqrt(8) * 8 / 7
    )
    assert cg_bounds.mv23_covariance_rate(
        sig, 2, 1.0
    ) == bounds.mv_covariance_corollary(sig, 2, 1.0)
    with pytest.raises(ValueError):
        cg_bounds.mv23_covariance_rate(np.array([1.0, 1.0, 0.0]), 1, 1.0)
    rng = np.random.default_rng(16)
    d, k, s = 60, 3, 0.5
    Z = cg.gue_noise(d, s, rng, batch=(200,))
    edge, top = cg_bounds.typical_noise_norms(d, k, s)
    norms = np.abs(np.linalg.eigvalsh(Z)).max(axis=-1)
    assert abs(norms.mean() / edge - 1) < 0.05  # edge, finite-d correction
    P = np.eye(d)[:, :k]
    fro = mean_ci(np.linalg.norm(Z @ P, axis=(-2, -1)) ** 2, level=0.999)
    assert fro.low <= top**2 <= fro.high


@pytest.mark.parametrize("d", [8, 16, 32])
def test_error_grows_like_sqrt_kd_with_tiny_inner_gaps(d):
    """The measured error over the [MV23] shape stays near the constant the
    prediction gives, 2 sqrt((d - k)/d) (pairs across the gap ~1 each)."""
    k = 4
    sig = tiny_gap_spectrum(d, k)
    err = cg_diagnostics.rank_k_errors(
        np.diag(sig), k, 1.0, 300, d, "complex", "real"
    )
    ratio = np.sqrt(np.mean(err**2)) / cg_bounds.mv23_covariance_rate(
        sig, k, 1.0
    )
    constant = np.sqrt(cg_bounds.rank_k_error_prediction(sig, k, 1.0)) / (
        cg_bounds.mv23_covariance_rate(sig, k, 1.0)
    )
    assert 1.0 < constant < 2.2
    assert abs(ratio / constant - 1) < 0.05


# -- complex Dyson Brownian motion and spacings ----------------------------------


def test_complex_drift_coefficient_by_finite_differences():
    """E[γ_i(h) − σ_i − Z_ii]/h → 4 Σ_j 1/(σ_i − σ_j), twice the real
    drift."""
    rng = np.random.default_rng(17)
    sig = np.array([0.0, 1.5, 3.5, 5.0])
    h, m = 1e-4, 100_000
    Z = cg.gue_noise(4, np.sqrt(h), rng, batch=(m,))
    g = np.linalg.eigvalsh(np.diag(sig) + Z)
    samples = (g - sig - np.diagonal(Z, axis1=-2, axis2=-1).real) / h
    predicted = cg_diagnostics.complex_eigenvalue_drift(sig)
    assert np.allclose(predicted, 2 * eigenvalue_drift(sig))
    for i in range(4):
        est = mean_ci(samples[:, i], level=0.999)
        assert est.low <= predicted[i] <= est.high, (i, est, predicted[i])


def test_wigner_surmises():
    s = np.linspace(0, 8, 40_001)
    for beta in (1, 2):
        p = cg_diagnostics.wigner_surmise(s, beta)
        assert integrate.trapezoid(p, s) == pytest.approx(1, abs=1e-6)
        assert integrate.trapezoid(s * p, s) == pytest.approx(1, abs=1e-6)
        cdf = cg_diagnostics.wigner_surmise_cdf(s, beta)
        assert np.allclose(np.gradient(cdf, s)[1:-1], p[1:-1], atol=1e-6)
    with pytest.raises(ValueError):
        cg_diagnostics.wigner_surmise(s, 4)


def test_gue_spacings_follow_the_beta_two_surmise():
    rng = np.random.default_rng(18)
    d, s = 200, 1.0
    Z = cg.gue_noise(d, s, rng, batch=(30,))
    spacings = cg_diagnostics.unfolded_spacings(
        np.linalg.eigvalsh(Z), cg_diagnostics.semicircle_radius(d, s)
    )
    assert abs(spacings.mean() - 1) < 0.05
    for s0 in (0.25, 0.5):
        p = proportion_ci(int(np.sum(spacings < s0)), spacings.size, 0.999)
        assert p.low <= cg_diagnostics.wigner_surmise_cdf(s0, 2) <= p.high
        # beta = 1 puts 1.6 (s0 = 0.5) to 3 (s0 = 0.25) times more mass there
        assert p.high < cg_diagnostics.wigner_surmise_cdf(s0, 1)
