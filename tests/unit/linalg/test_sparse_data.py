"""Tests of dppca.book.sparse_data: the law of the planted sparse rows, its exact
second moment and top eigenvectors, and the scale it reaches."""

import numpy as np
import pytest
import scipy.sparse
from scipy import stats

from dppca.book import sparse_data as sd


def full_second_moment(model):
    """A = q² U S Uᵀ + diag(D) as a dense matrix (small d only)."""
    d = model.n_features
    U = np.zeros((d, model.n_components))
    U[model.support] = model.loadings
    A = model.keep**2 * (U * model.signal_variances) @ U.T
    A[np.diag_indices(d)] += model.diagonal()
    return A


def test_second_moment_is_the_formula():
    """XᵀX/n of 400,000 rows against the closed form, entry by entry within
    five standard errors (each entry's standard error estimated from the
    same rows)."""
    n = 400_000
    X, model = sd.planted_sparse_rows(
        n,
        40,
        n_components=2,
        signal_variances=(6.0, 3.0),
        support_size=5,
        keep=0.6,
        mean_nnz=6.0,
        noise_scale=0.7,
        exponent=1.2,
        rng=0,
    )
    A = full_second_moment(model)
    dense = X.toarray()
    empirical = dense.T @ dense / n
    squares = dense * dense
    fourth = squares.T @ squares / n  # E[x_j² x_l²]
    se = np.sqrt(np.maximum(fourth - empirical**2, 0.0) / n)
    z = np.abs(empirical - A) / np.maximum(se, 1e-12)
    assert z.max() < 5.0, z.max()
    # the check has teeth: without the masking term q(1 − q)(U S Uᵀ)_jj on
    # the support's diagonal it fails
    U = np.zeros((40, 2))
    U[model.support] = model.loadings
    masking = model.keep * (1 - model.keep) * (U**2 @ model.signal_variances)
    wrong = A - np.diag(masking)
    assert (np.abs(empirical - wrong) / np.maximum(se, 1e-12)).max() > 10


def assert_eigenpairs_are_exact(model, k):
    """``model.eigenpairs()`` against a dense eigendecomposition of the full
    second moment: the top ``k`` values, the next one, and the span of the
    top ``k`` vectors. Returns the model's vectors."""
    values, next_value, V = model.eigenpairs()
    all_values, all_vectors = np.linalg.eigh(full_second_moment(model))
    np.testing.assert_allclose(values, all_values[::-1][:k], rtol=1e-12)
    assert next_value == pytest.approx(all_values[::-1][k], rel=1e-12)
    top = all_vectors[:, ::-1][:, :k]
    assert np.linalg.norm(V - top @ (top.T @ V), 2) < 1e-10
    return V


def test_eigenpairs_are_those_of_the_full_matrix():
    model = sd.planted_sparse_model(
        60, n_components=3, support_size=6, keep=0.7, rng=1
    )
    V = assert_eigenpairs_are_exact(model, 3)
    outside = np.setdiff1d(np.arange(60), model.support)
    assert np.all(V[outside] == 0)


def test_eigenpairs_stay_exact_when_the_noise_dominates():
    model = sd.planted_sparse_model(
        200,
        n_components=2,
        signal_variances=(0.05, 0.02),
        support_size=20,
        mean_nnz=50.0,
        exponent=2.0,
        rng=2,
    )
    V = assert_eigenpairs_are_exact(model, 2)
    # the eigenvectors are then noise, far from the planted directions ...
    U = np.zeros((200, 2))
    U[model.support] = model.loadings
    assert np.linalg.norm(U - V @ (V.T @ U), 2) > 0.9
    # ... which the default signal puts on top
    strong = sd.planted_sparse_model(200, support_size=20, keep=0.8, rng=2)
    U[:] = 0
    U[strong.support] = strong.loadings
    V = strong.eigenpairs()[2]
    assert np.linalg.norm(U - V @ (V.T @ U), 2) < 0.05  # support noise mixes


