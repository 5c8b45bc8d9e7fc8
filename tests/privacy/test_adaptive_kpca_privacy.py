"""Attacks on the privacy claim of adaptive k-PCA
(dppca.mechanisms.adaptive_kpca).

The claim: each row feeds one minibatch step; a step releases a private
quantile r of the gradient norms, a centre c (the gradients clipped to r
about the origin, averaged, with Gaussian noise for 2r/B), a private mode
of the distances ‖g_i − c‖ (s = headroom × mode), and the deviations
g_i − c clipped to s, averaged, with Gaussian noise for 2s/B; the four compose to the
step's ρ, and the steps touch disjoint rows, so the run is as private as
one step. The tests

* check that the mode's bin counts have sensitivity one, and that the
  mode stays on concentrated distances where a quantile would not;
* attain the sensitivity 2s/B of the centred mean with a constructed pair
  (a row nearly orthogonal to w, very long, against its mirror image) and
  never exceed it on Hypothesis' pairs, whatever the public centre;
* compare the step's ρ on the constructed extremal pairs (both means at
  their sensitivity, both quantiles at their worst) with the record's, and
  the exact ε of the safe noise on the pair with the record's ε; a
  calibration to s/B is caught;
* check that a replaced row changes its own step only, that neighbours get
  the same public plan, record and messages, and that the record does not
  depend on n, k or the number of steps.
"""

from __future__ import annotations

import math
import warnings

import exact_privacy as exact
import numpy as np
import pytest
from gradient_rows import ROW_KINDS, make_row, unit
from hypothesis import given, settings
from hypothesis import strategies as st

from dppca import privacy
from dppca.mechanisms import adaptive_kpca as ak
from dppca.mechanisms import streaming_step
from dppca.privacy.guarantees import UnprovedGuaranteeWarning

DELTA = 1e-5
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def extremal_pair(B, d, s, center, seed=0, t=1e-9):
    """A batch and its neighbour whose centred clipped means differ by
    2s/B up to rounding: the last row is ``t w ± M u`` (``w = e₁``, ``u =
    e₂``, ``t M = 8 (s + ‖c‖)``), whose gradients minus the centre are
    ``±t M u`` plus a vector of norm at most ``‖c‖ + t²``, both clipped to
    almost ``±s u``."""
    rng = np.random.default_rng(seed)
    w, u = np.eye(d)[0], np.eye(d)[1]
    X = rng.standard_normal((B, d)) * 0.5
    M = 1e6 * (s + np.linalg.norm(center)) / t
    X[-1] = t * w + M * u
    X_prime = X.copy()
    X_prime[-1] = t * w - M * u
    return X, X_prime, w


def centred_means(X, X_prime, w, center, s):
    return [
        ak.centred_clipped_mean(
            streaming_step.gradient_rows(Y, w), center, s
        ).mean
        for Y in (X, X_prime)
    ]


# -- the sensitivity of the centred mean ----------------------------------------------


@pytest.mark.parametrize("center_scale", [0.0, 0.3, 50.0])
def test_constructed_pair_attains_the_centred_sensitivity(center_scale):
    B, d, s = 50, 6, 0.8
    center = center_scale * unit(np.arange(1.0, d + 1))
    X, X_prime, w = extremal_pair(B, d, s, center)
    a, b = centred_means(X, X_prime, w, center, s)
    moved = float(np.linalg.norm(a - b))
    assert moved <= 2 * s / B
    assert moved >= 2 * s / B * (1 - 1e-6)  # attained


def test_the_centre_stage_pair_attains_its_sensitivity():
    """The centre is streaming's clipped mean about the origin: its pair
    (the same rows) moves it by 2r/B."""
    B, d, r = 40, 5, 0.6
    X, X_prime, w = extremal_pair(B, d, r, np.zeros(d), seed=1)
    a, b = (
        streaming_step.clipped_gradient_mean(Y, w, r).mean for Y in (X, X_prime)
    )
    moved = float(np.linalg.norm(a - b))
    assert 2 * r / B * (1 - 1e-6) <= moved <= 2 * r / B


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    B=st.integers(1, 60),
    d=st.integers(2, 8),
    log_s=st.floats(-6, 6),
    log_c=st.floats(-6, 6),
    old=st.sampled_from(ROW_KINDS),
    new=st.sampled_from(ROW_KINDS),
)
def test_hypothesis_pairs_never_exceed_the_centred_sensitivity(
    seed, B, d, log_s, log_c, old, new
):
    rng = np.random.default_rng(seed)
    w = unit(rng.standard_normal(d))
    s = 10.0**log_s
    center = 10.0**log_c * unit(rng.standard_normal(d))
    X = rng.standard_normal((B, d)) * 10.0 ** rng.uniform(-3, 3, (B, 1))
    i = int(rng.integers(B))
    X[i] = make_row(old, w, rng, d)
    X_prime = X.copy()
    X_prime[i] = make_row(new, w, rng, d)
    X, X_prime = (ak.checked_rows(Y) for Y in (X, X_prime))
    a, b = centred_means(X, X_prime, w, center, s)
    assert np.linalg.norm(a - b) <= 2 * s / B
    # the distances the spread quantile reads change in row i only
    G, G_prime = (streaming_step.gradient_rows(Y, w) for Y in (X, X_prime))
    na, nb = ak.spread_norms(G, center), ak.spread_norms(G_prime, center)
    others = np.arange(B) != i
    assert np.array_equal(na[others], nb[others])


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    B=st.integers(1, 80),
    log_lo=st.floats(-6, 0),
    octaves=st.floats(0.5, 30),
    log_new=st.floats(-12, 12),
)
def test_mode_utilities_have_sensitivity_one(seed, B, log_lo, octaves, log_new):
    """Replacing one distance by any other (below, inside or above the
    grid) moves every bin count by at most one."""
    rng = np.random.default_rng(seed)
    lo = 10.0**log_lo
    grid = ak.candidate_grid(lo, lo * 2.0**octaves)
    norms = 10.0 ** rng.uniform(-12, 12, size=B)
    other = norms.copy()
    other[int(rng.integers(B))] = 10.0**log_new
    u, v = ak.mode_utilities(norms, grid), ak.mode_utilities(other, grid)
    assert u.sum() == v.sum() == B
    assert np.max(np.abs(u - v)) <= 1


