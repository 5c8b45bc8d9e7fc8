import numpy as np
import pytest

from dppca.audit import audit_mechanism, audit_scores, epsilon_from_error_rates


def test_epsilon_from_error_rates_inverts_the_tradeoff():
    eps, delta = 0.7, 0.01
    alpha = 0.45
    beta = (1 - delta - alpha) / np.exp(
        eps
    )  # on the boundary alpha + e^eps beta = 1 - delta
    assert np.exp(eps) * beta + alpha >= 1 - delta - 1e-12
    # the other inequality, e^eps alpha + beta >= 1 - delta, is slack here (it forces less)
    assert np.log((1 - delta - beta) / alpha) < eps
    assert epsilon_from_error_rates(alpha, beta, delta) == pytest.approx(eps)
    assert epsilon_from_error_rates(beta, alpha, delta) == pytest.approx(
        eps
    )  # symmetric
    assert epsilon_from_error_rates(0.5, 0.5) == 0.0
    assert epsilon_from_error_rates(0.0, 0.3) == np.inf
    with pytest.raises(ValueError):
        epsilon_from_error_rates(1.2, 0.1)


def laplace_release(value, rng, epsilon=1.0):
    return value + rng.laplace(scale=1.0 / epsilon)


def test_audit_of_laplace_mechanism_is_valid_and_tight():
    """Scalar Laplace mechanism, sensitivity 1, ε = 1: the audit never certifies more than ε
    (at 95% confidence) and, with 20,000 outputs, certifies a good part of it."""
    result = audit_mechanism(
        laplace_release, 0.0, 1.0, score=lambda y: y, trials=20_000, rng=1
    )
    assert result.epsilon_lower <= 1.0
    assert result.epsilon_lower > 0.6


def test_audit_detects_a_mechanism_that_ignores_its_noise_scale():
    """Noise ten times too small: the certified lower bound must exceed the claimed ε = 1."""
    result = audit_mechanism(
        lambda v, rng: laplace_release(v, rng, epsilon=10.0),
        0.0,
        1.0,
        score=lambda y: y,
        trials=4000,
        rng=2,
    )
    assert result.epsilon_lower > 1.0


def test_audit_false_claims_are_rare():
    """Over repeated audits of a truly 0.5-DP mechanism, the bound exceeds 0.5 in at most a few
    per cent of runs (level 95%); 40 runs, so at most 6 exceedances is generous for p ≤ 0.05."""
    rng = np.random.default_rng(3)
    exceed = 0
    for _ in range(40):
        r = audit_scores(
            rng.laplace(0, 2.0, 500), rng.laplace(1.0, 2.0, 500), rng=rng
        )
        exceed += r.epsilon_lower > 0.5
    assert exceed <= 6


def test_audit_requires_enough_scores():
    with pytest.raises(ValueError):
        audit_scores([1.0, 2.0], [1.0, 2.0, 3.0, 4.0])


def test_gaussian_shift_epsilon_matches_the_analytic_gaussian_mechanism():
    """A Gaussian mechanism calibrated analytically to (ε, δ) has shift Δ/σ; the best threshold
    test certifies exactly ε at that δ (the calibration is tight)."""
    from dppca.audit import gaussian_shift_test_epsilon
    from dppca.privacy import analytic_gaussian_sigma

    for eps, delta in [(1.0, 1e-3), (0.5, 1e-5), (2.0, 1e-2)]:
        sigma = analytic_gaussian_sigma(1.0, eps, delta)
        assert gaussian_shift_test_epsilon(1.0 / sigma, delta) == pytest.approx(
            eps, rel=1e-3
        )
