"""``PrivateCovariance(max_rows_per_person=m).fit(X, groups=g)`` (issue 43):
the estimand (the padded per-person second moment), the records and the
report (per person, m rows), scikit-learn's conventions, a Pipeline, and
the fit without groups left as it was."""

from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

from dppca import PrivatePCA
from dppca.base import _generator
from dppca.covariance import PrivateCovariance
from dppca.covariance.plan import planned_records
from dppca.decomposition.persons import (
    Persons,
    kept_rows,
    person_codes,
    person_neighbours,
    subsampling_generator,
)
from dppca.exceptions import PrivacyWarning
from dppca.privacy.accounting import Accountant
from dppca.privacy.guarantees import REPLACE_ONE

R, D, M = 4.0, 4, 3
#: Float noise at a huge ε: the release is the statistic up to ~1e-7 (the
#: safe noise would round it to its grid).
HUGE = dict(epsilon=1e12, delta=1e-3, min_eigenvalue=0.0, noise="float")


def grouped(N=300, seed=0, most=6):
    """``(X, g)``: ``N`` persons with 1 to ``most`` rows each, rows within
    R of the origin (a person's rows near its own point)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, most + 1, size=N)
    centres = rng.normal(size=(N, D)) * [1.2, 0.8, 0.5, 0.3]
    g = np.repeat(np.arange(N), counts)
    X = centres[g] + 0.3 * rng.normal(size=(len(g), D))
    X *= np.minimum(1.0, (R * 0.99) / np.linalg.norm(X, axis=1))[:, None]
    order = rng.permutation(len(g))  # persons' rows interleaved
    return X[order], g[order]


def fitted(X, g, **params):
    est = PrivateCovariance(
        **{
            "data_norm": R,
            "delta": 1e-6,
            "max_rows_per_person": M,
            "random_state": 0,
            **params,
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, groups=g)


def kept(X, g, seed=0):
    """The rows the fit keeps (its generator, then the choice's)."""
    codes, N = person_codes(g, len(X))
    rng = _generator(seed)
    return X[kept_rows(Persons(codes, N, M), subsampling_generator(rng))], N


@pytest.mark.parametrize("center", [False, "public", True])
def test_at_huge_epsilon_the_release_is_the_padded_per_person_moment(center):
    X, g = grouped()
    c = np.array([0.2, -0.1, 0.0, 0.1])
    est = fitted(
        X,
        g,
        center=c if center == "public" else center,
        centered_norm=2 * R,
        # about c the rows are within R + ‖c‖ (nothing clipped)
        data_norm=R + np.linalg.norm(c) if center == "public" else R,
        **HUGE,
    )
    rows, N = kept(X, g)
    assert est.n_persons_ == N == 300
    assert len(rows) < len(X)  # some persons had more than m rows
    if center is True:
        location = rows.sum(axis=0) / (N * M)  # the padded mean
    else:
        location = c if center == "public" else np.zeros(D)
    np.testing.assert_allclose(est.location_, location, atol=1e-5)
    centred = rows - est.location_
    padded = centred.T @ centred / (N * M)
    np.testing.assert_allclose(est.covariance_, padded, atol=1e-5)
    # the padded moment, not the rows' covariance: persons with fewer
    # than m rows pull it towards zero
    assert np.trace(est.covariance_) < 0.9 * np.trace(
        centred.T @ centred / len(rows)
    )
    assert "padded per-person second moment" in est.estimand_
    assert f"(1/{M})" in est.estimand_ and "300 persons" in est.estimand_


def test_records_and_report_say_per_person_and_m():
    X, g = grouped()
    est = fitted(X, g, center=True, epsilon=1.0)
    mean, matrix = est.guarantees_
    for record in (mean, matrix):
        assert record.neighbours == person_neighbours(M)
        assert f"at most {M} rows per person" in record.neighbours
    # calibrated at the 300 persons: the records of a plan on 300 rows,
    # with the per-person relation
    plain = PrivateCovariance(
        **{
            **est.get_params(),
            "max_rows_per_person": None,
            "accountant": None,
        }
    )
    for got, row_level in zip(
        est.guarantees_, planned_records(plain, 300, D), strict=True
    ):
        assert got.neighbours != row_level.neighbours == REPLACE_ONE
        assert (got.epsilon, got.delta) == (row_level.epsilon, row_level.delta)
        assert got.as_dict() | {"neighbours": REPLACE_ONE} == (
            row_level.as_dict()
        )
    assert est.guarantees_ == tuple(planned_records(est, len(X), D, 300))
    text = str(est.privacy_report())
    assert f"per person, at most {M} rows" in text
    assert "differ in all the rows of one person" in text
    assert est.privacy_report().to_dict()["neighbours"] == [
        person_neighbours(M)
    ]


def test_the_default_mirrors_private_pca_and_sklearn_conventions_hold():
    default = inspect.signature(PrivateCovariance).parameters
    pca = inspect.signature(PrivatePCA).parameters
    assert (
        default["max_rows_per_person"].default
        == pca["max_rows_per_person"].default
        is None
    )
    est = PrivateCovariance(max_rows_per_person=5, delta=1e-6, data_norm=R)
    assert est.get_params()["max_rows_per_person"] == 5
    assert clone(est).get_params() == est.get_params()
    assert est.set_params(max_rows_per_person=2).max_rows_per_person == 2
    assert "max_rows_per_person=2" in repr(est)


def test_in_a_pipeline_with_step_groups_and_one_ledger():
    X, g = grouped()
    ledger = Accountant(3.0, 1e-5)
    pipe = Pipeline(
        [
            ("identity", FunctionTransformer()),
            (
                "cov",
                PrivateCovariance(
                    data_norm=R,
                    delta=1e-6,
                    max_rows_per_person=M,
                    accountant=ledger,
                    random_state=1,
                ),
            ),
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(X, cov__groups=g)
    cov = pipe[-1]
    assert cov.n_persons_ == 300
    assert ledger.releases == cov.guarantees_
    assert {r.neighbours for r in ledger.releases} == {person_neighbours(M)}
    assert np.isfinite(pipe.score(X))  # the Gaussian log-likelihood
    assert "per person, at most 3 rows" in str(ledger.report())
    # a clone of the pipeline fits alike
    again = clone(pipe).set_params(cov__accountant=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again.fit(X, cov__groups=g)
    np.testing.assert_array_equal(again[-1].covariance_, cov.covariance_)


def test_without_groups_nothing_changes_and_refit_forgets_the_persons():
    X, g = grouped()
    a = PrivateCovariance(data_norm=R, delta=1e-6, random_state=3).fit(X)
    b = PrivateCovariance(
        data_norm=R, delta=1e-6, random_state=3, max_rows_per_person=None
    ).fit(X, groups=None)
    np.testing.assert_array_equal(a.covariance_, b.covariance_)
    assert a.guarantees_ == b.guarantees_
    assert not hasattr(a, "n_persons_") and not hasattr(a, "estimand_")
    est = fitted(X, g)
    assert est.n_persons_ == 300
    est.set_params(max_rows_per_person=None)
    with pytest.warns(PrivacyWarning):  # a second fit without a ledger
        est.fit(X)
    assert not hasattr(est, "n_persons_") and not hasattr(est, "estimand_")
    assert est.guarantees_[-1].neighbours == REPLACE_ONE


def test_the_delta_warning_compares_with_the_persons():
    X, g = grouped(N=300)
    # 1/len(X) < δ = 2e-3 < 1/300: a warning per row, none per person
    assert 1 / len(X) < 2e-3 < 1 / 300
    with pytest.warns(PrivacyWarning, match="delta >= 1/n"):
        PrivateCovariance(data_norm=R, delta=2e-3).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyWarning)
        PrivateCovariance(data_norm=R, delta=2e-3, max_rows_per_person=M).fit(
            X, groups=g
        )
    with pytest.warns(PrivacyWarning, match="1/N for the N persons"):
        PrivateCovariance(data_norm=R, delta=4e-3, max_rows_per_person=M).fit(
            X, groups=g
        )


def test_every_centring_runs_and_trace_sensitive_is_refused_with_its_reason():
    X, g = grouped()
    for center in (True, False, np.zeros(D)):
        for centred in ("triangle", None, 3.0):
            est = fitted(X, g, center=center, centered_norm=centred)
            assert est.mechanism_ == "analyze_gauss"
            assert np.all(np.linalg.eigvalsh(est.covariance_) > 0)
    with pytest.raises(ValueError, match="histogram of the rows' norms"):
        fitted(X, g, mechanism="trace_sensitive")
    with pytest.raises(ValueError, match="use one or the other"):
        fitted(X, g, neighbours="add-remove")
    with pytest.raises(ValueError, match="pass groups"):
        planned_records(
            PrivateCovariance(data_norm=R, delta=1e-6, max_rows_per_person=M),
            len(X),
            D,
        )
