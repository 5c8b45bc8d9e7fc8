"""The ends of the legal bounds: no row is refused where another is clipped
(issue 38, item 2).

Bounds are verified in ``[MIN_BOUND, MAX_MAGNITUDE / 2]`` = ``[1e-150,
5e149]`` (:func:`dppca.decomposition.parameters._check_scales`). With
``data_norm=1e-150`` and ``bound_range=(1e-150, 5e149)`` a fit clipped the
rows first to ``1e-150`` but tamed the long ones only down to ``2⁴⁰`` times
the largest public scale (``5e149``): one finite row of norm ``1.4e149``
then exceeded its pre-clip bound by more than ``1e290`` and the fit raised
``ValueError`` after the charge and after the private mean was drawn, where
its neighbour released.

For every pair of legal extremes and rows of any finite norm (up to the
float maximum), neighbours release alike or refuse alike, and a refusal
comes before any charge to the ledger.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from test_observable_outcomes import NAMES, SETTINGS, make, outcome

from dppca import PrivatePCA
from dppca.linalg import clipped_sums, float_error, rows
from dppca.privacy import private_bounds
from dppca.privacy.accounting import Accountant

LOW = float_error.MIN_BOUND  # 1e-150
HIGH = float_error.MAX_MAGNITUDE / 2  # 5e149
BIGGEST = float(np.finfo(float).max)

#: Pairs of legal bounds: (data_norm, bound_range) at the ends.
EXTREME_PAIRS = (
    (LOW, (LOW, HIGH)),
    (LOW, (LOW, 2 * LOW)),
    (HIGH, (LOW, HIGH)),
    (HIGH, (HIGH / 2, HIGH)),
    ("private", (LOW, HIGH)),
    ("private", (LOW, 2 * LOW)),
    ("private", (HIGH / 2, HIGH)),
)

#: Norms of the row that differs: near each bound, far beyond, the largest.
LONG_NORMS = (1e-150, 3e-150, 1e-140, 1.4e149, 5e149, 1e150, 1e200, BIGGEST)


def rows_near(scale: float, n: int, d: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    directions = rng.standard_normal((n, d))
    directions /= np.linalg.norm(directions, axis=1, keepdims=True)
    return directions * rng.uniform(0.1, 0.9, (n, 1)) * scale


def long_row(norm: float, d: int) -> np.ndarray:
    """A finite row of the given norm (the float maximum stays finite)."""
    row = np.zeros(d)
    row[0] = norm
    if norm < BIGGEST:
        row[: min(d, 2)] = norm / np.sqrt(min(d, 2))
    return row


def test_issue_case_releases_on_both_neighbours():
    """The issue's pair: D releases; D′, one row of norm 1.4e149, raised
    ``ValueError`` ('a row norm exceeds the bound ... by more than
    1e+290') after the charge."""
    X = rows_near(LOW, 40, 3, seed=1)
    X_prime = X.copy()
    X_prime[0] = [1.4e149, 0.0, 0.0]
    params = dict(
        n_components=2, data_norm=LOW, bound_range=(LOW, HIGH), delta=2**-20
    )
    first = outcome(make("analyze_gauss", **params), X)
    second = outcome(make("analyze_gauss", **params), X_prime)
    assert first[0] == "released"
    assert first == second


@pytest.mark.parametrize("norm", LONG_NORMS)
@pytest.mark.parametrize("centre", ["private", "none", "public"])
@pytest.mark.parametrize(("data_norm", "bound_range"), EXTREME_PAIRS)
def test_extreme_pairs_neighbours_alike(data_norm, bound_range, centre, norm):
    """Every extreme pair, centred privately, not centred or about a public
    centre, against one row of each norm up to the float maximum."""
    scale = bound_range[0] if data_norm == "private" else data_norm
    X = rows_near(scale, 30, 3, seed=2)
    X_prime = X.copy()
    X_prime[3] = long_row(norm, 3)
    params = dict(data_norm=data_norm, bound_range=bound_range)
    if centre == "none":
        params["center"] = False
    elif centre == "public":
        params["center"] = np.full(3, scale / 4)
    first = outcome(make("gaussian_approx", **params), X)
    second = outcome(make("gaussian_approx", **params), X_prime)
    assert first == second


@st.composite
def extreme_cases(draw):
    """A legal extreme setting and neighbours (dense or CSR) whose differing
    row (and a few others) may have any finite norm."""
    data_norm, bound_range = draw(st.sampled_from(EXTREME_PAIRS))
    n = draw(st.integers(20, 40))
    d = draw(st.integers(2, 4))
    scale = bound_range[0] if data_norm == "private" else data_norm
    if data_norm == "private":
        scale = draw(st.sampled_from(bound_range))
    params = dict(data_norm=data_norm, bound_range=bound_range)
    centring = draw(st.sampled_from(["private", "none", "public"]))
    if centring == "none":
        params["center"] = False
    elif centring == "public":
        params["center"] = np.full(d, scale * draw(st.sampled_from([0, 1.5])))
    if centring == "private":
        centered = draw(st.sampled_from(["auto", "private", None, LOW, HIGH]))
        params["centered_norm"] = centered
    X = rows_near(scale, n, d, draw(st.integers(0, 2**32 - 1)))
    norm = st.one_of(
        st.sampled_from(LONG_NORMS),
        st.floats(1e-320, BIGGEST, allow_nan=False, allow_infinity=False),
    )
    for i in draw(st.lists(st.integers(0, n - 1), max_size=2)):
        X[i] = long_row(draw(norm), d)
    X_prime = X.copy()
    X_prime[draw(st.integers(0, n - 1))] = long_row(draw(norm), d) * draw(
        st.sampled_from([1.0, -1.0])
    )
    if draw(st.booleans()):
        X, X_prime = (
            scipy.sparse.csr_matrix(X),
            scipy.sparse.csr_matrix(X_prime),
        )
    return params, X, X_prime


@pytest.mark.parametrize("name", NAMES)
@settings(SETTINGS, max_examples=12)
@given(data=st.data())
def test_legal_extremes_neighbours_alike(name, data):
    """Every mechanism, at the ends of the legal ranges: neighbours release
    alike or refuse alike, a refusal before any charge (``outcome``)."""
    params, X, X_prime = data.draw(extreme_cases())
    first = outcome(make(name, **params), X)
    second = outcome(make(name, **params), X_prime)
    assert first == second


@pytest.mark.parametrize("norm", LONG_NORMS)
def test_functions_accept_any_row_beyond_a_tiny_pre_clip(norm):
    """The functions the fit calls, with a pre-clip bound at the bottom of
    the range and a bound (or candidate) at its top: any finite row is
    clipped like any other."""
    X = rows_near(LOW, 20, 3, seed=3)
    X[0] = long_row(norm, 3)
    centre = np.full(3, LOW / 4)
    Z = rows.unit_ball_rows(X, HIGH, centre=centre, pre_clip=LOW)
    assert np.all(np.linalg.norm(Z, axis=1) <= 1.0)
    moment = clipped_sums.clipped_second_moment(
        X, HIGH, centre=centre, pre_clip=LOW
    )
    assert np.all(np.isfinite(moment.matrix))
    bound = private_bounds.centred_norm_quantile(
        X, centre, 0.9, 1.0, lower=LOW, upper=HIGH, pre_clip=LOW, rng=0
    )
    assert LOW <= bound.bound <= HIGH


def test_public_centre_beyond_verified_magnitude_refused_before_charge():
    X = rows_near(HIGH, 20, 3, seed=4)
    params = dict(data_norm=HIGH, center=np.full(3, 1.5e150))
    result = outcome(make("gaussian_approx", **params), X)
    assert result[0] == "raised"  # outcome() checks: before the charge


def test_triangle_bound_at_the_largest_data_norm_is_never_refused():
    """Red team (issue 38): with data_norm at the top of the verified range,
    R + ‖μ̂‖ could round above it and the fit was refused after the charge
    (9 of 30 seeds on D, 4 on D′). The bound is capped at 2R (‖μ̂‖ ≤ R)."""
    rng = np.random.default_rng(3)
    D = rng.normal(size=(40, 4))
    D *= 2.5e149 / np.linalg.norm(D, axis=1, keepdims=True)
    D_prime = D.copy()
    D_prime[0] = [1e200, 1e-200, 0.0, 0.0]
    for seed in range(30):
        for X in (D, D_prime):
            ledger = Accountant(10.0, 1e-5)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                PrivatePCA(
                    2,
                    epsilon=1.0,
                    delta=1e-6,
                    data_norm=5e149,
                    centered_norm="triangle",
                    mechanism="analyze_gauss",
                    accountant=ledger,
                    random_state=seed,
                ).fit(X)
