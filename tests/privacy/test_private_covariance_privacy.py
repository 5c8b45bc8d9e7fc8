"""The privacy claims of dppca.covariance.PrivateCovariance (issue
43): every parameter error is refused before the charge; the records say
what the fit guarantees; the sensitivity the calibration assumes (√2/n on
the upper triangle of the unit-normalised second moment) holds on every
neighbouring pair and is attained on the extremal one, rows at the bound
along two axes; every outcome a caller can observe (returns or raises,
warnings, charges, the caller's generator) is the same on neighbours."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest

from dppca.covariance import PrivateCovariance
from dppca.covariance.plan import covariance_plan
from dppca.covariance.release import unit_second_moment
from dppca.decomposition.add_remove import add_remove_neighbours
from dppca.exceptions import (
    BudgetExceededError,
    PrivacyWarning,
    UnprovedGuaranteeWarning,
)
from dppca.linalg import float_error
from dppca.mechanisms import registry
from dppca.mechanisms.input_perturbation import (
    analyze_gauss_from_second_moment,
)
from dppca.mechanisms.input_perturbation_guarantees import (
    analyze_gauss_guarantee,
)
from dppca.mechanisms.trace_sensitive_calibration import (
    trace_sensitive_calibration,
)
from dppca.privacy import private_bounds
from dppca.privacy.accounting import Accountant
from dppca.privacy.guarantees import REPLACE_ONE, guarantee_of
from dppca.privacy.zcdp import gaussian_zcdp_rho

pytestmark = pytest.mark.privacy

R = 2.0
D = 4


def _est(**params):
    return PrivateCovariance(**{"delta": 1e-6, "data_norm": R, **params})


def _rows(n, seed, spread=1.0):
    """Rows of norm up to ``spread · R`` (above 1: some are clipped)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D))
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / norms * R * spread * rng.uniform(0, 1, size=(n, 1))


def _upper(M):
    return M[np.triu_indices(M.shape[0])]


def _change(X, Y, plan, location=None):
    """ℓ₂ norm of the change of the upper triangle of the matrix the noise
    is added to, on neighbours X, Y (for a fixed released location)."""
    A, B = unit_second_moment(X, plan, location)
    A2, B2 = unit_second_moment(Y, plan, location)
    assert B == B2
    return float(np.linalg.norm(_upper(A) - _upper(A2)))


REFUSED = [
    dict(data_norm=None),
    dict(data_norm=float("inf")),
    dict(data_norm=True),
    dict(delta=None),
    dict(delta=0.0),
    dict(epsilon=-1.0),
    dict(clip=False),
    dict(mechanism="analyze"),
    dict(noise="exact"),
    dict(center_share=0.0),
    dict(centered_norm="auto"),
    dict(centered_norm=-2.0),
    dict(center=np.zeros(D + 1)),
    dict(min_eigenvalue=np.inf),
    # beyond the exact sampler's range: refused from (ε, δ, d) alone
    dict(epsilon=1e-12, delta=1e-300),
    dict(epsilon=1e-12, delta=1e-300, mechanism="trace_sensitive"),
]


@pytest.mark.parametrize("params", REFUSED)
def test_refusals_come_before_the_charge(params):
    """The ledger is untouched and the caller's generator not advanced."""
    ledger = Accountant(1e6, 0.5)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    est = _est(accountant=ledger, random_state=rng, **params)
    with pytest.raises((ValueError, TypeError)):
        est.fit(_rows(50, 1))
    assert ledger.spent == (0.0, 0.0) and ledger.releases == ()
    assert rng.bit_generator.state == state
    assert not hasattr(est, "covariance_")


def test_budget_exceeded_charges_and_draws_nothing():
    ledger = Accountant(0.5, 1e-5)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(BudgetExceededError):
        _est(accountant=ledger, random_state=rng).fit(_rows(50, 1))
    assert ledger.spent == (0.0, 0.0)
    assert rng.bit_generator.state == state


