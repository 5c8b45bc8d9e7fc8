"""A ledger that holds per-row and per-person releases (red team, round 13):
its composed guarantee holds per row only, and it says so."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dppca import PrivacyWarning, PrivatePCA
from dppca.privacy.accounting import Accountant
from dppca.privacy.guarantees import REPLACE_ONE
from dppca.report import composed_unit


def _rows():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 5))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, rng.integers(0, 100, size=400)


def _fit(acc, X, groups=None, m=None):
    est = PrivatePCA(
        n_components=2,
        epsilon=0.5,
        delta=1e-6,
        data_norm=1.0,
        center=False,
        mechanism="analyze_gauss",
        accountant=acc,
        max_rows_per_person=m,
    )
    return est.fit(X, groups=groups)


def test_a_ledger_mixing_units_warns_once_and_reports_rows_only():
    X, groups = _rows()
    acc = Accountant(epsilon=3.0, delta=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        _fit(acc, X)  # per row: no warning
        _fit(acc, X)  # the same unit: none
    with pytest.warns(PrivacyWarning, match="per row only"):
        _fit(acc, X, groups, m=4)
    text = str(acc.report())
    assert "Unit of privacy: a row only" in " ".join(text.split())
    assert "not a person" in " ".join(text.split())
    with warnings.catch_warnings():  # warned once, when the units mixed
        warnings.simplefilter("error", PrivacyWarning)
        _fit(acc, X, groups, m=4)


def test_the_unit_of_one_kind_is_stated_as_it_is():
    person = next(
        r.neighbours
        for r in _fit(None, *_rows(), m=3).privacy_releases_
        if r.neighbours != REPLACE_ONE
    )
    assert composed_unit([REPLACE_ONE]) == "a row"
    assert composed_unit([person, person]) == "per person, at most 3 rows"
    assert composed_unit([REPLACE_ONE, person]).startswith("a row only")


def test_the_warning_comes_with_the_release_that_weakens_the_unit():
    """Red team, round 14: two per-person fits (m = 4, then m = 8) warned
    (both protect a person), and the per-row fit after them did not."""
    X, groups = _rows()
    acc = Accountant(epsilon=3.0, delta=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        _fit(acc, X, groups, m=4)
        _fit(acc, X, groups, m=8)
    with pytest.warns(PrivacyWarning, match="per row only"):
        _fit(acc, X)
