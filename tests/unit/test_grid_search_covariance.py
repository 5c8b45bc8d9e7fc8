"""``budgeted_grid_search`` over a ``PrivateCovariance`` (issue 43): the
bounded held-out score of :mod:`dppca.model_selection_covariance`, its
public radius, and the private search end to end, alone and after a
``PrivateStandardScaler``, under replace-one and add/remove neighbours.
The privacy argument on extremal pairs is in
``tests/privacy/test_grid_search_covariance_privacy.py``."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse
from sklearn.base import clone
from sklearn.pipeline import make_pipeline

from dppca import PrivateCovariance, PrivateStandardScaler
from dppca.model_selection import SCORE_LEVELS, budgeted_grid_search
from dppca.model_selection_checks import fit_records, private_steps
from dppca.model_selection_covariance import (
    covariance_row_scores,
    covariance_score_scale,
)
from dppca.model_selection_scoring import held_out_utility, score_scale
from dppca.privacy.accounting import Accountant

D_FEATURES = 4


def data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, D_FEATURES)) * np.array([2.0, 1.0, 0.5, 0.5])


def fitted(seed=0, **params):
    options = dict(data_norm=5.0, delta=1e-7, epsilon=2.0, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return PrivateCovariance(**{**options, **params}).fit(data())


MODELS = [
    dict(),
    dict(center=False),
    dict(center=np.full(D_FEATURES, 0.5)),
    dict(centered_norm=None),
    dict(centered_norm=1.0),
    dict(epsilon=1e-3),  # a noisy release: scores may be clipped at 0
]


def extremal_rows(scale, location):
    """Rows at and far beyond the bound, zero, tiny, NaN and Inf."""
    e = np.eye(D_FEATURES)
    rows = [scale * e[0], -scale * e[1], location, np.zeros(D_FEATURES)]
    rows += [1e200 * e[2], -1e200 * np.ones(D_FEATURES), 1e-200 * e[3]]
    rows += [np.full(D_FEATURES, 1.7e308), location + scale * e[0]]
    nan, inf = np.zeros(D_FEATURES), np.zeros(D_FEATURES)
    nan[1], inf[2] = np.nan, -np.inf
    return np.vstack(rows + [nan, inf])


@pytest.mark.parametrize("params", MODELS)
def test_the_score_lies_in_0_1_on_extremal_rows_without_a_warning(params):
    model = fitted(**params)
    scale = covariance_score_scale([model])
    Z = extremal_rows(scale, model.location_)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):  # the caller's state does not reach it
            scores = covariance_row_scores(model, Z, scale)
            sparse = covariance_row_scores(
                model, scipy.sparse.csr_matrix(np.nan_to_num(Z)), scale
            )
    assert scores.shape == (Z.shape[0],) and sparse.shape == scores.shape
    assert np.all((scores >= 0) & (scores <= 1))
    assert np.all((sparse >= 0) & (sparse <= 1))
    assert scores[-1] == scores[-2] == 0  # Inf, NaN
    utility = held_out_utility(model, Z, scale)
    assert 0 <= utility <= SCORE_LEVELS * Z.shape[0]


def test_the_score_is_one_minus_the_scaled_frobenius_error():
    model = fitted(center=False)
    B = covariance_score_scale([model])
    Z = data(50, seed=3)
    C = model.covariance_
    norms = np.linalg.norm(Z, axis=1, keepdims=True)
    Z_clipped = Z * np.minimum(1.0, B / norms)  # one row lies beyond B
    assert np.any(norms > B)
    expected = [
        1 - np.linalg.norm(np.outer(z, z) - C) ** 2 / (2 * B**4)
        for z in Z_clipped
    ]
    got = covariance_row_scores(model, Z, B)
    np.testing.assert_allclose(got, np.clip(expected, 0, 1), atol=1e-12)


def test_the_bound_2B4_holds_for_a_psd_release_of_trace_at_most_B2():
    # no clip at 0 is needed when tr C <= B^2: the worst row is orthogonal
    # to C's range, and both are at the bound
    model = fitted(center=False)
    B = 2.0
    e = np.eye(D_FEATURES)
    model.covariance_ = B**2 * np.outer(e[0], e[0])
    model.location_ = np.zeros(D_FEATURES)
    scores = covariance_row_scores(model, np.vstack([B * e[1], B * e[0]]), B)
    np.testing.assert_allclose(scores, [0.0, 1.0], atol=1e-12)


def test_the_radius_comes_from_public_parameters_only():
    R = 3.0
    kinds = [
        (dict(center=False), R),
        (dict(center=np.ones(D_FEATURES)), R),
        (dict(centered_norm="triangle"), R),
        (dict(centered_norm=None), R),
        (dict(centered_norm=1.5), 1.5),
        (dict(centered_norm=7.0), 7.0),
    ]
    for params, expected in kinds:
        cov = PrivateCovariance(data_norm=R, delta=1e-7, **params)
        assert covariance_score_scale([cov]) == expected
        assert score_scale([cov], D_FEATURES) == expected
    grid = [PrivateCovariance(data_norm=r, delta=1e-7) for r in (1, 4, 2)]
    assert score_scale(grid, D_FEATURES) == 4.0


def test_heavy_clipping_does_not_win_the_score():
    # scored against rows clipped to each candidate's own data_norm, a tiny
    # data_norm would win (both its rows and its release shrink to 0); one
    # radius for every candidate makes its bias count against it
    X, held = data(4000, seed=1), data(2000, seed=2)
    models = {
        r: PrivateCovariance(
            data_norm=r, delta=1e-9, epsilon=50.0, random_state=0
        ).fit(X)
        for r in (0.05, 8.0)
    }
    B = covariance_score_scale(list(models.values()))
    common = {
        r: covariance_row_scores(m, held, B).mean() for r, m in models.items()
    }
    assert common[8.0] > common[0.05]
    norms = np.linalg.norm(held, axis=1, keepdims=True)
    own = {  # the held-out rows clipped as each fit clips them, same B
        r: covariance_row_scores(m, held * np.minimum(1.0, r / norms), B).mean()
        for r, m in models.items()
    }
    assert own[0.05] > own[8.0]  # what the common radius prevents


def _planned(estimator, grid, sizes, budget):
    """The dry run's records of the fold fits, in the order the search
    charges them, at the search's budget per step."""
    from sklearn.model_selection import ParameterGrid

    steps = private_steps(estimator)
    epsilon, delta = budget
    base = clone(estimator).set_params(
        **{p + "epsilon": epsilon for p, _ in steps},
        **{p + "delta": delta for p, _ in steps},
    )
    records = []
    for params in ParameterGrid(grid):
        model = clone(base).set_params(**params)
        for size in sizes:
            records += fit_records(model, steps, size, D_FEATURES)
    return records, steps, base


