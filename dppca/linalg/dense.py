"""Dense linear algebra shared by every mechanism: the sparse Gram matrix,
top-k eigenpairs and subspaces, rank-k approximations, projectors and
Haar-random subspaces. The second moment of rows is in
:mod:`dppca.linalg.moments`."""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse

from ..validation import (
    as_generator,
    check_k,
    check_k_at_most,
    check_symmetric,
)

#: Columns denser than this are multiplied as dense blocks by
#: :func:`sparse_gram`.
DENSE_COLUMN_FRACTION = 0.1


def sparse_gram(X) -> np.ndarray:
    """``XᵀX`` of a scipy.sparse ``X`` as a dense ``d × d`` array, without
    densifying ``X``.

    Real data mix a few dense columns (numeric attributes) with many sparse ones
    (one-hot indicators), and a sparse-sparse product spends most of its time on
    the dense columns. So the columns are split: dense block ``X_Dᵀ X_D`` by
    BLAS (``n × |D|``, densified), the cross block ``X_Sᵀ X_D`` by a
    sparse-dense product, and ``X_Sᵀ X_S`` sparse-sparse.
    """
    X = X.tocsr()
    n, d = X.shape
    density = np.bincount(X.indices, minlength=d) / max(n, 1)
    dense_cols = np.flatnonzero(density > DENSE_COLUMN_FRACTION)
    sparse_cols = np.flatnonzero(density <= DENSE_COLUMN_FRACTION)
    if dense_cols.size == 0 or sparse_cols.size == 0:
        return np.asarray((X.T @ X).toarray())
    XD = X[:, dense_cols].toarray()
    XS = X[:, sparse_cols]
    gram = np.empty((d, d))
    gram[np.ix_(dense_cols, dense_cols)] = XD.T @ XD
    cross = np.asarray(XS.T @ XD)
    gram[np.ix_(sparse_cols, dense_cols)] = cross
    gram[np.ix_(dense_cols, sparse_cols)] = cross.T
    gram[np.ix_(sparse_cols, sparse_cols)] = (XS.T @ XS).toarray()
    return gram


def top_k_eigh(M, k: int):
    """Return the ``k`` largest eigenvalues (descending) and their
    eigenvectors (``d x k``).

    Uses LAPACK's subset solver, which is cheaper than a full decomposition when
    ``k << d``. ``k`` must be an integer with ``1 <= k <= d`` (else the
    package's TypeError/ValueError).
    """
    M = check_symmetric(M)
    d = M.shape[0]
    k = check_k_at_most(k, d)
    vals, vecs = scipy.linalg.eigh(M, subset_by_index=[d - k, d - 1])
    return vals[::-1], vecs[:, ::-1]


def top_k_subspace(M, k: int) -> np.ndarray:
    """Return a ``d x k`` orthonormal basis of the top-k eigenspace of the
    symmetric ``M``."""
    return top_k_eigh(M, k)[1]


def rank_k_approximation(M, k: int) -> np.ndarray:
    """Return the best rank-k approximation ``V_k diag(lambda_1..k) V_k^T``
    of symmetric ``M``
    (best in Frobenius and spectral norm among matrices built from its top-k
    eigenpairs)."""
    vals, vecs = top_k_eigh(M, k)
    return (vecs * vals) @ vecs.T


def haar_subspace(d: int, k: int, rng=None) -> np.ndarray:
    """Draw a ``d x k`` orthonormal basis of a uniformly random (Haar)
    k-dimensional subspace.

    The QR factorisation of a Gaussian matrix, with column signs fixed so that
    ``R`` has a positive diagonal, gives a Haar-distributed Stiefel point
    (Mezzadri 2007). This is the "random projection" baseline of Chaudhuri et
    al. (2013, Sec. 6).
    """
    if d < 2:
        raise ValueError(f"d must be at least 2; got {d}")
    check_k(k, d)
    rng = as_generator(rng)
    Q, R = np.linalg.qr(rng.standard_normal((d, k)))
    return Q * np.sign(np.diag(R))


def projector(V) -> np.ndarray:
    """Return the orthogonal projector ``V V^T`` onto the column span of
    ``V``."""
    V = np.asarray(V, dtype=float)
    if V.ndim == 1:
        V = V[:, None]
    return V @ V.T


def symmetrize_upper(values, d: int) -> np.ndarray:
    """Build a symmetric ``d x d`` matrix from the ``d(d+1)/2`` entries on
    and above the diagonal
    (row-major order of ``numpy.triu_indices``)."""
    values = np.asarray(values, dtype=float)
    if values.shape != (d * (d + 1) // 2,):
        raise ValueError(
            f"expected {d * (d + 1) // 2} upper-triangle values, got shape "
            f"{values.shape}"
        )
    M = np.zeros((d, d))
    iu = np.triu_indices(d)
    M[iu] = values
    return M + np.triu(M, 1).T
