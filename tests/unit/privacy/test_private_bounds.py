"""dppca.privacy.private_bounds and its scores (dppca.privacy.quantile_scores):
the law the sampler draws, accuracy, validation."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from dppca.linalg import rows
from dppca.privacy import noise
from dppca.privacy.guarantees import Release
from dppca.privacy.private_bounds import (
    PrivateBound,
    candidate_grid,
    centred_norm_quantile,
    norm_quantile,
)
from dppca.privacy.quantile_scores import quantile_utilities
from dppca.privacy.selection import exact_epsilon, permute_and_flip


def pf_law_by_orders(utilities, epsilon):
    """Exact law of permute-and-flip, summed over every visiting order:
    P(r) = (1/G!) Σ_π Π_{s before r in π} (1 − p_s) · p_r."""
    u = np.asarray(utilities, dtype=float)
    p = np.exp(float(epsilon) * (u - u.max()) / 2)
    G = u.size
    law = np.zeros(G)
    for order in itertools.permutations(range(G)):
        reach = 1.0  # probability of reaching this position
        for r in order:
            law[r] += reach * p[r]
            reach *= 1 - p[r]
    return law / math.factorial(G)


def exponential_law(utilities, epsilon):
    u = np.asarray(utilities, dtype=float)
    w = np.exp(float(epsilon) * (u - u.max()) / 2)
    return w / w.sum()


def sample(utilities, epsilon, draws, seed):
    rng = np.random.default_rng(seed)
    u = np.asarray(utilities, dtype=np.int64)
    out = [permute_and_flip(u, epsilon, rng) for _ in range(draws)]
    return np.bincount(out, minlength=u.size)


# -- the law --------------------------------------------------------------------


@pytest.mark.parametrize(
    "utilities, epsilon, draws, seed",
    [
        ([0, -1, -3, -2], 1.0, 20_000, 11),  # distinct utilities, ε = 1
        ([0, 0, -2], 0.7, 10_000, 12),  # a tie at the top, ε not a dyadic
    ],
)
def test_sampler_draws_the_permute_and_flip_law(
    utilities, epsilon, draws, seed
):
    expected = pf_law_by_orders(utilities, exact_epsilon(epsilon))
    observed = sample(utilities, epsilon, draws, seed)
    p = stats.chisquare(observed, expected * draws).pvalue
    assert p > 1e-4, (observed / draws, expected, p)
    # and not the exponential mechanism's law, which differs here
    em = exponential_law(utilities, epsilon)
    assert np.max(np.abs(em - expected)) > 0.02


def test_law_by_orders_is_normalised_and_has_the_closed_form_for_two():
    # two candidates, gap g: P(best) = (1 + (1 − p)) / 2 = 1 − p/2
    for g, eps in [(1, 1.0), (3, 0.4), (0, 2.0)]:
        law = pf_law_by_orders([0, -g], eps)
        p = math.exp(-eps * g / 2)
        assert law.sum() == pytest.approx(1.0)
        assert law[0] == pytest.approx(1 - p / 2 if g else 0.5)


@settings(deadline=None, derandomize=True, max_examples=60)
@given(
    st.lists(st.integers(-12, 0), min_size=2, max_size=6),
    st.sampled_from([0.1, 0.5, 1.0, 3.0]),
)
def test_permute_and_flip_beats_the_exponential_mechanism(utilities, eps):
    """[MS20]'s claim: expected utility never below the exponential
    mechanism's (exact laws)."""
    u = np.asarray(utilities, dtype=float)
    pf = pf_law_by_orders(utilities, eps) @ u
    em = exponential_law(utilities, eps) @ u
    assert pf >= em - 1e-12


