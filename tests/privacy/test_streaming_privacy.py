"""Attacks on the privacy claim of DP-PCA (dppca.mechanisms.streaming).

The claim: each row feeds one minibatch step; a step releases a private
quantile of the gradient norms (pure ε_r-DP, so ε_r²/2-zCDP) and the mean
of the gradients clipped to that radius, whose computed value moves by at
most 2r/B when one row is replaced, with Gaussian noise calibrated to that
sensitivity (after the safe rounding: 2r/(Bγ) + √d cells); the steps touch
disjoint rows, so the pass is as private as one step. The tests

* attain the sensitivity 2r/B with a constructed pair (the gradients
  x (xᵀw) all lie in the half-space gᵀw ≥ 0, and the bound is still
  reached, by rows almost orthogonal to w and very long) and never exceed
  it on Hypothesis' pairs (rows tiny, huge, on w, orthogonal, dense or
  sparse);
* compute the exact ε of the safe noise on a constructed pair and compare
  it with the record, and the Rényi ρ of the pair (plus the quantile's)
  with the record's ρ;
* check that every row feeds exactly one step: the steps before a replaced
  row release exactly what they released before, the step that holds it
  moves by at most its sensitivity, and the record does not depend on the
  number of steps.
"""

from __future__ import annotations

import math
import warnings

import exact_privacy as exact
import numpy as np
import pytest
import scipy.sparse
from gradient_rows import ROW_KINDS, make_row, unit
from hypothesis import given, settings
from hypothesis import strategies as st

from dppca import privacy
from dppca.mechanisms import (
    streaming,
    streaming_rows,
    streaming_schedule,
    streaming_step,
)
from dppca.privacy.guarantees import UnprovedGuaranteeWarning

DELTA = 1e-5
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def boundary_pair(B, d, r, seed=0, t=1e-9):
    """A batch and its neighbour whose clipped gradient means differ by
    2r/B up to rounding: the last row is ``t w + M u`` in one and
    ``t w − M u`` in the other (``w = e₁``, ``u = e₂``: exactly orthogonal
    in float64; ``t M = 4r``), whose gradients ``t² w ± t M u`` clip to
    almost ``±r u``."""
    rng = np.random.default_rng(seed)
    w, u = np.eye(d)[0], np.eye(d)[1]
    X = rng.standard_normal((B, d)) * 0.5
    M = 4 * r / t
    X[-1] = t * w + M * u
    X_prime = X.copy()
    X_prime[-1] = t * w - M * u
    return X, X_prime, w


# -- the sensitivity of one step's clipped mean ---------------------------------------


@pytest.mark.parametrize("sparse", [False, True])
def test_constructed_pair_attains_the_sensitivity(sparse):
    B, d, r = 50, 6, 0.8
    X, X_prime, w = boundary_pair(B, d, r)
    if sparse:
        X, X_prime = (
            scipy.sparse.csr_matrix(X),
            scipy.sparse.csr_matrix(X_prime),
        )
    a = streaming_step.clipped_gradient_mean(X, w, r).mean
    b = streaming_step.clipped_gradient_mean(X_prime, w, r).mean
    moved = float(np.linalg.norm(a - b))
    assert moved <= 2 * r / B
    assert moved >= 2 * r / B * (1 - 1e-9)  # attained up to the float shrink


def test_gradients_on_w_move_the_mean_by_r_only():
    """For contrast: two long rows along ±w have the same gradient (x xᵀ w
    does not see the sign of x), and a long row along w against a zero row
    moves the mean by r/B; only rows nearly orthogonal to w reach 2r/B."""
    B, d, r = 40, 5, 0.5
    rng = np.random.default_rng(1)
    X = rng.standard_normal((B, d))
    w = unit(rng.standard_normal(d))
    Y, Z = X.copy(), X.copy()
    X[-1], Y[-1], Z[-1] = 10 * w, -10 * w, 0.0
    m = [streaming_step.clipped_gradient_mean(A, w, r).mean for A in (X, Y, Z)]
    assert np.linalg.norm(m[0] - m[1]) == 0.0
    assert np.linalg.norm(m[0] - m[2]) == pytest.approx(r / B, rel=1e-9)


