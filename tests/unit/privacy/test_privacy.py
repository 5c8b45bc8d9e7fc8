"""Tests of dppca.privacy: calibrations against independent computations, privacy-loss tools."""

import numpy as np
import pytest
from scipy import integrate, stats

from dppca import privacy as P
from dppca.mechanisms.input_perturbation_wishart import wishart_noise
from dppca.montecarlo import proportion_ci
from dppca.privacy import sensitivity as S


def test_analytic_delta_matches_numerical_integration():
    sigma, sens, eps = 0.7, 1.0, 0.8
    # δ(ε) = ∫ (p(y) − e^ε q(y))₊ dy, p = N(Δ, σ²), q = N(0, σ²)
    f = lambda y: max(
        stats.norm.pdf(y, sens, sigma)
        - np.exp(eps) * stats.norm.pdf(y, 0, sigma),
        0.0,
    )
    numeric = integrate.quad(
        f, -20, 20, points=[sens / 2 + eps * sigma**2 / sens], limit=200
    )[0]
    assert P.analytic_gaussian_delta(sigma, sens, eps) == pytest.approx(
        numeric, rel=1e-7
    )
    assert P.gaussian_pair_delta(sens, sigma, eps) == pytest.approx(
        numeric, rel=1e-7
    )


def test_analytic_sigma_inverts_delta_and_beats_classical():
    s = P.analytic_gaussian_sigma(1.0, 0.5, 1e-5)
    assert P.analytic_gaussian_delta(s, 1.0, 0.5) == pytest.approx(
        1e-5, rel=1e-6
    )
    assert s < P.gaussian_sigma_classical(1.0, 0.5, 1e-5)


def test_mod_sulq_beta_exact_root_solves_quadratic_and_is_below_printed_bound():
    d, n, eps, delta = 30, 500, 0.7, 0.01
    b_exact = P.mod_sulq_beta(d, n, eps, delta, exact=True)
    b_print = P.mod_sulq_beta(d, n, eps, delta)
    L = np.sqrt(2 * np.log((d * d + d) / (2 * np.sqrt(2 * np.pi) * delta)))
    # the condition of the proof of Theorem 5: ε = (d+1) L/(nβ) + 1/(n²β²)
    assert (d + 1) * L / (n * b_exact) + 1 / (
        n * b_exact
    ) ** 2 == pytest.approx(eps, rel=1e-12)
    assert b_exact < b_print


def test_gaussian_privacy_loss_samples_give_the_exact_delta():
    sens, sigma, eps = 1.0, 0.8, 1.0
    est = P.delta_from_privacy_losses(
        P.gaussian_privacy_loss_samples(sens, sigma, 400_000, rng=1), eps
    )
    exact = P.gaussian_pair_delta(sens, sigma, eps)
    assert est.low <= exact <= est.high


def test_laplace_privacy_loss_is_bounded_and_matches_one_dimensional_profile():
    a, a_hat, b = np.array([0.0, 0.3]), np.array([0.5, 0.3]), 0.25
    losses = P.laplace_privacy_loss_samples(a, a_hat, b, 200_000, rng=2)
    assert np.all(np.abs(losses) <= 0.5 / b + 1e-12)
    eps = 1.0
    # exact δ(ε) of 1-D Laplace at distance s: 1 − e^{(ε − s/b)/2} for ε < s/b
    exact = -np.expm1((eps - 0.5 / b) / 2)
    est = P.delta_from_privacy_losses(losses, eps)
    assert est.low <= exact <= est.high


def test_analyze_gauss_uses_the_frobenius_sensitivity_of_the_upper_triangle():
    n, eps, delta = 7, 0.8, 1e-4
    e1, e2 = np.eye(5)[0], np.eye(5)[1]
    diff = P.upper_triangle(S.second_moment_difference(e1, e2, n))
    assert np.linalg.norm(diff) == pytest.approx(np.sqrt(2) / n)
    assert P.analyze_gauss_sigma(n, eps, delta) == pytest.approx(
        P.analytic_gaussian_sigma(np.linalg.norm(diff), eps, delta)
    )


def test_wishart_support_gap_probability_matches_monte_carlo():
    d, n, eps, trials = 6, 50, 0.9, 20_000
    c = P.wishart_input_scale(n, eps)
    rng = np.random.default_rng(4)
    u = np.eye(d)[2]
    hits = sum(
        np.linalg.eigvalsh(wishart_noise(d, c, rng) - np.outer(u, u) / n)[0]
        <= 0
        for _ in range(trials)
    )
    ci = proportion_ci(hits, trials)
    assert ci.low <= P.wishart_support_gap_probability(c, n) <= ci.high
    assert P.wishart_support_gap_probability(c, n) == pytest.approx(
        -np.expm1(-eps / 3)
    )
    assert P.wishart_privacy_profile(eps, 2.0) == pytest.approx(
        -np.expm1(-eps / 3)
    )


def test_wishart_scale_for_delta_inverts_support_probability():
    c = P.wishart_scale_for_delta(100, 1e-3)
    assert P.wishart_support_gap_probability(c, 100) == pytest.approx(
        1e-3, rel=1e-12
    )


@pytest.mark.parametrize("bad", [0, -1, np.nan, np.inf])
def test_bad_epsilon_rejected(bad):
    with pytest.raises(ValueError, match="epsilon"):
        P.mod_sulq_beta(5, 10, bad, 0.1)
    with pytest.raises(ValueError, match="epsilon"):
        P.laplace_input_scale(5, 10, bad)


def test_bad_calibration_and_n_rejected():
    with pytest.raises(ValueError, match="calibration"):
        P.analyze_gauss_sigma(10, 0.5, 1e-3, calibration="foo")
    with pytest.raises(ValueError, match="n must"):
        P.wishart_input_scale(0, 1.0)
    with pytest.raises(ValueError, match="epsilon < 1"):
        P.analyze_gauss_sigma(10, 1.5, 1e-3, calibration="classical")


@pytest.mark.parametrize(
    "epsilon, error",
    [(True, TypeError), (float("nan"), ValueError), (-0.1, ValueError)]
    + [(float("inf"), ValueError)],
)
def test_delta_from_privacy_losses_refuses_a_bad_epsilon(epsilon, error):
    with pytest.raises(error, match="epsilon"):
        P.delta_from_privacy_losses([0.1, 0.2, 0.3], epsilon)


@pytest.mark.parametrize("losses", [[], [0.1, float("nan")]])
def test_delta_from_privacy_losses_refuses_empty_or_nan_losses(losses):
    with pytest.raises(ValueError, match="losses"):
        P.delta_from_privacy_losses(losses, 1.0)
