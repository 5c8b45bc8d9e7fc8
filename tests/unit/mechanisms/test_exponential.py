"""PPCA (001, Algorithm 2): score sensitivity, the privacy ratio of its exact
law, input checks."""

import numpy as np
import pytest
from scipy import integrate

from dppca.book.bounds import exponential as bounds
from dppca.linalg import haar_subspace, second_moment
from dppca.mechanisms import exponential


def random_rows(n, d, rng):
    X = rng.standard_normal((n, d))
    return (
        X / np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(0, 1, (n, 1))
    )


def test_score_sensitivity_random_neighbours():
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(300):
        d = int(rng.integers(2, 9))
        k = int(rng.integers(1, d))
        X = random_rows(int(rng.integers(1, 30)), d, rng)
        Xp = X.copy()
        Xp[rng.integers(len(X))] = random_rows(1, d, rng)[0]
        V = haar_subspace(d, k, rng)
        worst = max(worst, exponential.score_sensitivity(X, Xp, V))
    assert worst <= exponential.SCORE_SENSITIVITY


def test_score_sensitivity_adversarial_neighbours_reach_one():
    """Replace a unit row inside span(V) by a unit row orthogonal to it: the
    change is exactly 1,
    so the sensitivity bound of Theorem 6 is tight (and never exceeded)."""
    rng = np.random.default_rng(1)
    for d, k in [(2, 1), (5, 2), (10, 9)]:
        X = random_rows(12, d, rng)
        V = haar_subspace(d, k, rng)
        inside = V[:, 0]
        outside = np.linalg.qr(np.column_stack([V, rng.standard_normal(d)]))[0][
            :, k
        ]
        X[0], Xp = inside, X.copy()
        Xp[0] = outside
        change = exponential.score_sensitivity(X, Xp, V)
        assert change <= 1 + 1e-12 and change >= 1 - 1e-12
        # no V does better: the top eigenvalue of x x^T - x' x'^T is at most 1
        diff = np.outer(X[0], X[0]) - np.outer(Xp[0], Xp[0])
        assert np.abs(np.linalg.eigvalsh(diff)).max() <= 1 + 1e-12


def circle_law(A, n, eps, grid):
    """The exact PPCA density on the unit circle (k = 1, d = 2), as a
    function of the angle."""
    B = n * eps / 2 * A

    def f(t):
        x = np.array([np.cos(t), np.sin(t)])
        return np.exp(x @ B @ x - np.abs(B).sum())

    Z = integrate.quad(f, 0, 2 * np.pi, limit=200)[0]
    return np.array([f(t) for t in grid]) / Z, f, Z


def test_ppca_privacy_ratio_on_adversarial_neighbours_d2():
    """On the worst-case pair of neighbours the exact PPCA density ratio
    stays <= e^ε and the
    sampler's output histogram matches the exact law (so the ratio claim
    applies to it)."""
    eps, n = 1.0, 3
    X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    Xp = X.copy()
    Xp[0] = [0.0, 1.0]
    grid = np.linspace(0, 2 * np.pi, 2001)
    p, _, _ = circle_law(second_moment(X), n, eps, grid)
    pp, _, _ = circle_law(second_moment(Xp), n, eps, grid)
    ratio = np.max(np.abs(np.log(p / pp)))
    assert ratio <= eps + 1e-9
    # the bound is not vacuous here; the ratio is exactly 0.5 * eps, which
    # numpy 1.26 computes one ulp below
    assert ratio >= 0.5 * eps - 1e-12
    # histogram of |angle| in [0, pi/2] against exact bin probabilities
    rng = np.random.default_rng(3)
    draws = np.array(
        [
            exponential.ppca(X, 1, epsilon=eps, rng=rng)[:, 0]
            for _ in range(2500)
        ]
    )
    angle = np.arctan2(np.abs(draws[:, 1]), np.abs(draws[:, 0]))
    edges = np.linspace(0, np.pi / 2, 7)
    _, f, Z = circle_law(second_moment(X), n, eps, grid)
    probs = np.array(
        [
            4 * integrate.quad(f, a, b)[0] / Z
            for a, b in zip(edges[:-1], edges[1:])
        ]
    )
    assert np.isclose(probs.sum(), 1.0)
    counts = np.histogram(angle, edges)[0]
    se = np.sqrt(probs * (1 - probs) / len(angle))
    assert np.all(np.abs(counts / len(angle) - probs) <= 4.5 * se)


def test_ppca_shapes_and_samplers():
    rng = np.random.default_rng(4)
    X = random_rows(200, 6, rng)
    for kw in (
        {},
        {"sampler": "fast", "n_sweeps": 3},
        {"sampler": "hoff", "n_sweeps": 3},
    ):
        V = exponential.ppca(X, 2, epsilon=1.0, rng=rng, **kw)
        assert V.shape == (6, 2) and np.allclose(V.T @ V, np.eye(2), atol=1e-10)
    v = exponential.ppca(X, 1, epsilon=1.0, rng=rng)
    assert v.shape == (6, 1)
    V = exponential.ppca_from_second_moment(
        second_moment(X), 200, 3, epsilon=0.5, rng=rng, n_sweeps=2
    )
    assert V.shape == (6, 3)


