"""dppca.forecast: the typical-loss prediction on the most favourable data
in the bound, the plain warning when even it says a fit cannot beat a random
subspace, and ``"auto"`` never preferring a configuration it calls
hopeless (issue 43)."""

from __future__ import annotations

import dataclasses
import math
import warnings

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca import forecast as fc
from dppca import forecast_prediction as fp
from dppca.exceptions import UtilityWarning


def plan_for(n, d, k, epsilon, data_norm=1.0):
    return PrivatePCA(k, epsilon=epsilon, delta=1e-5, data_norm=data_norm).plan(
        n, d
    )


def test_a_plan_knows_its_k_and_d():
    plan = plan_for(1000, 20, 3, 1.0)
    assert (plan.k, plan.d) == (3, 20)
    assert fc.Plan(list(plan)).k is None  # built by hand: unknown


def test_the_favourable_spectrum_holds_the_bound_in_k_directions():
    row = plan_for(1000, 20, 3, 1.0, data_norm=2.0).best
    lam = fc.favourable_spectrum(row, 3, 20)
    assert lam.shape == (20,)
    assert lam.sum() == pytest.approx(row.row_bound**2)
    assert np.all(lam[:3] == lam[0]) and np.all(lam[3:] == 0)


def test_predictions_are_public_predictions_of_the_rows():
    plan = plan_for(500, 30, 4, 1.0)
    for row, got in zip(plan, fc.favourable_predictions(plan)):
        again = fp.public_prediction(row, fc.favourable_spectrum(row, 4, 30), 4)
        assert got == again


@pytest.mark.parametrize("n, expected", [(20, True), (100_000, False)])
def test_hopeless_follows_the_noise_threshold(n, expected):
    # B²/k per direction against the threshold s√d of the best row
    d, k = 30, 5
    plan = plan_for(n, d, k, 1.0)
    assert fc.predicted_hopeless(plan) is expected
    s = plan.best.noise_norm / (2 * math.sqrt(d))  # units of B²
    assert (s * math.sqrt(d - k) > 1 / k) is expected


def test_k_equal_to_d_is_never_hopeless():
    plan = plan_for(10, 4, 4, 0.1)
    assert fc.favourable_predictions(plan) == []
    assert not fc.predicted_hopeless(plan)
    assert fc.promising(plan) is plan.best


def test_k_zero_is_left_to_the_fits_own_check():
    # n_components=0 reaches the forecast before the fit refuses it
    plan = fc.forecast(100, 5, 0, 1.0, 1e-5, data_norm=1.0)
    assert fc.favourable_predictions(plan) == []
    assert fc.promising(plan) is plan.best
    with pytest.raises(ValueError, match="n_components must satisfy"):
        PrivatePCA(0, epsilon=1.0, delta=1e-5, data_norm=1.0).fit(
            np.zeros((100, 5))
        )


def _messages(plan):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UtilityWarning)
        fc.warn_if_hopeless(plan)
    return [str(w.message) for w in caught if w.category is UtilityWarning]


def test_the_warning_is_plain_when_the_prediction_agrees():
    plan = plan_for(20, 30, 5, 1.0)
    assert plan.best.random_may_beat and fc.predicted_hopeless(plan)
    (message,) = _messages(plan)
    assert message.startswith("the best forecast")
    assert "predicted to capture no more than a random k-subspace" in message
    assert "GaussianRandomProjection" in message
    assert "spends no budget" in message


def test_the_bound_alone_warns_with_the_alternative_named():
    # the bound reaches a random subspace's loss, the prediction does not
    for n in (200, 400, 800, 1600):
        plan = plan_for(n, 30, 5, 1.0)
        if plan.best.random_may_beat and not fc.predicted_hopeless(plan):
            break
    else:
        pytest.fail("no n between the two criteria")
    (message,) = _messages(plan)
    assert "the forecast cannot show" in message
    assert "GaussianRandomProjection" in message
    assert "predicted to capture no more" not in message


def test_no_warning_when_the_bound_shows_a_gain():
    plan = plan_for(1_000_000, 30, 5, 1.0)
    assert not plan.best.random_may_beat
    assert _messages(plan) == []


def test_auto_never_prefers_a_configuration_called_hopeless():
    plan = plan_for(20, 30, 5, 1.0)
    good = dataclasses.replace(plan.best, noise_norm=1e-6, loss=1e9)
    mixed = fc.Plan([plan.best, good])
    mixed.k, mixed.d = 5, 30
    # the bound prefers the first row; the prediction calls it hopeless
    assert fc.predicted_hopeless(plan)
    assert fc.promising(mixed) is good
    # when every row is hopeless, the bound's best is kept
    assert fc.promising(plan) is plan.best
    # a plan that does not say its k and d: the bound's best
    assert fc.promising(fc.Plan([plan.best, good])) is plan.best


def test_a_fit_the_prediction_calls_hopeless_warns_plainly():
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(20, 30)) / math.sqrt(30)
    est = PrivatePCA(5, epsilon=1.0, delta=1e-5, data_norm=1.0, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", UtilityWarning)
        est.fit(X)
    plain = [
        w
        for w in caught
        if "predicted to capture no more than" in str(w.message)
    ]
    assert len(plain) == 1


def test_a_mean_error_at_its_cap_is_hopeless_once_the_rows_are_clipped():
    # 200 rows of 13 features at ε = 0.5: a mean share of 0.05 leaves the
    # mean's error at its cap (2R)², four times B², which pushes the rows
    # beyond the bound (clip factor 5); without the clipping term the model
    # let that mean take only the k-th place and called the row promising.
    # With it every row is hopeless, so "auto" keeps the bound's best and
    # the fit says plainly that a random projection does as well
    est = PrivatePCA(5, epsilon=0.5, delta=1e-5, data_norm=math.sqrt(13))
    plan = est.plan(200, 13)
    capped = [row for row in plan if row.center_share == 0.05]
    for row in capped:
        assert row.mean_loss == pytest.approx(4 * row.row_bound**2)
        spectrum = fc.favourable_spectrum(row, 5, 13)
        assert fp.public_prediction(row, spectrum, 5).clip_factor == 5.0
    assert fc.predicted_hopeless(plan)
    assert fc.choose(est, 200, 13) == (
        plan.best.mechanism,
        plan.best.center_share,
    )
    assert "predicted to capture no more" in _messages(plan)[0]


def test_auto_runs_the_best_bound_among_promising_rows():
    # 1797 rows of 64 features (the digits' public parameters) at ε = 1:
    # no row hopeless, and "auto" runs the bound's best
    est = PrivatePCA(5, epsilon=1.0, delta=1e-5, data_norm=8.0)
    plan = est.plan(1797, 64)
    assert not any(
        p.loss >= p.random_loss for p in fc.favourable_predictions(plan)
    )
    assert fc.promising(plan) is plan.best
    best = plan.best
    assert fc.choose(est, 1797, 64) == (best.mechanism, best.center_share)
