"""Attacks on the privacy claim of dppca.mechanisms.spiked (Cai–Xia–Zha's
estimator, calibrated by the book for rows in the unit ball).

The claim: four Gaussian steps on computed statistics (eigengap, top-k
projector, top-k eigenvalues, bulk mean), the projector's noise calibrated
to a released lower bound on the gap that overshoots with probability at
most δ_ptr; ρ-zCDP for the ideal run, (ε, δ)-DP for the real one. These
tests

* draw neighbouring pairs (shared rows of many spectra, replaced rows on,
  inside and at the centre of the ball) and check that every statistic's
  pre-noise shift is within the sensitivity its step is calibrated to (the
  projector's: for the smaller of the two exact gaps);
* check that the safe rounding grows each shift by at most its cells;
* check the gap test: its offset against the exact Gaussian tail (float
  noise), and the overshoot frequency of the real safe sampler;
* compose the steps on constructed pairs exactly (float noise: one Gaussian
  mechanism) and check that δ(ε) plus the gap test's share stays below δ;
* check that what a run shows besides the noisy values (record, warnings,
  refusals) is the same on neighbours.
"""

from __future__ import annotations

import math
import warnings

import exact_privacy as exact
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dppca.linalg.moments import unit_rows_second_moment
from dppca.mechanisms import spiked as sp
from dppca.privacy.calibration import analytic_gaussian_delta
from dppca.privacy.guarantees import UnprovedGuaranteeWarning
from dppca.privacy.noise import add_gaussian
from dppca.privacy.zcdp import zcdp_delta

EPS, DELTA = 1.0, 1e-5
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def stats_of(X, k):
    return sp.spectral_statistics(unit_rows_second_moment(X), k)


def shifts(X, Xp, k):
    """Pre-noise shift of every step's statistic on the pair, and the
    smaller of the two gaps as the calibration may assume it (the computed
    gap less the float margin)."""
    a, b = stats_of(X, k), stats_of(Xp, k)
    n, d = X.shape
    return {
        "gap": abs(a.gap - b.gap),
        "projector": float(np.linalg.norm(a.projector - b.projector)),
        "values": float(np.linalg.norm(a.values - b.values)),
        "noise_level": abs(a.noise_level - b.noise_level),
    }, min(a.gap, b.gap) - 2 * sp.float_margin(n, d)


def sensitivities(cal, gap):
    return dict(
        {name: step.sensitivity for name, step in cal.steps.items()},
        projector=cal.projector_step(gap).sensitivity,
    )


@st.composite
def neighbours(draw):
    """Shared rows with a decaying spectrum of random strength, and two
    replaced rows of radius 0, 0.5 or 1 in random or axis directions."""
    seed = draw(st.integers(0, 2**32 - 1))
    d = draw(st.integers(3, 8))
    k = draw(st.integers(1, d - 1))
    n = draw(st.sampled_from([20, 60, 300]))
    decay = draw(st.sampled_from([0.0, 0.5, 2.0]))
    rng = np.random.default_rng(seed)
    scales = np.arange(1, d + 1, dtype=float) ** -decay
    G = rng.standard_normal((n - 1, d)) * scales
    G /= np.maximum(np.linalg.norm(G, axis=1), 1e-300)[:, None]
    G *= rng.uniform(0.2, 1.0, size=(n - 1, 1))
    rows = []
    for _ in range(2):
        radius = draw(st.sampled_from([0.0, 0.5, 1.0]))
        axis = draw(st.sampled_from([None, 0, k - 1, min(k, d - 1), d - 1]))
        v = rng.standard_normal(d) if axis is None else np.eye(d)[axis]
        rows.append(radius * v / np.linalg.norm(v))
    return np.vstack([G, rows[0]]), np.vstack([G, rows[1]]), k


@SETTINGS
@given(case=neighbours())
def test_no_pair_exceeds_any_step_sensitivity(case):
    X, Xp, k = case
    n, d = X.shape
    shift, gap = shifts(X, Xp, k)
    bound = sensitivities(sp.spiked_calibration(n, d, k, EPS, DELTA), gap)
    for name in sp.STEPS:
        assert shift[name] <= bound[name], name