def test_the_mode_stays_on_concentrated_distances():
    """Why the spread is a mode, not a quantile: all distances equal, the
    mode's bin is the one that holds them (with overwhelming probability),
    while a quantile is flat on every candidate above them."""
    grid = ak.candidate_grid(1e-6, 1e6)
    norms = np.full(500, 0.3)
    spread = ak.PrivateSpread(0.2, (1e-6, 1e6), 16.0, 1.0)
    rng = np.random.default_rng(0)
    modes = [spread(norms, None, rng)[0] for _ in range(50)]
    assert all(0.3 <= m <= 0.3 * 2**0.25 for m in modes)
    assert len(grid) > 100


# -- the noise: the step's ρ on extremal pairs against the record -------------------------


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_safe_step_reports_at_least_the_exact_privacy(eps):
    B, d, r, s = 64, 4, 0.7, 0.05
    budget = ak.adaptive_budget(eps, DELTA)
    record = ak.adaptive_kpca_guarantee(eps, DELTA)
    center = np.array([0.3, -0.2, 0.1, 0.0])
    # the centre stage at its sensitivity 2r/B
    X, X_prime, w = extremal_pair(B, d, r, np.zeros(d), seed=2)
    m1 = [
        streaming_step.clipped_gradient_mean(Y, w, r).mean for Y in (X, X_prime)
    ]
    sigma_c, grid_c = streaming_step.mean_noise_scale(
        r, B, d, budget.rho_center, "safe"
    )
    var_c = exact.safe_gaussian_variance(sigma_c, grid_c)
    shift_c = exact.grid_shift(*m1, grid_c)
    # the final mean at its sensitivity 2s/B
    Y, Y_prime, w = extremal_pair(B, d, s, center, seed=3)
    m2 = centred_means(Y, Y_prime, w, center, s)
    sigma, grid = streaming_step.mean_noise_scale(
        s, B, d, budget.rho_mean, "safe"
    )
    var = exact.safe_gaussian_variance(sigma, grid)
    shift = exact.grid_shift(*m2, grid)
    assert np.linalg.norm(shift) <= 2 * s / (B * grid) + math.sqrt(d)
    assert np.sum(shift**2) / (2 * var) <= budget.rho_mean * (1 + 1e-12)
    assert np.sum(shift_c**2) / (2 * var_c) <= budget.rho_center * (1 + 1e-12)
    # the mean alone: its exact ε on the pair is below the record's
    assert exact.discrete_gaussian_epsilon(shift, var, DELTA) <= record.epsilon
    # the whole step: the quantiles at their worst ε²/2, the two means'
    # exact Rényi curves on the pairs, within the record's ρ
    rho_record = 1 / (2 * record.noise_multiplier**2)
    rho_pair = (
        budget.epsilon_radius**2 / 2
        + budget.epsilon_spread**2 / 2
        + np.sum(shift_c**2) / (2 * var_c)
        + np.sum(shift**2) / (2 * var)
    )
    assert rho_pair <= rho_record * (1 + 1e-12)
    assert rho_pair >= 0.5 * rho_record  # the pair nearly spends it
    assert privacy.zcdp_delta(rho_record, eps) <= DELTA


