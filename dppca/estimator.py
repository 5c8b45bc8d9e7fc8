"""``PrivatePCA``: every private subspace mechanism of the book as a
scikit-learn estimator.

The estimator does four things the mechanisms themselves do not:

1. **Bounds.** The mechanisms need rows of norm at most one. The estimator takes
   a *public* bound ``data_norm`` (never read from the data) and either clips
   each row to it (``clip=True``, the convention of diffprivlib and OpenDP) or
   refuses rows above it (``clip=False``); then it divides by the bound.
   Clipping is a map applied to each row separately, so replace-one neighbours
   stay replace-one neighbours and the mechanisms' guarantees carry over
   unchanged.
2. **Centring.** ``center=True`` (the default): a private mean, released with
   a share ``center_share`` of the budget. For rows clipped to ``R =
   data_norm`` the mean ``μ = Σ x_i / n`` changes by ``(x − x')/n`` when one
   row is replaced, so its replace-one sensitivity is ``2R/n`` in ℓ₂ and
   ``2R√d/n`` in ℓ₁ (``‖v‖₁ ≤ √d ‖v‖₂``). The noisy mean is projected onto the
   ball of radius ``R`` (which contains the true mean; post-processing),
   giving ``μ̂``. The centred rows ``x_i − μ̂`` are then clipped to the public
   ``centered_norm`` (default ``R``), or divided by ``R + ‖μ̂‖``, which bounds
   them without clipping (``centered_norm="triangle"``). For a fixed ``μ̂`` a
   replaced row still changes one centred row: the two releases compose
   (adaptively) by :mod:`dppca.accounting`. The mean uses Laplace noise when
   the mechanism is pure ε (so the whole release stays pure) and analytic
   Gaussian noise otherwise. ``center=False`` gives the book's uncentred ``A =
   XᵀX/n``; a vector ``c`` is a public centre (``data_norm`` then bounds ``‖x
   − c‖``).
3. **Rows, in float64 as proved.** Dense arrays, pandas DataFrames and
   scipy.sparse matrices. :func:`dppca.rows.clipped_second_moment` centres
   every row before any product or norm, clips it, and absorbs every rounding
   error of the sum into a tiny uniform shrink of the rows, so the *computed*
   second moment has the sensitivity the mechanisms are calibrated to, for
   centres up to 10¹⁵⁰ (its module docstring proves it). Sparse input is never
   densified whole.
4. **Guarantees.** Every release of a fit carries its guarantee record
   (:mod:`dppca.guarantees`) in ``privacy_releases_``. A mechanism whose
   guarantee is not fully proved as a program is refused unless the caller
   opts in by name (``allow_unproved``).

The second moment then goes to the mechanism's public ``*_from_second_moment``
entry point (see :data:`MECHANISMS`).
"""

from __future__ import annotations

import dataclasses
import inspect
import math
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from . import (
    complex_gaussian,
    covariance,
    exponential,
    gaussian_approx,
    input_perturbation,
    noise,
    power_method,
    privacy,
    private_bounds,
    rows,
    streaming,
    trace_sensitive,
)
from .accounting import BudgetExceededError, basic_composition
from .guarantees import (
    FLOAT_NOISE_CAVEAT,
    Release,
    UnprovedGuaranteeWarning,
    gaussian_release,
    noise_record,
    zcdp_release,
)
from .linalg import top_k_eigh, top_k_subspace
from .option_checks import check_mechanism_options
from .validation import (
    PrivacyWarning,
    check_delta,
    check_epsilon,
)

# ------------------------------------------------------------------------------
# The mechanisms: one entry each
# ------------------------------------------------------------------------------


@dataclass(frozen=True)
class MechanismSpec:
    """How :class:`PrivatePCA` runs one mechanism and records what it spends.

    ``run(A, n, k, epsilon, delta, rng, options)`` returns ``(V, eigenvalues,
    total)`` with ``V`` ``d × k`` orthonormal, ``eigenvalues`` the released
    top-k eigenvalues of the noisy matrix and ``total`` the sum of its
    positive eigenvalues (both ``None`` when the mechanism releases only a
    subspace).
    ``guarantee(n, d, k, epsilon, delta, options)`` is the guarantee record
    (:class:`dppca.guarantees.Release`) of the release made with those
    options, built by the mechanism's own module from the same
    calibration as its noise. ``notion`` is ``"pure"``, ``"gaussian"``,
    ``"approximate"`` or ``"not_dp"``; ``uses_delta`` and ``uses_epsilon`` say
    which budget parameters the mechanism reads (the estimator warns about a
    parameter it ignores).
    """

    label: str
    notion: str
    uses_delta: bool
    uses_epsilon: bool
    run: Callable | None
    guarantee: Callable
    privacy: str
    #: For a mechanism that needs the rows themselves (not only ``A``):
    #: ``run_rows(Z, n, k, epsilon, delta, rng, options)``, ``Z`` the rows
    #: centred, scaled and clipped into the unit ball
    #: (:func:`dppca.rows.unit_ball_rows`; CSR when sparse and uncentred).
    run_rows: Callable | None = None
    #: Checks of ``mechanism_options`` that the mechanism needs (raises
    #: ``ValueError``), run before any budget is charged or noise drawn.
    check_options: Callable | None = None
    #: The mechanism function whose keyword parameters are the accepted
    #: ``mechanism_options`` (less :data:`INTERNAL_OPTIONS`).
    options_of: Callable | None = None

    @property
    def needs_delta(self) -> bool:
        return self.uses_delta


def _noisy_matrix_run(function_name: str, arguments: str):
    """Run an input-perturbation mechanism and keep the top-k eigenpairs of
    its noisy matrix."""

    def run(A, n, k, epsilon, delta, rng, options):
        function = getattr(input_perturbation, function_name)
        if arguments == "epsilon_delta":
            noisy = function(A, n, epsilon, delta, rng=rng, **options)
        elif arguments == "epsilon":
            noisy = function(A, n, epsilon, rng=rng, **options)
        else:
            noisy = function(A, n, delta, rng=rng, **options)
        noisy = np.asarray(noisy)
        values, vectors = top_k_eigh(noisy, k)
        # the released variance: the positive part of the whole spectrum
        spectrum = scipy.linalg.eigvalsh(noisy, check_finite=False)
        return vectors, values, float(spectrum[spectrum > 0].sum())

    return run


def _ppca_run(A, n, k, epsilon, delta, rng, options):
    options = dict(options)
    if isinstance(options.get("V0"), str) and options["V0"] == "pca":
        options["V0"] = top_k_subspace(A, k)  # data-dependent: warned before
    V = exponential.ppca_from_second_moment(
        A, n, k, epsilon, rng=rng, **options
    )
    return V, None, None


def _gaussian_approx_run(A, n, k, epsilon, delta, rng, options):
    recover = gaussian_approx.gaussian_subspace_recovery_from_second_moment
    V, spectrum = recover(
        A, n, k, epsilon, delta, rng=rng, return_spectrum=True, **options
    )
    # the noisy matrix's spectrum: post-processing of the release
    spectrum = np.asarray(spectrum)
    return V, spectrum[:k], float(spectrum[spectrum > 0].sum())


