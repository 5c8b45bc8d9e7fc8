"""Input checks shared by every public function of :mod:`dppca`.

All mechanisms of the book assume the data model of Chaudhuri, Sarwate and Sinha (2013, Sec. 2)
and Jiang, Xie and Zhang (2016, Sec. 2): an ``n x d`` array whose rows are individuals and whose
rows have Euclidean norm at most one. Nothing here rescales or clips silently; the explicit
helpers :func:`normalize_rows` and :func:`scale_to_unit_ball` do that when a user asks for it.
"""

from __future__ import annotations

import numbers

import numpy as np


class PrivacyWarning(UserWarning):
    """A call that runs but weakens or voids the privacy guarantee the caller may expect.

    Raised (as a warning, at call time) for a mechanism that is not differentially private as
    published, for settings under which a stated guarantee is only approximate, and for other
    privacy-relevant misuse that is not an error. Turn it into an error with
    ``warnings.simplefilter("error", dppca.PrivacyWarning)``.
    """


#: Slack allowed on ``||x_i|| <= 1`` for floating-point round-off (relative to 1).
ROW_NORM_TOLERANCE = 1e-9


def as_generator(rng=None) -> np.random.Generator:
    """Return a :class:`numpy.random.Generator` from ``rng``.

    ``rng`` may be a Generator (returned as is, so callers share its stream), an integer seed or
    :class:`numpy.random.SeedSequence` (a new Generator), or ``None`` (fresh OS entropy; never a
    fixed seed).
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(
        rng, (numbers.Integral, np.random.SeedSequence)
    ):
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.BitGenerator):
        return np.random.Generator(rng)
    raise TypeError(
        f"rng must be a numpy Generator, an integer seed, a SeedSequence or None, got {type(rng).__name__}"
    )


def check_data(X, *, name: str = "X") -> np.ndarray:
    """Validate a data matrix with one row per person and return it as a float array.

    Raises ``ValueError`` if ``X`` is not two-dimensional with at least one row and two columns,
    contains NaN or Inf, or has rows of Euclidean norm greater than one (the error names how many
    rows and the largest norm, and points to the explicit rescaling helpers).
    """
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(
            f"{name} must be a 2-D array of shape (n, d) with one row per person; got shape {X.shape}"
        )
    n, d = X.shape
    if n < 1 or d < 2:
        raise ValueError(
            f"{name} must have at least 1 row and 2 columns; got shape {X.shape}"
        )
    if not np.all(np.isfinite(X)):
        bad = int(np.sum(~np.all(np.isfinite(X), axis=1)))
        raise ValueError(f"{name} contains NaN or Inf in {bad} of its {n} rows")
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    too_long = norms > 1.0 + ROW_NORM_TOLERANCE
    if np.any(too_long):
        raise ValueError(
            f"{name} has {int(too_long.sum())} of {n} rows with Euclidean norm > 1 "
            f"(largest {norms.max():.6g}); the privacy guarantees assume ||x_i|| <= 1. "
            "Rescale explicitly with dppca.scale_to_unit_ball(X) or dppca.normalize_rows(X)."
        )
    return X


def normalize_rows(X) -> np.ndarray:
    """Return a copy of ``X`` with every non-zero row scaled to unit Euclidean norm."""
    X = np.array(X, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError("normalize_rows expects a finite 2-D array")
    norms = np.linalg.norm(X, axis=1)
    norms[norms == 0] = 1.0
    return X / norms[:, None]


def scale_to_unit_ball(X) -> np.ndarray:
    """Return ``X`` divided by its largest row norm, so the longest row has norm one.

    This is the normalisation of Chaudhuri et al. (2013, Sec. 6.1): one global factor, which keeps
    the relative geometry of the rows. Note that the factor itself depends on the data.
    """
    X = np.array(X, dtype=float)
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        raise ValueError("scale_to_unit_ball expects a finite 2-D array")
    largest = np.linalg.norm(X, axis=1).max()
    return X / largest if largest > 0 else X


def check_epsilon(epsilon) -> float:
    """Validate a privacy parameter epsilon > 0 (finite)."""
    eps = float(epsilon)
    if not np.isfinite(eps) or eps <= 0:
        raise ValueError(
            f"epsilon must be a finite number > 0; got {epsilon!r}"
        )
    return eps


def check_delta(delta) -> float:
    """Validate a privacy parameter delta in the open interval (0, 1)."""
    dl = float(delta)
    if not (0.0 < dl < 1.0):
        raise ValueError(
            f"delta must lie in the open interval (0, 1); got {delta!r}"
        )
    return dl


def check_k(k, d: int) -> int:
    """Validate a target dimension ``k`` with ``1 <= k < d``."""
    if isinstance(k, bool) or not isinstance(k, numbers.Integral):
        raise TypeError(f"k must be an integer; got {k!r}")
    k = int(k)
    if not (1 <= k < d):
        raise ValueError(f"k must satisfy 1 <= k < d = {d}; got k = {k}")
    return k


def check_n(n) -> int:
    """Validate a number of people ``n >= 1``."""
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 1:
        raise ValueError(f"n must be a positive integer; got {n!r}")
    return int(n)


def check_symmetric(M, *, name: str = "M", atol: float = 1e-10) -> np.ndarray:
    """Validate a finite, square, symmetric matrix and return it as a float array."""
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] < 2:
        raise ValueError(
            f"{name} must be a square d x d matrix with d >= 2; got shape {M.shape}"
        )
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name} contains NaN or Inf")
    scale = max(1.0, float(np.abs(M).max()))
    if not np.allclose(M, M.T, rtol=0.0, atol=atol * scale):
        raise ValueError(
            f"{name} must be symmetric (max |M - M^T| = {np.abs(M - M.T).max():.3g})"
        )
    return M


def check_orthonormal(V, *, name: str = "V", atol: float = 1e-8) -> np.ndarray:
    """Validate a d x k matrix with orthonormal columns."""
    V = np.asarray(V, dtype=float)
    if V.ndim == 1:
        V = V[:, None]
    if V.ndim != 2 or V.shape[1] > V.shape[0]:
        raise ValueError(
            f"{name} must be a d x k matrix with k <= d; got shape {V.shape}"
        )
    gram = V.T @ V
    if not np.allclose(gram, np.eye(V.shape[1]), atol=atol):
        raise ValueError(
            f"{name} must have orthonormal columns (max |V^T V - I| = "
            f"{np.abs(gram - np.eye(V.shape[1])).max():.3g})"
        )
    return V
