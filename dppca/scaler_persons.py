"""Several rows per person for :class:`dppca.PrivateStandardScaler`:
``fit(X, groups=g)`` with ``max_rows_per_person=m`` (issue 43).

**The relation.** As for :class:`dppca.PrivatePCA` with ``groups``
(:mod:`dppca.decomposition.persons`): neighbouring data sets have the same
number ``N`` of persons (public) and differ in all the rows of one person.
The number of rows ``n`` is then private: a person replaced may bring more
or fewer rows.

**Contribution bounding.** A person with more than ``m`` rows keeps ``m``
of them, chosen uniformly at random by the same public procedure as the
PCA's (``dppca.decomposition.persons.kept_rows``, from a generator
seeded by eight draws of the fit's own).

**The statistic: each person's mean, then the mean over persons.** The
entries are clipped, normalised and rounded to the grid ``2^-k`` as without
``groups`` (module :mod:`dppca.scaler`), with ``k = 52 −
bit_length(N·m)`` from public numbers only. Person ``p`` with kept rows
``z_1, …, z_c`` (``1 ≤ c ≤ m``) contributes the two vectors

    u_p = round(Σ_r z_r / c),     v_p = round(Σ_r z_r² / c),

rounded to the grid in integer arithmetic (exact, and independent of the
rows' order), and the fit releases ``S = Σ_p u_p`` and ``Q = Σ_p v_p``
with noise. A mean of entries in ``[−1/2, 1/2]``, rounded to a grid point,
stays in ``[−1/2, 1/2]``; a mean of squares stays in ``[0, 1/4]``. So
replacing one person moves ``S_j`` by at most 1 and ``Q_j`` by at most
1/4, all features at once: **the replace-one-row sensitivities at n = N**,
whatever ``m``. The scaler is therefore calibrated exactly as a
replace-one fit on ``N`` rows, and the records state the per-person
relation.

**What is estimated.** ``mean_ = c + w S/N`` and ``var_ = w² (Q/N −
(S/N)²)`` are the mean and variance of the data in which each person
weighs ``1/N``, shared equally among its kept rows (a proper weighting:
before the noise the variance can be negative only through the rounding
of each person's means to the grid, by about a cell, and the floor clips
it). With one row per person
they are the ordinary mean and variance. Padding each person to ``m`` rows
at the midpoint, as the PCA's second moment does, would instead shrink a
mean towards the midpoint by up to ``m``-fold when persons have few rows.

**Float64.** Every sum is an exact integer sum of grid points: a person's
sum has at most ``m`` terms of at most ``2^(k−1)``, and ``S`` has ``N``,
both below ``2^51``; the rounded division is exact integer arithmetic.
Nothing computed depends on the other persons' rows' values or order
except through these exact sums.
"""

from __future__ import annotations

import numpy as np

from .decomposition.add_remove import is_add_remove
from .decomposition.persons import (
    Persons,
    check_pairing,
    kept_rows,
    person_codes,
    person_neighbours,
    subsampling_generator,
)


def scaler_persons(est, groups, n: int) -> Persons | None:
    """The persons of a scaler fit with ``groups`` (``None`` without),
    checked before any charge: ``groups`` and ``max_rows_per_person`` come
    together, one label per row, and add/remove neighbours are refused
    (their relation is about rows, not persons)."""
    m = check_pairing(est, groups)
    if m is None:
        return None
    if is_add_remove(est):
        raise ValueError(
            "groups (a guarantee per person) and neighbours='add-remove' "
            "(one row added or removed) are two different relations: "
            "choose one. Nothing was charged or drawn."
        )
    codes, N = person_codes(groups, n)
    return Persons(codes, N, m)


def relation(persons: Persons) -> str:
    """The neighbouring relation the records of a per-person fit state."""
    return person_neighbours(persons.m)


def person_means(values: np.ndarray, codes: np.ndarray, N: int) -> np.ndarray:
    """Each person's mean of its rows of integer ``values`` (grid cells),
    rounded half up to an integer in exact int64 arithmetic: ``⌊(2s + c) /
    (2c)⌋`` for a sum ``s`` of ``c`` rows. Every person in ``[0, N)`` has
    at least one row."""
    order = np.argsort(codes, kind="stable")
    sorted_codes = codes[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    if starts.shape[0] != N:
        raise ValueError("a person without rows")  # cannot happen
    sums = np.add.reduceat(values[order], starts, axis=0)
    counts = np.diff(np.r_[starts, codes.shape[0]]).astype(np.int64)
    c = counts[:, None]
    return (2 * sums + c) // (2 * c)


def person_sums(cells, squares, codes, N: int, k: int) -> dict:
    """``S`` and ``Q`` of a per-person fit (module docstring) as exact
    float64 values, from the gridded entries of the kept rows (int64 cell
    counts on the grid ``2^-k``, as ``dppca.scaler.gridded_entries``
    makes them) and the person of each: each person's rounded means,
    summed over the ``N`` persons."""
    s = person_means(cells, codes, N).sum(axis=0)  # |s| < 2^51: exact
    q = person_means(squares, codes, N).sum(axis=0)
    return dict(mean=np.ldexp(s * 1.0, -k), variance=np.ldexp(q * 1.0, -k))


def kept(persons: Persons, rng) -> np.ndarray:
    """The rows kept (at most ``m`` per person, a public choice from a
    generator of their own seeded by eight draws of ``rng``)."""
    return kept_rows(persons, subsampling_generator(rng))


__all__ = ["kept", "person_means", "person_sums", "relation", "scaler_persons"]
