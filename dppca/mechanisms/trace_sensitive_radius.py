"""The choice of the clipping radius of the trace-sensitive covariance
(:mod:`dppca.mechanisms.trace_sensitive`): the clipped trace and the dyadic
norm histogram it releases, the high-probability norms of the noise that
the selection compares, and the selection itself, post-processing of those
two releases.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..validation import check_choice, check_n
from .trace_sensitive_calibration import (
    DEFAULT_LEVELS,
    TraceSensitiveCalibration,
)

#: Failure probability of the bounds the radius selection minimises.
DEFAULT_BETA = 0.1

#: Selection rules of the adaptive estimator (``choose_radius``).
SELECTIONS = ("authors", "bounds")

#: The authors' heuristic: the separate release's trace term divided by 6
#: (``AdaptiveCov`` in the code published with [DLY22]).
AUTHORS_TRACE_DISCOUNT = 1.0 / 6.0


# ------------------------------------------------------------------------------
# High-probability norms of the noise (constants of our own derivation)
# ------------------------------------------------------------------------------


def _check_beta(beta) -> float:
    beta = float(beta)
    if not 0.0 < beta < 1.0:
        raise ValueError(f"beta must lie in (0, 1); got {beta!r}")
    return beta


def gaussian_norm_bound(d: int, beta: float) -> float:
    """``η = √d + √(2 log(1/β))``: ``P(‖z‖₂ > η) ≤ β`` for ``z ~ N(0, I_d)``.

    ``‖z‖`` is 1-Lipschitz with ``E‖z‖ ≤ √d``; Gaussian concentration of
    Lipschitz functions (Boucheron, Lugosi and Massart 2013, Thm 5.6).
    """
    return float(
        math.sqrt(d) + math.sqrt(2.0 * math.log(1.0 / _check_beta(beta)))
    )


def wigner_norm_bound(d: int, beta: float) -> float:
    """``ν = 2√d + 2√(log(2/β))``: ``P(‖W‖₂ > ν) ≤ β`` for the symmetric
    ``W`` with i.i.d. ``N(0, 1)`` entries on and above the diagonal.

    ``λ_max(W) = max_u uᵀWu``; for unit ``u, v`` the increments satisfy
    ``E(uᵀWu − vᵀWv)² ≤ 2‖uuᵀ − vvᵀ‖_F² ≤ 4‖u − v‖²``, those of
    ``2⟨g, u⟩``, so ``E λ_max ≤ 2 E‖g‖ ≤ 2√d`` (Sudakov–Fernique), and
    likewise for ``−λ_min``. Both are √2-Lipschitz in the ``d(d+1)/2``
    Gaussian entries, hence each exceeds ``2√d + t`` with probability at most
    ``e^{−t²/4}``.
    """
    beta = _check_beta(beta)
    return float(2.0 * math.sqrt(d) + 2.0 * math.sqrt(math.log(2.0 / beta)))


def wigner_frobenius_bound(d: int, beta: float) -> float:
    """``ω = d + 2√(log(1/β))``: ``P(‖W‖_F > ω) ≤ β`` for ``W`` as in
    ``wigner_norm_bound`` (``E‖W‖_F ≤ √(E‖W‖_F²) = d``, and ``‖W‖_F`` is
    √2-Lipschitz in the entries)."""
    beta = _check_beta(beta)
    return float(d + 2.0 * math.sqrt(math.log(1.0 / beta)))


# ------------------------------------------------------------------------------
# The trace and the norm histogram
# ------------------------------------------------------------------------------


def norm_levels(norms, n_levels: int = DEFAULT_LEVELS) -> np.ndarray:
    """Dyadic level of each row norm ν: ``j`` with ``2^{-j-1} < ν ≤ 2^{-j}``,
    0 for ``ν > 1/2`` (norms up to the tolerance above 1 included) and
    ``n_levels − 1`` for every ``ν ≤ 2^{-(n_levels − 1)}`` (zero included).
    Exact: read off the binary exponent (``numpy.frexp``)."""
    norms = np.asarray(norms, dtype=float)
    if np.any(~np.isfinite(norms)) or np.any(norms < 0):
        raise ValueError("norms must be finite and >= 0")
    mantissa, exponent = np.frexp(norms)  # ν = m 2^e, 1/2 ≤ m < 1
    level = np.where(mantissa == 0.5, 1 - exponent, -exponent)
    level = np.where(norms == 0, n_levels - 1, level)
    return np.clip(level, 0, n_levels - 1).astype(np.int64)


def norm_histogram(norms, n_levels: int = DEFAULT_LEVELS) -> np.ndarray:
    """Counts of rows per dyadic level (``norm_levels``): replacing one
    row moves one count down and one up, ℓ₂ sensitivity √2."""
    return np.bincount(norm_levels(norms, n_levels), minlength=n_levels)


def clipped_trace(norms) -> float:
    """``fl(fsum(min(fl(ν_i²), 1)) / n)``: the trace of the rows clipped to
    the unit ball, computed with sensitivity ``trace_sensitivity``."""
    norms = np.asarray(norms, dtype=float)
    squares = np.minimum(norms * norms, 1.0)
    return math.fsum(squares.tolist()) / norms.size


# ------------------------------------------------------------------------------
# The selection
# ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RadiusChoice:
    """What ``choose_radius`` read and chose (all post-processing of
    released values). Arrays are indexed by the level ``j`` (radius
    ``2^{-j}``): ``bias`` bounds the clipping bias, ``separate`` and
    ``gaussian`` the noise error of each release, at probability 1 − β."""

    radius: float
    level: int
    release: str
    trace_bound: float
    radii: np.ndarray
    bias: np.ndarray
    separate: np.ndarray
    gaussian: np.ndarray

    @property
    def predicted(self) -> np.ndarray:
        """Bound on the Frobenius error of the best release at each radius."""
        return self.bias + np.minimum(self.separate, self.gaussian)


def choose_radius(
    trace_estimate,
    histogram,
    n,
    d,
    calibration: TraceSensitiveCalibration,
    beta: float = DEFAULT_BETA,
    selection: str = "authors",
) -> RadiusChoice:
    """The radius ``2^{-j}`` and the release minimising a predicted error.

    For each level ``j`` (radius ``r = 2^{-j}``), from the noisy histogram
    ``ĉ`` (negative counts read as zero) and the noisy trace ``T̃``:

    * clipping bias ``(1/n) Σ_{l<j} ĉ_l (4^{-l} − r²)``, a bound on
      ``‖A − A_clip‖_* ≥ ‖A − A_clip‖_F`` that uses the top of each level;
    * separate release ``r² (2 √(min(T⁺/r², 1) N_V) + N_λ)``
      (``separate_error_bound``), with ``T⁺ = T̃ + σ_T √(2 log(1/β))``,
      ``N_V = σ_V ν(d, β/2)`` and ``N_λ = σ_λ η(d, β/2)``;
    * Gaussian release ``r² σ_G ω(d, β)``.

    The first level with the smallest bias plus the smaller release bound
    wins (the largest radius among ties). The grid rounding adds at most
    half a cell per entry, far below σ, and is left out of the bounds.

    ``selection="bounds"`` compares these bounds as they are.
    ``selection="authors"`` (default) divides the separate release's trace
    term ``2 √(·)`` by 6 (``AUTHORS_TRACE_DISCOUNT``), the heuristic of the
    code published with [DLY22]: the lemma's worst case is rarely reached
    (chapter 18 measures both rules). Either is post-processing of the
    released trace and histogram, so the privacy is the same.
    """
    n = check_n(n)
    beta = _check_beta(beta)
    selection = check_choice(selection, SELECTIONS, "selection")
    discount = AUTHORS_TRACE_DISCOUNT if selection == "authors" else 1.0
    histogram = np.maximum(np.asarray(histogram, dtype=float), 0.0)
    levels = histogram.size
    s = calibration.steps
    j = np.arange(levels)
    radii = np.ldexp(1.0, -j)
    tops = radii**2  # top of level l: 4^{-l}
    bias = np.array(
        [
            np.sum(histogram[:i] * (tops[:i] - tops[i])) / n
            for i in range(levels)
        ]
    )
    trace_bound = max(
        float(trace_estimate)
        + s["trace"].sigma * math.sqrt(2.0 * math.log(1.0 / beta)),
        0.0,
    )
    vectors = s["vectors"].sigma * wigner_norm_bound(d, beta / 2)
    values = s["values"].sigma * gaussian_norm_bound(d, beta / 2)
    scaled_trace = np.minimum(trace_bound / tops, 1.0)
    separate = tops * (
        discount * 2.0 * np.sqrt(scaled_trace * vectors) + values
    )
    gaussian = tops * s["gaussian"].sigma * wigner_frobenius_bound(d, beta)
    total = bias + np.minimum(separate, gaussian)
    best = int(np.argmin(total))
    release = "separate" if separate[best] < gaussian[best] else "gaussian"
    return RadiusChoice(
        float(radii[best]),
        best,
        release,
        trace_bound,
        radii,
        bias,
        separate,
        gaussian,
    )


__all__ = [
    "AUTHORS_TRACE_DISCOUNT",
    "DEFAULT_BETA",
    "RadiusChoice",
    "SELECTIONS",
    "choose_radius",
    "clipped_trace",
    "gaussian_norm_bound",
    "norm_histogram",
    "norm_levels",
    "wigner_frobenius_bound",
    "wigner_norm_bound",
]
