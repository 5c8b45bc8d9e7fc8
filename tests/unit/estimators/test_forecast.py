"""dppca.forecast: the forecast from public quantities, the "auto" choices,
the warning before a hopeless fit, and the grid search within one budget."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from dppca import (
    PrivacyWarning,
    PrivatePCA,
    PrivateStandardScaler,
    budgeted_grid_search,
)
from dppca import forecast as fc
from dppca.mechanisms import gaussian_approx as mv
from dppca.privacy import calibration
from dppca.privacy.accounting import Accountant, BudgetExceededError
from dppca.privacy.mean_plan import private_mean_plan


def spiked(n, d, spread, seed=0, shift=1.0):
    """Rows with variances ``spread`` (then zeros) about a mean ``shift``."""
    rng = np.random.default_rng(seed)
    scales = np.zeros(d)
    scales[: len(spread)] = spread
    return rng.standard_normal((n, d)) * scales + shift


# -- the noise comes from the mechanisms' own calibration -----------------------


def test_noise_std_is_the_mechanisms_calibration():
    n, d, eps, delta = 1000, 20, 0.7, 1e-6
    sigma, _ = mv.safe_noise_sigma(eps, delta, d, "replace_one", n)
    assert fc.noise_std("gaussian_approx", n, d, eps, delta) == pytest.approx(
        math.sqrt(2) * sigma, rel=1e-12
    )
    float_sigma = calibration.analyze_gauss_sigma(n, eps, delta)
    safe = calibration.safe_gaussian_input_calibration(
        d, n, eps, delta, float_sigma
    )[0]
    assert fc.noise_std("analyze_gauss", n, d, eps, delta) == safe
    b = calibration.safe_laplace_input_calibration(d, n, eps)[0]
    assert fc.noise_std("laplace", n, d, eps, None) == math.sqrt(2) * b
    with pytest.raises(ValueError, match="no forecast"):
        fc.noise_std("ppca", n, d, eps, None)


def test_mean_error_is_d_sigma_squared_of_the_estimators_plan():
    n, d, R = 500, 8, 3.0
    plan = private_mean_plan(
        type("E", (), {"noise": "safe"})(), n, d, R, (0.2, 1e-6), False
    )
    assert fc.mean_error(n, d, R, 0.2, 1e-6) == pytest.approx(d * plan[1] ** 2)
    # capped at (2R)²: both means lie in the ball of radius R
    assert fc.mean_error(5, d, R, 1e-3, 1e-9) == (2 * R) ** 2


def test_forecast_rows_add_up_and_are_sorted():
    plan = fc.forecast(2000, 30, 3, 1.0, 1e-5, data_norm=10.0)
    assert len(plan) == 2 * len(fc.CENTER_SHARES)
    losses = [r.loss for r in plan]
    assert losses == sorted(losses)
    for r in plan:
        assert r.loss == pytest.approx(r.subspace_loss + r.mean_loss)
        assert r.subspace_loss == pytest.approx(2 * 3 * r.noise_norm * 100)
        assert r.random_loss == pytest.approx(100 * (1 - 3 / 30))
        assert r.random_may_beat == (r.loss >= r.random_loss)
    text = str(plan)
    assert text.splitlines()[0].startswith("mechanism")
    assert len(text.splitlines()) == len(plan) + 1
    assert plan.to_dicts()[0]["mechanism"] == plan.best.mechanism
    # Mangoubi-Vishnoi has √2 less off-diagonal noise than Analyze Gauss
    assert plan.best.mechanism == "gaussian_approx"
    pure = fc.forecast(2000, 30, 3, 1.0, None, data_norm=10.0)
    assert {r.mechanism for r in pure} == {"laplace"}


def test_the_forecast_bounds_the_measured_loss():
    """For data within the bounds (no row clipped) the loss of captured
    variance against PCA's top k stays below the forecast on every seed:
    the forecast is a bound (with ‖E‖₂ at its typical size)."""
    n, d, k = 4000, 12, 2
    X = spiked(n, d, [3.0, 2.0, 1.0, 0.5])
    Xc = X - X.mean(axis=0)
    # room for the private mean's error too: no centred row is clipped
    B = 1.5 * float(np.linalg.norm(Xc, axis=1).max())
    R = 1.01 * float(np.linalg.norm(X, axis=1).max())
    C = Xc.T @ Xc / n
    top = np.sum(np.linalg.eigvalsh(C)[::-1][:k])
    kw = dict(
        epsilon=0.5,
        delta=1e-5,
        data_norm=R,
        centered_norm=B,
        mechanism="gaussian_approx",
        center_share=0.2,
    )
    forecast = PrivatePCA(k, **kw).plan(n, d).best
    losses = []
    for seed in range(10):
        est = PrivatePCA(k, random_state=seed, **kw).fit(X)
        V = est.components_.T
        assert est.row_bound_ == B
        losses.append(top - np.trace(V.T @ C @ V))
    assert max(losses) < forecast.loss, (max(losses), forecast.loss)
    # and the forecast is not vacuous here: below a random subspace's loss
    assert not forecast.random_may_beat


# -- "auto" ---------------------------------------------------------------------


def test_auto_runs_the_best_forecast():
    # the row of the smallest typical-loss prediction on the favourable
    # spectrum (dppca.forecast.promising), among the forecast's rows
    X = spiked(3000, 16, [3.0, 2.0, 1.0])
    est = PrivatePCA(2, epsilon=1.0, delta=1e-6, data_norm=30.0)
    best = fc.promising(est.plan(*X.shape))
    est.set_params(random_state=0).fit(X)
    assert (est.mechanism_, est.center_share_) == (
        best.mechanism,
        best.center_share,
    )
    # a fixed mechanism: only the share is chosen
    fixed = PrivatePCA(2, epsilon=1.0, delta=1e-6, data_norm=30.0)
    fixed.set_params(mechanism="analyze_gauss", random_state=0)
    rows = fixed.plan(*X.shape)
    assert {r.mechanism for r in rows} == {"analyze_gauss"}
    assert fixed.fit(X).center_share_ == fc.promising(rows).center_share
    # a fraction of the variance needs released eigenvalues: Analyze Gauss
    frac = PrivatePCA(0.5, epsilon=1.0, delta=1e-6, data_norm=30.0)
    assert frac.set_params(random_state=0).fit(X).mechanism_ == "analyze_gauss"
    # no forecast for a sampler: the old defaults (share 0.2, no bound)
    ppca = PrivatePCA(
        1, data_norm=30.0, mechanism="ppca", allow_unproved="ppca"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ppca.set_params(random_state=0).fit(X)
    assert ppca.center_share_ == 0.2
    assert ppca.row_bound_ == 30.0


def test_auto_centred_bound_only_when_the_noise_is_worth_it():
    X = spiked(3000, 16, [3.0, 2.0, 1.0])
    noisy = PrivatePCA(2, epsilon=1.0, delta=1e-6, data_norm=30.0)
    noisy.set_params(random_state=0).fit(X)
    labels = [r.label for r in noisy.privacy_releases_]
    assert any("centred norm quantile" in label for label in labels)
    assert "centered_norm" in noisy.clipped_rows_
    assert noisy.row_bound_ < 30.0
    # at a huge ε the forecast loss is tiny: no release, no row clipped
    exact = PrivatePCA(2, epsilon=1e6, delta=1e-6, data_norm=30.0)
    exact.set_params(random_state=0).fit(X)
    assert not any("quantile" in r.label for r in exact.privacy_releases_)
    assert exact.row_bound_ == 30.0 and exact.clipped_rows_ == {}


# -- the warning before a hopeless fit ------------------------------------------


def test_warns_before_fitting_when_random_could_do_as_well():
    X = spiked(60, 30, [1.0, 1.0])
    ledger = Accountant(1.0, 1e-5)
    est = PrivatePCA(
        3, epsilon=0.1, delta=1e-5 / 2, data_norm=50.0, accountant=ledger
    )
    assert est.plan(*X.shape).best.random_may_beat
    with pytest.warns(fc.UtilityWarning, match="random projection"):
        est.fit(X)
    # a comfortable fit does not warn
    Y = spiked(5000, 10, [3.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", fc.UtilityWarning)
        PrivatePCA(2, epsilon=2.0, delta=1e-6, data_norm=20.0).fit(Y)


def test_warning_is_raised_before_any_charge():
    X = spiked(60, 30, [1.0, 1.0])
    ledger = Accountant(1.0, 1e-5)
    est = PrivatePCA(
        3, epsilon=0.1, delta=1e-6, data_norm=50.0, accountant=ledger
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", fc.UtilityWarning)
        with pytest.raises(fc.UtilityWarning):
            est.fit(X)
    assert ledger.charges == ()


# -- the grid search within one budget ------------------------------------------

#: The search's choice by GridSearchCV's scores, outside the ledger: the only
#: one a Pipeline with a non-private step (a logistic regression) may use.
NON_PRIVATE = {"selection": "non_private"}


def test_budgeted_grid_search_stays_within_the_budget_and_finishes():
    X = spiked(1200, 10, [3.0, 2.0, 1.0])
    y = (X[:, 0] > 1.0).astype(int)
    ledger = Accountant(2.0, 1e-5)
    pipe = make_pipeline(
        PrivatePCA(data_norm=20.0, delta=1e-5, random_state=0),
        LogisticRegression(),
    )
    grid = {"privatepca__n_components": [1, 2, 3]}
    # a logistic regression after the private step: only the non-private
    # choice runs, by request, and it says what the ledger does not cover
    with pytest.warns(PrivacyWarning, match="logisticregression"):
        search = budgeted_grid_search(
            pipe, grid, ledger, X, y, cv=3, selection="non_private"
        )
    assert search.selection_ == "non_private"
    assert search.non_private_steps_ == ("logisticregression",)
    assert search.n_budgeted_fits_ == 3 * 3 + 1
    assert len(ledger.charges) == 10
    eps, delta = ledger.spent
    assert eps <= 2.0 * (1 + 1e-9) and delta <= 1e-5
    # the accountant's composition lets each fit spend more than 2/10
    assert search.budget_per_fit_[0] > 2.0 / 10
    assert search.best_params_["privatepca__n_components"] in (1, 2, 3)
    assert 0.0 <= search.best_score_ <= 1.0


def test_budgeted_grid_search_with_a_private_scaler_splits_over_steps():
    X = spiked(900, 6, [3.0, 2.0])
    y = (X[:, 0] > 1.0).astype(int)
    ledger = Accountant(1.5)
    bounds = (np.full(6, -10.0), np.full(6, 12.0))
    pipe = make_pipeline(
        PrivateStandardScaler(bounds, random_state=0),
        PrivatePCA(data_norm=10.0, random_state=0, delta=0.0),
        LogisticRegression(),
    )
    search = budgeted_grid_search(
        pipe,
        {"privatepca__n_components": [1, 2]},
        ledger,
        X,
        y,
        cv=2,
        compose=False,
        selection="non_private",
    )
    m = 2 * 2 + 1
    assert search.budget_per_fit_ == (pytest.approx(1.5 / (2 * m)), None)
    assert len(ledger.charges) == 2 * m
    assert ledger.spent[0] == pytest.approx(1.5)


def test_budgeted_grid_search_refuses_before_any_fit():
    X = spiked(300, 6, [3.0, 2.0])
    ledger = Accountant(1.0, 1e-5)
    ledger.charge(
        PrivatePCA(2, data_norm=10.0, epsilon=1.0, random_state=0, delta=0.0)
        .fit(X)
        .privacy_releases_
    )
    pca = PrivatePCA(data_norm=10.0, random_state=0, delta=0.0)
    with pytest.raises(BudgetExceededError, match="nothing"):
        budgeted_grid_search(pca, {"n_components": [1, 2]}, ledger, X)
    assert len(ledger.charges) == 1
    fresh = Accountant(1.0, 1e-5)
    with pytest.raises(ValueError, match="may not set"):
        budgeted_grid_search(pca, {"epsilon": [0.1, 1.0]}, fresh, X)
    with pytest.raises(ValueError, match="n_jobs"):
        budgeted_grid_search(pca, {"n_components": [1, 2]}, fresh, X, n_jobs=2)
    with pytest.raises(ValueError, match="no private step"):
        budgeted_grid_search(LogisticRegression(), {"C": [1]}, fresh, X)
    assert fresh.charges == ()


class _CountingPCA(PrivatePCA):
    """A PrivatePCA that records each fit (its ε, and whether it charges)."""

    fits: list = []

    def fit(self, X, y=None):
        _CountingPCA.fits.append((self.epsilon, self.accountant is not None))
        return super().fit(X, y)


def _unit_rows(n, d, seed=0):
    X = np.random.default_rng(seed).normal(size=(n, d))
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]


def test_budgeted_grid_search_refuses_private_fits_it_would_not_budget():
    from sklearn.pipeline import FeatureUnion, Pipeline

    X = _unit_rows(300, 6)
    y = (X[:, 0] > 0).astype(int)

    def pca(**kw):
        args = dict(n_components=2, data_norm=1.0, delta=1e-6, random_state=1)
        return _CountingPCA(**{**args, **kw})

    cases = [
        # a grid value that is itself a private estimator (own epsilon)
        (
            Pipeline([("pca", pca()), ("lr", LogisticRegression())]),
            {"pca": [pca(epsilon=0.3), pca(epsilon=0.3, n_components=1)]},
        ),
        # a grid value that carries one inside
        (
            Pipeline([("pca", pca()), ("lr", LogisticRegression())]),
            {"lr": [Pipeline([("p", pca()), ("m", LogisticRegression())])]},
        ),
        # a private step inside a FeatureUnion
        (
            Pipeline(
                [
                    ("pca", pca()),
                    ("u", FeatureUnion([("p2", pca(n_components=1))])),
                    ("lr", LogisticRegression()),
                ]
            ),
            {"lr__C": [0.1, 1.0]},
        ),
        # a private step inside an inner Pipeline
        (
            Pipeline(
                [
                    ("pca", pca(n_components=4)),
                    ("inner", Pipeline([("p2", pca())])),
                    ("lr", LogisticRegression()),
                ]
            ),
            {"lr__C": [0.1, 1.0]},
        ),
    ]
    for estimator, grid in cases:
        _CountingPCA.fits.clear()
        ledger = Accountant(10.0, 1e-5)
        with pytest.raises(ValueError, match="private estimator"):
            budgeted_grid_search(estimator, grid, ledger, X, y, cv=3)
        assert _CountingPCA.fits == [] and ledger.charges == ()
    # nor may the grid replace a budgeted step by something else
    ledger = Accountant(10.0, 1e-5)
    with pytest.raises(ValueError, match="may not replace"):
        budgeted_grid_search(
            Pipeline([("pca", pca()), ("lr", LogisticRegression())]),
            {"pca": ["passthrough"]},
            ledger,
            X,
            y,
            cv=3,
        )
    assert ledger.charges == ()


def test_budgeted_grid_search_refuses_a_non_private_step_before_a_private_one():
    from sklearn.feature_selection import SelectKBest
    from sklearn.pipeline import Pipeline

    X = _unit_rows(300, 40, seed=1)
    y = (X[:, 0] > 0).astype(int)
    _CountingPCA.fits.clear()
    ledger = Accountant(2.0, 1e-5)
    pipe = Pipeline(
        [
            ("sel", SelectKBest(k=2)),
            ("pca", _CountingPCA(1, data_norm=1.0, delta=1e-6, random_state=1)),
            ("lr", LogisticRegression()),
        ]
    )
    with pytest.raises(ValueError, match="input width"):
        budgeted_grid_search(
            pipe, {"pca__center_share": ["auto", 0.1]}, ledger, X, y, cv=3
        )
    assert _CountingPCA.fits == [] and ledger.charges == ()


def test_budgeted_grid_search_refuses_a_process_backend_from_joblib_config():
    import joblib

    X = _unit_rows(300, 5)
    y = (X[:, 0] > 0).astype(int)
    pca = make_pipeline(
        PrivatePCA(data_norm=1.0, delta=1e-6, random_state=0),
        LogisticRegression(),
    )
    grid = {"privatepca__n_components": [1, 2]}
    ledger = Accountant(10.0, 1e-5)
    with joblib.parallel_config(backend="loky", n_jobs=2):
        with pytest.raises(ValueError, match="n_jobs"):
            budgeted_grid_search(pca, grid, ledger, X, y, cv=2)
    assert ledger.charges == ()
    # threads share the ledger: allowed, and every fit is charged
    with joblib.parallel_config(backend="threading", n_jobs=2):
        search = budgeted_grid_search(
            pca, grid, ledger, X, y, cv=2, compose=False, **NON_PRIVATE
        )
    assert len(ledger.charges) == search.n_budgeted_fits_ == 5


class _LedgerDodgingPCA(PrivatePCA):
    """Drops its accountant before fitting: its fits charge nothing."""

    def fit(self, X, y=None):
        self.accountant = None
        return super().fit(X, y)


def test_budgeted_grid_search_checks_the_ledger_gained_the_planned_charges():
    X = _unit_rows(300, 5)
    y = (X[:, 0] > 0).astype(int)
    pipe = make_pipeline(
        _LedgerDodgingPCA(data_norm=1.0, delta=1e-6, random_state=0),
        LogisticRegression(),
    )
    ledger = Accountant(10.0, 1e-5)
    with pytest.raises(RuntimeError, match="charged 0 release record"):
        budgeted_grid_search(
            pipe,
            {"_ledgerdodgingpca__n_components": [1, 2]},
            ledger,
            X,
            y,
            cv=2,
            compose=False,
            **NON_PRIVATE,
        )


def test_an_epsilon_too_small_to_draw_is_refused_before_any_charge():
    # at ε ≤ 1e-10 the exact samplers cannot draw the private mean's or the
    # private count's noise: refused from public quantities, nothing charged
    X = _unit_rows(500, 4)
    for eps in (1e-10, 1e-11):
        for kw in (
            dict(data_norm=1.0),
            dict(data_norm="private", bound_range=(0.01, 10.0)),
        ):
            ledger = Accountant(1.0, 0.0)
            est = PrivatePCA(
                epsilon=eps, delta=0.0, random_state=0, accountant=ledger, **kw
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(ValueError, match="too small"):
                    est.fit(X)
            assert ledger.charges == ()
    # ε = 1e-9 is still drawn
    ledger = Accountant(1.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PrivatePCA(
            epsilon=1e-9,
            data_norm=1.0,
            random_state=0,
            accountant=ledger,
            delta=0.0,
        ).fit(X)
    assert len(ledger.charges) == 1


def test_a_tiny_epsilon_with_delta_draws_the_gaussian_mean_on_a_coarser_grid():
    # the red team's repro: at ε ≤ 1e-7 with a δ the safe Gaussian mean
    # raised after the fit had charged the ledger. With a δ its σ/γ tends
    # to σ(√d, ε, δ), which stays finite as ε → 0, so a coarser grid draws it
    X = _unit_rows(500, 4)
    for eps in (1e-7, 1e-9):
        ledger = Accountant(1.0, 1e-5)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = PrivatePCA(
                epsilon=eps,
                delta=1e-6,
                data_norm=1.0,
                centered_norm=None,
                random_state=0,
                accountant=ledger,
            ).fit(X)
        assert len(ledger.charges) == 1
        assert np.all(np.isfinite(est.mean_))
        assert any("private mean" in r.label for r in est.privacy_releases_)


def test_a_gaussian_mean_beyond_the_samplers_range_is_refused_before_any_charge(
    monkeypatch,
):
    # shrink the sampler's range so that no grid can hold σ(√d, ε, δ): the
    # fit is refused from public quantities, nothing charged
    from dppca.privacy import noise

    monkeypatch.setattr(noise, "MAX_GAUSSIAN_GRID_SIGMA", 2**3)
    X = _unit_rows(500, 4)
    ledger = Accountant(1.0, 1e-5)
    est = PrivatePCA(
        epsilon=1e-3,
        delta=1e-6,
        data_norm=1.0,
        centered_norm=None,
        random_state=0,
        accountant=ledger,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="too small"):
            est.fit(X)
    assert ledger.charges == ()


def test_budgeted_grid_search_runs_after_an_earlier_gaussian_release():
    # the ledger composes its Gaussian releases at the budget's δ, so
    # remaining() reads δ = 0 after any of them; a search with ε left used
    # to be refused for want of δ. It now runs, and stays within the budget
    X = spiked(1200, 10, [3.0, 2.0, 1.0])
    y = (X[:, 0] > 1.0).astype(int)
    ledger = Accountant(2.0, 1e-5)
    first = PrivatePCA(
        2,
        data_norm=20.0,
        epsilon=0.5,
        delta=1e-6,
        centered_norm=None,
        random_state=0,
        accountant=ledger,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        first.fit(X)
    assert ledger.remaining()[1] == 0.0 and ledger.remaining()[0] > 1.0
    pipe = make_pipeline(
        PrivatePCA(data_norm=20.0, delta=1e-5, random_state=0),
        LogisticRegression(),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            pipe,
            {"privatepca__n_components": [1, 2]},
            ledger,
            X,
            y,
            cv=2,
            **NON_PRIVATE,
        )
    assert len(ledger.charges) == 1 + search.n_budgeted_fits_
    eps, delta = ledger.spent
    assert eps <= 2.0 * (1 + 1e-9) and delta <= 1e-5


def test_whether_a_tiny_gaussian_mean_is_refused_does_not_depend_on_the_bound():
    # the red team's case: a mean at ε = 1e-6, δ = 1e-9 in d = 209 used to be
    # refused or drawn depending on the row bound (the first grid depends on
    # 2R/n), so with a released bound the fit raised after charging it. The
    # refusal is now decided from (ε, δ, d) alone, before any charge
    rng = np.random.default_rng(0)
    X = rng.normal(size=(1000, 209))
    X *= 1.4 / np.linalg.norm(X, axis=1, keepdims=True)
    options = dict(
        epsilon=1e-3,
        delta=1e-6,
        mechanism="analyze_gauss",
        center_share=0.001,
        centered_norm=None,
    )
    outcomes = []
    for bound in (1.0, 1.3, 1.5, 1.7, 2.0, "private"):
        for seed in range(3):
            ledger = Accountant(1.0, 1e-5)
            extra = {"bound_range": (1.0, 2.0)} if bound == "private" else {}
            est = PrivatePCA(
                2,
                data_norm=bound,
                accountant=ledger,
                random_state=seed,
                **options,
                **extra,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    est.fit(X)
                    outcomes.append("fit")
                except ValueError as error:
                    assert "too small" in str(error)
                    assert ledger.charges == ()
                    outcomes.append("refused")
    assert set(outcomes) == {"refused"}


def test_budgeted_grid_search_refuses_a_private_step_after_a_width_changing_one():
    # the red team's F3: PrivatePCA(3) then PrivatePCA(2) spent the whole
    # budget, then failed the ledger check (the dry run planned the second
    # step at X's width); refused now before any fit
    from sklearn.pipeline import Pipeline

    X = _unit_rows(300, 6)
    for second in (
        PrivatePCA(2, data_norm=1.0, random_state=0, delta=0.0),
        PrivateStandardScaler((np.full(3, -1.0), np.full(3, 1.0))),
    ):
        ledger = Accountant(6.0)
        pipe = Pipeline(
            [
                (
                    "first",
                    PrivatePCA(3, data_norm=1.0, random_state=0, delta=0.0),
                ),
                ("second", second),
            ]
        )
        with pytest.raises(ValueError, match="changes the width"):
            budgeted_grid_search(
                pipe, {"first__n_components": [3]}, ledger, X, cv=2
            )
        assert ledger.charges == ()


# -- a public spectrum for "auto" ---------------------------------------------


def test_a_stated_spectrum_ranks_auto_by_the_prediction():
    from dppca import forecast_prediction as fp

    X = spiked(600, 12, [0.4, 0.3, 0.2])
    prior = np.r_[[0.2, 0.1, 0.05], np.full(9, 0.001)]
    est = PrivatePCA(3, epsilon=0.5, delta=1e-5, data_norm=4.0, spectrum=prior)
    plan = est.plan(*X.shape)
    ranked = fp.rank_plan(plan, prior, 3)
    first = fc.ranked_by_spectrum(plan, prior)
    # the smallest prediction under the prior (ties to the better bound)
    assert ranked[0][1].loss == min(p.loss for _, p in ranked)
    assert fp.public_prediction(first, prior, 3).loss == ranked[0][1].loss
    assert fc.choose(est, *X.shape) == (first.mechanism, first.center_share)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", fc.UtilityWarning)
        fitted = est.set_params(random_state=0).fit(X)
    assert (fitted.mechanism_, fitted.center_share_) == (
        first.mechanism,
        first.center_share,
    )
    assert est.get_params()["spectrum"] is prior
    # a fixed mechanism and share are run as given
    fixed = est.set_params(mechanism="analyze_gauss", center_share=0.1)
    assert fc.choose(fixed, *X.shape) == ("analyze_gauss", 0.1)


@pytest.mark.parametrize(
    "bad", [[1.0, 0.5], np.full(12, -0.1), np.zeros(12), "flat", True,
            np.r_[np.nan, np.ones(11)]],
)  # fmt: skip
def test_a_bad_spectrum_is_refused_before_any_charge(bad):
    X = spiked(300, 12, [0.4, 0.3])
    ledger = Accountant(1.0, 1e-5)
    est = PrivatePCA(
        2, epsilon=0.5, delta=1e-6, data_norm=4.0, accountant=ledger,
        spectrum=bad,
    )  # fmt: skip
    with pytest.raises(ValueError, match="spectrum"):
        est.fit(X)
    assert ledger.spent == (0.0, 0.0)