def _describe(records):
    return [(r.label, r.kind, r.neighbours) for r in records]


def covariance_pipeline(**cov):
    return make_pipeline(
        PrivateStandardScaler(bounds=(-6.0, 6.0), delta=1e-8),
        PrivateCovariance(data_norm=2.5, delta=1e-8, **cov),
    )


SEARCHES = [
    (
        PrivateCovariance(data_norm=5.0, delta=1e-8),
        {"data_norm": [1.0, 5.0], "centered_norm": ["triangle", 2.0]},
    ),
    (
        covariance_pipeline(),
        {"privatecovariance__data_norm": [1.0, 2.5, 10.0]},
    ),
]


@pytest.mark.parametrize("estimator, grid", SEARCHES)
def test_the_search_runs_and_charges_what_it_planned(estimator, grid):
    X = data()
    ledger = Accountant(3.0, 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            estimator, grid, ledger, X, cv=3, random_state=0
        )
    assert search.selection_ == "private"
    assert search.neighbours_.startswith("replace-one")
    assert search.selection_guarantee_.neighbours == search.neighbours_
    assert search.best_params_ in search.candidates_
    final = search.best_estimator_
    final = final.steps[-1][1] if hasattr(final, "steps") else final
    assert isinstance(final, PrivateCovariance)
    assert np.linalg.eigvalsh(final.covariance_).min() >= 0
    # the ledger holds the planned records: every fold fit, the choice,
    # the refit of the chosen candidate
    budget = search.budget_per_fit_
    planned, steps, base = _planned(estimator, grid, [200] * 3, budget)
    refit = fit_records(
        clone(base).set_params(**search.best_params_), steps, 300, D_FEATURES
    )
    expected = planned + [search.selection_guarantee_] + refit
    assert _describe(ledger.releases) == _describe(expected)
    assert [r.epsilon for r in ledger.releases] == pytest.approx(
        [r.epsilon for r in expected]
    )
    assert ledger.spent[0] <= 3.0 + 1e-9
    assert not hasattr(search, "cv_results_")


