"""Tests of dppca.mechanisms.input_perturbation: shapes, symmetry, noise moments,
validation, rng policy."""

import numpy as np
import pytest

from dppca.linalg import moments, top_k_subspace
from dppca.mechanisms import input_perturbation as IP
from dppca.privacy import (
    analyze_gauss_sigma,
    laplace_input_scale,
    mod_sulq_beta,
    wishart_input_scale,
)


def data(n=60, d=5, seed=0):
    X = np.random.default_rng(seed).standard_normal((n, d))
    return X / np.linalg.norm(X, axis=1, keepdims=True)


MECHANISMS = {
    "mod_sulq": lambda X, rng: IP.mod_sulq(X, epsilon=0.5, delta=1e-3, rng=rng),
    "analyze_gauss": lambda X, rng: IP.analyze_gauss(
        X, epsilon=0.5, delta=1e-3, rng=rng
    ),
    "analyze_gauss_classical": lambda X, rng: IP.analyze_gauss(
        X, epsilon=0.5, delta=1e-3, rng=rng, calibration="classical"
    ),
    "laplace": lambda X, rng: IP.laplace_input_perturbation(
        X, epsilon=0.5, rng=rng
    ),
    "wishart": lambda X, rng: IP.wishart_input_perturbation(
        X, epsilon=0.5, rng=rng
    ),
    "wishart_delta": lambda X, rng: IP.wishart_input_perturbation_delta(
        X, delta=0.1, rng=rng
    ),
}


@pytest.mark.parametrize("name", MECHANISMS)
def test_shape_symmetry_and_reproducibility(name):
    X = data()
    M1, M2 = MECHANISMS[name](X, 7), MECHANISMS[name](X, 7)
    assert M1.shape == (5, 5)
    assert np.array_equal(M1, M1.T)
    assert np.array_equal(M1, M2)
    assert not np.array_equal(M1, MECHANISMS[name](X, 8))
    assert top_k_subspace(M1, 2).shape == (5, 2)


def test_wishart_output_is_positive_definite():
    X = data(d=8)
    for seed in range(50):
        assert (
            np.linalg.eigvalsh(
                IP.wishart_input_perturbation(X, epsilon=2.0, rng=seed)
            )[0]
            > 0
        )


def test_second_moment_variants_match_data_versions():
    """The entry points on rows form A as their records claim
    (dppca.linalg.moments.unit_rows_second_moment: clipped to one, float error
    absorbed) and then draw exactly as the entry points on A."""
    X = data()
    A = moments.unit_rows_second_moment(X)
    np.testing.assert_allclose(A, X.T @ X / X.shape[0], rtol=1e-9)
    assert np.array_equal(
        IP.mod_sulq(X, epsilon=0.5, delta=1e-3, rng=3),
        IP.mod_sulq_from_second_moment(A, 60, epsilon=0.5, delta=1e-3, rng=3),
    )
    assert np.array_equal(
        IP.wishart_input_perturbation(X, epsilon=1.0, rng=3),
        IP.wishart_input_perturbation_from_second_moment(
            A, 60, epsilon=1.0, rng=3
        ),
    )
    assert np.array_equal(
        IP.laplace_input_perturbation(X, epsilon=1.0, rng=3),
        IP.laplace_input_perturbation_from_second_moment(
            A, 60, epsilon=1.0, rng=3
        ),
    )
    assert np.array_equal(
        IP.analyze_gauss(X, epsilon=0.5, delta=1e-3, rng=3),
        IP.analyze_gauss_from_second_moment(
            A, 60, epsilon=0.5, delta=1e-3, rng=3
        ),
    )


def _entry_moments(samples):
    iu = np.triu_indices(samples.shape[1])
    entries = samples[:, iu[0], iu[1]]
    return entries.mean(), entries.var(), entries.size


def test_gaussian_noise_moments():
    d, n, eps, delta, reps = 4, 80, 0.5, 1e-3, 4000
    X, rng = data(n=n, d=d), np.random.default_rng(1)
    A = X.T @ X / n
    for fn, sigma in (
        (
            lambda: IP.mod_sulq(
                X, epsilon=eps, delta=delta, rng=rng, noise="float"
            ),
            mod_sulq_beta(d, n, eps, delta),
        ),
        (
            lambda: IP.analyze_gauss(
                X, epsilon=eps, delta=delta, rng=rng, noise="float"
            ),
            analyze_gauss_sigma(n, eps, delta),
        ),
    ):
        noise = np.stack([fn() - A for _ in range(reps)]) / sigma
        mean, var, m = _entry_moments(noise)
        assert abs(mean) < 4 / np.sqrt(m)  # 4 standard errors
        assert abs(var - 1) < 4 * np.sqrt(
            2 / m
        )  # sd of a χ²-type variance estimate


