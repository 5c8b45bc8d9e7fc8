"""Tests of dppca.covariance.PrivateCovariance (issue 43): the
surface of scikit-learn's EmpiricalCovariance (estimator checks, agreement
at huge ε, mahalanobis / score / error_norm against scikit-learn's own
methods given the same covariance), a positive semidefinite release at
every ε, parameter validation, Pipeline, clone and budgeted_grid_search."""

import pickle
import warnings

import numpy as np
import pytest
import scipy.linalg
from sklearn.base import clone
from sklearn.covariance import EmpiricalCovariance
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from dppca import PrivacyWarning, PrivateStandardScaler, budgeted_grid_search
from dppca.covariance import PrivateCovariance
from dppca.covariance.plan import planned_records
from dppca.covariance.postprocessing import psd_floor
from dppca.exceptions import UnprovedGuaranteeWarning
from dppca.privacy.accounting import Accountant, BudgetExceededError
from dppca.privacy.guarantees import REPLACE_ONE

#: Checks skipped by name with the reason: none is needed.
SKIPPED_CHECKS: dict[str, str] = {}

#: scikit-learn's message for data without columns prints the shape, n
#: included; under add/remove n is private, and the estimators print neither
#: (tested in tests/privacy/test_shape_messages.py).
ADD_REMOVE_MESSAGE = {
    "check_estimators_empty_data_messages": "its message would print the "
    "private number of rows (add/remove neighbours)"
}


def expected_failures(estimator) -> dict[str, str]:
    """The checks an estimator is known to fail, with why."""
    if estimator.get_params().get("neighbours") == "add-remove":
        return {**SKIPPED_CHECKS, **ADD_REMOVE_MESSAGE}
    return SKIPPED_CHECKS


