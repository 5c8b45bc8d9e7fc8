"""A plan before the budget is spent: :class:`dppca.PrivatePCA`'s error
forecast from public quantities only.

Everything here reads ``n``, ``d``, ``k``, ε, δ, the public bounds and the
kind of noise, never a row, so it costs no budget and can run before the data
is even loaded. For each candidate configuration (mechanism, share of the
budget for the private mean, bound on the centred rows) it computes the noise
the fit *would* add, from the mechanism's own calibration functions (the σ or
Laplace scale it would draw with), and turns it into a **bound** on the loss
of captured variance:

**The bound.** Let ``C`` be the covariance of the rows (in the data's
units), ``μ`` their mean, ``μ̂`` the released mean, ``B`` the bound on the
centred rows and ``E`` the symmetric noise matrix the mechanism adds to the
second moment of the rows divided by ``B``. The matrix the mechanism sees is
``M̂ = C + (μ − μ̂)(μ − μ̂)ᵀ`` (over ``B²``) plus ``E``. If ``V̂`` is the top-k
subspace of ``M̂/B² + E`` and ``V`` that of ``C``, then, since ``V̂`` maximises
``tr V̂ᵀ(M̂/B² + E)V̂``,

    tr V̂ᵀCV̂ ≥ tr VᵀCV − 2k‖E‖₂ B² − ‖μ̂ − μ‖²,

for data whose centred rows lie within ``B`` (no clipping). So the loss of
captured variance against PCA's top k is at most ``2k‖E‖₂B² + ‖μ̂ − μ‖²``.
The forecast replaces the two random terms by their typical size: for a
Wigner-type noise matrix with off-diagonal standard deviation ``s``,
``‖E‖₂ ≈ 2s√d`` (the edge of the semicircle; Gaussian or Laplace entries
alike), and ``E‖μ̂ − μ‖² = d σ_mean²`` (at most ``(2R)²``, as both means lie in
the ball of radius ``R = data_norm``).

**What it is not.** A bound from public quantities, not a promise: it says
nothing of rows that the bound clips (their loss is the data's business), it
is usually loose (the subspace term by a factor of several: the noise rarely
points where it hurts most), and ``‖E‖₂`` is its typical size, not a tail
bound. Use it to *rank* configurations and to see when private PCA is
hopeless; chapter 13 sets it beside measured errors.

**Against a random subspace.** A random k-subspace captures ``k/d`` of the
total variance on average. For data whose centred rows have norm ``B`` and
whose variance all lies in ``k`` directions, PCA captures ``B²`` and a random
subspace ``B² k/d``: its loss is ``B²(1 − k/d)``, the largest a random
subspace can lose on data within the bound. When the forecast loss reaches
that, the bound cannot show the private release beating a random subspace
even on the most favourable data in the bound, and :class:`dppca.PrivatePCA`
warns (:class:`UtilityWarning`) before fitting. The warning is about the
forecast, not the fit: the bound is loose, and a fit it warns about may
still capture far more than a random subspace.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass
from types import SimpleNamespace

from .mechanisms.registry import AUTO_CANDIDATES, RELEASES_EIGENVALUES
from .privacy import calibration

#: The shares of the budget ``center_share="auto"`` chooses from.
CENTER_SHARES = (0.05, 0.1, 0.2, 0.3, 0.4)

#: The mechanisms the forecast knows the noise of: the proved additive
#: mechanisms that release from the second moment.
FORECAST_MECHANISMS = ("gaussian_approx", "analyze_gauss", "laplace")


class UtilityWarning(UserWarning):
    """The forecast cannot show that a fit beats a random subspace, even on
    the most favourable data within its bounds: its loss bound is at least
    what a random k-subspace loses there (:mod:`dppca.forecast`). The bound
    is often loose, so the fit may still do much better; the warning only
    says the forecast cannot vouch for it."""


@dataclass(frozen=True)
class ForecastRow:
    """One candidate configuration and its forecast loss.

    ``noise_norm`` is the typical ``‖E‖₂`` for rows divided by the bound;
    ``subspace_loss = 2k‖E‖₂B²`` and ``mean_loss = d σ_mean²`` (capped at
    ``4R²``) are in the data's units, ``loss`` their sum, ``loss_per_bound2``
    it over ``B²``; ``random_loss = B²(1 − k/d)``; ``random_may_beat`` is
    ``loss ≥ random_loss``."""

    mechanism: str
    center_share: float | None
    row_bound: float
    noise_norm: float
    subspace_loss: float
    mean_loss: float
    loss: float
    loss_per_bound2: float
    random_loss: float
    random_may_beat: bool


class Plan(tuple):
    """The forecast rows, best (smallest loss) first; ``str`` is a table."""

    @property
    def best(self) -> ForecastRow:
        return self[0]

    def to_dicts(self) -> list[dict]:
        return [asdict(row) for row in self]

    def to_frame(self):
        """A pandas DataFrame of the rows (needs pandas)."""
        import pandas as pd

        return pd.DataFrame(self.to_dicts())

    def __str__(self) -> str:
        head = (
            f"{'mechanism':<16}{'share':>6}{'bound B':>9}{'loss/B²':>9}"
            f"{'loss':>11}{'random':>11}  random may beat"
        )
        lines = [head]
        for r in self:
            share = "-" if r.center_share is None else f"{r.center_share:g}"
            lines.append(
                f"{r.mechanism:<16}{share:>6}{r.row_bound:>9.4g}"
                f"{r.loss_per_bound2:>9.4f}{r.loss:>11,.1f}"
                f"{r.random_loss:>11,.1f}  "
                f"{'yes' if r.random_may_beat else 'no'}"
            )
        return "\n".join(lines)


def noise_std(mechanism, n, d, epsilon, delta, noise="safe", options=None):
    """Off-diagonal standard deviation of the noise ``mechanism`` adds to
    ``XᵀX/n`` (rows in the unit ball), from its own calibration functions:
    the σ (or Laplace scale) it would draw with."""
    from .mechanisms import gaussian_approx as mv
    from .mechanisms import input_perturbation as ip

    options = dict(options or {})
    grid = options.get("granularity")
    safe = noise == "safe"
    if mechanism == "gaussian_approx":
        if safe:
            sigma = mv.safe_noise_sigma(
                epsilon, delta, d, "replace_one", n, grid
            )[0]
        else:
            sigma = mv.noise_sigma(epsilon, delta, "replace_one", n)
        return math.sqrt(2.0) * sigma  # G + Gᵀ off the diagonal
    if mechanism == "analyze_gauss":
        how = options.get("calibration", "analytic")
        sigma = ip.analyze_gauss_sigma(n, epsilon, delta, how)
        if safe:
            sigma = calibration.safe_gaussian_input_calibration(
                d, n, epsilon, delta, sigma, grid
            )[0]
        return sigma
    if mechanism == "laplace":
        if safe:
            scale = calibration.safe_laplace_input_calibration(
                d, n, epsilon, grid
            )[0]
        else:
            scale = calibration.laplace_input_scale(d, n, epsilon)
        return math.sqrt(2.0) * scale  # Laplace(b) has variance 2b²
    raise ValueError(
        f"no forecast for mechanism={mechanism!r}; the forecast knows "
        f"{list(FORECAST_MECHANISMS)}"
    )


def mean_error(n, d, data_norm, epsilon, delta, noise="safe") -> float:
    """``E‖μ̂ − μ‖²`` of the private mean :class:`dppca.PrivatePCA` would
    release (its own plan, ``dppca.privacy.plan.private_mean_plan``),
    capped at ``(2R)²``."""
    from .privacy.plan import private_mean_plan

    est = SimpleNamespace(noise=noise)
    law, scale, _, _ = private_mean_plan(
        est, n, d, data_norm, (epsilon, delta), delta is None
    )
    variance = 2.0 * scale**2 if law == "laplace" else scale**2
    return min(d * variance, (2.0 * data_norm) ** 2)


def _bound_share(data_norm, centered_norm, private_mean, bound_share):
    """Share of ε the private bounds take (0 without one)."""
    released = data_norm == "private" or (
        private_mean and centered_norm == "private"
    )
    return float(bound_share) if released else 0.0


def _row_bound(data_norm, centered_norm, private_mean):
    """The bound B the forecast uses for the rows the mechanism sees."""
    if not private_mean or centered_norm is None:
        return data_norm
    if isinstance(centered_norm, str):
        if centered_norm == "triangle":
            return 2.0 * data_norm  # R + ‖μ̂‖ ≤ 2R
        # released: unknown before the fit; at most the range's top, and the
        # centred rows of data in the R-ball need no more than 2R, so the
        # forecast takes R, the bound a fit without the release would use
        return data_norm
    return float(centered_norm)


def forecast(
    n,
    d,
    k,
    epsilon,
    delta=None,
    *,
    data_norm,
    centered_norm=None,
    center=True,
    mechanism="auto",
    center_share="auto",
    noise="safe",
    bound_share=0.1,
    bound_range=None,
    mechanism_options=None,
    candidates=None,
) -> Plan:
    """Forecast the loss of captured variance of each candidate
    configuration (module docstring), best first.

    ``mechanism="auto"`` tries the candidates of
    :data:`dppca.mechanisms.registry.AUTO_CANDIDATES` for the given δ (or
    ``candidates``), ``center_share="auto"`` every share of
    :data:`CENTER_SHARES`; fixed values are used as given. ``center``:
    ``True`` (a private mean), ``False`` or a public centre (no mean to
    release; the loss is then against the top k of the second moment about
    that centre). A released ``data_norm`` is forecast at the top of
    ``bound_range``; a released ``centered_norm`` at ``data_norm`` (see
    ``ForecastRow``). Public quantities only: costs no budget.
    """
    private_mean = center is True
    if data_norm == "private":
        if bound_range is None:
            raise ValueError("data_norm='private' needs bound_range")
        R = float(bound_range[1])
    else:
        R = float(data_norm)
    if candidates is None:
        candidates = (
            AUTO_CANDIDATES[delta is not None]
            if mechanism == "auto"
            else (mechanism,)
        )
    shares = (
        (CENTER_SHARES if center_share == "auto" else (float(center_share),))
        if private_mean
        else (None,)
    )
    B = _row_bound(R, centered_norm, private_mean)
    rest = epsilon * (
        1.0 - _bound_share(data_norm, centered_norm, private_mean, bound_share)
    )
    rows = []
    for name in candidates:
        uses_delta = name != "laplace"
        for share in shares:
            eps_m, del_m, mean_loss = rest, delta, 0.0
            if share is not None:
                eps_mean = share * epsilon  # a share of the total ε
                del_mean = share * delta if uses_delta else None
                mean_loss = mean_error(n, d, R, eps_mean, del_mean, noise)
                eps_m = rest - eps_mean
                del_m = delta - del_mean if uses_delta else None
            std = noise_std(name, n, d, eps_m, del_m, noise, mechanism_options)
            norm = 2.0 * std * math.sqrt(d)
            sub = 2.0 * k * norm * B**2
            loss = sub + mean_loss
            floor = B**2 * (1.0 - k / d)
            rows.append(
                ForecastRow(
                    name,
                    share,
                    B,
                    norm,
                    sub,
                    mean_loss,
                    loss,
                    loss / B**2,
                    floor,
                    loss >= floor,
                )
            )
    return Plan(sorted(rows, key=lambda r: r.loss))


def _forecast_k(est, d) -> int:
    """k for the forecast: an integer ``n_components``; ``None`` as ``d``;
    a fraction ``f`` as ``⌈f d⌉`` (a stand-in: the fit picks k after the
    release)."""
    k = est.n_components
    if k is None:
        return d
    if isinstance(k, float):
        return max(1, math.ceil(k * d))
    return int(k)


def auto_candidates(est) -> tuple:
    """The mechanisms ``mechanism="auto"`` may pick for ``est``: those of
    :data:`~dppca.mechanisms.registry.AUTO_CANDIDATES` for its δ, keeping
    only those that release eigenvalues when ``n_components`` is ``None``
    or a fraction, and, with ``noise="float"``, those opted in by name
    (``allow_unproved``); never empty (the first is kept)."""
    names = tuple(AUTO_CANDIDATES[est.delta is not None])
    k = est.n_components
    if k is None or isinstance(k, float):
        names = tuple(n for n in names if n in RELEASES_EIGENVALUES) or names
    if est.noise == "float":
        allowed = est.allow_unproved or ()
        allowed = (allowed,) if isinstance(allowed, str) else tuple(allowed)
        names = tuple(n for n in names if n in allowed) or names[:1]
    return names


def estimator_plan(
    est, n, d, mechanism=None, center_share=None, centered_norm="est"
) -> Plan:
    """:func:`forecast` for the parameters of a :class:`dppca.PrivatePCA`
    on ``n`` rows of ``d`` features (public); ``mechanism``,
    ``center_share`` and ``centered_norm``, when given, replace the
    estimator's (``"auto"`` resolved as a fit would)."""
    from .privacy.plan import private_centre, resolved_centered_norm

    mechanism = est.mechanism if mechanism is None else mechanism
    share = est.center_share if center_share is None else center_share
    if centered_norm == "est":
        centered_norm = resolved_centered_norm(est, n, d)
    candidates = auto_candidates(est) if mechanism == "auto" else None
    return forecast(
        n,
        d,
        _forecast_k(est, d),
        float(est.epsilon),
        None if est.delta is None else float(est.delta),
        data_norm=est.data_norm,
        centered_norm=centered_norm,
        center=private_centre(est),
        mechanism=mechanism,
        center_share=share,
        noise=est.noise,
        bound_share=est.bound_share,
        bound_range=est.bound_range,
        mechanism_options=est.mechanism_options,
        candidates=candidates,
    )


