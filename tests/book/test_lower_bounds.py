"""Unit tests of dppca.book.bounds.lower (chapter 19's lower bounds)."""

from __future__ import annotations

import numpy as np
import pytest

from dppca.book.bounds import exponential as bounds8
from dppca.book.bounds import lower

SIGNAL, NOISE = lower.spiked_sphere_signal(40, 20.0)


def test_rates_fall_with_n_and_epsilon_and_grow_with_d():
    ns = np.array([100, 1000, 10_000])
    for k in (1, 3):
        rate = lower.minimax_rate(ns, 40, k, 1.0, SIGNAL, NOISE)
        assert np.all(np.diff(rate) < 0)
        small, large = (
            lower.private_rate(1000, 40, k, eps, SIGNAL, NOISE)
            for eps in (0.5, 2)
        )
        assert small > large
        assert lower.nonprivate_rate(1000, 80, k, SIGNAL, NOISE) > (
            lower.nonprivate_rate(1000, 40, k, SIGNAL, NOISE)
        )
        assert lower.private_rate(1000, 80, k, 1.0, SIGNAL, NOISE) > (
            lower.private_rate(1000, 40, k, 1.0, SIGNAL, NOISE)
        )
    assert lower.minimax_rate(1, 40, 2, 0.01, SIGNAL, NOISE) == pytest.approx(
        np.sqrt(2)
    )


def test_private_term_dominates_at_small_epsilon_n():
    # the privacy term wins exactly when eps * sqrt(n) < sqrt(d - 1)
    for n, eps in ((50, 0.1), (200, 0.2), (1000, 0.05)):
        assert eps * np.sqrt(n) < np.sqrt(39)
        assert lower.private_rate(n, 40, 1, eps, SIGNAL, NOISE) > (
            lower.nonprivate_rate(n, 40, 1, SIGNAL, NOISE)
        )
    assert lower.private_rate(10**6, 40, 1, 1.0, SIGNAL, NOISE) < (
        lower.nonprivate_rate(10**6, 40, 1, SIGNAL, NOISE)
    )


def test_explicit_bound_is_monotone():
    values = [
        lower.explicit_k1_lower_bound(n, 20, 1.0, 0.3).value
        for n in (200, 800, 3200)
    ]
    assert values[0] > values[1] > values[2] > 0
    by_eps = [
        lower.explicit_k1_lower_bound(2000, 20, eps, 0.3).value
        for eps in (0.25, 1.0, 4.0)
    ]
    assert by_eps[0] > by_eps[1] > by_eps[2]
    by_d = [
        lower.explicit_k1_lower_bound(2000, d, 1.0, 0.3).value
        for d in (5, 20, 80)
    ]
    assert by_d[0] < by_d[1] < by_d[2]
    pure = lower.explicit_k1_lower_bound(2000, 20, 1.0, 0.3).value
    approx = lower.explicit_k1_lower_bound(2000, 20, 1.0, 0.3, delta=1e-3).value
    assert approx <= pure


def test_explicit_bound_matches_a_direct_packing_evaluation():
    rng = np.random.default_rng(3)
    d, n, gap, m, eps = 6, 500, 0.25, 10, 0.3
    z = rng.standard_normal((3000, d - 1))
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    packing = z[:1]
    for w in z[1:]:
        if np.max(np.abs(packing @ w)) <= 0.5:
            packing = np.vstack([packing, w])
    W = np.hstack([np.zeros((len(packing), 1)), packing])
    _, moments, tops = bounds8.theorem8_datasets(np.eye(d)[0], W, n, m, gap)
    for A in moments:
        top2 = np.linalg.eigvalsh(A)[-2:]
        assert top2[1] - top2[0] == pytest.approx(gap, abs=1e-12)
    closest = np.max((packing @ packing.T)[np.triu_indices(len(packing), 1)])
    sep = np.sqrt(
        1 - np.max(np.abs(tops @ tops.T)[np.triu_indices(len(tops), 1)]) ** 2
    )
    theta = lower.tilt_angle(m / n, gap)
    assert sep == pytest.approx(
        float(lower.line_separation(theta, closest)), abs=1e-9
    )
    # the packing argument with this packing's M, evaluated directly
    M = len(packing)
    success = np.exp(m * eps) / (np.exp(m * eps) + M - 1)
    direct = sep / 2 * (1 - success)
    formula = (
        lower.line_separation(theta, closest)
        / 2
        * (1 - lower.packing_success_bound(np.log(M - 1), m * eps))
    )
    assert direct == pytest.approx(float(formula), rel=1e-9)
    # the greedy packing is a maximal one up to sampling: at least 1/s lines
    assert (
        np.log(M - 1) >= float(lower.log_packing_minus_one(d - 1, 0.5)) - 1e-9
    )


def test_packing_success_bound_reduces_to_the_toolkit_theorem():
    for M, em in ((8, 0.5), (8, 4.0), (1000, 2.0)):
        assert float(lower.packing_success_bound(np.log(M - 1), em)) == (
            pytest.approx(np.exp(em) / (np.exp(em) + M - 1))
        )
    assert float(lower.group_delta(0.1, 1e-6, 1)) == pytest.approx(1e-6)
    assert float(lower.group_delta(1.0, 1e-6, 2000)) == 1.0


def test_inputs_are_checked():
    with pytest.raises(ValueError):
        lower.explicit_k1_lower_bound(100, 2, 1.0, 0.3)
    with pytest.raises(ValueError):
        lower.explicit_k1_lower_bound(100, 10, 1.0, 0.6)
    with pytest.raises(ValueError):
        lower.private_rate(100, 10, 10, 1.0, SIGNAL, NOISE)
    with pytest.raises(ValueError):
        lower.nonprivate_rate(-1, 10, 1, SIGNAL, NOISE)
