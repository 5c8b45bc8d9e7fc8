"""Tests of dppca.privacy.accounting against closed forms: k-fold and heterogeneous
Gaussian
composition (one Gaussian of multiplier (Σ m_i^-2)^(-1/2), analytic formula of
Balle and Wang 2018), pure ε adding up, δ of approximate releases adding up, and
the estimator's
releases."""

import math

import dp_accounting
import numpy as np
import pytest
from dp_accounting.pld import pld_privacy_accountant

from dppca import PrivatePCA
from dppca.privacy import (
    accounting,
    analyze_gauss_sigma,
    gaussian_mechanism_epsilon,
    zcdp_delta,
    zcdp_rho,
)
from dppca.privacy.accounting import Release, compose, gaussian_epsilon

# PLD's pessimistic discretisation (interval 1e-4) overestimates ε by a little;
# never under.
PLD_SLACK = 2e-3


def analytic_epsilon(multiplier, delta):
    return gaussian_mechanism_epsilon(multiplier, 1.0, delta)


@pytest.mark.parametrize("k", [1, 2, 5, 20])
@pytest.mark.parametrize("multiplier", [0.8, 3.0, 10.0])
def test_k_fold_gaussian_is_one_gaussian_with_sigma_over_root_k(k, multiplier):
    delta = 1e-6
    exact = analytic_epsilon(multiplier / np.sqrt(k), delta)
    pld = gaussian_epsilon([multiplier] * k, delta)
    assert exact - 1e-9 <= pld <= exact * (1 + PLD_SLACK) + 1e-6
    rdp = gaussian_epsilon([multiplier] * k, delta, accountant="rdp")
    assert (
        rdp >= exact
    )  # RDP conversion is an upper bound, never below the truth


def test_heterogeneous_gaussians_compose_like_one():
    multipliers = [1.0, 2.0, 4.0, 0.7, 2.0]
    effective = np.sum(np.asarray(multipliers) ** -2.0) ** -0.5
    exact = analytic_epsilon(effective, 1e-5)
    pld = gaussian_epsilon(multipliers, 1e-5)
    assert exact - 1e-9 <= pld <= exact * (1 + PLD_SLACK)


def test_pure_releases_add_and_approximate_deltas_add():
    releases = [
        Release("PPCA", "pure", 0.3),
        Release("Laplace", "pure", 0.5),
        Release("Wishart", "approximate", 0.0, 1e-4),
        Release("other", "approximate", 0.2, 2e-4),
    ]
    assert accounting.basic_composition(releases) == pytest.approx((1.0, 3e-4))
    assert compose(releases, 1e-3) == pytest.approx((1.0, 3e-4))
    with pytest.raises(ValueError, match="already spend"):
        compose(releases, 1e-4)


def test_mixed_composition_spends_the_approximate_delta_first():
    releases = [
        Release("PPCA", "pure", 0.4),
        Release("Wishart", "approximate", 0.0, 4e-6),
        accounting.gaussian_release("AG", 2.0, 1.0, 1.0, 1e-5),
    ]
    eps, delta = compose(releases, 1e-5)
    exact = 0.4 + analytic_epsilon(2.0, 6e-6)
    assert delta == 1e-5
    assert exact - 1e-9 <= eps <= exact + PLD_SLACK * (exact - 0.4)
    with pytest.raises(ValueError, match="leaves nothing"):
        compose(releases, 4e-6)