@SETTINGS
@given(
    seed=st.integers(0, 2**32 - 1),
    B=st.integers(1, 60),
    d=st.integers(2, 8),
    log_r=st.floats(-6, 6),
    old=st.sampled_from(ROW_KINDS),
    new=st.sampled_from(ROW_KINDS),
    sparse=st.booleans(),
)
def test_hypothesis_pairs_never_exceed_the_sensitivity(
    seed, B, d, log_r, old, new, sparse
):
    rng = np.random.default_rng(seed)
    w = unit(rng.standard_normal(d))
    r = 10.0**log_r
    scales = 10.0 ** rng.uniform(-3, 3, size=(B, 1))
    X = rng.standard_normal((B, d)) * scales
    i = int(rng.integers(B))
    X[i] = make_row(old, w, rng, d)
    X_prime = X.copy()
    X_prime[i] = make_row(new, w, rng, d)
    if sparse:
        X[rng.random(X.shape) < 0.5] = 0.0
        X_prime[:i], X_prime[i + 1 :] = X[:i], X[i + 1 :]
        X, X_prime = (
            scipy.sparse.csr_matrix(X),
            scipy.sparse.csr_matrix(X_prime),
        )
    a = streaming_step.clipped_gradient_mean(X, w, r).mean
    b = streaming_step.clipped_gradient_mean(X_prime, w, r).mean
    assert np.linalg.norm(a - b) <= 2 * r / B
    # and the norms the quantile reads change in the replaced row only
    na, nb = (
        streaming_step.gradient_norms(X, w),
        streaming_step.gradient_norms(X_prime, w),
    )
    others = np.arange(B) != i
    assert np.array_equal(na[others], nb[others])


# -- the noise: exact ε of a constructed pair against the record --------------------------


@pytest.mark.parametrize("eps", [0.3, 1.0, 3.0])
def test_safe_step_reports_at_least_the_exact_epsilon(eps):
    B, d, r = 64, 4, 0.7
    budget = streaming_schedule.step_budget(eps, DELTA)
    record = streaming.dp_pca_guarantee(eps, DELTA)
    X, X_prime, w = boundary_pair(B, d, r, seed=2)
    mean = streaming_step.clipped_gradient_mean(X, w, r).mean
    mean_prime = streaming_step.clipped_gradient_mean(X_prime, w, r).mean
    sigma, grid = streaming_step.mean_noise_scale(
        r, B, d, budget.rho_mean, "safe"
    )
    variance = exact.safe_gaussian_variance(sigma, grid)
    shift = exact.grid_shift(mean, mean_prime, grid)
    # the rounded shift is within the calibration's bound Δ/γ + √d cells,
    # and so is the worst shift the rounding allows
    bound = 2 * r / (B * grid) + math.sqrt(d)
    assert np.linalg.norm(shift) <= bound
    assert bound**2 / (2 * variance) <= budget.rho_mean * (1 + 1e-12)
    # the exact ε of this pair, for the mean alone, is below the record's
    forced = exact.discrete_gaussian_epsilon(shift, variance, DELTA)
    assert forced <= record.epsilon
    # the step's ρ on this pair (the quantile's worst ε_r²/2 plus the
    # mean's exact Rényi curve) is within the record's ρ
    rho_record = 1 / (2 * record.noise_multiplier**2)
    rho_pair = budget.epsilon_range**2 / 2 + np.sum(shift**2) / (2 * variance)
    assert rho_pair <= rho_record * (1 + 1e-12)
    # and the record's ρ converts to at most (ε, δ)
    assert privacy.zcdp_delta(rho_record, eps) <= DELTA


def test_float_step_reports_at_least_the_exact_epsilon():
    B, d, r, eps = 64, 4, 0.7, 1.0
    budget = streaming_schedule.step_budget(eps, DELTA)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
        record = streaming.dp_pca_guarantee(eps, DELTA, noise="float")
    X, X_prime, w = boundary_pair(B, d, r, seed=3)
    moved = np.linalg.norm(
        streaming_step.clipped_gradient_mean(X, w, r).mean
        - streaming_step.clipped_gradient_mean(X_prime, w, r).mean
    )
    sigma, grid = streaming_step.mean_noise_scale(
        r, B, d, budget.rho_mean, "float"
    )
    assert grid is None and not record.proved
    forced = privacy.gaussian_mechanism_epsilon(sigma, moved, DELTA)
    assert forced <= record.epsilon
    assert moved**2 / (2 * sigma**2) <= budget.rho_mean * (1 + 1e-12)


def test_the_check_has_teeth():
    """Noise calibrated to r/B instead of 2r/B (forgetting that the
    replaced row can move the mean from +r u to −r u) is caught."""
    B, d, r, eps = 64, 4, 0.7, 1.0
    budget = streaming_schedule.step_budget(eps, DELTA)
    X, X_prime, w = boundary_pair(B, d, r, seed=2)
    mean = streaming_step.clipped_gradient_mean(X, w, r).mean
    mean_prime = streaming_step.clipped_gradient_mean(X_prime, w, r).mean
    sigma, grid = streaming_step.mean_noise_scale(r / 2, B, d, budget.rho_mean)
    shift = exact.grid_shift(mean, mean_prime, grid)
    rho_pair = np.sum(shift**2) / (
        2 * exact.safe_gaussian_variance(sigma, grid)
    )
    assert rho_pair > 3 * budget.rho_mean


# -- each row feeds one step --------------------------------------------------------------


def spiked(n, d, rng):
    g = rng.standard_normal((n, d))
    g[:, 0] *= 3.0
    return g


