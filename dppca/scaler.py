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

**Add/remove neighbours** (``neighbours="add-remove"``, issue 43). Two data
sets are neighbours when one is the other with one row more, so ``n`` is
private; ``N = max_samples`` is a public cap, and the guarantee covers data
sets of 1 to ``N`` rows (a fit on more is refused before any charge, as by
``PrivatePCA``). The sums need no padding: a row added contributes its own
gridded entries, ``S'_j − S_j = z_j ∈ [−1/2, 1/2]`` and ``Q'_j − Q_j = z_j²
∈ [0, 1/4]`` (removing it, the negatives), for all features at once, and
nothing else moves, because the grid exponent ``k = 52 − bit_length(N)``
comes from the cap, so every other row's gridded entries are the same in
both data sets. Hence ``Δ₁(S) = d/2``, ``Δ₂(S) = √d/2`` (half the
replace-one figures: the row moves from "absent" to a bound, not from one
bound to the other), attained by a row on every upper (or lower) bound, and
``Δ₁(Q) = d/4``, ``Δ₂(Q) = √d/4`` (the replace-one figures), attained by a
row at a corner; a row at the midpoints moves nothing
(``ADD_REMOVE_SENSITIVITY``). The entries stay in ``[−1/2, 1/2]`` after
the gridding (``2^(k−1)`` cells at most, exactly), and the int64 sums stay
exact: ``|s| ≤ N·2^(k−1) < 2^51``.