def test_laplace_noise_moments():
    d, n, eps, reps = 4, 80, 0.5, 4000
    X, rng = data(n=n, d=d), np.random.default_rng(2)
    A, b = X.T @ X / n, laplace_input_scale(d, n, eps)
    noise = (
        np.stack(
            [
                IP.laplace_input_perturbation(X, epsilon=eps, rng=rng) - A
                for _ in range(reps)
            ]
        )
        / b
    )
    mean, var, m = _entry_moments(noise)
    assert abs(mean) < 4 * np.sqrt(2 / m)
    assert abs(var - 2) < 4 * np.sqrt(
        20 / m
    )  # Var of x² for Laplace(1) is 24 − 4 = 20


def test_wishart_noise_mean_and_variance():
    d, n, eps, reps = 4, 80, 0.5, 6000
    X, rng = data(n=n, d=d), np.random.default_rng(3)
    A, c = X.T @ X / n, wishart_input_scale(n, eps)
    W = (
        np.stack(
            [
                IP.wishart_input_perturbation(X, epsilon=eps, rng=rng) - A
                for _ in range(reps)
            ]
        )
        / c
    )
    m = d + 1
    # E[W] = m C; Var(W_ii) = 2 m c², Var(W_ij) = m c² (i ≠ j)
    mean = W.mean(axis=0)
    assert np.all(np.abs(mean - m * np.eye(d)) < 4 * np.sqrt(2 * m / reps))
    assert abs(W[:, 0, 0].var() - 2 * m) < 4 * 2 * m * np.sqrt(
        12 / reps
    )  # generous: 4th moment of χ²
    assert abs(W[:, 0, 1].var() - m) < 4 * m * np.sqrt(8 / reps)


@pytest.mark.parametrize("name", ["mod_sulq", "laplace", "wishart"])
def test_rows_outside_unit_ball_rejected(name):
    X = data()
    X[0] *= 2
    with pytest.raises(ValueError, match="norm > 1"):
        MECHANISMS[name](X, 0)


def test_bad_privacy_parameters_rejected():
    X = data()
    with pytest.raises(ValueError, match="delta"):
        IP.mod_sulq(X, epsilon=0.5, delta=1.5)
    with pytest.raises(ValueError, match="epsilon"):
        IP.wishart_input_perturbation(X, epsilon=-1.0)
    with pytest.raises(ValueError, match="symmetric|square"):
        IP.mod_sulq_from_second_moment(
            np.ones((3, 4)), 10, epsilon=0.5, delta=1e-3
        )
    with pytest.raises(TypeError, match="rng"):
        IP.laplace_input_perturbation(X, epsilon=1.0, rng="seed")


def test_privacy_dict_covers_every_mechanism():
    for name in (
        "mod_sulq",
        "analyze_gauss",
        "laplace_input_perturbation",
        "wishart_input_perturbation",
    ):
        assert name in IP.PRIVACY
    assert "NOT" in IP.PRIVACY["wishart_input_perturbation"]


def test_theorem15_bound_range_and_monotonicity():
    from dppca.book.bounds.input_perturbation import mod_sulq_correlation_bound

    values = [
        mod_sulq_correlation_bound(100, n, 1.0, 0.01)
        for n in (10, 10**3, 10**4, 10**6)
    ]
    assert all(0.75 <= v <= 1.0 for v in values)  # (1 − φ)/4 ≤ 1/4 in eq. (21)
    assert values == sorted(values) and values[-1] == pytest.approx(1.0)


def test_lemma1_threshold_and_davis_kahan_condition():
    from dppca.book.bounds.input_perturbation import (
        davis_kahan_subspace_bound,
        wishart_top_eigenvalue_tail,
    )

    d, m, theta = 10, 11, 2.0
    expected = (
        m + np.sqrt(2 * m * theta * (d + 2)) + 2 * theta * d
    )  # C = I: r = d
    assert wishart_top_eigenvalue_tail(m, np.ones(d), theta) == pytest.approx(
        expected
    )
    assert davis_kahan_subspace_bound(0.1, 0.5, 2) == pytest.approx(
        2 * np.sqrt(2) * 0.1 / 0.5
    )
    assert (
        davis_kahan_subspace_bound(0.3, 0.5, 2) == np.inf
    )  # gap condition fails


# ------------------------------------------------------------------------------
# Add/remove neighbours: max_samples (issue 43, dppca.mechanisms.padding)
# ------------------------------------------------------------------------------

