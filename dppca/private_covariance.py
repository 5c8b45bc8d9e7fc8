"""``PrivateCovariance``: scikit-learn's ``EmpiricalCovariance`` with a
differentially private covariance matrix, charged to the same ledger as
``PrivatePCA`` and ``PrivateStandardScaler`` (chapter 18).

**Rows.** ``data_norm = R`` is a public bound on the rows' ℓ₂ norm, stated
by the caller (never read from the data); rows are clipped to it (a map on
each row alone: replace-one neighbours stay neighbours). ``clip=False`` is a
parameter error, as for the scaler: refusing a long row would make whether
``fit`` returns depend on that row.

**Centre.** ``center=True`` (default): a private mean, the noisy mean of the
rows clipped to ``R`` (replace-one ℓ₂ sensitivity ``2R/n``) with a share
``center_share`` of ε and δ, projected onto the ball of radius ``R``, giving
``μ̂`` (``dppca.privacy.mean_plan.private_mean_plan``, the calibration of
``PrivatePCA``'s private mean). The centred rows ``x_i − μ̂`` are then bounded
by ``B``, the ``centered_norm``: ``"triangle"`` (default) divides by ``B =
min(R + ‖μ̂‖, 2R)``, a bound every clipped row meets (triangle inequality), so
nothing is clipped beyond ``R``; a number clips the centred rows to it;
``None`` is ``R`` (``dppca.privacy.plan.centered_norm``, as
``PrivatePCA``). ``center=False``: the second moment about 0 (``location_ =
0``, scikit-learn's ``assume_centered=True``). An array ``c``: a public
centre, and ``R`` then bounds ``‖x_i − c‖``.

**Released matrix.** ``A = (1/n) Σ z_i z_iᵀ`` with ``z_i = clip_B(x̃_i − c) /
B`` (``x̃_i`` the row clipped to ``R``), computed by
:func:`dppca.linalg.clipped_sums.clipped_second_moment`, whose float64 result
has the sensitivity below (its module docstring proves it). Replacing one
row changes ``A`` by ``(z zᵀ − z' z'ᵀ)/n``; its upper triangle (the
``d(d+1)/2`` entries the noise is added to) has ℓ₂ norm at most ``‖z zᵀ − z'
z'ᵀ‖_F / n = √(‖z‖⁴ + ‖z'‖⁴ − 2(zᵀz')²) / n ≤ √2/n``, attained by two rows
at the bound along two coordinate axes (then the change is ``±1/n`` on two
diagonal entries). With a private mean the map ``x ↦ z`` depends on ``x``
and the released ``μ̂`` only, so for every value of ``μ̂`` the sensitivity is
the same, and the two releases compose adaptively. ``mechanism``:

* ``"analyze_gauss"`` (default): Gaussian noise on the upper triangle of
  ``A``, analytic σ (``analyze_gauss_from_second_moment`` of
  :mod:`dppca.mechanisms.input_perturbation`; ``noise="safe"``: exact
  discrete Gaussian on a grid);
* ``"trace_sensitive"``: Dong, Liang and Yi's estimator on the rows ``z_i``
  (:func:`dppca.mechanisms.trace_sensitive.trace_sensitive_covariance`),
  whose error follows the trace of ``A`` rather than the worst-case bound.

Both are (ε, δ)-DP under replace-one neighbours, so ``delta`` is required.
Each release (mean, matrix) has a :class:`~dppca.privacy.guarantees.Release`
record built by the mechanism's own calibration from public quantities
(:func:`covariance_plan`); the accountant is charged with all of them before
any noise is drawn, and every parameter error is raised before that charge.

**Post-processing.** ``covariance_ = B² · V max(Λ, f) Vᵀ`` for the
eigendecomposition ``V Λ Vᵀ`` of the noisy matrix: its eigenvalues are
raised to a floor ``f ≥ 0`` (the projection onto the positive semidefinite
cone when ``f = 0``), so ``covariance_`` is a valid covariance and, for ``f >
0``, invertible. ``min_eigenvalue="auto"`` sets ``f`` to the standard
deviation of one noise entry of the released matrix (public: a function of
``n``, ``d``, ε, δ and, for ``"trace_sensitive"``, the released radius).
``precision_`` is its inverse (a pseudo-inverse for ``f = 0``).
"""