def test_bad_inputs_rejected():
    rng = np.random.default_rng(5)
    X = random_rows(20, 4, rng)
    for k in (0, 4, 5, -1):
        with pytest.raises(ValueError):
            exponential.ppca(X, k, epsilon=1.0)
    with pytest.raises(TypeError):
        exponential.ppca(X, 1.5, epsilon=1.0)
    for eps in (0, -1, np.inf, np.nan):
        with pytest.raises(ValueError):
            exponential.ppca(X, 1, epsilon=eps)
    Xbad = X.copy()
    Xbad[3] *= 3
    with pytest.raises(ValueError, match="norm > 1"):
        exponential.ppca(Xbad, 1, epsilon=1.0)
    with pytest.raises(ValueError):
        exponential.ppca(X, 1, epsilon=1.0, sampler="magic")
    with pytest.raises(ValueError):
        exponential.ppca(X, 2, epsilon=1.0, n_sweeps=0)
    with pytest.raises(ValueError):
        exponential.ppca(np.full((3, 4), np.nan), 1, epsilon=1.0)


def test_bounds_basic_relations():
    # Theorem 7 sample size decreases in epsilon and in the gap, grows with d
    a = bounds.theorem7_sample_size(50, 1.0, 0.1, 0.9, 0.05, 0.5)
    assert bounds.theorem7_sample_size(100, 1.0, 0.1, 0.9, 0.05, 0.5) > a
    assert bounds.theorem7_sample_size(50, 2.0, 0.1, 0.9, 0.05, 0.5) < a
    # at that n the unsimplified bound (10) is below eta
    n = int(np.ceil(a))
    assert bounds.theorem7_failure_bound(n, 50, 1.0, 0.5, 0.4, 0.9) <= 0.05
    # Theorem 8: ln(K-1) = d for the proof's K
    for d in (3, 10, 100):
        phi = 1 - bounds.theorem8_one_minus_phi(d)
        K = bounds.packing_size_theorem8_proof(d, phi)
        assert np.isclose(np.log(K - 1), d, rtol=1e-6)
        assert K >= bounds.packing_size_lemma11(d - 1, phi)
    assert np.isclose(bounds.theorem8_one_minus_phi(100), 0.1245, atol=5e-4)
    lo, hi = bounds.lemma10_cap_bounds(10, 0.5)
    assert lo <= hi


# ------------------------------------------------------------------------------
# Add/remove neighbours: max_samples (issue 43, dppca.mechanisms.padding)
# ------------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::dppca.exceptions.PrivacyWarning")
@pytest.mark.parametrize("k", [1, 2])
def test_a_cap_draws_from_the_padded_moment(k):
    """``ppca(X, k, max_samples=N)`` is ``ppca_from_second_moment`` on the
    zero-padded ``S/N`` at ``n = N`` (the same draw), recorded under the
    add/remove relation; without a cap, the replace-one release."""
    from dppca.linalg import moments
    from dppca.linalg.clipped_sums import clipped_second_moment
    from dppca.privacy.guarantees import add_remove_relation

    rng = np.random.default_rng(0)
    X = random_rows(40, 4, rng)
    padded = clipped_second_moment(X, 1.0, max_samples=300).matrix
    V = exponential.ppca(X, k, epsilon=1.0, rng=5, max_samples=300)
    expected = exponential.ppca_from_second_moment(
        padded, 300, k, epsilon=1.0, rng=5
    )
    assert np.array_equal(V, expected)
    assert V.guarantee.neighbours == add_remove_relation(300)
    assert V.guarantee.kind == expected.guarantee.kind
    plain = exponential.ppca(X, k, epsilon=1.0, rng=5)
    assert np.array_equal(
        plain,
        exponential.ppca_from_second_moment(
            moments.unit_rows_second_moment(X), 40, k, epsilon=1.0, rng=5
        ),
    )
    assert "replace-one" in plain.guarantee.neighbours


def test_a_cap_refuses_more_rows_and_a_concentration_too_large():
    rng = np.random.default_rng(1)
    X = random_rows(40, 4, rng)
    generator = np.random.default_rng(2)
    state = generator.bit_generator.state
    with pytest.raises(ValueError, match="more than max_samples = 39"):
        exponential.ppca(X, 1, epsilon=1.0, rng=generator, max_samples=39)
    # N ε / 2 = 5·10¹¹ > MAX_CONCENTRATION: refused from public values
    with pytest.raises(ValueError, match="MAX_CONCENTRATION"):
        exponential.ppca(X, 1, epsilon=1e6, rng=generator, max_samples=10**6)
    assert generator.bit_generator.state == state  # nothing drawn
    with pytest.raises(TypeError, match="max_samples must be an integer"):
        exponential.ppca(X, 1, epsilon=1.0, max_samples=40.0)
