"""What :func:`dppca.model_selection.budgeted_grid_search` checks, so that
its fits stay within the ledger: the refusals before any fit (a private
estimator the budget would not cover, a grid that replaces a private step, a
private selection the package cannot score, worker processes that would
charge a copy of the ledger, rows a later fold's fit would refuse), the
neighbouring relation of the search (:func:`search_relation`; under
add/remove neighbours the public row of :func:`neutral_row` for an empty
training side), the dry run's
records of each fit, and the check after the search that the ledger gained
exactly the planned records; and the non-private search
(:func:`non_private_search`, ``GridSearchCV``'s choice, marked and warned
about as outside the ledger).
"""

from __future__ import annotations

import numbers

import numpy as np

from .validation import check_public_shape


def private_steps(estimator) -> list[tuple[str, object]]:
    """``(parameter prefix, step)`` of every private step (an estimator
    with ``epsilon``, ``delta`` and ``accountant`` parameters), in a
    Pipeline or alone."""
    from sklearn.pipeline import Pipeline

    def private(step):
        keys = (
            step.get_params(deep=False) if hasattr(step, "get_params") else {}
        )
        return {"epsilon", "delta", "accountant"} <= set(keys)

    if isinstance(estimator, Pipeline):
        return [
            (f"{name}__", step)
            for name, step in estimator.steps
            if private(step)
        ]
    return [("", estimator)] if private(estimator) else []


def is_private(obj) -> bool:
    """A dppca private estimator: a :class:`dppca.PrivatePCA`, a
    :class:`dppca.PrivateStandardScaler`, or any estimator with ``epsilon``,
    ``delta`` and ``accountant`` parameters."""
    from .decomposition.pca import PrivatePCA
    from .scaler import PrivateStandardScaler

    if isinstance(obj, (PrivatePCA, PrivateStandardScaler)):
        return True
    if isinstance(obj, type) or not hasattr(obj, "get_params"):
        return False
    try:
        keys = obj.get_params(deep=False)
    except TypeError:
        return False
    return {"epsilon", "delta", "accountant"} <= set(keys)


