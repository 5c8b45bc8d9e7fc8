"""What every release reports to the accountant, against what a constructed
neighbouring pair forces.

For every additive release path (Analyze Gauss, MOD-SULQ, Laplace input
perturbation, Mangoubi–Vishnoi, the noisy power method, the private mean), with
safe noise on the default grid and on caller-chosen grids, and with float
noise: build two neighbouring data sets whose second moments sit just below a
rounding boundary of the grid, so that the rounding adds a full cell to every
entry's shift; compute the exact ε at δ of the noise law the sampler draws on
that pair; and check that both the record's calibrated ε and
``dppca.privacy.accounting.compose`` report at least that much. They may report more
(every pair is only one pair, and the Rényi conversion is loose), never less.
"""

from __future__ import annotations

import math
import warnings

import exact_privacy as exact
import numpy as np
import pytest

import dppca
from dppca import privacy
from dppca.mechanisms import gaussian_approx, power_method
from dppca.mechanisms import input_perturbation as ip
from dppca.mechanisms import input_perturbation_guarantees as ip_guarantees
from dppca.privacy import accounting, audit
from dppca.privacy.guarantees import UnprovedGuaranteeWarning

DELTA = 1e-5


def boundary_shifts(n, d, grid, entries=None):
    """The rounded shifts (in grid cells) of both boundary pairs: second
    moments just below, and just above, a half-cell boundary. ``entries``
    picks the coordinates the noise is added to (default: upper triangle)."""
    pick = exact.upper if entries is None else entries
    for below in (True, False):
        X, X_prime = audit.grid_boundary_pair(n, d, grid, below)
        yield exact.grid_shift(
            pick(dppca.linalg.second_moment(X)),
            pick(dppca.linalg.second_moment(X_prime)),
            grid,
        )


def orthogonal_pair(n, d, seed=0):
    """Replace-one pair with orthogonal unit rows: ‖A − A'‖_F = √2/n."""
    rng = np.random.default_rng(seed)
    shared = (
        dppca.validation.normalize_rows(rng.standard_normal((n - 1, d))) * 0.5
    )
    e = np.eye(d)
    return np.vstack([shared, e[0]]), np.vstack([shared, e[1]])


# -- safe Gaussian input perturbation on the upper triangle -------------------

INPUT_CASES = [
    ("analyze_gauss", "analytic"),
    ("analyze_gauss", "classical"),
    ("mod_sulq", None),
]


@pytest.mark.parametrize("name, calibration", INPUT_CASES)
@pytest.mark.parametrize("granularity", [None, 2.0**-4, 2.0**-9, 2.0**-14])
def test_safe_gaussian_input_reports_at_least_the_exact_epsilon(
    name, calibration, granularity
):
    n, d, eps = 1000, 3, 0.5
    if name == "mod_sulq":
        sigma_float = privacy.mod_sulq_beta(d, n, eps, DELTA)
        record = ip_guarantees.mod_sulq_guarantee(
            n, d, eps, DELTA, noise="safe", granularity=granularity
        )
    else:
        sigma_float = privacy.analyze_gauss_sigma(n, eps, DELTA, calibration)
        record = ip_guarantees.analyze_gauss_guarantee(
            n,
            d,
            eps,
            DELTA,
            noise="safe",
            granularity=granularity,
            calibration=calibration,
        )
    sigma, grid = privacy.safe_gaussian_input_calibration(
        d, n, eps, DELTA, sigma_float, granularity
    )
    variance = exact.safe_gaussian_variance(sigma, grid)
    worst = max(
        exact.discrete_gaussian_epsilon(s, variance, DELTA)
        for s in boundary_shifts(n, d, grid)
    )
    assert record.kind == "zcdp" and record.proved
    exact.assert_reports_at_least(record, worst, DELTA)


