"""The releases of a :class:`~dppca.PrivateCovariance` fit, the
only code of :mod:`dppca.covariance` that reads the rows: the private mean
(``center=True``), then the noisy matrix, drawn in this order from the fit's
generator with the budgets, noise and records of its
:class:`~dppca.covariance.plan.CovariancePlan`. It is apart from the plan,
which is computed from public quantities only, so that what touches the
private rows is in one place.

**Released matrix.** ``A = (1/n) Σ z_i z_iᵀ`` with ``z_i = clip_B(x̃_i − c) /
B`` (``x̃_i`` the row clipped to ``R``), computed by
:func:`dppca.linalg.clipped_sums.clipped_second_moment`, whose float64 result
has the sensitivity below (its module docstring proves it). Replacing one
row changes ``A`` by ``(z zᵀ − z' z'ᵀ)/n``; its upper triangle (the
``d(d+1)/2`` entries the noise is added to) has ℓ₂ norm at most ``‖z zᵀ − z'
z'ᵀ‖_F / n = √(‖z‖⁴ + ‖z'‖⁴ − 2(zᵀz')²) / n ≤ √2/n``, attained by two rows
at the bound along two coordinate axes (then the change is ``±1/n`` on two
diagonal entries). With a private mean the map ``x ↦ z`` depends on ``x``
and the released ``μ̂`` only, so for every value of ``μ̂`` the sensitivity is
the same, and the two releases compose adaptively. The mechanisms and
their calibrations are in :mod:`dppca.covariance.plan`.

**Add/remove neighbours** (a plan with ``max_samples = N``). The matrix is
``A_N = S/N``, ``S = Σ z_i z_iᵀ`` over the ``n ≤ N`` rows: the second
moment of the rows padded with ``N − n`` zero rows, computed by
``clipped_second_moment(..., max_samples=N)``, whose float64 shrink is
chosen for ``N`` rows (not ``n``) and whose sum is divided by ``N``. One
row ``z`` added changes ``S`` by ``z zᵀ``, a zero row of the padding
replaced, so ``‖A_N − A'_N‖_F = ‖z‖²/N ≤ 1/N``, within the replace-one
sensitivity ``√2/N`` the matrix is calibrated to at ``n = N`` (the corollary
in :mod:`dppca.linalg.float_error` covers the computed values). The private
count of rows is drawn first, from the same generator; the mechanism is
handed ``n = N``, never ``n``.

**Several rows per person** (a plan with ``persons = N`` and
``rows_per_person = m``; :mod:`dppca.covariance.persons`). First, a public
choice of at most ``m`` rows per person
(``dppca.decomposition.persons.kept_rows``), from a generator seeded by
eight draws of the fit's (``subsampling_generator``). The private mean's sum
is then over the kept rows padded with zero rows to ``N·m`` rows, divided
by ``N·m``; the matrix is the second moment of the kept rows padded to
``N·m`` rows equal to the centre (zero once centred), computed with the
shrink for ``N·m`` rows; every mechanism is handed ``n = N``.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ..decomposition.parameters import centered_norm
from ..decomposition.persons import kept_rows, padded, subsampling_generator
from ..exceptions import UnprovedGuaranteeWarning, silenced
from ..linalg import clipped_sums, rows
from ..mechanisms import registry
from ..privacy import noise, private_bounds
from .plan import CovariancePlan


def unit_second_moment(X, plan: CovariancePlan, location=None):
    """The matrix the noise is added to, before any noise: ``(1/n) Σ z_i
    z_iᵀ`` (module docstring), and the bound ``B`` the centred rows were
    divided by. With a per-person plan ``X`` holds the kept rows, padded
    here to ``N·m`` rows equal to the centre.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows (float64).
    plan : CovariancePlan
        The fit's plan.
    location : ndarray of shape (n_features,), optional
        The released mean ``μ̂`` (required for a private centre).

    Returns
    -------
    matrix : ndarray of shape (n_features, n_features)
        The unit-normalised second moment.
    bound : float
        ``B``.
    """
    R = plan.data_norm
    if plan.persons is not None:
        # per person: X holds the kept rows; padded to N·m rows at the
        # centre, zero once centred (module docstring)
        row = plan.location if plan.centre == "public" else None
        row = location if plan.centre == "private" else row
        X = padded(X, plan.persons * plan.rows_per_person, row)
    if plan.centre != "private":
        centre = None if plan.centre == "zero" else plan.location
        # add/remove: S/N and the shrink for the cap (module docstring)
        cap = {} if plan.max_samples is None else {"max_samples": _cap(plan)}
        moment = clipped_sums.clipped_second_moment(X, R, centre=centre, **cap)
        return moment.matrix, R
    B = _centred(plan, location)
    moment = clipped_sums.clipped_second_moment(
        X, B, centre=location, pre_clip=R
    )
    return moment.matrix, B


def _cap(plan) -> int:
    """The public cap of an add/remove plan."""
    return int(plan.max_samples)


def _centred(plan, location) -> float:
    """``B`` for the released mean ``location``
    (``dppca.decomposition.parameters.centered_norm``, as
    ``PrivatePCA``)."""
    params = SimpleNamespace(centered_norm=plan.centred_bound)
    value = plan.centred_bound
    return centered_norm(params, plan.data_norm, location, value)[0]


def _unit_rows(X, plan, location):
    """The rows ``z_i`` (for a mechanism that reads them) and ``B``."""
    R = plan.data_norm
    if plan.centre == "private":
        B = _centred(plan, location)
        return rows.unit_ball_rows(X, B, centre=location, pre_clip=R), B
    centre = None if plan.centre == "zero" else plan.location
    return rows.unit_ball_rows(X, R, centre=centre), R


def _private_mean(X, plan, kind, rng) -> np.ndarray:
    """The released mean of the rows clipped to ``R``, projected onto the
    ball of radius ``R`` (post-processing); with a per-person plan, of the
    kept rows padded with zero rows to ``N·m`` (module docstring)."""
    if plan.persons is not None:
        X = padded(X, plan.persons * plan.rows_per_person)
    n, R = X.shape[0], plan.data_norm
    _, scale, grid, _ = plan.mean
    total = clipped_sums.clipped_row_sum(X, R).total
    noisy = noise.add_gaussian(
        total / n, scale, noise=kind, rng=rng, granularity=grid
    )
    return rows.project_to_ball(noisy, R)


def release(X, plan: CovariancePlan, kind: str, rng, persons=None):
    """The fit's releases, in the order they are drawn: the private count
    of rows (add/remove neighbours), the choice of at most ``m`` rows per
    person (with ``persons``), the private mean (a private centre), then
    the noisy unit-normalised matrix.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows (float64).
    plan : CovariancePlan
        The fit's plan (:func:`dppca.covariance.plan.covariance_plan`).
    kind : str
        The checked noise kind, ``"safe"`` or ``"float"``.
    rng : numpy.random.Generator
        The fit's generator.
    persons : Persons or None, default=None
        With ``groups``: the person of each row, ``N`` and ``m``
        (:func:`dppca.covariance.persons.covariance_persons`), as the plan
        has them.

    Returns
    -------
    tuple
        ``(location, noisy unit matrix, B, floor in unit terms, count)``:
        ``count`` the released number of rows ``n̂`` under add/remove
        neighbours (the matrix is then ``S/N`` plus noise), else ``None``.
    """
    n, count = X.shape[0], None
    if plan.count is not None:
        count, _ = private_bounds.private_row_count(
            int(n), plan.count.epsilon, rng, plan.count.neighbours
        )
        n = _cap(plan)  # the mechanism's n: the public cap, never the rows
    if (persons is None) != (plan.persons is None) or (
        persons is not None
        and (persons.N, persons.m) != (plan.persons, plan.rows_per_person)
    ):
        raise RuntimeError("the persons differ from the plan's")
    if persons is not None:
        # a public choice of at most m rows per person, from its own
        # generator (the fit's advances by 8 draws, whatever the rows)
        X = X[kept_rows(persons, subsampling_generator(rng))]
        n = plan.persons  # the mechanism's n: the persons, never the rows
    location = plan.location
    if plan.centre == "private":
        location = _private_mean(X, plan, kind, rng)
    # the fit has warned in its own words (unproved noise) before the charge
    hooks = registry.MECHANISMS[plan.mechanism].covariance
    with silenced(UnprovedGuaranteeWarning):
        if hooks.reads_rows:
            if plan.max_samples is not None or plan.persons is not None:
                # the plan refuses it first
                raise RuntimeError("a mechanism of the rows: not padded")
            data, B = _unit_rows(X, plan, location)
        else:
            data, B = unit_second_moment(X, plan, location)
        noisy, floor = hooks.release(
            data, n, plan.epsilon, plan.delta, rng, kind, plan.sigma
        )
    location = np.array(location, dtype=float)
    return location, np.asarray(noisy), B, floor, count


__all__ = ["release", "unit_second_moment"]
