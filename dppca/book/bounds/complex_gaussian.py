"""Utility bounds and predictions for the complex Gaussian mechanism
(:mod:`dppca.mechanisms.complex_gaussian`; Mangoubi and Vishnoi 2023, chapter
16).

The paper's bound (abstract): roughly ``O~(sqrt(k d))`` whenever ``sigma_k -
sigma_{k+1}`` is appropriately large, where the real analysis of chapter 5
needs every gap ``sigma_i - sigma_{i+1}``, ``i <= k``, to be at least
``O~(sqrt(d))``. :func:`mv23_covariance_rate` returns its shape with constants
and logarithms set to one. :func:`rank_k_error_prediction` is the
leading-order mean squared error (Itô/first-order perturbation, no free
constant) and :func:`davis_kahan_error_bound` a deterministic bound, checkable
on every draw, that needs only the k-th gap.
"""

from __future__ import annotations

import numpy as np

from ...mechanisms.complex_gaussian import OUTPUTS
from ...mechanisms.gaussian_approx import sum_of_squares_prediction
from ...validation import check_choice, check_k, check_positive

#: Fields of the noise in the predictions and Monte Carlo helpers: GUE or
#: chapter 5's GOE.
FIELDS = ("complex", "real")


def rank_k_error_prediction(
    sigmas,
    k: int,
    noise_sigma: float,
    field: str = "complex",
    output: str = "real",
) -> float:
    """Leading-order ``E||release - M_k||_F^2`` of the rank-k release with
    noisy eigenvalues, for a spectrum ``sigmas`` (non-increasing).

    First-order perturbation (Itô's lemma at frozen gaps, as in chapter 5):
    with target ``lambda = (sigma_1..k, 0, ...)`` the eigenvector part is
    ``sum_{i != j} E|Z~_ij|^2 ((lambda_i - lambda_j)/(sigma_i - sigma_j))^2``
    and the eigenvalue part ``sum_{i <= k} E Z~_ii^2 = 4 k s^2``, orthogonal to
    it. ``E|Z~_ij|^2 = 2 s^2`` for real noise and for the real part of the
    complex release (the first-order error of ``Re H^`` is built from ``Re
    Z~`` only), ``4 s^2`` for the Hermitian output. Exact as ``s -> 0``; no
    free constant.
    """
    check_choice(field, FIELDS, "field")
    check_choice(output, OUTPUTS, "output")
    sigmas = np.asarray(sigmas, dtype=float)
    if sigmas.ndim != 1 or np.any(np.diff(sigmas) > 0):
        raise ValueError("sigmas must be a non-increasing vector")
    k = check_k(k, sigmas.size)
    s = check_positive(noise_sigma, "noise_sigma")
    lambdas = np.where(np.arange(sigmas.size) < k, sigmas, 0.0)
    pairs = sum_of_squares_prediction(sigmas, lambdas, s)  # 2 s^2 sum_{i!=j}
    factor = 2.0 if (field == "complex" and output == "hermitian") else 1.0
    return float(4.0 * k * s**2 + factor * pairs)


def mv23_gap_condition(sigmas, k: int, noise_sigma: float, c: float = 1.0):
    """The gap assumption of [MV23] as this module reads it: only
    ``sigma_k - sigma_{k+1} >= c sqrt(d) noise_sigma`` (the abstract's
    "appropriately large gap"; constant and logarithms unknown, ``c``
    free). Compare
    ``dppca.book.bounds.gaussian_approx.mv_gap_assumption_holds``,
    which needs every gap ``i <= k``."""
    sigmas = np.asarray(sigmas, dtype=float)
    k = check_k(k, sigmas.size)
    gap = sigmas[k - 1] - sigmas[k]
    return bool(
        gap
        >= c * np.sqrt(sigmas.size) * check_positive(noise_sigma, "noise_sigma")
    )