def test_random_pairs_on_the_spiked_model_stay_within_the_sensitivities():
    """Many pairs of a typical data set (rows of the utility test's model,
    n = 200), each replacing its first row by a random point of the sphere:
    the worst shift of each step, in units of its sensitivity, is ≤ 1."""
    rng = np.random.default_rng(11)
    n, d, k = 200, 10, 2
    U = np.linalg.qr(rng.standard_normal((d, k)))[0]
    X = rng.choice([-1.0, 1.0], size=(n, k)) @ U.T + 0.3 * rng.choice(
        [-1.0, 1.0], size=(n, d)
    )
    X /= np.linalg.norm(X, axis=1).max()
    cal = sp.spiked_calibration(n, d, k, EPS, DELTA)
    worst = dict.fromkeys(sp.STEPS, 0.0)
    for _ in range(200):
        Xp = X.copy()
        v = rng.standard_normal(d)
        Xp[0] = v / np.linalg.norm(v)
        shift, gap = shifts(X, Xp, k)
        bound = sensitivities(cal, gap)
        for name in sp.STEPS:
            worst[name] = max(worst[name], shift[name] / bound[name])
    assert max(worst.values()) <= 1.0, worst
    assert worst["values"] > 0.1 and worst["noise_level"] > 0.1


# -- the safe rounding ---------------------------------------------------------


def test_rounding_grows_each_shift_by_at_most_its_cells():
    rng = np.random.default_rng(2)
    n, d, k = 100, 5, 2
    cal = sp.spiked_calibration(n, d, k, 0.5, DELTA)
    shared = rng.standard_normal((n - 1, d))
    shared /= 1.5 * np.linalg.norm(shared, axis=1)[:, None]
    e = np.eye(d)
    for v, w in [(e[0], e[1]), (e[k - 1], e[k]), (e[0], e[d - 1])]:
        X, Xp = np.vstack([shared, v]), np.vstack([shared, w])
        a, b = stats_of(X, k), stats_of(Xp, k)
        gap = min(a.gap, b.gap) - 2 * sp.float_margin(n, d)
        steps = dict(cal.steps, projector=cal.projector_step(gap))
        iu = np.triu_indices(d)
        pairs = {
            "gap": ([a.gap], [b.gap]),
            "projector": (a.projector[iu], b.projector[iu]),
            "values": (a.values, b.values),
            "noise_level": ([a.noise_level], [b.noise_level]),
        }
        for name, (x, y) in pairs.items():
            step = steps[name]
            cells = exact.grid_shift(x, y, step.granularity)
            limit = step.sensitivity / step.granularity + step.rounding
            assert np.linalg.norm(cells) <= limit, name


# -- the gap test --------------------------------------------------------------


@pytest.mark.parametrize("epsilon, n", [(0.1, 50), (1.0, 1000), (8.0, 10**5)])
def test_gap_offset_covers_the_exact_gaussian_tail(epsilon, n):
    """Float noise: the offset less the neighbour's 2/n and the float
    margin leaves a tail of the noise at most δ_ptr (exact normal tail)."""
    cal = sp.spiked_calibration(n, 6, 2, epsilon, DELTA, noise="float")
    step = cal.steps["gap"]
    tail = cal.gap_offset - 2.0 / n - 2 * sp.float_margin(n, 6)
    assert stats.norm.sf(tail / step.sigma) <= cal.delta_ptr
    assert zcdp_delta(cal.rho, epsilon) + (
        1 + math.exp(epsilon)
    ) * cal.delta_ptr <= DELTA * (1 + 1e-9)


def test_safe_gap_bound_overshoots_no_more_often_than_delta_ptr():
    """The real safe sampler, 3000 draws at δ = 0.3 (δ_ptr ≈ 0.04): the
    released bound exceeds the computed gap less 2/n (the smallest exact
    gap a neighbour can have) no more often than a binomial(3000, δ_ptr)
    count would at its 1e-6 upper quantile."""
    rng = np.random.default_rng(4)
    n, d, k = 300, 5, 2
    X = rng.standard_normal((n, d)) * [1.0, 0.8, 0.3, 0.2, 0.1]
    X /= np.linalg.norm(X, axis=1).max()
    cal = sp.spiked_calibration(n, d, k, 1.0, 0.3)
    step = cal.steps["gap"]
    gap = stats_of(X, k).gap
    draws = add_gaussian(
        np.full(3000, gap),
        step.sigma,
        noise="safe",
        rng=rng,
        granularity=step.granularity,
    )
    overshoots = int(np.sum(draws - cal.gap_offset > gap - 2.0 / n))
    assert overshoots <= stats.binom.isf(1e-6, 3000, cal.delta_ptr)


# -- the composition on constructed pairs --------------------------------------


