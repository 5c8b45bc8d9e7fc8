"""Add/remove-one neighbours (issue 43): what the mechanism receives moves
by at most the sensitivity it is calibrated to.

Under ``neighbours="add-remove"`` every qualifying mechanism is handed the
second moment of the data padded with zero rows to ``N = max_samples``
rows, with ``n = N`` (:mod:`dppca.decomposition.add_remove`). The extremal
pairs: ``X`` against ``X`` plus one row of norm ``B`` (the bound) along the
top eigenvector of ``X``, and ``X`` against ``X`` minus its last row. For
each, the computed input moves by at most ``√2/N`` in Frobenius norm (the
replace-one sensitivity the mechanisms are calibrated to at ``n = N``) and,
for Laplace, by at most its ℓ₁ bound on the upper triangle; the margin
``1 − moved/bound`` is measured: about ``1 − 1/√2 ≈ 0.29`` in Frobenius,
the price of running a replace-one calibration on an add/remove change
(``‖z zᵀ‖_F = ‖z‖² ≤ 1`` against ``√2``).
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca.decomposition.add_remove import (
    add_remove_mechanisms,
    add_remove_neighbours,
)
from dppca.linalg import clipped_sums, float_error
from dppca.mechanisms import registry
from dppca.privacy.accounting import Accountant
from dppca.privacy.sensitivity import l1_sensitivity_second_moment

BOUND = 2.0
CAP = 5000


def _data(seed=0, n=300, d=5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * np.array([3.0, 2.0, 1.0, 0.5, 0.5])[:d]
    X *= 0.7 * BOUND / np.max(np.linalg.norm(X, axis=1))
    X[:3] *= 3.0  # some rows beyond the bound: clipped
    return X


def _top_direction(X):
    return np.linalg.eigh(X.T @ X)[1][:, -1]


def _estimator(key, **extra):
    spec = registry.MECHANISMS[key]
    pure = not spec.uses_delta
    return PrivatePCA(
        1,
        epsilon=1.0,
        delta=0.0 if pure else 1e-6,
        mechanism=key,
        data_norm=BOUND,
        center=False,
        neighbours="add-remove",
        max_samples=CAP,
        allow_unproved=key,
        mechanism_options=dict(spec.example_options) or None,
        random_state=0,
        **extra,
    )


def _seen(monkeypatch, key):
    """Every (A, n) handed to mechanism ``key``'s ``run``."""
    seen = []
    spec = registry.MECHANISMS[key]
    original = spec.run

    def capture(A, n, *args):
        seen.append((np.array(A), n))
        return original(A, n, *args)

    monkeypatch.setitem(
        registry.MECHANISMS, key, dataclasses.replace(spec, run=capture)
    )
    return seen


def _neighbours(X, kind):
    if kind == "added":
        return X, np.vstack([X, BOUND * _top_direction(X)])
    return X, X[:-1]


QUALIFYING = sorted(add_remove_mechanisms())


def test_the_qualifying_mechanisms_are_those_of_the_second_moment():
    """Every mechanism that works from ``A`` and is DP qualifies, and none
    that reads the rows: the padding argument's condition."""
    expected = {
        key
        for key, spec in registry.MECHANISMS.items()
        if spec.run is not None and spec.notion != "not_dp"
    }
    assert set(QUALIFYING) == expected
    assert {"analyze_gauss", "laplace", "gaussian_approx"} <= expected
    for key in ("streaming", "coinpress", "trace_sensitive", "spiked"):
        assert key not in expected


