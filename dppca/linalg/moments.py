"""The second moment of rows of norm at most one, whatever holds them.

:func:`second_moment` (plain ``XᵀX/n``) and :func:`unit_rows_second_moment`
(the proved, float-error-absorbing matrix of the functional entry points) for
a numpy array, a ``scipy.sparse`` matrix or a ``dask.array``. The dispatch to
Dask lives here, above :mod:`dppca.linalg.dense`,
:mod:`dppca.linalg.clipped_sums` and :mod:`dppca.linalg.distributed`, so
that none of those three needs the others' callers: the imports of
``dppca.linalg`` form no cycle. Dask (and
:mod:`dppca.linalg.distributed`, which imports ``dask.distributed``) is
imported only when a ``dask.array`` is passed.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

from ..float_state import owns_float_state
from ..validation import check_data, check_k
from .clipped_sums import clipped_second_moment
from .dense import sparse_gram, top_k_subspace


@owns_float_state
def second_moment(X) -> np.ndarray:
    """Return ``A = X^T X / n``, the (uncentred) second-moment matrix of the
    rows of ``X``.

    This is the matrix whose principal subspace both Chaudhuri et al. (2013,
    Sec. 2) and Jiang et al. (2016, Sec. 2) privatise. ``X`` must pass
    :func:`dppca.validation.check_data`. A ``scipy.sparse``
    ``X`` is accepted and never
    densified: its rows are validated from the stored entries and ``XᵀX`` is a
    sparse product (only the ``d x d`` result is dense).
    """
    if type(X).__module__.split(".")[0] == "dask":  # chunked rows: a reduction
        from .distributed import second_moment_dask

        return second_moment_dask(X)
    X = check_data(X, accept_sparse=True)
    if scipy.sparse.issparse(X):
        A = sparse_gram(X) / X.shape[0]
        return (A + A.T) / 2
    return (X.T @ X) / X.shape[0]


@owns_float_state
def unit_rows_second_moment(X) -> np.ndarray:
    """``A = (1/n) Σ x_i x_iᵀ`` for the functional entry points
    (``dppca.analyze_gauss(X)`` and the like), computed as their records
    claim.

    ``X`` must pass :func:`dppca.validation.check_data` (rows of norm at most
    one, within its tolerance). The matrix is ``clipped_second_moment``
    with bound one: rows within the tolerance above one are brought inside,
    and every rounding error of the sum is absorbed, so the computed matrix
    has the replace-one sensitivity ``√2/n`` the mechanisms are calibrated
    to (plain ``XᵀX/n`` can exceed it by the tolerance and the rounding:
    about ``1 + 2·10⁻⁹`` times). A ``dask.array`` goes to
    :func:`dppca.linalg.distributed.second_moment_dask`.
    """
    if type(X).__module__.split(".")[0] == "dask":
        from .distributed import second_moment_dask

        return second_moment_dask(X)
    X = check_data(X, accept_sparse=True)
    return clipped_second_moment(X, 1.0).matrix


def pca(X, k: int) -> np.ndarray:
    """Non-private PCA: the top-k eigenvectors ``V_k`` of ``A = X^T X / n``
    (``d x k``).

    ``X`` may be dense or ``scipy.sparse`` (see :func:`second_moment`)."""
    A = second_moment(X)
    check_k(k, A.shape[0])
    return top_k_subspace(A, k)


__all__ = ["pca", "second_moment", "unit_rows_second_moment"]
