"""Private bounds (dppca.privacy.private_bounds): pure ε-DP of the law the program
draws, on adversarial replace-one neighbours.

The release is permute-and-flip on integer utilities
``u_j = −|#{i : norm_i ≤ b_j} − ⌈q n⌉|``. The sampler draws exactly the law

    P(r) = p_r Σ_k k!(G−1−k)!/G! · e_k({1 − p_s : s ≠ r}),
    p_s = exp(−ε' (u* − u_s)/2),

(r's position in a uniform order is k with probability 1/G, and the k
candidates before it are a uniform k-subset of the others; e_k is the
elementary symmetric polynomial). ``tests/unit/privacy/test_private_bounds.py`` checks
the sampler against this law; here it is computed on both data sets of a
neighbouring pair, from the utilities the module itself computes, and every
output's log-ratio is checked against ε. All terms are positive, so the
float64 sums carry a relative error of a few G·2⁻⁵³ only.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dppca.privacy.private_bounds import candidate_grid, norm_quantile
from dppca.privacy.quantile_scores import quantile_utilities
from dppca.privacy.selection import exact_epsilon

#: Slack on ε for float64 evaluation of the exact law.
RELATIVE_SLACK = 1e-9


def pf_law(utilities, epsilon):
    """The exact law of permute-and-flip (module docstring), O(G³)."""
    u = np.asarray(utilities, dtype=float)
    G = u.size
    eps = float(exact_epsilon(epsilon))
    p = np.exp(-eps * (u.max() - u) / 2)
    weights = np.array(
        [
            math.factorial(k) * math.factorial(G - 1 - k) / math.factorial(G)
            for k in range(G)
        ]
    )
    law = np.empty(G)
    for r in range(G):
        e = np.zeros(G)  # e[k] = e_k of the others' 1 − p
        e[0] = 1.0
        for s in range(G):
            if s != r:
                e[1:] = e[1:] + e[:-1] * (1 - p[s])
        law[r] = p[r] * (weights @ e)
    return law


def pf_law_by_orders(utilities, epsilon):
    u = np.asarray(utilities, dtype=float)
    p = np.exp(-float(exact_epsilon(epsilon)) * (u.max() - u) / 2)
    law = np.zeros(u.size)
    for order in itertools.permutations(range(u.size)):
        reach = 1.0
        for r in order:
            law[r] += reach * p[r]
            reach *= 1 - p[r]
    return law / math.factorial(u.size)


def worst_log_ratio(norms, neighbour, grid, quantile, epsilon):
    u = quantile_utilities(norms, grid, quantile)
    v = quantile_utilities(neighbour, grid, quantile)
    assert np.max(np.abs(u - v)) <= 1  # sensitivity 1, as computed
    P, Q = pf_law(u, epsilon), pf_law(v, epsilon)
    assert P.sum() == pytest.approx(1) and Q.sum() == pytest.approx(1)
    assert np.all(P > 0) and np.all(Q > 0)
    return float(np.max(np.abs(np.log(P) - np.log(Q))))


def check(norms, neighbour, grid, quantile, epsilon):
    worst = worst_log_ratio(norms, neighbour, grid, quantile, epsilon)
    assert worst <= epsilon * (1 + RELATIVE_SLACK), (worst, epsilon)
    return worst


def test_closed_form_is_the_sum_over_orders():
    for u, eps in [
        ([0, -1, -3, -2], 1.0),
        ([0, 0, -2], 0.7),
        ([-4, 0, -1, -1, -6], 2.5),
        ([0, -1], 0.05),
    ]:
        assert np.allclose(pf_law(u, eps), pf_law_by_orders(u, eps), rtol=1e-12)


# -- constructed neighbours -----------------------------------------------------

GRIDS = {
    "3 points": candidate_grid(1.0, 4.0, 3),
    "6 points": candidate_grid(0.5, 8.0, 6),
    "12 points": candidate_grid(0.1, 100.0, 12),
}


@pytest.mark.parametrize("epsilon", [0.05, 0.5, 1.0, 3.0, 10.0])
@pytest.mark.parametrize("grid_name", sorted(GRIDS))
@pytest.mark.parametrize("quantile", [0.1, 0.5, 0.9])
def test_row_moved_from_below_every_candidate_to_above(
    epsilon, grid_name, quantile
):
    """One row goes from norm 0 to far above ``upper``: every count drops by
    one at once, the largest change a replacement can make."""
    grid = GRIDS[grid_name]
    n = 9
    # the other rows sit between the candidates, spread over the grid
    inside = np.geomspace(grid[0], grid[-1], n - 1) * 1.01
    inside[-1] = grid[-1] * 0.99
    norms = np.append(inside, 0.0)
    neighbour = np.append(inside, grid[-1] * 1e6)
    check(norms, neighbour, grid, quantile, epsilon)


@pytest.mark.parametrize("epsilon", [0.1, 1.0, 4.0])
def test_row_moved_across_the_target(epsilon):
    """The count at the target crosses ⌈q n⌉: the best candidate changes."""
    grid = candidate_grid(1.0, 16.0, 5)  # 1, 2, 4, 8, 16
    norms = np.array([0.5, 1.5, 1.5, 3.0, 3.0, 6.0, 6.0, 12.0])
    for q in (0.25, 0.5, 0.75):
        for i in range(norms.size):
            for new in (0.0, 1.0, 2.0, 5.0, 16.0, 1e9):
                neighbour = norms.copy()
                neighbour[i] = new
                check(norms, neighbour, grid, q, epsilon)


def test_norms_exactly_on_the_candidates():
    """Counts use ``≤``: a row on a candidate counts for it."""
    grid = candidate_grid(1.0, 8.0, 4)  # 1, 2, 4, 8 exactly
    assert grid.tolist() == [1.0, 2.0, 4.0, 8.0]
    norms = np.array([1.0, 2.0, 4.0, 8.0])
    for i, new in itertools.product(range(4), [0.0, 1.0, 8.0, 9.0]):
        neighbour = norms.copy()
        neighbour[i] = new
        check(norms, neighbour, grid, 0.5, 1.0)


def test_one_row():
    grid = candidate_grid(1.0, 100.0, 7)
    for eps in (0.1, 1.0, 5.0):
        check(np.array([0.0]), np.array([1e3]), grid, 0.5, eps)
        check(np.array([3.0]), np.array([30.0]), grid, 0.99, eps)


# -- hypothesis: random data sets and replacements -------------------------------

#: Norms around a grid of 1, 2, …, 2**(G−1): below, on, between, above.
LEVELS = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 64.0, 1e9]


@settings(deadline=None, derandomize=True, max_examples=400)
@given(
    st.lists(st.sampled_from(LEVELS), min_size=1, max_size=25),
    st.data(),
    st.integers(2, 8),
    st.sampled_from([0.01, 0.2, 0.5, 0.9, 0.99]),
    st.sampled_from([0.02, 0.3, 1.0, 2.0, 6.0]),
)
def test_hypothesis_neighbours(norms, data, G, quantile, epsilon):
    grid = candidate_grid(1.0, 2.0 ** (G - 1), G)
    norms = np.array(norms)
    i = data.draw(st.integers(0, norms.size - 1))
    neighbour = norms.copy()
    neighbour[i] = data.draw(st.sampled_from(LEVELS))
    check(norms, neighbour, grid, quantile, epsilon)


def test_the_record_states_the_epsilon_checked():
    """The release's record is the ε these laws were checked at, and its
    ``epsilon`` is not below the ε' the sampler uses."""
    for eps in (0.05, 1.0, 3.0, 1e-3):
        b = norm_quantile(
            np.array([1.0, 2.0]), 0.5, eps, lower=1.0, upper=4.0, rng=0
        )
        assert b.guarantee.kind == "pure" and b.guarantee.epsilon == eps
        assert float(exact_epsilon(eps)) <= eps
        assert b.guarantee.proved


@pytest.mark.parametrize("epsilon", [0.05, 1.0, 3.0, 10.0])
def test_the_check_has_teeth(epsilon):
    """On this pair permute-and-flip's log-ratio reaches ε itself, so a
    sampler drawing at any larger ε would fail the checks above."""
    grid = GRIDS["3 points"]
    inside = np.geomspace(grid[0], grid[-1], 8) * 1.01
    inside[-1] = grid[-1] * 0.99
    norms, neighbour = np.append(inside, 0.0), np.append(inside, 1e9)
    worst = worst_log_ratio(norms, neighbour, grid, 0.5, epsilon)
    assert worst >= 0.999 * epsilon
    louder = worst_log_ratio(norms, neighbour, grid, 0.5, 1.05 * epsilon)
    assert louder > epsilon * (1 + RELATIVE_SLACK)
