"""Faults found by the no-context red team of the drawability check (round
11): fits that charged the accountant and then failed, one of them on a
condition that depended on a row and quoted the data in its message."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca.mechanisms.streaming_step import (
    mean_noise_scale,
    mean_noise_units_bound,
)
from dppca.privacy import noise
from dppca.privacy.accounting import Accountant


def fit(X, **params):
    """(outcome, message, spent) of a fit with a roomy accountant."""
    ledger = Accountant(epsilon=1e16, delta=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            PrivatePCA(
                1,
                data_norm=1.0,
                center=False,
                accountant=ledger,
                random_state=0,
                **params,
            ).fit(X)
        except ValueError as error:
            return "raised", str(error), ledger.spent
    return "returned", "", ledger.spent


@pytest.mark.parametrize(
    "params",
    [
        # CoinPress: its steps share ρ and round √(d(d+1)/2) cells
        dict(mechanism="coinpress", epsilon=1e-12, delta=4.6e-8),
        dict(
            mechanism="coinpress",
            epsilon=1.0,
            delta=1e-6,
            mechanism_options={"shares": (1e-20, 0.5), "n_iterations": 2},
        ),
        # streaming: a step's mean gets ρ_m of a range share near one
        dict(
            mechanism="streaming",
            epsilon=1e-8,
            delta=2.511886431509582e-08,
            mechanism_options={"eigengap": 0.1},
        ),
        dict(
            mechanism="streaming",
            epsilon=1.0,
            delta=1e-6,
            mechanism_options={"eigengap": 0.1, "range_share": 1 - 1e-15},
        ),
    ],
)
def test_noise_beyond_the_sampler_is_refused_before_the_charge(params):
    """Charged, then the sampler raised "σ ≈ 99781856" (CoinPress) or
    "σ ≈ 98902063" (streaming, d = 6): now refused while planning."""
    X = np.eye(6)[np.arange(600) % 6]
    outcome, message, spent = fit(
        X, allow_unproved=params["mechanism"], **params
    )
    assert outcome == "raised" and "too small for safe noise" in message
    assert spent == (0.0, 0.0)


@pytest.mark.parametrize(
    "mechanism, budget, granularity",
    [
        ("laplace", dict(epsilon=1000.0), 2.0**-56),
        ("analyze_gauss", dict(epsilon=1e11, delta=1e-6), 2.0**-53),
        ("gaussian_approx", dict(epsilon=1e15, delta=1e-6), 2.0**-56),
    ],
)
def test_a_grid_too_fine_for_the_moment_is_refused_for_every_data_set(
    mechanism, budget, granularity
):
    """With a caller's grid finer than 2**-52, rounding A refused the data
    set whose A₀₀ was 0.063 and not its neighbour's 0.062 (or 0.501 against
    0.5), after the charge, and the message quoted that entry. Now both are
    refused before the charge, with the same message, which quotes no data."""
    n = 1000
    X = np.zeros((n, 2))
    X[:62, 0] = 1.0
    X[62:, 1] = 1.0
    Y = X.copy()
    Y[62] = [1.0, 0.0]  # one row replaced
    params = dict(
        mechanism=mechanism,
        allow_unproved=mechanism,
        mechanism_options={"granularity": granularity},
        **budget,
    )
    one, two = fit(X, **params), fit(Y, **params)
    assert one == two
    assert one[0] == "raised" and "finer than 2**-52" in one[1]
    assert one[2] == (0.0, 0.0)
    assert "0.06" not in one[1] and "0.5" not in one[1]


def test_rounding_never_quotes_the_values():
    with pytest.raises(ValueError) as error:
        noise.round_to_grid(np.array([0.123456]), 2.0**-60)
    assert "0.123" not in str(error.value)


def test_a_laplace_scale_beyond_the_sampler_is_refused_before_the_charge():
    """granularity 2**-50 at ε = 1: 4.5×10¹² grid units of Laplace noise,
    beyond the sampler's 2**40; was charged, then refused."""
    X = np.eye(2)[np.arange(200) % 2]
    outcome, message, spent = fit(
        X,
        mechanism="laplace",
        epsilon=1.0,
        mechanism_options={"granularity": 2.0**-50},
    )
    assert outcome == "raised" and "outside the exact sampler" in message
    assert spent == (0.0, 0.0)


@pytest.mark.parametrize("rho", [1e-20, 1e-12, 1e-6, 1.0])
@pytest.mark.parametrize("d", [1, 6, 60])
def test_the_streaming_bound_covers_every_radius_and_batch(rho, d):
    """mean_noise_units_bound is above σ/γ of every step (any radius, any
    batch size), and within a factor 2 of the worst one found."""
    bound = mean_noise_units_bound(d, rho)
    rng = np.random.default_rng(0)
    worst = 0.0
    for _ in range(300):
        radius = float(np.exp(rng.uniform(-20.0, 5.0)))
        batch = int(rng.integers(1, 5000))
        sigma, grid = mean_noise_scale(radius, batch, d, rho)
        worst = max(worst, sigma / grid)
    assert worst < bound
    if math.isfinite(bound):
        assert bound < 2.0 * worst


def test_a_tiny_epsilon_gives_a_positive_rho_not_a_division_by_zero():
    """ε = 1e-14 with δ = 1e-30: ρ = (√(ε + a) − √a)² was 0 in float64 and the
    noisy power method's plan raised ZeroDivisionError. The value is checked
    against the same formula evaluated in 60-digit decimal arithmetic (not
    the rewritten form the package uses)."""
    from decimal import Decimal, getcontext

    from dppca.privacy.zcdp import zcdp_rho_for

    getcontext().prec = 60
    for eps, delta in [(1e-14, 1e-30), (1.0, 1e-5), (1e-8, 1e-300)]:
        a = Decimal(math.log(1.0 / delta))
        exact = ((Decimal(eps) + a).sqrt() - a.sqrt()) ** 2
        rho = zcdp_rho_for(eps, delta)
        assert rho > 0
        assert math.isclose(rho, float(exact), rel_tol=1e-12), (eps, delta)


@pytest.mark.parametrize(
    "norm_range", [(1e-300, 1.0), (1e-10, 1e300), (2.0**-1000, 2.0**-990)]
)
def test_a_norm_range_outside_the_verified_bounds_is_refused_before_the_charge(
    norm_range,
):
    """Round 12: streaming with norm_range (1e-300, 1) released a radius of
    1.1e-250 on all-zero rows, which the clipped sums refuse: charged, then
    raised, on those rows and not on rows of norm one. Now every data set is
    refused while planning."""
    rng = np.random.default_rng(0)
    V = rng.normal(size=(400, 3))
    V /= np.linalg.norm(V, axis=1, keepdims=True)
    params = dict(
        mechanism="streaming",
        allow_unproved="streaming",
        epsilon=1.0,
        delta=1e-6,
        mechanism_options={"eigengap": 0.5, "norm_range": norm_range},
    )
    outcomes = [fit(X, **params) for X in (V, np.zeros((400, 3)))]
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] == "raised" and "norm_range" in outcomes[0][1]
    assert outcomes[0][2] == (0.0, 0.0)
