"""``feature_range``: per-column public bounds for
:class:`dppca.PrivatePCA`, an alternative to one ``data_norm``.

Tabular data come with a public range ``[a_j, b_j]`` per column (units,
plausible maxima), not a ball. A box is inside a ball, so the box gives
the estimator what it needs, from public values only:

* **the bound.** Every row of the box lies within ``‖max(|a − c|, |b −
  c|)‖₂`` of a centre ``c`` (each coordinate at most that far from
  ``c_j``), with equality at a corner: about the origin (``center=False``,
  or a private mean, whose rows are first bounded about the origin) the
  norm of ``max(|a|, |b|)``, about the midpoint ``m = (a + b)/2`` the norm
  of the half-widths ``(b − a)/2``, the smallest of all centres;
* **a public centre.** ``center="midpoint"`` centres the rows at ``m``, a
  public vector: no budget is spent on a mean, and the mechanism sees the
  second moment about ``m`` (the covariance plus ``(μ − m)(μ − m)ᵀ``).

Rows outside the box are refused (``ValueError``) unless
``clip_to_range=True`` clips each entry to its range, a map on each row
alone (replace-one neighbours stay neighbours). The box is then the
domain of the neighbouring relation, and the guarantee is the one of
``data_norm`` equal to the implied bound with the centre public.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse

from ..validation import check_public_box
from .parameters import _refuse_bool, public_centre

#: The implied row bound of ``feature_range`` is raised by this relative
#: margin (public), so that a row at a corner of the box, whose computed
#: norm may round a few ulps above the exact one, is never clipped or
#: refused at the bound.
RANGE_MARGIN = 2.0**-40


def check_feature_range(value, d: int) -> tuple[np.ndarray, np.ndarray]:
    """``feature_range`` as two finite float arrays ``(lower, upper)`` of
    length ``d`` (a scalar side is broadcast), with ``lower < upper``
    everywhere; raises ``ValueError`` (naming no row value)."""
    if isinstance(value, str) or not hasattr(value, "__len__"):
        raise ValueError(
            "feature_range must be a pair (lower, upper) of public "
            f"per-feature bounds; got {value!r}"
        )
    if len(value) != 2:
        raise ValueError(
            "feature_range must be a pair (lower, upper) of public "
            f"per-feature bounds; got {len(value)} items"
        )
    for side in value:
        _refuse_bool(side, "feature_range")
    return check_public_box(value, d, "feature_range")


def implied_bound(lower, upper, centre=None) -> float:
    """The ℓ₂ bound every row of the box ``[lower, upper]`` meets about
    ``centre`` (the origin when ``None``): the norm of
    ``max(|lower − c|, |upper − c|)``, attained at a corner; about the
    midpoint it is the norm of the half-widths. Raised by
    :data:`~dppca.decomposition.ranges.RANGE_MARGIN`."""
    c = np.zeros_like(lower) if centre is None else centre
    reach = np.maximum(np.abs(lower - c), np.abs(upper - c))
    return float(np.linalg.norm(reach)) * (1.0 + RANGE_MARGIN)


def range_stand_in(est, d: int):
    """``est`` with ``feature_range`` resolved (``est`` itself when it has
    none): a stand-in whose ``data_norm`` is the implied bound
    (:func:`implied_bound`), whose ``center`` is the midpoint for
    ``center="midpoint"``, and whose ``range_box`` is ``(lower, upper,
    clip_to_range)``; its ``feature_range`` is ``None``, so resolving it
    again changes nothing. Public parameters only; raises ``ValueError``
    on a misuse."""
    if getattr(est, "range_box", None) is not None:
        return est  # resolved already
    centre = est.center
    midpoint = isinstance(centre, str) and centre == "midpoint"
    clip = getattr(est, "clip_to_range", False)
    if not isinstance(clip, (bool, np.bool_)):
        raise TypeError(f"clip_to_range must be True or False; got {clip!r}")
    if getattr(est, "feature_range", None) is None:
        if midpoint:
            raise ValueError(
                "center='midpoint' centres at the midpoint of "
                "feature_range: pass feature_range=(lower, upper)"
            )
        if clip:
            raise ValueError(
                "clip_to_range=True clips each feature to feature_range: "
                "pass feature_range=(lower, upper)"
            )
        return est
    if est.data_norm is not None:
        raise ValueError(
            "pass data_norm or feature_range, not both: feature_range "
            "implies the rows' bound (the norm of the half-widths about "
            "the midpoint, of max(|lower|, |upper|) uncentred)"
        )
    lower, upper = check_feature_range(est.feature_range, d)
    if midpoint:
        centre = (lower + upper) / 2.0
        bound = implied_bound(lower, upper, centre)
    elif isinstance(centre, (bool, np.bool_)):
        bound = implied_bound(lower, upper)  # about the origin
    else:
        centre = public_centre(est, d)
        bound = implied_bound(lower, upper, centre)
    stand_in = object.__new__(type(est))
    vars(stand_in).update(vars(est))
    stand_in.feature_range = None
    stand_in.center = centre
    stand_in.data_norm = bound
    stand_in.range_box = (lower, upper, bool(clip))
    return stand_in


def rows_in_box(X, box):
    """The rows of ``X`` inside the public box ``box = (lower, upper,
    clip)``: each entry clipped to its feature's range when ``clip`` (a map
    on each row alone: neighbours stay neighbours), else a ``ValueError``
    when any entry lies outside (a data set outside the neighbouring
    relation's domain; the message names no value). Sparse input needs
    every range to contain 0 (its implicit zeros); an entry stored twice
    counts as the sum of its copies, as scipy reads it (duplicates are
    summed on a copy before the check)."""
    lower, upper, clip = box
    if scipy.sparse.issparse(X):
        if not np.all((lower <= 0) & (0 <= upper)):
            raise ValueError(
                "sparse input with feature_range needs every range to "
                "contain 0 (the implicit zeros); pass a dense array"
            )
        X = X.tocsr(copy=True)
        X.sum_duplicates()
        columns = X.indices
        low, high = lower[columns], upper[columns]
        outside = (X.data < low) | (X.data > high)
        if clip:
            X.data = np.clip(X.data, low, high)
        elif np.any(outside):
            raise ValueError(_OUTSIDE)
        return X
    if clip:
        return np.clip(X, lower, upper)
    if np.any((X < lower) | (X > upper)):
        raise ValueError(_OUTSIDE)
    return X


_OUTSIDE = (
    "a row lies outside feature_range (the public box the fit's bound is "
    "derived from); pass clip_to_range=True to clip each feature to its "
    "range, or a range that holds every possible row"
)


__all__ = [
    "RANGE_MARGIN",
    "check_feature_range",
    "implied_bound",
    "range_stand_in",
    "rows_in_box",
]