def test_release_validation():
    with pytest.raises(ValueError, match="kind"):
        Release("x", "exact", 1.0)
    with pytest.raises(ValueError, match="noise_multiplier"):
        Release("x", "gaussian", 1.0, 1e-5)
    with pytest.raises(ValueError, match="only Gaussian"):
        Release("x", "pure", 1.0, 0.0, 2.0)
    with pytest.raises(ValueError, match="delta = 0"):
        Release("x", "pure", 1.0, 1e-5)
    # no guarantee: kind 'none' exactly when epsilon is inf, never proved
    with pytest.raises(ValueError, match="kind 'none'"):
        Release("x", "none", 1.0, proved=False, caveat="c")
    with pytest.raises(ValueError, match="kind 'none'"):
        Release("x", "pure", float("inf"))
    with pytest.raises(ValueError, match="not proved"):
        Release("x", "none", float("inf"))
    assert (
        "NOT"
        in Release("x", "none", float("inf"), proved=False, caveat="c").claim
    )
    with pytest.raises(ValueError, match="accountant"):
        gaussian_epsilon([1.0], 1e-5, accountant="moments")
    with pytest.raises(TypeError, match="Release"):
        compose([(1.0, 0.0)], 1e-5)


def test_neighbouring_relation_of_dp_accounting():
    """dp-accounting's REPLACE_ONE doubles a Gaussian event's sensitivity;
    the book's
    multipliers are already normalised by the replace-one Δ, so the accountant
    must run in
    ADD_OR_REMOVE_ONE mode (what gaussian_epsilon does) to match the analytic
    formula."""
    m, delta = 2.0, 1e-5
    replace = pld_privacy_accountant.PLDAccountant(
        dp_accounting.NeighboringRelation.REPLACE_ONE
    )
    replace.compose(dp_accounting.GaussianDpEvent(m))
    doubled = gaussian_mechanism_epsilon(m, 2.0, delta)
    assert replace.get_epsilon(delta) == pytest.approx(doubled, rel=PLD_SLACK)
    assert gaussian_epsilon([m], delta) == pytest.approx(
        analytic_epsilon(m, delta), rel=PLD_SLACK
    )


def test_one_analyze_gauss_fit_spends_its_calibrated_epsilon():
    """Analyze Gauss with the analytic calibration is tight: the accountant
    gives back ε."""
    X = np.random.default_rng(0).standard_normal((500, 5))
    est = PrivatePCA(
        2,
        mechanism="analyze_gauss",
        epsilon=0.7,
        delta=1e-6,
        data_norm=2.0,
        allow_unproved="analyze_gauss",
        noise="float",  # the continuous Gaussian, which the PLD accountant models
        center=False,
        random_state=0,
    ).fit(X)
    (release,) = est.privacy_releases_
    sigma = analyze_gauss_sigma(500, 0.7, 1e-6)
    assert release.noise_multiplier == pytest.approx(sigma * 500 / np.sqrt(2))
    eps, _ = compose([est], 1e-6)
    assert 0.7 - 1e-6 <= eps <= 0.7 * (1 + PLD_SLACK)


def test_several_fits_compose_better_than_adding():
    """Two private-mean Analyze Gauss fits (four Gaussian releases at (ε_i,
    δ_i)): the
    accountant's ε at the summed δ equals the analytic ε of the combined
    multiplier and is
    below the basic composition's sum."""
    X = np.random.default_rng(1).standard_normal((800, 5))
    fits = [
        PrivatePCA(
            2,
            mechanism="analyze_gauss",
            epsilon=1.0,
            delta=1e-6,
            data_norm=2.0,
            center=True,
            centered_norm=None,  # the public bound: two Gaussian releases
            allow_unproved="analyze_gauss",
            noise="float",
            random_state=seed,
        ).fit(X)
        for seed in (0, 1)
    ]
    basic = accounting.basic_composition(fits)
    assert basic == pytest.approx((2.0, 2e-6))
    eps, delta = compose(fits, 2e-6)
    multipliers = [
        r.noise_multiplier for f in fits for r in f.privacy_releases_
    ]
    exact = analytic_epsilon(
        np.sum(np.asarray(multipliers) ** -2.0) ** -0.5, 2e-6
    )
    assert exact - 1e-9 <= eps <= exact * (1 + PLD_SLACK)
    assert eps < 0.8 * basic[0]


