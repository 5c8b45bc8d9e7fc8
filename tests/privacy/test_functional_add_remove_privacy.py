"""Add/remove-one neighbours on the functional entry points (issue 43):
``mod_sulq(X, ..., max_samples=N)`` and the others.

With a cap ``N`` each entry point hands its mechanism the second moment of
``X`` padded with zero rows to ``N`` rows, with ``n = N``
(:mod:`dppca.mechanisms.padding`). These tests capture what the mechanism
receives, on extremal add/remove pairs of unit-norm rows: ``D`` against
``D`` plus a unit row along the top eigenvector of ``D`` (the direction that
moves the spectrum most), a single-row ``D`` against ``D`` plus the same
row, ``D`` of ``N − 1`` rows against ``D`` plus a row (``N`` rows, at the
cap), and ``D`` against ``D`` less its last row. For each, the computed
input moves by at most the sensitivity the mechanism is calibrated to at
``n = N`` (Frobenius ``√2/N``; Laplace's ℓ₁ bound on the upper triangle;
the exponential mechanisms' score, 1; Amin et al.'s eigenvalues, in ℓ₁),
and the noise drawn is the one calibrated for ``N``. A data set of one row
and one of ``N`` rows are released; ``N + 1`` rows are refused before
anything random is drawn.
"""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest

import dppca
from dppca.decomposition.add_remove import (
    add_remove_cap,
    add_remove_mechanisms,
    add_remove_neighbours,
)
from dppca.linalg import clipped_sums, float_error
from dppca.mechanisms import (
    covariance,
    exponential,
    input_perturbation,
    input_perturbation_wishart,
    padding,
)
from dppca.privacy import calibration, sensitivity
from dppca.privacy.accounting import Accountant
from dppca.privacy.guarantees import add_remove_relation

CAP = 400
D = 5
EPSILON, DELTA = 1.0, 1e-6

#: Each entry point: its module, the ``*_from_second_moment`` function it
#: hands ``(A, n)`` to, and its call with a cap.
ENTRY_POINTS = {
    "mod_sulq": (
        input_perturbation,
        "mod_sulq_from_second_moment",
        lambda X, rng, cap: dppca.mod_sulq(
            X, epsilon=EPSILON, delta=DELTA, rng=rng, max_samples=cap
        ),
    ),
    "analyze_gauss": (
        input_perturbation,
        "analyze_gauss_from_second_moment",
        lambda X, rng, cap: dppca.analyze_gauss(
            X, epsilon=EPSILON, delta=DELTA, rng=rng, max_samples=cap
        ),
    ),
    "laplace_input_perturbation": (
        input_perturbation,
        "laplace_input_perturbation_from_second_moment",
        lambda X, rng, cap: dppca.laplace_input_perturbation(
            X, epsilon=EPSILON, rng=rng, max_samples=cap
        ),
    ),
    "wishart_input_perturbation_delta": (
        input_perturbation_wishart,
        "wishart_input_perturbation_delta_from_second_moment",
        lambda X, rng, cap: dppca.wishart_input_perturbation_delta(
            X, delta=0.1, rng=rng, max_samples=cap
        ),
    ),
    "ppca": (
        exponential,
        "ppca_from_second_moment",
        lambda X, rng, cap: dppca.ppca(
            X, 1, epsilon=EPSILON, rng=rng, max_samples=cap
        ),
    ),
    "amin_subspace": (
        covariance,
        "amin_subspace_from_second_moment",
        lambda X, rng, cap: dppca.amin_subspace(
            X, 2, epsilon=EPSILON, rng=rng, max_samples=cap
        ),
    ),
    "amin_covariance": (
        covariance,
        "amin_covariance_from_second_moment",
        lambda X, rng, cap: dppca.amin_covariance(
            X, 2, epsilon=EPSILON, rng=rng, max_samples=cap
        ),
    ),
}


def _unit_rows(n, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, D)) * np.array([3.0, 2.0, 1.0, 0.5, 0.5])
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def _top_direction(X):
    return np.linalg.eigh(X.T @ X)[1][:, -1]


def _pair(kind):
    """An extremal add/remove pair ``(D, D')`` of unit-norm rows."""
    if kind == "add along the top eigenvector":
        X = _unit_rows(60)
        return X, np.vstack([X, _top_direction(X)])
    if kind == "one row, then the same row again":
        x = _unit_rows(1)
        return x, np.vstack([x, x])
    if kind == "N - 1 rows, then N":
        X = _unit_rows(CAP - 1)
        return X, np.vstack([X, _top_direction(X)])
    X = _unit_rows(60)  # remove the last row
    return X, X[:-1]


