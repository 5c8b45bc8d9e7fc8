"""``PrivateStandardScaler``: per-feature private means and variances on
public per-feature ranges, charged to the same ledger as ``PrivatePCA``
(issue 30).

**What is released.** Feature j has a public range ``[a_j, b_j]`` (chosen
without looking at the data), width ``w_j = b_j − a_j`` and midpoint ``c_j``.
Each entry is clipped to its range and normalised,
``z_ij = (clip(x_ij, a_j, b_j) − c_j) / w_j ∈ [−1/2, 1/2]``, then rounded to
the grid ``2^-k`` (``k = 52 − bit_length(n)``, public) so that the column
sums below are exact in int64 and float64 (rounding is a map on each entry
alone: neighbours stay neighbours). Two vectors are released:

* ``S_j = Σ_i z_ij`` (the mean: ``mean_j = c_j + w_j S_j / n``);
* ``Q_j = Σ_i z_ij²``, the second moment about the public midpoint
  (``var_j = w_j² (Q_j / n − (S_j / n)²)``).

**Replace-one sensitivities.** Replacing row i by i' changes ``S_j`` by
``z_i'j − z_ij ∈ [−1, 1]`` and ``Q_j`` by ``z_i'j² − z_ij² ∈ [−1/4, 1/4]``
(``z² ∈ [0, 1/4]``); every feature may change at once, so
``Δ₁(S) = d``, ``Δ₂(S) = √d``, ``Δ₁(Q) = d/4``, ``Δ₂(Q) = √d/4``. The first is
attained by a row moved from all lower bounds to all upper bounds, the second
by a row moved from the midpoints to any corner. In data units: ``w_j/n`` for
the mean, ``w_j²/(4n)`` for the mean of squares about ``c_j``. (Squares about
a released mean would have sensitivity up to ``w_j²/n``, four times more.)

**Noise and budget.** ``delta=None``: Laplace noise, pure ε; a δ: analytic
Gaussian noise. With ``noise="safe"`` (the default) the sums are rounded to
a grid and exact discrete noise is added, calibrated as ``PrivatePCA``'s
private mean (:func:`dppca.privacy.plan.private_mean_plan`): proved as a
program. ``noise="float"`` is float64 noise, recorded unproved. When both
are released, ``S`` gets ``mean_share`` of ε (and of δ) and ``Q`` the rest;
``with_std=True`` needs ``S`` even with ``with_mean=False`` (as
scikit-learn's ``var_``). Each is one :class:`~dppca.privacy.guarantees.Release`
record; the accountant is charged with both before any noise is drawn.

**Post-processing.** ``S/n`` is clamped to ``[−1/2, 1/2]`` (its true value
lies there), the normalised variance to ``[floor, 1/4]`` (Popoviciu) with
``floor = s_Q / n`` the standard deviation of the noise on ``Q/n`` (public;
at least ``2^-52``): a variance lost in the noise is floored at the noise
level rather than blown up. ``scale_ = √var_``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted, validate_data

from .estimator import REFIT_WARNING, _generator, _snap
from .privacy import calibration, noise
from .privacy.accounting import basic_composition
from .privacy.guarantees import (
    Release,
    UnprovedGuaranteeWarning,
    gaussian_release,
    noise_record,
    zcdp_release,
)
from .validation import PrivacyWarning, check_delta, check_epsilon

FLOATS = (np.float64, np.float32)

#: Replace-one sensitivity per feature of the normalised sums (docstring).
SENSITIVITY = {"mean": 1.0, "variance": 0.25}

#: Public widths allowed: ``w²`` and ``w² · 2^-52`` stay normal floats.
WIDTH_RANGE = (1e-120, 1e120)


@dataclass(frozen=True)
class Step:
    """One planned release: the statistic, its law, noise scale (Laplace b
    or Gaussian σ, normalised units), grid (safe noise), ℓ₁ and ℓ₂
    sensitivities and guarantee record."""

    statistic: str
    law: str
    scale: float
    grid: float | None
    l1: float
    l2: float
    record: Release

    @property
    def sd(self) -> float:
        """Standard deviation of the noise on one coordinate."""
        return self.scale * (math.sqrt(2.0) if self.law == "laplace" else 1)


def check_bounds(bounds, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The public ranges as two float arrays of length ``d`` (scalars are
    broadcast); raises ``ValueError`` naming no row value."""
    if bounds is None:
        raise ValueError(
            "bounds is required: (lower, upper), public per-feature ranges "
            "chosen without looking at the data"
        )
    if isinstance(bounds, str) or len(bounds) != 2:
        raise ValueError("bounds must be a pair (lower, upper)")
    out = []
    for side in bounds:
        v = np.asarray(side, dtype=float)
        if v.ndim > 1 or (v.ndim == 1 and v.shape[0] != d):
            raise ValueError(
                "each bound must be a scalar or have length n_features = "
                f"{d}; got shape {v.shape}"
            )
        out.append(np.broadcast_to(v, (d,)).copy())
    lower, upper = out
    if not (np.all(np.isfinite(lower)) and np.all(np.isfinite(upper))):
        raise ValueError("bounds must be finite")
    if not np.all(lower < upper):
        raise ValueError("bounds need lower < upper for every feature")
    width = upper - lower
    if not np.all((width >= WIDTH_RANGE[0]) & (width <= WIDTH_RANGE[1])):
        raise ValueError(
            f"bounds need widths upper − lower in [{WIDTH_RANGE[0]:g}, "
            f"{WIDTH_RANGE[1]:g}]"
        )
    return lower, upper


