"""Synthetic sparse rows with a planted k-dimensional subspace.

A model of bag-of-features data (words in documents, items in baskets): the
``d`` features have power-law frequencies, each row holds a few dozen of them,
and a few "topics" (the planted directions) make some features co-occur.
Row ``i`` is

    x_i = m_i ⊙ (U z_i) + e_i,

* ``z_i ~ N(0, diag(s_1², …, s_k²))``, the row's topic weights;
* ``U`` (``d × k``, orthonormal columns), zero outside a support ``S`` of
  ``k · support_size`` features (each column on its own ``support_size``
  features, drawn without replacement with probabilities ∝ popularity);
* ``m_i`` keeps each support feature independently with probability ``q``
  (``keep``): a row shows only some of its topics' features;
* ``e_i``: a Poisson(``mean_nnz``) number of draws of features from the
  power law ``p_j ∝ (rank_j)^{−a}`` (ranks a random permutation of the
  features), each draw adding an independent ``N(0, τ²)`` value (repeated
  draws of a feature add up). Equivalently (Poisson splitting) feature
  ``j`` appears a Poisson(``mean_nnz · p_j``) number of times in each row,
  independently, which is how the rows are drawn.

Its second moment is exactly (independence of ``z``, ``m`` and ``e``)

    A = E[x xᵀ] = q² U S Uᵀ + diag(q(1 − q) (U S Uᵀ)_jj + τ² mean_nnz p_j),

a rank-k matrix plus a diagonal, so it is never formed: ``PlantedSparse``
returns its diagonal and its top eigenpairs from the ``|S| × |S|`` block on
the support (outside ``S`` the matrix is diagonal). Rows are generated as a
CSR matrix, ``n × d`` with about ``mean_nnz + q · |S|`` stored entries per
row; ``d = 100,000`` takes memory proportional to the entries, never ``d²``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg
import scipy.sparse

from ..validation import as_generator

#: Most support features (the exact top eigenpairs come from a dense block of
#: this size).
MAX_SUPPORT = 4000


@dataclass(frozen=True, eq=False)
class PlantedSparse:
    """The law of the rows of ``planted_sparse_rows`` (public facts of
    the synthetic model, nothing private).

    Attributes
    ----------
    n_features : int
    popularity : ndarray (d,)
        ``p_j``, summing to one.
    mean_nnz : float
        Expected number of noise draws per row.
    noise_scale : float
        ``τ``.
    support : ndarray (|S|,)
        The features where ``U`` is non-zero, increasing.
    loadings : ndarray (|S|, k)
        ``U`` on the support (orthonormal columns).
    signal_variances : ndarray (k,)
        ``s_1² ≥ … ≥ s_k²``.
    keep : float
        ``q``.
    """

    n_features: int
    popularity: np.ndarray = field(repr=False)
    mean_nnz: float
    noise_scale: float
    support: np.ndarray = field(repr=False)
    loadings: np.ndarray = field(repr=False)
    signal_variances: np.ndarray
    keep: float

    @property
    def n_components(self) -> int:
        return self.loadings.shape[1]

    def diagonal(self) -> np.ndarray:
        """The diagonal of ``A`` outside the rank-k part: ``τ² mean_nnz p``
        plus ``q(1 − q)(U S Uᵀ)_jj`` on the support."""
        D = self.noise_scale**2 * self.mean_nnz * self.popularity
        M_jj = (self.loadings**2) @ self.signal_variances
        D = D.copy()
        D[self.support] += self.keep * (1 - self.keep) * M_jj
        return D

    def support_block(self) -> np.ndarray:
        """``A`` restricted to the support (a dense ``|S| × |S|`` matrix)."""
        U = self.loadings
        block = self.keep**2 * (U * self.signal_variances) @ U.T
        block[np.diag_indices_from(block)] += self.diagonal()[self.support]
        return block

    def eigenpairs(self, k: int | None = None):
        """The top ``k`` eigenvalues of ``A`` (descending), the
        ``(k + 1)``-th, and the top eigenvectors as a dense ``d × k`` array.

        ``A`` is block diagonal: the support block, and the diagonal
        elsewhere, whose eigenvectors are coordinate vectors. The top
        eigenpairs are the largest among both: exact, whatever the sizes.
        They are close to the planted directions only when the signal
        ``q² s_j²`` exceeds the noise variance of the features.
        """
        k = self.n_components if k is None else int(k)
        block = self.support_block()
        s, d = block.shape[0], self.n_features
        if not 1 <= k < d:
            raise ValueError(f"k must be in [1, {d - 1}]; got {k}")
        m = min(k + 1, s)
        values, vectors = scipy.linalg.eigh(
            block, subset_by_index=[s - m, s - 1]
        )
        outside = np.setdiff1d(np.arange(d), self.support)
        D_out = self.diagonal()[outside]
        top_out = outside[np.argsort(-D_out, kind="stable")[: k + 1]]
        candidates = [(v, ("block", i)) for i, v in enumerate(values)]
        candidates += [
            (float(self.diagonal()[j]), ("axis", j)) for j in top_out
        ]
        candidates.sort(key=lambda c: -c[0])
        V = np.zeros((d, k))
        for col, (_, (kind, index)) in enumerate(candidates[:k]):
            if kind == "block":
                V[self.support, col] = vectors[:, index]
            else:
                V[index, col] = 1.0
        top = np.array([c[0] for c in candidates[: k + 1]])
        return top[:k], float(top[k]), V


def power_law_popularity(d: int, exponent: float, rng) -> np.ndarray:
    """``p_j ∝ rank_j^{−a}``, the ranks a uniformly random permutation of
    ``1, …, d``."""
    ranks = as_generator(rng).permutation(d) + 1.0
    p = ranks ** (-float(exponent))
    return p / p.sum()


def _bernoulli_positions(total: int, q: float, rng) -> np.ndarray:
    """Increasing positions in ``[0, total)`` of independent Bernoulli(q)
    successes, by geometric gaps (exact; about ``q · total`` draws)."""
    if q >= 1.0:
        return np.arange(total)
    expected = q * total
    size = int(expected + 8 * math.sqrt(expected + 1) + 16)
    positions = np.cumsum(rng.geometric(q, size=size)) - 1
    while positions[-1] < total:
        more = np.cumsum(rng.geometric(q, size=size)) + positions[-1]
        positions = np.concatenate([positions, more])
    return positions[positions < total]


def planted_sparse_model(
    n_features: int,
    *,
    n_components: int = 2,
    signal_variances=None,
    support_size: int = 100,
    keep: float = 0.3,
    mean_nnz: float = 20.0,
    noise_scale: float = 1.0,
    exponent: float = 1.0,
    rng=None,
) -> PlantedSparse:
    """Draw the model's public parameters: popularity, supports and
    loadings (see the module docstring). ``signal_variances`` default to
    ``(60, 30, 20, …)``, i.e. ``60/j``."""
    d = int(n_features)
    k = int(n_components)
    if d < 2 or k < 1:
        raise ValueError("need n_features >= 2 and n_components >= 1")
    size = int(support_size)
    if size < 1 or k * size > min(d, MAX_SUPPORT):
        raise ValueError(
            f"k · support_size = {k * size} must be in [1, "
            f"{min(d, MAX_SUPPORT)}]"
        )
    if not 0.0 < float(keep) <= 1.0:
        raise ValueError(f"keep must lie in (0, 1]; got {keep!r}")
    if not (mean_nnz >= 0 and noise_scale >= 0 and exponent >= 0):
        raise ValueError("mean_nnz, noise_scale and exponent must be >= 0")
    if signal_variances is None:
        signal_variances = 60.0 / np.arange(1, k + 1)
    s2 = np.asarray(signal_variances, dtype=float)
    if s2.shape != (k,) or not np.all(s2 > 0) or np.any(np.diff(s2) > 0):
        raise ValueError(
            "signal_variances must be k positive numbers, non-increasing"
        )
    rng = as_generator(rng)
    popularity = power_law_popularity(d, exponent, rng)
    chosen = rng.choice(d, size=k * size, replace=False, p=popularity)
    support = np.sort(chosen)
    position = {f: i for i, f in enumerate(support)}
    loadings = np.zeros((support.size, k))
    for j in range(k):
        features = chosen[j * size : (j + 1) * size]
        column = rng.standard_normal(size)
        loadings[[position[f] for f in features], j] = column / np.linalg.norm(
            column
        )
    return PlantedSparse(
        d,
        popularity,
        float(mean_nnz),
        float(noise_scale),
        support,
        loadings,
        s2,
        float(keep),
    )


def sample_rows(model: PlantedSparse, n: int, rng=None):
    """``n`` rows of the model as a canonical float64 CSR matrix."""
    n = int(n)
    if n < 1:
        raise ValueError(f"n must be >= 1; got {n}")
    rng = as_generator(rng)
    d, k = model.n_features, model.n_components
    s = model.support.size
    # the signal: kept support entries (i, j) carry (U z_i)_j
    z = rng.standard_normal((n, k)) * np.sqrt(model.signal_variances)
    flat = _bernoulli_positions(n * s, model.keep, rng)
    sig_rows, sig_pos = np.divmod(flat, s)
    sig_values = np.einsum("ij,ij->i", model.loadings[sig_pos], z[sig_rows])
    sig_cols = model.support[sig_pos]
    # the noise. A Poisson(mean_nnz) number of i.i.d. draws from p per row
    # is the same law as independent Poisson(mean_nnz p_j) counts for each
    # (row, feature): feature j is drawn Poisson(n mean_nnz p_j) times in
    # all, each time in a uniformly random row (Poisson splitting)
    per_feature = rng.poisson(n * model.mean_nnz * model.popularity)
    noise_cols = np.repeat(np.arange(d), per_feature)
    noise_rows = rng.integers(0, n, size=noise_cols.size)
    noise_values = model.noise_scale * rng.standard_normal(noise_cols.size)
    X = scipy.sparse.coo_matrix(
        (
            np.concatenate([sig_values, noise_values]),
            (
                np.concatenate([sig_rows, noise_rows]),
                np.concatenate([sig_cols, noise_cols]),
            ),
        ),
        shape=(n, d),
    ).tocsr()  # repeated (i, j) add up
    X.sum_duplicates()
    return X


def planted_sparse_rows(n: int, n_features: int, *, rng=None, **model_options):
    """``(X, model)``: ``n`` rows (CSR, ``n × n_features``) of a freshly
    drawn ``planted_sparse_model`` (options passed on), from one
    generator ``rng``."""
    rng = as_generator(rng)
    model = planted_sparse_model(n_features, rng=rng, **model_options)
    return sample_rows(model, n, rng), model


def _chunk_sizes(n: int, chunk_rows: int) -> list[int]:
    n, step = int(n), int(chunk_rows)
    if n < 1 or step < 1:
        raise ValueError("need n >= 1 and chunk_rows >= 1")
    return [min(step, n - start) for start in range(0, n, step)]


def _chunk(model: PlantedSparse, rows: int, seed, index: int):
    return sample_rows(model, rows, np.random.default_rng([seed, index]))


def sample_chunks(model: PlantedSparse, n: int, chunk_rows: int, seed: int):
    """The ``n`` rows of the model as CSR chunks of ``chunk_rows`` rows,
    chunk ``i`` drawn from ``numpy.random.default_rng([seed, i])``: the
    same rows as ``planted_sparse_dask`` with the same arguments, in
    memory (an iterator: one chunk at a time)."""
    for i, rows in enumerate(_chunk_sizes(n, chunk_rows)):
        yield _chunk(model, rows, seed, i)


def planted_sparse_dask(
    model: PlantedSparse, n: int, chunk_rows: int, seed: int
):
    """A lazy ``dask.array`` of the rows of ``sample_chunks``, each
    chunk a CSR matrix generated by the task that needs it (on a cluster,
    by a worker): nothing but the model travels in the graph. Dask is
    imported here, lazily."""
    import dask
    import dask.array as da

    d = model.n_features
    meta = scipy.sparse.csr_matrix((0, d))
    shared = dask.delayed(model, traverse=False)
    make = dask.delayed(_chunk, pure=True)
    blocks = [
        da.from_delayed(
            make(shared, rows, seed, i), shape=(rows, d), dtype=float, meta=meta
        )
        for i, rows in enumerate(_chunk_sizes(n, chunk_rows))
    ]
    return da.concatenate(blocks, axis=0)


def csr_to_dask(X, chunk_rows: int):
    """A ``dask.array`` whose chunks are the row blocks of the CSR matrix
    ``X`` (``chunk_rows`` rows each, the last shorter), each a
    scipy.sparse CSR matrix; dask is imported here, lazily."""
    import dask
    import dask.array as da

    X = scipy.sparse.csr_matrix(X)
    step = int(chunk_rows)
    if step < 1:
        raise ValueError(f"chunk_rows must be >= 1; got {chunk_rows!r}")
    n, d = X.shape
    meta = scipy.sparse.csr_matrix((0, d))
    blocks = []
    for start in range(0, n, step):
        piece = X[start : start + step]
        blocks.append(
            da.from_delayed(
                dask.delayed(piece), shape=piece.shape, dtype=float, meta=meta
            )
        )
    return da.concatenate(blocks, axis=0)


__all__ = [
    "MAX_SUPPORT",
    "PlantedSparse",
    "csr_to_dask",
    "planted_sparse_dask",
    "planted_sparse_model",
    "planted_sparse_rows",
    "power_law_popularity",
    "sample_chunks",
    "sample_rows",
]
