"""``PrivatePCA``: every private subspace mechanism of the book as a
scikit-learn estimator.

The estimator does three things the mechanisms themselves do not:

1. **Bounds.** The mechanisms need rows of norm at most one. The estimator takes
   a *public* bound ``data_norm`` (never read from the data) and either clips
   each row to it (``clip=True``, the convention of diffprivlib and OpenDP) or
   refuses rows above it (``clip=False``); then it divides by the bound.
   Clipping is a map applied to each row separately, so replace-one neighbours
   stay replace-one neighbours and the mechanisms' guarantees carry over
   unchanged.
2. **Centring.** ``center=False`` (the book's uncentred ``A = XᵀX/n``), a public
   centre ``c`` (``data_norm`` then bounds ``‖x − c‖``), or ``center=True``: a
   private mean, released with a share ``center_share`` of the budget. For rows
   clipped to ``R = data_norm`` the mean ``μ = Σ x_i / n`` changes by ``(x −
   x')/n`` when one row is replaced, so its replace-one sensitivity is ``2R/n``
   in ℓ₂ and ``2R√d/n`` in ℓ₁ (``‖v‖₁ ≤ √d ‖v‖₂``). The noisy mean is projected
   onto the ball of radius ``R`` (which contains the true mean;
   post-processing), giving ``μ̂``; the centred rows then satisfy ``‖x_i − μ̂‖ ≤
   R + ‖μ̂‖ ≤ 2R``, a bound that is a function of the released ``μ̂`` only.
   Dividing by it makes the mechanism's precondition hold, and for a fixed
   ``μ̂`` a replaced row still changes one centred row: the two releases compose
   (adaptively) by :mod:`dppca.accounting`. The mean uses Laplace noise when the
   mechanism is pure ε (so the whole release stays pure) and analytic Gaussian
   noise otherwise.
3. **Input formats.** Dense arrays, pandas DataFrames and scipy.sparse matrices.
   The second moment of the clipped, centred, scaled rows is formed without
   densifying an ``n × d`` matrix: a row ``z_i = α_i x_i − β_i m`` (scalars
   ``α_i, β_i``, one vector ``m``) gives ``Σ z_i z_iᵀ = Xᵀ diag(α²) X − u mᵀ − m
   uᵀ + (Σ β_i²) m mᵀ`` with ``u = Xᵀ(α β)``: one sparse product and a rank-two
   correction.

The second moment then goes to the mechanism's public ``*_from_second_moment``
entry point (see :data:`MECHANISMS`).
"""

from __future__ import annotations

import importlib
import math
import numbers
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted, validate_data