def private_inside(value, found=None) -> list:
    """Every private estimator in ``value``: itself, in its parameters
    (``get_params(deep=True)``, recursively) or in lists, tuples, sets and
    dicts of them."""
    found = [] if found is None else found
    if isinstance(value, (str, bytes, type)):
        return found
    if is_private(value) and not any(value is f for f in found):
        found.append(value)
    if isinstance(value, dict):
        for item in value.values():
            private_inside(item, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            private_inside(item, found)
    elif hasattr(value, "get_params"):
        try:
            params = value.get_params(deep=True)
        except TypeError:
            params = {}
        for item in params.values():
            if item is not value:
                private_inside(item, found)
    return found


def check_search_shape(estimator, steps, grids) -> None:
    """Refuse, before any fit, a search whose fits the budget would not
    cover: a private estimator anywhere but a top-level step the search
    budgets (nested in a FeatureUnion, an inner Pipeline, a wrapper), a
    ``param_grid`` value that carries one or replaces a step at or before
    the last private step, a private step after a non-private one or after
    a width-changing private one (all but a PrivateStandardScaler)."""
    from sklearn.pipeline import Pipeline

    budgeted = [step for _, step in steps]
    hidden = [
        obj
        for obj in private_inside(estimator)
        if not any(obj is step for step in budgeted)
    ]
    if hidden:
        raise ValueError(
            "the estimator holds a private estimator "
            f"({type(hidden[0]).__name__}) that is not a top-level step of "
            "the Pipeline (nested in a FeatureUnion, an inner Pipeline or "
            "another wrapper): the search could neither split the budget "
            "to it nor plan its charges. Make every private estimator a "
            "top-level step; nothing was fitted"
        )
    for grid in grids:
        for key, values in grid.items():
            if private_inside(list(values)):
                raise ValueError(
                    f"param_grid[{key!r}] holds a private estimator: its "
                    "fits would run with their own epsilon, outside the "
                    "split of the budget. Put the private estimator in "
                    "the Pipeline and search over its parameters "
                    "(e.g. 'pca__n_components'); nothing was fitted"
                )
    if not isinstance(estimator, Pipeline) or not steps:
        return
    names = [name for name, _ in estimator.steps]
    last = max(
        i for i, (_, step) in enumerate(estimator.steps) if is_private(step)
    )
    fixed = set(names[: last + 1]) | {"steps"}
    replaced = sorted(fixed & {key for grid in grids for key in grid})
    if replaced:
        raise ValueError(
            f"param_grid may not replace the steps {replaced}: the search "
            "plans the budget for the private steps and what they are "
            "fitted on; search over their parameters instead. Nothing "
            "was fitted"
        )
    from .scaler import PrivateStandardScaler

    for name, step in estimator.steps[:last]:
        if is_private(step) and not isinstance(step, PrivateStandardScaler):
            raise ValueError(
                f"the private step {name!r} changes the width a later "
                "private step is fitted on, which the dry run takes from X: "
                "only a PrivateStandardScaler may come first; nothing was "
                "fitted"
            )
    for name, step in estimator.steps[: last + 1]:
        if step is None or step == "passthrough" or is_private(step):
            continue
        raise ValueError(
            f"the non-private step {name!r} comes before a private step: "
            "the dry run needs each private step's input width and takes "
            "it from X, which a step fitted on the data first (a feature "
            "selection, say) may change, so the search could be refused "
            "after spending most of the budget; and a non-private step "
            "fitted on the data is not private preprocessing anyway. Put "
            "the private steps first; nothing was fitted"
        )


def non_private_steps(estimator) -> list[str]:
    """Names of the steps fitted on the rows without privacy."""
    from sklearn.pipeline import Pipeline

    if not isinstance(estimator, Pipeline):
        return [] if is_private(estimator) else [type(estimator).__name__]
    return [
        name
        for name, step in estimator.steps
        if not (step is None or step == "passthrough" or is_private(step))
    ]


def check_private_selection(estimator, scoring, options) -> None:
    """Refuse, before any fit, a private selection the package cannot
    score with bounded sensitivity."""
    from sklearn.pipeline import Pipeline

    from .covariance.estimator import PrivateCovariance
    from .decomposition.pca import PrivatePCA

    outside = non_private_steps(estimator)
    last = estimator.steps[-1][1] if isinstance(estimator, Pipeline) else None
    why = (
        f"{outside} would be fitted on the rows (and labels) without "
        "privacy, and the held-out scores would read them"
        if outside
        else "the held-out scores are those of a released PrivatePCA or "
        "PrivateCovariance, so the estimator (or the last step) must be one"
        if not isinstance(last or estimator, (PrivatePCA, PrivateCovariance))
        else "the package's bounded score is the only one with a known "
        "sensitivity: scoring must be None"
        if scoring is not None
        else f"the GridSearchCV options {sorted(options)} do not apply"
        if set(options) - {"n_jobs"}
        else ""
    )
    if why:
        raise ValueError(
            f"selection='private' cannot run: {why}. Pass "
            "selection='non_private' to choose by GridSearchCV's scores, "
            "outside the ledger (it says so), or search a PrivatePCA or "
            "PrivateCovariance, alone or after PrivateStandardScaler steps; "
            "nothing was fitted"
        )


def _relations(estimator, steps, candidates) -> set:
    """``(neighbours, max_samples)`` of every private step in the estimator
    and in every candidate of the grid (``max_samples`` only under
    add/remove; a step without a ``neighbours`` parameter is replace-one)."""
    from .decomposition.add_remove import DEFAULT_MAX_SAMPLES

    settings = [estimator.get_params()] + [
        {**estimator.get_params(), **c} for c in candidates
    ]
    found = set()
    for s in settings:
        for prefix, _ in steps:
            value = s.get(prefix + "neighbours", "replace")
            if isinstance(value, str) and value == "add-remove":
                cap = s.get(prefix + "max_samples", DEFAULT_MAX_SAMPLES)
                found.add(("add-remove", cap))
            else:
                found.add(("replace", None))
    return found


def search_relation(estimator, steps, candidates, cv, selection):
    """The neighbouring relation of the search, from public parameters,
    before any fit or charge: ``None`` for replace-one, or the public cap
    ``N = max_samples`` when every private step of the estimator and of
    every candidate has ``neighbours="add-remove"`` with that cap.

    Under add/remove neighbours the search draws each row's fold at random
    (:func:`dppca.model_selection_scoring.random_folds`), so only an int
    ``cv`` (the number of folds) is accepted, and only the private choice
    (``GridSearchCV`` would fit an empty training side without the public
    row that stands in for it). Refused (``ValueError``): relations
    mixed across steps or candidates (the ledger holds one relation and one
    cap), a ``cv`` that is not an int of at least 2, and
    ``selection="non_private"``."""
    from .linalg.float_error import check_max_samples

    relations = _relations(estimator, steps, candidates)
    if all(kind == "replace" for kind, _ in relations):
        return None
    if len(relations) > 1:
        named = sorted(
            "replace-one" if kind == "replace" else f"add/remove (cap {cap})"
            for kind, cap in relations
        )
        raise ValueError(
            "budgeted_grid_search runs under one neighbouring relation: the "
            f"private steps or candidates mix {named}, and one ledger cannot "
            "compose releases under different relations (or caps). Give "
            "every private step neighbours='add-remove' with one "
            "max_samples, and keep neighbours and max_samples out of the "
            "grid; nothing was fitted or charged"
        )
    ((_, cap),) = relations
    cap = check_max_samples(cap)
    _check_scaler_first(steps)
    if isinstance(cv, bool) or not isinstance(cv, numbers.Integral):
        raise ValueError(
            "under neighbours='add-remove' cv must be an int K (the search "
            "draws each row's fold at random, so that one row added moves "
            "no other row between folds); a splitter such as KFold or "
            "ShuffleSplit, or a list of index splits, makes folds from the "
            f"number of rows, which is private here (got "
            f"{type(cv).__name__}); nothing was fitted or charged"
        )
    if cv < 2:
        raise ValueError(
            f"cv must be at least 2; got {cv}. Nothing was fitted or charged"
        )
    if selection != "private":
        raise ValueError(
            "under neighbours='add-remove' only selection='private' runs: "
            "GridSearchCV would fit its folds without the public row the "
            "search puts in an empty training side (a fold drawn empty "
            "would raise after others were charged); nothing was fitted or "
            "charged"
        )
    return cap


def _check_scaler_first(steps) -> None:
    """Under add/remove, a :class:`dppca.PrivateStandardScaler` only as the
    first private step: an empty training side fits on one public row
    (:func:`neutral_row`), which a later step sees transformed, as a
    replace-one pair of one row against ``x``; the scaler's add/remove
    sensitivity (half its replace-one one) would not cover that pair."""
    from .scaler import PrivateStandardScaler

    for position, (name, step) in enumerate(steps):
        if position and isinstance(step, PrivateStandardScaler):
            raise ValueError(
                "under neighbours='add-remove' a PrivateStandardScaler must "
                f"be the first private step of the search's estimator "
                f"({name.rstrip('_') or 'the estimator'} is not): nothing "
                "was fitted or charged"
            )


def check_search_rows(n: int, cap: int) -> None:
    """Under add/remove neighbours, refuse ``n`` rows above the cap ``N``
    before any fit (outside the relation's domain, as the estimators'
    refusal of ``n > N``): a fold's training side holds at most ``n`` rows
    (one public row only when it is empty, :func:`neutral_row`), so the
    search covers data sets of 1 to ``N`` rows."""
    if n > cap:
        raise ValueError(
            f"X has more rows than max_samples = {cap}: under add/remove "
            f"neighbours the search covers data sets of 1 to {cap} rows; "
            "raise max_samples. Nothing was fitted or charged"
        )


def check_ledger_relation(accountant, relation: str) -> None:
    """Refuse, before any fit, a search whose records the ledger could not
    hold beside those it holds (add/remove beside another relation, or
    another cap): the dry run would otherwise read as a budget refusal."""
    from .privacy.accounting import _relation_conflict

    held = [r.neighbours for r in accountant.releases]
    why = _relation_conflict([*held, relation])
    if why:
        raise ValueError(
            f"budgeted_grid_search refused: {why}. Nothing was fitted or "
            "charged"
        )


def neutral_row(fitted, steps, d) -> np.ndarray:
    """The public row a fold fit runs on under add/remove neighbours when
    its training side is empty (the estimators refuse an empty ``X``), in
    float64: a :class:`dppca.PrivateStandardScaler`'s midpoints of
    ``bounds`` (normalised entries 0: it adds nothing to the sums), a
    :class:`dppca.PrivatePCA`'s box midpoint when it has a
    ``feature_range`` (inside the box, which it would otherwise refuse; red
    team 22), else its public centre (0 after centring; the origin with
    ``center=False``; a PrivateCovariance's likewise). It is a function of
    public parameters. When ``D``'s side is empty and ``D + x``'s holds
    ``x``, the two fits see one row each, the public row and ``x``, with
    equal private counts: for a first scaler the pair (no row, ``x``); for
    a ``PrivatePCA`` or a ``PrivateCovariance``, first or later (a later
    step sees the rows after the earlier steps' transforms), a replace-one
    pair of one row, which padded to ``N`` rows is a
    replace-one pair of ``N`` rows, the pair every add/remove mechanism's
    calibration covers (:mod:`dppca.decomposition.add_remove`, step 1). A
    scaler after another private step is refused (its add/remove
    sensitivity is half its replace-one one)."""
    from .decomposition.pca import PrivatePCA
    from .decomposition.ranges import range_stand_in
    from .scaler import PrivateStandardScaler, check_bounds

    step = step_of(fitted, steps[0][0])
    if isinstance(step, PrivateStandardScaler):
        lower, upper = check_bounds(step.bounds, d)
        return lower / 2 + upper / 2  # as the scaler computes its centre
    if isinstance(step, PrivatePCA):
        resolved = range_stand_in(step, d)
        box = getattr(resolved, "range_box", None)
        if box is not None:
            return np.asarray(box[0] / 2 + box[1] / 2, dtype=np.float64)
        step = resolved
    centre = getattr(step, "center", None)  # a PrivateCovariance's too
    if not isinstance(centre, (bool, np.bool_, str, type(None))):
        return np.broadcast_to(
            np.asarray(centre, dtype=np.float64), (d,)
        ).copy()
    return np.zeros(d)


def parallel_in_processes(n_jobs) -> bool:
    """Whether the search would run its fits in worker processes: an
    explicit ``n_jobs`` other than 1, or, without one, joblib's active
    configuration (``joblib.parallel_config``) with a process backend and
    more than one job (thread backends share the ledger)."""
    if n_jobs is not None:
        return n_jobs != 1
    from joblib.parallel import get_active_backend

    backend, active_jobs = get_active_backend()
    if getattr(backend, "supports_sharedmem", False):
        return False  # threads (or sequential): one ledger
    return active_jobs not in (None, 1)


def step_records(step, n, d) -> list:
    """The records a fit of one private step would charge (dry run)."""
    from .covariance.estimator import PrivateCovariance
    from .covariance.plan import planned_records as covariance_records
    from .decomposition.pca import PrivatePCA
    from .decomposition.plan import planned_records
    from .scaler import PrivateStandardScaler, scaler_plan

    if isinstance(step, PrivatePCA):
        return planned_records(step, n, d)
    if isinstance(step, PrivateStandardScaler):
        return [s.record for s in scaler_plan(step, n, d)]
    if isinstance(step, PrivateCovariance):
        return covariance_records(step, n, d)
    raise TypeError(f"no dry run for {type(step).__name__}")


def fit_records(fitted, steps, size, d) -> list:
    """The guarantee records one fit of ``fitted`` charges on ``size`` rows
    of ``d`` features: those of each private step of ``steps``."""
    return [
        record
        for prefix, _ in steps
        for record in step_records(step_of(fitted, prefix), size, d)
    ]


def step_of(estimator, prefix):
    """The step of a pipeline ``estimator`` whose parameters start with
    ``prefix`` (``"pca__"``), or ``estimator`` itself for no prefix."""
    return estimator if not prefix else estimator.named_steps[prefix[:-2]]


def _refusing_flags(params, position: int) -> list:
    """The parameters of the private step at ``position`` that make its fit
    refuse a row instead of clipping it, which the search cannot check
    before its first fit: ``clip=False`` (a row above the bound), and, on a
    step after the first, ``clip_to_range=False`` with a ``feature_range``
    (red team 21: in a Pipeline after a private scaler, the scaled rows of
    one data set can leave the box). The first step's box is checked on
    ``X`` itself, before any fit (:func:`_first_box`)."""
    flags = []
    if not bool(params.get("clip", True)):
        flags.append(("clip", False))
    if (
        position
        and params.get("feature_range") is not None
        and not bool(params.get("clip_to_range", True))
    ):
        flags.append(("clip_to_range", False))
    return flags


def _first_box(X, fitted_all, steps) -> None:
    """Refuse, before any fit, rows outside the box of a first private step
    with ``feature_range`` and ``clip_to_range=False``, as that step's own
    fit refuses them before any charge (a data set outside the relation's
    domain; the message names no value): otherwise a fold's fit would
    refuse them after the earlier folds were charged."""
    from .decomposition.ranges import range_stand_in, rows_in_box

    for fitted in fitted_all:
        step = step_of(fitted, steps[0][0])
        params = step.get_params(deep=False)
        if params.get("feature_range") is None:
            continue
        box = range_stand_in(step, X.shape[1]).range_box
        if not box[2]:
            rows_in_box(X, box)


def checked_rows(X, estimator, steps, candidates):
    """``X`` validated before any fit as every fold's fit would validate it
    (2-D, numeric, finite; ``ValueError`` otherwise), so that no fold's fit
    refuses its rows after earlier folds were charged. For the same reason a
    private step with a false ``clip`` (which refuses a row above its
    bound) or, on a step after the first, a false ``clip_to_range`` with a
    ``feature_range`` (which refuses a row outside the box; the first
    step's box is checked on ``X`` here), in the estimator or in any
    candidate of the grid, is refused:
    whether the search raised midway would depend on one row."""
    from sklearn.base import clone
    from sklearn.utils import check_array

    fitted_all = [estimator] + [
        clone(estimator).set_params(**c) for c in candidates
    ]
    refusing = [
        (type(step).__name__, name)
        for fitted in fitted_all
        for position, (prefix, _) in enumerate(steps)
        for step in [step_of(fitted, prefix)]
        for name, value in _refusing_flags(
            step.get_params(deep=False), position
        )
    ]
    if refusing:
        kind, name = refusing[0]
        raise ValueError(
            f"a private step ({kind}) has {name}=False: a row outside "
            "its bound or box would be refused by the fit of a later fold, "
            "after the earlier folds were charged, so whether the search "
            f"raised would depend on one row. Use {name}=True; nothing was "
            "fitted"
        )
    check_public_shape(X)  # before scikit-learn prints n or values
    X = check_array(
        X, accept_sparse=("csr", "csc"), dtype=(np.float64, np.float32)
    )
    _first_box(X, fitted_all, steps)
    return X


def check_ledger(job, before, best, extra):
    """Defence in depth: the ledger gained exactly the records planned for
    the fits that ran (every candidate on every fold, the chosen one
    refitted) and the selection's: ``job.records(fitted, size)`` at each
    fold's planned size (``job.sizes``) and the refit's (``job.full``)."""
    from sklearn.base import clone

    from .exceptions import silenced
    from .privacy.accounting import _releases

    with silenced(Warning):  # this thread only
        expected = extra
        for params in job.candidates:
            fitted = clone(job.base).set_params(**params)
            for size in job.sizes:  # n private: the cap, or the persons
                expected += len(_releases(job.records(fitted, size)))
        if best is not None:
            fitted = clone(job.base).set_params(**best)
            expected += len(_releases(job.records(fitted, job.full)))
    charged = len(job.accountant.releases) - before
    if charged != expected:
        raise RuntimeError(
            f"the search charged {charged} release record(s) to the ledger "
            f"where its plan expected {expected}: a private fit may have "
            "run outside the budget split (or charged another ledger)"
        )


def non_private_search(job, estimator, param_grid, y, scoring, options):
    """GridSearchCV's choice, on the label-free splits, marked and warned
    about as outside the ledger."""
    from sklearn.model_selection import GridSearchCV

    from .exceptions import PrivacyWarning, warn

    outside = non_private_steps(estimator)
    note = (
        "selection='non_private': the choice of best_params_ and the "
        "scores (cv_results_, best_score_, best_index_) are computed from "
        "the raw held-out rows"
        + (
            f" and from the non-private steps {outside}, fitted on the rows "
            "(and labels) without privacy, as they are in best_estimator_"
            if outside
            else ""
        )
        + "; none of this is covered by the accountant's ledger, which "
        "holds only the private steps' fits"
    )
    # before the search: a search that fails midway has warned too (at the
    # caller's line)
    warn(note, PrivacyWarning, stacklevel=None)
    options = {**options, "error_score": "raise"}
    search = GridSearchCV(
        job.base, param_grid, cv=job.splits, refit=job.refit, scoring=scoring,
        **options,
    )  # fmt: skip
    search.fit(job.X, y)
    search.selection_ = "non_private"
    search.non_private_steps_ = tuple(outside)
    search.privacy_note_ = note
    return search


__all__ = [
    "private_steps",
    "is_private",
    "private_inside",
    "check_search_shape",
    "non_private_steps",
    "check_private_selection",
    "search_relation",
    "check_search_rows",
    "check_ledger_relation",
    "neutral_row",
    "non_private_search",
    "parallel_in_processes",
    "step_records",
    "fit_records",
    "step_of",
    "checked_rows",
    "check_ledger",
]
