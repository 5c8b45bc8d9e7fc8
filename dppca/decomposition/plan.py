"""A fit's release plan, computed from public parameters only.

:func:`release_plan` reads the parameters of a :class:`dppca.PrivatePCA`
and the shape of its data (``n`` and ``d`` are public under replace-one
neighbours), never a row. It checks every public parameter (with the
checks of :mod:`dppca.decomposition.parameters`), warns about every one
the fit will not use, and plans the fit's releases in order:

0. the "auto" choices: the mechanism and ``center_share`` with the best
   forecast (:mod:`dppca.forecast`), and whether ``centered_norm="auto"``
   releases a bound (:func:`~dppca.forecast.resolved_centered_norm`), all
   from public quantities;
1. the private bounds (``data_norm="private"``, ``centered_norm="private"``
   or ``"auto"``): a share ``bound_share`` of ε, split evenly, each a
   permute-and-flip quantile (:mod:`dppca.privacy.private_bounds`) with a
   fifth of its ε for a private count of the rows it clips;
2. the private mean (``center=True``): a share ``center_share`` of the
   total ε, Laplace noise when the mechanism is pure, analytic (or discrete)
   Gaussian noise otherwise, calibrated by ``private_mean_plan`` once
   the row bound is known (it may be a released one);
3. the mechanism: the rest, with its guarantee record built by its own
   module.

A fit refuses here, from public parameters, before any charge; once the
plan is made, the accountant is charged where the estimator says
(:mod:`dppca.decomposition.release`; :func:`planned_records` is the dry
run of those charges), and a charged fit reads the rows and returns a
release. Two refusals can still come after a charge: ``clip=False`` with
a row above a public bound (a property of the data, outside the
neighbouring relation's domain), and a
safe Gaussian noise whose σ exceeds the exact sampler's range (about 2²⁶
grid units) because ε and δ are both extremely small (e.g. ε = 1e-10 with
δ = 1e-15); both depend on nothing a neighbour could change. The plan is a
value: nothing here writes on the estimator, and the fit's later steps read
their decisions from the :class:`ReleasePlan` (a decision kept on the
estimator could be changed by another thread's fit of the same object
between two steps).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from .. import forecast
from ..exceptions import (
    NotPrivateWarning,
    UnprovedGuaranteeWarning,
    warn,
)
from ..fit_guard import caller_stacklevel
from ..forecast import resolved_centered_norm
from ..linalg import float_error
from ..mechanisms.registry import MechanismSpec, resolve
from ..privacy import noise, private_bounds
from ..privacy.calibration import analytic_gaussian_sigma
from ..privacy.guarantees import FLOAT_NOISE_CAVEAT, Release
from ..privacy.mean_plan import private_mean_plan
from ..validation import (
    check_accountant,
    check_epsilon,
    check_random_state,
)
from .add_remove import (
    add_remove_neighbours,
    check_add_remove,
    check_add_remove_mechanism,
    check_cap_shrink,
    count_epsilon,
    count_needed,
    count_record,
    is_add_remove,
    stated_epsilon,
    with_epsilon,
)
from .parameters import (
    NotionNotStatedError,
    _bound_budget,
    _check_bound_range,
    _check_centered_norm,
    _check_public,
    _check_scales,
    _check_share,
    _private_bound_names,
    _refuse_bool,
    _split,
    _warn_ignored,
    check_bound_share,
    check_n_components,
    check_spectrum,
    notion_delta,
    opted_in,
    private_centre,
    unproved_opt_ins,
    with_delta,
)
from .ranges import range_stand_in

#: The labels of the private bounds' records.
BOUND_LABELS = {
    "data_norm": "private norm quantile (permute-and-flip)",
    "centered_norm": "private centred norm quantile (permute-and-flip)",
}

#: Share of each private bound's ε spent on the private count of the rows it
#: clips (:func:`dppca.privacy.private_bounds.clipped_count`).
COUNT_SHARE = 0.2


@dataclass(frozen=True)
class ReleasePlan:
    """What a fit will release, and with which budget, before any row is
    read: the mechanism (``name``, ``spec``), the public bound (or
    ``"private"``), ``k`` (an int, or a fraction resolved after the
    release), the mechanism's options, the private bounds' names, their ε
    each and their records, the private mean's (ε, δ) (``None`` without a
    private centre), the mechanism's (ε, δ) and record, the mean's share
    of ε, and ``centered_norm`` with ``"auto"`` resolved
    (:func:`~dppca.forecast.resolved_centered_norm`)."""

    name: str
    spec: MechanismSpec
    bound: object
    k: object
    options: dict
    bound_names: tuple
    bound_epsilon: float
    bound_records: tuple
    mean_budget: tuple | None
    epsilon: float
    delta: float | None
    record: Release
    center_share: float | None = None
    centered_norm: object = None
    #: ``"replace"`` or ``"add-remove"`` (:mod:`.add_remove`): under
    #: add/remove the mechanism runs with ``n = max_samples`` (the public
    #: cap) on the zero-padded second moment, and ``count_epsilon`` (None
    #: when no eigenvalue is released) is the private count's ε, whose
    #: record is ``bound_records``' only entry.
    neighbours: str = "replace"
    max_samples: int | None = None
    count_epsilon: float | None = None


def release_plan(est, n: int, d: int) -> ReleasePlan:
    """Check every public parameter of ``est`` and plan its fit on ``n``
    rows of ``d`` features (public); raises before any charge."""
    est = range_stand_in(est, d)  # feature_range: its bound and centre
    rows, cap, row_count_eps = n, None, None
    if is_add_remove(est):
        # n is private: every decision below uses the public cap instead
        # (the mechanism's n, the forecast of "auto"); refused here, before
        # any charge, what add/remove cannot run (module .add_remove)
        cap = n = check_add_remove(est, rows)
        # the float64 shrink is computed for the cap (clipped_second_moment's
        # max_samples): a cap too large for it is refused here, not after
        # the charge (red team 18)
        check_cap_shrink(cap, d)
        if count_needed(est):
            total = check_epsilon(est.epsilon)
            row_count_eps = count_epsilon(total)
            est = with_epsilon(est, total - row_count_eps)
    # under add/remove the warning about δ against 1/n compares with the cap:
    # the data's own n would tell neighbours apart (red team 18)
    checked = _check_parameters(est, n, d, rows if cap is None else None)
    name, spec, bound, k, epsilon, delta, options, share, centred = checked
    if not spec.uses_delta:
        delta = None
    total = epsilon
    bound_epsilon, epsilon = _bound_budget(est, epsilon, centred)
    names = tuple(_private_bound_names(est, centred))
    quantile_eps, count_eps = bound_parts(bound_epsilon)
    records = tuple(
        record
        for name in names
        for record in (
            private_bounds.quantile_guarantee(quantile_eps, BOUND_LABELS[name]),
            private_bounds.count_guarantee(count_eps),
        )
    )
    mean_budget = None
    if private_centre(est):
        # the mean's share is of the total ε; the mechanism gets the rest
        mean_budget, (_, delta) = _split(share, total, notion_delta(est))
        if not mean_budget[0] < epsilon:
            raise ValueError(
                f"center_share + bound_share = {share} + {est.bound_share} "
                "leaves the mechanism no epsilon; their sum must be < 1"
            )
        epsilon = epsilon - mean_budget[0]
        if not spec.uses_delta:
            delta = None
            mean_budget = (mean_budget[0], None)
    _check_noise_range(est, d, names, count_eps, mean_budget, spec)
    _check_mechanism_noise_range(est, d, spec, epsilon, delta)
    if spec.forecast_noise is not None:
        forecast.warn_if_hopeless(
            forecast.estimator_plan(est, n, d, name, share),
            stacklevel=caller_stacklevel(1),
        )
    # k only matters to the records of integer-k mechanisms (a fraction is
    # allowed only where the record does not depend on k)
    record = spec.guarantee(n, d, max(int(k), 1), epsilon, delta, options)
    neighbours = "replace"
    if cap is not None:
        check_add_remove_mechanism(name)  # "auto" resolved; no charge yet
        neighbours = "add-remove"
        relation = add_remove_neighbours(cap)
        record = dataclasses.replace(record, neighbours=relation)
        records = ()
        if row_count_eps is not None:
            records = (
                count_record(row_count_eps, relation, stated_epsilon(est)),
            )
    return ReleasePlan(
        name,
        spec,
        bound,
        k,
        options,
        names,
        bound_epsilon,
        records,
        mean_budget,
        epsilon,
        delta,
        record,
        share if private_centre(est) else None,
        centred,
        neighbours,
        cap,
        row_count_eps,
    )


def _check_noise_range(est, d, names, count_eps, mean_budget, spec) -> None:
    """Refuse, before any charge, an ε so small that the exact integer
    samplers could not draw the noise (their scale is at most
    ``MAX_LAPLACE_GRID_SCALE`` grid units), from public quantities only:
    the private count of a released bound draws ``⌈1/ε_count⌉`` units, and
    the safe Laplace mean more than ``d/ε_mean`` (the rounding's ``d``
    cells; a coarser grid keeps the rest below a quarter of the range, so
    half the range is a safe threshold)."""
    limit = noise.MAX_LAPLACE_GRID_SCALE
    if names and math.ceil(1.0 / count_eps) > limit:
        raise ValueError(
            f"epsilon={stated_epsilon(est)!r} is too small: the private "
            f"count of a released bound (ε = {count_eps:.3g}) would need a "
            "noise scale beyond the exact sampler's range; nothing was charged"
        )
    if mean_budget is None or noise.check_noise_kind(est.noise) != "safe":
        return
    pure = spec.notion == "pure" or mean_budget[1] is None
    if pure and d / mean_budget[0] > limit / 2:
        raise ValueError(
            f"epsilon={stated_epsilon(est)!r} is too small: the private mean "
            f"(ε = {mean_budget[0]:.3g}, d = {d}) would need a Laplace "
            "scale beyond the exact sampler's range; nothing was charged"
        )


def _check_mechanism_noise_range(est, d, spec, epsilon, delta) -> None:
    """Refuse, before any charge, a budget at which the mechanism's safe
    noise cannot be drawn on any grid, from a necessary condition on public
    values. Every additive mechanism rounds at least ``d`` entries in one
    release to a grid γ, which adds ``√d`` cells to its ℓ₂ sensitivity
    (``d`` to its ℓ₁ one), and that release is (ε, δ)-DP for the program,
    so its noise is at least ``√d · σ₁`` grid units, ``σ₁`` the least
    Gaussian noise per unit sensitivity at (ε, δ) (analytic calibration;
    ``d/ε`` units for Laplace noise), whatever γ. Above half the exact
    sampler's range no grid holds it. (Budgets that pass this condition can
    still be refused by the sampler after the charge, on values that are
    public or released: a waste of budget, not a leak.)"""
    if not spec.additive_noise or noise.check_noise_kind(est.noise) != "safe":
        return
    if delta is None:
        units = d / epsilon
        limit = noise.MAX_LAPLACE_GRID_SCALE
    else:
        units = math.sqrt(d) * analytic_gaussian_sigma(1.0, epsilon, delta)
        limit = noise.MAX_GAUSSIAN_GRID_SIGMA
    if units > limit / 2:
        raise ValueError(
            f"epsilon={stated_epsilon(est)!r}, delta={est.delta!r} is too "
            f"small for safe noise: the mechanism's share (ε = {epsilon:.3g}"
            + ("" if delta is None else f", δ = {delta:.3g}")
            + f", d = {d}) would need at least {units:.3g} grid units of "
            "noise on any grid, beyond the exact sampler's range; nothing was "
            "charged"
        )


def bound_parts(bound_epsilon: float) -> tuple[float, float]:
    """(ε of the quantile, ε of the clipped count) of one private bound."""
    count = bound_epsilon * COUNT_SHARE
    return bound_epsilon - count, count


def _check_parameters(est, n: int, d: int, rows: int | None = None):
    """The checks of :func:`release_plan` for ``n`` rows (the public cap
    under add/remove neighbours); ``rows``, the data's own number of rows,
    only words the warning about δ against 1/n."""
    unstated = est.delta is None and est.mechanism == "auto"
    if unstated:
        # every other parameter is checked first, as for pure ε-DP; the
        # notion is refused at the end (NotionNotStatedError)
        _check_parameters(with_delta(est, 0.0), n, d, rows)
        raise NotionNotStatedError(forecast.notion_message(est, n, d))
    unproved_opt_ins(est)  # refused before anything else is decided
    check_random_state(est.random_state)
    check_accountant(est.accountant)
    fixed = est.mechanism != "auto"
    if fixed:
        name, spec = resolve(est.mechanism, est.delta)
    if est.data_norm is None:
        raise ValueError(
            "data_norm is required: a public bound on the rows' norm, "
            "chosen without looking at the data, or 'private' (with "
            "bound_range) to release one from the data"
        )
    if isinstance(est.data_norm, str):
        if est.data_norm != "private":
            raise ValueError(
                "data_norm must be a finite number > 0 or 'private'; got "
                f"{est.data_norm!r}"
            )
        data_norm = "private"
    else:
        _refuse_bool(est.data_norm, "data_norm")
        data_norm = float(est.data_norm)
        if not (math.isfinite(data_norm) and data_norm > 0):
            raise ValueError(
                "data_norm must be a finite number > 0 or 'private'; got "
                f"{est.data_norm!r}"
            )
        low, high = float_error.MIN_BOUND, float_error.MAX_MAGNITUDE / 2
        if not low <= data_norm <= high:
            # the float64 error bounds (and the forecast's arithmetic) hold
            # only there: refused here, before any charge, not as an
            # overflow or a division by zero halfway through planning
            raise ValueError(
                f"data_norm must lie in [{low:g}, {high:g}] "
                "(float64 error bounds are verified only there; rescale the "
                f"data and the bound together); got {est.data_norm!r}"
            )
    if d < 2:
        raise ValueError(
            f"PrivatePCA needs at least 2 features; got n_features = {d}"
        )
    if fixed:
        k = check_n_components(est, name, d)
    epsilon = check_epsilon(est.epsilon)
    # δ = 0 states pure ε-DP (None); no δ with "auto" is refused here
    delta = notion_delta(est)
    if fixed and spec.uses_delta and delta is None:
        raise ValueError(
            f"mechanism={name!r} needs a delta > 0 (delta=0.0 or None "
            "states pure ε-DP)"
        )
    _check_share(est)
    check_spectrum(est, d)
    if not isinstance(est.centered_norm, str):  # used or not: never a bool
        _refuse_bool(est.centered_norm, "centered_norm")
    _check_centered_norm(est, d)
    if est.data_norm == "private" and est.bound_range is None:
        _bound_budget(est, 1.0, None)  # raises: bound_range is needed
    if est.data_norm == "private" or est.centered_norm in ("auto", "private"):
        check_bound_share(est)
    _check_shares_leave_epsilon(est)
    # the scales first: the forecast's arithmetic holds only inside them
    _check_bound_range(est, None)
    _check_scales(est, d, None)
    # the fit's decision for centered_norm="auto", from n, d and parameters
    centred = resolved_centered_norm(est, n, d)
    if data_norm == "private" or centred == "private":
        _bound_budget(est, 1.0, centred)  # bound_share and bound_range
    _check_bound_range(est, centred)
    _check_scales(est, d, centred)  # the resolved centred bound's too
    name, share = forecast.choose(est, n, d)
    name, spec = resolve(name, est.delta)
    k = check_n_components(est, name, d)
    _warn_ignored(est, name, spec, n if rows is None else rows, delta)
    if spec.notion == "not_dp":
        if not est.allow_not_dp:
            raise ValueError(
                f"mechanism={name!r} is not differentially private as "
                "published (chapter 3); pass allow_not_dp=True to run it "
                "anyway"
            )
        warn(
            f"mechanism={name!r} is not DP as published: {spec.privacy}",
            NotPrivateWarning,
            stacklevel=caller_stacklevel(),
        )
    options = _check_public(est, name, spec, d, centred)
    start = options.get("V0")
    if isinstance(start, str) and start == "pca" and not est.allow_not_dp:
        # the chain starts from the data's own top-k subspace: no ε holds
        # for a finite chain (chapter 4), so an opt-in to an unproved
        # program is not enough
        raise ValueError(
            "mechanism_options={'V0': 'pca'} starts the chain from the data's "
            "own top-k subspace: the release is not differentially private "
            "(chapter 4); pass allow_not_dp=True to run it anyway"
        )
    if spec.check_options is not None:
        options = spec.check_options(
            options, int(n), int(d), max(int(k), 1), float(epsilon)
        )
    kind = noise.check_noise_kind(est.noise)
    if spec.additive_noise:
        options.setdefault("noise", kind)
    if spec.warn_options is not None:
        spec.warn_options(options, int(k), stacklevel=caller_stacklevel(1))
    record = spec.guarantee(
        n,
        d,
        max(int(k), 1),
        epsilon,
        delta if spec.uses_delta else None,
        options,
    )
    if record.kind == "none" and est.accountant is not None:
        raise ValueError(
            f"mechanism={name!r} with these settings is not differentially "
            "private: an accountant cannot charge it. Fit without an "
            "accountant"
        )
    if record.kind == "ideal" and est.accountant is not None:
        raise ValueError(
            f"mechanism={name!r} with these settings draws from an "
            "approximate sampler: only the exact law's ε is known and no "
            "(ε, δ) is proved for the release, so an accountant cannot "
            "charge it. Use k = 1 (an exact draw) or another mechanism, or "
            "fit without an accountant"
        )
    unproved = not record.proved or (kind == "float" and private_centre(est))
    if unproved and spec.notion != "not_dp":
        caveat = record.caveat or FLOAT_NOISE_CAVEAT
        if not opted_in(est, name):
            raise ValueError(
                f"mechanism={name!r} with these settings is not fully "
                f"proved as a program: {caveat}. Pass "
                f"allow_unproved={name!r} to run it anyway, or choose a "
                "proved mechanism (see the PrivatePCA docstring)"
            )
        warn(
            f"{record.label} is not fully proved as a program: {caveat}",
            UnprovedGuaranteeWarning,
            stacklevel=caller_stacklevel(),
        )
    return name, spec, data_norm, k, epsilon, delta, options, share, centred


def _check_shares_leave_epsilon(est) -> None:
    """``center_share`` and ``bound_share`` are each a share of the total ε:
    where both are spent (a private centre and a private bound the caller
    asked for), their sum must leave the mechanism some ε."""
    share = est.center_share
    wants_bound = est.data_norm == "private" or est.centered_norm == "private"
    if not (private_centre(est) and wants_bound):
        return
    if isinstance(share, str) and share == "auto":
        # the forecast tries every share of forecast.CENTER_SHARES
        largest = max(forecast.CENTER_SHARES)
        if not largest + check_bound_share(est) < 1:
            raise ValueError(
                f"center_share='auto' tries shares of ε up to {largest}, and "
                f"bound_share={est.bound_share!r} leaves the mechanism no "
                f"epsilon at that share: use bound_share < {1 - largest:g} "
                "or a fixed center_share"
            )
        return
    total = float(share) + check_bound_share(est)
    if not total < 1:
        raise ValueError(
            f"center_share + bound_share = {share!r} + "
            f"{est.bound_share!r} = {total:.6g} leaves the mechanism no "
            "epsilon; their sum must be < 1"
        )


def planned_records(est, n, d) -> list:
    """Every guarantee record a fit of ``est`` on ``n`` rows of ``d``
    features would charge, from public quantities only (a dry run; the
    private mean of a released ``data_norm`` planned at the top of
    ``bound_range``, as ``fit``'s own dry run does: the records' ε do not
    depend on it)."""
    est = range_stand_in(est, d)
    plan = release_plan(est, n, d)
    top = float(est.bound_range[1]) if plan.bound == "private" else plan.bound
    return list(plan.bound_records) + _planned(est, plan, n, d, top)


def _mean_plan(est, plan, n, d, bound):
    """The private mean's plan for rows bounded by ``bound`` (None without
    a private centre)."""
    if plan.mean_budget is None:
        return None
    pure = plan.spec.notion == "pure"
    return private_mean_plan(est, n, d, bound, plan.mean_budget, pure)


def _planned(est, plan, n, d, bound) -> list:
    """The records a fit charges after its private bounds: the private
    mean's (for rows bounded by ``bound``) and the mechanism's."""
    mean_plan = _mean_plan(est, plan, n, d, bound)
    return ([mean_plan[3]] if mean_plan else []) + [plan.record]


__all__ = [
    "BOUND_LABELS",
    "COUNT_SHARE",
    "ReleasePlan",
    "bound_parts",
    "planned_records",
    "release_plan",
]