from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator
from sklearn.covariance import empirical_covariance, log_likelihood
from sklearn.utils.validation import check_is_fitted, validate_data

from . import report
from .estimator import (
    REFIT_WARNING,
    SharedSeedWarningMixin,
    _generator,
    _parameters,
    _snap,
)
from .exceptions import PrivacyWarning, UnprovedGuaranteeWarning, silenced, warn
from .fit_guard import FIT_MODULES, one_fit_at_a_time
from .float_state import owns_float_state
from .linalg import clipped_sums, float_error, rows
from .mechanisms.input_perturbation import analyze_gauss_from_second_moment
from .mechanisms.input_perturbation_guarantees import analyze_gauss_guarantee
from .mechanisms.trace_sensitive import (
    trace_sensitive_covariance,
    trace_sensitive_guarantee,
)
from .mechanisms.trace_sensitive_calibration import trace_sensitive_calibration
from .postprocessing import FLOATS
from .privacy import noise
from .privacy.accounting import basic_composition
from .privacy.calibration import (
    analyze_gauss_sigma,
    safe_gaussian_input_calibration,
)
from .privacy.guarantees import Release, warn_if_unproved
from .privacy.mean_plan import private_mean_plan
from .privacy.plan import centered_norm, public_centre
from .privacy.sensitivity import frobenius_sensitivity_second_moment
from .validation import (
    check_accountant,
    check_delta,
    check_epsilon,
    check_random_state,
)

#: The mechanisms ``PrivateCovariance`` runs (module docstring).
MECHANISMS = ("analyze_gauss", "trace_sensitive")

#: Largest ratio of a public scale (a public centre's norm, ``data_norm``
#: before a smaller ``centered_norm``) to the bound the rows are divided by:
#: beyond it the clip factors of the proved second moment would be
#: subnormal, and it would refuse after the charge.
MAX_SCALE_RATIO = 1e200


@dataclass(frozen=True)
class CovariancePlan:
    """What a fit will release, from public quantities only
    (:func:`covariance_plan`).

    Parameters
    ----------
    mechanism : str
        ``"analyze_gauss"`` or ``"trace_sensitive"``.
    data_norm : float
        The public bound ``R`` on the rows.
    centre : str
        ``"private"``, ``"zero"`` or ``"public"``.
    location : ndarray or None
        The public centre (``"public"``), zeros (``"zero"``) or None.
    centred_bound : float, str or None
        ``centered_norm`` as checked (private centre only).
    mean : tuple or None
        ``(law, scale, grid, record)`` of the private mean.
    epsilon, delta : float
        The matrix's share of the budget.
    sensitivity : float
        Replace-one ℓ₂ sensitivity of the upper triangle of the
        unit-normalised second moment the noise is calibrated to (√2/n).
    sigma : float
        Standard deviation of one noise entry of the unit-normalised matrix
        (for ``"trace_sensitive"``, of its Gaussian matrix step at radius 1).
    grid : float or None
        The safe noise's grid (None for float noise).
    matrix : Release
        The matrix's record.
    min_eigenvalue : float or str
        The floor as given (``"auto"`` or a number ≥ 0).
    """

    mechanism: str
    data_norm: float
    centre: str
    location: np.ndarray | None
    centred_bound: object
    mean: tuple | None
    epsilon: float
    delta: float
    sensitivity: float
    sigma: float
    grid: float | None
    matrix: Release
    min_eigenvalue: object

    @property
    def records(self) -> tuple:
        """Every record the fit charges, in order (mean, matrix)."""
        return ((self.mean[3],) if self.mean else ()) + (self.matrix,)


def _stacklevel() -> int:
    """``stacklevel`` naming the first frame outside the package's fit code
    (``dppca.fit_guard.FIT_MODULES`` and this module)."""
    inside = FIT_MODULES | {__name__}
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__") in inside:
        frame, level = frame.f_back, level + 1
    return level