def test_the_add_remove_search_runs_and_states_the_relation():
    X = data(200)
    estimator = PrivateCovariance(
        data_norm=5.0,
        delta=1e-10,
        center=np.zeros(D_FEATURES),
        neighbours="add-remove",
        max_samples=1000,
    )
    ledger = Accountant(3.0, 1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            estimator, {"data_norm": [2.0, 5.0]}, ledger, X, cv=3,
            random_state=1,
        )  # fmt: skip
    assert "add/remove" in search.neighbours_ and "1000" in search.neighbours_
    assert {r.neighbours for r in ledger.releases} == {search.neighbours_}
    # each fit: the private count and the matrix, at the cap
    assert len(ledger.releases) == 2 * (2 * 3 + 1) + 1
    assert hasattr(search.best_estimator_, "row_count_")


def _refused(estimator, grid, X, **options):
    ledger = Accountant(3.0, 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError)) as info:
            budgeted_grid_search(estimator, grid, ledger, X, **options)
    assert ledger.releases == () or len(ledger.releases) == 0
    assert ledger.spent == (0.0, 0.0)
    return str(info.value)


def test_refusals_charge_nothing():
    X = data(60)
    cov = PrivateCovariance(data_norm=5.0, delta=1e-8)
    grid = {"data_norm": [1.0, 5.0]}
    # a private mean under add/remove: the fits' plan refuses in the dry run
    add_remove = clone(cov).set_params(neighbours="add-remove", max_samples=99)
    message = _refused(add_remove, grid, X, cv=3)
    assert "public centre" in message
    # a scoring of the caller's: no known sensitivity
    assert "scoring must be None" in _refused(
        cov, grid, X, cv=3, scoring="neg_mean_squared_error"
    )
    # groups without max_rows_per_person: refused
    groups = np.arange(60) // 2
    assert "max_rows_per_person" in _refused(cov, grid, X, cv=3, groups=groups)
    # a delta of None, one feature, clip=False: refused before any fit
    _refused(clone(cov).set_params(delta=None), grid, X, cv=3)
    _refused(cov, grid, X[:, :1], cv=3)
    assert "clip=False" in _refused(
        clone(cov).set_params(clip=False), grid, X, cv=3
    )
    # sparse rows: the first fold's fit refuses them before its charge
    _refused(cov, grid, scipy.sparse.csr_matrix(X), cv=3)


def test_an_empty_training_side_fits_on_the_public_centre():
    from dppca.model_selection_checks import neutral_row

    centre = np.array([0.5, -1.0, 2.0, 0.0])
    for center, expected in ((centre, centre), (False, np.zeros(4))):
        cov = PrivateCovariance(data_norm=5.0, delta=1e-8, center=center)
        row = neutral_row(cov, [("", cov)], D_FEATURES)
        np.testing.assert_array_equal(row, expected)
        assert row.dtype == np.float64
    pipe = covariance_pipeline(center=False)  # the scaler's midpoints
    row = neutral_row(pipe, private_steps(pipe), D_FEATURES)
    np.testing.assert_array_equal(row, np.zeros(D_FEATURES))
