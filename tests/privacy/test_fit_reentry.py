"""One estimator object, fitted from two threads at once (issue 38, item 3).

A fit used to keep its ``centered_norm="auto"`` decision on the estimator
(``_auto_releases_bound``) and read it back in later steps, so a second fit
of the same object from another thread could change it in between: the
first fit then released a centred-norm quantile and its count that its
charge did not hold. Now a fit's plan is a value handed from step to step,
nothing is written on the estimator before the fit's end, and a second
concurrent fit of the same object is refused before it charges or draws.

The interleavings here are forced with events, not with sleeps: each thread
is held at a named step of its fit until the test lets it go, so every run
takes the same path. The waits have a timeout only so that a regression
fails instead of hanging.
"""

from __future__ import annotations

import pickle
import threading
import warnings

import numpy as np
import pytest
from sklearn.base import clone

import dppca.decomposition.pca as estimator_module
import dppca.decomposition.plan as plan_module
import dppca.scaler as scaler_module
from dppca import PrivatePCA, PrivateStandardScaler
from dppca.fit_guard import being_fitted
from dppca.privacy.accounting import Accountant

#: Seconds a test waits for a thread to reach a step: a failure guard only
#: (on this machine every step is reached in well under a second).
PATIENCE = 60.0

#: Laplace at ε = 10 with d = 3: ``centered_norm="auto"`` releases a bound
#: for 100 rows and not for 2000 (the forecast's decision depends on n).
PARAMS = dict(epsilon=10.0, mechanism="laplace", data_norm=1.0)

#: The same with a released ``data_norm``: ``centered_norm="auto"`` then
#: releases a bound for 100 rows and not for 2000 either.
PRIVATE_NORM = dict(PARAMS, data_norm="private", bound_range=(0.5, 2.0))


def rows(n, d=3, seed=0):
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1).max()


class Holds:
    """Hold a named thread at the first call of a patched function until
    the test lets it go. ``stopped(who)`` is set when the thread is held
    or has finished, whichever comes first."""

    def __init__(self):
        self._lock = threading.Lock()
        self._events = {}
        self._seen = set()

    def event(self, key):
        with self._lock:
            return self._events.setdefault(key, threading.Event())

    def stopped(self, who):
        return self.event((who, "stopped"))

    def patch(self, monkeypatch, module, name, who):
        original = getattr(module, name)

        def held(*args, **kwargs):
            me = threading.current_thread().name
            if me == who and (who, name) not in self._seen:
                self._seen.add((who, name))
                self.event((who, name, "reached")).set()
                self.stopped(who).set()
                assert self.event((who, name, "go")).wait(PATIENCE)
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, held)

    def wait(self, who, name=None):
        key = (
            self.stopped(who)
            if name is None
            else self.event((who, name, "reached"))
        )
        assert key.wait(PATIENCE), f"{who} never reached {name}"
        self.stopped(who).clear()

    def go(self, who, name):
        self.event((who, name, "go")).set()


def start_fit(est, X, name, outcome, holds):
    """Fit ``est`` on ``X`` in a thread named ``name``; its result or
    exception goes to ``outcome[name]``."""

    def work():
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                outcome[name] = est.fit(X)
        except BaseException as error:  # reported by the test
            outcome[name] = error
        finally:
            holds.stopped(name).set()

    thread = threading.Thread(target=work, name=name, daemon=True)
    thread.start()
    return thread


def charges_by_thread(ledger):
    """Record, per thread name, the records each charge of ``ledger``
    held (the ledger itself is left as it is)."""
    seen = {}
    charge = ledger.charge

    def recording(records, label="release"):
        out = charge(records, label=label)
        name = threading.current_thread().name
        seen.setdefault(name, []).extend(records)
        return out

    ledger.charge = recording
    return seen


def summary(records):
    """What a record charges, in an order-free form: the mechanism's record
    is kept with its row bound filled in, so compare label, kind, ε, δ."""
    return sorted(
        (r.label, r.kind, round(r.epsilon, 12), round(r.delta, 15))
        for r in records
    )