def _number(value, name: str) -> float:
    """A real number that is not a boolean (``True`` would read as 1.0)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"{name} must be a number; got {value!r}")
    return float(value)


def _bound(value, name: str) -> float:
    """A public bound: finite, in the range where the float64 error bounds
    of :mod:`dppca.linalg.float_error` are verified."""
    value = _number(value, name)
    low, high = float_error.MIN_BOUND, float_error.MAX_MAGNITUDE / 2
    if not (math.isfinite(value) and low <= value <= high):
        raise ValueError(
            f"{name} must be a finite number in [{low:g}, {high:g}]; got "
            f"{value!r}"
        )
    return value


def _check_drawable(sigma, grid, what) -> None:
    """Refuse (before any charge) safe noise the exact discrete Gaussian
    sampler cannot draw: ``sigma/grid`` beyond its range."""
    if grid is not None and not noise.gaussian_drawable(sigma, grid):
        raise ValueError(
            f"epsilon and delta are too small for {what}: its safe noise "
            "would be beyond the exact sampler's range; nothing was charged"
        )


def _centre_kind(est, d):
    """``("private" | "zero" | "public", location)`` of ``center``."""
    if isinstance(est.center, (bool, np.bool_)):
        return ("private", None) if est.center else ("zero", np.zeros(d))
    centre = rows.check_centre(public_centre(est, d), d)
    return "public", centre


def _centred_bound(est, R):
    """``centered_norm`` checked: ``"triangle"``, ``None`` or a bound."""
    value = est.centered_norm
    if value is None:
        return None
    if isinstance(value, str):
        if value != "triangle":
            raise ValueError(
                "centered_norm must be 'triangle', None or a finite number "
                f"> 0; got {value!r}"
            )
        return value
    return _bound(value, "centered_norm")


def _row_bound_text(R, kind, centred) -> str:
    """The bound on the rows the matrix's proof assumes, in words, from
    public parameters only (the charged and the stored record agree)."""
    if kind == "public":
        return f"‖x_i − c‖₂ ≤ {R:.6g}, c public (clipped)"
    if kind == "zero":
        return f"‖x_i‖₂ ≤ {R:.6g} (clipped)"
    if centred == "triangle":
        then = f"divided by min({R:.6g} + ‖μ̂‖, {2 * R:.6g})"
    else:
        B = R if centred is None else centred
        then = f"‖x_i − μ̂‖₂ ≤ {B:.6g} (clipped)"
    return f"‖x_i‖₂ ≤ {R:.6g} (clipped), then {then}, μ̂ the private mean"


def _matrix_plan(mechanism, n, d, epsilon, delta, kind):
    """``(sensitivity, sigma, grid, record)`` of the matrix release."""
    sensitivity = frobenius_sensitivity_second_moment(n, upper_triangle=True)
    if mechanism == "analyze_gauss":
        sigma = analyze_gauss_sigma(n, epsilon, delta)
        grid = None
        if kind == "safe":
            sigma, grid = safe_gaussian_input_calibration(
                d, n, epsilon, delta, sigma
            )
        _check_drawable(sigma, grid, "the noisy matrix")
        record = analyze_gauss_guarantee(n, d, epsilon, delta, noise=kind)
        return sensitivity, sigma, grid, record
    calibration = trace_sensitive_calibration(n, d, epsilon, delta, noise=kind)
    for step in calibration.steps.values():
        _check_drawable(step.sigma, step.granularity, f"the {step.label}")
    step = calibration.steps["gaussian"]
    record = trace_sensitive_guarantee(n, d, epsilon, delta, noise=kind)
    return sensitivity, step.sigma, step.granularity, record


def _check_flags(est) -> None:
    """``clip`` and ``mechanism`` and ``min_eigenvalue`` (no data needed)."""
    if not isinstance(est.clip, (bool, np.bool_)):
        raise TypeError(f"clip must be True or False; got {est.clip!r}")
    if not est.clip:
        raise ValueError(
            "clip=False is not supported: refusing rows above data_norm "
            "would make whether fit returns depend on the rows. Clip "
            "(clip=True) to a public data_norm chosen wide enough"
        )
    if not isinstance(est.mechanism, str) or est.mechanism not in MECHANISMS:
        raise ValueError(
            f"mechanism must be one of {MECHANISMS}; got {est.mechanism!r}"
        )
    floor = est.min_eigenvalue
    if not (isinstance(floor, str) and floor == "auto"):
        if isinstance(floor, str):
            raise ValueError(
                "min_eigenvalue must be 'auto' or a finite number >= 0; got "
                f"{floor!r}"
            )
        value = _number(floor, "min_eigenvalue")
        if not (math.isfinite(value) and 0 <= value <= 1):
            # in units of the unit-normalised matrix, whose eigenvalues lie
            # in [0, 1]: a larger floor would only hide the release
            raise ValueError(
                "min_eigenvalue must be 'auto' or a number in [0, 1] (units "
                f"of the unit-normalised matrix); got {floor!r}"
            )


def covariance_plan(est, n: int, d: int) -> CovariancePlan:
    """Check every public parameter of ``est`` and calibrate its releases on
    ``n`` rows of ``d`` features (both public under replace-one
    neighbours); raises ``ValueError`` or ``TypeError`` before any charge.

    Parameters
    ----------
    est : PrivateCovariance
        The estimator (its parameters only are read).
    n, d : int
        The shape of the data.

    Returns
    -------
    CovariancePlan
        The releases' budgets, noise and records.
    """
    if est.data_norm is None:
        raise ValueError(
            "data_norm is required: a public bound on the rows' norm, "
            "chosen without looking at the data"
        )
    R = _bound(est.data_norm, "data_norm")
    check_random_state(est.random_state)
    check_accountant(est.accountant)
    _check_flags(est)
    epsilon = check_epsilon(est.epsilon)
    if est.delta is None:
        raise ValueError(
            "delta is required: both mechanisms of PrivateCovariance are "
            "Gaussian, (ε, δ)-DP (choose δ well below 1/n)"
        )
    delta = check_delta(est.delta)
    kind = noise.check_noise_kind(est.noise)
    if d < 2:
        raise ValueError(
            f"PrivateCovariance needs at least 2 features; got n_features = {d}"
        )
    centre, location = _centre_kind(est, d)
    if centre == "public" and np.linalg.norm(location) > MAX_SCALE_RATIO * R:
        raise ValueError(
            f"the public center exceeds data_norm by more than "
            f"{MAX_SCALE_RATIO:g}: rescale the data"
        )
    mean, centred = None, None
    if centre == "private":
        share = _number(est.center_share, "center_share")
        if not (math.isfinite(share) and 0 < share < 1):
            raise ValueError(
                f"center_share must lie in (0, 1); got {est.center_share!r}"
            )
        centred = _centred_bound(est, R)
        if isinstance(centred, float) and R > MAX_SCALE_RATIO * centred:
            raise ValueError(
                f"data_norm exceeds centered_norm by more than "
                f"{MAX_SCALE_RATIO:g}: rescale the bounds"
            )
        mean_budget = (share * epsilon, share * delta)
        mean = private_mean_plan(est, n, d, R, mean_budget, False)
        _check_drawable(mean[1], mean[2], "the private mean")
        epsilon, delta = epsilon - mean_budget[0], delta - mean_budget[1]
    sensitivity, sigma, grid, record = _matrix_plan(
        est.mechanism, n, d, epsilon, delta, kind
    )
    text = _row_bound_text(R, centre, centred)
    record = dataclasses.replace(record, row_bound=text)
    return CovariancePlan(
        est.mechanism,
        R,
        centre,
        location,
        centred,
        mean,
        epsilon,
        delta,
        sensitivity,
        sigma,
        grid,
        record,
        est.min_eigenvalue,
    )


def planned_records(est, n: int, d: int) -> list:
    """Every guarantee record a fit of ``est`` on ``n`` rows of ``d``
    features would charge (a dry run, from public quantities only).

    Parameters
    ----------
    est : PrivateCovariance
        The estimator.
    n, d : int
        The shape of the data.

    Returns
    -------
    list of Release
        The private mean's record (``center=True``), then the matrix's.
    """
    return list(covariance_plan(est, n, d).records)


def unit_second_moment(X, plan: CovariancePlan, location=None):
    """The matrix the noise is added to, before any noise: ``(1/n) Σ z_i
    z_iᵀ`` (module docstring), and the bound ``B`` the centred rows were
    divided by.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The rows (float64).
    plan : CovariancePlan
        The fit's plan.
    location : ndarray of shape (n_features,), optional
        The released mean ``μ̂`` (required for a private centre).

    Returns
    -------
    matrix : ndarray of shape (n_features, n_features)
        The unit-normalised second moment.
    bound : float
        ``B``.
    """
    R = plan.data_norm
    if plan.centre != "private":
        centre = None if plan.centre == "zero" else plan.location
        moment = clipped_sums.clipped_second_moment(X, R, centre=centre)
        return moment.matrix, R
    B = _centred(plan, location)
    moment = clipped_sums.clipped_second_moment(
        X, B, centre=location, pre_clip=R
    )
    return moment.matrix, B


def _centred(plan, location) -> float:
    """``B`` for the released mean ``location``
    (``dppca.privacy.plan.centered_norm``, as ``PrivatePCA``)."""
    params = SimpleNamespace(centered_norm=plan.centred_bound)
    value = plan.centred_bound
    return centered_norm(params, plan.data_norm, location, value)[0]


def _unit_rows(X, plan, location):
    """The rows ``z_i`` (for ``"trace_sensitive"``) and ``B``."""
    R = plan.data_norm
    if plan.centre == "private":
        B = _centred(plan, location)
        return rows.unit_ball_rows(X, B, centre=location, pre_clip=R), B
    centre = None if plan.centre == "zero" else plan.location
    return rows.unit_ball_rows(X, R, centre=centre), R


def _private_mean(X, plan, kind, rng) -> np.ndarray:
    """The released mean of the rows clipped to ``R``, projected onto the
    ball of radius ``R`` (post-processing)."""
    n, R = X.shape[0], plan.data_norm
    _, scale, grid, _ = plan.mean
    total = clipped_sums.clipped_row_sum(X, R).total
    noisy = noise.add_gaussian(
        total / n, scale, noise=kind, rng=rng, granularity=grid
    )
    return rows.project_to_ball(noisy, R)


def _release(X, plan, kind, rng):
    """``(location, noisy unit matrix, B, floor in unit terms)``."""
    n = X.shape[0]
    location = plan.location
    if plan.centre == "private":
        location = _private_mean(X, plan, kind, rng)
    # the fit has warned in its own words (unproved noise) before the charge
    with silenced(UnprovedGuaranteeWarning):
        if plan.mechanism == "analyze_gauss":
            A, B = unit_second_moment(X, plan, location)
            noisy = analyze_gauss_from_second_moment(
                A, n, plan.epsilon, plan.delta, rng, noise=kind
            )
            floor = plan.sigma
        else:
            Z, B = _unit_rows(X, plan, location)
            noisy, run = trace_sensitive_covariance(
                Z, plan.epsilon, plan.delta, rng, kind, return_run=True
            )
            floor = plan.sigma * run.choice.radius**2
    return np.array(location, dtype=float), np.asarray(noisy), B, floor


def psd_floor(M, floor: float):
    """``V max(Λ, floor) Vᵀ`` and its inverse for the symmetric ``M = V Λ
    Vᵀ`` (post-processing).

    Parameters
    ----------
    M : ndarray of shape (d, d)
        A symmetric matrix.
    floor : float
        The least eigenvalue kept, ``>= 0``.

    Returns
    -------
    covariance : ndarray of shape (d, d)
        Symmetric positive semidefinite (definite for ``floor > 0``).
    precision : ndarray of shape (d, d)
        Its inverse (pseudo-inverse for ``floor = 0``).
    """
    M = np.asarray(M, dtype=float)
    values, vectors = np.linalg.eigh((M + M.T) / 2)
    values = np.maximum(values, floor)
    covariance = (vectors * values) @ vectors.T
    covariance = (covariance + covariance.T) / 2
    if floor > 0:
        precision = (vectors / values) @ vectors.T
        precision = (precision + precision.T) / 2
    else:
        precision = scipy.linalg.pinvh(covariance, check_finite=False)
    return covariance, precision


class PrivateCovariance(SharedSeedWarningMixin, BaseEstimator):
    """scikit-learn's ``EmpiricalCovariance`` with a differentially private
    covariance matrix: every fit is a release under replace-one neighbours
    with rows bounded in ℓ₂ norm by the public ``data_norm`` (module
    docstring: the sensitivity, the centre, the post-processing).

    Parameters
    ----------
    epsilon : float, default=1.0
        Total ε of the fit (mean and matrix).
    delta : float
        Required total δ in (0, 1), well below 1/n (both mechanisms are
        Gaussian; ``None`` is refused).
    data_norm : float
        Required public bound R on the rows' ℓ₂ norm (on ``‖x − c‖`` for a
        public centre ``c``), chosen without looking at the data. Rows
        longer than R are clipped to it.
    clip : bool, default=True
        Clip the rows to ``data_norm``. ``False`` is refused (before any
        charge): refusing a long row would make whether ``fit`` returns
        depend on that row.
    center : bool or array of shape (n_features,), default=True
        ``True``: a private mean with a share ``center_share`` of the
        budget, and the covariance about it. ``False``: the second moment
        about 0. An array: a public centre.
    center_share : float, default=0.2
        Share of ε and δ spent on the private mean, in (0, 1).
    centered_norm : "triangle", float or None, default="triangle"
        With ``center=True``, the bound ``B`` of the centred rows:
        ``"triangle"``, ``min(R + ‖μ̂‖, 2R)``, which every clipped row meets
        (nothing clipped); a number clips the centred rows to it; ``None``
        is ``data_norm``. The noise in data units grows as ``B²``.
    mechanism : {"analyze_gauss", "trace_sensitive"}, default="analyze_gauss"
        The release of the matrix (module docstring).
    min_eigenvalue : "auto" or float, default="auto"
        Floor on the eigenvalues of ``covariance_``, in units of the
        unit-normalised matrix (multiplied by ``B²``; at most 1, the
        largest eigenvalue of that matrix): ``"auto"`` is the
        noise's standard deviation per entry (public); ``0`` gives the
        projection onto the positive semidefinite cone.
    noise : {"safe", "float"}, default="safe"
        ``"safe"``: exact discrete noise on a grid, private as a program.
        ``"float"``: float64 noise, recorded unproved (warns).
    accountant : Accountant or None, default=None
        Charged with the fit's records before any noise is drawn; raises
        ``BudgetExceededError`` (nothing charged or drawn) if they do not fit.
    random_state : None, int, numpy Generator or RandomState, default=None
        As :class:`dppca.PrivatePCA`: ``None`` (fresh entropy) for a model
        to be shared.

    Attributes
    ----------
    covariance_ : ndarray of shape (n_features, n_features)
        The released covariance, symmetric positive semidefinite.
    location_ : ndarray of shape (n_features,)
        The centre: the private mean, the public centre, or zeros.
    precision_ : ndarray of shape (n_features, n_features)
        The inverse of ``covariance_`` (pseudo-inverse if singular).
    min_eigenvalue_ : float
        The floor applied, in data units.
    row_bound_ : float
        The bound ``B`` the (centred) rows were divided by.
    mechanism_ : str
        The mechanism that ran.
    guarantees_ : tuple of Release
        One record per release (private mean, matrix).
    privacy_releases_ : tuple of Release
        The same records, under the name ``PrivatePCA`` uses.
    privacy_spent_ : tuple (epsilon, delta)
        Basic composition of the records.
    n_features_in_, feature_names_in_
        As in scikit-learn.
    """

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=None,
        data_norm=None,
        clip=True,
        center=True,
        center_share=0.2,
        centered_norm="triangle",
        mechanism="analyze_gauss",
        min_eigenvalue="auto",
        noise="safe",
        accountant=None,
        random_state=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.clip = clip
        self.center = center
        self.center_share = center_share
        self.centered_norm = centered_norm
        self.mechanism = mechanism
        self.min_eigenvalue = min_eigenvalue
        self.noise = noise
        self.accountant = accountant
        self.random_state = random_state

    @one_fit_at_a_time
    @owns_float_state
    def fit(self, X, y=None):
        """Release the covariance of ``X``: check the public parameters,
        charge, read the rows, add the noise, post-process.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.
        y : None
            Ignored.

        Returns
        -------
        self : PrivateCovariance
            The fitted estimator.
        """
        p = _parameters(self)
        X = validate_data(self, X, dtype=FLOATS, reset=True)
        n, d = X.shape
        plan = covariance_plan(p, n, d)
        if float(p.delta) >= 1.0 / n:
            message = "delta >= 1/n: choose delta much smaller than 1/n"
            warn(message, PrivacyWarning, stacklevel=_stacklevel())
        if hasattr(self, "privacy_releases_") and p.accountant is None:
            warn(REFIT_WARNING, PrivacyWarning, stacklevel=_stacklevel())
        records = plan.records
        for record in records:
            warn_if_unproved(record, stacklevel=_stacklevel() + 1)
        if p.accountant is not None:
            with p.accountant.exclusive():  # raises before any noise
                p.accountant.charge(list(records), label=type(self).__name__)
        rng = _generator(p.random_state)
        kind = noise.check_noise_kind(p.noise)
        location, noisy, B, unit_floor = _release(
            X.astype(np.float64), plan, kind, rng
        )
        floor = p.min_eigenvalue
        floor = unit_floor if isinstance(floor, str) else float(floor)
        covariance, precision = psd_floor(noisy, floor)
        scale = B * B
        self.location_ = location
        self.covariance_ = covariance * scale
        self.precision_ = precision / scale
        self.min_eigenvalue_ = floor * scale
        self.row_bound_ = B
        self.mechanism_ = plan.mechanism
        self.guarantees_ = self.privacy_releases_ = records
        requested = (float(p.epsilon), float(p.delta))
        self.privacy_spent_ = _snap(basic_composition(records), requested)
        return self

    def privacy_report(self):
        """The fit's ``dppca.PrivacyReport``.

        Returns
        -------
        PrivacyReport
            The (ε, δ) to report, its composition and the records.
        """
        return report.estimator_report(self)

    def get_precision(self):
        """The precision matrix, as scikit-learn's ``get_precision``.

        Returns
        -------
        ndarray of shape (n_features, n_features)
            ``precision_`` (a copy).
        """
        check_is_fitted(self, "covariance_")
        return self.precision_.copy()

    def mahalanobis(self, X):
        """Squared Mahalanobis distances of the rows of ``X`` to
        ``location_`` under ``precision_``, as scikit-learn's (which
        returns squares too). Post-processing on the caller's rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The observations.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``(x − location_)ᵀ precision_ (x − location_)`` per row.
        """
        check_is_fitted(self, "covariance_")
        X = validate_data(self, X, dtype=FLOATS, reset=False)
        centred = np.asarray(X, dtype=np.float64) - self.location_
        return np.sum((centred @ self.precision_) * centred, axis=1)

    def score(self, X, y=None):
        """Mean Gaussian log-likelihood of ``X`` under ``N(location_,
        covariance_)``, as scikit-learn's ``EmpiricalCovariance.score``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test rows (not the private ones: they are read as given).
        y : None
            Ignored.

        Returns
        -------
        float
            The log-likelihood per row.
        """
        check_is_fitted(self, "covariance_")
        X = validate_data(self, X, dtype=FLOATS, reset=False)
        centred = np.asarray(X, dtype=np.float64) - self.location_
        test_cov = empirical_covariance(centred, assume_centered=True)
        return float(log_likelihood(test_cov, self.precision_))

    def error_norm(
        self, comp_cov, norm="frobenius", scaling=True, squared=True
    ):
        """Distance of ``comp_cov`` to ``covariance_``, as scikit-learn's
        ``error_norm``.

        Parameters
        ----------
        comp_cov : array-like of shape (n_features, n_features)
            The covariance to compare with.
        norm : {"frobenius", "spectral"}, default="frobenius"
            The norm of the difference.
        scaling : bool, default=True
            Divide the squared norm by ``n_features``.
        squared : bool, default=True
            Return the squared norm.

        Returns
        -------
        float
            The (squared, scaled) norm of ``comp_cov − covariance_``.
        """
        check_is_fitted(self, "covariance_")
        error = np.asarray(comp_cov, dtype=float) - self.covariance_
        if norm == "frobenius":
            squared_norm = float(np.sum(error**2))
        elif norm == "spectral":
            squared_norm = float(np.amax(scipy.linalg.svdvals(error.T @ error)))
        else:
            raise NotImplementedError(
                "only spectral and frobenius norms are implemented"
            )
        if scaling:
            squared_norm /= error.shape[0]
        return squared_norm if squared else math.sqrt(squared_norm)


__all__ = [
    "MECHANISMS",
    "CovariancePlan",
    "PrivateCovariance",
    "covariance_plan",
    "planned_records",
    "psd_floor",
    "unit_second_moment",
]