The divisions need ``n``: the fit releases ``n̂ = n + Z``, ``Z`` exact
discrete Laplace of scale ``⌈1/ε_c⌉``
(``dppca.privacy.private_bounds.private_row_count``: ``n`` moves by one,
pure ``ε_c``-DP), ``ε_c = ROW_COUNT_SHARE·ε`` (5%), its own record; the
mean and the variance share the rest as under replace-one (``mean_share``),
and all of δ. The three records (count, mean, variance), each stating the
relation ``add_remove_neighbours``,
compose by basic composition to ``(ε, δ)`` and are charged together before
any noise. Everything else observable depends on ``n`` only through ``n̂``:
``n_samples_seen_ = min(max(1, n̂), N)`` (post-processing, ``row_count_``
is ``n̂`` itself) divides ``S``, ``Q`` and the floor's noise level; the
refusals ("fewer than 2**44 rows", the grid's) are decided from ``N``; the
warning about δ compares it with ``1/N``, the largest data set covered (a
δ below ``1/N`` is below ``1/n`` for every such data set). With nothing to
release (``with_mean=with_std=False``) no count is drawn and
``n_samples_seen_`` is ``None``.

**Several rows per person** (``fit(X, groups=g)`` with
``max_rows_per_person=m``): each person's mean of its kept rows, summed
over the ``N`` persons, has the replace-one sensitivities at ``n = N``
(:mod:`dppca.scaler_persons`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from . import scaler_persons
from .base import (
    REFIT_WARNING,
    SharedSeedWarningMixin,
    _generator,
    _parameters,
    _snap,
)
from .covariance.persons import delta_message as person_delta_message
from .decomposition.add_remove import (
    DEFAULT_MAX_SAMPLES,
    add_remove_neighbours,
    cap_of,
    check_row_cap,
    count_epsilon,
    count_record,
    delta_message,
    is_add_remove,
)
from .exceptions import PrivacyWarning, warn
from .fit_guard import caller_stacklevel
from .float_state import owns_float_state
from .postprocessing import FLOATS
from .privacy import noise, private_bounds
from .privacy.accounting import basic_composition
from .privacy.guarantees import Release, warn_if_unproved
from .privacy.mean_plan import vector_release_plan
from .scaler_bounds import WIDTH_RANGE, check_bounds, check_output_range
from .validation import (
    check_accountant,
    check_delta,
    check_epsilon,
    check_public_shape,
    check_random_state,
)

#: Replace-one sensitivity per feature of the normalised sums (docstring).
SENSITIVITY = {"mean": 1.0, "variance": 0.25}

#: Add/remove-one sensitivity per feature (module docstring): a row added
#: moves ``S_j`` by ``z_j ∈ [−1/2, 1/2]`` and ``Q_j`` by ``z_j² ∈ [0, 1/4]``.
ADD_REMOVE_SENSITIVITY = {"mean": 0.5, "variance": 0.25}


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


def _budget(est, add_remove=False) -> list[tuple[str, float, float | None]]:
    """``(statistic, ε, δ)`` of each release, from public parameters; under
    add/remove neighbours the private count (``"count"``, first) takes
    ``ROW_COUNT_SHARE`` of ε when anything is released."""
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
    count = []
    if add_remove and (est.with_mean or est.with_std):
        count = [("count", count_epsilon(epsilon), None)]
        epsilon = epsilon - count[0][1]
    if not est.with_std:
        return count + [("mean", epsilon, delta)] if est.with_mean else []
    share = float(est.mean_share)
    if not (math.isfinite(share) and 0 < share < 1):
        raise ValueError(f"mean_share must lie in (0, 1); got {share!r}")
    mean_eps = share * epsilon
    mean_delta = None if delta is None else share * delta
    rest = None if delta is None else delta - mean_delta
    return count + [
        ("mean", mean_eps, mean_delta),
        ("variance", epsilon - mean_eps, rest),
    ]


def _step(
    statistic, d, epsilon, delta, kind, row_bound, cap=None, relation=None
) -> Step:
    """Calibrate one release of ``d`` normalised sums through the package's
    one vector-release calibration
    (:func:`dppca.privacy.mean_plan.vector_release_plan`), at the
    replace-one sensitivities, or with a ``cap`` the add/remove ones (and
    the record states that relation); a per-person ``relation`` keeps the
    replace-one sensitivities (:mod:`dppca.scaler_persons`) and is
    stated."""
    table = SENSITIVITY if cap is None else ADD_REMOVE_SENSITIVITY
    s = table[statistic]
    unit = "w_j" if statistic == "mean" else "w_j² (about the midpoint)"
    theorem = "Laplace / analytic Gaussian mechanism on clipped column "
    theorem += f"sums, sensitivity {s:g} per feature in units of {unit}"
    if cap is not None:
        theorem += " (one row added or removed; grid fixed by max_samples)"
    fields = dict(row_bound=row_bound, theorem=theorem, chapter="chapter 13")
    if cap is not None:
        fields["neighbours"] = add_remove_neighbours(cap)
    if relation is not None:
        theorem += " (per person: each person's mean of its kept rows)"
        fields.update(theorem=theorem, neighbours=relation)
    name = f"private {statistic} (scaler, "
    l1, l2 = s * d, s * math.sqrt(d)
    law, scale, grid, record = vector_release_plan(
        l2, d, epsilon, delta, kind, name, fields, l1_sensitivity=l1
    )
    return Step(statistic, law, scale, grid, l1, l2, record)


def _count_step(epsilon: float, cap: int) -> Step:
    """The private count of rows under add/remove neighbours (module
    docstring): discrete Laplace of scale ``⌈1/ε⌉`` rows, sensitivity one;
    refused before any charge when the exact sampler cannot draw it."""
    record = count_record(epsilon, add_remove_neighbours(cap))
    t = math.ceil(1.0 / epsilon)
    return Step("count", "discrete_laplace", float(t), 1.0, 1.0, 1.0, record)


def plan_cap(est, n: int) -> int | None:
    """``None`` under replace-one neighbours; under add/remove the checked
    public cap ``N = max_samples``, after refusing ``n > N`` (before any
    charge). ``neighbours`` and ``max_samples`` are checked as
    ``PrivatePCA`` checks them."""
    if not is_add_remove(est):
        return None
    cap = cap_of(est)
    check_row_cap(n, cap)
    return cap


def grid_exponent(rows: int) -> int:
    """``k`` of the grid ``2^-k`` of the entries, for ``rows`` rows: ``n``
    under replace-one neighbours, the public cap ``N`` under add/remove."""
    return 52 - int(rows).bit_length()


def scaler_plan(est, n: int, d: int, persons=None) -> list[Step]:
    """Check every public parameter of ``est`` and calibrate its releases on
    ``n`` rows of ``d`` features; raises before any charge. Under add/remove
    neighbours ``n`` is used only to refuse ``n > max_samples``: every other
    decision is made from the cap, and the private count is the first
    step. With ``persons`` (a fit with ``groups``) ``n`` is not read: the
    releases are calibrated on the ``N`` persons and the grid on ``N·m``
    (:mod:`dppca.scaler_persons`)."""
    lower, upper = check_bounds(est.bounds, d)
    check_random_state(est.random_state)
    check_accountant(est.accountant)
    cap = None if persons is not None else plan_cap(est, n)
    rows = n if cap is None else cap
    relation = None
    if persons is not None:
        rows, relation = persons.N, scaler_persons.relation(persons)
    budget = _budget(est, add_remove=cap is not None)
    grid_rows = rows if persons is None else persons.padded_rows
    if grid_exponent(grid_rows) < 8:
        raise ValueError(
            "PrivateStandardScaler takes fewer than 2**44 rows"
            + ("" if cap is None else " (max_samples, under add/remove)")
            + ("" if persons is None else " (persons × max_rows_per_person)")
        )
    text = "x_ij in public [a_j, b_j] per feature (clipped)"
    steps = [
        _count_step(e, cap)
        if s == "count"
        else _step(s, d, e, dl, est.noise, text, cap, relation)
        for s, e, dl in budget
    ]
    if any(rows / 2 > 2.0**51 * (step.grid or 1.0) for step in steps):
        raise ValueError("too many rows for the safe noise grid")
    return steps


def clipped_sums(X, lower, upper, max_samples=None) -> dict[str, np.ndarray]:
    """The pre-noise statistics ``S`` and ``Q`` (module docstring), exact
    float64 values of the normalised, gridded entries; on the grid of ``n``
    rows, or of the public cap ``max_samples`` under add/remove neighbours
    (then one row more or less moves nothing but its own entries)."""
    n = X.shape[0]
    if max_samples is not None:
        check_row_cap(n, max_samples)
    k = grid_exponent(n if max_samples is None else max_samples)
    cells, squares = gridded_entries(X, lower, upper, k)
    s = cells.sum(axis=0)  # |s| ≤ n·2^(k−1) < 2^51: exact
    q = squares.sum(axis=0)
    return dict(mean=np.ldexp(s * 1.0, -k), variance=np.ldexp(q * 1.0, -k))


def gridded_entries(X, lower, upper, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The entries clipped to their ranges, normalised to ``[−1/2, 1/2]``
    and rounded to the grid ``2^-k``, and their squares on the same grid,
    both as int64 cell counts (``|z| ≤ 2^(k−1)``, ``z² ≤ 2^(k−2)``): a map
    on each entry alone."""
    width = upper - lower
    centre = lower / 2 + upper / 2
    # underflow (a subnormal entry) is rounding, never an error: whatever
    # numpy's error state, neighbours differ in nothing but the value
    with np.errstate(under="ignore"):
        z = (np.clip(X, lower, upper) - centre) / width
        z = np.clip(z, -0.5, 0.5)  # guards the rounding of the division
        cells = np.rint(np.ldexp(z, k))  # |cells| ≤ 2^(k−1)
        squares = np.rint(np.ldexp(np.ldexp(cells, -k) ** 2, k))  # ≤ 2^(k−2)
    return cells.astype(np.int64), squares.astype(np.int64)


def _person_sums(X, lower, upper, persons, rng) -> dict[str, np.ndarray]:
    """``S`` and ``Q`` of a fit with ``groups``
    (:mod:`dppca.scaler_persons`): the kept rows' gridded entries, on the
    grid of ``N·m`` rows, averaged per person and summed."""
    rows = scaler_persons.kept(persons, rng)
    k = grid_exponent(persons.padded_rows)
    cells, squares = gridded_entries(X[rows], lower, upper, k)
    codes = persons.codes[rows]
    return scaler_persons.person_sums(cells, squares, codes, persons.N, k)


def _draw(step, sums, kind, rng) -> np.ndarray:
    """The noisy statistic of one planned release."""
    if step.statistic == "count":
        record = step.record
        return private_bounds.private_row_count(
            sums["count"], record.epsilon, rng, record.neighbours
        )[0]
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
    and variances: every fit is a release under replace-one neighbours (or,
    with ``neighbours="add-remove"``, add/remove-one) with each feature in a
    public range (module docstring: the sensitivities).

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
    neighbours : {"replace", "add-remove"}, default="replace"
        The neighbouring relation, as in :class:`dppca.PrivatePCA`.
        ``"replace"``: n public, one row replaced by another. ``"add-remove"``:
        one row added or removed, so n is private: the sums are calibrated
        to a row added (ℓ₁ ``d/2`` for the mean's, ``d/4`` for the
        variance's), and a private count of the rows (``ROW_COUNT_SHARE`` =
        5% of ε, its own record) takes the place of n in the divisions.
    max_samples : int, default=2**27
        With ``neighbours="add-remove"``: a public cap on the number of
        rows, chosen without looking at the data. The guarantee covers data
        sets of 1 to ``max_samples`` rows (a fit on more is refused before
        any charge); the grid of the entries, the refusals and the warning
        about δ are decided from it. Unused under ``"replace"``.
    max_rows_per_person : int or None, default=None
        With ``fit(X, groups=g)``: the unit of privacy is a person, who
        keeps at most this many of its rows (chosen at random, publicly).
        Each person contributes the mean of its kept rows, and the sums
        over the ``N`` persons are calibrated as a replace-one fit on
        ``N`` rows (:mod:`dppca.scaler_persons`): ``mean_`` and ``var_``
        then weigh every person equally. ``None`` (the default): the unit
        is a row, and ``groups`` is refused.

    Attributes
    ----------
    mean_, var_, scale_ : ndarray of shape (n_features,) or None
        Released mean, variance (floored, see the module docstring) and
        ``√var_``; ``None`` as in scikit-learn when not computed.
    n_features_in_, feature_names_in_
        As in scikit-learn.
    n_samples_seen_ : int or None
        Under replace-one neighbours n (public); with ``groups``, the
        number of persons ``N`` (the number of rows is private there).
        Under add/remove the released count ``row_count_`` kept in
        ``[1, max_samples]`` (post-processing), which divides the sums in
        place of n; ``None`` when nothing was released.
    row_count_ : int
        Under add/remove neighbours only, when anything is released: the
        private count of the rows, ``n`` plus discrete Laplace noise of
        scale ``⌈1/(0.05 ε)⌉`` (may exceed n or be below one).
    privacy_releases_ : tuple of Release
        One record per release (the count under add/remove, mean,
        variance).
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
        neighbours="replace",
        max_samples=DEFAULT_MAX_SAMPLES,
        max_rows_per_person=None,
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
        self.neighbours = neighbours
        self.max_samples = max_samples
        self.max_rows_per_person = max_rows_per_person

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
    def fit(self, X, y=None, groups=None):
        """Release the per-feature means (and variances) of ``X``: check the
        public parameters, charge, read the rows, add the noise.

        Every step reads the parameters as they were when the fit began (a
        snapshot): a ``set_params`` from another thread during the fit
        cannot change the noise drawn after the charge.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.
        y : None
            Ignored.
        groups : array-like of shape (n_samples,) or None, default=None
            With ``max_rows_per_person=m``: a hashable label per row naming
            its person (labels that compare equal, such as 1, 1.0 and True,
            name one person); the unit of privacy is then a person
            (:mod:`dppca.scaler_persons`). In a ``Pipeline``,
            ``scaler__groups=g``.

        Returns
        -------
        self : PrivateStandardScaler
            The fitted scaler.
        """
        p = _parameters(self)
        private_rows = p.neighbours == "add-remove" or groups is not None
        # before scikit-learn prints n or values
        check_public_shape(X, rows_private=private_rows)
        X = validate_data(self, X, dtype=FLOATS, reset=True)
        n, d = X.shape
        lower, upper = check_bounds(p.bounds, d)
        check_output_range(p, lower, upper, X.dtype)
        persons = scaler_persons.scaler_persons(p, groups, n)
        steps = scaler_plan(p, n, d, persons)
        if persons is not None:
            cap, n = None, persons.N  # the units; n rows is private
        else:
            cap = plan_cap(p, n)  # None under replace-one; n ≤ cap checked
        if persons is not None:  # the units are the N persons
            message = person_delta_message(p.delta, n)
        else:
            message = delta_message(p.delta, n, cap)
        if message:
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
        X = X.astype(np.float64)
        if persons is not None and steps:
            sums = _person_sums(X, lower, upper, persons, rng)
        else:
            sums = clipped_sums(X, lower, upper, cap)
        sums["count"] = n  # drawn (noisy) under add/remove only
        noisy = {s.statistic: _draw(s, sums, p.noise, rng) for s in steps}
        self._store(noisy, steps, lower, upper, n, cap)
        self.privacy_releases_ = tuple(records)
        requested = (float(p.epsilon), float(p.delta or 0.0))
        spent = basic_composition(records) if records else (0.0, 0.0)
        self.privacy_spent_ = _snap(spent, requested) if records else spent
        return self

    def _store(self, noisy, steps, lower, upper, n, cap):
        """Post-processing of the releases into the fitted attributes. Under
        add/remove neighbours (a ``cap``) ``n`` is private and never read:
        the released count, kept in the range ``[1, N]`` of the relation's
        domain, takes its place (``None`` when nothing was released)."""
        width, centre = upper - lower, lower / 2 + upper / 2
        vars(self).pop("row_count_", None)  # of an earlier add/remove fit
        if cap is not None:
            count = noisy.get("count")
            n = None if count is None else min(max(1, int(count)), cap)
            if count is not None:
                self.row_count_ = int(count)
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
    "WIDTH_RANGE",
    "check_bounds",
    "clipped_sums",
    "scaler_plan",
]
