"""Trace-sensitive covariance (dppca.mechanisms.trace_sensitive): each step against its
closed form, the error lemma and its constant, the selection, validation, and
the error against the bound by Monte Carlo with fixed seeds."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse
from scipy import stats

import dppca
from dppca.mechanisms import trace_sensitive as ts
from dppca.mechanisms import trace_sensitive_calibration as ts_calibration
from dppca.mechanisms import trace_sensitive_radius as ts_radius
from dppca.mechanisms import trace_sensitive_spectrum as ts_spectrum
from dppca.privacy import gaussian_zcdp_rho, zcdp_rho
from dppca.privacy.guarantees import Released, UnprovedGuaranteeWarning

EPS, DELTA = 1.0, 1e-5


def small_trace_rows(n, d, scale, rng, outliers=0):
    """Rows of typical norm ``scale`` (decaying spectrum), ``outliers`` rows
    of norm one."""
    spectrum = 1.0 / np.arange(1, d + 1)
    G = rng.standard_normal((n, d)) * np.sqrt(spectrum / spectrum.sum())
    X = G * scale
    U = rng.standard_normal((outliers, d))
    X[:outliers] = U / np.linalg.norm(U, axis=1)[:, None]
    return X / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]


def float_run(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
        return ts.trace_sensitive_covariance(*args, noise="float", **kwargs)


# --- high-probability norms --------------------------------------------------


@pytest.mark.parametrize("d", [3, 20, 80])
def test_noise_norm_bounds_hold_with_probability_one_minus_beta(d):
    rng = np.random.default_rng(d)
    beta, draws = 0.2, 2000
    z = rng.standard_normal((draws, d))
    assert (
        np.mean(
            np.linalg.norm(z, axis=1) > ts_radius.gaussian_norm_bound(d, beta)
        )
        <= beta
    )
    iu = np.triu_indices(d)
    spectral, frobenius = [], []
    for _ in range(draws // 4):
        W = np.zeros((d, d))
        W[iu] = rng.standard_normal(iu[0].size)
        W = W + np.triu(W, 1).T
        spectral.append(np.linalg.norm(W, 2))
        frobenius.append(np.linalg.norm(W))
    assert (
        np.mean(np.array(spectral) > ts_radius.wigner_norm_bound(d, beta))
        <= beta
    )
    assert (
        np.mean(np.array(frobenius) > ts_radius.wigner_frobenius_bound(d, beta))
        <= beta
    )
    # the means the proofs use, E‖W‖₂ ≤ 2√d and E‖W‖_F ≤ d (up to three
    # standard errors of the sample mean)
    for values, mean in [(spectral, 2 * math.sqrt(d)), (frobenius, d)]:
        values = np.array(values)
        assert values.mean() <= mean + 3 * values.std() / math.sqrt(values.size)


def test_bounds_reject_beta_outside_the_unit_interval():
    for beta in [0.0, 1.0, -0.1, 2.0]:
        with pytest.raises(ValueError, match="beta"):
            ts_radius.wigner_norm_bound(5, beta)


# --- the lemma behind the trace-sensitive bound --------------------------------


def separate_estimate(A, E, z):
    """P̃ diag(λ(A) + z) P̃ᵀ, both spectra decreasing."""
    lam = np.linalg.eigvalsh(A)[::-1]
    P = np.linalg.eigh(A + E)[1][:, ::-1]
    return (P * (lam + z)) @ P.T


@pytest.mark.parametrize("seed", range(6))
def test_separate_error_never_exceeds_the_lemma(seed):
    rng = np.random.default_rng(seed)
    d = 2 + seed * 3
    B = rng.standard_normal((d, d)) * rng.random(d)
    A = B @ B.T / d
    for scale in [1e-3, 0.1, 10.0]:
        E = rng.standard_normal((d, d)) * scale
        E = (E + E.T) / 2
        z = rng.standard_normal(d) * scale
        error = np.linalg.norm(separate_estimate(A, E, z) - A)
        bound = ts_spectrum.separate_error_bound(
            np.trace(A), np.linalg.norm(E, 2), np.linalg.norm(z)
        )
        assert error <= bound * (1 + 1e-12) + 1e-13


@pytest.mark.parametrize("gap", [1e-1, 1e-3, 1e-6])
def test_the_constant_two_is_attained_in_the_limit(gap):
    """A = diag(2e − η, 0), E = diag(−e, e): the noise swaps the eigenvectors
    and the error √2(2e − η) tends to the bound 2√(tr A ‖E‖) = 2√2 e."""
    e = 0.3
    A = np.diag([2 * e - gap, 0.0])
    E = np.diag([-e, e])
    error = np.linalg.norm(separate_estimate(A, E, np.zeros(2)) - A)
    assert error == pytest.approx(math.sqrt(2) * (2 * e - gap), rel=1e-12)
    bound = ts_spectrum.separate_error_bound(np.trace(A), e, 0.0)
    assert error <= bound
    assert error / bound >= math.sqrt(1 - gap / (2 * e)) - 1e-12


def test_lemma_bound_rejects_negative_inputs():
    with pytest.raises(ValueError):
        ts_spectrum.separate_error_bound(-1.0, 1.0, 0.0)


# --- calibration ----------------------------------------------------------------


def test_float_calibration_is_the_closed_form():
    n, d = 5000, 7
    cal = ts_calibration.trace_sensitive_calibration(
        n, d, EPS, DELTA, noise="float"
    )
    rho = zcdp_rho(EPS, DELTA)
    s = cal.steps
    assert s["trace"].sigma == pytest.approx(
        ts_calibration.trace_sensitivity(n) / math.sqrt(2 * rho / 8), rel=1e-14
    )
    assert s["histogram"].sigma == pytest.approx(
        math.sqrt(2) / math.sqrt(2 * rho / 8), rel=1e-14
    )
    assert s["gaussian"].sigma == pytest.approx(
        math.sqrt(2) / n / math.sqrt(2 * 0.75 * rho), rel=1e-14
    )
    assert s["vectors"].sigma == pytest.approx(
        math.sqrt(2) / n / math.sqrt(0.75 * rho), rel=1e-14
    )
    values = (1 + ts_calibration.BASIS_DEFECT) * math.sqrt(
        2
    ) / n + 2 * ts_calibration.rayleigh_margin(d)
    assert s["values"].sigma == pytest.approx(
        values / math.sqrt(0.75 * rho), rel=1e-14
    )
    assert cal.rho == pytest.approx(rho, rel=1e-12)
    separate = ts_calibration.trace_sensitive_calibration(
        n, d, EPS, DELTA, method="separate", noise="float"
    )
    assert set(separate.steps) == {"vectors", "values"}
    assert separate.rho == pytest.approx(rho, rel=1e-12)


@pytest.mark.parametrize("method", ts_calibration.METHODS)
@pytest.mark.parametrize("n, d", [(100, 2), (20_000, 30)])
def test_safe_steps_spend_their_share_and_no_more(method, n, d):
    cal = ts_calibration.trace_sensitive_calibration(
        n, d, 0.5, 1e-6, method=method
    )
    rho = zcdp_rho(0.5, 1e-6)
    release = rho if method == "separate" else 0.75 * rho
    shares = {
        "trace": rho / 8,
        "histogram": rho / 8,
        "gaussian": release,
        "vectors": release / 2,
        "values": release / 2,
    }
    for name, step in cal.steps.items():
        assert step.granularity is not None
        # a power of two, and the rounding costs at most 1/1024 of Δ
        assert math.frexp(step.granularity)[0] == 0.5
        if name != "histogram":
            assert step.rounding * step.granularity <= step.sensitivity / 1024
        assert step.rho <= shares[name]
        assert step.rho >= shares[name] * (1 - 1e-9)
        shift = step.sensitivity + step.rounding * step.granularity
        assert step.rho == pytest.approx(gaussian_zcdp_rho(shift, step.sigma))
    assert cal.steps.get("histogram", cal.steps["vectors"]).rounding >= 0
    assert cal.rho <= rho
    record = ts.trace_sensitive_guarantee(n, d, 0.5, 1e-6, method=method)
    assert record.kind == "zcdp" and record.proved and record.noise == "safe"
    assert record.noise_multiplier == pytest.approx(1 / math.sqrt(2 * cal.rho))
    assert (record.epsilon, record.delta) == (0.5, 1e-6)


def test_float_record_is_not_proved():
    record = ts.trace_sensitive_guarantee(100, 3, EPS, DELTA, noise="float")
    assert record.kind == "zcdp" and not record.proved and record.caveat


def test_trace_sensitivity_covers_the_float_evaluation():
    n = 1000
    assert ts_calibration.trace_sensitivity(n) == 1 / n + 5 * 2.0**-53
    norms = np.zeros(n)
    norms_prime = norms.copy()
    norms_prime[-1] = 1.0
    move = abs(
        ts_radius.clipped_trace(norms) - ts_radius.clipped_trace(norms_prime)
    )
    assert move == pytest.approx(1 / n, rel=1e-15)


# --- the steps on the data --------------------------------------------------------


def test_norm_levels_are_exact_on_the_powers_of_two():
    norms = np.array(
        [
            1 + 1e-10,
            1.0,
            0.75,
            0.5,
            0.5000001,
            0.25,
            0.3,
            2.0**-5,
            2.0**-40,
            0.0,
        ]
    )
    levels = ts_radius.norm_levels(norms, 30)
    assert levels.tolist() == [0, 0, 0, 1, 0, 2, 1, 5, 29, 29]
    assert ts_radius.norm_histogram(norms, 30).sum() == norms.size
    assert ts_radius.norm_histogram(norms, 30)[[0, 1, 2, 5, 29]].tolist() == [
        4,
        2,
        1,
        1,
        2,
    ]
    with pytest.raises(ValueError):
        ts_radius.norm_levels(np.array([np.nan]))


def test_clipped_trace_is_the_mean_squared_norm():
    rng = np.random.default_rng(0)
    X = small_trace_rows(500, 6, 0.4, rng, outliers=5)
    norms = dppca.linalg.rows.row_norms(X)
    assert ts_radius.clipped_trace(norms) == pytest.approx(
        np.trace(X.T @ X) / 500, rel=1e-13
    )


def test_trace_estimate_law_float_noise():
    """(T̃ − T)/σ_T is standard normal (Kolmogorov–Smirnov, fixed seed)."""
    rng = np.random.default_rng(3)
    n, d = 40, 3
    X = small_trace_rows(n, d, 0.5, rng)
    T = np.trace(X.T @ X) / n
    sigma = (
        ts_calibration.trace_sensitive_calibration(
            n, d, EPS, DELTA, noise="float"
        )
        .steps["trace"]
        .sigma
    )
    z = np.array(
        [
            (
                float_run(
                    X, epsilon=EPS, delta=DELTA, rng=rng, return_run=True
                )[1].trace_estimate
                - T
            )
            / sigma
            for _ in range(400)
        ]
    )
    assert stats.kstest(z, "norm").pvalue > 1e-3
    assert abs(z.mean()) < 4 / math.sqrt(z.size)


def test_trace_estimate_law_safe_noise():
    """On the grid, centred at the rounded trace, with standard deviation σ_T
    (chi-square interval on the sample variance)."""
    rng = np.random.default_rng(4)
    n, d = 40, 3
    X = small_trace_rows(n, d, 0.5, rng)
    T = ts_radius.clipped_trace(dppca.linalg.rows.row_norms(X))
    step = ts_calibration.trace_sensitive_calibration(n, d, EPS, DELTA).steps[
        "trace"
    ]
    estimates = np.array(
        [
            ts.trace_sensitive_covariance(
                X, epsilon=EPS, delta=DELTA, rng=rng, return_run=True
            )[1].trace_estimate
            for _ in range(300)
        ]
    )
    cells = estimates / step.granularity
    assert np.array_equal(cells, np.round(cells))
    centre = np.round(T / step.granularity) * step.granularity
    z = (estimates - centre) / step.sigma
    assert abs(z.mean()) < 4 / math.sqrt(z.size)
    low, high = stats.chi2.ppf([0.0005, 0.9995], z.size - 1) / (z.size - 1)
    assert low <= z.var(ddof=1) <= high


def test_choose_radius_is_the_closed_form():
    n, d = 1000, 10
    cal = ts_calibration.trace_sensitive_calibration(n, d, EPS, DELTA)
    s = cal.steps
    histogram = np.zeros(6)
    histogram[[0, 3]] = [10, 990]  # 10 rows near norm 1, 990 of norm ≤ 1/8
    choice = ts_radius.choose_radius(
        0.02, histogram, n, d, cal, beta=0.1, selection="bounds"
    )
    tops = 4.0 ** -np.arange(6)
    expected_bias = [
        np.sum(histogram[:j] * (tops[:j] - tops[j])) / n for j in range(6)
    ]
    np.testing.assert_allclose(choice.bias, expected_bias, rtol=1e-14)
    t_plus = 0.02 + s["trace"].sigma * math.sqrt(2 * math.log(10))
    assert choice.trace_bound == pytest.approx(t_plus)
    N_V = s["vectors"].sigma * ts_radius.wigner_norm_bound(d, 0.05)
    N_L = s["values"].sigma * ts_radius.gaussian_norm_bound(d, 0.05)
    separate = tops * (2 * np.sqrt(np.minimum(t_plus / tops, 1) * N_V) + N_L)
    gaussian = (
        tops * s["gaussian"].sigma * ts_radius.wigner_frobenius_bound(d, 0.1)
    )
    np.testing.assert_allclose(choice.separate, separate, rtol=1e-14)
    np.testing.assert_allclose(choice.gaussian, gaussian, rtol=1e-14)
    total = choice.bias + np.minimum(separate, gaussian)
    assert choice.level == int(np.argmin(total))
    assert choice.radius == 2.0**-choice.level
    assert choice.release == (
        "separate"
        if separate[choice.level] < gaussian[choice.level]
        else "gaussian"
    )
    # the bulk sits at level 3: clipping at 1/8 costs only the ten long rows
    assert choice.level == 3
    # negative noisy counts are read as zero
    assert ts_radius.choose_radius(0.02, histogram - 5, n, d, cal).bias[0] == 0


def test_release_is_the_clipped_second_moment_at_the_chosen_radius():
    """The estimate is r² times the second moment of the rows clipped to the
    chosen r, up to the noise bound of the chosen release at that radius (the
    clipping is the mechanism's, and it is visible in the run)."""
    rng = np.random.default_rng(5)
    X = small_trace_rows(4000, 5, 0.05, rng, outliers=4)
    for _ in range(5):
        cov, run = ts.trace_sensitive_covariance(
            X, epsilon=EPS, delta=DELTA, rng=rng, return_run=True
        )
        choice = run.choice
        r = choice.radius
        assert r <= 1 / 8
        clipped = dppca.linalg.rows.clip_rows(X, r)
        target = clipped.T @ clipped / X.shape[0]
        noise_bound = min(
            choice.separate[choice.level], choice.gaussian[choice.level]
        )
        assert np.linalg.norm(np.asarray(cov) - target) <= noise_bound
        # the four long rows were clipped: the release does not estimate A
        A = X.T @ X / X.shape[0]
        assert np.linalg.norm(A - target) > 4 * (1 - r * r) / 4000 / 2


def test_project_spectrum_clips_and_never_moves_away():
    rng = np.random.default_rng(6)
    B = rng.standard_normal((6, 6))
    target = B @ B.T
    target /= np.linalg.eigvalsh(target).max()  # in {0 ⪯ S ⪯ I}
    M = target + rng.standard_normal((6, 6))
    M = (M + M.T) / 2
    P = ts_spectrum.project_spectrum(M)
    lam = np.linalg.eigvalsh(P)
    assert lam.min() >= -1e-12 and lam.max() <= 1 + 1e-12
    assert np.linalg.norm(P - target) <= np.linalg.norm(M - target)
    np.testing.assert_allclose(ts_spectrum.project_spectrum(P), P, atol=1e-12)


def _in_trace_set(rng, d, b):
    """A random matrix of {0 ⪯ S ⪯ I, tr S ≤ b}."""
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    mu = rng.uniform(0, 1, d) * rng.integers(0, 2, d)
    if mu.sum() > b:
        mu *= b / mu.sum()
    return (Q * mu) @ Q.T


@pytest.mark.parametrize("seed", range(20))
def test_trace_projection_is_the_projection_onto_its_set(seed):
    # the variational inequality <M − P, S − P> ≤ 0 for every S of the set
    # characterises the Frobenius projection P of M onto a closed convex set
    rng = np.random.default_rng(seed)
    d = int(rng.integers(2, 9))
    b = float(rng.uniform(0.1, d / 2))
    M = rng.standard_normal((d, d)) * rng.uniform(0.1, 2)
    M = (M + M.T) / 2 + np.eye(d) * rng.uniform(-0.5, 1.5)
    P = ts_spectrum.project_spectrum_with_trace(M, b)
    clipped = ts_spectrum.project_spectrum(M)
    lam = np.linalg.eigvalsh(P)
    assert lam.min() >= -1e-12 and lam.max() <= 1 + 1e-12
    assert np.trace(P) <= b + 1e-9
    for _ in range(50):
        S = _in_trace_set(rng, d, b)
        # P is the projection of the clipped matrix onto the set
        assert np.sum((clipped - P) * (S - P)) <= 1e-9
        assert np.linalg.norm(P - S) <= np.linalg.norm(clipped - S) + 1e-12
        assert np.linalg.norm(clipped - S) <= np.linalg.norm(M - S) + 1e-12
    # a bound that does not bind: the plain projection onto [0, 1]
    loose = ts_spectrum.project_spectrum_with_trace(M, 2.0 * d)
    np.testing.assert_allclose(
        loose, ts_spectrum.project_spectrum(M), atol=1e-12
    )


def test_trace_projection_starts_from_the_clipped_spectrum():
    # the red team's counterexample: projecting M itself onto the set moves
    # it farther from A than clipping does (0.707 against 0.5)
    A = np.diag([0.5, 0.5])
    M = np.diag([3.0, 0.5])
    P = ts_spectrum.project_spectrum_with_trace(M, 1.0)
    clipped = ts_spectrum.project_spectrum(M)
    assert np.linalg.norm(P - A) <= np.linalg.norm(clipped - A)
    np.testing.assert_allclose(P, np.diag([0.75, 0.25]), atol=1e-12)


def test_trace_projection_never_increases_the_error_when_its_bound_holds():
    # the projection uses no randomness: the same seed gives the same release
    # before it, so the two errors compare release by release
    rng = np.random.default_rng(8)
    d = 40
    U = np.linalg.qr(rng.standard_normal((d, 3)))[0]
    X = rng.standard_normal((20_000, 3)) * [0.8, 0.4, 0.2] @ U.T
    X /= np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]
    A = X.T @ X / X.shape[0]
    gains, releases = [], set()
    for seed in range(12):
        M, run = ts.trace_sensitive_covariance(
            X, epsilon=EPS, delta=DELTA, rng=seed, return_run=True
        )
        M0 = ts.trace_sensitive_covariance(
            X, epsilon=EPS, delta=DELTA, rng=seed, trace_projection=False
        )
        releases.add(run.choice.release)
        r = run.choice.radius
        A_r = (
            dppca.linalg.clipped_sums.clipped_second_moment(X, r).matrix * r * r
        )
        assert np.linalg.norm(M - A_r) <= np.linalg.norm(M0 - A_r) + 1e-12
        gains.append(np.linalg.norm(M0 - A) - np.linalg.norm(M - A))
    # on three directions in forty the noise's positive spectrum is most of
    # the error, and the projection removes it
    assert np.mean(gains) > 0
    assert "gaussian" in releases


