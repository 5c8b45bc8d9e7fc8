"""Checks of :class:`dppca.PrivatePCA`'s parameters that stand on their own.

Each function reads one parameter (or two) of the estimator and either
returns its checked value or raises a clear ``ValueError``/``TypeError``.
None of them depends on the data or on planning decisions; the release plan
(:mod:`dppca.privacy.plan`) calls them before it decides anything, so a bad
value is refused before any budget is charged.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from .mechanisms.registry import MECHANISMS, RELEASES_EIGENVALUES


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


def opted_in(est, name: str) -> bool:
    """Whether ``est`` opts in to the unproved mechanism ``name``
    (``allow_unproved``)."""
    return name in unproved_opt_ins(est)


def check_n_components(est, name: str, d: int):
    """An int k (1 <= k < d; k = d too for the mechanisms that release a
    noisy matrix), or, for those, None (k = d) or a fraction in (0, 1)
    (returned as a float, resolved after the release)."""
    k = est.n_components
    whole = name in RELEASES_EIGENVALUES
    if k is None or isinstance(k, (float, np.floating)):
        if not whole:
            raise ValueError(
                f"n_components={k!r} needs the released spectrum, which "
                f"mechanism={name!r} does not release; pass an integer, "
                f"or one of {list(RELEASES_EIGENVALUES)}"
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
