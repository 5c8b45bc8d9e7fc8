"""Unit tests of dppca.mechanisms.streaming: DP-PCA (private Oja on disjoint
minibatches) and its deflation to k > 1, against exact identities, closed
forms and rates."""

import math
import warnings

import numpy as np
import pytest
import scipy.sparse

from dppca import privacy
from dppca.mechanisms import streaming, streaming_schedule, streaming_step
from dppca.privacy import noise as noise_module
from dppca.privacy.guarantees import UnprovedGuaranteeWarning


def spiked_rows(n, d, lam, rng):
    """Gaussian rows with covariance diag(lam, 1, …, 1), projected onto the
    unit sphere: the top eigenvector of E[x xᵀ] is e_1 by symmetry."""
    g = rng.standard_normal((n, d))
    g[:, 0] *= math.sqrt(lam)
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def sin_to(V, U):
    """‖(I − V Vᵀ) U‖₂: the sine of the largest principal angle."""
    V = np.asarray(V)
    return float(np.linalg.norm(U - V @ (V.T @ U), 2))


# -- the plan, the budget and the learning rate ----------------------------------


def test_default_plan_uses_thirty_steps_per_component():
    plan = streaming_schedule.streaming_plan(100_000, 2)
    assert (plan.n_steps, plan.batch_size) == (30, 1666)
    assert plan.rows_used == 2 * 30 * 1666 <= 100_000


def test_small_n_keeps_batches_of_at_least_min_batch():
    plan = streaming_schedule.streaming_plan(1_000, 1)
    assert plan.batch_size >= streaming_schedule.MIN_BATCH
    assert plan.n_steps == 1_000 // streaming_schedule.MIN_BATCH


def test_plan_from_one_parameter_and_refusals():
    assert (
        streaming_schedule.streaming_plan(1000, 1, batch_size=300).n_steps == 3
    )
    assert (
        streaming_schedule.streaming_plan(1000, 2, n_steps=4).batch_size == 125
    )
    with pytest.raises(ValueError, match="do not fit"):
        streaming_schedule.streaming_plan(1000, 1, batch_size=300, n_steps=4)
    with pytest.raises(ValueError, match="do not fit"):
        streaming_schedule.streaming_plan(10, 2, batch_size=6)
    with pytest.raises(TypeError):
        streaming_schedule.streaming_plan(1000, 1, batch_size=2.5)


def test_budget_splits_rho_and_the_quantile_is_rho_r_zcdp():
    b = streaming_schedule.step_budget(1.0, 1e-5, 0.3)
    assert b.rho == privacy.zcdp_rho(1.0, 1e-5)
    assert b.rho_range + b.rho_mean == pytest.approx(b.rho, rel=1e-15)
    # pure ε_r-DP is ε_r²/2-zCDP (Bun and Steinke 2016, Prop. 1.4)
    assert b.epsilon_range**2 / 2 == pytest.approx(b.rho_range, rel=1e-12)
    for share in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="range_share"):
            streaming_schedule.step_budget(1.0, 1e-5, share)


def test_learning_rate_schedule():
    rate = streaming_schedule.oja_learning_rate(0.2, alpha=3.0, offset=2.0)
    assert rate(1) == pytest.approx(3.0 / (0.2 * 3.0))
    assert rate(10) == pytest.approx(3.0 / (0.2 * 12.0))
    with pytest.raises(ValueError, match="eigengap"):
        streaming_schedule.oja_learning_rate(0.0)


def test_default_alpha_is_the_smallest_meeting_the_contraction():
    for d, T in [(20, 30), (50, 30), (100_000, 20), (100_000, 30), (7, 3)]:
        alpha = streaming_schedule.default_alpha(d, T)
        target = streaming_schedule.CONTRACTION_TARGET * math.sqrt(d)
        assert (
            streaming_schedule.MIN_ALPHA
            <= alpha
            <= streaming_schedule.MAX_ALPHA
        )
        if alpha < streaming_schedule.MAX_ALPHA:
            assert math.comb(T + alpha, alpha) >= target
        if alpha > streaming_schedule.MIN_ALPHA:
            assert math.comb(T + alpha - 1, alpha - 1) < target
    assert streaming_schedule.default_alpha(100_000, 20) == 9
    assert streaming_schedule.default_alpha(50, 30) == 5


