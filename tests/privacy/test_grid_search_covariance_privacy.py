"""The private selection of ``budgeted_grid_search`` over a
``PrivateCovariance`` (issue 43), on extremal pairs.

The covariance's held-out term (:mod:`dppca.model_selection_covariance`)
reads the fold's released model and one row, and lies in ``[0, 1]``, so the
argument of the PCA score carries over: for fixed fold models, replacing one
row moves a candidate's utility by at most ``L`` (KFold: one test fold per
row), and adding one row over the random folds of add/remove neighbours adds
one term in ``[0, L]``. Here both bounds are checked on extremal rows (at
the bound along and across the release's axis, far beyond it, zero, NaN) and
shown to be reached; the draw is calibrated to ``L`` and the record says so;
searches on neighbouring data sets are alike in what a caller sees; every
refusal comes before any charge, alike on neighbours.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

from dppca import PrivateCovariance, PrivateStandardScaler
from dppca import model_selection as ms
from dppca.decomposition.add_remove import add_remove_neighbours
from dppca.model_selection import SCORE_LEVELS, budgeted_grid_search
from dppca.model_selection_scoring import (
    held_out_utility,
    label_free_splits,
    random_folds,
    score_scale,
)
from dppca.privacy.accounting import Accountant
from dppca.privacy.selection import exact_epsilon

D_FEATURES = 3
R = 2.0
CAP = 2000


def data(n=30, seed=0):
    """Rows along the first axis mostly, within the bound."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D_FEATURES)) * np.array([1.0, 0.05, 0.05])
    X[:, 0] = np.sign(X[:, 0] + 1e-12) * R * 0.99
    return X