def uncharged(released, charged):
    """The releases that no charged record pays for (a multiset
    difference of their summaries)."""
    left = summary(charged)
    out = []
    for item in summary(released):
        if item in left:
            left.remove(item)
        else:
            out.append(item)
    return out


def test_a_second_concurrent_fit_is_refused_and_the_first_releases_its_charges(
    monkeypatch,
):
    """The interleaving that released an uncharged bound: A (2000 rows,
    whose plan releases ``data_norm`` but no centred bound) is held after
    its charge, before it reads the rows; B (100 rows, whose plan releases
    both) fits the same object up to the same step; then A goes on. B must
    be refused at once, charging nothing, and A must release exactly what
    it charged (the old code released a centred-norm quantile and its
    count here, on the ε budgeted for bounds, that A's charge never
    held). A is held once more, before its mechanism, so that it ends
    last and the fitted attributes are its own."""
    ledger = Accountant(100.0)
    seen = charges_by_thread(ledger)
    est = PrivatePCA(1, accountant=ledger, random_state=0, **PRIVATE_NORM)
    holds = Holds()
    for who in ("A", "B"):
        holds.patch(monkeypatch, estimator_module, "_centred_rows", who)
    holds.patch(monkeypatch, estimator_module, "_run", "A")
    outcome = {}

    a = start_fit(est, rows(2000), "A", outcome, holds)
    holds.wait("A", "_centred_rows")
    assert being_fitted(est)
    b = start_fit(est, rows(100, seed=1), "B", outcome, holds)
    holds.wait("B")  # held before its rows are centred, or refused
    holds.go("A", "_centred_rows")
    holds.wait("A", "_run")  # A has centred its rows
    holds.go("B", "_centred_rows")
    b.join(PATIENCE)
    holds.go("A", "_run")  # A ends last: the fitted attributes are A's
    a.join(PATIENCE)
    assert not a.is_alive() and not b.is_alive()
    assert not being_fitted(est)

    assert outcome["A"] is est, outcome["A"]
    assert uncharged(est.privacy_releases_, seen["A"]) == []
    assert summary(est.privacy_releases_) == summary(seen["A"])
    assert isinstance(outcome["B"], RuntimeError), outcome["B"]
    assert "another thread" in str(outcome["B"])
    assert "clone" in str(outcome["B"])
    assert "B" not in seen  # refused before any charge
    assert ledger.charges == ("private bounds", "PrivatePCA")
    assert summary(ledger.releases) == summary(est.privacy_releases_)


def test_the_refusal_comes_before_any_charge_or_draw(monkeypatch):
    """The second fit is refused before it reads its parameters' plan,
    charges the ledger or touches the caller's generator."""
    ledger = Accountant(100.0)
    seen = charges_by_thread(ledger)
    rng = np.random.default_rng(5)
    est = PrivatePCA(1, accountant=ledger, random_state=rng, **PARAMS)
    holds = Holds()
    holds.patch(monkeypatch, estimator_module, "_centred_rows", "A")
    outcome = {}
    a = start_fit(est, rows(100), "A", outcome, holds)
    holds.wait("A", "_centred_rows")
    state = rng.bit_generator.state
    planned = []
    monkeypatch.setattr(
        estimator_module,
        "release_plan",
        lambda *args: planned.append(args) or pytest.fail("planned"),
    )
    with pytest.raises(RuntimeError, match="another thread.*fit a clone"):
        est.fit(rows(2000, seed=1))
    assert planned == [] and list(seen) == ["A"]
    assert rng.bit_generator.state == state
    monkeypatch.undo()  # the holds too: A goes on unpatched
    holds.go("A", "_centred_rows")
    a.join(PATIENCE)
    assert outcome["A"] is est
    assert summary(est.privacy_releases_) == summary(ledger.releases)