def _budget(est) -> list[tuple[str, float, float | None]]:
    """``(statistic, ε, δ)`` of each release, from public parameters."""
    epsilon = check_epsilon(est.epsilon)
    delta = None if est.delta is None else check_delta(est.delta)
    for name in ("with_mean", "with_std", "clip"):
        if not isinstance(getattr(est, name), (bool, np.bool_)):
            raise TypeError(f"{name} must be True or False")
    if not est.clip:
        raise ValueError(
            "clip=False is not supported: refusing rows outside the bounds "
            "would make whether fit returns depend on the rows. Clip "
            "(clip=True) to public bounds chosen wide enough"
        )
    noise.check_noise_kind(est.noise)
    if not est.with_std:
        return [("mean", epsilon, delta)] if est.with_mean else []
    share = float(est.mean_share)
    if not (math.isfinite(share) and 0 < share < 1):
        raise ValueError(f"mean_share must lie in (0, 1); got {share!r}")
    mean_eps = share * epsilon
    mean_delta = None if delta is None else share * delta
    rest = None if delta is None else delta - mean_delta
    return [
        ("mean", mean_eps, mean_delta),
        ("variance", epsilon - mean_eps, rest),
    ]


def _step(statistic, d, epsilon, delta, kind, row_bound) -> Step:
    """Calibrate one release of ``d`` normalised sums (as
    :func:`dppca.privacy.plan.private_mean_plan`)."""
    s = SENSITIVITY[statistic]
    l1, l2 = s * d, s * math.sqrt(d)
    fields = dict(
        row_bound=row_bound,
        theorem=(
            "Laplace / analytic Gaussian mechanism on clipped column sums: "
            f"sensitivity {s:g} per feature in units of "
            + ("w_j" if statistic == "mean" else "w_j² (about the midpoint)")
        ),
        chapter="dppca.scaler (issue 30)",
        **noise_record(kind),
    )
    label = f"private {statistic} (scaler, "
    if delta is None:
        scale, grid = l1 / epsilon, None
        if kind == "safe":  # rounding grows the ℓ₁ sensitivity by d cells
            grid = calibration.safe_granularity(
                l1, d, scale, noise.MAX_LAPLACE_GRID_SCALE
            )
            scale = calibration.discrete_laplace_scale(l1, epsilon, grid, d)
        record = Release(label + "Laplace)", "pure", epsilon, **fields)
        return Step(statistic, "laplace", scale, grid, l1, l2, record)
    sigma = calibration.analytic_gaussian_sigma(l2, epsilon, delta)
    if kind == "float":
        record = gaussian_release(
            label + "Gaussian)", sigma, l2, epsilon, delta, **fields
        )
        return Step(statistic, "gaussian", sigma, None, l1, l2, record)
    root = math.sqrt(d)  # ... and its ℓ₂ sensitivity by √d cells
    grid = calibration.safe_granularity(
        l2, root, sigma, noise.MAX_GAUSSIAN_GRID_SIGMA
    )
    sigma = max(
        sigma,
        calibration.discrete_gaussian_sigma(l2, epsilon, delta, grid, root),
    )
    rho = calibration.gaussian_zcdp_rho(l2 + root * grid, sigma)
    label += "Gaussian, safe noise)"
    record = zcdp_release(label, rho, epsilon, delta, **fields)
    return Step(statistic, "gaussian", sigma, grid, l1, l2, record)