@pytest.mark.parametrize("mechanism", ["analyze_gauss", "trace_sensitive"])
def test_records_say_what_the_fit_guarantees(mechanism):
    X = _rows(100, 2)
    ledger = Accountant(10.0, 1e-4)
    est = _est(epsilon=2.0, delta=1e-6, center_share=0.25, accountant=ledger)
    est.set_params(mechanism=mechanism).fit(X)
    mean, matrix = est.guarantees_
    assert est.privacy_releases_ == est.guarantees_ == ledger.releases
    assert (mean.epsilon, mean.delta) == (0.5, 0.25e-6)
    assert matrix.epsilon == 1.5 and matrix.delta == pytest.approx(0.75e-6)
    assert est.privacy_spent_ == (2.0, 1e-6)
    for record in (mean, matrix):
        assert record.neighbours == REPLACE_ONE
        assert record.noise == "safe" and record.proved
        assert record.kind == "zcdp"
    assert f"‖x_i‖₂ ≤ {R:g} (clipped)" in matrix.row_bound
    assert "μ̂" in matrix.row_bound and "min(2 + ‖μ̂‖, 4)" in matrix.row_bound
    assert ("Analyze Gauss" in matrix.label) == (mechanism == "analyze_gauss")
    # the charged records are the planned ones, from public quantities
    assert est.guarantees_ == covariance_plan(est, 100, D).records
    with pytest.warns(UnprovedGuaranteeWarning):
        est.set_params(noise="float", accountant=None).fit(X)
    assert [r.noise for r in est.guarantees_] == ["float", "float"]
    assert not any(r.proved for r in est.guarantees_)
    est.set_params(center=False, noise="safe")
    with pytest.warns(PrivacyWarning, match="refitting"):
        est.fit(X)
    (matrix,) = est.guarantees_
    assert (matrix.epsilon, matrix.delta) == (2.0, 1e-6)
    assert matrix.row_bound == f"‖x_i‖₂ ≤ {R:g} (clipped)"


def test_matrix_record_is_the_mechanism_functions_own():
    """The record charged is the one analyze_gauss_from_second_moment
    attaches to its release at the same (n, d, ε, δ), but for the row
    bound, which the estimator states in data units."""
    X = _rows(100, 3)
    plan = covariance_plan(_est(center=False), 100, D)
    A, _ = unit_second_moment(X, plan)
    noisy = analyze_gauss_from_second_moment(
        A, 100, epsilon=plan.epsilon, delta=plan.delta, rng=0
    )
    own = guarantee_of(noisy)
    assert plan.matrix.label == own.label
    assert plan.matrix.noise_multiplier == own.noise_multiplier
    assert (plan.matrix.epsilon, plan.matrix.delta) == (own.epsilon, own.delta)


@pytest.mark.parametrize("n", [1, 2, 50, 1000])
@pytest.mark.parametrize("center", [False, "public", "private"])
def test_extremal_neighbours_attain_the_calibrated_sensitivity(n, center):
    """Rows at the bound along two coordinate axes: the upper triangle of
    the matrix the noise is added to moves by √2/n, the sensitivity of the
    record, up to the proved float64 shrink of the rows (``s = 1 − η``,
    ``η`` below 1e-9 at these n: the change is ``s² √2/n``)."""
    rest = _rows(n, n)
    X, Y = rest.copy(), rest.copy()
    if center == "public":
        c = np.array([0.3, -0.2, 0.1, 0.0])
        est, location = _est(center=c), None
        X[0], Y[0] = c + R * np.eye(D)[0], c + R * np.eye(D)[1]
    elif center == "private":
        est, location = _est(centered_norm=1.5), np.array([0.1, 0.2, 0.0, 0.0])
        # rows at the pre-clip bound R, centred rows beyond B = 1.5 (clipped
        # to it) along two axes
        X[0], Y[0] = (
            location + 1.5 * np.eye(D)[2],
            location + 1.5 * np.eye(D)[3],
        )
        X[0] += 0.4 * np.eye(D)[2]
        Y[0] += 0.4 * np.eye(D)[3]
    else:
        est, location = _est(center=False), None
        X[0], Y[0] = R * np.eye(D)[0], R * np.eye(D)[1]
    plan = covariance_plan(est, n, D)
    assert plan.sensitivity == math.sqrt(2) / n
    change = _change(X, Y, plan, location)
    assert change <= plan.sensitivity
    assert change >= plan.sensitivity * (1 - 1e-9)
    # the record's ρ is the discrete Gaussian's for this sensitivity,
    # grown by the rounding of the d(d+1)/2 entries to the grid
    shift = plan.sensitivity + math.sqrt(D * (D + 1) / 2) * plan.grid
    rho = gaussian_zcdp_rho(shift, plan.sigma)
    assert plan.matrix.noise_multiplier == pytest.approx(
        1 / math.sqrt(2 * rho), rel=1e-12
    )


def test_float_noise_record_states_sigma_over_the_sensitivity():
    plan = covariance_plan(_est(center=False, noise="float"), 300, D)
    assert plan.grid is None
    assert plan.matrix.noise_multiplier == pytest.approx(
        plan.sigma / plan.sensitivity, rel=1e-12
    )


