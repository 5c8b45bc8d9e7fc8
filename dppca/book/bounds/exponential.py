"""Sample-complexity bounds of PPCA (Chaudhuri, Sarwate and Sinha 2013,
Theorems 7 and 8,
Lemmas 10, 11, 17, 18), as plain functions."""

from __future__ import annotations

import math

import numpy as np


def theorem7_sample_size(
    d: int, epsilon: float, gap: float, rho: float, eta: float, lambda1: float
) -> float:
    """001, Theorem 7: PPCA (k = 1) gives ``P(|<v1, v̂1>| > ρ) >= 1 - η``
    whenever ``n`` exceeds

    ``d / (ε Δ (1 - ρ)) · (4 log(1/η) / d + 2 log(8 λ1 / ((1 - ρ²) Δ)))``, ``Δ =
    λ1 - λ2``.
    """
    return (
        d
        / (epsilon * gap * (1 - rho))
        * (
            4 * math.log(1 / eta) / d
            + 2 * math.log(8 * lambda1 / ((1 - rho**2) * gap))
        )
    )


def theorem7_failure_bound(
    n: int, d: int, epsilon: float, lambda1: float, lambda2: float, rho: float
) -> float:
    """The bound (10) of 001's proof of Theorem 7 with its choice of σ,
    before simplification:

    ``P(|<v̂1, v1>| < ρ) <= exp(-(nε/4)(1-ρ²)(λ1-λ2) + ((d-1)/2) log(8λ1 /
    ((1-ρ²)(λ1-λ2))))``.
    """
    gap = lambda1 - lambda2
    log_bound = -(n * epsilon / 4) * (1 - rho**2) * gap + (
        d - 1
    ) / 2 * math.log(8 * lambda1 / ((1 - rho**2) * gap))
    return math.exp(min(log_bound, 0.0))


def theorem8_one_minus_phi(d: int) -> float:
    """001, Theorem 8: ``1 - φ = exp(-2 (ln 8 + ln(1 + e^d)) / (d - 2))``
    (makes ln(K-1) = d)."""
    if d < 3:
        raise ValueError("Theorem 8 needs d >= 3")
    return math.exp(-2 * (math.log(8) + d + math.log1p(math.exp(-d))) / (d - 2))


def theorem8_sample_size(
    d: int, epsilon: float, gap: float, rho: float
) -> float:
    """001, Theorem 8: no ε-DP algorithm has expected utility > ρ on all data
    sets with eigengap Δ
    if ``n < d/(ε Δ) · max(1, sqrt((1-φ)/(80(1-ρ))))`` (valid for ``ρ >= 1 -
    (1-φ)/16``, Δ <= 1/2)."""
    one_minus_phi = theorem8_one_minus_phi(d)
    return (
        d
        / (epsilon * gap)
        * max(1.0, math.sqrt(one_minus_phi / (80 * (1 - rho))))
    )


def packing_size_lemma11(d: int, phi: float) -> float:
    """001, Lemma 11: a packing of ``K = (1/8) (1 - φ²)^(-(d-1)/2)`` unit
    vectors of S^{d-1}
    with pairwise ``|<μ, ν>| <= φ`` exists (for ``φ >= (2πd)^(-1/2)``)."""
    return 0.125 * (1 - phi**2) ** (-(d - 1) / 2)


def packing_size_theorem8_proof(d: int, phi: float) -> float:
    """The packing size used in 001's proof of Theorem 8 on S^{d-2}:
    ``(1/8)(1 - φ)^(-(d-2)/2)``.

    Compare with :func:`packing_size_lemma11` in dimension ``d - 1``: since ``1
    - φ <= 1 - φ²`` this is *larger* than what Lemma 11 guarantees.
    """
    return 0.125 * (1 - phi) ** (-(d - 2) / 2)


def lemma17_cap_bound(d: int, phi: float) -> float:
    """001, Lemma 17 (Csiszár–Narayan): ``P(<U, u> >= φ) <= (1 -
    φ²)^((d-1)/2)`` for uniform U."""
    return (1 - phi**2) ** ((d - 1) / 2)


def lemma10_cap_bounds(d: int, c: float):
    """001, Lemma 10 (Ball 1997): bounds on the uniform measure of ``{v: <v,
    x> >= c}`` in S^{d-1}:
    ``(1/2) exp(-((d-1)/2) log(2/(1-c²))) <= μ <= exp(-d c²/2)``. Returns
    ``(lower, upper)``."""
    return 0.5 * math.exp(-(d - 1) / 2 * math.log(2 / (1 - c**2))), math.exp(
        -d * c**2 / 2
    )


def lemma12_utility_bound(max_inner: float) -> float:
    """001, Lemma 12: the average over the K data sets of ``E|<A(D_i),
    u_i>|`` is at most
    ``1 - (1 - max_{i≠j} |<u_i, u_j>|) / 16`` for any ε-DP algorithm A."""
    return 1 - (1 - max_inner) / 16


def theorem8_datasets(y, W, n: int, n_changed: int, gap: float):
    """The K data sets of 001's proof of Theorem 8 (case β <= Δ): data set i
    holds ``n - n_changed``
    copies of ``sqrt(m) y`` and ``n_changed`` copies of ``(y + w_i)/sqrt 2`` (β
    = n_changed / n), with ``m = sqrt(Δ² - β²)/(1 - β)`` so that the eigengap is
    Δ. Returns (list of (rows, counts)
    pairs, second-moment matrices, top eigenvectors)."""
    y = np.asarray(y, dtype=float)
    beta = n_changed / n
    if not (beta <= gap <= 0.5):
        raise ValueError(
            f"the construction needs β = {beta:.4g} <= Δ = {gap:.4g} <= 1/2"
        )
    m = math.sqrt(gap**2 - beta**2) / (1 - beta)
    base = math.sqrt(m) * y
    moments, tops, data = [], [], []
    for w in np.asarray(W, dtype=float):
        z = (y + w) / math.sqrt(2)
        A = (1 - beta) * np.outer(base, base) + beta * np.outer(z, z)
        vals, vecs = np.linalg.eigh(A)
        moments.append(A)
        tops.append(vecs[:, -1] * np.sign(vecs[:, -1] @ y))
        data.append(
            (np.vstack([base, z]), np.array([n - n_changed, n_changed]))
        )
    return data, moments, np.array(tops)
