import numpy as np
import pytest

from dppca.montecarlo import loglog_slope, mean_ci, proportion_ci


def test_mean_ci_covers_truth_at_nominal_rate():
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(1000):
        est = mean_ci(rng.exponential(size=200), level=0.9)
        hits += est.low <= 1.0 <= est.high
    assert 860 <= hits <= 940  # nominal 900 of 1000; binomial sd 9.5


def test_proportion_ci_edges_and_coverage():
    assert proportion_ci(0, 10).low == 0.0
    assert proportion_ci(10, 10).high == 1.0
    rng = np.random.default_rng(1)
    hits = sum(
        (lambda e: e.low <= 0.3 <= e.high)(
            proportion_ci(rng.binomial(50, 0.3), 50, 0.9)
        )
        for _ in range(1000)
    )
    assert hits >= 890  # Clopper-Pearson is conservative: coverage >= nominal
    with pytest.raises(ValueError):
        proportion_ci(3, 2)


def test_loglog_slope():
    x = np.array([10.0, 20, 40, 80])
    assert loglog_slope(x, 3 * x**1.5) == pytest.approx(1.5)


def test_batch_means_standard_error_of_an_ar1_chain():
    """AR(1) with coefficient 0.9 and unit innovations: the mean of T steps
    has standard error
    close to sqrt(1/(1-0.9)^2 / T); batch means must recover it (within 25%),
    where the naive
    i.i.d. formula is about 4.4 times too small."""
    from dppca.montecarlo import batch_means

    rng = np.random.default_rng(5)
    T, phi = 200_000, 0.9
    x = np.empty(T)
    x[0] = 0.0
    noise = rng.standard_normal(T)
    for t in range(1, T):
        x[t] = phi * x[t - 1] + noise[t]
    mean, se = batch_means(x, 50)
    expected = np.sqrt(1 / (1 - phi) ** 2 / T)
    assert abs(se / expected - 1) < 0.25
    assert abs(mean) < 4 * expected
    with pytest.raises(ValueError):
        batch_means(np.ones(3), 5)


def test_self_normalised_estimate_against_closed_forms():
    """Equal weights give the plain mean and ess = n; weights proportional to
    exp(x) on a grid give the tilted mean, computed directly."""
    from dppca.montecarlo import self_normalised_estimate

    values = np.arange(10.0)
    est, se, ess = self_normalised_estimate(np.zeros(10), values)
    assert est == pytest.approx(4.5) and ess == pytest.approx(10.0)
    assert se == pytest.approx(np.sqrt(np.sum((values - 4.5) ** 2)) / 10)
    log_w = 0.3 * values + 1000.0  # a large constant must not overflow
    w = np.exp(0.3 * values) / np.exp(0.3 * values).sum()
    est, _, ess = self_normalised_estimate(log_w, values)
    assert est == pytest.approx(w @ values) and ess == pytest.approx(
        1 / (w @ w)
    )