def test_trace_sensitive_calibrates_the_same_matrix_sensitivity():
    plan = covariance_plan(_est(mechanism="trace_sensitive"), 300, D)
    cal = trace_sensitive_calibration(300, D, plan.epsilon, plan.delta)
    assert cal.steps["gaussian"].sensitivity == plan.sensitivity
    assert plan.sigma == cal.steps["gaussian"].sigma


def test_random_neighbours_never_exceed_the_sensitivity():
    """600 random pairs, rows inside and outside the bound (clipped), at
    extreme finite values, with each kind of centre and centred bound."""
    rng = np.random.default_rng(43)
    settings = [
        (dict(center=False), None),
        (dict(center=np.array([1.0, 0.0, -1.0, 0.5])), None),
        (dict(), "mean"),
        (dict(centered_norm=None), "mean"),
        (dict(centered_norm=0.7), "mean"),
    ]
    worst = 0.0
    for trial in range(600):
        params, kind = settings[trial % len(settings)]
        n = int(rng.integers(1, 30))
        X = _rows(n, trial, spread=2.0)
        Y = X.copy()
        i = rng.integers(n)
        Y[i] = rng.normal(size=D) * R
        if trial % 7 == 0:
            Y[i] = rng.choice([-1e308, 1e308, 0.0, 5e-324], size=D)
        location = None
        if kind == "mean":
            v = rng.normal(size=D)
            location = v / np.linalg.norm(v) * R * rng.uniform()
        plan = covariance_plan(_est(**params), n, D)
        ratio = _change(X, Y, plan, location) / plan.sensitivity
        assert ratio <= 1.0
        worst = max(worst, ratio)
    assert worst > 0.5  # random pairs come near the bound, not to it


def _outcome(X, **params):
    """What a caller sees of one fit: the exception or the fitted
    attribute names, the warnings, the ledger's records and the caller's
    generator."""
    ledger = Accountant(100.0, 1e-2)
    rng = np.random.default_rng(0)
    est = _est(accountant=ledger, random_state=rng, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est.fit(X)
            result = ("released", sorted(k for k in vars(est) if k[-1] == "_"))
        except Exception as error:  # noqa: BLE001
            result = (type(error).__name__, str(error))
    said = [(w.category.__name__, str(w.message)) for w in caught]
    return result, said, ledger.releases, rng.bit_generator.state["state"]


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"mechanism": "trace_sensitive"},
        {"center": False},
        {"center": np.array([0.5, 0.0, 0.0, -0.5])},
        {"centered_norm": 1.0},
        {"noise": "float"},
        {"delta": 0.1},  # delta >= 1/n: warned, alike
        {"min_eigenvalue": 0.0},
        {"clip": False},
    ],
)
def test_neighbours_release_alike_or_refuse_alike(params):
    """Neighbours at extreme finite values, inside and outside the bound:
    the same outcome, the same warnings, the same charges, the generator
    advanced alike."""
    rng = np.random.default_rng(1)
    for value in (0.0, 1e308, -1e308, 5e-324, 1e-300, 123.456):
        X = _rows(20, int(rng.integers(1000)))
        Y = X.copy()
        Y[3] = value
        a, b = _outcome(X, **params), _outcome(Y, **params)
        assert a == b
        if params.get("clip") is False:
            assert a[0][0] == "ValueError" and a[2] == ()
            assert "123.456" not in a[0][1]
        else:
            assert a[0][0] == "released" and len(a[2]) >= 1
        expect_warning = params.get("noise") == "float" or "delta" in params
        assert bool(a[1]) == expect_warning


# ----------------------------------------------------------------------------
# Add/remove neighbours (neighbours="add-remove", max_samples=N; issue 43):
# D against D plus one extreme row, and D against D minus one row
# ----------------------------------------------------------------------------

CAP = 64
CENTRE = np.array([0.3, -0.2, 0.1, 0.0])


def _ar(**params):
    return _est(
        **{
            "center": False,
            "neighbours": "add-remove",
            "max_samples": CAP,
            **params,
        }
    )


def _extreme_row(X, centre, scale=1.0):
    """A row at ``scale`` times the bound (clipped back to it above 1)
    along the top eigenvector of the (centred) rows: the added row that
    moves the second moment most along its largest direction."""
    Z = X - centre
    top = np.linalg.eigh(Z.T @ Z)[1][:, -1]
    return centre + scale * R * top