# --- eigenvalues with a proved error ---------------------------------------------


def test_verified_eigenvalues_bound_the_true_error():
    d = 40
    A = 2 * np.eye(d) - np.eye(d, k=1) - np.eye(d, k=-1)  # exact in float
    exact = 2 - 2 * np.cos(np.arange(d, 0, -1) * np.pi / (d + 1))
    lam, bound = ts_spectrum.verified_eigenvalues(A)
    assert np.linalg.norm(lam - exact) <= bound + 4 * d * 2.0**-53
    assert bound < 1e-10  # far inside the margin the calibration allows


def test_verified_eigenvalues_catch_an_inaccurate_decomposition(monkeypatch):
    d = 12
    A = np.diag(np.arange(1.0, d + 1))
    good = np.linalg.eigh

    def sloppy(M):
        lam, V = good(M)
        return lam + 1e-6, V  # every eigenvalue off by 1e-6

    monkeypatch.setattr(np.linalg, "eigh", sloppy)
    lam, bound = ts_spectrum.verified_eigenvalues(A)
    assert np.linalg.norm(lam - np.arange(d, 0, -1)) <= bound
    assert bound >= 1e-6 * math.sqrt(d)


# --- the release -------------------------------------------------------------------


def test_release_type_record_and_seeds():
    rng = np.random.default_rng(7)
    X = small_trace_rows(300, 4, 0.3, rng)
    a = ts.trace_sensitive_covariance(X, epsilon=EPS, delta=DELTA, rng=11)
    b = ts.trace_sensitive_covariance(X, epsilon=EPS, delta=DELTA, rng=11)
    c = ts.trace_sensitive_covariance(X, epsilon=EPS, delta=DELTA)
    d = ts.trace_sensitive_covariance(X, epsilon=EPS, delta=DELTA)
    assert isinstance(a, Released) and a.shape == (4, 4)
    assert a.guarantee == ts.trace_sensitive_guarantee(300, 4, EPS, DELTA)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(c, d)  # fresh entropy by default
    np.testing.assert_allclose(a, np.asarray(a).T)
    assert np.linalg.eigvalsh(np.asarray(a)).min() >= -1e-12
    with pytest.warns(UnprovedGuaranteeWarning):
        f = ts.trace_sensitive_covariance(
            X, epsilon=EPS, delta=DELTA, noise="float"
        )
    assert not f.guarantee.proved


