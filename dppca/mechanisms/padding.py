"""Add/remove-one neighbours for the functional entry points: the keyword
``max_samples`` (issue 43).

By default (``max_samples=None``) a functional entry point such as
``dppca.analyze_gauss(X, ...)`` is private under replace-one neighbours: the
number of rows ``n`` is public, and it runs its mechanism on ``XᵀX/n``. With
``max_samples=N``, a public cap on the number of rows chosen without looking
at the data, it is private under **add/remove-one** neighbours (one row added
or removed, so ``n`` is private) for data sets of 1 to ``N`` rows. It uses
the padding argument of ``dppca.decomposition.add_remove``, as
``PrivatePCA(neighbours="add-remove", max_samples=N)`` does:

* the rows are padded with ``N − n`` zero rows, so that adding a row to the
  data set replaces a zero row of the padding: two add/remove neighbours of
  at most ``N`` rows have padded data sets that are replace-one neighbours
  of exactly ``N`` rows;
* the entry point computes the second moment of the padded rows, ``S/N``
  with ``S = Σ x_i x_iᵀ`` (``clipped_second_moment(X, 1,
  max_samples=N)``: its float-error shrink is the one for ``N`` rows, so
  two computed neighbouring matrices are at most ``√2/N`` apart in
  Frobenius norm), and runs its mechanism on it with ``n = N``: the
  replace-one guarantee at ``n = N`` is then the add/remove guarantee;
* only the entry points whose mechanism's registry declaration says why its
  proof carries over (``MechanismSpec.add_remove``, listed by
  ``dppca.decomposition.add_remove.add_remove_mechanisms()``) take a cap
  (:data:`ADD_REMOVE_KEYS`; a test keeps the two lists equal); the others
  refuse one;
* more than ``N`` rows is refused (``ValueError``), as is a cap too large
  for the float64 proof at ``d`` features, before anything random is drawn;
* the release's record names the relation
  (``dppca.guarantee_of(out).neighbours`` is
  :func:`dppca.privacy.guarantees.add_remove_relation` of ``N``, the words
  of ``PrivatePCA``'s records), so an accountant keeps it apart from
  replace-one releases.

**What is released.** The release is the one of the mechanism on ``S/N``:
a matrix release estimates ``XᵀX/N``, not ``XᵀX/n``, and ``n`` is not
released. The top-k subspace of ``S/N`` is that of ``XᵀX/n``, so a subspace
needs nothing more. To estimate ``XᵀX/n`` (or its eigenvalues), release a
private count, ``n̂, record = private_row_count(n, ε_c,
neighbours=out.guarantee.neighbours)``
(``dppca.privacy.private_bounds.private_row_count``: pure ε_c-DP, one
more release to account for) and multiply by ``N / max(1, n̂)``
(post-processing). The noise on ``XᵀX/n`` is then ``N/n`` times the noise
on ``XᵀX/N``, which was calibrated at ``n = N``: the noise on ``S`` itself
does not depend on ``N`` (Gaussian noise of standard deviation ``c·√2/N``
on ``S/N`` is ``c·√2`` on ``S``, as the replace-one release's ``c·√2/n``
on ``S/n`` is), so a generous cap costs no accuracy in the noise; it costs
the float shrink ``η``, which grows linearly with ``N`` (``4.7·10⁻⁵`` at
``2²⁷`` rows for ``d = 10``), and the exponential mechanisms' check of
``Nε/2`` against the samplers' range.

This module sits below the registry and :mod:`dppca.decomposition`, which
import the mechanism modules; it reads neither (no import cycle): the checks
it shares with ``PrivatePCA``'s live in :mod:`dppca.linalg.float_error`
(the cap, the rows against it, the float64 proof at it) and the relation's
words in :mod:`dppca.privacy.guarantees`.
"""

from __future__ import annotations

import numpy as np

from ..linalg.clipped_sums import clipped_second_moment
from ..linalg.float_error import (
    check_cap_shrink,
    check_max_samples,
    check_row_cap,
)
from ..linalg.moments import unit_rows_second_moment
from ..privacy.guarantees import add_remove_relation, with_neighbours
from ..validation import check_data

#: The registry key of each functional entry point's mechanism. Amin et
#: al.'s covariance release is the ``"amin"`` subspace plus Laplace noise on
#: the top-k eigenvalues, which that key's reason covers.
FUNCTION_KEYS = {
    "mod_sulq": "mod_sulq",
    "analyze_gauss": "analyze_gauss",
    "laplace_input_perturbation": "laplace",
    "wishart_input_perturbation": "wishart_published",
    "wishart_input_perturbation_delta": "wishart_delta",
    "ppca": "ppca",
    "amin_subspace": "amin",
    "amin_covariance": "amin",
}

