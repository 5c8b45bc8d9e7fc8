"""The noise layer: exact laws of the safe samplers, grids, calibration, and
the mechanisms."""

import math

import numpy as np
import pytest
from scipy import stats

import dppca
from dppca import privacy
from dppca.linalg.moments import unit_rows_second_moment
from dppca.mechanisms import gaussian_approx as ga
from dppca.mechanisms import input_perturbation as ip
from dppca.privacy import discrete_noise, noise

P_MIN = 1e-5  # a correct sampler fails a test below with probability about 1e-5


def chi_square_p_value(samples, support, pmf):
    """Pearson's chi-square test of integer samples against an exact pmf on
    ``support``,
    pooling everything outside ``support`` into one tail cell."""
    samples = np.asarray(samples)
    counts = np.array([(samples == z).sum() for z in support])
    tail = samples.size - counts.sum()
    probs = np.asarray(pmf, dtype=float)
    expected = np.append(probs, max(1.0 - probs.sum(), 0.0)) * samples.size
    observed = np.append(counts, tail)
    keep = expected > 0
    assert observed[~keep].sum() == 0, "samples outside the support of the law"
    return stats.chisquare(observed[keep], expected[keep]).pvalue


@pytest.mark.parametrize(
    "num, den",
    [(0, 1), (1, 1), (3, 7), (7, 7), (5, 2), (13, 4), (10**12, 3 * 10**11)],
)
def test_bernoulli_exp_has_probability_exp_minus_num_over_den(num, den):
    rng = np.random.default_rng(1)
    size = 200_000
    draws = noise.bernoulli_exp(np.full(size, num), den, rng)
    p = math.exp(-num / den)
    assert stats.binomtest(int(draws.sum()), size, p).pvalue > P_MIN


def test_bernoulli_exp_minus_one_continues_runs_exactly():
    """Continuing Algorithm 1 (γ = 1) from step 3 gives P(K odd | K ≥ 3) =
    2/e: the rule used
    for the runs that pass step 20 of the one-draw shortcut."""
    rng = np.random.default_rng(2)
    size = 200_000
    one = np.ones(size, dtype=np.int64)
    draws = discrete_noise._bernoulli_exp_fraction(rng, one, 1, first_step=3)
    assert stats.binomtest(int(draws.sum()), size, 2 / math.e).pvalue > P_MIN
    big = [discrete_noise._bernoulli_exp_big(rng, 3, 2) for _ in range(20_000)]
    assert stats.binomtest(sum(big), 20_000, math.exp(-1.5)).pvalue > P_MIN


@pytest.mark.parametrize("t", [1, 3, 10])
def test_discrete_laplace_law(t):
    rng = np.random.default_rng(3)
    z = noise.discrete_laplace(t, 300_000, rng)
    q = math.exp(-1.0 / t)
    support = np.arange(-12 * t, 12 * t + 1)
    pmf = (1 - q) / (1 + q) * q ** np.abs(support)
    assert z.dtype == np.int64
    assert chi_square_p_value(z, support, pmf) > P_MIN


@pytest.mark.parametrize("variance", [0.7, 2.5, 6, 50])
def test_discrete_gaussian_law(variance):
    rng = np.random.default_rng(4)
    t, c = noise.discrete_gaussian_parameters(variance)
    assert t * c >= variance and t == math.ceil(math.sqrt(math.ceil(variance)))
    z = noise.discrete_gaussian(variance, 300_000, rng)
    support = np.arange(-60, 61)
    weights = np.exp(-(support.astype(float) ** 2) / (2 * t * c))
    assert chi_square_p_value(z, support, weights / weights.sum()) > P_MIN


