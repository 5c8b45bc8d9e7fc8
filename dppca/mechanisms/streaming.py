"""Streaming private PCA: private Oja updates on disjoint minibatches.

**The algorithm (k = 1).** DP-PCA of Liu, Kong, Jain and Oh ("DP-PCA:
Statistically optimal and differentially private PCA", NeurIPS 2022,
arXiv:2205.13709; [LKJO22]) is Oja's algorithm run once over the data in
minibatches, each minibatch's mean gradient estimated privately. Starting
from a Haar-random unit vector ``w_0``, step ``t = 1, …, T`` reads the next
``B`` rows, never read before, and::

    g_i   = x_i (x_iᵀ w_{t−1})                    (the gradient of row i)
    r_t   = a private quantile of the norms ‖g_i‖ (range estimation)
    ĝ_t   = (1/B) Σ_i clip_{r_t}(g_i) + N(0, σ_t² I_d),  σ_t ∝ r_t / B
    w_t   = (w_{t−1} + η_t ĝ_t) / ‖w_{t−1} + η_t ĝ_t‖

and releases ``w_T``. The noise is proportional to the clipping radius, which
is read privately from the minibatch itself: it adapts to the scale of the
gradients instead of a worst-case bound on the rows, and no bound on the rows
is assumed at all.

**k > 1.** Düngler and Sanyal ("An iterative algorithm for differentially
private k-PCA with adaptive noise", NeurIPS 2025, arXiv:2508.10879; [DS25])
extend DP-PCA to the top-k subspace. Their k-DP-PCA is iterative: it calls
a modified DP-PCA once per component. This module implements that as a
deflation: the components are found one after another, each by a DP-PCA
run on fresh rows, on the data projected onto the orthogonal complement of
the components already found. Component ``j`` runs the k = 1 steps above on
its own ``T`` minibatches with every gradient step projected by
``P_j = I − U_j U_jᵀ`` (``U_j`` the released components ``u_1, …,
u_{j−1}``): ``w ← P_j(w + η ĝ)``. Since ``P_j w = w``, ``P_j g_i`` is the
gradient of the projected row ``P_j x_i``, and projecting the *released*
``ĝ`` is post-processing, so the privacy analysis is that of k = 1.

**What could be read of the papers, and what is ours.** Only the abstracts
(and the opening of the introductions) of [LKJO22] and [DS25] could be read
when this module was written; the algorithm boxes, theorems and constants
could not. The outline above (one pass, Oja steps on disjoint minibatches,
private mean estimation whose noise adapts to the minibatch, one DP-PCA
call per component on fresh rows for k > 1) is theirs. The following are
this module's own choices, each a parameter:

* range estimation: the ``clip_quantile``-quantile of the gradient norms by
  permute-and-flip (``dppca.privacy.private_bounds.norm_quantile``) over a
  public geometric grid ``norm_range``; the gradients are clipped about the
  origin. [LKJO22] adapt the noise to the spread of the gradients about
  their mean; clipping about the origin adapts it to their size only, so the
  noise does not vanish for data without randomness;
* after the first step the candidate radii lie within a factor
  ``radius_window = 16`` of the radius released by the step before
  (post-processing: it keeps one unlucky draw of the radius, which
  permute-and-flip makes with a small probability on a small minibatch,
  from derailing the run);
* the budget of a step: a share ``range_share = 0.5`` of its ρ for the
  quantile, the rest for the mean, on the same rows;
* the learning rate: two power steps (``w ← ĝ/‖ĝ‖``, i.e. ``η = ∞``),
  which discard the random start, then ``η_t = α / (gap · t)`` (the
  classical Oja schedule; the gap is a public assumption), with ``α`` the
  smallest integer ``≥ 4`` for which the noiseless contraction
  ``C(T − 2 + α, α)`` reaches ``10⁴ √d`` (``default_alpha``: 5 for
  ``d = 50`` and ``T = 30``, 7 to 9 at ``d = 100,000``);
* ``T = 30`` steps per component by default, ``B = ⌊n / (kT)⌋``.

**Privacy (replace-one neighbours: n fixed, one row replaced by any other).**
Let ``ρ = dppca.privacy.zcdp_rho(ε, δ)``.

1. *One step is ρ-zCDP in its own rows.* The quantile is pure
   ``ε_r``-DP with ``ε_r = √(2ρ_r)``, ``ρ_r = range_share · ρ`` (utilities of
   sensitivity 1 whatever the rows, drawn exactly), hence ``ρ_r``-zCDP (Bun
   and Steinke 2016, Prop. 1.4). Given the released radius ``r``, the clipped
   mean of ``B`` rows moves by at most ``2r/B`` in ℓ₂ when one row is
   replaced (``clipped_gradient_mean``; the float64 error of the sum is
   absorbed, ``dppca.linalg.clipped_sums.clipped_row_sum``), and Gaussian
   noise of standard deviation ``σ = (2r/B)/√(2ρ_m)``, ``ρ_m = ρ − ρ_r``,
   makes it ``ρ_m``-zCDP; the safe discrete Gaussian on a grid γ is
   calibrated to the
   rounded sensitivity ``2r/(Bγ) + √d`` (``mean_noise_scale``). By
   adaptive composition the step is ``ρ_r + ρ_m = ρ``-zCDP.
2. *The whole pass is ρ-zCDP (parallel composition).* The minibatches are
   fixed by position (rows ``(s−1)B, …, sB − 1`` of the stream feed step
   ``s``), independently of the data, and disjoint; under replace-one the
   neighbour changes one row and no position. If that row feeds step ``s``,
   every other step, given the outputs before it, has the same law under
   both data sets; by the chain rule of Rényi divergences the transcript's
   divergence of order α is at most that of step ``s``, ``αρ``. The k
   components use disjoint rows too. The release ``V`` is post-processing of
   the transcript, so it is ρ-zCDP, hence (ε, δ)-DP (Canonne, Kamath and
   Steinke 2020, the conversion of ``dppca.privacy.zcdp_delta``): the
   privacy of the whole pass is that of one minibatch update.

This needs replace-one: under add/remove-one the positions after the
removed row shift and every later minibatch changes. Rows after the last
minibatch (``n − kTB`` of them) are not read.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse

from ..linalg import clipped_sums, float_error, rows
from ..privacy import private_bounds
from ..privacy.calibration import (
    rounded_sensitivity,
    safe_granularity,
    zcdp_rho,
)
from ..privacy.guarantees import Release, noise_record, released, zcdp_release
from ..privacy.noise import (
    MAX_GAUSSIAN_GRID_SIGMA,
    add_gaussian,
    check_noise_kind,
)
from ..validation import (
    as_generator,
    as_real_array,
    check_delta,
    check_epsilon,
    check_n,
)
from .spec import MechanismSpec, select

#: The privacy the mechanism provides, as derived and checked in chapter 17.
PRIVACY = {
    "dp_pca_oja": "(ε, δ)-DP for the whole pass (δ spent once), any rows, "
    "replace-one: each row feeds one minibatch step, which is ρ-zCDP (a "
    "pure-DP private quantile of the gradient norms, then the clipped mean "
    "of sensitivity 2r/B with Gaussian noise); disjoint steps compose in "
    "parallel; chapter 17.",
}

#: Minibatch steps per component when neither ``n_steps`` nor
#: ``batch_size`` is given.
DEFAULT_STEPS = 30

#: Fewest rows per minibatch the default plan accepts (the private quantile
#: of a smaller minibatch is mostly noise).
MIN_BATCH = 100

#: Power steps (``η = inf``) at the start of each component, before the Oja
#: schedule: they discard the random start, whose overlap with ``v_1`` is
#: only about ``1/√d``.
DEFAULT_WARMUP = 2

#: ``β`` of the default learning rate ``α / (gap (t + β))``; ``α`` is
#: ``default_alpha``, at least ``MIN_ALPHA``.
DEFAULT_OFFSET = 0.0
MIN_ALPHA = 4
MAX_ALPHA = 16

#: ``default_alpha`` asks the noiseless contraction of ``tan θ`` over a
#: component's steps to be at least this many times ``√d``.
CONTRACTION_TARGET = 1e4

#: Target quantile of the gradient norms used as the clipping radius.
DEFAULT_CLIP_QUANTILE = 0.75

#: Share of each step's ρ spent on the clipping radius.
DEFAULT_RANGE_SHARE = 0.5

#: Public range of the candidate radii (four per octave in between).
DEFAULT_NORM_RANGE = (1e-6, 1e6)

#: After the first step of a run, the candidates lie within this factor of
#: the previous step's released radius (post-processing of that release).
DEFAULT_RADIUS_WINDOW = 16.0

#: Relative margin on the safe calibration, absorbing the float rounding of
#: its inputs (as ``dppca.privacy.discrete_gaussian_sigma`` does).
_MARGIN = 2.0**-40

THEOREM = (
    "[LKJO22] private Oja (k = 1), [DS25] deflation (k > 1); the replace-one "
    "calibration and the parallel composition are the book's own"
)
CHAPTER = "chapter 17"
ROW_BOUND = "any rows (gradients clipped to a private quantile of their norms)"


# ------------------------------------------------------------------------------
# The plan, the budget and the learning rate
# ------------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamingPlan:
    """Which rows feed which step: ``n_components`` components of
    ``n_steps`` minibatches of ``batch_size`` rows each, in stream order.

    Rows ``[s B, (s + 1) B)`` feed step ``s`` (counted over all components);
    the last ``n_rows − rows_used`` rows are not read.
    """

    n_rows: int
    n_components: int
    n_steps: int
    batch_size: int

    @property
    def rows_used(self) -> int:
        return self.n_components * self.n_steps * self.batch_size

    @property
    def total_steps(self) -> int:
        return self.n_components * self.n_steps


def _positive_int(value, name: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, numbers.Integral
    ):
        raise TypeError(f"{name} must be an integer; got {value!r}")
    if value < 1:
        raise ValueError(f"{name} must be >= 1; got {value!r}")
    return int(value)


def streaming_plan(
    n_rows: int, k: int = 1, *, batch_size=None, n_steps=None
) -> StreamingPlan:
    """The minibatches of a run over ``n_rows`` rows (public: replace-one
    keeps ``n`` fixed).

    Neither given: ``T = DEFAULT_STEPS`` (30) steps per component, reduced so
    that every minibatch has at least ``MIN_BATCH`` rows when ``n`` is
    small, and ``B = ⌊n/(kT)⌋``. One given: the other is the largest that
    fits. Both: ``k T B ≤ n`` is required. Raises ``ValueError`` when not
    even one row per minibatch fits.
    """
    n = check_n(n_rows)
    k = _positive_int(k, "k")
    if batch_size is not None:
        batch_size = _positive_int(batch_size, "batch_size")
    if n_steps is not None:
        n_steps = _positive_int(n_steps, "n_steps")
    if batch_size is None and n_steps is None:
        n_steps = DEFAULT_STEPS
        if n // (k * n_steps) < MIN_BATCH:
            n_steps = max(1, n // (k * MIN_BATCH))
    if batch_size is None:
        batch_size = n // (k * n_steps)
    elif n_steps is None:
        n_steps = n // (k * batch_size)
    if batch_size < 1 or n_steps < 1 or k * n_steps * batch_size > n:
        raise ValueError(
            f"{k} component(s) x {n_steps} step(s) x {batch_size} rows do not "
            f"fit in n = {n} rows (each row can be used once)"
        )
    return StreamingPlan(n, k, n_steps, batch_size)


@dataclass(frozen=True)
class StepBudget:
    """ρ of one minibatch step (= of the whole pass) and its split."""

    rho: float
    rho_range: float
    rho_mean: float
    epsilon_range: float


def step_budget(
    epsilon, delta, range_share: float = DEFAULT_RANGE_SHARE
) -> StepBudget:
    """ρ = ``dppca.privacy.zcdp_rho`` (ε, δ) for each step (and so for
    the pass), split into ``ρ_r = range_share · ρ`` for the clipping radius
    (pure ``ε_r = √(2ρ_r)``-DP, which is ``ρ_r``-zCDP) and ``ρ_m = ρ − ρ_r``
    for the mean."""
    eps, dl = check_epsilon(epsilon), check_delta(delta)
    share = float(range_share)
    if not 0.0 < share < 1.0:
        raise ValueError(f"range_share must lie in (0, 1); got {range_share!r}")
    rho = zcdp_rho(eps, dl)
    rho_range = share * rho
    return StepBudget(
        rho, rho_range, rho - rho_range, math.sqrt(2.0 * rho_range)
    )


def default_alpha(d: int, n_steps: int) -> int:
    """``α`` of the default learning rate: the smallest integer ``α ≥ 4``
    (at most 16) with ``C(T + α, α) ≥ 10⁴ √d``.

    Without noise and with ``λ_2 = 0``, a step multiplies ``tan θ(w, v_1)``
    by ``1/(1 + α/t)`` when ``η_t = α/(λ_1 t)``, so ``T`` steps divide it by
    ``Π_t (1 + α/t) = C(T + α, α)``. A random start has ``tan θ_0`` of order
    ``√d``; the rule asks the start to be forgotten to ``10⁻⁴`` in that
    idealised case, with the smallest ``α`` (the sampling and privacy noise
    grow like ``α²/(2α − 1)``). Public: depends on ``d`` and ``T`` only.
    This rule is the book's (module docstring).
    """
    d, T = _positive_int(d, "d"), _positive_int(n_steps, "n_steps")
    target = CONTRACTION_TARGET * math.sqrt(d)
    for alpha in range(MIN_ALPHA, MAX_ALPHA + 1):
        if math.comb(T + alpha, alpha) >= target:
            return alpha
    return MAX_ALPHA


def oja_learning_rate(
    eigengap: float,
    alpha: float = MIN_ALPHA,
    offset: float = DEFAULT_OFFSET,
    warmup: int = 0,
) -> Callable[[int], float]:
    """The schedule ``t ↦ α / (gap · (t + β))`` of Oja's algorithm.

    With the step ``η_t`` of this form the component of ``w`` outside the top
    eigenvector shrinks like ``t^{−α}`` relative to the top one, and the
    sampling noise averages out at the optimal rate when ``α > 1/2`` (the
    schedule of the streaming PCA analyses [LKJO22] build on). ``eigengap``
    is ``λ_1 − λ_2`` of ``E[x xᵀ]`` in the units of the data: a public
    assumption, which only affects utility. The first ``warmup`` steps are
    power steps (``η = inf``, ``oja_update``), and the schedule starts
    after them: ``η_t = α/(gap (t − warmup + β))``. ``dp_pca_oja`` uses
    ``warmup = 2``, ``α = default_alpha(d, T − 2)`` and ``β = 0`` unless
    given a schedule.
    """
    gap, a, b = float(eigengap), float(alpha), float(offset)
    if not (math.isfinite(gap) and gap > 0):
        raise ValueError(
            f"eigengap must be a finite number > 0; got {eigengap!r}"
        )
    if not (math.isfinite(a) and a > 0 and math.isfinite(b) and b >= 0):
        raise ValueError("need alpha > 0 and offset >= 0, both finite")

    w0 = int(warmup)
    if w0 < 0:
        raise ValueError(f"warmup must be >= 0; got {warmup!r}")

    def rate(t: int) -> float:
        if t <= w0:
            return math.inf
        return a / (gap * (t - w0 + b))

    return rate


def _schedules(k, eigengap, learning_rate):
    """A function ``(d, T) -> one learning-rate callable per component``
    (checked now, built once ``d`` is known)."""
    if learning_rate is not None:
        if not callable(learning_rate):
            raise TypeError("learning_rate must be a callable t -> η_t")
        return lambda d, T: [learning_rate] * k
    if eigengap is None:
        raise ValueError(
            "pass eigengap (a public assumption on λ_j − λ_(j+1)) or a "
            "learning_rate callable: Oja's step size depends on the gap"
        )
    gaps = np.atleast_1d(np.asarray(eigengap, dtype=float))
    if gaps.size == 1:
        gaps = np.repeat(gaps, k)
    if gaps.shape != (k,):
        raise ValueError(
            f"eigengap must be one number or one per component ({k})"
        )
    for g in gaps:
        oja_learning_rate(g)  # checked before any data is read

    def build(d, T):
        warmup = min(DEFAULT_WARMUP, T - 1)
        alpha = default_alpha(d, T - warmup)
        return [oja_learning_rate(g, alpha, warmup=warmup) for g in gaps]

    return build


# ------------------------------------------------------------------------------
# One step: gradients, the clipped mean, the noise
# ------------------------------------------------------------------------------


def gradient_rows(X_batch, w):
    """The gradients ``g_i = x_i (x_iᵀ w)`` as rows: ``diag(X w) X``, sparse
    for sparse ``X`` (same pattern). Row ``i`` is computed from ``x_i`` and
    ``w`` alone."""
    w = np.asarray(w, dtype=float).ravel()
    if scipy.sparse.issparse(X_batch):
        X = X_batch.tocsr()
        scale = np.asarray(X @ w).ravel()
        data = X.data * np.repeat(scale, np.diff(X.indptr))
        return scipy.sparse.csr_matrix(
            (data, X.indices.copy(), X.indptr.copy()), shape=X.shape
        )
    X = np.asarray(X_batch, dtype=float)
    return X * (X @ w)[:, None]


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
    G = gradient_rows(X_batch, w)
    # sparse rows are never densified, so a chunk may hold the most rows
    # the float64 proof allows; dense chunks stay within 16 MiB
    chunk = float_error.MAX_CHUNK_ROWS if scipy.sparse.issparse(G) else None
    total = clipped_sums.clipped_row_sum(G, radius, clip=True, chunk_rows=chunk)
    return ClippedMean(total.total / G.shape[0], total.n_clipped, float(radius))


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
    if previous is None:
        return lower, upper
    r = float(previous)
    lo, hi = max(lower, r / W), min(upper, r * W)
    if not lo < hi:
        raise ValueError(f"previous radius {previous!r} outside {norm_range!r}")
    return lo, hi


def oja_update(w, gradient, eta: float, basis=None) -> np.ndarray:
    """``P(w + η ĝ)/‖P(w + η ĝ)‖`` with ``P = I − U Uᵀ`` (``U = basis``,
    orthonormal columns; ``P = I`` without it): post-processing of the
    released gradient. ``η = inf`` is the limit, a power step ``P ĝ/‖P ĝ‖``."""
    eta = float(eta)
    if math.isinf(eta) and eta > 0:  # a power step: w ← P ĝ / ‖P ĝ‖
        v = np.array(gradient, dtype=float)
    else:
        v = np.asarray(w, dtype=float) + eta * np.asarray(gradient, float)
    if basis is not None and basis.shape[1]:
        v = v - basis @ (basis.T @ v)
    norm = float(np.linalg.norm(v))
    if not (math.isfinite(norm) and norm > 0):
        raise ArithmeticError("the Oja step produced a zero or non-finite w")
    return v / norm


# ------------------------------------------------------------------------------
# Streams of row blocks
# ------------------------------------------------------------------------------


#: Rows whose largest entry exceeds ``2^HUGE_EXPONENT`` are scaled by a power
#: of two to bring it to ``(2^(HUGE_EXPONENT−1), 2^HUGE_EXPONENT]``
#: (``scale_huge_rows``): their gradients then never overflow.
HUGE_EXPONENT = 240


def scale_huge_rows(block):
    """Each row whose largest ``|entry|`` exceeds ``2^HUGE_EXPONENT``,
    multiplied by the power of two that brings it to at most that.

    A deterministic map applied to every row alone, so neighbouring data sets
    stay neighbours and the privacy proof (which holds for any rows) is
    unchanged; the scaling is exact and keeps each row's direction, hence the
    direction of its gradient. With entries at most ``2^240``, ``‖x‖² ≤ d
    2^480`` and every gradient ``x (xᵀw)`` and its squared norm stay finite.
    Rows below the threshold (every row of sane data) are untouched, and the
    block is then returned as it is, after two reductions (its largest and
    smallest entry) that allocate nothing of its size."""
    limit = 2.0**HUGE_EXPONENT
    values = block.data if scipy.sparse.issparse(block) else block
    if _largest_magnitude(values) <= limit:
        return block
    if scipy.sparse.issparse(block):
        data = np.abs(block.data)
        counts = np.diff(block.indptr)
        nonempty = counts > 0
        largest = np.zeros(block.shape[0])
        largest[nonempty] = np.maximum.reduceat(
            data, block.indptr[:-1][nonempty]
        )
        factor = _power_of_two_factor(largest, limit)
        block = block.copy()
        block.data = block.data * np.repeat(factor, counts)
        return block
    largest = np.max(np.abs(block), axis=1, initial=0.0)
    return block * _power_of_two_factor(largest, limit)[:, None]


def _largest_magnitude(values) -> float:
    """``max |v|`` over an array (0 if empty; NaN if it holds a NaN), from
    its maximum and minimum: no temporary of the array's size."""
    if not values.size:
        return 0.0
    return float(np.max(np.abs([np.max(values), np.min(values)])))


