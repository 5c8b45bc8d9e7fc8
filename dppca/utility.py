"""Utility measures used by the papers the book reproduces."""

from __future__ import annotations

import numpy as np

from .linalg.dense import projector, top_k_eigh
from .validation import check_orthonormal, check_symmetric


def captured_variance(A, V) -> float:
    """q_F(V) = tr(V^T A V): the energy of ``A`` captured by the subspace
    with basis ``V``.

    Chaudhuri et al. (2013), eq. (2) and Sec. 6 (Figs. 3-5); ``V`` is ``d x k``
    orthonormal.

    Parameters
    ----------
    A : array-like of shape (d, d)
        A symmetric matrix, e.g. the second moment.
    V : array-like of shape (d, k)
        Orthonormal columns.

    Returns
    -------
    float
        ``tr(Vᵀ A V)``.
    """
    A = check_symmetric(A, name="A")
    V = check_orthonormal(V)
    if V.shape[0] != A.shape[0]:
        raise ValueError(
            f"V has {V.shape[0]} rows but A is {A.shape[0]} x {A.shape[0]}"
        )
    return float(np.einsum("ij,ij->", V, A @ V))


def captured_variance_ratio(A, V) -> float:
    """q_F(V) / q_F(V_k): captured variance relative to non-private PCA of
    the same rank."""
    A = check_symmetric(A, name="A")
    V = check_orthonormal(V)
    best = top_k_eigh(A, V.shape[1])[0].sum()
    return captured_variance(A, V) / best


def top_vector_correlation(v, v1) -> float:
    """``q_A(v) = |<v, v_1>|``: the correlation of a unit vector with the top
    eigenvector v_1.

    Chaudhuri et al. (2013), eq. (3) and Theorems 7-9 (k = 1).
    """
    v = np.ravel(np.asarray(v, dtype=float))
    v1 = np.ravel(np.asarray(v1, dtype=float))
    if v.shape != v1.shape:
        raise ValueError(f"shapes differ: {v.shape} vs {v1.shape}")
    for name, u in (("v", v), ("v1", v1)):
        if not np.isclose(np.linalg.norm(u), 1.0, atol=1e-8):
            raise ValueError(
                f"{name} must be a unit vector (norm {np.linalg.norm(u):.6g})"
            )
    return float(abs(v @ v1))


def subspace_distance(V, W) -> float:
    """||V V^T - W W^T||_F, the Frobenius distance between the projectors of
    two subspaces.

    For two k-dimensional subspaces it equals sqrt(2) times the norm of the
    sines of their principal angles (Jiang et al. 2016, Theorem 6).

    Parameters
    ----------
    V, W : array-like of shape (d, k)
        Orthonormal columns spanning the two subspaces.

    Returns
    -------
    float
        ``‖V Vᵀ − W Wᵀ‖_F``.
    """
    V = check_orthonormal(V, name="V")
    W = check_orthonormal(W, name="W")
    if V.shape[0] != W.shape[0]:
        raise ValueError(
            f"ambient dimensions differ: {V.shape[0]} vs {W.shape[0]}"
        )
    return float(np.linalg.norm(projector(V) - projector(W)))


def sin_theta(V, U, norm=2) -> float:
    """``‖(I − V Vᵀ) U‖``: how far the columns of ``U`` stick out of the
    span of ``V`` (both orthonormal, ``d x k_V`` and ``d x k_U``).

    With ``norm=2`` (default) it is the sine of the largest principal angle
    between the subspaces, the error of the Davis–Kahan theorem and of the
    streaming and power-method analyses (chapter 14 and chapter 17); with
    ``norm="fro"`` the root of the sum of the squared sines, which for two
    subspaces of the same dimension is ``subspace_distance(V, U) / √2``.

    Parameters
    ----------
    V : array-like of shape (d, k_V)
        Orthonormal columns of the reference subspace.
    U : array-like of shape (d, k_U)
        Orthonormal columns of the subspace measured against it.
    norm : {2, "fro"}, default=2
        The spectral or the Frobenius norm.

    Returns
    -------
    float
        ``‖(I − V Vᵀ) U‖`` in that norm.
    """
    V = check_orthonormal(V, name="V")
    U = check_orthonormal(U, name="U")
    if V.shape[0] != U.shape[0]:
        raise ValueError(
            f"ambient dimensions differ: {V.shape[0]} vs {U.shape[0]}"
        )
    return float(np.linalg.norm(U - V @ (V.T @ U), norm))
