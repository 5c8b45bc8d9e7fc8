"""Post-processing of the noisy matrix that :mod:`dppca.covariance.release`
draws for a :class:`~dppca.PrivateCovariance` fit: it reads no
row and draws nothing, so it costs no privacy; it is apart from the release
so that it can be checked, and reused, on any symmetric matrix.

**Post-processing.** ``covariance_ = B² · V max(Λ, f) Vᵀ`` for the
eigendecomposition ``V Λ Vᵀ`` of the noisy matrix: its eigenvalues are
raised to a floor ``f ≥ 0`` (the projection onto the positive semidefinite
cone when ``f = 0``), so ``covariance_`` is a valid covariance and, for ``f >
0``, invertible. ``min_eigenvalue="auto"`` sets ``f`` to the standard
deviation of one noise entry of the released matrix (public: a function of
``n``, ``d``, ε, δ and, for ``"trace_sensitive"``, the released radius).
``precision_`` is its inverse (a pseudo-inverse for ``f = 0``).

Under add/remove neighbours the noisy matrix is ``S/N`` plus noise, and the
estimator first multiplies it by ``N/max(1, n̂)`` for the released count
``n̂`` (post-processing of two releases), then floors it here; ``"auto"``
is then the noise's standard deviation after that rescaling, ``σ·N/max(1,
n̂)`` for the ``σ`` calibrated at ``n = N``.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg


def psd_floor(M, floor: float):
    """``V max(Λ, floor) Vᵀ`` and its inverse for the symmetric ``M = V Λ
    Vᵀ`` (post-processing).

    Parameters
    ----------
    M : ndarray of shape (d, d)
        A symmetric matrix.
    floor : float
        The least eigenvalue kept, ``>= 0``.

    Returns
    -------
    covariance : ndarray of shape (d, d)
        Symmetric positive semidefinite (definite for ``floor > 0``).
    precision : ndarray of shape (d, d)
        Its inverse (pseudo-inverse for ``floor = 0``).
    """
    M = np.asarray(M, dtype=float)
    values, vectors = np.linalg.eigh((M + M.T) / 2)
    values = np.maximum(values, floor)
    covariance = (vectors * values) @ vectors.T
    covariance = (covariance + covariance.T) / 2
    if floor > 0:
        precision = (vectors / values) @ vectors.T
        precision = (precision + precision.T) / 2
    else:
        precision = scipy.linalg.pinvh(covariance, check_finite=False)
    return covariance, precision


__all__ = ["psd_floor"]