#: The keys of :data:`FUNCTION_KEYS` whose ``MechanismSpec.add_remove``
#: gives a reason (the registry's ``ADD_REMOVE_REASONS``): their entry points
#: take ``max_samples``. Every key but the published Wishart mechanism,
#: which is not DP.
ADD_REMOVE_KEYS = frozenset(
    {"mod_sulq", "analyze_gauss", "laplace", "wishart_delta", "ppca", "amin"}
)


def check_cap(function: str, max_samples) -> int:
    """The checked cap of a call of ``function`` with ``max_samples`` (not
    ``None``), from public values only: an integer ``>= 1``, for a
    mechanism of :data:`ADD_REMOVE_KEYS`.

    Parameters
    ----------
    function : str
        The entry point's name, a key of :data:`FUNCTION_KEYS`.
    max_samples : int
        The public cap ``N``.

    Returns
    -------
    int
        ``N``.
    """
    key = FUNCTION_KEYS[function]
    if key not in ADD_REMOVE_KEYS:
        raise ValueError(
            f"{function} does not take max_samples: its mechanism {key!r} "
            "has no proof under add/remove neighbours (its "
            "MechanismSpec.add_remove gives no reason; it is not DP). Call "
            "it without max_samples (replace-one neighbours, n public)"
        )
    return check_max_samples(max_samples)


def check_rows(function: str, n: int, d: int, cap: int) -> None:
    """Refuse ``n`` rows above the cap, and a cap too large for the float64
    proof at ``d`` features (``float_error_shrink`` above its
    ``MAX_SHRINK``), before anything random is drawn. The guarantee covers
    data sets of 1 to ``cap`` rows: a call on more is outside the
    relation's domain (as a row of norm above one is)."""
    check_row_cap(n, cap, f"{function}'s", "drawn")
    check_cap_shrink(cap, d, "drawn")


def second_moment_for(
    function: str, X, max_samples, *, accept_sparse: bool = True
) -> tuple[np.ndarray, int]:
    """``(A, n)``: the second moment a functional entry point hands its
    mechanism, and the number of rows it runs with.

    ``max_samples=None``: ``unit_rows_second_moment(X)`` and the number of
    rows, the replace-one release (unchanged). An integer ``N``: after
    :func:`check_cap` and :func:`check_rows`, ``clipped_second_moment(X, 1,
    max_samples=N).matrix`` (the zero-padded ``S/N``) and ``N`` (module
    docstring). Nothing random is drawn here.

    Parameters
    ----------
    function : str
        The entry point's name, a key of :data:`FUNCTION_KEYS`.
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most 1 (checked, never rescaled).
    max_samples : int or None
        The public cap, or ``None`` for replace-one neighbours.
    accept_sparse : bool, default=True
        Whether a ``scipy.sparse`` ``X`` is accepted (with a cap).

    Returns
    -------
    tuple
        The ``d × d`` matrix and the ``n`` of its mechanism's calibration.
    """
    if max_samples is None:
        return unit_rows_second_moment(X), np.shape(X)[0]
    cap = check_cap(function, max_samples)
    if type(X).__module__.split(".")[0] == "dask":
        raise ValueError(
            f"{function}(max_samples=...) takes a numpy array or a "
            "scipy.sparse matrix: the padded second moment of a dask array "
            "is not implemented (compute it, or call without max_samples)"
        )
    X = check_data(X, accept_sparse=accept_sparse)
    check_rows(function, *X.shape, cap)
    return clipped_second_moment(X, 1.0, max_samples=cap).matrix, cap


def restated(value, max_samples):
    """``value`` (a released array, or a tuple of them) as returned to the
    caller: unchanged without a cap; with ``max_samples=N`` every record
    names the add/remove relation of ``N``
    (:func:`dppca.privacy.guarantees.add_remove_relation`), its calibration
    the one at ``n = N`` (module docstring)."""
    if max_samples is None:
        return value
    return with_neighbours(value, add_remove_relation(max_samples))


__all__ = [
    "ADD_REMOVE_KEYS",
    "FUNCTION_KEYS",
    "check_cap",
    "check_rows",
    "restated",
    "second_moment_for",
]
