"""What every experiment of :mod:`dppca.book.experiments` does for one
release: a subset's rows and their second moment (formed once, sparse rows
kept sparse), one release of a mechanism on them, within its work cap if it
has one, and what became of it (:data:`OUTCOMES`); the random streams the
releases draw from.
"""

from __future__ import annotations

import time

import numpy as np

from ..linalg import second_moment, sparse_gram
from ..validation import as_generator, check_data
from .mechanism_table import Mechanism


def _check_sparse_rows(S) -> None:
    """The checks of ``check_data`` for a scipy.sparse matrix (finite
    entries, row norms <= 1)."""
    from ..validation import ROW_NORM_TOLERANCE

    if not np.all(np.isfinite(S.data)):
        raise ValueError("X contains NaN or Inf")
    norms = np.sqrt(np.asarray(S.multiply(S).sum(axis=1)).ravel())
    if norms.size and norms.max() > 1.0 + ROW_NORM_TOLERANCE:
        raise ValueError(
            f"X has {int((norms > 1.0 + ROW_NORM_TOLERANCE).sum())} rows with "
            f"Euclidean norm > 1 (largest {norms.max():.6g}); rescale "
            "explicitly "
            "(dppca.validation.scale_to_unit_ball) before running a mechanism"
        )


class _Subset:
    """Rows of one subset: its second moment at once (sparse product when
    possible, or ``A`` when the caller already has it), the dense rows only if
    a mechanism needs them."""

    def __init__(self, X, index=None, A=None):
        part = X if index is None else X[index]
        self.n = part.shape[0]
        if hasattr(part, "toarray"):
            _check_sparse_rows(part)
            self._dense = None
            if A is None:
                A = sparse_gram(part) / self.n
                A = (A + A.T) / 2
            self._sparse = part
        else:
            self._dense = check_data(part)
            if A is None:
                A = second_moment(self._dense)
        self.A = A
        self._caches = {}

    @property
    def X(self):
        if self._dense is None:
            self._dense = check_data(self._sparse.toarray())
        return self._dense

    @property
    def rows(self):
        """The rows as given: sparse rows stay sparse (checked)."""
        return self._sparse if self._dense is None else self._dense

    def cache(self, key: str) -> dict:
        """A dict for mechanism ``key`` that lives as long as these rows
        (e.g. a mechanism's deterministic function of the rows)."""
        return self._caches.setdefault(key, {})


def _release(
    mechanism: Mechanism, subset: _Subset, k, epsilon, delta, rng, work=None
):
    extra = mechanism._capped(work)
    if mechanism.from_moment is not None:
        return mechanism.from_moment(
            subset.A, subset.n, k, epsilon, delta, rng, **extra
        )
    if mechanism.from_rows is not None:
        return mechanism.from_rows(
            subset.rows,
            k,
            epsilon,
            delta,
            rng,
            subset.cache(mechanism.key),
            **extra,
        )
    return mechanism.release(subset.X, k, epsilon, delta, rng, **extra)


#: What became of a planned release, in the ``outcome`` column of every
#: experiment's results: it returned; it drew its mechanism's cap of
#: proposals without accepting (``q_F``/``accuracy`` NaN); or it was not
#: attempted (the mechanism had already reached its cap at the same or an
#: easier setting, or its cap there would exceed the work budget).
OUTCOMES = ("returned", "work cap", "not attempted")


def _streams(rng, mechanism_table: dict):
    """``(rng, capped)``: the experiment's generator, and the one that
    work-capped mechanisms draw from (None if there are none).

    After a mechanism reaches its cap, its remaining releases are skipped.
    Drawing their randomness from a stream of their own, split off once at
    the start, keeps every other mechanism's draws (and the subsets) the
    same whatever the caps are, for a given seed."""
    rng = as_generator(rng)
    capped = None
    if any(m.work_cap is not None for m in mechanism_table.values()):
        capped = np.random.default_rng(int(rng.integers(2**63)))
    return rng, capped


def _try_release(mechanism, subset, k, epsilon, delta, rng, capped=None):
    """``(V, "returned", seconds, proposals)``, or ``(None, "work cap",
    seconds, proposals)`` when a work-capped mechanism drew its cap
    (wall-clock ``seconds`` of the release, shown, never used to decide;
    ``proposals`` drawn, NaN for a mechanism without a cap)."""
    from .peers import WorkCapExceeded, WorkCount

    work = None
    if mechanism.work_cap is not None:
        rng, work = capped, WorkCount(mechanism.work_cap)
    start = time.perf_counter()
    try:
        V = _release(mechanism, subset, k, epsilon, delta, rng, work)
        outcome = OUTCOMES[0]
    except WorkCapExceeded:
        V, outcome = None, OUTCOMES[1]
    seconds = time.perf_counter() - start
    return V, outcome, seconds, np.nan if work is None else work.used


def _runs_of(runs: dict, key: str) -> int:
    """Releases per subset of mechanism ``key`` (``runs["default"]``, or 1,
    when the key is not listed)."""
    return int(runs.get(key, runs.get("default", 1)))
