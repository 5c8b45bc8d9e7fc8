import numpy as np
import pytest

from dppca.privacy.audit import (
    audit_mechanism,
    audit_scores,
    epsilon_from_error_rates,
    minimum_evaluation_samples,
)


def test_epsilon_from_error_rates_inverts_the_tradeoff():
    eps, delta = 0.7, 0.01
    alpha = 0.45
    beta = (1 - delta - alpha) / np.exp(
        eps
    )  # on the boundary alpha + e^eps beta = 1 - delta
    assert np.exp(eps) * beta + alpha >= 1 - delta - 1e-12
    # the other inequality, e^eps alpha + beta >= 1 - delta, is slack here (it
    # forces less)
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
    """Scalar Laplace mechanism, sensitivity 1, ε = 1: the audit never
    certifies more than ε
    (at 95% confidence) and, with 20,000 outputs, certifies a good part of
    it."""
    result = audit_mechanism(
        laplace_release, 0.0, 1.0, score=lambda y: y, trials=20_000, rng=1
    )
    assert result.epsilon_lower <= 1.0
    assert result.epsilon_lower > 0.6


def test_audit_detects_a_mechanism_that_ignores_its_noise_scale():
    """Noise ten times too small: the certified lower bound must exceed the
    claimed ε = 1."""
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
    """Over repeated audits of a truly 0.5-DP mechanism, the bound exceeds
    0.5 in at most a few
    per cent of runs (level 95%); 40 runs, so at most 6 exceedances is
    generous for p ≤ 0.05."""
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
    """A Gaussian mechanism calibrated analytically to (ε, δ) has shift Δ/σ;
    the best threshold
    test certifies exactly ε at that δ (the calibration is tight)."""
    from dppca.privacy import analytic_gaussian_sigma
    from dppca.privacy.audit import gaussian_shift_test_epsilon

    for eps, delta in [(1.0, 1e-3), (0.5, 1e-5), (2.0, 1e-2)]:
        sigma = analytic_gaussian_sigma(1.0, eps, delta)
        assert gaussian_shift_test_epsilon(1.0 / sigma, delta) == pytest.approx(
            eps, rel=1e-3
        )


# ---- issue 11: what an audit must refuse
# -------------------------------------------------------


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_audit_refuses_non_finite_scores(bad):
    rng = np.random.default_rng(0)
    null, alt = rng.normal(size=200), rng.normal(1.0, size=200)
    with pytest.raises(ValueError, match="NaN or infinite"):
        audit_scores(np.full(200, bad), np.full(200, bad), rng=1)
    for which in (0, 1):
        scores = [null.copy(), alt.copy()]
        scores[which][17] = bad
        with pytest.raises(ValueError, match="1 NaN or infinite"):
            audit_scores(*scores, rng=1)


@pytest.mark.parametrize("level", [0, 1, -0.5, 1.5, np.nan, "0.95", True])
def test_audit_refuses_a_level_outside_the_open_unit_interval(level):
    rng = np.random.default_rng(0)
    with pytest.raises((ValueError, TypeError), match="level"):
        audit_scores(rng.normal(size=100), rng.normal(size=100), level=level)
    with pytest.raises((ValueError, TypeError), match="level"):
        audit_mechanism(
            laplace_release, 0.0, 1.0, float, trials=100, level=level, rng=0
        )


@pytest.mark.parametrize("delta", [-0.1, 1.0, np.nan])
def test_audit_refuses_a_delta_outside_zero_one(delta):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="delta"):
        audit_scores(rng.normal(size=100), rng.normal(size=100), delta=delta)


@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99, 0.999999])
def test_minimum_sample_size_is_the_smallest_that_can_certify(level):
    m = minimum_evaluation_samples(level)
    c = 1 - (1 - level) / 2
    # a perfect test on m evaluation outputs certifies some ε > 0, on m - 1 none
    assert (
        epsilon_from_error_rates(1 - (1 - c) ** (1 / m), 1 - (1 - c) ** (1 / m))
        > 0
    )
    u = 1 - (1 - c) ** (1 / (m - 1)) if m > 1 else 1.0
    assert epsilon_from_error_rates(u, u) == 0
    # and the audit of perfectly separated scores agrees: 2m scores suffice,
    # fewer are refused
    separated = np.zeros(2 * m), np.ones(2 * m)
    assert audit_scores(*separated, level=level, rng=0).epsilon_lower > 0
    with pytest.raises(ValueError, match="scores per data set"):
        audit_scores(
            np.zeros(2 * m - 1), np.ones(2 * m - 1), level=level, rng=0
        )


def test_audit_mechanism_refuses_too_few_or_non_integer_trials():
    with pytest.raises(ValueError, match="too few"):
        audit_mechanism(laplace_release, 0.0, 1.0, float, trials=5, rng=0)
    with pytest.raises(ValueError, match="trials must be a positive integer"):
        audit_mechanism(laplace_release, 0.0, 1.0, float, trials=100.5, rng=0)


def test_largest_power_is_the_edge_of_the_error_rate_region():
    """On the edge, the rates force exactly ε (where the edge is inside
    (0, 1)); a hair above it, they force more."""
    from dppca.privacy.audit import epsilon_from_error_rates, largest_power

    for eps, delta in [(0.5, 0.0), (1.0, 1e-5), (2.0, 0.01)]:
        for alpha in np.linspace(0.001, 0.5, 40):
            power = float(largest_power(alpha, eps, delta))
            if not 0 < power < 1:
                continue
            forced = epsilon_from_error_rates(alpha, 1 - power, delta)
            assert forced == pytest.approx(eps, rel=1e-9)
            above = epsilon_from_error_rates(
                alpha, 1 - min(power * (1 + 1e-6), 1.0), delta
            )
            assert above > eps
    # the edge at α = 0.05 for (1, 0): e·0.05
    assert float(largest_power(0.05, 1.0)) == pytest.approx(np.e * 0.05)


@pytest.mark.parametrize(
    "alpha, eps, delta",
    [
        (0.5, -1.0, 0.0),
        (0.5, float("nan"), 0.0),
        (float("nan"), 1.0, 0.0),
        ([0.2, float("nan")], 1.0, 0.0),
        (0.5, 1.0, 1.0),
        (1.5, 1.0, 0.0),
    ],
)
def test_largest_power_refuses_bad_input(alpha, eps, delta):
    from dppca.privacy.audit import largest_power

    with pytest.raises(ValueError):
        largest_power(alpha, eps, delta)
