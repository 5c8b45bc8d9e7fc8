"""Spiked-model PCA after Cai, Xia and Zha (dppca.mechanisms.spiked): shapes,
orthonormality and validation; each step's calibration against the shift
its statistic really makes on constructed extremal pairs; the float margin
against a verified bound; the record; and the error's rate in n on the
spiked model (fitted exponent within 0.15 of the paper's)."""

import math
import warnings

import numpy as np
import pytest

from dppca.linalg.moments import unit_rows_second_moment
from dppca.mechanisms import spiked as sp
from dppca.mechanisms.trace_sensitive_spectrum import verified_eigenvalues
from dppca.privacy.guarantees import REPLACE_ONE, Released
from dppca.privacy.guarantees import UnprovedGuaranteeWarning as Unproved
from dppca.privacy.zcdp import zcdp_rho

EPS, DELTA = 1.0, 1e-5


def spiked_rows(n, d, k, spike, level, rng):
    """Bounded rows ``U s + z`` with Rademacher ``s`` (variance ``spike``) and
    ``z`` (variance ``level``): second moment exactly ``spike·UUᵀ + level·I``,
    every row of norm at most ``R = √(k spike) + √(d level)``."""
    U = np.linalg.qr(rng.standard_normal((d, k)))[0]
    S = rng.choice([-1.0, 1.0], size=(n, k)) * math.sqrt(spike)
    Z = rng.choice([-1.0, 1.0], size=(n, d)) * math.sqrt(level)
    return S @ U.T + Z, U, math.sqrt(k * spike) + math.sqrt(d * level)


def run(X, k, **kwargs):
    kwargs.setdefault("epsilon", EPS)
    kwargs.setdefault("delta", DELTA)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Unproved)
        return sp.spiked_pca(X, k, **kwargs)


def sin_theta(V, U):
    return float(np.linalg.norm(V @ V.T - U @ U.T) / math.sqrt(2))


def diagonal_rows(n, d, weights):
    """``n − 1`` coordinate rows giving the diagonal second moment with
    ``weights`` (fractions of the rows on each axis, summing to one) and a
    last row left free: returns the shared rows."""
    counts = np.floor(np.asarray(weights) * (n - 1)).astype(int)
    counts[-1] += (n - 1) - counts.sum()
    return np.vstack(
        [np.tile(np.eye(d)[j], (c, 1)) for j, c in enumerate(counts)]
    )


def statistics(rows, k):
    return sp.spectral_statistics(unit_rows_second_moment(rows), k)


# -- (a) shapes, orthonormality, validation ------------------------------------


@pytest.mark.parametrize("noise", ["safe", "float"])
@pytest.mark.parametrize("k", [1, 3])
def test_shapes_and_orthonormal_basis(noise, k):
    rng = np.random.default_rng(1)
    X, _, R = spiked_rows(400, 8, k, 1.0, 0.05, rng)
    out = run(X, k, data_norm=R, rng=2, noise=noise)
    V = np.asarray(out.components)
    assert isinstance(out.components, Released)
    assert V.shape == (8, k) and out.eigenvalues.shape == (k,)
    np.testing.assert_allclose(V.T @ V, np.eye(k), atol=1e-10)
    lam = np.asarray(out.eigenvalues)
    assert np.all(np.diff(lam) <= 0)
    assert np.all((0 <= lam) & (lam <= R * R))
    assert 0 <= out.noise_variance <= R * R
    C = out.covariance()
    np.testing.assert_allclose(C, C.T)
    assert out.components.guarantee is out.guarantee


def test_same_seed_same_release_and_subspace_entry_point():
    rng = np.random.default_rng(3)
    X, _, R = spiked_rows(300, 6, 2, 1.0, 0.05, rng)
    a = run(X, 2, data_norm=R, rng=7)
    b = run(X, 2, data_norm=R, rng=7)
    np.testing.assert_array_equal(a.components, b.components)
    np.testing.assert_array_equal(a.eigenvalues, b.eigenvalues)
    assert a.noise_variance == b.noise_variance
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Unproved)
        V = sp.spiked_subspace(
            X, 2, epsilon=EPS, delta=DELTA, data_norm=R, rng=7
        )
    np.testing.assert_array_equal(V, a.components)


