"""The folds and the held-out score of :func:`dppca.budgeted_grid_search`.

``label_free_splits`` makes or checks the ``(train, test)`` splits
before any fit: the folds it makes itself are functions of ``n`` alone,
and an explicit split is refused unless each person can appear at most
once on each side of it (no repeated index, none out of range, no row on
both sides). :func:`row_scores` is the bounded per-row score the private
choice sums; it reads one released fold model and one row at a time, and
neither warns nor raises whatever the row (a row of any finite length is
clipped as the fit clips it, a row with NaN or Inf scores 0), so the
scoring that follows the fold fits' charges behaves the same on
neighbouring data sets. Under add/remove neighbours the folds are drawn row
by row instead (:func:`random_folds`), and the utility's sensitivity is
:func:`random_fold_sensitivity`.
"""

from __future__ import annotations

import collections.abc
import numbers

import numpy as np

from .decomposition.persons import person_bound
from .decomposition.ranges import range_stand_in
from .float_state import owns_float_state
from .linalg.rows import clipped_finite_rows
from .privacy.guarantees import REPLACE_ONE, Release
from .validation import as_generator

#: Resolution of the per-row score: ``⌊L s(x)⌋`` with ``s(x)`` in [0, 1].
SCORE_LEVELS = 2**20


def label_free_splits(cv, n) -> list:
    """The ``(train, test)`` splits of ``cv`` for ``n`` rows.

    **Folds made here** depend on ``n`` alone: an int ``K`` (``KFold(K)``:
    contiguous blocks), a ``KFold``, ``RepeatedKFold`` or ``ShuffleSplit``
    (exactly these: they read only the number of rows). Any other splitter
    is refused: ``StratifiedKFold`` moves training rows when one label
    changes, and a label is part of a person's row.

    **Explicit splits**, a list (or tuple) of ``(train, test)`` index
    arrays, are taken on the caller's word that they were computed without
    the data, labels included (e.g. ``list(KFold(5, shuffle=True,
    random_state=seed).split(np.arange(n)))``): the package cannot tell
    how a list of indices was made. A generator or other iterator of splits
    is refused, as it is almost always a splitter's ``split(X, y)``, which
    may read the labels; pass a list to give your word.

    Every split is checked before any fit (``ValueError``): non-empty 1-D
    integer arrays, indices within the ``n`` rows, no index repeated within
    the training or the test side (a row repeated ``r`` times would be one
    person in ``r`` of the rows a fit is charged for as replace-one), and
    no row on both sides.
    """
    from sklearn.model_selection import KFold, RepeatedKFold, ShuffleSplit

    if isinstance(cv, numbers.Integral) and not isinstance(cv, bool):
        if cv < 2:
            raise ValueError(f"cv must be at least 2; got {cv}")
        cv = KFold(int(cv))
    if type(cv) in (KFold, RepeatedKFold, ShuffleSplit):
        pairs = list(cv.split(np.zeros((n, 1))))
    elif hasattr(cv, "split") or isinstance(cv, (str, bytes)):
        raise ValueError(
            f"cv={type(cv).__name__} is not accepted: the folds must depend "
            "on n alone (a label is part of a person's row; "
            "StratifiedKFold moves training rows when one label changes). "
            "Pass an int, a KFold, RepeatedKFold or ShuffleSplit, or a list "
            "of (train, test) index arrays computed without the data"
        )
    elif isinstance(cv, collections.abc.Iterator):
        raise ValueError(
            "cv is an iterator (a generator of splits, such as a splitter's "
            "split(X, y), which may read the labels): the search cannot "
            "tell whether it read the data. Pass an int or a KFold, or a "
            "list of (train, test) index arrays computed without the data "
            "(labels included); nothing was fitted"
        )
    else:
        pairs = list(cv)
    splits = [_checked_split(pair, n) for pair in pairs]
    if not splits:
        raise ValueError("cv gave no split")
    return splits


def _checked_split(pair, n) -> tuple:
    """One ``(train, test)`` pair as index arrays, or ``ValueError``."""
    try:
        train, test = (np.asarray(part) for part in pair)
    except (TypeError, ValueError):
        raise ValueError(
            "each split must be a pair (train, test) of index arrays"
        ) from None
    for part in (train, test):
        if part.ndim != 1 or part.size == 0 or part.dtype.kind not in "iu":
            raise ValueError(
                "each split must be a pair of non-empty 1-D integer index "
                "arrays"
            )
        if part.min() < 0 or part.max() >= n:
            raise ValueError(
                f"a split indexes outside the {n} rows; nothing was fitted"
            )
    why = {
        "training": "its fit would be charged as a replace-one release on "
        "rows one person fills several of",
        "test": "one person's held-out score would be counted several times",
    }
    for side, part in (("training", train), ("test", test)):
        if np.unique(part).size != part.size:
            raise ValueError(
                f"a split repeats a row on its {side} side: {why[side]}. "
                "Each row may appear once per side; nothing was fitted"
            )
    if np.intersect1d(train, test).size:
        raise ValueError(
            "a split has rows on both its training and test sides: the "
            "held-out score would read rows its fold model was fitted on. "
            "Make the sides disjoint; nothing was fitted"
        )
    return train, test