def test_exact_epsilon_is_the_float_or_just_below():
    for eps in [1.0, 0.1, 0.7, 2**-9, 3.0, 1e3]:
        assert exact_epsilon(eps) == Fraction(eps)
    for eps in [1e-3, 1e-10, 2**-9 * 0.9]:
        e = exact_epsilon(eps)
        assert e <= Fraction(eps) < e + Fraction(1, 2**61)
        assert e.denominator <= 2**61
    assert exact_epsilon(Fraction(1, 3)) == Fraction(1, 3)


def test_coins_are_drawn_with_integer_arithmetic(monkeypatch):
    calls = []
    real = noise.bernoulli_exp

    def spy(num, den, rng=None):
        num = np.asarray(num)
        calls.append((num.dtype, int(den), int(num.max())))
        return real(num, den, rng)

    monkeypatch.setattr(noise, "bernoulli_exp", spy)
    # huge ε: whole parts beyond 2**62 are split into several exact draws
    assert permute_and_flip(np.array([0, -(10**9), -5]), 1e12, 3) == 0
    permute_and_flip(np.array([0, -1, -7]), 0.1, 4)
    assert calls
    for dtype, den, top in calls:
        assert dtype == np.int64 and 1 <= den <= 2**62 and 0 <= top
        assert top < den or den == 1


# -- accuracy -------------------------------------------------------------------


@pytest.mark.parametrize(
    "quantile, epsilon, grid_points", [(0.9, 0.1, None), (0.5, 1.0, 200)]
)
def test_accuracy_within_the_utility_bound(quantile, epsilon, grid_points):
    n, beta, seeds = 10_000, 0.05, 200
    data = np.random.default_rng(5)
    known = data.lognormal(0.0, 0.5, n)  # the norms, known exactly
    directions = data.standard_normal((n, 3))
    X = directions / np.linalg.norm(directions, axis=1)[:, None]
    X *= known[:, None]
    norms = rows.row_norms(X)
    assert np.allclose(norms, known, rtol=1e-14)
    lower, upper = 0.01, 100.0
    grid = candidate_grid(lower, upper, grid_points)
    G = grid.size
    target = math.ceil(quantile * n)
    counts = np.searchsorted(np.sort(known), grid, side="right")
    best = np.min(np.abs(counts - target))  # the best the grid allows
    tau = (2 / epsilon) * (math.log(G) + math.log(1 / beta))
    misses = 0
    for seed in range(seeds):
        b = norm_quantile(
            norms,
            quantile,
            epsilon,
            lower=lower,
            upper=upper,
            grid_points=grid_points,
            rng=seed,
        )
        count = int(np.sum(known <= b.bound))
        misses += abs(count - target) >= best + tau
    # P(miss) ≤ β; 20 or more of 200 has probability < 0.002 at β = 0.05
    assert misses < 20, misses
    # the first release through the rows themselves gives the same bound
    assert (
        norm_quantile(
            X,
            quantile,
            epsilon,
            lower=lower,
            upper=upper,
            grid_points=grid_points,
            rng=0,
        ).bound
        == norm_quantile(
            known,
            quantile,
            epsilon,
            lower=lower,
            upper=upper,
            grid_points=grid_points,
            rng=0,
        ).bound
    )


# -- the release ----------------------------------------------------------------


def test_release_record_and_fields():
    X = np.random.default_rng(0).standard_normal((500, 4))
    b = norm_quantile(X, 0.9, 0.3, lower=0.1, upper=50.0, rng=0)
    assert isinstance(b, PrivateBound)
    assert b.bound == b.grid[b.index] and float(b) == b.bound
    assert b.quantile == 0.9
    assert not b.grid.flags.writeable
    g = b.guarantee
    assert isinstance(g, Release)
    assert (g.kind, g.epsilon, g.delta) == ("pure", 0.3, 0.0)
    assert (g.noise, g.sampler, g.proved) == ("safe", "exact", True)
    assert g.row_bound == "any rows (norms only)"
    assert g.chapter == "chapter 13" and "permute-and-flip" in g.theorem
    assert "MS20" in g.theorem
    # nothing data dependent besides the choice: no count unless asked for
    # (then a private one, with its record), never a true clipping rate
    fields = {f for f in b.__dataclass_fields__}
    assert fields == {
        "bound",
        "index",
        "quantile",
        "grid",
        "guarantee",
        "clipped",
        "count_guarantee",
    }
    assert b.clipped is None and b.count_guarantee is None