def test_sparse_and_dense_rows_give_the_same_release():
    rng = np.random.default_rng(8)
    X = small_trace_rows(500, 6, 0.2, rng)
    X[np.abs(X) < 0.05] = 0.0
    dense = ts.trace_sensitive_covariance(X, epsilon=EPS, delta=DELTA, rng=3)
    sparse = ts.trace_sensitive_covariance(
        scipy.sparse.csr_matrix(X), epsilon=EPS, delta=DELTA, rng=3
    )
    np.testing.assert_allclose(dense, sparse, atol=1e-12)


def test_subspace_is_the_top_eigenvectors_of_the_release():
    rng = np.random.default_rng(9)
    X = small_trace_rows(2000, 8, 0.5, rng)
    V = ts.trace_sensitive_subspace(X, 2, epsilon=EPS, delta=DELTA, rng=5)
    cov = ts.trace_sensitive_covariance(X, epsilon=EPS, delta=DELTA, rng=5)
    assert isinstance(V, Released) and V.shape == (8, 2)
    assert V.guarantee == cov.guarantee
    np.testing.assert_allclose(V.T @ V, np.eye(2), atol=1e-12)
    np.testing.assert_allclose(
        dppca.linalg.projector(V),
        dppca.linalg.projector(dppca.linalg.top_k_subspace(cov, 2)),
        atol=1e-10,
    )