def _power_of_two_factor(largest, limit) -> np.ndarray:
    exponent = np.frexp(largest)[1]  # largest < 2^exponent
    shift = np.where(largest > limit, HUGE_EXPONENT - exponent, 0)
    return np.ldexp(1.0, shift)


def _check_block(block, d: int | None):
    """A block of rows as a float64 dense array or canonical CSR matrix,
    finite, with ``d`` columns, its huge rows scaled (``scale_huge_rows``)."""
    if scipy.sparse.issparse(block):
        block = scipy.sparse.csr_matrix(block, dtype=float)
        if not block.has_canonical_format:
            block.sum_duplicates()
        values = block.data
    else:
        block = as_real_array(block)
        values = block
    if block.ndim != 2:
        raise ValueError(
            f"a block of rows must be 2-D; got shape {block.shape}"
        )
    if d is not None and block.shape[1] != d:
        raise ValueError(
            f"a block of rows has {block.shape[1]} columns, expected {d}"
        )
    if not math.isfinite(_largest_magnitude(values)):  # NaN or ±Inf
        raise ValueError("X contains NaN or Inf")
    return scale_huge_rows(block)


class _RowBuffer:
    """Rows of a stream, handed out in minibatches of exact sizes, each row
    once (an offset runs through the current block); counts the rows read."""

    def __init__(self, blocks: Iterable):
        self._blocks = iter(blocks)
        self._pending: list = []  # [block, offset of its first unused row]
        self._count = 0
        self.rows_read = 0
        self.d: int | None = None

    def _pull(self) -> bool:
        for block in self._blocks:
            block = _check_block(block, self.d)
            if self.d is None:
                if block.shape[1] < 2:
                    raise ValueError("X must have at least 2 columns")
                self.d = block.shape[1]
            if block.shape[0]:
                self._pending.append([block, 0])
                self._count += block.shape[0]
                self.rows_read += block.shape[0]
                return True
        return False

    def peek_dimension(self) -> int:
        if self.d is None and not self._pull():
            raise ValueError("X has no rows")
        return self.d

    def take(self, m: int):
        """The next ``m`` rows as a fresh dense array or CSR matrix."""
        while self._count < m:
            if not self._pull():
                raise ValueError(
                    "the rows ran out before the plan was complete (n_rows "
                    "must be the number of rows of the stream)"
                )
        pieces, got = [], 0
        while got < m:
            block, offset = self._pending[0]
            stop = min(block.shape[0], offset + m - got)
            pieces.append(block[offset:stop])
            got += stop - offset
            if stop == block.shape[0]:
                self._pending.pop(0)
            else:
                self._pending[0][1] = stop
        self._count -= m
        if any(scipy.sparse.issparse(b) for b in pieces):
            out = scipy.sparse.vstack(
                [scipy.sparse.csr_matrix(b) for b in pieces], format="csr"
            )
            out.sum_duplicates()
            return out
        return np.concatenate(pieces) if len(pieces) > 1 else pieces[0].copy()


