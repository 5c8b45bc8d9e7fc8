"""Adaptive k-PCA (dppca.mechanisms.adaptive_kpca): its declaration, its
release, its option checks and its utility on spiked data."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse

from dppca import PrivatePCA
from dppca.mechanisms import adaptive_kpca as ak
from dppca.mechanisms import registry, streaming, streaming_step

DELTA = 1e-5


def spiked(n, d, k, rng, spikes=(8.0, 4.0, 2.0), tau=1.0):
    V = np.linalg.qr(rng.standard_normal((d, k)))[0]
    Z = tau * rng.standard_normal((n, d))
    Z += rng.standard_normal((n, k)) * np.sqrt(spikes[:k]) @ V.T
    return Z, V


def sin_theta_f(U, V):
    U, V = np.asarray(U), np.asarray(V)
    return math.sqrt(max(V.shape[1] - np.linalg.norm(U.T @ V) ** 2, 0.0))


def test_it_is_registered_with_a_proved_gaussian_record():
    spec = registry.MECHANISMS["adaptive_kpca"]
    assert spec.run_rows is not None and spec.notion == "gaussian"
    record = spec.guarantee(1000, 10, 2, 1.0, DELTA, {})
    assert record.proved and record.noise == "safe"
    assert record.sampler == "exact" and record.kind == "zcdp"
    assert record.neighbours.startswith("replace-one")
    assert record.epsilon == 1.0 and record.delta == DELTA


@pytest.mark.parametrize("k", [1, 2, 3])
def test_release_is_orthonormal_with_its_record(k):
    X, _ = spiked(6_000, 12, k, np.random.default_rng(k))
    V = ak.adaptive_kpca(X, k, epsilon=1.0, delta=DELTA, rng=0)
    assert V.shape == (12, k)
    np.testing.assert_allclose(np.asarray(V).T @ V, np.eye(k), atol=1e-10)
    assert V.guarantee == ak.adaptive_kpca_guarantee(1.0, DELTA)


def test_same_seed_same_release_and_sparse_equals_dense():
    X, _ = spiked(4_000, 8, 2, np.random.default_rng(3))
    a = ak.adaptive_kpca(X, 2, epsilon=1.0, delta=DELTA, rng=4)
    b = ak.adaptive_kpca(X, 2, epsilon=1.0, delta=DELTA, rng=4)
    c = ak.adaptive_kpca(
        scipy.sparse.csr_matrix(X), 2, epsilon=1.0, delta=DELTA, rng=4
    )
    np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(a, c, atol=1e-8)


def test_error_falls_with_n_and_is_small_at_large_n():
    rng = np.random.default_rng(5)
    errors = []
    for n in (4_000, 64_000):
        X, V = spiked(n, 20, 2, rng)
        U = ak.adaptive_kpca(X, 2, epsilon=1.0, delta=DELTA, rng=6)
        errors.append(sin_theta_f(U, V))
    assert errors[1] < 0.6 * errors[0]
    assert errors[1] < 0.25


def test_the_noise_adapts_to_the_spread_not_the_size():
    """Rows ±v plus small noise: x xᵀ barely varies, the gradients are all
    about v. The final mean's noise follows the spread, far below the
    noise of a step clipped about the origin (streaming's), which follows
    the gradients' size."""
    rng = np.random.default_rng(7)
    n, d = 20_000, 10
    v = np.eye(d)[0]
    signs = rng.choice([-1.0, 1.0], size=(n, 1))
    X = signs * v + 1e-3 * rng.standard_normal((n, d))
    run = ak.adaptive_kpca(
        X,
        1,
        epsilon=1.0,
        delta=DELTA,
        rng=8,
        diagnostics=True,
        norm_range=(1e-6, 1.0),
        spread_range=(1e-6, 2.0),
    )
    B = run.plan.batch_size
    for step in run.steps[2:]:
        # the noise streaming's step would add at this radius (ρ/2 for its
        # mean), against this step's: the ratio is about s/r
        origin, _ = streaming_step.mean_noise_scale(
            step.radius, B, d, run.budget.rho / 2
        )
        assert step.spread < 0.5 * step.radius
        assert step.sigma < 0.5 * origin
    # and on average over the round the noise is 4 times smaller
    ratio = np.mean([s.sigma for s in run.steps]) / origin
    assert ratio < 0.35
    assert sin_theta_f(run.V, v[:, None]) < 0.05


def test_private_eigenvalue_estimate_is_near_the_rounds_top_eigenvalue():
    X, _ = spiked(60_000, 10, 2, np.random.default_rng(9), spikes=(8.0, 3.0))
    run = ak.adaptive_kpca(
        X, 2, epsilon=2.0, delta=DELTA, rng=10, diagnostics=True
    )
    lam1 = 9.0  # 8 + 1
    assert 0.5 * lam1 < run.eigenvalues[0] < 1.2 * lam1
    assert len(run.eigenvalues) == 2


def test_eigengap_option_uses_streaming_schedule():
    X, V = spiked(20_000, 10, 1, np.random.default_rng(11))
    U = ak.adaptive_kpca(X, 1, epsilon=1.0, delta=DELTA, eigengap=8.0, rng=1)
    assert sin_theta_f(U, V) < 0.3


@pytest.mark.parametrize(
    "options, match",
    [
        ({"gap_ratio": 1.5}, "gap_ratio"),
        ({"gap_ratio": 0.0}, "gap_ratio"),
        ({"shares": (0.5, 0.5, 0.5, 0.5)}, "sum to 1"),
        ({"shares": (1.0, 0.0, 0.0, 0.0)}, "shares"),
        ({"spread_range": (1e-400, 1.0)}, "spread_range|> 0|upper"),
        ({"clip_quantile": 1.5}, "quantile"),
        ({"headroom": 0.5}, "headroom"),
        ({"noise": "fast"}, "noise"),
    ],
)
def test_bad_options_are_refused_before_reading_rows(options, match):
    with pytest.raises(ValueError, match=match):
        ak.adaptive_kpca(
            np.zeros((1000, 4)), 1, epsilon=1.0, delta=DELTA, **options
        )


def test_k_must_leave_a_complement():
    with pytest.raises(ValueError, match="k must be < d"):
        ak.adaptive_kpca(np.ones((2000, 3)), 3, epsilon=1.0, delta=DELTA)


def test_private_pca_runs_it():
    X, V = spiked(20_000, 8, 2, np.random.default_rng(12))
    X = X / (1.01 * np.linalg.norm(X, axis=1).max())
    pca = PrivatePCA(
        n_components=2,
        epsilon=1.0,
        delta=DELTA,
        mechanism="adaptive_kpca",
        data_norm=1.0,
        random_state=0,
    ).fit(X)
    assert pca.mechanism_ == "adaptive_kpca"
    assert pca.components_.shape == (2, 8)
    assert sin_theta_f(pca.components_.T, V) < 0.5
    labels = [r.label for r in pca.privacy_releases_]
    assert any(label.startswith("adaptive k-PCA") for label in labels)
    with pytest.raises(ValueError, match="gap_ratio"):
        PrivatePCA(
            n_components=2,
            epsilon=1.0,
            delta=DELTA,
            mechanism="adaptive_kpca",
            data_norm=1.0,
            mechanism_options={"gap_ratio": 2.0},
        ).fit(X)


def test_error_rate_shape():
    r = ak.adaptive_kpca_error_rate(np.array([1e3, 1e5]), 10, 2, 1.0, DELTA)
    assert r[0] > r[1] > 0
    # at huge n the statistical term dominates: slope -1/2
    big = ak.adaptive_kpca_error_rate(np.array([1e12, 1e14]), 10, 2, 1.0, DELTA)
    assert math.log(big[1] / big[0]) / math.log(100) == pytest.approx(
        -0.5, abs=1e-3
    )
    assert streaming.dp_pca_error_rate is not None