def test_default_grid_is_four_per_octave():
    grid = candidate_grid(1.0, 16.0)
    assert grid.size == 17
    assert np.allclose(grid, 2.0 ** (np.arange(17) / 4), rtol=1e-14)
    assert grid[0] == 1.0 and grid[-1] == 16.0
    assert candidate_grid(1.0, 1.1).size == 2
    assert candidate_grid(2.0, 3.0, 7).size == 7


def test_utilities_are_counts_against_the_ceiling_of_q_n():
    norms = np.array([0.5, 1.0, 1.5, 2.0, 9.0])
    grid = np.array([1.0, 2.0, 4.0])
    # counts 2, 4, 4; ⌈0.7 · 5⌉ = 4
    assert quantile_utilities(norms, grid, 0.7).tolist() == [-2, 0, 0]
    # ⌈0.6 · 5⌉ = 3 exactly, though 0.6 * 5 is 3.0000000000000004 in float
    assert quantile_utilities(norms, grid, 0.6).tolist() == [-1, -1, -1]


def test_reproducible_under_a_seed_and_random_across_seeds():
    X = np.random.default_rng(1).standard_normal((300, 3))
    kw = dict(lower=0.05, upper=20.0, grid_points=60)
    first = [norm_quantile(X, 0.5, 0.02, rng=s, **kw).index for s in range(8)]
    again = [norm_quantile(X, 0.5, 0.02, rng=s, **kw).index for s in range(8)]
    assert first == again
    assert len(set(first)) > 1


def test_sparse_equals_dense_under_one_seed():
    rng = np.random.default_rng(2)
    dense = rng.standard_normal((400, 30))
    dense[rng.random(dense.shape) < 0.8] = 0.0
    sparse = scipy.sparse.csr_matrix(dense)
    kw = dict(lower=0.1, upper=30.0, grid_points=80)
    for seed in range(5):
        a = norm_quantile(dense, 0.8, 0.5, rng=seed, **kw)
        b = norm_quantile(sparse, 0.8, 0.5, rng=seed, **kw)
        c = norm_quantile(sparse.tocsc(), 0.8, 0.5, rng=seed, **kw)
        assert a.index == b.index == c.index
    mean = rng.standard_normal(30) * 0.1
    for seed in range(5):
        a = centred_norm_quantile(
            dense, mean, 0.8, 0.5, pre_clip=2.0, rng=seed, **kw
        )
        b = centred_norm_quantile(
            sparse, mean, 0.8, 0.5, pre_clip=2.0, rng=seed, **kw
        )
        assert a.index == b.index


def test_centred_quantile_clips_then_centres_row_by_row():
    rng = np.random.default_rng(3)
    d = 6
    mean = rng.standard_normal(d)
    X = mean + rng.standard_normal((2000, d)) * 0.5
    X[:50] *= 100  # long rows, clipped to R before centring
    R = 4.0
    factors = rows.clip_factors(rows.row_norms(X), R, True, n_features=d)
    expected_norms = np.linalg.norm(X * factors[:, None] - mean, axis=1)
    kw = dict(lower=0.01, upper=100.0)
    for seed in range(4):
        a = centred_norm_quantile(X, mean, 0.9, 1.0, pre_clip=R, rng=seed, **kw)
        b = norm_quantile(expected_norms, 0.9, 1.0, rng=seed, **kw)
        assert a.index == b.index
    # without pre_clip the long rows stay long
    c = centred_norm_quantile(X, mean, 0.99, 1.0, rng=0, **kw)
    assert c.bound > 10


