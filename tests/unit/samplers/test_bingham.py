"""Exactness tests of the Bingham samplers against quadrature and importance
sampling.

Tolerances: |estimate - truth| <= Z * sqrt(se_sample^2 + se_truth^2) with
standard errors from the Monte Carlo itself (batch means for Markov chains) and
Z = 4.5, so that the few hundred comparisons below have a family-wise
false-alarm probability below 1e-3.
"""

import numpy as np
import pytest
from scipy import integrate

from dppca.book.diagnostics import bingham as bingham_diagnostics
from dppca.samplers import bingham

Z = 4.5


def rotated(spectrum, rng):
    d = len(spectrum)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    B = (Q * np.asarray(spectrum, float)) @ Q.T
    return (B + B.T) / 2


def circle_truth(B):
    """E[x x^T] under exp(x^T B x) on the unit circle, by adaptive
    quadrature."""

    def density(t):
        x = np.array([np.cos(t), np.sin(t)])
        return np.exp(x @ B @ x - np.abs(B).sum())

    Zc = integrate.quad(
        density, 0, 2 * np.pi, limit=200, epsabs=1e-13, epsrel=1e-11
    )[0]
    out = np.empty((2, 2))
    for i in range(2):
        for j in range(2):
            f = lambda t: (
                density(t)
                * np.array([np.cos(t), np.sin(t)])[i]
                * np.array([np.cos(t), np.sin(t)])[j]
            )
            out[i, j] = (
                integrate.quad(
                    f, 0, 2 * np.pi, limit=200, epsabs=1e-13, epsrel=1e-11
                )[0]
                / Zc
            )
    return out


def outer_stats(X):
    P = np.einsum("mi,mj->mij", X, X)
    return P.mean(0), P.std(0, ddof=1) / np.sqrt(len(X))


def batch_means(values, n_batches=40):
    values = np.asarray(values)
    m = len(values) // n_batches
    means = (
        values[: m * n_batches].reshape(n_batches, m, *values.shape[1:]).mean(1)
    )
    return means.mean(0), means.std(0, ddof=1) / np.sqrt(n_batches)


def assert_close(est, se, truth, truth_se=0.0, label=""):
    tol = Z * np.sqrt(np.asarray(se) ** 2 + np.asarray(truth_se) ** 2)
    err = np.abs(np.asarray(est) - np.asarray(truth))
    assert np.all(err <= tol), (
        f"{label}: max |err| {err.max():.4g}, errors {err}, tolerances {tol}"
    )


@pytest.mark.parametrize(
    "spectrum", [(0.0, 0.0), (1.0, 0.0), (5.0, -2.0), (40.0, 0.0)]
)
def test_exact_vector_sampler_circle_quadrature(spectrum):
    rng = np.random.default_rng(11)
    B = rotated(spectrum, rng)
    X = bingham.sample_vector_bingham(B, size=20000, rng=rng)
    est, se = outer_stats(X)
    assert_close(est, se, circle_truth(B), label=f"d=2 {spectrum}")


SPHERE_CASES = [
    (
        4.0,
        3.0,
        2.0,
        1.0,
        0.0,
    ),  # the case a flipped acceptance exponent gets wrong
    (2.0, 0.0, 0.0),
    (10.0, 5.0, 0.0, 0.0),
    (-3.0, 0.0, 1.0, 2.0, 6.0, 6.5),
    (20.0, 0.0, 0.0),
]


@pytest.fixture(scope="module")
def sphere_truths():
    """High-accuracy importance-sampling truths (uniform proposals on the
    sphere)."""
    rng = np.random.default_rng(2024)
    out = {}
    for spectrum in SPHERE_CASES:
        B = rotated(spectrum, rng)
        est, se, ess = bingham_diagnostics.importance_expectation(
            B,
            1,
            lambda Q: np.einsum("mi,mj->mij", Q[:, :, 0], Q[:, :, 0]),
            400000,
            rng,
        )
        assert ess > 20000, (
            f"importance sampling too degenerate for {spectrum}: ESS {ess:.0f}"
        )
        out[spectrum] = (B, est, se)
    return out