def test_safe_outputs_are_exact_grid_multiples_and_reproducible():
    values = np.array([0.3, -1.0 / 3.0, 1e-9, 0.999999])
    g = 2.0**-20
    for add in (noise.add_laplace, noise.add_gaussian):
        out = add(values, 0.05, noise="safe", rng=5, granularity=g)
        again = add(values, 0.05, noise="safe", rng=5, granularity=g)
        assert np.array_equal(out, again)
        units = out / g
        assert np.array_equal(units, np.rint(units))
        noise_units = units.astype(np.int64) - noise.round_to_grid(values, g)
        # the noise is an integer in grid units, of the order of the scale 0.05
        # / g
        assert np.all(np.abs(noise_units) < 60 * 0.05 / g)
    with pytest.raises(ValueError, match="power of two"):
        noise.add_laplace(values, 0.05, noise="safe", granularity=0.3)
    with pytest.raises(ValueError, match="noise must be"):
        noise.add_gaussian(values, 0.05, noise="exact")


def test_rounding_moves_an_entry_by_at_most_its_change_plus_one_and_attains_it():
    g = 1.0
    assert noise.round_to_grid([0.5, 1.5], g).tolist() == [0, 2]  # |Δ| = 1 + 1
    rng = np.random.default_rng(6)
    d, n = 4, 3
    m = d * (d + 1) // 2
    iu = np.triu_indices(d)
    g = 2.0**-6
    worst_l1 = worst_l2 = 0.0
    for _ in range(3000):
        v, w = dppca.privacy.sensitivity.random_unit_ball_pairs(
            d, 1, rng, on_sphere=False
        )
        base = (
            dppca.validation.normalize_rows(rng.standard_normal((n - 1, d)))
            * 0.6
        )
        A = dppca.linalg.second_moment(np.vstack([base, v]))
        B = dppca.linalg.second_moment(np.vstack([base, w]))
        change = noise.round_to_grid(A[iu], g) - noise.round_to_grid(B[iu], g)
        worst_l1 = max(worst_l1, np.abs(change).sum())
        worst_l2 = max(worst_l2, np.linalg.norm(change))
    l1 = dppca.privacy.sensitivity.l1_sensitivity_second_moment(
        d, n, upper_triangle=True
    )
    l2 = dppca.privacy.sensitivity.frobenius_sensitivity_second_moment(n, True)
    assert worst_l1 <= privacy.rounded_sensitivity(l1, g, m)
    assert worst_l2 <= privacy.rounded_sensitivity(l2, g, math.sqrt(m))


def test_float_kind_is_the_previous_noise_draw_for_draw():
    d, b = 5, 0.3
    A = dppca.linalg.second_moment(
        dppca.validation.normalize_rows(np.ones((3, d)))
    )
    for dist, draw in (
        ("laplace", lambda r: r.laplace(0.0, b, size=(d, d))),
        ("gaussian", lambda r: r.normal(0.0, b, size=(d, d))),
    ):
        G = draw(np.random.default_rng(7))
        before = A + (np.triu(G) + np.triu(G, 1).T)
        now = noise.perturb_symmetric(A, b, distribution=dist, rng=7)
        assert np.array_equal(before, now)
    assert np.array_equal(
        noise.add_laplace(A, b, rng=8),
        A + np.random.default_rng(8).laplace(0.0, b, size=A.shape),
    )


def test_discrete_laplace_calibration_closed_form():
    d, n, eps = 7, 50, 0.8
    m = d * (d + 1) // 2
    b, g = privacy.safe_laplace_input_calibration(d, n, eps)
    assert g == noise.power_of_two_at_most((2 * d / n) / (1024 * m))
    t = b / g
    assert t == int(t) == math.ceil((2 * d / n / g + m) / eps * (1 + 2.0**-40))
    # the rounding and the integer scale cost at most 1/1024 + 1/t more noise
    float_b = privacy.laplace_input_scale(d, n, eps)
    assert float_b <= b <= float_b * (1 + 1 / 1024 + 1 / t)