@parametrize_with_checks(
    [
        PrivateCovariance(data_norm=5.0, delta=1e-6),
        PrivateCovariance(
            data_norm=5.0, delta=1e-6, center=False, mechanism="trace_sensitive"
        ),
        PrivateCovariance(
            data_norm=5.0,
            delta=1e-9,
            center=False,
            neighbours="add-remove",
            max_samples=10_000,
        ),
    ],
    expected_failed_checks=expected_failures,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def data(n=4000, d=4, seed=0):
    """Rows in a box (every row within R of the origin, and of the box's
    centre within R/2 + a bit: nothing is clipped) with unequal spreads."""
    rng = np.random.default_rng(seed)
    half = np.array([2.0, 1.0, 0.5, 0.25])[:d]
    centre = np.array([1.0, -1.0, 0.5, 0.0])[:d]
    X = centre + half * rng.uniform(-1, 1, size=(n, d))
    R = float(np.linalg.norm(np.abs(centre) + half))  # a public bound
    return X, R


def rel_error(est, ref):
    return np.linalg.norm(est.covariance_ - ref.covariance_) / np.linalg.norm(
        ref.covariance_
    )


@pytest.mark.parametrize("mechanism", ["analyze_gauss", "trace_sensitive"])
@pytest.mark.parametrize("center", [True, False, "public"])
def test_huge_epsilon_matches_empirical_covariance(mechanism, center):
    """ε = 1e7: what is left is the noise grid and a noise of order 1e-7;
    the covariance is scikit-learn's within 1e-3 (relative Frobenius)."""
    X, R = data()
    public = np.array([1.0, -1.0, 0.5, 0.0])
    if center == "public":
        centre, bound = public, float(np.linalg.norm([2.0, 1.0, 0.5, 0.25]))
        ref = EmpiricalCovariance(assume_centered=True).fit(X - public)
        ref.location_ = public
    else:
        centre, bound = center, R
        ref = EmpiricalCovariance(assume_centered=not center).fit(X)
    est = PrivateCovariance(
        epsilon=1e7,
        delta=1e-9,
        data_norm=bound,
        center=centre,
        mechanism=mechanism,
        random_state=0,
    ).fit(X)
    assert rel_error(est, ref) < 1e-3
    np.testing.assert_allclose(est.location_, ref.location_, atol=1e-4 * R)
    np.testing.assert_allclose(
        est.precision_ @ est.covariance_, np.eye(4), atol=1e-8
    )
    assert est.n_features_in_ == 4 and est.mechanism_ == mechanism
    assert est.privacy_spent_ == (1e7, 1e-9)


def test_moderate_epsilon_is_close_and_ordered():
    """ε = 1 on 20000 rows: a few per cent of the Frobenius norm, and the
    error falls when n grows (one seed per n; the noise is 1/n)."""
    errors = []
    for n in (2000, 20000):
        X, R = data(n=n, seed=1)
        ref = EmpiricalCovariance().fit(X)
        est = PrivateCovariance(
            epsilon=1.0, delta=1e-8, data_norm=R, random_state=3
        ).fit(X)
        errors.append(rel_error(est, ref))
    assert errors[1] < 0.1
    assert errors[1] < errors[0]


@pytest.mark.parametrize("mechanism", ["analyze_gauss", "trace_sensitive"])
@pytest.mark.parametrize("floor", ["auto", 0.0, 1e-3])
def test_released_covariance_is_psd_at_every_epsilon(mechanism, floor):
    """Small n and ε: the noisy matrix is far from PSD; the release never
    is, its eigenvalues sit at or above the stated floor, and precision_
    inverts it (pseudo-inverts it for a zero floor)."""
    X, R = data(n=30, seed=2)
    for seed in range(5):
        est = PrivateCovariance(
            epsilon=0.3,
            delta=1e-6,
            data_norm=R,
            mechanism=mechanism,
            min_eigenvalue=floor,
            random_state=seed,
        ).fit(X)
        C = est.covariance_
        assert np.array_equal(C, C.T)
        values = np.linalg.eigvalsh(C)
        scale = est.row_bound_**2
        assert values.min() >= est.min_eigenvalue_ - 1e-12 * scale
        if floor == "auto":
            assert est.min_eigenvalue_ > 0
        else:
            assert est.min_eigenvalue_ == pytest.approx(floor * scale)
        inverse = scipy.linalg.pinvh(C)
        error = np.linalg.norm(est.precision_ - inverse)
        assert error <= 1e-6 * np.linalg.norm(inverse)


def test_psd_floor_projects_an_indefinite_matrix():
    M = np.array([[1.0, 2.0], [2.0, -3.0]])
    values = np.linalg.eigvalsh(M)
    assert values.min() < 0
    C, P = psd_floor(M, 0.0)
    np.testing.assert_allclose(
        np.linalg.eigvalsh(C), [0.0, values.max()], atol=1e-12
    )
    C, P = psd_floor(M, 0.5)
    np.testing.assert_allclose(np.linalg.eigvalsh(C), [0.5, values.max()])
    np.testing.assert_allclose(P @ C, np.eye(2), atol=1e-12)


def _sklearn_with(est):
    """scikit-learn's EmpiricalCovariance holding ``est``'s covariance and
    location (its own pinvh precision)."""
    ref = EmpiricalCovariance().fit(np.zeros((2, est.n_features_in_)))
    ref.covariance_ = est.covariance_.copy()
    ref.location_ = est.location_.copy()
    ref.precision_ = scipy.linalg.pinvh(est.covariance_)
    return ref


@pytest.mark.parametrize("center", [True, False])
def test_methods_agree_with_sklearn_given_the_same_covariance(center):
    X, R = data(n=500, seed=4)
    held_out = data(n=50, seed=5)[0]
    est = PrivateCovariance(
        epsilon=2.0, delta=1e-6, data_norm=R, center=center, random_state=0
    ).fit(X)
    ref = _sklearn_with(est)
    np.testing.assert_allclose(est.get_precision(), ref.get_precision())
    np.testing.assert_allclose(
        est.mahalanobis(held_out), ref.mahalanobis(held_out), rtol=1e-9
    )
    assert est.score(held_out) == pytest.approx(ref.score(held_out), 1e-10)
    comp = np.cov(held_out.T)
    for norm in ("frobenius", "spectral"):
        for scaling in (True, False):
            for squared in (True, False):
                options = dict(norm=norm, scaling=scaling, squared=squared)
                assert est.error_norm(comp, **options) == pytest.approx(
                    ref.error_norm(comp, **options), rel=1e-10
                )
    with pytest.raises(NotImplementedError):
        est.error_norm(comp, norm="nuclear")
    # the squared distances sklearn returns, by hand for one row
    x = held_out[0] - est.location_
    assert est.mahalanobis(held_out[:1])[0] == pytest.approx(
        x @ np.linalg.solve(est.covariance_, x), rel=1e-8
    )


BAD = [
    (dict(data_norm=None), ValueError, "data_norm is required"),
    (dict(data_norm=-1.0), ValueError, "data_norm must be"),
    (dict(data_norm=True), TypeError, "data_norm must be a number"),
    (dict(data_norm="private"), TypeError, "data_norm must be a number"),
    (dict(delta=None), ValueError, "delta is required"),
    (dict(delta=1.5), ValueError, "delta"),
    (dict(epsilon=0.0), ValueError, "epsilon"),
    (dict(clip=False), ValueError, "clip=False is not supported"),
    (dict(clip="yes"), TypeError, "clip must be True or False"),
    (dict(mechanism="laplace"), ValueError, "mechanism must be one of"),
    (dict(noise="exact"), ValueError, "noise"),
    (dict(center_share=1.0), ValueError, "center_share must lie in"),
    (dict(center_share=True), TypeError, "center_share must be a number"),
    (dict(centered_norm="private"), ValueError, "centered_norm must be"),
    (dict(centered_norm=0.0), ValueError, "centered_norm must be"),
    (dict(center=np.ones(3)), ValueError, "center must be"),
    (dict(center=[np.nan] * 4), ValueError, "center must be"),
    (dict(min_eigenvalue=-1.0), ValueError, "min_eigenvalue must be"),
    (dict(min_eigenvalue="none"), ValueError, "min_eigenvalue must be"),
]


@pytest.mark.parametrize("params,error,match", BAD)
def test_parameter_validation(params, error, match):
    X, R = data(n=100)
    est = PrivateCovariance(**{"delta": 1e-6, "data_norm": R, **params})
    with pytest.raises(error, match=match):
        est.fit(X)
    assert not hasattr(est, "covariance_")


def test_one_feature_is_refused_with_its_count():
    with pytest.raises(ValueError, match="n_features = 1"):
        PrivateCovariance(delta=1e-6, data_norm=1.0).fit(np.zeros((5, 1)))


def test_unfitted_methods_raise():
    from sklearn.exceptions import NotFittedError

    est = PrivateCovariance(delta=1e-6, data_norm=1.0)
    for call in (
        est.get_precision,
        lambda: est.mahalanobis(np.zeros((1, 2))),
        lambda: est.score(np.zeros((1, 2))),
        lambda: est.error_norm(np.eye(2)),
    ):
        with pytest.raises(NotFittedError):
            call()


def test_pipeline_charges_one_ledger_and_scores():
    """A PrivateStandardScaler then a PrivateCovariance: both charge one
    ledger, in order; the Pipeline's score is the covariance's on the
    scaled rows."""
    X, R = data(n=1000, seed=6)
    ledger = Accountant(4.0, 1e-5)
    lower, upper = X.min(axis=0) - 1, X.max(axis=0) + 1  # public by fiat
    scaler = PrivateStandardScaler(
        bounds=(lower, upper), epsilon=1.0, accountant=ledger, random_state=0
    )
    cov = PrivateCovariance(
        epsilon=1.0,
        delta=1e-6,
        data_norm=4.0,
        accountant=ledger,
        random_state=0,
    )
    pipe = Pipeline([("scale", scaler), ("cov", cov)]).fit(X)
    assert ledger.charges == ("PrivateStandardScaler", "PrivateCovariance")
    records = pipe["scale"].privacy_releases_ + pipe["cov"].privacy_releases_
    assert ledger.releases == records
    Z = pipe["scale"].transform(X[:100])
    assert pipe.score(X[:100]) == pytest.approx(pipe["cov"].score(Z))
    # a second covariance fit exceeds the budget: refused before its noise
    spent = ledger.spent
    with pytest.raises(BudgetExceededError):
        clone(cov).set_params(epsilon=10.0).fit(Z)
    assert ledger.spent == spent
    assert ledger.charges == ("PrivateStandardScaler", "PrivateCovariance")


def test_clone_and_get_params():
    ledger = Accountant(1.0, 1e-6)
    centre = np.array([0.5, -0.5])
    est = PrivateCovariance(
        epsilon=0.5,
        delta=1e-7,
        data_norm=3.0,
        center=centre,
        mechanism="trace_sensitive",
        min_eigenvalue=0.0,
        accountant=ledger,
        random_state=7,
    )
    params = est.get_params()
    assert params["center"] is centre and params["accountant"] is ledger
    copy = clone(est)
    assert copy.accountant is ledger  # the ledger survives clone
    for key, value in params.items():
        if key != "center":
            assert copy.get_params()[key] == value
    np.testing.assert_array_equal(copy.center, centre)
    X = np.random.default_rng(0).normal(size=(200, 2))
    a, b = est.fit(X), copy.fit(X)
    np.testing.assert_array_equal(a.covariance_, b.covariance_)  # one seed
    assert len(ledger.releases) == 2


def test_float32_dataframe_and_feature_names():
    pd = pytest.importorskip("pandas")
    X, R = data(n=300)
    frame = pd.DataFrame(X.astype(np.float32), columns=list("abcd"))
    est = PrivateCovariance(delta=1e-6, data_norm=R, random_state=0).fit(frame)
    assert list(est.feature_names_in_) == list("abcd")
    assert est.covariance_.dtype == np.float64
    assert est.mahalanobis(frame).shape == (300,)


def test_refit_without_accountant_and_pickle_warn():
    X, R = data(n=100)
    est = PrivateCovariance(delta=1e-6, data_norm=R)
    est.fit(X)
    with pytest.warns(PrivacyWarning, match="refitting"):
        est.fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pickle.dumps(est)  # random_state None: nothing to warn about
    est.set_params(random_state=0)
    with pytest.warns(PrivacyWarning, match="pickling"):
        pickle.dumps(est)


def test_float_noise_warns_and_report():
    X, R = data(n=100)
    est = PrivateCovariance(delta=1e-6, data_norm=R, noise="float")
    with pytest.warns(UnprovedGuaranteeWarning):
        est.fit(X)
    report = est.privacy_report()
    assert report.epsilon == 1.0 and report.delta == 1e-6
    assert "PrivateCovariance" in report.subject


def test_budgeted_grid_search_non_private_selection():
    """The search plans every fit's records (planned_records) before the
    first one and the ledger gains exactly those; the choice by
    GridSearchCV's scores (the Gaussian log-likelihood of the held-out
    rows) is outside the ledger, and says so."""
    X, R = data(n=600, seed=8)
    ledger = Accountant(6.0, 1e-5)
    est = PrivateCovariance(delta=1e-7, data_norm=R)
    grid = {"center_share": [0.1, 0.4], "mechanism": ["analyze_gauss"]}
    with pytest.warns(PrivacyWarning, match="covered by the accountant"):
        search = budgeted_grid_search(
            est, grid, ledger, X, cv=3, selection="non_private"
        )
    assert search.n_budgeted_fits_ == 2 * 3 + 1
    assert len(ledger.charges) == 7
    best = search.best_estimator_
    assert best.center_share in (0.1, 0.4)
    assert best.guarantees_ == tuple(planned_records(best, 600, 4))
    assert ledger.spent[0] <= 6.0 + 1e-9


def test_budgeted_grid_search_private_selection_runs():
    """The private choice scores a released covariance too (issue 43,
    :mod:`dppca.model_selection_covariance`): every fold fit and the refit
    charge their records (private mean and matrix), and the choice its
    own."""
    X, R = data(n=100)
    ledger = Accountant(1.0, 1e-5)
    est = PrivateCovariance(delta=1e-7, data_norm=R)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            est, {"center_share": [0.1, 0.4]}, ledger, X, cv=3
        )
    assert len(ledger.releases) == (2 * 3 + 1) * 2 + 1
    assert search.best_params_["center_share"] in (0.1, 0.4)
    assert hasattr(search.best_estimator_, "covariance_")


