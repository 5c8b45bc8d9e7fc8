"""Several rows per person for :class:`~dppca.PrivateCovariance`:
``fit(X, groups=g)`` with ``max_rows_per_person=m`` (issue 43).

Two data sets are then neighbours when they hold the same number ``N`` of
persons (public) and differ in all the rows of one person, each person with
at most ``m`` rows. The argument is :class:`dppca.PrivatePCA`'s, in
:mod:`dppca.decomposition.persons`, whose functions this module imports
(the labels' codes, the choice of at most ``m`` rows per person from the
fit's own generator, the padding to ``N·m`` rows, the wording of the
relation): a mechanism that works from the padded second moment

    A = (1/N) Σ_p A_p,    A_p = (1/m) Σ z zᵀ over the kept rows z of p,

and whose proof bounds a convex function of the change of ``A`` (zero at
zero) is private per person when it is calibrated at ``n = N``, because
each ``A_p`` lies in the convex hull of ``{z zᵀ : ‖z‖ ≤ 1}`` and such a
function is largest at its extreme points, two single rows: the row-level
sensitivity at ``n = N``. The float64 computation is that of ``N·m`` rows,
whose shrink :mod:`dppca.linalg.float_error` chooses for ``N·m`` summands
(step 4 of :mod:`dppca.decomposition.persons`: the computed matrices of
two neighbours differ by at most ``√2/N`` in Frobenius norm).

**Mechanisms** (:func:`person_covariance_mechanisms`):

* ``"analyze_gauss"``: holds. Gaussian noise on the upper triangle of
  ``A``, calibrated to the ℓ₂ norm of the upper triangle of the change of
  ``A`` (a norm of a linear map of the change), so at ``n = N`` it is
  calibrated to ``√2/N``, the largest change one person makes.
* ``"trace_sensitive"``: refused. It reads the rows, not ``A``, and two of
  its steps count them: the histogram of the rows' norms over dyadic levels
  is calibrated to ``√2`` (one row leaves a bin and enters another), and a
  person moves up to ``m`` rows, so up to ``m√2``; its trace step divides
  by the number of rows it reads. No padding argument hands it ``A``.
* any other mechanism (a registration at run time included) runs with
  ``groups`` only if its spec gives a per-person reason
  (``MechanismSpec.person_level``) and its covariance hooks read ``A``.

**Centring**, each checked against the argument above:

* ``center=False``: the padding rows are zero; ``A`` as above. Holds.
* a public centre ``c``: the padding rows equal ``c``, zero once centred,
  and ``R`` bounds ``‖x − c‖``. Holds.
* ``center=True`` (the private mean): the sum of the rows clipped to ``R``
  over the ``N·m`` rows padded with zero rows, divided by ``N·m``: the mean
  over persons of ``(1/m) Σ clip_R(x)``. One person replaced moves the
  computed sum by at most ``2mR`` (``m`` rows of norm at most ``R`` on each
  side; the margins count the ``N·m`` summands the sum has), so the mean
  moves by at most ``2R/N``: its noise is calibrated at ``n = N``. The
  matrix is then taken about the released ``μ̂``: the padding rows equal
  ``μ̂`` (of norm at most ``R`` after the projection, so the pre-clip leaves
  them and they are zero once centred), and ``B`` (``"triangle"``, a number
  or ``None``) is a function of ``μ̂`` and public parameters. For every value
  of ``μ̂`` each ``A_p`` is again in the hull above, so the matrix is private
  per person for every released mean, and the two releases compose
  adaptively. Holds.

Every centring holds, so a fit with ``groups`` refuses, from public
parameters before any charge: a mechanism outside
:func:`person_covariance_mechanisms`; ``groups`` without
``max_rows_per_person`` or the other way round; ``neighbours="add-remove"``
with either (that relation is between data sets of rows, as for
``PrivatePCA``); a padded data set too large to allocate.

**The estimand.** With ``groups`` the released matrix estimates ``B²·A``,
the *padded per-person second moment* about ``location_``: persons weigh
equally, each through the mean of ``(x − c)(x − c)ᵀ`` over its kept rows
times ``r/m`` for a person with ``r ≤ m`` kept rows (its padding counts as
``m − r`` rows at the centre). It is not the covariance of the rows: a
person with many rows weighs no more than one with ``m``, and persons with
fewer than ``m`` rows pull the matrix towards zero. The private mean is
likewise the padded mean over persons, ``(1/(N·m)) Σ clip_R(x)``. The fit
keeps this in ``estimand_`` and the number of persons in ``n_persons_``.

**The cost.** The noise is calibrated to ``√2/N`` where a fit per row has
``√2/n``: about ``n/N`` (the mean number of rows per person) times the
noise of a row-level fit at the same ε, on a matrix that the padding
shrinks by the share ``(kept rows)/(N·m)``. A row-level fit on the same
rows protects a row only: a person of ``r`` rows gets, by group privacy,
about ``r`` times its ε.
"""

from __future__ import annotations

