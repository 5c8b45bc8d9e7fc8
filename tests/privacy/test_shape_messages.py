"""Refusals of malformed data print neither values nor the number of rows
(red team, round 21): under add/remove neighbours ``n`` is private, and
scikit-learn's own messages print a 1-D array's values and the shape of an
array without columns. Two neighbouring inputs must get the same message."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dppca
from dppca import PrivateCovariance, PrivateStandardScaler

CAP = 16


def _message(fit, X) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as caught:
            fit(X)
    return str(caught.value)


FITS = {
    "analyze_gauss": lambda X: dppca.analyze_gauss(
        X, epsilon=1.0, delta=1e-6, max_samples=CAP
    ),
    "PrivateCovariance": lambda X: PrivateCovariance(
        epsilon=1.0,
        delta=1e-6,
        data_norm=1.0,
        center=False,
        neighbours="add-remove",
        max_samples=CAP,
    ).fit(X),
    "PrivateStandardScaler": lambda X: PrivateStandardScaler(
        (-1.0, 1.0), epsilon=1.0, neighbours="add-remove", max_samples=CAP
    ).fit(X),
}

PAIRS = {
    "one column": (np.full((1, 1), 0.25), np.full((2, 1), 0.25)),
    "no column": (np.zeros((1, 0)), np.zeros((2, 0))),
    "1-D": (
        np.array([0.123456, 0.654321]),
        np.array([0.123456, 0.654321, 0.1]),
    ),
}


@pytest.mark.parametrize("pair", sorted(PAIRS))
@pytest.mark.parametrize("name", sorted(FITS))
def test_neighbours_get_one_message(name, pair):
    fit = FITS[name]
    small, large = PAIRS[pair]
    if pair == "one column" and name == "PrivateStandardScaler":
        pytest.skip("the scaler takes one column")
    first, second = _message(fit, small), _message(fit, large)
    assert first == second
    assert "0.123456" not in first and "shape=(" not in first


def test_an_unhashable_label_is_not_printed():
    # red team 22: the refusal quoted the label ("alice@example.com")
    from dppca import PrivatePCA

    X = np.full((2, 3), 0.1)
    groups = np.empty(2, dtype=object)
    groups[:] = ["bob", None]
    groups[1] = ["alice@example.com"]
    with pytest.raises(TypeError) as caught:
        PrivatePCA(
            1, delta=1e-6, data_norm=1.0, center=False, max_rows_per_person=1
        ).fit(X, groups=groups)
    assert "example.com" not in str(caught.value)


MALFORMED = {
    # ragged: numpy's message prints the shapes, n among them
    "ragged": ([[0.1, 0.2], [0.3]], [[0.1, 0.2], [0.3], [0.1, 0.2]]),
    # an entry that is not a number: numpy's message quotes it
    "string": ([[0.1, "alice@x"]], [[0.1, "alice@x"], [0.1, 0.2]]),
    # complex: scikit-learn's message prints the whole matrix
    "complex": (np.array([[0.1, 0.2j]]), np.array([[0.1, 0.2j], [0.1, 0.1]])),
}


def _search(X):
    from dppca import Accountant, PrivatePCA, budgeted_grid_search

    pca = PrivatePCA(
        1, data_norm=1.0, center=False, delta=1e-6, neighbours="add-remove",
        max_samples=CAP,
    )  # fmt: skip
    return budgeted_grid_search(
        pca, {"n_components": [1]}, Accountant(2.0, 1e-3), X, cv=2
    )


@pytest.mark.parametrize("pair", sorted(MALFORMED))
@pytest.mark.parametrize("name", [*sorted(FITS), "search"])
def test_malformed_rows_are_refused_without_printing_them(name, pair):
    # red team, round 23
    fit = _search if name == "search" else FITS[name]
    small, large = MALFORMED[pair]
    messages = []
    for X in (small, large):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises((TypeError, ValueError)) as caught:
                fit(X)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    for leak in ("alice", "0.2j", "(2,", "(3,", "(1,"):
        assert leak not in messages[0]


PERSON_FITS = {
    "PrivatePCA": lambda X, g: dppca.PrivatePCA(
        1, delta=1e-6, data_norm=1.0, center=False, max_rows_per_person=4
    ).fit(X, groups=g),
    "PrivateCovariance": lambda X, g: PrivateCovariance(
        delta=1e-6, data_norm=1.0, center=False, max_rows_per_person=4
    ).fit(X, groups=g),
    "PrivateStandardScaler": lambda X, g: PrivateStandardScaler(
        (-1.0, 1.0), max_rows_per_person=4
    ).fit(X, groups=g),
}


@pytest.mark.parametrize("pair", ["no column", "1-D"])
@pytest.mark.parametrize("name", sorted(PERSON_FITS))
def test_per_person_neighbours_get_one_message(name, pair):
    # red team 24: with groups n is private too (a person replaced may bring
    # more rows), and a frame without columns printed its shape
    small, large = PAIRS[pair]
    rows = {1: [0], 2: [0, 0], 3: [0, 0, 0]}  # one person, 1 to 3 rows
    messages = [
        _message(lambda X, n=X.shape[0]: PERSON_FITS[name](X, rows[n]), X)
        for X in (small, large)
    ]
    assert messages[0] == messages[1]
    assert "0.123456" not in messages[0] and "shape=(" not in messages[0]