def extremal_pairs(n, d, k):
    """Pairs that attain the gap, eigenvalue and noise-level sensitivities
    (coordinate rows, diagonal second moments) and one that tilts the
    subspace at a narrow gap."""
    weights = np.linspace(2.0, 1.0, d)
    weights[k:] = 0.5
    weights /= weights.sum()
    counts = np.floor(weights * (n - 1)).astype(int)
    counts[0] += (n - 1) - counts.sum()
    e = np.eye(d)
    shared = np.vstack([np.tile(e[j], (c, 1)) for j, c in enumerate(counts)])
    tilt = (e[k - 1] + e[k]) / math.sqrt(2)
    for v, w in [(e[k - 1], e[k]), (e[0], e[1]), (e[0], e[d - 1])]:
        yield np.vstack([shared, v]), np.vstack([shared, w])
    yield np.vstack([shared, e[k]]), np.vstack([shared, tilt])


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 4.0])
def test_float_composition_of_extremal_pairs_is_below_delta(epsilon):
    """With float noise the four steps on a pair are one Gaussian mechanism
    of shift μ = ‖(s_j/σ_j)_j‖; its exact δ at ε (Balle and Wang), plus the
    gap test's (1 + e^ε) δ_ptr, must stay within δ. The projector's σ is
    the one a run would use for the pair's smaller gap less the offset."""
    n, d, k = 500, 6, 2
    cal = sp.spiked_calibration(n, d, k, epsilon, DELTA, noise="float")
    for X, Xp in extremal_pairs(n, d, k):
        shift, gap = shifts(X, Xp, k)
        steps = dict(cal.steps, projector=cal.projector_step(gap))
        mu = math.sqrt(
            sum((shift[name] / steps[name].sigma) ** 2 for name in sp.STEPS)
        )
        assert mu**2 / 2 <= cal.rho * (1 + 1e-9)
        exact_delta = analytic_gaussian_delta(1.0, mu, epsilon)
        ptr = (1 + math.exp(epsilon)) * cal.delta_ptr
        assert exact_delta + ptr <= DELTA


def test_safe_composition_of_extremal_pairs_is_below_the_zcdp_budget():
    """Safe noise: the rounded integer shifts of the four steps, against
    the variances the sampler really draws, give the pair's own ρ (Rényi
    divergence of discrete Gaussians, Canonne, Kamath and Steinke 2020);
    it must not exceed the calibration's ρ."""
    n, d, k = 500, 6, 2
    cal = sp.spiked_calibration(n, d, k, 1.0, DELTA)
    iu = np.triu_indices(d)
    for X, Xp in extremal_pairs(n, d, k):
        a, b = stats_of(X, k), stats_of(Xp, k)
        gap = min(a.gap, b.gap) - 2 * sp.float_margin(n, d)
        steps = dict(cal.steps, projector=cal.projector_step(gap))
        pairs = {
            "gap": ([a.gap], [b.gap]),
            "projector": (a.projector[iu], b.projector[iu]),
            "values": (a.values, b.values),
            "noise_level": ([a.noise_level], [b.noise_level]),
        }
        rho = 0.0
        for name, (x, y) in pairs.items():
            step = steps[name]
            cells = exact.grid_shift(x, y, step.granularity)
            variance = exact.safe_gaussian_variance(
                step.sigma, step.granularity
            )
            rho += float(np.sum(cells.astype(float) ** 2)) / (2 * variance)
        assert rho <= cal.rho


# -- what a run shows besides its noisy values ---------------------------------


def test_neighbours_show_the_same_record_warnings_and_no_refusal():
    n, d, k = 120, 5, 2
    for X, Xp in extremal_pairs(n, d, k):
        seen = []
        for data in (X, Xp):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                out = sp.spiked_pca(data, k, epsilon=EPS, delta=DELTA, rng=0)
            seen.append(
                (
                    out.guarantee,
                    [(w.category, str(w.message)) for w in caught],
                )
            )
        assert seen[0] == seen[1]
        assert seen[0][1][0][0] is UnprovedGuaranteeWarning


def test_refusals_name_no_row():
    """Two data sets with different rows outside the ball, in different
    places: the same message."""
    base = np.eye(4)[[0, 1, 2, 3, 0, 1]] * 0.5
    messages = []
    for row, value in [(0, 3.0), (4, 1.5)]:
        X = base.copy()
        X[row, row % 4] = value
        with pytest.raises(ValueError) as info:
            sp.spiked_pca(X, 1, epsilon=EPS, delta=DELTA, rng=0)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