from . import (
    exponential,
    gaussian_approx,
    input_perturbation,
    noise,
    power_method,
    privacy,
)
from .accounting import (
    Release,
    basic_composition,
    gaussian_release,
    zcdp_release,
)
from .linalg import sparse_gram, top_k_eigh, top_k_subspace
from .sensitivity import frobenius_sensitivity_second_moment
from .validation import (
    ROW_NORM_TOLERANCE,
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

    ``run(A, n, k, epsilon, delta, rng, options)`` returns ``(V, eigenvalues)``
    with ``V`` ``d × k`` orthonormal and ``eigenvalues`` the released top-k
    eigenvalues of the noisy matrix (``None`` when the mechanism releases only a
    subspace). ``release(n, d, k, epsilon, delta, options)`` is the
    :class:`dppca.accounting.Release` it makes. ``notion`` is ``"pure"``,
    ``"gaussian"``, ``"approximate"`` or ``"not_dp"``.
    """

    label: str
    notion: str
    needs_delta: bool
    needs_epsilon: bool
    run: Callable
    release: Callable
    privacy: str


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
        values, vectors = top_k_eigh(noisy, k)
        return vectors, values

    return run


def _ppca_run(A, n, k, epsilon, delta, rng, options):
    options = dict(options)
    if isinstance(options.get("V0"), str) and options["V0"] == "pca":
        options["V0"] = top_k_subspace(A, k)  # data-dependent: warned before
    V = exponential.ppca_from_second_moment(
        A, n, k, epsilon, rng=rng, **options
    )
    return V, None


def _gaussian_approx_run(A, n, k, epsilon, delta, rng, options):
    V = gaussian_approx.gaussian_subspace_recovery_from_second_moment(
        A, n, k, epsilon, delta, rng=rng, **options
    )
    return V, None


def _power_method_run(A, n, k, epsilon, delta, rng, options):
    V = power_method.noisy_power_method_from_second_moment(
        A, n, k, epsilon, delta, rng=rng, **options
    )
    return V, None


def _power_method_release(n, d, k, epsilon, delta, options):
    """L Gaussian steps on A·V. Float noise: they compose exactly like one
    Gaussian of sensitivity √L·Δ (Dong, Roth and Su 2022, Cor. 3.3); safe
    noise: a ρ-zCDP release, ρ summed over the L rounded steps."""
    p = options.get("block_size") or k
    L = options.get("n_iterations") or power_method.default_iterations(d)
    step = power_method.power_step_sensitivity(n, p)
    if options.get("noise") == "safe":
        sigma, grid = power_method.safe_noisy_power_calibration(
            n, p, d, epsilon, delta, L
        )
        rho = L * privacy.gaussian_zcdp_rho(
            step + math.sqrt(d * p) * grid, sigma
        )
        return zcdp_release(
            "noisy power method (safe noise)", rho, epsilon, delta
        )
    sigma = power_method.noisy_power_sigma(
        n, p, epsilon, delta, L, options.get("calibration", "zcdp")
    )
    return gaussian_release(
        "noisy power method", sigma, step * math.sqrt(L), epsilon, delta
    )


def _amin_run(A, n, k, epsilon, delta, rng, options):
    try:
        covariance = importlib.import_module("dppca.covariance")
    except ModuleNotFoundError as error:  # pragma: no cover - until merged
        raise ImportError(
            "mechanism='amin' needs dppca.covariance (Amin et al. 2019), "
            "which this installation does not have"
        ) from error
    V = covariance.amin_subspace_from_second_moment(
        A, n, k, epsilon, rng=rng, **options
    )
    return V, None


def _pure(label):
    def release(n, d, k, epsilon, delta, options):
        return Release(label, "pure", epsilon)

    return release


def _safe_input_release(label, n, d, epsilon, delta, sigma_float):
    """ρ-zCDP record of a safe Gaussian input perturbation (upper triangle):
    the σ and grid γ the mechanism uses, and the ℓ₂ sensitivity √2/n grown by
    the rounding, √(d(d+1)/2)·γ (:func:`dppca.privacy.rounded_sensitivity`)."""
    sigma, grid = privacy.safe_gaussian_input_calibration(
        d, n, epsilon, delta, sigma_float
    )
    sensitivity = (
        frobenius_sensitivity_second_moment(n, upper_triangle=True)
        + math.sqrt(d * (d + 1) / 2) * grid
    )
    return zcdp_release(
        f"{label} (safe noise)",
        privacy.gaussian_zcdp_rho(sensitivity, sigma),
        epsilon,
        delta,
    )


def _analyze_gauss_release(n, d, k, epsilon, delta, options):
    sigma = privacy.analyze_gauss_sigma(
        n, epsilon, delta, options.get("calibration", "analytic")
    )
    if options.get("noise") == "safe":
        return _safe_input_release("Analyze Gauss", n, d, epsilon, delta, sigma)
    sensitivity = frobenius_sensitivity_second_moment(n, upper_triangle=True)
    return gaussian_release("Analyze Gauss", sigma, sensitivity, epsilon, delta)


def _mod_sulq_release(n, d, k, epsilon, delta, options):
    beta = privacy.mod_sulq_beta(
        d, n, epsilon, delta, exact=options.get("exact_beta", False)
    )
    if options.get("noise") == "safe":
        return _safe_input_release("MOD-SULQ", n, d, epsilon, delta, beta)
    # The noise has i.i.d. N(0, β²) entries on the upper triangle, whose ℓ₂
    # sensitivity is √2/n: MOD-SULQ is a Gaussian mechanism, and an accountant
    # sees its true (smaller) ε.
    sensitivity = frobenius_sensitivity_second_moment(n, upper_triangle=True)
    return gaussian_release("MOD-SULQ", beta, sensitivity, epsilon, delta)


def _gaussian_approx_release(n, d, k, epsilon, delta, options):
    # G + Gᵀ is the Gaussian mechanism with sensitivity ‖D‖_F / 2 and noise σ
    # (dppca.gaussian_approx, module docstring).
    sensitivity = gaussian_approx.frobenius_sensitivity("replace_one", n) / 2
    if options.get("noise") == "safe":
        # the rounding adds at most d/2 grid cells to that sensitivity
        sigma, grid = gaussian_approx.safe_noise_sigma(
            epsilon, delta, d, "replace_one", n
        )
        return zcdp_release(
            "Mangoubi–Vishnoi (safe noise)",
            privacy.gaussian_zcdp_rho(sensitivity + grid * d / 2, sigma),
            epsilon,
            delta,
        )
    sigma = gaussian_approx.noise_sigma(epsilon, delta, "replace_one", n)
    return gaussian_release(
        "Mangoubi–Vishnoi", sigma, sensitivity, epsilon, delta
    )


def _wishart_delta_release(n, d, k, epsilon, delta, options):
    return Release("Wishart (δ-calibrated)", "approximate", 0.0, delta)


def _wishart_published_release(n, d, k, epsilon, delta, options):
    # Chapter 3: exactly (ε', 1 − e^{−ε/3})-DP for every ε' ≥ 0, hence (0, 1 −
    # e^{−ε/3}).
    gap = float(privacy.wishart_privacy_profile(epsilon, 0.0))
    return Release("Wishart (published)", "approximate", 0.0, gap)


#: Every mechanism :class:`PrivatePCA` runs, by name. Adding one is one entry
#: here.
MECHANISMS: dict[str, MechanismSpec] = {
    "ppca": MechanismSpec(
        "PPCA",
        "pure",
        False,
        True,
        _ppca_run,
        _pure("PPCA"),
        exponential.PRIVACY["ppca"],
    ),
    "analyze_gauss": MechanismSpec(
        "Analyze Gauss",
        "gaussian",
        True,
        True,
        _noisy_matrix_run("analyze_gauss_from_second_moment", "epsilon_delta"),
        _analyze_gauss_release,
        input_perturbation.PRIVACY["analyze_gauss"],
    ),
    "mod_sulq": MechanismSpec(
        "MOD-SULQ",
        "gaussian",
        True,
        True,
        _noisy_matrix_run("mod_sulq_from_second_moment", "epsilon_delta"),
        _mod_sulq_release,
        input_perturbation.PRIVACY["mod_sulq"],
    ),
    "laplace": MechanismSpec(
        "Laplace input",
        "pure",
        False,
        True,
        _noisy_matrix_run(
            "laplace_input_perturbation_from_second_moment", "epsilon"
        ),
        _pure("Laplace input"),
        input_perturbation.PRIVACY["laplace_input_perturbation"],
    ),
    "gaussian_approx": MechanismSpec(
        "Mangoubi–Vishnoi",
        "gaussian",
        True,
        True,
        _gaussian_approx_run,
        _gaussian_approx_release,
        gaussian_approx.PRIVACY["gaussian_subspace_recovery"],
    ),
    "wishart_delta": MechanismSpec(
        "Wishart (δ-calibrated)",
        "approximate",
        True,
        False,
        _noisy_matrix_run(
            "wishart_input_perturbation_delta_from_second_moment", "delta"
        ),
        _wishart_delta_release,
        input_perturbation.PRIVACY["wishart_input_perturbation_delta"],
    ),
    "wishart_published": MechanismSpec(
        "Wishart (published)",
        "not_dp",
        False,
        True,
        _noisy_matrix_run(
            "wishart_input_perturbation_from_second_moment", "epsilon"
        ),
        _wishart_published_release,
        input_perturbation.PRIVACY["wishart_input_perturbation"],
    ),
    "noisy_power_method": MechanismSpec(
        "noisy power method",
        "gaussian",
        True,
        True,
        _power_method_run,
        _power_method_release,
        power_method.PRIVACY["noisy_power_method"],
    ),
    "amin": MechanismSpec(
        "Amin et al.",
        "pure",
        False,
        True,
        _amin_run,
        _pure("Amin et al."),
        "ε-DP (Amin, Dick, Kulesza, Muñoz Medina and Vassilvitskii 2019)",
    ),
}

#: Start of the PrivacyWarning messages of the mechanism functions that
#: :class:`PrivatePCA` raises itself, before fitting (not repeated).
MECHANISM_WARNINGS_RAISED_ABOVE = (
    "wishart_input_perturbation is NOT",
    "PPCA started from a caller-supplied V0",
)

#: Mechanisms that add Laplace or Gaussian noise, drawn through
#: :mod:`dppca.noise` with the estimator's ``noise`` kind. The others are
#: samplers (PPCA) or add a Wishart matrix, for which the package has only
#: floating-point implementations (chapter 10).
ADDITIVE_NOISE = (
    "analyze_gauss",
    "mod_sulq",
    "laplace",
    "gaussian_approx",
    "noisy_power_method",
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
# Rows: norms, clipping, centring and the second moment, dense or sparse
# ------------------------------------------------------------------------------


def row_norms(X) -> np.ndarray:
    """Euclidean norms of the rows of a dense or scipy.sparse matrix (no
    densifying)."""
    if scipy.sparse.issparse(X) and X.format == "csr":
        # Sum of squares per row straight from the CSR arrays (half the time of
        # X.multiply(X).sum(axis=1), which builds a second sparse matrix).
        squares = np.zeros(X.shape[0])
        starts = X.indptr[:-1]
        filled = np.diff(X.indptr) > 0
        if X.nnz:
            squares[filled] = np.add.reduceat(X.data * X.data, starts[filled])
    elif scipy.sparse.issparse(X):
        squares = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    else:
        squares = np.einsum("ij,ij->i", X, X)
    return np.sqrt(squares)


def centred_row_norms(X, centre) -> np.ndarray:
    """‖x_i − c‖ for every row, from ‖x‖² − 2⟨x, c⟩ + ‖c‖² (no n × d copy)."""
    squares = row_norms(X) ** 2 - 2.0 * np.asarray(X @ centre).ravel()
    return np.sqrt(np.maximum(squares + centre @ centre, 0.0))


def clip_factors(norms, bound: float, clip: bool) -> np.ndarray:
    """Per-row factors min(1, bound/‖x_i‖) (``clip=True``), or ones after
    checking every row is
    within ``bound`` (``clip=False``; raises ``ValueError`` naming how many
    rows are not)."""
    too_long = norms > bound * (1.0 + ROW_NORM_TOLERANCE)
    if not clip:
        if np.any(too_long):
            raise ValueError(
                f"{int(too_long.sum())} of {norms.size} rows have norm above "
                f"data_norm = {bound:.6g} (largest {norms.max():.6g}); pass "
                "clip=True to clip them or a larger public data_norm"
            )
        return np.ones_like(norms)
    factors = np.ones_like(norms)
    factors[too_long] = bound / norms[too_long]
    return factors


def weighted_second_moment(X, alpha, beta=None, m=None) -> np.ndarray:
    """``(1/n) Σ z_i z_iᵀ`` for rows ``z_i = α_i x_i − β_i m`` of a dense or
    sparse ``X``.

    Uses ``Xᵀ diag(α²) X − u mᵀ − m uᵀ + (Σ β²) m mᵀ`` with ``u = Xᵀ(α β)``, so
    a sparse ``X`` is never densified; the result is a dense symmetric ``d × d``
    array.
    """
    n = X.shape[0]
    alpha = np.asarray(alpha, dtype=float)
    uniform = bool(np.all(alpha == alpha[0]))
    if scipy.sparse.issparse(X):
        if uniform:
            gram = sparse_gram(X) * alpha[0] ** 2
        else:
            gram = sparse_gram(scipy.sparse.diags(alpha) @ X)
    else:
        if uniform:
            gram = (X.T @ X) * alpha[0] ** 2
        else:
            scaled = X * alpha[:, None]
            gram = scaled.T @ scaled
    if m is not None and beta is not None:
        beta = np.asarray(beta, dtype=float)
        u = np.asarray(X.T @ (alpha * beta)).ravel()
        correction = np.outer(u, m)
        gram = gram - correction - correction.T
        gram += float(beta @ beta) * np.outer(m, m)
    gram /= n
    return (gram + gram.T) / 2.0  # exact symmetry whatever the BLAS did


def project_to_ball(v, radius: float) -> np.ndarray:
    """``v`` scaled down onto the ball of the given radius if it lies
    outside."""
    norm = float(np.linalg.norm(v))
    return v * (radius / norm) if norm > radius else v


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
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(random_state)


class PrivatePCA(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator
):
    """Differentially private PCA with any mechanism of the book,
    scikit-learn style.

    Parameters ---------- n_components : int, default 2 Dimension k of the
    released subspace (``1 <= k < n_features``). epsilon : float, default 1.0
    Total ε, shared with the private mean when ``center=True``. delta : float or
    None, default None Total δ; required by the Gaussian mechanisms and the
    δ-calibrated Wishart. mechanism : str, default "ppca" A key of
    :data:`MECHANISMS`: ``"ppca"`` (Chaudhuri et al. 2013, Alg. 2),
    ``"analyze_gauss"`` (Dwork et al. 2014), ``"mod_sulq"`` (Chaudhuri et al.
    2013, Alg. 1), ``"laplace"`` (Jiang et al. 2016, Alg. 1),
    ``"gaussian_approx"`` (Mangoubi and Vishnoi 2022), ``"wishart_delta"`` (the
    book's (0, δ) Wishart), ``"amin"`` (Amin et al. 2019, needs
    ``dppca.covariance``), ``"wishart_published"`` (Jiang et al. 2016, Alg. 2:
    NOT DP as claimed; only with ``allow_not_dp=True``, and a
    ``PrivacyWarning``). data_norm : float Required public bound on the norm of
    the rows (of ``x − c`` for a public centre ``c``). clip : bool, default True
    Clip rows to ``data_norm``; ``False`` raises ``ValueError`` on a longer row.
    center : False, True or array of shape (n_features,), default False No
    centring, a private mean, or a public centre. center_share : float, default
    0.2 Share of ε (and δ) spent on the private mean when ``center=True``; in
    (0, 1). centered_norm : float or None, default None With ``center=True``: a
    public bound on ``‖x − μ̂‖`` at which the centred rows are clipped (or
    refused, ``clip=False``). ``None`` uses the bound ``data_norm + ‖μ̂‖`` that
    holds without clipping (module docstring), which can be twice the spread.
    mechanism_options : dict or None Passed to the mechanism: ``sampler``,
    ``n_sweeps``, ``V0`` for PPCA (``V0="pca"`` starts the chain at the
    non-private top-k subspace: data-dependent, warned), ``calibration`` for
    Analyze Gauss, ``exact_beta`` for MOD-SULQ. allow_not_dp : bool, default
    False Opt-in needed for ``mechanism="wishart_published"``. noise : {"safe",
    "float"}, default "safe" How the additive mechanisms
    (:data:`ADDITIVE_NOISE`) and the private mean draw their noise
    (:mod:`dppca.noise`): ``"safe"`` rounds to a grid and adds exact discrete
    noise, differentially private as a program; ``"float"`` is float64 noise,
    private only as mathematics (its low-order bits leak, chapter 10), somewhat
    faster. PPCA and the Wishart mechanisms have float implementations only,
    whatever this says. random_state : None, int, numpy Generator or RandomState
    Source of randomness; ``None`` draws fresh entropy (never a fixed seed).

    Attributes ---------- components_ : ndarray (n_components, n_features) The
    private principal axes (rows, orthonormal). mean_ : ndarray (n_features,)
    The centre subtracted by ``transform``: zeros, the public centre, or the
    private mean. explained_variance_ : ndarray (n_components,) Only for
    mechanisms that release a noisy matrix (:data:`RELEASES_EIGENVALUES`): its
    top-k eigenvalues, in the data's units (second moments about ``mean_`` along
    the axes). They may be negative. PPCA, Mangoubi–Vishnoi and Amin et al.
    release no eigenvalues here. row_bound_ : float The public bound the rows
    were divided by (``data_norm``; with a private mean ``centered_norm``, or
    ``data_norm + ‖mean_‖`` if it is None). privacy_releases_ : tuple of
    :class:`dppca.accounting.Release` privacy_spent_ : tuple (epsilon, delta)
    Basic composition of the releases' calibrated figures, centring included;
    compose several estimators with :func:`dppca.accounting.compose`.
    n_components_, n_features_in_, feature_names_in_ : as in scikit-learn.
    """

    def __init__(
        self,
        n_components=2,
        *,
        epsilon=1.0,
        delta=None,
        mechanism="ppca",
        data_norm=None,
        clip=True,
        center=False,
        center_share=0.2,
        centered_norm=None,
        mechanism_options=None,
        allow_not_dp=False,
        noise="safe",
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
        self.allow_not_dp = allow_not_dp
        self.noise = noise
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # -- checks and warnings, all before any noise is drawn
    # -----------------------------------

    def _check_parameters(self, d: int):
        if self.mechanism not in MECHANISMS:
            raise ValueError(
                f"mechanism must be one of {sorted(MECHANISMS)}; got "
                f"{self.mechanism!r}"
            )
        spec = MECHANISMS[self.mechanism]
        if self.data_norm is None:
            raise ValueError(
                "data_norm is required: a public bound on the rows' norm, "
                "chosen without looking at the data"
            )
        data_norm = float(self.data_norm)
        if not (math.isfinite(data_norm) and data_norm > 0):
            raise ValueError(
                f"data_norm must be a finite number > 0; got {self.data_norm!r}"
            )
        if d < 2:
            raise ValueError(
                f"PrivatePCA needs at least 2 features; got n_features = {d}"
            )
        k = self.n_components
        if isinstance(k, bool) or not isinstance(k, numbers.Integral):
            raise TypeError(f"n_components must be an integer; got {k!r}")
        if not 1 <= k < d:
            raise ValueError(
                f"n_components must satisfy 1 <= n_components < n_features = "
                f"{d}; got {k}"
            )
        epsilon = check_epsilon(self.epsilon)
        delta = None if self.delta is None else check_delta(self.delta)
        if spec.needs_delta and delta is None:
            raise ValueError(f"mechanism={self.mechanism!r} needs a delta")
        if spec.notion == "not_dp":
            if not self.allow_not_dp:
                raise ValueError(
                    f"mechanism={self.mechanism!r} is not differentially "
                    "private as published (chapter 3); pass allow_not_dp=True "
                    "to run it anyway"
                )
            warnings.warn(
                f"mechanism={self.mechanism!r} is not DP as published: "
                f"{spec.privacy}",
                PrivacyWarning,
                stacklevel=3,
            )
        options = dict(self.mechanism_options or {})
        kind = noise.check_noise_kind(self.noise)
        if self.mechanism in ADDITIVE_NOISE:
            options.setdefault("noise", kind)
        if self.mechanism == "ppca":
            self._warn_ppca(options, int(k))
        return spec, data_norm, int(k), epsilon, delta, options

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

    def _centered_norm(self) -> float:
        value = float(self.centered_norm)
        if not (math.isfinite(value) and value > 0):
            raise ValueError(
                "centered_norm must be None or a finite number > 0; got "
                f"{self.centered_norm!r}"
            )
        return value

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

    def _private_mean(self, total, n, d, bound, budget, pure, rng):
        """Noisy mean of the clipped rows (sum ``total``), projected onto the
        ball of radius
        ``bound``, and its Release."""
        epsilon, delta = budget
        mean = total / n
        l2_sensitivity = 2.0 * bound / n
        safe = noise.check_noise_kind(self.noise) == "safe"
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
            noisy = noise.add_laplace(
                mean, scale, noise=self.noise, rng=rng, granularity=grid
            )
            release = Release("private mean (Laplace)", "pure", epsilon)
        else:
            sigma = privacy.analytic_gaussian_sigma(
                l2_sensitivity, epsilon, delta
            )
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
            noisy = noise.add_gaussian(
                mean, sigma, noise=self.noise, rng=rng, granularity=grid
            )
            if safe:  # ρ of the σ used, with the rounding's √d cells
                release = zcdp_release(
                    "private mean (Gaussian, safe noise)",
                    privacy.gaussian_zcdp_rho(
                        l2_sensitivity + math.sqrt(d) * grid, sigma
                    ),
                    epsilon,
                    delta,
                )
            else:
                release = gaussian_release(
                    "private mean (Gaussian)",
                    sigma,
                    l2_sensitivity,
                    epsilon,
                    delta,
                )
        return project_to_ball(noisy, bound), release

    # -- fit / transform
    # -----------------------------------------------------------------------

    def fit(self, X, y=None):
        """Release a private k-dimensional subspace of the rows of ``X``
        (``y`` is ignored)."""
        X = validate_data(
            self,
            X,
            accept_sparse=("csr", "csc"),
            dtype=np.float64,
            reset=True,
        )
        n, d = X.shape
        spec, bound, k, epsilon, delta, options = self._check_parameters(d)
        centre = self.center
        private_centre = isinstance(centre, (bool, np.bool_)) and bool(centre)
        public_centre = not isinstance(centre, (bool, np.bool_))
        if private_centre:
            mean_budget, (epsilon, delta) = self._split(epsilon, delta)
        rng = _generator(self.random_state)
        releases = []
        if public_centre:
            centre = np.asarray(centre, dtype=float).ravel()
            if centre.shape != (d,) or not np.all(np.isfinite(centre)):
                raise ValueError(
                    f"center must be True, False or a finite vector of length "
                    f"n_features = {d}"
                )
            factors = clip_factors(
                centred_row_norms(X, centre), bound, self.clip
            )
            alpha = factors / bound
            A = weighted_second_moment(X, alpha, alpha, centre)
            self.mean_, self.row_bound_ = centre.copy(), bound
        elif private_centre:
            factors = clip_factors(row_norms(X), bound, self.clip)
            total = np.asarray(X.T @ factors).ravel()
            mean, mean_release = self._private_mean(
                total, n, d, bound, mean_budget, spec.notion == "pure", rng
            )
            releases.append(mean_release)
            if self.centered_norm is None:
                row_bound = bound + float(np.linalg.norm(mean))
                second = np.ones(n)
            else:
                row_bound = self._centered_norm()
                # ‖w_i x_i − μ̂‖² = w_i²‖x_i‖² − 2 w_i ⟨x_i, μ̂⟩ + ‖μ̂‖², then
                # clip or refuse.
                squares = (
                    (factors * row_norms(X)) ** 2
                    - 2.0 * factors * np.asarray(X @ mean).ravel()
                    + mean @ mean
                )
                second = clip_factors(
                    np.sqrt(np.maximum(squares, 0.0)), row_bound, self.clip
                )
            A = weighted_second_moment(
                X, second * factors / row_bound, second / row_bound, mean
            )
            self.mean_, self.row_bound_ = mean, row_bound
        else:
            factors = clip_factors(row_norms(X), bound, self.clip)
            A = weighted_second_moment(X, factors / bound)
            self.mean_, self.row_bound_ = np.zeros(d), bound
        with warnings.catch_warnings():
            # The estimator has already warned, in its own words, about the two
            # conditions the mechanism functions warn about (_check_parameters).
            for message in MECHANISM_WARNINGS_RAISED_ABOVE:
                warnings.filterwarnings(
                    "ignore", message=message, category=PrivacyWarning
                )
            V, values = spec.run(A, n, k, epsilon, delta, rng, options)
        releases.append(spec.release(n, d, k, epsilon, delta, options))
        V = np.asarray(V, dtype=float)
        # Sign convention (post-processing): largest |entry| of each axis
        # positive.
        signs = np.sign(V[np.argmax(np.abs(V), axis=0), np.arange(k)])
        signs[signs == 0] = 1.0
        self.components_ = (V * signs).T.copy()
        if values is not None:
            self.explained_variance_ = np.asarray(values) * self.row_bound_**2
        self.n_components_ = k
        self._n_features_out = k
        self.privacy_releases_ = tuple(releases)
        self.privacy_spent_ = _snap(
            basic_composition(releases), (self.epsilon, self.delta)
        )
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
    "MECHANISMS",
    "RELEASES_EIGENVALUES",
    "MechanismSpec",
    "PrivatePCA",
    "centred_row_norms",
    "clip_factors",
    "project_to_ball",
    "row_norms",
    "weighted_second_moment",
]
