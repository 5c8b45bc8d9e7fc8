"""Model selection within one privacy budget: :func:`budgeted_grid_search`.

A grid search over a private estimator makes many releases on the same rows
(every candidate on every fold, and a refit) and then a *choice*, which is a
release too. The fits are charged to an
:class:`~dppca.privacy.accounting.Accountant` by the estimators themselves;
the search plans them before the first one, and by default makes the choice
with a differentially private mechanism charged to the same ledger:
permute-and-flip over a bounded held-out score read from the released fold
models only (:func:`row_scores`). The folds it makes itself are functions
of ``n`` alone (:func:`label_free_splits`): a label is part of a person's
row, and scikit-learn's ``StratifiedKFold`` moves training rows when one
label changes. Explicit index splits are taken on the caller's word that
they were computed without the data. Folds and scores are in
``dppca.model_selection_scoring``, the refusals before any fit and the
ledger's check after it in ``dppca.model_selection_checks``. The choice by
``GridSearchCV``'s raw scores (through models fitted without privacy) is
available only by request (``selection="non_private"``), and says what the
ledger does not cover. Under add/remove neighbours (``n`` private) the
folds are drawn row by row at random instead, so that one added row moves
no other (:func:`dppca.model_selection_scoring.random_folds`); per person
(``groups``) whole persons are drawn into folds
(:mod:`dppca.model_selection_persons`).
:func:`budgeted_grid_search` gives the sensitivity and the composition
argument.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import scipy.sparse

from . import model_selection_scoring as _scoring
from .decomposition.add_remove import add_remove_neighbours
from .exceptions import silenced
from .float_state import owns_float_state
from .model_selection_checks import (
    check_ledger,
    check_ledger_relation,
    check_private_selection,
    check_search_shape,
    checked_rows,
    fit_records,
    neutral_row,
    non_private_search,
    parallel_in_processes,
    private_steps,
    search_relation,
    step_of,
)
from .model_selection_persons import (
    groups_of,
    person_bound_of_search,
    person_fit_records,
    persons_of,
)
from .model_selection_scoring import (  # fold_generator: re-exported
    fit_seeds,
    fold_generator,  # noqa: F401
    held_out_utility,
    label_free_splits,
    row_scores,
    score_scale,
    search_folds,
    selection_guarantee,
)
from .privacy.guarantees import REPLACE_ONE
from .privacy.selection import exact_epsilon, permute_and_flip
from .validation import as_generator

#: Resolution of the per-row score: ``⌊L s(x)⌋`` with ``s(x)`` in [0, 1]
#: (defined in ``dppca.model_selection_scoring``).
SCORE_LEVELS = _scoring.SCORE_LEVELS

#: Share of the remaining ε the private selection takes by default.
SELECTION_SHARE = 0.1


class PrivateGridSearch:
    """What a private :func:`budgeted_grid_search` releases, and nothing
    else: the privately chosen candidate and its private refit.

    Attributes
    ----------
    best_params_, best_index_ : dict, int
        The candidate drawn by the private selection, and its index in
        ``candidates_`` (a released choice, not an argmax of raw scores).
    best_estimator_ : estimator
        The chosen candidate refitted on all rows (a private release,
        charged); absent with ``refit=False``.
    candidates_ : list of dict
        The grid, in order.
    n_splits_, n_budgeted_fits_, budget_per_fit_ : int, int, tuple
        Folds, fits and the (ε, δ) of each private step of each fit.
    selection_, selection_epsilon_, selection_guarantee_
        ``"private"``, ε of the choice and its guarantee record (also in
        the ledger).
    neighbours_ : str
        The neighbouring relation of the search, as its records state it
        (replace-one, add/remove with the public cap ``max_samples``, or
        replace-one person with at most ``m`` rows each): that of
        ``selection_guarantee_``, whose theorem gives the selection's
        sensitivity under it (``L`` under add/remove, ``m L`` per person).

    No held-out score is kept (no ``cv_results_``, ``best_score_``):
    they are read from the raw rows. ``transform`` and
    ``inverse_transform`` delegate to ``best_estimator_``.
    """

    selection_ = "private"

    def __init__(self, **attributes):
        vars(self).update(attributes)

    @property
    def neighbours_(self) -> str:
        """The search's neighbouring relation (its selection record's)."""
        return self.selection_guarantee_.neighbours

    def _fitted(self):
        if not hasattr(self, "best_estimator_"):
            raise AttributeError(
                "the search ran with refit=False: there is no best_estimator_"
            )
        return self.best_estimator_

    def transform(self, X):
        """Transform ``X`` with the refitted best estimator."""
        return self._fitted().transform(X)

    def inverse_transform(self, X):
        """Map ``X`` back with the refitted best estimator."""
        return self._fitted().inverse_transform(X)


@owns_float_state
def budgeted_grid_search(
    estimator,
    param_grid,
    accountant,
    X,
    y=None,
    *,
    cv=5,
    refit=True,
    scoring=None,
    compose=True,
    selection="private",
    selection_epsilon=None,
    random_state=None,
    groups=None,
    **search_options,
):
    """Search ``param_grid`` over a private estimator (or a Pipeline with
    private steps) within what is left of one
    :class:`~dppca.privacy.accounting.Accountant` budget, choosing the
    candidate privately by default; or refuse before any fit.

    **Folds.** The folds the search makes itself (an int ``cv`` is
    ``KFold`` without shuffle, for a classifier too; a ``KFold``,
    ``RepeatedKFold`` or ``ShuffleSplit``) depend on ``n`` alone: labels are
    private. An explicit list of ``(train, test)`` index arrays is taken on
    the caller's word that it was computed without the data, labels
    included (the search cannot tell); a generator of splits is refused,
    and so is a split that repeats a row on a side, indexes outside the
    rows or has a row on both sides (:func:`label_free_splits`).

    **Add/remove neighbours** (every private step with
    ``neighbours="add-remove"`` and one ``max_samples = N``): ``n`` is
    private, so an int ``cv = K`` only, and each row's fold is drawn at
    random (:func:`~dppca.model_selection_scoring.random_folds`: the fold
    sides of ``D`` and ``D + x`` are add/remove neighbours or equal). A
    fold fit whose training side is empty runs on one public row
    (:func:`~dppca.model_selection_checks.neutral_row`), never on zero
    rows; an empty test side scores 0. The plan, dry run and ledger
    check use ``N``, never ``n`` or a fold's size; ``Δ = L`` (the added
    row's one term); the choice's record states the relation. Refused
    before any fit
    (:func:`~dppca.model_selection_checks.search_relation`): mixed
    relations or caps, a ``cv`` that is not an int,
    ``selection="non_private"``, a ledger of another relation,
    ``n > N``.

    **Per person** (``groups=g``, ``max_rows_per_person=m`` on each
    private step: PCA, scaler, covariance): neighbours replace all the rows
    of one of ``N`` persons (``N`` public). An int ``cv = K`` only; each
    person goes, with all of its rows, to one fold of a uniformly random
    assignment of the persons to ``K`` folds of public sizes. Fold fits are
    ``fit(X_train, groups=g_train)``, planned at their ``N_j`` persons;
    the refit gets every row and ``g``. A person's held-out term is the
    mean of its rows' terms counted for at most ``m`` rows, so ``Δ = m L``
    (the record says so). Refused before any charge
    (:mod:`dppca.model_selection_persons`): an add/remove step, ``m``
    missing on a step or varying, ``m`` without groups, a non-int ``cv``,
    ``selection="non_private"``, bad groups, ``N < K``.

    **Floating point.** The search runs under the package's float state
    (:func:`dppca.float_state.owns_float_state`: no caller's
    ``np.errstate`` reaches the rows) and its held-out score takes norms
    without overflow or underflow, so no row makes it warn or raise after
    a charge; ``X`` is checked (finite, numeric) before any fit.

    **The budget.** ``m = (#candidates) × (#folds) + (1 if refit)`` fits,
    known before the first. With ``(ε_B, δ_B) = accountant.remaining()``
    the private choice first takes ``ε_sel`` (``selection_epsilon``, default
    :data:`SELECTION_SHARE` of ``ε_B``); each of the ``p`` private steps of
    each fit gets ``(ε_B − ε_sel)/(m p)`` and ``δ_B/(m p)`` (``δ`` stays
    ``None`` for a step given ``delta=None``), at most ``(ε_B, δ_B)`` in all
    by basic composition. (After a Gaussian release ``remaining()`` reads no
    δ left; the steps then get their δ from the budget's and the dry run
    decides.) ``compose=True`` raises the per-step ε evenly to the largest
    the accountant's composition affords (bisection over dry runs). The
    **dry run** plans every fit's records (any candidate may be refitted)
    and the choice's, and asks ``accountant.can_afford``; if not,
    :class:`~dppca.exceptions.BudgetExceededError` before any fit.
    Each fit charges the ledger; the choice charges its record before its
    draw. Every fit draws its noise independently: the private steps'
    ``random_state`` is replaced by ``None`` (fresh entropy per fit) or, with
    the search's ``random_state``, by a distinct seed per fit (fits sharing
    a seed would share their noise, and their differences be noiseless).

    **The private choice** (``selection="private"``). Every step must be
    private, the last a :class:`dppca.PrivatePCA` or a
    :class:`dppca.PrivateCovariance`, ``scoring`` None (else ``ValueError``
    before any fit, pointing to ``"non_private"``). The utility of a
    candidate is ``U = Σ ⌊L s(x)⌋`` over every fold's held-out rows, ``s``
    the score of :func:`row_scores` for a PCA (captured variance over the
    public :func:`score_scale` squared) or of
    :func:`~dppca.model_selection_covariance.covariance_row_scores` for a
    covariance (1 − the squared Frobenius distance of ``covariance_`` to the
    row's outer product over ``2B⁴``), in ``[0, 1]``, from the fold's
    released model and the row alone, ``L =`` :data:`SCORE_LEVELS`; ``y`` is
    not read. *Sensitivity:* for fixed fold models, replacing
    row ``i`` changes only its own terms, one per test fold holding it, each
    by at most ``L``: ``Δ = L · max_i c_i`` (``c_i`` test folds per row; 1
    for ``KFold``). Permute-and-flip at ``ε_sel/Δ`` per unit of ``U``
    (exact integer coins; McKenna and Sheldon 2020) is ``ε_sel``-DP for
    such utilities. *Composition:* the fold fits are DP releases charged to
    the ledger; for every fixed value of their outputs the choice is
    ``ε_sel``-DP in the rows, and the refit's parameters are a function of
    it; so by adaptive composition the search is private at the ledger's
    composition of the fits' records and the choice's pure ``ε_sel`` (all
    in the dry run). Returns a :class:`PrivateGridSearch` holding released
    values only; no held-out score is kept.

    **The non-private choice** (``selection="non_private"``, by request
    only): ``GridSearchCV`` picks by its scores on the raw held-out rows,
    through any downstream model fitted without privacy. Returns the fitted
    ``GridSearchCV`` with ``selection_``, ``non_private_steps_`` and
    ``privacy_note_``, and warns
    (:class:`~dppca.exceptions.PrivacyWarning`) before the
    first fit, so a search that fails midway has warned too: the choice,
    ``cv_results_``, ``best_score_``, ``best_index_`` and the non-private
    steps of ``best_estimator_`` are outside the ledger. ``random_state``
    must be None (GridSearchCV clones one estimator). Both return
    ``budget_per_fit_`` (the (ε, δ) of each private step of each fit) and
    ``n_budgeted_fits_``.

    **Refused before any fit** (``ValueError``): a ``param_grid`` that sets
    ``epsilon``, ``delta`` or ``accountant`` of a private step, replaces a
    step up to the last private one or holds a private estimator; ``n_jobs``
    other than 1 or a process backend in ``joblib.parallel_config`` (a
    worker holds a copy of the ledger); a private estimator that is not a
    top-level step; a non-private step before a private one; a ``cv`` that
    could read ``y``, a generator, or a split with repeated, out-of-range or
    shared rows; a private step with ``clip=False`` (a later fold's fit
    would refuse a long row after earlier folds were charged); an ``X``
    with NaN or Inf. The ledger must gain exactly the records planned
    (``RuntimeError`` if not). Failing fits raise; a failure of the scoring
    or of the draw raises a ``RuntimeError`` that carries no held-out score.

    Parameters
    ----------
    estimator : PrivatePCA, PrivateCovariance or Pipeline
        The private estimator, or a Pipeline whose private steps come first.
    param_grid : dict or list of dict
        The candidates, as for ``GridSearchCV`` (never a budget parameter).
    accountant : Accountant
        The ledger whose remaining budget the search spends.
    X : array-like of shape (n_samples, n_features)
        The rows.
    y : array-like of shape (n_samples,), optional
        Labels, for a downstream model only (never for the folds).
    cv : int, KFold, RepeatedKFold, ShuffleSplit or list of splits, default=5
        The folds (see **Folds**); an int only under add/remove neighbours.
    refit : bool, default=True
        Refit the chosen candidate on all rows (one more fit in the budget).
    scoring : str or callable, optional
        Only with ``selection="non_private"``.
    compose : bool, default=True
        Raise the per-step ε to the largest the accountant's composition
        affords.
    selection : {"private", "non_private"}, default="private"
        How the candidate is chosen (see above).
    selection_epsilon : float, optional
        The ε of the private choice; default :data:`SELECTION_SHARE` of what is
        left.
    random_state : None or int, optional
        Seeds distinct per fit; ``None`` draws fresh entropy for each.
    groups : array-like of shape (n_samples,), optional
        The person of each row: the search per person (see above).
    **search_options
        Passed to ``GridSearchCV`` (``selection="non_private"`` only).

    Returns
    -------
    PrivateGridSearch or GridSearchCV
        The fitted search (see above).
    """
    from sklearn.base import clone
    from sklearn.model_selection import ParameterGrid

    from .privacy.accounting import BudgetExceededError

    if selection not in ("private", "non_private"):
        raise ValueError(
            f"selection must be 'private' or 'non_private'; got {selection!r}"
        )
    private = selection == "private"
    steps = private_steps(estimator)
    grids = [param_grid] if isinstance(param_grid, dict) else param_grid
    check_search_shape(estimator, steps, grids)
    if not steps:
        raise ValueError(
            "the estimator has no private step (epsilon, "
            "delta and accountant parameters)"
        )
    reserved = {
        p + key for p, _ in steps for key in ("epsilon", "delta", "accountant")
    }
    clash = sorted(reserved & {key for g in grids for key in g})
    if clash:
        raise ValueError(
            f"param_grid may not set {clash}: the search splits "
            "the budget itself"
        )
    if parallel_in_processes(search_options.get("n_jobs")):
        raise ValueError(
            "n_jobs must be 1 (or joblib's active backend a thread one): "
            "a worker process would charge a copy of the ledger; nothing "
            "was fitted"
        )
    if private:
        check_private_selection(estimator, scoring, search_options)
    elif random_state is not None:
        raise ValueError(
            "selection='non_private' fits through GridSearchCV, which "
            "clones one estimator: it cannot give each fit its own seed. "
            "Pass random_state=None; nothing was fitted"
        )
    candidates = list(ParameterGrid(param_grid))
    bound = person_bound_of_search(
        estimator, steps, candidates, cv, selection, groups
    )
    cap = search_relation(estimator, steps, candidates, cv, selection)
    relation = REPLACE_ONE if cap is None else add_remove_neighbours(cap)
    X = checked_rows(X, estimator, steps, candidates)
    n, d = X.shape
    folds = search_folds(cv, n, cap, bound, groups, random_state)
    people, splits, sensitivity, sizes, full = folds
    relation = relation if people is None else people.relation
    check_ledger_relation(accountant, relation)

    def records_of(fitted, size) -> list:
        """The records of one fit on ``size`` rows (or persons)."""
        if people is not None:
            return person_fit_records(fitted, steps, size, bound, d)
        return fit_records(fitted, steps, size, d)

    m = len(candidates) * len(splits) + (1 if refit else 0)
    eps_left, delta_left = accountant.remaining()
    if delta_left == 0 and accountant.delta > 0 and accountant.releases:
        # composed at the budget's δ, a Gaussian release leaves "δ left" 0:
        # a step's δ only sets its σ; the dry run decides on the whole ledger
        delta_left = accountant.delta
    chosen = []
    if private:
        eps_sel = (
            SELECTION_SHARE * eps_left
            if selection_epsilon is None
            else float(selection_epsilon)
        )
        if not 0 < eps_sel < eps_left:
            raise BudgetExceededError(
                f"selection_epsilon = {eps_sel:.3g} must be > 0 and below "
                f"the ε left ({eps_left:.3g}); nothing fitted"
            )
        if not exact_epsilon(eps_sel / sensitivity) > 0:
            raise BudgetExceededError(  # the draw would refuse it later
                f"selection_epsilon = {eps_sel:.3g} is too small for an "
                "exact draw at this sensitivity; nothing fitted"
            )
        chosen = [selection_guarantee(eps_sel, relation)]
        eps_left -= eps_sel
    per_eps = eps_left / (m * len(steps))
    per_delta = delta_left / (m * len(steps))
    if not per_eps > 0:
        raise BudgetExceededError(
            "the accountant has no budget left; nothing fitted"
        )
    for prefix, step in steps:
        if step.delta not in (None, 0) and not per_delta > 0:  # 0: pure
            raise BudgetExceededError(
                "the accountant has no δ left for a step with a delta; "
                "nothing fitted"
            )

    def configured(scale):
        settings = {}
        for prefix, step in steps:
            settings[prefix + "epsilon"] = per_eps * scale
            settings[prefix + "accountant"] = accountant
            if step.delta not in (None, 0):  # delta=0.0 states pure ε-DP
                settings[prefix + "delta"] = per_delta
            if "random_state" in step.get_params(deep=False):
                settings[prefix + "random_state"] = None
        return clone(estimator).set_params(**settings)

    def affords(scale) -> bool:
        """The dry run: every fit's records, planned; the refit is of the
        chosen candidate, unknown before, so every candidate's must fit."""
        base = configured(scale)
        records, refits = list(chosen), []
        with silenced(Warning):  # this thread only
            for params in candidates:
                fitted = clone(base).set_params(**params)
                for size in sizes:  # n private: the cap, or the persons
                    records += records_of(fitted, size)
                if refit:
                    refits.append(records_of(fitted, full))
        return all(
            accountant.can_afford(records + extra) for extra in refits or [[]]
        )

    if not affords(1.0):
        raise BudgetExceededError(
            f"a search of {m} fits at ε = {per_eps:.3g} per private step "
            "would exceed the accountant's budget; nothing was fitted"
        )
    scale = 1.0
    if compose:
        # the accountant composes more tightly than the sum: the largest
        # even ε it affords, by bisection on a log scale (dry runs only)
        low, high = 0.0, math.log(m * len(steps))
        for _ in range(12):
            middle = (low + high) / 2
            if affords(math.exp(middle)):
                low = middle
            else:
                high = middle
        scale = math.exp(low)
    budget = (
        per_eps * scale,
        per_delta if any(s.delta not in (None, 0) for _, s in steps) else None,
    )
    job = SimpleNamespace(
        base=configured(scale), steps=steps, candidates=candidates,
        splits=splits, accountant=accountant, X=X, refit=refit, n=n, d=d,
        cap=cap, relation=relation, sensitivity=sensitivity, sizes=sizes,
        full=full, records=records_of, people=people,
    )  # fmt: skip
    before = len(accountant.releases)
    if private:
        search = _private_search(job, chosen[0], random_state)
        best = search.best_params_ if refit else None
    else:
        options = (estimator, param_grid, y, scoring, search_options)
        search = non_private_search(job, *options)
        best = search.best_params_ if refit else None
    check_ledger(job, before, best, len(chosen))
    search.budget_per_fit_ = budget
    search.n_budgeted_fits_ = m
    return search


def _fold_utilities(job, seeded, scale) -> list:
    """``U`` of every candidate: its fold models fitted (each fit charges
    the ledger) and their held-out rows scored. On any exception the raw
    scores are dropped from this frame before it propagates, and a failure
    of the scoring itself is raised afresh, without the scoring's frames."""
    from sklearn.utils import _safe_indexing

    X, utilities, total = job.X, [], 0
    try:
        for params in job.candidates:
            total = 0
            for train, test in job.splits:
                model = seeded(params)
                rows = _safe_indexing(X, train)
                if job.cap is not None and not len(train):
                    # add/remove: an empty training side fits on the public
                    # row alone (in float64, as computed; sparse when X is,
                    # so a step that refuses sparse rows refuses it too, red
                    # team 23), never on zero rows
                    rows = neutral_row(model, job.steps, X.shape[1])[None]
                    if scipy.sparse.issparse(X):
                        rows = scipy.sparse.csr_matrix(rows)
                model.fit(rows, **groups_of(job.people, job.steps, train))
                if len(test):  # an empty test side (add/remove) scores 0
                    held = persons_of(job.people, test)
                    total += _scored(
                        model, _safe_indexing(X, test), scale, held
                    )
                del model  # fold models are not released
            utilities.append(total)
    except BaseException:
        utilities = total = None  # raw held-out scores: not in the traceback
        raise
    return utilities


def _scored(model, X_test, scale, persons=None) -> int:
    """:func:`held_out_utility`, or a ``RuntimeError`` that carries neither
    the rows nor the scores (raised outside the handler: no context)."""
    failure = None
    try:
        options = {} if persons is None else {"persons": persons}
        return held_out_utility(model, X_test, scale, **options)
    except Exception as error:  # not expected: the scoring is total
        failure = type(error).__name__
    raise RuntimeError(
        f"scoring the held-out rows failed ({failure}); the fold fits "
        "already ran were charged. The error is not passed on: its frames "
        "would hold held-out rows and scores"
    )


def _draw(utilities, epsilon, rng) -> int:
    """Permute-and-flip over ``utilities``; on failure a ``RuntimeError``
    without the frames that hold them."""
    failure = None
    try:
        return int(
            permute_and_flip(
                np.asarray(utilities, dtype=np.int64), epsilon, rng
            )
        )
    except Exception as error:  # not expected: integer utilities
        failure = type(error).__name__
    raise RuntimeError(f"the private selection's draw failed ({failure})")


def _private_search(job, record, random_state):
    """Fit every candidate on every fold, score the held-out rows, charge
    and draw the private choice, refit it: a :class:`PrivateGridSearch`."""
    from sklearn.base import clone

    base, steps, candidates, splits, X = (
        job.base, job.steps, job.candidates, job.splits, job.X,
    )  # fmt: skip
    fits = len(candidates) * len(splits) + 1  # one seed per step and fit
    seeds = iter(fit_seeds(random_state, fits * len(steps) + 1))

    def seeded(params):
        fitted = clone(base).set_params(**params)
        for prefix, step in steps:
            if "random_state" in step.get_params(deep=False):
                fitted.set_params(**{prefix + "random_state": next(seeds)})
        return fitted

    pcas = [clone(base).set_params(**c) for c in candidates]
    scale = score_scale([step_of(p, steps[-1][0]) for p in pcas], X.shape[1])
    sensitivity = job.sensitivity
    utilities = _fold_utilities(job, seeded, scale)
    try:
        job.accountant.charge([record], label="private model selection")
        rng = as_generator(next(seeds))
        epsilon = exact_epsilon(record.epsilon / sensitivity)
        index = _draw(utilities, epsilon, rng)
    finally:
        del utilities  # raw held-out scores: not released, nor traced back
    result = PrivateGridSearch(
        best_index_=index,
        best_params_=dict(candidates[index]),
        candidates_=[dict(c) for c in candidates],
        n_splits_=len(splits),
        refit=bool(job.refit),
        selection_epsilon_=record.epsilon,
        selection_guarantee_=record,
    )
    if job.refit:
        everyone = groups_of(job.people, steps, None)
        result.best_estimator_ = seeded(candidates[index]).fit(X, **everyone)
    return result


__all__ = [
    "PrivateGridSearch",
    "SCORE_LEVELS",
    "SELECTION_SHARE",
    "budgeted_grid_search",
    "label_free_splits",
    "row_scores",
    "score_scale",
    "selection_guarantee",
]
