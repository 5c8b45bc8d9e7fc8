"""The spectral side of the trace-sensitive covariance
(:mod:`dppca.mechanisms.trace_sensitive`), deterministic: the separate
release's error bound and estimate, the released eigenvectors and the
Rayleigh quotients along them, the projection of a spectrum, and verified
eigenvalues.
"""

from __future__ import annotations

import math

import numpy as np

from ..linalg import float_error
from .trace_sensitive_calibration import BASIS_DEFECT

# ------------------------------------------------------------------------------
# The error of the separate release
# ------------------------------------------------------------------------------


def separate_error_bound(trace, vector_noise_norm, value_noise_norm) -> float:
    """``2 √(tr A · ‖E‖₂) + ‖z‖₂``: the Frobenius error of the separate
    release ``P̃ diag(λ(A) + z) P̃ᵀ`` for every PSD ``A``, every symmetric
    ``E`` (``P̃`` the eigenvectors of ``A + E``, both spectra in decreasing
    order) and every ``z``.

    The deterministic core of the trace-sensitive bound of Dong, Liang and Yi
    (2022, Section 1.1), with the constant of the book's proof (chapter 18):
    with ``M = P̃ Λ P̃ᵀ``, ``‖M − A‖_F² = 2 Σ λ_i (λ_i − λ̂_i) + 2⟨M, E⟩ ≤
    4 tr A ‖E‖₂`` by Weyl's inequality and ``|⟨M, E⟩| ≤ ‖M‖_* ‖E‖₂``; the
    eigenvalue noise adds ``‖z‖₂``, and sorting the noisy eigenvalues or
    projecting them onto an interval that contains the spectrum of ``A``
    never increases it.
    """
    trace = float(trace)
    if trace < 0 or vector_noise_norm < 0 or value_noise_norm < 0:
        raise ValueError("the trace and the noise norms must be >= 0")
    return float(
        2.0 * math.sqrt(trace * float(vector_noise_norm))
        + float(value_noise_norm)
    )


def separate_estimate(noisy_matrix, values, interval=None) -> np.ndarray:
    """``P̃ diag(v) P̃ᵀ``: the eigenvectors ``P̃`` of ``noisy_matrix`` (``A +
    E``, decreasing eigenvalues) with ``values`` (``λ(A) + z``) sorted in
    decreasing order and, when ``interval = (lo, hi)`` is given, projected
    onto it. The separate release's post-processing, deterministic, whose
    error ``separate_error_bound`` bounds (chapter 18)."""
    P = np.linalg.eigh(noisy_matrix)[1][:, ::-1]
    values = np.sort(np.asarray(values, dtype=float))[::-1]
    if interval is not None:
        values = np.clip(values, *interval)
    out = (P * values) @ P.T
    return (out + out.T) / 2


# ------------------------------------------------------------------------------
# The released eigenvectors and spectra
# ------------------------------------------------------------------------------


def project_spectrum(M, upper: float = 1.0) -> np.ndarray:
    """The symmetric ``M`` with its eigenvalues clipped to ``[0, upper]``:
    the Frobenius projection onto ``{0 ⪯ S ⪯ upper·I}``, which never moves
    ``M`` away from a matrix of that set."""
    lam, V = np.linalg.eigh(np.asarray(M, dtype=float))
    lam = np.clip(lam, 0.0, upper)
    out = (V * lam) @ V.T
    return (out + out.T) / 2


def capped_simplex_projection(
    values, bound: float, upper: float = 1.0
) -> np.ndarray:
    """The Euclidean projection of ``values`` onto ``{μ : 0 ≤ μ_i ≤ upper,
    Σ μ_i ≤ bound}``: ``μ_i = clip(λ_i − θ, 0, upper)`` with ``θ = 0`` when
    the clipped values already sum to at most ``bound``, else the ``θ > 0``
    at which they sum to ``bound`` (the KKT conditions of the capped
    simplex), found by bisection (200 halvings of ``[0, max λ]``)."""
    b = float(bound)
    if not b >= 0:
        raise ValueError(f"bound must be >= 0; got {bound!r}")
    lam = np.asarray(values, dtype=float)
    mu = np.clip(lam, 0.0, upper)
    if math.fsum(mu.tolist()) <= b:
        return mu
    lo, hi = 0.0, float(max(lam.max(), 0.0))
    for _ in range(200):
        theta = (lo + hi) / 2
        if math.fsum(np.clip(lam - theta, 0.0, upper).tolist()) > b:
            lo = theta
        else:
            hi = theta
    return np.clip(lam - hi, 0.0, upper)


