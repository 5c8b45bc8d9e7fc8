"""The search per person: ``budgeted_grid_search(..., groups=g)``.

A :class:`dppca.PrivatePCA` fitted with ``fit(X, groups=g)`` and
``max_rows_per_person=m`` is private per person
(:mod:`dppca.decomposition.persons`): neighbouring data sets hold the same
number ``N`` of persons (public) and differ in all the rows of one person.
The search keeps that relation in four places.

1. **Folds of persons.** Each person, with all of its rows, goes to one
   fold (:func:`person_folds`): a uniformly random permutation of the ``N``
   persons (drawn from the search's fold generator, independent of the
   data) fills ``K`` folds of public sizes ``⌈N/K⌉`` or ``⌊N/K⌋``, in the
   order of first appearance of the labels. Every fold's training side
   then holds ``N_j = N − (size of fold j)`` persons, a public number. For
   neighbours ``D`` and ``D′`` (person ``p`` replaced by ``p′``, with any
   label and any rows, at any place), couple the permutations so that the
   ``N − 1`` shared persons keep their folds and ``p′`` takes ``p``'s slot
   (a bijection of the uniform permutations): each fold's training sides
   are then per-person neighbours with ``N_j`` persons (or equal), and
   each fold fit is charged its per-person record. The search's (ε, δ)
   holds for every coupled value of the draw, hence for their mixture. With
   a fixed ``random_state`` the argument holds as it stands when ``p′``
   keeps ``p``'s place in the order of first appearance (the permutation is
   then the same on both sides).
2. **Fits with groups.** Each fold fit is ``fit(X_train, groups=g_train)``
   (``<step>__groups`` for every private step of a Pipeline), the refit
   ``fit(X, groups=g)``; the dry run plans them at ``N_j`` and ``N``
   persons, never at a row count (under this relation the number of rows
   is private).
3. **The held-out utility per person.** A person with ``r`` held-out rows
   contributes ``⌊min(r, m) · (Σ ⌊L s(x)⌋ over its rows) / r⌋``: the mean
   of its rows' terms, counted for at most ``m`` rows
   (:func:`~dppca.model_selection_scoring.person_utility`). Every row is
   scored, no row is dropped, and the contribution is an integer in
   ``[0, m L]`` that depends on the person's rows alone (not on their
   order). For fixed fold models, replacing one person changes its own
   contribution in its one test fold and nothing else: the sensitivity is
   ``m L`` (``dppca.model_selection_scoring.person_sensitivity``),
   to which permute-and-flip is calibrated and which the selection's
   record states.
4. **Refusals before any charge** (``person_bound_of_search``,
   ``search_persons``): groups with a step under add/remove
   neighbours, a private step other than a :class:`dppca.PrivatePCA`, a
   :class:`dppca.PrivateStandardScaler` or a
   :class:`dppca.PrivateCovariance` (each is fitted with the groups; the
   scaler's per-person sums are in :mod:`dppca.scaler_persons`), a
   ``max_rows_per_person`` missing or not the same in every private step
   of every candidate, ``max_rows_per_person`` without groups, a ``cv``
   that is not an int (index splits could cut a person in two),
   ``selection="non_private"``, groups of the wrong length or with a
   missing label, fewer persons than folds, and whatever a fold fit with
   groups would refuse (a private bound, a mechanism outside
   :func:`dppca.decomposition.persons.person_level`, a padding too large).
"""

from __future__ import annotations

import dataclasses
import numbers
from types import SimpleNamespace

import numpy as np

from .decomposition.persons import (
    Persons,
    check_max_rows_per_person,
    check_padded_size,
    check_person_mechanism,
    check_person_parameters,
    person_codes,
    person_neighbours,
)


def _settings(estimator, candidates) -> list[dict]:
    """The parameters of the estimator and of every candidate of the grid."""
    base = estimator.get_params()
    return [base] + [{**base, **c} for c in candidates]


def person_bound_of_search(estimator, steps, candidates, cv, selection, groups):
    """The bound ``m`` of a search with ``groups`` (``None`` without), from
    public parameters, before any fit or charge; ``ValueError`` for what
    has no per-person argument (module docstring, step 4)."""
    from .decomposition.pca import PrivatePCA

    settings = _settings(estimator, candidates)
    names = [p + "max_rows_per_person" for p, _ in steps]
    bounds = {s.get(name) for s in settings for name in names}
    if groups is None:
        used = sorted({n for s in settings for n in names if s.get(n)})
        if bounds - {None}:
            raise ValueError(
                "without groups= budgeted_grid_search does not pass groups "
                f"to the fits, so it cannot search a per-person fit ({used} "
                "set): pass groups=g (one label per row naming its person). "
                "Nothing was fitted or charged."
            )
        return None
    from .covariance.estimator import PrivateCovariance
    from .scaler import PrivateStandardScaler

    kinds = (PrivatePCA, PrivateStandardScaler, PrivateCovariance)
    others = [type(s).__name__ for _, s in steps if not isinstance(s, kinds)]
    if others:
        raise ValueError(
            "with groups every private step must be a PrivatePCA, a "
            "PrivateStandardScaler or a PrivateCovariance: "
            f"{others} has no per-person mode in the search; nothing was "
            "fitted or charged"
        )
    add_remove = {
        s.get(p + "neighbours")
        for s in settings
        for p, _ in steps
        if isinstance(s.get(p + "neighbours"), str)
    } & {"add-remove"}
    if add_remove:
        raise ValueError(
            "groups gives per-person neighbours (N persons, public; one "
            "person's rows replaced), which a step with "
            "neighbours='add-remove' does not run: use neighbours='replace' "
            "with groups. Nothing was fitted or charged"
        )
    if None in bounds or len(bounds) != 1:
        raise ValueError(
            "with groups every candidate needs one max_rows_per_person m "
            f"(found {sorted(bounds, key=repr)}): the ledger and the "
            "selection's sensitivity m L hold one relation. Set it on every "
            "private step and keep it out of the grid (or equal in every "
            "candidate); nothing was fitted or charged"
        )
    (value,) = bounds
    m = check_max_rows_per_person(SimpleNamespace(max_rows_per_person=value))
    if isinstance(cv, bool) or not isinstance(cv, numbers.Integral):
        raise ValueError(
            "with groups cv must be an int K: the search puts each person, "
            "with all of its rows, in one of K folds drawn over the persons; "
            "a splitter or a list of index splits cuts rows, and could put "
            f"one person on both sides (got {type(cv).__name__}); nothing "
            "was fitted or charged"
        )
    if cv < 2:
        raise ValueError(
            f"cv must be at least 2; got {cv}. Nothing was fitted or charged"
        )
    if selection != "private":
        raise ValueError(
            "with groups only selection='private' runs: GridSearchCV would "
            "score rows, not persons, and fit its folds without the groups; "
            "nothing was fitted or charged"
        )
    return m