def scaler_plan(est, n: int, d: int) -> list[Step]:
    """Check every public parameter of ``est`` and calibrate its releases on
    ``n`` rows of ``d`` features; raises before any charge."""
    lower, upper = check_bounds(est.bounds, d)
    budget = _budget(est)
    if 52 - n.bit_length() < 8:
        raise ValueError("PrivateStandardScaler takes fewer than 2**44 rows")
    text = "x_ij in public [a_j, b_j] per feature (clipped)"
    steps = [_step(s, d, e, dl, est.noise, text) for s, e, dl in budget]
    for step in steps:
        grid = step.grid or 1.0
        if n / 2 / grid > 2.0**51:  # |S| ≤ n/2 must fit the noise grid
            raise ValueError("too many rows for the safe noise grid")
    return steps


def clipped_sums(X, lower, upper) -> dict[str, np.ndarray]:
    """The pre-noise statistics ``S`` and ``Q`` (module docstring), exact
    float64 values of the normalised, gridded entries."""
    n = X.shape[0]
    k = 52 - n.bit_length()
    width = upper - lower
    centre = lower / 2 + upper / 2
    z = (np.clip(X, lower, upper) - centre) / width
    z = np.clip(z, -0.5, 0.5)  # guards the rounding of the division
    cells = np.rint(np.ldexp(z, k))  # |cells| ≤ 2^(k−1)
    squares = np.rint(np.ldexp(np.ldexp(cells, -k) ** 2, k))  # ≤ 2^(k−2)
    s = cells.astype(np.int64).sum(axis=0)  # |s| ≤ n·2^(k−1) < 2^51: exact
    q = squares.astype(np.int64).sum(axis=0)
    return {
        "mean": np.ldexp(s.astype(float), -k),
        "variance": np.ldexp(q.astype(float), -k),
    }


