"""Lower bounds for private subspace estimation: how small can the error be?

Two kinds of bound live here.

* The minimax *rates* of private k-PCA in the spiked covariance model
  ``Σ = U Λ Uᵀ + σ² I_d`` (Cai, Xia and Zha 2024, arXiv:2401.03820; for
  ``k = 1`` Liu, Kong, Jain and Oh 2022, arXiv:2205.13709): a non-private
  term and a privacy term, each known only up to an absolute constant and
  logarithmic factors. :func:`nonprivate_rate`, :func:`private_rate` and
  :func:`minimax_rate` evaluate them with the constant set to one, so they
  give shapes (slopes in ``n``, ``ε``, ``d``), not numbers to compare with
  an error.
* A fully explicit lower bound for ``k = 1`` over data sets of rows in the
  unit ball (:func:`explicit_k1_lower_bound`), proved in chapter 19 from a
  packing of lines and the private packing theorem of the toolkit; every
  constant in it is shown.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ...validation import check_delta, check_epsilon


def _positive(name: str, value) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return array


def _dimensions(d: int, k: int) -> tuple[int, int]:
    d, k = int(d), int(k)
    if not 1 <= k < d:
        raise ValueError(f"need 1 <= k < d, got k = {k}, d = {d}")
    return d, k


def noise_to_signal(signal, noise_variance) -> np.ndarray:
    """The factor ``σ √(λ + σ²) / λ`` that multiplies both terms of the rate.

    Parameters
    ----------
    signal : float or array
        ``λ``, the smallest spike above the noise level (``λ_k − σ²`` for the
        second moment's eigenvalues).
    noise_variance : float or array
        ``σ²``, the variance of every direction outside the spikes.

    Returns
    -------
    numpy.ndarray
        ``σ √(λ + σ²) / λ``: large when the spike is weak against the noise.
    """
    lam = _positive("signal", signal)
    sigma2 = _positive("noise_variance", noise_variance)
    return np.sqrt(sigma2 * (lam + sigma2)) / lam


def nonprivate_rate(n, d: int, k: int, signal, noise_variance) -> np.ndarray:
    """The non-private minimax rate of the Frobenius sin Θ error, constant 1.

    Parameters
    ----------
    n : int or array
        Sample size.
    d, k : int
        Dimension and number of components, ``1 <= k < d``.
    signal, noise_variance : float
        ``λ`` and ``σ²`` of :func:`noise_to_signal`.

    Returns
    -------
    numpy.ndarray
        ``σ √(λ + σ²)/λ · √(k (d − k) / n)``, the classical rate of PCA in
        the spiked model (no privacy), up to an absolute constant.
    """
    d, k = _dimensions(d, k)
    n = _positive("n", n)
    return noise_to_signal(signal, noise_variance) * np.sqrt(k * (d - k) / n)


def private_rate(
    n, d: int, k: int, epsilon, signal, noise_variance
) -> np.ndarray:
    """The privacy term of the minimax rate, constant 1.

    Parameters
    ----------
    n : int or array
        Sample size.
    d, k : int
        Dimension and number of components, ``1 <= k < d``.
    epsilon : float or array
        Privacy parameter ε.
    signal, noise_variance : float
        ``λ`` and ``σ²`` of :func:`noise_to_signal`.

    Returns
    -------
    numpy.ndarray
        ``σ √(λ + σ²)/λ · k (d − k) / (n ε)``: the error that privacy adds,
        as the book reads the lower bounds of Cai, Xia and Zha (for ``k = 1``
        the ``d/(εn)`` term of Liu et al.), up to an absolute constant and
        logarithmic factors (the upper bounds carry ``√log(1/δ)``).
    """
    d, k = _dimensions(d, k)
    n = _positive("n", n)
    epsilon = _positive("epsilon", epsilon)
    factor = noise_to_signal(signal, noise_variance)
    return factor * k * (d - k) / (n * epsilon)


def minimax_rate(
    n, d: int, k: int, epsilon, signal, noise_variance
) -> np.ndarray:
    """Both terms added and capped at ``√k``, constant 1.

    Parameters
    ----------
    n, d, k, epsilon, signal, noise_variance
        As in :func:`private_rate`.

    Returns
    -------
    numpy.ndarray
        ``min(nonprivate + private, √k)``; ``√k`` is the largest Frobenius
        sin Θ error of two k-dimensional subspaces when ``2k <= d``.
    """
    total = nonprivate_rate(n, d, k, signal, noise_variance) + private_rate(
        n, d, k, epsilon, signal, noise_variance
    )
    return np.minimum(total, math.sqrt(min(k, d - k)))


def spiked_sphere_signal(d: int, spike: float) -> tuple[float, float]:
    """``(λ, σ²)`` of the book's spiked rows on the sphere with one spike.

    Parameters
    ----------
    d : int
        Dimension.
    spike : float
        Variance of the first coordinate before the rows are normalised
        (:func:`dppca.book.synthetic_data.spiked_sphere_rows`).

    Returns
    -------
    tuple of float
        ``(λ₁ − λ₂, λ₂)`` of the rows' second moment.
    """
    from ..synthetic_data import spiked_sphere_eigenvalues

    lam1, lam2 = spiked_sphere_eigenvalues(d, spike)
    return lam1 - lam2, lam2


def log_packing_minus_one(d: int, phi) -> np.ndarray:
    """A lower bound on ``log(N − 1)``, ``N`` the largest φ-packing of lines.

    Parameters
    ----------
    d : int
        Dimension of the space the lines live in, at least 2.
    phi : float or array
        Largest allowed ``|⟨u_i, u_j⟩|``, in ``(0, 1)``.

    Returns
    -------
    numpy.ndarray
        ``log(1/s − 1)`` with ``s = P(Beta(1/2, (d − 1)/2) > φ²)``: a maximal
        packing has ``N >= 1/s`` lines (the toolkit's covering argument), so
        ``N − 1 >= 1/s − 1``.
    """
    d = int(d)
    if d < 2:
        raise ValueError(f"a packing of lines needs d >= 2, got {d}")
    phi = np.asarray(phi, dtype=float)
    if np.any((phi <= 0) | (phi >= 1)):
        raise ValueError("phi must lie in (0, 1)")
    log_s = stats.beta.logsf(phi**2, 0.5, (d - 1) / 2)
    return np.log(-np.expm1(log_s)) - log_s


def group_delta(epsilon: float, delta: float, m) -> np.ndarray:
    """The δ of group privacy for ``m`` changed rows.

    Parameters
    ----------
    epsilon, delta : float
        The mechanism's ``(ε, δ)``.
    m : int or array
        Number of rows in which two data sets differ.

    Returns
    -------
    numpy.ndarray
        ``δ (1 + e^ε + … + e^((m−1)ε))``, capped at 1: an ``(ε, δ)``-DP
        mechanism is ``(mε, group_delta)``-DP for data sets ``m`` rows
        apart.
    """
    m = np.asarray(m, dtype=float)
    if delta == 0:
        return np.zeros_like(m)
    with np.errstate(over="ignore"):
        grown = delta * np.expm1(m * epsilon) / np.expm1(epsilon)
    return np.minimum(grown, 1.0)  # a δ of 1 or more says nothing


def packing_success_bound(log_m_minus_1, epsilon_m, delta_m=0.0):
    """The largest average probability of landing in one's own set.

    Parameters
    ----------
    log_m_minus_1 : float or array
        ``log(M − 1)`` for ``M`` data sets (a lower bound on it is enough).
    epsilon_m, delta_m : float or array
        Group privacy ``(mε, δ_m)`` between any two of the data sets.

    Returns
    -------
    numpy.ndarray
        ``(1 + x δ_m) / (1 + x)`` with ``x = (M − 1) e^(−mε)``: with disjoint
        sets ``G_i``, ``(1/M) Σ P(A(D_i) ∈ G_i)`` is at most this (the
        toolkit's theorem for ``δ_m = 0``; chapter 19 for ``δ_m > 0``).
    """
    log_x = np.asarray(log_m_minus_1, dtype=float) - np.asarray(epsilon_m)
    delta_m = np.asarray(delta_m, dtype=float)
    # (1 + x δ)/(1 + x) written stably for x from e^-700 to e^700
    weight = 1.0 / (1.0 + np.exp(np.clip(log_x, -700, 700)))
    return np.minimum(weight + (1.0 - weight) * delta_m, 1.0)


def tilt_angle(beta, gap) -> np.ndarray:
    """Angle between the top eigenvector of a hard data set and its base.

    Parameters
    ----------
    beta : float or array
        Fraction of changed rows, ``0 < β <= gap``.
    gap : float
        Eigengap ``Δ`` of the data set's second moment, ``<= 1/2``.

    Returns
    -------
    numpy.ndarray
        ``θ = ½ atan2(β, √(Δ² − β²))``: in the plane of ``y`` and ``w``, the
        second moment of
        :func:`dppca.book.bounds.exponential.theorem8_datasets` is
        ``[[a + β/2, β/2], [β/2, β/2]]`` with ``a = √(Δ² − β²)``, whose top
        eigenvector makes the angle ``θ`` with ``y``.
    """
    beta = np.asarray(beta, dtype=float)
    return 0.5 * np.arctan2(beta, np.sqrt(np.maximum(gap**2 - beta**2, 0.0)))


def line_separation(theta, phi) -> np.ndarray:
    """Smallest sine distance between two tilted top eigenvectors.

    Parameters
    ----------
    theta : float or array
        Tilt angle of :func:`tilt_angle`.
    phi : float or array
        ``|⟨w_i, w_j⟩| <= φ`` for the packing directions.

    Returns
    -------
    numpy.ndarray
        ``√(1 − (cos²θ + φ sin²θ)²)``: ``v = cos θ y + sin θ w`` for two
        packing directions have ``|⟨v_i, v_j⟩| <= cos²θ + φ sin²θ``.
    """
    theta = np.asarray(theta, dtype=float)
    inner = np.cos(theta) ** 2 + np.asarray(phi) * np.sin(theta) ** 2
    return np.sqrt(np.maximum(1.0 - inner**2, 0.0))


@dataclass(frozen=True)
class ExplicitBound:
    """The explicit ``k = 1`` lower bound and the choices that attain it.

    ``value`` bounds ``max_i E sin∠(v̂(D_i), v₁(D_i))`` from below; ``phi``
    and ``changed`` (rows changed, ``m``) are the packing level and the
    group size that give it, ``separation`` the sine distance between the
    data sets' top eigenvectors and ``success`` the bound on the average
    probability of landing within half of it.
    """

    value: float
    phi: float
    changed: int
    separation: float
    success: float


def explicit_k1_bound_at(
    n: int, d: int, epsilon: float, gap: float, delta: float, phi, changed
) -> np.ndarray:
    """The bound of chapter 19's theorem for given ``φ`` and ``m``.

    Parameters
    ----------
    n, d : int
        Rows per data set and dimension (``d >= 3``).
    epsilon, delta : float
        The mechanism's privacy parameters.
    gap : float
        Eigengap of the hard data sets, in ``(0, 1/2]``.
    phi : float or array
        Packing level in ``(0, 1)``.
    changed : int or array
        Number ``m`` of changed rows, ``1 <= m <= gap · n``.

    Returns
    -------
    numpy.ndarray
        ``(s/2)(1 − p̄)`` with ``s`` the :func:`line_separation` and ``p̄``
        the :func:`packing_success_bound` for ``M − 1 >= 1/s_(d−1)(φ) − 1``
        data sets ``m`` rows apart.
    """
    changed = np.asarray(changed, dtype=float)
    theta = tilt_angle(changed / n, gap)
    separation = line_separation(theta, phi)
    success = packing_success_bound(
        log_packing_minus_one(d - 1, phi),
        changed * epsilon,
        group_delta(epsilon, delta, changed),
    )
    return separation / 2 * (1 - success)


def explicit_k1_lower_bound(
    n: int,
    d: int,
    epsilon: float,
    gap: float,
    delta: float = 0.0,
    phis=None,
    max_changed: int = 400,
) -> ExplicitBound:
    """An explicit lower bound on the worst-case error of any private k = 1.

    For every ``(ε, δ)``-DP algorithm that maps ``n`` rows of norm at most one
    to a unit vector, some data set whose second moment has eigengap ``gap``
    makes the expected sine between the output and its top eigenvector at
    least ``value`` (chapter 19, the theorem "an explicit lower bound").

    Parameters
    ----------
    n : int
        Rows per data set.
    d : int
        Dimension, at least 3.
    epsilon : float
        Privacy parameter ε.
    gap : float
        Eigengap ``λ₁ − λ₂``, in ``(0, 1/2]``.
    delta : float, optional
        Privacy parameter δ (0 for pure ε-DP).
    phis : array, optional
        Packing levels to try (default: 199 values in ``(0, 1)``).
    max_changed : int, optional
        Number of candidate group sizes ``m`` (spread over ``1..⌊gap n⌋``).

    Returns
    -------
    ExplicitBound
        The largest bound over the grid of ``(φ, m)``: each is valid, so the
        largest is too.
    """
    n, d = int(n), int(d)
    if d < 3:
        raise ValueError(f"the packing lives in d - 1 >= 2 dimensions, d = {d}")
    epsilon = float(check_epsilon(epsilon))
    delta = float(check_delta(delta)) if delta else 0.0
    if not 0 < gap <= 0.5:
        raise ValueError(f"gap must lie in (0, 1/2], got {gap!r}")
    top = math.floor(gap * n)
    if top < 1:
        raise ValueError("need gap * n >= 1: at least one changed row")
    phis = (
        np.linspace(0.005, 0.995, 199)
        if phis is None
        else np.asarray(phis, dtype=float)
    )
    ms = np.unique(
        np.round(np.geomspace(1, top, min(max_changed, top))).astype(int)
    )
    grid_phi, grid_m = np.meshgrid(phis, ms, indexing="ij")
    values = explicit_k1_bound_at(n, d, epsilon, gap, delta, grid_phi, grid_m)
    i, j = np.unravel_index(int(np.argmax(values)), values.shape)
    phi, m = float(grid_phi[i, j]), int(grid_m[i, j])
    theta = tilt_angle(m / n, gap)
    return ExplicitBound(
        value=float(values[i, j]),
        phi=phi,
        changed=m,
        separation=float(line_separation(theta, phi)),
        success=float(
            packing_success_bound(
                log_packing_minus_one(d - 1, phi),
                m * epsilon,
                group_delta(epsilon, delta, m),
            )
        ),
    )


__all__ = [
    "ExplicitBound",
    "explicit_k1_bound_at",
    "explicit_k1_lower_bound",
    "group_delta",
    "line_separation",
    "log_packing_minus_one",
    "minimax_rate",
    "noise_to_signal",
    "nonprivate_rate",
    "packing_success_bound",
    "private_rate",
    "spiked_sphere_signal",
    "tilt_angle",
]
