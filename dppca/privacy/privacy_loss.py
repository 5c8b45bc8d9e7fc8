"""Privacy-loss random variables and exact privacy profiles δ(ε).

The tools with which the book and the tests check a mechanism's privacy
claim on given neighbouring pairs: a Monte Carlo estimate of δ(ε) from draws
of the privacy-loss random variable, those draws for the Gaussian and Laplace
mechanisms, the exact δ(ε) of the Gaussian mechanism on one pair, and the
exact worst-case privacy loss of two laws of one unit vector (on the circle,
and in ``R^d`` for laws that depend on two coordinates only). Re-exported by
:mod:`dppca.privacy`, like :mod:`dppca.privacy.calibration`.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from ..montecarlo import Estimate, mean_ci
from ..validation import as_generator


def delta_from_privacy_losses(
    losses, epsilon: float, level: float = 0.99
) -> Estimate:
    """Monte Carlo estimate of δ(ε) = E_P[(1 − exp(ε − L))₊] from draws of the
    privacy-loss random
    variable L = log(p(Y)/q(Y)), Y ~ P (L = +∞ where q vanishes: such outputs
    count fully).

    This is the exact tight δ for the ordered pair (P, Q) (Balle and Wang 2018,
    Theorem 5); the estimate comes with the normal-approximation confidence
    interval of :func:`dppca.montecarlo.mean_ci`.
    """
    if isinstance(epsilon, (bool, np.bool_)):
        raise TypeError(f"epsilon must be a real number, got {epsilon!r}")
    eps = float(epsilon)
    if not (np.isfinite(eps) and eps >= 0):
        raise ValueError(f"epsilon must be finite and >= 0, got {epsilon!r}")
    losses = np.asarray(losses, dtype=float)
    if losses.size == 0 or np.isnan(losses).any():
        raise ValueError("losses must be a non-empty array without NaN")
    with np.errstate(over="ignore"):
        terms = np.where(
            np.isposinf(losses),
            1.0,
            np.clip(-np.expm1(eps - losses), 0.0, None),
        )
    return mean_ci(terms, level)


def gaussian_privacy_loss_samples(
    l2_distance: float, sigma: float, size: int, rng=None
) -> np.ndarray:
    """Draws of the privacy-loss random variable of N(μ, σ²I) against N(μ',
    σ²I), ‖μ − μ'‖ = Δ.

    L = ⟨Y − μ', μ − μ'⟩/σ² − Δ²/(2σ²) with Y ~ N(μ, σ²I) is N(η, 2η), η =
    Δ²/(2σ²): simulate it directly (one dimension suffices by rotation
    invariance).
    """
    eta = l2_distance**2 / (2.0 * sigma**2)
    return as_generator(rng).normal(eta, np.sqrt(2.0 * eta), size=size)


def gaussian_pair_delta(
    l2_distance: float, sigma: float, epsilon
) -> np.ndarray:
    """Exact δ(ε) of the Gaussian mechanism on one pair at distance Δ
    (vectorised in ε):
    Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) (Balle and Wang 2018, Theorem 8)."""
    eps = np.atleast_1d(np.asarray(epsilon, dtype=float))
    a, b = l2_distance / (2.0 * sigma), eps * sigma / l2_distance
    first = special.log_ndtr(a - b)
    second = eps + special.log_ndtr(-a - b)
    out = np.where(
        second >= first,
        0.0,
        np.exp(first) * -np.expm1(np.minimum(second - first, 0.0)),
    )
    return out if np.ndim(epsilon) else float(out[0])


def laplace_privacy_loss_samples(
    a, a_hat, scale: float, size: int, rng=None
) -> np.ndarray:
    """Draws of ``L = Σ_i (|Y_i − â_i| − |Y_i − a_i|)/b`` with ``Y = a +
    Lap(0, b)^m``: the privacy-loss random variable of the Laplace mechanism
    on the pair (a, â). ``|L| ≤ ‖a − â‖₁/b`` always."""
    a = np.ravel(np.asarray(a, dtype=float))
    a_hat = np.ravel(np.asarray(a_hat, dtype=float))
    diff = a - a_hat
    keep = diff != 0  # coordinates that do not differ add zero loss
    diff = diff[keep]
    rng = as_generator(rng)
    out = np.empty(size)
    chunk = max(1, 2_000_000 // max(diff.size, 1))
    for start in range(0, size, chunk):
        m = min(chunk, size - start)
        noise = rng.laplace(0.0, scale, size=(m, diff.size))
        out[start : start + m] = (np.abs(noise + diff) - np.abs(noise)).sum(
            axis=1
        ) / scale
    return out


def circle_privacy_loss(log_density, log_density_prime, m: int = 8192) -> float:
    """Exact worst-case privacy loss ``max_θ |log p(θ) - log p'(θ)|`` of two
    laws on the unit
    circle of the plane, given their *unnormalised* log densities as functions
    of the angle.

    The normalising constants are computed by the trapezoid rule on ``m``
    equispaced angles (spectrally accurate for smooth periodic integrands); the
    maximum is taken on the same grid. This is how the book checks a mechanism
    that releases one unit vector in ``d = 2``.
    """
    theta = np.linspace(0.0, 2.0 * np.pi, int(m), endpoint=False)
    log_p = np.asarray(log_density(theta), dtype=float)
    log_q = np.asarray(log_density_prime(theta), dtype=float)

    def normalise(values):
        top = values.max()
        return values - (
            top + np.log(np.mean(np.exp(values - top)) * 2 * np.pi)
        )

    return float(np.max(np.abs(normalise(log_p) - normalise(log_q))))


def three_block_privacy_loss(
    log_density, log_density_prime, d: int, nodes: int = 300
) -> float:
    """Exact worst-case privacy loss of two laws of one unit vector in
    ``R^d`` (``d >= 3``) whose
    unnormalised log densities depend on ``x`` only through ``(x_1^2, x_2^2)``
    (e.g. Bingham-type laws with matrices ``diag(a, b, c, ..., c)``, the
    worst-case neighbours of the book).

    Under the uniform law on the sphere ``t_1 = x_1^2 ~ Beta(1/2, (d-1)/2)``
    and, given it, ``t_2 / (1 - t_1) ~ Beta(1/2, (d-2)/2)``; the normalising
    constants are two nested Gauss-Jacobi quadratures with ``nodes`` points
    each, and the maximum of the log ratio is taken over the same nodes.
    ``log_density`` maps an ``(m, d)`` array of unit vectors to ``(m,)``.
    """
    d = int(d)
    if d < 3:
        raise ValueError(
            "d must be at least 3 (use circle_privacy_loss for d = 2)"
        )
    y1, w1 = special.roots_jacobi(int(nodes), 0.5 * (d - 1) - 1.0, -0.5)
    y2, w2 = special.roots_jacobi(int(nodes), 0.5 * (d - 2) - 1.0, -0.5)
    s1, s2 = (1.0 + y1) / 2.0, (1.0 + y2) / 2.0
    t1 = np.repeat(s1, s2.size)
    t2 = (1.0 - t1) * np.tile(s2, s1.size)
    weights = np.repeat(w1, w2.size) * np.tile(w2, w1.size)
    X = np.zeros((t1.size, d))
    X[:, 0], X[:, 1] = np.sqrt(t1), np.sqrt(t2)
    X[:, 2] = np.sqrt(np.clip(1.0 - t1 - t2, 0.0, None))
    log_weights = np.log(weights / weights.sum())

    def normalised(values):
        values = np.asarray(values, dtype=float)
        return values - special.logsumexp(values + log_weights)

    gap = normalised(log_density(X)) - normalised(log_density_prime(X))
    return float(np.max(np.abs(gap)))


__all__ = [
    "delta_from_privacy_losses",
    "gaussian_privacy_loss_samples",
    "gaussian_pair_delta",
    "laplace_privacy_loss_samples",
    "circle_privacy_loss",
    "three_block_privacy_loss",
]