from ..decomposition.add_remove import check_neighbours
from ..decomposition.persons import (
    Persons,
    check_padded_size,
    check_pairing,
    person_codes,
    person_level,
    rows_text,
)
from ..mechanisms import registry


def person_covariance_mechanisms() -> dict[str, str]:
    """The mechanisms ``PrivateCovariance`` runs with ``groups``, each with
    why its row-level proof holds per person at ``n = N`` (module
    docstring): those it runs (``dppca.covariance.plan.mechanisms``) whose
    spec gives a per-person reason and whose covariance hooks read the
    second moment ``A`` only (``reads_rows`` false).

    Returns
    -------
    dict
        Mechanism key to the reason, in words.
    """
    reasons = person_level()
    return {
        key: reasons[key]
        for key, spec in registry.MECHANISMS.items()
        if spec.covariance is not None
        and key in reasons
        and not spec.covariance.reads_rows
    }


def check_person_covariance_mechanism(name) -> None:
    """Refuse, with ``groups``, a mechanism outside
    :func:`person_covariance_mechanisms` (an unknown name is left to the
    plan's own check, which words it)."""
    spec = registry.MECHANISMS.get(name) if isinstance(name, str) else None
    if spec is None or spec.covariance is None:
        return
    allowed = person_covariance_mechanisms()
    if name in allowed:
        return
    why = (
        "it reads the rows, not the padded second moment, and its proof is "
        "about one row of its input, while a person is up to "
        "max_rows_per_person rows"
        if spec.covariance.reads_rows
        else "its spec gives no per-person reason"
    )
    if name == "trace_sensitive":
        why += (
            " (its histogram of the rows' norms is calibrated to √2, one "
            "row moved; a person moves up to m rows, so up to m√2)"
        )
    raise ValueError(
        f"mechanism={name!r} has no per-person guarantee in "
        f"PrivateCovariance: {why}. With groups use one of "
        f"{sorted(allowed)}. Nothing was charged or drawn."
    )


def check_relation(est, groups) -> int | None:
    """The bound ``m`` of a fit with ``groups`` (``None`` without), after
    refusing add/remove neighbours with ``groups`` or
    ``max_rows_per_person`` (as :class:`dppca.PrivatePCA` does) and an
    unpaired ``groups`` or ``max_rows_per_person``. ``groups`` is only
    tested against ``None`` here."""
    if check_neighbours(est) == "add-remove" and (
        groups is not None or est.max_rows_per_person is not None
    ):
        raise ValueError(
            "neighbours='add-remove' is a relation between data sets of "
            "rows; groups and max_rows_per_person give per-person "
            "replace-one neighbours: use one or the other; nothing was "
            "charged"
        )
    return check_pairing(est, groups)


def person_plan(est, N, d: int) -> int | None:
    """The checks of the plan of a fit on ``N`` persons (``None``: no
    groups) of ``d`` features, from public quantities: the bound ``m``
    (``None`` without groups)."""
    m = check_relation(est, N)
    if m is None:
        return None
    check_person_covariance_mechanism(est.mechanism)
    if int(N) < 1:
        raise ValueError(f"a fit with groups needs a person; got N = {N}")
    check_padded_size(int(N), m, d)
    return m


def covariance_persons(est, groups, n: int, d: int) -> Persons | None:
    """The persons of a fit with ``groups`` (``None`` without): every
    public check first (``check_relation``, the mechanism), then the
    labels' codes and the padded size, all before any charge.

    Parameters
    ----------
    est : PrivateCovariance
        The estimator (its parameters only are read).
    groups : array-like of shape (n,) or None
        The person of each row.
    n, d : int
        The shape of the data.

    Returns
    -------
    Persons or None
        The codes, ``N`` and ``m``.
    """
    m = check_relation(est, groups)
    if m is None:
        return None
    check_person_covariance_mechanism(est.mechanism)
    codes, N = person_codes(groups, n)
    check_padded_size(N, m, d)
    return Persons(codes, N, m)


def delta_message(delta, N: int) -> str | None:
    """The warning of a fit with ``groups`` about its δ, against ``1/N``
    for the ``N`` persons (the units of privacy), or ``None``."""
    if delta is not None and float(delta) >= 1.0 / N:
        return (
            "delta >= 1/N for the N persons (the units of privacy): choose "
            "delta much smaller than 1/N"
        )
    return None


def estimand(m: int, N: int) -> str:
    """What ``covariance_`` estimates with ``groups``, in words (module
    docstring)."""
    return (
        f"the padded per-person second moment about location_: the mean "
        f"over the {N} persons, equally weighted, of (1/{m}) Σ (x − "
        f"location_)(x − location_)ᵀ over each person's kept rows (at most "
        f"{rows_text(m)}; a person with fewer counts its missing rows at "
        "location_), not the covariance of the rows"
    )


__all__ = [
    "check_person_covariance_mechanism",
    "check_relation",
    "covariance_persons",
    "delta_message",
    "estimand",
    "person_covariance_mechanisms",
    "person_plan",
]
