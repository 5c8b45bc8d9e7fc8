"""Add/remove-one neighbours: ``PrivatePCA(neighbours="add-remove")``.

Under replace-one neighbours (the default, ``neighbours="replace"``) the
number of rows ``n`` is public and two data sets are neighbours when they
differ in one row. Under **add/remove-one** neighbours two data sets are
neighbours when one is the other with one row more, so ``n`` itself is
private. A fit with ``neighbours="add-remove"`` gives that guarantee, in four
steps.

1. **Padding to a public cap.** Let ``N = max_samples`` be a public cap on
   the number of rows (chosen without looking at the data), and pad a data
   set of ``n ≤ N`` rows with ``N − n`` zero rows (rows equal to the public
   centre before centring, zero after). Write ``z_i`` for the clipped,
   centred, scaled rows (``‖z_i‖ ≤ 1``) and ``S = Σ z_i z_iᵀ`` for their
   unnormalised second moment. The padded data set has ``N`` rows in the
   unit ball and second moment ``A_N = S/N``. Adding a row ``z`` to the data
   set replaces one zero row of its padding by ``z``: ``S' − S = z zᵀ =
   z zᵀ − 0·0ᵀ``. So **two add/remove neighbours of at most N rows have
   padded data sets that are replace-one neighbours of exactly N rows**.
2. **Which mechanisms qualify.** A mechanism whose output depends on the data
   only through ``A`` (the registry's ``run``), whose proof is replace-one
   over rows in the unit ball (the zero row is one), and whose calibration
   uses the number of rows only as the public ``n`` of that proof, is then
   (ε, δ)-DP under add/remove when it is run on ``A_N`` with ``n = N``: its
   replace-one guarantee on the padded data sets is the add/remove guarantee
   on the data sets. Each such mechanism says so, with its reason, in
   ``MechanismSpec.add_remove`` (:func:`add_remove_mechanisms`). This is the
   reduction "run on ``S`` with the normaliser 1" up to the public factor
   ``1/N``: Gaussian noise of standard deviation ``c·√2/N`` on ``S/N`` is
   noise ``c·√2`` on ``S``, the same law of the released subspace. Dividing
   by ``N`` keeps ``A_N`` a true second moment of rows in the unit ball
   (trace at most one), which the mechanisms' entry points check and some of
   their own float-error arguments use (the noisy power method's product,
   PPCA's concentration). The mechanisms that read the rows (``run_rows``)
   would need the ``N`` padded rows themselves, and their step sizes,
   batches or iteration counts depend on ``n``: refused, as is every
   mechanism without a reason, from public parameters before any charge.
3. **The spectrum and the count.** The top-k subspace of ``A_N`` is that of
   ``S/n``; the eigenvalues are not: ``S/n = (N/n)·A_N``. The fit releases
   ``n`` privately, ``n̂ = n + Z`` with ``Z`` exact discrete Laplace of
   scale ``⌈1/ε_c⌉`` (``dppca.privacy.private_bounds.private_row_count``:
   ``n`` moves by one, the geometric mechanism, pure ε_c-DP), with
   ``ε_c = ROW_COUNT_SHARE·ε`` charged to the accountant with its own record,
   and scales the released eigenvalues by ``N / max(1, n̂)``
   (post-processing). The count is released only when the mechanism
   releases eigenvalues (``explained_variance_``); the mechanism gets the
   rest of ε, and all of δ. The count is ``row_count_``.
4. **Float64.** The computed ``A_N`` uses the shrink of
   :mod:`dppca.linalg.float_error` for ``N`` rows, not ``n``, and divides by
   ``N`` (``clipped_second_moment(..., max_samples=N)``; the corollary of
   that module's proposition): neighbouring computed matrices are at most
   ``√2/N`` apart in Frobenius norm, the sensitivity of the mechanisms
   calibrated in that norm at ``n = N``. (The noisy power method with one
   vector is calibrated to ``1/N`` for ``‖(A − A')v‖``, which the
   proposition's float error bounds only within a factor
   ``1 + (√2 − 1)(1 − s²)``, ``1 + 3.9·10⁻⁵`` at the default cap: its
   products absorb that factor too, ``product_shrink(..., input_shrink=s)``,
   under either relation; red team 18.) The
   shrink is ``η ≈ γ_M N/√2``: ``4.7·10⁻⁵`` at the default ``N = 2²⁷``
   rows for ``d = 10`` (a loss of about ``10⁻⁴`` of the signal),
   ``9.4·10⁻⁴`` at ``2³¹``. The guarantee covers data sets of 1 to ``N``
   rows; a fit on more rows is refused before any charge (outside the
   relation's domain, as a row above a public bound with ``clip=False``).

What else is refused under add/remove (``ValueError``, before any charge):
a private centre (``center=True``: its noise is calibrated to ``2R/n``),
private bounds (``data_norm="private"``: the quantile's scores count rows
against ``⌈q n⌉``), and ``groups`` (per-person neighbours are replace-one).
A public centre (a vector, or ``"midpoint"`` of ``feature_range``) or
``center=False`` is used as under replace-one. ``mechanism="auto"`` and the
forecast (``plan``) use the public ``N`` in place of ``n``: the forecast
there is for a data set of ``N`` rows, and the noise on ``S/n`` is ``N/n``
times the noise it shows on ``S/N``.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np

from ..linalg import float_error
from ..linalg.float_error import ADD_REMOVE_MAX_SAMPLES, check_max_samples
from ..privacy.guarantees import ADD_REMOVE_PREFIX, add_remove_relation


def _forecast_plan_mixin():
    from ..forecast import PlanMixin

    return PlanMixin


#: The values of ``PrivatePCA(neighbours=...)``.
NEIGHBOURS = ("replace", "add-remove")

#: The default public cap on the number of rows (``max_samples``).
DEFAULT_MAX_SAMPLES = ADD_REMOVE_MAX_SAMPLES

#: Share of ε spent on the private count of rows (step 3 of the module
#: docstring), when the mechanism releases eigenvalues.
ROW_COUNT_SHARE = 0.05

_PREFIX = ADD_REMOVE_PREFIX


def _numpydoc(head: str, body: str) -> str:
    """One numpydoc entry as the class docstring holds it: ``head`` (its
    indent is the placeholder's), ``body`` filled at 80 columns, indented by
    eight spaces."""
    text = textwrap.fill(
        " ".join(body.split()),
        80,
        initial_indent=" " * 8,
        subsequent_indent=" " * 8,
        break_on_hyphens=False,
        break_long_words=False,
    )
    return f"{head}\n{text}\n    "


#: The estimator's parameters ``neighbours`` and ``max_samples``, as its
#: docstring shows them (numpydoc, indented for the class docstring).
ADD_REMOVE_PARAMETERS = _numpydoc(
    'neighbours : {"replace", "add-remove"}, default="replace"',
    """The neighbouring relation. ``"replace"``: n public, one row replaced by
another. ``"add-remove"``: one row added or removed, so n is private; a
mechanism of ``dppca.decomposition.add_remove.add_remove_mechanisms()`` runs
on the second moment of the data padded with zero rows to ``max_samples``
rows, with ``n = max_samples``, and a private count of the rows
(``ROW_COUNT_SHARE`` = 5% of ε, its own record) scales the released
eigenvalues when the mechanism releases any (post-processing). Needs a public
centre (``center=False``, an array, or ``"midpoint"``) and a public
``data_norm`` (or ``feature_range``), without ``groups``; everything else is
refused before any charge. ``plan`` and ``mechanism="auto"`` use
``max_samples`` in place of n, and ``plan`` says so.
``dppca.model_selection.budgeted_grid_search`` runs it on folds drawn row
by row (an int ``cv`` only, private selection, data sets of 1 to
``max_samples`` rows). scikit-learn's ``GridSearchCV`` and
``cross_val_score``, which the package cannot see, cut their folds from n:
one added row moves others between folds, their fits' data are not add/remove
neighbours, and a ledger shared by them does not cover the search under this
relation.""",
) + _numpydoc(
    "max_samples : int, default=2**27",
    """With ``neighbours="add-remove"``: a public cap on the number of rows.
The guarantee covers data sets of 1 to ``max_samples`` rows (a fit on more
is refused before any charge); the float64 shrink is computed for it (``η`` =
4.7e-5 at the default for d = 10; it grows linearly with the cap). Unused
under ``"replace"``.""",
)

#: The estimator's parameters that choose the unit of privacy and the
#: neighbouring relation, as its docstring shows them.
UNIT_PARAMETERS = (
    _numpydoc(
        "max_rows_per_person : int or None, default=None",
        """``None``: the unit of privacy is a row. An integer ``m >= 1``, with
``fit(X, groups=g)`` only: the unit is a person, who keeps at most ``m`` rows
(chosen at random), with the mechanisms of
``dppca.decomposition.persons.person_level()`` and public bounds.""",
    )
    + ADD_REMOVE_PARAMETERS
).rstrip()

#: The fitted attribute of an add/remove fit, for the class docstring.
ADD_REMOVE_ATTRIBUTES = _numpydoc(
    "row_count_ : int",
    """With ``neighbours="add-remove"`` and a mechanism that releases
eigenvalues only: the private (noisy) count of the rows, which may exceed n
or be below zero; the eigenvalues are scaled by
``max_samples / max(1, row_count_)``.""",
).rstrip()


class AddRemovePlanMixin(_forecast_plan_mixin()):
    """``plan`` of :class:`dppca.PrivatePCA`: the forecast's
    (``dppca.forecast.PlanMixin.plan``), or under add/remove
    neighbours :func:`add_remove_plan`."""

    def plan(self, n_samples, n_features):
        """The error forecast of a fit on ``n_samples`` rows of
        ``n_features`` features (``dppca.forecast.PlanMixin.plan``).
        With ``neighbours="add-remove"`` the number of rows is private: the
        forecast, like the fit's ``"auto"`` choices, uses the public
        ``max_samples`` in its place, at the mechanism's share of ε, and
        says so (its ``note``, printed first)."""
        if not is_add_remove(self):
            return super().plan(n_samples, n_features)
        from ..base import _parameters

        return add_remove_plan(
            _parameters(self), int(n_samples), int(n_features)
        )


def add_remove_neighbours(max_samples: int) -> str:
    """The neighbouring relation of a fit with ``neighbours="add-remove"``
    and the cap ``max_samples``, as its records state it
    (:func:`dppca.privacy.guarantees.add_remove_relation`, which the
    functional entry points' records state too)."""
    return add_remove_relation(max_samples)


def add_remove_cap(neighbours: str) -> int | None:
    """The cap of an add/remove relation (:func:`add_remove_neighbours`),
    ``None`` for any other relation."""
    if not neighbours.startswith(_PREFIX):
        return None
    return int(neighbours[len(_PREFIX) :].split(" ", 1)[0])


def add_remove_mechanisms() -> dict[str, str]:
    """The mechanisms a fit with ``neighbours="add-remove"`` runs, each with
    why its replace-one proof carries over (module docstring, step 2): those
    of the registry whose spec says so (``MechanismSpec.add_remove``).

    Returns
    -------
    dict
        Mechanism key to the reason, in words.
    """
    from ..mechanisms import registry

    return registry.reasons("add_remove")


def check_neighbours(est) -> str:
    """``neighbours``: ``"replace"`` or ``"add-remove"``."""
    value = getattr(est, "neighbours", "replace")
    if not (isinstance(value, str) and value in NEIGHBOURS):
        raise ValueError(
            f"neighbours must be one of {NEIGHBOURS}; got {value!r}"
        )
    return value


def is_add_remove(est) -> bool:
    """``neighbours="add-remove"`` (checked)."""
    return check_neighbours(est) == "add-remove"


def cap_of(est) -> int:
    """The checked ``max_samples`` of ``est``."""
    return check_max_samples(getattr(est, "max_samples", DEFAULT_MAX_SAMPLES))


def check_add_remove(est, n: int | None = None, groups=None) -> int:
    """Refuse, from public parameters (and ``n`` against the cap), what
    add/remove neighbours cannot run; return the cap ``N``."""
    cap = cap_of(est)
    if groups is not None or est.max_rows_per_person is not None:
        raise ValueError(
            "neighbours='add-remove' is a relation between data sets of "
            "rows; groups and max_rows_per_person give per-person "
            "replace-one neighbours: use one or the other; nothing was "
            "charged"
        )
    centre = est.center
    if isinstance(centre, bool) or type(centre).__name__ == "bool_":
        if centre:
            raise ValueError(
                "neighbours='add-remove' needs a public centre: center=True "
                "releases a private mean whose noise is calibrated to the "
                "number of rows, which is private here. Use center=False, a "
                "public centre (an array), or feature_range with "
                "center='midpoint'; nothing was charged"
            )
    if isinstance(est.data_norm, str) and est.data_norm == "private":
        raise ValueError(
            "neighbours='add-remove' needs a public data_norm (or "
            "feature_range): data_norm='private' scores candidates against "
            "a quantile of n rows, and n is private here; nothing was "
            "charged"
        )
    mechanism = est.mechanism
    if isinstance(mechanism, str) and mechanism != "auto":
        check_add_remove_mechanism(mechanism)
    if n is not None:
        check_row_cap(n, cap)
    return cap


def check_cap_shrink(cap: int, d: int) -> None:
    """:func:`dppca.linalg.float_error.check_cap_shrink`, before any
    charge."""
    float_error.check_cap_shrink(cap, d, "charged")


def check_row_cap(n: int, cap: int) -> None:
    """:func:`dppca.linalg.float_error.check_row_cap`, before any
    charge."""
    float_error.check_row_cap(n, cap, "the", "charged")


def check_add_remove_mechanism(name: str) -> None:
    """Refuse a mechanism outside :func:`add_remove_mechanisms`."""
    from ..mechanisms import registry

    if name not in registry.MECHANISMS:
        return  # the estimator's own check words it
    allowed = add_remove_mechanisms()
    if name not in allowed:
        raise ValueError(
            f"mechanism={name!r} is not proved under add/remove neighbours "
            "(it reads the rows, or its calibration uses the number of rows "
            "otherwise, or it is not DP); neighbours='add-remove' runs "
            f"{sorted(allowed)}. Nothing was charged"
        )


def count_needed(est) -> bool:
    """Whether the fit releases eigenvalues, so needs the private count:
    its mechanism has a spectrum (``"auto"``: any candidate has one)."""
    from ..mechanisms import registry

    mechanism = est.mechanism
    if isinstance(mechanism, str) and mechanism == "auto":
        return any(
            registry.MECHANISMS[key].has_spectrum
            for keys in registry.AUTO_CANDIDATES.values()
            for key in keys
        )
    spec = registry.MECHANISMS.get(mechanism)
    return spec is not None and spec.has_spectrum


def count_epsilon(epsilon: float) -> float:
    """ε of the private count: ``ROW_COUNT_SHARE`` of the total."""
    return float(epsilon) * ROW_COUNT_SHARE


def count_record(epsilon: float, relation: str, stated=None):
    """The record of the private count of rows at ``epsilon`` under
    ``relation`` (:func:`dppca.privacy.private_bounds.row_count_guarantee`),
    refused before any charge when the exact sampler cannot draw its noise
    (scale ``⌈1/ε⌉`` rows). ``stated``: the ε the caller gave, which the
    message quotes when given."""
    from ..privacy import noise, private_bounds

    if math.ceil(1.0 / epsilon) > noise.MAX_LAPLACE_GRID_SCALE:
        said = "epsilon" if stated is None else f"epsilon={stated!r}"
        raise ValueError(
            f"{said} is too small: the private count of rows (ε = "
            f"{epsilon:.3g}) would need a noise scale beyond the exact "
            "sampler's range; nothing was charged"
        )
    return private_bounds.row_count_guarantee(epsilon, relation)


def delta_message(delta, n: int, cap: int | None) -> str | None:
    """The warning a fit of the scaler or ``PrivateCovariance`` gives about
    its δ, or ``None``: against ``1/n`` under replace-one neighbours (no
    ``cap``), against ``1/max_samples`` under add/remove (``n`` is private
    there, and the guarantee covers data sets of up to the cap)."""
    if delta is None:
        return None
    if cap is None:
        if float(delta) >= 1.0 / n:
            return "delta >= 1/n: choose delta much smaller than 1/n"
        return None
    if float(delta) >= 1.0 / cap:
        return (
            "delta >= 1/max_samples: under add/remove neighbours n is "
            "private and the guarantee covers data sets of up to "
            "max_samples rows; choose delta much smaller than 1/max_samples "
            "(or a smaller cap)"
        )
    return None


def with_epsilon(est, epsilon: float):
    """A stand-in for ``est`` (its attributes, shallow) with ``epsilon`` in
    place of its own."""
    stand_in = object.__new__(type(est))
    vars(stand_in).update(vars(est))
    stand_in.epsilon = epsilon
    # the caller's ε, for messages (red team 20: they quoted 0.95 ε)
    stand_in._stated_epsilon = stated_epsilon(est)
    return stand_in


def stated_epsilon(est):
    """The ε the caller gave ``est`` (a stand-in of :func:`with_epsilon`
    keeps it), which messages quote."""
    return getattr(est, "_stated_epsilon", est.epsilon)


def eigenvalue_scale(max_samples: int, count: int) -> tuple[float, int]:
    """``(N / max(1, n̂), max(1, n̂))``: the factor that turns eigenvalues of
    ``S/N`` into those of ``S/n̂``, and the row count used (post-processing
    of the released count)."""
    rows = max(1, int(count))
    return max_samples / rows, rows


def counted_spectrum(plan, values, total, count):
    """``(values, total, n)``: released eigenvalues of ``S/N`` (and their
    positive total) as those of ``S/n̂``, with ``n = max(1, n̂)`` for the
    attributes that need it; the values as they are when none were
    released (post-processing of the released count)."""
    if values is None:
        return values, total, None
    if count is None:
        raise RuntimeError("eigenvalues released without a private count")
    scale, rows = eigenvalue_scale(plan.max_samples, count)
    return np.asarray(values, dtype=float) * scale, total * scale, rows


def plan_note(n_samples: int, max_samples: int, share: float | None) -> str:
    """What ``plan`` says under add/remove neighbours."""
    count = (
        f"; {share:g} of ε goes to the private count of rows" if share else ""
    )
    ratio = max_samples / max(int(n_samples), 1)
    return (
        "neighbours='add-remove': n is private, so this forecast (and "
        "mechanism='auto') uses the public cap max_samples = "
        f"{max_samples:,} rows in place of n_samples = {int(n_samples):,}; "
        "with n rows the noise on XᵀX/n is max_samples/n times the one "
        f"forecast ({_short(ratio)} at n_samples){count}"
    )


def _forecast_plan():
    from ..forecast import Plan

    return Plan


class AddRemovePlan(_forecast_plan()):
    """A :class:`dppca.forecast.Plan` made at the public ``max_samples``
    under add/remove neighbours; ``note`` says so, and ``str`` prints it
    first."""

    note = ""

    def __str__(self) -> str:
        return f"{self.note}\n{super().__str__()}"


def add_remove_plan(est, n_samples: int, d: int) -> AddRemovePlan:
    """``plan`` under add/remove neighbours: the forecast at the public cap,
    with the mechanism's share of ε."""
    from .. import forecast
    from ..validation import check_epsilon
    from .ranges import range_stand_in

    est = range_stand_in(est, d)
    cap = check_add_remove(est)
    check_cap_shrink(cap, d)
    share = ROW_COUNT_SHARE if count_needed(est) else None
    if share is not None:
        est = with_epsilon(est, check_epsilon(est.epsilon) * (1 - share))
    out = AddRemovePlan(forecast.estimator_plan(est, cap, d))
    out.note = plan_note(n_samples, cap, share)
    return out


def _short(value: float) -> str:
    return f"{value:.3g}" if math.isfinite(value) else str(value)


__all__ = [
    "ADD_REMOVE_ATTRIBUTES",
    "ADD_REMOVE_PARAMETERS",
    "UNIT_PARAMETERS",
    "AddRemovePlan",
    "AddRemovePlanMixin",
    "DEFAULT_MAX_SAMPLES",
    "NEIGHBOURS",
    "ROW_COUNT_SHARE",
    "add_remove_cap",
    "add_remove_mechanisms",
    "add_remove_neighbours",
    "add_remove_plan",
    "cap_of",
    "check_add_remove",
    "check_add_remove_mechanism",
    "check_row_cap",
    "check_neighbours",
    "count_needed",
    "counted_spectrum",
    "eigenvalue_scale",
    "is_add_remove",
    "plan_note",
]
