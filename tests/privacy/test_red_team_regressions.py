"""Regressions for the breaks an independent red team found in the rule
"a fit refuses only from its public parameters" (issue 26): each test failed
before its fix."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca.privacy.accounting import (
    Accountant,
    BudgetExceededError,
    LedgerCopyError,
)
from dppca.privacy.guarantees import Release


def unit_rows(n=50, d=4, seed=0):
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


@pytest.mark.parametrize("k", [1, 2])
def test_ppca_concentration_is_refused_from_n_and_epsilon(k):
    """The samplers refuse a Bingham parameter whose eigenvalue spread is
    above MAX_CONCENTRATION; the spread is read from the rows, so the
    estimator refuses n ε / 2 above it first, on both neighbours alike,
    before any charge, with a message naming no row value."""
    outcomes = []
    for X in (np.array([[1.0, 0.0], [1.0, 0.0]]), np.eye(2)):
        acct = Accountant(1e13)
        with pytest.raises(ValueError) as error:
            PrivatePCA(
                1,
                epsilon=1e12,
                data_norm=1.0,
                clip=False,
                center=False,
                mechanism="ppca",
                allow_unproved="ppca",
                accountant=acct,
            ).fit(np.tile(X, (k, 1)))
        outcomes.append((str(error.value), acct.charges))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1] == ()


@pytest.mark.parametrize(
    "mechanism, options",
    [
        ("ppca", {"sampler": "nope"}),
        ("ppca", {"n_sweeps": 0}),
        ("ppca", {"V0": np.eye(3)}),
        ("amin", {"method": "nope"}),
        ("amin", {"vector_weights": [1.0, -1.0]}),
        ("noisy_power_method", {"block_size": 99}),
        ("noisy_power_method", {"n_iterations": 0}),
        ("trace_sensitive", {"beta": 2.0}),
        ("trace_sensitive", {"selection": "nope"}),
        ("streaming", {"eigengap": 0.1, "batch_size": 0}),
        ("streaming", {"eigengap": 0.1, "clip_quantile": 1.5}),
        ("streaming", {"eigengap": -1.0}),
        ("streaming", {"eigengap": 0.1, "norm_range": (1.0, 0.1)}),
        ("mod_sulq", {"exact_beta": "yes"}),
        ("analyze_gauss", {"n": 3}),
        ("laplace", {"epsilon": 3}),
    ],
)
def test_option_values_are_refused_before_any_charge(mechanism, options):
    acct = Accountant(100.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError):
            PrivatePCA(
                2,
                epsilon=1.0,
                delta=1e-6,
                data_norm=1.0,
                mechanism=mechanism,
                allow_unproved=mechanism,
                mechanism_options=options,
                accountant=acct,
            ).fit(unit_rows())
    assert acct.charges == () and acct.spent == (0.0, 0.0)


def test_a_fit_that_cannot_be_paid_refuses_before_its_private_bound():
    """With a private bound the bound is charged and released first; a dry
    run of the whole fit must refuse before that, leaving nothing charged
    and nothing kept."""
    acct = Accountant(0.5)
    est = PrivatePCA(
        1,
        epsilon=1.0,
        data_norm="private",
        bound_range=(0.1, 100.0),
        mechanism="laplace",
        accountant=acct,
    )
    with pytest.raises(BudgetExceededError, match="nothing was charged"):
        est.fit(unit_rows())
    assert acct.charges == ()
    assert not hasattr(est, "data_norm_")


def test_dry_run_and_remaining():
    acct = Accountant(1.0)
    record = Release("test", "pure", 0.6)
    assert acct.can_afford([record]) and acct.charges == ()
    acct.charge([record])
    assert not acct.can_afford([record])
    assert acct.remaining() == pytest.approx((0.4, 0.0))


def test_a_copy_elsewhere_reports_what_was_spent_and_refuses():
    """A ledger unpickled where it does not live (here: after the live one
    is gone) says what it had spent, instead of a misleading zero, and
    refuses to charge."""
    acct = Accountant(1.0)
    acct.charge([Release("test", "pure", 0.9)])
    data = pickle.dumps(acct)
    del acct
    import gc

    gc.collect()
    copy = pickle.loads(data)
    assert copy.spent == pytest.approx((0.9, 0.0))
    assert copy.is_copy
    with pytest.raises(LedgerCopyError):
        copy.charge([Release("test", "pure", 0.01)])


# -- a second red team (issue 26): a rewound Generator, a charging race -------


def _unit_rows(n=300, d=5, seed=0):
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1).max()


@pytest.mark.parametrize("kind", ["generator", "seed"])
def test_pickling_a_fit_with_its_noise_source_warns(kind):
    """A pickled fit kept its Generator, which can be rewound to its state
    before the fit and so recompute the noise: pickling says so."""
    from dppca import PrivacyWarning

    source = np.random.default_rng(1) if kind == "generator" else 7
    fitted = PrivatePCA(2, delta=1e-5, data_norm=1.0, random_state=source).fit(
        _unit_rows()
    )
    with pytest.warns(PrivacyWarning, match="random_state=None"):
        pickle.dumps(fitted)
    shared = PrivatePCA(2, delta=1e-5, data_norm=1.0).fit(_unit_rows())
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        pickle.dumps(shared)  # no noise source kept: silent


def test_no_charge_falls_between_a_fits_dry_run_and_its_last_charge(
    monkeypatch,
):
    """Two threads share a ledger: one fit releases a private bound (charge
    1), reads the rows, then charges the rest (charge 2). Another thread's
    charge in between made the first fit raise after reading the rows. Now
    the fit holds the ledger from its dry run to its last charge."""
    import threading

    import dppca.decomposition.release as release_module

    ledger = Accountant(1.0, 0.0)
    inside = threading.Event()
    release_bound = release_module._private_bound

    def slow_bound(*args, **kwargs):
        inside.set()  # the other thread charges now, if it can
        threading.Event().wait(0.3)
        return release_bound(*args, **kwargs)

    monkeypatch.setattr(release_module, "_private_bound", slow_bound)
    other = {}

    def charge_elsewhere():
        inside.wait(5)
        try:
            ledger.charge([Release("other", "pure", 0.5)], label="other")
            other["outcome"] = "charged"
        except BudgetExceededError:
            other["outcome"] = "refused"

    thread = threading.Thread(target=charge_elsewhere)
    thread.start()
    fitted = PrivatePCA(
        1,
        epsilon=1.0,
        mechanism="laplace",
        data_norm="private",
        bound_range=(0.1, 10.0),
        center=False,
        accountant=ledger,
        random_state=0,
    ).fit(_unit_rows())
    thread.join()
    assert fitted.components_.shape == (1, 5)
    assert other["outcome"] == "refused"
    assert ledger.charges == ("private bounds", "PrivatePCA")


def test_pickling_a_fitted_scaler_with_its_noise_source_warns():
    """The private scaler keeps its random_state too: same warning."""
    from dppca import PrivacyWarning, PrivateStandardScaler

    X = _unit_rows()
    scaler = PrivateStandardScaler(
        bounds=(-1.0, 1.0), random_state=np.random.default_rng(3)
    )
    pickle.dumps(scaler)  # not fitted: nothing to recompute, silent
    with pytest.warns(PrivacyWarning, match="PrivateStandardScaler"):
        pickle.dumps(scaler.fit(X))
    shared = PrivateStandardScaler(bounds=(-1.0, 1.0)).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        pickle.dumps(shared)


# -- a third red team: the scaler's neighbours ---------------------------------


@pytest.mark.parametrize("far", [0.0, 1e300, 1e308, -1.7e308])
def test_a_scaler_then_pca_pipeline_returns_whatever_one_row_holds(far):
    """transform clipped nothing, so a row of 1e308 became inf and the PCA
    after it refused, after the scaler had charged the ledger."""
    from sklearn.pipeline import Pipeline

    from dppca import PrivateStandardScaler

    X = np.random.default_rng(0).uniform(-1, 1, (200, 4))
    X[0] = far
    ledger = Accountant(4.0, 1e-6)
    pipe = Pipeline(
        [
            (
                "scale",
                PrivateStandardScaler(
                    bounds=(-1.0, 1.0), epsilon=1.0, accountant=ledger
                ),
            ),
            (
                "pca",
                PrivatePCA(
                    2,
                    epsilon=1.0,
                    delta=1e-7,
                    data_norm=4.0,
                    accountant=ledger,
                ),
            ),
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        pipe.fit(X)
    assert len(ledger.charges) == 2
    assert np.isfinite(pipe.transform(X)).all()


def test_a_subnormal_entry_is_not_an_error_whatever_numpys_error_state():
    from dppca import PrivateStandardScaler

    X = np.zeros((7, 3))
    X[0, 0] = 5e-324
    with np.errstate(all="raise"):
        PrivateStandardScaler(bounds=(-1.0, 1.0), random_state=0).fit(X)