def test_float_step_reports_at_least_the_exact_epsilon():
    B, d, s, eps = 64, 4, 0.2, 1.0
    budget = ak.adaptive_budget(eps, DELTA)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
        record = ak.adaptive_kpca_guarantee(eps, DELTA, noise="float")
    center = np.array([1.0, 2.0, 0.0, -1.0])
    X, X_prime, w = extremal_pair(B, d, s, center, seed=4)
    a, b = centred_means(X, X_prime, w, center, s)
    moved = float(np.linalg.norm(a - b))
    sigma, grid = streaming_step.mean_noise_scale(
        s, B, d, budget.rho_mean, "float"
    )
    assert grid is None and not record.proved
    assert moved**2 / (2 * sigma**2) <= budget.rho_mean * (1 + 1e-12)
    assert privacy.gaussian_mechanism_epsilon(sigma, moved, DELTA) <= (
        record.epsilon
    )


def test_the_check_has_teeth():
    """Noise calibrated to s/B (forgetting that the replaced row's
    deviation can go from +s u to −s u) is caught."""
    B, d, s, eps = 64, 4, 0.7, 1.0
    budget = ak.adaptive_budget(eps, DELTA)
    center = np.array([0.5, 0.0, 0.0, 0.0])
    X, X_prime, w = extremal_pair(B, d, s, center, seed=2)
    a, b = centred_means(X, X_prime, w, center, s)
    sigma, grid = streaming_step.mean_noise_scale(s / 2, B, d, budget.rho_mean)
    shift = exact.grid_shift(a, b, grid)
    rho_pair = np.sum(shift**2) / (
        2 * exact.safe_gaussian_variance(sigma, grid)
    )
    assert rho_pair > 3 * budget.rho_mean


def test_budget_parts_never_exceed_rho():
    for eps in (0.01, 0.5, 1.0, 7.0):
        for shares in (ak.DEFAULT_SHARES, (0.1, 0.2, 0.3, 0.4)):
            b = ak.adaptive_budget(eps, DELTA, shares)
            total = b.rho_radius + b.rho_center + b.rho_spread + b.rho_mean
            assert total <= b.rho
            assert b.rho_mean > 0


# -- each row feeds one step; neighbours see the same public side -------------------------


def spiked(n, d, rng):
    g = rng.standard_normal((n, d))
    g[:, 0] *= 3.0
    g[:, 1] *= 2.0
    return g


def run(X, seed=5, **options):
    return ak.adaptive_kpca(
        X,
        2,
        epsilon=1.0,
        delta=DELTA,
        rng=seed,
        diagnostics=True,
        n_steps=5,
        **options,
    )


@pytest.mark.parametrize("row", [0, 799, 1_000, 1_999])
def test_a_replaced_row_changes_only_its_own_step(row):
    X = spiked(2_000, 5, np.random.default_rng(6))
    X_prime = X.copy()
    X_prime[row] = 1e9 * np.ones(5)
    a, b = run(X), run(X_prime)
    assert a.plan == b.plan
    B = a.plan.batch_size
    for sa, sb in zip(a.steps, b.steps):
        if sa.first_row + B <= row:  # steps before the row: same release
            assert np.array_equal(sa.gradient, sb.gradient)
            assert sa.radius == sb.radius and sa.spread == sb.spread
        elif sa.first_row <= row < sa.first_row + B:
            # the step holding it: its two means move by their bounds
            moved_c = np.linalg.norm(sa.center_mean - sb.center_mean)
            if sa.radius == sb.radius:
                assert moved_c <= 2 * sa.radius / B
            break


def test_record_does_not_depend_on_n_k_or_the_steps():
    records = set()
    rng = np.random.default_rng(7)
    for n, k, steps in ((2_000, 1, 5), (3_000, 2, 3), (4_000, 3, 10)):
        X = spiked(n, 6, rng)
        V = ak.adaptive_kpca(
            X, k, epsilon=1.0, delta=DELTA, rng=1, n_steps=steps
        )
        records.add(repr(V.guarantee))
    assert len(records) == 1


def test_neighbours_get_the_same_messages():
    """A refusal depends on public values only: the same message for a
    data set and its neighbour (here a plan that does not fit, and a
    budget too small for the exact sampler)."""
    X = spiked(300, 5, np.random.default_rng(8))
    X_prime = X.copy()
    X_prime[3] = 1e200
    for options in ({"n_steps": 400, "batch_size": 1},):
        messages = []
        for Y in (X, X_prime):
            with pytest.raises(ValueError) as caught:
                ak.adaptive_kpca(Y, 2, epsilon=1.0, delta=DELTA, **options)
            messages.append(str(caught.value))
        assert messages[0] == messages[1]
    messages = []
    for Y in (X, X_prime):
        with pytest.raises(ValueError) as caught:
            ak.adaptive_kpca(Y, 1, epsilon=1e-9, delta=1e-300, n_steps=1)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]


def test_a_row_with_huge_entries_is_released_like_its_neighbour():
    X = spiked(2_000, 5, np.random.default_rng(9))
    X_prime = X.copy()
    X_prime[10] = 1e300 * np.ones(5)
    for Y in (X, X_prime):
        V = ak.adaptive_kpca(Y, 2, epsilon=1.0, delta=DELTA, rng=2, n_steps=5)
        assert V.shape == (5, 2)
        assert np.allclose(np.asarray(V).T @ V, np.eye(2), atol=1e-10)