@pytest.mark.parametrize(
    "call, error",
    [
        (
            lambda X: ts.trace_sensitive_covariance(
                2 * X, epsilon=EPS, delta=DELTA
            ),
            ValueError,
        ),
        (
            lambda X: ts.trace_sensitive_covariance(
                X, epsilon=0.0, delta=DELTA
            ),
            ValueError,
        ),
        (
            lambda X: ts.trace_sensitive_covariance(X, epsilon=EPS, delta=1.0),
            ValueError,
        ),
        (
            lambda X: ts.trace_sensitive_covariance(
                X, epsilon=EPS, delta=DELTA, noise="exact"
            ),
            ValueError,
        ),
        (
            lambda X: ts.trace_sensitive_covariance(
                X, epsilon=EPS, delta=DELTA, method="gauss"
            ),
            ValueError,
        ),
        (
            lambda X: ts.trace_sensitive_covariance(
                X, epsilon=EPS, delta=DELTA, beta=1.5
            ),
            ValueError,
        ),
        (
            lambda X: ts.trace_sensitive_covariance(
                X[0], epsilon=EPS, delta=DELTA
            ),
            ValueError,
        ),
        (
            lambda X: ts.trace_sensitive_covariance(
                np.where(X > 0, np.nan, X), epsilon=EPS, delta=DELTA
            ),
            ValueError,
        ),
        (
            lambda X: ts.trace_sensitive_covariance(
                X, epsilon="1", delta=DELTA
            ),
            TypeError,
        ),
        (
            lambda X: ts.trace_sensitive_subspace(
                X, 4, epsilon=EPS, delta=DELTA
            ),
            ValueError,
        ),
        (
            lambda X: ts_calibration.trace_sensitive_calibration(
                10, 4, EPS, DELTA, shares=(0.5, 0.5, 0.5)
            ),
            ValueError,
        ),
        (
            lambda X: ts_calibration.trace_sensitive_calibration(
                10, 1, EPS, DELTA
            ),
            ValueError,
        ),
        (
            lambda X: ts_calibration.trace_sensitive_calibration(
                0, 4, EPS, DELTA
            ),
            ValueError,
        ),
    ],
)
def test_validation_errors(call, error):
    X = dppca.validation.normalize_rows(
        np.random.default_rng(0).standard_normal((20, 4))
    )
    with pytest.raises(error):
        call(X)


