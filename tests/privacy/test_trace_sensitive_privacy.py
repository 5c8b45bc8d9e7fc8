"""Attacks on the privacy claim of dppca.mechanisms.trace_sensitive.

Each step of the trace-sensitive estimator is a Gaussian mechanism on a
computed quantity; the calibration assumes a replace-one sensitivity for
each. Here every one is attained by a constructed pair and never exceeded by
random or hypothesis-drawn pairs (computed float64 values, rows inside, on
and beyond every candidate radius), the safe rounding grows each shift by at
most its rounding term, and the composition of the steps on constructed
pairs is compared with what the record reports: exactly for float noise (a
composition of Gaussian mechanisms is one Gaussian mechanism), through the
pair's own Rényi curve for the discrete noise (never below the exact ε).
"""

from __future__ import annotations

import math

import exact_privacy as exact
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dppca
from dppca import privacy
from dppca.linalg import clipped_sums, rows
from dppca.mechanisms import trace_sensitive as ts
from dppca.mechanisms import trace_sensitive_calibration as ts_calibration
from dppca.mechanisms import trace_sensitive_radius as ts_radius
from dppca.mechanisms import trace_sensitive_spectrum as ts_spectrum
from dppca.privacy import accounting, audit
from dppca.privacy.guarantees import zcdp_release

DELTA = 1e-5
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True)


def trace_of(X):
    return ts_radius.clipped_trace(rows.row_norms(X))


def histogram_of(X, levels=ts_calibration.DEFAULT_LEVELS):
    return ts_radius.norm_histogram(rows.row_norms(X), levels).astype(float)


def moment_of(X, radius):
    return clipped_sums.clipped_second_moment(X, radius).matrix


def values_of(X, radius, P=None):
    """The eigenvalue step's values: Rayleigh quotients along a public basis
    (the released eigenvectors; here the identity or a given ``P``)."""
    A = moment_of(X, radius)
    return ts_spectrum.rayleigh_quotients(
        A, np.eye(A.shape[0]) if P is None else P
    )


def values_bound(n, d):
    return (1 + ts_calibration.BASIS_DEFECT) * math.sqrt(
        2
    ) / n + 2 * ts_calibration.rayleigh_margin(d)


def pair_from(seed, n, d, norms, replacement):
    """Rows of the given norms in random directions; the neighbour replaces
    the last row by ``replacement`` (a vector)."""
    rng = np.random.default_rng(seed)
    U = rng.standard_normal((n, d))
    X = U / np.linalg.norm(U, axis=1)[:, None] * np.asarray(norms)[:, None]
    X_prime = X.copy()
    X_prime[-1] = replacement
    return X, X_prime


# --- attained, one step at a time ---------------------------------------------


def test_trace_sensitivity_is_attained():
    n, d = 50, 4
    X, X_prime = pair_from(0, n, d, np.full(n, 0.5), np.eye(d)[0])
    X[-1] = 0.0
    move = abs(trace_of(X) - trace_of(X_prime))
    assert move == pytest.approx(1 / n, rel=1e-14)
    assert move <= ts_calibration.trace_sensitivity(n)


def test_histogram_sensitivity_is_attained():
    n, d = 50, 4
    X, X_prime = pair_from(1, n, d, np.full(n, 0.3), np.zeros(d))
    X[-1] = np.eye(d)[0]  # level 0 against the last level
    change = histogram_of(X) - histogram_of(X_prime)
    assert np.linalg.norm(change) == pytest.approx(math.sqrt(2))
    assert sorted(change[change != 0]) == [-1.0, 1.0]


@pytest.mark.parametrize("radius", [1.0, 0.5, 2.0**-4])
def test_moment_sensitivity_is_attained_at_every_radius(radius):
    """Orthogonal rows on or beyond the radius: ‖A_r − A_r'‖_F = √2/n (up to
    the float shrink s² of clipped_sums.clipped_second_moment)."""
    n, d = 40, 5
    X, X_prime = pair_from(2, n, d, np.full(n, 0.5 * radius), np.eye(d)[1])
    X[-1] = np.eye(d)[0]
    move = np.linalg.norm(moment_of(X, radius) - moment_of(X_prime, radius))
    assert move <= math.sqrt(2) / n
    assert move == pytest.approx(math.sqrt(2) / n, rel=1e-9)
    upper = exact.upper(moment_of(X, radius) - moment_of(X_prime, radius))
    assert np.linalg.norm(upper) == pytest.approx(math.sqrt(2) / n, rel=1e-9)


