"""Synthetic dense rows for the experiments: Section 6.5's Gaussian data
(:func:`synthetic_gaussian`) and chapter 17's spiked model on the sphere
(:func:`spiked_sphere_rows`, :func:`spiked_sphere_eigenvalues`). Sparse rows
with a planted subspace are :mod:`dppca.book.sparse_data`'s.
"""

from __future__ import annotations

import numpy as np

from ..validation import as_generator


def synthetic_gaussian(n: int, eigenvalues, rng=None) -> np.ndarray:
    """Section 6.5's synthetic data: n draws of N(0, diag(eigenvalues)), then
    divided by the
    largest row norm so that every row has norm <= 1 (the paper does not say how
    it enforced
    ||x_i|| <= 1; this is the same global scaling as for the real data)."""
    from ..validation import scale_to_unit_ball

    rng = as_generator(rng)
    eigenvalues = np.asarray(eigenvalues, dtype=float)
    X = rng.standard_normal((int(n), eigenvalues.size)) * np.sqrt(eigenvalues)
    return scale_to_unit_ball(X)


def spiked_sphere_rows(n: int, d: int, spikes, rng=None) -> np.ndarray:
    """``n`` rows on the unit sphere: Gaussian rows whose first
    ``len(spikes)`` coordinates have variances ``spikes`` (the others 1),
    each divided by its own norm (the spiked model of chapter 17). The
    second moment is diagonal; :func:`spiked_sphere_eigenvalues` gives it
    for one spike."""
    rng = as_generator(rng)
    spikes = np.asarray(spikes, dtype=float)
    g = rng.standard_normal((int(n), int(d)))
    g[:, : spikes.size] *= np.sqrt(spikes)
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def spiked_sphere_eigenvalues(d: int, spike: float) -> tuple[float, float]:
    """``(λ₁, λ₂)`` of ``E[x xᵀ]`` for ``spiked_sphere_rows`` with one spike
    ``s``: with ``B = g₁²/‖g‖² ~ Beta(1/2, (d − 1)/2)`` for the unspiked
    Gaussian, ``λ₁ = E[s B / (1 + (s − 1) B)]`` (by quadrature), and the
    other ``d − 1`` eigenvalues share the rest of the unit trace equally."""
    from scipy import integrate, stats

    d, spike = int(d), float(spike)
    beta = stats.beta(0.5, (d - 1) / 2)
    lam1 = integrate.quad(
        lambda b: spike * b / (1 + (spike - 1) * b) * beta.pdf(b), 0, 1
    )[0]
    return float(lam1), float((1 - lam1) / (d - 1))
