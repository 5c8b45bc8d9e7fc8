"""The held-out score of a :class:`dppca.PrivateCovariance` in the private
selection of ``dppca.budgeted_grid_search``.

A private choice sums one bounded term per held-out row
(``dppca.model_selection_scoring``): each term must lie in ``[0, 1]``
and read the released fold model and that row only. For a PrivatePCA the
term is the variance the released subspace captures. For a covariance it is
how close the released matrix is to the row's own outer product:

``s(x) = clip(1 − ‖y yᵀ − C‖_F² / (2 B⁴), 0, 1)``,  ``y = clip_B(x − ℓ)``,

with ``ℓ = location_`` and ``C = covariance_`` of the fold's released model,
``clip_B`` the package's clipping of a row to norm ``B``
(:func:`dppca.linalg.rows.clip_rows`, exact for rows of any finite length)
and ``B`` the public :func:`covariance_score_scale`, the same for every
candidate. A row with NaN or Inf (after the steps before the covariance)
scores 0.

**Bounded.** ``‖y‖ ≤ B``. For a positive semidefinite ``C``,
``‖y yᵀ − C‖_F² = ‖y‖⁴ − 2 yᵀCy + ‖C‖_F² ≤ ‖y‖⁴ + ‖C‖_F²``, and
``‖C‖_F ≤ tr C``; so whenever ``tr C ≤ B²`` (every second moment of rows of
norm at most ``B`` meets it) the error is at most ``2B⁴`` and the clip at 0
never acts. A release noisier than that can score below 0 before the clip;
the clip makes every term lie in ``[0, 1]`` whatever ``C`` is, so the
bound the privacy argument uses does not depend on it.

**Sensitivity.** ``s(x)`` reads the released ``(ℓ, C)`` and the row ``x``
alone (rows are scored in blocks whose sizes depend on ``n`` only). For
fixed fold models, replacing one row changes its own terms only, each by at
most 1, so the utility ``Σ ⌊L s(x)⌋`` has sensitivity ``L · max_i c_i``
under replace-one neighbours, ``L`` under add/remove neighbours over the
random folds, and ``m L`` per person (each person's mean term counted for
at most ``m`` rows, :mod:`dppca.model_selection_persons`): the same as
PrivatePCA's score, so the search's selection record, calibration and
composition argument carry over unchanged.

**What it measures.** For held-out rows drawn from the same law as the
training rows, with ``M = E[y yᵀ]``, ``E‖y yᵀ − C‖_F² = E‖y yᵀ − M‖_F² + ‖M −
C‖_F²``: the mean score is a constant minus the squared Frobenius error of
the released matrix about its own centre, in units of ``2B⁴``. For
candidates that share the kind of centre the constant is (nearly) the same,
and the choice favours the smaller error, the figure chapter 18 reports.

**The radius ``B``.** Any public radius gives a score in ``[0, 1]`` with
the sensitivity above; the choice decides only what is measured and how
finely. ``B`` is the largest radius the candidates state for their centred
rows: ``centered_norm`` when it is a number (a private mean), else
``data_norm = R``, also for ``centered_norm="triangle"``, whose fit divides
by up to ``2R``. Rows of norm at most ``R`` have ``E‖x − μ‖² ≤ E‖x‖² ≤
R²``, so the rows of a centred model lie mostly within ``R`` of its
centre, and ``2B⁴`` with ``B = 2R`` would be 16 times looser: the score's
differences between candidates, and so the selection's signal over its
noise, shrink as ``B⁻⁴``. A row farther than ``B`` from a model's centre
is clipped in the score, for every candidate alike.

**Why one clip for every candidate.** The fit clips each row to the
candidate's own ``data_norm``. Scoring against rows clipped that way would
reward clipping: a candidate with a tiny ``data_norm`` shrinks both the
rows it is scored on and its release towards 0 and would score near 1.
Clipping the held-out rows to one public ``B`` for every candidate
scores every candidate against the same rows, so the bias of heavy
clipping counts against it, as the noise of a generous bound does.
"""

