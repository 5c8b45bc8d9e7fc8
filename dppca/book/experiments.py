"""The repeated-trial protocol of the real-data experiments (Chaudhuri,
Sarwate & Sinha, JMLR 2013,
Sections 6.3-6.5) and a registry of every subspace mechanism of the book.

Every registered mechanism maps ``(X, k, epsilon, delta, rng)`` to a ``d x k``
orthonormal ``V``. Mechanisms that only need ``A = X^T X / n`` and ``n`` also
expose that entry point (``from_moment``), so that one subset's ``A`` is formed
once and reused across restarts; for these the two entry points give the same
law (the ``X`` versions compute ``A`` and call the same code). Mechanisms that
must read the rows (:data:`ROW_MECHANISMS`) expose ``from_rows`` instead: it
takes the rows as stored (sparse rows stay sparse) and a cache that lives as
long as one subset's rows, for what is a deterministic function of them.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

try:
    import pandas as pd
except ModuleNotFoundError as error:  # pragma: no cover - core-only installs
    raise ModuleNotFoundError(
        "dppca.book.experiments needs pandas: pip install 'dppca[data]'"
    ) from error

from ..linalg import (
    haar_subspace,
    second_moment,
    sparse_gram,
    top_k_subspace,
)
from ..mechanisms.registry import BY_EXPERIMENT_KEY
from ..privacy.guarantees import UnprovedGuaranteeWarning
from ..utility import captured_variance
from ..validation import (
    PrivacyWarning,
    as_generator,
    check_data,
    check_delta,
    check_epsilon,
    check_k,
)


@dataclass(frozen=True)
class Mechanism:
    """A subspace mechanism: ``release(X, k, epsilon, delta, rng) -> V`` (d x
    k), optionally
    ``from_moment(A, n, k, epsilon, delta, rng) -> V``; ``notion`` is the
    privacy it really
    provides in a few words, ``privacy`` the module's full ``PRIVACY`` text."""

    key: str
    label: str
    notion: str
    release: Callable
    from_moment: Callable | None
    privacy: str
    #: The cap of ACG proposals each release may draw
    #: (:meth:`with_work_cap`), None for none.
    work_cap: int | None = None
    #: ``from_rows(rows, k, epsilon, delta, rng, cache) -> V`` for a mechanism
    #: that must read the rows (no ``from_moment``): ``rows`` dense or
    #: scipy.sparse, ``cache`` a dict the experiment keeps for one subset's
    #: rows (same law as ``release``; see :data:`ROW_MECHANISMS`).
    from_rows: Callable | None = None

    def __call__(self, X, k, epsilon, delta, rng=None):
        return self.release(X, k, epsilon, delta, rng, **self._capped())

    def _capped(self, work=None) -> dict:
        """Keyword arguments that pass the work cap (a fresh
        :class:`~dppca.book.peers.WorkCount` unless ``work`` is given)."""
        if self.work_cap is None:
            return {}
        from .peers import WorkCount

        return {"max_proposals": work or WorkCount(self.work_cap)}

    def with_work_cap(self, max_proposals: int) -> Mechanism:
        """The same mechanism, every release stopped with
        :class:`~dppca.book.peers.WorkCapExceeded` once it has drawn
        ``max_proposals`` proposals (for the libraries' rejection samplers,
        :mod:`dppca.book.peers`, whose entry points take ``max_proposals``).

        The experiment functions record such a release as an outcome
        (``"work cap"``), not an error. Whether a release returns depends
        only on the seed and the cap, not on the machine."""
        try:
            cap = int(max_proposals)
        except (TypeError, ValueError, OverflowError):
            cap = 0
        if cap != max_proposals or cap < 1:
            raise ValueError(
                f"max_proposals must be a positive integer, got "
                f"{max_proposals!r}"
            )
        return dataclasses.replace(self, work_cap=cap)

    def run_from_moment(self, A, n, k, epsilon, delta, rng=None):
        """Release from the second moment when possible (same law as
        ``release``)."""
        if self.from_moment is None:
            raise ValueError(f"{self.key} needs the data rows, not only A")
        return self.from_moment(A, n, k, epsilon, delta, rng, **self._capped())