def test_centred_quantile_far_from_the_origin():
    """A centre 10⁹ away: rows are centred before their norm, so the
    offsets' quantile comes back (the expansion would return noise)."""
    rng = np.random.default_rng(4)
    d = 4
    centre = np.full(d, 1e9 / 2)
    radii = rng.uniform(0.5, 1.0, 3000)
    offsets = rng.standard_normal((3000, d))
    offsets *= (radii / np.linalg.norm(offsets, axis=1))[:, None]
    X = centre + offsets
    b = centred_norm_quantile(
        X, centre, 0.5, 2.0, lower=1e-3, upper=10.0, grid_points=400, rng=0
    )
    true_median = np.median(radii)
    assert abs(b.bound / true_median - 1) < 0.05


# -- validation -----------------------------------------------------------------


X0 = np.ones((5, 2))
OK = dict(lower=0.1, upper=10.0)


@pytest.mark.parametrize("q", [0.0, 1.0, -0.1, 1.5, float("nan")])
def test_quantile_out_of_range(q):
    with pytest.raises(ValueError, match="quantile"):
        norm_quantile(X0, q, 1.0, **OK)


@pytest.mark.parametrize("q", [True, "0.5", None])
def test_quantile_not_a_number(q):
    with pytest.raises(TypeError, match="quantile"):
        norm_quantile(X0, q, 1.0, **OK)


@pytest.mark.parametrize(
    "lower, upper",
    [(0.0, 1.0), (-1.0, 1.0), (2.0, 1.0), (1.0, 1.0), (1.0, np.inf)],
)
def test_bad_range(lower, upper):
    with pytest.raises(ValueError, match="lower"):
        norm_quantile(X0, 0.5, 1.0, lower=lower, upper=upper)


@pytest.mark.parametrize("points", [1, 0, 10_001])
def test_grid_size_out_of_range(points):
    with pytest.raises(ValueError, match="grid_points"):
        norm_quantile(X0, 0.5, 1.0, grid_points=points, **OK)


@pytest.mark.parametrize("points", [2.5, True, "4"])
def test_grid_size_not_an_integer(points):
    with pytest.raises(TypeError, match="grid_points"):
        norm_quantile(X0, 0.5, 1.0, grid_points=points, **OK)


def test_grid_not_distinct_in_float64():
    with pytest.raises(ValueError, match="distinct"):
        candidate_grid(1.0, 1.0 + 1e-15, 100)


@pytest.mark.parametrize("eps", [0.0, -1.0, np.inf, np.nan])
def test_bad_epsilon(eps):
    with pytest.raises(ValueError, match="epsilon"):
        norm_quantile(X0, 0.5, eps, **OK)


def test_epsilon_not_a_number():
    with pytest.raises(TypeError):
        norm_quantile(X0, 0.5, "1", **OK)


def test_bad_data():
    bad = X0.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        norm_quantile(bad, 0.5, 1.0, **OK)
    with pytest.raises(ValueError, match="norms"):
        norm_quantile(np.array([1.0, -1.0]), 0.5, 1.0, **OK)
    with pytest.raises(ValueError, match="norms"):
        norm_quantile(np.array([1.0, np.inf]), 0.5, 1.0, **OK)
    with pytest.raises(ValueError):
        norm_quantile(np.ones((2, 2, 2)), 0.5, 1.0, **OK)
    with pytest.raises(ValueError, match="mean"):
        centred_norm_quantile(X0, np.zeros(3), 0.5, 1.0, **OK)
    with pytest.raises(ValueError, match="mean"):
        centred_norm_quantile(X0, np.array([0.0, np.nan]), 0.5, 1.0, **OK)
    with pytest.raises(ValueError, match="NaN"):
        centred_norm_quantile(bad, np.zeros(2), 0.5, 1.0, **OK)
    with pytest.raises(ValueError, match="data_norm"):
        centred_norm_quantile(X0, np.zeros(2), 0.5, 1.0, pre_clip=-1.0, **OK)