def test_long_rows_are_refused_without_a_count():
    """The refusal names the domain, never a count or a norm of the rows."""
    X = np.full((5, 2), 0.1)
    X[2] = [3.0, 0.0]
    with pytest.raises(ValueError, match="norm > 1") as info:
        ts.trace_sensitive_covariance(X, epsilon=EPS, delta=DELTA)
    assert "1 of 5" not in str(info.value) and "3.0" not in str(info.value)


# --- error against the bound (Monte Carlo, fixed seeds) -----------------------------


@pytest.mark.parametrize("scale", [1.0, 0.2, 0.05])
def test_separate_error_stays_below_the_bound(scale):
    rng = np.random.default_rng(10)
    n, d = 3000, 20
    X = small_trace_rows(n, d, scale, rng)
    A = X.T @ X / n
    bound = ts.trace_sensitive_error_bound(n, d, np.trace(A), EPS, DELTA)
    errors = [
        np.linalg.norm(
            ts.trace_sensitive_covariance(
                X, epsilon=EPS, delta=DELTA, rng=rng, method="separate"
            )
            - A
        )
        for _ in range(20)
    ]
    assert max(errors) <= bound


def test_bound_has_the_papers_rate():
    """2√(tr σ_V ν) + σ_λ η: exactly √tr in the trace, and n^{-1/2} in n for
    the first term (σ ∝ 1/n)."""
    d = 50
    t1 = ts.trace_sensitive_error_bound(
        10**4, d, 0.04, EPS, DELTA, noise="float"
    )
    t4 = ts.trace_sensitive_error_bound(
        10**4, d, 0.16, EPS, DELTA, noise="float"
    )
    t0 = ts.trace_sensitive_error_bound(
        10**4, d, 0.0, EPS, DELTA, noise="float"
    )
    assert (t4 - t0) / (t1 - t0) == pytest.approx(2.0, rel=1e-12)
    n4 = ts.trace_sensitive_error_bound(
        4 * 10**4, d, 0.04, EPS, DELTA, noise="float"
    )
    n4_0 = ts.trace_sensitive_error_bound(
        4 * 10**4, d, 0.0, EPS, DELTA, noise="float"
    )
    assert (t1 - t0) / (n4 - n4_0) == pytest.approx(2.0, rel=1e-6)
    assert t0 / n4_0 == pytest.approx(4.0, rel=1e-6)


