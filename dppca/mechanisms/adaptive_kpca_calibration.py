"""The calibration and one step of adaptive k-PCA
(:mod:`dppca.mechanisms.adaptive_kpca`): the split of a step's ρ, the
centred clipped mean and its sensitivity, the private mode of the
distances to the centre (the spread radius) and the step itself. Why a
step is ρ-zCDP is the privacy paragraph of that module's docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse

from ..linalg import float_error, rows
from ..privacy import selection
from ..privacy.noise import (
    MAX_GAUSSIAN_GRID_SIGMA,
    add_gaussian,
)
from ..privacy.private_bounds import candidate_grid
from ..privacy.zcdp import zcdp_rho
from ..validation import as_real_array, check_delta, check_epsilon
from .streaming_rows import scale_huge_rows
from .streaming_step import (
    ClippedMean,
    clipped_mean_of_gradients,
    mean_noise_scale,
    mean_noise_units_bound,
    radius_candidates_range,
)

#: Shares of a step's ρ: the size radius r, the centre c, the spread radius
#: s and the final mean.
DEFAULT_SHARES = (0.125, 0.125, 0.25, 0.5)

#: Public assumption on the relative gap (λ_j − λ_(j+1))/λ_j of each round.
DEFAULT_GAP_RATIO = 0.5

#: The two quantiles aim at ``tail_guarded_quantile`` of their target with
#: this β: every candidate above all the rows is then at least τ below the
#: best, and together they are drawn with probability at most β.
TAIL_BETA = 0.01

#: The spread radius is the private mode of the distances ‖g_i − c‖ (the
#: upper edge of its bin) times this public factor.
DEFAULT_HEADROOM = 2.0


@dataclass(frozen=True)
class AdaptiveBudget:
    """ρ of one step (= of the run) and its four parts; the two quantiles'
    pure ε."""

    rho: float
    rho_radius: float
    rho_center: float
    rho_spread: float
    rho_mean: float

    @property
    def epsilon_radius(self) -> float:
        return math.sqrt(2.0 * self.rho_radius)

    @property
    def epsilon_spread(self) -> float:
        return math.sqrt(2.0 * self.rho_spread)


def adaptive_budget(epsilon, delta, shares=DEFAULT_SHARES) -> AdaptiveBudget:
    """ρ = ``dppca.privacy.zcdp_rho`` (ε, δ) per step, split by ``shares``
    (four positive numbers summing to one: radius, centre, spread, mean)."""
    eps, dl = check_epsilon(epsilon), check_delta(delta)
    parts = check_shares(shares)
    rho = zcdp_rho(eps, dl)
    r, c, s = (rho * v for v in parts[:3])
    # the mean's part is what is left (less a relative 2⁻⁴⁰ for the
    # rounding of the sum), so the four parts never add up to more than ρ
    mean = (rho - (r + c + s)) * (1.0 - 2.0**-40)
    return AdaptiveBudget(rho, r, c, s, mean)


def check_headroom(headroom) -> float:
    """A finite number at least 1."""
    h = float(headroom)
    if not (math.isfinite(h) and 1.0 <= h <= 1e6):
        raise ValueError(f"headroom must lie in [1, 1e6]; got {headroom!r}")
    return h


def check_shares(shares) -> tuple:
    """Four finite numbers > 0 summing to one (within 10⁻¹²), each at
    least 1 % (the mean's part is computed as what is left)."""
    try:
        parts = tuple(float(v) for v in shares)
    except TypeError as error:
        raise ValueError(
            f"shares must be four numbers; got {shares!r}"
        ) from error
    if len(parts) != 4 or not all(
        math.isfinite(v) and v >= 0.01 for v in parts
    ):
        raise ValueError(f"shares must be four numbers >= 0.01; got {shares!r}")
    if abs(sum(parts) - 1.0) > 1e-12:
        raise ValueError(f"shares must sum to 1; got {sum(parts)!r}")
    return parts


def centred_clipped_mean(G, center, radius: float) -> ClippedMean:
    """``(1/B) Σ_i clip_s(g_i − c)``: the gradients' deviations from the
    public centre ``c``, each clipped to norm ``s``. Replacing one row moves
    the computed value by at most ``2s/B`` (row ``i``'s term depends on
    ``g_i`` and ``c`` only; ``clipped_mean_of_gradients``)."""
    c = np.asarray(center, dtype=float).ravel()
    dense = G.toarray() if scipy.sparse.issparse(G) else np.asarray(G, float)
    with np.errstate(over="ignore", invalid="ignore"):
        deviations = dense - c[None, :]
    return clipped_mean_of_gradients(deviations, radius)


def spread_norms(G, center) -> np.ndarray:
    """``‖g_i − c‖`` for every row (what the spread quantile reads)."""
    c = np.asarray(center, dtype=float).ravel()
    dense = G.toarray() if scipy.sparse.issparse(G) else np.asarray(G, float)
    return rows.row_norms(dense - c[None, :])


def mode_utilities(norms, grid) -> np.ndarray:
    """Integer utilities ``u_j = #{i : b_(j−1) < norm_i ≤ b_j}``: the
    count of the ``j``-th bin of the grid (the first bin takes every norm
    at most ``b_0``, the last every norm above ``b_(G−2)``). A replaced
    row leaves one bin and enters one: sensitivity 1 in ℓ∞."""
    norms = np.asarray(norms, dtype=float)
    grid = np.asarray(grid, dtype=float)
    bins = np.searchsorted(grid[:-1], norms, side="left")
    return np.bincount(bins, minlength=grid.size).astype(np.int64)


class PrivateSpread:
    """The spread radius of every step of a round: the upper edge of the
    bin of the geometric grid that holds the most distances ``‖g_i −
    c‖`` (the private mode, by permute-and-flip on ``mode_utilities``),
    times the public ``headroom``. Pure ε-DP per draw. Unlike a quantile,
    the mode stays on the data when the distances are concentrated (a
    quantile's utilities are then flat above them, and every empty
    candidate is as likely as the right one). After the first step the
    grid is the window ``radius_candidates_range`` around the previous
    mode (post-processing)."""

    def __init__(self, epsilon, spread_range, window, headroom):
        self.epsilon = selection.exact_epsilon(epsilon)
        radius_candidates_range(None, spread_range, window)  # checked
        self.spread_range = tuple(float(v) for v in spread_range)
        self.window = float(window)
        self.headroom = float(headroom)

    def grid(self, previous) -> np.ndarray:
        """The candidate spreads of a step: the geometric grid over the
        window around ``previous`` (a released spread, or None at the
        first step), within ``spread_range``."""
        lo, hi = radius_candidates_range(
            previous, self.spread_range, self.window
        )
        return candidate_grid(lo, hi)

    def __call__(self, norms, previous, rng) -> tuple[float, float]:
        """``(mode, radius)``: the released bin edge and the radius."""
        grid = self.grid(previous)
        index = selection.permute_and_flip(
            mode_utilities(norms, grid), self.epsilon, rng
        )
        mode = float(grid[index])
        radius = min(mode * self.headroom, float_error.MAX_MAGNITUDE)
        return mode, radius


@dataclass
class AdaptiveStep:
    """What one step did (``diagnostics=True``; not for publication:
    ``center_mean`` and ``spread_mean`` are exact functions of the rows).
    ``radius``, ``center``, ``spread``, ``sigma_center``, ``sigma``,
    ``eta`` and ``gradient`` are released or public."""

    component: int
    step: int
    first_row: int
    radius: float
    spread: float
    sigma_center: float
    sigma: float
    eta: float
    center: np.ndarray = field(repr=False)
    gradient: np.ndarray = field(repr=False)
    center_mean: np.ndarray = field(repr=False)
    spread_mean: np.ndarray = field(repr=False)


@dataclass
class AdaptiveRun:
    """A run with diagnostics: the released ``V``, the plan, the budget,
    the per-round eigenvalue estimates and one ``AdaptiveStep`` per
    step."""

    V: np.ndarray
    plan: object
    budget: AdaptiveBudget
    eigenvalues: list = field(default_factory=list)
    steps: list = field(default_factory=list)


def adaptive_step(G, state, budget, noise, rng):
    """One private gradient of a minibatch (steps 1-3 of the module
    docstring). ``state`` holds the two ``PrivateRadius`` draws' previous
    values; returns ``(ĝ, AdaptiveStep fields)``."""
    B, d = G.shape
    radius = state["radius"](rows.row_norms(G), state["r"], rng)
    state["r"] = radius
    first = clipped_mean_of_gradients(G, radius)
    sigma_c, grid_c = mean_noise_scale(radius, B, d, budget.rho_center, noise)
    center = add_gaussian(
        first.mean, sigma_c, noise=noise, rng=rng, granularity=grid_c
    )
    mode, spread = state["spread"](spread_norms(G, center), state["s"], rng)
    state["s"] = mode
    second = centred_clipped_mean(G, center, spread)
    sigma, grid = mean_noise_scale(spread, B, d, budget.rho_mean, noise)
    deviation = add_gaussian(
        second.mean, sigma, noise=noise, rng=rng, granularity=grid
    )
    gradient = center + deviation  # post-processing
    facts = dict(
        radius=radius,
        spread=spread,
        sigma_center=sigma_c,
        sigma=sigma,
        center=center,
        center_mean=first.mean,
        spread_mean=second.mean,
    )
    return gradient, facts


def check_ranges(norm_range, spread_range, window):
    """Refuse a ``norm_range`` or ``spread_range`` whose candidate grid
    (with ``window``) leaves the magnitudes where the clipped sums' float64
    error bounds are verified (``ValueError`` naming the option)."""
    for name, rng_ in (
        ("norm_range", norm_range),
        ("spread_range", spread_range),
    ):
        lo, hi = radius_candidates_range(None, rng_, window)
        if not (
            float_error.MIN_BOUND <= lo and hi <= float_error.MAX_MAGNITUDE
        ):
            raise ValueError(
                f"{name} must lie within [{float_error.MIN_BOUND:g}, "
                f"{float_error.MAX_MAGNITUDE:g}], where the clipped sums' "
                f"float64 error bounds are verified; got {rng_!r}"
            )


def checked_rows(X):
    """The rows as float64 (dense, or CSR), finite, huge rows scaled."""
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csr_matrix(X, dtype=float)
        if not np.all(np.isfinite(X.data)):
            raise ValueError("X contains NaN or Inf")
    else:
        X = as_real_array(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D; got shape {X.shape}")
        if not np.all(np.isfinite(X)):
            raise ValueError("X contains NaN or Inf")
    return scale_huge_rows(X)


def check_units(d, budget):
    """Refuse, from public values, a budget whose safe noise the exact
    sampler cannot draw (either mean of a step)."""
    for rho in (budget.rho_center, budget.rho_mean):
        units = mean_noise_units_bound(d, rho)
        if not units < MAX_GAUSSIAN_GRID_SIGMA * (1.0 - 2.0**-30):
            raise ValueError(
                "the budget is too small for safe noise: an adaptive k-PCA "
                f"step could need more than 2**26 grid units of noise (d = "
                f"{d}); refused before any draw"
            )


__all__ = [
    "AdaptiveBudget",
    "AdaptiveRun",
    "AdaptiveStep",
    "DEFAULT_HEADROOM",
    "DEFAULT_SHARES",
    "PrivateSpread",
    "adaptive_budget",
    "adaptive_step",
    "centred_clipped_mean",
    "check_headroom",
    "check_ranges",
    "check_shares",
    "check_units",
    "checked_rows",
    "mode_utilities",
    "spread_norms",
]