def _without_not_dp_warning(function):
    """``function`` with the published Wishart mechanism's PrivacyWarning
    silenced (the registry states the failure in its notion instead)."""

    def quiet(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.filterwarnings(
                "ignore",
                message="wishart_input_perturbation is NOT",
                category=PrivacyWarning,
            )
            return function(*args, **kwargs)

    return quiet


def _without_unproved_warning(function):
    """``function`` with the call-time UnprovedGuaranteeWarning silenced: an
    experiment runs a mechanism hundreds of times, and the registry states
    each mechanism's guarantee once, in its ``privacy`` text."""

    def quiet(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
            return function(*args, **kwargs)

    return quiet


def _pca_release(X, k, epsilon, delta, rng=None):
    return top_k_subspace(second_moment(X), k)


def _pca_moment(A, n, k, epsilon, delta, rng=None):
    return top_k_subspace(A, k)


def _random_release(X, k, epsilon, delta, rng=None):
    return haar_subspace(np.shape(X)[1], k, rng)


def _random_moment(A, n, k, epsilon, delta, rng=None):
    return haar_subspace(A.shape[0], k, rng)


#: Short privacy notions shown in legends and tables (the module's PRIVACY text
#: has the detail): the baselines', the registry's mechanisms' and the peers'.
SHORT_NOTION = {
    "pca": "not private",
    "random": "0-DP (data-independent)",
    **{key: spec.short_notion for key, spec in BY_EXPERIMENT_KEY.items()},
    "diffprivlib_pca": "claimed ε-DP: sampler off-target (book)",
    "opendp_pca": "claimed ε-DP: sampler off-target (book)",
}

#: Where each private mechanism lives (module, function), from its
#: declaration in :mod:`dppca.mechanisms.registry`; the experiments import
#: whichever exist, and :func:`missing_mechanisms` lists the others.
EXPECTED = {key: spec.entry_point for key, spec in BY_EXPERIMENT_KEY.items()}

#: The mechanisms of the part "After 2019" (chapters 16-18), in its order.
AFTER_2019 = ("complex_gaussian", "streaming", "trace_sensitive")

#: The registered mechanisms that must read the rows, each with its reason.
#: They have no ``from_moment`` entry point, and the experiments hand them each
#: subset's rows (sparse rows stay sparse) through ``Mechanism.from_rows``.
ROW_MECHANISMS = {
    key: spec.row_reason
    for key, spec in BY_EXPERIMENT_KEY.items()
    if spec.row_reason is not None
}

#: The streaming mechanism's public schedule in these experiments. The
#: mechanism needs a public assumption on the eigengap for its default
#: learning rate (chapter 17), which a data set does not come with. The
#: experiments use power steps (``η = ∞``, no gap needed) on ``5`` minibatches
#: per component. This is a data-independent rule, but it was chosen by the
#: book after trying 30, 10 and 5 steps (and the Oja schedule with the true
#: gap) on the four UCI data sets at ε = 0.1: a choice made on the data,
#: which a private analysis would have to pay for. Chapter 8 says so.
STREAMING_PROTOCOL = {"learning_rate": lambda t: np.inf, "n_steps": 5}

#: The peer libraries' estimators (optional extra ``peers``), listed by
#: :func:`peer_mechanisms` only when the library imports. Kept out of
#: :func:`mechanisms`: OpenDP cannot be seeded, so these do not meet the
#: registry's same-seed contract; their ``from_moment`` runs the library's own
#: eigenvector code on ``n A`` (same law of ``V`` as the estimator on the rows).
PEER_LIBRARY = {"diffprivlib_pca": "diffprivlib", "opendp_pca": "opendp"}

_LABELS = {
    "pca": "non-private PCA",
    "random": "random subspace",
    **{key: spec.experiment_label for key, spec in BY_EXPERIMENT_KEY.items()},
    "diffprivlib_pca": "diffprivlib PCA",
    "opendp_pca": "OpenDP PCA",
}


def _find(key):
    module_name, function_name = EXPECTED[key]
    module = importlib.import_module(
        module_name
    )  # a broken module must fail loudly
    return module, getattr(module, function_name, None)


def _privacy_text(module, key):
    privacy = getattr(module, "PRIVACY", {})
    if key == "amin":
        return privacy.get("amin_subspace", SHORT_NOTION[key])
    return privacy.get(key, privacy.get(EXPECTED[key][1], SHORT_NOTION[key]))


def mechanisms(
    ppca_options: dict | None = None, streaming_options: dict | None = None
) -> dict[str, Mechanism]:
    """Every mechanism available now, baselines first. ``ppca_options`` go to
    ``dppca.mechanisms.exponential.ppca`` (e.g. ``{"n_sweeps": 50}``),
    ``streaming_options`` to ``dppca.mechanisms.streaming.dp_pca_oja`` (default
    :data:`STREAMING_PROTOCOL`; e.g. ``{"eigengap": 0.1}``, a public
    assumption)."""
    registry = {
        "pca": Mechanism(
            "pca",
            _LABELS["pca"],
            SHORT_NOTION["pca"],
            _pca_release,
            _pca_moment,
            "non-private: the exact top-k eigenvectors of A",
        ),
        "random": Mechanism(
            "random",
            _LABELS["random"],
            SHORT_NOTION["random"],
            _random_release,
            _random_moment,
            "a Haar-uniform subspace, independent of the data",
        ),
    }
    options = dict(ppca_options or {})
    stream = dict(
        STREAMING_PROTOCOL if streaming_options is None else streaming_options
    )
    for key in EXPECTED:
        module, function = _find(key)
        if function is None:
            continue
        spec = BY_EXPERIMENT_KEY[key]
        bound = {"ppca": options, "streaming": stream}.get(key, {})
        release, from_moment, from_rows = (
            None if entry is None else functools.partial(entry, **bound)
            for entry in (spec.release, spec.from_moment, spec.from_rows)
        )
        if key == "wishart_input_perturbation":
            # Run knowingly, labelled "FAILS" (chapter 3): its call-time
            # PrivacyWarning would repeat once per run of an experiment.
            release = _without_not_dp_warning(release)
            from_moment = _without_not_dp_warning(from_moment)
        registry[key] = Mechanism(
            key,
            _LABELS[key],
            SHORT_NOTION[key],
            _without_unproved_warning(release),
            None
            if from_moment is None
            else _without_unproved_warning(from_moment),
            _privacy_text(module, key),
            from_rows=None
            if from_rows is None
            else _without_unproved_warning(from_rows),
        )
    return registry


def peer_mechanisms() -> dict[str, Mechanism]:
    """diffprivlib's and OpenDP's PCA (:mod:`dppca.book.peers`), those whose
    library imports."""
    from . import peers

    ok = peers.available()
    out = {}
    for key, library in PEER_LIBRARY.items():
        if not ok[library]:
            continue
        out[key] = Mechanism(
            key,
            _LABELS[key],
            SHORT_NOTION[key],
            getattr(peers, key),
            getattr(peers, f"{key}_from_second_moment"),
            peers.PRIVACY[key],
        )
    return out


def missing_mechanisms() -> list[str]:
    """Expected mechanisms that are not (yet) implemented in the package."""
    return [key for key in EXPECTED if _find(key)[1] is None]


def _check_sparse_rows(S) -> None:
    """The checks of ``check_data`` for a scipy.sparse matrix (finite
    entries, row norms <= 1)."""
    from ..validation import ROW_NORM_TOLERANCE

    if not np.all(np.isfinite(S.data)):
        raise ValueError("X contains NaN or Inf")
    norms = np.sqrt(np.asarray(S.multiply(S).sum(axis=1)).ravel())
    if norms.size and norms.max() > 1.0 + ROW_NORM_TOLERANCE:
        raise ValueError(
            f"X has {int((norms > 1.0 + ROW_NORM_TOLERANCE).sum())} rows with "
            f"Euclidean norm > 1 (largest {norms.max():.6g}); rescale "
            "explicitly "
            "(dppca.scale_to_unit_ball) before running a mechanism"
        )


class _Subset:
    """Rows of one subset: its second moment at once (sparse product when
    possible, or ``A`` when the caller already has it), the dense rows only if
    a mechanism needs them."""

    def __init__(self, X, index=None, A=None):
        part = X if index is None else X[index]
        self.n = part.shape[0]
        if hasattr(part, "toarray"):
            _check_sparse_rows(part)
            self._dense = None
            if A is None:
                A = sparse_gram(part) / self.n
                A = (A + A.T) / 2
            self._sparse = part
        else:
            self._dense = check_data(part)
            if A is None:
                A = second_moment(self._dense)
        self.A = A
        self._caches = {}

    @property
    def X(self):
        if self._dense is None:
            self._dense = check_data(self._sparse.toarray())
        return self._dense

    @property
    def rows(self):
        """The rows as given: sparse rows stay sparse (checked)."""
        return self._sparse if self._dense is None else self._dense

    def cache(self, key: str) -> dict:
        """A dict for mechanism ``key`` that lives as long as these rows
        (e.g. a mechanism's deterministic function of the rows)."""
        return self._caches.setdefault(key, {})


def _release(
    mechanism: Mechanism, subset: _Subset, k, epsilon, delta, rng, work=None
):
    extra = mechanism._capped(work)
    if mechanism.from_moment is not None:
        return mechanism.from_moment(
            subset.A, subset.n, k, epsilon, delta, rng, **extra
        )
    if mechanism.from_rows is not None:
        return mechanism.from_rows(
            subset.rows,
            k,
            epsilon,
            delta,
            rng,
            subset.cache(mechanism.key),
            **extra,
        )
    return mechanism.release(subset.X, k, epsilon, delta, rng, **extra)


#: What became of a planned release, in the ``outcome`` column of every
#: experiment's results: it returned; it drew its mechanism's cap of
#: proposals without accepting (``q_F``/``accuracy`` NaN); or it was not
#: attempted (the mechanism had already reached its cap at the same or an
#: easier setting, or its cap there would exceed the work budget).
OUTCOMES = ("returned", "work cap", "not attempted")


def _streams(rng, mechanism_table: dict):
    """``(rng, capped)``: the experiment's generator, and the one that
    work-capped mechanisms draw from (None if there are none).

    After a mechanism reaches its cap, its remaining releases are skipped.
    Drawing their randomness from a stream of their own, split off once at
    the start, keeps every other mechanism's draws (and the subsets) the
    same whatever the caps are, for a given seed."""
    rng = as_generator(rng)
    capped = None
    if any(m.work_cap is not None for m in mechanism_table.values()):
        capped = np.random.default_rng(int(rng.integers(2**63)))
    return rng, capped


def _try_release(mechanism, subset, k, epsilon, delta, rng, capped=None):
    """``(V, "returned", seconds, proposals)``, or ``(None, "work cap",
    seconds, proposals)`` when a work-capped mechanism drew its cap
    (wall-clock ``seconds`` of the release, shown, never used to decide;
    ``proposals`` drawn, NaN for a mechanism without a cap)."""
    from .peers import WorkCapExceeded, WorkCount

    work = None
    if mechanism.work_cap is not None:
        rng, work = capped, WorkCount(mechanism.work_cap)
    start = time.perf_counter()
    try:
        V = _release(mechanism, subset, k, epsilon, delta, rng, work)
        outcome = OUTCOMES[0]
    except WorkCapExceeded:
        V, outcome = None, OUTCOMES[1]
    seconds = time.perf_counter() - start
    return V, outcome, seconds, np.nan if work is None else work.used


def _runs_of(runs: dict, key: str) -> int:
    """Releases per subset of mechanism ``key`` (``runs["default"]``, or 1,
    when the key is not listed)."""
    return int(runs.get(key, runs.get("default", 1)))


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
    ``outcome`` (:data:`OUTCOMES`), wall-clock ``seconds`` (for display)
    and the ``proposals`` a work-capped release drew.

    A size equal to ``data.n`` is the whole data set, whose second moment
    ``data.A`` is reused (every "subset" of that size is the same rows).

    Sizes run in increasing order. A mechanism with a work cap
    (:meth:`Mechanism.with_work_cap`) that reaches it is not run again at
    that size or any larger one: one row per skipped subset records
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
    :class:`~dppca.book.datasets.Preprocessed` ``data`` (all its rows, and its
    ``A``, when ``n == data.n``), released at ``epsilon``; utility is measured
    on ``data.A``, as in :func:`utility_versus_n`. Every mechanism's entry
    points must take ``max_proposals`` (:mod:`dppca.book.peers`).

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


def synthetic_gaussian(n: int, eigenvalues, rng=None) -> np.ndarray:
    """Section 6.5's synthetic data: n draws of N(0, diag(eigenvalues)), then
    divided by the
    largest row norm so that every row has norm <= 1 (the paper does not say how
    it enforced
    ||x_i|| <= 1; this is the same global scaling as for the real data)."""
    from ..validation import scale_to_unit_ball

    rng = as_generator(rng)
    eigenvalues = np.asarray(eigenvalues, dtype=float)
    X = rng.standard_normal((int(n), eigenvalues.size)) * np.sqrt(eigenvalues)
    return scale_to_unit_ball(X)


def spiked_sphere_rows(n: int, d: int, spikes, rng=None) -> np.ndarray:
    """``n`` rows on the unit sphere: Gaussian rows whose first
    ``len(spikes)`` coordinates have variances ``spikes`` (the others 1),
    each divided by its own norm (the spiked model of chapter 17). The
    second moment is diagonal; :func:`spiked_sphere_eigenvalues` gives it
    for one spike."""
    rng = as_generator(rng)
    spikes = np.asarray(spikes, dtype=float)
    g = rng.standard_normal((int(n), int(d)))
    g[:, : spikes.size] *= np.sqrt(spikes)
    return g / np.linalg.norm(g, axis=1, keepdims=True)


def spiked_sphere_eigenvalues(d: int, spike: float) -> tuple[float, float]:
    """``(λ₁, λ₂)`` of ``E[x xᵀ]`` for ``spiked_sphere_rows`` with one spike
    ``s``: with ``B = g₁²/‖g‖² ~ Beta(1/2, (d − 1)/2)`` for the unspiked
    Gaussian, ``λ₁ = E[s B / (1 + (s − 1) B)]`` (by quadrature), and the
    other ``d − 1`` eigenvalues share the rest of the unit trace equally."""
    from scipy import integrate, stats

    d, spike = int(d), float(spike)
    beta = stats.beta(0.5, (d - 1) / 2)
    lam1 = integrate.quad(
        lambda b: spike * b / (1 + (spike - 1) * b) * beta.pdf(b), 0, 1
    )[0]
    return float(lam1), float((1 - lam1) / (d - 1))


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