def test_eigenvalue_sensitivity_is_attained():
    """m + 1 rows e₁ against m rows e₁ and one e₂: along the basis e_i the
    quotients are ((m+1)/n, 0, …) and (m/n, 1/n, 0, …), ℓ₂ distance √2/n."""
    n, d, m = 30, 4, 10
    e = np.eye(d)
    X = np.zeros((n, d))
    X[: m + 1] = e[0]
    X_prime = X.copy()
    X_prime[m] = e[1]
    lam, lam_p = values_of(X, 1.0), values_of(X_prime, 1.0)
    move = np.linalg.norm(lam - lam_p)
    assert move == pytest.approx(math.sqrt(2) / n, rel=1e-9)
    assert move <= values_bound(n, d)


# --- never exceeded: random and hypothesis pairs ---------------------------------

REPLACEMENTS = ("zero", "unit", "opposite", "far inside")


@st.composite
def neighbours(draw):
    n = draw(st.integers(2, 30))
    d = draw(st.integers(2, 6))
    levels = st.sampled_from([1.0, 0.999999, 0.5, 0.5000001, 0.3, 2.0**-7, 0.0])
    norms = draw(st.lists(levels, min_size=n, max_size=n))
    seed = draw(st.integers(0, 2**16))
    replacement = draw(st.sampled_from(REPLACEMENTS))
    radius = draw(st.sampled_from([1.0, 0.5, 0.25, 2.0**-7]))
    return n, d, norms, seed, replacement, radius


def build(n, d, norms, seed, replacement):
    rng = np.random.default_rng(seed)
    X, _ = pair_from(seed, n, d, norms, np.zeros(d))
    last = X[-1]
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    new = {
        "zero": np.zeros(d),
        "unit": w,
        "opposite": -last / max(np.linalg.norm(last), 1e-300)
        if np.any(last)
        else w,
        "far inside": 2.0**-9 * w,
    }[replacement]
    X_prime = X.copy()
    X_prime[-1] = new
    return X, X_prime


@SETTINGS
@given(neighbours())
def test_no_pair_exceeds_any_step_sensitivity(case):
    n, d, norms, seed, replacement, radius = case
    X, X_prime = build(n, d, norms, seed, replacement)
    assert abs(
        trace_of(X) - trace_of(X_prime)
    ) <= ts_calibration.trace_sensitivity(n)
    change = np.linalg.norm(histogram_of(X) - histogram_of(X_prime))
    assert change in (0.0, pytest.approx(math.sqrt(2)))
    A, A_prime = moment_of(X, radius), moment_of(X_prime, radius)
    assert np.linalg.norm(A - A_prime) <= math.sqrt(2) / n
    # the basis is public (released before the values are computed): any
    # orthonormal basis, here one drawn from the seed
    P = np.linalg.qr(np.random.default_rng(seed).standard_normal((d, d)))[0]
    lam, lam_p = values_of(X, radius, P), values_of(X_prime, radius, P)
    assert np.linalg.norm(lam - lam_p) <= values_bound(n, d)


def test_random_pairs_stay_within_the_sensitivities():
    rng = np.random.default_rng(7)
    n, d = 200, 8
    worst = {"trace": 0.0, "moment": 0.0, "values": 0.0}
    for trial in range(200):
        norms = rng.choice([1.0, 0.7, 0.2, 0.01], size=n)
        X, X_prime = pair_from(trial, n, d, norms, np.zeros(d))
        X_prime[-1] = dppca.validation.normalize_rows(
            rng.standard_normal((1, d))
        )[0] * rng.choice([1.0, 0.5, 0.0])
        radius = rng.choice([1.0, 0.5, 0.125])
        worst["trace"] = max(
            worst["trace"], abs(trace_of(X) - trace_of(X_prime)) * n
        )
        worst["moment"] = max(
            worst["moment"],
            np.linalg.norm(moment_of(X, radius) - moment_of(X_prime, radius))
            * n,
        )
        P = ts_spectrum.released_basis(rng.standard_normal((d, d)))
        lam, lam_p = values_of(X, radius, P), values_of(X_prime, radius, P)
        worst["values"] = max(worst["values"], np.linalg.norm(lam - lam_p) * n)
    assert worst["trace"] <= 1 + 5 * 2.0**-53 * n
    assert worst["moment"] <= math.sqrt(2)
    assert worst["values"] <= n * values_bound(n, d)


