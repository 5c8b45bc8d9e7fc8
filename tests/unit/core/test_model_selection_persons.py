"""``budgeted_grid_search(..., groups=g)`` (issue 43): the search per person.
Its folds of whole persons, the groups each fit gets, the dry run at the
number of persons, the per-person utility, the record and report naming the
relation and ``m``, and the refusals before any charge."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline

from dppca import PrivatePCA, PrivateStandardScaler
from dppca import model_selection as ms
from dppca import model_selection_persons as mp
from dppca.decomposition.persons import person_neighbours
from dppca.model_selection_scoring import (
    SCORE_LEVELS,
    person_sensitivity,
    person_utility,
)
from dppca.privacy.accounting import Accountant

M = 3
D_FEATURES = 5


def persons(N=120, seed=0, most=7):
    """``(X, groups)``: ``N`` persons of 1 to ``most`` rows each, two strong
    directions and three weak ones, labels strings in a shuffled order."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, most + 1, size=N)
    labels = np.array([f"p{i}" for i in range(N)], dtype=object)
    groups = rng.permutation(np.repeat(labels, counts))
    X = rng.normal(size=(groups.size, D_FEATURES))
    return X * np.array([3.0, 2.0, 0.3, 0.3, 0.3]), groups


def pca(**options):
    settings = dict(
        data_norm=8.0, center=False, delta=1e-9, mechanism="analyze_gauss",
        max_rows_per_person=M,
    )  # fmt: skip
    settings.update(options)
    return PrivatePCA(2, **settings)