def test_a_registered_mechanism_that_is_not_dp_is_refused_before_any_charge():
    """Red team, round 13: a spec registered with covariance hooks and the
    notion "not_dp" (here: no noise at all) ran in PrivateCovariance with
    warnings only and charged a ledger; PrivatePCA refuses it without
    allow_not_dp, and the covariance estimator, which has no such opt-in,
    refuses it outright."""
    from dppca.mechanisms import registry
    from dppca.mechanisms.spec import (
        CovarianceHooks,
        MechanismSpec,
        noisy_matrix_release,
    )
    from dppca.privacy.accounting import Accountant
    from dppca.privacy.guarantees import Release

    def record(epsilon, delta):
        return Release(
            "noiseless", "approximate", epsilon, delta, noise="float",
            proved=False, caveat="not differentially private",
        )  # fmt: skip

    spec = MechanismSpec(
        key="noiseless_cov",
        label="noiseless",
        notion="not_dp",
        uses_delta=True,
        uses_epsilon=True,
        guarantee=lambda n, d, k, e, dl, o: record(e, dl),
        privacy="not DP",
        run=lambda A, n, k, e, dl, rng, o: noisy_matrix_release(A, k),
        covariance=CovarianceHooks(
            plan=lambda n, d, e, dl, kind, check: (1e-300, None, record(e, dl)),
            release=lambda A, n, e, dl, rng, kind, sigma: (A, 0.0),
        ),
        proof="no (not DP)",
    )
    rng = np.random.default_rng(0)
    X = rng.normal(size=(100, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    acc = Accountant(epsilon=2.0, delta=1e-5)
    with registry.registered(spec):
        est = PrivateCovariance(
            epsilon=1.0, delta=1e-6, data_norm=1.0, center=False,
            mechanism="noiseless_cov", accountant=acc,
        )  # fmt: skip
        with pytest.raises(ValueError, match="not differentially private"):
            est.fit(X)
    assert acc.spent == (0.0, 0.0) and not hasattr(est, "covariance_")


# ----------------------------------------------------------------------------
# Add/remove neighbours (issue 43): neighbours="add-remove", max_samples=N
# ----------------------------------------------------------------------------

CAP = 5000


def add_remove(**params):
    return PrivateCovariance(
        **{
            "epsilon": 1.0,
            "delta": 1e-9,
            "center": False,
            "neighbours": "add-remove",
            "max_samples": CAP,
            **params,
        }
    )


def test_replace_is_the_default_and_unchanged():
    """neighbours="replace" (the default) is today's fit: the same draws
    and records as a fit that does not name it, whatever max_samples says
    (unused under replace-one), and no row_count_."""
    X, R = data(n=300, seed=9)
    default = PrivateCovariance(delta=1e-6, data_norm=R, random_state=4)
    named = clone(default).set_params(neighbours="replace", max_samples=7)
    a, b = default.fit(X), named.fit(X)
    assert default.get_params()["neighbours"] == "replace"
    np.testing.assert_array_equal(a.covariance_, b.covariance_)
    np.testing.assert_array_equal(a.location_, b.location_)
    assert a.guarantees_ == b.guarantees_
    assert all(r.neighbours == REPLACE_ONE for r in a.guarantees_)
    assert not hasattr(a, "row_count_") and not hasattr(b, "row_count_")


@pytest.mark.parametrize("center", [False, "public"])
def test_add_remove_at_huge_epsilon_matches_empirical_covariance(center):
    """ε = 1e7 and the cap at n: the count's noise (scale ⌈1/ε_c⌉ = 1 row)
    and the matrix's are tiny, and the rescaled release is scikit-learn's
    covariance within 1e-3 (relative Frobenius)."""
    X, R = data(n=CAP)
    public = np.array([1.0, -1.0, 0.5, 0.0])
    if center == "public":
        centre, bound = public, float(np.linalg.norm([2.0, 1.0, 0.5, 0.25]))
        ref = EmpiricalCovariance(assume_centered=True).fit(X - public)
    else:
        centre, bound = False, R
        ref = EmpiricalCovariance(assume_centered=True).fit(X)
    est = add_remove(
        epsilon=1e7, data_norm=bound, center=centre, random_state=0
    ).fit(X)
    assert abs(est.row_count_ - CAP) <= 20
    assert rel_error(est, ref) < 1e-3
    expected = public if center == "public" else np.zeros(4)
    np.testing.assert_array_equal(est.location_, expected)
    np.testing.assert_allclose(
        est.precision_ @ est.covariance_, np.eye(4), atol=1e-8
    )
    assert est.privacy_spent_ == (1e7, 1e-9)


def test_add_remove_rescales_by_the_released_count_before_the_floor(
    monkeypatch,
):
    """covariance_ is B² · psd_floor(M·N/max(1, n̂), f·N/max(1, n̂)) for
    the released matrix M of S/N and its auto floor f (post-processing):
    captured from the release, recomputed here."""
    from dppca.covariance import estimator as module
    from dppca.covariance import release as release_module

    seen = []

    def capture(*args):
        out = release_module.release(*args)
        seen.append(out)
        return out

    monkeypatch.setattr(module, "release", capture)
    X, R = data(n=400, seed=5)
    est = add_remove(data_norm=R, random_state=1).fit(X)
    ((_, noisy, B, floor, count),) = seen
    assert count == est.row_count_
    factor = CAP / max(1, count)
    expected, _ = psd_floor(noisy * factor, floor * factor)
    np.testing.assert_allclose(est.covariance_, expected * B * B, rtol=1e-12)
    assert est.min_eigenvalue_ == pytest.approx(floor * factor * B * B)
    # an explicit floor is applied as given, to the rescaled matrix
    seen.clear()
    est = add_remove(data_norm=R, min_eigenvalue=0.0, random_state=1).fit(X)
    ((_, noisy, B, _, count),) = seen
    expected, _ = psd_floor(noisy * CAP / max(1, count), 0.0)
    np.testing.assert_allclose(est.covariance_, expected * B * B, rtol=1e-12)
    assert est.min_eigenvalue_ == 0.0


def test_add_remove_records_name_the_relation_and_the_cap():
    """Two records, charged together: the private count (5% of ε, pure)
    then the matrix (the rest of ε, all of δ), each naming add/remove and
    the cap; the report says it in words."""
    from dppca.decomposition.add_remove import add_remove_neighbours

    X, R = data(n=500, seed=3)
    ledger = Accountant(4.0, 1e-6)
    est = add_remove(
        epsilon=2.0, delta=1e-8, data_norm=R, accountant=ledger
    ).fit(X)
    count, matrix = est.guarantees_
    relation = add_remove_neighbours(CAP)
    assert count.neighbours == matrix.neighbours == relation
    assert count.label == "private count of rows (discrete Laplace)"
    assert count.kind == "pure" and count.epsilon == pytest.approx(0.1)
    assert matrix.epsilon == pytest.approx(1.9) and matrix.delta == 1e-8
    assert est.privacy_spent_ == (2.0, 1e-8)
    assert ledger.releases == est.guarantees_
    assert ledger.charges == ("PrivateCovariance",)
    text = str(est.privacy_report())
    assert "add/remove-one" in text and f"1 to {CAP:,} rows" in text
    params = est.privacy_report().parameters
    assert params["neighbours"] == "add-remove"
    assert params["max_samples"] == CAP


def test_add_remove_plan_uses_the_cap():
    """The dry run (planned_records, what the search plans with) and the
    plan's calibration depend on the cap, never on n ≤ N."""
    from dppca.covariance.plan import covariance_plan

    est = add_remove(data_norm=3.0, center=np.zeros(4))
    plans = [covariance_plan(est, n, 4) for n in (1, 17, CAP)]
    assert all(plan.max_samples == CAP for plan in plans)
    assert len({plan.sigma for plan in plans}) == 1
    assert plans[0].sensitivity == pytest.approx(np.sqrt(2) / CAP)
    records = [tuple(planned_records(est, n, 4)) for n in (1, 17, CAP)]
    assert records[0] == records[1] == records[2]
    # the matrix's calibration is replace-one's at n = N with 95% of ε
    replace = clone(est).set_params(neighbours="replace", epsilon=0.95)
    assert covariance_plan(replace, CAP, 4).sigma == pytest.approx(
        plans[0].sigma, rel=1e-12
    )
    assert covariance_plan(replace, 17, 4).sigma > 100 * plans[0].sigma


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(center=True), "needs a public centre"),
        (dict(mechanism="trace_sensitive"), "not proved under add/remove"),
        (dict(neighbours="add"), "neighbours must be one of"),
        (dict(max_samples=0), "max_samples"),
        (dict(max_samples=2**62), "too large for the float64 proof"),
        (dict(max_samples=100), "more than max_samples = 100"),
    ],
)
def test_add_remove_refusals(params, match):
    X, R = data(n=200)
    ledger = Accountant(1.0, 1e-6)
    est = add_remove(data_norm=R, accountant=ledger, **params)
    with pytest.raises(ValueError, match=match):
        est.fit(X)
    assert ledger.spent == (0.0, 0.0) and ledger.releases == ()
    assert not hasattr(est, "covariance_")


