"""Monte Carlo and random-matrix diagnostics of chapter 16 for the complex
Gaussian mechanism (:mod:`dppca.mechanisms.complex_gaussian`): an audit of a
Hermitian noise sampler on one pair, draws of the rank-k release's error,
Dyson's eigenvalue drift for complex noise, and the level spacings of the GUE
and GOE against Wigner's surmise.
"""

from __future__ import annotations

import math

import numpy as np

from ...mechanisms.complex_gaussian import OUTPUTS, gue_noise, rank_k_output
from ...privacy.calibration import analytic_gaussian_delta
from ...samplers.dyson import EigenvalueDrift
from ...validation import (
    as_generator,
    check_choice,
    check_k,
    check_n,
    check_positive,
    check_symmetric,
)
from ..bounds.complex_gaussian import FIELDS

#: Dyson's eigenvalue drift ``sum_j c / (gamma_i - gamma_j)`` for complex
#: noise: ``c = E|dZ_ij|^2 / dt = 4`` (twice the real ``c = 2``; beta = 2).
COMPLEX_EIGENVALUE_DRIFT = 4.0


def directional_delta(noise_samples, difference, epsilon, level=0.999):
    """Audit of a Hermitian noise sampler on one neighbouring pair.

    ``noise_samples`` (batch × d × d) are draws of the noise ``Z``;
    ``difference`` is ``A − A′`` (real symmetric). Every Gaussian noise law
    acts on the pair through the variance ``v`` of ``t = ⟨Z, D⟩/‖D‖_F`` (real
    Frobenius inner product): the release's likelihood ratio on the pair is
    that of one coordinate. Returns ``(δ, δ_low, δ_high)``: the tight δ at
    ``epsilon`` of the Gaussian mechanism with noise ``√v`` and shift
    ``‖D‖_F``, at the estimated ``v`` and at the ends of its ``level``
    chi-square interval (a smaller variance gives a larger δ). A sampler
    with the calibrated law gives ``v = 4 s²`` along every direction.
    """
    from scipy import stats

    Z = np.asarray(noise_samples)
    D = np.asarray(difference, dtype=float)
    norm = float(np.linalg.norm(D))
    t = np.real(np.einsum("bjl,jl->b", Z, D)) / norm
    m = t.size
    v = float(np.mean(t * t))  # the noise has mean zero
    lo, hi = stats.chi2.ppf([(1 - level) / 2, (1 + level) / 2], m)
    v_low, v_high = v * m / hi, v * m / lo
    return tuple(
        analytic_gaussian_delta(math.sqrt(x), norm, epsilon)
        for x in (v, v_high, v_low)
    )


def rank_k_errors(
    M,
    k: int,
    noise_sigma: float,
    n_trials: int,
    rng=None,
    field: str = "complex",
    output: str = "real",
    *,
    batch_size: int = 128,
    return_noise: bool = False,
):
    """Monte Carlo draws of ``||release - M_k||_F`` at a given noise level.

    ``M_k`` is the best rank-k approximation of ``M`` (top-k eigenpairs). The
    release is built as by the mechanism with float noise: ``field="complex"``
    adds ``gue_noise`` and applies ``output``; ``field="real"`` adds
    chapter 5's ``G + G^T`` and returns ``U^_k diag(g^_1..k) U^_k^T`` (as
    ``dppca.mechanisms.gaussian_approx.rank_k_covariance_approximation``;
    ``output``
    must then be ``"real"``). With ``return_noise`` also returns, per draw,
    ``||Z||_2`` and ``||Z P_k||_F`` (``P_k`` the top-k eigenprojector of
    ``M``), the inputs of
    ``dppca.book.bounds.complex_gaussian.davis_kahan_error_bound``.
    """
    M = check_symmetric(M)
    d = M.shape[0]
    k = check_k(k, d)
    field, output = (
        check_choice(field, FIELDS, "field"),
        check_choice(output, OUTPUTS, "output"),
    )
    if field == "real" and output != "real":
        raise ValueError("real noise gives a real release: use output='real'")
    noise_sigma = check_positive(noise_sigma, "noise_sigma")
    n_trials = check_n(n_trials)
    batch_size = check_n(batch_size)
    rng = as_generator(rng)
    w, V = np.linalg.eigh(M)
    w, V = w[::-1], V[:, ::-1]
    target = (V[:, :k] * w[:k]) @ V[:, :k].T
    errors, norms, top = [], [], []
    for start in range(0, n_trials, batch_size):
        m = min(batch_size, n_trials - start)
        if field == "complex":
            Z = gue_noise(d, noise_sigma, rng, batch=(m,))
        else:
            G = rng.standard_normal((m, d, d)) * noise_sigma
            Z = G + np.swapaxes(G, -1, -2)
        values, vectors = np.linalg.eigh(M + Z)
        release = rank_k_output(
            values[..., ::-1], vectors[..., ::-1], k, output
        )
        errors.append(np.linalg.norm(release - target, axis=(-2, -1)))
        if return_noise:
            norms.append(np.abs(np.linalg.eigvalsh(Z)).max(axis=-1))
            top.append(np.linalg.norm(Z @ V[:, :k], axis=(-2, -1)))
    errors = np.concatenate(errors)
    if return_noise:
        return errors, np.concatenate(norms), np.concatenate(top)
    return errors


