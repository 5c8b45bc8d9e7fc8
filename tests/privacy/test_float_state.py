"""The caller's floating-point error state is no channel (issue 38, item 1).

numpy's ``np.errstate`` and ``scipy.special.errstate`` belong to whoever
calls the package. If they reached the computations on private rows, one
subnormal entry in one row would decide whether a fit returns, raises
``FloatingPointError`` or prints a ``RuntimeWarning``: an output that no
noise covers. Every public entry point that reads rows (or a second moment
computed from them) therefore runs under the package's own state
(:mod:`dppca.float_state`).

These tests run neighbouring data sets under three caller states: the
default, every event raising, and every event warning with
``RuntimeWarning`` turned into an error. Between neighbours the outcome
(returns or raises, the exception's type and message, the floating-point
warnings emitted) must be the same, and the same as under the default state.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np
import pytest
import scipy.special
from hypothesis import given, settings
from hypothesis import strategies as st
from test_observable_outcomes import NAMES, SETTINGS, cases, make

import dppca
from dppca import PrivateStandardScaler
from dppca.linalg import clipped_sums, rows
from dppca.mechanisms import (
    complex_gaussian,
    covariance,
    exponential,
    gaussian_approx,
    input_perturbation,
    power_method,
    streaming,
    trace_sensitive,
)
from dppca.privacy import noise, private_bounds
from dppca.privacy.accounting import Accountant

MODES = ("default", "raise", "warn")
CALLER_MODES = ("raise", "warn")
N, D = 40, 4
DELTA = 2.0**-20


@contextlib.contextmanager
def caller_state(mode: str):
    """The caller's error state ``mode``; yields the list of the warnings
    that were not turned into errors."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if mode == "default":
            yield caught
            return
        with np.errstate(all=mode), scipy.special.errstate(all=mode):
            if mode == "warn":
                warnings.simplefilter("error", RuntimeWarning)
                warnings.simplefilter(
                    "error", scipy.special.SpecialFunctionWarning
                )
            yield caught


#: The warnings a floating-point event prints (the package's own warnings
#: may differ between neighbours: they follow the releases).
FLOAT_WARNINGS = (RuntimeWarning, scipy.special.SpecialFunctionWarning)


def observe(call, mode: str):
    """What a caller sees of ``call()`` under ``mode``: whether it returned
    or raised (type and message) and the floating-point warnings it
    emitted."""
    with caller_state(mode) as caught:
        try:
            call()
            result = ("returned",)
        except Exception as exc:  # noqa: BLE001 - the outcome under test
            result = ("raised", type(exc).__name__, str(exc))
    emitted = tuple(
        (w.category.__name__, str(w.message))
        for w in caught
        if issubclass(w.category, FLOAT_WARNINGS)
    )
    return result, emitted


def base_rows() -> np.ndarray:
    rng = np.random.default_rng(5)
    directions = dppca.validation.normalize_rows(rng.standard_normal((N, D)))
    return directions * rng.uniform(0.2, 0.9, (N, 1))


def neighbour(X, kind: str) -> np.ndarray:
    """``X`` with its first row replaced: one subnormal entry, one entry
    whose square underflows, or (outside the unit ball, for the entry
    points that clip) entries whose squares overflow."""
    X = X.copy()
    if kind == "subnormal":
        X[0] = [1e-310, 0.3, -0.2, 0.1]
    elif kind == "tiny_square":
        X[0] = [1e-200, -0.5, 0.2, 0.3]
    elif kind == "huge":
        X[0] = [1e200, -1e200, 1e154, 1.5e308]
    else:
        raise AssertionError(kind)
    return X


IN_BALL = ("subnormal", "tiny_square")
ANY_ROW = (*IN_BALL, "huge")


# -- PrivatePCA, every mechanism of the registry ------------------------------


def fit_outcome(name: str, X, mode: str, **overrides):
    """Outcome of a fit with a fresh ledger; a refusal must come before
    any charge (every finite row is in the domain with clip=True)."""
    acct = Accountant(1e3, 0.5)
    est = make(name, accountant=acct, **overrides)
    result, emitted = observe(lambda: est.fit(X), mode)
    if result[0] == "raised":
        assert acct.spent == (0.0, 0.0), f"refused after the charge: {result}"
        return result, emitted
    labels = tuple(r.label for r in est.privacy_releases_)
    return (result, labels, tuple(acct.charges)), emitted


@pytest.mark.parametrize("kind", ANY_ROW)
@pytest.mark.parametrize("mode", CALLER_MODES)
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_private_pca_neighbours_alike_under_caller_state(
    name, center, mode, kind
):
    """Issue 38's case: ``PrivatePCA(...).fit`` returned on D and raised
    ``FloatingPointError`` (or warned) on D′ under the caller's state.

    Needs ``PrivatePCA.fit`` to own the float state (``owns_float_state``
    on ``fit`` in dppca/decomposition/pca.py)."""
    X = base_rows()
    X_prime = neighbour(X, kind)
    options = dict(center=center, n_components=2, delta=DELTA)
    if name in ("ppca", "amin", "streaming"):
        options["n_components"] = 1
    first = fit_outcome(name, X, mode, **options)
    second = fit_outcome(name, X_prime, mode, **options)
    assert first == second
    assert first == fit_outcome(name, X, "default", **options)