def score_scale(pcas, d=None) -> float:
    """The public scale ``S`` of the score, common to every candidate: the
    largest bound on ``‖x̄ − μ̂‖`` among the candidates' PrivatePCA steps,
    ``2R`` with a private centre (the clipped row and the released mean both
    lie in the ball of radius ``R``), ``R`` otherwise (``R = data_norm``, or
    the top of ``bound_range`` for a released one; with ``feature_range``
    on ``d`` features, its implied bound and centre). For PrivateCovariance
    steps, :func:`dppca.model_selection_covariance.covariance_score_scale`
    (the radius ``B`` of the covariance score)."""
    from .model_selection_covariance import (
        covariance_score_scale,
        is_covariance,
    )

    if pcas and all(is_covariance(step) for step in pcas):
        return covariance_score_scale(pcas)
    scale = 0.0
    for pca in pcas:
        pca = pca if d is None else range_stand_in(pca, d)
        private = pca.data_norm == "private"
        R = float(pca.bound_range[1] if private else pca.data_norm)
        centred = isinstance(pca.center, (bool, np.bool_)) and pca.center
        scale = max(scale, 2 * R if centred else R)
    return scale


@owns_float_state
def row_scores(pca, Z, scale, block=4096) -> np.ndarray:
    """The bounded per-row score of rows ``Z`` under a fitted
    :class:`dppca.PrivatePCA`: ``s(x) = ‖V̂ᵀ(x̄ − μ̂)‖²/S²`` in ``[0, 1]``,
    with ``x̄`` the row clipped as the fit clips it (to ``data_norm_``
    about the origin, or about a public centre), ``μ̂ = mean_``, ``V̂`` the
    released axes and ``S`` the public :func:`score_scale`. Its mean is the
    held-out variance the released subspace captures about the released
    mean, in units of ``S²``, comparable across candidates. A row with NaN
    or Inf (after the steps before the PCA) scores 0.

    It reads only the released model and the row itself (row ``i``'s score
    from row ``i`` alone, in blocks whose sizes depend on ``n`` only), so
    for a fixed model replacing one row changes one score by at most 1.
    It runs under the package's float state and its norms are computed
    without overflow or underflow, so no row makes it warn or raise."""
    V = np.asarray(pca.components_, dtype=np.float64)
    mean = np.asarray(pca.mean_, dtype=np.float64)
    bound = float(pca.data_norm_)
    centre = range_stand_in(pca, mean.shape[0]).center  # "midpoint" resolved
    private = isinstance(centre, (bool, np.bool_)) and centre
    origin = np.zeros_like(mean) if private else mean
    out = np.empty(Z.shape[0])
    for start in range(0, Z.shape[0], block):
        rows = Z[start : start + block]
        rows = rows.toarray() if hasattr(rows, "toarray") else rows
        rows = np.asarray(rows, dtype=np.float64) - origin
        rows, finite = clipped_finite_rows(rows, bound)
        rows = origin + rows - mean
        scores = np.sum((rows @ V.T) ** 2, axis=1)
        out[start : start + block] = np.where(finite, scores, 0.0)
    return np.clip(np.nan_to_num(out / scale**2, nan=0.0), 0.0, 1.0)


def held_out_utility(fitted, X_test, scale, persons=None) -> int:
    """``Σ ⌊L s(x)⌋`` over the held-out rows: each term an integer in
    ``[0, L]``, read from the fold's released model and the row (``s`` of
    :func:`row_scores` for a PrivatePCA, of
    :func:`dppca.model_selection_covariance.covariance_row_scores` for a
    PrivateCovariance). With
    ``persons = (codes, m)`` (the person of each held-out row and the
    bound), the sum over persons of :func:`person_utility`'s terms: each
    person's mean term counted for at most ``m`` rows."""
    from sklearn.pipeline import Pipeline

    Z = X_test
    if isinstance(fitted, Pipeline):
        for _, step in fitted.steps[:-1]:
            if not (step is None or step == "passthrough"):
                Z = step.transform(Z)
        fitted = fitted.steps[-1][1]
    from .model_selection_covariance import covariance_row_scores, is_covariance

    score = covariance_row_scores if is_covariance(fitted) else row_scores
    levels = np.floor(score(fitted, Z, scale) * SCORE_LEVELS)
    levels = np.minimum(levels.astype(np.int64), SCORE_LEVELS)
    if persons is not None:
        return int(person_utility(levels, *persons))
    return int(np.sum(levels))