def _is_dask(X) -> bool:
    return type(X).__module__.split(".")[0] == "dask" and hasattr(X, "chunks")


def dask_row_blocks(X):
    """The row chunks of a ``dask.array`` (n × d, chunked along the rows),
    computed one at a time, in order, by the current scheduler (a
    ``distributed.Client`` if one is active): one pass, one chunk in the
    client's memory at a time. Chunks may be dense or scipy.sparse."""
    import dask.array as da  # noqa: F401  (dask is optional)

    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (n, d); got shape {X.shape}")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if len(X.chunks[1]) > 1:
        X = X.rechunk({1: -1})
    for block in X.to_delayed().ravel():
        yield block.compute()


# ------------------------------------------------------------------------------
# The mechanism
# ------------------------------------------------------------------------------


@dataclass
class StepRecord:
    """What one step did (``diagnostics=True`` only). ``iterate`` (the
    ``w`` the step started from), ``radius``, ``sigma``, ``granularity``,
    ``eta`` and ``gradient`` (the released noisy mean) are public;
    ``clipped_mean`` and ``n_clipped`` are not. Rows ``first_row`` to
    ``stop_row − 1`` of the stream fed the step."""

    component: int
    step: int
    first_row: int
    stop_row: int
    iterate: np.ndarray = field(repr=False)
    radius: float
    sigma: float
    granularity: float | None
    eta: float
    n_clipped: int
    clipped_mean: np.ndarray = field(repr=False)
    gradient: np.ndarray = field(repr=False)


