"""Black-box privacy auditing: statistically valid lower bounds on ε from
mechanism outputs.

A mechanism that is (ε, δ)-DP limits every test that tries to tell a data set D
from a neighbour D' by looking at one output: its false-positive rate α and
false-negative rate β satisfy

    α + e^ε β ≥ 1 − δ   and   e^ε α + β ≥ 1 − δ

(Kairouz, Oh and Viswanath 2015).

Running the mechanism many times on D and on D', choosing a threshold test on
one half of the outputs and bounding its error rates on the other half with
Clopper–Pearson intervals gives an ε that the mechanism cannot beat, except with
probability at most 1 − level. A lower bound above the claimed ε refutes the
claim; one below it is consistent with it (auditing never proves privacy).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from ..montecarlo import Estimate, proportion_ci
from ..validation import _real_scalar, as_generator, check_positive_int


def check_level(level) -> float:
    """Validate a confidence level in the open interval (0, 1)."""
    value = _real_scalar(level, "level")
    if not 0.0 < value < 1.0:
        raise ValueError(
            f"level must lie in the open interval (0, 1); got {level!r}"
        )
    return value


def check_audit_delta(delta) -> float:
    """Validate the δ of an audit: a real number in [0, 1) (δ = 0 audits pure
    DP)."""
    value = _real_scalar(delta, "delta")
    if not 0.0 <= value < 1.0:
        raise ValueError(f"delta must lie in [0, 1); got {delta!r}")
    return value


def minimum_evaluation_samples(level: float, delta: float = 0.0) -> int:
    """Fewest evaluation outputs per data set with which :func:`audit_scores`
    can certify any
    ε > 0 at ``level``: even a perfect test (no error on the evaluation half)
    has one-sided Clopper–Pearson upper limits ``u = 1 − (1 − c)^(1/m)`` on both
    rates, ``c = 1 − (1 − level)/2``, and certifies ε > 0 only if ``2u < 1 −
    δ``, i.e. ``m > log(1 − c) / log((1 + δ)/2)``.
    """
    level, delta = check_level(level), check_audit_delta(delta)
    one_sided_miss = (1.0 - level) / 2.0
    return (
        int(np.floor(np.log(one_sided_miss) / np.log((1.0 + delta) / 2.0))) + 1
    )


@dataclass(frozen=True)
class AuditResult:
    """Outcome of :func:`audit_scores`: the certified lower bound on ε and
    the test behind it."""

    epsilon_lower: float
    threshold: float
    direction: str
    false_positive: Estimate
    false_negative: Estimate
    trials: int
    delta: float
    level: float

    def __str__(self) -> str:
        """Three lines of at most about 70 characters: the certified ε, the
        test, and its error rates."""
        return (
            f"ε ≥ {self.epsilon_lower:.3f} (confidence {self.level:.1%}, "
            f"δ = {self.delta:g})\n"
            f"  test: score {self.direction} {self.threshold:.4g}, "
            f"{self.trials} outputs per data set\n"
            f"  FPR {self.false_positive.value:.4f} "
            f"(≤ {self.false_positive.high:.4f}), "
            f"FNR {self.false_negative.value:.4f} "
            f"(≤ {self.false_negative.high:.4f})"
        )


def epsilon_from_error_rates(
    false_positive: float, false_negative: float, delta: float = 0.0
) -> float:
    """Largest ε that the error rates (α, β) of one test force on an (ε,
    δ)-DP mechanism.

    Inverts α + e^ε β ≥ 1 − δ and e^ε α + β ≥ 1 − δ; returns 0 when the rates
    are compatible with every ε ≥ 0 and ``inf`` when one rate is zero while the
    other leaves mass above δ.
    """
    if not (
        0 <= false_positive <= 1 and 0 <= false_negative <= 1 and 0 <= delta < 1
    ):
        raise ValueError("error rates must lie in [0, 1] and delta in [0, 1)")
    best = 0.0
    for a, b in (
        (false_positive, false_negative),
        (false_negative, false_positive),
    ):
        room = 1.0 - delta - a
        if room <= 0:
            continue
        best = max(best, np.inf if b == 0 else np.log(room / b))
    return float(best)


def largest_power(false_positive, epsilon: float, delta: float = 0.0):
    """Largest true-positive rate a test of false-positive rate α can reach
    against an (ε, δ)-DP mechanism: the upper edge of the region the two
    inequalities of :func:`epsilon_from_error_rates` leave,
    ``min(e^ε α + δ, 1 − e^(−ε) (1 − δ − α))`` clipped to [0, 1]
    (vectorised over α)."""
    alpha = np.asarray(false_positive, dtype=float)
    epsilon, delta = float(epsilon), float(delta)
    if not np.all((alpha >= 0) & (alpha <= 1)) or not 0 <= delta < 1:
        raise ValueError("rates must lie in [0, 1] and delta in [0, 1)")
    if not (np.isfinite(epsilon) and epsilon >= 0):
        raise ValueError(f"epsilon must be finite and >= 0; got {epsilon!r}")
    one = np.exp(epsilon) * alpha + delta
    two = 1 - np.exp(-epsilon) * (1 - delta - alpha)
    return np.clip(np.minimum(one, two), 0.0, 1.0)


def _error_rates(null, alt, threshold, direction):
    if direction == ">":
        return np.mean(null > threshold), np.mean(alt <= threshold)
    return np.mean(null < threshold), np.mean(alt >= threshold)


def _upper_limits(null, alt, thresholds, direction, confidence):
    """One-sided Clopper–Pearson upper limits of the FPR and FNR of every
    threshold test."""
    null_sorted, alt_sorted = np.sort(null), np.sort(alt)
    if direction == ">":
        fp = null.size - np.searchsorted(null_sorted, thresholds, side="right")
        fn = np.searchsorted(alt_sorted, thresholds, side="right")
    else:
        fp = np.searchsorted(null_sorted, thresholds, side="left")
        fn = alt.size - np.searchsorted(alt_sorted, thresholds, side="left")

    def upper(k, m):
        return np.where(
            k >= m, 1.0, stats.beta.ppf(confidence, k + 1, np.maximum(m - k, 1))
        )

    return upper(fp, null.size), upper(fn, alt.size)


def _epsilon_from_rates_vectorised(a, b, delta):
    with np.errstate(divide="ignore", invalid="ignore"):
        e1 = np.where(1 - delta - a > 0, np.log((1 - delta - a) / b), 0.0)
        e2 = np.where(1 - delta - b > 0, np.log((1 - delta - b) / a), 0.0)
    return np.maximum(0.0, np.maximum(e1, e2))


def audit_scores(
    scores_d, scores_d_prime, delta: float = 0.0, level: float = 0.95, rng=None
) -> AuditResult:
    """Lower-bound ε from scalar scores of outputs on D (``scores_d``) and on
    D' (``scores_d_prime``).

    The samples are split in half at random: the first half chooses the
    threshold and direction of the test "output came from D'" that certifies the
    largest ε there; the second half evaluates that one test, with one-sided
    Clopper–Pearson upper bounds on both error rates at confidence ``1 − (1 −
    level)/2`` each (Bonferroni), so the returned bound holds with probability ≥
    level.

    Raises ``ValueError`` for a score that is NaN or infinite (a NaN compares
    false with every threshold and would count as a perfect test), a ``level``
    outside (0, 1), a ``delta`` outside [0, 1), and too few scores: each half
    must hold at least :func:`minimum_evaluation_samples` scores, the fewest
    with which a perfect test certifies anything at ``level``.
    """
    level, delta = check_level(level), check_audit_delta(delta)
    null = np.asarray(scores_d, dtype=float).ravel()
    alt = np.asarray(scores_d_prime, dtype=float).ravel()
    for name, values in (("scores_d", null), ("scores_d_prime", alt)):
        bad = int(np.sum(~np.isfinite(values)))
        if bad:
            raise ValueError(
                f"{name} has {bad} NaN or infinite values of {values.size}; an "
                "audit needs "
                "finite scores (map the outputs to a finite statistic)"
            )
    needed = 2 * minimum_evaluation_samples(level, delta)
    if null.size < needed or alt.size < needed:
        raise ValueError(
            f"need at least {needed} scores per data set at level {level:g} "
            "(half of them "
            f"evaluate the test); got {null.size} and {alt.size}"
        )
    rng = as_generator(rng)
    null, alt = rng.permutation(null), rng.permutation(alt)
    half_n, half_a = null.size // 2, alt.size // 2
    pick_null, eval_null = null[:half_n], null[half_n:]
    pick_alt, eval_alt = alt[:half_a], alt[half_a:]

    one_sided = (
        1 - (1 - level) / 2
    )  # each bound holds w.p. ≥ this; both w.p. ≥ level
    two_sided = (
        2 * one_sided - 1
    )  # proportion_ci is two-sided; its upper end is one-sided

    # Choose the test that certifies most on the first half, scoring every
    # threshold with the same confidence limits as the final evaluation (so thin
    # tails with few counts are not favoured).
    candidates = np.unique(np.concatenate([pick_null, pick_alt]))
    candidates = np.concatenate(
        [candidates, (candidates[:-1] + candidates[1:]) / 2]
    )
    best = (-1.0, candidates[0], ">")
    for direction in (">", "<"):
        fp_hi, fn_hi = _upper_limits(
            pick_null, pick_alt, candidates, direction, one_sided
        )
        scores = _epsilon_from_rates_vectorised(fp_hi, fn_hi, delta)
        i = int(np.argmax(scores))
        if scores[i] > best[0]:
            best = (float(scores[i]), candidates[i], direction)
    _, threshold, direction = best
    fp_rate, fn_rate = _error_rates(eval_null, eval_alt, threshold, direction)
    fp_est = proportion_ci(
        int(round(fp_rate * eval_null.size)), eval_null.size, two_sided
    )
    fn_est = proportion_ci(
        int(round(fn_rate * eval_alt.size)), eval_alt.size, two_sided
    )
    eps = epsilon_from_error_rates(fp_est.high, fn_est.high, delta)
    return AuditResult(
        eps,
        float(threshold),
        direction,
        fp_est,
        fn_est,
        min(eval_null.size, eval_alt.size),
        float(delta),
        float(level),
    )


def audit_mechanism(
    release,
    data,
    data_prime,
    score,
    trials: int,
    delta: float = 0.0,
    level: float = 0.95,
    rng=None,
) -> AuditResult:
    """Run ``release(data, rng)`` and ``release(data_prime, rng)`` ``trials``
    times each, reduce
    every output to a scalar with ``score(output)`` and audit the scores with
    :func:`audit_scores`.

    ``trials`` must be a positive integer; ``level`` and ``delta`` are checked
    before any
    release is run (see :func:`audit_scores`)."""
    trials = check_positive_int(trials, "trials")
    level, delta = check_level(level), check_audit_delta(delta)
    needed = 2 * minimum_evaluation_samples(level, delta)
    if trials < needed:
        raise ValueError(
            f"trials = {trials} is too few at level {level:g}: need at least "
            f"{needed}"
        )
    rng = as_generator(rng)
    scores_d = np.array([score(release(data, rng)) for _ in range(trials)])
    scores_d_prime = np.array(
        [score(release(data_prime, rng)) for _ in range(trials)]
    )
    return audit_scores(
        scores_d, scores_d_prime, delta=delta, level=level, rng=rng
    )


def gaussian_shift_test_epsilon(shift: float, delta: float = 0.0) -> float:
    """Largest ε that any threshold test between N(0, 1) and N(shift, 1) can
    certify at δ.

    This is the population value an audit with a Gaussian statistic tends to as
    the number of outputs grows: the benchmark against which a finite audit is
    read.
    """
    if not shift > 0:
        raise ValueError("shift must be > 0")
    t = np.linspace(-12.0, shift + 12.0, 200_001)
    false_positive = stats.norm.sf(t)
    false_negative = stats.norm.cdf(t - shift)
    return float(
        _epsilon_from_rates_vectorised(
            false_positive, false_negative, delta
        ).max()
    )


# ------------------------------------------------------------------------------
# Exact privacy of the safe Gaussian noise on a constructed pair
# ------------------------------------------------------------------------------


def grid_boundary_pair(n: int, d: int, granularity: float, below=True):
    """Two replace-one neighbours whose second moments straddle the grid.

    ``X`` has a zero row where ``X'`` has ``u = (1, …, 1)/√d``; the other rows
    put every entry of ``A = XᵀX/n`` a thousandth of a cell below a half-cell
    boundary of the grid (above it if ``below`` is False). Adding ``uuᵀ/n``
    then moves every entry across the boundary, so the rounding of the safe
    noise adds a whole cell to each entry's shift: the pair on which the
    rounding term √(d(d+1)/2) of the sensitivity counts. Rows have norm ≤ 1.
    """
    move = 1.0 / (d * n)  # every entry of uuᵀ/n
    cell = float(granularity)
    k = max(int(np.floor(0.02 / cell)), 0)
    target = (k + 0.5) * cell - (cell / 1000 if below else -cell / 1000)
    if target <= 0 or target + move >= 0.3:
        raise ValueError("grid too coarse for this construction")
    rows_needed = int(np.ceil(d * n * target)) + 1
    weight = np.sqrt(d * n * target / rows_needed)
    u = np.ones(d) / np.sqrt(d)
    X = np.zeros((n, d))
    X[:rows_needed] = weight * u
    X_prime = X.copy()
    X_prime[-1] = u
    return X, X_prime


def _discrete_gaussian_pmf(variance: float, width: float = 40.0):
    """(support, pmf) of P(z) ∝ exp(−z²/(2v)) on integers |z| ≤ width·√v."""
    half = int(np.ceil(width * np.sqrt(variance))) + 2
    support = np.arange(-half, half + 1)
    logp = -(support.astype(float) ** 2) / (2.0 * variance)
    p = np.exp(logp - logp.max())
    return support, p / p.sum()


#: Largest convolution :func:`discrete_gaussian_privacy_loss` attempts.
MAX_CONVOLUTION = 20_000


def discrete_gaussian_privacy_loss(shift, variance: float, ratios=None):
    """Exact law ``(values, pmf)`` of the privacy loss between discrete
    Gaussians centred at ``k`` and at ``k − s``.

    Coordinate ``j`` has variance parameter ``v r_j`` (``ratios`` ``r_j``,
    positive integers; 1 by default). With ``R`` their common multiple the
    loss is ``L = (2W + Σ (R/r_j) s_j²)/(2vR)`` for the integer variable
    ``W = Σ (R/r_j) s_j z_j``, whose law is a convolution of the coordinates'
    pmfs. Raises ``ValueError`` when that convolution would exceed about
    :data:`MAX_CONVOLUTION` entries.
    """
    shift = np.asarray(shift, dtype=np.int64).ravel()
    ratios = (
        np.ones(shift.size, dtype=np.int64)
        if ratios is None
        else np.asarray(ratios, dtype=np.int64).ravel()
    )
    common = int(np.lcm.reduce(ratios)) if ratios.size else 1
    size = float(
        np.sum(
            np.abs(shift)
            * (common / ratios)
            * (80.0 * np.sqrt(variance * ratios) + 4)
        )
    )
    if size > MAX_CONVOLUTION:
        raise ValueError(
            f"the exact privacy loss needs a convolution of about {size:.3g} "
            f"entries (at most {MAX_CONVOLUTION})"
        )
    pmf, offset, constant = np.array([1.0]), 0, 0
    for s, r in zip(shift.tolist(), ratios.tolist()):
        if s == 0:
            continue
        a = (common // r) * s  # W = Σ a_j z_j is integer valued
        constant += (common // r) * s * s
        support, p = _discrete_gaussian_pmf(variance * r)
        step = abs(a)
        term = np.zeros(step * (support.size - 1) + 1)
        term[::step] = p if a > 0 else p[::-1]
        pmf = np.convolve(pmf, term)
        offset += step * int(support[0])
    w = offset + np.arange(pmf.size, dtype=float)
    return (2.0 * w + constant) / (2.0 * variance * common), pmf


def discrete_gaussian_pair_epsilon(
    shift, variance: float, delta: float, ratios=None
) -> float:
    """Smallest ε with δ(ε) ≤ ``delta`` between discrete Gaussians whose
    centres differ by the integer vector ``shift``: exact, by convolution
    (:func:`discrete_gaussian_privacy_loss`)."""
    if not np.any(np.asarray(shift)):
        return 0.0
    loss, pmf = discrete_gaussian_privacy_loss(shift, variance, ratios)

    def excess(e):
        return float(pmf @ np.clip(-np.expm1(e - loss), 0.0, None)) - delta

    if excess(0.0) <= 0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2.0
    return float(optimize.brentq(excess, 0.0, hi, xtol=1e-12))
