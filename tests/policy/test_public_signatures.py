"""One calling convention for the mechanism functions (issue 41): the data
(and ``k`` for a subspace release) by position, the privacy parameters and
``rng`` by keyword only; and the top level exports nothing that is not
differentially private (the published Wishart mechanism stays importable
from its module, where chapter 3 demonstrates it). Every exported function
of the rows takes a keyword-only ``max_samples=None`` (issue 43: a public cap
gives add/remove-one neighbours, ``dppca.mechanisms.padding``)."""

import functools
import importlib
import inspect
import pkgutil
import warnings

import numpy as np
import pytest

import dppca
import dppca.mechanisms
from dppca.exceptions import NotPrivateWarning
from dppca.mechanisms import input_perturbation_wishart
from dppca.privacy.guarantees import guarantee_of

BUDGET = ("epsilon", "delta", "rng")
EPSILON, DELTA = 1.0, 1e-5

#: What comes before the keyword-only part: a matrix release reads only the
#: rows, a subspace release the rows and k, the moment entry point of PPCA
#: the second moment, its number of rows and k.
POSITIONAL = {("X",), ("X", "k"), ("A", "n", "k")}


def _exported_mechanisms():
    return sorted(
        name
        for name in dppca.__all__
        if inspect.isfunction(getattr(dppca, name))
        and "rng" in inspect.signature(getattr(dppca, name)).parameters
    )


def _family_mechanisms():
    """Every public function defined in a family module that takes a privacy
    parameter and a source of randomness: the ones that release."""
    found = {}
    for info in pkgutil.iter_modules(dppca.mechanisms.__path__):
        module = importlib.import_module(f"dppca.mechanisms.{info.name}")
        for name, function in vars(module).items():
            if (
                name.startswith("_")
                or not inspect.isfunction(function)
                or function.__module__ != module.__name__
            ):
                continue
            parameters = inspect.signature(function).parameters
            if "rng" in parameters and {"epsilon", "delta"} & set(parameters):
                found[f"{info.name}.{name}"] = function
    return found


def _not_keyword_only(function):
    parameters = inspect.signature(function).parameters
    return [
        p
        for p in BUDGET
        if p in parameters
        and parameters[p].kind is not inspect.Parameter.KEYWORD_ONLY
    ]


def test_the_exported_mechanisms_are_found():
    """The scan below sees the mechanism functions ``dppca`` exports."""
    assert {
        "analyze_gauss",
        "mod_sulq",
        "laplace_input_perturbation",
        "wishart_input_perturbation_delta",
        "ppca",
        "ppca_from_second_moment",
        "amin_covariance",
        "amin_subspace",
    } <= set(_exported_mechanisms())


@pytest.mark.parametrize("name", _exported_mechanisms())
def test_an_exported_mechanism_has_the_one_signature(name):
    parameters = inspect.signature(getattr(dppca, name)).parameters
    assert not _not_keyword_only(getattr(dppca, name)), name
    assert {"epsilon", "delta"} & set(parameters), name
    positional = tuple(
        p.name
        for p in parameters.values()
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    )
    assert positional in POSITIONAL, (name, positional)


def test_every_family_mechanism_takes_its_budget_by_keyword():
    found = _family_mechanisms()
    assert {
        "exponential.ppca",
        "covariance.amin_covariance_from_second_moment",
        "power_method.noisy_power_method_from_operator",
        "streaming.dp_pca_oja",
        "trace_sensitive.trace_sensitive_covariance",
    } <= set(found)
    offending = {
        name: _not_keyword_only(function)
        for name, function in found.items()
        if _not_keyword_only(function)
    }
    assert offending == {}


def test_the_signature_check_sees_a_positional_budget():
    def release(X, epsilon, *, delta, rng=None):
        return X

    assert _not_keyword_only(release) == ["epsilon"]


def _call(function, X):
    """One release of ``function`` on ``X`` with the budget it takes; the
    warnings it raised."""
    parameters = inspect.signature(function).parameters
    budget = {"epsilon": EPSILON, "delta": DELTA, "rng": 0}
    budget = {key: v for key, v in budget.items() if key in parameters}
    positional = [
        p.name
        for p in parameters.values()
        if p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    ]
    values = {"X": X, "A": X.T @ X / X.shape[0], "n": X.shape[0], "k": 2}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = function(*(values[p] for p in positional), **budget)
    return out, [w.category for w in caught]


def _is_private(function, X) -> bool:
    """No NotPrivateWarning, and a record within the budget asked."""
    out, categories = _call(function, X)
    record = guarantee_of(out)
    return (
        not any(issubclass(c, NotPrivateWarning) for c in categories)
        and record is not None
        and record.epsilon <= EPSILON
        and record.delta <= DELTA
    )


@pytest.fixture(scope="module")
def rows():
    X = np.random.default_rng(3).standard_normal((200, 5))
    return X / np.maximum(np.linalg.norm(X, axis=1), 1.0)[:, None]


@pytest.mark.parametrize("name", _exported_mechanisms())
def test_nothing_exported_is_not_private(name, rows):
    assert _is_private(getattr(dppca, name), rows), name


def test_the_published_wishart_is_flagged_and_kept_off_the_top_level(rows):
    published = input_perturbation_wishart.wishart_input_perturbation
    assert not _is_private(published, rows)
    assert "wishart_input_perturbation" not in dppca.__all__
    assert not hasattr(dppca, "wishart_input_perturbation")


def _rows_mechanisms():
    """The exported mechanisms that read the rows ``X``."""
    return [
        name
        for name in _exported_mechanisms()
        if next(iter(inspect.signature(getattr(dppca, name)).parameters)) == "X"
    ]


def test_the_rows_mechanisms_are_found():
    assert set(_rows_mechanisms()) == {
        "analyze_gauss",
        "mod_sulq",
        "laplace_input_perturbation",
        "wishart_input_perturbation_delta",
        "ppca",
        "amin_covariance",
        "amin_subspace",
    }


@pytest.mark.parametrize("name", _rows_mechanisms())
def test_a_rows_mechanism_takes_a_keyword_only_cap(name):
    parameter = inspect.signature(getattr(dppca, name)).parameters[
        "max_samples"
    ]
    assert parameter.kind is inspect.Parameter.KEYWORD_ONLY
    assert parameter.default is None  # replace-one unless a cap is given


@pytest.mark.parametrize("name", _rows_mechanisms())
def test_nothing_exported_is_not_private_with_a_cap(name, rows):
    """With ``max_samples`` the release is private too, and its record
    names the add/remove relation."""
    function = functools.partial(getattr(dppca, name), max_samples=1000)
    functools.update_wrapper(function, getattr(dppca, name))
    out, categories = _call(function, rows)
    record = guarantee_of(out)
    assert not any(issubclass(c, NotPrivateWarning) for c in categories)
    assert record.epsilon <= EPSILON and record.delta <= DELTA
    assert record.neighbours.startswith("add/remove-one")


def test_the_published_wishart_refuses_a_cap(rows):
    published = input_perturbation_wishart.wishart_input_perturbation
    assert "max_samples" in inspect.signature(published).parameters
    with pytest.raises(ValueError, match="does not take max_samples"):
        published(rows, epsilon=EPSILON, rng=0, max_samples=1000)