@dataclass
class StreamingRun:
    """A run with diagnostics: the released ``V`` (d × k, a plain array),
    the plan, the budget and one ``StepRecord`` per step. Not for
    publication: the clipped means and the counts of clipped rows are exact
    functions of the data."""

    V: np.ndarray
    plan: StreamingPlan
    budget: StepBudget | None
    steps: list = field(default_factory=list)


def dp_pca_guarantee(
    epsilon,
    delta,
    *,
    noise: str = "safe",
    range_share: float = DEFAULT_RANGE_SHARE,
) -> Release:
    """Guarantee record of a ``dp_pca_oja`` release: ρ-zCDP for the
    whole pass with ρ = ``dppca.privacy.zcdp_rho`` (ε, δ), whatever
    ``n``, ``d``, ``k``, the batch size or the number of steps (parallel
    composition, module docstring). Float noise: the same ρ for the real
    mechanism, not proved for the float program."""
    budget = step_budget(epsilon, delta, range_share)
    return zcdp_release(
        "DP-PCA (private Oja)" + (" (safe noise)" if noise == "safe" else ""),
        budget.rho,
        epsilon,
        delta,
        **noise_record(check_noise_kind(noise)),
        row_bound=ROW_BOUND,
        theorem=THEOREM,
        chapter=CHAPTER,
    )