@pytest.mark.parametrize("spectrum", SPHERE_CASES)
def test_exact_vector_sampler_against_importance_sampling(
    spectrum, sphere_truths
):
    B, truth, truth_se = sphere_truths[spectrum]
    rng = np.random.default_rng(7)
    X, stats = bingham.sample_vector_bingham(
        B, size=30000, rng=rng, return_stats=True
    )
    est, se = outer_stats(X)
    assert_close(est, se, truth, truth_se, label=f"ACG {spectrum}")
    assert 0 < stats["accepted"] <= stats["proposals"]


def test_known_value_diag_43210():
    """E[x_1^2] for B = diag(4,3,2,1,0) in d = 5 is about 0.335 (a sign flip
    gives about 0.66)."""
    rng = np.random.default_rng(3)
    X = bingham.sample_vector_bingham(
        np.diag([4.0, 3, 2, 1, 0]), size=40000, rng=rng
    )
    m = np.mean(X[:, 0] ** 2)
    se = np.std(X[:, 0] ** 2, ddof=1) / np.sqrt(len(X))
    truth, truth_se, _ = bingham_diagnostics.importance_expectation(
        np.diag([4.0, 3, 2, 1, 0]), 1, lambda Q: Q[:, 0, 0] ** 2, 400000, rng
    )
    assert abs(m - truth) <= Z * np.hypot(se, truth_se)
    assert abs(truth - 0.335) < 0.003


@pytest.mark.parametrize("spectrum", [(5.0, -2.0), (40.0, 0.0)])
def test_hoff_vector_chain_circle(spectrum):
    rng = np.random.default_rng(5)
    B = rotated(spectrum, rng)
    _, trace = bingham.hoff_gibbs(
        B, 1, 5000, rng=rng, record=lambda V: np.outer(V[:, 0], V[:, 0])
    )
    est, se = batch_means(trace[200:])
    assert_close(est, se, circle_truth(B), label=f"Hoff d=2 {spectrum}")


@pytest.mark.parametrize("spectrum", [SPHERE_CASES[0], SPHERE_CASES[2]])
def test_hoff_vector_chain_sphere(spectrum, sphere_truths):
    B, truth, truth_se = sphere_truths[spectrum]
    rng = np.random.default_rng(6)
    _, trace = bingham.hoff_gibbs(
        B, 1, 5000, rng=rng, record=lambda V: np.outer(V[:, 0], V[:, 0])
    )
    est, se = batch_means(trace[200:])
    assert_close(est, se, truth, truth_se, label=f"Hoff {spectrum}")


def test_acg_parameter_and_bound():
    a = np.array([0.0, 1.0, 3.0, 10.0])
    b = bingham.acg_parameter(a)
    assert 0 < b <= a.size and np.isclose(np.sum(1 / (b + 2 * a)), 1.0)
    # the envelope inequality exp(-s)(1+2s/b)^(q/2) <= M on a fine grid of s
    s = np.linspace(0, 200, 200001)
    for q, bb in [(5, b), (5, 5.0), (50, 3.0)]:
        log_lhs = -s + q / 2 * np.log1p(2 * s / bb)
        assert log_lhs.max() <= bingham.acg_log_bound(q, bb) + 1e-12
        assert (
            log_lhs.max() >= bingham.acg_log_bound(q, bb) - 1e-6
        )  # and it is tight
    assert bingham.acg_parameter(np.zeros(3)) == 3.0


def matrix_functions(v1, A):
    def fn(Q):
        qf = np.einsum("mik,ij,mjk->m", Q, A, Q)
        first = np.abs(Q[:, :, 0] @ v1)
        span = np.sum((np.einsum("i,mik->mk", v1, Q)) ** 2, axis=1)
        return np.column_stack(
            [qf, first, span, qf**2, (first > 0.8).astype(float)]
        )

    return fn


