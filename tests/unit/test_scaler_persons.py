"""``PrivateStandardScaler(max_rows_per_person=m).fit(X, groups=g)``
(issue 43, :mod:`dppca.scaler_persons`): each person's rounded mean of its
kept rows, summed over the ``N`` persons, moves by at most the replace-one
row sensitivities at ``n = N`` when one person is replaced (extremal person
pairs reach them), the records state the per-person relation, refusals come
before any charge, the number of rows is never observable, and the scaler
runs per person in a Pipeline and in the per-person search."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.pipeline import Pipeline

from dppca import PrivatePCA, PrivateStandardScaler
from dppca.decomposition.persons import Persons, person_bound
from dppca.model_selection import budgeted_grid_search
from dppca.privacy.accounting import Accountant
from dppca.scaler import (
    SENSITIVITY,
    grid_exponent,
    gridded_entries,
    scaler_plan,
)
from dppca.scaler_persons import kept, person_means, person_sums

LOWER = np.array([-1.0, 0.0, 10.0])
UPPER = np.array([2.0, 5.0, 11.0])
D = LOWER.size


def _persons(groups, m):
    labels, codes = np.unique(groups, return_inverse=True)
    return Persons(codes.astype(np.intp), labels.size, m)


def _sums(X, groups, m, seed=0):
    persons = _persons(groups, m)
    rows = kept(persons, np.random.default_rng(seed))
    k = grid_exponent(persons.padded_rows)
    cells, squares = gridded_entries(X[rows], LOWER, UPPER, k)
    return person_sums(cells, squares, persons.codes[rows], persons.N, k)


def _others(rng, persons=40, rows=3):
    X = rng.uniform(LOWER - 0.5, UPPER + 0.5, size=(persons * rows, D))
    return X, np.repeat(np.arange(persons), rows)


def _with_person(X, g, rows):
    label = g.max() + 1
    Xp = np.vstack([X, rows])
    return Xp, np.concatenate([g, np.full(rows.shape[0], label)])


def test_person_means_round_exactly_and_ignore_order():
    values = np.array([[1], [2], [4], [-3], [-4], [7]], dtype=np.int64)
    codes = np.array([0, 0, 0, 1, 1, 2])
    out = person_means(values, codes, 3)
    # 7/3 -> 2, -7/2 = -3.5 -> -3 (half up), 7 -> 7
    assert out[:, 0].tolist() == [2, -3, 7]
    order = np.array([5, 3, 1, 0, 4, 2])
    assert np.array_equal(person_means(values[order], codes[order], 3), out)


@pytest.mark.parametrize("m", [1, 3, 5])
def test_extremal_person_pairs_reach_the_row_sensitivities(m):
    rng = np.random.default_rng(m)
    X, g = _others(rng)
    top, bottom = UPPER + 1.0, LOWER - 1.0
    corner = np.where(np.arange(D) % 2 == 0, UPPER, LOWER)
    middle = LOWER / 2 + UPPER / 2
    cases = [  # (person in D, person in D'): the moves they should reach
        (np.tile(top, (m, 1)), bottom[None, :], "mean", 1.0),
        (np.tile(corner, (m, 1)), middle[None, :], "variance", 0.25),
        (np.tile(middle, (m, 1)), middle[None, :], "mean", 0.0),
    ]
    for a, b, statistic, reached in cases:
        for seed in range(5):
            one = _sums(*_with_person(X, g, a), m, seed)
            two = _sums(*_with_person(X, g, b), m, seed)
            for name, bound in SENSITIVITY.items():
                moved = np.abs(one[name] - two[name])
                assert np.all(moved <= bound), (name, moved)
            assert np.max(np.abs(one[statistic] - two[statistic])) == reached


def test_many_rows_of_one_person_move_no_more_than_one_row():
    rng = np.random.default_rng(7)
    X, g = _others(rng)
    m = 4
    many = rng.uniform(LOWER - 3, UPPER + 3, size=(50, D))  # keeps 4 of 50
    for seed in range(20):
        one = _sums(*_with_person(X, g, many), m, seed)
        two = _sums(*_with_person(X, g, many[:1] * 0 + LOWER), m, seed)
        assert np.all(np.abs(one["mean"] - two["mean"]) <= 1.0)
        assert np.all(np.abs(one["variance"] - two["variance"]) <= 0.25)


def test_records_state_the_person_relation_and_row_calibration():
    est = PrivateStandardScaler(
        bounds=(LOWER, UPPER), epsilon=1.0, max_rows_per_person=3
    )
    N = 500
    persons = Persons(np.empty(0, dtype=np.intp), N, 3)
    per_person = scaler_plan(est, 10**6, D, persons)  # n is not read
    per_row = scaler_plan(PrivateStandardScaler(bounds=(LOWER, UPPER)), N, D)
    for a, b in zip(per_person, per_row, strict=True):
        assert a.scale == b.scale and a.grid is not None
        assert person_bound(a.record.neighbours) == 3
        assert a.record.epsilon == b.record.epsilon


def _fit(X, g, m=3, seed=5, **kw):
    est = PrivateStandardScaler(
        bounds=(LOWER, UPPER), max_rows_per_person=m, random_state=seed, **kw
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, groups=g)


def test_the_number_of_rows_is_not_observable():
    rng = np.random.default_rng(3)
    X, g = _others(rng)
    x = rng.uniform(LOWER, UPPER)
    a = _fit(*_with_person(X, g, x[None, :]))
    b = _fit(*_with_person(X, g, np.tile(x, (3, 1))))  # same mean, 3 rows
    assert a.n_samples_seen_ == b.n_samples_seen_ == 41
    for name in ("mean_", "var_", "scale_", "privacy_spent_"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert a.privacy_releases_ == b.privacy_releases_


def test_each_person_weighs_the_same():
    rng = np.random.default_rng(4)
    heavy = np.tile([1.5, 4.0, 10.8], (30, 1))  # one person, 30 rows
    light = rng.uniform(LOWER, UPPER, size=(400, D))
    X = np.vstack([heavy, light])
    g = np.concatenate([np.zeros(30), np.arange(1, 401)])
    fitted = _fit(X, g, m=30, epsilon=1e6)
    weighted = (heavy[0] + light.sum(axis=0)) / 401
    assert np.allclose(fitted.mean_, weighted, atol=1e-3)
    assert not np.allclose(fitted.mean_, X.mean(axis=0), atol=1e-3)


@pytest.mark.parametrize(
    "kw, groups, match",
    [
        ({}, "g", "max_rows_per_person"),
        ({"max_rows_per_person": 2}, None, "pass groups"),
        (
            {"max_rows_per_person": 2, "neighbours": "add-remove"},
            "g",
            "two different relations",
        ),
        ({"max_rows_per_person": 2}, "short", "one label per row"),
        ({"max_rows_per_person": 2}, "missing", "missing label"),
    ],
)
def test_refusals_charge_nothing(kw, groups, match):
    rng = np.random.default_rng(0)
    X, g = _others(rng, persons=10)
    g = {"g": g, None: None, "short": g[:-1]}.get(groups, g)
    if groups == "missing":
        g = g.astype(object)
        g[3] = None
    ledger = Accountant(epsilon=5.0, delta=0.0)
    est = PrivateStandardScaler(bounds=(LOWER, UPPER), accountant=ledger, **kw)
    with pytest.raises(ValueError, match=match):
        est.fit(X, groups=g)
    assert ledger.spent == (0.0, 0.0)


def _pipeline(m=3, scaler_m=3):
    return Pipeline(
        [
            (
                "scale",
                PrivateStandardScaler(
                    bounds=(LOWER, UPPER), max_rows_per_person=scaler_m
                ),
            ),
            (
                "pca",
                PrivatePCA(2, data_norm=2.0, delta=1e-8, max_rows_per_person=m),
            ),
        ]
    )


def test_pipeline_per_person_records():
    rng = np.random.default_rng(1)
    X, g = _others(rng, persons=200)
    pipe = _pipeline()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(X, scale__groups=g, pca__groups=g)
    records = pipe["scale"].privacy_releases_ + pipe["pca"].privacy_releases_
    assert {person_bound(r.neighbours) for r in records} == {3}


def test_per_person_search_fits_the_scaler_with_groups():
    rng = np.random.default_rng(2)
    X, g = _others(rng, persons=300)
    ledger = Accountant(epsilon=6.0, delta=1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            _pipeline(), {"pca__data_norm": [1.0, 2.0]}, ledger, X, cv=3,
            groups=g, random_state=0,
        )  # fmt: skip
    records = ledger._releases
    scaler = [r for r in records if "scaler" in r.label]
    assert len(scaler) == 2 * (2 * 3 + 1)  # mean, variance × (fits + refit)
    assert {person_bound(r.neighbours) for r in records} == {3}
    assert search.best_estimator_["scale"].n_samples_seen_ == 300


def test_per_person_search_refuses_a_scaler_without_the_bound():
    rng = np.random.default_rng(2)
    X, g = _others(rng, persons=300)
    ledger = Accountant(epsilon=6.0, delta=1e-6)
    with pytest.raises(ValueError, match="max_rows_per_person"):
        budgeted_grid_search(
            _pipeline(scaler_m=None), {"pca__data_norm": [1.0, 2.0]}, ledger,
            X, cv=3, groups=g,
        )  # fmt: skip
    assert ledger.spent == (0.0, 0.0)


def test_the_delta_warning_names_the_persons():
    # red team 26: with groups the warning said "1/n" while comparing 1/N
    rng = np.random.default_rng(5)
    X, g = _others(rng, persons=10)
    est = PrivateStandardScaler(
        bounds=(LOWER, UPPER), delta=0.2, max_rows_per_person=3
    )
    with pytest.warns(Warning, match="1/N for the N persons"):
        est.fit(X, groups=g)