def _input_stream(X, n_rows):
    """``(blocks, n)`` for an array, a sparse matrix, a dask array or an
    iterable of row blocks."""
    if _is_dask(X):
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n, d); got shape {X.shape}")
        if any(np.isnan(c) for c in X.chunks[0]):
            X = X.compute_chunk_sizes()
        return dask_row_blocks(X), int(X.shape[0])
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csr_matrix(X, dtype=float)
        return iter([X]), X.shape[0]
    if isinstance(X, np.ndarray) or (
        isinstance(X, Sequence) and not isinstance(X, (str, bytes))
    ):
        X = as_real_array(X)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (n, d); got shape {X.shape}")
        return iter([X]), X.shape[0]
    if n_rows is None:
        raise ValueError(
            "X is a stream of row blocks: pass n_rows, the number of rows it "
            "holds (public under replace-one neighbours)"
        )
    return iter(X), n_rows


def _run(
    X,
    k,
    *,
    budget,
    schedules,
    batch_size,
    n_steps,
    clip_quantile,
    norm_range,
    radius_window,
    n_rows,
    rng,
    noise,
    diagnostics,
):
    blocks, n = _input_stream(X, n_rows)
    if n_rows is not None and int(n_rows) != n:
        raise ValueError(
            f"n_rows = {n_rows} is not the number of rows of X (an array, "
            "whose shape is public)"
        )
    plan = streaming_plan(n, k, batch_size=batch_size, n_steps=n_steps)
    private = budget is not None
    if private:
        q = private_bounds.check_quantile(clip_quantile)
        radius_candidates_range(None, norm_range, radius_window)  # checked
    previous = None
    buffer = _RowBuffer(blocks)
    d = buffer.peek_dimension()
    if k > d - 1:
        raise ValueError(f"k must be < d = {d}; got k = {k}")
    schedules = schedules(d, plan.n_steps)
    rng = as_generator(rng)
    basis = np.zeros((d, 0))
    records = []
    row = 0
    for j in range(k):
        w = rng.standard_normal(d)
        w = oja_update(w, np.zeros(d), 0.0, basis)  # Haar on the complement
        for t in range(1, plan.n_steps + 1):
            batch = buffer.take(plan.batch_size)
            m = plan.batch_size
            if private:
                norms = gradient_norms(batch, w)
                lo, hi = radius_candidates_range(
                    previous, norm_range, radius_window
                )
                radius = private_bounds.norm_quantile(
                    norms, q, budget.epsilon_range, lower=lo, upper=hi, rng=rng
                ).bound
                previous = radius
                clipped = clipped_gradient_mean(batch, w, radius)
                sigma, grid = mean_noise_scale(
                    radius, m, d, budget.rho_mean, noise
                )
                gradient = add_gaussian(
                    clipped.mean,
                    sigma,
                    noise=noise,
                    rng=rng,
                    granularity=grid,
                )
                mean, n_clipped = clipped.mean, clipped.n_clipped
            else:
                G = gradient_rows(batch, w)
                mean = np.asarray(G.sum(axis=0)).ravel() / m
                gradient, radius, sigma, grid, n_clipped = (
                    mean,
                    math.inf,
                    0.0,
                    None,
                    0,
                )
            eta = float(schedules[j](t))
            if diagnostics:
                records.append(
                    StepRecord(
                        j,
                        t,
                        row,
                        row + m,
                        w,
                        radius,
                        sigma,
                        grid,
                        eta,
                        n_clipped,
                        mean,
                        gradient,
                    )
                )
            w = oja_update(w, gradient, eta, basis)
            row += m
        w = oja_update(w, np.zeros(d), 0.0, basis)  # re-orthogonalise
        basis = np.column_stack([basis, w])
    return basis, plan, records


