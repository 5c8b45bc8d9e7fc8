"""Issue 43, item 1: ``PrivatePCA`` with ``mechanism="auto"`` needs the
privacy notion stated (``delta=0.0`` for pure ε-DP, a δ in (0, 1) for
(ε, δ)-DP); without it the fit refuses before any charge, and says what
each notion's route is forecast to lose."""

import warnings

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

from dppca import PrivatePCA, budgeted_grid_search
from dppca.decomposition.parameters import (
    NotionNotStatedError,
    delta_hint,
    notion_delta,
)
from dppca.privacy.accounting import Accountant


def rows(n=300, d=6, seed=0):
    X = np.random.default_rng(seed).standard_normal((n, d))
    X[:, 0] *= 4.0
    return X / np.linalg.norm(X, axis=1).max()


def test_auto_without_delta_is_refused_before_any_charge():
    X = rows()
    ledger = Accountant(10.0, 1e-5)
    generator = np.random.default_rng(3)
    state = generator.bit_generator.state
    est = PrivatePCA(
        2, epsilon=1.0, data_norm=1.0, accountant=ledger, random_state=generator
    )
    with pytest.raises(NotionNotStatedError) as error:
        est.fit(X)
    assert isinstance(error.value, ValueError)
    message = str(error.value)
    assert "delta=0.0 for pure ε-DP" in message
    # both routes' forecasts, from public quantities
    assert "'laplace'" in message and "'gaussian_approx'" in message
    assert f"delta={delta_hint(300):g}" in message
    assert ledger.spent == (0.0, 0.0) and not ledger.charges
    assert generator.bit_generator.state == state
    assert not hasattr(est, "components_")
    with pytest.raises(NotionNotStatedError):
        est.plan(300, 6)


def test_other_parameter_errors_come_first():
    # a bad parameter is named even when the notion is not stated
    with pytest.raises(ValueError, match="n_components must satisfy"):
        PrivatePCA(7, data_norm=1.0).fit(rows())
    with pytest.raises(ValueError, match="data_norm is required"):
        PrivatePCA(2).fit(rows())


def test_delta_zero_is_pure_and_matches_the_named_laplace_fit():
    X = rows()
    kw = dict(epsilon=1.0, data_norm=1.0, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stated = PrivatePCA(2, delta=0.0, **kw).fit(X)
        named = PrivatePCA(2, mechanism="laplace", **kw).fit(X)
        # a named pure mechanism with delta=0.0: no "delta is not used"
        quiet = PrivatePCA(2, mechanism="laplace", delta=0.0, **kw)
    assert stated.mechanism_ == "laplace"
    assert stated.privacy_spent_ == (1.0, 0.0)
    assert all(r.delta == 0 for r in stated.privacy_releases_)
    np.testing.assert_array_equal(stated.components_, named.components_)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        quiet.fit(X)
    assert not any("is not used" in str(w.message) for w in caught)
    assert "pure" in str(stated.privacy_report())


def test_a_positive_delta_runs_the_gaussian_route():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PrivatePCA(2, epsilon=1.0, delta=1e-6, data_norm=1.0)
        est.set_params(random_state=0).fit(rows())
    assert est.mechanism_ in ("gaussian_approx", "analyze_gauss")
    assert est.privacy_spent_[1] > 0


@pytest.mark.parametrize(
    "delta, error", [(-1e-9, ValueError), (1.0, ValueError), (True, TypeError)]
)
def test_delta_values_are_checked(delta, error):
    est = PrivatePCA(2, delta=delta, data_norm=1.0)
    with pytest.raises(error, match="delta"):
        est.fit(rows())


def test_a_mechanism_that_needs_delta_refuses_zero():
    est = PrivatePCA(2, delta=0.0, mechanism="gaussian_approx", data_norm=1.0)
    with pytest.raises(ValueError, match="needs a delta > 0"):
        est.fit(rows())


def test_notion_delta_reads_the_parameter():
    est = PrivatePCA(2, data_norm=1.0)
    with pytest.raises(NotionNotStatedError):
        notion_delta(est)
    assert notion_delta(est.set_params(mechanism="laplace")) is None
    assert notion_delta(est.set_params(delta=0.0)) is None
    assert notion_delta(est.set_params(delta=np.float32(0.0))) is None
    assert notion_delta(est.set_params(delta=1e-7)) == 1e-7
    assert delta_hint(1797) == 1e-5 and delta_hint(199_523) == 1e-7


def test_budgeted_grid_search_keeps_a_stated_pure_step_pure():
    X = rows(600)
    ledger = Accountant(3.0, 0.0)  # a pure budget
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            make_pipeline(PrivatePCA(data_norm=1.0, delta=0.0)),
            {"privatepca__n_components": [1, 2]},
            ledger,
            X,
            cv=2,
            random_state=0,
        )
    assert search.budget_per_fit_[1] is None
    assert ledger.spent[1] == 0.0
    assert search.best_estimator_[-1].mechanism_ == "laplace"
