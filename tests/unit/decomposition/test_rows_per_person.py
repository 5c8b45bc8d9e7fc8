"""Several rows per person (issue 43): ``PrivatePCA(max_rows_per_person=m)``
with ``fit(X, groups=g)``.

Validation and refusals come before any charge (an accountant is left
untouched); a person keeps at most ``m`` rows, chosen uniformly; the padded
second moment has ``N·m`` rows and the mechanism is called with ``n = N``;
records and reports name the unit of privacy; a ``Pipeline`` routes
``pca__groups``.
"""

from __future__ import annotations

import re
import warnings
from contextlib import contextmanager

import numpy as np
import pytest
import scipy.sparse
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from dppca import PrivatePCA
from dppca.decomposition import pca
from dppca.decomposition import persons as persons_module
from dppca.decomposition.persons import (
    PERSON_LEVEL,
    Persons,
    kept_rows,
    person_codes,
    person_neighbours,
    unit_of_privacy,
)
from dppca.linalg import clipped_sums
from dppca.mechanisms import input_perturbation, registry
from dppca.privacy.accounting import Accountant
from dppca.privacy.guarantees import REPLACE_ONE

R = 2.0


def data(counts, d=6, seed=0):
    """Rows of norm ``R`` in random directions, ``counts[p]`` for person
    ``p``, the persons' rows interleaved; returns ``(X, groups)``."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(len(counts)), counts)
    groups = groups[rng.permutation(groups.size)]
    X = rng.normal(size=(groups.size, d))
    X *= R / np.linalg.norm(X, axis=1, keepdims=True)
    return X, groups


def estimator(**params):
    options = dict(
        n_components=2,
        epsilon=1.0,
        delta=1e-6,
        mechanism="analyze_gauss",
        data_norm=R,
        center=False,
        max_rows_per_person=3,
        random_state=0,
    )
    options.update(params)
    return PrivatePCA(**options)


@contextmanager
def seen_by_analyze_gauss():
    """Every ``(A, n)`` handed to Analyze Gauss within the block."""
    seen = []
    original = input_perturbation.analyze_gauss_from_second_moment

    def capture(A, n, *args, **kwargs):
        seen.append((np.array(A), n))
        return original(A, n, *args, **kwargs)

    input_perturbation.analyze_gauss_from_second_moment = capture
    try:
        yield seen
    finally:
        input_perturbation.analyze_gauss_from_second_moment = original


def refused_before_charge(est, X, groups, error=ValueError, match=None):
    ledger = Accountant(10.0, 1e-3)
    est.set_params(accountant=ledger)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(error, match=match):
            est.fit(X, groups=groups)
    assert ledger.releases == ()
    assert not hasattr(est, "privacy_releases_")


# ----------------------------------------------------------------- validation


def test_groups_and_the_bound_come_together():
    X, g = data([2, 3, 1, 4])
    refused_before_charge(
        estimator(max_rows_per_person=None), X, g, match="max_rows_per_person"
    )
    refused_before_charge(estimator(), X, None, match="pass groups")


@pytest.mark.parametrize(
    "m, error", [(0, ValueError), (-2, ValueError), (True, TypeError)]
)
def test_the_bound_is_a_positive_integer(m, error):
    X, g = data([2, 3, 1, 4])
    refused_before_charge(estimator(max_rows_per_person=m), X, g, error)
    refused_before_charge(estimator(max_rows_per_person=2.5), X, g, TypeError)


def test_groups_name_every_row():
    X, g = data([2, 3, 1, 4])
    refused_before_charge(estimator(), X, g[:-1], match="one label per row")
    labels = g.astype(object)
    labels[3] = None
    refused_before_charge(estimator(), X, labels, match="name a person")
    refused_before_charge(
        estimator(), X, g.astype(float) * np.nan, match="name a person"
    )


def test_codes_follow_first_appearance_for_any_hashable_label():
    codes, N = person_codes(["b", ("x", 1), "b", 7, ("x", 1)], 5)
    assert N == 3
    assert codes.tolist() == [0, 1, 0, 2, 1]


# ------------------------------------------------------------------ refusals


@pytest.mark.parametrize(
    "mechanism",
    sorted(set(registry.MECHANISMS) - set(PERSON_LEVEL)),
)
def test_mechanisms_without_a_per_person_proof_are_refused(mechanism):
    X, g = data([2, 3, 1, 4, 2, 2])
    est = estimator(
        mechanism=mechanism,
        allow_unproved=mechanism,
        allow_not_dp=True,
        mechanism_options=registry.MECHANISMS[mechanism].example_options,
    )
    refused_before_charge(est, X, g, match="no per-person guarantee")


def test_the_qualifying_mechanisms_are_registered_and_work_from_A():
    for name in PERSON_LEVEL:
        spec = registry.MECHANISMS[name]
        assert spec.run is not None and spec.run_rows is None, name


@pytest.mark.parametrize(
    "params",
    [
        dict(data_norm="private", bound_range=(0.1, 10.0)),
        dict(center=True, centered_norm="private", bound_range=(0.1, 10.0)),
    ],
)
def test_private_bounds_are_refused(params):
    X, g = data([2, 3, 1, 4])
    refused_before_charge(estimator(**params), X, g, match="'private'")


def test_auto_centred_bound_means_data_norm_with_groups():
    X, g = data([30] * 40, d=5)
    est = estimator(center=True, centered_norm="auto", epsilon=2.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, groups=g)
    labels = [r.label for r in est.privacy_releases_]
    assert not any("quantile" in label for label in labels)
    assert est.row_bound_ == R
    assert est.get_params()["centered_norm"] == "auto"


def test_auto_chooses_a_qualifying_mechanism():
    X, g = data([3] * 50)
    for delta in (0.0, 1e-6):
        est = estimator(mechanism="auto", delta=delta)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, groups=g)
        assert est.mechanism_ in PERSON_LEVEL


# -------------------------------------------------------------- subsampling


def test_each_person_keeps_at_most_m_rows_and_n_is_the_persons():
    counts = [1, 2, 3, 5, 9, 3, 4]
    d = len(counts) + 1
    groups = np.repeat(np.arange(len(counts)), counts)
    X = R * np.eye(d)[groups]  # person p's rows are all R e_p
    m = 3
    with seen_by_analyze_gauss() as seen:
        estimator(max_rows_per_person=m).fit(X, groups=groups)
    ((A, n),) = seen
    N = len(counts)
    assert n == N
    kept = np.diag(A)[:N] * N * m
    # every row has norm s < 1 after the float-error shrink (about 1e-10)
    np.testing.assert_allclose(kept, np.minimum(counts, m), rtol=1e-8)
    assert A[N, N] == 0.0


def test_the_padded_sums_have_N_times_m_rows(monkeypatch):
    shapes = []
    original = clipped_sums.clipped_second_moment
    row_sum = clipped_sums.clipped_row_sum

    def second_moment(X, *args, **kwargs):
        shapes.append(("second moment", X.shape[0]))
        return original(X, *args, **kwargs)

    def sum_of_rows(X, *args, **kwargs):
        shapes.append(("row sum", X.shape[0]))
        return row_sum(X, *args, **kwargs)

    monkeypatch.setattr(clipped_sums, "clipped_second_moment", second_moment)
    monkeypatch.setattr(clipped_sums, "clipped_row_sum", sum_of_rows)
    X, g = data([1, 7, 2, 3, 4])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator(center=True, center_share=0.2).fit(X, groups=g)
    assert shapes == [("row sum", 15), ("second moment", 15)]


def test_the_choice_is_uniform_and_reads_only_the_labels():
    codes = np.array([0, 1, 1, 1, 1, 2, 1, 2])
    persons = Persons(codes, 3, 2)
    hits = np.zeros(codes.size)
    draws = 4000
    rng = np.random.default_rng(1)
    for _ in range(draws):
        kept = kept_rows(persons, rng)
        assert np.all(np.bincount(codes[kept], minlength=3) == [1, 2, 2])
        hits[kept] += 1
    # person 1 keeps 2 of its 5 rows: each with probability 2/5
    share = hits[codes == 1] / draws
    assert np.all(np.abs(share - 0.4) < 4 * np.sqrt(0.24 / draws))
    assert np.all(hits[codes != 1] == draws)


def test_the_fit_generator_advances_by_a_fixed_number_of_draws(monkeypatch):
    # two data sets with different row counts per person: the noise that
    # follows the choice is drawn from the same generator state
    states = []
    original = persons_module.subsampling_generator

    def spy(rng):
        child = original(rng)
        states.append(rng.bit_generator.state["state"]["state"])
        return child

    monkeypatch.setattr(pca, "subsampling_generator", spy)
    for counts in ([1, 1, 1, 1], [9, 2, 5, 1]):
        X, g = data(counts)
        estimator().fit(X, groups=g)
    assert len(states) == 2 and states[0] == states[1]


def test_sparse_and_dense_input_give_the_same_release():
    X, g = data([2, 5, 1, 3, 3, 4])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = estimator(center=True, center_share=0.2).fit(X, groups=g)
        sparse = estimator(center=True, center_share=0.2).fit(
            scipy.sparse.csr_matrix(X), groups=g
        )
    np.testing.assert_allclose(dense.mean_, sparse.mean_, atol=1e-12)
    np.testing.assert_allclose(
        np.abs(dense.components_ @ sparse.components_.T),
        np.eye(2),
        atol=1e-6,
    )


def test_the_private_mean_is_the_mean_over_persons():
    # person p has rows R e_0 (c_p of them, m = 2): its (1/m) Σ x is
    # min(c_p, 2)/2 · R e_0; the noise has σ = multiplier · 2R/N
    counts = [1, 2, 4, 2, 1] * 40
    groups = np.repeat(np.arange(len(counts)), counts)
    X = R * np.eye(4)[np.zeros(groups.size, dtype=int)]
    est = estimator(
        center=True, center_share=0.5, epsilon=50.0, max_rows_per_person=2
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, groups=groups)
    mean_record = est.privacy_releases_[0]
    sigma = mean_record.noise_multiplier * 2 * R / len(counts)
    expected = np.zeros(4)
    expected[0] = R * np.mean(np.minimum(counts, 2) / 2)
    assert np.all(np.abs(est.mean_ - expected) < 6 * sigma)
    assert 6 * sigma < 0.2 * expected[0]  # the test can tell


# ------------------------------------------------------------ record, report


def test_records_and_report_name_the_person():
    X, g = data([2, 5, 1, 3, 3, 4])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = estimator(center=True, center_share=0.2).fit(X, groups=g)
    relation = person_neighbours(3)
    assert len(est.privacy_releases_) == 2  # the mean and the mechanism
    assert {r.neighbours for r in est.privacy_releases_} == {relation}
    text = str(est.privacy_report())
    flat = re.sub(r"\s+", " ", text)
    assert "Unit of privacy: per person, at most 3 rows." in flat
    assert "each person with at most 3 rows (replace-one person)" in flat
    assert "at most 3 rows per person" in str(est.privacy_releases_[-1])


def test_without_groups_the_unit_is_a_row():
    X, _ = data([2, 5, 1, 3, 3, 4])
    est = estimator(max_rows_per_person=None).fit(X)
    assert {r.neighbours for r in est.privacy_releases_} == {REPLACE_ONE}
    flat = re.sub(r"\s+", " ", str(est.privacy_report()))
    assert "Unit of privacy: a row." in flat
    assert unit_of_privacy(REPLACE_ONE) == "a row"
    assert unit_of_privacy(person_neighbours(7)) == "per person, at most 7 rows"


def test_the_ledger_records_the_person_relation():
    X, g = data([2, 5, 1, 3, 3, 4])
    ledger = Accountant(5.0, 1e-5)
    estimator(accountant=ledger).fit(X, groups=g)
    assert [r.neighbours for r in ledger.releases] == [person_neighbours(3)]
    flat = re.sub(r"\s+", " ", str(ledger.report()))
    assert "Unit of privacy: per person, at most 3 rows." in flat


# ------------------------------------------------------------------ Pipeline


def test_a_pipeline_routes_the_groups():
    X, g = data([2, 5, 1, 3, 3, 4] * 5)
    pipe = Pipeline(
        [("scale", FunctionTransformer(lambda Z: Z / 2)), ("pca", estimator())]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = pipe.fit_transform(X, pca__groups=g)
    assert Z.shape == (X.shape[0], 2)
    records = pipe.named_steps["pca"].privacy_releases_
    assert records[-1].neighbours == person_neighbours(3)
    with pytest.raises(ValueError, match="pass groups"):
        pipe.fit(X)


@pytest.mark.parametrize(
    "label",
    [
        np.float32("nan"),
        np.float16("nan"),
        complex("nan"),
        __import__("decimal").Decimal("NaN"),
    ],
)
def test_any_missing_label_is_refused(label):
    """Red team, round 13: NaN of other types than float made each row its
    own person (splitting a real person)."""
    from dppca.decomposition.persons import person_codes

    groups = [1, 2, label, 2]
    with pytest.raises(ValueError, match="missing label"):
        person_codes(groups, 4)
    assert person_codes([1, 2, 3, 2], 4)[1] == 3


def test_a_padding_too_large_is_refused_before_any_charge():
    """Red team, round 13: m = 10¹³ raised MemoryError after the charge."""
    from dppca.privacy.accounting import Accountant

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    acc = Accountant(epsilon=1.0, delta=1e-5)
    est = PrivatePCA(
        n_components=1, epsilon=0.5, delta=1e-6, data_norm=1.0,
        center=False, mechanism="analyze_gauss",
        max_rows_per_person=10**13, accountant=acc,
    )  # fmt: skip
    with pytest.raises(ValueError, match="smaller max_rows_per_person"):
        est.fit(X, groups=np.arange(50) % 10)
    assert acc.spent == (0.0, 0.0)


@pytest.mark.parametrize("where", ["grid", "estimator"])
def test_a_budgeted_search_of_per_person_fits_is_refused_before_any_fit(where):
    """Red team, round 13: the search does not route groups; a grid over
    max_rows_per_person charged three fold fits, then refused."""
    from dppca import budgeted_grid_search
    from dppca.privacy.accounting import Accountant

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    acc = Accountant(epsilon=2.0, delta=1e-5)
    est = PrivatePCA(
        n_components=1, delta=1e-6, data_norm=1.0, center=False,
        mechanism="analyze_gauss",
        max_rows_per_person=3 if where == "estimator" else None,
    )  # fmt: skip
    grid = {"max_rows_per_person": [None, 3]} if where == "grid" else {}
    grid["n_components"] = [1, 2]
    with pytest.raises(ValueError, match="does not pass groups"):
        budgeted_grid_search(est, grid, acc, X, cv=3)
    assert acc.spent == (0.0, 0.0)


def test_one_row_per_person_is_worded_in_the_singular():
    from dppca.decomposition.persons import (
        person_bound,
        person_neighbours,
        unit_of_privacy,
    )

    assert "at most 1 row per person" in person_neighbours(1)
    assert "at most 5 rows per person" in person_neighbours(5)
    assert person_bound(person_neighbours(1)) == 1
    assert unit_of_privacy(person_neighbours(1)) == "per person, at most 1 row"
