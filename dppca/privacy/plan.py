"""A fit's release plan, computed from public parameters only.

:func:`release_plan` reads the parameters of a :class:`dppca.PrivatePCA`
and the shape of its data (``n`` and ``d`` are public under replace-one
neighbours), never a row. It checks every public parameter, warns about
every one the fit will not use, and plans the fit's releases in order:

0. the "auto" choices: the mechanism and ``center_share`` with the best
   forecast (:mod:`dppca.forecast`), and whether ``centered_norm="auto"``
   releases a bound (:func:`resolved_centered_norm`), all from public
   quantities;
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
plan is made, the accountant is charged where the estimator says, and a
charged fit reads the rows and returns a release. Two refusals can still
come after a charge: ``clip=False`` with a row above a public bound (a
property of the data, outside the neighbouring relation's domain), and a
safe Gaussian noise whose σ exceeds the exact sampler's range (about 2²⁶
grid units) because ε and δ are both extremely small (e.g. ε = 1e-10 with
δ = 1e-15); both depend on nothing a neighbour could change. The plan is a
value: nothing here writes on the estimator, and the fit's later steps read
their decisions from the :class:`ReleasePlan` (a decision kept on the
estimator could be changed by another thread's fit of the same object
between two steps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .. import forecast
from ..estimator_checks import (
    check_bound_share,
    check_n_components,
    opted_in,
    private_centre,
    unproved_opt_ins,
)
from ..exceptions import (
    NotPrivateWarning,
    PrivacyWarning,
    UnprovedGuaranteeWarning,
    warn,
)
from ..fit_guard import caller_stacklevel
from ..forecast import AUTO_BOUND_THRESHOLD, resolved_centered_norm
from ..linalg import float_error, rows
from ..mechanisms.option_checks import check_mechanism_options
from ..mechanisms.registry import (
    INTERNAL_OPTIONS,
    MechanismSpec,
    resolve,
)
from ..validation import (
    check_accountant,
    check_delta,
    check_epsilon,
    check_random_state,
)
from . import noise, private_bounds
from .calibration import analytic_gaussian_sigma
from .guarantees import FLOAT_NOISE_CAVEAT, Release
from .mean_plan import private_mean_plan

#: The labels of the private bounds' records.
BOUND_LABELS = {
    "data_norm": "private norm quantile (permute-and-flip)",
    "centered_norm": "private centred norm quantile (permute-and-flip)",
}

#: Share of each private bound's ε spent on the private count of the rows it
#: clips (:func:`dppca.privacy.private_bounds.clipped_count`).
COUNT_SHARE = 0.2

#: Candidates per doubling of the grid of a private bound of a fit (denser
#: than the function's default: ``ln G`` grows little, and the 95% quantile
#: of few norms falls between coarse candidates).
POINTS_PER_OCTAVE = 8

#: ``centered_norm="auto"`` without ``bound_range`` releases the bound among
#: ``(R / 2**AUTO_OCTAVES_BELOW, 2R)``: centred rows of data in the ball of
#: radius ``R`` lie within ``2R`` of a mean in that ball.
AUTO_OCTAVES_BELOW = 6


#: β of :func:`dppca.privacy.private_bounds.tail_guarded_quantile` for a fit's
#: private bounds.
TAIL_GUARD = 0.05


@dataclass(frozen=True)
class ReleasePlan:
    """What a fit will release, and with which budget, before any row is
    read: the mechanism (``name``, ``spec``), the public bound (or
    ``"private"``), ``k`` (an int, or a fraction resolved after the
    release), the mechanism's options, the private bounds' names, their ε
    each and their records, the private mean's (ε, δ) (``None`` without a
    private centre), the mechanism's (ε, δ) and record, the mean's share
    of ε, and ``centered_norm`` with ``"auto"`` resolved
    (:func:`resolved_centered_norm`)."""

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


def release_plan(est, n: int, d: int) -> ReleasePlan:
    """Check every public parameter of ``est`` and plan its fit on ``n``
    rows of ``d`` features (public); raises before any charge."""
    checked = _check_parameters(est, n, d)
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
        mean_budget, (_, delta) = _split(
            share, total, None if est.delta is None else float(est.delta)
        )
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
    if name in forecast.FORECAST_MECHANISMS:
        forecast.warn_if_hopeless(
            forecast.estimator_plan(est, n, d, name, share),
            stacklevel=caller_stacklevel(1),
        )
    # k only matters to the records of integer-k mechanisms (a fraction is
    # allowed only where the record does not depend on k)
    record = spec.guarantee(n, d, max(int(k), 1), epsilon, delta, options)
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
            f"epsilon={est.epsilon!r} is too small: the private count of "
            f"a released bound (ε = {count_eps:.3g}) would need a noise "
            "scale beyond the exact sampler's range; nothing was charged"
        )
    if mean_budget is None or noise.check_noise_kind(est.noise) != "safe":
        return
    pure = spec.notion == "pure" or mean_budget[1] is None
    if pure and d / mean_budget[0] > limit / 2:
        raise ValueError(
            f"epsilon={est.epsilon!r} is too small: the private mean "
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
            f"epsilon={est.epsilon!r}, delta={est.delta!r} is too small for "
            f"safe noise: the mechanism's share (ε = {epsilon:.3g}"
            + ("" if delta is None else f", δ = {delta:.3g}")
            + f", d = {d}) would need at least {units:.3g} grid units of "
            "noise on any grid, beyond the exact sampler's range; nothing was "
            "charged"
        )


def bound_parts(bound_epsilon: float) -> tuple[float, float]:
    """(ε of the quantile, ε of the clipped count) of one private bound."""
    count = bound_epsilon * COUNT_SHARE
    return bound_epsilon - count, count


def bound_range_of(est, name: str, data_norm) -> tuple[float, float]:
    """The public range of the candidates of the private bound ``name``:
    ``bound_range``, or for ``centered_norm="auto"`` without one
    ``(R / 2**AUTO_OCTAVES_BELOW, 2R)`` with ``R = data_norm`` (public, or
    released before)."""
    if est.bound_range is None and name == "centered_norm":
        R = float(data_norm)
        return R / 2.0**AUTO_OCTAVES_BELOW, 2.0 * R
    lower, upper = (float(v) for v in est.bound_range)
    return lower, upper


def grid_points(lower: float, upper: float) -> int:
    """:data:`POINTS_PER_OCTAVE` candidates per doubling (at most 10,000)."""
    octaves = math.log2(upper) - math.log2(lower)
    points = math.ceil(POINTS_PER_OCTAVE * octaves) + 1
    return int(min(max(points, 2), private_bounds.MAX_GRID_POINTS))


def _refuse_bool(value, name: str) -> None:
    """A bound given as ``True`` (a numpy bool, or an array of one) would be
    read as 1.0: a ``TypeError``, as for ε and δ."""
    if isinstance(value, (bool, np.bool_)) or (
        isinstance(value, np.ndarray) and value.dtype == bool
    ):
        raise TypeError(
            f"{name} must be a number, not a boolean; got {value!r}"
        )


def _check_parameters(est, n: int, d: int):
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
    delta = None if est.delta is None else check_delta(est.delta)
    if fixed and spec.uses_delta and delta is None:
        raise ValueError(f"mechanism={name!r} needs a delta")
    _check_share(est)
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
    _warn_ignored(est, name, spec, n, delta)
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
    options = check_mechanism_options(
        name, options, n, d, max(int(k), 1), epsilon
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


def _check_share(est):
    """``center_share``: ``"auto"`` or a share in (0, 1)."""
    share = est.center_share
    if isinstance(share, str) and share == "auto":
        return share
    if private_centre(est):
        _split(share, 1.0, None)
    return share


def _check_public(est, name, spec, d, centred) -> dict:
    """Every public parameter a fit reads, checked before any row is
    read or any budget charged; returns the mechanism's options (their
    values are checked by :mod:`dppca.mechanisms.option_checks`). After these
    checks a fit refuses when the budget cannot pay for it, and in the two
    cases the module docstring names."""
    if not isinstance(est.clip, (bool, np.bool_)):
        raise TypeError(f"clip must be True or False; got {est.clip!r}")
    private = [
        f"{p}='private'"
        for p, value in (
            ("data_norm", est.data_norm),
            ("centered_norm", centred),
        )
        if isinstance(value, str) and value == "private"
    ]
    if private_centre(est):
        private.insert(0, "center=True (a private mean)")
    elif not isinstance(est.center, (bool, np.bool_)):
        public_centre(est, d)
    if not est.clip and private:
        raise ValueError(
            "clip=False refuses rows above a bound, and with "
            f"{' and '.join(private)} that bound is released from the "
            "data: whether the fit returns would then depend on the "
            "rows. Use clip=True (rows are clipped to the released bound) "
            "or public bounds and a public centre"
        )
    _check_bound_range(est, centred)
    if _private_bound_names(est, centred):
        q = float(est.bound_quantile)
        if not 0 < q < 1:
            raise ValueError(f"bound_quantile must lie in (0, 1); got {q!r}")
    options = dict(est.mechanism_options or {})
    accepted = spec.accepted_options(INTERNAL_OPTIONS)
    unknown = sorted(set(options) - accepted)
    if unknown:
        raise ValueError(
            f"mechanism_options {unknown} are not options of "
            f"mechanism={name!r}; it accepts {sorted(accepted)}"
        )
    if spec.check_options is not None:
        options = spec.check_options(options)
    return options


def _check_bound_range(est, centred) -> None:
    """``bound_range``, where a private bound uses it: ``(lower, upper)``
    with ``0 < lower < upper < inf``."""
    if _private_bound_names(est, centred) and est.bound_range is not None:
        _bound_budget(est, 1.0, centred)
        lower, upper = (float(v) for v in est.bound_range)
        if not (0 < lower < upper and math.isfinite(upper)):
            raise ValueError(
                "bound_range must be (lower, upper) with 0 < lower < "
                f"upper < inf; got {est.bound_range!r}"
            )


def _check_scales(est, d: int, centred) -> None:
    """The float64 error bounds of :mod:`dppca.linalg.float_error` hold for
    bounds in ``[MIN_BOUND, MAX_MAGNITUDE / 2]`` and centres at most ``10²⁰⁰``
    bounds away: checked here, on the public values (or the public range
    of a released one), so that no released value can fail them."""
    low, high = float_error.MIN_BOUND, float_error.MAX_MAGNITUDE / 2
    ranges = {}
    for name, value in (
        ("data_norm", est.data_norm),
        ("centered_norm", centred),
    ):
        if isinstance(value, str) and value == "private":
            if est.bound_range is None:  # centered_norm="auto"
                lower, _ = bound_range_of(est, name, ranges["data_norm"][0])
                _, upper = bound_range_of(est, name, ranges["data_norm"][1])
                ranges[name] = (lower, upper)
            else:
                ranges[name] = tuple(float(v) for v in est.bound_range)
        elif value is not None and not isinstance(value, str):
            ranges[name] = (float(value), float(value))
    for name, (lower, upper) in ranges.items():
        if not low <= lower <= upper <= high:
            raise ValueError(
                _scale_message(est, name, (lower, upper), low, high)
            )
    outer = ranges["data_norm"]
    if private_centre(est):
        inner = ranges.get("centered_norm", outer)
        reach = outer[1]  # ‖μ̂‖ ≤ R
    elif isinstance(est.center, (bool, np.bool_)):
        return
    else:
        inner = outer
        centre = rows.check_centre(public_centre(est, d), d)  # as the rows
        reach = float(np.linalg.norm(centre))
    if reach > 1e200 * inner[0]:
        raise ValueError(
            "the centre may lie more than 1e200 row bounds from the "
            "origin: float64 clip factors would be subnormal"
        )


def _scale_message(est, name, span, low, high) -> str:
    """Why a bound's (public or candidate) values leave the verified
    range ``[low, high]``, naming the parameter the caller set."""
    where = f"[{low:g}, {high:g}], where float64 error bounds are verified"
    if name == "data_norm" and est.data_norm != "private":
        return f"data_norm={est.data_norm!r} must lie in {where}"
    if name == "data_norm" or (
        isinstance(est.centered_norm, str) and est.bound_range is not None
    ):
        return (
            f"bound_range={tuple(est.bound_range)!r} (the candidates of a "
            f"private bound) must lie in {where}"
        )
    if isinstance(est.centered_norm, str):
        # "auto" or "private" without bound_range: candidates derived from
        # data_norm
        return (
            f"with center=True and centered_norm={est.centered_norm!r}, the "
            f"centred rows' bound is searched in ({span[0]:.3g}, "
            f"{span[1]:.3g}) = (data_norm / 2**{AUTO_OCTAVES_BELOW}, "
            f"2·data_norm), which must lie in {where}: choose data_norm in "
            f"[{low * 2.0**AUTO_OCTAVES_BELOW:g}, {high / 2:g}], or pass "
            "centered_norm (a number) or bound_range"
        )
    return f"centered_norm={est.centered_norm!r} must lie in {where}"


def public_centre(est, d: int) -> np.ndarray:
    """The public centre ``center`` of ``est`` as a finite vector of length
    ``d``; raises ``ValueError`` otherwise."""
    centre = np.asarray(est.center, dtype=float).ravel()
    if centre.shape != (d,) or not np.all(np.isfinite(centre)):
        raise ValueError(
            f"center must be True, False or a finite vector of length "
            f"n_features = {d}"
        )
    return centre


def _warn_ignored(est, name, spec, n, delta):
    """A PrivacyWarning for every budget parameter the fit will not use,
    and for a δ too large to mean anything."""
    if delta is not None and not spec.uses_delta:
        private_mean = private_centre(est)
        warn(
            f"delta={delta!r} is not used by mechanism={name!r}, which "
            "is pure ε-DP"
            + (
                "; the private mean is pure too (Laplace)"
                if private_mean
                else ""
            )
            + ": privacy_spent_ reports delta = 0",
            PrivacyWarning,
            stacklevel=caller_stacklevel(),
        )
    if not spec.uses_epsilon:
        warn(
            f"epsilon={est.epsilon!r} is not used by mechanism={name!r}, "
            "which is (0, δ)-DP"
            + (
                " (only the private mean spends its share of it)"
                if private_centre(est)
                else ""
            ),
            PrivacyWarning,
            stacklevel=caller_stacklevel(),
        )
    if (
        est.centered_norm is not None
        and est.centered_norm != "auto"
        and not private_centre(est)
    ):
        warn(
            f"centered_norm={est.centered_norm!r} is not used: it bounds "
            "the rows centred at a private mean (center=True)",
            PrivacyWarning,
            stacklevel=caller_stacklevel(),
        )
    if delta is not None and delta >= 1.0 / n:
        warn(
            f"delta={delta:g} >= 1/n = {1.0 / n:.3g}: a mechanism may "
            "then publish a whole row with probability delta; choose "
            "delta much smaller than 1/n",
            PrivacyWarning,
            stacklevel=caller_stacklevel(),
        )


def centered_norm(est, data_norm: float, mean, value) -> tuple[float, bool]:
    """(bound on the centred rows, whether to clip them to it) for
    ``value``, the fit's ``centered_norm`` with ``"auto"`` resolved
    (``ReleasePlan.centered_norm``)."""
    if value is None:
        return data_norm, True
    if isinstance(value, str):
        if value == "private":
            return data_norm, True  # replaced by the release in fit
        if value != "triangle":
            raise ValueError(
                "centered_norm must be None, 'auto', 'triangle', 'private' "
                f"or a finite number > 0; got {est.centered_norm!r}"
            )
        # ‖x − μ̂‖ ≤ ‖x‖ + ‖μ̂‖ ≤ R + ‖μ̂‖ holds for every clipped row;
        # ‖μ̂‖ ≤ R, so at most 2R (≤ the verified range) even where the
        # computed ‖μ̂‖ rounds above R
        bound = data_norm + float(np.linalg.norm(mean))
        return min(bound, 2.0 * data_norm), False
    _refuse_bool(value, "centered_norm")
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(
            "centered_norm must be None, 'auto', 'triangle', 'private' or a "
            f"finite number > 0; got {est.centered_norm!r}"
        )
    return value, True


def _check_centered_norm(est, d) -> None:
    """Check the value of ``centered_norm`` (``"auto"`` is resolved later,
    into a valid value)."""
    value = est.centered_norm
    if private_centre(est) and not (isinstance(value, str) and value == "auto"):
        centered_norm(est, 1.0, np.zeros(d), value)


def _private_bound_names(est, centred) -> list[str]:
    """The private bounds of a fit whose ``centered_norm`` resolves to
    ``centred``."""
    names = []
    if est.data_norm == "private":
        names.append("data_norm")
    if centred == "private" and private_centre(est):
        names.append("centered_norm")
    return names


def _bound_budget(est, epsilon, centred):
    """(ε of each private bound, ε left) for the private bounds of a fit
    whose ``centered_norm`` resolves to ``centred``: a share
    ``bound_share`` of the total, split evenly."""
    names = _private_bound_names(est, centred)
    if not names:
        return 0.0, epsilon
    share = check_bound_share(est)
    derived = est.bound_range is None and names == ["centered_norm"]
    if not derived and (est.bound_range is None or len(est.bound_range) != 2):
        raise ValueError(
            "a private bound needs bound_range=(lower, upper): the public "
            "range of the candidate bounds"
        )
    spent = share * epsilon
    return spent / len(names), epsilon - spent


def _split(center_share, epsilon, delta):
    """(ε, δ) of the private mean and of the mechanism."""
    share = float(center_share)
    parts = {"private mean": share, "mechanism": 1.0 - share}
    empty = [name for name, part in parts.items() if not part > 0]
    if empty or not math.isfinite(share):
        warn(
            f"center_share = {center_share!r} leaves the "
            f"{' and the '.join(empty) or 'split'} with epsilon <= 0",
            PrivacyWarning,
            stacklevel=caller_stacklevel(),
        )
        raise ValueError(
            f"center_share must be 'auto' or lie in (0, 1); got "
            f"{center_share!r}"
        )
    # The mechanism gets what is left, so the two parts add up to the total
    # exactly.
    mean_eps = share * epsilon
    mean_delta = None if delta is None else share * delta
    mech_delta = None if delta is None else delta - mean_delta
    return (mean_eps, mean_delta), (epsilon - mean_eps, mech_delta)


__all__ = [
    "AUTO_BOUND_THRESHOLD",
    "AUTO_OCTAVES_BELOW",
    "BOUND_LABELS",
    "COUNT_SHARE",
    "POINTS_PER_OCTAVE",
    "ReleasePlan",
    "TAIL_GUARD",
    "bound_parts",
    "bound_range_of",
    "centered_norm",
    "grid_points",
    "private_centre",
    "private_mean_plan",
    "public_centre",
    "release_plan",
    "resolved_centered_norm",
]