def complex_eigenvalue_drift(gamma) -> np.ndarray:
    """Dyson's eigenvalue drift rate for complex noise, ``4 sum_{j != i} 1 /
    (gamma_i - gamma_j)``: second-order perturbation gives ``sum_j
    |dZ~_ij|^2 / (gamma_i - gamma_j)`` and ``E|dZ~_ij|^2 = 4 dt`` (real
    noise: ``2 dt``, ``dppca.samplers.dyson.eigenvalue_drift``)."""
    gamma = np.asarray(gamma, dtype=float)
    return COMPLEX_EIGENVALUE_DRIFT * EigenvalueDrift(gamma.size)(gamma)


def semicircle_radius(d: int, sigma: float, field: str = "complex") -> float:
    """Edge ``2 sqrt(d E|Z_ij|^2)`` of the semicircle of the noise: ``4 sigma
    sqrt(d)`` for ``gue_noise``, ``2 sqrt(2 d) sigma`` for ``G + G^T``."""
    rate = 4.0 if check_choice(field, FIELDS, "field") == "complex" else 2.0
    return float(2.0 * np.sqrt(rate * d) * check_positive(sigma, "sigma"))


def unfolded_spacings(eigenvalues, radius: float, bulk: float = 0.5):
    """Nearest-neighbour spacings of sorted eigenvalues (last axis), unfolded
    by the semicircle density of radius ``radius`` (mean spacing one in the
    bulk), keeping the central fraction ``bulk`` of them."""
    ev = np.sort(np.asarray(eigenvalues, dtype=float), axis=-1)
    if not 0 < bulk <= 1:
        raise ValueError(f"bulk must lie in (0, 1]; got {bulk!r}")
    d = ev.shape[-1]
    mid = 0.5 * (ev[..., 1:] + ev[..., :-1])
    density = (
        d
        * 2.0
        / (np.pi * radius**2)
        * np.sqrt(np.clip(radius**2 - mid**2, 0.0, None))
    )
    spacings = np.diff(ev, axis=-1) * density
    m = spacings.shape[-1]
    drop = int(round(m * (1 - bulk) / 2))
    return spacings[..., drop : m - drop].ravel()


def wigner_surmise(s, beta: int) -> np.ndarray:
    """Wigner's surmise for the density of unfolded spacings: ``(pi/2) s
    exp(-pi s^2/4)`` (``beta = 1``) and ``(32/pi^2) s^2 exp(-4 s^2/pi)``
    (``beta = 2``); near zero ``~ s^beta``."""
    s = np.asarray(s, dtype=float)
    if beta == 1:
        return np.pi / 2 * s * np.exp(-np.pi * s**2 / 4)
    if beta == 2:
        return 32 / np.pi**2 * s**2 * np.exp(-4 * s**2 / np.pi)
    raise ValueError(f"beta must be 1 or 2; got {beta!r}")


def wigner_surmise_cdf(s, beta: int) -> np.ndarray:
    """CDF of ``wigner_surmise``: ``1 - exp(-pi s^2/4)`` (``beta = 1``),
    ``erf(2 s/sqrt(pi)) - (4 s/pi) exp(-4 s^2/pi)`` (``beta = 2``); near
    zero ``~ s^(beta + 1)``."""
    from scipy.special import erf

    s = np.asarray(s, dtype=float)
    if beta == 1:
        return 1 - np.exp(-np.pi * s**2 / 4)
    if beta == 2:
        return erf(2 * s / np.sqrt(np.pi)) - 4 * s / np.pi * np.exp(
            -4 * s**2 / np.pi
        )
    raise ValueError(f"beta must be 1 or 2; got {beta!r}")


__all__ = [
    "COMPLEX_EIGENVALUE_DRIFT",
    "directional_delta",
    "rank_k_errors",
    "complex_eigenvalue_drift",
    "semicircle_radius",
    "unfolded_spacings",
    "wigner_surmise",
    "wigner_surmise_cdf",
]