from __future__ import annotations

import numpy as np

from .float_state import owns_float_state
from .linalg.rows import clipped_finite_rows


def _centred_bound(cov) -> float:
    """The radius one PrivateCovariance candidate states for its centred
    rows, from its parameters only: ``centered_norm`` when it is a number
    (with a private mean), else ``R = data_norm`` (module docstring)."""
    value = cov.centered_norm
    private = isinstance(cov.center, (bool, np.bool_)) and cov.center
    if private and not (value is None or isinstance(value, str)):
        return float(value)
    return float(cov.data_norm)


def covariance_score_scale(covariances) -> float:
    """The public radius ``B`` of the covariance score, common to every
    candidate: the largest radius the candidates' PrivateCovariance steps
    state for their centred rows (``centered_norm`` when a number, else
    ``data_norm``), from their parameters only (module docstring).

    Parameters
    ----------
    covariances : list of PrivateCovariance
        The final step of every candidate (unfitted: parameters only).

    Returns
    -------
    float
        ``B``, the radius the held-out rows are clipped to about each
        model's ``location_``.
    """
    return max(_centred_bound(cov) for cov in covariances)


@owns_float_state
def covariance_row_scores(cov, Z, scale, block=4096) -> np.ndarray:
    """The bounded per-row score of rows ``Z`` under a fitted
    :class:`dppca.PrivateCovariance` (module docstring):
    ``s(x) = clip(1 − ‖y yᵀ − C‖_F²/(2B⁴), 0, 1)``, ``y = clip_B(x − ℓ)``,
    ``B = scale``.

    It reads only the released ``location_`` and ``covariance_`` and the row
    itself, runs under the package's float state, and neither warns nor
    raises whatever the row: a row of any finite length is clipped exactly;
    a row with NaN or Inf, or whose difference with ``ℓ`` overflows,
    scores 0.

    Parameters
    ----------
    cov : PrivateCovariance
        The fitted fold model.
    Z : array-like or sparse matrix of shape (n_rows, n_features)
        The held-out rows (after the steps before the covariance).
    scale : float
        The public :func:`covariance_score_scale` ``B``.
    block : int, default=4096
        Rows scored at a time.

    Returns
    -------
    ndarray of shape (n_rows,)
        Scores in ``[0, 1]``.
    """
    B = float(scale)
    location = np.asarray(cov.location_, dtype=np.float64)
    K = np.asarray(cov.covariance_, dtype=np.float64) / (B * B)
    K = (K + K.T) / 2
    k2 = float(np.sum(K * K))  # ‖C‖_F²/B⁴ (inf for an overflowing C)
    out = np.empty(Z.shape[0])
    for start in range(0, Z.shape[0], block):
        rows = Z[start : start + block]
        rows = rows.toarray() if hasattr(rows, "toarray") else rows
        rows = np.asarray(rows, dtype=np.float64)
        # overflowing differences count as non-finite: scored 0
        Y, finite = clipped_finite_rows(rows - location, B)
        U = Y / B  # ‖u‖ ≤ 1: the error in units of B⁴, without overflow
        u2 = np.sum(U * U, axis=1)
        error = u2 * u2 - 2 * np.sum((U @ K) * U, axis=1) + k2
        out[start : start + block] = np.where(finite, 1 - error / 2, 0.0)
    return np.clip(np.nan_to_num(out, nan=0.0), 0.0, 1.0)


def is_covariance(step) -> bool:
    """Whether the final step of a search is a PrivateCovariance (scored
    by :func:`covariance_row_scores`)."""
    from .covariance.estimator import PrivateCovariance

    return isinstance(step, PrivateCovariance)


__all__ = [
    "covariance_row_scores",
    "covariance_score_scale",
    "is_covariance",
]