PAIRS = (
    "add along the top eigenvector",
    "one row, then the same row again",
    "N - 1 rows, then N",
    "remove a row",
)


def _capture(monkeypatch, name):
    """Run entry point ``name`` with its mechanism recording every ``(A,
    n)`` it receives; returns the list."""
    module, inner, _ = ENTRY_POINTS[name]
    seen = []
    original = getattr(module, inner)

    def capture(A, n, *args, **kwargs):
        seen.append((np.array(A), n))
        return original(A, n, *args, **kwargs)

    monkeypatch.setattr(module, inner, capture)
    return seen


def _release(name, X, rng=0, cap=CAP):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # float samplers, Wishart: unproved
        return ENTRY_POINTS[name][2](X, rng, cap)


def _score_change(change, k):
    """``sup_V |tr(Vᵀ Δ V)|`` over ``d × k`` orthonormal ``V``: the larger
    of the sums of the ``k`` largest and of the ``k`` smallest eigenvalues
    of ``Δ`` (Ky Fan), in absolute value."""
    values = np.linalg.eigvalsh(change)
    return max(abs(values[-k:].sum()), abs(values[:k].sum()))


def test_the_functions_that_take_a_cap_are_those_the_registry_proves():
    """``padding.ADD_REMOVE_KEYS`` (the mechanism modules cannot read the
    registry: it imports them) is the registry's list, restricted to the
    entry points' mechanisms; the published Wishart mechanism, not DP, is
    the one left out."""
    keys = set(padding.FUNCTION_KEYS.values())
    assert padding.ADD_REMOVE_KEYS == keys & set(add_remove_mechanisms())
    assert keys - padding.ADD_REMOVE_KEYS == {"wishart_published"}


def test_the_relation_is_the_estimators():
    for cap in (1, CAP, 2**27):
        relation = add_remove_relation(cap)
        assert relation == add_remove_neighbours(cap)
        assert add_remove_cap(relation) == cap


@pytest.mark.parametrize("kind", PAIRS)
@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_extremal_pairs_move_the_input_by_at_most_the_sensitivity(
    monkeypatch, name, kind
):
    X, X_prime = _pair(kind)
    seen = _capture(monkeypatch, name)
    for data in (X, X_prime):
        _release(name, data)
    (A, n), (A_prime, n_prime) = seen
    assert n == n_prime == CAP  # the public cap, never the rows
    change = A_prime - A
    moved = float(np.linalg.norm(change))
    assert moved <= math.sqrt(2) / CAP
    # exactly one padding row became a unit row (shrunk by s): ‖z‖² / N
    s = 1 - float_error.float_error_shrink(CAP, D)
    assert moved == pytest.approx(s * s / CAP, rel=1e-9)
    # the margin of the replace-one calibration on an add/remove change
    assert 1 - moved * CAP / math.sqrt(2) == pytest.approx(
        1 - s * s / math.sqrt(2), abs=1e-9
    )
    if name == "laplace_input_perturbation":
        upper = np.triu_indices(D)
        assert float(np.abs(change[upper]).sum()) <= (
            sensitivity.l1_sensitivity_second_moment(
                D, CAP, upper_triangle=True
            )
        )
    if name in ("ppca", "amin_subspace", "amin_covariance"):
        for k in (1, 2):  # the score N·tr(VᵀAV) moves by at most 1
            assert CAP * _score_change(change, k) <= 1.0
    if name == "amin_covariance":
        top = [np.linalg.eigvalsh(M)[::-1][:2] for M in (A, A_prime)]
        assert float(np.abs(top[0] - top[1]).sum()) <= (
            sensitivity.top_eigenvalues_l1_sensitivity(CAP, 2)
        )
    if name == "wishart_input_perturbation_delta":
        # a zero row replaced by one in the unit ball, or back: N·Δ is
        # ±z zᵀ with ‖z‖ ≤ 1 (up to rounding)
        values = np.sort(np.abs(np.linalg.eigvalsh(CAP * change)))
        assert 0.99 < values[-1] <= 1 and np.all(values[:-1] < 1e-12)


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_the_release_is_the_mechanisms_at_n_equals_the_cap(name):
    """Bit for bit the ``*_from_second_moment`` release on the padded
    ``S/N`` with ``n = N`` under the same seed (the noise, or the
    exponential mechanism's temperature, calibrated for ``N``), its record
    that one's with the add/remove relation."""
    module, inner, _ = ENTRY_POINTS[name]
    X = _unit_rows(60)
    padded = clipped_sums.clipped_second_moment(X, 1.0, max_samples=CAP)
    k = {"ppca": (1,), "amin_subspace": (2,), "amin_covariance": (2,)}
    budget = {
        "mod_sulq": dict(epsilon=EPSILON, delta=DELTA),
        "analyze_gauss": dict(epsilon=EPSILON, delta=DELTA),
        "wishart_input_perturbation_delta": dict(delta=0.1),
    }.get(name, dict(epsilon=EPSILON))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = getattr(module, inner)(
            padded.matrix, CAP, *k.get(name, ()), rng=3, **budget
        )
    out = _release(name, X, rng=3)
    assert np.array_equal(out, expected)
    relation = add_remove_neighbours(CAP)
    assert out.guarantee == dataclasses.replace(
        expected.guarantee, neighbours=relation
    )
    assert relation in dppca.guarantee_of(out).claim


