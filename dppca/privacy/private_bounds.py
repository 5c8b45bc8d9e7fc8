"""Private row bounds: a quantile of the row norms, released with pure ε-DP.

Every mechanism of the book needs a *public* bound on the rows
(:class:`dppca.PrivatePCA`'s ``data_norm`` and ``centered_norm``). When no
bound is known in advance, this module spends a declared share ε of the budget
to read one from the data: a private estimate of the ``q``-th quantile of the
row norms ``‖x_i‖`` (:func:`norm_quantile`) or of the centred norms
``‖x_i − μ̂‖`` about a released mean (:func:`centred_norm_quantile`).

**Mechanism.** The candidates are a data-independent geometric grid
``b_1 < … < b_G`` between the public ``lower`` and ``upper`` (by default four
per octave, ratio ``2^{1/4}``), scored by integer utilities of sensitivity 1
(:mod:`dppca.privacy.quantile_scores`: ``u_j = −|c_j − ⌈q n⌉|`` with ``c_j``
the number of norms at most ``b_j``).
The candidate is selected by **permute-and-flip** (McKenna and Sheldon,
"Permute-and-Flip: a new mechanism for differentially private selection",
NeurIPS 2020, (MS20)): visit the candidates in a uniformly random order and
stop at the first candidate ``r`` whose coin, of probability
``p_r = exp(−ε (u* − u_r)/2)``, lands heads. A candidate of utility ``u*``
has ``p_r = 1``, so the walk stops. (MS20) prove it ε-DP for a utility of
sensitivity 1 (with ``p_r = exp(ε (u_r − u*)/(2Δ))`` for sensitivity Δ) and
that its expected utility is never below that of the exponential mechanism at
the same ε (and up to twice better); Ding et al. (2021) show it is report
noisy max with exponential noise.

**Exact, as a program.** The counts are integers, and row ``i``'s norm is
computed from row ``i`` alone (whatever its rounding error), so the
*computed* utilities have sensitivity 1 exactly; the selection is drawn
exactly by :func:`dppca.privacy.selection.permute_and_flip`.

**Accuracy.** Let ``τ = (2/ε)(ln G + ln(1/β))``. With probability at least
``1 − β`` the released ``b`` has ``u* − u(b) < τ``, i.e.::

    |c(b) − ⌈q n⌉| < min_j |c_j − ⌈q n⌉| + τ.

Proof: the walk outputs ``r`` only if ``r``'s coin is heads, so
``P(r) ≤ p_r``, and the candidates with ``u* − u_r ≥ τ`` have total
probability at most ``G exp(−ε τ/2) = β``. This is the exponential
mechanism's bound. The first term, the best the grid allows, is 0 when a
candidate lies between the ``⌈q n⌉``-th and the next norm; otherwise it is
at most the number of norms between the two candidates around the target
(or beyond ``[lower, upper]``, when the quantile lies outside the range).

**What is released**, as a :class:`PrivateBound`: the chosen bound, its grid
index, the grid and the target quantile, with the guarantee record; on
request (``count_epsilon``) also a private count of the rows above the
released bound (:func:`clipped_count`, a second pure release with its own
record), so that a bound that clips many rows is visible. The true counts and
the clipping rate at the bound are never released or stored: they are not
private.

**Small n.** With ``tail_guard=β`` the release aims at a band of quantiles
just below ``q`` (:func:`~dppca.privacy.quantile_scores.tail_guarded_quantile`
and :func:`~dppca.privacy.quantile_scores.band_utilities`, whose module says
why), so that the many empty candidates above the largest norm cannot
together outweigh the right one. :class:`dppca.PrivatePCA` uses it with
eight candidates per octave.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse

from ..float_state import owns_float_state
from ..linalg import float_error, rows
from ..validation import as_generator, check_epsilon
from . import noise
from .guarantees import Release
from .quantile_scores import (
    band_utilities,
    check_norms,
    check_quantile,
    check_real,
    quantile_utilities,
    tail_guarded_quantile,
)
from .selection import THEOREM, permute_and_flip

#: Default density of the grid: candidates per doubling of the bound.
POINTS_PER_OCTAVE = 4

#: Fewest and most candidates.
MIN_GRID_POINTS = 2
MAX_GRID_POINTS = 10_000

CHAPTER = "chapter 13"
ROW_BOUND = "any rows (norms only)"
COUNT_THEOREM = (
    "geometric mechanism (Ghosh, Roughgarden and Sundararajan 2009), "
    "ε-DP for a count of sensitivity 1"
)


@dataclass(frozen=True, eq=False)
class PrivateBound:
    """A row bound released by :func:`norm_quantile` or
    :func:`centred_norm_quantile`.

    Attributes
    ----------
    bound : float
        The released bound, one of the ``grid`` values.
    index : int
        Its position in ``grid``.
    quantile : float
        The target quantile ``q`` of the norms (public).
    grid : ndarray of shape (G,)
        The data-independent candidates, increasing (read-only).
    guarantee : Release
        The guarantee record: pure ε-DP, exact sampler, proved.
    clipped : int or None
        With ``count_epsilon``: the number of rows whose norm exceeds
        ``bound`` (the rows a fit clips), plus exact discrete Laplace
        noise (:func:`clipped_count`); a private release, may be negative.
        ``None`` when no count was asked for.
    count_guarantee : Release or None
        The count's record (pure ε-DP), ``None`` without a count.
    """

    bound: float
    index: int
    quantile: float
    grid: np.ndarray = field(repr=False)
    guarantee: Release
    clipped: int | None = None
    count_guarantee: Release | None = None

    def __float__(self) -> float:
        return float(self.bound)


# ------------------------------------------------------------------------------
# Checks and the grid
# ------------------------------------------------------------------------------


def candidate_grid(lower, upper, grid_points=None) -> np.ndarray:
    """The candidates: ``G`` points in geometric progression from ``lower``
    to ``upper`` (both included).

    Parameters
    ----------
    lower, upper : float
        Public bounds, ``0 < lower < upper < ∞``, chosen without looking at
        the data.
    grid_points : int, optional
        ``G``, between 2 and 10,000. Default: four per octave,
        ``⌈4 log₂(upper/lower)⌉ + 1`` (ratio at most ``2^{1/4}``; at most
        8,393 points, as float64 spans fewer than 2,099 octaves).

    Returns
    -------
    ndarray of shape (G,)
        Strictly increasing, read-only.
    """
    lo, hi = check_real(lower, "lower"), check_real(upper, "upper")
    if not (math.isfinite(lo) and math.isfinite(hi) and 0.0 < lo < hi):
        raise ValueError(
            "need public bounds 0 < lower < upper, both finite; got "
            f"lower={lower!r}, upper={upper!r}"
        )
    if grid_points is None:
        octaves = math.log2(hi) - math.log2(lo)
        grid_points = max(
            MIN_GRID_POINTS, math.ceil(POINTS_PER_OCTAVE * octaves) + 1
        )
    elif isinstance(grid_points, (bool, np.bool_)) or not isinstance(
        grid_points, numbers.Integral
    ):
        raise TypeError(f"grid_points must be an integer; got {grid_points!r}")
    G = int(grid_points)
    if not MIN_GRID_POINTS <= G <= MAX_GRID_POINTS:
        raise ValueError(
            f"grid_points must be in [{MIN_GRID_POINTS}, {MAX_GRID_POINTS}]; "
            f"got {grid_points!r}"
        )
    grid = np.geomspace(lo, hi, G)
    grid[0], grid[-1] = lo, hi
    if not np.all(np.diff(grid) > 0):
        raise ValueError(
            f"{G} candidates between {lo!r} and {hi!r} are not distinct in "
            "float64; use fewer grid_points"
        )
    grid.setflags(write=False)
    return grid


def _as_matrix(X):
    """Dense float64 2-D array or float64 CSR matrix (never densified)."""
    if scipy.sparse.issparse(X):
        X = scipy.sparse.csr_matrix(X, dtype=float)
    else:
        X = np.asarray(X, dtype=float)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ValueError(
            f"X must be a 2-D array with at least one row and one column; got "
            f"shape {X.shape}"
        )
    return X


def _finite_norms(norms, what: str) -> np.ndarray:
    if not np.all(np.isfinite(norms)):
        raise ValueError(
            f"{what} has rows with NaN or Inf (or a norm beyond float64)"
        )
    return norms


def _norms_of(X, scale: float) -> np.ndarray:
    """Row norms of a matrix, or a 1-D array of norms checked as is. Rows far
    beyond ``scale`` (the largest candidate) are first scaled down by a power
    of two (:func:`dppca.linalg.rows.tame_rows`): they stay above every
    candidate,
    and a finite row whose norm would overflow float64 is counted like any
    other instead of being refused."""
    if not scipy.sparse.issparse(X) and np.ndim(X) == 1:
        return check_norms(X)
    X = rows.tame_rows(_as_matrix(X), scale)
    return _finite_norms(rows.row_norms(X), "X")


# ------------------------------------------------------------------------------
# The releases
# ------------------------------------------------------------------------------


def _plan(quantile, epsilon, lower, upper, grid_points, label):
    """Check the public parameters (before any data is read) and build the
    grid and the guarantee record."""
    q = check_quantile(quantile)
    eps = check_epsilon(epsilon)
    grid = candidate_grid(lower, upper, grid_points)
    record = Release(
        label,
        "pure",
        eps,
        noise="safe",
        sampler="exact",
        proved=True,
        theorem=THEOREM,
        chapter=CHAPTER,
        row_bound=ROW_BOUND,
    )
    return q, grid, record


def quantile_guarantee(epsilon, label: str = "private quantile of norms"):
    """The guarantee record a :func:`norm_quantile` or
    :func:`centred_norm_quantile` release at ``epsilon`` will carry, known
    before any data is read (for an accountant charged before the draw)."""
    return _plan(0.5, epsilon, 1.0, 2.0, 2, label)[2]


def _count_record(label: str, epsilon, neighbours: str | None) -> Release:
    """The record of a count with exact discrete Laplace noise (the
    geometric mechanism) at ``epsilon``, under ``neighbours`` (the record's
    default, replace-one, when ``None``)."""
    extra = {} if neighbours is None else {"neighbours": neighbours}
    return Release(
        label,
        "pure",
        check_epsilon(epsilon),
        noise="safe",
        sampler="exact",
        proved=True,
        theorem=COUNT_THEOREM,
        chapter=CHAPTER,
        row_bound=ROW_BOUND,
        **extra,
    )


def _geometric_noise(epsilon: float, rng) -> int:
    """``Z`` exact discrete Laplace of scale ``t = ⌈1/ε⌉``: the noise of
    both counts (``P(z)/P(z ± 1) ≤ exp(1/t) ≤ exp(ε)``)."""
    t = math.ceil(1.0 / epsilon)
    if t > noise.MAX_LAPLACE_GRID_SCALE:
        raise ValueError(f"epsilon={epsilon!r} is too small for the count")
    return int(noise.discrete_laplace(t, 1, as_generator(rng))[0])


def count_guarantee(epsilon) -> Release:
    """The record of :func:`clipped_count` at ``epsilon`` (known before the
    data is read)."""
    label = "private count of clipped rows (discrete Laplace)"
    return _count_record(label, epsilon, None)


@owns_float_state
def clipped_count(norms, bound, epsilon, rng=None) -> tuple[int, Release]:
    """``#{i : norm_i > bound} + Z`` with ``Z`` exact discrete Laplace of
    scale ``t = ⌈1/ε⌉`` (``P(Z = z) ∝ exp(−|z|/t)``), and its record.

    For a fixed (public or released) ``bound`` the count changes by at most
    one when one row is replaced, and ``P(z)/P(z ± 1) ≤ exp(1/t) ≤ exp(ε)``:
    pure ε-DP (the geometric mechanism; Ghosh, Roughgarden and Sundararajan
    2009), drawn exactly by :func:`dppca.privacy.noise.discrete_laplace`.
    Its standard deviation is about ``√2/ε`` rows."""
    record = count_guarantee(epsilon)
    norms = check_norms(norms)
    true = int(np.sum(norms > float(bound)))
    return true + _geometric_noise(record.epsilon, rng), record


def row_count_guarantee(epsilon, neighbours: str | None = None) -> Release:
    """The record of :func:`private_row_count` at ``epsilon`` (known before
    the data is read), under the relation ``neighbours`` (the record's
    default, replace-one, when ``None``)."""
    label = "private count of rows (discrete Laplace)"
    return _count_record(label, epsilon, neighbours)


@owns_float_state
def private_row_count(
    n_rows, epsilon, rng=None, neighbours: str | None = None
) -> tuple[int, Release]:
    """``n + Z``: the number of rows with exact discrete Laplace noise of
    scale ``t = ⌈1/ε⌉``, and its record (:func:`row_count_guarantee`).

    Adding or removing one row moves ``n`` by one, so this is the geometric
    mechanism of :func:`clipped_count` (same sampler, same proof) on a count
    of sensitivity 1 under add/remove neighbours: pure ε-DP. (Under
    replace-one ``n`` is public and the count is pointless.) Its standard
    deviation is about ``√2/ε`` rows; the result may be below zero or above
    the true count."""
    record = row_count_guarantee(epsilon, neighbours)
    if isinstance(n_rows, (bool, np.bool_)) or not isinstance(
        n_rows, numbers.Integral
    ):
        raise TypeError(f"n_rows must be an integer; got {n_rows!r}")
    if n_rows < 0:
        raise ValueError(f"n_rows must be >= 0; got {n_rows!r}")
    return int(n_rows) + _geometric_noise(record.epsilon, rng), record


def _draw(
    norms, q, grid, record, rng, tail_guard=None, count_epsilon=None
) -> PrivateBound:
    rng = as_generator(rng)
    if tail_guard is None:
        utilities = quantile_utilities(norms, grid, q)
    else:
        n, eps = norms.size, record.epsilon
        q = tail_guarded_quantile(q, n, eps, grid.size, tail_guard)
        tau = (2.0 / eps) * (math.log(grid.size) + math.log(1 / tail_guard))
        utilities = band_utilities(norms, grid, max(0.5, q - tau / n), q)
    index = permute_and_flip(utilities, record.epsilon, rng)
    bound = float(grid[index])
    if count_epsilon is None:
        return PrivateBound(bound, index, q, grid, record)
    clipped, counted = clipped_count(norms, bound, count_epsilon, rng)
    return PrivateBound(bound, index, q, grid, record, clipped, counted)


@owns_float_state
def norm_quantile(
    X,
    quantile,
    epsilon,
    *,
    lower,
    upper,
    grid_points=None,
    rng=None,
    tail_guard=None,
    count_epsilon=None,
) -> PrivateBound:
    """An ε-DP estimate of the ``quantile``-th quantile of the row norms.

    Permute-and-flip (MS20) over a data-independent geometric grid of
    candidate bounds, with utility ``−|#{i : ‖x_i‖ ≤ b} − ⌈q n⌉|``, drawn
    exactly (module docstring). Pure ε-DP under replace-one neighbours (n
    public), for any rows: nothing is assumed of their norms.

    Parameters
    ----------
    X : array_like of shape (n, d), scipy.sparse matrix, or shape (n,)
        The rows (dense or sparse; norms by
        :func:`dppca.linalg.rows.row_norms`),
        or directly their norms, one per person, finite and ``>= 0``.
    quantile : float
        ``q`` in (0, 1): the share of rows the bound should cover, e.g.
        0.95 (the rest are clipped by a mechanism using the bound).
    epsilon : float
        Budget of this release, > 0.
    lower, upper : float
        Public range of the candidates, ``0 < lower < upper``, chosen
        without looking at the data. The release is always in it. When
        some norms lie inside the range and more than a share ``1 − q``
        exceed ``upper``, the utilities favour ``upper``, by a margin that
        grows with ``n ε`` (with few rows the release may still fall far
        below it); when every norm lies above ``upper`` (or below
        ``lower``), all candidates score alike and the release is close
        to uniform over the grid, so choose a range that holds the
        quantile.
    grid_points : int, optional
        Number of candidates ``G`` in [2, 10,000]; default four per octave
        (:func:`candidate_grid`). The error bound grows as ``ln G``.
    rng : numpy.random.Generator, int or None
        Randomness (:func:`dppca.validation.as_generator`).
    tail_guard : float or None
        ``β``: aim at the band of quantiles ``[q' − τ/n, q']`` (floored at
        1/2) with ``q'``
        :func:`~dppca.privacy.quantile_scores.tail_guarded_quantile` (public
        functions of ``n``, ε and ``G``;
        :func:`~dppca.privacy.quantile_scores.band_utilities`), so that the
        many empty
        candidates above the largest norm cannot together outweigh the
        right one. ``None`` (the default): aim at ``quantile``.
    count_epsilon : float or None
        Also release the number of rows above the released bound with this
        ε (:func:`clipped_count`; a second pure release, record in
        ``count_guarantee``). ``None``: no count.

    Returns
    -------
    PrivateBound
        ``bound`` (a grid value), ``index``, ``quantile`` (the target aimed
        at), ``grid`` and the guarantee record (pure ε-DP, safe, exact,
        proved); the private count of clipped rows when asked for. The true
        counts and clipping rate are never returned: they are not private.

    Notes
    -----
    With probability at least ``1 − β`` the released ``b`` has
    ``|#{i : ‖x_i‖ ≤ b} − ⌈q n⌉| < g + (2/ε)(ln G + ln(1/β))``, where
    ``g`` is the same distance for the best candidate of the grid (0 when a
    candidate separates the ``⌈q n⌉``-th norm from the next one). This is
    the exponential mechanism's bound, which permute-and-flip satisfies
    (module docstring). For ``n = 10⁴``, ε = 0.1, G = 41 and β = 0.05 the
    slack is about 134 rows, 1.3% of the data.

    References
    ----------
    .. (MS20) R. McKenna and D. Sheldon, "Permute-and-Flip: A new mechanism
       for differentially private selection", NeurIPS 2020.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).standard_normal((1000, 5))
    >>> b = norm_quantile(X, 0.9, 0.5, lower=0.1, upper=100.0, rng=1)
    >>> b.guarantee.kind, b.guarantee.proved
    ('pure', True)
    >>> 2.0 < b.bound < 5.0
    True
    """
    q, grid, record = _plan(
        quantile,
        epsilon,
        lower,
        upper,
        grid_points,
        "private norm quantile (permute-and-flip)",
    )
    norms = _norms_of(X, float(grid[-1]))
    return _draw(norms, q, grid, record, rng, tail_guard, count_epsilon)


@owns_float_state
def centred_norm_quantile(
    X,
    mean,
    quantile,
    epsilon,
    *,
    lower,
    upper,
    pre_clip=None,
    grid_points=None,
    rng=None,
    tail_guard=None,
    count_epsilon=None,
) -> PrivateBound:
    """An ε-DP estimate of the ``quantile``-th quantile of ``‖x_i − μ̂‖``.

    :func:`norm_quantile` on the centred norms, for a centre ``μ̂`` that is
    public or already released (a private mean: this release is then a
    post-processing of it and composes with it adaptively). Each centred norm
    depends on its own row and ``μ̂`` only, so the utilities still have
    sensitivity 1.

    Parameters
    ----------
    X : array_like of shape (n, d) or scipy.sparse matrix
        The rows. Sparse rows are densified a chunk at a time only.
    mean : array_like of shape (d,)
        The released (or public) centre ``μ̂``, finite.
    quantile, epsilon, lower, upper, grid_points, rng, tail_guard, \
    count_epsilon
        As in :func:`norm_quantile` (the count is of the centred norms above
        the released bound: the rows a fit clips).
    pre_clip : float, optional
        Clip each row to this norm before centring, as
        :class:`dppca.PrivatePCA` does with the ``data_norm`` ``R`` its
        private mean used (:func:`dppca.linalg.rows.clip_factors`, the factor of
        its second moment). Pass that ``R``: the quantile is then that of
        the centred rows ``PrivatePCA`` clips to ``centered_norm``.
        ``None``: no clipping.

    Returns
    -------
    PrivateBound
        As in :func:`norm_quantile`; a candidate for ``centered_norm``.

    Notes
    -----
    Each row is clipped, then centred (one float subtraction per entry),
    then its norm taken: never through ``‖x‖² − 2⟨x, μ̂⟩ + ‖μ̂‖²``, which
    cancels catastrophically when ``‖μ̂‖`` is large
    (:mod:`dppca.linalg.float_error`).

    Examples
    --------
    >>> import numpy as np
    >>> X = 3.0 + np.random.default_rng(0).standard_normal((1000, 5))
    >>> mu = np.full(5, 3.0)  # e.g. a private mean
    >>> b = centred_norm_quantile(
    ...     X, mu, 0.9, 0.5, lower=0.1, upper=100.0, pre_clip=20.0, rng=1
    ... )
    >>> 2.0 < b.bound < 5.0
    True
    """
    q, grid, record = _plan(
        quantile,
        epsilon,
        lower,
        upper,
        grid_points,
        "private centred norm quantile (permute-and-flip)",
    )
    X = _as_matrix(X)
    n, d = X.shape
    centre = np.asarray(mean, dtype=float).ravel()
    if centre.shape != (d,) or not np.all(np.isfinite(centre)):
        raise ValueError(
            f"mean must be a finite vector of length n_features = {d}; got "
            f"shape {centre.shape}"
        )
    if np.max(np.abs(centre)) > float_error.MAX_MAGNITUDE:
        raise ValueError(
            "mean has a coordinate beyond "
            f"{float_error.MAX_MAGNITUDE:g}: x − mean could overflow; rescale "
            "the data"
        )
    if pre_clip is not None:
        pre_clip = check_real(pre_clip, "pre_clip")
    sparse = scipy.sparse.issparse(X)
    step = float_error.default_chunk_rows(d)
    norms = np.empty(n)
    scale = max(float(grid[-1]), float(np.linalg.norm(centre)), pre_clip or 0)
    for start in range(0, n, step):
        stop = min(start + step, n)
        block = X[start:stop].toarray() if sparse else X[start:stop]
        # any finite row: no overflow, and within reach of the pre-clip
        block = rows.tame_rows(block, scale, pre_clip)
        if pre_clip is not None:
            raw = _finite_norms(rows.row_norms(block), "X")
            factors = rows.clip_factors(raw, pre_clip, True, n_features=d)
            block = block * factors[:, None]
        centred = block - centre
        norms[start:stop] = _finite_norms(rows.row_norms(centred), "X − mean")
    return _draw(norms, q, grid, record, rng, tail_guard, count_epsilon)


__all__ = [
    "clipped_count",
    "count_guarantee",
    "private_row_count",
    "row_count_guarantee",
    "quantile_guarantee",
    "MAX_GRID_POINTS",
    "MIN_GRID_POINTS",
    "POINTS_PER_OCTAVE",
    "PrivateBound",
    "candidate_grid",
    "centred_norm_quantile",
    "norm_quantile",
]