@pytest.mark.parametrize("mode", CALLER_MODES)
@pytest.mark.parametrize("name", NAMES)
@settings(SETTINGS, max_examples=6)
@given(data=st.data())
def test_neighbour_sweep_under_caller_state(name, mode, data):
    """The sweep of ``test_observable_outcomes`` (every centring, bound
    option, clip, input format, extreme entries), under a caller state that
    raises or warns on every floating-point event: same outcome on both."""
    params, X, X_prime = data.draw(cases(name))
    first = fit_outcome(name, X, mode, **params)
    second = fit_outcome(name, X_prime, mode, **params)
    assert first == second


# -- the functional entry points ----------------------------------------------

KW = dict(rng=0)


def _scaler(X):
    est = PrivateStandardScaler(bounds=(-1.0, 1.0), epsilon=1.0, random_state=0)
    return est.fit(X)


#: name -> (call on the rows, accepts any finite rows)
ON_ROWS = {
    "analyze_gauss": (
        lambda X: dppca.analyze_gauss(X, epsilon=1.0, delta=DELTA, **KW),
        False,
    ),
    "mod_sulq": (
        lambda X: dppca.mod_sulq(X, epsilon=1.0, delta=DELTA, **KW),
        False,
    ),
    "laplace_input_perturbation": (
        lambda X: dppca.laplace_input_perturbation(X, epsilon=1.0, **KW),
        False,
    ),
    "wishart_input_perturbation": (
        lambda X: input_perturbation.wishart_input_perturbation(
            X, epsilon=1.0, **KW
        ),
        False,
    ),
    "wishart_input_perturbation_delta": (
        lambda X: dppca.wishart_input_perturbation_delta(X, delta=DELTA, **KW),
        False,
    ),
    "ppca": (lambda X: dppca.ppca(X, 2, epsilon=1.0, **KW), False),
    "gaussian_subspace_recovery": (
        lambda X: gaussian_approx.gaussian_subspace_recovery(
            X, 2, epsilon=1.0, delta=DELTA, **KW
        ),
        False,
    ),
    "rank_k_covariance_approximation": (
        lambda X: gaussian_approx.rank_k_covariance_approximation(
            X, 2, epsilon=1.0, delta=DELTA, **KW
        ),
        False,
    ),
    "complex_gaussian_approximation": (
        lambda X: complex_gaussian.complex_gaussian_approximation(
            X, 2, epsilon=1.0, delta=DELTA, **KW
        ),
        False,
    ),
    "amin_subspace": (
        lambda X: dppca.amin_subspace(X, 2, epsilon=1.0, **KW),
        False,
    ),
    "amin_covariance": (
        lambda X: dppca.amin_covariance(X, 2, epsilon=1.0, **KW),
        False,
    ),
    "noisy_power_method": (
        lambda X: power_method.noisy_power_method(
            X, 2, epsilon=1.0, delta=DELTA, clip=True, **KW
        ),
        True,
    ),
    "dp_pca_oja": (
        lambda X: streaming.dp_pca_oja(
            X, 1, epsilon=1.0, delta=DELTA, eigengap=0.1, **KW
        ),
        True,
    ),
    "trace_sensitive_covariance": (
        lambda X: trace_sensitive.trace_sensitive_covariance(
            X, epsilon=1.0, delta=DELTA, **KW
        ),
        False,
    ),
    "trace_sensitive_subspace": (
        lambda X: trace_sensitive.trace_sensitive_subspace(
            X, 2, epsilon=1.0, delta=DELTA, **KW
        ),
        False,
    ),
    "norm_quantile": (
        lambda X: private_bounds.norm_quantile(
            X, 0.9, 1.0, lower=0.1, upper=2.0, **KW
        ),
        True,
    ),
    "centred_norm_quantile": (
        lambda X: private_bounds.centred_norm_quantile(
            X,
            np.full(D, 0.1),
            0.9,
            1.0,
            lower=0.1,
            upper=2.0,
            pre_clip=1.0,
            **KW,
        ),
        True,
    ),
    "clipped_count": (
        lambda X: private_bounds.clipped_count(
            rows.row_norms(X), 0.5, 1.0, rng=0
        ),
        True,
    ),
    "clipped_second_moment": (
        lambda X: clipped_sums.clipped_second_moment(
            X, 1.0, centre=np.full(D, 0.1), pre_clip=1.0
        ),
        True,
    ),
    "clipped_row_sum": (
        lambda X: clipped_sums.clipped_row_sum(X, 1.0),
        True,
    ),
    "unit_ball_rows": (lambda X: rows.unit_ball_rows(X, 1.0), True),
    "PrivateStandardScaler.fit": (_scaler, True),
}


def _moment(X):
    return dppca.linalg.second_moment(X)


