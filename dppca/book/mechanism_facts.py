"""What the book says and shows of each mechanism, by its key in
:data:`dppca.mechanisms.registry.MECHANISMS`: the label and short
privacy notion of its experiments, its entry points for them, the line
style of its curves and the order of the experiments (the words of the map
of the mechanisms are in :mod:`dppca.book.mechanism_words`). The library's
declaration of a mechanism (:class:`~dppca.mechanisms.spec.MechanismSpec`)
says how to run it; this table, apart from it, says how the book presents
it, and the library never reads it.

The entry points follow the experiments' protocol
(:mod:`dppca.book.mechanism_table`): on the rows ``release(X, k, epsilon,
delta, rng, **options)``, on the second moment ``from_moment(A, n, k,
epsilon, delta, rng, **options)`` and, for a mechanism that must read the
rows, ``from_rows(rows, k, epsilon, delta, rng, cache, **options)`` with the
reason it must (``row_reason``). Each returns the top-k axes, a ``d × k``
orthonormal matrix, of the mechanism's own release.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..linalg import second_moment, top_k_subspace
from ..mechanisms import (
    adaptive_kpca,
    coinpress,
    complex_gaussian,
    covariance,
    exponential,
    gaussian_approx,
    power_method,
    spiked,
    streaming,
    trace_sensitive,
)
from ..mechanisms import input_perturbation as ip
from ..mechanisms.registry import MECHANISMS
from .mechanism_words import DESCRIPTIONS


@dataclass(frozen=True)
class BookFacts:
    """How the book's experiments and figures show one mechanism (by its
    registry key, there as everywhere): its label there, its privacy in a
    few words, its functional entry point ``(module, function)``, the
    protocol's entry points (module docstring) and the line style of its
    curves."""

    experiment_label: str
    short_notion: str
    entry_point: tuple[str, str]
    release: Callable
    from_moment: Callable | None = None
    from_rows: Callable | None = None
    row_reason: str | None = None
    style: dict = field(default_factory=dict)


# ------------------------------------------------------------------------------
# The entry points of the experiments' protocol
# ------------------------------------------------------------------------------


def _noisy_matrix_entry_points(full, moment, arguments):
    """(release, from_moment) of an input-perturbation mechanism: the top-k
    axes of its released matrix. ``arguments`` says which budget parameters
    the mechanism takes: ``"epsilon_delta"``, ``"epsilon"`` or
    ``"delta"``."""

    def budget(epsilon, delta):
        if arguments == "epsilon_delta":
            return dict(epsilon=epsilon, delta=delta)
        if arguments == "epsilon":
            return dict(epsilon=epsilon)
        return dict(delta=delta)

    def release(X, k, epsilon, delta, rng=None):
        return top_k_subspace(full(X, rng=rng, **budget(epsilon, delta)), k)

    def from_moment(A, n, k, epsilon, delta, rng=None):
        noisy = moment(A, n, rng=rng, **budget(epsilon, delta))
        return top_k_subspace(noisy, k)

    return release, from_moment


def _input_perturbation(name, arguments, **facts):
    """The facts of the input-perturbation mechanism whose entry point is
    ``ip.<name>`` (its moment version ``<name>_from_second_moment``)."""
    full = getattr(ip, name)
    moment = getattr(ip, f"{name}_from_second_moment")
    release, from_moment = _noisy_matrix_entry_points(full, moment, arguments)
    return BookFacts(
        entry_point=(ip.__name__, name),
        release=release,
        from_moment=from_moment,
        **facts,
    )


def _ppca_release(X, k, epsilon, delta, rng=None, **options):
    return exponential.ppca(X, k, epsilon=epsilon, rng=rng, **options)


def _ppca_moment(A, n, k, epsilon, delta, rng=None, **options):
    return exponential.ppca_from_second_moment(
        A, n, k, epsilon=epsilon, rng=rng, **options
    )


def _amin_release(X, k, epsilon, delta, rng=None):
    return covariance.amin_subspace(X, k, epsilon=epsilon, rng=rng)


def _amin_moment(A, n, k, epsilon, delta, rng=None):
    return covariance.amin_subspace_from_second_moment(
        A, n, k, epsilon=epsilon, rng=rng
    )


def _gaussian_release(X, k, epsilon, delta, rng=None, **options):
    return gaussian_approx.gaussian_subspace_recovery(
        X, k, epsilon=epsilon, delta=delta, rng=rng, **options
    )


def _gaussian_moment(A, n, k, epsilon, delta, rng=None, **options):
    return gaussian_approx.gaussian_subspace_recovery_from_second_moment(
        A, n, k, epsilon=epsilon, delta=delta, rng=rng, **options
    )


def _power_release(X, k, epsilon, delta, rng=None):
    return power_method.noisy_power_method(
        X, k, epsilon=epsilon, delta=delta, rng=rng
    )


def _power_moment(A, n, k, epsilon, delta, rng=None):
    return power_method.noisy_power_method_from_second_moment(
        A, n, k, epsilon=epsilon, delta=delta, rng=rng
    )


def _complex_moment(A, n, k, epsilon, delta, rng=None):
    """The top-k axes of the released real matrix ``Re Ĥ``
    (post-processing, as ``PrivatePCA`` does)."""
    H = complex_gaussian.complex_gaussian_approximation_from_second_moment(
        A, n, k, epsilon=epsilon, delta=delta, rng=rng, output="real"
    )
    return top_k_subspace(np.asarray(H), k)


def _complex_release(X, k, epsilon, delta, rng=None):
    A = second_moment(X)
    return _complex_moment(A, np.shape(X)[0], k, epsilon, delta, rng)


def _trace_rows(rows, k, epsilon, delta, rng=None, cache=None):
    """The top-k axes of the private covariance; ``cache`` holds the clipped
    rows' second moments of one subset (``moment_cache``: deterministic in
    the rows and the radius, so the law of each release is unchanged)."""
    V = trace_sensitive.trace_sensitive_subspace(
        rows, k, epsilon=epsilon, delta=delta, rng=rng, moment_cache=cache
    )
    return np.asarray(V)


def _trace_release(X, k, epsilon, delta, rng=None):
    return _trace_rows(X, k, epsilon, delta, rng)


def _streaming_rows(rows, k, epsilon, delta, rng=None, cache=None, **options):
    V = streaming.dp_pca_oja(
        rows, k, epsilon=epsilon, delta=delta, rng=rng, **options
    )
    return np.asarray(V)


def _streaming_release(X, k, epsilon, delta, rng=None, **options):
    return _streaming_rows(X, k, epsilon, delta, rng, **options)


def _coinpress_rows(rows, k, epsilon, delta, rng=None, cache=None):
    if hasattr(rows, "toarray"):
        rows = rows.toarray()
    V = coinpress.coinpress_subspace(
        rows, k, epsilon=epsilon, delta=delta, rng=rng
    )
    return np.asarray(V)


def _coinpress_release(X, k, epsilon, delta, rng=None):
    return _coinpress_rows(X, k, epsilon, delta, rng)


def _spiked_rows(rows, k, epsilon, delta, rng=None, cache=None):
    """The private basis of the spiked-model estimator on rows in the unit
    ball (``data_norm`` 1, as the experiments' rows are)."""
    if hasattr(rows, "toarray"):
        rows = rows.toarray()
    V = spiked.spiked_subspace(rows, k, epsilon=epsilon, delta=delta, rng=rng)
    return np.asarray(V)


def _spiked_release(X, k, epsilon, delta, rng=None):
    return _spiked_rows(X, k, epsilon, delta, rng)


def _adaptive_rows(rows, k, epsilon, delta, rng=None, cache=None, **options):
    """The adaptive k-PCA basis of rows in the unit ball: the radii are
    searched below one (the gradients' norms) and two (their distances to
    the private centre), as ``PrivatePCA`` does."""
    options.setdefault("norm_range", (1e-6, 1.0))
    options.setdefault("spread_range", (1e-6, 2.0))
    V = adaptive_kpca.adaptive_kpca(
        rows, k, epsilon=epsilon, delta=delta, rng=rng, **options
    )
    return np.asarray(V)


def _adaptive_release(X, k, epsilon, delta, rng=None, **options):
    return _adaptive_rows(X, k, epsilon, delta, rng, **options)


# ------------------------------------------------------------------------------
# The table
# ------------------------------------------------------------------------------

#: The book's facts of every mechanism, by its key in the registry.
FACTS: dict[str, BookFacts] = {
    "analyze_gauss": _input_perturbation(
        "analyze_gauss",
        "epsilon_delta",
        experiment_label="Analyze Gauss",
        short_notion="(ε, δ)-DP",
        style=dict(color="C1", linestyle="-.", marker="^"),
    ),
    "laplace": _input_perturbation(
        "laplace_input_perturbation",
        "epsilon",
        experiment_label="Laplace input",
        short_notion="ε-DP",
        style=dict(color="C5", linestyle="-.", marker="D"),
    ),
    "mod_sulq": _input_perturbation(
        "mod_sulq",
        "epsilon_delta",
        experiment_label="MOD-SULQ",
        short_notion="(ε, δ)-DP",
        style=dict(color="C4", linestyle="--", marker="v"),
    ),
    "wishart_delta": _input_perturbation(
        "wishart_input_perturbation_delta",
        "delta",
        experiment_label="Wishart (δ-calibrated)",
        short_notion="(0, δ)-DP",
        style=dict(color="olive", linestyle=":", marker="*"),
    ),
    "wishart_published": _input_perturbation(
        "wishart_input_perturbation",
        "epsilon",
        experiment_label="Wishart input",
        short_notion="claimed ε-DP: FAILS (book)",
        style=dict(color="C7", linestyle=":", marker="P"),
    ),
    "gaussian_approx": BookFacts(
        experiment_label="Gaussian subspace recovery (MV)",
        short_notion="(ε, δ)-DP",
        entry_point=(gaussian_approx.__name__, "gaussian_subspace_recovery"),
        release=_gaussian_release,
        from_moment=_gaussian_moment,
        style=dict(color="C9", linestyle="-", marker="h"),
    ),
    "complex_gaussian": BookFacts(
        experiment_label="complex Gaussian (MV23)",
        short_notion="(ε, δ)-DP",
        entry_point=(
            complex_gaussian.__name__,
            "complex_gaussian_approximation",
        ),
        release=_complex_release,
        from_moment=_complex_moment,
        style=dict(color="saddlebrown", linestyle="-", marker="8"),
    ),
    "trace_sensitive": BookFacts(
        experiment_label="trace-sensitive (DLY22)",
        short_notion="(ε, δ)-DP",
        entry_point=(trace_sensitive.__name__, "trace_sensitive_subspace"),
        release=_trace_release,
        from_rows=_trace_rows,
        row_reason="clips the rows to a radius chosen privately from "
        "their norms",
        style=dict(color="olive", linestyle="-.", marker="H"),
    ),
    "coinpress": BookFacts(
        experiment_label="CoinPress (BDKU20)",
        short_notion="(ε, δ)-DP",
        entry_point=(coinpress.__name__, "coinpress_subspace"),
        release=_coinpress_release,
        from_rows=_coinpress_rows,
        row_reason="whitens the rows by matrices it releases step by step",
        style=dict(color="sienna", linestyle=":", marker="P"),
    ),
    "spiked": BookFacts(
        experiment_label="spiked PCA (CXZ24)",
        short_notion="(ε, δ)-DP (LAPACK's error bound assumed)",
        entry_point=(spiked.__name__, "spiked_subspace"),
        release=_spiked_release,
        from_rows=_spiked_rows,
        row_reason="forms its own second moment from the rows, whose "
        "rounding its float margin covers",
        style=dict(color="darkcyan", linestyle="-", marker="*"),
    ),
    "streaming": BookFacts(
        experiment_label="DP-PCA, one pass (LKJO22)",
        short_notion="(ε, δ)-DP (one pass)",
        entry_point=(streaming.__name__, "dp_pca_oja"),
        release=_streaming_release,
        from_rows=_streaming_rows,
        row_reason="reads each row once, in a minibatch, with gradients "
        "clipped to a private radius",
        style=dict(color="crimson", linestyle=":", marker="X"),
    ),
    "adaptive_kpca": BookFacts(
        experiment_label="adaptive k-PCA (DS25)",
        short_notion="(ε, δ)-DP (one pass)",
        entry_point=(adaptive_kpca.__name__, "adaptive_kpca"),
        release=_adaptive_release,
        from_rows=_adaptive_rows,
        row_reason="reads each row once, in a minibatch, with gradients "
        "clipped about a private centre to a private spread",
        style=dict(color="darkmagenta", linestyle="-.", marker="v"),
    ),
    "noisy_power_method": BookFacts(
        experiment_label="noisy power method",
        short_notion="(ε, δ)-DP (zCDP over L steps)",
        entry_point=(power_method.__name__, "noisy_power_method"),
        release=_power_release,
        from_moment=_power_moment,
        style=dict(color="C6", linestyle="--", marker="d"),
    ),
    "ppca": BookFacts(
        experiment_label="PPCA",
        short_notion="ε-DP if exact; finite Gibbs chain: unproved",
        entry_point=(exponential.__name__, "ppca"),
        release=_ppca_release,
        from_moment=_ppca_moment,
        style=dict(color="C0", linestyle="--", marker="s"),
    ),
    "amin": BookFacts(
        experiment_label="Amin et al. (book)",
        short_notion="ε-DP (exact draws, every k)",
        entry_point=(covariance.__name__, "amin_subspace"),
        release=_amin_release,
        from_moment=_amin_moment,
        style=dict(color="k", linestyle="-", marker="p"),
    ),
}

#: The order of the book's experiments (chapter 8, chapter 9 and
#: chapter 12), by the mechanisms' keys: the papers' mechanisms first, then
#: those after 2019.
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
    "coinpress",
    "spiked",
    "adaptive_kpca",
)


def _check() -> None:
    """The tables name exactly the mechanisms the family modules declare."""
    for name, keys in (
        ("FACTS", FACTS),
        ("EXPERIMENT_ORDER", EXPERIMENT_ORDER),
        ("DESCRIPTIONS", DESCRIPTIONS),
    ):
        if sorted(keys) != sorted(MECHANISMS):
            raise ImportError(
                f"{name} does not list exactly the registry's mechanisms "
                f"{sorted(MECHANISMS)}"
            )


_check()


__all__ = [
    "EXPERIMENT_ORDER",
    "FACTS",
    "BookFacts",
]
