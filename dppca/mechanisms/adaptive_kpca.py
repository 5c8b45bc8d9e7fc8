"""k-PCA with adaptive noise: deflated private Oja steps whose noise scales
with the spread of the minibatch's gradients, not with their size.

**Source.** Düngler and Sanyal, "An iterative algorithm for differentially
private k-PCA with adaptive noise" (NeurIPS 2025, arXiv:2508.10879; [DS25])
extend DP-PCA of Liu, Kong, Jain and Oh ([LKJO22], chapter 17, k = 1) to
the top-k subspace. Of [DS25] only the abstract, the opening of the
introduction and the names of its algorithms (k-DP-PCA, a modified DP-PCA,
a top-eigenvalue estimate, a private mean estimate) could be read when this
module was written; its algorithm boxes, theorems and constants could not.
What is taken from it is the outline: k rounds, round j a DP-PCA run on
fresh rows of the data deflated by the components already found, each
minibatch gradient estimated by a private mean whose noise adapts to how
much the gradients of the minibatch differ from one another (so that the
noise vanishes when the matrices ``A_i = x_i x_iᵀ`` share their
expectation exactly), and a private estimate of the top eigenvalue that
sets the step size. Every concrete step below is this module's own.

**One step** (minibatch of ``B`` rows, unit iterate ``w``, projector
``P = I − U Uᵀ`` onto the complement of the components ``U`` found so far;
gradients ``g_i = x_i (x_iᵀ w)``):

1. *Centre.* ``r`` = a private quantile of ``‖g_i‖`` (permute-and-flip,
   ``streaming_step.PrivateRadius``, aiming at the tail-guarded target
   ``dppca.privacy.quantile_scores.tail_guarded_quantile``, which keeps
   the many empty candidates above the largest norm unlikely at small
   ``Bε``); ``c`` = the mean of the ``g_i`` clipped to ``r`` about the
   origin, plus Gaussian noise for its sensitivity ``2r/B``. This is one
   step of ``streaming`` (chapter 17), run with a quarter of the step's
   budget.
2. *Spread.* ``m`` = the private mode of ``‖g_i − c‖`` (``c`` is now
   public): the upper edge of the bin of the geometric grid
   ``spread_range`` holding the most distances, by permute-and-flip on the
   bin counts (``adaptive_kpca_calibration.PrivateSpread``); ``s = h m``,
   ``h = headroom`` (2). A mode, not a quantile: when the distances are
   concentrated (nearly equal ``x_i x_iᵀ``), a quantile's utilities are
   flat on every candidate above them, the mode's peak on their bin.
3. *Mean.* ``ĝ = c + (1/B) Σ_i clip_s(g_i − c) + N(0, σ² I)``,
   ``σ ∝ 2s/B``. The noise is proportional to the spread ``s``, which is
   of the order of the gradients' deviation from their mean plus the error
   of ``c`` (itself of order ``r √d/(B √ρ)``): when the rows' matrices
   ``x_i x_iᵀ`` are nearly equal, ``s`` and the noise are small whatever
   the size of the gradients.
4. *Update.* ``w ← P(w + η ĝ)/‖P(w + η ĝ)‖`` (``streaming_step.oja_update``,
   post-processing).

**The step size.** Each round starts with ``DEFAULT_WARMUP`` power steps
(``η = ∞``, as ``streaming``); the norm ``λ̂ = ‖P ĝ‖`` of the last of them
is a released value that estimates the round's top eigenvalue (that of
``P E[x xᵀ] P``), and the round continues with ``η_t = α/(γ λ̂ t)``,
``γ = gap_ratio``, a public assumption on the relative gap ``(λ_j −
λ_(j+1))/λ_j`` (scale-free: no bound on the data's units is needed), ``α``
by ``streaming_schedule.default_alpha``. An absolute ``eigengap`` may be
given instead (then the schedule is ``streaming``'s). Utility only.

**Privacy (replace-one neighbours: n fixed, one row replaced by any other).**
With ``ρ = dppca.privacy.zcdp_rho(ε, δ)`` split as ``shares`` (default
1/8 for ``r``, 1/8 for ``c``, 1/4 for ``s``, 1/2 for the mean):

* the quantile and the mode are pure ``√(2ρ_part)``-DP (integer utilities
  of sensitivity 1: counts below a candidate, counts in a bin; exact
  sampler), hence ``ρ_part``-zCDP;
* given the released ``r`` (or ``s`` and ``c``), the computed clipped mean
  moves by at most ``2r/B`` (``2s/B``) when one row is replaced: each
  clipped term has norm at most the radius and row ``i``'s term depends on
  ``x_i`` and public values only (``streaming_step.clipped_mean_of_gradients``
  absorbs the float64 error); Gaussian noise (safe: discrete, on the
  grid of ``streaming_step.mean_noise_scale``) makes each ``ρ_part``-zCDP;
* the four compose adaptively to ``ρ`` for the step; the minibatches are
  fixed by position and disjoint, every round uses its own rows, so the
  whole run is ``ρ``-zCDP (parallel composition, as in chapter 17), hence
  (ε, δ)-DP. Adding ``c`` and the Oja update are post-processing.

The constants are the package's own, checked numerically on extremal
neighbouring pairs (``tests/privacy/test_adaptive_kpca_privacy.py``), not
the paper's, which could not be read.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..float_state import owns_float_state
from ..privacy.guarantees import Release, noise_record, released, zcdp_release
from ..privacy.noise import (
    check_noise_kind,
)
from ..privacy.private_bounds import candidate_grid
from ..privacy.quantile_scores import check_quantile, tail_guarded_quantile
from ..validation import (
    as_generator,
    check_delta,
    check_epsilon,
    check_positive,
    check_positive_int,
)
from .adaptive_kpca_calibration import (
    DEFAULT_GAP_RATIO,
    DEFAULT_HEADROOM,
    DEFAULT_SHARES,
    TAIL_BETA,
    AdaptiveBudget,
    AdaptiveRun,
    AdaptiveStep,
    PrivateSpread,
    adaptive_budget,
    adaptive_step,
    centred_clipped_mean,
    check_headroom,
    check_ranges,
    check_shares,
    check_units,
    checked_rows,
    mode_utilities,
    spread_norms,
)
from .spec import MechanismSpec, select
from .streaming_schedule import (
    DEFAULT_WARMUP,
    default_alpha,
    oja_learning_rate,
    rate_table,
    streaming_plan,
)
from .streaming_step import (
    DEFAULT_CLIP_QUANTILE,
    DEFAULT_NORM_RANGE,
    DEFAULT_RADIUS_WINDOW,
    PrivateRadius,
    gradient_rows,
    oja_update,
)

#: The privacy the release provides, by entry point.
PRIVACY = {
    "adaptive_kpca": "(ε, δ)-DP for the whole run (δ spent once), any rows, "
    "replace-one: each row feeds one minibatch step, which is ρ-zCDP (a "
    "pure-DP private quantile and mode, and two clipped means of "
    "sensitivity 2r/B "
    "and 2s/B with Gaussian noise, composed); disjoint steps compose in "
    "parallel; chapter 19.",
}

THEOREM = (
    "[DS25] k-DP-PCA (outline: deflation, adaptive private mean, private "
    "top eigenvalue); the steps, the replace-one calibration and the "
    "parallel composition are the book's own"
)
CHAPTER = "chapter 19"
ROW_BOUND = "any rows (gradients clipped about a private centre)"


def adaptive_kpca_guarantee(
    epsilon, delta, *, noise: str = "safe", shares=DEFAULT_SHARES
) -> Release:
    """Guarantee record of an ``adaptive_kpca`` release: ρ-zCDP for the
    whole run, ρ = ``zcdp_rho(ε, δ)``, whatever ``n``, ``d``, ``k``, the
    batch size or the number of steps; replace-one; exact sampler (safe
    noise: proved for the program; float noise: for the mathematics
    only)."""
    budget = adaptive_budget(epsilon, delta, shares)
    return zcdp_release(
        "adaptive k-PCA (Düngler-Sanyal)"
        + (" (safe noise)" if noise == "safe" else ""),
        budget.rho,
        epsilon,
        delta,
        **noise_record(check_noise_kind(noise)),
        row_bound=ROW_BOUND,
        theorem=THEOREM,
        chapter=CHAPTER,
    )


@owns_float_state
def adaptive_kpca(
    X,
    k: int,
    *,
    epsilon: float,
    delta: float,
    gap_ratio: float = DEFAULT_GAP_RATIO,
    eigengap=None,
    batch_size: int | None = None,
    n_steps: int | None = None,
    clip_quantile: float = DEFAULT_CLIP_QUANTILE,
    headroom: float = DEFAULT_HEADROOM,
    norm_range: tuple[float, float] = DEFAULT_NORM_RANGE,
    spread_range: tuple[float, float] = DEFAULT_NORM_RANGE,
    radius_window: float = DEFAULT_RADIUS_WINDOW,
    shares=DEFAULT_SHARES,
    rng=None,
    noise: str = "safe",
    diagnostics: bool = False,
):
    """Private top-k subspace by deflated private Oja steps with adaptive
    noise [DS25] (module docstring); (ε, δ)-DP for replace-one neighbours,
    any rows.

    Parameters
    ----------
    X : array (n, d) or scipy.sparse matrix
        The rows; no bound is needed (each gradient is clipped about a
        private centre). Each row feeds at most one step.
    k : int
        Number of components, ``1 <= k < d``; each round uses its own rows.
    epsilon, delta : float
        The privacy of the whole run.
    gap_ratio : float
        Public assumption on ``(λ_j − λ_(j+1))/λ_j``, in (0, 1]; with the
        private eigenvalue estimate it sets the step size (utility only).
    eigengap : float, optional
        An absolute gap instead (``streaming``'s schedule); overrides
        ``gap_ratio``.
    batch_size, n_steps : int, optional
        Rows per minibatch and minibatches per round
        (``streaming_schedule.streaming_plan``).
    clip_quantile : float
        Quantile of ``‖g_i‖`` aimed at by the centre's radius (0.75,
        tail-guarded).
    headroom : float
        The spread radius is the private mode of ``‖g_i − c‖`` times this
        (2, at least 1).
    norm_range, spread_range : (float, float)
        Public ranges of the two radii's candidates.
    radius_window : float
        After a round's first step, candidates within this factor of the
        previous released radius (16).
    shares : four floats
        Split of each step's ρ (radius, centre, spread, mean).
    rng : numpy.random.Generator, int or None
        Randomness.
    noise : {"safe", "float"}
        Exact discrete Gaussian on a grid (default, private as a program) or
        numpy's Gaussian (private as mathematics only; warns).
    diagnostics : bool
        Return an ``AdaptiveRun`` (not for publication).

    Returns
    -------
    Released (d, k) or AdaptiveRun
        Orthonormal columns, the j-th found in round j; the record of
        ``adaptive_kpca_guarantee``.
    """
    k = check_positive_int(k, "k")
    noise = check_noise_kind(noise)
    budget = adaptive_budget(epsilon, delta, shares)
    gap_ratio = check_positive(gap_ratio, "gap_ratio")
    if not gap_ratio <= 1.0:
        raise ValueError(f"gap_ratio must lie in (0, 1]; got {gap_ratio!r}")
    if eigengap is not None:
        oja_learning_rate(eigengap)  # checked
    check_quantile(clip_quantile)
    headroom = check_headroom(headroom)
    check_ranges(norm_range, spread_range, radius_window)
    X = checked_rows(X)
    n, d = X.shape
    if k > d - 1:
        raise ValueError(f"k must be < d = {d}; got k = {k}")
    plan = streaming_plan(n, k, batch_size=batch_size, n_steps=n_steps)
    if noise == "safe":
        check_units(d, budget)
    rng = as_generator(rng)
    T, B = plan.n_steps, plan.batch_size
    warmup = min(DEFAULT_WARMUP, T - 1)
    alpha = default_alpha(d, max(T - warmup, 1))
    basis = np.zeros((d, 0))
    run = AdaptiveRun(None, plan, budget)
    row = 0
    # tail-guarded targets (public: B, the parts' ε and the grid sizes)
    q_r = tail_guarded_quantile(
        clip_quantile,
        B,
        budget.epsilon_radius,
        candidate_grid(*norm_range).size,
        TAIL_BETA,
    )
    for j in range(k):
        state = {
            "radius": PrivateRadius(
                q_r, budget.epsilon_radius, norm_range, radius_window
            ),
            "spread": PrivateSpread(
                budget.epsilon_spread, spread_range, radius_window, headroom
            ),
            "r": None,
            "s": None,
        }
        w = oja_update(rng.standard_normal(d), np.zeros(d), 0.0, basis)
        rate: Callable | None = None
        if eigengap is not None:
            rate = rate_table(
                oja_learning_rate(eigengap, alpha, warmup=warmup), T
            )
        for t in range(1, T + 1):
            batch = X[row : row + B]
            G = gradient_rows(batch, w)
            gradient, facts = adaptive_step(G, state, budget, noise, rng)
            if rate is not None:
                eta = rate(t)
            elif t <= warmup or not warmup:
                eta = math.inf  # power steps (all of them when T = 1)
            else:
                eta = alpha / (gap_ratio * run.eigenvalues[j] * (t - warmup))
            if diagnostics:
                run.steps.append(
                    AdaptiveStep(j, t, row, eta=eta, gradient=gradient, **facts)
                )
            if t == warmup and rate is None:
                projected = gradient - basis @ (basis.T @ gradient)
                run.eigenvalues.append(
                    max(float(np.linalg.norm(projected)), 1e-300)
                )
            w = oja_update(w, gradient, eta, basis)
            row += B
        w = oja_update(w, np.zeros(d), 0.0, basis)  # re-orthogonalise
        basis = np.column_stack([basis, w])
    run.V = basis
    if diagnostics:
        return run
    return released(
        basis,
        adaptive_kpca_guarantee(epsilon, delta, noise=noise, shares=shares),
    )


def adaptive_kpca_error_rate(n, d, k, epsilon, delta, kappa=1.0):
    """The shape of the utility bound, as the book states it for a
    deflation of k DP-PCA rounds on n/k rows each (up to constants and
    logarithms)::

        ‖sin Θ‖_F ≲ κ √k (√(d k/n) + d k √(log(1/δ)) / (ε n)),

    each round's error that of DP-PCA (chapter 17) on ``n/k`` rows, the k
    rounds added in Frobenius norm. The paper's theorem could not be read:
    this is the book's form (statistical term ``n^{-1/2}``, privacy term
    ``n^{-1}``), against which the chapter fits the exponent in ``n``.
    Vectorised in ``n``."""
    n = np.asarray(n, dtype=float)
    eps, dl = check_epsilon(epsilon), check_delta(delta)
    out = (
        float(kappa)
        * math.sqrt(k)
        * (np.sqrt(d * k / n) + d * k * math.sqrt(math.log(1 / dl)) / (eps * n))
    )
    return out[()] if out.ndim == 0 else out


# ------------------------------------------------------------------------------
# The declaration
# ------------------------------------------------------------------------------


def _run_rows(Z, n, k, epsilon, delta, rng, options):
    V = adaptive_kpca(Z, k, epsilon=epsilon, delta=delta, rng=rng, **options)
    return np.asarray(V), None, None


def _check_options(options, n, d, k, epsilon) -> dict:
    """The ``mechanism_options`` checked from public values before any
    charge. The estimator's rows lie in the unit ball, so every gradient
    has norm at most one and every deviation ``g_i − c`` (``c`` a noisy
    mean of clipped gradients) is searched below two."""
    options = dict(options)
    options.setdefault("norm_range", (DEFAULT_NORM_RANGE[0], 1.0))
    options.setdefault("spread_range", (DEFAULT_NORM_RANGE[0], 2.0))
    streaming_plan(
        n,
        k,
        batch_size=options.get("batch_size"),
        n_steps=options.get("n_steps"),
    )
    if options.get("clip_quantile") is not None:
        check_quantile(options["clip_quantile"])
    check_headroom(options.get("headroom", DEFAULT_HEADROOM))
    check_ranges(
        options["norm_range"],
        options["spread_range"],
        options.get("radius_window", DEFAULT_RADIUS_WINDOW),
    )
    ratio = check_positive(
        options.get("gap_ratio", DEFAULT_GAP_RATIO), "gap_ratio"
    )
    if not ratio <= 1.0:
        raise ValueError(f"gap_ratio must lie in (0, 1]; got {ratio!r}")
    if options.get("eigengap") is not None:
        oja_learning_rate(options["eigengap"])
    check_shares(options.get("shares", DEFAULT_SHARES))
    return options


def _guarantee(n, d, k, epsilon, delta, options):
    record = adaptive_kpca_guarantee(
        epsilon, delta, **select(options, "noise", "shares")
    )
    if check_noise_kind(options.get("noise", "safe")) == "safe":
        check_units(
            d,
            adaptive_budget(
                epsilon, delta, options.get("shares", DEFAULT_SHARES)
            ),
        )
    return record


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="adaptive_kpca",
        label="adaptive k-PCA (Düngler-Sanyal)",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run_rows=_run_rows,
        guarantee=_guarantee,
        privacy=PRIVACY["adaptive_kpca"],
        check_options=_check_options,
        options_of=adaptive_kpca,
        additive_noise=True,
        guide_rank=72,
        proof="yes (one pass; the book's calibration)",
    ),
)


__all__ = [
    "SPECS",
    "PRIVACY",
    "AdaptiveBudget",
    "AdaptiveRun",
    "AdaptiveStep",
    "DEFAULT_GAP_RATIO",
    "DEFAULT_SHARES",
    "DEFAULT_HEADROOM",
    "PrivateSpread",
    "check_headroom",
    "mode_utilities",
    "adaptive_budget",
    "adaptive_kpca",
    "adaptive_kpca_error_rate",
    "adaptive_kpca_guarantee",
    "adaptive_step",
    "check_shares",
    "centred_clipped_mean",
    "spread_norms",
]