def test_adaptive_beats_analyze_gauss_when_the_trace_is_small():
    rng = np.random.default_rng(12)
    n, d = 2000, 60
    X = small_trace_rows(n, d, 0.05, rng, outliers=10)
    A = X.T @ X / n
    ours = [
        np.linalg.norm(
            ts.trace_sensitive_covariance(X, epsilon=EPS, delta=DELTA, rng=rng)
            - A
        )
        for _ in range(5)
    ]
    gauss = [
        np.linalg.norm(
            dppca.analyze_gauss(X, epsilon=EPS, delta=DELTA, rng=rng) - A
        )
        for _ in range(5)
    ]
    assert max(ours) * 10 < min(gauss)


def test_moment_cache_leaves_the_release_unchanged():
    """The cache holds deterministic functions of X: with the same seed a
    release with a (filled) cache equals one without."""
    gen = np.random.default_rng(8)
    X = gen.standard_normal((300, 5))
    X *= (gen.random((300, 1)) * 0.5) / np.linalg.norm(X, axis=1, keepdims=True)
    cache = {}
    first = ts.trace_sensitive_covariance(
        X, epsilon=1.0, delta=1e-5, rng=3, moment_cache=cache
    )
    assert len(cache) == 1
    again = ts.trace_sensitive_covariance(
        X, epsilon=1.0, delta=1e-5, rng=3, moment_cache=cache
    )
    plain = ts.trace_sensitive_covariance(X, epsilon=1.0, delta=1e-5, rng=3)
    assert np.array_equal(np.asarray(first), np.asarray(plain))
    assert np.array_equal(np.asarray(again), np.asarray(plain))