CAPPED = {
    "mod_sulq": (
        lambda X, rng, cap: IP.mod_sulq(
            X, epsilon=0.5, delta=1e-3, rng=rng, max_samples=cap
        ),
        lambda A, n, rng: IP.mod_sulq_from_second_moment(
            A, n, epsilon=0.5, delta=1e-3, rng=rng
        ),
    ),
    "analyze_gauss": (
        lambda X, rng, cap: IP.analyze_gauss(
            X, epsilon=0.5, delta=1e-3, rng=rng, max_samples=cap
        ),
        lambda A, n, rng: IP.analyze_gauss_from_second_moment(
            A, n, epsilon=0.5, delta=1e-3, rng=rng
        ),
    ),
    "laplace": (
        lambda X, rng, cap: IP.laplace_input_perturbation(
            X, epsilon=0.5, rng=rng, max_samples=cap
        ),
        lambda A, n, rng: IP.laplace_input_perturbation_from_second_moment(
            A, n, epsilon=0.5, rng=rng
        ),
    ),
    "wishart_delta": (
        lambda X, rng, cap: IP.wishart_input_perturbation_delta(
            X, delta=0.1, rng=rng, max_samples=cap
        ),
        lambda A, n, rng: (
            IP.wishart_input_perturbation_delta_from_second_moment(
                A, n, delta=0.1, rng=rng
            )
        ),
    ),
}


@pytest.mark.filterwarnings("ignore::dppca.exceptions.PrivacyWarning")
@pytest.mark.parametrize("name", CAPPED)
def test_a_cap_runs_the_mechanism_on_the_padded_moment(name):
    """``max_samples=N``: the release of ``S/N`` (zero rows to ``N``) at
    ``n = N``, bit for bit, its record under the add/remove relation; no
    cap: the replace-one release of ``XᵀX/n``, as before."""
    from dppca.linalg.clipped_sums import clipped_second_moment
    from dppca.privacy.guarantees import add_remove_relation

    capped, inner = CAPPED[name]
    X, cap = data(), 1000
    padded = clipped_second_moment(X, 1.0, max_samples=cap).matrix
    out, expected = capped(X, 7, cap), inner(padded, cap, 7)
    assert np.array_equal(out, expected)
    assert out.guarantee.neighbours == add_remove_relation(cap)
    assert out.guarantee.epsilon == expected.guarantee.epsilon
    plain = capped(X, 7, None)
    assert np.array_equal(
        plain, inner(moments.unit_rows_second_moment(X), 60, 7)
    )
    assert plain.guarantee == inner(padded, 60, 7).guarantee
    assert "replace-one" in plain.guarantee.neighbours


@pytest.mark.filterwarnings("ignore::dppca.exceptions.PrivacyWarning")
@pytest.mark.parametrize("name", CAPPED)
def test_a_cap_refuses_more_rows_and_bad_values(name):
    capped, _ = CAPPED[name]
    X = data()
    with pytest.raises(ValueError, match="more than max_samples = 59"):
        capped(X, 0, 59)
    for bad in (2.5, True, "100"):
        with pytest.raises(TypeError, match="max_samples must be an integer"):
            capped(X, 0, bad)
    with pytest.raises(ValueError, match="max_samples must be >= 1"):
        capped(X, 0, 0)
    with pytest.raises(ValueError, match="too large for the float64 proof"):
        capped(X, 0, 2**62)
    assert capped(X, 0, 60).shape == (5, 5)  # n = N: released


@pytest.mark.filterwarnings("ignore::dppca.exceptions.PrivacyWarning")
def test_a_cap_takes_sparse_rows():
    import scipy.sparse

    from dppca.linalg.clipped_sums import clipped_second_moment

    X = data()
    X[:, 2] = 0.0
    sparse = scipy.sparse.csr_matrix(X)
    padded = clipped_second_moment(sparse, 1.0, max_samples=500).matrix
    for capped, inner in CAPPED.values():
        assert np.array_equal(capped(sparse, 3, 500), inner(padded, 500, 3))


def test_a_cap_refuses_a_dask_array():
    da = pytest.importorskip("dask.array")
    X = da.from_array(data(), chunks=(20, 5))
    with pytest.raises(ValueError, match="dask array is not implemented"):
        IP.analyze_gauss(X, epsilon=0.5, delta=1e-3, rng=0, max_samples=100)


def test_the_published_wishart_refuses_a_cap_before_it_warns():
    """Not DP, so no proof to carry over: refused from the public cap
    alone, before the mechanism's warning and before any draw."""
    import warnings

    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would raise instead
        with pytest.raises(ValueError, match="does not take max_samples"):
            IP.wishart_input_perturbation(
                data(), epsilon=0.5, rng=rng, max_samples=100
            )
    assert rng.bit_generator.state == state
