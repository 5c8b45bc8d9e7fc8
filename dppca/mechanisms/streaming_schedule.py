"""The public side of streaming DP-PCA (:mod:`dppca.mechanisms.streaming`):
which rows feed which step, the budget of a step and Oja's learning rate.
Each is a function of public parameters only (``n``, ``d``, ``k``, ε, δ and
the options), fixed before a row is read.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..privacy.zcdp import zcdp_rho
from ..validation import check_delta, check_epsilon, check_n

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

#: Share of each step's ρ spent on the clipping radius.
DEFAULT_RANGE_SHARE = 0.5


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
    This rule is the book's (:mod:`dppca.mechanisms.streaming`).
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


@dataclass(frozen=True)
class RateTable:
    """A learning rate evaluated once, before any charge: ``rate(t)`` is
    ``values[t - 1]`` for the steps ``t = 1, ..., len(values)`` of the
    public schedule. A caller's callable is read once into a table, so the
    pass uses exactly the values that were checked (a callable that
    answers differently on a second call cannot fail after the charge)."""

    values: tuple

    def __call__(self, t: int) -> float:
        return self.values[int(t) - 1]


def step_rate(rate, t: int) -> float:
    """``float(rate(t))``, refused unless a number > 0 (``inf`` is a power
    step, as the default schedule's first steps); an exception raised by
    the caller's callable becomes a ``ValueError`` naming the step."""
    try:
        eta = float(rate(t))
    except Exception as error:  # the caller's code, on a public t only
        raise ValueError(
            f"learning_rate({t}) raised {type(error).__name__}: {error}"
        ) from error
    if not eta > 0:  # refuses nan, zero and negative rates
        raise ValueError(
            f"learning_rate({t}) = {eta!r}: every step's rate must be a "
            "number > 0 (inf for a power step)"
        )
    return eta


def rate_table(rate, n_steps: int) -> RateTable:
    """The rates of the steps ``1, ..., n_steps``, each checked by
    :func:`step_rate`, as a :class:`RateTable`."""
    return RateTable(tuple(step_rate(rate, t) for t in range(1, n_steps + 1)))


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


__all__ = [
    "RateTable",
    "rate_table",
    "step_rate",
    "CONTRACTION_TARGET",
    "DEFAULT_OFFSET",
    "DEFAULT_RANGE_SHARE",
    "DEFAULT_STEPS",
    "DEFAULT_WARMUP",
    "MAX_ALPHA",
    "MIN_ALPHA",
    "MIN_BATCH",
    "StepBudget",
    "StreamingPlan",
    "default_alpha",
    "oja_learning_rate",
    "step_budget",
    "streaming_plan",
]