def _complex_gaussian_run(A, n, k, epsilon, delta, rng, options):
    release = complex_gaussian.complex_gaussian_approximation_from_second_moment
    H, spectrum = release(
        A,
        n,
        k,
        epsilon,
        delta,
        rng=rng,
        output="real",
        return_spectrum=True,
        **options,
    )
    # post-processing: the top-k axes of the released real matrix Re H^, and
    # the spectrum of the noisy Hermitian matrix
    spectrum = np.asarray(spectrum)
    V = top_k_subspace(np.asarray(H), k)
    return V, spectrum[:k], float(spectrum[spectrum > 0].sum())


def _trace_sensitive_run_rows(Z, n, k, epsilon, delta, rng, options):
    cov = trace_sensitive.trace_sensitive_covariance(
        Z, epsilon, delta, rng=rng, **options
    )
    # post-processing of the released matrix: top-k axes and its spectrum
    values, vectors = np.linalg.eigh(np.asarray(cov))
    values, vectors = values[::-1], vectors[:, ::-1]
    return vectors[:, :k], values[:k], float(values[values > 0].sum())


def _streaming_run_rows(Z, n, k, epsilon, delta, rng, options):
    V = streaming.dp_pca_oja(Z, k, epsilon, delta, rng=rng, **options)
    return np.asarray(V), None, None


def _power_method_run(A, n, k, epsilon, delta, rng, options):
    V = power_method.noisy_power_method_from_second_moment(
        A, n, k, epsilon, delta, rng=rng, **options
    )
    return V, None, None


def _amin_run(A, n, k, epsilon, delta, rng, options):
    V = covariance.amin_subspace_from_second_moment(
        A, n, k, epsilon, rng=rng, **options
    )
    return V, None, None


def _options(options, *names):
    return {name: options[name] for name in names if name in options}


def _analyze_gauss_guarantee(n, d, k, epsilon, delta, options):
    return input_perturbation.analyze_gauss_guarantee(
        n,
        d,
        epsilon,
        delta,
        **_options(options, "noise", "granularity", "calibration"),
    )


def _mod_sulq_guarantee(n, d, k, epsilon, delta, options):
    return input_perturbation.mod_sulq_guarantee(
        n,
        d,
        epsilon,
        delta,
        **_options(options, "noise", "granularity", "exact_beta"),
    )


def _laplace_guarantee(n, d, k, epsilon, delta, options):
    return input_perturbation.laplace_input_guarantee(
        n, d, epsilon, **_options(options, "noise", "granularity")
    )


def _wishart_delta_guarantee(n, d, k, epsilon, delta, options):
    return input_perturbation.wishart_delta_guarantee(n, d, delta)


def _wishart_published_guarantee(n, d, k, epsilon, delta, options):
    return input_perturbation.wishart_published_guarantee(n, d, epsilon)


def _ppca_guarantee(n, d, k, epsilon, delta, options):
    return exponential.ppca_guarantee(
        n,
        d,
        k,
        epsilon,
        sampler=options.get("sampler", "fast"),
        n_sweeps=options.get("n_sweeps"),
        V0=options.get("V0"),
    )


def _gaussian_approx_guarantee(n, d, k, epsilon, delta, options):
    return gaussian_approx.gaussian_approx_guarantee(
        epsilon,
        delta,
        d,
        "replace_one",
        n,
        **_options(options, "noise", "granularity"),
    )


def _complex_gaussian_guarantee(n, d, k, epsilon, delta, options):
    return complex_gaussian.complex_gaussian_guarantee(
        n,
        d,
        k,
        epsilon,
        delta,
        **_options(options, "noise", "granularity"),
    )


def _trace_sensitive_guarantee(n, d, k, epsilon, delta, options):
    return trace_sensitive.trace_sensitive_guarantee(
        n, d, epsilon, delta, **_options(options, "noise", "method")
    )


def _check_streaming_options(options) -> None:
    """Streaming DP-PCA's step size needs a public gap assumption: checked
    by :class:`PrivatePCA` before any budget is charged or noise drawn."""
    if not {"eigengap", "learning_rate"} & set(options or {}):
        raise ValueError(
            'mechanism="streaming" needs a public assumption on the eigengap '
            "of the scaled rows' second moment, which sets Oja's step size: "
            'pass mechanism_options={"eigengap": g} (or a "learning_rate" '
            "callable); see dppca.streaming.dp_pca_oja"
        )


def _streaming_guarantee(n, d, k, epsilon, delta, options):
    return streaming.dp_pca_guarantee(
        epsilon, delta, **_options(options, "noise", "range_share")
    )


def _power_method_guarantee(n, d, k, epsilon, delta, options):
    return power_method.noisy_power_method_guarantee(
        n,
        d,
        k,
        epsilon,
        delta,
        **_options(
            options, "noise", "n_iterations", "block_size", "calibration"
        ),
    )


def _amin_guarantee(n, d, k, epsilon, delta, options):
    return covariance.amin_guarantee(n, d, k, epsilon)