def dp_pca_oja(
    X,
    k: int,
    epsilon: float,
    delta: float,
    *,
    eigengap=None,
    learning_rate: Callable[[int], float] | None = None,
    batch_size: int | None = None,
    n_steps: int | None = None,
    clip_quantile: float = DEFAULT_CLIP_QUANTILE,
    norm_range: tuple[float, float] = DEFAULT_NORM_RANGE,
    radius_window: float = DEFAULT_RADIUS_WINDOW,
    range_share: float = DEFAULT_RANGE_SHARE,
    n_rows: int | None = None,
    rng=None,
    noise: str = "safe",
    diagnostics: bool = False,
):
    """Private top-k subspace by DP-PCA [LKJO22] (k = 1) and its deflation
    to k > 1 [DS25], in one pass over the rows; (ε, δ)-DP for replace-one
    neighbours, any rows (module docstring).

    Parameters
    ----------
    X : array (n, d), scipy.sparse matrix, dask.array, or iterable of blocks
        The rows, read once, in order, a minibatch at a time: a dense or
        sparse matrix (sparse rows are never densified), a ``dask.array``
        chunked along the rows (its chunks are computed one at a time,
        ``dask_row_blocks``), or any iterable of row blocks (dense or
        sparse, ``d`` columns each; then ``n_rows`` is required). The rows
        need no bound: each gradient is clipped to a private radius.
    k : int
        Number of components, ``1 <= k < d``; each uses its own rows.
    epsilon, delta : float
        The privacy of the whole pass.
    eigengap : float or sequence of k floats, optional
        Public assumption on ``λ_j − λ_(j+1)`` of ``E[x xᵀ]`` (one number
        for every component, or one per component), for the default
        learning rate ``oja_learning_rate``. Required unless
        ``learning_rate`` is given. It affects utility, never privacy.
    learning_rate : callable, optional
        ``t -> η_t`` (``t = 1, …, n_steps``), used for every component;
        ``inf`` makes step ``t`` a power step (``oja_update``). Default:
        two power steps, then ``oja_learning_rate`` with
        ``α = default_alpha(d, n_steps − 2)``.
    batch_size, n_steps : int, optional
        Rows per minibatch and minibatches per component
        (``streaming_plan``; default 30 steps).
    clip_quantile : float
        Quantile of the gradient norms used as the clipping radius (0.75).
    norm_range : (float, float)
        Public range of the candidate radii; outside it the radius is the
        nearest end.
    radius_window : float
        After the first step, the candidates are restricted to within this
        factor of the previous released radius
        (``radius_candidates_range``; 16).
    range_share : float
        Share of each step's ρ spent on the radius (0.5).
    n_rows : int, optional
        Number of rows of a stream (checked against arrays).
    rng : numpy.random.Generator, int or None
        Randomness; fresh entropy by default.
    noise : {"safe", "float"}
        ``"safe"`` (default): the mean is rounded to a grid and exact
        discrete Gaussian noise added (private as a program). ``"float"``:
        numpy's Gaussian (private as mathematics only; warns).
    diagnostics : bool
        Return a ``StreamingRun`` with every step's record (not for
        publication) instead of the release.

    Returns
    -------
    Released (d, k) or StreamingRun
        Orthonormal columns, the j-th the j-th component found; the
        guarantee record of ``dp_pca_guarantee``.
    """
    k = _positive_int(k, "k")
    budget = step_budget(epsilon, delta, range_share)
    noise = check_noise_kind(noise)
    schedules = _schedules(k, eigengap, learning_rate)
    V, plan, records = _run(
        X,
        k,
        budget=budget,
        schedules=schedules,
        batch_size=batch_size,
        n_steps=n_steps,
        clip_quantile=clip_quantile,
        norm_range=norm_range,
        radius_window=radius_window,
        n_rows=n_rows,
        rng=rng,
        noise=noise,
        diagnostics=diagnostics,
    )
    if diagnostics:
        return StreamingRun(V, plan, budget, records)
    record = dp_pca_guarantee(
        epsilon, delta, noise=noise, range_share=range_share
    )
    return released(V, record)