def mv23_covariance_rate(sigmas, k: int, noise_sigma: float) -> float:
    """Shape of the utility bound of [MV23] for rank-k covariance
    approximation, ``sqrt(k d) sigma_k / (sigma_k - sigma_{k+1})`` times the
    noise, constant and logarithms set to one.

    The abstract states "roughly O~(sqrt(k d))" under a large k-th gap; the
    factor ``sigma_k / (sigma_k - sigma_{k+1})`` (about one when
    ``sigma_{k+1} << sigma_k``) is the book's reading, the same as in the
    2022 corollary
    (``dppca.book.bounds.gaussian_approx.mv_covariance_corollary``).
    """
    sigmas = np.asarray(sigmas, dtype=float)
    k = check_k(k, sigmas.size)
    gap = sigmas[k - 1] - sigmas[k]
    if not gap > 0:
        raise ValueError("the bound needs sigma_k > sigma_{k+1}")
    return float(
        np.sqrt(k * sigmas.size)
        * sigmas[k - 1]
        / gap
        * check_positive(noise_sigma, "noise_sigma")
    )


def davis_kahan_error_bound(
    sigmas, k: int, noise_norm, top_k_noise
) -> np.ndarray:
    """A deterministic bound on ``||H^ - M_k||_F`` (hence on the real
    output), for any Hermitian noise ``Z`` with ``||Z||_2 = noise_norm`` and
    ``||Z P_k||_F = top_k_noise``; needs only the k-th gap ``g = sigma_k -
    sigma_{k+1} > ||Z||_2``:

        ||H^ - M_k||_F <= sqrt(k) ||Z||_2
                          + 3 sqrt(2) max|sigma| ||Z P_k||_F / (g - ||Z||_2).

    Proof (chapter 16): ``H^ = P^ (M + Z) P^`` and ``M_k = P M P`` with
    ``P^``, ``P`` the top-k eigenprojectors. With ``Q = P^ - P``, ``H^ - M_k =
    P^ Z P^ + Q M P + P M Q + Q M Q``; ``||P^ Z P^||_F <= sqrt(k) ||Z||_2``
    (rank k), ``||Q||_2 <= 1`` and ``||Q||_F = sqrt(2) ||sin Theta||_F <=
    sqrt(2) ||Z P||_F / (g - ||Z||_2)`` by the Davis–Kahan sin Theta theorem
    (Weyl: ``sigma^_{k+1} <= sigma_{k+1} + ||Z||_2``). Returns ``inf`` where
    ``g <= ||Z||_2``. Vectorised over the noise arrays.
    """
    sigmas = np.asarray(sigmas, dtype=float)
    k = check_k(k, sigmas.size)
    gap = sigmas[k - 1] - sigmas[k]
    E = np.asarray(noise_norm, dtype=float)
    F = np.asarray(top_k_noise, dtype=float)
    scale = np.abs(sigmas).max()
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.sqrt(k) * E + 3.0 * np.sqrt(2.0) * scale * F / (gap - E)
    return np.where(gap > E, bound, np.inf)


def typical_noise_norms(
    d: int, k: int, noise_sigma: float, field: str = "complex"
):
    """Typical values of the inputs of ``davis_kahan_error_bound``:
    the semicircle edge ``2 sqrt(d E|Z_ij|^2)`` for ``||Z||_2`` (``4 s
    sqrt(d)`` complex, ``2 sqrt(2 d) s`` real) and ``sqrt(E||Z P_k||_F^2)``
    (``2 s sqrt(k d)`` complex, ``s sqrt(2 k (d + 1))`` real)."""
    field = check_choice(field, FIELDS, "field")
    s = check_positive(noise_sigma, "noise_sigma")
    if field == "complex":
        return 4.0 * s * np.sqrt(d), 2.0 * s * np.sqrt(k * d)
    return 2.0 * s * np.sqrt(2.0 * d), s * np.sqrt(2.0 * k * (d + 1))


__all__ = [
    "FIELDS",
    "rank_k_error_prediction",
    "mv23_gap_condition",
    "mv23_covariance_rate",
    "davis_kahan_error_bound",
    "typical_noise_norms",
]
