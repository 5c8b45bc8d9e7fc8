"""The public ranges of :class:`dppca.PrivateStandardScaler` and what its
transform can output on them.

Both checks read public parameters and the input's dtype only, never a
value, so neighbouring data sets (same dtype, same ranges) are refused
alike, before any charge.
"""

from __future__ import annotations

import numpy as np

from .validation import check_public_box

#: The public widths allowed (``w²`` and ``w² · 2^-52`` stay normal floats).
WIDTH_RANGE = (1e-120, 1e120)


def check_bounds(bounds, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The public ranges as two float arrays of length ``d`` (scalars are
    broadcast); raises ``ValueError`` naming no row value."""
    if bounds is None or isinstance(bounds, str) or len(bounds) != 2:
        raise ValueError(
            "bounds is required: a pair (lower, upper) of public per-feature "
            "ranges, chosen without looking at the data"
        )
    lower, upper = check_public_box(bounds, d, "bounds")
    low, high = WIDTH_RANGE
    if not np.all((upper - lower >= low) & (upper - lower <= high)):
        raise ValueError(f"bounds need widths in [{low:g}, {high:g}]")
    return lower, upper


def check_output_range(est, lower, upper, dtype) -> None:
    """Refuse ranges whose transformed values could overflow ``dtype``.

    ``transform`` returns ``(clip(x) − mean_) / scale_`` in the input's
    dtype. With ``with_std`` the output is at most ``2^26`` times the
    larger of 1 and ``max(|a_j|, |b_j|)/w_j``, which the width range keeps
    below ``2^78``: finite in float32. Without it the output is
    ``clip(x) − mean_`` (at most the width ``w_j``, ``mean_`` lying in the
    range) or ``clip(x)`` itself (at most ``max(|a_j|, |b_j|)``), which can
    pass float32's largest value for ranges that float64 holds. Red team
    25: a float32 pipeline of such a scaler and a private step then saw
    ``inf`` exactly when one row lay far from the mean, and the step
    refused it after the scaler's charge."""
    if est.with_std:
        return
    largest = np.maximum(np.abs(lower), np.abs(upper))
    reach = (upper - lower) if est.with_mean else largest
    limit = float(np.finfo(dtype).max)
    if float(np.max(reach)) > limit:
        raise ValueError(
            f"bounds too wide for {np.dtype(dtype).name} input without "
            "with_std: the transformed values (up to the width, or the "
            f"largest bound) could exceed {limit:.3g} and become inf. Pass "
            "float64 rows or narrower bounds. Nothing was charged or drawn."
        )


__all__ = ["WIDTH_RANGE", "check_bounds", "check_output_range"]