def test_zcdp_conversion_is_the_infimum_and_valid():
    for rho, eps in [(0.03, 1.0), (0.5, 2.0), (1e-4, 0.1)]:
        delta = privacy.zcdp_delta(rho, eps)
        alphas = 1 + np.logspace(-6, 6, 200_001)
        grid = np.exp(
            np.min(
                (alphas - 1) * (alphas * rho - eps)
                - np.log(alphas - 1)
                + alphas * np.log1p(-1 / alphas)
            )
        )
        assert delta <= grid * (1 + 1e-9)
        assert delta >= grid * (1 - 1e-3)
        # weaker than nothing: the continuous Gaussian's exact δ is below it,
        # and it beats the simple bound exp(−(ε − ρ)² / (4ρ)) of Bun and Steinke
        # (2016)
        exact = privacy.analytic_gaussian_delta(
            1.0 / np.sqrt(2 * rho), 1.0, eps
        )
        assert exact <= delta <= math.exp(-((eps - rho) ** 2) / (4 * rho))
    rho = privacy.zcdp_rho(1.0, 1e-5)
    assert (
        privacy.zcdp_delta(rho, 1.0)
        <= 1e-5
        < privacy.zcdp_delta(rho * 1.001, 1.0)
    )


def test_discrete_gaussian_sigma_closed_form():
    g, r = 2.0**-20, 3.0
    sigma = privacy.discrete_gaussian_sigma(0.01, 1.0, 1e-5, g, r)
    rho = privacy.zcdp_rho(1.0, 1e-5)
    expected = (0.01 / g + r) / math.sqrt(2 * rho) * g
    assert sigma == pytest.approx(expected, rel=1e-11) and sigma >= expected


def _worst_pair(d=3, n=4, seed=0):
    rng = np.random.default_rng(seed)
    shared = (
        dppca.validation.normalize_rows(rng.standard_normal((n - 1, d))) * 0.5
    )
    e = np.eye(d)
    return np.vstack([shared, e[0]]), np.vstack([shared, e[1]])


def test_safe_laplace_mechanism_scale_law_and_exact_privacy_loss():
    X, X_prime = _worst_pair()
    n, d = X.shape
    eps = 1.0
    b, g = privacy.safe_laplace_input_calibration(d, n, eps)
    t = int(b / g)
    A, A_prime = (
        dppca.linalg.second_moment(X),
        dppca.linalg.second_moment(X_prime),
    )
    iu = np.triu_indices(d)
    k, k_prime = (
        noise.round_to_grid(A[iu], g),
        noise.round_to_grid(A_prime[iu], g),
    )
    # exact privacy loss of the program: sup over outputs of Σ(|y − k'| − |y −
    # k|)/t
    assert np.abs(k - k_prime).sum() / t <= eps
    rng = np.random.default_rng(9)
    outs = np.stack(
        [
            ip.laplace_input_perturbation(X, epsilon=eps, rng=rng, noise="safe")
            for _ in range(2000)
        ]
    )
    assert np.array_equal(outs, np.swapaxes(outs, 1, 2))
    z = outs[:, iu[0], iu[1]] / g - k
    assert np.array_equal(z, np.rint(z))
    # |Z|/t is, to within 1/t, a standard exponential variable
    assert stats.kstest(np.abs(z).ravel() / t, "expon").pvalue > P_MIN