def test_mod_sulq_is_far_more_private_than_claimed():
    """MOD-SULQ's β (Chaudhuri et al. 2013, eq. (5)) is a Gaussian mechanism
    of multiplier
    β n/√2; its true ε at the same δ is a small fraction of the claimed one
    (chapter 2)."""
    X = np.random.default_rng(2).standard_normal((2000, 10))
    est = PrivatePCA(
        2,
        mechanism="mod_sulq",
        epsilon=1.0,
        delta=1e-5,
        data_norm=3.0,
        allow_unproved="mod_sulq",
        noise="float",
        center=False,
        random_state=0,
    ).fit(X)
    eps, _ = compose([est], 1e-5)
    assert est.privacy_spent_ == (1.0, 1e-5)
    assert eps < 0.25


def test_safe_gaussian_fits_compose_as_zcdp_releases():
    """With the default floating-point-safe noise a Gaussian release is
    calibrated through the discrete Gaussian's zCDP bound, not the continuous
    PLD: it is recorded as ρ-zCDP with ρ = zcdp_rho(ε, δ), and several compose
    through their Rényi curves, at or below basic composition."""
    X = np.random.default_rng(3).standard_normal((800, 5))
    fits = [
        PrivatePCA(
            2,
            mechanism="analyze_gauss",
            epsilon=1.0,
            delta=1e-6,
            data_norm=2.0,
            center=True,
            centered_norm=None,  # the public bound: two Gaussian releases
            random_state=seed,
        ).fit(X)
        for seed in (0, 1)
    ]
    releases = [r for f in fits for r in f.privacy_releases_]
    assert [r.kind for r in releases] == ["zcdp"] * 4
    assert all("safe noise" in r.label for r in releases)
    # Each release's ρ is at most the ρ its (ε, δ) calibration allows (its σ
    # is at least the discrete calibration's, never smaller).
    rhos = [1 / (2 * r.noise_multiplier**2) for r in releases]
    for r, rho in zip(releases, rhos):
        assert rho <= zcdp_rho(r.epsilon, r.delta) * (1 + 1e-9)
    eps, delta = compose(fits, 2e-6)
    assert delta == 2e-6
    # ρ adds over the four releases; the CKS conversion checks the result
    assert zcdp_delta(sum(rhos), eps) <= 2e-6 * 1.01
    assert eps < 2.0


def test_safe_mod_sulq_records_the_rho_of_its_noise():
    """Safe MOD-SULQ keeps its published β (larger than the discrete
    calibration needs): its record has the ρ of that β, so the accountant sees
    how much more private it is than claimed, as for float noise."""
    X = np.random.default_rng(2).standard_normal((2000, 10))
    est = PrivatePCA(
        2,
        mechanism="mod_sulq",
        epsilon=1.0,
        delta=1e-5,
        data_norm=3.0,
        center=False,
        random_state=0,
    ).fit(X)
    (release,) = est.privacy_releases_
    assert release.kind == "zcdp"
    eps, _ = compose([est], 1e-5)
    assert eps < 0.25


def test_a_zcdp_release_is_its_renyi_curve():
    """The multiplier stored for a ρ-zCDP release makes the Rényi accountant
    see the curve αρ: its ε at δ agrees with the CKS conversion of ρ (the two
    conversions differ slightly; a wrong multiplier would be off by far more)."""
    rho = zcdp_rho(1.0, 1e-6)
    release = accounting.zcdp_release("test", rho, 1.0, 1e-6)
    eps_rdp = gaussian_epsilon([release.noise_multiplier], 1e-6, "rdp")
    assert 0.9 <= eps_rdp <= 1.1
    for wrong in (2 * rho, rho / 2):
        other = accounting.zcdp_release("test", wrong, 1.0, 1e-6)
        eps_wrong = gaussian_epsilon([other.noise_multiplier], 1e-6, "rdp")
        assert abs(eps_wrong - 1.0) > 0.2


