"""Bounds and predictions for the Gaussian mechanism for matrix approximation.

Mangoubi and Vishnoi (NeurIPS 2022, "Re-Analyze Gauss", main theorem and
corollaries) state their bounds up to constants and logarithms (``O~``); the
slides give no constants. The functions here return the SHAPES of those
statements with the constant set to one (said in each docstring), and the
leading-order prediction derived in the book from Itô's lemma, which has no free
constant. Noise: ``G + G^T`` with ``G`` i.i.d. ``N(0, noise_sigma^2)`` (``=
B(T)`` at ``T = noise_sigma^2``). Spectra ``sigmas`` are sorted
non-increasingly.
"""

from __future__ import annotations

import numpy as np

from ...mechanisms.gaussian_approx import (
    sum_of_squares_prediction,
)


def sum_of_norms_prediction(sigmas, lambdas, noise_sigma: float) -> float:
    """Leading-order "sum of norms" (Davis–Kahan/trace-inequality style, as
    in Dwork et al. 2014).

    ``sum_i |lambda_i| E||u^_i u^_i^T - u_i u_i^T||_F`` with each term at first
    order ``|lambda_i| * sqrt(4 s^2 sum_{j != i} 1/(s_i - s_j)^2)``
    (root-mean-square in place of the mean): the triangle inequality adds the
    perturbations of the eigenvectors as norms, not squares.
    """
    sigmas = np.asarray(sigmas, dtype=float)
    lambdas = np.asarray(lambdas, dtype=float)
    ds = sigmas[:, None] - sigmas[None, :]
    np.fill_diagonal(ds, np.inf)
    active = lambdas != 0
    per_vector = (
        2.0 * noise_sigma * np.sqrt(np.sum(1.0 / ds[active] ** 2, axis=1))
    )
    return float(np.sum(np.abs(lambdas[active]) * per_vector))


def mv_gap_assumption_holds(
    sigmas, k: int, d: int, noise_sigma: float, c: float = 1.0
) -> bool:
    """Assumption(M) of the main theorem: ``sigma_i - sigma_{i+1} >= c
    sqrt(d) noise_sigma`` for
    ``i <= k`` (slides: ``Omega~(sqrt(d))`` in units of the noise; ``c`` and
    logs not given)."""
    gaps = -np.diff(np.asarray(sigmas, dtype=float))[:k]
    return bool(np.all(gaps >= c * np.sqrt(d) * noise_sigma))


def mv_covariance_corollary(sigmas, k: int, noise_sigma: float) -> float:
    """Shape of the covariance corollary, ``sqrt(k d) sigma_k / (sigma_k -
    sigma_{k+1})`` x noise
    (Mangoubi and Vishnoi 2022, Cor. "covariance approximation"; constant and
    logs set to one)."""
    sigmas = np.asarray(sigmas, dtype=float)
    d = sigmas.size
    return float(
        np.sqrt(k * d)
        * sigmas[k - 1]
        / (sigmas[k - 1] - sigmas[k])
        * noise_sigma
    )


def mv_subspace_corollary(sigmas, k: int, noise_sigma: float) -> float:
    """Shape of the subspace-recovery corollary, ``sqrt(k d) / (sigma_k -
    sigma_{k+1})`` x noise
    (constant and logs set to one)."""
    sigmas = np.asarray(sigmas, dtype=float)
    d = sigmas.size
    return float(np.sqrt(k * d) / (sigmas[k - 1] - sigmas[k]) * noise_sigma)


def dttz_covariance_bound(k: int, d: int, noise_sigma: float) -> float:
    """Shape of the prior bound ``||M_k - M^_k||_F <= O~(k sqrt(d))`` x noise
    (Dwork, Talwar,
    Thakurta and Zhang 2014, Analyze Gauss utility for rank-k approximation;
    constant set to one)."""
    return float(k * np.sqrt(d) * noise_sigma)


def dttz_subspace_bound(
    k: int, d: int, gap: float, noise_sigma: float
) -> float:
    """Shape of the prior subspace bound ``O~(k sqrt(d) / (sigma_k -
    sigma_{k+1}))`` x noise
    (Dwork et al. 2014, as quoted on the slides; constant set to one)."""
    return float(k * np.sqrt(d) / gap * noise_sigma)


def noise_operator_norm(d: int, noise_sigma: float) -> float:
    """Leading-order ``||G + G^T||_2 ~ 2 sqrt(2 d) noise_sigma`` (semicircle
    edge, off-diagonal
    variance ``2 noise_sigma^2``; Wigner/Anderson–Guionnet–Zeitouni)."""
    return float(2.0 * np.sqrt(2.0 * d) * noise_sigma)


def weyl_gap_constant() -> float:
    """``c*`` with gaps ``c sqrt(d T)``: Weyl keeps ``gamma_i - gamma_j >=
    (sigma_i - sigma_j)/2``
    whenever ``2 ||B(t)|| <= gap/2``; with ``||B(T)|| ~ 2 sqrt(2 d T)`` this
    needs ``c >= 8 sqrt(2)``."""
    return float(8.0 * np.sqrt(2.0))


def overlap_decay_rate(sigmas, i: int) -> float:
    """Initial decay ``-d E|<u_i(t), v_i>|^2 / dt = 2 sum_{j != i} 1/(sigma_i
    - sigma_j)^2`` (Dyson
    eigenvector SDE: the ``u_j`` component of ``u_i`` has variance ``2
    dt/(gap)^2``)."""
    sigmas = np.asarray(sigmas, dtype=float)
    others = np.delete(sigmas, i)
    return float(2.0 * np.sum(1.0 / (sigmas[i] - others) ** 2))


__all__ = [
    "sum_of_squares_prediction",
    "sum_of_norms_prediction",
    "mv_gap_assumption_holds",
    "mv_covariance_corollary",
    "mv_subspace_corollary",
    "dttz_covariance_bound",
    "dttz_subspace_bound",
    "noise_operator_norm",
    "weyl_gap_constant",
    "overlap_decay_rate",
]
