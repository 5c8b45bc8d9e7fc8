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
warns (:class:`~dppca.exceptions.UtilityWarning`) before fitting. The
warning is about the forecast, not the fit: the bound is loose, and a fit it
warns about may still capture far more than a random subspace.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from types import SimpleNamespace

import numpy as np

from .decomposition.parameters import (
    NOTION_NOT_STATED,
    NotionNotStatedError,
    check_spectrum,
    delta_hint,
    notion_delta,
    private_centre,
    with_delta,
)
from .decomposition.ranges import range_stand_in
from .exceptions import UtilityWarning, warn
from .forecast_model import (
    _no_better_than_random,
    favourable_spectrum,
    public_prediction,
    ranked_by_spectrum,
)
from .mechanisms import registry

#: The shares of the budget ``center_share="auto"`` chooses from.
CENTER_SHARES = (0.05, 0.1, 0.2, 0.3, 0.4)


def forecast_mechanisms() -> tuple[str, ...]:
    """The mechanisms the forecast knows the noise of: those whose spec
    declares a ``forecast_noise`` (with the declared mechanisms, the proved
    additive ones that release from the second moment), in the registry's
    order."""
    return tuple(
        key
        for key, spec in registry.MECHANISMS.items()
        if spec.forecast_noise is not None
    )