class PlanMixin:
    """``plan(n_samples, n_features)`` for :class:`dppca.PrivatePCA`."""

    def plan(self, n_samples, n_features):
        """The error forecast of this estimator's fit on ``n_samples`` rows
        of ``n_features`` features, before any budget is spent: a
        :class:`dppca.forecast.Plan` (best first; ``str`` is a table,
        ``to_frame()`` a DataFrame) with one row per configuration that
        ``"auto"`` parameters choose from (``fit`` runs the first). Each row's
        ``loss`` is a *bound* on the captured variance lost against PCA's
        top k, from public quantities only (n, d, k, ε, δ, the bounds, the
        noise), for data within the bounds: not a promise;
        ``random_may_beat`` says whether the bound reaches the loss of a
        random k-subspace on the most favourable such data, so that the
        forecast cannot show the fit doing better (module docstring). Reads
        no data and costs no budget."""
        return estimator_plan(self, int(n_samples), int(n_features))


def choose(est, n, d) -> tuple[str, object]:
    """``(mechanism, center_share)`` of a fit: the ``"auto"`` ones resolved
    to the best forecast (:func:`estimator_plan`), the others as given."""
    mechanism, share = est.mechanism, est.center_share
    if mechanism != "auto" and share != "auto":
        return mechanism, share
    if mechanism != "auto" and mechanism not in FORECAST_MECHANISMS:
        return mechanism, CENTER_SHARES[2]  # no forecast: the old default
    best = estimator_plan(est, n, d).best
    share = share if best.center_share is None else best.center_share
    return best.mechanism, share