# --- the safe rounding ------------------------------------------------------------


def boundary_pair(n, d, grid):
    """audit.grid_boundary_pair: a zero row replaced by (1, …, 1)/√d, the
    other rows putting every entry of A just below a half cell of ``grid``."""
    return audit.grid_boundary_pair(n, d, grid, below=True)


@pytest.mark.parametrize("method", ts_calibration.METHODS)
def test_rounding_grows_each_shift_by_at_most_its_cells(method):
    n, d = 1000, 3
    cal = ts_calibration.trace_sensitive_calibration(
        n, d, 0.5, DELTA, method=method
    )
    s = cal.steps
    X, X_prime = boundary_pair(n, d, s["vectors"].granularity)
    cells = exact.grid_shift(
        exact.upper(moment_of(X, 1.0)),
        exact.upper(moment_of(X_prime, 1.0)),
        s["vectors"].granularity,
    )
    # the construction makes the rounding grow every entry's shift
    move = 1.0 / (d * n) / s["vectors"].granularity  # each entry, in cells
    assert (np.abs(cells) > move).all()
    bound = (
        s["vectors"].sensitivity / s["vectors"].granularity
        + s["vectors"].rounding
    )
    assert np.linalg.norm(cells) <= bound
    lam, lam_p = values_of(X, 1.0)[0], values_of(X_prime, 1.0)[0]
    grid = s["values"].granularity
    value_cells = exact.grid_shift(lam, lam_p, grid)
    assert np.linalg.norm(value_cells) <= s[
        "values"
    ].sensitivity / grid + math.sqrt(d)
    if method == "adaptive":
        grid = s["trace"].granularity
        trace_cells = exact.grid_shift([trace_of(X)], [trace_of(X_prime)], grid)
        assert abs(trace_cells[0]) <= s["trace"].sensitivity / grid + 1


# --- the composition on constructed pairs, against the record ---------------------


def float_shifts(X, X_prime, radius):
    """ℓ₂ shift of every step's computed values on the pair (float noise)."""
    A, A_p = moment_of(X, radius), moment_of(X_prime, radius)
    return {
        "trace": abs(trace_of(X) - trace_of(X_prime)),
        "histogram": float(
            np.linalg.norm(histogram_of(X) - histogram_of(X_prime))
        ),
        "gaussian": float(np.linalg.norm(exact.upper(A - A_p))),
        "vectors": float(np.linalg.norm(exact.upper(A - A_p))),
        "values": float(
            np.linalg.norm(
                values_of(X, radius)[0] - values_of(X_prime, radius)[0]
            )
        ),
    }


def worst_float_pairs(n, d):
    e = np.eye(d)
    rng = np.random.default_rng(3)
    shared = (
        dppca.validation.normalize_rows(rng.standard_normal((n - 1, d))) * 0.5
    )
    orthogonal = (np.vstack([shared, e[0]]), np.vstack([shared, e[1]]))
    zero_unit = (np.vstack([shared, np.zeros(d)]), np.vstack([shared, e[0]]))
    m = n // 3
    X = np.zeros((n, d))
    X[: m + 1] = e[0]
    X_p = X.copy()
    X_p[m] = e[1]
    spectral = (X, X_p)
    return {
        "orthogonal": orthogonal,
        "zero-unit": zero_unit,
        "spectrum": spectral,
    }


