"""Every mechanism of the package, by name: the one registry.

Each family module declares its mechanisms once, as
:class:`~dppca.mechanisms.spec.MechanismSpec` entries in its ``SPECS``; this
module collects them. :class:`dppca.PrivatePCA` (``mechanism=``), the book's
experiments (:func:`dppca.book.mechanism_table.mechanisms`), chapter 13's
guide and the figures' line styles all read :data:`MECHANISMS`. Adding a
mechanism is its module's ``SPECS`` entry and one line of ``FAMILIES`` here.
"""

from __future__ import annotations

from . import (
    complex_gaussian,
    covariance,
    exponential,
    gaussian_approx,
    input_perturbation,
    power_method,
    streaming,
    trace_sensitive,
)
from .spec import MechanismSpec

#: The family modules, in the order of :class:`dppca.PrivatePCA`'s guide.
FAMILIES = (
    input_perturbation,
    gaussian_approx,
    complex_gaussian,
    trace_sensitive,
    streaming,
    power_method,
    exponential,
    covariance,
)

#: The estimator's order (its docstring's table and chapter 13's guide).
_ORDER = (
    "analyze_gauss",
    "laplace",
    "gaussian_approx",
    "complex_gaussian",
    "trace_sensitive",
    "streaming",
    "mod_sulq",
    "noisy_power_method",
    "ppca",
    "amin",
    "wishart_delta",
    "wishart_published",
)

#: The order of the book's experiments (chapters 8, 9 and 12): the papers'
#: mechanisms first, then those after 2019.
EXPERIMENT_ORDER = (
    "ppca",
    "mod_sulq",
    "analyze_gauss",
    "laplace",
    "wishart_published",
    "wishart_delta",
    "gaussian_approx",
    "noisy_power_method",
    "amin",
    "complex_gaussian",
    "trace_sensitive",
    "streaming",
)


def _collect() -> dict[str, MechanismSpec]:
    declared = {spec.key: spec for family in FAMILIES for spec in family.SPECS}
    if sorted(declared) != sorted(_ORDER) or sorted(declared) != sorted(
        EXPERIMENT_ORDER
    ):
        raise ImportError(
            "the registry's orders do not list exactly the declared "
            f"mechanisms {sorted(declared)}"
        )
    return {key: declared[key] for key in _ORDER}


#: Every mechanism :class:`dppca.PrivatePCA` runs, by name.
MECHANISMS: dict[str, MechanismSpec] = _collect()

#: The mechanisms ``mechanism="auto"`` (the default) chooses from, by the
#: forecast of :mod:`dppca.forecast` (the smallest forecast loss): with a
#: ``delta``, Mangoubi and Vishnoi's Gaussian mechanism and Analyze Gauss;
#: without, Laplace input perturbation. All are fully proved with the default
#: safe noise and release from the second moment.
AUTO_CANDIDATES = {
    True: ("gaussian_approx", "analyze_gauss"),
    False: ("laplace",),
}

#: What ``resolve("auto", delta)`` returns where no forecast is made: the
#: candidate of :data:`AUTO_CANDIDATES` that releases eigenvalues.
AUTO_MECHANISM = {True: "analyze_gauss", False: "laplace"}

#: Keyword parameters of the mechanism functions that ``mechanism_options``
#: may not set: the estimator's own (``rng``, the outputs it asks for) and
#: caches or diagnostics, which would keep values computed from the rows in
#: the estimator's parameters.
INTERNAL_OPTIONS = frozenset(
    {
        "rng",
        "noise",
        "output",
        "return_spectrum",
        "return_run",
        "moment_cache",
        "diagnostics",
        "n_rows",
    }
)

#: Mechanisms that add Laplace or Gaussian noise, drawn through
#: :mod:`dppca.privacy.noise` with the estimator's ``noise`` kind. The others
#: are samplers (PPCA, Amin et al.) or add a Wishart matrix, for which the
#: package has only floating-point implementations (chapter 10).
ADDITIVE_NOISE = tuple(
    key for key, spec in MECHANISMS.items() if spec.additive_noise
)

#: Mechanisms whose released matrix has private eigenvalues
#: (``explained_variance_``).
RELEASES_EIGENVALUES = tuple(
    key for key, spec in MECHANISMS.items() if spec.releases_eigenvalues
)

#: The mechanisms by their key in the book's experiments.
BY_EXPERIMENT_KEY = {
    MECHANISMS[key].experiment_key: MECHANISMS[key] for key in EXPERIMENT_ORDER
}


def resolve(mechanism, delta) -> tuple[str, MechanismSpec]:
    """``(name, spec)`` of the ``mechanism`` parameter of
    :class:`dppca.PrivatePCA` (``"auto"`` resolved by ``delta``)."""
    if mechanism == "auto":
        name = AUTO_MECHANISM[delta is not None]
        return name, MECHANISMS[name]
    if mechanism not in MECHANISMS:
        raise ValueError(
            f"mechanism must be 'auto' or one of {sorted(MECHANISMS)}; "
            f"got {mechanism!r}"
        )
    return mechanism, MECHANISMS[mechanism]


__all__ = [
    "ADDITIVE_NOISE",
    "AUTO_CANDIDATES",
    "AUTO_MECHANISM",
    "BY_EXPERIMENT_KEY",
    "EXPERIMENT_ORDER",
    "FAMILIES",
    "INTERNAL_OPTIONS",
    "MECHANISMS",
    "MechanismSpec",
    "RELEASES_EIGENVALUES",
    "resolve",
]