def warn_if_hopeless(plan: Plan, stacklevel: int = 2) -> None:
    """Warn (:class:`UtilityWarning`) when even the best forecast cannot
    show that the fit beats a random k-subspace on the most favourable data
    in the bound (its loss bound reaches a random subspace's loss)."""
    best = plan.best
    if best.random_may_beat:
        warnings.warn(
            f"the best forecast ({best.mechanism}, center_share="
            f"{best.center_share}) loses {best.loss_per_bound2:.3g} B² of "
            "captured variance, at least the "
            f"{best.random_loss / best.row_bound**2:.3g} B² a random "
            "k-subspace loses on the most favourable data in the bound: "
            "the forecast cannot show that private PCA does better than a "
            "random projection here (the bound is often loose; the fit may "
            "still do better). "
            "More rows, a larger epsilon or a smaller k would help "
            "(a bound from public quantities, see dppca.forecast)",
            UtilityWarning,
            stacklevel=stacklevel,
        )


# ------------------------------------------------------------------------------
# A grid search within one budget
# ------------------------------------------------------------------------------


def _private_steps(estimator) -> list[tuple[str, object]]:
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


def _is_private(obj) -> bool:
    """A dppca private estimator: a :class:`dppca.PrivatePCA`, a
    :class:`dppca.PrivateStandardScaler`, or any estimator with ``epsilon``,
    ``delta`` and ``accountant`` parameters."""
    from .estimator import PrivatePCA
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