def random_folds(k: int, n: int, rng) -> list:
    """``k`` folds of ``n`` rows drawn at random, for add/remove neighbours:
    each row's fold is an independent uniform draw from ``{0, …, k − 1}``
    (from ``rng``, a generator of the search's own), and split ``j`` is
    ``(rows not in fold j, rows in fold j)``.

    Unlike ``label_free_splits`` (contiguous blocks of ``n`` rows), a
    row's fold does not depend on the other rows: for ``D`` and ``D' = D +
    x``, coupling the draws of the rows they share, ``x`` joins the test
    side of one fold and the training side of the others, and nothing else
    moves. So every fold's training set (and test set) of ``D'`` is that of
    ``D`` with at most one row added: for every value of the draws the
    fold fits are add/remove neighbours (or equal), each charged at its
    add/remove record, and for fixed fold models a candidate's utility moves
    by the added row's one term (:func:`random_fold_sensitivity`); so the
    search's (ε, δ) holds for every value of the draws, hence for their
    mixture, the draws being independent of the data. A side may be empty
    (with few rows, or by chance); the search fits an empty training side
    on one public row (:func:`dppca.model_selection_checks.neutral_row`,
    which says why that pair is covered too) and scores an empty test side
    as 0.

    Parameters
    ----------
    k : int
        The number of folds, at least 2 (public).
    n : int
        The number of rows (private under add/remove: used only to draw).
    rng : numpy.random.Generator
        The generator of the fold draws, used for nothing else.

    Returns
    -------
    list of (ndarray, ndarray)
        ``k`` pairs ``(train, test)`` of sorted integer index arrays.
    """
    labels = rng.integers(0, int(k), size=int(n))
    return [
        (np.flatnonzero(labels != j), np.flatnonzero(labels == j))
        for j in range(int(k))
    ]


def random_fold_sensitivity() -> int:
    """The sensitivity of a candidate's utility over :func:`random_folds`
    under add/remove neighbours, ``L``: for fixed fold models, the added
    row contributes one term ``⌊L s(x)⌋ ∈ [0, L]`` in the one test fold it
    is drawn into, and every other row's terms are unchanged. A public
    constant: it does not read ``n`` or the fold sizes."""
    return SCORE_LEVELS


def score_sensitivity(splits, n: int) -> int:
    """``L · max_i c_i``: how much one row can move a candidate's utility
    (``c_i`` test folds hold row ``i``), from the splits alone."""
    covered = np.zeros(n, dtype=np.int64)
    for _, test in splits:
        np.add.at(covered, test, 1)
    return SCORE_LEVELS * int(covered.max())


def person_utility(levels, codes, m: int) -> int:
    """``Σ over persons ⌊min(r, m) · (sum of its r terms) / r⌋``: each
    person's contribution the mean of its rows' terms (``levels``, integers
    in ``[0, L]``), counted for at most ``m`` rows, an integer in
    ``[0, m L]`` computed exactly (Python integers) from its rows alone."""
    levels = np.asarray(levels, dtype=np.int64)
    if levels.size == 0:
        return 0
    _, inverse, counts = np.unique(
        codes, return_inverse=True, return_counts=True
    )
    sums = np.zeros(counts.size, dtype=np.int64)
    np.add.at(sums, inverse, levels)
    return sum(
        (min(r, m) * s) // r for r, s in zip(counts.tolist(), sums.tolist())
    )


def person_sensitivity(m: int) -> int:
    """``m L``: how much replacing one person moves a candidate's utility
    for fixed fold models (its one contribution, in one test fold)."""
    return int(m) * SCORE_LEVELS


def person_theorem(m: int) -> str:
    """The theorem of the private choice under per-person neighbours."""
    return (
        "permute-and-flip (MS20) on held-out scores in [0, 1] given the "
        "released fold models, over folds of whole persons (a uniformly "
        "random assignment of the N persons to folds of public sizes); a "
        "person's term is the mean of its rows' terms counted for at most "
        f"m = {int(m)} rows (per-person sensitivity m L = "
        f"{person_sensitivity(m)} score levels); adaptive composition"
    )


SELECTION_THEOREM = (
    "permute-and-flip (MS20) on held-out scores in [0, 1] given the "
    "released fold models (sensitivity max_i c_i); adaptive composition"
)


#: The theorem of the private choice under add/remove neighbours.
ADD_REMOVE_SELECTION_THEOREM = (
    "permute-and-flip (MS20) on held-out scores in [0, 1] given the "
    "released fold models, over folds drawn row by row at random "
    f"(add/remove sensitivity L = {SCORE_LEVELS} score levels: "
    "the added row's one term); adaptive composition"
)

