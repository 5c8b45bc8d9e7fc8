"""Exact privacy of the noise laws on a given neighbouring pair.

The privacy suite compares what a release *reports* with what a constructed
neighbouring pair *forces*. These functions compute the second exactly (up to
float64 summation of probabilities) from the laws the samplers draw:

* the discrete Gaussian on the grid, P(z) ∝ exp(−z²/(2v)) per coordinate,
  shifted by an integer vector s between the two data sets: the privacy loss
  is L = (2⟨z, s⟩ + ‖s‖²)/(2v), whose law is that of ⟨z, s⟩, a convolution of
  integer pmfs (when the convolution is too large, an upper bound on the
  exact ε from the pair's own Rényi curve: never below the exact value);
* the continuous Gaussian (analytic formula of Balle and Wang 2018);
* the discrete Laplace P(z) ∝ exp(−|z|/t): its worst ε is ‖s‖₁/t.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from scipy import optimize

from dppca import noise as noise_module


def discrete_gaussian_pmf(variance: float, width: float = 40.0):
    """(support, pmf) of P(z) ∝ exp(−z²/(2v)) on integers |z| ≤ width·√v."""
    half = int(math.ceil(width * math.sqrt(variance))) + 2
    support = np.arange(-half, half + 1)
    logp = -(support.astype(float) ** 2) / (2.0 * variance)
    p = np.exp(logp - logp.max())
    return support, p / p.sum()


def inner_product_pmf(shift, variance: float):
    """Law of W = ⟨z, s⟩ for i.i.d. discrete Gaussians z and an integer s:
    (offset, pmf) with pmf[i] = P(W = offset + i)."""
    support, p = discrete_gaussian_pmf(variance)
    pmf, offset = np.array([1.0]), 0
    for s in np.asarray(shift, dtype=np.int64).ravel():
        s = int(s)
        if s == 0:
            continue
        step = abs(s)
        term = np.zeros(step * (support.size - 1) + 1)
        term[::step] = p if s > 0 else p[::-1]
        pmf = np.convolve(pmf, term)
        offset += step * int(support[0])
    return offset, pmf


def _loss_law(shift, variance, ratios):
    """(values, pmf) of the privacy loss L = Σ_j (2 z_j s_j + s_j²)/(2 v r_j)
    for independent z_j ~ DG(v r_j), integer ratios r_j."""
    shift = np.asarray(shift, dtype=np.int64).ravel()
    ratios = (
        np.ones(shift.size, dtype=np.int64)
        if ratios is None
        else np.asarray(ratios, dtype=np.int64).ravel()
    )
    common = int(np.lcm.reduce(ratios)) if ratios.size else 1
    pmf, offset, constant = np.array([1.0]), 0, 0
    for s, r in zip(shift.tolist(), ratios.tolist()):
        if s == 0:
            continue
        a = (common // r) * s  # W = Σ a_j z_j is integer valued
        constant += (common // r) * s * s
        support, p = discrete_gaussian_pmf(variance * r)
        step = abs(a)
        term = np.zeros(step * (support.size - 1) + 1)
        term[::step] = p if a > 0 else p[::-1]
        pmf = np.convolve(pmf, term)
        offset += step * int(support[0])
    w = offset + np.arange(pmf.size, dtype=float)
    return (2.0 * w + constant) / (2.0 * variance * common), pmf


def discrete_gaussian_delta(
    shift, variance: float, epsilon: float, ratios=None
) -> float:
    """Exact δ(ε) between discrete Gaussians centred at k and at k − s
    (variance v·r_j on coordinate j; r_j = 1 by default)."""
    if not np.any(np.asarray(shift)):
        return 0.0
    loss, pmf = _loss_law(shift, variance, ratios)
    return float(np.sum(pmf * np.clip(-np.expm1(epsilon - loss), 0.0, None)))


#: Largest convolution the exact computation attempts (array entries).
MAX_CONVOLUTION = 20_000


def _convolution_size(shift, variance, ratios) -> float:
    r = np.ones(len(shift)) if ratios is None else np.asarray(ratios, float)
    common = float(np.lcm.reduce(np.asarray(r, dtype=np.int64)))
    half = 40.0 * np.sqrt(variance * r) + 2
    return float(np.sum(np.abs(shift) * (common / r) * 2 * half))


def renyi_epsilon(shift, variance: float, delta: float, ratios=None) -> float:
    """An upper bound on the exact ε of the pair: the ε that
    ``dppca.accounting`` gives for the pair's own Rényi curve. An integer
    shift s of discrete Gaussians of variance v r_j has Rényi divergence
    exactly α Σ s_j²/(2 v r_j) at every order α (Canonne, Kamath and Steinke
    2020), the curve of a ρ-zCDP release with that ρ; converting a curve to
    (ε, δ) never gives less than the exact ε. A release whose own ρ is
    smaller reports less than this bound, so checking "reported ≥ bound" is
    stronger than checking against the exact ε."""
    from dppca import accounting
    from dppca.guarantees import zcdp_release

    r = np.ones(len(shift)) if ratios is None else np.asarray(ratios, float)
    rho = float(np.sum(np.asarray(shift, float) ** 2 / r) / (2 * variance))
    record = zcdp_release("pair", rho, 1.0, delta)
    return accounting.gaussian_epsilon([record.noise_multiplier], delta, "rdp")


def discrete_gaussian_epsilon(
    shift, variance: float, delta: float, ratios=None
) -> float:
    """Smallest ε with δ(ε) ≤ delta for that shift, computed exactly by
    convolution; when the convolution would be too large (fine grids), the
    Rényi upper bound :func:`renyi_epsilon` instead (never below the exact
    value)."""
    shift = np.asarray(shift, dtype=float).ravel()
    if not np.any(shift):
        return 0.0
    if _convolution_size(shift, variance, ratios) > MAX_CONVOLUTION:
        return renyi_epsilon(shift, variance, delta, ratios)
    loss, pmf = _loss_law(shift.astype(np.int64), variance, ratios)

    def excess(e):
        gap = np.clip(-np.expm1(e - loss), 0.0, None)
        return float(np.sum(pmf * gap)) - delta

    if excess(0.0) <= 0:
        return 0.0
    hi = 1.0
    while excess(hi) > 0:
        hi *= 2.0
    return float(optimize.brentq(excess, 0.0, hi, xtol=1e-10))


def safe_gaussian_variance(sigma: float, granularity: float) -> float:
    """The variance parameter t·c (grid units) that the safe sampler really
    uses for σ on grid γ (at least (σ/γ)²)."""
    target = (Fraction(float(sigma)) / Fraction(granularity)) ** 2
    t, c = noise_module.discrete_gaussian_parameters(target)
    return float(Fraction(t) * Fraction(c))


def safe_laplace_parameter(scale: float, granularity: float) -> int:
    """The parameter t = ⌈b/γ⌉ of the safe discrete Laplace sampler."""
    return math.ceil(Fraction(float(scale)) / Fraction(granularity))


def grid_shift(values, values_prime, granularity: float) -> np.ndarray:
    """Integer shift between two value vectors after the safe rounding."""
    return noise_module.round_to_grid(
        values, granularity
    ) - noise_module.round_to_grid(values_prime, granularity)


def upper(M) -> np.ndarray:
    """Upper triangle (diagonal included) of a symmetric matrix."""
    M = np.asarray(M)
    return M[np.triu_indices(M.shape[0])]