def fold_models(X, splits, seed, **params):
    """Fixed fold models, released at a large ε (a release close to the
    rows' second moment, so that the extremal rows reach the bound)."""
    options = dict(data_norm=R, delta=1e-9, epsilon=200.0, center=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [
            PrivateCovariance(
                **{**options, **params}, random_state=[seed, j]
            ).fit(X[train] if len(train) else np.zeros((1, D_FEATURES)))
            for j, (train, _) in enumerate(splits)
        ]


def extremal_rows():
    e = np.eye(D_FEATURES)
    nan = np.full(D_FEATURES, np.nan)
    return [
        R * e[0],  # along the release's axis: a term near L
        R * e[1],  # across it, at the bound: a term near 0
        1e200 * e[2],
        -1e300 * e[0],
        np.zeros(D_FEATURES),
        1e-300 * e[1],
        nan,
    ]


def utility(models, Z, splits, scale):
    return sum(
        held_out_utility(m, Z[test], scale) if len(test) else 0
        for m, (_, test) in zip(models, splits)
    )


@pytest.mark.parametrize(
    "params", [dict(), dict(center=np.full(D_FEATURES, 0.1))]
)
def test_replacing_one_row_moves_the_utility_by_at_most_L(params):
    X = data(30)
    splits = label_free_splits(3, X.shape[0])
    worst = 0
    for seed in range(3):
        models = fold_models(X, splits, seed, **params)
        scale = score_scale(models, D_FEATURES)
        base = utility(models, X, splits, scale)
        for i in (0, 17, 29):
            for x in extremal_rows():
                X_prime = X.copy()
                X_prime[i] = x
                moved = abs(utility(models, X_prime, splits, scale) - base)
                assert moved <= SCORE_LEVELS
                worst = max(worst, moved)
        # two extremal rows against each other: one along, one across
        e = np.eye(D_FEATURES)
        for a, b in ((R * e[0], R * e[1]), (-R * e[0], np.full(3, np.nan))):
            X_a, X_b = X.copy(), X.copy()
            X_a[5], X_b[5] = a, b
            moved = abs(
                utility(models, X_a, splits, scale)
                - utility(models, X_b, splits, scale)
            )
            assert moved <= SCORE_LEVELS
            worst = max(worst, moved)
    assert worst >= 0.9 * SCORE_LEVELS  # the bound is reached


@pytest.mark.parametrize("n", [1, 2, 30])
def test_adding_one_row_adds_one_term_in_0_L(n):
    X = data(n, seed=n)
    worst = 0
    for seed in range(6):
        folds = random_folds(3, n, np.random.default_rng(seed))
        more = random_folds(3, n + 1, np.random.default_rng(seed))
        models = fold_models(X, folds, seed)
        scale = score_scale(models, D_FEATURES)
        for x in extremal_rows():
            X_prime = np.vstack([X, x])
            moved = utility(models, X_prime, more, scale) - utility(
                models, X, folds, scale
            )
            assert 0 <= moved <= SCORE_LEVELS
            worst = max(worst, moved)
    assert worst >= 0.9 * SCORE_LEVELS


def add_remove_estimator(with_scaler, delta=1e-10):
    cov = PrivateCovariance(
        data_norm=R,
        delta=delta,
        center=False,
        neighbours="add-remove",
        max_samples=CAP,
    )
    if not with_scaler:
        return cov, {"data_norm": [0.5, R]}
    scaler = PrivateStandardScaler(
        bounds=(-R, R), neighbours="add-remove", max_samples=CAP
    )
    return make_pipeline(scaler, cov), {"privatecovariance__data_norm": [1, 3]}


def _kind(value):
    return (type(value).__name__, getattr(value, "ndim", None))


def observed(X, estimator, grid, random_state):
    """What a caller sees of a search on ``X``, in kind."""
    ledger = Accountant(4.0, 1e-6)
    with warnings.catch_warnings(record=True) as heard:
        warnings.simplefilter("always")
        try:
            search = budgeted_grid_search(
                estimator, grid, ledger, X, cv=3, random_state=random_state
            )
            raised = None
        except Exception as error:  # the outcome is what is compared
            search, raised = None, (type(error).__name__, str(error))
    seen = sorted({w.category.__name__ for w in heard})
    records = [
        (r.label, r.kind, r.epsilon, r.delta, r.neighbours)
        for r in ledger.releases
    ]
    if search is None:
        return raised, seen, records
    final = search.best_estimator_
    final = final.steps[-1][1] if hasattr(final, "steps") else final
    public = (
        sorted(vars(search)),
        search.budget_per_fit_,
        search.neighbours_,
        sorted(
            (k, _kind(v)) for k, v in vars(final).items() if k.endswith("_")
        ),
    )
    return raised, seen, records, public


@pytest.mark.parametrize("with_scaler", [False, True])
@pytest.mark.parametrize("random_state", [0, None])
def test_add_remove_neighbours_are_searched_alike(with_scaler, random_state):
    estimator, grid = add_remove_estimator(with_scaler)
    D = data(12)
    pairs = [(D, np.vstack([D, x])) for x in extremal_rows()[:4]]
    pairs += [(D[:1], D[:2]), (D[:2], D[:3])]
    for left, right in pairs:
        a = observed(left, estimator, grid, random_state)
        b = observed(right, estimator, grid, random_state)
        assert a[0] is None and b[0] is None
        assert a == b  # records, warnings, attributes and their kinds


def test_replace_one_neighbours_are_searched_alike():
    estimator = PrivateCovariance(data_norm=R, delta=1e-8)
    grid = {"centered_norm": ["triangle", 1.0]}
    D = data(12)
    for x in extremal_rows()[:4]:
        D_prime = D.copy()
        D_prime[3] = x
        a = observed(D, estimator, grid, 0)
        b = observed(D_prime, estimator, grid, 0)
        assert a[0] is None and a == b


def test_the_draw_is_calibrated_to_one_row_and_the_record_says_so(
    monkeypatch,
):
    seen = {}
    draw = ms.permute_and_flip

    def spy(utilities, epsilon, rng=None):
        seen["epsilon"] = epsilon
        return draw(utilities, epsilon, rng)

    monkeypatch.setattr(ms, "permute_and_flip", spy)
    for with_scaler in (False, True):
        estimator, grid = add_remove_estimator(with_scaler)
        ledger = Accountant(4.0, 1e-6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search = budgeted_grid_search(
                estimator, grid, ledger, data(), cv=3, selection_epsilon=0.5,
                random_state=0,
            )  # fmt: skip
        assert seen["epsilon"] == exact_epsilon(0.5 / SCORE_LEVELS)
        record = search.selection_guarantee_
        assert record in ledger.releases and record.epsilon == 0.5
        assert record.neighbours == add_remove_neighbours(CAP)
        assert f"sensitivity L = {SCORE_LEVELS}" in record.theorem
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        budgeted_grid_search(
            PrivateCovariance(data_norm=R, delta=1e-8),
            {"data_norm": [1.0, R]}, Accountant(4.0, 1e-6), data(),
            cv=3, selection_epsilon=0.5,
        )  # fmt: skip
    assert seen["epsilon"] == exact_epsilon(0.5 / SCORE_LEVELS)  # KFold


REFUSED = [
    # a private mean: its noise is calibrated to n, private here
    (dict(center=True), "public centre"),
    # a mechanism of the rows: no add/remove argument
    (dict(mechanism="trace_sensitive"), "not proved under add/remove"),
    # a delta of None: both mechanisms are Gaussian
    (dict(delta=None), "delta is required"),
]


@pytest.mark.parametrize("params, message", REFUSED)
def test_refusals_come_before_any_charge_alike_on_neighbours(params, message):
    estimator, grid = add_remove_estimator(False)
    estimator.set_params(**params)
    D = data(10)
    outcomes = []
    for X in (D, D[:9], D[:1], np.vstack([D, 1e200 * np.ones(3)])):
        ledger = Accountant(4.0, 1e-6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(ValueError) as info:
                budgeted_grid_search(estimator, grid, ledger, X, cv=3)
        assert ledger.charges == () and ledger.spent == (0.0, 0.0)
        outcomes.append(str(info.value))
    assert len(set(outcomes)) == 1 and message in outcomes[0]


def test_groups_without_a_bound_per_person_are_refused_before_any_charge():
    # the per-person search takes a covariance with max_rows_per_person
    # (dppca.model_selection_persons); without it, groups are refused alike
    # on neighbours, before any fit
    D = data(12)
    messages = []
    for X in (D, D[:11], np.vstack([D, 1e200 * np.ones(3)])):
        ledger = Accountant(4.0, 1e-6)
        with pytest.raises(ValueError, match="max_rows_per_person") as info:
            budgeted_grid_search(
                PrivateCovariance(data_norm=R, delta=1e-8),
                {"data_norm": [1.0, R]}, ledger, X, cv=3,
                groups=np.arange(X.shape[0]) // 2,
            )  # fmt: skip
        assert ledger.charges == ()
        messages.append(str(info.value))
    assert len(set(messages)) == 1
