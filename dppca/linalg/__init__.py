"""Linear algebra on rows: what every mechanism computes before its noise.

Its modules:

dense
    Dense helpers: the sparse Gram matrix, top-k eigenpairs and subspaces,
    rank-k approximations, projectors, Haar-random subspaces. Re-exported
    here with the second moment (``dppca.linalg.top_k_subspace``).
float_error
    The proof that the rounding errors of the rows' sums are absorbed, its
    constants and limits, and the shrinks it chooses.
rows
    Rows bounded, clipped and centred in float64: norms, clip factors, the
    unit-ball rows a row-wise mechanism sees.
clipped_sums
    The clipped second moment (chunked, or the sparse expansion about a
    centre) and the private mean's row sum, their float error absorbed.
distributed
    The same products on a ``dask.array`` of rows (optional extra ``dask``,
    imported only when a Dask array is passed).
moments
    The second moment of rows of norm at most one, for numpy, scipy.sparse
    and Dask rows alike (the dispatch above the three modules, so their
    imports form no cycle).
"""

from .dense import (
    DENSE_COLUMN_FRACTION,
    haar_subspace,
    projector,
    rank_k_approximation,
    sparse_gram,
    symmetrize_upper,
    top_k_eigh,
    top_k_subspace,
)
from .moments import pca, second_moment

__all__ = [
    "DENSE_COLUMN_FRACTION",
    "haar_subspace",
    "pca",
    "projector",
    "rank_k_approximation",
    "second_moment",
    "sparse_gram",
    "symmetrize_upper",
    "top_k_eigh",
    "top_k_subspace",
]
