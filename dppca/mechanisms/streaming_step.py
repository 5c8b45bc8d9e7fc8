"""One step of streaming DP-PCA (:mod:`dppca.mechanisms.streaming`): the
gradients of a minibatch, their mean clipped to a radius, the noise that
makes that mean private, the public range of the step's candidate radii, and
the Oja update (post-processing of the released gradient). Why a step is
ρ-zCDP is the first point of the proof in that module's docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse

from ..float_state import owns_float_state
from ..linalg import clipped_sums, float_error, rows
from ..privacy import private_bounds, quantile_scores, selection
from ..privacy.calibration import (
    SAFE_GRID_REFINEMENT,
    rounded_sensitivity,
    safe_granularity,
)
from ..privacy.noise import MAX_GAUSSIAN_GRID_SIGMA, check_noise_kind
from .streaming_schedule import _positive_int

#: Target quantile of the gradient norms used as the clipping radius.
DEFAULT_CLIP_QUANTILE = 0.75

#: Public range of the candidate radii (four per octave in between).
DEFAULT_NORM_RANGE = (1e-6, 1e6)

#: After the first step of a run, the candidates lie within this factor of
#: the previous step's released radius (post-processing of that release).
DEFAULT_RADIUS_WINDOW = 16.0

#: Relative margin on the safe calibration, absorbing the float rounding of
#: its inputs (as ``dppca.privacy.discrete_gaussian_sigma`` does).
_MARGIN = 2.0**-40


def gradient_rows(X_batch, w, out=None):
    """The gradients ``g_i = x_i (x_iᵀ w)`` as rows: ``diag(X w) X``, sparse
    for sparse ``X`` (same pattern). Row ``i`` is computed from ``x_i`` and
    ``w`` alone. ``out``: for dense ``X``, an array of its shape to write
    the gradients into (the same products; ignored for sparse ``X``)."""
    w = np.asarray(w, dtype=float).ravel()
    if scipy.sparse.issparse(X_batch):
        X = X_batch.tocsr()
        scale = np.asarray(X @ w).ravel()
        data = X.data * np.repeat(scale, np.diff(X.indptr))
        return scipy.sparse.csr_matrix(
            (data, X.indices.copy(), X.indptr.copy()), shape=X.shape
        )
    X = np.asarray(X_batch, dtype=float)
    return np.multiply(X, (X @ w)[:, None], out=out)


def gradient_norms(X_batch, w) -> np.ndarray:
    """``‖g_i‖ = |x_iᵀ w| ‖x_i‖`` as computed (``dppca.linalg.rows.row_norms``
    of ``gradient_rows``)."""
    return rows.row_norms(gradient_rows(X_batch, w))


@dataclass(frozen=True)
class ClippedMean:
    """Result of ``clipped_gradient_mean``: the mean (not private), the
    number of gradients longer than the radius, and the radius."""

    mean: np.ndarray
    n_clipped: int
    radius: float


def clipped_gradient_mean(X_batch, w, radius: float) -> ClippedMean:
    """``(1/B) Σ_i clip_r(g_i)``, ``g_i = x_i (x_iᵀ w)``, each clipped to
    norm at most ``r``.

    Replacing one of the ``B`` rows by any other row moves the *computed*
    mean by at most ``2r/B`` in ℓ₂: each clipped gradient has norm at most
    ``r``, and ``dppca.linalg.clipped_sums.clipped_row_sum`` shrinks the
    radius by the ``η`` that absorbs the float64 error of the sum and the
    division (its proposition). The pair ``x = e, x' = −e`` with
    ``|eᵀw| ‖e‖ ≥ r`` moves it
    by ``2r(1 − η)/B``: the bound is attained up to ``η`` (about ``10⁻¹³``).
    Sparse rows are never densified.
    """
    return clipped_mean_of_gradients(gradient_rows(X_batch, w), radius)


def clipped_mean_of_gradients(G, radius: float) -> ClippedMean:
    """``clipped_gradient_mean`` from the gradients ``G = gradient_rows(X,
    w)`` already computed (the pass computes them once per step, for their
    norms and for the mean): the same mean, bit for bit. Row ``i`` of ``G``
    depends on ``x_i`` and ``w`` alone, so the sensitivity argument of
    ``clipped_gradient_mean`` holds as it stands."""
    return _clipped_mean(G, radius, clipped_sums.clipped_row_sum)


def _clipped_mean(G, radius: float, row_sum) -> ClippedMean:
    """:func:`clipped_mean_of_gradients` by ``row_sum``:
    ``dppca.linalg.clipped_sums.clipped_row_sum`` or, for a caller already
    under the package's float state (the pass), the same function without
    entering it again (:func:`_row_sum_in_state`)."""
    # sparse rows are never densified, so a chunk may hold the most rows
    # the float64 proof allows; dense chunks stay within 16 MiB
    chunk = float_error.MAX_CHUNK_ROWS if scipy.sparse.issparse(G) else None
    total = row_sum(G, radius, clip=True, chunk_rows=chunk)
    return ClippedMean(total.total / G.shape[0], total.n_clipped, float(radius))


def _row_sum_in_state():
    """``clipped_row_sum`` without its float-state wrapper (the function
    ``owns_float_state`` wrapped, or the function itself if it is not
    wrapped): for a caller already under that state."""
    row_sum = clipped_sums.clipped_row_sum
    return getattr(row_sum, "__wrapped__", row_sum)


def mean_noise_scale(
    radius: float, batch_size: int, d: int, rho_mean: float, noise="safe"
) -> tuple[float, float | None]:
    """``(σ, γ)`` of the noise on a clipped mean of ``B`` gradients.

    The mean has ℓ₂ sensitivity ``Δ = 2r/B``. ``noise="float"``: ``σ =
    Δ/√(2ρ_m)`` and ``γ = None``. ``noise="safe"``: the mean is rounded to
    the grid ``γ = dppca.privacy.safe_granularity(Δ, √d, …)``, where its
    sensitivity is ``Δ/γ + √d`` cells, and ``σ = γ (Δ/γ + √d)/√(2ρ_m)``
    (times ``1 + 2⁻⁴⁰``): a discrete Gaussian of that variance parameter on
    an integer shift of that norm is ``ρ_m``-zCDP (Canonne, Kamath and
    Steinke 2020).
    """
    r = float(radius)
    if not (math.isfinite(r) and r > 0):
        raise ValueError(f"radius must be a finite number > 0; got {radius!r}")
    m = _positive_int(batch_size, "batch_size")
    d = _positive_int(d, "d")
    if not (math.isfinite(rho_mean) and rho_mean > 0):
        raise ValueError(f"rho_mean must be > 0; got {rho_mean!r}")
    sensitivity = 2.0 * r / m
    sigma_float = sensitivity / math.sqrt(2.0 * rho_mean)
    if check_noise_kind(noise) == "float":
        return sigma_float, None
    rounding = math.sqrt(d)
    grid = safe_granularity(
        sensitivity, rounding, sigma_float, MAX_GAUSSIAN_GRID_SIGMA
    )
    cells = rounded_sensitivity(sensitivity, grid, rounding)
    sigma = cells / math.sqrt(2.0 * rho_mean) * (1.0 + _MARGIN) * grid
    return sigma, grid


def mean_noise_units_bound(d: int, rho_mean: float) -> float:
    """An upper bound, over every radius and batch size, on ``σ/γ``, the
    noise of a safe step in grid units (:func:`mean_noise_scale`), from
    public values only.

    The grid is ``γ = p2(Δ K)`` (``p2`` the largest power of two at most its
    argument, ``K`` the rule of :func:`dppca.privacy.safe_granularity` per
    unit of sensitivity: ``1/(1024 √d)``, ``4c/M``, or ``4c/(M − √d c)``
    when the rounding alone takes more than a quarter of the sampler's range
    ``M``; ``c = 1/√(2ρ_m)``), so ``Δ/γ < 2/K`` and ``σ/γ = (Δ/γ + √d)·c·(1 +
    2⁻⁴⁰) < (2/K + √d)·c·(1 + 2⁻⁴⁰)``. A step's grid units depend on the
    released radius only through that power of two: the bound covers them
    all."""
    d = _positive_int(d, "d")
    if not (math.isfinite(rho_mean) and rho_mean > 0):
        raise ValueError(f"rho_mean must be > 0; got {rho_mean!r}")
    c = 1.0 / math.sqrt(2.0 * rho_mean)
    rounding = max(math.sqrt(d), 1.0)
    limit = float(MAX_GAUSSIAN_GRID_SIGMA)
    K = max(1.0 / (SAFE_GRID_REFINEMENT * rounding), 4.0 * c / limit)
    if rounding * c >= limit:
        return math.inf
    if limit / 4 < rounding * c:
        K = max(K, 4.0 * c / (limit - rounding * c))
    return (2.0 / K + rounding) * c * (1.0 + _MARGIN)


def radius_candidates_range(
    previous, norm_range, window: float = DEFAULT_RADIUS_WINDOW
) -> tuple[float, float]:
    """Public range ``(lo, hi)`` of the candidate radii of a step.

    The first step of a run searches the whole ``norm_range``; every later
    step ``[max(lo, r/W), min(hi, r W)]`` around the radius ``r`` released by
    the step before (``W = window``). This uses a released value only, so it
    is post-processing and costs no privacy; it keeps one unlucky draw of
    the radius (permute-and-flip picks a candidate far above the gradients
    with a small probability when the minibatch is small) from starting a
    walk across the whole grid.
    """
    lower, upper = (float(v) for v in norm_range)
    private_bounds.candidate_grid(lower, upper)  # 0 < lower < upper, finite
    W = float(window)
    if not (math.isfinite(W) and W > 1):
        raise ValueError(
            f"radius_window must be a finite number > 1; got {window!r}"
        )
    return _window(previous, lower, upper, W)


def _window(previous, lower: float, upper: float, W: float):
    """``radius_candidates_range`` for checked ``lower < upper`` and
    ``W > 1``."""
    if previous is None:
        return lower, upper
    r = float(previous)
    lo, hi = max(lower, r / W), min(upper, r * W)
    if not lo < hi:
        raise ValueError(
            f"previous radius {previous!r} outside {(lower, upper)!r}"
        )
    return lo, hi


class PrivateRadius:
    """The private clipping radius of every step of a run.

    ``radius(norms, previous, rng)`` is the release of
    ``dppca.privacy.private_bounds.norm_quantile(norms, quantile, epsilon,
    lower=lo, upper=hi, rng=rng).bound`` with ``(lo, hi) =
    radius_candidates_range(previous, norm_range, window)``, bit for bit and
    with the same draws: its utilities (``quantile_utilities``), then
    permute-and-flip (``permute_and_flip``) at the same exact ε, on the same
    candidate grid (``candidate_grid``). What is the same for every step of
    a run is done once, when the run starts: the public parameters are
    checked and ε is made exact. Each draw is pure ε-DP in the step's rows.
    """

    def __init__(
        self,
        quantile,
        epsilon,
        norm_range,
        window: float = DEFAULT_RADIUS_WINDOW,
    ):
        self.quantile = quantile_scores.check_quantile(quantile)
        self.epsilon = selection.exact_epsilon(epsilon)
        radius_candidates_range(None, norm_range, window)  # checked
        self.norm_range = tuple(float(v) for v in norm_range)
        self.window = float(window)
        # a released radius is a point of some earlier grid, so a run meets
        # few windows: each grid is built once (read-only arrays)
        self._grids: dict = {}

    def grid(self, previous) -> np.ndarray:
        """The candidates of a step after a step that released
        ``previous`` (``None``: the first step of a run)."""
        key = None if previous is None else float(previous)
        grid = self._grids.get(key)
        if grid is None:
            lo, hi = _window(previous, *self.norm_range, self.window)
            grid = self._grids[key] = private_bounds.candidate_grid(lo, hi)
        return grid

    @owns_float_state
    def __call__(self, norms, previous, rng) -> float:
        return self.draw(norms, previous, rng)

    def draw(self, norms, previous, rng) -> float:
        """The radius, as ``self(norms, previous, rng)``, for a caller
        already under the package's float state (``dppca.float_state``,
        about 20 µs to enter: the pass enters it once, not at every
        step)."""
        grid = self.grid(previous)
        utilities = quantile_scores._quantile_utilities(
            norms, grid, self.quantile
        )
        index = selection._permute_and_flip(utilities, self.epsilon, rng)
        return float(grid[index])


def _project_out(v, basis):
    """``P v`` with ``P = I − U Uᵀ`` (``U = basis``; ``v`` without one)."""
    if basis is not None and basis.shape[1]:
        return v - basis @ (basis.T @ v)
    return v


def oja_update(w, gradient, eta: float, basis=None) -> np.ndarray:
    """``P(w + η ĝ)/‖P(w + η ĝ)‖`` with ``P = I − U Uᵀ`` (``U = basis``,
    orthonormal columns; ``P = I`` without it): post-processing of the
    released gradient. ``η = inf`` is the limit, a power step ``P ĝ/‖P ĝ‖``."""
    eta = float(eta)
    if math.isinf(eta) and eta > 0:  # a power step: w ← P ĝ / ‖P ĝ‖
        v = np.array(gradient, dtype=float)
    else:
        with np.errstate(over="ignore", invalid="ignore"):  # handled below
            v = np.asarray(w, dtype=float) + eta * np.asarray(gradient, float)
    with np.errstate(over="ignore", invalid="ignore"):
        v = _project_out(v, basis)
        norm = float(np.linalg.norm(v))
    if not math.isfinite(norm) and math.isfinite(eta) and eta > 1:
        # η ĝ (or its norm) overflowed: the same direction is w/η + ĝ
        v = _project_out(np.asarray(w, float) / eta + gradient, basis)
        norm = float(np.linalg.norm(v))
    if not (math.isfinite(norm) and norm > 0):
        raise ArithmeticError("the Oja step produced a zero or non-finite w")
    return v / norm


__all__ = [
    "DEFAULT_CLIP_QUANTILE",
    "DEFAULT_NORM_RANGE",
    "DEFAULT_RADIUS_WINDOW",
    "ClippedMean",
    "PrivateRadius",
    "clipped_gradient_mean",
    "clipped_mean_of_gradients",
    "gradient_norms",
    "gradient_rows",
    "mean_noise_scale",
    "oja_update",
    "radius_candidates_range",
    "mean_noise_units_bound",
]