def test_custom_grid_regression_reports_the_grid_it_used():
    """Issue 18, case 2: MOD-SULQ, d = 3, n = 1000, grid 2**-4. The record
    used to recompute ρ with the default grid (ε = 0.246 at δ = 1e-5) where
    this pair forces ε ≈ 0.86."""
    n, d, grid = 1000, 3, 2.0**-4
    X, X_prime = audit.grid_boundary_pair(n, d, grid)
    A = dppca.linalg.second_moment(X)
    shift = exact.grid_shift(
        exact.upper(A), exact.upper(dppca.linalg.second_moment(X_prime)), grid
    )
    assert np.array_equal(np.abs(shift), np.ones(6, dtype=int))
    beta = privacy.mod_sulq_beta(d, n, 1.0, DELTA)
    sigma, _ = privacy.safe_gaussian_input_calibration(
        d, n, 1.0, DELTA, beta, grid
    )
    forced = exact.discrete_gaussian_epsilon(
        shift, exact.safe_gaussian_variance(sigma, grid), DELTA
    )
    assert forced > 0.5  # the pair is a strong one
    released = ip.mod_sulq_from_second_moment(
        A, n, epsilon=1.0, delta=DELTA, rng=0, granularity=grid
    )
    exact.assert_reports_at_least(released.guarantee, forced, DELTA)
    estimator = dppca.PrivatePCA(
        1,
        epsilon=1.0,
        delta=DELTA,
        mechanism="mod_sulq",
        data_norm=1.0,
        center=False,
        mechanism_options={"granularity": grid},
        random_state=0,
    ).fit(X)
    eps_estimator, _ = accounting.compose([estimator], DELTA)
    assert eps_estimator >= forced


@pytest.mark.parametrize("granularity", [None, 2.0**-4, 2.0**-10])
def test_safe_laplace_input_is_pure_at_its_epsilon(granularity):
    n, d, eps = 1000, 3, 0.5
    record = ip_guarantees.laplace_input_guarantee(
        n, d, eps, noise="safe", granularity=granularity
    )
    scale, grid = privacy.safe_laplace_input_calibration(d, n, eps, granularity)
    t = exact.safe_laplace_parameter(scale, grid)
    worst = max(float(np.abs(s).sum()) / t for s in boundary_shifts(n, d, grid))
    assert record.kind == "pure" and record.proved
    exact.assert_reports_at_least(record, worst, DELTA)


@pytest.mark.parametrize("granularity", [None, 2.0**-4, 2.0**-10])
def test_safe_mangoubi_vishnoi_reports_at_least_the_exact_epsilon(
    granularity,
):
    """G + Gᵀ: variance 4(σ/γ)² on the diagonal, 2(σ/γ)² off it."""
    n, d, eps = 1000, 3, 0.5
    record = gaussian_approx.gaussian_approx_guarantee(
        eps, DELTA, d, "replace_one", n, noise="safe", granularity=granularity
    )
    sigma, grid = gaussian_approx.safe_noise_sigma(
        eps, DELTA, d, "replace_one", n, granularity
    )
    base = (sigma / grid) ** 2
    ratios = np.where(np.eye(d, dtype=bool)[np.triu_indices(d)], 4, 2)
    worst = max(
        exact.discrete_gaussian_epsilon(s, base, DELTA, ratios=ratios)
        for s in boundary_shifts(n, d, grid)
    )
    exact.assert_reports_at_least(record, worst, DELTA)


def test_safe_power_method_step_reports_at_least_the_exact_epsilon():
    """Block size p = d starts at V = I, so one step releases round(A) + Z on
    all d² entries."""
    n, d, eps = 1000, 3, 0.5
    record = power_method.noisy_power_method_guarantee(
        n, d, d, eps, DELTA, n_iterations=1, block_size=d, noise="safe"
    )
    sigma, grid = power_method.safe_noisy_power_calibration(
        n, d, d, eps, DELTA, 1
    )
    variance = exact.safe_gaussian_variance(sigma, grid)
    worst = max(
        exact.discrete_gaussian_epsilon(s, variance, DELTA)
        for s in boundary_shifts(n, d, grid, entries=np.ravel)
    )
    exact.assert_reports_at_least(record, worst, DELTA)


# -- float noise: exact analytic Gaussian on the orthogonal pair ---------------


