"""Sensitivities of A = X^T X / n under replace-one neighbours, against brute force on small d."""

import numpy as np
import pytest

from dppca.book.bounds.foundations import (
    jiang_lemma2_l1_sensitivity_bounds,
    jiang_theorem4_nuclear_bound,
)
from dppca.privacy.sensitivity import (
    difference_spectrum,
    entrywise_norm,
    frobenius_sensitivity_second_moment,
    l1_extremal_pair,
    l1_sensitivity_attained,
    l1_sensitivity_by_enumeration,
    l1_sensitivity_second_moment,
    nuclear_norm_sensitivity_second_moment,
    random_unit_ball_pairs,
    second_moment_difference,
    spectral_sensitivity_second_moment,
    worst_case_l1_pair,
)

# Round-off allowance for sums of at most d^2 = 100 products of numbers in [-1, 1].
TOL = 1e-12


def _differences(V, W):
    return np.einsum("ni,nj->nij", V, V) - np.einsum("ni,nj->nij", W, W)


def test_difference_matches_second_moments_of_neighbours():
    rng = np.random.default_rng(0)
    n, d = 7, 4
    X = rng.standard_normal((n, d))
    X /= 2 * np.linalg.norm(X, axis=1, keepdims=True)
    Y = X.copy()
    Y[3] = np.array([0.0, 0.6, -0.8, 0.0])
    delta = second_moment_difference(X[3], Y[3], n)
    assert np.allclose(X.T @ X / n - Y.T @ Y / n, delta, atol=1e-15)


def test_difference_rejects_rows_outside_unit_ball():
    with pytest.raises(ValueError, match="norm"):
        second_moment_difference([1.0, 1.0], [0.0, 0.0], 3)
    with pytest.raises(ValueError, match="lengths"):
        second_moment_difference([1.0, 0.0], [0.0, 0.0, 0.0], 3)
    with pytest.raises(ValueError, match="n must be"):
        second_moment_difference([1.0, 0.0], [0.0, 1.0], 0)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_l1_enumeration_equals_construction_and_respects_bounds(d, upper):
    exact, _ = l1_sensitivity_by_enumeration(d, upper_triangle=upper)
    attained = l1_sensitivity_attained(d, 1, upper_triangle=upper)
    bound = l1_sensitivity_second_moment(d, 1, upper_triangle=upper)
    assert abs(exact - attained) <= TOL * d * d
    assert exact <= bound + TOL * d * d
    if d % 2 == 0 and not upper:
        assert bound == pytest.approx(np.sqrt(2) * d, rel=1e-15)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("d", [1, 2, 3, 6, 9])
def test_extremal_pair_is_feasible_and_attains_the_stated_value(d, upper):
    v, w = l1_extremal_pair(d, upper_triangle=upper)
    assert np.linalg.norm(v) <= 1 + 1e-12 and np.linalg.norm(w) <= 1 + 1e-12
    value = entrywise_norm(
        second_moment_difference(v, w, 3), 1, upper_triangle=upper
    )
    assert value == pytest.approx(
        l1_sensitivity_attained(d, 3, upper_triangle=upper), rel=1e-12
    )


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("d", [2, 3, 4, 7, 10])
def test_random_search_never_exceeds_the_closed_form(d, upper):
    rng = np.random.default_rng(d)
    bound = l1_sensitivity_second_moment(d, 1, upper_triangle=upper)
    for on_sphere in (True, False):
        V, W = random_unit_ball_pairs(d, 4000, rng, on_sphere=on_sphere)
        D = _differences(V, W)
        if upper:
            iu = np.triu_indices(d)
            values = np.abs(D[:, iu[0], iu[1]]).sum(axis=1)
        else:
            values = np.abs(D).sum(axis=(1, 2))
        assert values.max() <= bound + TOL * d * d


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("d", [2, 5, 8, 11])
def test_ascent_finds_the_construction_and_not_more(d, upper):
    value, v, w = worst_case_l1_pair(
        d, rng=1, upper_triangle=upper, restarts=200
    )
    assert np.linalg.norm(v) <= 1 + 1e-12 and np.linalg.norm(w) <= 1 + 1e-12
    assert value == pytest.approx(
        entrywise_norm(np.outer(v, v) - np.outer(w, w), 1, upper), rel=1e-14
    )
    assert (
        value
        <= l1_sensitivity_second_moment(d, 1, upper_triangle=upper)
        + TOL * d * d
    )
    assert (
        value
        >= l1_sensitivity_attained(d, 1, upper_triangle=upper) - TOL * d * d
    )