def test_safe_gaussian_mechanisms_have_the_calibrated_scale():
    X, _ = _worst_pair()
    n, d = X.shape
    eps, delta = 1.0, 1e-3
    sigma_float = privacy.analyze_gauss_sigma(n, eps, delta)
    sigma, g = privacy.safe_gaussian_input_calibration(
        d, n, eps, delta, sigma_float
    )
    assert sigma_float < sigma < 1.15 * sigma_float
    A = dppca.linalg.second_moment(X)
    iu = np.triu_indices(d)
    rng = np.random.default_rng(10)
    outs = np.stack(
        [
            ip.analyze_gauss(X, epsilon=eps, delta=delta, rng=rng, noise="safe")
            for _ in range(2000)
        ]
    )
    z = outs[:, iu[0], iu[1]] / g - noise.round_to_grid(A[iu], g)
    assert np.array_equal(z, np.rint(z))
    t, c = noise.discrete_gaussian_parameters((sigma / g) ** 2)
    assert stats.kstest(z.ravel() / math.sqrt(t * c), "norm").pvalue > P_MIN
    # MOD-SULQ keeps its own (larger) β
    beta = privacy.mod_sulq_beta(d, n, eps, delta)
    s2, _ = privacy.safe_gaussian_input_calibration(d, n, eps, delta, beta)
    assert s2 == beta


def test_safe_goe_noise_has_the_variances_of_g_plus_g_transpose():
    d, sigma = 4, 0.01
    g = 2.0**-16
    rng = np.random.default_rng(11)
    M = np.zeros((d, d))
    draws = np.stack(
        [
            noise.perturb_symmetric_goe(M, sigma, rng=rng, granularity=g)
            for _ in range(3000)
        ]
    )
    assert np.array_equal(draws, np.swapaxes(draws, 1, 2))
    units = draws / g
    assert np.array_equal(units, np.rint(units))
    base = (sigma / g) ** 2
    t, c = noise.discrete_gaussian_parameters(4 * base)
    diag = units[:, np.arange(d), np.arange(d)].ravel()
    assert stats.kstest(diag / math.sqrt(t * c), "norm").pvalue > P_MIN
    t, c = noise.discrete_gaussian_parameters(2 * base)
    off = units[:, 0, 1:].ravel()
    assert stats.kstest(off / math.sqrt(t * c), "norm").pvalue > P_MIN
    sigma_safe, gamma = ga.safe_noise_sigma(1.0, 1e-5, d, "replace_one", 100)
    assert ga.noise_sigma(1.0, 1e-5, "replace_one", 100) < sigma_safe
    out = ga.gaussian_subspace_recovery(
        _worst_pair()[0], 1, epsilon=1.0, delta=1e-5, rng=12, noise="safe"
    )
    assert out.shape == (3, 1) and np.isclose(np.linalg.norm(out), 1.0)


def test_float_mechanisms_are_unchanged_and_safe_ones_reproducible():
    X, _ = _worst_pair()
    n, d = X.shape
    # the A the entry points on rows form (clipped to one, float error
    # absorbed); the noise added to it is what must be unchanged
    A = unit_rows_second_moment(X)

    def old_noise(draw, seed):
        G = draw(np.random.default_rng(seed))
        return np.triu(G) + np.triu(G, 1).T

    beta = privacy.mod_sulq_beta(d, n, 1.0, 1e-3)
    old = A + old_noise(lambda r: r.normal(0.0, beta, size=(d, d)), 13)
    assert np.array_equal(
        ip.mod_sulq(X, epsilon=1.0, delta=1e-3, rng=13, noise="float"), old
    )
    b = privacy.laplace_input_scale(d, n, 1.0)
    old = A + old_noise(lambda r: r.laplace(0.0, b, size=(d, d)), 14)
    assert np.array_equal(
        ip.laplace_input_perturbation(X, epsilon=1.0, rng=14, noise="float"),
        old,
    )
    sigma = ga.noise_sigma(1.0, 1e-3, "replace_one", n)
    G = np.random.default_rng(15).standard_normal((d, d)) * sigma
    vectors = np.linalg.eigh(A + (G + G.T))[1][:, ::-1]
    assert np.array_equal(
        ga.gaussian_subspace_recovery(
            X, 2, epsilon=1.0, delta=1e-3, rng=15, noise="float"
        ),
        vectors[:, :2],
    )
    for release in (
        lambda r: ip.mod_sulq(X, epsilon=1.0, delta=1e-3, rng=r, noise="safe"),
        lambda r: ip.analyze_gauss(
            X, epsilon=1.0, delta=1e-3, rng=r, noise="safe"
        ),
        lambda r: ip.laplace_input_perturbation(
            X, epsilon=1.0, rng=r, noise="safe"
        ),
        lambda r: ga.gaussian_subspace_recovery(
            X, 2, epsilon=1.0, delta=1e-3, rng=r, noise="safe"
        ),
    ):
        assert np.array_equal(release(16), release(16))
        assert not np.array_equal(release(16), release(17))