def test_float_gaussian_paths_report_at_least_the_exact_epsilon():
    n, d, eps = 1000, 3, 0.5
    X, X_prime = orthogonal_pair(n, d)
    D = dppca.linalg.second_moment(X) - dppca.linalg.second_moment(X_prime)
    upper_norm = float(np.linalg.norm(exact.upper(D)))
    assert upper_norm == pytest.approx(math.sqrt(2) / n)
    cases = [
        (
            ip_guarantees.analyze_gauss_guarantee(
                n, d, eps, DELTA, noise="float"
            ),
            privacy.analyze_gauss_sigma(n, eps, DELTA),
            upper_norm,
        ),
        (
            ip_guarantees.mod_sulq_guarantee(n, d, eps, DELTA, noise="float"),
            privacy.mod_sulq_beta(d, n, eps, DELTA),
            upper_norm,
        ),
    ]
    sigma_mv = gaussian_approx.noise_sigma(eps, DELTA, "replace_one", n)
    cases.append(
        (
            gaussian_approx.gaussian_approx_guarantee(
                eps, DELTA, d, "replace_one", n, noise="float"
            ),
            1.0,
            gaussian_approx.mahalanobis_distance(D, sigma_mv),
        )
    )
    sigma_pm = power_method.noisy_power_sigma(n, d, eps, DELTA, 1)
    cases.append(
        (
            power_method.noisy_power_method_guarantee(
                n, d, d, eps, DELTA, n_iterations=1, block_size=d, noise="float"
            ),
            sigma_pm,
            float(np.linalg.norm(D)),
        )
    )
    for record, sigma, distance in cases:
        assert not record.proved and record.noise == "float"
        forced = privacy.gaussian_mechanism_epsilon(sigma, distance, DELTA)
        exact.assert_reports_at_least(record, forced, DELTA)


# -- the private mean of PrivatePCA ---------------------------------------------


@pytest.mark.parametrize("kind", ["safe", "float"])
@pytest.mark.parametrize("delta", [None, DELTA])
def test_private_mean_reports_at_least_the_exact_epsilon(kind, delta):
    """Rows R·e1 and −R·e1 move the mean by the full 2R/n."""
    n, d, R, eps, share = 200, 3, 2.0, 1.0, 0.3
    rng = np.random.default_rng(1)
    shared = (
        dppca.validation.normalize_rows(rng.standard_normal((n - 1, d))) * R / 2
    )
    e1 = np.eye(d)[0] * R
    X, X_prime = np.vstack([shared, e1]), np.vstack([shared, -e1])
    mechanism = "analyze_gauss" if delta else "laplace"
    estimator = dppca.PrivatePCA(
        1,
        epsilon=eps,
        delta=delta,
        mechanism=mechanism,
        data_norm=R,
        center=True,
        center_share=share,
        noise=kind,
        allow_unproved=mechanism if kind == "float" else None,
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
        record = estimator.fit(X).privacy_releases_[0]
    assert record.label.startswith("private mean")
    mean_eps = share * eps
    mean, mean_prime = X.mean(axis=0), X_prime.mean(axis=0)
    l2 = 2 * R / n
    if delta is None:
        l1 = l2 * math.sqrt(d)
        scale = l1 / mean_eps
        if kind == "safe":
            grid = privacy.safe_granularity(
                l1, d, scale, dppca.privacy.noise.MAX_LAPLACE_GRID_SCALE
            )
            scale = privacy.discrete_laplace_scale(l1, mean_eps, grid, d)
            t = exact.safe_laplace_parameter(scale, grid)
            shift = exact.grid_shift(mean, mean_prime, grid)
            forced = float(np.abs(shift).sum()) / t
        else:
            forced = float(np.abs(mean - mean_prime).sum()) / scale
    else:
        mean_delta = share * delta
        sigma = privacy.analytic_gaussian_sigma(l2, mean_eps, mean_delta)
        if kind == "safe":
            grid = privacy.safe_granularity(
                l2,
                math.sqrt(d),
                sigma,
                dppca.privacy.noise.MAX_GAUSSIAN_GRID_SIGMA,
            )
            sigma = max(
                sigma,
                privacy.discrete_gaussian_sigma(
                    l2, mean_eps, mean_delta, grid, math.sqrt(d)
                ),
            )
            shift = exact.grid_shift(mean, mean_prime, grid)
            forced = exact.discrete_gaussian_epsilon(
                shift, exact.safe_gaussian_variance(sigma, grid), mean_delta
            )
        else:
            forced = privacy.gaussian_mechanism_epsilon(
                sigma, float(np.linalg.norm(mean - mean_prime)), mean_delta
            )
    tolerance = exact.TOLERANCE * max(forced, 1.0)
    assert record.epsilon >= forced - tolerance
    if delta is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
            composed, _ = accounting.compose([record], share * delta)
        assert composed >= forced - tolerance
