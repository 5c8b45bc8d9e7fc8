"""Small statistics helpers for Monte Carlo checks: confidence intervals and
fitted slopes.

Every numerical check in the book compares a Monte Carlo estimate with a bound;
these helpers make the comparison carry its own error bar, so that an assert can
fail for the right reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Estimate:
    """A Monte Carlo estimate with a two-sided confidence interval."""

    value: float
    low: float
    high: float
    level: float

    def __str__(self) -> str:
        interval = f"[{self.low:.4g}, {self.high:.4g}]"
        return f"{self.value:.4g} {interval} ({100 * self.level:.4g}% CI)"


def mean_ci(samples, level: float = 0.99) -> Estimate:
    """Sample mean with a normal-approximation confidence interval (needs >=
    2 samples)."""
    x = np.asarray(samples, dtype=float).ravel()
    if x.size < 2:
        raise ValueError("need at least two samples")
    m = x.mean()
    half = stats.norm.ppf(0.5 + level / 2) * x.std(ddof=1) / np.sqrt(x.size)
    return Estimate(float(m), float(m - half), float(m + half), level)


def proportion_ci(successes: int, trials: int, level: float = 0.99) -> Estimate:
    """Exact (Clopper-Pearson) confidence interval for a binomial proportion."""
    if trials < 1 or not (0 <= successes <= trials):
        raise ValueError("need 0 <= successes <= trials and trials >= 1")
    alpha = 1 - level
    low = (
        0.0
        if successes == 0
        else stats.beta.ppf(alpha / 2, successes, trials - successes + 1)
    )
    high = (
        1.0
        if successes == trials
        else stats.beta.ppf(1 - alpha / 2, successes + 1, trials - successes)
    )
    return Estimate(successes / trials, float(low), float(high), level)


def loglog_slope(x, y) -> float:
    """Least-squares slope of log(y) against log(x): the exponent of a fitted
    power law."""
    x = np.log(np.asarray(x, dtype=float))
    y = np.log(np.asarray(y, dtype=float))
    return float(np.polyfit(x, y, 1)[0])


def batch_means(values, n_batches: int = 40):
    """Mean of a Markov-chain trace and its standard error by the method of
    batch means.

    The trace (first axis = time) is cut into ``n_batches`` consecutive batches;
    their means are nearly independent when each batch is much longer than the
    chain's autocorrelation time. Returns ``(mean, standard_error)``, with the
    trailing axes of ``values`` kept.
    """
    values = np.asarray(values, dtype=float)
    if n_batches < 2 or values.shape[0] < n_batches:
        raise ValueError(
            f"need at least n_batches >= 2 values; got {values.shape[0]} "
            f"and {n_batches}"
        )
    m = values.shape[0] // n_batches
    means = (
        values[: m * n_batches]
        .reshape(n_batches, m, *values.shape[1:])
        .mean(axis=1)
    )
    return means.mean(axis=0), means.std(axis=0, ddof=1) / np.sqrt(n_batches)


def self_normalised_estimate(log_weights, values):
    """Self-normalised importance-sampling estimate from log weights (up to a
    constant) and the values ``fn`` took on the same draws (first axis).

    Returns ``(estimate, standard_error, ess)``: the weighted mean, the
    delta-method standard error of the ratio estimator,
    ``sqrt(sum_i w_i^2 (fn_i - estimate)^2)`` with normalised weights, and
    Kish's effective sample size ``1 / sum_i w_i^2``.
    """
    log_weights = np.asarray(log_weights, dtype=float)
    values = np.asarray(values, dtype=float)
    w = np.exp(log_weights - log_weights.max())
    w /= w.sum()
    estimate = np.tensordot(w, values, axes=(0, 0))
    se = np.sqrt(np.tensordot(w * w, (values - estimate) ** 2, axes=(0, 0)))
    return estimate, se, float(1.0 / np.sum(w * w))
