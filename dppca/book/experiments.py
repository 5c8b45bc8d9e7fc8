"""The repeated-trial protocol of the real-data experiments (Chaudhuri,
Sarwate & Sinha, JMLR 2013, Sections 6.3-6.5): utility against n
(:func:`utility_versus_n`) and against ε (:func:`utility_versus_epsilon`),
the libraries' rejection samplers within a work cap
(:func:`utility_within_work_cap`), classification accuracy
(:func:`classification_accuracy`) and the summary of utility results
(:func:`summarize`).

Each experiment takes a table of mechanisms
(:func:`dppca.book.mechanism_table.mechanisms`) and runs every release through
:mod:`dppca.book.experiment_runner`; each row of the results records what
became of it (``outcome``, one of
:data:`dppca.book.experiment_runner.OUTCOMES`).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from . import install_hint

try:
    import pandas as pd
except ModuleNotFoundError as error:  # pragma: no cover - core-only installs
    raise ModuleNotFoundError(
        "dppca.book.experiments needs pandas: " + install_hint("data")
    ) from error

from ..utility import captured_variance
from ..validation import (
    as_generator,
    check_data,
    check_delta,
    check_epsilon,
    check_k,
)
from .experiment_runner import (
    OUTCOMES,
    _runs_of,
    _streams,
    _Subset,
    _try_release,
)


def utility_versus_n(
    data,
    sizes,
    mechanism_table: dict,
    *,
    epsilon: float,
    delta: float,
    n_subsets: int,
    runs: dict,
    rng=None,
    progress: bool = True,
) -> pd.DataFrame:
    """Section 6.3 of the paper: q_F(U) of each mechanism on uniform random
    subsets of size n.

    For every size in ``sizes`` and each of ``n_subsets`` subsets drawn without
    replacement, each mechanism runs ``runs[key]`` times (paper: 10 for PPCA,
    100 for the others) on the subset; ``runs`` may also be a function of the
    size returning such a dict (a protocol that spends more runs at some sizes,
    e.g. where a claim is tested). Utility is measured on the full data
    set's ``A`` (``data.A``), the quantity of Table 1, so that the non-private
    baseline sits at q_F(V_k). Returns one row per release, with its
    ``outcome`` (:data:`~dppca.book.experiment_runner.OUTCOMES`), wall-clock
    ``seconds`` (for display) and the ``proposals`` a work-capped release
    drew.

    A size equal to ``data.n`` is the whole data set, whose second moment
    ``data.A`` is reused (every "subset" of that size is the same rows).

    Sizes run in increasing order. A mechanism with a work cap
    (:meth:`~dppca.book.mechanism_table.Mechanism.with_work_cap`) that
    reaches it is not run again at that size or any larger one: one row per
    skipped subset records
    ``"not attempted"``. This is meant for rejection samplers whose
    acceptance rate falls as the concentration ``n ε`` grows (chapter 12).
    """
    from tqdm import tqdm

    rng, capped = _streams(rng, mechanism_table)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    k = check_k(data.k, data.d)
    rows = []
    gave_up = set()
    sizes = sorted(int(n) for n in sizes)
    total = len(sizes) * n_subsets
    with tqdm(
        total=total, desc=f"{data.name}: subsets", disable=not progress
    ) as bar:
        for n in sizes:
            runs_n = runs(n) if callable(runs) else runs
            whole = _Subset(data.X, A=data.A) if n == data.n else None
            for subset in range(n_subsets):
                if whole is None:
                    index = np.sort(rng.choice(data.n, size=n, replace=False))
                    subset_rows = _Subset(data.X, index)
                else:
                    subset_rows = whole
                for key, mechanism in mechanism_table.items():
                    head = (data.name, n, subset, key)
                    if key in gave_up:
                        rows.append(
                            (*head, 0, np.nan, OUTCOMES[2], np.nan, np.nan)
                        )
                        continue
                    for run in range(_runs_of(runs_n, key)):
                        V, outcome, seconds, drawn = _try_release(
                            mechanism,
                            subset_rows,
                            k,
                            epsilon,
                            delta,
                            rng,
                            capped,
                        )
                        tail = (outcome, seconds, drawn)
                        if V is None:
                            gave_up.add(key)
                            rows.append((*head, run, np.nan, *tail))
                            break
                        q = captured_variance(data.A, V)
                        rows.append((*head, run, q, *tail))
                bar.update()
    return pd.DataFrame(
        rows,
        columns=["data set", "n", "subset", "mechanism", "run", "q_F"]
        + ["outcome", "seconds", "proposals"],
    )


#: Why :func:`utility_within_work_cap` did not attempt a setting: the
#: mechanism reached its cap at a smaller concentration on the same data set;
#: or the cap the setting needs (:func:`dppca.book.peers.proposal_cap`) would
#: exceed the work budget.
SKIP_REASONS = ("harder than a failed setting", "beyond the work budget")


def utility_within_work_cap(
    settings,
    mechanism_table: dict,
    log10_acceptance: Callable,
    *,
    delta: float,
    n_subsets: int,
    work_budget: float,
    safety: float | None = None,
    rng=None,
    progress: bool = True,
) -> pd.DataFrame:
    """q_F(U) of the libraries' rejection samplers (chapter 12) over many
    settings, each release with a cap of proposals chosen from its
    acceptance probability, and run only where that cap fits a budget.

    ``settings`` are ``(data, n, epsilon)``: subsets of ``n`` rows of a
    :class:`~dppca.book.preprocessing.Preprocessed` ``data`` (all its rows,
    and its ``A``, when ``n == data.n``), released at ``epsilon``; utility is
    measured on ``data.A``, as in :func:`utility_versus_n`. Every mechanism's
    entry points must take ``max_proposals`` (:mod:`dppca.book.peers`).

    ``log10_acceptance(key, A, n, k, epsilon, rng=...)`` estimates ``r``, the
    log10 of the acceptance probability of the mechanism's first
    eigenvector draw on ``n`` rows of second moment ``A`` (e.g.
    :func:`dppca.book.peers.first_vector_log10_acceptance`, called with
    ``data.A``). The setting's cap is :func:`dppca.book.peers.proposal_cap` of
    ``r`` (``safety`` times the mean number of proposals of ``k`` such
    draws), and its work is the cap times
    :func:`dppca.book.peers.proposal_work` of ``data.d``. Each mechanism walks
    the settings of every data set in increasing order of the concentration
    ``n epsilon``. At a setting it is

    * not attempted (``SKIP_REASONS[0]``) if it reached its cap at a smaller
      concentration on the same data set, where the acceptance is higher;
    * not attempted (``SKIP_REASONS[1]``) if the work of the cap exceeds
      ``work_budget``;
    * otherwise run once on each of ``n_subsets`` subsets with that cap;
      after a release reaches it, not again on that data set.

    Nothing here depends on elapsed time: the estimates, the caps, the
    subsets and the releases all draw from generators split off ``rng``, so
    the result is a function of the seed. Returns one row per release (a
    setting not attempted: one row) with the columns of
    :func:`utility_versus_n`, plus ``epsilon``, ``log10 P(accept)``, the
    ``cap`` and the ``reason`` for a setting not attempted.
    """
    from tqdm import tqdm

    from .peers import CAP_SAFETY, proposal_cap, proposal_work

    rng = as_generator(rng)
    delta = check_delta(delta)
    safety = CAP_SAFETY if safety is None else float(safety)
    work_budget = float(work_budget)
    if not work_budget > 0:
        raise ValueError(f"work_budget must be > 0, got {work_budget}")
    settings = [
        (data, int(n), check_epsilon(epsilon)) for data, n, epsilon in settings
    ]
    for data, n, _ in settings:
        if not 1 <= n <= data.n:
            raise ValueError(f"n = {n} outside 1..{data.n} for {data.name}")
    seeds = rng.integers(2**63, size=len(settings))
    releases = np.random.default_rng(int(rng.integers(2**63)))
    subsets: dict = {}

    def subset(i, j):
        """Subset ``j`` of setting ``i`` (drawn once, in order)."""
        drawn = subsets.setdefault(i, [])
        if not drawn:
            drawn.append(np.random.default_rng((int(seeds[i]), 0)))
        while len(drawn) <= j + 1:
            data, n, _ = settings[i]
            if n == data.n:
                drawn.append(_Subset(data.X, A=data.A))
            else:
                index = np.sort(drawn[0].choice(data.n, size=n, replace=False))
                drawn.append(_Subset(data.X, index))
        return drawn[j + 1]

    order = sorted(
        range(len(settings)),
        key=lambda i: (settings[i][0].name, settings[i][1] * settings[i][2]),
    )
    rows = []
    for m, (key, mechanism) in enumerate(mechanism_table.items()):
        stopped: set = set()  # data sets where it reached its cap
        for i in tqdm(order, desc=key, disable=not progress):
            data, n, epsilon = settings[i]
            r = float(
                log10_acceptance(
                    key,
                    data.A,
                    n,
                    data.k,
                    epsilon,
                    rng=np.random.default_rng((int(seeds[i]), m + 1)),
                )
            )
            cap = proposal_cap(r, data.k, safety)
            head = (data.name, n, epsilon, 0, key, 0)
            tail = (r, float(cap))
            reason = ""
            if data.name in stopped:
                reason = SKIP_REASONS[0]
            elif cap * proposal_work(data.d) > work_budget:
                reason = SKIP_REASONS[1]
            if reason:
                rows.append(
                    (*head, np.nan, OUTCOMES[2], np.nan, np.nan, *tail, reason)
                )
                continue
            capped = mechanism.with_work_cap(cap)
            for j in range(n_subsets):
                V, outcome, seconds, drawn = _try_release(
                    capped,
                    subset(i, j),
                    data.k,
                    epsilon,
                    delta,
                    None,
                    releases,
                )
                q = np.nan if V is None else captured_variance(data.A, V)
                rows.append(
                    (data.name, n, epsilon, j, key, 0, q, outcome, seconds)
                    + (drawn, *tail, "")
                )
                if V is None:
                    stopped.add(data.name)
                    break
    return pd.DataFrame(
        rows,
        columns=["data set", "n", "epsilon", "subset", "mechanism", "run"]
        + ["q_F", "outcome", "seconds", "proposals", "log10 P(accept)"]
        + ["cap", "reason"],
    )


def summarize(
    results: pd.DataFrame, by=("data set", "n", "mechanism")
) -> pd.DataFrame:
    """Mean and standard deviation of q_F over subsets and runs (the paper's
    error bars), over the releases that returned; ``count`` is their number
    and ``not returned`` the number that reached a work cap or were not
    attempted (``mean`` is NaN when nothing returned)."""
    results = results.assign(
        missing=results["q_F"].isna().astype(int)
        if "outcome" not in results
        else (results["outcome"] != OUTCOMES[0]).astype(int)
    )
    grouped = results.groupby(list(by), observed=True)
    out = grouped["q_F"].agg(mean="mean", std="std", count="count")
    out["not returned"] = grouped["missing"].sum()
    return out.reset_index()


def utility_versus_epsilon(
    X,
    k: int,
    epsilons,
    mechanism_table: dict,
    *,
    delta: float,
    runs: dict,
    rng=None,
    progress: bool = True,
) -> pd.DataFrame:
    """Section 6.5 (Figure 5): q_F(U) on the data's own ``A`` for each ε,
    ``runs[key]`` draws, one row per release with its ``outcome`` and
    ``seconds``.

    The ε run in increasing order; a work-capped mechanism that reaches its
    cap at some ε is not run again at that ε or any larger one (one
    ``"not attempted"`` row per skipped ε). Also a ``proposals`` column."""
    from tqdm import tqdm

    rng, capped = _streams(rng, mechanism_table)
    subset = _Subset(check_data(X))
    A = subset.A
    k = check_k(k, A.shape[0])
    delta = check_delta(delta)
    rows = []
    gave_up = set()
    epsilons = sorted(check_epsilon(e) for e in epsilons)
    for epsilon in tqdm(epsilons, desc="epsilon", disable=not progress):
        for key, mechanism in mechanism_table.items():
            if key in gave_up:
                rows.append(
                    (epsilon, key, 0, np.nan, OUTCOMES[2], np.nan, np.nan)
                )
                continue
            for run in range(_runs_of(runs, key)):
                V, outcome, seconds, drawn = _try_release(
                    mechanism, subset, k, epsilon, delta, rng, capped
                )
                tail = (outcome, seconds, drawn)
                if V is None:
                    gave_up.add(key)
                    rows.append((epsilon, key, run, np.nan, *tail))
                    break
                q = captured_variance(A, V)
                rows.append((epsilon, key, run, q, *tail))
    return pd.DataFrame(
        rows,
        columns=["epsilon", "mechanism", "run", "q_F", "outcome", "seconds"]
        + ["proposals"],
    )


def classification_accuracy(
    X,
    y,
    k: int,
    mechanism_table: dict,
    *,
    epsilon: float,
    delta: float,
    n_permutations: int = 5,
    n_projections: int = 5,
    train_fraction: float = 0.1,
    C_grid=(0.01, 1.0, 100.0),
    skip=(),
    rng=None,
    progress: bool = True,
) -> pd.DataFrame:
    """Section 6.4 (Table 2): accuracy of a linear SVM on data projected onto
    each subspace.

    For each of ``n_permutations`` random permutations, the first half of the
    rows is the holdout from which each mechanism computes ``n_projections``
    subspaces; of the other half, ``train_fraction`` trains a ``LinearSVC`` (its
    C chosen from ``C_grid`` on a third of the training rows held out for
    tuning) and the rest is the test set. ``X`` is a dense or sparse n x d
    matrix with rows of norm <= 1, ``y`` boolean labels.

    Each row of the result carries its ``outcome``, the release's wall-clock
    ``seconds`` (for display) and its ``proposals`` (work-capped
    mechanisms). Every holdout has the same size, so a work-capped
    mechanism that reaches its cap once is not run again (``"not
    attempted"``, accuracy NaN, for each later permutation). The mechanisms
    in ``skip`` (keys of ``mechanism_table``, e.g. a library whose cap would
    exceed the work budget) are not run at all: one ``"not attempted"`` row
    per permutation.
    """
    from sklearn.svm import LinearSVC
    from tqdm import tqdm

    rng, capped = _streams(rng, mechanism_table)
    y = np.asarray(y, dtype=bool)
    n = X.shape[0]
    rows = []
    unknown = set(skip) - set(mechanism_table)
    if unknown:
        raise ValueError(f"skip names unknown mechanisms {sorted(unknown)}")
    gave_up = set(skip)
    with tqdm(
        total=n_permutations, desc="permutations", disable=not progress
    ) as bar:
        for permutation in range(n_permutations):
            order = rng.permutation(n)
            holdout, rest = order[: n // 2], order[n // 2 :]
            n_train = int(round(train_fraction * rest.size))
            train, test = rest[:n_train], rest[n_train:]
            hold = _Subset(X, holdout)
            X_train, X_test = _dense(X[train]), _dense(X[test])
            for key, mechanism in mechanism_table.items():
                if key in gave_up:
                    rows.append(
                        (permutation, key, 0, np.nan, np.nan)
                        + (OUTCOMES[2], np.nan, np.nan)
                    )
                    continue
                for projection in range(n_projections):
                    V, outcome, seconds, drawn = _try_release(
                        mechanism, hold, k, epsilon, delta, rng, capped
                    )
                    if V is None:
                        gave_up.add(key)
                        rows.append(
                            (permutation, key, projection, np.nan, np.nan)
                            + (outcome, seconds, drawn)
                        )
                        break
                    accuracy, C = _fit_linear_svm(
                        X_train @ V,
                        y[train],
                        X_test @ V,
                        y[test],
                        C_grid,
                        LinearSVC,
                    )
                    rows.append(
                        (permutation, key, projection, accuracy, C)
                        + (outcome, seconds, drawn)
                    )
            bar.update()
    return pd.DataFrame(
        rows,
        columns=["permutation", "mechanism", "projection", "accuracy", "C"]
        + ["outcome", "seconds", "proposals"],
    )


def _dense(M):
    return M.toarray() if hasattr(M, "toarray") else np.asarray(M, dtype=float)


def _fit_linear_svm(Z_train, y_train, Z_test, y_test, C_grid, LinearSVC):
    """Pick C on a third of the training rows, refit on all of them, return
    test accuracy."""
    if np.unique(y_train).size < 2:  # a single class: predict it
        return float(np.mean(y_test == y_train[0])), float("nan")
    n_tune = max(1, Z_train.shape[0] // 3)
    fit_part, tune_part = slice(n_tune, None), slice(0, n_tune)
    best_C, best_score = C_grid[0], -1.0
    if np.unique(y_train[fit_part]).size == 2:
        for C in C_grid:
            model = LinearSVC(C=C, dual=False, max_iter=5000).fit(
                Z_train[fit_part], y_train[fit_part]
            )
            score = model.score(Z_train[tune_part], y_train[tune_part])
            if score > best_score:
                best_C, best_score = C, score
    model = LinearSVC(C=best_C, dual=False, max_iter=5000).fit(Z_train, y_train)
    return float(model.score(Z_test, y_test)), float(best_C)