def _private_inside(value, found=None) -> list:
    """Every private estimator in ``value``: itself, in its parameters
    (``get_params(deep=True)``, recursively) or in lists, tuples, sets and
    dicts of them."""
    found = [] if found is None else found
    if isinstance(value, (str, bytes, type)):
        return found
    if _is_private(value) and not any(value is f for f in found):
        found.append(value)
    if isinstance(value, dict):
        for item in value.values():
            _private_inside(item, found)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _private_inside(item, found)
    elif hasattr(value, "get_params"):
        try:
            params = value.get_params(deep=True)
        except TypeError:
            params = {}
        for item in params.values():
            if item is not value:
                _private_inside(item, found)
    return found


def _check_search_shape(estimator, steps, grids) -> None:
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
        for obj in _private_inside(estimator)
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
            if _private_inside(list(values)):
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
        i for i, (_, step) in enumerate(estimator.steps) if _is_private(step)
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
        if _is_private(step) and not isinstance(step, PrivateStandardScaler):
            raise ValueError(
                f"the private step {name!r} changes the width a later "
                "private step is fitted on, which the dry run takes from X: "
                "only a PrivateStandardScaler may come first; nothing was "
                "fitted"
            )
    for name, step in estimator.steps[: last + 1]:
        if step is None or step == "passthrough" or _is_private(step):
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


