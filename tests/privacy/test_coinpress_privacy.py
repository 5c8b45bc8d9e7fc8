"""Attacks on the privacy claim of dppca.mechanisms.coinpress.

Each step of a run releases the second moment of the rows whitened by a
public matrix ``T_j`` and clipped to a public radius ``r_j``, with Gaussian
noise on the upper triangle. The claim: that moment has replace-one ℓ₂
sensitivity ``√2/n`` (module docstring), the noise of step ``j`` is
calibrated to it at ``ρ_j``, and the run is ``Σ_j ρ_j``-zCDP, the record's
ρ. These tests build the worst neighbouring pairs at every step of real
runs (the replaced row and its replacement clipped, along two whitened coordinate
axes), measure the change, and compare it with the calibration; they
capture the noise each step draws; they check that what a caller sees
(a return or an error, its message) depends on public values only; and a
black-box audit (chapter 10's test) of the whole release on orthogonal
neighbours must certify no more than the record's ε, while the same audit
certifies more than 1 for the release calibrated to ε = 10 (its power).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca.linalg import clipped_sums
from dppca.mechanisms import coinpress as cp
from dppca.privacy import audit
from dppca.privacy.calibration import upper_triangle
from dppca.privacy.zcdp import gaussian_zcdp_rho, zcdp_rho

EPS, DELTA = 1.0, 1e-6


def rows(n, d, scale, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * (scale / math.sqrt(d))
    return X / np.maximum(1.0, np.linalg.norm(X, axis=1))[:, None]


def worst_pair(X, T, radius):
    """Neighbours of ``X`` (row 0 replaced) whose two versions of the row
    reach the clip radius after whitening along two coordinate axes: ``x =
    T⁻¹e₁/‖T⁻¹e₁‖`` and ``x′ = T⁻¹e₂/‖T⁻¹e₂‖`` (unit rows, so inside the
    domain). Then ``y = e₁``, ``y′ = e₂`` and the upper triangle of ``(y yᵀ −
    y′ y′ᵀ)/n`` has norm ``√2/n``: the bound is attained."""
    T_inv = np.linalg.inv(T)
    X0, X1 = X.copy(), X.copy()
    for Xi, axis in ((X0, 0), (X1, 1)):
        x = T_inv[:, axis] / np.linalg.norm(T_inv[:, axis])
        assert np.linalg.norm(T @ x) >= radius, "would not reach the radius"
        Xi[0] = x
    return X0, X1


def change(X0, X1, T, radius):
    """ℓ₂ norm of the change of the upper triangle the step perturbs."""
    M0 = cp.whitened_moment(X0, T, radius)
    M1 = cp.whitened_moment(X1, T, radius)
    return float(np.linalg.norm(upper_triangle(M1 - M0)))


@pytest.mark.parametrize("noise", ["safe", "float"])
def test_every_step_is_calibrated_for_its_worst_pair(noise):
    n, d = 20000, 4  # enough rows for every T_j to exceed the radius
    X = rows(n, d, 0.05, 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, run = cp.coinpress_covariance(
            X,
            epsilon=EPS,
            delta=DELTA,
            rng=1,
            noise=noise,
            n_iterations=4,
            return_run=True,
        )
    cal = cp.coinpress_calibration(
        n, d, EPS, DELTA, n_iterations=4, noise=noise
    )
    target = zcdp_rho(EPS, DELTA)
    for j, (T, r, step) in enumerate(zip(run.whitenings, run.radii, cal.steps)):
        X0, X1 = worst_pair(X, T, r)
        measured = change(X0, X1, T, r)
        # the pair is extremal: it reaches the proved bound √2/n, times s²
        # for the float64 shrink s of the clipped rows (clipped_sums) ...
        s = clipped_sums.clipped_second_moment(X0 @ T.T, r).shrink
        assert measured >= math.sqrt(2) / n * s * s * (1 - 1e-9), (j, measured)
        # ... and never exceeds the calibrated sensitivity
        assert measured <= step.sensitivity, (j, measured)
        # the noise is at or above the Gaussian calibration of that change
        share = cal.shares[j] * target
        assert step.sigma >= measured / math.sqrt(2 * share) * (1 - 1e-12)
        assert gaussian_zcdp_rho(measured, step.sigma) <= share * (1 + 1e-12)


def test_random_pairs_stay_below_the_sensitivity():
    n, d = 200, 5
    X = rows(n, d, 0.2, 3)
    rng = np.random.default_rng(4)
    for _ in range(200):
        T = rng.standard_normal((d, d)) * rng.uniform(0.1, 30)
        r = cp.clip_radius(T, d, 0.1, 1.0)
        X1 = X.copy()
        v = rng.standard_normal(d)
        X1[rng.integers(n)] = v / max(1.0, np.linalg.norm(v)) * rng.uniform()
        assert change(X, X1, T, r) <= math.sqrt(2) / n


def test_each_step_draws_the_calibrated_noise(monkeypatch):
    """The noise each step adds is drawn with the calibrated σ and grid, on
    the whitened moment of that step (captured)."""
    calls = []
    original = cp.perturb_symmetric

    def capture(M, sigma, **kw):
        calls.append((np.array(M), sigma, kw["granularity"]))
        return original(M, sigma, **kw)

    monkeypatch.setattr(cp, "perturb_symmetric", capture)
    n, d = 300, 3
    X = rows(n, d, 0.1, 5)
    _, run = cp.coinpress_covariance(
        X, epsilon=EPS, delta=DELTA, rng=2, n_iterations=3, return_run=True
    )
    cal = cp.coinpress_calibration(n, d, EPS, DELTA, n_iterations=3)
    assert len(calls) == 3
    for (M, sigma, grid), T, r, step in zip(
        calls, run.whitenings, run.radii, cal.steps
    ):
        assert sigma == step.sigma and grid == step.granularity
        assert np.array_equal(M, cp.whitened_moment(X, T, r))


@pytest.mark.parametrize("t", [1, 2, 3, 6])
def test_composition_equals_the_record(t):
    n, d = 500, 4
    cal = cp.coinpress_calibration(n, d, EPS, DELTA, n_iterations=t)
    record = cp.coinpress_guarantee(n, d, EPS, DELTA, n_iterations=t)
    record_rho = 1.0 / (2.0 * record.noise_multiplier**2)
    summed = sum(s.rho for s in cal.steps)
    assert math.isclose(record_rho, summed, rel_tol=1e-12)
    assert summed <= zcdp_rho(EPS, DELTA)
    # each step is charged its share: nothing is left uncounted
    for share, step in zip(cal.shares, cal.steps):
        assert step.rho <= share * zcdp_rho(EPS, DELTA) * (1 + 1e-12)


EXTREME_ROWS = [
    np.zeros(4),
    np.array([1.0, 0.0, 0.0, 0.0]),
    np.full(4, 0.5),
    np.array([5e-324, -5e-324, 1e-300, 0.0]),
    np.array([0.0, 0.0, 0.0, -1.0]),
]


@pytest.mark.parametrize("row", range(len(EXTREME_ROWS)))
def test_outcome_depends_on_public_values_only(row):
    """Neighbours differing in one extreme row (inside the domain): both
    return a release of the same shape and record, with the same warnings;
    the functional entry point and the estimator alike."""
    n, d = 60, 4
    X = rows(n, d, 0.05, 6)
    X1 = X.copy()
    X1[0] = EXTREME_ROWS[row]
    outcomes = []
    for data in (X, X1):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cov = cp.coinpress_covariance(data, epsilon=EPS, delta=DELTA, rng=0)
            pca = PrivatePCA(
                1,
                epsilon=EPS,
                delta=DELTA,
                mechanism="coinpress",
                data_norm=1.0,
                random_state=0,
            ).fit(data)
        assert np.all(np.isfinite(cov)) and np.all(np.isfinite(pca.components_))
        outcomes.append(
            (
                cov.shape,
                cov.guarantee,
                pca.privacy_releases_,
                sorted(str(w.message) for w in caught),
            )
        )
    assert outcomes[0] == outcomes[1]


def test_errors_name_public_values_only():
    """The refusals come from public parameters; their message is the same
    for any two data sets."""
    messages = []
    for seed in (7, 8):
        X = rows(50, 3, 0.3, seed)
        with pytest.raises(ValueError) as error:
            cp.coinpress_covariance(
                X, epsilon=EPS, delta=DELTA, rng=0, beta=2.0
            )
        messages.append(str(error.value))
    assert messages[0] == messages[1]


@pytest.mark.parametrize(
    "options",
    [
        {"n_iterations": 0},
        {"n_iterations": 2, "shares": (0.7, 0.7)},
        {"beta": 2.0},
        {"cov_upper": math.inf},
        {"centre": np.zeros(4)},
    ],
)
def test_estimator_refusals_alike_on_neighbours(options):
    """A fit that refuses does so identically on neighbours whose replaced
    row is extreme (inside the domain): same exception type and message,
    and nothing charged to the accountant."""
    from dppca.privacy.accounting import Accountant

    X = rows(60, 4, 0.05, 9)
    X1 = X.copy()
    X1[0] = np.array([0.0, 0.0, 0.0, -1.0])
    outcomes = []
    for data in (X, X1):
        acct = Accountant(10.0, 1e-3)
        with pytest.raises(ValueError) as error:
            PrivatePCA(
                1,
                epsilon=EPS,
                delta=DELTA,
                mechanism="coinpress",
                data_norm=1.0,
                random_state=0,
                accountant=acct,
                mechanism_options=options,
            ).fit(data)
        outcomes.append((type(error.value), str(error.value), acct.spent))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][2] == (0.0, 0.0)


@pytest.mark.parametrize("center", [True, "public"])
def test_centred_releases_alike_on_neighbours(center):
    """The estimator's centred paths (a private centre, or a public one):
    neighbours differing in one row at the edge of the domain both release,
    with the same records, the same warnings and finite components."""
    n, d = 80, 4
    X = rows(n, d, 0.1, 10)
    X1 = X.copy()
    X1[5] = np.array([1.0, 0.0, 0.0, 0.0])
    outcomes = []
    for data in (X, X1):
        params = dict(
            epsilon=EPS,
            delta=DELTA,
            mechanism="coinpress",
            data_norm=1.0,
            random_state=0,
        )
        if center == "public":
            params["center"] = np.full(d, 0.1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            pca = PrivatePCA(1, **params).fit(data)
        assert np.all(np.isfinite(pca.components_))
        outcomes.append(
            (
                pca.components_.shape,
                pca.privacy_releases_,
                sorted(str(w.message) for w in caught),
            )
        )
    assert outcomes[0] == outcomes[1]


def audit_pair(n: int, d: int):
    """Rows of norm 1/2 off the first two axes, and one replaced row: e₁ in
    one data set, e₂ in the other (the design of the audits of the part
    "After 2019", test_after_2019_audit.py)."""
    gen = np.random.default_rng(0)
    shared = gen.standard_normal((n - 1, d))
    shared[:, :2] = 0.0
    shared *= 0.5 / np.linalg.norm(shared, axis=1, keepdims=True)
    first, second = np.zeros((1, d)), np.zeros((1, d))
    first[0, 0], second[0, 1] = 1.0, 1.0
    return np.vstack([shared, first]), np.vstack([shared, second])


def audit_release(epsilon: float, seed: int):
    """Certified lower bound on ε of the whole release (default settings,
    safe noise) at ``epsilon``, statistic ``Σ̂₁₁ − Σ̂₂₂``."""
    X, Y = audit_pair(40, 4)

    def release(data, rng):
        return np.asarray(
            cp.coinpress_covariance(data, epsilon=epsilon, delta=1e-5, rng=rng)
        )

    def score(M):
        return float(M[0, 0] - M[1, 1])

    return audit.audit_mechanism(
        release, X, Y, score, 1_500, delta=1e-5, rng=seed
    )


def test_black_box_audit_stays_below_the_record():
    record = cp.coinpress_guarantee(40, 4, 1.0, 1e-5)
    result = audit_release(1.0, 5)
    assert result.epsilon_lower <= record.epsilon, str(result)


def test_the_black_box_audit_has_power():
    """The same audit of the same release calibrated to ε = 10 certifies
    more than 1: a release leaking that much at the claimed ε = 1 would
    have been seen."""
    result = audit_release(10.0, 5)
    assert result.epsilon_lower > 1.0, str(result)


@pytest.mark.parametrize("cov_upper", [1e301, 1e308, True])
def test_a_prior_whose_first_radius_leaves_float64_is_refused_before_the_charge(
    cov_upper,
):
    """cov_upper = 1e301 puts the first radius 1/√cov_upper below the
    smallest verified bound: charged, then the clipped second moment
    refused it (no-context review); True was read as 1.0."""
    from dppca import PrivatePCA
    from dppca.privacy.accounting import Accountant

    X = np.random.default_rng(0).standard_normal((300, 5))
    X /= np.linalg.norm(X, axis=1).max()
    ledger = Accountant(epsilon=10.0, delta=1e-3)
    with pytest.raises((TypeError, ValueError), match="cov_upper"):
        PrivatePCA(
            2,
            epsilon=1.0,
            delta=1e-6,
            data_norm=1.0,
            mechanism="coinpress",
            allow_unproved="coinpress",
            mechanism_options={"cov_upper": cov_upper},
            accountant=ledger,
            random_state=0,
        ).fit(X)
    assert ledger.spent == (0.0, 0.0)