def dp_pca_oja_dask(X, k: int, epsilon: float, delta: float, **options):
    """``dp_pca_oja`` on a ``dask.array`` of rows, chunk by chunk.

    One pass: the chunks are computed in order by the current scheduler
    (on a ``distributed`` cluster, by its workers; a chunk may be a dense
    array or a scipy.sparse matrix) and handed to the client, which runs the
    steps. Only one chunk and one partial minibatch are in the client's
    memory at a time. Trust model as in ``dppca.linalg.distributed``: the
    client and the workers see rows and form a trusted aggregator; the
    release is what is protected. Same draws as in memory under the same
    seed.
    """
    if not _is_dask(X):
        raise TypeError(f"expected a dask array; got {type(X).__name__}")
    return dp_pca_oja(X, k, epsilon, delta, **options)


def streaming_oja(
    X,
    k: int,
    *,
    eigengap=None,
    learning_rate: Callable[[int], float] | None = None,
    batch_size: int | None = None,
    n_steps: int | None = None,
    n_rows: int | None = None,
    rng=None,
    diagnostics: bool = False,
):
    """Non-private reference: the same pass, plan, start and learning rate
    as ``dp_pca_oja``, with the exact mean gradient (no clipping, no
    noise). Not private: for comparisons only; returns a plain array (or a
    ``StreamingRun``)."""
    k = _positive_int(k, "k")
    schedules = _schedules(k, eigengap, learning_rate)
    V, plan, records = _run(
        X,
        k,
        budget=None,
        schedules=schedules,
        batch_size=batch_size,
        n_steps=n_steps,
        clip_quantile=None,
        norm_range=None,
        radius_window=None,
        n_rows=n_rows,
        rng=rng,
        noise="float",
        diagnostics=diagnostics,
    )
    if diagnostics:
        return StreamingRun(V, plan, None, records)
    return V


