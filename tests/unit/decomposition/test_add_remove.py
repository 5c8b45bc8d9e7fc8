"""``PrivatePCA(neighbours="add-remove")`` (issue 43): refusals before any
charge, the records and the report, the private count, ``plan``, a Pipeline
and the budgeted search; the default stays replace-one."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold
from sklearn.pipeline import make_pipeline

from dppca import PrivatePCA
from dppca.decomposition import add_remove
from dppca.decomposition.plan import planned_records
from dppca.mechanisms import registry
from dppca.mechanisms.spec import MechanismSpec
from dppca.model_selection import budgeted_grid_search
from dppca.privacy.accounting import Accountant
from dppca.privacy.guarantees import REPLACE_ONE


def rows(n=400, d=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([3.0, 2.0, 1.0, 1.0, 1.0])[:d]
    return X / np.max(np.linalg.norm(X, axis=1))


def estimator(**params):
    base = dict(
        n_components=2,
        epsilon=2.0,
        delta=1e-6,
        data_norm=1.0,
        center=False,
        neighbours="add-remove",
        random_state=0,
    )
    base.update(params)
    return PrivatePCA(**base)


def test_the_default_is_replace_one():
    pca = PrivatePCA(epsilon=1.0, delta=1e-6, data_norm=1.0, random_state=0)
    assert pca.get_params()["neighbours"] == "replace"
    assert pca.get_params()["max_samples"] == 2**27
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pca.fit(rows())
    assert all(r.neighbours == REPLACE_ONE for r in pca.privacy_releases_)
    assert not hasattr(pca, "row_count_")


REFUSED = [
    (dict(center=True), "public centre"),
    (dict(data_norm="private", bound_range=(0.1, 10.0)), "public data_norm"),
    (dict(mechanism="streaming"), "not proved under add/remove"),
    (dict(mechanism="trace_sensitive"), "not proved under add/remove"),
    (dict(mechanism="coinpress"), "not proved under add/remove"),
    (dict(max_samples=399), "more than max_samples"),
    (dict(neighbours="add_remove"), "neighbours must be one of"),
    (dict(max_samples=0), "max_samples must be >= 1"),
]


@pytest.mark.parametrize("params, message", REFUSED)
def test_refusals_come_before_any_charge(params, message):
    ledger = Accountant(10.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match=message):
            estimator(accountant=ledger, **params).fit(rows())
    assert ledger.spent == (0.0, 0.0)


def test_groups_are_refused_before_any_charge():
    ledger = Accountant(10.0, 1e-3)
    groups = np.arange(400) // 2
    with pytest.raises(ValueError, match="per-person"):
        estimator(accountant=ledger, max_rows_per_person=2).fit(
            rows(), groups=groups
        )
    assert ledger.spent == (0.0, 0.0)
    with pytest.raises(TypeError, match="max_samples must be an integer"):
        estimator(max_samples=True).fit(rows())


def test_every_refused_mechanism_reads_rows_or_is_not_dp():
    for key, spec in registry.MECHANISMS.items():
        if not spec.add_remove:
            assert spec.run_rows is not None or spec.notion == "not_dp", key


def test_a_mechanism_of_the_rows_cannot_claim_add_remove():
    spec = registry.MECHANISMS["streaming"]
    import dataclasses

    claimed = dataclasses.replace(spec, key="claims", add_remove="padding")
    assert isinstance(claimed, MechanismSpec)
    with pytest.raises(ValueError, match="add_remove is for"):
        registry.register(claimed)
    assert "claims" not in registry.MECHANISMS


def test_the_count_is_charged_and_scales_the_eigenvalues():
    X = rows(n=20000, seed=1)
    ledger = Accountant(10.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pca = estimator(
            epsilon=8.0, accountant=ledger, mechanism="analyze_gauss"
        ).fit(X)
    count, mechanism = pca.privacy_releases_
    assert count.label == "private count of rows (discrete Laplace)"
    assert count.kind == "pure"
    assert count.epsilon == pytest.approx(8.0 * add_remove.ROW_COUNT_SHARE)
    assert mechanism.epsilon == pytest.approx(8.0 * 0.95)
    # the ledger composes both records (tighter than their sum)
    (charge,) = ledger.report().charges
    assert [r["label"] for r in charge["releases"]] == [
        count.label,
        mechanism.label,
    ]
    assert 0 < ledger.spent[0] <= 8.0 + 1e-9
    # the count is within a few noise scales of n (scale ⌈1/0.4⌉ = 3 rows)
    assert abs(pca.row_count_ - X.shape[0]) < 60
    true = np.linalg.eigvalsh(X.T @ X / X.shape[0])[::-1][:2]
    # the noise on S/n at n = 20,000 and ε = 7.6 is about 1e-3
    assert np.allclose(pca.explained_variance_, true, atol=0.02)
    report = " ".join(str(pca.privacy_report()).split())
    assert "one row more" in report and "134,217,728 rows" in report


def test_a_mechanism_without_eigenvalues_spends_nothing_on_the_count():
    ledger = Accountant(10.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pca = estimator(mechanism="noisy_power_method", accountant=ledger).fit(
            rows()
        )
    assert len(pca.privacy_releases_) == 1
    assert not hasattr(pca, "row_count_")
    assert pca.privacy_releases_[0].epsilon == pytest.approx(2.0)
    (charge,) = ledger.report().charges
    assert len(charge["releases"]) == 1


def test_a_public_centre_and_the_midpoint_work():
    X = rows() + 5.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        centred = estimator(center=np.full(5, 5.0), data_norm=1.0).fit(X)
        box = estimator(
            data_norm=None,
            feature_range=(4.0, 6.0),
            center="midpoint",
        ).fit(X)
    assert np.allclose(centred.mean_, 5.0)
    assert np.allclose(box.mean_, 5.0)
    assert box.components_.shape == (2, 5)


def test_plan_uses_the_cap_and_says_so():
    plan = estimator(max_samples=10**6).plan(1000, 5)
    assert isinstance(plan, add_remove.AddRemovePlan)
    assert "max_samples = 1,000,000" in plan.note
    assert "n_samples = 1,000" in plan.note
    assert str(plan).startswith("neighbours='add-remove'")
    replace = PrivatePCA(epsilon=2.0, delta=1e-6, data_norm=1.0, center=False)
    assert not isinstance(replace.plan(1000, 5), add_remove.AddRemovePlan)


def test_in_a_pipeline():
    X = rows(n=600)
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make_pipeline(estimator(), LogisticRegression()).fit(X, y)
    pca = model[0]
    assert pca.privacy_releases_[0].neighbours.startswith("add/remove-one")
    assert model.score(X, y) > 0.5


@pytest.mark.parametrize(
    "search_over, grid, options, message",
    [
        # the grid mixes the relations: one ledger holds one relation
        (
            dict(neighbours="replace"),
            {"neighbours": ["replace", "add-remove"]},
            {},
            "one neighbouring relation",
        ),
        (
            {},
            {"max_samples": [1000, 2000]},
            {},
            "one neighbouring relation",
        ),
        # folds from n (a splitter or index splits) would move rows
        ({}, {"n_components": [1, 2]}, dict(cv=KFold(2)), "cv must be an int"),
        (
            {},
            {"n_components": [1, 2]},
            dict(selection="non_private"),
            "only selection='private'",
        ),
    ],
)
def test_the_budgeted_grid_search_refuses_what_add_remove_cannot_run(
    search_over, grid, options, message
):
    X = rows(n=600)
    ledger = Accountant(20.0, 1e-3)
    options = {"cv": 2, **options}
    with pytest.raises(ValueError, match=message):
        budgeted_grid_search(
            estimator(**search_over), grid, ledger, X, **options
        )
    assert ledger.spent == (0.0, 0.0) and not ledger.releases


def test_the_budgeted_grid_search_runs_add_remove_on_random_folds():
    X = rows(n=600)
    ledger = Accountant(20.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            estimator(), {"n_components": [1, 2]}, ledger, X, cv=2,
            random_state=0,
        )  # fmt: skip
    relation = add_remove.add_remove_neighbours(2**27)
    assert search.neighbours_ == relation
    assert {r.neighbours for r in ledger.releases} == {relation}
    assert search.best_estimator_.neighbours == "add-remove"


def test_the_budgeted_grid_search_still_runs_replace_one():
    X = rows(n=600)
    ledger = Accountant(20.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            estimator(neighbours="replace"),
            {"n_components": [1, 2]},
            ledger,
            X,
            cv=2,
            selection="non_private",
        )
    assert search.best_estimator_.neighbours == "replace"
    assert ledger.releases


def test_mixed_relations_are_worded_as_replace_one_only():
    from dppca.report import composed_unit, neighbours_in_words

    relation = add_remove.add_remove_neighbours(100)
    assert "1 to 100 rows" in neighbours_in_words(relation)
    assert composed_unit([relation]) == "a row"
    assert "replace-one only" in composed_unit([relation, REPLACE_ONE])


def _messages(fit):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fit()
    return sorted(str(w.message) for w in caught)


def test_the_delta_warning_does_not_read_n():
    # red team 18: "delta >= 1/n" was decided from the data's own n, so
    # 99 rows gave no warning and 100 rows one (and the message printed 1/n)
    X = rows(n=100)
    heard = [
        _messages(lambda rows=rows: estimator(delta=0.01).fit(rows))
        for rows in (X[:99], X)
    ]
    assert heard[0] == heard[1]
    assert any("1/max_samples" in m for m in heard[0])
    assert not any("1/n " in m for m in heard[0])


def test_a_cap_too_large_for_the_float_proof_is_refused_before_any_charge():
    ledger = Accountant(5.0, 1e-5)
    pca = estimator(max_samples=2**32, accountant=ledger)
    with pytest.raises(ValueError, match="too large for the float64 proof"):
        pca.plan(50, 5)
    with pytest.raises(ValueError, match="too large for the float64 proof"):
        pca.fit(rows(n=50))
    assert ledger.spent == (0.0, 0.0) and not ledger.releases


@pytest.mark.parametrize(
    "second", [dict(neighbours="replace"), dict(max_samples=10_000)]
)
def test_one_ledger_holds_one_relation(second):
    # red team 18: an add/remove fit at eps 1 and a replace-one fit at eps 1
    # were charged as eps 2 against a budget of 2; under replace-one (the
    # only relation both hold under) the add/remove one is worth 2 eps
    X = rows()
    ledger = Accountant(2.0, 0.0)
    common = dict(epsilon=1.0, delta=0.0, mechanism="laplace")
    estimator(accountant=ledger, **common).fit(X)
    before = ledger.spent
    later = estimator(accountant=ledger, **common, **second)
    assert not ledger.can_afford(planned_records(later, len(X), X.shape[1]))
    with pytest.raises(ValueError, match="one ledger per neighbouring"):
        later.fit(X)
    assert ledger.spent == before and len(ledger.charges) == 1


def test_composition_outside_a_ledger_refuses_mixed_relations():
    # red team 19: compose() gave (1.88, 1e-5) for an add/remove release
    # beside a replace-one one, a figure that holds under neither relation
    from dppca.privacy.accounting import basic_composition, compose

    X = rows()
    common = dict(epsilon=1.0, delta=0.0, mechanism="laplace")
    mixed = [
        estimator(**common).fit(X),
        estimator(neighbours="replace", **common).fit(X),
    ]
    capped = [
        estimator(**common).fit(X),
        estimator(max_samples=1000, **common).fit(X),
    ]
    for fits in (mixed, capped):
        with pytest.raises(ValueError, match="one ledger per neighbouring"):
            compose(fits, 1e-5)
        with pytest.raises(ValueError, match="one ledger per neighbouring"):
            basic_composition(fits)
    same = [estimator(**common).fit(X), estimator(**common).fit(X)]
    assert basic_composition(same)[0] == pytest.approx(2.0)