def test_a_fit_after_a_refused_concurrent_fit_works(monkeypatch):
    """The refusal leaves nothing behind: once the first fit is over, the
    same object fits again (in any thread), and releases its charge."""
    ledger = Accountant(100.0)
    seen = charges_by_thread(ledger)
    est = PrivatePCA(1, accountant=ledger, random_state=0, **PARAMS)
    holds = Holds()
    holds.patch(monkeypatch, estimator_module, "_run", "A")
    outcome = {}
    a = start_fit(est, rows(2000), "A", outcome, holds)
    holds.wait("A", "_run")
    with pytest.raises(RuntimeError, match="another thread"):
        est.fit(rows(100, seed=1))
    holds.go("A", "_run")
    a.join(PATIENCE)
    assert outcome["A"] is est
    first = summary(est.privacy_releases_)
    assert first == summary(seen["A"])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(rows(100, seed=1))  # this thread, after A
    here = threading.current_thread().name
    assert summary(est.privacy_releases_) == summary(seen[here])
    assert any("centred norm" in r.label for r in est.privacy_releases_)
    b = start_fit(est, rows(2000, seed=2), "B", outcome, holds)
    b.join(PATIENCE)
    assert outcome["B"] is est
    assert summary(est.privacy_releases_) == summary(seen["B"]) == first
    assert ledger.charges == ("PrivatePCA",) * 3


def test_a_failed_fit_frees_the_estimator():
    """A fit that raises (here on a missing data_norm) is over: the next
    fit of the object is not refused as concurrent."""
    est = PrivatePCA(1, epsilon=10.0, mechanism="laplace")
    with pytest.raises(ValueError, match="data_norm is required"):
        est.fit(rows(100))
    est.set_params(data_norm=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(rows(100))
    assert est.components_.shape == (1, 3)


@pytest.mark.parametrize(
    "where",
    [(plan_module, "bound_parts"), (estimator_module, "_centred_rows")]
    + [(estimator_module, "_run"), (estimator_module, "_store")],
)
def test_nothing_is_written_on_the_estimator_during_a_fit(monkeypatch, where):
    """Mid-fit, the estimator holds its parameters and what scikit-learn's
    input check sets (``n_features_in_``), nothing else: no plan, no
    decision, no fitted attribute read back by a later step."""
    module, name = where
    est = PrivatePCA(1, random_state=0, **PARAMS)
    allowed = set(est.get_params(deep=False)) | {"n_features_in_"}
    original = getattr(module, name)
    snapshots = []

    def look(*args, **kwargs):
        snapshots.append(set(vars(est)))
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, look)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(rows(100))
    assert snapshots, f"{name} was not called"
    for keys in snapshots:
        assert "_auto_releases_bound" not in keys
        assert keys <= allowed, sorted(keys - allowed)
    assert "_auto_releases_bound" not in vars(est)
    assert any("centred norm" in r.label for r in est.privacy_releases_)


