"""Checks of :class:`dppca.PrivatePCA`'s parameters, each read from the
parameters alone.

Each function reads one parameter (or a few) of the estimator and either
returns its checked value, or what the parameter means for the fit (the
split of the budget it sets, the range of a private bound's candidates,
the bound on the centred rows), or raises a clear
``ValueError``/``TypeError``. None of them depends on the data, on the
forecast or on a planning decision beyond the ones passed in; the release
plan (:mod:`dppca.decomposition.plan`) calls them before it decides
anything, so a bad value is refused before any budget is charged. The
forecast (:mod:`dppca.forecast`) and :class:`dppca.PrivateCovariance` read
some of them too, which is why they are apart from the plan (which imports
the forecast).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..exceptions import PrivacyWarning, warn
from ..fit_guard import caller_stacklevel
from ..linalg import float_error, rows
from ..mechanisms import registry
from ..mechanisms.registry import INTERNAL_OPTIONS, MECHANISMS
from ..validation import check_delta

#: ``centered_norm="auto"`` without ``bound_range`` releases the bound among
#: ``(R / 2**AUTO_OCTAVES_BELOW, 2R)``: centred rows of data in the ball of
#: radius ``R`` lie within ``2R`` of a mean in that ball.
AUTO_OCTAVES_BELOW = 6


def unproved_opt_ins(est) -> tuple[str, ...]:
    """The mechanisms ``allow_unproved`` names, checked: ``None``, one
    registered mechanism's name, or a list, tuple or set of them. Anything
    else (``True``, a number, an unknown name) is refused here, before any
    budget is charged: a typo must not pass for an opt-in, and ``True``
    must not pass for "every mechanism"."""
    allowed = est.allow_unproved
    if allowed is None:
        return ()
    if isinstance(allowed, str):
        names = (allowed,)
    elif isinstance(allowed, (list, tuple, set, frozenset)) and all(
        isinstance(name, str) for name in allowed
    ):
        names = tuple(allowed)
    else:
        raise ValueError(
            "allow_unproved must be None, a mechanism's name or a list of "
            f"mechanisms' names (opting in one by one); got {allowed!r}"
        )
    unknown = sorted(set(names) - set(MECHANISMS))
    if unknown:
        raise ValueError(
            f"allow_unproved names no registered mechanism: {unknown}; "
            f"the mechanisms are {sorted(MECHANISMS)}"
        )
    return names


class NotionNotStatedError(ValueError):
    """``mechanism="auto"`` with no ``delta``: the privacy notion is not
    stated (:func:`notion_delta`)."""


#: The refusal of ``mechanism="auto"`` without ``delta``
#: (:func:`dppca.forecast.notion_message` adds both routes' forecasts).
NOTION_NOT_STATED = (
    "delta is not given, and mechanism='auto' needs the privacy notion "
    "stated: delta=0.0 for pure ε-DP, or a δ well below 1/n for (ε, δ)-DP"
)


def notion_delta(est):
    """The δ a fit of ``est`` uses: ``None`` for pure ε-DP, else δ in
    (0, 1), checked.

    ``delta=0.0`` states pure ε-DP; a δ in (0, 1) states (ε, δ)-DP.
    ``delta=None`` states nothing: with a named mechanism the notion is
    that mechanism's (a mechanism that needs δ is refused later), and with
    ``mechanism="auto"`` it is refused (:class:`NotionNotStatedError`),
    because the two notions lead to mechanisms whose utility differs by
    orders of magnitude (chapter 13): the pure route's ``d^(3/2)/(nε)``
    noise captures about what a random subspace does on census, insurance
    and the digits at ε ≤ 2. The fit's message gives both routes'
    forecasts (:func:`dppca.forecast.notion_message`)."""
    delta = est.delta
    if delta is None:
        if isinstance(est.mechanism, str) and est.mechanism == "auto":
            raise NotionNotStatedError(
                NOTION_NOT_STATED + ". Nothing was charged"
            )
        return None
    if check_delta_or_zero(delta) == 0.0:
        return None
    return float(delta)


def check_delta_or_zero(delta) -> float:
    """``delta`` as a float in ``[0, 1)`` (0 states pure ε-DP); a bool or
    string is a ``TypeError``, another value a ``ValueError``."""
    if isinstance(delta, (bool, np.bool_)) or not (
        isinstance(delta, numbers.Real)
        or (isinstance(delta, np.ndarray) and delta.ndim == 0)
    ):
        check_delta(delta)  # the TypeError of the other budget checks
    value = float(delta)
    if value == 0.0:
        return 0.0
    if not 0.0 < value < 1.0:
        raise ValueError(
            "delta must lie in the open interval (0, 1), or be 0.0 (pure "
            f"ε-DP); got {delta!r}"
        )
    return value


def with_delta(est, delta):
    """A stand-in for ``est`` (its attributes, shallow) with ``delta`` in
    place of its own: ``est`` itself is not changed (not copied through
    pickling, which warns for a fitted estimator with a seed)."""
    stand_in = object.__new__(type(est))
    vars(stand_in).update(vars(est))
    stand_in.delta = delta
    return stand_in


def delta_hint(n: int) -> float:
    """A δ to suggest for ``n`` units: the power of ten at most ``1/(10n)``
    (and at most 1e-5)."""
    return min(1e-5, 10.0 ** math.floor(math.log10(0.1 / n)))


def opted_in(est, name: str) -> bool:
    """Whether ``est`` opts in to the unproved mechanism ``name``
    (``allow_unproved``)."""
    return name in unproved_opt_ins(est)


def check_n_components(est, name: str, d: int):
    """An int k (1 <= k < d; k = d too for the mechanisms that release a
    noisy matrix), or, for those, None (k = d) or a fraction in (0, 1)
    (returned as a float, resolved after the release)."""
    k = est.n_components
    whole = name in registry.RELEASES_EIGENVALUES
    if k is None or isinstance(k, (float, np.floating)):
        if not whole:
            raise ValueError(
                f"n_components={k!r} needs the released spectrum, which "
                f"mechanism={name!r} does not release; pass an integer, "
                f"or one of {list(registry.RELEASES_EIGENVALUES)}"
            )
        if k is None:
            return d
        if not 0.0 < float(k) < 1.0:
            raise ValueError(
                "a float n_components is a fraction of the released "
                f"variance, in (0, 1); got {k!r}"
            )
        return float(k)
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(
            f"n_components must be an integer, None or a fraction; got {k!r}"
        )
    top = d if whole else d - 1
    if not 1 <= k <= top:
        raise ValueError(
            f"n_components must satisfy 1 <= n_components <= {top} "
            f"(n_features = {d}, mechanism={name!r}); got {k}"
        )
    return int(k)


def check_bound_share(est) -> float:
    """``bound_share`` of ``est``, checked to lie in (0, 1)."""
    share = float(est.bound_share)
    if not (math.isfinite(share) and 0 < share < 1):
        raise ValueError(
            f"bound_share must lie in (0, 1); got {est.bound_share!r}"
        )
    return share


def private_centre(est) -> bool:
    """``center`` is ``True`` (a Python or numpy bool): a private mean."""
    centre = est.center
    return isinstance(centre, (bool, np.bool_)) and bool(centre)


def _refuse_bool(value, name: str) -> None:
    """A bound given as ``True`` (a numpy bool, or an array of one) would be
    read as 1.0: a ``TypeError``, as for ε and δ."""
    if isinstance(value, (bool, np.bool_)) or (
        isinstance(value, np.ndarray) and value.dtype == bool
    ):
        raise TypeError(
            f"{name} must be a number, not a boolean; got {value!r}"
        )


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


def check_spectrum(est, d: int):
    """``spectrum``: ``None`` or a public prior for ``"auto"`` to rank its
    configurations by (:func:`dppca.forecast.ranked_by_spectrum`): ``d``
    finite eigenvalues ``>= 0`` of the rows' covariance, in the data's
    units, not all 0. Returned as a float array (decreasing), or ``None``.
    A parameter, so it is public: the caller states it from public data or
    from a release already paid for, never from the rows of this fit."""
    value = getattr(est, "spectrum", None)
    if value is None:
        return None
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise ValueError(
            f"spectrum must be None or {d} eigenvalues; got {value!r}"
        )
    try:
        lam = np.asarray(value, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ValueError(
            f"spectrum must be None or {d} eigenvalues (numbers); got {value!r}"
        ) from None
    if lam.size != d:
        raise ValueError(
            f"spectrum has {lam.size} values; the data have {d} features"
        )
    if not (np.all(np.isfinite(lam)) and np.all(lam >= 0) and lam.any()):
        raise ValueError(
            "spectrum must be finite eigenvalues >= 0, not all 0 (a public "
            "prior for the rows' covariance, in the data's units)"
        )
    return np.sort(lam)[::-1]


def _check_share(est):
    """``center_share``: ``"auto"`` or a share in (0, 1)."""
    share = est.center_share
    if isinstance(share, str) and share == "auto":
        return share
    if private_centre(est):
        _split(share, 1.0, None)
    return share


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


def _check_public(est, name, spec, d, centred) -> dict:
    """Every public parameter a fit reads, checked before any row is
    read or any budget charged; returns the mechanism's options (their
    values are checked by its spec's ``check_options``). After these
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
    return options


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
            f"epsilon={getattr(est, '_stated_epsilon', est.epsilon)!r} is "
            f"not used by mechanism={name!r}, which is (0, δ)-DP"
            + (
                " (only the private mean spends its share of it)"
                if private_centre(est)
                else ""
            )
            + (
                " (only the private count of rows spends its share of it)"
                if hasattr(est, "_stated_epsilon")
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
        # under add/remove ``n`` is the public cap max_samples (the data's
        # own n would tell neighbours apart): the message names it so
        size = "n" if est.neighbours == "replace" else "max_samples"
        warn(
            f"delta={delta:g} >= 1/{size} = {1.0 / n:.3g}: a mechanism may "
            "then publish a whole row with probability delta; choose "
            f"delta much smaller than 1/{size}",
            PrivacyWarning,
            stacklevel=caller_stacklevel(),
        )


__all__ = [
    "AUTO_OCTAVES_BELOW",
    "NOTION_NOT_STATED",
    "NotionNotStatedError",
    "bound_range_of",
    "centered_norm",
    "check_bound_share",
    "check_n_components",
    "check_spectrum",
    "delta_hint",
    "notion_delta",
    "opted_in",
    "private_centre",
    "public_centre",
    "unproved_opt_ins",
    "with_delta",
]
