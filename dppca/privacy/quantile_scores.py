"""The scores of the candidate bounds of a private quantile: the target
quantile ``q``, the integer utilities of a grid of candidates and, for small
samples, the tail-guarded target and its band. They are the part of a
release that reads the norms, shared by the private bounds of
:mod:`dppca.privacy.private_bounds` and by a streaming step's private
clipping radius (``dppca.mechanisms.streaming_step.PrivateRadius``),
which both select a candidate with permute-and-flip
(:mod:`dppca.privacy.selection`); nothing here draws or releases.

**Utilities.** The utility of the candidate ``b_j`` is the integer

    u_j = −|c_j − t|,   c_j = #{i : ‖x_i‖ ≤ b_j},   t = ⌈q n⌉.

Replacing one row changes every count ``c_j`` by at most one, so every
``u_j``, and ``u* = max_j u_j``, changes by at most one: sensitivity 1.

**Small n.** Every candidate above the largest norm has the same utility
``−(n − ⌈qn⌉)``, and a wide public range puts many of them there: at small
``nε`` these wide empty octaves together outweigh the right candidate (on the
digits, ``n = 1797``, ε = 0.08, the bound landed above every row 31% of the
time); with few distinct norms (the digits' pixels are integers) the counts
also jump between neighbouring candidates, so that no candidate has utility
near 0. With ``tail_guard=β`` the release uses the utility
``−dist(c_j, [⌈(q' − τ/n)n⌉, ⌈q'n⌉])`` (:func:`band_utilities`, sensitivity
1): ``q' = `` :func:`tail_guarded_quantile` puts every empty candidate at
least ``τ`` below a candidate in the band, and the band, ``τ/n`` wide (the
accuracy slack of :mod:`dppca.privacy.private_bounds`), contains a
candidate's count even when the counts jump. Both are public functions of
``n``, ε and ``G``.
"""

from __future__ import annotations

import functools
import math
import numbers
from fractions import Fraction

import numpy as np

from ..float_state import owns_float_state
from ..validation import check_epsilon


def check_real(value, name: str) -> float:
    """A real number that is not a boolean (``True`` would read as 1.0).

    Parameters
    ----------
    value : object
        The value to check.
    name : str
        Its name, for the error message.

    Returns
    -------
    float
        ``value`` as a float; ``TypeError`` if it is not a real number.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, numbers.Real
    ):
        raise TypeError(f"{name} must be a real number; got {value!r}")
    return float(value)


def check_quantile(quantile) -> float:
    """Validate a quantile ``0 < q < 1``."""
    q = check_real(quantile, "quantile")
    if not 0.0 < q < 1.0:
        raise ValueError(
            f"quantile must lie in the open interval (0, 1); got {quantile!r}"
        )
    return q


def check_norms(norms) -> np.ndarray:
    """Row norms, one per person, as a non-empty 1-D float array of finite
    numbers ``>= 0``; ``ValueError`` otherwise.

    Parameters
    ----------
    norms : array_like of shape (n,)
        The norms.

    Returns
    -------
    ndarray of shape (n,)
        ``norms`` as float64.
    """
    norms = np.asarray(norms, dtype=float)
    if norms.ndim != 1 or norms.size < 1:
        raise ValueError(
            f"norms must be a non-empty 1-D array; got shape {norms.shape}"
        )
    if not np.all(np.isfinite(norms)) or np.any(norms < 0):
        raise ValueError("norms must be finite and >= 0")
    return norms


@owns_float_state
def quantile_utilities(norms, grid, quantile) -> np.ndarray:
    """The integer utilities ``u_j = −|#{i : norm_i ≤ b_j} − ⌈q n⌉|``.

    Each count changes by at most one when one norm is replaced: the vector
    has sensitivity 1 in ℓ∞. For tests and audits; the release never returns
    it.
    """
    return _quantile_utilities(norms, grid, quantile)


def _quantile_utilities(norms, grid, quantile) -> np.ndarray:
    """:func:`quantile_utilities` for a caller already under the package's
    float state (``dppca.float_state``), which costs about 20 µs to
    enter."""
    norms = check_norms(norms)
    target = _target(check_quantile(quantile), norms.size)
    counts = np.searchsorted(np.sort(norms), np.asarray(grid), side="right")
    return -np.abs(counts.astype(np.int64) - target)


@functools.lru_cache(maxsize=64)
def _target(q: float, n: int) -> int:
    """``⌈q n⌉``, exact (no float rounding of ``q n``); remembered, as a
    streaming pass asks for the same one at every step."""
    return math.ceil(Fraction(q) * n)


@owns_float_state
def band_utilities(norms, grid, low, high) -> np.ndarray:
    """``u_j = −dist(c_j, [⌈low·n⌉, ⌈high·n⌉])`` with ``c_j = #{i : norm_i
    ≤ b_j}``: zero for every candidate whose count falls in the band.

    The distance to a fixed interval is 1-Lipschitz and each count changes
    by at most one when one norm is replaced: sensitivity 1, as for
    :func:`quantile_utilities` (the case ``low = high``)."""
    norms = check_norms(norms)
    n = norms.size
    lo = math.ceil(Fraction(check_real(low, "low")) * n)
    hi = math.ceil(Fraction(check_real(high, "high")) * n)
    if not 0 <= lo <= hi <= n:
        raise ValueError(f"need 0 <= low <= high <= 1; got {low!r}, {high!r}")
    counts = np.searchsorted(np.sort(norms), np.asarray(grid), side="right")
    counts = counts.astype(np.int64)
    return -(np.maximum(lo - counts, 0) + np.maximum(counts - hi, 0))


def tail_guarded_quantile(quantile, n, epsilon, grid_size, beta) -> float:
    """The target a guarded release aims at: ``min(q, 1 − τ/n)`` with
    ``τ = (2/ε)(ln G + ln(1/β))``, a public function of ``n``, ε and ``G``.

    **Why.** Every candidate above the largest norm counts all ``n`` rows,
    so its utility is ``−(n − ⌈qn⌉)``: on a geometric grid over a wide
    public range there are many such candidates (an empty interval of
    several octaves), and when ``n(1 − q)`` is below the accuracy slack
    ``τ`` they are nearly as likely as the right one: at ``n = 1797``,
    ε = 0.1, ``q = 0.95`` the bound lands above every row about half the
    time. Aiming at ``1 − τ/n`` instead puts every such candidate at least
    ``τ`` below the best, so together they have probability at most ``β``
    (the accuracy bound of :mod:`dppca.privacy.private_bounds`), at the
    price of clipping up to about ``2τ/n`` of the rows rather than
    ``1 − q``. With a large ``nε`` the target is ``q`` itself. The
    result is floored at 1/2 (below that the release says little of
    the largest norms)."""
    q = check_quantile(quantile)
    eps = check_epsilon(epsilon)
    tau = (2.0 / eps) * (math.log(grid_size) + math.log(1.0 / beta))
    return max(0.5, min(q, 1.0 - tau / int(n)))


__all__ = [
    "band_utilities",
    "check_norms",
    "check_quantile",
    "check_real",
    "quantile_utilities",
    "tail_guarded_quantile",
]