def test_safe_laplace_privacy_on_the_worst_l1_pairs():
    """Exact privacy loss of the safe program, sup over outputs Σ(|y − k'| −
    |y − k|)/t =
    ‖k − k'‖₁/t, on the extremal ℓ₁ pairs and on random pairs in low
    dimension."""
    rng = np.random.default_rng(18)
    for d in (2, 3, 4):
        n, eps = 5, 0.7
        b, g = privacy.safe_laplace_input_calibration(d, n, eps)
        t = b / g
        iu = np.triu_indices(d)
        v, w = dppca.privacy.sensitivity.l1_extremal_pair(
            d, upper_triangle=True
        )
        pairs = [(v, w)] + list(
            zip(*dppca.privacy.sensitivity.random_unit_ball_pairs(d, 500, rng))
        )
        shared = (
            dppca.validation.normalize_rows(rng.standard_normal((n - 1, d)))
            * 0.7
        )
        for v, w in pairs:
            k = noise.round_to_grid(
                dppca.linalg.second_moment(np.vstack([shared, v]))[iu], g
            )
            k_prime = noise.round_to_grid(
                dppca.linalg.second_moment(np.vstack([shared, w]))[iu], g
            )
            assert np.abs(k - k_prime).sum() / t <= eps


def test_discrete_laplace_law_at_the_largest_scale():
    """t = 2**40 exercises the two-draw path of Algorithm 1 (k·t ≥ 2**62 from
    k = 4 on):
    P(|Z| ≥ x) = 2 q^x / (1 + q) for x ≥ 1, checked on bins of width t/4."""
    t = noise.MAX_LAPLACE_GRID_SCALE
    z = noise.discrete_laplace(t, 300_000, np.random.default_rng(19))
    q = math.exp(-1.0 / t)
    edges = np.r_[np.arange(1, 33) * (t // 4), np.iinfo(np.int64).max]
    survival = np.r_[2 * q ** edges[:-1].astype(float) / (1 + q), 0.0]
    cell = -np.diff(
        np.r_[1.0, survival]
    )  # P(|Z| in [previous edge, edge)), first from 0
    counts = np.histogram(np.abs(z), bins=np.r_[0, edges].astype(float))[0]
    assert counts.sum() == z.size
    keep = cell > 0
    assert stats.chisquare(counts[keep], cell[keep] * z.size).pvalue > P_MIN
    assert (
        stats.binomtest(int((z < 0).sum()), int((z != 0).sum()), 0.5).pvalue
        > P_MIN
    )


def test_discrete_gaussian_law_at_a_large_scale():
    """σ² = 2**50 (t = 2**25): bins of width σ/4 against the Gaussian CDF,
    whose error for
    the discrete law is far below the test's resolution at this scale."""
    variance = 2.0**50
    t, c = noise.discrete_gaussian_parameters(variance)
    sigma = math.sqrt(t * c)
    z = noise.discrete_gaussian(variance, 300_000, np.random.default_rng(20))
    edges = np.arange(-24, 25) * (sigma / 4)
    cdf = stats.norm.cdf(edges / sigma)
    cell = np.diff(np.r_[0.0, cdf, 1.0])
    counts = np.histogram(
        z.astype(float), bins=np.r_[-np.inf, edges - 0.5, np.inf]
    )[0]
    assert stats.chisquare(counts, cell * z.size).pvalue > P_MIN