@pytest.mark.parametrize("calibration", ["gdp", "zcdp"])
def test_noisy_power_method_fit_is_one_gaussian_of_sensitivity_sqrt_L(
    calibration,
):
    """L Gaussian steps compose exactly like one Gaussian of sensitivity √L·Δ:
    with the exact ('gdp') calibration the accountant gives back ε; with the
    zCDP closed form it finds the slack of that conversion (ε below 1)."""
    X = np.random.default_rng(4).standard_normal((3000, 8))
    est = PrivatePCA(
        2,
        mechanism="noisy_power_method",
        epsilon=1.0,
        delta=1e-6,
        data_norm=4.0,
        allow_unproved="noisy_power_method",
        noise="float",
        mechanism_options={"calibration": calibration, "n_iterations": 7},
        center=False,
        random_state=0,
    ).fit(X)
    eps, _ = compose([est], 1e-6)
    if calibration == "gdp":
        assert 1.0 - 1e-6 <= eps <= 1.0 * (1 + PLD_SLACK)
    else:
        assert 0.6 < eps < 0.95


# --- a budget across fits
# ------------------------------------------------------------------------------


def test_accountant_stops_a_grid_search_at_its_budget():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import Pipeline

    from dppca.privacy.accounting import Accountant, BudgetExceededError

    rng = np.random.default_rng(0)
    X = rng.standard_normal((300, 6))
    y = (X[:, 0] > 0).astype(int)
    budget = Accountant(2.0, 1e-5)
    pipe = Pipeline(
        [
            (
                "pca",
                PrivatePCA(2, delta=1e-7, data_norm=3.0, accountant=budget),
            ),
            ("clf", LogisticRegression()),
        ]
    )
    search = GridSearchCV(
        pipe, {"pca__epsilon": [0.5, 1.0, 2.0]}, cv=3, error_score="raise"
    )
    with pytest.raises(BudgetExceededError, match="charged or drawn"):
        search.fit(X, y)
    # the clones charged the one ledger, which never went past the budget
    assert len(budget.charges) >= 3
    spent, _ = budget.spent
    assert spent <= 2.0


def test_accountant_refuses_before_drawing_noise():
    from dppca.privacy.accounting import Accountant, BudgetExceededError

    X = np.random.default_rng(1).standard_normal((200, 4))
    budget = Accountant(1.0)  # pure budget: Laplace fits add up
    generator = np.random.default_rng(5)
    kw = {"data_norm": 3.0, "accountant": budget, "random_state": generator}
    PrivatePCA(2, epsilon=0.6, delta=0.0, **kw).fit(X)
    state = generator.bit_generator.state
    with pytest.raises(BudgetExceededError):
        PrivatePCA(2, epsilon=0.6, delta=0.0, **kw).fit(X)
    assert generator.bit_generator.state == state  # nothing drawn
    assert budget.spent == pytest.approx((0.6, 0.0))
    PrivatePCA(2, epsilon=0.4, delta=0.0, **kw).fit(X)
    assert budget.spent == pytest.approx((1.0, 0.0))
    # a Gaussian release cannot fit a budget with delta = 0
    with pytest.raises(BudgetExceededError):
        PrivatePCA(2, epsilon=1e-3, delta=1e-9, **kw).fit(X)


def test_advanced_composition_matches_its_formula():
    from dppca.privacy.accounting import advanced_composition

    # 0.1 √(200 ln 10⁶) + 100 · 0.1 (e^0.1 − 1), worked by hand
    expected = 0.1 * math.sqrt(200 * 6 * math.log(10)) + 10 * math.expm1(0.1)
    assert advanced_composition(0.1, 100, 1e-6) == pytest.approx(expected)
    assert expected == pytest.approx(6.3083, abs=1e-4)
    # beats basic composition (kε = 10) here, loses to it for k = 1
    assert advanced_composition(0.1, 100, 1e-6) < 10
    assert advanced_composition(0.1, 1, 1e-6) > 0.1
    with pytest.raises(ValueError):
        advanced_composition(0.1, 0, 1e-6)


@pytest.mark.parametrize("k", [2.7, "3", True, 0, -1])
def test_advanced_composition_refuses_a_k_that_is_not_a_count(k):
    from dppca.privacy.accounting import advanced_composition

    with pytest.raises(ValueError, match="k must be an integer"):
        advanced_composition(0.1, k, 1e-5)
