"""The five ways an independent audit broke the package's privacy claims
(issue 18), each as a test that fails on the code before the fix.

1. a public centre far from the origin broke the sensitivity bound;
2. a custom grid under-reported in the accountant
   (``test_privacy_accounting.test_custom_grid_regression_…``);
3. PPCA with k ≥ 2, and a data-dependent start, were recorded as proved pure
   releases; a ``delta`` given to a pure mechanism and an ``epsilon`` given to
   the (0, δ) Wishart were dropped without a word;
4. the default paths used float noise;
5. a ``RandomState`` was reduced to a 31-bit seed.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from capture import second_moments_seen

import dppca
from dppca import PrivacyWarning, PrivatePCA, UnprovedGuaranteeWarning
from dppca.privacy.audit import audit_scores

# -- 1. the far public centre ---------------------------------------------------


def far_pair(n, d, centre_norm, seed=0):
    """Rows within distance 1 of a centre c of norm ``centre_norm``; the
    neighbour replaces the last row (at distance 1 on one side) by the row at
    distance 1 on the other side."""
    rng = np.random.default_rng(seed)
    c = np.full(d, centre_norm / np.sqrt(d))
    offsets = dppca.validation.normalize_rows(rng.standard_normal((n, d)))
    offsets *= rng.uniform(0, 1, n)[:, None]
    X = c + offsets
    X[-1] = c + np.eye(d)[1]
    X_prime = X.copy()
    X_prime[-1] = c - np.eye(d)[1]
    return X, X_prime, c


@pytest.mark.parametrize("centre_norm", [1e7, 1e9, 1e12])
def test_far_public_centre_keeps_the_sensitivity(centre_norm):
    """Through the estimator: the second moments of two neighbours, as the
    mechanism receives them, are at most √2/n apart (7.5 times that at
    ‖c‖ = 1e7 before the fix; not even positive semidefinite beyond 3e7)."""
    n, d = 1000, 3
    X, X_prime, c = far_pair(n, d, centre_norm)
    estimator = PrivatePCA(
        1,
        epsilon=1.0,
        delta=1e-5,
        mechanism="analyze_gauss",
        data_norm=1.0,
        center=c,
        random_state=0,
    )
    with second_moments_seen() as seen:
        for data in (X, X_prime):
            estimator.fit(data)
    A, A_prime = seen
    assert np.linalg.norm(A - A_prime) <= np.sqrt(2) / n


def test_far_public_centre_audit_certifies_no_more_than_reported():
    """The auditor's threshold test: 300 fits on each neighbour, score the
    top explained variance; the 95 % lower bound on ε must not exceed the
    reported 1.0 (it was 2.82 before the fix)."""
    n, d, fits = 1000, 3, 300
    X, X_prime, c = far_pair(n, d, 1e7)
    rng = np.random.default_rng(0)

    def score(data, seed):
        estimator = PrivatePCA(
            1,
            epsilon=1.0,
            delta=1e-5,
            mechanism="analyze_gauss",
            data_norm=1.0,
            center=c,
            random_state=seed,
        ).fit(data)
        assert estimator.privacy_spent_ == (1.0, 1e-5)
        return estimator.explained_variance_[0]

    seeds = rng.integers(2**63, size=2 * fits)
    scores = np.array([score(X, s) for s in seeds[:fits]])
    scores_prime = np.array([score(X_prime, s) for s in seeds[fits:]])
    result = audit_scores(scores, scores_prime, delta=1e-5, rng=1)
    assert result.epsilon_lower <= 1.0


def test_row_at_distance_three_is_clipped_by_a_third():
    for centre_norm in (1e7, 1e12):
        c = np.full(4, centre_norm / 2)
        X = np.vstack([c + np.array([3.0, 0, 0, 0]), c])
        A = dppca.linalg.clipped_sums.clipped_second_moment(
            X, 1.0, centre=c
        ).matrix
        # the first row becomes e1 (scaled by 1/3, divided by the bound 1)
        assert A[0, 0] == pytest.approx(0.5, rel=1e-9)


# -- 3. records that say what is and is not proved ------------------------------


def unit_rows(n=200, d=5, seed=0):
    rng = np.random.default_rng(seed)
    return dppca.validation.normalize_rows(rng.standard_normal((n, d))) * 0.9


def test_ppca_with_two_components_is_not_recorded_as_proved():
    X = unit_rows()
    with pytest.warns(UnprovedGuaranteeWarning, match="Gibbs chain"):
        V = dppca.ppca(X, 2, epsilon=1.0, rng=0)
    record = V.guarantee
    assert record.sampler == "approximate" and not record.proved
    assert record.kind == "ideal" and "(1 + e^ε)" in record.caveat
    assert "exact law only" in record.claim
    with pytest.warns(UnprovedGuaranteeWarning, match="float64 sampler"):
        single = dppca.ppca(X, 1, epsilon=1.0, rng=0).guarantee
    assert single.sampler == "exact" and not single.proved
    with pytest.raises(ValueError, match="allow_unproved='ppca'"):
        PrivatePCA(2, mechanism="ppca", data_norm=1.0).fit(X)


def test_data_dependent_start_is_in_the_record():
    X = unit_rows()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        estimator = PrivatePCA(
            2,
            mechanism="ppca",
            data_norm=1.0,
            mechanism_options={"V0": "pca"},
            allow_unproved="ppca",
            allow_not_dp=True,  # not DP: an unproved opt-in is not enough
            random_state=0,
        ).fit(X)
    caveat = estimator.privacy_releases_[-1].caveat
    assert "V0='pca'" in caveat and "not ε-DP, not even approximately" in caveat


def test_ignored_budget_parameters_are_said():
    X = unit_rows()
    with pytest.warns(PrivacyWarning, match="delta=1e-05 is not used"):
        estimator = PrivatePCA(
            2, mechanism="laplace", delta=1e-5, data_norm=1.0, random_state=0
        ).fit(X)
    assert estimator.privacy_spent_ == (1.0, 0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator = PrivatePCA(
            2,
            mechanism="wishart_delta",
            delta=1e-5,
            center=False,
            data_norm=1.0,
            allow_unproved="wishart_delta",
            random_state=0,
        ).fit(X)
    messages = [str(w.message) for w in caught]
    assert any("epsilon=1.0 is not used" in m for m in messages)
    assert estimator.privacy_spent_ == (0.0, 1e-5)


# -- 4. proved, floating-point-safe defaults ----------------------------------


def test_default_paths_are_proved_and_safe():
    X = unit_rows()
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnprovedGuaranteeWarning)
        for release in (
            dppca.analyze_gauss(X, epsilon=1.0, delta=1e-5, rng=0),
            dppca.mod_sulq(X, epsilon=1.0, delta=1e-5, rng=0),
            dppca.laplace_input_perturbation(X, epsilon=1.0, rng=0),
            dppca.mechanisms.gaussian_approx.gaussian_subspace_recovery(
                X, 2, epsilon=1.0, delta=1e-5, rng=0
            ),
            dppca.mechanisms.power_method.noisy_power_method(
                X, 2, epsilon=1.0, delta=1e-5, rng=0
            ),
        ):
            assert release.guarantee.noise == "safe"
            assert release.guarantee.proved
        for delta in (1e-5, 0.0):  # delta=0.0 states pure ε-DP
            estimator = PrivatePCA(data_norm=1.0, delta=delta, random_state=0)
            estimator.fit(X)
            assert all(r.proved for r in estimator.privacy_releases_)
    with pytest.warns(UnprovedGuaranteeWarning, match="float64 noise"):
        dppca.analyze_gauss(X, epsilon=1.0, delta=1e-5, rng=0, noise="float")


# -- 5. randomness ---------------------------------------------------------------


def test_random_state_keeps_its_entropy():
    """Two RandomStates whose first outputs agree (they differ in one bit of
    key word 600) gave the same 31-bit seed, hence the same release."""
    X = unit_rows()
    a, b = np.random.RandomState(3), np.random.RandomState(3)
    state = list(b.get_state())
    key = state[1].copy()
    key[600] ^= 1
    b.set_state((state[0], key, *state[2:]))
    kw = {"data_norm": 1.0, "delta": 1e-5}
    first = PrivatePCA(2, random_state=a, **kw).fit(X).components_
    second = PrivatePCA(2, random_state=b, **kw).fit(X).components_
    assert not np.array_equal(first, second)


def test_fresh_entropy_by_default():
    X = unit_rows()
    releases = [
        PrivatePCA(2, data_norm=1.0, delta=1e-5).fit(X).components_
        for _ in range(2)
    ]
    assert not np.array_equal(*releases)
    # the generator of a fit with random_state=None holds OS entropy (128
    # bits asked of the OS; one in 2**64 draws would have fewer than 65)
    from dppca.base import _generator

    seeds = _generator(None).bit_generator.seed_seq
    assert seeds.entropy.bit_length() > 64 and seeds.spawn_key == ()


# -- a Gibbs chain's record is not composed as pure ε (issue 26.5) -------------


def gibbs_ppca_record():
    with pytest.warns(UnprovedGuaranteeWarning, match="Gibbs chain"):
        return dppca.ppca(unit_rows(), 2, epsilon=1.0, rng=0).guarantee


def test_compose_refuses_a_release_of_an_approximate_sampler():
    record = gibbs_ppca_record()
    laplace = dppca.privacy.accounting.Release("mean", "pure", 0.5)
    for compose in (
        lambda r: dppca.privacy.accounting.compose(r, 1e-6),
        dppca.privacy.accounting.basic_composition,
    ):
        with pytest.raises(ValueError, match="approximate sampler"):
            compose([laplace, record])
    assert dppca.privacy.accounting.compose([laplace], 1e-6) == (0.5, 0.0)


def test_an_accountant_refuses_a_gibbs_chain_before_any_charge():
    ledger = dppca.privacy.accounting.Accountant(10.0, 1e-5)
    with pytest.raises(ValueError, match="approximate sampler"):
        ledger.charge([gibbs_ppca_record()])
    estimator = PrivatePCA(
        2,
        mechanism="ppca",
        data_norm=1.0,
        allow_unproved="ppca",
        accountant=ledger,
        random_state=0,
    )
    with pytest.raises(ValueError, match="approximate sampler"):
        estimator.fit(unit_rows())
    assert ledger.charges == () and ledger.spent == (0.0, 0.0)
    assert not hasattr(estimator, "components_")


def test_a_fit_through_a_gibbs_chain_reports_no_delta():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        estimator = PrivatePCA(
            2,
            mechanism="ppca",
            data_norm=1.0,
            center=True,
            allow_unproved="ppca",
            random_state=0,
        ).fit(unit_rows())
    epsilon, delta = estimator.privacy_spent_
    assert epsilon == pytest.approx(1.0) and np.isnan(delta)
    assert [r.kind for r in estimator.privacy_releases_] == ["pure", "ideal"]


def test_a_record_of_an_approximate_sampler_must_be_ideal():
    Release = dppca.privacy.guarantees.Release
    with pytest.raises(ValueError, match="kind 'ideal'"):
        Release(
            "x",
            "pure",
            1.0,
            sampler="approximate",
            proved=False,
            caveat="chain",
            noise="float sampler",
        )
    with pytest.raises(ValueError, match="kind 'ideal'"):
        Release(
            "x",
            "ideal",
            1.0,
            noise="float sampler",
            proved=False,
            caveat="chain",
        )
