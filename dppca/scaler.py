"""``PrivateStandardScaler``: private per-feature means and variances on
public per-feature ranges, charged to the same ledger as ``PrivatePCA``
(chapter 13).

**Released.** Feature j has a public range ``[a_j, b_j]``, width ``w_j``,
midpoint ``c_j``. Entries are clipped and normalised, ``z_ij = (clip(x_ij,
a_j, b_j) − c_j) / w_j ∈ [−1/2, 1/2]``, and rounded to the grid ``2^-k``,
``k = 52 − bit_length(n)`` (a map on each entry alone, so neighbours stay
neighbours; the int64 column sums are then exact). Released: ``S_j = Σ_i
z_ij`` (``mean_j = c_j + w_j S_j/n``) and ``Q_j = Σ_i z_ij²``, the second
moment about the public midpoint (``var_j = w_j² (Q_j/n − (S_j/n)²)``).

**Replace-one sensitivities.** Replacing one row changes ``S_j`` by
``z'_j − z_j ∈ [−1, 1]`` and ``Q_j`` by ``z'_j² − z_j² ∈ [−1/4, 1/4]`` (as
``z² ∈ [0, 1/4]``), all features at once: ``Δ₁(S) = d``, ``Δ₂(S) = √d``,
``Δ₁(Q) = d/4``, ``Δ₂(Q) = √d/4``, attained by a row moved from every lower
bound to every upper bound (S) and from the midpoints to a corner (Q). In
data units, ``w_j/n`` and ``w_j²/(4n)``; squares about a released mean would
have up to ``w_j²/n``.

**Noise and budget.** ``delta=None``: Laplace, pure ε; a δ: analytic
Gaussian. ``noise="safe"`` (default) rounds the sums to a grid and adds
exact discrete noise, calibrated as ``PrivatePCA``'s private mean
(``dppca.privacy.mean_plan.private_mean_plan``): proved as a program;
``"float"`` is float64 noise, recorded unproved. With both released, ``S``
gets ``mean_share`` of ε (and δ), ``Q`` the rest (``with_std`` needs ``S``
even when ``with_mean=False``, as scikit-learn's ``var_``); one
:class:`~dppca.privacy.guarantees.Release` each, charged before any noise.

**Post-processing.** ``S/n`` is clamped to ``[−1/2, 1/2]`` and the
normalised variance to ``[floor, 1/4]`` (Popoviciu), ``floor = s_Q/n`` the
standard deviation of the noise on ``Q/n`` (public; at least ``2^-52``): a
variance lost in the noise is floored at the noise level, not blown up.
``scale_ = √var_``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .base import (
    REFIT_WARNING,
    SharedSeedWarningMixin,
    _generator,
    _parameters,
    _snap,
)
from .exceptions import PrivacyWarning, warn
from .fit_guard import caller_stacklevel
from .float_state import owns_float_state
from .postprocessing import FLOATS
from .privacy import noise
from .privacy.accounting import basic_composition
from .privacy.guarantees import Release, warn_if_unproved
from .privacy.mean_plan import vector_release_plan
from .validation import (
    check_accountant,
    check_delta,
    check_epsilon,
    check_public_box,
    check_random_state,
)

#: Replace-one sensitivity per feature of the normalised sums (docstring).
SENSITIVITY = {"mean": 1.0, "variance": 0.25}

#: Public widths allowed: ``w²`` and ``w² · 2^-52`` stay normal floats.
WIDTH_RANGE = (1e-120, 1e120)


@dataclass(frozen=True)
class Step:
    """One planned release; ``scale`` (Laplace b or Gaussian σ) and the
    sensitivities in normalised units; ``grid`` for safe noise."""

    statistic: str
    law: str
    scale: float
    grid: float | None
    l1: float
    l2: float
    record: Release


def check_bounds(bounds, d: int) -> tuple[np.ndarray, np.ndarray]:
    """The public ranges as two float arrays of length ``d`` (scalars are
    broadcast); raises ``ValueError`` naming no row value."""
    if bounds is None or isinstance(bounds, str) or len(bounds) != 2:
        raise ValueError(
            "bounds is required: a pair (lower, upper) of public per-feature "
            "ranges, chosen without looking at the data"
        )
    lower, upper = check_public_box(bounds, d, "bounds")
    low, high = WIDTH_RANGE
    if not np.all((upper - lower >= low) & (upper - lower <= high)):
        raise ValueError(f"bounds need widths in [{low:g}, {high:g}]")
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
    """Calibrate one release of ``d`` normalised sums through the package's
    one vector-release calibration
    (:func:`dppca.privacy.mean_plan.vector_release_plan`)."""
    s = SENSITIVITY[statistic]
    unit = "w_j" if statistic == "mean" else "w_j² (about the midpoint)"
    theorem = "Laplace / analytic Gaussian mechanism on clipped column "
    theorem += f"sums, sensitivity {s:g} per feature in units of {unit}"
    fields = dict(row_bound=row_bound, theorem=theorem, chapter="chapter 13")
    name = f"private {statistic} (scaler, "
    l1, l2 = s * d, s * math.sqrt(d)
    law, scale, grid, record = vector_release_plan(
        l2, d, epsilon, delta, kind, name, fields, l1_sensitivity=l1
    )
    return Step(statistic, law, scale, grid, l1, l2, record)


def scaler_plan(est, n: int, d: int) -> list[Step]:
    """Check every public parameter of ``est`` and calibrate its releases on
    ``n`` rows of ``d`` features; raises before any charge."""
    lower, upper = check_bounds(est.bounds, d)
    check_random_state(est.random_state)
    check_accountant(est.accountant)
    budget = _budget(est)
    if 52 - n.bit_length() < 8:
        raise ValueError("PrivateStandardScaler takes fewer than 2**44 rows")
    text = "x_ij in public [a_j, b_j] per feature (clipped)"
    steps = [_step(s, d, e, dl, est.noise, text) for s, e, dl in budget]
    if any(n / 2 > 2.0**51 * (step.grid or 1.0) for step in steps):
        raise ValueError("too many rows for the safe noise grid")
    return steps


def clipped_sums(X, lower, upper) -> dict[str, np.ndarray]:
    """The pre-noise statistics ``S`` and ``Q`` (module docstring), exact
    float64 values of the normalised, gridded entries."""
    n = X.shape[0]
    k = 52 - n.bit_length()
    width = upper - lower
    centre = lower / 2 + upper / 2
    # underflow (a subnormal entry) is rounding, never an error: whatever
    # numpy's error state, neighbours differ in nothing but the value
    with np.errstate(under="ignore"):
        z = (np.clip(X, lower, upper) - centre) / width
        z = np.clip(z, -0.5, 0.5)  # guards the rounding of the division
        cells = np.rint(np.ldexp(z, k))  # |cells| ≤ 2^(k−1)
        squares = np.rint(np.ldexp(np.ldexp(cells, -k) ** 2, k))  # ≤ 2^(k−2)
    s = cells.astype(np.int64).sum(axis=0)  # |s| ≤ n·2^(k−1) < 2^51: exact
    q = squares.astype(np.int64).sum(axis=0)
    return dict(mean=np.ldexp(s * 1.0, -k), variance=np.ldexp(q * 1.0, -k))


def _draw(step, sums, kind, rng) -> np.ndarray:
    """The noisy statistic of one planned release."""
    add = noise.add_laplace if step.law == "laplace" else noise.add_gaussian
    value = sums[step.statistic]
    return add(value, step.scale, noise=kind, rng=rng, granularity=step.grid)


class PrivateStandardScaler(
    SharedSeedWarningMixin,
    OneToOneFeatureMixin,
    TransformerMixin,
    BaseEstimator,
):
    """scikit-learn's ``StandardScaler`` with differentially private means
    and variances: every fit is a release under replace-one neighbours with
    each feature in a public range (module docstring: the sensitivities).

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
            message = "pickling a fitted PrivateStandardScaler whose "
            message += "random_state determines its noise, which whoever "
            message += "loads it can recompute and remove (fit with None)"
            warn(message, PrivacyWarning, stacklevel=2)
        return state

    @owns_float_state
    def fit(self, X, y=None):
        """Release the per-feature means (and variances) of ``X``: check the
        public parameters, charge, read the rows, add the noise.

        Every step reads the parameters as they were when the fit began (a
        snapshot): a ``set_params`` from another thread during the fit
        cannot change the noise drawn after the charge."""
        p = _parameters(self)
        X = validate_data(self, X, dtype=FLOATS, reset=True)
        n, d = X.shape
        lower, upper = check_bounds(p.bounds, d)
        steps = scaler_plan(p, n, d)
        if p.delta is not None and float(p.delta) >= 1.0 / n:
            message = "delta >= 1/n: choose delta much smaller than 1/n"
            warn(message, PrivacyWarning, stacklevel=caller_stacklevel())
        if hasattr(self, "privacy_releases_") and p.accountant is None:
            warn(REFIT_WARNING, PrivacyWarning, stacklevel=caller_stacklevel())
        records = [step.record for step in steps]
        for record in records:
            warn_if_unproved(record, stacklevel=caller_stacklevel(inner=1))
        if p.accountant is not None and records:
            with p.accountant.exclusive():  # raises before any noise
                p.accountant.charge(records, label=type(self).__name__)
        rng = _generator(p.random_state) if steps else None
        sums = clipped_sums(X.astype(np.float64), lower, upper)
        noisy = {s.statistic: _draw(s, sums, p.noise, rng) for s in steps}
        self._store(noisy, steps, lower, upper, n)
        self.privacy_releases_ = tuple(records)
        requested = (float(p.epsilon), float(p.delta or 0.0))
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
            last = steps[-1]  # noise sd on Q/n: the floor
            sd = last.scale * (math.sqrt(2) if last.law == "laplace" else 1)
            floor = max(sd / n, 2.0**-52)
            v = noisy["variance"] / n - m**2
            v = np.clip(v, min(floor, 0.25), 0.25)
            self.var_ = width**2 * v
            self.scale_ = width * np.sqrt(v)

    def transform(self, X, copy=None):
        """``(clip(X) − mean_) / scale_`` (each step only if enabled): values
        are clipped to the public bounds first, as in ``fit``, so that a row
        far outside them (up to the float64 maximum) still gives finite
        output, whichever row it is."""
        check_is_fitted(self, "privacy_releases_")
        X = validate_data(self, X, dtype=FLOATS, reset=False)
        lower, upper = check_bounds(self.bounds, X.shape[1])
        clipped = np.clip(X, lower, upper).astype(X.dtype, copy=False)
        return self._apply(clipped, forward=True)

    def inverse_transform(self, X, copy=None):
        """``X · scale_ + mean_`` (each step only if enabled)."""
        check_is_fitted(self, "privacy_releases_")
        X = validate_data(self, X, dtype=FLOATS, reset=False)
        return self._apply(X, forward=False)

    def _apply(self, X, forward):
        mean = self.mean_ if self.with_mean else 0.0
        scale = self.scale_ if self.with_std else 1.0
        out = X.astype(np.float64)
        out = (out - mean) / scale if forward else out * scale + mean
        return out.astype(X.dtype, copy=False)


__all__ = [
    "PrivateStandardScaler",
    "check_bounds",
    "clipped_sums",
    "scaler_plan",
]