def test_separate_estimate_is_the_post_processing_of_the_release():
    """No noise gives A back; values are sorted and, with an interval,
    projected onto it; the eigenvectors are those of the noisy matrix."""
    rng = np.random.default_rng(2)
    B = rng.standard_normal((5, 5))
    A = B @ B.T / 20
    lam = np.linalg.eigvalsh(A)
    np.testing.assert_allclose(
        ts_spectrum.separate_estimate(A, lam), A, atol=1e-12
    )
    M = ts_spectrum.separate_estimate(A, lam[::-1] + 10.0, interval=(0.0, 1.0))
    np.testing.assert_allclose(M, np.eye(5), atol=1e-12)  # every value at 1
    E = np.diag(np.arange(5.0))
    out = ts_spectrum.separate_estimate(
        E, [3.0, -1.0, 2.0, 0.5, 1.0], interval=(0, 2)
    )
    np.testing.assert_allclose(out, np.diag([0.0, 0.5, 1.0, 2.0, 2.0]))


# --- the eigenvalue step cannot refuse (issue 26) ---------------------------------


def test_release_never_reads_a_data_dependent_refusal(monkeypatch):
    """The eigenvalue step takes Rayleigh quotients along the released
    eigenvectors: no eigenvalue verification runs on the data, so a failing
    verifier cannot stop a release, and a basis that fails the public defect
    check falls back to the identity (a function of the release alone)."""

    def refuse(*args, **kwargs):  # pragma: no cover - must not be called
        raise AssertionError("the release verified eigenvalues of the data")

    monkeypatch.setattr(ts_spectrum, "verified_eigenvalues", refuse)
    rng = np.random.default_rng(3)
    X = dppca.validation.normalize_rows(rng.standard_normal((400, 6)))
    for method in ("separate", "adaptive"):
        out = ts.trace_sensitive_covariance(
            X, epsilon=1.0, delta=1e-5, rng=1, method=method
        )
        assert np.all(np.isfinite(out))
    good = np.linalg.eigh

    def skewed(M):
        lam, V = good(M)
        return lam, V * 1.001  # columns no longer unit

    monkeypatch.setattr(np.linalg, "eigh", skewed)
    np.testing.assert_array_equal(
        ts_spectrum.released_basis(np.diag([3.0, 2.0, 1.0])), np.eye(3)
    )
    out = ts.trace_sensitive_covariance(
        X, epsilon=1.0, delta=1e-5, rng=1, method="separate"
    )
    assert np.all(np.isfinite(out))