def test_parameters_checked_before_the_data_is_read():
    bad = X0.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="quantile"):
        norm_quantile(bad, 1.0, 1.0, **OK)
    with pytest.raises(ValueError, match="quantile"):
        centred_norm_quantile(bad, np.zeros(3), 1.0, 1.0, **OK)


def test_sampler_input_checks():
    with pytest.raises(ValueError, match="integer"):
        permute_and_flip(np.array([0.0, -1.0]), 1.0, 0)
    with pytest.raises(ValueError, match="integer"):
        permute_and_flip(np.array([], dtype=np.int64), 1.0, 0)
    with pytest.raises(ValueError, match="epsilon"):
        permute_and_flip(np.array([0, -1]), Fraction(0), 0)


# -- the public prior, the tail guard and the clipped count (issue 30) ----------


def scored_law_by_orders(scores):
    """Exact law of permute-and-flip with coins p_r = exp(−(S* − S_r)),
    summed over every visiting order."""
    S = np.asarray(scores, dtype=float)
    p = np.exp(S - S.max())
    law = np.zeros(S.size)
    for order in itertools.permutations(range(S.size)):
        reach = 1.0
        for r in order:
            law[r] += reach * p[r]
            reach *= 1 - p[r]
    return law / math.factorial(S.size)


def test_sampler_with_a_penalty_draws_its_law():
    eps = 0.6
    u = np.array([-3, 0, -1, -5, -2])
    h = np.arange(5)
    law = scored_law_by_orders(eps * u / 2 - h / 2)
    rng = np.random.default_rng(11)
    draws = 3000
    out = [permute_and_flip(u, eps, rng, h) for _ in range(draws)]
    counts = np.bincount(out, minlength=u.size)
    assert stats.chisquare(counts, law * draws).pvalue > 1e-4


@pytest.mark.parametrize("eps", [0.05, 0.5, 2.0])
def test_penalty_keeps_epsilon_on_adversarial_neighbours(eps):
    """Every utility vector within ℓ∞ distance 1 of another (each entry ±1
    or 0, the worst a replaced row can do): the exact laws with the prior
    differ by at most e^ε, and the penalty is data-independent."""
    u = np.array([-2, 0, -1, -4])
    h = np.arange(4)
    P = scored_law_by_orders(eps * u / 2 - h / 2)
    worst = 0.0
    for shift in itertools.product((-1, 0, 1), repeat=4):
        v = u + np.array(shift)
        Q = scored_law_by_orders(eps * v / 2 - h / 2)
        worst = max(worst, float(np.max(np.abs(np.log(P) - np.log(Q)))))
    assert worst <= eps * (1 + 1e-9), (worst, eps)
    assert worst > 0.5 * eps  # the check has teeth: the bound is nearly met


def test_penalty_is_checked():
    with pytest.raises(ValueError, match="penalty"):
        permute_and_flip(np.array([0, -1]), 1.0, 0, [0, -1])
    with pytest.raises(ValueError, match="penalty"):
        permute_and_flip(np.array([0, -1]), 1.0, 0, [0])


def test_tail_guarded_quantile():
    from dppca.privacy.quantile_scores import tail_guarded_quantile

    # large n ε: the target itself
    assert tail_guarded_quantile(0.95, 10**6, 1.0, 50, 0.05) == 0.95
    n, eps, G, beta = 1797, 0.08, 57, 0.05
    tau = (2 / eps) * (math.log(G) + math.log(1 / beta))
    assert tail_guarded_quantile(0.95, n, eps, G, beta) == pytest.approx(
        1 - tau / n
    )
    assert tail_guarded_quantile(0.95, 50, 0.01, G, beta) == 0.5  # floor


