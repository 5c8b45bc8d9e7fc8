"""The pass of streaming DP-PCA (:mod:`dppca.mechanisms.streaming`): the
components one after another, each a run of Oja steps on minibatches of its
own rows, private or not, and on request the record of every step (not for
publication).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..float_state import owns_float_state
from ..linalg import rows
from ..privacy.noise import _add_gaussian
from ..validation import as_generator
from .streaming_rows import _input_stream, _RowBuffer
from .streaming_schedule import (
    StepBudget,
    StreamingPlan,
    rate_table,
    streaming_plan,
)
from .streaming_step import (
    PrivateRadius,
    _clipped_mean,
    _row_sum_in_state,
    gradient_rows,
    mean_noise_scale,
    oja_update,
)


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


def _scratch(batch, scratch):
    """An array for the gradients of a dense float64 ``batch`` (``scratch``
    itself when it has the batch's shape: one array for every step of a
    pass instead of a fresh one per step), or ``None`` for any other batch
    (sparse gradients are made as sparse as the rows; nothing dense is
    allocated). The gradients live until the step's noisy mean is drawn,
    never longer."""
    if not (isinstance(batch, np.ndarray) and batch.dtype == np.float64):
        return None
    if scratch is None or scratch.shape != batch.shape:
        return np.empty(batch.shape)
    return scratch


@owns_float_state
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
        private_radius = PrivateRadius(
            clip_quantile, budget.epsilon_range, norm_range, radius_window
        )
    previous = None
    buffer = _RowBuffer(blocks)
    d = buffer.peek_dimension()
    if k > d - 1:
        raise ValueError(f"k must be < d = {d}; got k = {k}")
    # every step's rate, evaluated and checked before a row is read, once
    # per schedule (a caller's callable serves every component)
    tables, rates = {}, []
    for schedule in schedules(d, plan.n_steps):
        if id(schedule) not in tables:
            tables[id(schedule)] = rate_table(schedule, plan.n_steps).values
        rates.append(tables[id(schedule)])
    rng = as_generator(rng)
    # the pass runs under the package's float state (entered once, above):
    # the steps call the helpers without their own wrappers, which cost
    # about 20 µs each to enter, five times a step
    row_sum = _row_sum_in_state()
    scratch = None  # the dense steps' gradients (_scratch)
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
                scratch = _scratch(batch, scratch)
                G = gradient_rows(batch, w, scratch)  # once: norms and mean
                radius = private_radius.draw(rows._row_norms(G), previous, rng)
                previous = radius
                clipped = _clipped_mean(G, radius, row_sum)
                sigma, grid = mean_noise_scale(
                    radius, m, d, budget.rho_mean, noise
                )
                gradient = _add_gaussian(
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
            eta = rates[j][t - 1]
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


__all__ = [
    "StepRecord",
    "StreamingRun",
]
