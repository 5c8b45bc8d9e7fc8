"""``budgeted_grid_search`` with ``neighbours="add-remove"`` (issue 43): the
search in a Pipeline of a PrivateStandardScaler and a PrivatePCA, its
records, its random folds and their generator, the public row of the fold
fits, and the refusals of what it cannot run."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline

from dppca import PrivatePCA, PrivateStandardScaler
from dppca import model_selection as ms
from dppca.decomposition.add_remove import add_remove_neighbours
from dppca.model_selection_checks import (
    neutral_row,
    private_steps,
    search_relation,
)
from dppca.model_selection_scoring import (
    SCORE_LEVELS,
    random_fold_sensitivity,
    random_folds,
)
from dppca.privacy.accounting import Accountant
from dppca.privacy.guarantees import REPLACE_ONE

CAP = 5000


def rows(n=1500, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, 5)) * np.array([3.0, 2.0, 0.3, 0.3, 0.3])


def pipeline(**pca):
    options = dict(
        data_norm=4.0,
        center=False,
        delta=1e-9,
        mechanism="analyze_gauss",
        neighbours="add-remove",
        max_samples=CAP,
    )
    options.update(pca)
    return make_pipeline(
        PrivateStandardScaler(
            bounds=(-8.0, 8.0), neighbours="add-remove", max_samples=CAP
        ),
        PrivatePCA(2, **options),
    )


def search(X, ledger, estimator=None, grid=None, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ms.budgeted_grid_search(
            pipeline() if estimator is None else estimator,
            {"privatepca__n_components": [1, 2, 3]} if grid is None else grid,
            ledger,
            X,
            **{"cv": 4, "random_state": 0, **options},
        )


def test_the_search_runs_in_a_pipeline_and_names_its_relation():
    X = rows()
    ledger = Accountant(6.0, 1e-6)
    result = search(X, ledger)
    relation = add_remove_neighbours(CAP)
    assert result.neighbours_ == relation
    assert {r.neighbours for r in ledger.releases} == {relation}
    # 3 candidates x 4 folds + the refit, two private steps each, and the
    # choice: 27 charges; each fit's five records (scaler: count, mean,
    # variance; PCA: count, mechanism)
    assert result.n_budgeted_fits_ == 13 and result.n_splits_ == 4
    assert len(ledger.charges) == 27
    assert len(ledger.releases) == 13 * 5 + 1
    chosen = result.best_estimator_
    assert chosen.steps[1][1].neighbours == "add-remove"
    assert hasattr(chosen.steps[0][1], "row_count_")
    k = result.best_params_["privatepca__n_components"]
    assert result.transform(X[:7]).shape == (7, k)
    report = " ".join(str(ledger.report()).split())
    assert "add/remove-one" in report and "5,000 rows" in report
    assert "sensitivity L = 1048576" in result.selection_guarantee_.theorem


def test_the_private_choice_follows_the_data_at_a_large_budget():
    # two strong directions and three weak ones: at a large ε the utility
    # of 2 or 3 components beats 1 by about a fifth of the rows' score
    X = rows(3000)
    picks = [
        search(X, Accountant(50.0, 1e-6), random_state=seed).best_params_[
            "privatepca__n_components"
        ]
        for seed in range(6)
    ]
    assert 1 not in picks


def test_the_replace_one_search_keeps_its_folds_and_record():
    X = rows(300)
    pca = PrivatePCA(2, data_norm=20.0, center=False, delta=1e-9)
    ledger = Accountant(4.0, 1e-6)
    result = search(X, ledger, pca, {"n_components": [1, 2]}, cv=3)
    assert result.neighbours_ == REPLACE_ONE
    assert "add/remove" not in result.selection_guarantee_.theorem
    assert {r.neighbours for r in ledger.releases} == {REPLACE_ONE}


def test_random_folds_hold_every_row_once():
    for n in (0, 1, 7, 1000):
        folds = random_folds(5, n, np.random.default_rng(n))
        assert len(folds) == 5
        tests = np.sort(np.concatenate([test for _, test in folds]))
        assert np.array_equal(tests, np.arange(n))
        for train, test in folds:
            assert np.array_equal(np.setdiff1d(np.arange(n), test), train)
    sizes = [len(t) for _, t in random_folds(4, 4000, np.random.default_rng())]
    assert min(sizes) > 850 and max(sizes) < 1150  # uniform, 1000 each


def test_the_fold_draws_are_seeded_apart_from_the_fits():
    # the fits' seeds are those of a replace-one search at the same
    # random_state; the folds come from a stream of their own
    assert ms.fit_seeds(3, 5) == ms.fit_seeds(3, 5)
    a = ms.fold_generator(3).integers(0, 2**32, size=4)
    b = ms.fold_generator(3).integers(0, 2**32, size=4)
    assert np.array_equal(a, b)
    seeds = np.array(ms.fit_seeds(3, 4), dtype=object) % 2**32
    assert not set(a.tolist()) & set(seeds.tolist())
    fresh = [ms.fold_generator(None).integers(2**62) for _ in range(3)]
    assert len(set(fresh)) == 3


def test_the_sensitivity_is_one_row_under_add_remove():
    assert random_fold_sensitivity() == SCORE_LEVELS


def test_the_public_row_is_the_first_steps_centre():
    pipe = pipeline()
    assert np.array_equal(neutral_row(pipe, private_steps(pipe), 5), [0] * 5)
    pipe.steps[0][1].set_params(bounds=([0, 0, 0, 0, 0], [2, 4, 6, 8, 10]))
    row = neutral_row(pipe, private_steps(pipe), 5)
    assert np.array_equal(row, [1, 2, 3, 4, 5])
    pca = PrivatePCA(1, data_norm=1.0, center=np.arange(3.0))
    assert np.array_equal(neutral_row(pca, [("", pca)], 3), [0, 1, 2])
    ranged = PrivatePCA(
        1, feature_range=(np.zeros(3), np.full(3, 2.0)), center="midpoint"
    )
    assert np.array_equal(neutral_row(ranged, [("", ranged)], 3), [1, 1, 1])
    bare = PrivatePCA(1, data_norm=1.0, center=False)
    assert np.array_equal(neutral_row(bare, [("", bare)], 3), [0, 0, 0])


def test_sparse_rows_are_searched_with_the_public_row():
    X = scipy.sparse.random(40, 5, density=0.5, random_state=0, format="csr")
    pca = PrivatePCA(
        2, data_norm=2.0, center=False, delta=1e-9, neighbours="add-remove",
        max_samples=CAP,
    )  # fmt: skip
    for n in (1, 40):
        result = search(
            X[:n], Accountant(4.0, 1e-6), pca, {"n_components": [1, 2]}
        )
        assert result.n_splits_ == 4


@pytest.mark.parametrize(
    "cv, selection, message",
    [
        (KFold(4), "private", "cv must be an int"),
        ([(np.arange(3), np.arange(3, 6))], "private", "cv must be an int"),
        (4.0, "private", "cv must be an int"),
        (4, "non_private", "only selection='private'"),
    ],
)
def test_what_add_remove_cannot_run_is_refused_from_parameters(
    cv, selection, message
):
    pipe = pipeline()
    steps = private_steps(pipe)
    with pytest.raises(ValueError, match=message):
        search_relation(pipe, steps, [{}], cv, selection)
    ledger = Accountant(4.0, 1e-6)
    with pytest.raises(ValueError, match=message):
        search(rows(50), ledger, cv=cv, selection=selection, random_state=None)
    assert ledger.charges == ()


def test_mixed_relations_are_refused_and_one_relation_is_named():
    pipe = pipeline()
    steps = private_steps(pipe)
    assert search_relation(pipe, steps, [{}], 3, "private") == CAP
    mixed = pipeline(neighbours="replace")
    with pytest.raises(ValueError, match="mix .*add/remove .*replace-one"):
        search_relation(mixed, steps, [{}], 3, "private")
    grid = [{"privatepca__max_samples": CAP}, {"privatepca__max_samples": 9}]
    with pytest.raises(ValueError, match="cap 9"):
        search_relation(pipe, steps, grid, 3, "private")
    replace = PrivatePCA(1, data_norm=1.0)
    assert (
        search_relation(replace, [("", replace)], [{}], KFold(3), "x") is None
    )
