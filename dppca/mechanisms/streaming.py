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

The family's other modules: ``streaming_schedule`` (the plan, the budget
and the learning rate), ``streaming_step`` (one step), ``streaming_rows``
(the rows of a stream) and ``streaming_pass`` (the pass over them).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ..float_state import owns_float_state
from ..linalg import float_error
from ..privacy.guarantees import Release, noise_record, released, zcdp_release
from ..privacy.noise import MAX_GAUSSIAN_GRID_SIGMA, check_noise_kind
from ..privacy.quantile_scores import check_quantile
from ..validation import check_delta, check_epsilon, check_positive
from .spec import MechanismSpec, select
from .streaming_pass import StreamingRun, _run
from .streaming_rows import _is_dask
from .streaming_schedule import (
    DEFAULT_RANGE_SHARE,
    _positive_int,
    _schedules,
    rate_table,
    step_budget,
    streaming_plan,
)
from .streaming_step import (
    DEFAULT_CLIP_QUANTILE,
    DEFAULT_NORM_RANGE,
    DEFAULT_RADIUS_WINDOW,
    mean_noise_units_bound,
    radius_candidates_range,
)

#: The privacy the mechanism provides, as derived and checked in chapter 17.
PRIVACY = {
    "dp_pca_oja": "(ε, δ)-DP for the whole pass (δ spent once), any rows, "
    "replace-one: each row feeds one minibatch step, which is ρ-zCDP (a "
    "pure-DP private quantile of the gradient norms, then the clipped mean "
    "of sensitivity 2r/B with Gaussian noise); disjoint steps compose in "
    "parallel; chapter 17.",
}

THEOREM = (
    "[LKJO22] private Oja (k = 1), [DS25] deflation (k > 1); the replace-one "
    "calibration and the parallel composition are the book's own"
)
CHAPTER = "chapter 17"
ROW_BOUND = "any rows (gradients clipped to a private quantile of their norms)"


# ------------------------------------------------------------------------------
# The mechanism
# ------------------------------------------------------------------------------


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


@owns_float_state
def dp_pca_oja(
    X,
    k: int,
    *,
    epsilon: float,
    delta: float,
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


@owns_float_state
def dp_pca_oja_dask(X, k: int, *, epsilon: float, delta: float, **options):
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
    return dp_pca_oja(X, k, epsilon=epsilon, delta=delta, **options)


@owns_float_state
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
    V = dp_pca_oja(Z, k, epsilon=epsilon, delta=delta, rng=rng, **options)
    return np.asarray(V), None, None


def _check_options(options, n, d, k, epsilon) -> dict:
    """The ``mechanism_options`` checked from public values, before any
    budget is charged or noise drawn. The step size needs a public gap
    assumption. The rows it sees lie in the unit ball, so every gradient
    ``x (xᵀW)`` has norm at most one: the radius is searched below it. A
    ``learning_rate`` callable is replaced by the table of its values
    (:class:`~dppca.mechanisms.streaming_schedule.RateTable`), read once."""
    options = dict(options)
    if not {"eigengap", "learning_rate"} & set(options):
        raise ValueError(
            'mechanism="streaming" needs a public assumption on the eigengap '
            "of the scaled rows' second moment, which sets Oja's step size: "
            'pass mechanism_options={"eigengap": g} (or a "learning_rate" '
            "callable); see dppca.mechanisms.streaming.dp_pca_oja"
        )
    options.setdefault("norm_range", (DEFAULT_NORM_RANGE[0], 1.0))
    plan = streaming_plan(
        n,
        k,
        batch_size=options.get("batch_size"),
        n_steps=options.get("n_steps"),
    )
    if options.get("clip_quantile") is not None:
        check_quantile(options["clip_quantile"])
    lo, hi = radius_candidates_range(
        None,
        options["norm_range"],
        options.get("radius_window", DEFAULT_RADIUS_WINDOW),
    )
    # every candidate radius is a clipping bound: the float64 error bounds of
    # the clipped sums are verified on [MIN_BOUND, MAX_MAGNITUDE] only, and a
    # radius released outside it made the pass fail after the charge, on
    # some data sets and not others (red team, round 12)
    if not (float_error.MIN_BOUND <= lo and hi <= float_error.MAX_MAGNITUDE):
        raise ValueError(
            f"norm_range must lie within [{float_error.MIN_BOUND:g}, "
            f"{float_error.MAX_MAGNITUDE:g}], where the clipped sums' float64 "
            f"error bounds are verified; got {options['norm_range']!r}"
        )
    if options.get("eigengap") is not None:
        gap = check_positive(options["eigengap"], "eigengap")
        if not math.isfinite(gap):
            raise ValueError("eigengap must be finite")
    rate = options.get("learning_rate")
    if rate is not None and not callable(rate):
        raise ValueError("learning_rate must be a callable")
    if rate is not None:
        # evaluated once, here, before the charge: the pass reads this table
        options["learning_rate"] = rate_table(rate, plan.n_steps)
    return options


def _guarantee(n, d, k, epsilon, delta, options):
    record = dp_pca_guarantee(
        epsilon, delta, **select(options, "noise", "range_share")
    )
    if check_noise_kind(options.get("noise", "safe")) == "safe":
        # a step's noise in grid units depends on d and ρ_m, and on the
        # radius and batch size only through the grid's power of two: its
        # bound over all of them is checked before any charge
        budget = step_budget(
            epsilon, delta, options.get("range_share", DEFAULT_RANGE_SHARE)
        )
        units = mean_noise_units_bound(d, budget.rho_mean)
        if not units < MAX_GAUSSIAN_GRID_SIGMA * (1.0 - 2.0**-30):
            need = f"up to {units:.3g}" if units < math.inf else "over 2**26"
            raise ValueError(
                "the budget is too small for safe noise: a DP-PCA step could "
                f"need {need} grid units of noise (d = {d}), "
                "beyond the exact sampler's 2**26; refused before any draw "
                "(and, in an estimator, before any charge)"
            )
    return record


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
        guide_rank=70,
        proof="yes (one pass; the book's calibration after Liu et al. 2022)",
        example_options={"eigengap": 0.05},
    ),
)


__all__ = [
    "SPECS",
    "PRIVACY",
    "dp_pca_error_rate",
    "dp_pca_guarantee",
    "dp_pca_oja",
    "dp_pca_oja_dask",
    "streaming_oja",
]