#: Every mechanism :class:`PrivatePCA` runs, by name. Adding one is one entry
#: here.
MECHANISMS: dict[str, MechanismSpec] = {
    "analyze_gauss": MechanismSpec(
        "Analyze Gauss",
        "gaussian",
        True,
        True,
        _noisy_matrix_run("analyze_gauss_from_second_moment", "epsilon_delta"),
        _analyze_gauss_guarantee,
        input_perturbation.PRIVACY["analyze_gauss"],
        options_of=input_perturbation.analyze_gauss_from_second_moment,
    ),
    "laplace": MechanismSpec(
        "Laplace input",
        "pure",
        False,
        True,
        _noisy_matrix_run(
            "laplace_input_perturbation_from_second_moment", "epsilon"
        ),
        _laplace_guarantee,
        input_perturbation.PRIVACY["laplace_input_perturbation"],
        options_of=input_perturbation.laplace_input_perturbation_from_second_moment,
    ),
    "gaussian_approx": MechanismSpec(
        "Mangoubi–Vishnoi",
        "gaussian",
        True,
        True,
        _gaussian_approx_run,
        _gaussian_approx_guarantee,
        gaussian_approx.PRIVACY["gaussian_subspace_recovery"],
        options_of=gaussian_approx.gaussian_subspace_recovery_from_second_moment,
    ),
    "complex_gaussian": MechanismSpec(
        "complex Gaussian",
        "gaussian",
        True,
        True,
        _complex_gaussian_run,
        _complex_gaussian_guarantee,
        complex_gaussian.PRIVACY["complex_gaussian_approximation"],
        options_of=complex_gaussian.complex_gaussian_approximation_from_second_moment,
    ),
    "trace_sensitive": MechanismSpec(
        "trace-sensitive (Dong et al.)",
        "gaussian",
        True,
        True,
        None,
        _trace_sensitive_guarantee,
        trace_sensitive.PRIVACY["trace_sensitive_covariance"],
        run_rows=_trace_sensitive_run_rows,
        options_of=trace_sensitive.trace_sensitive_covariance,
    ),
    "streaming": MechanismSpec(
        "streaming DP-PCA",
        "gaussian",
        True,
        True,
        None,
        _streaming_guarantee,
        streaming.PRIVACY["dp_pca_oja"],
        run_rows=_streaming_run_rows,
        check_options=_check_streaming_options,
        options_of=streaming.dp_pca_oja,
    ),
    "mod_sulq": MechanismSpec(
        "MOD-SULQ",
        "gaussian",
        True,
        True,
        _noisy_matrix_run("mod_sulq_from_second_moment", "epsilon_delta"),
        _mod_sulq_guarantee,
        input_perturbation.PRIVACY["mod_sulq"],
        options_of=input_perturbation.mod_sulq_from_second_moment,
    ),
    "noisy_power_method": MechanismSpec(
        "noisy power method",
        "gaussian",
        True,
        True,
        _power_method_run,
        _power_method_guarantee,
        power_method.PRIVACY["noisy_power_method"],
        options_of=power_method.noisy_power_method_from_second_moment,
    ),
    "ppca": MechanismSpec(
        "PPCA",
        "pure",
        False,
        True,
        _ppca_run,
        _ppca_guarantee,
        exponential.PRIVACY["ppca"],
        options_of=exponential.ppca_from_second_moment,
    ),
    "amin": MechanismSpec(
        "Amin et al.",
        "pure",
        False,
        True,
        _amin_run,
        _amin_guarantee,
        covariance.PRIVACY["amin_subspace"],
        options_of=covariance.amin_subspace_from_second_moment,
    ),
    "wishart_delta": MechanismSpec(
        "Wishart (δ-calibrated)",
        "approximate",
        True,
        False,
        _noisy_matrix_run(
            "wishart_input_perturbation_delta_from_second_moment", "delta"
        ),
        _wishart_delta_guarantee,
        input_perturbation.PRIVACY["wishart_input_perturbation_delta"],
        options_of=input_perturbation.wishart_input_perturbation_delta_from_second_moment,
    ),
    "wishart_published": MechanismSpec(
        "Wishart (published)",
        "not_dp",
        False,
        True,
        _noisy_matrix_run(
            "wishart_input_perturbation_from_second_moment", "epsilon"
        ),
        _wishart_published_guarantee,
        input_perturbation.PRIVACY["wishart_input_perturbation"],
        options_of=input_perturbation.wishart_input_perturbation_from_second_moment,
    ),
}

#: What ``mechanism="auto"`` (the default) runs: with a ``delta``, Analyze
#: Gauss; without, Laplace input perturbation. Both are fully proved with the
#: default safe noise; see :class:`PrivatePCA` for why these two.
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

#: Start of the warning messages of the mechanism functions that
#: :class:`PrivatePCA` raises itself, before fitting (not repeated).
MECHANISM_WARNINGS_RAISED_ABOVE = (
    "wishart_input_perturbation is NOT",
    "PPCA started from a caller-supplied V0",
)

#: Mechanisms that add Laplace or Gaussian noise, drawn through
#: :mod:`dppca.noise` with the estimator's ``noise`` kind. The others are
#: samplers (PPCA, Amin et al.) or add a Wishart matrix, for which the package
#: has only floating-point implementations (chapter 10).
ADDITIVE_NOISE = (
    "analyze_gauss",
    "mod_sulq",
    "laplace",
    "gaussian_approx",
    "noisy_power_method",
    "complex_gaussian",
    "trace_sensitive",
    "streaming",
)

#: Mechanisms whose released matrix has private eigenvalues
#: (``explained_variance_``).
RELEASES_EIGENVALUES = (
    "analyze_gauss",
    "mod_sulq",
    "laplace",
    "wishart_delta",
    "wishart_published",
)


# ------------------------------------------------------------------------------
# The estimator
# ------------------------------------------------------------------------------


def _snap(spent, requested):
    """Report a split budget's total as requested when the parts add up to it
    up to
    rounding (the parts are ``s·t`` and ``t − s·t``: in exact arithmetic they
    sum to ``t``)."""
    out = []
    for value, total in zip(spent, requested):
        close = total is not None and math.isclose(value, total, rel_tol=1e-12)
        out.append(float(total) if close else value)
    return tuple(out)


def _generator(random_state) -> np.random.Generator:
    """A Generator for one fit. ``None``: fresh OS entropy (numpy's
    SeedSequence draws 128 bits). A RandomState hands over its whole state:
    624 32-bit outputs of its Mersenne Twister determine that state (its
    tempering is invertible); they are mixed by a SeedSequence whose pool is
    as large (624 words, every output word depending on every input bit) into
    the state of a new MT19937. So the fit's noise has the RandomState's full
    entropy, not a 31-bit seed, and the RandomState advances, as scikit-learn
    expects. A Generator likewise seeds the fit's own generator from eight
    of its 32-bit draws (256 bits), so it advances by the same number of
    draws whatever the rows: the samplers that reject proposals draw a
    number that depends on the data, which the caller's generator would
    otherwise carry out of the fit."""
    if isinstance(random_state, np.random.RandomState):
        words = random_state.randint(0, 2**32, size=624, dtype=np.uint64)
        mixed = np.random.SeedSequence(words.tolist(), pool_size=624)
        return np.random.Generator(np.random.MT19937(mixed))
    if isinstance(random_state, np.random.Generator):
        words = random_state.integers(0, 2**32, size=8, dtype=np.uint64)
        return np.random.default_rng(np.random.SeedSequence(words.tolist()))
    return np.random.default_rng(random_state)