# -- noise-free Oja: the exact contraction of tan θ ---------------------------------


def test_noise_free_oja_contracts_tan_theta_exactly():
    """Every minibatch has second moment exactly Σ = λ₂ I + (λ₁ − λ₂) v vᵀ
    (the d rows √d Σ^{1/2}), so the step is w ← (I + ηΣ)w / ‖·‖ and
    tan θ(w, v) is multiplied by exactly (1 + η λ₂)/(1 + η λ₁)."""
    d, lam1, lam2, T = 8, 0.5, 0.1, 12
    rng = np.random.default_rng(3)
    v = np.linalg.qr(rng.standard_normal((d, d)))[0][:, 0]
    sigma = lam2 * np.eye(d) + (lam1 - lam2) * np.outer(v, v)
    vals, vecs = np.linalg.eigh(sigma)
    root = (vecs * np.sqrt(vals)) @ vecs.T
    batch = math.sqrt(d) * root  # batchᵀ batch / d = Σ
    blocks = [batch] * T
    rate = streaming_schedule.oja_learning_rate(lam1 - lam2)
    run = streaming.streaming_oja(
        iter(blocks),
        1,
        learning_rate=rate,
        batch_size=d,
        n_steps=T,
        n_rows=d * T,
        rng=7,
        diagnostics=True,
    )

    def tan(w):
        c = abs(float(w @ v))
        return math.sqrt(max(1 - c * c, 0.0)) / c

    iterates = [step.iterate for step in run.steps] + [run.V[:, 0]]
    factors = [
        (1 + rate(t) * lam2) / (1 + rate(t) * lam1) for t in range(1, T + 1)
    ]
    for t in range(1, T + 1):  # after every step, not only the last
        predicted = tan(iterates[0]) * np.prod(factors[:t])
        assert tan(iterates[t]) == pytest.approx(predicted, rel=1e-9)
    # Σ_t η_t (λ₁ − λ₂) = α H_T grows like α log T: tan θ falls like T^(−α)
    # once η_t λ₁ is small; here the twelve steps divide it by over 400
    assert tan(run.V[:, 0]) < tan(iterates[0]) / 400


def test_noise_free_deflation_finds_the_top_k_subspace():
    d, T = 10, 40
    spectrum = np.array([0.4, 0.25, 0.15] + [0.02] * (d - 3))
    rng = np.random.default_rng(4)
    Q = np.linalg.qr(rng.standard_normal((d, d)))[0]
    root = (Q * np.sqrt(spectrum)) @ Q.T
    batch = math.sqrt(d) * root
    V = streaming.streaming_oja(
        iter([batch] * (3 * T)),
        3,
        eigengap=[0.15, 0.1, 0.13],
        batch_size=d,
        n_steps=T,
        n_rows=3 * T * d,
        rng=1,
    )
    assert np.allclose(V.T @ V, np.eye(3), atol=1e-12)
    assert sin_to(V, Q[:, :3]) < 1e-3  # a random subspace: about 1


# -- one step: the clipped mean and the noise scale ---------------------------------


def test_clipped_gradient_mean_matches_the_definition():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 6)) * 2.0
    w = rng.standard_normal(6)
    w /= np.linalg.norm(w)
    r = 1.5
    G = X * (X @ w)[:, None]
    norms = np.linalg.norm(G, axis=1)
    expected = (G * np.minimum(1.0, r / norms)[:, None]).mean(axis=0)
    result = streaming_step.clipped_gradient_mean(X, w, r)
    assert result.n_clipped == int(np.sum(norms > r))
    np.testing.assert_allclose(result.mean, expected, rtol=1e-9, atol=1e-12)
    sparse = streaming_step.clipped_gradient_mean(
        scipy.sparse.csr_matrix(X), w, r
    )
    np.testing.assert_allclose(sparse.mean, result.mean, atol=1e-14)


