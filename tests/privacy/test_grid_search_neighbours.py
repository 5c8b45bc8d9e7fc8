"""What one row could change in ``budgeted_grid_search`` beyond its noise
(red team of the budgeted search).

B1: the held-out scoring after the fold fits ran under the caller's numpy
error state and took raw norms, so a row [1e200, 0, …] (or [1e-200, 0, …])
made the search raise after two charges, or warn, on that data set only.
B2: an explicit split could repeat a row on its training side (one person
filling 150 of the rows a fit was charged for as replace-one), overlap its
test side, or come from a label-reading generator. Also: no exception after
a charge depends on the rows, none carries raw held-out scores in its
frames, and the non-private choice warns before the search runs.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.pipeline import make_pipeline

from dppca import (
    PrivacyWarning,
    PrivatePCA,
    model_selection,
    model_selection_scoring,
)
from dppca.model_selection import budgeted_grid_search, row_scores
from dppca.privacy.accounting import Accountant


def rows(n=60, d=5, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X / (1.5 * np.linalg.norm(X, axis=1, keepdims=True))


def search(X, ledger, **options):
    estimator = PrivatePCA(
        2, epsilon=1.0, delta=1e-6, data_norm=1.0, center=False
    )
    return budgeted_grid_search(
        estimator, {"n_components": [1, 2]}, ledger, X, cv=2, **options
    )


def outcome(X, state):
    """What an observer sees of a search under the caller's ``state``: an
    exception (if any), the charges, the RuntimeWarnings."""
    ledger = Accountant(3.0, 1e-5)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            with np.errstate(**state):
                search(X, ledger, random_state=0)
            raised = None
        except Exception as error:  # what the red team saw
            raised = type(error).__name__
    loud = [str(w.message) for w in seen if w.category is RuntimeWarning]
    return raised, len(ledger.charges), loud


@pytest.mark.parametrize("entry", [1e200, 1e-200, 1e-310])
@pytest.mark.parametrize(
    "state",
    [
        {},
        {"all": "warn"},
        {"over": "raise"},
        {"under": "raise"},
        {"all": "raise"},
    ],
)
def test_the_callers_float_state_does_not_reach_the_search(entry, state):
    D = rows()
    D_prime = D.copy()
    D_prime[-1] = [entry, 0.0, 0.0, 0.0, 0.0]
    assert outcome(D, state) == outcome(D_prime, state) == (None, 6, [])


def _fitted_pca():
    X = rows(200, 5, 1) * np.array([1.0, 0.2, 0.2, 0.2, 0.2])
    pca = PrivatePCA(
        1, epsilon=50.0, delta=1e-6, data_norm=1.0, center=False,
        random_state=0,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pca.fit(X)


def test_the_score_clips_a_huge_or_tiny_row_like_the_fit_without_warning():
    pca = _fitted_pca()
    assert abs(pca.components_[0, 0]) > 0.9  # the top axis is near e₁
    long = np.array([[1e200, 0, 0, 0, 0], [-1e300, 0, 0, 0, 0]])
    unit = np.array([[1.0, 0, 0, 0, 0], [-1.0, 0, 0, 0, 0]])
    tiny = np.array([[1e-200, 0, 0, 0, 0], [5e-324, 0, 0, 0, 0]])
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        # a row of any length is clipped to the bound along its direction,
        # as the fit clips it (not zeroed because its norm overflowed)
        scores = row_scores(pca, long, 1.0)
        assert scores == pytest.approx(row_scores(pca, unit, 1.0), rel=1e-9)
        assert np.all(scores > 0.8)
        assert row_scores(pca, tiny, 1.0) == pytest.approx([0.0, 0.0])
        # a row with NaN or Inf scores 0, quietly
        bad = np.array([[np.nan, 0, 0, 0, 0], [np.inf, 1, 0, 0, 0]])
        assert row_scores(pca, bad, 1.0).tolist() == [0.0, 0.0]


def _frames(error):
    """The package's frames in the traceback of ``error``."""
    package = str(Path(model_selection.__file__).parent)
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(package):
            yield tb.tb_frame
        tb = tb.tb_next


def _holds(value, target) -> bool:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value) == target
    if isinstance(value, (list, tuple)):
        return any(_holds(item, target) for item in value)
    if isinstance(value, np.ndarray) and value.dtype.kind in "iu":
        return bool(np.any(value == target))
    return False