def dp_pca_error_rate(n, d, epsilon, delta, lambda1, lambda2) -> float:
    """The error rate of DP-PCA [LKJO22] for Gaussian-like data, up to
    constants and logarithmic factors::

        sin θ(w, v_1) ≲ κ (√(d/n) + d √(log(1/δ)) / (ε n)),
        κ = λ_1 / (λ_1 − λ_2),

    a statistical term (that of non-private Oja) and a privacy term. This
    is the form of the rate as the book states it (chapter 17), not checked
    against the paper's theorem, which could not be read (module
    docstring). Vectorised in ``n``.
    """
    n = np.asarray(n, dtype=float)
    eps, dl = check_epsilon(epsilon), check_delta(delta)
    l1, l2 = float(lambda1), float(lambda2)
    if not l1 > l2 >= 0:
        raise ValueError("need lambda1 > lambda2 >= 0")
    kappa = l1 / (l1 - l2)
    out = kappa * (
        np.sqrt(d / n) + d * math.sqrt(math.log(1.0 / dl)) / (eps * n)
    )
    return out[()] if out.ndim == 0 else out


# ------------------------------------------------------------------------------
# The declaration: streaming DP-PCA, once
# ------------------------------------------------------------------------------


def _run_rows(Z, n, k, epsilon, delta, rng, options):
    V = dp_pca_oja(Z, k, epsilon, delta, rng=rng, **options)
    return np.asarray(V), None, None


def _check_options(options) -> dict:
    """The step size needs a public gap assumption: checked by
    :class:`dppca.PrivatePCA` before any budget is charged or noise drawn.
    The rows it sees lie in the unit ball, so every gradient ``x (xᵀW)`` has
    norm at most one: the radius is searched below it."""
    if not {"eigengap", "learning_rate"} & set(options or {}):
        raise ValueError(
            'mechanism="streaming" needs a public assumption on the eigengap '
            "of the scaled rows' second moment, which sets Oja's step size: "
            'pass mechanism_options={"eigengap": g} (or a "learning_rate" '
            "callable); see dppca.mechanisms.streaming.dp_pca_oja"
        )
    options.setdefault("norm_range", (DEFAULT_NORM_RANGE[0], 1.0))
    return options


def _guarantee(n, d, k, epsilon, delta, options):
    return dp_pca_guarantee(
        epsilon, delta, **select(options, "noise", "range_share")
    )


def _from_rows(rows, k, epsilon, delta, rng=None, cache=None, **options):
    V = dp_pca_oja(rows, k, epsilon, delta, rng=rng, **options)
    return np.asarray(V)


def _release(X, k, epsilon, delta, rng=None, **options):
    return _from_rows(X, k, epsilon, delta, rng, **options)


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="streaming",
        label="streaming DP-PCA",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run_rows=_run_rows,
        guarantee=_guarantee,
        privacy=PRIVACY["dp_pca_oja"],
        check_options=_check_options,
        options_of=dp_pca_oja,
        additive_noise=True,
        experiment_key="streaming",
        experiment_label="DP-PCA, one pass (LKJO22)",
        short_notion="(ε, δ)-DP (one pass)",
        entry_point=(__name__, "dp_pca_oja"),
        release=_release,
        from_rows=_from_rows,
        row_reason="reads each row once, in a minibatch, with gradients "
        "clipped to a private radius",
        style=dict(color="crimson", linestyle=":", marker="X"),
    ),
)


__all__ = [
    "SPECS",
    "PRIVACY",
    "ClippedMean",
    "StepBudget",
    "StepRecord",
    "StreamingPlan",
    "StreamingRun",
    "clipped_gradient_mean",
    "dask_row_blocks",
    "dp_pca_error_rate",
    "dp_pca_guarantee",
    "dp_pca_oja",
    "dp_pca_oja_dask",
    "default_alpha",
    "gradient_norms",
    "gradient_rows",
    "mean_noise_scale",
    "oja_learning_rate",
    "oja_update",
    "radius_candidates_range",
    "step_budget",
    "streaming_oja",
    "streaming_plan",
]