def search(X, groups, ledger, estimator=None, grid=None, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ms.budgeted_grid_search(
            pca() if estimator is None else estimator,
            {"n_components": [1, 2, 3]} if grid is None else grid,
            ledger,
            X,
            **{"cv": 4, "random_state": 0, "groups": groups, **options},
        )


def test_the_search_runs_per_person_and_names_its_relation():
    X, g = persons()
    ledger = Accountant(6.0, 1e-6)
    result = search(X, g, ledger)
    relation = person_neighbours(M)
    assert result.neighbours_ == relation
    assert {r.neighbours for r in ledger.releases} == {relation}
    # 3 candidates x 4 folds + the refit, one record each, and the choice
    assert result.n_budgeted_fits_ == 13 and len(ledger.releases) == 14
    record = result.selection_guarantee_
    assert f"m = {M} rows" in record.theorem
    assert f"m L = {M * SCORE_LEVELS}" in record.theorem
    assert f"at most {M} counted per person" in record.row_bound
    report = " ".join(str(ledger.report()).split())
    assert f"Unit of privacy: per person, at most {M} rows" in report
    k = result.best_params_["n_components"]
    assert result.transform(X[:5]).shape == (5, k)
    assert result.best_estimator_.max_rows_per_person == M


def test_a_pipeline_routes_the_groups_to_its_pca():
    X, g = persons()
    pipe = make_pipeline("passthrough", pca())
    ledger = Accountant(6.0, 1e-6)
    result = search(X, g, ledger, pipe, {"privatepca__n_components": [1, 2]})
    assert result.neighbours_ == person_neighbours(M)
    assert len(ledger.releases) == 2 * 4 + 1 + 1


class GroupsPCA(PrivatePCA):
    """Records the groups and rows each fit gets."""

    seen: list = []

    def fit(self, X, y=None, groups=None):
        GroupsPCA.seen.append((np.asarray(groups), np.asarray(X)))
        return super().fit(X, y, groups)


def test_every_fit_gets_whole_persons_and_their_groups():
    X, g = persons(40)
    GroupsPCA.seen.clear()
    estimator = GroupsPCA(
        2, data_norm=8.0, center=False, delta=1e-9, max_rows_per_person=M,
        mechanism="analyze_gauss",
    )  # fmt: skip
    search(X, g, Accountant(6.0, 1e-6), estimator, {"n_components": [1]})
    folds, refit = GroupsPCA.seen[:4], GroupsPCA.seen[4]
    codes = {label: i for i, label in enumerate(dict.fromkeys(g.tolist()))}
    trained = []
    for groups, rows in folds:
        # each fold fit holds every row of the persons it holds
        persons_in = set(groups.tolist())
        held = np.array([codes[label] in persons_in for label in g])
        assert held.sum() == len(groups) == len(rows)
        trained.append(persons_in)
    # every person is held out of exactly one fold; fold sizes 10 each
    out = [set(range(40)) - t for t in trained]
    assert sorted(len(o) for o in out) == [10] * 4
    assert set().union(*out) == set(range(40))
    assert sum(len(o) for o in out) == 40
    assert len(refit[0]) == len(X) and len(set(refit[0].tolist())) == 40


def test_the_dry_run_and_the_ledger_check_count_persons(monkeypatch):
    sizes = []
    planned = mp.person_fit_records

    def spy(fitted, steps, N, m, d):
        sizes.append((N, m))
        return planned(fitted, steps, N, m, d)

    monkeypatch.setattr(ms, "person_fit_records", spy)
    for seed in (0, 1):  # different row counts, the same persons
        sizes.clear()
        X, g = persons(42, seed)
        search(X, g, Accountant(6.0, 1e-6), grid={"n_components": [1, 2]})
        # 42 persons in 4 folds of 11, 11, 10, 10: training sides of
        # 31, 31, 32, 32 persons, the refit of 42
        assert set(sizes) == {(31, M), (32, M), (42, M)}


def test_person_folds_hold_each_person_once_with_all_its_rows():
    for N in (2, 3, 7, 100):
        codes = np.random.default_rng(N).integers(0, N, size=5 * N)
        codes[:N] = np.arange(N)  # every person has a row
        for k in (2, 3):
            if N < k:
                continue
            splits, sizes = mp.person_folds(
                k, codes, N, np.random.default_rng(0)
            )
            assert sorted(sizes) == sorted(
                N - (N // k + (j < N % k)) for j in range(k)
            )
            tests = np.sort(np.concatenate([test for _, test in splits]))
            assert np.array_equal(tests, np.arange(codes.size))
            for (train, test), size in zip(splits, sizes):
                assert not set(codes[train]) & set(codes[test])
                assert len(set(codes[train].tolist())) == size


def test_the_person_utility_counts_a_person_for_at_most_m_rows():
    L = SCORE_LEVELS
    # one person with 3m rows of the top term, one with one row of half
    levels = np.array([L] * (3 * M) + [L // 2])
    codes = np.array([0] * (3 * M) + [1])
    assert person_utility(levels, codes, M) == M * L + L // 2
    # the order of a person's rows does not matter; fewer rows count fewer
    assert person_utility(levels[::-1], codes[::-1], M) == M * L + L // 2
    assert person_utility(np.array([L, 0]), np.array([5, 5]), M) == L
    assert person_utility(np.array([], dtype=np.int64), [], M) == 0
    assert person_sensitivity(M) == M * L


def test_the_private_choice_follows_the_data_at_a_large_budget():
    X, g = persons(600)
    picks = [
        search(X, g, Accountant(50.0, 1e-6), random_state=seed).best_params_[
            "n_components"
        ]
        for seed in range(4)
    ]
    assert 1 not in picks


def _refused(X, g, estimator=None, grid=None, **options):
    ledger = Accountant(6.0, 1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as info:
            ms.budgeted_grid_search(
                pca() if estimator is None else estimator,
                {"n_components": [1, 2]} if grid is None else grid,
                ledger, X, **{"cv": 3, "groups": g, **options},
            )  # fmt: skip
    assert ledger.charges == () and ledger.spent == (0.0, 0.0)
    return str(info.value)


SCALER = PrivateStandardScaler(bounds=(-8.0, 8.0))
REFUSALS = [
    (dict(estimator=make_pipeline(SCALER, pca()),
          grid={"privatepca__n_components": [1]}),
     "one max_rows_per_person"),  # a scaler without m (issue 43)
    (dict(estimator=pca(neighbours="add-remove", max_samples=10**4)),
     "neighbours='add-remove'"),
    (dict(grid={"max_rows_per_person": [2, 3]}), "one max_rows_per_person"),
    (dict(estimator=pca(max_rows_per_person=None)), "one max_rows_per_person"),
    (dict(cv=KFold(3)), "cv must be an int"),
    (dict(cv=[(np.arange(5), np.arange(5, 9))]), "cv must be an int"),
    (dict(cv=1), "at least 2"),
    (dict(selection="non_private"), "only selection='private'"),
    (dict(estimator=pca(data_norm="private")), "data_norm='private'"),
    (dict(estimator=pca(mechanism="wishart_delta")), "no per-person"),
    (dict(estimator=pca(max_rows_per_person=10**12)), "smaller max_rows"),
]  # fmt: skip


@pytest.mark.parametrize("options, message", REFUSALS)
def test_what_has_no_per_person_argument_is_refused_before_any_charge(
    options, message
):
    X, g = persons(30)
    assert message in _refused(X, g, **options)


def test_groups_are_checked_before_any_charge():
    X, g = persons(30)
    assert "n_samples" in _refused(X, g[:-1])
    broken = g.copy()
    broken[3] = None
    assert "missing label" in _refused(X, broken)
    few = np.array(["a", "b"] * (len(X) // 2) + ["a"] * (len(X) % 2))
    assert "too few for cv=3" in _refused(X, few)


@pytest.mark.parametrize("where", ["estimator", "grid"])
def test_max_rows_per_person_without_groups_is_refused(where):
    X, _ = persons(30)
    estimator = pca(max_rows_per_person=M if where == "estimator" else None)
    grid = {"n_components": [1]}
    if where == "grid":
        grid["max_rows_per_person"] = [None, M]
    message = _refused(X, None, estimator, grid)
    assert "does not pass groups" in message and "groups=g" in message


def test_without_groups_the_search_is_row_level_as_before():
    X, _ = persons(30)
    ledger = Accountant(6.0, 1e-6)
    result = search(X, None, ledger, pca(max_rows_per_person=None))
    assert result.neighbours_.startswith("replace-one (")
    assert "person" not in result.selection_guarantee_.theorem