def test_ascent_is_reproducible_and_rejects_bad_arguments():
    a = worst_case_l1_pair(4, rng=3, restarts=5)
    b = worst_case_l1_pair(4, rng=3, restarts=5)
    assert a[0] == b[0] and np.array_equal(a[1], b[1])
    with pytest.raises(ValueError):
        worst_case_l1_pair(0)
    with pytest.raises(ValueError):
        worst_case_l1_pair(3, restarts=0)
    with pytest.raises(ValueError):
        l1_sensitivity_by_enumeration(6)


@pytest.mark.parametrize("d", [2, 3, 5, 12])
def test_lemma2_of_jiang_et_al_brackets_the_true_value(d):
    low, high = jiang_lemma2_l1_sensitivity_bounds(d, 5)
    attained = l1_sensitivity_attained(d, 5)
    assert low <= attained < high
    assert l1_sensitivity_second_moment(d, 5) < high


def test_l1_bounds_scale_as_one_over_n():
    assert l1_sensitivity_second_moment(6, 10) == pytest.approx(
        l1_sensitivity_second_moment(6, 1) / 10
    )
    assert l1_sensitivity_attained(7, 4, True) == pytest.approx(
        l1_sensitivity_attained(7, 1, True) / 4
    )


def test_unitarily_invariant_norms_brute_force():
    rng = np.random.default_rng(5)
    n = 4
    for d in (2, 3, 6):
        V, W = random_unit_ball_pairs(d, 3000, rng, on_sphere=False)
        D = _differences(V, W) / n
        sv = np.linalg.svd(D, compute_uv=False)
        iu = np.triu_indices(d)
        fro = np.sqrt((sv**2).sum(axis=1))
        fro_upper = np.sqrt((D[:, iu[0], iu[1]] ** 2).sum(axis=1))
        assert fro.max() <= frobenius_sensitivity_second_moment(n) + TOL
        assert (
            fro_upper.max()
            <= frobenius_sensitivity_second_moment(n, upper_triangle=True) + TOL
        )
        assert (
            sv.sum(axis=1).max()
            <= nuclear_norm_sensitivity_second_moment(n) + TOL
        )
        assert sv[:, 0].max() <= spectral_sensitivity_second_moment(n) + TOL
        # the closed-form spectrum of v v^T - w w^T
        for i in range(20):
            lp, lm = difference_spectrum(V[i], W[i])
            ev = np.linalg.eigvalsh(D[i] * n)
            assert lp == pytest.approx(
                ev[-1], abs=1e-12
            ) and lm == pytest.approx(ev[0], abs=1e-12)


def test_unitarily_invariant_maxima_are_attained():
    n = 3
    e1, e2 = np.eye(4)[0], np.eye(4)[1]
    D = second_moment_difference(e1, e2, n)
    assert np.linalg.norm(D) == pytest.approx(
        frobenius_sensitivity_second_moment(n), rel=1e-15
    )
    assert entrywise_norm(D, 2, upper_triangle=True) == pytest.approx(
        np.sqrt(2) / n, rel=1e-15
    )
    assert np.linalg.norm(D, "nuc") == pytest.approx(
        nuclear_norm_sensitivity_second_moment(n), rel=1e-14
    )
    assert np.linalg.norm(D, 2) == pytest.approx(
        spectral_sensitivity_second_moment(n), rel=1e-14
    )
    # the Wishart proof's nuclear bound is loose by the factor 3/2
    assert jiang_theorem4_nuclear_bound(
        n
    ) / nuclear_norm_sensitivity_second_moment(n) == pytest.approx(1.5)


def test_entrywise_norm_by_hand():
    M = np.array([[1.0, -2.0], [-2.0, 3.0]])
    assert entrywise_norm(M, 1) == 8.0
    assert entrywise_norm(M, 1, upper_triangle=True) == 6.0
    assert entrywise_norm(M, 2) == pytest.approx(np.sqrt(18.0))
    assert entrywise_norm(M, 2, upper_triangle=True) == pytest.approx(
        np.sqrt(14.0)
    )
    with pytest.raises(ValueError):
        entrywise_norm(M, 3)
    with pytest.raises(ValueError):
        entrywise_norm(np.ones(3))
