"""The package's warnings name the caller's line, not a line of the
library, however many of its functions lie between (red team, round 12):
the composition of unproved records reached from an accountant inside a
fit, and the grid search's note that delta is unused, raised while it plans
the fits."""

from __future__ import annotations

import warnings

import numpy as np

from dppca import (
    Accountant,
    PrivacyWarning,
    PrivatePCA,
    UnprovedGuaranteeWarning,
)
from dppca.model_selection import budgeted_grid_search
from dppca.privacy.accounting import basic_composition


def rows(n, d=4, seed=0):
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1).max()


def caught(call, category):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        call()
    return [w for w in seen if issubclass(w.category, category)]


def test_an_unproved_composition_names_the_caller():
    est = PrivatePCA(
        2,
        epsilon=1.0,
        data_norm=1.0,
        mechanism="laplace",
        noise="float",
        allow_unproved=["laplace"],
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(rows(80))
    direct = caught(
        lambda: basic_composition(est.privacy_releases_),
        UnprovedGuaranteeWarning,
    )
    assert direct and all(w.filename == __file__ for w in direct)
    # through an accountant charged inside the fit
    ledger = Accountant(10.0, 1e-5)
    fitted = caught(
        lambda: est.set_params(accountant=ledger).fit(rows(80)),
        UnprovedGuaranteeWarning,
    )
    assert fitted and all(w.filename == __file__ for w in fitted), [
        w.filename for w in fitted
    ]


def test_the_grid_searchs_unused_delta_names_the_caller():
    X = rows(300)
    ledger = Accountant(10.0, 1e-5)
    seen = caught(
        lambda: budgeted_grid_search(
            PrivatePCA(2, data_norm=1.0, delta=1e-6, random_state=0),
            {"mechanism": ["analyze_gauss", "laplace"]},
            ledger,
            X,
            cv=3,
        ),
        PrivacyWarning,
    )
    unused = [w for w in seen if "is not used by mechanism" in str(w.message)]
    assert unused
    assert all(w.filename == __file__ for w in unused), [
        w.filename for w in unused
    ]