def test_release_warns_that_it_is_not_fully_proved():
    X = np.eye(4)[[0, 1, 2, 3, 0, 1]] * 0.5
    with pytest.warns(Unproved, match="LAPACK"):
        sp.spiked_pca(X, 1, epsilon=EPS, delta=DELTA, rng=0)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(k=0), ValueError),
        (dict(k=4), ValueError),
        (dict(k=1.5), TypeError),
        (dict(epsilon=0.0), ValueError),
        (dict(delta=1.0), ValueError),
        (dict(data_norm=0.0), ValueError),
        (dict(data_norm=math.inf), ValueError),
        (dict(noise="exact"), ValueError),
        (dict(shares=(0.5, 0.5, 0.5, 0.5)), ValueError),
        (dict(shares=(0.1, 0.6, 0.3)), ValueError),
        (dict(shares=(0.0, 0.6, 0.2, 0.2)), ValueError),
    ],
)
def test_invalid_arguments_are_refused(kwargs, error):
    X = np.eye(4)[[0, 1, 2, 3, 0]] * 0.5
    kwargs = dict(dict(k=1, epsilon=EPS, delta=DELTA), **kwargs)
    k = kwargs.pop("k")
    with pytest.raises(error):
        sp.spiked_pca(X, k, rng=0, **kwargs)


def test_rows_outside_the_ball_and_bad_entries_are_refused():
    X = np.eye(3)[[0, 1, 2, 0]] * 2.0
    with pytest.raises(ValueError, match="norm > 1"):
        run(X, 1, data_norm=1.0, rng=0)
    run(X, 1, data_norm=2.0, rng=0)  # inside the ball of radius 2
    with pytest.raises(ValueError, match="NaN"):
        run(np.array([[np.nan, 0.0, 0.0], [1.0, 0.0, 0.0]]), 1, rng=0)
    with pytest.raises(ValueError, match="2-D"):
        run(np.ones(3), 1, rng=0)


# -- (b) calibration against extremal pairs ------------------------------------


def test_gap_shift_attains_its_sensitivity():
    """Remove a row on the k-th axis and add one on the (k+1)-th: the gap
    falls by exactly 2/n (both eigenvalues stay in place)."""
    n, d, k = 200, 5, 2
    shared = diagonal_rows(n, d, [0.35, 0.3, 0.15, 0.1, 0.1])
    e = np.eye(d)
    X, Xp = np.vstack([shared, e[k - 1]]), np.vstack([shared, e[k]])
    shift = abs(statistics(X, k).gap - statistics(Xp, k).gap)
    cal = sp.spiked_calibration(n, d, k, EPS, DELTA)
    assert shift == pytest.approx(2 / n, rel=1e-9)
    assert shift <= cal.steps["gap"].sensitivity


def test_eigenvalue_shift_attains_its_sensitivity():
    n, d, k = 200, 5, 2
    shared = diagonal_rows(n, d, [0.35, 0.3, 0.15, 0.1, 0.1])
    e = np.eye(d)
    X, Xp = np.vstack([shared, e[0]]), np.vstack([shared, e[1]])
    shift = np.linalg.norm(statistics(X, k).values - statistics(Xp, k).values)
    cal = sp.spiked_calibration(n, d, k, EPS, DELTA)
    assert shift == pytest.approx(math.sqrt(2) / n, rel=1e-9)
    assert shift <= cal.steps["values"].sensitivity


def test_noise_level_shift_attains_its_sensitivity():
    n, d, k = 200, 5, 2
    shared = diagonal_rows(n, d, [0.35, 0.3, 0.15, 0.1, 0.1])
    e = np.eye(d)
    X, Xp = np.vstack([shared, e[0]]), np.vstack([shared, e[d - 1]])
    shift = abs(statistics(X, k).noise_level - statistics(Xp, k).noise_level)
    cal = sp.spiked_calibration(n, d, k, EPS, DELTA)
    assert shift == pytest.approx(1 / (n * (d - k)), rel=1e-9)
    assert shift <= cal.steps["noise_level"].sensitivity


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("gap", [0.05, 0.025, 0.01])
def test_projector_shift_within_its_sensitivity_on_tilting_pairs(k, gap):
    """A row on axis k (the last spike) against one tilted halfway to axis
    k + 1, the direction that rotates the subspace most, at gaps from 20/n
    to 4/n: the projector's shift stays within the sensitivity of the
    smaller exact gap, and within a factor 8 of it (the bound is not loose
    by orders of magnitude)."""
    n, d = 400, 5
    top = [0.3] * (k - 1) + [0.25, 0.25 - gap]
    w = top + [(1 - sum(top)) / (d - k - 1)] * (d - k - 1)
    shared = diagonal_rows(n, d, w)
    e = np.eye(d)
    tilted = (e[k - 1] + e[k]) / math.sqrt(2)
    X, Xp = np.vstack([shared, e[k]]), np.vstack([shared, tilted])
    a, b = statistics(X, k), statistics(Xp, k)
    shift = np.linalg.norm(a.projector - b.projector)
    gap = min(a.gap, b.gap) - 2 * sp.float_margin(n, d)
    bound = sp.projector_sensitivity(n, d, k, gap)
    assert shift <= bound
    assert shift >= bound / 8