@pytest.mark.parametrize(
    "d,spectrum", [(4, (3.0, 2.0, 0.5, 0.0)), (5, (6.0, 5.0, 1.0, 0.0, 0.0))]
)
def test_matrix_samplers_k2_against_importance_sampling(d, spectrum):
    """k = 2: the law of q_F = tr(V^T A V), |<v̂_1, v_1>| (first column) and
    ||V^T v_1||^2 under
    the Hoff and fast samplers, against importance-sampling truth and against
    each other."""
    rng = np.random.default_rng(100 + d)
    B = rotated(spectrum, rng)
    A = B / np.abs(B).max()
    v1 = np.linalg.eigh(B)[1][:, -1]
    fn = matrix_functions(v1, A)
    truth, truth_se, ess = bingham_diagnostics.importance_expectation(
        B, 2, fn, 300000, rng
    )
    assert ess > 10000
    results = {}
    for name, sampler, sweeps in (
        ("fast", bingham.fast_gibbs, 2000),
        ("hoff", bingham.hoff_gibbs, 3000),
    ):
        _, trace = sampler(
            B, 2, sweeps, rng=rng, record=lambda V: fn(V[None])[0]
        )
        results[name] = batch_means(np.array(trace[100:]))
        assert_close(*results[name], truth, truth_se, label=f"{name} d={d}")
    (ef, sf), (eh, sh) = results["fast"], results["hoff"]
    assert_close(ef, sf, eh, sh, label="fast vs hoff")


def test_fast_gibbs_high_dimension_runs_and_is_orthonormal():
    rng = np.random.default_rng(9)
    d, k = 120, 4
    B = rotated(300 * 0.8 ** np.arange(d), rng)
    V, stats = bingham.fast_gibbs(B, k, 3, rng=rng, return_stats=True)
    assert np.allclose(V.T @ V, np.eye(k), atol=1e-10)
    assert stats["draws"] == 3 * k and stats["accepted"] >= stats["draws"]
    diag = bingham_diagnostics.crossing_diagnostic(B, k, max_sweeps=50, rng=rng)
    assert diag["tau"] is not None and diag["certified"] >= diag["tau"]


def test_mean_statistic_trace():
    X = np.ones((4, 3, 2))
    X[1] *= -1
    F = bingham_diagnostics.mean_statistic_trace(X)
    assert np.allclose(F, [np.sqrt(3), 0, np.sqrt(3) / 3, np.sqrt(3) / 2])


def test_bad_inputs():
    with pytest.raises(ValueError):
        bingham.sample_vector_bingham(np.array([[1.0, 2.0], [0.0, 1.0]]))
    with pytest.raises(ValueError):
        bingham.fast_gibbs(np.eye(3), 3, 1)
    with pytest.raises(ValueError):
        bingham.acg_log_bound(5, 6.0)
    with pytest.raises(ValueError):
        bingham.sample_vector_bingham(np.eye(3), size=0)


def test_fast_gibbs_lanczos_path_against_importance_sampling(monkeypatch):
    """Forces the Lanczos (ARPACK) bound on the compression's top eigenvalue,
    used at large d."""
    monkeypatch.setattr(bingham, "DENSE_COMPRESSION_MAX_D", 4)
    rng = np.random.default_rng(70)
    d = 12
    B = rotated([4.0, 3.0, 2.0] + [0.0] * (d - 3), rng)
    v1 = np.linalg.eigh(B)[1][:, -1]
    fn = matrix_functions(v1, B / 4.0)
    truth, truth_se, ess = bingham_diagnostics.importance_expectation(
        B, 2, fn, 200000, rng
    )
    assert ess > 5000
    _, trace = bingham.fast_gibbs(
        B, 2, 600, rng=rng, record=lambda V: fn(V[None])[0]
    )
    est, se = batch_means(np.array(trace[20:]), n_batches=20)
    assert_close(est, se, truth, truth_se, label="fast, Lanczos path")


def test_window_diagnostic_certifies_a_fast_mixing_case():
    rng = np.random.default_rng(12)
    B = rotated(50 * 0.7 ** np.arange(30), rng)
    out = bingham_diagnostics.window_diagnostic(B, 3, rng=rng, max_sweeps=256)
    assert out["certified"] is not None and out["certified"] >= 8
    assert out["traces"].shape[1] == out["certified"]
    assert all(c["between_z"] >= 0 and c["drift_z"] >= 0 for c in out["checks"])