def test_rayleigh_values_are_never_worse_than_the_eigenvalues():
    """For orthonormal P̃, diag(P̃ᵀAP̃) is the Frobenius-closest diagonal, so
    the book's values do at least as well as the paper's λ(A) and obey the
    same lemma."""
    rng = np.random.default_rng(11)
    for _ in range(200):
        d = int(rng.integers(2, 9))
        B = rng.standard_normal((d, d)) * rng.random(d)
        A = B @ B.T
        E = rng.standard_normal((d, d)) * 10.0 ** rng.uniform(-3, 1)
        E = (E + E.T) / 2
        P = np.linalg.eigh(A + E)[1][:, ::-1]
        paper = ts_spectrum.separate_estimate(A + E, np.linalg.eigvalsh(A))
        D = ts_spectrum.rayleigh_quotients(A, P)
        ours = (P * D) @ P.T
        assert np.linalg.norm(ours - A) <= np.linalg.norm(paper - A) + 1e-9
        bound = ts_spectrum.separate_error_bound(
            np.trace(A), np.linalg.norm(E, 2), 0
        )
        assert np.linalg.norm(ours - A) <= bound + 1e-9
        lam = np.linalg.eigvalsh(A)
        assert lam[0] - 1e-9 <= D.min() and D.max() <= lam[-1] + 1e-9


def test_rayleigh_margin_bounds_the_float_error():
    from fractions import Fraction

    rng = np.random.default_rng(5)
    d = 7
    X = dppca.validation.normalize_rows(rng.standard_normal((50, d)))
    A = dppca.linalg.clipped_sums.clipped_second_moment(X, 1.0).matrix
    P = ts_spectrum.released_basis(A + 1e-3 * rng.standard_normal((d, d)))
    computed = ts_spectrum.rayleigh_quotients(A, P)
    exact = [
        sum(
            Fraction(P[j, i]) * Fraction(A[j, k]) * Fraction(P[k, i])
            for j in range(d)
            for k in range(d)
        )
        for i in range(d)
    ]
    error = math.sqrt(
        sum(float((Fraction(c) - e) ** 2) for c, e in zip(computed, exact))
    )
    assert error <= ts_calibration.rayleigh_margin(d)


# --- the selection rule --------------------------------------------------------------


def test_authors_selection_discounts_the_trace_term_only():
    n, d = 2000, 100
    cal = ts_calibration.trace_sensitive_calibration(n, d, 1.0, 1e-5)
    hist = np.zeros(ts_calibration.DEFAULT_LEVELS)
    hist[3] = n
    a = ts_radius.choose_radius(0.01, hist, n, d, cal)
    b = ts_radius.choose_radius(0.01, hist, n, d, cal, selection="bounds")
    values = cal.steps["values"].sigma * ts_radius.gaussian_norm_bound(d, 0.05)
    trace_a = a.separate / a.radii**2 - values
    trace_b = b.separate / b.radii**2 - values
    np.testing.assert_allclose(trace_a, trace_b / 6, rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(a.gaussian, b.gaussian)
    np.testing.assert_array_equal(a.bias, b.bias)
    with pytest.raises(ValueError, match="selection"):
        ts_radius.choose_radius(0.01, hist, n, d, cal, selection="oracle")
    # same record whatever the rule: the rule is post-processing
    X = dppca.validation.normalize_rows(
        np.random.default_rng(2).standard_normal((n, 8))
    )
    r1 = ts.trace_sensitive_covariance(X, epsilon=1.0, delta=1e-5, rng=0)
    r2 = ts.trace_sensitive_covariance(
        X, epsilon=1.0, delta=1e-5, rng=0, selection="bounds"
    )
    assert r1.guarantee == r2.guarantee