def test_steps_partition_the_rows():
    X = spiked(3_000, 5, np.random.default_rng(4))
    run = streaming.dp_pca_oja(
        X,
        2,
        epsilon=1.0,
        delta=DELTA,
        eigengap=1.0,
        n_steps=7,
        rng=0,
        diagnostics=True,
    )
    spans = [(s.first_row, s.stop_row) for s in run.steps]
    assert len(spans) == run.plan.total_steps == 14
    assert spans[0][0] == 0 and spans[-1][1] == run.plan.rows_used
    assert all(a[1] == b[0] for a, b in zip(spans[:-1], spans[1:]))
    assert all(b - a == run.plan.batch_size for a, b in spans)


@pytest.mark.parametrize("row", [0, 1_234, 2_999 - 137])
def test_a_replaced_row_changes_only_its_own_step(row):
    """Same seed, one row replaced (by a long row nearly orthogonal to the
    iterate): every step before the row's own releases exactly the same
    radius and gradient; the row's step's clipped mean moves by at most
    2r/B; the steps after differ only because they start elsewhere."""
    X = spiked(3_000, 5, np.random.default_rng(5))
    kwargs = dict(eigengap=1.0, n_steps=10, rng=9, diagnostics=True)
    base = streaming.dp_pca_oja(X, 1, epsilon=1.0, delta=DELTA, **kwargs)
    s = next(i for i, st_ in enumerate(base.steps) if st_.stop_row > row)
    if base.steps[s].first_row > row:
        pytest.skip("row beyond the plan")
    w = base.steps[s].iterate
    z = np.random.default_rng(6).standard_normal(5)
    X_prime = X.copy()
    X_prime[row] = 1e6 * unit(z - (z @ w) * w) + 1e-3 * w
    other = streaming.dp_pca_oja(X_prime, 1, epsilon=1.0, delta=DELTA, **kwargs)
    for a, b in zip(base.steps[:s], other.steps[:s]):
        assert a.radius == b.radius
        assert np.array_equal(a.gradient, b.gradient)
    a, b = base.steps[s], other.steps[s]
    assert np.array_equal(a.iterate, b.iterate)
    if a.radius == b.radius:  # the quantile may differ (it is private too)
        moved = np.linalg.norm(a.clipped_mean - b.clipped_mean)
        assert moved <= 2 * a.radius / base.plan.batch_size


def test_record_does_not_depend_on_the_number_of_steps_or_components():
    X = spiked(6_000, 6, np.random.default_rng(7))
    records = {
        streaming.dp_pca_oja(
            X, k, epsilon=0.5, delta=DELTA, eigengap=1.0, n_steps=T, rng=1
        ).guarantee
        for k, T in [(1, 5), (1, 30), (3, 10)]
    }
    assert len(records) == 1
    (record,) = records
    assert record == streaming.dp_pca_guarantee(0.5, DELTA)
    assert record.neighbours.startswith("replace-one")


# --- any finite rows (issue 26) ---------------------------------------------------


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("huge", [1e200, 1.5e308, -1e100])
def test_a_row_with_huge_entries_is_released_like_its_neighbour(sparse, huge):
    """One finite row with huge entries among unit rows: the fit releases,
    as on the neighbour without it (the row is scaled by a power of two, a
    per-row map, then clipped like any other gradient)."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((600, 5))
    X /= np.linalg.norm(X, axis=1)[:, None]
    X_prime = X.copy()
    X_prime[17] = huge
    X_prime[17, 0] = 0.0
    for data in (X, X_prime):
        data = scipy.sparse.csr_matrix(data) if sparse else data
        V = streaming.dp_pca_oja(
            data, 2, epsilon=1.0, delta=1e-6, eigengap=0.1, rng=1, batch_size=10
        )
        assert np.all(np.isfinite(np.asarray(V)))


def test_scaling_of_huge_rows_is_exact_and_per_row():
    X = np.array([[1e200, -3e199, 0.0], [0.5, 0.25, 0.0], [2.0**300, 1, 0]])
    Y = streaming_rows.scale_huge_rows(X)
    np.testing.assert_array_equal(Y[1], X[1])
    for i in (0, 2):
        ratio = Y[i, 0] / X[i, 0]
        assert np.frexp(ratio)[0] == 0.5  # a power of two
        assert np.abs(Y[i]).max() <= 2.0**streaming_rows.HUGE_EXPONENT
        np.testing.assert_array_equal(Y[i], X[i] * ratio)
    S = streaming_rows.scale_huge_rows(scipy.sparse.csr_matrix(X))
    np.testing.assert_array_equal(S.toarray(), Y)


def test_no_message_prints_a_count_of_the_rows():
    X = np.eye(4)[np.arange(200) % 4]
    with pytest.raises(ValueError) as info:
        streaming.dp_pca_oja(
            iter([X[:100]]),
            1,
            epsilon=1.0,
            delta=1e-6,
            eigengap=0.1,
            n_rows=200,
            rng=0,
        )
    assert not any(ch.isdigit() for ch in str(info.value))