def __getattr__(name):
    # FORECAST_MECHANISMS, read from the registry at each access so that it
    # follows a registration (dppca.mechanisms.registry.register)
    if name == "FORECAST_MECHANISMS":
        return forecast_mechanisms()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    """The forecast rows, best (smallest loss) first; ``str`` is a table.
    ``k`` and ``d`` are the subspace's and the data's dimensions the rows
    were made for (``None`` on a plan built by hand)."""

    k: int | None = None
    d: int | None = None

    @property
    def best(self) -> ForecastRow:
        return self[0]

    def to_dicts(self) -> list[dict]:
        """The rows as dicts, best first."""
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
    ``XᵀX/n`` (rows in the unit ball), from its own calibration functions
    (its spec's ``forecast_noise``): the σ (or Laplace scale) it would draw
    with."""
    spec = registry.MECHANISMS.get(mechanism)
    if spec is None or spec.forecast_noise is None:
        raise ValueError(
            f"no forecast for mechanism={mechanism!r}; the forecast knows "
            f"{list(forecast_mechanisms())}"
        )
    return spec.forecast_noise(n, d, epsilon, delta, noise, dict(options or {}))


def mean_error(n, d, data_norm, epsilon, delta, noise="safe") -> float:
    """``E‖μ̂ − μ‖²`` of the private mean :class:`dppca.PrivatePCA` would
    release (its own plan, ``dppca.privacy.mean_plan.private_mean_plan``),
    capped at ``(2R)²``."""
    from .privacy.mean_plan import private_mean_plan

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
            registry.AUTO_CANDIDATES[delta is not None]
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
        spec = registry.MECHANISMS.get(name)
        uses_delta = spec is None or spec.uses_delta
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
    plan = Plan(sorted(rows, key=lambda r: r.loss))
    plan.k, plan.d = int(k), int(d)
    return plan


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
    pure = notion_delta(est) is None
    names = tuple(registry.AUTO_CANDIDATES[not pure])
    k = est.n_components
    if k is None or isinstance(k, float):
        spectral = registry.RELEASES_EIGENVALUES
        names = tuple(n for n in names if n in spectral) or names
    if est.noise == "float":
        from .decomposition.parameters import unproved_opt_ins

        allowed = unproved_opt_ins(est)
        names = tuple(n for n in names if n in allowed) or names[:1]
    return names


def estimator_plan(
    est, n, d, mechanism=None, center_share=None, centered_norm="est"
) -> Plan:
    """:func:`forecast` for the parameters of a :class:`dppca.PrivatePCA`
    on ``n`` rows of ``d`` features (public); ``mechanism``,
    ``center_share`` and ``centered_norm``, when given, replace the
    estimator's (``"auto"`` resolved as a fit would)."""

    try:
        delta = notion_delta(est)  # δ = 0 states pure ε-DP
    except NotionNotStatedError:
        raise NotionNotStatedError(notion_message(est, n, d)) from None
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
        delta,
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


def notion_message(est, n, d) -> str:
    """Why ``mechanism="auto"`` needs ``delta`` (``NotionNotStatedError``
    of :mod:`dppca.decomposition.parameters`), with both routes' forecasts
    for ``n`` rows of ``d`` features: pure ε-DP (``delta=0.0``) and the δ
    of ``delta_hint(n)``. Public quantities only."""
    hint = delta_hint(n)
    routes = []
    for delta, notion in ((0.0, "pure ε-DP"), (hint, f"delta={hint:g}")):
        try:
            best = estimator_plan(with_delta(est, delta), n, d).best
        except (ValueError, TypeError):  # a parameter the fit refuses
            return NOTION_NOT_STATED + ". Nothing was charged"
        routes.append(
            f"{notion} runs {best.mechanism!r}, forecast to lose "
            f"{best.loss_per_bound2:.3g} B² (a random k-subspace: "
            f"{best.random_loss / best.row_bound**2:.3g} B²)"
        )
    return (
        f"{NOTION_NOT_STATED} (1/n = {1.0 / n:.3g}). Here {routes[0]}; "
        f"{routes[1]}. Nothing was charged"
    )


class PlanMixin:
    """``plan(n_samples, n_features)`` for :class:`dppca.PrivatePCA`."""

    def plan(self, n_samples, n_features):
        """The error forecast of this estimator's fit on ``n_samples`` rows
        of ``n_features`` features, before any budget is spent: a
        :class:`dppca.forecast.Plan` (best first; ``str`` is a table,
        ``to_frame()`` a DataFrame) with one row per configuration that
        ``"auto"`` parameters choose from (``fit`` runs the row
        :func:`choose` picks). Each row's
        ``loss`` is a *bound* on the captured variance lost against PCA's
        top k, from public quantities only (n, d, k, ε, δ, the bounds, the
        noise), for data within the bounds: not a promise;
        ``random_may_beat`` says whether the bound reaches the loss of a
        random k-subspace on the most favourable such data, so that the
        forecast cannot show the fit doing better (module docstring). Reads
        no data and costs no budget."""
        est = range_stand_in(self, int(n_features))  # feature_range
        return estimator_plan(est, int(n_samples), int(n_features))


def choose(est, n, d) -> tuple[str, object]:
    """``(mechanism, center_share)`` of a fit: the ``"auto"`` ones resolved
    to a row of the forecast (:func:`estimator_plan`): the smallest
    typical-loss prediction under the estimator's public ``spectrum`` when
    it states one (:func:`ranked_by_spectrum`), else the best bound among
    the rows not predicted hopeless (:func:`promising`); the others as
    given."""
    mechanism, share = est.mechanism, est.center_share
    if mechanism != "auto" and share != "auto":
        return mechanism, share
    if mechanism != "auto" and mechanism not in forecast_mechanisms():
        return mechanism, CENTER_SHARES[2]  # no forecast: the old default
    plan = estimator_plan(est, n, d)
    spectrum = check_spectrum(est, d)
    if spectrum is None:
        best = promising(plan)
    else:
        best = ranked_by_spectrum(plan, spectrum)
    share = share if best.center_share is None else best.center_share
    return best.mechanism, share


def promising(plan: Plan) -> ForecastRow:
    """The row ``"auto"`` runs without a stated spectrum: the best bound
    (``plan.best``) among the rows whose typical-loss prediction beats a
    random k-subspace on the most favourable data in the bound
    (:func:`favourable_predictions`, rows clipped as the model says);
    ``plan.best`` when none does, or when the plan does not say its k and
    d. A configuration the prediction calls hopeless is never preferred to
    one it does not. Public quantities only.

    Why not the smallest prediction on those data? Chapter 13 measures it
    against the bound's choice (held-out captured variance on nine data
    sets): the favourable spectrum's k-th eigenvalue, ``B²/k``, dwarfs
    the mean's error, so that prediction gives the mean too small a share
    on real data, whose k-th gap is far smaller."""
    if plan.k is None or plan.d is None:
        return plan.best
    predictions = favourable_predictions(plan)
    for row, prediction in zip(plan, predictions):
        if not _no_better_than_random(prediction):
            return row
    return plan.best


#: What a user can run instead of a fit the forecast calls hopeless (a
#: random projection reads no row and spends no budget).
ZERO_BUDGET_ALTERNATIVE = (
    "a random projection (sklearn.random_projection."
    "GaussianRandomProjection, or dppca.linalg.haar_subspace) reads no row "
    "and spends no budget"
)


def favourable_predictions(plan: Plan) -> list:
    """The typical-loss prediction
    (:func:`dppca.forecast_prediction.public_prediction`) of each row of
    ``plan`` on its :func:`favourable_spectrum`, in the plan's order.
    Public quantities only (the rows, ``plan.k``, ``plan.d``): costs no
    budget."""
    if plan.k is None or plan.d is None:
        raise ValueError("the plan does not say its k and d")
    if not 0 < plan.k < plan.d:
        return []  # k = d: every subspace captures everything (k = 0 is
        # refused by the fit's own check of n_components)
    return [
        public_prediction(row, favourable_spectrum(row, plan.k, plan.d), plan.k)
        for row in plan
    ]


def predicted_hopeless(plan: Plan) -> bool:
    """Whether even the typical-loss prediction says the fit can do no
    better than a random k-subspace: on the data within the bound that
    favour it most (:func:`favourable_spectrum`), every row of ``plan`` is
    predicted to lose a random subspace's loss (the noise's threshold
    ``s√d`` above ``B²/k``, with the mean's error taking what is left).
    Public quantities only."""
    predictions = favourable_predictions(plan)
    return bool(predictions) and all(map(_no_better_than_random, predictions))


def warn_if_hopeless(plan: Plan, stacklevel: int = 2) -> None:
    """Warn (:class:`~dppca.exceptions.UtilityWarning`) when even the best
    forecast cannot show that the fit beats a random k-subspace on the most
    favourable data in the bound (its loss bound reaches a random subspace's
    loss), naming the zero-budget alternative. When the typical-loss
    prediction agrees (:func:`predicted_hopeless`: no better than a random
    subspace even on the most favourable data), the warning says so
    plainly: the fit is predicted to do no better than a random
    projection."""
    best = plan.best
    spec = registry.MECHANISMS.get(best.mechanism)
    pure = spec is not None and not spec.uses_delta
    if best.random_may_beat and plan.k is not None and predicted_hopeless(plan):
        warn(
            f"the best forecast ({best.mechanism}, center_share="
            f"{best.center_share}) and the typical-loss prediction agree: "
            "even on the most favourable data in the bound (variance B² "
            f"in k = {plan.k} directions) the noise hides them, so the fit "
            "is predicted to capture no more than a random k-subspace. "
            f"Instead, {ZERO_BUDGET_ALTERNATIVE}. "
            "More rows, a larger epsilon or a smaller k would help"
            + (", or a delta > 0 (Gaussian noise)" if pure else "")
            + " (public quantities only, see dppca.forecast)",
            UtilityWarning,
            stacklevel=stacklevel,
        )
        return
    if best.random_may_beat:
        warn(
            f"the best forecast ({best.mechanism}, center_share="
            f"{best.center_share}) loses {best.loss_per_bound2:.3g} B² of "
            "captured variance, at least the "
            f"{best.random_loss / best.row_bound**2:.3g} B² a random "
            "k-subspace loses on the most favourable data in the bound: "
            "the forecast cannot show that private PCA does better than a "
            "random projection here (the bound is often loose; the fit may "
            "still do better; "
            f"{ZERO_BUDGET_ALTERNATIVE}). "
            "More rows, a larger epsilon or a smaller k would help"
            + (", or a delta > 0 (Gaussian noise)" if pure else "")
            + " (a bound from public quantities, see dppca.forecast)",
            UtilityWarning,
            stacklevel=stacklevel,
        )


#: ``centered_norm="auto"`` releases a bound only when the best forecast
#: with ``centered_norm = data_norm`` loses at least this share of
#: ``data_norm²`` (:mod:`dppca.forecast`): below it the noise is too small for
#: a tighter bound to repay its budget and the rows it clips (a released 95%
#: quantile clips about 5% of them), and the fit keeps every row, as
#: scikit-learn's PCA does.
AUTO_BOUND_THRESHOLD = 0.01


def resolved_centered_norm(est, n, d):
    """``centered_norm`` with ``"auto"`` resolved for a fit on ``n`` rows
    of ``d`` features: ``"private"`` (a released quantile of the centred
    norms) for a private mean with ``clip=True`` when the forecast says the
    noise is worth a tighter bound (:data:`AUTO_BOUND_THRESHOLD`), else
    ``None`` (``data_norm``; with ``clip=False`` a released bound could
    decide whether a fit refuses). Public quantities only; a fit makes
    this decision once and keeps it in its plan
    (``ReleasePlan.centered_norm``)."""
    value = est.centered_norm
    if not (isinstance(value, str) and value == "auto"):
        return value
    clip = est.clip is True or est.clip is np.True_
    if not (private_centre(est) and clip):
        return None
    share = est.center_share
    if not isinstance(share, str) and float(share) + est.bound_share >= 1:
        return None  # no ε would be left for the mechanism
    if est.mechanism not in ("auto",) + forecast_mechanisms():
        return None  # no forecast for it: data_norm itself
    plan = estimator_plan(est, n, d, centered_norm=None)
    release = plan.best.loss_per_bound2 >= AUTO_BOUND_THRESHOLD
    return "private" if release else None


__all__ = [
    "AUTO_BOUND_THRESHOLD",
    "CENTER_SHARES",
    "ForecastRow",
    "Plan",
    "PlanMixin",
    "UtilityWarning",
    "ZERO_BUDGET_ALTERNATIVE",
    "auto_candidates",
    "choose",
    "estimator_plan",
    "favourable_predictions",
    "favourable_spectrum",
    "forecast",
    "forecast_mechanisms",
    "mean_error",
    "noise_std",
    "notion_message",
    "predicted_hopeless",
    "promising",
    "ranked_by_spectrum",
    "resolved_centered_norm",
    "warn_if_hopeless",
]