def _pair(n, kind, center, scale=1.0):
    """``(D, D')``: ``D`` of ``n`` rows and ``D`` plus one extreme row
    (``"added"``) or minus its first row (``"removed"``)."""
    X = _rows(n, 100 + n)
    if kind == "added":
        return X, np.vstack([X, _extreme_row(X, center, scale)])
    return X, X[1:]


def _unshrunk_norm(row, centre):
    return min(float(np.linalg.norm(row - centre)), R) / R


@pytest.mark.parametrize("kind", ["added", "removed"])
@pytest.mark.parametrize("center", ["zero", "public"])
@pytest.mark.parametrize("n", [2, 40, CAP - 1])
@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_add_remove_extremal_pairs_move_the_matrix_by_at_most_the_cap_sensitivity(
    kind, center, n, scale
):
    """The matrix the noise is added to, before any noise, moves by at most
    the sensitivity the record is calibrated to at n = N (√2/N on its upper
    triangle), on pairs of n and n ± 1 rows (up to N rows), the extreme row
    on or beyond the bound (clipped): by ``s²‖z‖²/N`` exactly (one padding
    row replaced by ``z``), the margin ``1 − s²/√2 ≈ 0.29`` measured."""
    centre = CENTRE if center == "public" else np.zeros(D)
    est = _ar(center=CENTRE if center == "public" else False)
    X, Y = _pair(n, kind, centre, scale)
    plan, plan_prime = (covariance_plan(est, len(Z), D) for Z in (X, Y))
    assert plan.records == plan_prime.records  # n is never read
    assert plan.max_samples == CAP
    assert plan.sensitivity == math.sqrt(2) / CAP
    A, B = unit_second_moment(X, plan)
    A2, B2 = unit_second_moment(Y, plan)
    assert B == B2 == R
    upper = float(np.linalg.norm(_upper(A) - _upper(A2)))
    assert upper <= plan.sensitivity
    moved = float(np.linalg.norm(A - A2))
    row = Y[-1] if kind == "added" else X[0]
    s = 1 - float_error.float_error_shrink(CAP, D)
    norm = _unshrunk_norm(row, centre) * s
    assert moved == pytest.approx(norm**2 / CAP, rel=1e-9)
    if kind == "added":  # on the bound: the measured margin
        margin = 1 - moved / plan.sensitivity
        assert margin == pytest.approx(1 - s * s / math.sqrt(2), abs=1e-9)
    # the record is replace-one Analyze Gauss at n = N, for 95% of ε
    own = analyze_gauss_guarantee(CAP, D, 0.95, 1e-6, noise="safe")
    assert plan.matrix.noise_multiplier == own.noise_multiplier
    assert plan.matrix.neighbours == add_remove_neighbours(CAP)


def test_add_remove_pair_at_the_cap():
    """``D`` of N − 1 rows against ``D`` plus an extreme row: N rows, the
    largest data set covered; one more row is refused before any charge."""
    X, Y = _pair(CAP - 1, "added", np.zeros(D))
    assert len(Y) == CAP
    plan = covariance_plan(_ar(), CAP, D)
    A, _ = unit_second_moment(X, plan)
    A2, _ = unit_second_moment(Y, plan)
    assert float(np.linalg.norm(_upper(A) - _upper(A2))) <= plan.sensitivity
    ledger = Accountant(10.0, 1e-3)
    with pytest.raises(ValueError, match="more than max_samples"):
        _ar(accountant=ledger).fit(np.vstack([Y, Y[:1]]))
    assert ledger.releases == ()


def _capture(monkeypatch):
    """Every ``(A, n)`` Analyze Gauss's covariance release is handed, and
    every ``n`` the private row count is drawn for."""
    spec = registry.MECHANISMS["analyze_gauss"]
    hooks, seen = spec.covariance, {"matrix": [], "count": []}

    def release(data, n, *args):
        seen["matrix"].append((np.array(data), n))
        return hooks.release(data, n, *args)

    replaced = dataclasses.replace(
        spec, covariance=dataclasses.replace(hooks, release=release)
    )
    monkeypatch.setitem(registry.MECHANISMS, "analyze_gauss", replaced)
    original = private_bounds.private_row_count

    def count(n_rows, epsilon, rng=None, neighbours=None):
        seen["count"].append((n_rows, epsilon, neighbours))
        return original(n_rows, epsilon, rng, neighbours)

    monkeypatch.setattr(private_bounds, "private_row_count", count)
    return seen


