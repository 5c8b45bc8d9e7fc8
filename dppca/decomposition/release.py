"""The steps of a :class:`dppca.PrivatePCA` fit that spend the budget and
read the rows, in order: charge the accountant as the plan says
(``_charge``), release the private bounds (``_private_bound``) and the
private mean, centre and bound the rows into the mechanism's input
(``_centred_rows``), run the mechanism (``_run``).

Each step is handed the :class:`~dppca.decomposition.plan.ReleasePlan`
and what the steps before it returned, and returns what it made; nothing
is written on the estimator. They are apart from the plan, which reads no
row and draws no noise, and from the estimator
(:mod:`dppca.decomposition.pca`), which turns what they return into its
fitted attributes.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import NamedTuple

import numpy as np

from .. import forecast
from ..base import _generator
from ..exceptions import (
    BudgetExceededError,
    NotPrivateWarning,
    UnprovedGuaranteeWarning,
    silenced,
    warn,
)
from ..fit_guard import caller_stacklevel
from ..linalg import clipped_sums, rows
from ..privacy import noise, private_bounds
from .parameters import (
    bound_range_of,
    centered_norm,
    private_centre,
    public_centre,
)
from .persons import padded
from .plan import _mean_plan, _planned, bound_parts

#: Candidates per doubling of the grid of a private bound of a fit (denser
#: than the function's default: ``ln G`` grows little, and the 95% quantile
#: of few norms falls between coarse candidates).
POINTS_PER_OCTAVE = 8

#: β of :func:`dppca.privacy.quantile_scores.tail_guarded_quantile` for a fit's
#: private bounds.
TAIL_GUARD = 0.05


def grid_points(lower: float, upper: float) -> int:
    """:data:`POINTS_PER_OCTAVE` candidates per doubling (at most 10,000)."""
    octaves = math.log2(upper) - math.log2(lower)
    points = math.ceil(POINTS_PER_OCTAVE * octaves) + 1
    return int(min(max(points, 2), private_bounds.MAX_GRID_POINTS))


def _charge(est, plan, X, units=None, relation=None):
    """:func:`_charge_steps` while holding the accountant (if any), so that
    no other thread charges between its dry run and its last charge."""
    if est.accountant is None:
        return _charge_steps(est, plan, X, units, relation)
    with est.accountant.exclusive():
        return _charge_steps(est, plan, X, units, relation)


def _charge_steps(est, plan, X, units=None, relation=None):
    """Charge the accountant as the plan says, releasing the private row
    bound in between: ``(rng, releases, bound, mean_plan, clipped)``, with
    ``clipped`` the private count of the rows the released bound clips.

    The private bounds are charged first: their records are known before
    the data is read; the mean and the mechanism are charged after (their
    noise depends on the released bound), before any of their noise is
    drawn. The fit's generator is made once a charge has passed: a refused
    fit leaves the caller's generator as it was. ``units`` is the number of
    units of privacy (the persons of a fit with ``groups``; default the
    rows), the ``n`` the private mean is calibrated to, and ``relation``
    their neighbouring relation, written into the private mean's record
    (default: the record's own, replace-one)."""
    n, d = X.shape
    n = n if units is None else units
    # a released data_norm is charged first (the mean's noise depends on
    # it); a released centred bound only with the mean and the mechanism
    early = "data_norm" in plan.bound_names
    if early:
        # the mean's noise scales with the released bound: planned now at
        # both ends of the candidates, so that no bound the release can
        # take is refused after the charge (a σ beyond float64's range)
        for end in est.bound_range:
            _mean_plan(est, plan, n, d, float(end))
    if early and est.accountant is not None:
        # a dry run of the whole fit first, its mean planned at the top of
        # bound_range (the records' ε do not depend on it)
        top = (
            float(est.bound_range[1]) if plan.bound == "private" else plan.bound
        )
        whole = list(plan.bound_records) + _planned(est, plan, n, d, top)
        if not est.accountant.can_afford(whole):
            raise BudgetExceededError(
                f"{type(est).__name__} would spend the budget "
                f"(ε = {est.accountant.epsilon:g}, δ = "
                f"{est.accountant.delta:g}); nothing was charged or drawn"
            )
        est.accountant.charge(list(plan.bound_records), label="private bounds")
    rng = _generator(est.random_state) if early else None
    releases, bound, clipped = [], plan.bound, {}
    if early:
        released = _private_bound(est, X, plan.bound_epsilon, rng, bound)
        bound, clipped["data_norm"] = released.bound, released.clipped
        releases += [released.guarantee, released.count_guarantee]
    mean_plan = _mean_plan(est, plan, n, d, bound)
    if mean_plan is not None and relation is not None:
        record = dataclasses.replace(mean_plan[3], neighbours=relation)
        mean_plan = (*mean_plan[:3], record)
    planned = [] if early else list(plan.bound_records)
    planned += [mean_plan[3]] if mean_plan else []
    if est.accountant is not None:
        # raises before any noise is drawn if the budget would be exceeded
        est.accountant.charge(planned + [plan.record], label=type(est).__name__)
    if rng is None:
        rng = _generator(est.random_state)
    return rng, releases, bound, mean_plan, clipped


def _private_bound(est, X, epsilon, rng, pre_clip, mean=None):
    """Release a bound (a quantile of the norms, or of the centred norms
    about ``mean``) and a count of the rows above it, with pure ε in all
    (split by :func:`dppca.decomposition.plan.bound_parts`): reads the rows.
    Returns the release, count included; warns when the bound sits at an
    end of its range or the count says many rows are clipped."""
    name = "data_norm" if mean is None else "centered_norm"
    lower, upper = bound_range_of(est, name, pre_clip)
    quantile_eps, count_eps = bound_parts(epsilon)
    common = dict(
        lower=lower,
        upper=upper,
        grid_points=grid_points(lower, upper),
        rng=rng,
        tail_guard=TAIL_GUARD,
        count_epsilon=count_eps,
    )
    q = est.bound_quantile
    if mean is None:
        out = private_bounds.norm_quantile(X, q, quantile_eps, **common)
    else:
        out = private_bounds.centred_norm_quantile(
            X, mean, q, quantile_eps, pre_clip=pre_clip, **common
        )
    _warn_bound(name, out, X.shape[0], lower, upper)
    return out


def _warn_bound(name, out, n, lower, upper):
    """UtilityWarnings about a released bound (post-processing)."""
    where = {0: "bottom", out.grid.size - 1: "top"}.get(out.index)
    if where is not None:
        warn(
            f"the private {name} ({out.bound:.4g}) is the {where} of its "
            f"range ({lower:.4g}, {upper:.4g}): the range may not contain "
            "the quantile, or n·epsilon is too small to find it",
            forecast.UtilityWarning,
            stacklevel=caller_stacklevel(),
        )
    if out.clipped > 0.5 * n:
        warn(
            f"the private (noisy) count of rows clipped at {name} = "
            f"{out.bound:.4g} is {min(out.clipped, n)} of {n}",
            forecast.UtilityWarning,
            stacklevel=caller_stacklevel(),
        )


def _private_mean(est, total, n, bound, plan, rng):
    """Noisy mean of the clipped rows (sum ``total``), drawn as ``plan``
    says, projected onto the ball of radius ``bound``."""
    law, scale, grid, _ = plan
    add = noise.add_laplace if law == "laplace" else noise.add_gaussian
    noisy = add(total / n, scale, noise=est.noise, rng=rng, granularity=grid)
    return rows.project_to_ball(noisy, bound)


class CentredRows(NamedTuple):
    """What centring the rows made, besides the mechanism's input: the row
    bound's text for the mechanism's record, the releases made (private
    mean, private centred bound), the centre, the bound of the centred
    rows and the private count of the rows that bound clips."""

    text: str
    releases: list
    mean: np.ndarray
    row_bound: float
    clipped: dict
    #: The shrink ``s`` of the computed second moment (``None`` for a
    #: mechanism that reads rows): passed to a mechanism that
    #: ``takes_input_shrink``.
    input_shrink: float | None = None


def _centred_rows(est, plan, X, bound, mean_plan, rng, persons=None):
    """The mechanism's input: ``A`` (or, for a mechanism that reads rows,
    the rows in the unit ball), centred as ``center`` says. Returns
    ``(input, CentredRows)``; a centred bound is released exactly when the
    plan budgeted one (``plan.bound_names``).

    With ``persons`` (a fit with ``groups``; ``X`` holds the kept rows
    only), every sum is over the data set padded to ``N·m`` rows
    (:mod:`dppca.decomposition.persons`): zero rows for the private mean's
    sum, rows equal to the centre for the second moment (zero once
    centred), so ``A`` is ``(1/N) Σ_p A_p`` and the mean is the mean over
    persons of ``(1/m) Σ x``."""
    wants_rows = plan.spec.run_rows is not None
    made = (
        rows.unit_ball_rows
        if wants_rows
        else clipped_sums.clipped_second_moment
    )
    if plan.max_samples is not None:
        # add/remove: the zero-padded second moment S/N, its float error
        # absorbed for the public cap N (module .add_remove, step 4)
        made = functools.partial(made, max_samples=plan.max_samples)
    if persons is None:

        def pad(rows_, centre=None):
            return rows_

        n_sum = X.shape[0]
    else:

        def pad(rows_, centre=None):
            return padded(rows_, persons.padded_rows, centre)

        n_sum = persons.padded_rows
    releases, clipped = [], {}
    d = X.shape[1]
    if not isinstance(est.center, (bool, np.bool_)):
        centre = public_centre(est, d)
        data = made(pad(X, centre), bound, centre=centre, clip=est.clip)
        mean, row_bound = centre.copy(), bound
        text = f"‖x_i − c‖₂ ≤ {bound:.6g}, c public"
    elif private_centre(est):
        total = clipped_sums.clipped_row_sum(pad(X), bound, clip=est.clip)
        mean = _private_mean(est, total.total, n_sum, bound, mean_plan, rng)
        releases.append(mean_plan[3])
        row_bound, clip_centred = centered_norm(
            est, bound, mean, plan.centered_norm
        )
        if "centered_norm" in plan.bound_names:
            released = _private_bound(
                est, X, plan.bound_epsilon, rng, bound, mean
            )
            row_bound = released.bound
            clipped["centered_norm"] = released.clipped
            releases += [released.guarantee, released.count_guarantee]
        data = made(
            pad(X, mean),
            row_bound,
            centre=mean,
            clip=est.clip if clip_centred else True,
            pre_clip=bound,
        )
        text = f"‖x_i‖₂ ≤ {bound:.6g}, then ‖x_i − μ̂‖₂ ≤ {row_bound:.6g}"
    else:
        data = made(pad(X), bound, clip=est.clip)
        mean, row_bound = np.zeros(d), bound
        text = f"‖x_i‖₂ ≤ {bound:.6g}"
    shrink = None
    if not wants_rows:
        data, shrink = data.matrix, data.shrink
    text += " (clipped)" if est.clip else " (refused above)"
    return data, CentredRows(text, releases, mean, row_bound, clipped, shrink)


def _private_count(plan, n, rng):
    """The private count of rows of an add/remove fit that releases
    eigenvalues, and its record: ``(count, [record])``; ``(None, [])``
    otherwise (module .add_remove, step 3)."""
    if plan.count_epsilon is None:
        return None, []
    (record,) = plan.bound_records
    count, drawn = private_bounds.private_row_count(
        int(n), plan.count_epsilon, rng, record.neighbours
    )
    return count, [drawn]


def with_input_shrink(plan, shrink):
    """The plan with the computed second moment's shrink among its options
    (``input_shrink``), for a mechanism that ``takes_input_shrink``; the
    plan as it is otherwise (or for rows: ``shrink`` None)."""
    if not plan.spec.takes_input_shrink or shrink is None:
        return plan
    options = {**plan.options, "input_shrink": shrink}
    return dataclasses.replace(plan, options=options)


def _run(plan, data, n, d, rng):
    """Run the plan's mechanism on its input: ``(V, eigenvalues, total)``;
    ``n`` is the public cap under add/remove neighbours."""
    if plan.max_samples is not None:
        n = plan.max_samples
    spec, k = plan.spec, plan.k
    # The estimator has already warned, in its own words, about the
    # conditions the mechanism functions warn about (release_plan); silenced
    # for this thread only, so another thread's fit still warns.
    with silenced(NotPrivateWarning, UnprovedGuaranteeWarning):
        k_run = d if isinstance(k, float) else k
        run = spec.run_rows if spec.run_rows is not None else spec.run
        args = (n, k_run, plan.epsilon, plan.delta, rng, plan.options)
        return run(data, *args)


__all__ = [
    "POINTS_PER_OCTAVE",
    "TAIL_GUARD",
    "CentredRows",
    "grid_points",
]
