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
import warnings
from fractions import Fraction

import numpy as np

from dppca.privacy import accounting, audit
from dppca.privacy import noise as noise_module
from dppca.privacy.guarantees import UnprovedGuaranteeWarning

#: Relative slack of the exact ε computations (float summation).
TOLERANCE = 1e-9


def renyi_epsilon(shift, variance: float, delta: float, ratios=None) -> float:
    """An upper bound on the exact ε of the pair: the ε that
    ``dppca.privacy.accounting`` gives for the pair's own Rényi curve. An integer
    shift s of discrete Gaussians of variance v r_j has Rényi divergence
    exactly α Σ s_j²/(2 v r_j) at every order α (Canonne, Kamath and Steinke
    2020), the curve of a ρ-zCDP release with that ρ; converting a curve to
    (ε, δ) never gives less than the exact ε. A release whose own ρ is
    smaller reports less than this bound, so checking "reported ≥ bound" is
    stronger than checking against the exact ε."""
    from dppca.privacy import accounting
    from dppca.privacy.guarantees import zcdp_release

    r = np.ones(len(shift)) if ratios is None else np.asarray(ratios, float)
    rho = float(np.sum(np.asarray(shift, float) ** 2 / r) / (2 * variance))
    record = zcdp_release("pair", rho, 1.0, delta)
    return accounting.gaussian_epsilon([record.noise_multiplier], delta, "rdp")


def discrete_gaussian_epsilon(
    shift, variance: float, delta: float, ratios=None
) -> float:
    """Smallest ε with δ(ε) ≤ delta for that shift: exact
    (:func:`dppca.privacy.audit.discrete_gaussian_pair_epsilon`) where the
    convolution is small enough; otherwise (fine grids) the Rényi upper bound
    :func:`renyi_epsilon`, never below the exact value."""
    try:
        return audit.discrete_gaussian_pair_epsilon(
            shift, variance, delta, ratios
        )
    except ValueError:
        return renyi_epsilon(shift, variance, delta, ratios)


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


def reported(record, delta: float) -> float:
    """The ε the accountant reports for ``record`` alone at ``delta``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
        return accounting.compose([record], delta)[0]


def assert_reports_at_least(record, exact_epsilon: float, delta: float):
    """Both the record's ε and the accountant's never fall below the exact
    ε of a constructed pair (up to :data:`TOLERANCE`)."""
    tolerance = TOLERANCE * max(exact_epsilon, 1.0)
    assert record.epsilon >= exact_epsilon - tolerance, (record, exact_epsilon)
    assert reported(record, delta) >= exact_epsilon - tolerance, (
        record,
        exact_epsilon,
    )