@pytest.mark.parametrize("kind", ["added", "removed"])
def test_add_remove_fit_hands_the_mechanism_the_cap_and_counts_once(
    monkeypatch, kind
):
    """In a fit: the mechanism gets ``n = N`` and a matrix that moves by at
    most √2/N on the pair; the count is drawn once per fit, of the rows
    (sensitivity 1 on the pair), at the record's ε and relation."""
    seen = _capture(monkeypatch)
    X, Y = _pair(30, kind, np.zeros(D))
    fits = [_ar(epsilon=2.0, random_state=0).fit(Z) for Z in (X, Y)]
    (A, n), (A2, n2) = seen["matrix"]
    assert n == n2 == CAP
    assert float(np.linalg.norm(_upper(A) - _upper(A2))) <= math.sqrt(2) / CAP
    (c, eps, relation), (c2, eps2, relation2) = seen["count"]
    assert abs(c - c2) == 1 and {c, c2} == {len(X), len(Y)}
    count_record = fits[0].guarantees_[0]
    assert eps == eps2 == count_record.epsilon == pytest.approx(0.1)
    assert relation == relation2 == add_remove_neighbours(CAP)
    assert count_record.kind == "pure" and count_record.delta == 0.0
    assert fits[0].guarantees_ == fits[1].guarantees_


REFUSED_ADD_REMOVE = [
    dict(center=True),  # a private mean: its noise is calibrated to 2R/n
    dict(mechanism="trace_sensitive"),  # reads the rows
    dict(max_samples=2**62),  # beyond the float64 proof
    dict(max_samples=0),
    dict(max_samples=1.5),
    dict(neighbours="add/remove"),
    dict(max_samples=10),  # fewer than the 50 rows
    dict(epsilon=1e-12, delta=1e-300),  # beyond the samplers' range
]


@pytest.mark.parametrize("params", REFUSED_ADD_REMOVE)
def test_add_remove_refusals_come_before_the_charge(params):
    ledger = Accountant(1e6, 0.5)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    est = _ar(accountant=ledger, random_state=rng, **params)
    with pytest.raises((ValueError, TypeError)):
        est.fit(_rows(50, 1))
    assert ledger.spent == (0.0, 0.0) and ledger.releases == ()
    assert rng.bit_generator.state == state
    assert not hasattr(est, "covariance_") and not hasattr(est, "row_count_")


def test_add_remove_budget_exceeded_charges_and_draws_nothing():
    """The count and the matrix are charged together: a budget that holds
    the count alone is refused, nothing charged, nothing drawn."""
    ledger = Accountant(0.5, 1e-5)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with pytest.raises(BudgetExceededError):
        _ar(accountant=ledger, random_state=rng).fit(_rows(50, 1))
    assert ledger.spent == (0.0, 0.0)
    assert rng.bit_generator.state == state


def _ar_outcome(X, **params):
    """``_outcome`` for an add/remove fit."""
    return _outcome(
        X, **{"center": False, "neighbours": "add-remove", **params}
    )


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"center": CENTRE},
        {"noise": "float"},
        {"min_eigenvalue": 0.0},
        {"delta": 0.05},  # delta >= 1/max_samples: warned, alike
        {"center": True},  # refused alike
        {"mechanism": "trace_sensitive"},  # refused alike
    ],
)
def test_add_remove_one_row_and_the_cap_release_alike(params):
    """A fit on 1 row and a fit on N rows: the same outcome (released with
    the same attributes, or refused with the same message), the same
    warnings, the same records charged, the caller's generator advanced
    alike. And D against D plus a row at extreme finite values."""
    params = {"max_samples": CAP, **params}
    one, full = _rows(1, 5), _rows(CAP, 6)
    a, b = _ar_outcome(one, **params), _ar_outcome(full, **params)
    assert a == b
    refused = "center" in params and params["center"] is True
    refused = refused or "mechanism" in params
    if refused:
        assert a[0][0] == "ValueError" and a[2] == ()
    else:
        assert a[0][0] == "released" and "row_count_" in a[0][1]
        assert [r.label for r in a[2]][0].startswith("private count")
    expect_warning = params.get("noise") == "float" or "delta" in params
    assert bool(a[1]) == expect_warning and not (refused and a[1])
    X = _rows(20, 7)
    for value in (0.0, 1e308, -1e308, 5e-324, 123.456):
        Y = np.vstack([X, np.full(D, value)])
        assert _ar_outcome(X, **params) == _ar_outcome(Y, **params)