#: name -> call on the second moment of the rows
ON_MOMENT = {
    "analyze_gauss": lambda A: (
        input_perturbation.analyze_gauss_from_second_moment(
            A, N, epsilon=1.0, delta=DELTA, **KW
        )
    ),
    "mod_sulq": lambda A: input_perturbation.mod_sulq_from_second_moment(
        A, N, epsilon=1.0, delta=DELTA, **KW
    ),
    "laplace": lambda A: (
        input_perturbation.laplace_input_perturbation_from_second_moment(
            A, N, epsilon=1.0, **KW
        )
    ),
    "wishart": lambda A: (
        input_perturbation.wishart_input_perturbation_from_second_moment(
            A, N, epsilon=1.0, **KW
        )
    ),
    "wishart_delta": lambda A: (
        input_perturbation.wishart_input_perturbation_delta_from_second_moment(
            A, N, delta=DELTA, **KW
        )
    ),
    "ppca": lambda A: exponential.ppca_from_second_moment(
        A, N, 2, epsilon=1.0, **KW
    ),
    "gaussian_subspace_recovery": lambda A: (
        gaussian_approx.gaussian_subspace_recovery_from_second_moment(
            A, N, 2, epsilon=1.0, delta=DELTA, **KW
        )
    ),
    "complex_gaussian": lambda A: (
        complex_gaussian.complex_gaussian_approximation_from_second_moment(
            A, N, 2, epsilon=1.0, delta=DELTA, **KW
        )
    ),
    "amin_subspace": lambda A: covariance.amin_subspace_from_second_moment(
        A, N, 2, epsilon=1.0, **KW
    ),
    "amin_covariance": lambda A: covariance.amin_covariance_from_second_moment(
        A, N, 2, epsilon=1.0, **KW
    ),
    "noisy_power_method": lambda A: (
        power_method.noisy_power_method_from_second_moment(
            A, N, 2, epsilon=1.0, delta=DELTA, **KW
        )
    ),
    "add_gaussian": lambda A: noise.add_gaussian(A, 0.1, rng=0),
    "add_laplace": lambda A: noise.add_laplace(A, 0.1, rng=0),
}


def _row_cases():
    for name, (_, any_row) in ON_ROWS.items():
        for kind in ANY_ROW if any_row else IN_BALL:
            yield name, kind


@pytest.mark.parametrize("mode", CALLER_MODES)
@pytest.mark.parametrize(("name", "kind"), list(_row_cases()))
def test_entry_points_on_rows_alike_under_caller_state(name, kind, mode):
    call, _ = ON_ROWS[name]
    X = base_rows()
    X_prime = neighbour(X, kind)
    first = observe(lambda: call(X), mode)
    assert first == observe(lambda: call(X_prime), mode)
    assert first == observe(lambda: call(X), "default")


@pytest.mark.parametrize("mode", CALLER_MODES)
@pytest.mark.parametrize("kind", IN_BALL)
@pytest.mark.parametrize("name", sorted(ON_MOMENT))
def test_entry_points_on_second_moment_alike_under_caller_state(
    name, kind, mode
):
    call = ON_MOMENT[name]
    X = base_rows()
    A, A_prime = _moment(X), _moment(neighbour(X, kind))
    first = observe(lambda: call(A), mode)
    assert first == observe(lambda: call(A_prime), mode)
    assert first == observe(lambda: call(A), "default")


@pytest.mark.parametrize("mode", CALLER_MODES)
@pytest.mark.parametrize("kind", ANY_ROW)
def test_dask_paths_alike_under_caller_state(mode, kind):
    """Dask computes the chunks in worker threads, where the caller's
    ``np.errstate`` does not reach but the process-wide warning filters
    do: the per-chunk functions own the state too."""
    da = pytest.importorskip("dask.array")
    from dppca.linalg import distributed

    X = base_rows()
    X_prime = neighbour(X, kind)

    def run(rows_):
        chunks = da.from_array(rows_, chunks=(10, D))
        distributed.second_moment_dask(chunks, clip=True)
        multiply, _, _ = distributed.second_moment_operator(chunks, clip=True)
        multiply(np.eye(D)[:, :2])

    first = observe(lambda: run(X), mode)
    assert first == observe(lambda: run(X_prime), mode)
    assert first == (("returned",), ())


# -- the caller's state is left as it was -------------------------------------


@pytest.mark.parametrize("fails", [False, True])
def test_caller_state_is_restored(fails):
    X = base_rows()
    if fails:
        X[0, 0] = np.nan  # refused: the state is restored on the way out
    numpy_state = dict(divide="warn", over="raise", under="warn")
    with np.errstate(**numpy_state), scipy.special.errstate(underflow="raise"):
        before = np.geterr(), scipy.special.geterr()
        try:
            dppca.analyze_gauss(X, epsilon=1.0, delta=DELTA, rng=0)
        except ValueError:
            assert fails
        else:
            assert not fails
        assert (np.geterr(), scipy.special.geterr()) == before
        with pytest.raises(FloatingPointError):
            np.array([1e300]) * 1e300  # the caller's state still applies