def test_the_noise_is_the_one_for_the_cap():
    """Float noise, measured: the entries of ``out − S/N`` have the
    standard deviation (Gaussian), mean absolute value (Laplace) or mean
    diagonal (Wishart, ``E W = (d + 1) c I``) of the calibration at
    ``n = N``, not at ``n`` (``N/n = 20`` times smaller)."""
    d, n, cap = 40, 500, 10_000
    rng = np.random.default_rng(1)
    X = rng.normal(size=(n, d))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    A = clipped_sums.clipped_second_moment(X, 1.0, max_samples=cap).matrix
    upper = np.triu_indices(d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gauss = dppca.analyze_gauss(
            X, epsilon=1.0, delta=1e-6, rng=2, noise="float", max_samples=cap
        )
        laplace = dppca.laplace_input_perturbation(
            X, epsilon=1.0, rng=2, noise="float", max_samples=cap
        )
        wishart = dppca.wishart_input_perturbation_delta(
            X, delta=0.5, rng=2, max_samples=cap
        )
    sigma = calibration.analyze_gauss_sigma(cap, 1.0, 1e-6)
    measured = np.std((gauss - A)[upper]) / sigma
    assert 0.9 < measured < 1.1  # 820 entries: a standard error of 2.5%
    scale = calibration.laplace_input_scale(d, cap, 1.0)
    measured = np.mean(np.abs((laplace - A)[upper])) / scale
    assert 0.9 < measured < 1.1
    c = calibration.wishart_scale_for_delta(cap, 0.5)
    measured = np.trace(wishart - A) / (d * (d + 1) * c)
    assert 0.9 < measured < 1.1


def test_the_exponential_mechanisms_temperature_is_that_of_the_sum():
    """PPCA's matrix Bingham parameter ``(N ε / 2)·S/N`` is ``(ε/2)·S``:
    the exponential mechanism on the unnormalised score ``‖XV‖²``, whose
    add/remove sensitivity is 1, whatever ``n``."""
    X = _unit_rows(60)
    A = clipped_sums.clipped_second_moment(X, 1.0, max_samples=CAP).matrix
    B = exponential.bingham_parameter(A, CAP, EPSILON)
    s = 1 - float_error.float_error_shrink(CAP, D)
    assert np.allclose(B, EPSILON / 2 * s * s * (X.T @ X), rtol=1e-12)


@pytest.mark.parametrize("n", [1, CAP])
@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_one_row_and_the_cap_are_released(name, n):
    out = _release(name, _unit_rows(n))
    assert np.all(np.isfinite(out))
    assert out.guarantee.neighbours == add_remove_neighbours(CAP)


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_one_row_more_than_the_cap_is_refused_before_any_draw(
    monkeypatch, name
):
    seen = _capture(monkeypatch, name)
    rng = np.random.default_rng(5)
    state = rng.bit_generator.state
    with pytest.raises(ValueError, match="more than max_samples = 400"):
        _release(name, _unit_rows(CAP + 1), rng=rng)
    assert rng.bit_generator.state == state  # nothing drawn
    assert seen == []  # the mechanism never ran


def test_an_accountant_keeps_a_capped_release_apart():
    """The record's relation is what the ledger reads: a capped release
    and a replace-one release cannot share one ledger, two capped ones
    can."""
    X = _unit_rows(60)
    capped = dppca.laplace_input_perturbation(
        X, epsilon=0.5, rng=0, max_samples=CAP
    ).guarantee
    plain = dppca.laplace_input_perturbation(X, epsilon=0.5, rng=0).guarantee
    ledger = Accountant(2.0, 1e-6)
    ledger.charge([capped])
    ledger.charge([capped])
    assert ledger.spent[0] == pytest.approx(1.0)
    assert not ledger.can_afford([plain])
    with pytest.raises(ValueError, match="add/remove releases beside"):
        ledger.charge([plain])