def person_step_records(step, N: int, m: int, d: int) -> list:
    """The records a fit of the PrivatePCA (PrivateStandardScaler,
    PrivateCovariance) ``step`` with groups charges on ``N`` persons of
    ``d`` features, from public quantities (the dry run of ``fit(X,
    groups=g)``): refuses, as that fit would before its charge, a private
    bound, a mechanism without a per-person guarantee ("auto" resolved) and
    a padding too large."""
    from sklearn.base import clone

    from .covariance.estimator import PrivateCovariance
    from .covariance.plan import planned_records as covariance_records
    from .decomposition.plan import planned_records, release_plan
    from .decomposition.ranges import range_stand_in
    from .scaler import PrivateStandardScaler, scaler_plan

    if isinstance(step, PrivateStandardScaler):
        persons = Persons(np.empty(0, dtype=np.intp), N, m)
        return [s.record for s in scaler_plan(step, N, d, persons)]
    if isinstance(step, PrivateCovariance):
        return covariance_records(clone(step), N * m, d, persons=N)

    est = range_stand_in(clone(step), d)
    check_person_parameters(est)
    check_padded_size(N, m, d)
    if isinstance(est.centered_norm, str) and est.centered_norm == "auto":
        est.centered_norm = None  # as the fit with groups does
    check_person_mechanism(release_plan(est, N, d).name)
    relation = person_neighbours(m)
    return [
        dataclasses.replace(r, neighbours=relation)
        for r in planned_records(est, N, d)
    ]


def person_fit_records(fitted, steps, N: int, m: int, d: int) -> list:
    """The records of one fit of ``fitted`` with groups on ``N`` persons."""
    from .model_selection_checks import step_of

    return [
        record
        for prefix, _ in steps
        for record in person_step_records(step_of(fitted, prefix), N, m, d)
    ]


def person_folds(k: int, codes: np.ndarray, N: int, rng) -> tuple:
    """``(splits, persons)``: ``k`` row splits ``(train, test)`` in which
    every person's rows go together, and the number of persons of each
    training side (public: ``N`` minus the fold's size).

    The ``N`` persons (``codes``: the person of each row, numbered in
    order of first appearance) are put in a uniformly random order by
    ``rng`` (a generator of the search's own, independent of the data)
    and cut into ``k`` blocks of sizes ``⌈N/k⌉`` (the first ``N mod k``)
    and ``⌊N/k⌋``, as ``KFold`` cuts ``N`` items."""
    k = int(k)
    sizes = np.full(k, N // k, dtype=np.intp)
    sizes[: N % k] += 1
    slot_fold = np.repeat(np.arange(k), sizes)
    fold_of_person = slot_fold[rng.permutation(N)]
    fold = fold_of_person[codes]
    splits = [
        (np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(k)
    ]
    return splits, [int(N - s) for s in sizes]


def search_persons(groups, n: int, m: int, k: int, rng):
    """The persons of a search with groups, checked before any fit: their
    codes, number ``N``, bound ``m``, relation, folds and the persons of
    each training side. Refuses (``ValueError``) groups that are not one
    label per row or hold a missing label, and fewer persons than folds
    (``N`` is public)."""
    codes, N = person_codes(groups, n)
    if N < k:
        raise ValueError(
            f"groups names {N} persons: too few for cv={k} folds of whole "
            "persons (each fold needs one). Use fewer folds; nothing was "
            "fitted or charged"
        )
    splits, sizes = person_folds(k, codes, N, rng)
    return SimpleNamespace(
        codes=codes, N=N, m=m, relation=person_neighbours(m), splits=splits,
        sizes=sizes,
    )  # fmt: skip


def groups_of(people, steps, rows) -> dict:
    """The keyword that passes the persons of ``rows`` (indices; ``None``:
    every row) to a fit's PrivatePCA (``groups``, or ``<step>__groups`` in
    a Pipeline); ``{}`` without persons."""
    if people is None:
        return {}
    codes = people.codes if rows is None else people.codes[rows]
    return {prefix + "groups": codes for prefix, _ in steps}


def persons_of(people, rows):
    """``(codes, m)`` of the held-out ``rows`` for the per-person utility;
    ``None`` without persons."""
    return None if people is None else (people.codes[rows], people.m)


__all__ = [
    "groups_of",
    "persons_of",
    "person_bound_of_search",
    "person_fit_records",
    "person_folds",
    "person_step_records",
    "search_persons",
]
