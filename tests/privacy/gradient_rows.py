"""Rows for the privacy tests of the mechanisms that clip gradients
(streaming DP-PCA, adaptive k-PCA): unit vectors, and one row of each
extreme kind a neighbouring data set may hold (tiny, huge, along the current
direction ``w``, orthogonal to it, mixed scales, zero)."""

from __future__ import annotations

import numpy as np

#: The kinds of row :func:`make_row` builds.
ROW_KINDS = ("tiny", "huge", "along w", "orthogonal", "mixed", "zero")


def unit(v):
    """``v`` divided by its norm."""
    v = np.asarray(v, dtype=float)
    return v / np.linalg.norm(v)


def make_row(kind, w, rng, d):
    """One row of length ``d`` of ``kind`` (one of :data:`ROW_KINDS`),
    relative to the unit vector ``w``."""
    z = rng.standard_normal(d)
    return {
        "tiny": 1e-150 * z,
        "huge": 1e120 * z,
        "along w": rng.choice([-1, 1]) * 10 ** rng.uniform(-3, 6) * w,
        "orthogonal": 1e6 * unit(z - (z @ w) * w) + 1e-6 * w,
        "mixed": z * 10 ** rng.uniform(-4, 4),
        "zero": np.zeros(d),
    }[kind]
