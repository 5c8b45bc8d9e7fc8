"""``budgeted_grid_search(..., groups=g)`` with a ``PrivateCovariance``
(issue 43): the per-person search fits the covariance (alone, or after a
per-person ``PrivateStandardScaler``) with the groups, plans and charges
per-person records only, and refuses, before any charge, a covariance
without ``max_rows_per_person`` or with a mechanism that has no per-person
guarantee."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.pipeline import Pipeline

from dppca import PrivateCovariance, PrivateStandardScaler
from dppca.decomposition.persons import person_bound
from dppca.model_selection import budgeted_grid_search
from dppca.privacy.accounting import Accountant


def _data(persons=300, seed=0):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 5, size=persons)
    g = np.repeat(np.arange(persons), counts)
    X = rng.normal(size=(g.size, 4)) * [0.5, 0.3, 0.1, 0.05]
    return X, g


def _covariance(**kw):
    params = dict(epsilon=1.0, delta=1e-8, data_norm=1.0, center=False)
    return PrivateCovariance(**{**params, "max_rows_per_person": 2, **kw})


def _search(estimator, grid, ledger, X, g):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return budgeted_grid_search(
            estimator, grid, ledger, X, cv=3, groups=g, random_state=0
        )


def test_covariance_alone_is_searched_per_person():
    X, g = _data()
    ledger = Accountant(6.0, 1e-6)
    search = _search(_covariance(), {"data_norm": [0.5, 1.0]}, ledger, X, g)
    records = ledger.releases
    assert len(records) == 2 * 3 + 1 + 1  # fits, refit, the choice
    assert {person_bound(r.neighbours) for r in records} == {2}
    assert search.best_estimator_.n_persons_ == 300


def test_scaler_then_covariance_per_person():
    X, g = _data(seed=1)
    pipe = Pipeline(
        [
            ("scale", PrivateStandardScaler(
                bounds=(-2.0, 2.0), with_std=False, max_rows_per_person=2)),
            ("cov", _covariance()),
        ]
    )  # fmt: skip
    ledger = Accountant(8.0, 1e-6)
    search = _search(pipe, {"cov__data_norm": [0.5, 1.0]}, ledger, X, g)
    records = ledger.releases
    assert len(records) == (2 * 3 + 1) * 2 + 1  # mean + matrix per fit
    assert {person_bound(r.neighbours) for r in records} == {2}
    assert search.best_estimator_["scale"].n_samples_seen_ == 300


@pytest.mark.parametrize(
    "estimator, message",
    [
        (_covariance(max_rows_per_person=None), "max_rows_per_person"),
        (_covariance(mechanism="trace_sensitive"), "trace"),
    ],
)
def test_refused_before_any_charge(estimator, message):
    X, g = _data(seed=2)
    ledger = Accountant(6.0, 1e-6)
    with pytest.raises(ValueError, match=message):
        _search(estimator, {"data_norm": [0.5, 1.0]}, ledger, X, g)
    assert ledger.spent == (0.0, 0.0) and not ledger.charges