@pytest.mark.parametrize("method", ts_calibration.METHODS)
def test_float_composition_is_exactly_below_the_record(method):
    """Float noise: the run's steps on a pair compose exactly like one
    Gaussian mechanism with μ² = Σ (shift/σ)² (Dong, Roth and Su 2022), at the
    radius and release the pair forces; take the worst release at every
    radius. The record (calibrated ε, and the accountant) must report at
    least that exact ε."""
    n, d, eps = 500, 4, 0.7
    cal = ts_calibration.trace_sensitive_calibration(
        n, d, eps, DELTA, method=method, noise="float"
    )
    record = ts.trace_sensitive_guarantee(
        n, d, eps, DELTA, method=method, noise="float"
    )
    s = cal.steps
    worst, worst_mu2 = 0.0, 0.0
    for X, X_prime in worst_float_pairs(n, d).values():
        for radius in [1.0, 0.5] if method == "adaptive" else [1.0]:
            shift = float_shifts(X, X_prime, radius)
            separate = sum(
                (shift[k] / s[k].sigma) ** 2 for k in ("vectors", "values")
            )
            if method == "separate":
                mu2 = separate
            else:
                selection = sum(
                    (shift[k] / s[k].sigma) ** 2 for k in ("trace", "histogram")
                )
                gaussian = (shift["gaussian"] / s["gaussian"].sigma) ** 2
                mu2 = selection + max(separate, gaussian)
            worst_mu2 = max(worst_mu2, mu2)
            forced = privacy.gaussian_mechanism_epsilon(
                1.0, math.sqrt(mu2), DELTA
            )
            worst = max(worst, forced)
    assert record.epsilon >= worst
    assert exact.reported(record, DELTA) >= worst
    # the pairs are strong: they force most of the zCDP the record pays for
    assert worst_mu2 / 2 >= 0.45 * cal.rho


@pytest.mark.parametrize("method", ts_calibration.METHODS)
def test_safe_composition_of_a_boundary_pair_is_below_the_record(method):
    """Safe noise on the grid boundary pair (every entry crosses a half cell;
    trace and histogram move by their full sensitivity): the integer shifts
    of every step, at the variances the sampler draws. For one step the
    exact ε (convolution where small enough, else the pair's Rényi bound,
    never below it); for the composition the pair's own Rényi curve, which
    bounds its exact ε from above. The record reports at least both."""
    n, d, eps = 1000, 3, 0.5
    cal = ts_calibration.trace_sensitive_calibration(
        n, d, eps, DELTA, method=method
    )
    record = ts.trace_sensitive_guarantee(n, d, eps, DELTA, method=method)
    s = cal.steps
    X, X_prime = boundary_pair(n, d, s["vectors"].granularity)
    A, A_p = moment_of(X, 1.0), moment_of(X_prime, 1.0)
    lam, lam_p = values_of(X, 1.0), values_of(X_prime, 1.0)
    shifts = {
        "vectors": exact.grid_shift(
            exact.upper(A), exact.upper(A_p), s["vectors"].granularity
        ),
        "values": exact.grid_shift(lam, lam_p, s["values"].granularity),
    }
    if method == "adaptive":
        shifts["gaussian"] = exact.grid_shift(
            exact.upper(A), exact.upper(A_p), s["gaussian"].granularity
        )
        shifts["trace"] = exact.grid_shift(
            [trace_of(X)], [trace_of(X_prime)], s["trace"].granularity
        )
        shifts["histogram"] = (histogram_of(X) - histogram_of(X_prime)).astype(
            np.int64
        )
        assert np.linalg.norm(shifts["histogram"]) == pytest.approx(
            math.sqrt(2)
        )
    variances = {
        k: exact.safe_gaussian_variance(s[k].sigma, s[k].granularity)
        for k in shifts
    }
    rho_step = {
        k: float(np.sum(shifts[k].astype(float) ** 2)) / (2 * variances[k])
        for k in shifts
    }
    for k in shifts:  # one step: its exact ε is below what its ρ allows
        one = exact.discrete_gaussian_epsilon(shifts[k], variances[k], DELTA)
        allowed = zcdp_release("step", s[k].rho, 1.0, DELTA)
        assert one <= accounting.gaussian_epsilon(
            [allowed.noise_multiplier], DELTA, "rdp"
        ) * (1 + 1e-9)
        assert rho_step[k] <= s[k].rho
    separate = rho_step["vectors"] + rho_step["values"]
    if method == "separate":
        rho_pair = separate
    else:
        rho_pair = (
            rho_step["trace"]
            + rho_step["histogram"]
            + max(rho_step["gaussian"], separate)
        )
    pair = zcdp_release("pair", rho_pair, 1.0, DELTA)
    bound = accounting.gaussian_epsilon([pair.noise_multiplier], DELTA, "rdp")
    assert record.epsilon >= bound
    assert exact.reported(record, DELTA) >= bound * (1 - 1e-9)
    assert rho_pair >= 0.2 * cal.rho  # a strong pair, not a trivial one