def test_projector_sensitivity_is_capped_and_decreasing():
    n, d, k = 100, 6, 2
    cap = sp.projector_sensitivity(n, d, k, 0.0)
    assert cap == sp.projector_sensitivity(n, d, k, -1.0)
    assert cap >= 2.0  # √(2k): two rank-2 projectors can be orthogonal
    gaps = [1e-4, 1e-1, 1.0]
    values = [sp.projector_sensitivity(n, d, k, g) for g in gaps]
    assert values[0] == cap and np.all(np.diff(values) < 0)
    assert values[-1] == pytest.approx(4 / n, rel=1e-6)


@pytest.mark.parametrize("noise", ["safe", "float"])
def test_every_sigma_is_at_least_its_sensitivity_over_sqrt_two_rho(noise):
    n, d, k = 500, 7, 2
    cal = sp.spiked_calibration(n, d, k, EPS, DELTA, noise=noise)
    steps = dict(cal.steps, projector=cal.projector_step(0.05))
    shares = dict(zip(sp.STEPS, cal.shares))
    for name, step in steps.items():
        rho = shares[name] * cal.rho
        assert step.sigma >= step.sensitivity / math.sqrt(2 * rho)
        assert step.rho <= rho * (1 + 1e-12)
    assert cal.rho == zcdp_rho(EPS, DELTA * sp.PTR_DELTA_SHARE)


def test_float_margin_covers_the_verified_eigenvalue_error():
    """A posteriori: the verified distance of the computed eigenvalues to
    the exact ones of the computed matrix is within the assumed margin."""
    rng = np.random.default_rng(5)
    for n, d in [(2000, 10), (500, 40)]:
        X, _, R = spiked_rows(n, d, 3, 1.0, 0.05, rng)
        A = unit_rows_second_moment(X / R)
        _, error = verified_eigenvalues(A)
        assert error <= sp.float_margin(n, d)


# -- (c) the record ------------------------------------------------------------


@pytest.mark.parametrize("noise", ["safe", "float"])
def test_record_states_the_budget_relation_noise_and_composition(noise):
    record = sp.spiked_guarantee(300, 6, 2, EPS, DELTA, noise=noise)
    assert record.kind == "approximate"
    assert (record.epsilon, record.delta) == (EPS, DELTA)
    assert record.neighbours == REPLACE_ONE
    assert record.noise == noise and record.sampler == "exact"
    assert not record.proved and "LAPACK" in record.caveat
    assert "zCDP" in record.theorem and "propose-test-release" in record.theorem
    X, _, R = spiked_rows(300, 6, 2, 1.0, 0.05, np.random.default_rng(0))
    assert run(X, 2, data_norm=R, rng=0, noise=noise).guarantee == record


def test_a_budget_too_small_for_safe_noise_is_refused_before_any_draw():
    with pytest.raises(ValueError, match="too small for safe noise"):
        sp.spiked_guarantee(300, 6, 2, 1e-13, 1e-12)


# -- (d) the rate in n on the spiked model ------------------------------------


@pytest.mark.parametrize(
    "epsilon, exponent",
    [
        (0.5, -1.0),  # the privacy term k(d − k)/(nε) dominates
        (50.0, -0.5),  # the sampling term √(k(d − k)/n) dominates
    ],
)
def test_sin_theta_error_falls_at_the_papers_rate_in_n(epsilon, exponent):
    """Cai, Xia and Zha's rate is the sum of a sampling term in n^(−1/2) and
    a privacy term in n^(−1); at ε = 0.5 (d = 20, k = 2, spikes 1, level
    0.05) the second dominates over n = 8000..64000, at ε = 50 the first.
    The exponent fitted to the mean error over six seeds is within 0.15."""
    d, k = 20, 2
    sizes = np.array([8000, 16000, 32000, 64000])
    errors = []
    for n in sizes:
        rng = np.random.default_rng(int(n))
        runs = []
        for _ in range(6):
            X, U, R = spiked_rows(int(n), d, k, 1.0, 0.05, rng)
            out = run(
                X, k, epsilon=epsilon, data_norm=R, rng=rng, noise="float"
            )
            runs.append(sin_theta(np.asarray(out.components), U))
        errors.append(np.mean(runs))
    slope = np.polyfit(np.log(sizes), np.log(errors), 1)[0]
    assert abs(slope - exponent) <= 0.15, slope
