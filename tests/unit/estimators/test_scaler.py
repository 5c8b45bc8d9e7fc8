"""Tests of dppca.scaler.PrivateStandardScaler (issue 30): scikit-learn's
estimator checks, agreement with StandardScaler at huge ε, one ledger with
PrivatePCA in a Pipeline, refusals before any charge, dtypes."""

import warnings

import numpy as np
import pytest
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from dppca import PrivacyWarning, PrivatePCA, PrivateStandardScaler
from dppca.privacy.accounting import Accountant, BudgetExceededError

#: Checks skipped by name with the reason: none is needed (every fit draws
#: from random_state, which the checks fix; clipping accepts any data).
SKIPPED_CHECKS: dict[str, str] = {}


@parametrize_with_checks(
    [
        PrivateStandardScaler(bounds=(-5.0, 5.0)),
        PrivateStandardScaler(bounds=(-5.0, 5.0), delta=1e-6, with_mean=False),
        PrivateStandardScaler(bounds=(0.0, 10.0), with_std=False),
    ],
    expected_failed_checks=lambda estimator: SKIPPED_CHECKS,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def data(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal([0.0, 3.0, -1.0], [1.0, 0.2, 0.5], size=(n, 3))
    lower, upper = np.array([-6.0, 2.0, -4.0]), np.array([6.0, 4.0, 2.0])
    return np.clip(X, lower, upper), (lower, upper)


@pytest.mark.parametrize("delta", [None, 1e-9])
def test_huge_epsilon_matches_standard_scaler(delta):
    """ε = 1e9 with safe noise: what is left is the noise grid, about one
    cell (Δ/1024d of the column sum) per feature: ~5e-7 of the width."""
    X, bounds = data()
    est = PrivateStandardScaler(bounds=bounds, epsilon=1e9, delta=delta)
    ref = StandardScaler().fit(X)
    width = bounds[1] - bounds[0]
    est.fit(X)
    assert np.all(np.abs(est.mean_ - ref.mean_) <= 1e-5 * width)
    np.testing.assert_allclose(est.var_, ref.var_, rtol=1e-4)
    np.testing.assert_allclose(est.scale_, ref.scale_, rtol=1e-4)
    np.testing.assert_allclose(
        est.transform(X), ref.transform(X), atol=1e-3, rtol=0
    )
    back = est.inverse_transform(est.transform(X))
    np.testing.assert_allclose(back, X, atol=1e-12)
    assert est.n_features_in_ == 3 and est.n_samples_seen_ == 2000


def test_fit_transform_and_with_flags():
    X, bounds = data(500)
    est = PrivateStandardScaler(bounds=bounds, with_mean=False, random_state=1)
    out = est.fit_transform(X)
    np.testing.assert_array_equal(out, X / est.scale_)
    assert est.mean_ is not None  # var_ is about the mean, as in sklearn
    est = PrivateStandardScaler(bounds=bounds, with_mean=False, with_std=False)
    np.testing.assert_array_equal(est.fit_transform(X), X)
    assert est.privacy_releases_ == () and est.privacy_spent_ == (0.0, 0.0)
    assert est.mean_ is None and est.var_ is None


def test_variance_floor_at_the_noise_level():
    """A constant feature: the noisy variance is floored at the standard
    deviation of its noise (public), never 0 or negative."""
    X = np.zeros((100, 2))
    est = PrivateStandardScaler(bounds=(-1.0, 1.0), epsilon=0.5).fit(X)
    assert np.all(est.var_ > 0) and np.all(np.isfinite(est.transform(X)))
    assert np.all(est.var_ <= 1.0)  # Popoviciu: (width / 2)²


def test_float32_in_float32_out():
    X, bounds = data(300)
    X32 = X.astype(np.float32)
    est = PrivateStandardScaler(bounds=bounds, random_state=0).fit(X32)
    assert est.transform(X32).dtype == np.float32
    assert est.inverse_transform(X32).dtype == np.float32
    assert est.transform(X).dtype == np.float64


def _pipeline(ledger, scale_rng=None, pca_rng=None, eps=(0.5, 0.5)):
    return Pipeline(
        [
            (
                "scale",
                PrivateStandardScaler(
                    bounds=data()[1],
                    epsilon=eps[0],
                    accountant=ledger,
                    random_state=scale_rng,
                ),
            ),
            (
                "pca",
                PrivatePCA(
                    2,
                    epsilon=eps[1],
                    data_norm=10.0,
                    accountant=ledger,
                    random_state=pca_rng,
                    delta=0.0,
                ),
            ),
        ]
    )


def test_pipeline_charges_one_ledger():
    X, _ = data()
    ledger = Accountant(1.0)
    pipe = _pipeline(ledger, 0, 0).fit(X)
    assert ledger.charges == ("PrivateStandardScaler", "PrivatePCA")
    assert ledger.spent[0] == pytest.approx(1.0)
    assert pipe.transform(X).shape == (2000, 2)
    labels = [r.label for r in ledger.releases]
    assert labels[:2] == [r.label for r in pipe["scale"].privacy_releases_]


def test_pipeline_second_step_refused_before_its_noise():
    X, _ = data()
    ledger = Accountant(0.7)
    pca_rng = np.random.default_rng(5)
    before = pca_rng.bit_generator.state
    pipe = _pipeline(ledger, 0, pca_rng)
    with pytest.raises(BudgetExceededError):
        pipe.fit(X)
    assert ledger.charges == ("PrivateStandardScaler",)
    assert pca_rng.bit_generator.state == before  # no noise of the PCA
    assert not hasattr(pipe["pca"], "components_")


def test_first_step_refused_leaves_the_ledger_untouched():
    X, _ = data()
    ledger = Accountant(0.3)
    scale_rng = np.random.default_rng(6)
    before = scale_rng.bit_generator.state
    pipe = _pipeline(ledger, scale_rng, 0)
    with pytest.raises(BudgetExceededError):
        pipe.fit(X)
    assert ledger.charges == () and ledger.releases == ()
    assert scale_rng.bit_generator.state == before
    assert not hasattr(pipe["scale"], "privacy_releases_")


@pytest.mark.parametrize(
    "params, error, match",
    [
        ({"bounds": None}, ValueError, "bounds is required"),
        ({"bounds": (0.0,)}, ValueError, "bounds is required"),
        ({"bounds": (1.0, 1.0)}, ValueError, "lower < upper"),
        ({"bounds": ([0.0, 0.0, 2.0], 1.0)}, ValueError, "lower < upper"),
        ({"bounds": ([0.0, 0.0], 1.0)}, ValueError, "n_features = 3"),
        ({"bounds": (0.0, np.inf)}, ValueError, "finite"),
        ({"bounds": (-1e300, 1e300)}, ValueError, "widths"),
        ({"epsilon": 0.0}, ValueError, "epsilon"),
        ({"epsilon": -1.0}, ValueError, "epsilon"),
        ({"epsilon": np.nan}, ValueError, "epsilon"),
        ({"delta": 1.0}, ValueError, "delta"),
        ({"mean_share": 1.0}, ValueError, "mean_share"),
        ({"noise": "exact"}, ValueError, "noise"),
        ({"clip": False}, ValueError, "clip=False"),
        ({"with_mean": "yes"}, TypeError, "with_mean"),
    ],
)
def test_public_parameter_errors_refused_before_any_charge(
    params, error, match
):
    X, bounds = data(50)
    X[7, 1] = 123.456  # outside its range: named in no message
    ledger = Accountant(10.0, 1e-3)
    rng = np.random.default_rng(9)
    before = rng.bit_generator.state
    full = dict(bounds=bounds, accountant=ledger, random_state=rng)
    est = PrivateStandardScaler(**{**full, **params})
    with pytest.raises(error, match=match) as info:
        est.fit(X)
    assert "123.456" not in str(info.value)
    assert ledger.charges == () and rng.bit_generator.state == before
    assert not hasattr(est, "privacy_releases_")


def test_refit_without_accountant_and_pickle_warn():
    import pickle

    X, bounds = data(50)
    est = PrivateStandardScaler(bounds=bounds, random_state=0).fit(X)
    with pytest.warns(PrivacyWarning, match="refitting"):
        est.fit(X)
    with pytest.warns(PrivacyWarning, match="pickling"):
        pickle.dumps(est)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pickle.dumps(PrivateStandardScaler(bounds=bounds).fit(X))