def test_a_refit_keeps_the_old_attributes_until_its_end(monkeypatch):
    """A refit replaces the fitted attributes all at its end: mid-fit the
    estimator still shows the earlier fit, whole."""
    est = PrivatePCA(1, random_state=0, **PARAMS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(rows(2000))
    before = {k: v for k, v in vars(est).items() if k.endswith("_")}
    original = estimator_module._run
    seen = []

    def look(*args, **kwargs):
        seen.append({k: v for k, v in vars(est).items() if k.endswith("_")})
        return original(*args, **kwargs)

    monkeypatch.setattr(estimator_module, "_run", look)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(rows(100, seed=1))
    assert len(seen) == 1 and seen[0].keys() == before.keys()
    for key, value in before.items():
        if key != "n_features_in_":
            assert seen[0][key] is value, key
    assert est.privacy_releases_ != before["privacy_releases_"]


def test_a_clone_fits_while_the_original_is_being_fitted(monkeypatch):
    """The way out the refusal names: a clone is another object, and fits
    at once, charging the same ledger."""
    ledger = Accountant(100.0)
    seen = charges_by_thread(ledger)
    est = PrivatePCA(1, accountant=ledger, random_state=0, **PARAMS)
    holds = Holds()
    holds.patch(monkeypatch, estimator_module, "_run", "A")
    outcome = {}
    a = start_fit(est, rows(2000), "A", outcome, holds)
    holds.wait("A", "_run")
    other = clone(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other.fit(rows(100, seed=1))
    holds.go("A", "_run")
    a.join(PATIENCE)
    here = threading.current_thread().name
    assert summary(other.privacy_releases_) == summary(seen[here])
    assert summary(est.privacy_releases_) == summary(seen["A"])


def test_clone_pickle_and_get_params_are_unaffected():
    """The guard keeps nothing on the instance: clone, get_params and
    pickle see the parameters alone, and a copy fits."""
    est = PrivatePCA(1, **PARAMS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(rows(100))
    assert set(vars(clone(est))) == set(est.get_params(deep=False))
    copy = pickle.loads(pickle.dumps(est))
    assert np.array_equal(copy.components_, est.components_)
    assert clone(copy).get_params() == clone(est).get_params()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        copy.fit(rows(100, seed=1))
        pickle.loads(pickle.dumps(clone(est))).fit(rows(100, seed=2))


def test_a_subclass_fit_calling_the_parent_fit_is_not_refused():
    """A fit that calls its parent's fit in the same thread is one fit, not
    two concurrent ones."""

    class Logged(PrivatePCA):
        def fit(self, X, y=None):
            self.calls = getattr(self, "calls", 0) + 1
            return super().fit(X, y)

    est = Logged(1, **PARAMS)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(rows(100))
    assert est.calls == 1 and est.components_.shape == (1, 3)


def test_the_scaler_refuses_a_concurrent_fit_of_the_same_object(
    monkeypatch,
):
    """PrivateStandardScaler.fit has the same guard."""
    ledger = Accountant(100.0)
    seen = charges_by_thread(ledger)
    scaler = PrivateStandardScaler(
        bounds=(-1.0, 1.0), epsilon=1.0, accountant=ledger, random_state=0
    )
    holds = Holds()
    holds.patch(monkeypatch, scaler_module, "clipped_sums", "A")
    outcome = {}
    a = start_fit(scaler, rows(100), "A", outcome, holds)
    holds.wait("A", "clipped_sums")
    with pytest.raises(RuntimeError, match="another thread.*fit a clone"):
        scaler.fit(rows(200, seed=1))
    holds.go("A", "clipped_sums")
    a.join(PATIENCE)
    assert outcome["A"] is scaler
    assert list(seen) == ["A"]
    assert summary(scaler.privacy_releases_) == summary(seen["A"])
    scaler.fit(rows(200, seed=1))  # free again


def test_warnings_of_a_fit_name_the_line_that_called_fit():
    """The guard and the float-state wrapper add frames above ``fit``; the
    fit's warnings still point at the caller's line, not at them."""
    est = PrivatePCA(1, delta=0.5, **PARAMS)  # δ unused, and δ ≥ 1/n
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(rows(100))
        est.fit(rows(100))  # a refit without an accountant warns too
    messages = " ".join(str(w.message) for w in caught)
    assert "refitting" in messages and "delta=0.5" in messages
    assert {w.filename for w in caught} == {__file__}


@pytest.mark.skipif(
    "fork" not in __import__("multiprocessing").get_all_start_methods(),
    reason="needs the fork start method",
)
def test_a_forked_child_does_not_inherit_another_threads_fit(monkeypatch):
    """A child forked while thread A fits ``est`` has no thread A: its copy
    of ``est`` is not being fitted there, and fits (without a ledger; a
    ledger refuses to charge in a child anyway)."""
    import multiprocessing

    est = PrivatePCA(1, random_state=0, **PARAMS)
    holds = Holds()
    holds.patch(monkeypatch, estimator_module, "_run", "A")
    outcome = {}
    a = start_fit(est, rows(2000), "A", outcome, holds)
    holds.wait("A", "_run")
    queue = multiprocessing.get_context("fork").SimpleQueue()

    def child():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                est.fit(rows(100, seed=1))
                queue.put("fitted")
            except RuntimeError as error:
                queue.put(str(error))

    process = multiprocessing.get_context("fork").Process(target=child)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork + threads
        process.start()
    process.join(PATIENCE)
    assert queue.get() == "fitted"
    with pytest.raises(RuntimeError, match="another thread"):
        est.fit(rows(100, seed=1))  # here thread A still fits it
    holds.go("A", "_run")
    a.join(PATIENCE)
    assert outcome["A"] is est
