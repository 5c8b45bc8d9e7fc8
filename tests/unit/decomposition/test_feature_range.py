"""Issue 43, item 2: ``feature_range`` on ``PrivatePCA``, per-column public
bounds instead of one ``data_norm``: its checks, the bound it implies, the
public midpoint as a centre, rows outside refused or clipped."""

import warnings

import numpy as np
import pytest
import scipy.sparse

from dppca import PrivatePCA
from dppca.decomposition.ranges import (
    RANGE_MARGIN,
    check_feature_range,
    implied_bound,
)
from dppca.privacy.accounting import Accountant

LOWER = np.array([0.0, -2.0, 1.0, -1.0])
UPPER = np.array([4.0, 2.0, 3.0, 0.5])


def box_rows(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return LOWER + (UPPER - LOWER) * rng.beta(2, 2, size=(n, 4))


def fitted(**params):
    options = dict(
        n_components=2,
        epsilon=2.0,
        delta=1e-6,
        feature_range=(LOWER, UPPER),
        random_state=0,
    )
    options.update(params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return PrivatePCA(**options).fit(box_rows())


@pytest.mark.parametrize(
    "params, error, message",
    [
        (
            {"data_norm": 5.0},
            ValueError,
            "data_norm or feature_range, not both",
        ),
        ({"feature_range": (0.0,)}, ValueError, "a pair"),
        ({"feature_range": "0, 1"}, ValueError, "a pair"),
        ({"feature_range": (np.zeros(3), 1.0)}, ValueError, "length"),
        ({"feature_range": (1.0, 1.0)}, ValueError, "lower < upper"),
        ({"feature_range": (0.0, np.inf)}, ValueError, "finite"),
        ({"feature_range": (False, True)}, TypeError, "boolean"),
        (
            {"feature_range": None, "data_norm": 5.0, "center": "midpoint"},
            ValueError,
            "needs|pass feature_range",
        ),
        (
            {"feature_range": None, "data_norm": 5.0, "clip_to_range": True},
            ValueError,
            "pass feature_range",
        ),
        ({"clip_to_range": 1}, TypeError, "clip_to_range"),
    ],
)
def test_misuses_are_refused_before_any_charge(params, error, message):
    ledger = Accountant(10.0, 1e-3)
    with pytest.raises(error, match=message):
        fitted(accountant=ledger, **params)
    assert ledger.spent == (0.0, 0.0) and not ledger.charges


def test_a_row_outside_is_refused_before_any_charge_unless_clipped():
    X = box_rows()
    X[7, 1] = 2.5  # one entry above its range
    ledger = Accountant(10.0, 1e-3)
    est = PrivatePCA(
        2, delta=1e-6, feature_range=(LOWER, UPPER), accountant=ledger
    )
    with pytest.raises(ValueError, match="outside feature_range") as error:
        est.fit(X)
    assert "2.5" not in str(error.value)  # names no value
    assert not ledger.charges
    clipped = est.set_params(clip_to_range=True, random_state=0).fit(X)
    assert "clipped to it" in clipped.privacy_releases_[-1].row_bound
    assert len(ledger.charges) == 1


def test_the_implied_bounds():
    half = np.linalg.norm((UPPER - LOWER) / 2)
    corner = np.linalg.norm(np.maximum(np.abs(LOWER), np.abs(UPPER)))
    margin = 1 + RANGE_MARGIN
    mid = fitted(center="midpoint")
    np.testing.assert_allclose(mid.mean_, (LOWER + UPPER) / 2)
    assert mid.data_norm_ == mid.row_bound_ == pytest.approx(half * margin)
    assert len(mid.privacy_releases_) == 1  # no budget on a mean
    assert "c public" in mid.privacy_releases_[-1].row_bound
    raw = fitted(center=False)
    assert raw.data_norm_ == pytest.approx(corner * margin)
    np.testing.assert_array_equal(raw.mean_, 0.0)
    c = np.array([1.0, 0.0, 2.0, 0.0])
    public = fitted(center=c)
    far = np.linalg.norm(np.maximum(np.abs(LOWER - c), np.abs(UPPER - c)))
    assert public.data_norm_ == pytest.approx(far * margin)
    private = fitted(center=True)
    assert private.data_norm_ == pytest.approx(corner * margin)
    assert "private mean" in private.privacy_releases_[0].label
    # the bound is attained at a corner and is the smallest about the middle
    corners = np.array(
        [[(lo, hi)[b >> j & 1] for j, (lo, hi) in enumerate(zip(LOWER, UPPER))]
         for b in range(16)]
    )  # fmt: skip
    mid_norms = np.linalg.norm(corners - mid.mean_, axis=1)
    assert mid_norms.max() == pytest.approx(half)
    assert mid_norms.max() <= mid.data_norm_
    assert half <= far and half <= corner
    # plan() shows the bound the fit uses
    planner = PrivatePCA(
        2, delta=1e-6, feature_range=(LOWER, UPPER), center="midpoint"
    )
    assert planner.plan(400, 4).best.row_bound == mid.row_bound_


def test_check_feature_range_broadcasts_scalars():
    lower, upper = check_feature_range((0.0, UPPER), 4)
    np.testing.assert_array_equal(lower, np.zeros(4))
    assert implied_bound(lower, upper) >= np.linalg.norm(UPPER)


def test_sparse_input_needs_ranges_that_hold_zero():
    X = scipy.sparse.csr_matrix(box_rows() * (box_rows(seed=1) > 1.0))
    with pytest.raises(ValueError, match="contain 0"):
        fitted(feature_range=(LOWER, UPPER)).fit(X)
    lower = np.minimum(LOWER, 0.0)
    est = fitted(feature_range=(lower, UPPER), center="midpoint")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dense = est.fit(X.toarray()).components_
        sparse = est.fit(X).components_
    np.testing.assert_allclose(dense, sparse, atol=1e-9)


def test_an_entry_stored_twice_is_checked_as_scipy_reads_it():
    # red team 15: two stored 0.9's at one cell read as 1.8, outside [-1, 1]
    rng = np.random.default_rng(0)
    base = scipy.sparse.csr_matrix(rng.uniform(-0.5, 0.5, (60, 3)))
    first = base.indptr[1]
    S = scipy.sparse.csr_matrix(
        (
            np.r_[0.9, 0.9, base.data[first:]],
            np.r_[0, 0, base.indices[first:]],
            np.r_[0, 2, base.indptr[2:] - first + 2],
        ),
        shape=base.shape,
    )
    assert S[0, 0] == pytest.approx(1.8)

    def estimator(**params):
        return PrivatePCA(
            2,
            epsilon=2.0,
            delta=1e-6,
            feature_range=(-1.0, 1.0),
            center="midpoint",
            random_state=0,
            **params,
        )

    with pytest.raises(ValueError, match="outside"):
        estimator().fit(S)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clipped = estimator(clip_to_range=True).fit(S).components_
        dense = np.clip(S.toarray(), -1.0, 1.0)
        expected = estimator().fit(dense).components_
    np.testing.assert_allclose(clipped, expected, atol=1e-9)
    assert S.data[0] == 0.9  # the caller's matrix is left as it was


def test_a_box_fit_is_the_fit_with_the_implied_public_bound_and_centre():
    box = fitted(center="midpoint")
    same = fitted(
        feature_range=None,
        data_norm=box.data_norm_,
        center=(LOWER + UPPER) / 2,
    )
    np.testing.assert_array_equal(box.components_, same.components_)


def test_in_a_pipeline_and_a_budgeted_grid_search():
    from sklearn.pipeline import make_pipeline

    from dppca import budgeted_grid_search

    X = box_rows(600)
    ledger = Accountant(4.0, 1e-5)
    step = PrivatePCA(
        delta=1e-6, feature_range=(LOWER, UPPER), center="midpoint"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            make_pipeline(step),
            {"privatepca__n_components": [1, 2]},
            ledger,
            X,
            cv=2,
            random_state=0,
        )
    best = search.best_estimator_[-1]
    np.testing.assert_allclose(best.mean_, (LOWER + UPPER) / 2)
    assert "feature_range" in best.privacy_releases_[-1].row_bound
    assert ledger.spent[0] <= 4.0 * (1 + 1e-9)
    assert len(ledger.charges) == search.n_budgeted_fits_ + 1