#: Mixes the search's seed into the stream of the fold draws under
#: add/remove neighbours, apart from the fits' seeds.
FOLD_STREAM = 0x464F4C44


def selection_guarantee(epsilon, neighbours=None) -> Release:
    """The record of the private choice at ``epsilon`` (pure, exact
    permute-and-flip), known before any data is read.

    Parameters
    ----------
    epsilon : float
        The ε of the choice.
    neighbours : str, optional
        The neighbouring relation the record states: replace-one by default;
        under add/remove neighbours the fits' relation (cap included), as
        ``dppca.decomposition.add_remove.add_remove_neighbours`` words
        it, with the random folds' theorem; per person, the relation of
        ``dppca.decomposition.persons.person_neighbours`` with the
        theorem of ``person_theorem``
        (sensitivity ``m L``).

    Returns
    -------
    Release
        The guarantee record.
    """
    relation = REPLACE_ONE if neighbours is None else neighbours
    m = person_bound(relation)
    theorem = (
        SELECTION_THEOREM
        if relation == REPLACE_ONE
        else ADD_REMOVE_SELECTION_THEOREM
        if m is None
        else person_theorem(m)
    )
    rows = (
        "any rows (per-row scores in [0, 1])"
        if m is None
        else f"any rows (per-row scores in [0, 1]; at most {m} counted "
        "per person)"
    )
    return Release(
        "private model selection (permute-and-flip on held-out scores)",
        "pure",
        float(epsilon),
        neighbours=relation,
        noise="safe",
        sampler="exact",
        proved=True,
        theorem=theorem,
        chapter="chapter 13",
        row_bound=rows,
    )


def search_folds(cv, n, cap, bound, groups, random_state) -> tuple:
    """The folds of a search and what its plan reads from them, before any
    fit: ``(people, splits, sensitivity, sizes, full)``, with ``sizes`` the
    size each fold fit is planned at and ``full`` the refit's.

    Replace-one (``cap`` and ``bound`` None): ``label_free_splits``,
    sizes the training rows. Add/remove (``cap = N``): :func:`random_folds`,
    everything planned at the cap (``n`` is private). Per person (``bound
    = m``, with ``groups``):
    :func:`dppca.model_selection_persons.search_persons` (``people``),
    folds of whole persons planned at their numbers of persons,
    sensitivity ``m L``."""
    from .model_selection_checks import check_search_rows
    from .model_selection_persons import search_persons

    if bound is not None:  # per person: whole persons drawn into folds
        rng = fold_generator(random_state)
        people = search_persons(groups, n, bound, int(cv), rng)
        sensitivity = person_sensitivity(bound)
        return people, people.splits, sensitivity, people.sizes, people.N
    if cap is None:
        splits = label_free_splits(cv, n)
        sizes = [len(train) for train, _ in splits]
        return None, splits, score_sensitivity(splits, n), sizes, n
    check_search_rows(n, cap)  # n is private: folds drawn row by row
    splits = random_folds(int(cv), n, fold_generator(random_state))
    sensitivity = random_fold_sensitivity()
    return None, splits, sensitivity, [cap] * len(splits), cap


def fit_seeds(random_state, count) -> list:
    """One seed per fit: ``None`` (fresh OS entropy at every fit) without a
    ``random_state``, else distinct 128-bit seeds spawned from it."""
    if random_state is None:
        return [None] * count
    root = as_generator(random_state).integers(0, 2**63, size=4)
    children = np.random.SeedSequence(root.tolist()).spawn(count)
    return [
        int.from_bytes(c.generate_state(4, np.uint32).tobytes(), "little")
        for c in children
    ]


def fold_generator(random_state) -> np.random.Generator:
    """The generator of the random folds (add/remove neighbours): fresh
    entropy without a ``random_state``, else seeded from it apart from the
    fits' seeds (:func:`fit_seeds`), so that these do not depend on how
    many rows were drawn."""
    if random_state is None:
        return np.random.default_rng()
    root = as_generator(random_state).integers(0, 2**63, size=4)
    return np.random.default_rng(
        np.random.SeedSequence([*root.tolist(), FOLD_STREAM])
    )


__all__ = [
    "ADD_REMOVE_SELECTION_THEOREM",
    "person_sensitivity",
    "person_theorem",
    "person_utility",
    "SELECTION_THEOREM",
    "fit_seeds",
    "fold_generator",
    "search_folds",
    "selection_guarantee",
    "random_fold_sensitivity",
    "random_folds",
    "score_sensitivity",
    "SCORE_LEVELS",
    "held_out_utility",
    "label_free_splits",
    "row_scores",
    "score_scale",
]
