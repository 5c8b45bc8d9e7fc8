"""The privacy claims of dppca.scaler.PrivateStandardScaler (issue 30): the
replace-one sensitivities its calibration uses hold on every neighbouring
pair and are attained on the extremal ones; the noise it draws has the
calibrated scale; every outcome of a fit is a release or a refusal from
public parameters alone."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy import special

from dppca import PrivateStandardScaler
from dppca.privacy import calibration
from dppca.privacy.accounting import Accountant
from dppca.privacy.guarantees import REPLACE_ONE, UnprovedGuaranteeWarning
from dppca.scaler import SENSITIVITY, clipped_sums, scaler_plan

LOWER = np.array([-1.0, 0.0, 10.0, -1e-3])
UPPER = np.array([2.0, 5.0, 11.0, 3e-3])
D = LOWER.size
WIDTH, MID = UPPER - LOWER, LOWER / 2 + UPPER / 2


def _plan(n=100, **params):
    est = PrivateStandardScaler(bounds=(LOWER, UPPER), **params)
    return {s.statistic: s for s in scaler_plan(est, n, D)}


def _change(X, Y):
    a, b = clipped_sums(X, LOWER, UPPER), clipped_sums(Y, LOWER, UPPER)
    return {key: np.abs(a[key] - b[key]) for key in a}


@pytest.mark.parametrize("delta", [None, 1e-6])
def test_calibration_uses_the_derived_sensitivities(delta):
    plan = _plan(delta=delta)
    for key, s in SENSITIVITY.items():
        assert plan[key].l1 == s * D and plan[key].l2 == s * math.sqrt(D)
    assert SENSITIVITY == {"mean": 1.0, "variance": 0.25}


def test_random_neighbours_never_exceed_the_sensitivity():
    """2000 random pairs: rows inside the bounds, outside (clipped) and at
    extreme finite values; one row replaced by any other."""
    rng = np.random.default_rng(30)
    plan = _plan()
    worst = {"mean": 0.0, "variance": 0.0}
    for trial in range(2000):
        n = int(rng.integers(1, 40))
        spread = 3.0 if trial % 2 else 1.0  # half the rows may lie outside
        X = MID + WIDTH * rng.uniform(-spread / 2, spread / 2, size=(n, D))
        if trial % 7 == 0:
            X[rng.integers(n)] = rng.choice([-1e308, 1e308, 0.0], size=D)
        Y = X.copy()
        Y[rng.integers(n)] = MID + WIDTH * rng.uniform(-1, 1, size=D)
        for key, delta in _change(X, Y).items():
            assert delta.max() <= SENSITIVITY[key]
            assert delta.sum() <= plan[key].l1
            assert np.linalg.norm(delta) <= plan[key].l2 * (1 + 1e-15)
            worst[key] = max(worst[key], delta.max())
    # random pairs come close to the bound without being extremal
    assert worst["mean"] > 0.9 and worst["variance"] > 0.2


@pytest.mark.parametrize("n", [1, 2, 17, 1000])
def test_extremal_neighbours_attain_the_sensitivity(n):
    """A row moved from every lower to every upper bound changes each S_j
    by exactly 1 (ℓ₁ = d, ℓ₂ = √d); from the midpoints to a corner, each
    Q_j by exactly 1/4. Both in exact arithmetic: equality, not ≈."""
    plan = _plan(n)
    rest = MID + WIDTH * np.random.default_rng(n).uniform(-0.5, 0.5, (n, D))
    for moved, key in [((LOWER, UPPER), "mean"), ((MID, UPPER), "variance")]:
        X, Y = rest.copy(), rest.copy()
        X[0], Y[0] = moved
        delta = _change(X, Y)[key]
        assert np.all(delta == SENSITIVITY[key])
        assert delta.sum() == plan[key].l1
        assert math.isclose(np.linalg.norm(delta), plan[key].l2)
    # lower -> upper leaves Q unchanged: Q needs its own extremal pair
    X, Y = rest.copy(), rest.copy()
    X[0], Y[0] = LOWER, UPPER
    assert np.all(_change(X, Y)["variance"] == 0)


def test_safe_laplace_scale_has_its_closed_form():
    """b = γ·⌈(Δ₁/γ + d)/ε⌉ (the rounding adds one cell per coordinate), γ
    the largest power of two ≤ Δ₁/(1024 d); float: b = Δ₁/ε exactly."""
    epsilon, share = 0.8, 0.25
    safe = _plan(epsilon=epsilon, mean_share=share)
    flt = _plan(epsilon=epsilon, mean_share=share, noise="float")
    for key, part in [("mean", share), ("variance", 1 - share)]:
        eps = part * epsilon if key == "mean" else epsilon - share * epsilon
        l1 = SENSITIVITY[key] * D
        assert flt[key].scale == l1 / eps and flt[key].grid is None
        grid = 2.0 ** math.floor(math.log2(l1 / (1024 * D)))
        cells = Fraction(l1 / grid + D) / Fraction(eps)
        cells *= 1 + Fraction(2.0**-40)
        assert safe[key].grid == grid
        assert safe[key].scale == grid * math.ceil(cells)
        assert safe[key].scale >= l1 / eps  # never less noise than float
        assert safe[key].record.kind == "pure"
        assert safe[key].record.epsilon == eps


def _gaussian_delta(sigma, sens, eps):
    """Balle and Wang (2018), Theorem 8, written out here."""
    a, b = sens / (2 * sigma), eps * sigma / sens
    return special.ndtr(a - b) - math.exp(eps) * special.ndtr(-a - b)


def test_gaussian_sigma_meets_the_analytic_delta():
    epsilon, delta = 1.0, 1e-6
    flt = _plan(epsilon=epsilon, delta=delta, noise="float")
    safe = _plan(epsilon=epsilon, delta=delta)
    for key, step in flt.items():
        assert step.record.kind == "gaussian" and step.record.delta == 5e-7
        got = _gaussian_delta(step.scale, step.l2, 0.5)
        assert 0.99 * 5e-7 <= got <= 5e-7 * (1 + 1e-6)
        assert step.record.noise_multiplier == step.scale / step.l2
        rho = calibration.zcdp_rho(0.5, 5e-7)
        wanted = (step.l2 / safe[key].grid + math.sqrt(D)) / math.sqrt(2 * rho)
        assert safe[key].scale >= max(step.scale, wanted * safe[key].grid)
        assert safe[key].record.kind == "zcdp"


@pytest.mark.parametrize("delta", [None, 1e-6])
def test_empirical_noise_spread_matches_the_calibration(delta):
    """1500 fits with noise="float" from one seeded Generator, on rows whose
    clamps never bind. The standard deviation of an estimate from N
    samples has relative standard error √((κ − 1)/(4N)), κ the kurtosis (6
    for Laplace, 3 for Gaussian): with N = 6000 that is 1.6% and 0.9%; the
    tolerance is 5 of those standard errors."""
    rng = np.random.default_rng(3)
    half = rng.uniform(-0.4, 0.4, size=(250, D))
    X = MID + WIDTH * np.vstack([half, -half])
    n = X.shape[0]
    truth = clipped_sums(X, LOWER, UPPER)
    m = truth["mean"] / n
    v = truth["variance"] / n - m**2
    plan = _plan(n, delta=delta, noise="float")
    seeds = np.random.default_rng(12345)
    errors = {"mean": [], "variance": []}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
        for _ in range(1500):
            est = PrivateStandardScaler(
                bounds=(LOWER, UPPER),
                delta=delta,
                noise="float",
                random_state=seeds,
            ).fit(X)
            errors["mean"].append(((est.mean_ - MID) / WIDTH - m) * n)
            errors["variance"].append((est.var_ / WIDTH**2 - v) * n)
    laplace = delta is None
    se = math.sqrt(((6 if laplace else 3) - 1) / (4 * 6000))
    for key, step in plan.items():
        sd = step.scale * (math.sqrt(2) if laplace else 1)
        spread = np.std(np.ravel(errors[key]))
        assert abs(spread / sd - 1) < 5 * se, (key, spread, sd)
        # centred: the mean of the errors is within 5 standard errors
        centre = np.mean(np.ravel(errors[key]))
        assert abs(centre) < 5 * sd / math.sqrt(6000) + (key == "variance")


def test_records_say_what_the_fit_guarantees():
    X = np.tile(MID, (50, 1))
    est = PrivateStandardScaler(bounds=(LOWER, UPPER), epsilon=2.0)
    est.fit(X)
    mean, var = est.privacy_releases_
    assert (mean.epsilon, var.epsilon) == (1.0, 1.0)
    assert est.privacy_spent_ == (2.0, 0.0)
    for record in (mean, var):
        assert record.neighbours == REPLACE_ONE
        assert record.noise == "safe" and record.proved
        assert "[a_j, b_j]" in record.row_bound
    est = PrivateStandardScaler(
        bounds=(LOWER, UPPER), epsilon=2.0, delta=1e-6, noise="float"
    )
    with pytest.warns(UnprovedGuaranteeWarning):
        est.fit(X)
    assert not any(r.proved for r in est.privacy_releases_)
    assert est.privacy_spent_ == (2.0, 1e-6)
    est = PrivateStandardScaler(bounds=(LOWER, UPPER), epsilon=2.0)
    est.set_params(with_std=False).fit(X)
    assert [r.epsilon for r in est.privacy_releases_] == [2.0]
    assert est.var_ is None and est.scale_ is None


def _outcome(X, **params):
    """What a caller sees of one fit: exception or released attributes
    (which are set), the ledger's charges and the caller's generator."""
    ledger = Accountant(10.0, 1e-3)
    rng = np.random.default_rng(0)
    est = PrivateStandardScaler(
        bounds=(LOWER, UPPER), accountant=ledger, random_state=rng, **params
    )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X)
        result = ("released", sorted(k for k in vars(est) if k.endswith("_")))
    except Exception as error:  # noqa: BLE001
        result = (type(error).__name__, str(error))
    return result, ledger.charges, rng.bit_generator.state["state"]


@pytest.mark.parametrize(
    "params", [{}, {"delta": 1e-6}, {"with_mean": False}, {"clip": False}]
)
def test_neighbours_release_alike_or_refuse_alike(params):
    """Neighbours at extreme finite values, inside and outside the ranges:
    the same outcome, the same charges, the generator advanced alike."""
    rng = np.random.default_rng(1)
    for value in (0.0, 1e308, -1e308, 5e-324, 1e-300, 123.456):
        X = MID + WIDTH * rng.uniform(-0.5, 0.5, size=(20, D))
        Y = X.copy()
        Y[3] = value
        a, b = _outcome(X, **params), _outcome(Y, **params)
        assert a == b
        if params.get("clip") is False:
            assert a[0][0] == "ValueError" and a[1] == ()
            assert "123.456" not in a[0][1]