def test_counts_per_row_are_poisson_and_the_pattern_power_law():
    n, d = 20_000, 5_000
    model = sd.planted_sparse_model(
        d, n_components=1, support_size=10, keep=0.5, mean_nnz=12.0, rng=3
    )
    noise_only = sd.PlantedSparse(
        d,
        model.popularity,
        model.mean_nnz,
        model.noise_scale,
        model.support,
        model.loadings,
        model.signal_variances,
        1e-9,  # no signal entries (almost surely)
    )
    X = sd.sample_rows(noise_only, n, rng=4)
    # feature j is in a row with probability 1 − exp(−12 p_j) (Poisson
    # counts): the expected number of distinct features per row is their sum,
    # and its variance is below the mean (a sum of independent Bernoullis)
    per_row = np.diff(X.indptr)
    present = -np.expm1(-12.0 * model.popularity)
    assert per_row.mean() == pytest.approx(present.sum(), rel=0.02)
    assert per_row.var() <= present.sum() * 1.05
    # feature frequencies follow the popularity: the most popular feature
    # appears in about n (1 − exp(−12 p_max)) rows
    counts = np.bincount(X.indices, minlength=d)
    top = int(np.argmax(model.popularity))
    expected = n * -np.expm1(-12.0 * model.popularity[top])
    assert counts[top] == pytest.approx(expected, rel=0.05)
    # power law: log frequency against log rank has slope −a = −1
    ranks = np.argsort(np.argsort(-model.popularity)) + 1
    keep = (ranks <= 200) & (counts > 0)
    slope = stats.linregress(np.log(ranks[keep]), np.log(counts[keep])).slope
    assert slope == pytest.approx(-1.0, abs=0.1)


def test_d_of_a_hundred_thousand_in_memory():
    X, model = sd.planted_sparse_rows(5_000, 100_000, rng=5)
    assert scipy.sparse.isspmatrix_csr(X) and X.shape == (5_000, 100_000)
    assert X.has_canonical_format and X.dtype == np.float64
    per_row = X.nnz / X.shape[0]
    expected = model.keep * model.support.size + model.mean_nnz
    assert per_row == pytest.approx(expected, rel=0.05)
    # memory is that of the entries: about 12 bytes each, never d²
    stored = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    assert stored < 16 * X.nnz + 8 * (X.shape[0] + 1)
    values, next_value, V = model.eigenpairs()
    assert V.shape == (100_000, 2) and values[1] > next_value


def test_same_seed_same_rows_and_fresh_entropy_by_default():
    a, _ = sd.planted_sparse_rows(300, 1_000, rng=6)
    b, _ = sd.planted_sparse_rows(300, 1_000, rng=6)
    assert (a != b).nnz == 0
    c, _ = sd.planted_sparse_rows(300, 1_000)
    d, _ = sd.planted_sparse_rows(300, 1_000)
    assert (c != d).nnz > 0


def test_validation():
    with pytest.raises(ValueError, match="support_size"):
        sd.planted_sparse_model(100, n_components=3, support_size=40)
    with pytest.raises(ValueError, match="keep"):
        sd.planted_sparse_model(1000, keep=0.0)
    with pytest.raises(ValueError, match="signal_variances"):
        sd.planted_sparse_model(1000, signal_variances=(1.0, 2.0))
    with pytest.raises(ValueError, match="n must be"):
        sd.sample_rows(sd.planted_sparse_model(1000, rng=0), 0)


def test_csr_to_dask_keeps_the_rows():
    da = pytest.importorskip("dask.array")
    X, _ = sd.planted_sparse_rows(1_000, 500, rng=7)
    D = sd.csr_to_dask(X, 300)
    assert isinstance(D, da.Array) and D.chunks[0] == (300, 300, 300, 100)
    blocks = [b.compute() for b in D.to_delayed().ravel()]
    assert all(scipy.sparse.issparse(b) for b in blocks)
    assert (scipy.sparse.vstack(blocks) != X).nnz == 0


def test_lazy_chunks_are_the_in_memory_chunks():
    pytest.importorskip("dask.array")
    model = sd.planted_sparse_model(2_000, rng=8)
    chunks = list(sd.sample_chunks(model, 1_050, 400, seed=3))
    assert [c.shape[0] for c in chunks] == [400, 400, 250]
    lazy = sd.planted_sparse_dask(model, 1_050, 400, seed=3)
    assert lazy.chunks[0] == (400, 400, 250)
    for a, b in zip(chunks, lazy.to_delayed().ravel()):
        assert (a != b.compute()).nnz == 0
    other = next(sd.sample_chunks(model, 1_050, 400, seed=4))
    assert (other != chunks[0]).nnz > 0