class PrivateStandardScaler(
    OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Standardise features with differentially private means and variances,
    scikit-learn's ``StandardScaler`` with public per-feature ranges.

    Every fit is a release on the rows of ``X`` under **replace-one**
    neighbours with each feature in its public range (entries outside are
    clipped). The module docstring derives the sensitivities.

    Parameters
    ----------
    bounds : (lower, upper)
        Required public ranges, each a scalar or an array of length
        n_features, chosen without looking at the data; ``lower < upper``.
    epsilon : float, default=1.0
        Total ε of the fit.
    delta : float or None, default=None
        ``None``: Laplace noise, pure ε-DP. A δ in (0, 1): Gaussian noise,
        (ε, δ)-DP (choose δ well below 1/n).
    with_mean, with_std : bool, default=True
        As scikit-learn's; ``with_std`` also releases the mean (``var_`` is
        about it). With both False nothing is released or charged.
    mean_share : float, default=0.5
        Share of ε (and δ) spent on the mean when the variance is released
        too, in (0, 1).
    noise : {"safe", "float"}, default="safe"
        ``"safe"``: exact discrete noise on a grid, private as a program.
        ``"float"``: float64 noise, recorded unproved (warns).
    accountant : Accountant or None, default=None
        Charged with the fit's records before any noise is drawn; raises
        ``BudgetExceededError`` (nothing charged or drawn) if they do not fit.
    random_state : None, int, numpy Generator or RandomState, default=None
        As :class:`dppca.PrivatePCA`: ``None`` for a model to be shared.
    clip : bool, default=True
        Entries are clipped to their range. ``False`` is a parameter error
        (refused before reading a row or charging): refusing rows outside
        the ranges would make whether a fit returns depend on the rows.

    Attributes
    ----------
    mean_, var_, scale_ : ndarray of shape (n_features,) or None
        Released mean, variance (floored, see the module docstring) and
        ``√var_``; ``None`` as in scikit-learn when not computed.
    n_features_in_, feature_names_in_, n_samples_seen_
        As in scikit-learn (n is public under replace-one neighbours).
    privacy_releases_ : tuple of Release
        One record per release (mean, variance).
    privacy_spent_ : tuple (epsilon, delta)
        Basic composition of the records.
    """

    def __init__(
        self,
        bounds=None,
        *,
        epsilon=1.0,
        delta=None,
        with_mean=True,
        with_std=True,
        mean_share=0.5,
        noise="safe",
        accountant=None,
        random_state=None,
        clip=True,
    ):
        self.bounds = bounds
        self.epsilon = epsilon
        self.delta = delta
        self.with_mean = with_mean
        self.with_std = with_std
        self.mean_share = mean_share
        self.noise = noise
        self.accountant = accountant
        self.random_state = random_state
        self.clip = clip

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float64", "float32"]
        return tags

    def __getstate__(self):
        state = super().__getstate__()
        if self.random_state is not None and "privacy_releases_" in state:
            warnings.warn(
                "pickling a fitted PrivateStandardScaler with random_state="
                f"{type(self.random_state).__name__}: it determines the "
                "noise, which whoever loads the pickle can recompute and "
                "remove. Fit with random_state=None to share a model",
                PrivacyWarning,
                stacklevel=2,
            )
        return state

    def fit(self, X, y=None):
        """Release the per-feature means (and variances) of ``X``: check the
        public parameters, charge, read the rows, add the noise."""
        X = validate_data(self, X, dtype=FLOATS, reset=True)
        n, d = X.shape
        lower, upper = check_bounds(self.bounds, d)
        steps = scaler_plan(self, n, d)
        if self.delta is not None and float(self.delta) >= 1.0 / n:
            warnings.warn(
                f"delta={self.delta:g} >= 1/n: choose delta much smaller",
                PrivacyWarning,
                stacklevel=2,
            )
        if hasattr(self, "privacy_releases_") and self.accountant is None:
            warnings.warn(REFIT_WARNING, PrivacyWarning, stacklevel=2)
        records = [step.record for step in steps]
        if self.accountant is not None and records:
            with self.accountant.exclusive():
                self.accountant.charge(records, label=type(self).__name__)
        for record in records:
            if not record.proved:
                warnings.warn(
                    f"{record.label} is not fully proved as a program: "
                    f"{record.caveat}",
                    UnprovedGuaranteeWarning,
                    stacklevel=2,
                )
        rng = _generator(self.random_state) if steps else None
        sums = clipped_sums(X.astype(np.float64), lower, upper)
        noisy = {}
        for step in steps:
            add = (
                noise.add_laplace
                if step.law == "laplace"
                else noise.add_gaussian
            )
            noisy[step.statistic] = add(
                sums[step.statistic],
                step.scale,
                noise=self.noise,
                rng=rng,
                granularity=step.grid,
            )
        self._store(noisy, steps, lower, upper, n)
        self.privacy_releases_ = tuple(records)
        requested = (float(self.epsilon), float(self.delta or 0.0))
        spent = basic_composition(records) if records else (0.0, 0.0)
        self.privacy_spent_ = _snap(spent, requested) if records else spent
        return self

    def _store(self, noisy, steps, lower, upper, n):
        """Post-processing of the releases into the fitted attributes."""
        width, centre = upper - lower, lower / 2 + upper / 2
        self.n_samples_seen_ = n
        self.mean_ = self.var_ = self.scale_ = None
        if "mean" in noisy:
            m = np.clip(noisy["mean"] / n, -0.5, 0.5)
            self.mean_ = np.clip(centre + width * m, lower, upper)
        if "variance" in noisy:
            floor = max(steps[-1].sd / n, 2.0**-52)
            v = noisy["variance"] / n - m**2
            v = np.clip(v, min(floor, 0.25), 0.25)
            self.var_ = width**2 * v
            self.scale_ = width * np.sqrt(v)

    def transform(self, X, copy=None):
        """``(X − mean_) / scale_`` (each step only if enabled)."""
        check_is_fitted(self, "privacy_releases_")
        X = validate_data(self, X, dtype=FLOATS, reset=False)
        return self._apply(X, forward=True)

    def inverse_transform(self, X, copy=None):
        """``X · scale_ + mean_`` (each step only if enabled)."""
        check_is_fitted(self, "privacy_releases_")
        X = check_array(X, dtype=FLOATS)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} "
                f"is expecting {self.n_features_in_} features as input"
            )
        return self._apply(X, forward=False)

    def _apply(self, X, forward):
        out = X.astype(np.float64)
        mean = self.mean_ if self.with_mean else None
        scale = self.scale_ if self.with_std else None
        if forward:
            out = out if mean is None else out - mean
            out = out if scale is None else out / scale
        else:
            out = out if scale is None else out * scale
            out = out if mean is None else out + mean
        return out.astype(X.dtype, copy=False)


__all__ = [
    "PrivateStandardScaler",
    "check_bounds",
    "clipped_sums",
    "scaler_plan",
]