def test_guarded_release_does_not_land_in_the_empty_octaves():
    """Discrete norms packed below 48 and a range up to 256: without the
    guard the release lands above every norm often; with it, rarely."""
    rng = np.random.default_rng(0)
    norms = np.round(rng.normal(30.0, 5.0, 1800).clip(5, 48))
    grid = dict(lower=2.0, upper=256.0, grid_points=57)
    above = {None: 0, 0.05: 0}
    for guard in above:
        for seed in range(200):
            b = norm_quantile(
                norms, 0.95, 0.08, rng=seed, tail_guard=guard, **grid
            )
            above[guard] += b.bound > norms.max() * 1.2
    assert above[0.05] < 20 and above[None] > 2 * above[0.05], above


def test_clipped_count_law_and_record():
    from dppca.privacy.private_bounds import clipped_count

    norms = np.array([1.0, 2.0, 3.0, 4.0, 5.0])
    eps = 0.5
    t = math.ceil(1 / eps)
    draws = [clipped_count(norms, 2.5, eps, seed)[0] for seed in range(4000)]
    noise_values = np.array(draws) - 3  # three norms above 2.5
    support = np.arange(-12, 13)
    pmf = np.exp(-np.abs(support) / t)
    pmf /= np.sum(np.exp(-np.abs(np.arange(-400, 401)) / t))
    observed = np.array([np.sum(noise_values == z) for z in support])
    assert (
        stats.chisquare(
            observed, pmf * 4000 * observed.sum() / (pmf * 4000).sum()
        ).pvalue
        > 1e-4
    )
    # the exact law of neighbours (counts c, c + 1): ratio at most e^(1/t)
    log_ratio = np.abs(np.abs(support) - np.abs(support - 1)) / t
    assert np.max(log_ratio) == pytest.approx(1 / t) and 1 / t <= eps
    record = clipped_count(norms, 2.5, eps, 0)[1]
    assert (record.kind, record.epsilon, record.proved) == ("pure", eps, True)
    assert "clipped" in record.label


def test_release_with_a_count_records_it():
    X = np.random.default_rng(0).standard_normal((2000, 4))
    b = norm_quantile(
        X, 0.9, 0.4, lower=0.1, upper=50.0, rng=0, count_epsilon=0.1
    )
    assert b.count_guarantee.epsilon == 0.1
    true = int(np.sum(np.linalg.norm(X, axis=1) > b.bound))
    assert abs(b.clipped - true) < 200  # Laplace of scale 10 rows


def test_band_utilities_have_sensitivity_one_on_adversarial_neighbours():
    """A row moved from below every candidate to above every one (every
    count drops by one) and rows moved across the band's edges: the
    utilities move by at most one, and the exact laws by at most e^ε."""
    from dppca.privacy.quantile_scores import band_utilities

    grid = candidate_grid(1.0, 16.0, 5)
    base = np.geomspace(1.0, 16.0, 11)[1:-1] * 1.001
    for moved_from, moved_to in [(0.0, 1e9), (1e9, 0.0), (3.0, 9.0)]:
        norms = np.append(base, moved_from)
        neighbour = np.append(base, moved_to)
        for low, high in [(0.5, 0.9), (0.6, 0.6), (0.5, 0.95)]:
            u = band_utilities(norms, grid, low, high)
            v = band_utilities(neighbour, grid, low, high)
            assert np.max(np.abs(u - v)) <= 1
            for eps in (0.1, 1.0):
                P = scored_law_by_orders(eps * u / 2)
                Q = scored_law_by_orders(eps * v / 2)
                worst = float(np.max(np.abs(np.log(P) - np.log(Q))))
                assert worst <= eps * (1 + 1e-9)
    # the band's utilities are zero inside it and the distance outside
    norms = np.array([0.5, 1.0, 1.5, 2.0, 9.0])
    u = band_utilities(norms, np.array([0.7, 1.2, 2.5, 20.0]), 0.375, 0.75)
    # counts 1, 2, 4, 5 against the band [⌈1.875⌉, ⌈3.75⌉] = [2, 4]
    assert u.tolist() == [-1, 0, 0, -1]