def project_spectrum_with_trace(
    M, trace_bound: float, upper: float = 1.0
) -> np.ndarray:
    """``M`` with its eigenvalues clipped to ``[0, upper]``
    (``project_spectrum``), then projected onto ``C = {S : 0 ⪯ S ⪯
    upper·I, tr S ≤ trace_bound}``.

    ``C`` depends on the spectrum only, so both steps keep the eigenvectors
    of ``M``; the second projects the clipped eigenvalues onto the capped
    simplex (``capped_simplex_projection``). ``C`` is convex and contained in
    ``{0 ⪯ S ⪯ upper·I}``, so for every ``A`` in ``C`` the result is no
    farther from ``A`` in Frobenius norm than the clipped matrix, which is no
    farther than ``M`` (chapter 18). When the trace bound does not bind it
    equals ``project_spectrum(M)``.
    """
    lam, V = np.linalg.eigh(np.asarray(M, dtype=float))
    mu = capped_simplex_projection(np.clip(lam, 0.0, upper), trace_bound, upper)
    out = (V * mu) @ V.T
    return (out + out.T) / 2


def verified_eigenvalues(A) -> tuple[np.ndarray, float]:
    """The eigenvalues of the float symmetric ``A`` (decreasing) and a
    proved bound on their ℓ₂ distance to the exact eigenvalues of ``A``.

    With ``(λ, V)`` from LAPACK, ``R = AV − VΛ`` and ``G = VᵀV − I``,
    ``‖G‖₂ ≤ η < 1``, write ``V = QS`` (polar factor ``Q``, ``S =
    (VᵀV)^{1/2}``): ``QᵀAQ − Λ = (SΛ − ΛS)S^{-1} + S^{-1}VᵀRS^{-1}``, so by
    Hoffman–Wielandt the exact eigenvalues lie within ``2‖G‖_F‖λ‖_∞/√(1−η)
    + √(1+η)‖R‖_F/(1−η)`` of ``λ`` (ℓ₂, both sorted). ``R`` and ``G`` are
    computed in float64; their rounding errors (at most ``2γ_{d+3}`` times
    ``(‖A‖_F + ‖λ‖_∞)‖V‖_F`` and ``γ_{d+3}(‖V‖_F² + d)``, every product
    being a sum of ``d`` products in some order, Higham 2002, Sec. 3.1) and
    those of the norms (relative ``γ_{d²+2}``) are added.
    """
    A = np.asarray(A, dtype=float)
    d = A.shape[0]
    lam, V = np.linalg.eigh(A)
    # products: γ_{d+3} per entry (inner products of length d); norms of d²
    # entries: relative γ_{d²+2}, so a computed norm times `grow` bounds it
    gamma = float_error.rounding_gamma(d + 3)
    grow = 1.0 / (1.0 - float_error.rounding_gamma(d * d + 2))
    norm_V = float(np.linalg.norm(V)) * grow
    norm_A = float(np.linalg.norm(A)) * grow
    top = float(np.max(np.abs(lam), initial=0.0))
    G = V.T @ V - np.eye(d)
    R = A @ V - V * lam
    g = float(np.linalg.norm(G)) * grow + gamma * (norm_V**2 + d)
    r = float(np.linalg.norm(R)) * grow + 2 * gamma * (norm_A + top) * norm_V
    if not g < 0.5:
        return lam[::-1], math.inf
    bound = 2 * g * top / math.sqrt(1 - g) + math.sqrt(1 + g) * r / (1 - g)
    return lam[::-1], float(bound * grow)


def released_basis(noisy_matrix) -> np.ndarray:
    """The eigenvectors ``P̃`` of the released ``A + E`` (decreasing
    eigenvalues), if their computed defect ``‖P̃ᵀP̃ − I‖_F`` (plus its
    rounding) is at most ``BASIS_DEFECT``; otherwise the identity. A
    function of the release alone: the branch is post-processing."""
    M = np.asarray(noisy_matrix, dtype=float)
    d = M.shape[0]
    P = np.linalg.eigh(M)[1][:, ::-1]
    gamma = float_error.rounding_gamma(d + 3)
    grow = 1.0 / (1.0 - float_error.rounding_gamma(d * d + 2))
    norm_P = float(np.linalg.norm(P)) * grow
    G = P.T @ P - np.eye(d)
    defect = float(np.linalg.norm(G)) * grow + gamma * (norm_P**2 + d)
    if not defect <= BASIS_DEFECT:
        return np.eye(d)
    return np.ascontiguousarray(P)


def rayleigh_quotients(A, P) -> np.ndarray:
    """``(p_iᵀ A p_i)_i`` for the columns ``p_i`` of ``P``: the diagonal of
    ``PᵀAP``. For a fixed (released) ``P`` this is linear in ``A``, with
    ℓ₂ sensitivity at most ``‖P‖₂² ‖A − A′‖_F``; with orthonormal ``P``
    it is the diagonal ``D`` that brings ``P D Pᵀ`` closest to ``A`` in
    Frobenius norm, and every entry lies in ``[λ_d(A), λ_1(A)]``."""
    A = np.asarray(A, dtype=float)
    P = np.asarray(P, dtype=float)
    return np.einsum("ji,ji->i", P, A @ P)


__all__ = [
    "capped_simplex_projection",
    "project_spectrum",
    "project_spectrum_with_trace",
    "rayleigh_quotients",
    "released_basis",
    "separate_error_bound",
    "separate_estimate",
    "verified_eigenvalues",
]
