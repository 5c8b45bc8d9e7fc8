"""The privacy ledger cannot be escaped (issue 26.2).

An :class:`dppca.privacy.accounting.Accountant` is one ledger in one process: its
records change only through ``charge``; unpickled in the same process it is
the same ledger; unpickled (or forked) into another process it refuses to
charge (``LedgerCopyError``, a ``BudgetExceededError``) before any noise. So
scikit-learn's parallel tools under a budget stop at it: their workers cannot
release anything the caller's ledger does not see.
"""

from __future__ import annotations

import copy
import multiprocessing
import pickle
import warnings

import joblib
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline

from dppca import PrivatePCA
from dppca.privacy.accounting import Accountant, BudgetExceededError
from dppca.privacy.private_bounds import quantile_guarantee


def ledger_copy_error():
    from dppca.privacy.accounting import LedgerCopyError

    return LedgerCopyError


def record(epsilon=0.25, label="test release"):
    """A pure-ε guarantee record, to charge by hand."""
    return quantile_guarantee(epsilon, label)


def task(n=120, d=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    return X, y


def private_pca(acct, **params):
    """A pure-ε fit of ε = 1 (Laplace; private mean): basic composition,
    so a budget of 2.5 admits exactly two fits."""
    defaults = dict(
        epsilon=1.0,
        mechanism="laplace",
        data_norm=3.0,
        accountant=acct,
        random_state=0,
    )
    defaults.update(params)
    return PrivatePCA(2, **defaults)


def captured_variance(estimator, X, y=None):
    """A scorer: the variance the released axes capture (post-processing)."""
    return float(np.sum(estimator.transform(X) ** 2))


# -- the records are immutable from outside -----------------------------------


def test_records_are_tuples_and_cannot_be_cleared():
    """`acct.releases.clear()` reset a ledger by plain list mutation."""
    acct = Accountant(1.0)
    acct.charge([record()], label="one")
    assert isinstance(acct.releases, tuple)
    assert isinstance(acct.charges, tuple)
    with pytest.raises(AttributeError):
        acct.releases.clear()
    with pytest.raises(AttributeError):
        acct.charges.clear()
    assert len(acct.releases) == 1 and acct.charges == ("one",)
    assert acct.spent == (0.25, 0.0)


def test_records_cannot_be_reassigned():
    """Assigning an empty tuple to `releases` would reset the ledger just as
    well as `clear()`."""
    acct = Accountant(1.0)
    acct.charge([record()])
    for name in ("releases", "charges"):
        with pytest.raises(AttributeError):
            setattr(acct, name, ())
    assert acct.spent == (0.25, 0.0)


# -- copies in this process are the same ledger -------------------------------


def test_pickled_ledger_in_the_same_process_is_the_same_ledger():
    """A pickle round trip (or copy, deepcopy, clone of an estimator) in the
    owning process must not fork the ledger: charges through the copy show in
    the original and the budget is shared."""
    acct = Accountant(1.0)
    copies = [
        pickle.loads(pickle.dumps(acct)),
        copy.copy(acct),
        copy.deepcopy(acct),
        clone(private_pca(acct)).accountant,
        pickle.loads(pickle.dumps(private_pca(acct))).accountant,
    ]
    for i, other in enumerate(copies):
        other.charge([record(0.125)], label=f"copy {i}")
    assert acct.charges == tuple(f"copy {i}" for i in range(len(copies)))
    assert acct.spent[0] == pytest.approx(0.625)
    with pytest.raises(BudgetExceededError):
        copies[0].charge([record(0.5)])
    assert acct.spent[0] == pytest.approx(0.625)


def test_pickled_estimator_fit_charges_the_original_ledger():
    """A fitted estimator pickled and refitted in the owning process charges
    the caller's ledger, not a detached copy."""
    acct = Accountant(2.5)
    X, _ = task()
    estimator = pickle.loads(pickle.dumps(private_pca(acct)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        estimator.fit(X)
    assert len(acct.charges) == 1 and acct.spent[0] == pytest.approx(1.0)


# -- copies in other processes refuse to charge -------------------------------


def charge_unpickled(blob):
    """In a worker: unpickle a ledger and charge it."""
    acct = pickle.loads(blob)
    try:
        acct.charge([record()], label="worker")
    except BudgetExceededError as exc:
        return type(exc).__name__, len(acct.releases)
    return "charged", len(acct.releases)


def fit_unpickled(blob, X):
    """In a worker: unpickle an estimator and fit it; report whether its
    generator moved (noise drawn) before the refusal."""
    estimator = pickle.loads(blob)
    rng = np.random.default_rng(123)
    before = rng.bit_generator.state
    estimator.set_params(random_state=rng)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator.fit(X)
    except BudgetExceededError as exc:
        moved = rng.bit_generator.state != before
        return type(exc).__name__, moved, hasattr(estimator, "components_")
    return "released", True, True


def test_ledger_copy_error_is_a_budget_error():
    """Code that handles BudgetExceededError (sklearn's error_score, user
    code) must also stop at a refused copy."""
    assert issubclass(ledger_copy_error(), BudgetExceededError)


def test_ledger_unpickled_in_a_loky_worker_refuses_to_charge():
    """joblib's loky workers unpickle their own ledger: a charge there would
    never reach the caller's, so it must be refused."""
    acct = Accountant(10.0)
    blob = pickle.dumps(acct)
    results = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(charge_unpickled)(blob) for _ in range(2)
    )
    assert results == [(ledger_copy_error().__name__, 0)] * 2
    assert acct.spent == (0.0, 0.0) and acct.charges == ()


@pytest.mark.parametrize("method", ["spawn"])
def test_ledger_unpickled_by_multiprocessing_refuses_to_charge(method):
    """multiprocessing workers (spawn) get a pickled copy."""
    acct = Accountant(10.0)
    context = multiprocessing.get_context(method)
    with context.Pool(1) as pool:
        result = pool.apply(charge_unpickled, (pickle.dumps(acct),))
    assert result == (ledger_copy_error().__name__, 0)
    assert acct.spent == (0.0, 0.0)


def charge_inherited(queue):
    """In a forked child: charge the ledger inherited from the parent, with
    no pickling at all."""
    try:
        INHERITED.charge([record()], label="forked child")
    except BudgetExceededError as exc:
        queue.put((type(exc).__name__, len(INHERITED.releases)))
    else:
        queue.put(("charged", len(INHERITED.releases)))


INHERITED = None


def test_ledger_inherited_by_a_forked_child_refuses_to_charge():
    """A fork copies the ledger's memory without unpickling it: the child's
    charge is still invisible to the parent, so it must be refused."""
    global INHERITED
    INHERITED = Accountant(10.0)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=charge_inherited, args=(queue,))
    child.start()
    result = queue.get(timeout=60)
    child.join(60)
    assert result == (ledger_copy_error().__name__, 0)
    assert INHERITED.spent == (0.0, 0.0)


def test_estimator_fit_in_a_worker_refuses_before_any_noise():
    """A fit in a worker with a copied ledger is refused before its
    generator is touched and leaves no fitted attributes."""
    acct = Accountant(10.0)
    X, _ = task()
    blob = pickle.dumps(private_pca(acct))
    [result] = joblib.Parallel(n_jobs=2, backend="loky")(
        [joblib.delayed(fit_unpickled)(blob, X)]
    )
    assert result == (ledger_copy_error().__name__, False, False)
    assert acct.spent == (0.0, 0.0)


# -- scikit-learn's parallel tools under a budget ----------------------------


def assert_no_worker_released(scores):
    scores = np.asarray(scores, dtype=float)
    assert np.all(np.isnan(scores)), f"a worker released: scores {scores}"


def test_cross_val_score_pipeline_n_jobs_2_is_refused():
    """Issue 26.2: five fits of ε = 1 under a budget of 1.5 ran in workers
    and the caller's ledger read (0, 0)."""
    acct = Accountant(1.5)
    X, y = task()
    pipeline = Pipeline(
        [("pca", private_pca(acct)), ("clf", LogisticRegression())]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scores = cross_val_score(pipeline, X, y, cv=5, n_jobs=2)
        except (ValueError, BudgetExceededError):
            pass  # every fit refused: sklearn raises
        else:
            assert_no_worker_released(scores)
    assert acct.spent == (0.0, 0.0) and acct.charges == ()


def test_cross_val_score_with_a_scorer_n_jobs_2_is_refused():
    """The same attack without a pipeline: PrivatePCA scored directly."""
    acct = Accountant(1.5)
    X, _ = task()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            scores = cross_val_score(
                private_pca(acct),
                X,
                cv=5,
                n_jobs=2,
                scoring=captured_variance,
            )
        except (ValueError, BudgetExceededError):
            pass
        else:
            assert_no_worker_released(scores)
    assert acct.spent == (0.0, 0.0) and acct.charges == ()


def test_grid_search_n_jobs_2_is_refused():
    """Issue 26.2: GridSearchCV(n_jobs=2) ran 16 fits and recorded one (the
    refit, in the caller's process)."""
    acct = Accountant(1.5)
    X, _ = task()
    search = GridSearchCV(
        private_pca(acct),
        {"epsilon": [0.5, 1.0], "center": [True, False]},
        cv=4,
        n_jobs=2,
        scoring=captured_variance,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            search.fit(X)
        except (ValueError, BudgetExceededError):
            pass
        else:
            assert_no_worker_released(search.cv_results_["mean_test_score"])
    assert acct.spent == (0.0, 0.0) and acct.charges == ()


@pytest.mark.parametrize("error_score", [np.nan, "raise"])
def test_grid_search_n_jobs_1_charges_the_ledger_and_stops(error_score):
    """In the caller's process every clone charges the one ledger: two fits
    of ε = 1 fit a budget of 2.5, the rest are refused (NaN scores, or the
    error with error_score="raise"; the refit then raises), never beyond."""
    acct = Accountant(2.5)
    X, _ = task()
    search = GridSearchCV(
        private_pca(acct),
        {"n_components": [1, 2]},
        cv=3,
        n_jobs=1,
        scoring=captured_variance,
        error_score=error_score,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(BudgetExceededError):
            search.fit(X)
    assert len(acct.charges) == 2
    assert acct.spent[0] == pytest.approx(2.0)
    assert acct.spent[0] <= acct.epsilon


def test_grid_search_threads_share_the_ledger_within_budget():
    """Threads of the owning process charge the same ledger concurrently:
    the total never exceeds the budget (the check and the update are one
    step)."""
    acct = Accountant(2.5)
    X, _ = task()
    search = GridSearchCV(
        private_pca(acct),
        {"n_components": [1, 2], "center": [True, False]},
        cv=3,
        n_jobs=4,
        scoring=captured_variance,
        refit=False,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with joblib.parallel_backend("threading", n_jobs=4):
            search.fit(X)
    scores = search.cv_results_["split0_test_score"]
    assert len(acct.charges) == 2
    assert acct.spent[0] <= acct.epsilon
    finite = sum(
        np.isfinite(search.cv_results_[f"split{i}_test_score"]).sum()
        for i in range(3)
    )
    assert finite == 2, scores