def test_no_exception_after_a_charge_carries_a_held_out_score(monkeypatch):
    X = rows()
    # 1. the scoring fails on its third fold (it should never fail): the
    # error is a fresh RuntimeError, without the scoring's frames or context
    calls, real = [], model_selection_scoring.row_scores

    def failing(pca, Z, scale, block=4096):
        calls.append(1)
        if len(calls) == 3:
            raise ValueError("boom")
        return np.full(Z.shape[0], 0.123456)

    monkeypatch.setattr(model_selection_scoring, "row_scores", failing)
    one_fold = int(np.floor(0.123456 * model_selection.SCORE_LEVELS)) * 30
    ledger = Accountant(3.0, 1e-5)
    with pytest.raises(RuntimeError, match="scoring the held-out rows") as info:
        search(X, ledger, random_state=0)
    error = info.value
    assert error.__context__ is None and error.__cause__ is None
    assert len(ledger.charges) == 3  # the fits that ran were charged
    for frame in _frames(error):
        for name, value in frame.f_locals.items():
            for target in (one_fold, 2 * one_fold):
                assert not _holds(value, target), (frame.f_code.co_name, name)
    monkeypatch.setattr(model_selection_scoring, "row_scores", real)
    # 2. a fold's fit fails after a candidate was scored: the search's
    # frames no longer hold the utilities when the error reaches the caller
    seen, scored = [], model_selection.held_out_utility

    def spy(model, Z, scale):
        seen.append(scored(model, Z, scale))
        return seen[-1]

    class FailingPCA(PrivatePCA):
        fits = []

        def fit(self, X, y=None):
            FailingPCA.fits.append(1)
            if len(FailingPCA.fits) == 3:
                raise ArithmeticError("a fold's fit failed")
            return super().fit(X, y)

    monkeypatch.setattr(model_selection, "held_out_utility", spy)
    estimator = FailingPCA(
        2, epsilon=1.0, delta=1e-6, data_norm=1.0, center=False
    )
    with pytest.raises(ArithmeticError) as info:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            budgeted_grid_search(
                estimator, {"n_components": [1, 2]}, Accountant(3.0, 1e-5),
                X, cv=2, random_state=0,
            )  # fmt: skip
    total = sum(seen)
    assert len(seen) == 2 and total > 0
    frames = list(_frames(info.value))
    assert "_fold_utilities" in [f.f_code.co_name for f in frames]
    for frame in frames:
        for name, value in frame.f_locals.items():
            assert not _holds(value, total), (frame.f_code.co_name, name)


class CountingPCA(PrivatePCA):
    fits: list = []

    def fit(self, X, y=None):
        CountingPCA.fits.append(X.shape[0])
        return super().fit(X, y)


def refused(X, cv, match, **options):
    CountingPCA.fits.clear()
    ledger = Accountant(5.0, 1e-5)
    estimator = CountingPCA(2, data_norm=1.0, delta=1e-6, **options)
    with pytest.raises(ValueError, match=match):
        budgeted_grid_search(
            estimator, {"n_components": [1, 2]}, ledger, X, cv=cv
        )
    assert CountingPCA.fits == [] and ledger.charges == ()


def test_explicit_splits_are_checked_before_any_fit():
    X = rows(120)
    test = np.arange(100, 120)
    # one person in 150 of the training rows a fit is charged for
    crowded = np.r_[np.zeros(150, dtype=int), np.arange(1, 100)]
    refused(X, [(crowded, test)], "repeats a row on its training side")
    refused(X, [(np.arange(100), np.r_[test, test])], "on its test side")
    refused(X, [(np.arange(100), np.arange(90, 120))], "both its training")
    refused(X, [(np.arange(100), np.arange(100, 121))], "outside the 120")
    refused(X, [(np.arange(-1, 100), test)], "outside the 120")
    refused(X, [], "no split")
    # a generator of splits (here one that reads the labels) is refused;
    # a list is taken on the caller's word that it was made without data
    y = (X[:, 0] > 0).astype(int)
    refused(X, StratifiedKFold(2).split(X, y), "iterator")
    refused(X, iter([(np.arange(100), test)]), "iterator")
    refused(X, StratifiedKFold(2), "depend on n alone")
    CountingPCA.fits.clear()
    ledger = Accountant(5.0, 1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = budgeted_grid_search(
            CountingPCA(2, data_norm=1.0, delta=1e-6),
            {"n_components": [1, 2]},
            ledger,
            X,
            cv=list(KFold(3, shuffle=True, random_state=0).split(X)),
            random_state=0,
        )
    assert CountingPCA.fits == [80] * 6 + [120]
    assert result.n_splits_ == 3


def test_rows_a_later_fold_would_refuse_are_refused_before_any_fit():
    X = rows()
    bad = X.copy()
    bad[-1, 0] = np.nan
    refused(bad, 2, "NaN")
    bad[-1, 0] = np.inf
    refused(bad, 2, "infinity|Inf")
    # clip=False: a long row in the last fold would be refused by its fit
    # after the earlier folds were charged
    refused(X, 2, "clip=False", clip=False)


def test_the_non_private_choice_warns_before_a_search_that_fails():
    X = rows(90)
    y = np.zeros(90, dtype=int)  # one class: the classifier's fit fails
    pipe = make_pipeline(
        PrivatePCA(2, data_norm=1.0, delta=1e-6), LogisticRegression()
    )
    ledger = Accountant(5.0, 1e-5)
    with pytest.warns(PrivacyWarning, match="none of this") as seen:
        with pytest.raises(ValueError, match="class"):
            budgeted_grid_search(
                pipe,
                {"logisticregression__C": [1.0]},
                ledger,
                X,
                y,
                cv=3,
                selection="non_private",
            )
    assert len(ledger.charges) >= 1  # it failed after a private fit
    privacy = [w for w in seen if w.category is PrivacyWarning]
    assert privacy[0].filename == __file__  # names the caller's line


def test_the_search_does_not_change_the_callers_float_state():
    before = np.geterr()
    with np.errstate(over="raise", under="warn"):
        inside = np.geterr()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            search(rows(), Accountant(3.0, 1e-5), random_state=0)
        assert np.geterr() == inside
    assert np.geterr() == before
    assert sys.modules["dppca.model_selection"] is model_selection
