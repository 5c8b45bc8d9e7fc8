"""``dppca.forecast_prediction.release_total_variation``: the Pinsker bound
on the total variation distance between two laws of the Gaussian matrix
release. It must lie above the exact distance of the continuous laws (a
closed form for two Gaussians with one covariance), be close to it for
small changes, hold against a Monte Carlo likelihood-ratio test on drawn
noise, and agree with the σ a fitted PrivatePCA used."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import norm

from dppca import PrivatePCA
from dppca import forecast_prediction as fp
from dppca.mechanisms import gaussian_approx as mv


def _exact(change, sigma):
    """TV of N(A, Σ) and N(A + change, Σ) for the noise G + Gᵀ: 2Φ(Δ/2) − 1,
    Δ the Mahalanobis distance ‖change‖_F / (2σ)."""
    distance = np.linalg.norm(change) / (2 * sigma)
    return 2 * norm.cdf(distance / 2) - 1


@pytest.mark.parametrize("scale", [0.01, 0.1, 0.5, 2.0])
def test_bound_lies_above_the_exact_distance(scale):
    rng = np.random.default_rng(0)
    d, n, eps, delta = 6, 500, 1.0, 1e-6
    sigma = mv.noise_sigma(eps, delta, "replace_one", n)
    G = rng.normal(size=(d, d))
    change = scale * sigma * (G + G.T)
    bound = fp.release_total_variation(change, eps, delta, n, noise="float")
    exact = _exact(change, sigma)
    assert exact <= bound <= 1.0
    if bound < 0.2:  # Pinsker is tight for small changes: √(π/2)·TV
        assert bound <= 1.26 * exact


def test_bound_holds_against_a_likelihood_ratio_test():
    rng = np.random.default_rng(1)
    d, n, eps, delta = 4, 200, 1.0, 1e-6
    sigma = mv.noise_sigma(eps, delta, "replace_one", n)
    change = np.diag([3.0, 0, 0, 0]) * sigma
    bound = fp.release_total_variation(change, eps, delta, n, noise="float")
    draws = 20000
    scores = []
    for shift in (np.zeros((d, d)), change):
        noise = np.stack([mv.goe_noise(d, sigma, rng) for _ in range(draws)])
        released = shift + noise
        # the optimal test between the two laws thresholds ⟨M, change⟩
        scores.append(np.einsum("kij,ij->k", released, change))
    cut = np.sum(change * change) / 2
    advantage = np.mean(scores[1] > cut) - np.mean(scores[0] > cut)
    assert advantage <= bound + 4 * math.sqrt(0.5 / draws)
    assert advantage >= 0.5 * _exact(change, sigma)  # the test is not blind


def test_releases_add_up_and_the_grid_counts():
    change = np.eye(5) * 1e-4
    one = fp.release_total_variation(change, 1.0, 1e-6, 1000)
    nine = fp.release_total_variation(change, 1.0, 1e-6, 1000, releases=9)
    assert nine == pytest.approx(min(1.0, 3 * one))
    safe = fp.release_total_variation(np.zeros((5, 5)), 1.0, 1e-6, 1000)
    assert 0 < safe < 1e-3  # the rounding to the grid alone
    flat = fp.release_total_variation(np.zeros((5, 5)), 1.0, 1e-6, 1000,
                                      noise="float")  # fmt: skip
    assert flat == 0.0


def test_sigma_is_the_one_the_fit_used():
    rng = np.random.default_rng(2)
    X = rng.uniform(0, 1, size=(400, 8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PrivatePCA(
            3, epsilon=0.7, delta=1e-6, feature_range=(0.0, 1.0),
            center="midpoint", random_state=0,
        ).fit(X)  # fmt: skip
    assert est.mechanism_ == "gaussian_approx"
    s, _ = fp.fit_noise(est, 400)
    sigma, _ = mv.safe_noise_sigma(0.7, 1e-6, 8, "replace_one", 400)
    assert s == pytest.approx(math.sqrt(2) * sigma, rel=1e-12)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(change=np.ones((2, 3))),
        dict(change=np.full((2, 2), np.nan)),
        dict(change=np.eye(2), releases=0),
        dict(change=np.eye(2), releases=True),
        dict(change=np.eye(2), noise="loud"),
    ],
)
def test_bad_input_is_refused(kwargs):
    kwargs = {"epsilon": 1.0, "delta": 1e-6, "n": 100, **kwargs}
    change = kwargs.pop("change")
    with pytest.raises(ValueError):
        fp.release_total_variation(change, **kwargs)