@pytest.mark.parametrize(
    "shape_k, a", [(3.0, -50.0), (1.0, -4.0), (74.5, -1e6), (3.0, -2.0)]
)
def test_hoff_theta_law_matches_quadrature(shape_k, a):
    """θ ∝ θ^(-1/2) (1-θ)^(shape_k-1) e^(aθ) on (0, 1): the mean of 20000
    draws (Gamma envelope
    when a < -shape_k, Hoff's Beta envelope otherwise) against quadrature,
    within 5 SE."""
    from scipy import integrate

    def density(t):
        return t**-0.5 * (1 - t) ** (shape_k - 1) * np.exp(a * (t - 0.0))

    scale = 1.0 / max(1.0, -a)
    points = [scale * 10.0**j for j in range(-3, 3) if scale * 10.0**j < 1]
    z = integrate.quad(density, 0, 1, points=points, limit=200)[0]
    m1 = (
        integrate.quad(
            lambda t: t * density(t), 0, 1, points=points, limit=200
        )[0]
        / z
    )
    m2 = (
        integrate.quad(
            lambda t: t * t * density(t), 0, 1, points=points, limit=200
        )[0]
        / z
    )
    rng = np.random.default_rng(11)
    n = 20000
    draws = np.array([bingham._hoff_theta(shape_k, a, rng) for _ in range(n)])
    se = np.sqrt((m2 - m1**2) / n)
    assert abs(draws.mean() - m1) < 5 * se


def test_sample_on_complement_matches_the_circle_law_by_quadrature():
    """On range(W)^⊥ for W = e_3 in R^3 the law is ∝ exp(l1 x1² + l2 x2²) on
    the unit circle of the (e1, e2) plane: E[x1²] by quadrature over the
    angle."""
    from scipy.integrate import quad

    from dppca.montecarlo import mean_ci

    lam = np.array([3.0, 1.0, 0.5])  # descending, >= 0
    W = np.eye(3)[:, [2]]
    rng = np.random.default_rng(8)
    draws = np.array(
        [bingham.sample_on_complement(lam, W, rng) for _ in range(6000)]
    )
    np.testing.assert_allclose(np.linalg.norm(draws, axis=1), 1.0, atol=1e-12)
    assert np.abs(draws[:, 2]).max() < 1e-12
    density = lambda t: np.exp(
        lam[0] * np.cos(t) ** 2 + lam[1] * np.sin(t) ** 2
    )
    z = quad(density, 0, 2 * np.pi)[0]
    exact = quad(lambda t: np.cos(t) ** 2 * density(t), 0, 2 * np.pi)[0] / z
    est = mean_ci(draws[:, 0] ** 2, 0.9999)
    assert est.low <= exact <= est.high, (est, exact)


def test_sample_on_complement_when_w_outnumbers_the_tail_coordinates():
    """k close to d with many directions above the envelope's c: W has three
    columns but only two coordinates have D >= 1/2, so the proposal is drawn
    in a basis of the complement (it raised LinAlgError before). The law on
    the circle S = range(W)^⊥ is checked against quadrature over the angle,
    by a Kolmogorov-Smirnov test of the angle's exact distribution."""
    from scipy import stats

    lam = np.array([10.0, 9.0, 8.0, 0.8, 0.0])  # descending, >= 0
    rng = np.random.default_rng(3)
    mix = np.linalg.qr(np.eye(5) + 0.15 * rng.standard_normal((5, 5)))[0]
    W = np.linalg.qr(mix[:, :3])[0]  # mostly e1, e2, e3, mixed a little
    c = bingham.compression_top(lam, W, np.eye(5)[:, 3])
    assert c < 7.0  # so the three top coordinates lie above c + b/4
    N = np.linalg.qr(W, mode="complete")[0][:, 3:]  # basis of S
    C = N.T @ (lam[:, None] * N)  # the law on S: ∝ exp(yᵀ C y), |y| = 1

    def density(t):
        y = np.stack([np.cos(t), np.sin(t)])
        return np.exp(np.einsum("i...,ij,j...->...", y, C, y))

    draws = np.array(
        [bingham.sample_on_complement(lam, W, rng) for _ in range(4000)]
    )
    np.testing.assert_allclose(W.T @ draws.T, 0.0, atol=1e-12)
    y = draws @ N
    angle = np.mod(np.arctan2(y[:, 1], y[:, 0]), np.pi)  # law symmetric in ±
    z = integrate.quad(density, 0, np.pi)[0]

    def cdf(t):
        return np.array(
            [integrate.quad(density, 0, s)[0] / z for s in np.atleast_1d(t)]
        )

    assert stats.kstest(angle, cdf).pvalue > 1e-3