def test_add_remove_delta_warning_compares_with_the_cap():
    """n is private: δ is compared with 1/max_samples, whatever n."""
    X, R = data(n=100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        clone(add_remove(data_norm=R)).set_params(
            delta=1e-3, neighbours="replace"
        ).fit(X)  # 1e-3 < 1/100: no warning under replace-one
    with pytest.warns(PrivacyWarning, match="1/max_samples"):
        add_remove(data_norm=R, delta=1e-3, max_samples=10_000).fit(X)


def test_add_remove_methods_and_refit():
    """mahalanobis, score, get_precision on the rescaled release; a later
    replace-one fit drops row_count_."""
    X, R = data(n=2000, seed=4)
    est = add_remove(data_norm=R, epsilon=5.0, random_state=2).fit(X)
    assert isinstance(est.row_count_, int)
    d2 = est.mahalanobis(X[:50])
    centred = X[:50] - est.location_
    expected = np.einsum("ij,jk,ik->i", centred, est.precision_, centred)
    np.testing.assert_allclose(d2, expected)
    sk = EmpiricalCovariance(assume_centered=True).fit(X)
    sk._set_covariance(est.covariance_)
    assert est.score(X[:50]) == pytest.approx(sk.score(X[:50]))
    np.testing.assert_array_equal(est.get_precision(), est.precision_)
    with pytest.warns(PrivacyWarning, match="refitting"):
        est.set_params(neighbours="replace").fit(X)
    assert not hasattr(est, "row_count_")


def test_add_remove_pipeline_charges_one_ledger():
    """An add/remove scaler then an add/remove covariance with one cap:
    one ledger, both charges, every record under that relation."""
    from dppca.decomposition.add_remove import add_remove_neighbours

    X, R = data(n=1000, seed=6)
    ledger = Accountant(4.0, 1e-6)
    lower, upper = X.min(axis=0) - 1, X.max(axis=0) + 1  # public by fiat
    scaler = PrivateStandardScaler(
        bounds=(lower, upper),
        epsilon=1.0,
        accountant=ledger,
        neighbours="add-remove",
        max_samples=CAP,
        random_state=0,
    )
    cov = add_remove(data_norm=4.0, accountant=ledger, random_state=0)
    pipe = Pipeline([("scale", scaler), ("cov", cov)]).fit(X)
    assert ledger.charges == ("PrivateStandardScaler", "PrivateCovariance")
    relation = add_remove_neighbours(CAP)
    assert {r.neighbours for r in ledger.releases} == {relation}
    Z = pipe["scale"].transform(X[:100])
    assert pipe.score(X[:100]) == pytest.approx(pipe["cov"].score(Z))
    assert "1 to 5,000 rows" in str(ledger.report())


def test_add_remove_budgeted_grid_search_runs_private_selection_only():
    """Under add/remove neighbours the private choice runs on a
    PrivateCovariance (random per-row folds, records under the add/remove
    relation); the non-private choice is refused (the folds' fits would
    not be add/remove neighbours), nothing charged or fitted."""
    X, R = data(n=300)
    ledger = Accountant(6.0, 1e-6)
    est = add_remove(data_norm=R)
    grid = {"min_eigenvalue": [0.0, "auto"]}
    with pytest.raises(ValueError, match="add.remove"):
        budgeted_grid_search(
            est, grid, ledger, X, cv=3, selection="non_private"
        )
    assert ledger.spent == (0.0, 0.0) and ledger.releases == ()
    assert not hasattr(est, "covariance_")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        budgeted_grid_search(est, grid, ledger, X, cv=3, random_state=0)
    assert {r.neighbours for r in ledger.releases} == {
        ledger.releases[0].neighbours
    }
    assert "add" in ledger.releases[0].neighbours