def _parallel_in_processes(n_jobs) -> bool:
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


def _step_records(step, n, d) -> list:
    """The records a fit of one private step would charge (dry run)."""
    from .estimator import PrivatePCA, planned_records
    from .scaler import PrivateStandardScaler, scaler_plan

    if isinstance(step, PrivatePCA):
        return planned_records(step, n, d)
    if isinstance(step, PrivateStandardScaler):
        return [s.record for s in scaler_plan(step, n, d)]
    raise TypeError(f"no dry run for {type(step).__name__}")


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
    **search_options,
):
    """Run scikit-learn's ``GridSearchCV`` over a private estimator (or a
    Pipeline with private steps) within what is left of one
    :class:`~dppca.privacy.accounting.Accountant` budget, or refuse it
    before any fit.

    **How the budget is split.** The number of fits is public before the
    search starts: ``m = (#candidates) × (#folds) + (1 if refit)``. With
    ``(ε_B, δ_B) = accountant.remaining()`` and ``p`` private steps, every
    private step of every fit gets ``ε_B/(m p)`` and ``δ_B/(m p)`` (``δ``
    stays ``None`` for a step given ``delta=None``: a pure mechanism), set
    on the estimator before the search; by basic composition the whole
    search spends at most ``(ε_B, δ_B)``. (After a Gaussian release the
    accountant composes at the budget's δ and reports none left; the steps
    then get their δ from the budget's, and the dry run decides.) With
    ``compose=True`` (default)
    the per-step ε is then raised, evenly, to the largest the accountant's
    own composition affords (a bisection over dry runs: the PLD accountant
    composes many Gaussian releases far below their sum). Then a **dry
    run** plans every
    fit's records (each candidate on each fold's training rows, and the
    refit on all rows) and asks ``accountant.can_afford``: if the search
    would not fit, :class:`~dppca.privacy.accounting.BudgetExceededError`
    is raised before any fit, nothing charged or drawn. Each fit then
    charges the ledger as usual.

    The split is even: a search with many candidates gives each fit a small
    ε, which the forecast (``PrivatePCA.plan``) shows before spending
    anything. ``param_grid`` may not set ``epsilon``, ``delta`` or
    ``accountant`` of a private step, replace a step up to the last private
    one, or hold a private estimator as a value; ``n_jobs`` must be 1, and
    joblib's active backend (``joblib.parallel_config``) a thread one if it
    asks for more jobs (a worker process holds a copy of the ledger). Every
    private estimator must be a top-level step (none inside a FeatureUnion,
    an inner Pipeline or a grid value), and only private steps may come
    before a private step: the dry run takes their input width from ``X``.
    All of this is refused before any fit (``ValueError``). After the
    search, the ledger must have gained exactly the records planned for the
    fits that ran (``RuntimeError`` if not). Failing fits raise
    (``error_score="raise"``).

    Returns the fitted ``GridSearchCV``, with ``budget_per_fit_`` (the
    (ε, δ) of each private step of each fit) and ``n_budgeted_fits_``.
    """
    from sklearn.base import clone, is_classifier
    from sklearn.model_selection import GridSearchCV, ParameterGrid, check_cv

    from .privacy.accounting import BudgetExceededError, _releases

    steps = _private_steps(estimator)
    grids = [param_grid] if isinstance(param_grid, dict) else param_grid
    _check_search_shape(estimator, steps, grids)
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
    if _parallel_in_processes(search_options.get("n_jobs")):
        raise ValueError(
            "n_jobs must be 1 (or joblib's active backend a thread one): "
            "a worker process would charge a copy of the ledger; nothing "
            "was fitted"
        )
    search_options["error_score"] = "raise"
    candidates = list(ParameterGrid(param_grid))
    splits = list(
        check_cv(cv, y, classifier=is_classifier(estimator)).split(X, y)
    )
    n, d = X.shape
    m = len(candidates) * len(splits) + (1 if refit else 0)
    eps_left, delta_left = accountant.remaining()
    if delta_left == 0 and accountant.delta > 0 and accountant.releases:
        # composed at the budget's δ, a Gaussian release leaves "δ left" 0:
        # a step's δ only sets its σ; the dry run decides on the whole ledger
        delta_left = accountant.delta
    per_eps = eps_left / (m * len(steps))
    per_delta = delta_left / (m * len(steps))
    if not per_eps > 0:
        raise BudgetExceededError(
            "the accountant has no budget left; nothing fitted"
        )
    for prefix, step in steps:
        if step.delta is not None and not per_delta > 0:
            raise BudgetExceededError(
                "the accountant has no δ left for a step with a delta; "
                "nothing fitted"
            )

    def configured(scale):
        settings = {}
        for prefix, step in steps:
            settings[prefix + "epsilon"] = per_eps * scale
            settings[prefix + "accountant"] = accountant
            if step.delta is not None:
                settings[prefix + "delta"] = per_delta
        return clone(estimator).set_params(**settings)

    def affords(scale) -> bool:
        """The dry run: every fit's records, planned; the refit is of the
        best candidate, unknown before, so every candidate's must fit."""
        base = configured(scale)
        records, refits = [], []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for params in candidates:
                fitted = clone(base).set_params(**params)
                for train, _ in splits:
                    records += _fit_records(fitted, steps, len(train), d)
                if refit:
                    refits.append(_fit_records(fitted, steps, n, d))
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
            low, high = (
                (middle, high)
                if affords(math.exp(middle))
                else (
                    low,
                    middle,
                )
            )
        scale = math.exp(low)
    base = configured(scale)
    search = GridSearchCV(
        base,
        param_grid,
        cv=splits,
        refit=refit,
        scoring=scoring,
        **search_options,
    )
    before = len(accountant.releases)
    search.fit(X, y)
    # defence in depth: the ledger gained exactly the records planned for
    # the fits that ran (every candidate on every fold, the best refitted)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = 0
        for params in candidates:
            fitted = clone(base).set_params(**params)
            for train, _ in splits:
                records = _fit_records(fitted, steps, len(train), d)
                expected += len(_releases(records))
        if refit:
            fitted = clone(base).set_params(**search.best_params_)
            expected += len(_releases(_fit_records(fitted, steps, n, d)))
    charged = len(accountant.releases) - before
    if charged != expected:
        raise RuntimeError(
            f"the search charged {charged} release record(s) to the ledger "
            f"where its plan expected {expected}: a private fit may have "
            "run outside the budget split (or charged another ledger)"
        )
    search.budget_per_fit_ = (
        per_eps * scale,
        per_delta if any(s.delta is not None for _, s in steps) else None,
    )
    search.n_budgeted_fits_ = m
    return search


def _fit_records(fitted, steps, size, d) -> list:
    return [
        record
        for prefix, _ in steps
        for record in _step_records(_step_of(fitted, prefix), size, d)
    ]


def _step_of(estimator, prefix):
    return estimator if not prefix else estimator.named_steps[prefix[:-2]]


__all__ = [
    "budgeted_grid_search",
    "CENTER_SHARES",
    "FORECAST_MECHANISMS",
    "ForecastRow",
    "Plan",
    "PlanMixin",
    "UtilityWarning",
    "auto_candidates",
    "choose",
    "estimator_plan",
    "forecast",
    "mean_error",
    "noise_std",
    "warn_if_hopeless",
]