@pytest.mark.parametrize("kind", ["added", "removed"])
@pytest.mark.parametrize("key", QUALIFYING)
def test_extremal_pairs_move_the_input_by_at_most_the_sensitivity(
    monkeypatch, key, kind
):
    X, X_prime = _neighbours(_data(), kind)
    seen = _seen(monkeypatch, key)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for data in (X, X_prime):
            _estimator(key).fit(data)
    (A, n), (A_prime, n_prime) = seen
    assert n == n_prime == CAP  # the public cap, never the rows
    bound = math.sqrt(2) / CAP
    moved = float(np.linalg.norm(A - A_prime))
    assert moved <= bound
    margin = 1 - moved / bound
    # the change is one row of norm s ≤ 1 (the clipped, shrunk row): ‖z‖²/N
    s = 1 - float_error.float_error_shrink(CAP, X.shape[1])
    row = X_prime[-1] if kind == "added" else X[-1]
    norm = min(np.linalg.norm(row), BOUND) / BOUND * s
    assert moved == pytest.approx(norm**2 / CAP, rel=1e-9)
    if kind == "added":  # the extremal row: on the bound
        assert margin == pytest.approx(1 - s * s / math.sqrt(2), abs=1e-9)
    if key == "laplace":
        upper = np.triu_indices(X.shape[1])
        l1 = float(np.abs((A - A_prime)[upper]).sum())
        assert l1 <= l1_sensitivity_second_moment(
            X.shape[1], CAP, upper_triangle=True
        )


@pytest.mark.parametrize("kind", ["added", "removed"])
def test_the_computed_moment_keeps_its_bound_far_out_and_at_the_cap(kind):
    """The function itself, with a public centre far from the data (the
    sparse expansion's case), and a pair one of which has exactly ``N``
    rows."""
    rng = np.random.default_rng(3)
    d, cap = 4, 400
    centre = np.full(d, 1e6)
    X = centre + rng.normal(size=(cap, d))
    if kind == "added":
        pair = (X[:-1], X)  # N − 1 rows, then N rows
    else:
        pair = (X, X[:-1])
    moments = [
        clipped_sums.clipped_second_moment(
            Z, 1.5, centre=centre, max_samples=cap
        ).matrix
        for Z in pair
    ]
    moved = float(np.linalg.norm(moments[0] - moments[1]))
    assert moved <= math.sqrt(2) / cap
    with pytest.raises(ValueError, match="more than max_samples"):
        clipped_sums.clipped_second_moment(
            np.vstack([X, X[:1]]), 1.5, centre=centre, max_samples=cap
        )


def test_the_shrink_depends_on_the_cap_not_on_the_rows():
    rng = np.random.default_rng(4)
    small = clipped_sums.clipped_second_moment(
        rng.normal(size=(10, 3)), 1.0, max_samples=10**6
    )
    large = clipped_sums.clipped_second_moment(
        rng.normal(size=(5000, 3)), 1.0, max_samples=10**6
    )
    assert small.shrink == large.shrink
    assert small.shrink == 1.0 - float_error.add_remove_shrink(10**6, 3)


def test_the_chunk_plan_never_shortens_with_more_rows():
    """The corollary's M(n) ≤ M(N): the longest chain of roundings never
    decreases with the number of rows (every n up to 2²⁰, three chunk
    sizes)."""
    for chunk in (1, 97, 4096):
        last = 0
        for n in range(1, 2**20 + 1, 1 if chunk == 1 else 7):
            M = float_error._chunk_plan(n, chunk)[2]
            assert M >= last, (chunk, n)
            last = M


def test_the_default_cap_keeps_the_shrink_tiny():
    for d in (10, 1000, 10**5):
        eta = float_error.add_remove_shrink(2**27, d)
        assert eta < 6e-5
    assert float_error.add_remove_shrink(2**31, 10) > 9e-4


@pytest.mark.parametrize("key", QUALIFYING)
def test_every_record_states_the_relation_and_the_count_is_charged(key):
    ledger = Accountant(10.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            pca = _estimator(key, accountant=ledger).fit(_data())
        except ValueError as error:
            # an accountant refuses a release with no (ε, δ) (PPCA's chain)
            assert "accountant" in str(error)
            assert ledger.spent == (0.0, 0.0)
            return
    relation = add_remove_neighbours(CAP)
    assert all(r.neighbours == relation for r in pca.privacy_releases_)
    labels = [r.label for r in pca.privacy_releases_]
    spectrum = registry.MECHANISMS[key].has_spectrum
    assert ("private count of rows (discrete Laplace)" in labels) == spectrum
    assert hasattr(pca, "row_count_") == spectrum
    (charge,) = ledger.report().charges
    assert [r["label"] for r in charge["releases"]] == labels
    assert ledger.spent[0] <= pca.privacy_spent_[0] + 1e-9