class PrivatePCA(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Differentially private PCA with any mechanism of the book,
    scikit-learn style.

    Every fit is a release on the rows of ``X`` under **replace-one**
    neighbours (n fixed, one row replaced by any other row) with rows bounded
    in **ℓ₂ norm** by the public ``data_norm``. Each release carries a
    guarantee record (``privacy_releases_``, :mod:`dppca.guarantees`).

    Parameters
    ----------
    n_components : int, float or None, default=2
        Dimension k of the released subspace, ``1 <= k < n_features``. For
        the mechanisms that release a noisy matrix
        (:data:`~dppca.estimator.RELEASES_EIGENVALUES`, the defaults among
        them) also
        ``k = n_features``, ``None`` (all of them) or a fraction in (0, 1):
        the smallest k whose released variance reaches that share of the
        released total (post-processing: no extra budget).
    epsilon : float, default=1.0
        Total ε, shared with the private mean when ``center=True``.
    delta : float or None, default=None
        Total δ. Choose δ well below 1/n (1e-5 to 1e-8 is usual); δ ≥ 1/n
        permits mechanisms that publish a whole row, and is warned about.
        With ``mechanism="auto"`` a δ selects the Gaussian default.
    mechanism : str, default="auto"
        ``"auto"``: ``"analyze_gauss"`` when ``delta`` is given, else
        ``"laplace"``. Otherwise a key of :data:`~dppca.estimator.MECHANISMS`:

        ========================  =========  =================================
        mechanism                 privacy    fully proved (default noise)?
        ========================  =========  =================================
        ``"analyze_gauss"``       (ε, δ)     yes (safe discrete Gaussian)
        ``"gaussian_approx"``     (ε, δ)     yes (Mangoubi–Vishnoi 2022)
        ``"complex_gaussian"``    (ε, δ)     yes (Mangoubi–Vishnoi 2023)
        ``"trace_sensitive"``     (ε, δ)     yes (Dong, Liang and Yi 2022)
        ``"streaming"``           (ε, δ)     yes (one pass; Liu et al. 2022)
        ``"noisy_power_method"``  (ε, δ)     yes (chapter 14)
        ``"mod_sulq"``            (ε, δ)     yes (Chaudhuri et al. 2013)
        ``"laplace"``             ε          yes (Jiang et al. 2016, Alg. 1)
        ``"ppca"``                ε          no: float64 sampler; for k ≥ 2 a
                                             finite Gibbs chain (opt in)
        ``"amin"``                ε          no: float64 sampler (opt in)
        ``"wishart_delta"``       (0, δ)     no: float64 Wishart (opt in)
        ``"wishart_published"``   not DP     no (``allow_not_dp``)
        ========================  =========  =================================

        **Choosing.** Why these defaults: on the digits of chapter 13 (k = 5,
        ε = 1, δ = 1e-5, centred rows) Analyze Gauss and Mangoubi–Vishnoi
        capture the most variance of every proved mechanism and tie within
        the seed-to-seed spread; Analyze Gauss also releases eigenvalues
        (``explained_variance_``) at no extra cost. Without δ, Laplace input
        perturbation is the only pure-ε mechanism whose guarantee is proved
        for the program; its noise grows like d^(3/2)/(nε), so it needs large
        nε for large d. PPCA (ε-DP, noise like d/(nε)) is better there but
        its samplers are float64 programs and, for k ≥ 2, approximate: opt in
        with ``allow_unproved="ppca"``.
    data_norm : float or "private"
        Required public bound R on the rows' ℓ₂ norm (on ``‖x − c‖`` for a
        public centre ``c``), chosen without looking at the data. Rows
        longer than R are clipped (``clip=True``) or refused. ``"private"``
        releases R from the data instead: the ``bound_quantile`` quantile of
        the row norms, pure ε-DP with a share ``bound_share`` of ε, among
        candidates in the public ``bound_range``
        (``dppca.private_bounds.norm_quantile``; about
        ``1 − bound_quantile`` of the rows are then clipped, a target, not a
        released count).
    clip : bool, default=True
        Clip rows to their bound; ``False`` raises ``ValueError`` on a longer
        row. Clipping is a map on each row alone, so neighbours stay
        neighbours.
    center : bool or array of shape (n_features,), default=True
        ``True``: a private mean, released with a share ``center_share`` of
        the budget, then the rows are centred at it. ``False``: the book's
        uncentred ``XᵀX/n``. An array: a public centre.
    center_share : float, default=0.2
        Share of ε (and δ) spent on the private mean, in (0, 1).
    centered_norm : float, "triangle", "private" or None, default=None
        With ``center=True``: the public bound at which the centred rows
        ``x − μ̂`` are clipped (or refused). ``None`` uses ``data_norm``;
        ``"triangle"`` divides by ``data_norm + ‖μ̂‖`` without clipping (always
        holds, but can be twice the spread); ``"private"`` releases it as a
        quantile of the centred norms, like ``data_norm="private"``.
    bound_range : (float, float) or None, default=None
        Public range ``(lower, upper)`` of the candidate bounds when
        ``data_norm`` or ``centered_norm`` is ``"private"`` (required then).
    bound_quantile : float, default=0.95
        The quantile of the norms a private bound targets.
    bound_share : float, default=0.1
        Share of ε spent on the private bounds (split evenly when both are
        private), taken before the private mean's share.
    mechanism_options : dict or None, default=None
        Passed to the mechanism: ``granularity`` of the safe noise;
        ``sampler``, ``n_sweeps``, ``V0`` for PPCA (``V0="pca"`` starts the
        chain at the non-private subspace: not ε-DP); ``calibration`` for
        Analyze Gauss; ``exact_beta`` for MOD-SULQ; ``n_iterations``,
        ``block_size`` for the noisy power method.
    allow_unproved : str, sequence of str or None, default=None
        Opt-in, by mechanism name, to a release whose guarantee is not fully
        proved as a program (PPCA, Amin et al., the δ-calibrated Wishart, or
        any mechanism with ``noise="float"``). Such a fit still warns
        (:class:`dppca.guarantees.UnprovedGuaranteeWarning`).
    allow_not_dp : bool, default=False
        Opt-in needed for ``mechanism="wishart_published"``, which is not DP.
    noise : {"safe", "float"}, default="safe"
        How the additive mechanisms and the private mean draw their noise
        (``dppca.noise``): ``"safe"`` rounds to a grid and adds exact
        discrete noise, private as a program; ``"float"`` is float64 noise,
        private only as mathematics (chapter 10), and needs
        ``allow_unproved``.
    accountant : dppca.accounting.Accountant or None, default=None
        A privacy budget shared by several fits: every ``fit`` charges it
        with the fit's guarantee records *before* drawing any noise, and
        raises :class:`dppca.accounting.BudgetExceededError` instead if the
        composed (ε, δ) would exceed the budget. It survives ``clone`` (the
        clones of ``GridSearchCV`` and ``cross_val_score`` charge the same
        budget). Without it, a refit of the same estimator warns.
    random_state : None, int, numpy Generator or RandomState, default=None
        ``None`` draws fresh OS entropy (128 bits) at every fit. An integer
        seed makes a fit reproducible: a tool for experiments, not a secret,
        since anyone who knows it can recompute the noise. A ``RandomState``
        hands its full state to the noise; a Generator seeds the fit from a
        fixed number of its draws (so its state after the fit says nothing
        about the rows).

    Attributes
    ----------
    components_ : ndarray of shape (n_components, n_features)
        The private principal axes (orthonormal rows).
    mean_ : ndarray of shape (n_features,)
        The centre subtracted by ``transform``: zeros, the public centre or
        the private mean.
    explained_variance_ : ndarray of shape (n_components,)
        For the mechanisms of
        :data:`~dppca.estimator.RELEASES_EIGENVALUES`, the two
        Mangoubi–Vishnoi mechanisms (``"gaussian_approx"``,
        ``"complex_gaussian"``) and ``"trace_sensitive"``: the top eigenvalues
        of
        the noisy matrix, in the data's units
        (post-processing; may be negative). At small ε the noise inflates
        them: the top eigenvalues of a noisy matrix sit above the true ones by
        about the noise's spectral norm.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        The same eigenvalues as shares of the released matrix's positive
        variance (the sum of its positive eigenvalues); they sum to at most
        one.
    mechanism_ : str
        The mechanism that ran (``"auto"`` resolved).
    row_bound_ : float
        The public bound the rows were divided by.
    data_norm_ : float
        The bound R used (``data_norm``, or its private release).
    privacy_releases_ : tuple of dppca.guarantees.Release
        The guarantee record of every release of the fit (private mean,
        subspace).
    privacy_spent_ : tuple (epsilon, delta)
        Basic composition of the records' calibrated figures; compose several
        fits with :func:`dppca.accounting.compose`.
    n_components_, n_features_in_, feature_names_in_
        As in scikit-learn.
    """

    def __init__(
        self,
        n_components=2,
        *,
        epsilon=1.0,
        delta=None,
        mechanism="auto",
        data_norm=None,
        clip=True,
        center=True,
        center_share=0.2,
        centered_norm=None,
        mechanism_options=None,
        allow_unproved=None,
        allow_not_dp=False,
        noise="safe",
        bound_range=None,
        bound_quantile=0.95,
        bound_share=0.1,
        accountant=None,
        random_state=None,
    ):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.mechanism = mechanism
        self.data_norm = data_norm
        self.clip = clip
        self.center = center
        self.center_share = center_share
        self.centered_norm = centered_norm
        self.mechanism_options = mechanism_options
        self.allow_unproved = allow_unproved
        self.allow_not_dp = allow_not_dp
        self.noise = noise
        self.bound_range = bound_range
        self.bound_quantile = bound_quantile
        self.bound_share = bound_share
        self.accountant = accountant
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # -- checks and warnings, all before any noise is drawn
    # -----------------------------------

    def _mechanism_name(self) -> str:
        if self.mechanism == "auto":
            return AUTO_MECHANISM[self.delta is not None]
        if self.mechanism not in MECHANISMS:
            raise ValueError(
                f"mechanism must be 'auto' or one of {sorted(MECHANISMS)}; "
                f"got {self.mechanism!r}"
            )
        return self.mechanism

    def _opted_in(self, name: str) -> bool:
        allowed = self.allow_unproved
        if allowed is None or allowed is False:
            return False
        if isinstance(allowed, str):
            allowed = (allowed,)
        return name in tuple(allowed)

    def _check_parameters(self, n: int, d: int):
        name = self._mechanism_name()
        spec = MECHANISMS[name]
        if self.data_norm is None:
            raise ValueError(
                "data_norm is required: a public bound on the rows' norm, "
                "chosen without looking at the data, or 'private' (with "
                "bound_range) to release one from the data"
            )
        if isinstance(self.data_norm, str):
            if self.data_norm != "private":
                raise ValueError(
                    "data_norm must be a finite number > 0 or 'private'; got "
                    f"{self.data_norm!r}"
                )
            data_norm = "private"
        else:
            data_norm = float(self.data_norm)
            if not (math.isfinite(data_norm) and data_norm > 0):
                raise ValueError(
                    "data_norm must be a finite number > 0 or 'private'; got "
                    f"{self.data_norm!r}"
                )
        if d < 2:
            raise ValueError(
                f"PrivatePCA needs at least 2 features; got n_features = {d}"
            )
        k = self._check_n_components(name, d)
        epsilon = check_epsilon(self.epsilon)
        delta = None if self.delta is None else check_delta(self.delta)
        if spec.uses_delta and delta is None:
            raise ValueError(f"mechanism={name!r} needs a delta")
        self._warn_ignored(name, spec, n, delta)
        if spec.notion == "not_dp":
            if not self.allow_not_dp:
                raise ValueError(
                    f"mechanism={name!r} is not differentially private as "
                    "published (chapter 3); pass allow_not_dp=True to run it "
                    "anyway"
                )
            warnings.warn(
                f"mechanism={name!r} is not DP as published: {spec.privacy}",
                PrivacyWarning,
                stacklevel=3,
            )
        options = self._check_public(name, spec, d)
        check_mechanism_options(name, options, n, d, max(int(k), 1), epsilon)
        kind = noise.check_noise_kind(self.noise)
        if name in ADDITIVE_NOISE:
            options.setdefault("noise", kind)
        if name == "ppca":
            self._warn_ppca(options, int(k))
        record = spec.guarantee(
            n,
            d,
            max(int(k), 1),
            epsilon,
            delta if spec.uses_delta else None,
            options,
        )
        unproved = not record.proved or (
            kind == "float" and self._private_centre()
        )
        if unproved and spec.notion != "not_dp":
            caveat = record.caveat or FLOAT_NOISE_CAVEAT
            if not self._opted_in(name):
                raise ValueError(
                    f"mechanism={name!r} with these settings is not fully "
                    f"proved as a program: {caveat}. Pass "
                    f"allow_unproved={name!r} to run it anyway, or choose a "
                    "proved mechanism (see the PrivatePCA docstring)"
                )
            warnings.warn(
                f"{record.label} is not fully proved as a program: {caveat}",
                UnprovedGuaranteeWarning,
                stacklevel=3,
            )
        return name, spec, data_norm, k, epsilon, delta, options

    def _private_centre(self) -> bool:
        """``center`` is ``True`` (a Python or numpy bool): a private mean."""
        centre = self.center
        return isinstance(centre, (bool, np.bool_)) and bool(centre)

    def _check_public(self, name, spec, d) -> dict:
        """Every public parameter a fit reads, checked before any row is
        read or any budget charged; returns the mechanism's options (their
        values are checked by :mod:`dppca.option_checks`). After these
        checks a fit refuses only when the budget cannot pay for it."""
        if not isinstance(self.clip, (bool, np.bool_)):
            raise TypeError(f"clip must be True or False; got {self.clip!r}")
        private = [
            f"{p}='private'"
            for p in ("data_norm", "centered_norm")
            if isinstance(getattr(self, p), str)
            and getattr(self, p) == "private"
        ]
        if self._private_centre():
            private.insert(0, "center=True (a private mean)")
            self._split(1.0, None)  # checks center_share
            if self.centered_norm is not None:
                self._centered_norm(1.0, np.zeros(d))  # checks its value
        elif not isinstance(self.center, (bool, np.bool_)):
            self._public_centre(d)
        if not self.clip and private:
            raise ValueError(
                "clip=False refuses rows above a bound, and with "
                f"{' and '.join(private)} that bound is released from the "
                "data: whether the fit returns would then depend on the "
                "rows. Use clip=True (rows are clipped to the released bound) "
                "or public bounds and a public centre"
            )
        if self._private_bound_names():
            self._bound_budget(1.0)
            lower, upper = (float(v) for v in self.bound_range)
            if not (0 < lower < upper and math.isfinite(upper)):
                raise ValueError(
                    "bound_range must be (lower, upper) with 0 < lower < "
                    f"upper < inf; got {self.bound_range!r}"
                )
            q = float(self.bound_quantile)
            if not 0 < q < 1:
                raise ValueError(
                    f"bound_quantile must lie in (0, 1); got {q!r}"
                )
        self._check_scales(d)
        options = dict(self.mechanism_options or {})
        accepted = set()
        if spec.options_of is not None:  # its parameters that have defaults
            parameters = inspect.signature(spec.options_of).parameters
            accepted = {
                key
                for key, parameter in parameters.items()
                if parameter.default is not inspect.Parameter.empty
            }
        accepted -= INTERNAL_OPTIONS
        unknown = sorted(set(options) - accepted)
        if unknown:
            raise ValueError(
                f"mechanism_options {unknown} are not options of "
                f"mechanism={name!r}; it accepts {sorted(accepted)}"
            )
        if spec.check_options is not None:
            spec.check_options(options)
        if name == "streaming":
            # the rows it sees lie in the unit ball, so every gradient
            # x (xᵀW) has norm at most one: the radius is searched below it
            low = streaming.DEFAULT_NORM_RANGE[0]
            options.setdefault("norm_range", (low, 1.0))
        return options

    def _check_scales(self, d: int) -> None:
        """The float64 error bounds of :mod:`dppca.rows` hold for bounds in
        ``[MIN_BOUND, MAX_MAGNITUDE / 2]`` and centres at most ``10²⁰⁰``
        bounds away: checked here, on the public values (or the public range
        of a released one), so that no released value can fail them."""
        low, high = rows.MIN_BOUND, rows.MAX_MAGNITUDE / 2
        ranges = {}
        for name in ("data_norm", "centered_norm"):
            value = getattr(self, name)
            if isinstance(value, str) and value == "private":
                ranges[name] = tuple(float(v) for v in self.bound_range)
            elif value is not None and not isinstance(value, str):
                ranges[name] = (float(value), float(value))
        for name, (lower, upper) in ranges.items():
            if not low <= lower <= upper <= high:
                raise ValueError(
                    f"{name} (or bound_range) must lie in [{low:g}, "
                    f"{high:g}], where float64 error bounds are verified"
                )
        outer = ranges["data_norm"]
        if self._private_centre():
            inner = ranges.get("centered_norm", outer)
            reach = outer[1]  # ‖μ̂‖ ≤ R
        elif isinstance(self.center, (bool, np.bool_)):
            return
        else:
            inner = outer
            reach = float(np.linalg.norm(self._public_centre(d)))
        if reach > 1e200 * inner[0]:
            raise ValueError(
                "the centre may lie more than 1e200 row bounds from the "
                "origin: float64 clip factors would be subnormal"
            )

    def _public_centre(self, d: int) -> np.ndarray:
        centre = np.asarray(self.center, dtype=float).ravel()
        if centre.shape != (d,) or not np.all(np.isfinite(centre)):
            raise ValueError(
                f"center must be True, False or a finite vector of length "
                f"n_features = {d}"
            )
        return centre

    def _check_n_components(self, name: str, d: int):
        """An int k (1 <= k < d; k = d too for the mechanisms that release a
        noisy matrix), or, for those, None (k = d) or a fraction in (0, 1)
        (returned as a float, resolved after the release)."""
        k = self.n_components
        whole = name in RELEASES_EIGENVALUES
        if k is None or isinstance(k, (float, np.floating)):
            if not whole:
                raise ValueError(
                    f"n_components={k!r} needs the released spectrum, which "
                    f"mechanism={name!r} does not release; pass an integer, "
                    f"or one of {list(RELEASES_EIGENVALUES)}"
                )
            if k is None:
                return d
            if not 0.0 < float(k) < 1.0:
                raise ValueError(
                    "a float n_components is a fraction of the released "
                    f"variance, in (0, 1); got {k!r}"
                )
            return float(k)
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise TypeError(
                "n_components must be an integer, None or a fraction; got "
                f"{k!r}"
            )
        top = d if whole else d - 1
        if not 1 <= k <= top:
            raise ValueError(
                f"n_components must satisfy 1 <= n_components <= {top} "
                f"(n_features = {d}, mechanism={name!r}); got {k}"
            )
        return int(k)

    def _warn_ignored(self, name, spec, n, delta):
        """A PrivacyWarning for every budget parameter the fit will not use,
        and for a δ too large to mean anything."""
        if delta is not None and not spec.uses_delta:
            private_mean = self._private_centre()
            warnings.warn(
                f"delta={delta!r} is not used by mechanism={name!r}, which "
                "is pure ε-DP"
                + (
                    "; the private mean is pure too (Laplace)"
                    if private_mean
                    else ""
                )
                + ": privacy_spent_ reports delta = 0",
                PrivacyWarning,
                stacklevel=4,
            )
        if not spec.uses_epsilon:
            warnings.warn(
                f"epsilon={self.epsilon!r} is not used by mechanism={name!r}, "
                "which is (0, δ)-DP"
                + (
                    " (only the private mean spends its share of it)"
                    if self._private_centre()
                    else ""
                ),
                PrivacyWarning,
                stacklevel=4,
            )
        if self.centered_norm is not None and not self._private_centre():
            warnings.warn(
                f"centered_norm={self.centered_norm!r} is not used: it bounds "
                "the rows centred at a private mean (center=True)",
                PrivacyWarning,
                stacklevel=4,
            )
        if delta is not None and delta >= 1.0 / n:
            warnings.warn(
                f"delta={delta:g} >= 1/n = {1.0 / n:.3g}: a mechanism may "
                "then publish a whole row with probability delta; choose "
                "delta much smaller than 1/n",
                PrivacyWarning,
                stacklevel=4,
            )

    def _warn_ppca(self, options, k):
        sampler = options.get("sampler", "fast")
        default = exponential.DEFAULT_SWEEPS.get(sampler)
        sweeps = options.get("n_sweeps")
        exact = sampler == "fast" and k == 1 and options.get("V0") is None
        if not exact and sweeps is not None and default and sweeps < default:
            warnings.warn(
                f"PPCA with k = {k} runs a Gibbs chain; {sweeps} sweeps is "
                f"fewer than the default {default}, so the release is further "
                "from the exact ε-DP law (dppca.exponential.PRIVACY)",
                PrivacyWarning,
                stacklevel=4,
            )
        start = options.get("V0")
        if isinstance(start, str):
            if start != "pca":
                raise ValueError(f"V0 must be an array or 'pca'; got {start!r}")
            warnings.warn(
                "V0='pca' starts the chain at the non-private top-k subspace "
                "of the data: a data-dependent starting frame, so the "
                "release is not ε-DP",
                PrivacyWarning,
                stacklevel=4,
            )
        elif start is not None:
            warnings.warn(
                "PPCA started from a caller-supplied V0: if it was computed "
                "from the private data, the finite chain's output leaks it "
                "beyond ε; pass only a data-independent frame",
                PrivacyWarning,
                stacklevel=4,
            )

    def _centered_norm(self, data_norm: float, mean) -> tuple[float, bool]:
        """(bound on the centred rows, whether to clip them to it)."""
        if self.centered_norm is None:
            return data_norm, True
        if isinstance(self.centered_norm, str):
            if self.centered_norm == "private":
                return data_norm, True  # replaced by the release in fit
            if self.centered_norm != "triangle":
                raise ValueError(
                    "centered_norm must be None, 'triangle', 'private' or a "
                    f"finite number > 0; got {self.centered_norm!r}"
                )
            # ‖x − μ̂‖ ≤ ‖x‖ + ‖μ̂‖ ≤ R + ‖μ̂‖ holds for every clipped row
            return data_norm + float(np.linalg.norm(mean)), False
        value = float(self.centered_norm)
        if not (math.isfinite(value) and value > 0):
            raise ValueError(
                "centered_norm must be None, 'triangle', 'private' or a "
                f"finite number > 0; got {self.centered_norm!r}"
            )
        return value, True

    def _private_bound_names(self) -> list[str]:
        names = []
        if self.data_norm == "private":
            names.append("data_norm")
        if self.centered_norm == "private" and self._private_centre():
            names.append("centered_norm")
        return names

    def _bound_budget(self, epsilon):
        """(ε of each private bound, ε left) for the private bounds."""
        names = self._private_bound_names()
        if not names:
            return 0.0, epsilon
        share = float(self.bound_share)
        if not (math.isfinite(share) and 0 < share < 1):
            raise ValueError(
                f"bound_share must lie in (0, 1); got {self.bound_share!r}"
            )
        if self.bound_range is None or len(self.bound_range) != 2:
            raise ValueError(
                "a private bound needs bound_range=(lower, upper): the public "
                "range of the candidate bounds"
            )
        spent = share * epsilon
        return spent / len(names), epsilon - spent

    def _private_bound(self, X, epsilon, rng, mean=None):
        """Release a bound (a quantile of the norms, or of the centred norms
        about ``mean``) with pure ε."""
        lower, upper = (float(v) for v in self.bound_range)
        if mean is None:
            return private_bounds.norm_quantile(
                X,
                self.bound_quantile,
                epsilon,
                lower=lower,
                upper=upper,
                rng=rng,
            )
        return private_bounds.centred_norm_quantile(
            X,
            mean,
            self.bound_quantile,
            epsilon,
            lower=lower,
            upper=upper,
            pre_clip=self.data_norm_,
            rng=rng,
        )

    def _split(self, epsilon, delta):
        """(ε, δ) of the private mean and of the mechanism."""
        share = float(self.center_share)
        parts = {"private mean": share, "mechanism": 1.0 - share}
        empty = [name for name, part in parts.items() if not part > 0]
        if empty or not math.isfinite(share):
            warnings.warn(
                f"center_share = {self.center_share!r} leaves the "
                f"{' and the '.join(empty) or 'split'} with epsilon <= 0",
                PrivacyWarning,
                stacklevel=4,
            )
            raise ValueError(
                f"center_share must lie in (0, 1); got {self.center_share!r}"
            )
        # The mechanism gets what is left, so the two parts add up to the total
        # exactly.
        mean_eps = share * epsilon
        mean_delta = None if delta is None else share * delta
        mech_delta = None if delta is None else delta - mean_delta
        return (mean_eps, mean_delta), (epsilon - mean_eps, mech_delta)

    # -- the private mean
    # ----------------------------------------------------------------------

    def _private_mean_plan(self, n, d, bound, budget, pure):
        """How the private mean will be drawn, and its guarantee record,
        before any noise: ``(law, scale, grid, record)``."""
        epsilon, delta = budget
        l2_sensitivity = 2.0 * bound / n
        kind = noise.check_noise_kind(self.noise)
        safe = kind == "safe"
        fields = dict(
            row_bound=f"‖x_i‖₂ ≤ {bound:.6g} (clipped)",
            theorem="Laplace / analytic Gaussian mechanism, sensitivity 2R/n",
            chapter="chapter 13",
            **noise_record(kind),
        )
        if pure or delta is None:
            l1_sensitivity = l2_sensitivity * math.sqrt(d)
            scale, grid = l1_sensitivity / epsilon, None
            if safe:  # rounding to the grid grows the ℓ₁ sensitivity by d cells
                grid = privacy.safe_granularity(
                    l1_sensitivity, d, scale, noise.MAX_LAPLACE_GRID_SCALE
                )
                scale = privacy.discrete_laplace_scale(
                    l1_sensitivity, epsilon, grid, d
                )
            record = Release(
                "private mean (Laplace)", "pure", epsilon, **fields
            )
            return "laplace", scale, grid, record
        sigma = privacy.analytic_gaussian_sigma(l2_sensitivity, epsilon, delta)
        grid = None
        if safe:  # ... and its ℓ₂ sensitivity by √d cells
            grid = privacy.safe_granularity(
                l2_sensitivity,
                math.sqrt(d),
                sigma,
                noise.MAX_GAUSSIAN_GRID_SIGMA,
            )
            sigma = max(
                sigma,
                privacy.discrete_gaussian_sigma(
                    l2_sensitivity, epsilon, delta, grid, math.sqrt(d)
                ),
            )
            # ρ of the σ used, with the rounding's √d cells
            record = zcdp_release(
                "private mean (Gaussian, safe noise)",
                privacy.gaussian_zcdp_rho(
                    l2_sensitivity + math.sqrt(d) * grid, sigma
                ),
                epsilon,
                delta,
                **fields,
            )
        else:
            record = gaussian_release(
                "private mean (Gaussian)",
                sigma,
                l2_sensitivity,
                epsilon,
                delta,
                **fields,
            )
        return "gaussian", sigma, grid, record

    def _private_mean(self, total, n, bound, plan, rng):
        """Noisy mean of the clipped rows (sum ``total``), drawn as
        ``plan`` says, projected onto the ball of radius ``bound``."""
        law, scale, grid, _ = plan
        add = noise.add_laplace if law == "laplace" else noise.add_gaussian
        noisy = add(
            total / n, scale, noise=self.noise, rng=rng, granularity=grid
        )
        return rows.project_to_ball(noisy, bound)

    def _planned(self, n, d, k, bound, spec, epsilon, options) -> list:
        """The records of the private mean (with a private centre) and of the
        mechanism, for rows bounded by ``bound``: what a fit charges after
        its private bounds (``epsilon`` is what the bounds leave)."""
        delta = None if self.delta is None else float(self.delta)
        planned = []
        if self._private_centre():
            mean_budget, (epsilon, delta) = self._split(epsilon, delta)
            if not spec.uses_delta:
                mean_budget = (mean_budget[0], None)
            planned.append(
                self._private_mean_plan(
                    n, d, bound, mean_budget, spec.notion == "pure"
                )[3]
            )
        if not spec.uses_delta:
            delta = None
        # k only matters to the records of integer-k mechanisms (a fraction
        # is allowed only where the record does not depend on k)
        record = spec.guarantee(n, d, max(int(k), 1), epsilon, delta, options)
        return planned + [record]

    # -- fit / transform
    # -----------------------------------------------------------------------

    def fit(self, X, y=None):
        """Release a private k-dimensional subspace of the rows of ``X``
        (``y`` is ignored).

        Every check and warning happens before any noise is drawn. A second
        ``fit`` of the same estimator spends the budget again, and warns.
        """
        X = validate_data(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=np.float64,
            reset=True,
        )
        n, d = X.shape
        name, spec, bound, k, epsilon, delta, options = self._check_parameters(
            n, d
        )
        if not spec.uses_delta:
            delta = None
        private_centre = self._private_centre()
        public_centre = not isinstance(self.center, (bool, np.bool_))
        if hasattr(self, "privacy_releases_") and self.accountant is None:
            warnings.warn(
                "refitting spends the privacy budget again: the releases of "
                "the earlier fit are still public. Track several fits with a "
                "dppca.accounting.Accountant (accountant=...)",
                PrivacyWarning,
                stacklevel=2,
            )
        releases = []
        bound_epsilon, epsilon = self._bound_budget(epsilon)
        names = self._private_bound_names()
        if names:
            # Bounds first: their records are known before the data is read;
            # the mean and the mechanism are charged after (their noise
            # depends on the released bound).
            labels = {
                "data_norm": "private norm quantile (permute-and-flip)",
                "centered_norm": "private centred norm quantile "
                "(permute-and-flip)",
            }
            bound_records = [
                private_bounds.quantile_guarantee(bound_epsilon, labels[name])
                for name in names
            ]
            if self.accountant is not None:
                # a dry run of the whole fit first, its mean planned at the
                # top of bound_range (the records' ε do not depend on it)
                top = (
                    float(self.bound_range[1]) if bound == "private" else bound
                )
                whole = bound_records + self._planned(
                    n, d, k, top, spec, epsilon, options
                )
                if not self.accountant.can_afford(whole):
                    raise BudgetExceededError(
                        f"{type(self).__name__} would spend the budget "
                        f"(ε = {self.accountant.epsilon:g}, δ = "
                        f"{self.accountant.delta:g}); nothing was charged "
                        "or drawn"
                    )
                self.accountant.charge(bound_records, label="private bounds")
        # the fit's generator is made once a charge has passed: a refused fit
        # leaves the caller's generator as it was
        rng = _generator(self.random_state) if names else None
        if self.data_norm == "private":
            released = self._private_bound(X, bound_epsilon, rng)
            bound = released.bound
            releases.append(released.guarantee)
        self.data_norm_ = bound
        planned = self._planned(n, d, k, bound, spec, epsilon, options)
        record = planned[-1]
        if private_centre:
            mean_budget, (epsilon, delta) = self._split(
                epsilon, None if self.delta is None else float(self.delta)
            )
            if not spec.uses_delta:
                delta = None
                mean_budget = (mean_budget[0], None)
            mean_plan = self._private_mean_plan(
                n, d, bound, mean_budget, spec.notion == "pure"
            )
        if self.accountant is not None:
            # raises before any noise is drawn if the budget would be exceeded
            self.accountant.charge(planned, label=type(self).__name__)
        if rng is None:
            rng = _generator(self.random_state)
        if public_centre:
            centre = self._public_centre(d)
            if spec.run_rows is not None:
                Z = rows.unit_ball_rows(X, bound, centre=centre, clip=self.clip)
            else:
                A = rows.clipped_second_moment(
                    X, bound, centre=centre, clip=self.clip
                ).matrix
            self.mean_, self.row_bound_ = centre.copy(), bound
            row_text = f"‖x_i − c‖₂ ≤ {bound:.6g}, c public"
        elif private_centre:
            total = rows.clipped_row_sum(X, bound, clip=self.clip).total
            mean = self._private_mean(total, n, bound, mean_plan, rng)
            releases.append(mean_plan[3])
            row_bound, clip_centred = self._centered_norm(bound, mean)
            if self.centered_norm == "private":
                released = self._private_bound(X, bound_epsilon, rng, mean)
                row_bound = released.bound
                releases.append(released.guarantee)
            if spec.run_rows is not None:
                Z = rows.unit_ball_rows(
                    X,
                    row_bound,
                    centre=mean,
                    clip=self.clip if clip_centred else True,
                    pre_clip=bound,
                )
            else:
                A = rows.clipped_second_moment(
                    X,
                    row_bound,
                    centre=mean,
                    clip=self.clip if clip_centred else True,
                    pre_clip=bound,
                ).matrix
            self.mean_, self.row_bound_ = mean, row_bound
            row_text = (
                f"‖x_i‖₂ ≤ {bound:.6g}, then ‖x_i − μ̂‖₂ ≤ {row_bound:.6g}"
            )
        else:
            if spec.run_rows is not None:
                Z = rows.unit_ball_rows(X, bound, clip=self.clip)
            else:
                A = rows.clipped_second_moment(X, bound, clip=self.clip).matrix
            self.mean_, self.row_bound_ = np.zeros(d), bound
            row_text = f"‖x_i‖₂ ≤ {bound:.6g}"
        row_text += " (clipped)" if self.clip else " (refused above)"
        with warnings.catch_warnings():
            # The estimator has already warned, in its own words, about the
            # conditions the mechanism functions warn about (_check_parameters).
            for message in MECHANISM_WARNINGS_RAISED_ABOVE:
                warnings.filterwarnings(
                    "ignore", message=message, category=PrivacyWarning
                )
            warnings.simplefilter("ignore", UnprovedGuaranteeWarning)
            k_run = d if isinstance(k, float) else k
            if spec.run_rows is not None:
                V, values, total = spec.run_rows(
                    Z, n, k_run, epsilon, delta, rng, options
                )
            else:
                V, values, total = spec.run(
                    A, n, k_run, epsilon, delta, rng, options
                )
        if values is not None:
            # post-processing of the released matrix: its spectrum and trace
            values = np.asarray(values, dtype=float)
            if isinstance(k, float):
                # smallest k whose released variance reaches the fraction
                share = np.cumsum(values) / total if total > 0 else values
                k = int(min(np.searchsorted(share, k) + 1, d))
            V = np.asarray(V)[:, :k]
            self.explained_variance_ = values[:k] * self.row_bound_**2
            self.explained_variance_ratio_ = (
                values[:k] / total if total > 0 else np.full(k, np.nan)
            )
        releases.append(dataclasses.replace(record, row_bound=row_text))
        V = np.asarray(V, dtype=float)
        # Sign convention (post-processing): largest |entry| of each axis
        # positive.
        signs = np.sign(V[np.argmax(np.abs(V), axis=0), np.arange(k)])
        signs[signs == 0] = 1.0
        self.components_ = (V * signs).T.copy()
        self.mechanism_ = name
        self.n_components_ = k
        self._n_features_out = k
        self.privacy_releases_ = tuple(releases)
        requested = (self.epsilon, self.delta if spec.uses_delta else 0.0)
        self.privacy_spent_ = _snap(basic_composition(releases), requested)
        return self

    def transform(self, X):
        """Project ``X − mean_`` onto the private axes: an ``n × k`` array."""
        check_is_fitted(self, "components_")
        X = validate_data(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=np.float64,
            reset=False,
        )
        projected = np.asarray(X @ self.components_.T)
        return projected - self.mean_ @ self.components_.T

    def inverse_transform(self, X):
        """Map ``n × k`` coordinates back to the data space: ``X components_
        + mean_``."""
        check_is_fitted(self, "components_")
        X = np.asarray(X, dtype=float)
        return X @ self.components_ + self.mean_


__all__ = [
    "AUTO_MECHANISM",
    "MECHANISMS",
    "RELEASES_EIGENVALUES",
    "MechanismSpec",
    "PrivatePCA",
]
