"""CoinPress covariance estimation (dppca.mechanisms.coinpress): shapes,
seeds, validation, the estimator's path and accuracy on spiked data."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca.mechanisms import coinpress as cp
from dppca.mechanisms.registry import MECHANISMS
from dppca.privacy.guarantees import guarantee_of
from dppca.privacy.zcdp import zcdp_rho
from dppca.utility import sin_theta

EPS, DELTA = 1.0, 1e-6


def spiked_rows(n, d, scale, rng, spike=5.0):
    """Gaussian rows of covariance ``scale²/d · diag(spike, 1, ..., 1)``,
    clipped into the unit ball (a tiny fraction at most for scale ≤ 0.1)."""
    sd = np.full(d, scale / math.sqrt(d))
    sd[0] *= math.sqrt(spike)
    X = rng.standard_normal((n, d)) * sd
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]


def test_shapes_record_and_symmetry():
    X = spiked_rows(500, 5, 0.3, np.random.default_rng(0))
    cov, run = cp.coinpress_covariance(
        X, epsilon=EPS, delta=DELTA, rng=1, return_run=True
    )
    assert cov.shape == (5, 5)
    assert np.array_equal(np.asarray(cov), np.asarray(cov).T)
    record = guarantee_of(cov)
    assert record.kind == "zcdp" and record.proved and record.noise == "safe"
    assert len(run.whitenings) == len(run.radii) == cp.DEFAULT_ITERATIONS
    # the release is positive semidefinite (T⁻¹ Z T⁻ᵀ with Z ⪰ 0)
    assert np.linalg.eigvalsh(np.asarray(cov)).min() >= -1e-12
    V = cp.coinpress_subspace(X, 2, epsilon=EPS, delta=DELTA, rng=1)
    assert V.shape == (5, 2)
    assert np.allclose(np.asarray(V).T @ np.asarray(V), np.eye(2))
    assert guarantee_of(V) == record


def test_seeds_reproduce_and_differ():
    X = spiked_rows(300, 4, 0.3, np.random.default_rng(1))
    a = cp.coinpress_covariance(X, epsilon=EPS, delta=DELTA, rng=7)
    b = cp.coinpress_covariance(X, epsilon=EPS, delta=DELTA, rng=7)
    c = cp.coinpress_covariance(X, epsilon=EPS, delta=DELTA, rng=8)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


def test_float_noise_is_recorded_as_unproved():
    X = spiked_rows(300, 4, 0.3, np.random.default_rng(1))
    with pytest.warns(Warning, match="not fully proved"):
        cov = cp.coinpress_covariance(
            X, epsilon=EPS, delta=DELTA, rng=7, noise="float"
        )
    assert not guarantee_of(cov).proved


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(n_iterations=0), "n_iterations"),
        (dict(beta=1.5), "beta"),
        (dict(cov_upper=-1.0), "cov_upper"),
        (dict(cov_upper=math.inf), "cov_upper"),
        (dict(n_iterations=2, shares=(0.5,)), "shares"),
        (dict(n_iterations=2, shares=(0.7, 0.7)), "shares"),
        (dict(noise="fast"), "noise"),
    ],
)
def test_validation_errors(kwargs, match):
    X = spiked_rows(50, 3, 0.3, np.random.default_rng(2))
    with pytest.raises(ValueError, match=match):
        cp.coinpress_covariance(X, epsilon=EPS, delta=DELTA, rng=0, **kwargs)


def test_subspace_refuses_return_run_rather_than_dropping_it():
    X = spiked_rows(50, 3, 0.3, np.random.default_rng(2))
    with pytest.raises(TypeError, match="coinpress_covariance"):
        cp.coinpress_subspace(
            X, 1, epsilon=EPS, delta=DELTA, rng=0, return_run=True
        )
    V = cp.coinpress_subspace(
        X, 1, epsilon=EPS, delta=DELTA, rng=0, return_run=False
    )
    assert np.asarray(V).shape == (3, 1)


def test_rows_outside_the_unit_ball_are_refused():
    X = np.ones((10, 3))
    with pytest.raises(ValueError, match="norm"):
        cp.coinpress_covariance(X, epsilon=EPS, delta=DELTA, rng=0)


def test_budget_shares_are_the_authors_schedule():
    assert cp.budget_shares(1) == (1.0,)
    assert cp.budget_shares(2) == (0.25, 0.75)
    assert np.allclose(cp.budget_shares(5), [1 / 16] * 4 + [3 / 4])
    cal = cp.coinpress_calibration(1000, 5, EPS, DELTA, n_iterations=5)
    target = zcdp_rho(EPS, DELTA)
    assert cal.rho <= target
    assert cal.rho >= target * (1 - 1e-3)


def test_gaussian_radius_is_a_chi_square_tail():
    rng = np.random.default_rng(3)
    d, beta = 10, 0.1
    norms = np.linalg.norm(rng.standard_normal((20000, d)), axis=1)
    assert np.mean(norms > cp.gaussian_radius(d, beta)) <= beta


def test_registered_and_estimator_path():
    spec = MECHANISMS["coinpress"]
    assert spec.notion == "gaussian" and spec.additive_noise
    X = spiked_rows(2000, 5, 0.5, np.random.default_rng(4))
    pca = PrivatePCA(
        2,
        epsilon=EPS,
        delta=DELTA,
        mechanism="coinpress",
        data_norm=1.0,
        center=False,
        random_state=0,
    ).fit(X)
    assert pca.components_.shape == (2, 5)
    assert pca.explained_variance_.shape == (2,)
    assert pca.mechanism_ == "coinpress"
    (record,) = pca.privacy_releases_
    assert record.kind == "zcdp" and record.chapter == "chapter 19"
    # the same release as the functional entry point on the same rows
    again = PrivatePCA(
        2,
        epsilon=EPS,
        delta=DELTA,
        mechanism="coinpress",
        data_norm=1.0,
        center=False,
        random_state=0,
        mechanism_options={"n_iterations": 2},
    ).fit(X)
    assert again.privacy_releases_[0].epsilon == EPS


@pytest.mark.parametrize(
    "options",
    [
        {"n_iterations": 0},
        {"beta": 2.0},
        {"cov_upper": 0.0},
        {"shares": (1.0,)},
        {"centre": np.zeros(5)},
    ],
)
def test_estimator_refuses_bad_options_before_any_charge(options):
    from dppca.privacy.accounting import Accountant

    X = spiked_rows(100, 5, 0.5, np.random.default_rng(5))
    acct = Accountant(10.0, 1e-3)
    with pytest.raises(ValueError):
        PrivatePCA(
            1,
            epsilon=EPS,
            delta=DELTA,
            mechanism="coinpress",
            data_norm=1.0,
            random_state=0,
            accountant=acct,
            mechanism_options=options,
        ).fit(X)
    assert acct.spent == (0.0, 0.0)


def _median_error(n, scale, seeds=5, **options):
    errors = []
    for s in range(seeds):
        X = spiked_rows(n, 5, scale, np.random.default_rng([n, s]))
        V = cp.coinpress_subspace(
            X, 1, epsilon=EPS, delta=DELTA, rng=s, **options
        )
        errors.append(sin_theta(np.asarray(V), np.eye(5)[:, :1]))
    return float(np.median(errors))


def test_accuracy_improves_with_n_on_spiked_data():
    small, large = _median_error(2000, 0.1), _median_error(32000, 0.1)
    assert large < 0.5 * small, (small, large)
    assert large < 0.1


def test_beats_analyze_gauss_when_the_scale_is_loose():
    """Rows a hundred times shorter than their bound: Analyze Gauss's noise
    buries the spike, CoinPress's whitening does not."""
    from dppca.mechanisms.input_perturbation import analyze_gauss

    n, d = 32000, 5
    ours, theirs = [], []
    for s in range(3):
        X = spiked_rows(n, d, 0.01, np.random.default_rng([9, s]))
        V = cp.coinpress_subspace(
            X, 1, epsilon=EPS, delta=DELTA, rng=s, n_iterations=6
        )
        ours.append(sin_theta(np.asarray(V), np.eye(d)[:, :1]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            A = np.asarray(analyze_gauss(X, epsilon=EPS, delta=DELTA, rng=s))
        W = np.linalg.eigh(A)[1][:, -1:]
        theirs.append(sin_theta(W, np.eye(d)[:, :1]))
    assert np.median(ours) < 0.2 < np.median(theirs), (ours, theirs)