@pytest.mark.parametrize("kind", ["float", "safe"])
def test_noise_scale_per_step_is_the_closed_form(kind):
    n, d, eps, delta = 6000, 12, 0.8, 1e-6
    X = spiked_rows(n, d, 10.0, np.random.default_rng(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
        run = streaming.dp_pca_oja(
            X,
            1,
            epsilon=eps,
            delta=delta,
            eigengap=0.1,
            n_steps=5,
            rng=2,
            noise=kind,
            diagnostics=True,
        )
    rho_m = (1 - streaming_schedule.DEFAULT_RANGE_SHARE) * privacy.zcdp_rho(
        eps, delta
    )
    B = run.plan.batch_size
    for step in run.steps:
        delta_2 = 2 * step.radius / B
        sigma_float = delta_2 / math.sqrt(2 * rho_m)
        if kind == "float":
            assert step.granularity is None
            assert step.sigma == pytest.approx(sigma_float, rel=1e-14)
        else:
            cells_per_delta = 1024 * math.sqrt(d)
            grid = noise_module.power_of_two_at_most(
                max(delta_2 / cells_per_delta, 4 * sigma_float / 2**26)
            )
            assert step.granularity == grid
            sigma = (delta_2 / grid + math.sqrt(d)) / math.sqrt(2 * rho_m)
            assert step.sigma == pytest.approx(sigma * grid, rel=1e-11)
            assert step.sigma >= sigma * grid  # the margin only adds
            # at most 1/1024 more noise than the float mechanism
            assert step.sigma / sigma_float <= 1 + 1 / 1024 + 1e-9
            # the released gradient lies on the grid
            cells = np.asarray(step.gradient) / grid
            assert np.array_equal(cells, np.round(cells))


def test_radius_candidates_follow_the_previous_release():
    assert streaming_step.radius_candidates_range(None, (1e-3, 1e3)) == (
        1e-3,
        1e3,
    )
    lo, hi = streaming_step.radius_candidates_range(2.0, (1e-3, 1e3), 16.0)
    assert (lo, hi) == (2.0 / 16, 32.0)
    lo, hi = streaming_step.radius_candidates_range(900.0, (1e-3, 1e3), 16.0)
    assert hi == 1e3
    with pytest.raises(ValueError, match="radius_window"):
        streaming_step.radius_candidates_range(1.0, (1e-3, 1e3), 1.0)


def test_released_radius_stays_in_the_window_of_the_previous_one():
    X = spiked_rows(20_000, 10, 5.0, np.random.default_rng(2))
    run = streaming.dp_pca_oja(
        X, 1, epsilon=1.0, delta=1e-5, eigengap=0.2, rng=3, diagnostics=True
    )
    radii = np.array([s.radius for s in run.steps])
    assert np.all(radii[1:] / radii[:-1] <= 16.0 * (1 + 1e-12))
    assert np.all(radii[:-1] / radii[1:] <= 16.0 * (1 + 1e-12))


@pytest.mark.parametrize("q, eps", [(0.75, 0.07), (0.5, 1.3), (0.9, 1e-3)])
def test_private_radius_is_norm_quantile_bit_for_bit(q, eps):
    """The pass's radius is norm_quantile's release: the same bound and the
    same draws (the generators end in the same state), first step and
    after a released radius, with and without a window at the range's
    end."""
    from dppca.privacy import private_bounds

    norm_range, window = (1e-4, 10.0), 8.0
    radius = streaming_step.PrivateRadius(q, eps, norm_range, window)
    rows = np.random.default_rng(4)
    for previous in (None, 0.01, 3.0, 9.0, 2e-4):
        norms = np.abs(rows.standard_normal(150)) * rows.uniform(1e-3, 5)
        a, b = np.random.default_rng(9), np.random.default_rng(9)
        lo, hi = streaming_step.radius_candidates_range(
            previous, norm_range, window
        )
        expected = private_bounds.norm_quantile(
            norms, q, eps, lower=lo, upper=hi, rng=a
        ).bound
        assert radius(norms, previous, b) == expected
        assert a.bit_generator.state == b.bit_generator.state
    with pytest.raises(ValueError, match="radius_window"):
        streaming_step.PrivateRadius(q, eps, norm_range, 1.0)
    with pytest.raises(ValueError, match="quantile"):
        streaming_step.PrivateRadius(1.0, eps, norm_range)


def test_clipped_mean_of_gradients_is_the_clipped_gradient_mean():
    rng = np.random.default_rng(6)
    X = rng.standard_normal((257, 9))
    w = rng.standard_normal(9)
    w /= np.linalg.norm(w)
    for rows in (X, scipy.sparse.csr_matrix(X * (rng.random(X.shape) < 0.3))):
        G = streaming_step.gradient_rows(rows, w)
        a = streaming_step.clipped_gradient_mean(rows, w, 0.8)
        b = streaming_step.clipped_mean_of_gradients(G, 0.8)
        assert np.array_equal(a.mean, b.mean)
        assert (a.n_clipped, a.radius) == (b.n_clipped, b.radius)


def test_a_private_step_does_its_work_once(monkeypatch):
    """Work counted, not timed: the gradients of a minibatch are formed
    once per step (for their norms and their mean), a dense array of rows
    is scanned once by the checks, and its minibatches are views of it."""
    from dppca.mechanisms import streaming_pass, streaming_rows

    counts = {"gradients": 0, "scans": 0}
    gradient_rows = streaming_pass.gradient_rows
    largest = streaming_rows._largest_magnitude

    def counted_gradients(*args):
        counts["gradients"] += 1
        return gradient_rows(*args)

    def counted_scan(values):
        counts["scans"] += 1
        return largest(values)

    monkeypatch.setattr(streaming_pass, "gradient_rows", counted_gradients)
    monkeypatch.setattr(streaming_rows, "_largest_magnitude", counted_scan)
    X = spiked_rows(3_000, 6, 5.0, np.random.default_rng(7))
    batches = []
    take = streaming_rows._RowBuffer.take

    def recorded_take(self, m):
        batch = take(self, m)
        batches.append(batch)
        return batch

    monkeypatch.setattr(streaming_rows._RowBuffer, "take", recorded_take)
    run = streaming.dp_pca_oja(
        X, 2, epsilon=1.0, delta=1e-5, eigengap=0.2, rng=8, diagnostics=True
    )
    assert counts["gradients"] == run.plan.total_steps == len(batches)
    assert counts["scans"] == 1
    for batch in batches:
        assert np.shares_memory(batch, X) and not batch.flags.writeable


# -- the stream: chunks, sparse rows, Dask ---------------------------------------------


def _run(X, **kwargs):
    options = dict(eigengap=0.2, n_steps=6, rng=11)
    options.update(kwargs)
    return streaming.dp_pca_oja(X, 2, epsilon=1.0, delta=1e-5, **options)


def test_chunked_stream_gives_the_array_result():
    X = spiked_rows(5_003, 7, 8.0, np.random.default_rng(5))
    whole = _run(X)
    sizes = [1, 700, 1333, 1, 2000, 968]
    assert sum(sizes) == X.shape[0]
    starts = np.cumsum([0] + sizes)
    chunks = (X[a:b] for a, b in zip(starts[:-1], starts[1:]))
    chunked = _run(chunks, n_rows=X.shape[0])
    np.testing.assert_allclose(np.asarray(chunked), whole, rtol=0, atol=1e-12)
    assert chunked.guarantee == whole.guarantee


def test_sparse_rows_give_the_dense_result():
    rng = np.random.default_rng(6)
    X = spiked_rows(4_000, 9, 8.0, rng)
    X[rng.random(X.shape) < 0.6] = 0.0
    dense = _run(X)
    sparse = _run(scipy.sparse.csr_matrix(X))
    np.testing.assert_allclose(np.asarray(sparse), dense, rtol=0, atol=1e-9)
    # sparse chunks of a stream, too
    S = scipy.sparse.csr_matrix(X)
    chunks = (S[i : i + 900] for i in range(0, S.shape[0], 900))
    np.testing.assert_allclose(
        np.asarray(_run(chunks, n_rows=S.shape[0])), dense, atol=1e-9
    )


def test_dask_array_gives_the_array_result():
    da = pytest.importorskip("dask.array")
    from dppca.book import sparse_data

    X = spiked_rows(3_000, 6, 8.0, np.random.default_rng(7))
    whole = _run(X)
    np.testing.assert_allclose(
        np.asarray(
            streaming.dp_pca_oja_dask(
                da.from_array(X, chunks=(700, 6)),
                2,
                epsilon=1.0,
                delta=1e-5,
                eigengap=0.2,
                n_steps=6,
                rng=11,
            )
        ),
        whole,
        atol=1e-12,
    )
    S = scipy.sparse.csr_matrix(X)
    on_dask = sparse_data.csr_to_dask(S, 450)
    np.testing.assert_allclose(np.asarray(_run(on_dask)), whole, atol=1e-9)
    with pytest.raises(TypeError, match="dask"):
        streaming.dp_pca_oja_dask(X, 1, epsilon=1.0, delta=1e-5, eigengap=0.1)


@pytest.mark.parametrize("sparse", [False, True])
def test_a_pass_allocates_far_less_than_the_rows(sparse):
    """The checks of a block (finite entries, huge rows) and the minibatches
    allocate nothing of the size of the rows: chapter 17's d = 100,000 pass
    counts on it (a copy of the CSR data of 400,000 rows is 99 MiB)."""
    import tracemalloc

    rng = np.random.default_rng(9)
    X = spiked_rows(60_000, 40, 8.0, rng)
    if sparse:
        X[rng.random(X.shape) < 0.5] = 0.0
        X = scipy.sparse.csr_matrix(X)
        size = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    else:
        size = X.nbytes
    tracemalloc.start()
    try:
        streaming.dp_pca_oja(X, 1, epsilon=1.0, delta=1e-5, eigengap=0.2, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < size / 4  # a few minibatches of 2,000 rows, not a copy


def test_nan_and_inf_are_refused_without_a_copy_of_the_rows():
    for bad in (np.nan, np.inf, -np.inf):
        X = spiked_rows(500, 4, 8.0, np.random.default_rng(10))
        X[123, 2] = bad
        for data in (X, scipy.sparse.csr_matrix(X)):
            with pytest.raises(ValueError, match="NaN or Inf"):
                streaming.dp_pca_oja(
                    data, 1, epsilon=1.0, delta=1e-5, eigengap=0.2, rng=0
                )


def test_clipping_keeps_v_fixed_only_for_rows_symmetric_about_it():
    """Chapter 17's argument for the bias floor: if the rows are closed
    under the reflection x -> 2(xᵀv)v - x, the clipped mean gradient at v is
    parallel to v whatever the radius. Rows without the symmetry, at the
    top eigenvector u of their own second moment (where the unclipped mean
    is parallel to u), get a clipped mean off u's axis: the fixed point
    moves (a quarter clipped, as by the default quantile)."""
    rng = np.random.default_rng(12)
    d = 6
    X = rng.standard_normal((400, d)) * rng.uniform(0.2, 3.0, (400, 1))
    X[:, 0] += 2.0 * np.sign(X[:, 0]) * (X[:, 1] > 0)  # not symmetric

    def off_axis(rows, w, q):
        norms = streaming_step.gradient_norms(rows, w)
        radius = float(np.quantile(norms, q)) if q < 1 else 2 * norms.max()
        mean = streaming_step.clipped_gradient_mean(rows, w, radius).mean
        return np.linalg.norm(mean - (mean @ w) * w) / np.linalg.norm(mean)

    v = np.eye(d)[0]
    symmetric = np.vstack([X, 2 * np.outer(X @ v, v) - X])
    for q in (0.5, 0.75, 0.95):
        assert off_axis(symmetric, v, q) < 1e-12
    u = np.linalg.eigh(X.T @ X)[1][:, -1]
    assert off_axis(X, u, 1.0) < 1e-12  # nothing clipped: u is fixed
    assert off_axis(X, u, 0.75) > 1e-2  # a quarter clipped: it is not


def test_release_is_orthonormal_and_carries_its_record():
    X = spiked_rows(4_000, 8, 8.0, np.random.default_rng(8))
    V = _run(X)
    assert V.shape == (8, 2)
    assert np.allclose(V.T @ V, np.eye(2), atol=1e-12)
    record = V.guarantee
    assert record == streaming.dp_pca_guarantee(1.0, 1e-5)
    assert record.kind == "zcdp" and record.proved and record.noise == "safe"
    rho = privacy.zcdp_rho(1.0, 1e-5)
    assert record.noise_multiplier == pytest.approx(1 / math.sqrt(2 * rho))
    assert record.chapter == "chapter 17"


def test_float_noise_warns_and_is_not_proved():
    X = spiked_rows(2_000, 5, 8.0, np.random.default_rng(9))
    with pytest.warns(UnprovedGuaranteeWarning, match="float64 noise"):
        V = _run(X, noise="float")
    assert not V.guarantee.proved


def test_fresh_entropy_by_default():
    X = spiked_rows(2_000, 5, 8.0, np.random.default_rng(10))
    a = streaming.dp_pca_oja(X, 1, epsilon=1.0, delta=1e-5, eigengap=0.2)
    b = streaming.dp_pca_oja(X, 1, epsilon=1.0, delta=1e-5, eigengap=0.2)
    assert not np.allclose(np.abs(a), np.abs(b))


# -- validation ----------------------------------------------------------------------


def test_validation_errors():
    X = spiked_rows(1_000, 5, 8.0, np.random.default_rng(11))
    with pytest.raises(ValueError, match="eigengap"):
        streaming.dp_pca_oja(X, 1, epsilon=1.0, delta=1e-5)
    with pytest.raises(ValueError, match="one per component"):
        streaming.dp_pca_oja(
            X, 2, epsilon=1.0, delta=1e-5, eigengap=[0.1, 0.2, 0.3]
        )
    with pytest.raises(TypeError, match="callable"):
        streaming.dp_pca_oja(X, 1, epsilon=1.0, delta=1e-5, learning_rate=0.1)
    with pytest.raises(ValueError, match="n_rows"):
        streaming.dp_pca_oja(
            iter([X]), 1, epsilon=1.0, delta=1e-5, eigengap=0.1
        )
    with pytest.raises(ValueError, match="n_rows"):
        streaming.dp_pca_oja(
            X, 1, epsilon=1.0, delta=1e-5, eigengap=0.1, n_rows=999
        )
    with pytest.raises(ValueError, match="ran out"):
        streaming.dp_pca_oja(
            iter([X[:500]]),
            1,
            epsilon=1.0,
            delta=1e-5,
            eigengap=0.1,
            n_rows=1000,
        )
    with pytest.raises(ValueError, match="columns"):
        streaming.dp_pca_oja(
            iter([X[:500], X[500:, :4]]),
            1,
            epsilon=1.0,
            delta=1e-5,
            eigengap=0.1,
            n_rows=1000,
            n_steps=2,
        )
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        streaming.dp_pca_oja(bad, 1, epsilon=1.0, delta=1e-5, eigengap=0.1)
    with pytest.raises(ValueError, match="k must be"):
        streaming.dp_pca_oja(
            X, 5, epsilon=1.0, delta=1e-5, eigengap=0.1, n_steps=1
        )
    with pytest.raises(ValueError, match="epsilon"):
        streaming.dp_pca_oja(X, 1, epsilon=0.0, delta=1e-5, eigengap=0.1)
    with pytest.raises(ValueError, match="noise"):
        streaming.dp_pca_oja(
            X, 1, epsilon=1.0, delta=1e-5, eigengap=0.1, noise="exact"
        )
    with pytest.raises(ValueError, match="quantile"):
        streaming.dp_pca_oja(
            X, 1, epsilon=1.0, delta=1e-5, eigengap=0.1, clip_quantile=1
        )
    with pytest.raises(ValueError, match="lower"):
        streaming.dp_pca_oja(
            X, 1, epsilon=1.0, delta=1e-5, eigengap=0.1, norm_range=(1.0, 0.5)
        )
    with pytest.raises(TypeError, match="complex"):
        streaming.dp_pca_oja(X + 0j, 1, epsilon=1.0, delta=1e-5, eigengap=0.1)


def test_rows_beyond_the_plan_are_not_read():
    X = spiked_rows(1_000, 5, 8.0, np.random.default_rng(12))
    seen = []

    def blocks():
        for i in range(0, 1_000, 100):
            seen.append(i)
            yield X[i : i + 100]

    streaming.dp_pca_oja(
        blocks(),
        1,
        epsilon=1.0,
        delta=1e-5,
        eigengap=0.1,
        batch_size=150,
        n_steps=3,
        n_rows=1_000,
        rng=0,
    )
    assert seen == [0, 100, 200, 300, 400]  # 450 rows needed


# -- the rate on the spiked model ------------------------------------------------------


def test_error_follows_the_two_terms_of_the_rate():
    """On spiked rows (d = 20), for n from 20,000 to 160,000 with fixed
    seeds: the non-private Oja error (same pass, same start) falls like
    n^(−1/2), the statistical term of the rate, and the private excess
    √(E err² − E err²_nonprivate) like n^(−1), its privacy term. Fitted
    log-log slopes within ±0.15 (±0.25 for the excess)."""
    d, lam, reps = 20, 10.0, 8
    ns = np.array([20_000, 40_000, 80_000, 160_000])
    rng = np.random.default_rng(2024)
    pool = spiked_rows(4 * 160_000, d, lam, rng)
    l1 = float(np.mean(pool[:, 0] ** 2))
    gap = l1 - (1 - l1) / (d - 1)
    e1 = np.eye(d)[:, :1]
    private, plain = np.zeros((ns.size, reps)), np.zeros((ns.size, reps))
    for r in range(reps):
        X = spiked_rows(ns[-1], d, lam, rng)
        for i, n in enumerate(ns):
            seed = 1000 * r + i
            V = streaming.dp_pca_oja(
                X[:n], 1, epsilon=1.0, delta=1e-5, eigengap=gap, rng=seed
            )
            W = streaming.streaming_oja(X[:n], 1, eigengap=gap, rng=seed)
            private[i, r], plain[i, r] = sin_to(V, e1), sin_to(W, e1)
    rms_private = np.sqrt(np.mean(private**2, axis=1))
    rms_plain = np.sqrt(np.mean(plain**2, axis=1))
    excess = np.sqrt(np.maximum(rms_private**2 - rms_plain**2, 1e-300))
    log_n = np.log(ns)
    slope_plain = np.polyfit(log_n, np.log(rms_plain), 1)[0]
    slope_excess = np.polyfit(log_n, np.log(excess), 1)[0]
    assert abs(slope_plain + 0.5) <= 0.15, slope_plain
    assert abs(slope_excess + 1.0) <= 0.25, slope_excess
    assert np.all(np.diff(rms_private) < 0)


def test_error_rate_formula():
    r = streaming.dp_pca_error_rate([100, 400], 10, 1.0, 1e-4, 2.0, 1.0)
    kappa = 2.0
    expected = kappa * (
        np.sqrt(10 / np.array([100, 400]))
        + 10 * math.sqrt(math.log(1e4)) / np.array([100, 400])
    )
    np.testing.assert_allclose(r, expected)
    with pytest.raises(ValueError, match="lambda1"):
        streaming.dp_pca_error_rate(100, 10, 1.0, 1e-4, 1.0, 1.0)
