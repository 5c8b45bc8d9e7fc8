"""Guarantee records: what every release of ``dppca`` promises, and on what.

Every private output of the package carries a :class:`Release` record, the
*guarantee record* of that release:

* ``epsilon`` and ``delta``: the privacy it was calibrated to;
* ``neighbours`` and ``row_bound``: the neighbouring relation (replace-one: n
  fixed, one row replaced; or add/remove-one with a public cap ``N`` on the
  rows, :func:`add_remove_relation`, for ``PrivatePCA(neighbours=
  "add-remove")`` and a functional entry point called with
  ``max_samples=N``) and the bound on the rows the proof assumes;
* ``noise``: how the randomness reaches the output: ``"safe"`` (values rounded
  to a grid plus exact discrete noise, ``dppca.privacy.noise``: private as a
  program), ``"float"`` (numpy's float64 samplers added to float64 values:
  private as mathematics only, chapter 10 shows the low-order bits leaking),
  ``"float sampler"`` (the exponential mechanism's float64 rejection or Gibbs
  samplers: no known leak, no proof either) or ``"none"``;
* ``sampler``: ``"exact"`` when the output has exactly the law the theorem
  analyses (up to ``noise``), ``"approximate"`` when it does not (a Gibbs chain
  stopped after finitely many sweeps);
* ``proved``: True only when the claim holds for the program as it runs: an
  exact sampler and safe noise (or no noise); ``caveat`` says what is not
  proved;
* ``theorem`` and ``chapter``: the result the guarantee rests on and the
  chapter of the book that derives or checks it;
* ``kind`` and ``noise_multiplier``: what :mod:`dppca.privacy.accounting`
  needs to compose it (``"pure"``, ``"gaussian"``, ``"zcdp"`` or
  ``"approximate"``), or ``"ideal"`` for a release drawn by an approximate
  sampler: ``epsilon`` is then the pure ε of the exact law it approximates,
  and no (ε, δ) is proved for the release itself (its δ is (1 + e^ε)·t for an
  unbounded total variation t), so the accountant refuses to compose it;
  ``"none"`` for a release with no privacy guarantee at all (a sampler
  started from the data's own answer): ``epsilon`` is ``inf``, and the
  accountant refuses it too.

A release that is not fully proved announces it at call time with an

:class:`~dppca.exceptions.UnprovedGuaranteeWarning` (a
:class:`~dppca.exceptions.PrivacyWarning`), and
:class:`dppca.PrivatePCA` refuses it unless the caller opts in by name.

Functional entry points return their matrices as :class:`Released` arrays: a
plain ndarray with one extra attribute, ``guarantee``. Slices and views keep
it; arithmetic, ``np.linalg`` and every other numpy function return plain
arrays, since what they compute from several releases is not described by
any one record (compose records with :func:`dppca.privacy.accounting.compose`).

This module is light (no scikit-learn, no ``dp-accounting``) so that Dask
workers can import the mechanisms cheaply.
"""

from __future__ import annotations

import dataclasses
import math
import textwrap

import numpy as np

from ..exceptions import UnprovedGuaranteeWarning, warn
from ..validation import power_of_ten_text

#: Kinds of release, as the accountant composes them. Gaussian (an
#: accountant), ρ-zCDP (the safe discrete Gaussian releases, through their
#: Rényi curves), pure ε, or only (ε, δ) known; ``"ideal"`` (ε of the exact
#: law only, from an approximate sampler) and ``"none"`` (no guarantee:
#: ε = inf) are never composed.
KINDS = ("gaussian", "zcdp", "pure", "approximate", "ideal", "none")

#: Kinds an accountant refuses to compose (no (ε, δ) is proved).
UNCOMPOSABLE = ("ideal", "none")

#: How the randomness of a release is drawn (module docstring).
NOISE_KINDS = ("safe", "float", "float sampler", "none")

#: Whether the output has the law the privacy theorem analyses.
SAMPLER_KINDS = ("exact", "approximate")

#: The book's neighbouring relation, which every sensitivity uses.
REPLACE_ONE = "replace-one (n fixed, one row replaced)"

#: The start of every add/remove-one relation (:func:`add_remove_relation`).
ADD_REMOVE_PREFIX = "add/remove-one (one row added or removed, n private; 1 to "


def add_remove_relation(max_samples: int) -> str:
    """The neighbouring relation of a release under add/remove-one
    neighbours with the public cap ``max_samples`` on the rows, as its
    record states it: the words of ``PrivatePCA(neighbours="add-remove")``'s
    records (``dppca.decomposition.add_remove.add_remove_neighbours``; a
    test keeps the two equal), which :mod:`dppca.privacy.accounting` and the
    report read.

    Parameters
    ----------
    max_samples : int
        The public cap ``N``: the relation covers data sets of 1 to ``N``
        rows.

    Returns
    -------
    str
        ``"add/remove-one (one row added or removed, n private; 1 to N
        rows)"``.
    """
    return f"{ADD_REMOVE_PREFIX}{int(max_samples)} rows)"


#: Row bound of the mechanisms' theorems, before the estimator rescales.
UNIT_ROWS = "‖x_i‖₂ ≤ 1"

FLOAT_NOISE_CAVEAT = (
    "float64 noise: the real-valued mechanism is private, the float program "
    "is not proved so (its low-order bits depend on the data; chapter 10)"
)
FLOAT_SAMPLER_CAVEAT = (
    "float64 sampler: exact law in real arithmetic; no proof that the float "
    "program is private (chapter 10)"
)


@dataclasses.dataclass(frozen=True)
class Release:
    """The guarantee record of one private release (module docstring).

    ``epsilon`` and ``delta`` are what the release was calibrated to;
    ``noise_multiplier`` (Gaussian and zCDP releases only) is σ/Δ with Δ the
    replace-one ℓ₂ sensitivity of the released quantity (for a zCDP release,
    1/√(2ρ)), which lets an accountant compose it tightly.

    Parameters
    ----------
    label : str
        What was released (a mechanism, a private mean, a bound).
    kind : {"gaussian", "zcdp", "pure", "approximate", "ideal", "none"}
        How an accountant composes it (module docstring).
    epsilon : float
        The ε the release was calibrated to (``inf`` for kind ``"none"``).
    delta : float, default=0.0
        Its δ.
    noise_multiplier : float, optional
        σ/Δ, for Gaussian and zCDP releases only.
    neighbours : str
        The neighbouring relation (replace-one by default).
    row_bound : str
        The bound on the rows the proof assumes.
    noise : {"safe", "float", "float sampler", "none"}, default="safe"
        How the noise was drawn.
    sampler : {"exact", "approximate"}, default="exact"
        Whether the output has exactly the law the theorem analyses.
    proved : bool, default=True
        Whether the claim holds for the program as it runs.
    caveat : str
        What is not proved (required when ``proved`` is False).
    theorem, chapter : str
        The result the guarantee rests on, and where the book derives it.
    """

    label: str
    kind: str
    epsilon: float
    delta: float = 0.0
    noise_multiplier: float | None = None
    neighbours: str = REPLACE_ONE
    row_bound: str = UNIT_ROWS
    noise: str = "safe"
    sampler: str = "exact"
    proved: bool = True
    caveat: str = ""
    theorem: str = ""
    chapter: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {self.kind!r}")
        if not (self.epsilon >= 0 and 0 <= self.delta < 1):
            raise ValueError(
                "a release needs epsilon >= 0 and 0 <= delta < 1; got "
                f"({self.epsilon!r}, {self.delta!r})"
            )
        if self.kind in ("gaussian", "zcdp"):
            if not (
                self.noise_multiplier is not None
                and math.isfinite(self.noise_multiplier)
                and self.noise_multiplier > 0
            ):
                raise ValueError(
                    "a Gaussian or zCDP release needs a finite "
                    "noise_multiplier > 0"
                )
        elif self.noise_multiplier is not None:
            raise ValueError(
                "only Gaussian and zCDP releases have a noise_multiplier"
            )
        if self.kind in ("pure", "ideal", "none") and self.delta != 0:
            raise ValueError(f"a {self.kind} release has delta = 0")
        if (self.kind == "none") != (self.epsilon == math.inf):
            raise ValueError(
                "a release with no guarantee (kind 'none') has epsilon = "
                "inf, and only such a release; got kind="
                f"{self.kind!r}, epsilon={self.epsilon!r}"
            )
        if self.kind == "none" and self.proved:
            raise ValueError("a release with no guarantee is not proved")
        if self.kind != "none" and (self.kind == "ideal") != (
            self.sampler == "approximate"
        ):
            raise ValueError(
                "a release from an approximate sampler is of kind 'ideal' "
                "(its ε holds for the exact law only), and only such a "
                f"release is; got kind={self.kind!r}, "
                f"sampler={self.sampler!r}"
            )
        if self.noise not in NOISE_KINDS:
            raise ValueError(
                f"noise must be one of {NOISE_KINDS}; got {self.noise!r}"
            )
        if self.sampler not in SAMPLER_KINDS:
            raise ValueError(
                f"sampler must be one of {SAMPLER_KINDS}; got {self.sampler!r}"
            )
        fully = self.noise in ("safe", "none") and self.sampler == "exact"
        if self.proved and not fully:
            raise ValueError(
                "a release is proved only with safe (or no) noise and an "
                f"exact sampler; got noise={self.noise!r}, "
                f"sampler={self.sampler!r}"
            )
        if not self.proved and not self.caveat:
            raise ValueError("an unproved release must say why (caveat)")

    @property
    def claim(self) -> str:
        """The claim in words, "(ε, δ)-DP" or "ε-DP", and the relation."""
        if self.kind == "pure":
            notion = f"{self.epsilon:.4g}-DP (pure)"
        elif self.kind == "none":
            notion = "NOT differentially private (no ε holds)"
        elif self.kind == "ideal":
            notion = (
                f"{self.epsilon:.4g}-DP (pure) for the exact law only; no "
                "(ε, δ) proved for this approximate sampler"
            )
        else:
            notion = f"({self.epsilon:.4g}, {power_of_ten_text(self.delta)})-DP"
        return f"{notion}, {self.neighbours}, rows {self.row_bound}"

    def as_dict(self) -> dict:
        """The record as a flat dict (one row of a table)."""
        return dataclasses.asdict(self)

    def __str__(self) -> str:
        """The record in words, wrapped at 76 characters (continuation lines
        indented by two spaces), so that it prints within a page."""
        status = "proved" if self.proved else f"NOT fully proved: {self.caveat}"
        source = ", ".join(s for s in (self.theorem, self.chapter) if s)
        text = (
            f"{self.label}: {self.claim}; noise {self.noise}, sampler "
            f"{self.sampler}; {status}" + (f" [{source}]" if source else "")
        )
        return textwrap.fill(
            text, STR_WIDTH, subsequent_indent="  ", break_on_hyphens=False
        )


#: Width at which a record's text wraps (``str(record)``).
STR_WIDTH = 76

#: The record's name in prose; the same class.
Guarantee = Release


def gaussian_release(
    label: str, sigma: float, l2_sensitivity: float, epsilon, delta, **record
) -> Release:
    """A Gaussian release of noise σ on a query of replace-one ℓ₂
    sensitivity Δ."""
    return Release(
        label,
        "gaussian",
        float(epsilon),
        float(delta),
        sigma / l2_sensitivity,
        **record,
    )


def zcdp_release(label: str, rho: float, epsilon, delta, **record) -> Release:
    """A ρ-zCDP release calibrated to (ε, δ): the floating-point-safe discrete
    Gaussian mechanisms (``dppca.privacy.discrete_gaussian_sigma``).

    ρ-zCDP means a Rényi divergence of at most αρ at every order α, the Rényi
    curve of a continuous Gaussian mechanism of noise multiplier 1/√(2ρ). So
    the release is stored with that multiplier and composed by the Rényi
    accountant of ``dp-accounting``, which reads only that curve.
    """
    if not (math.isfinite(rho) and rho > 0):
        raise ValueError(f"rho must be a finite number > 0; got {rho!r}")
    return Release(
        label,
        "zcdp",
        float(epsilon),
        float(delta),
        1.0 / math.sqrt(2 * rho),
        **record,
    )


def noise_record(noise: str) -> dict:
    """Record fields for an additive release drawn with ``noise``."""
    if noise == "safe":
        return {"noise": "safe", "proved": True}
    return {"noise": "float", "proved": False, "caveat": FLOAT_NOISE_CAVEAT}


def warn_if_unproved(record: Release, stacklevel: int = 3) -> None:
    """Say at call time that a release is not fully proved."""
    if not record.proved:
        warn(
            f"{record.label} is not fully proved as a program: {record.caveat}",
            UnprovedGuaranteeWarning,
            stacklevel=stacklevel,
        )


class Released(np.ndarray):
    """A released array with its guarantee record (``.guarantee``).

    Behaves as the ndarray it wraps. Views and slices keep the record;
    ufuncs and ``np.linalg`` return plain ndarrays (module docstring).

    Parameters
    ----------
    values : array-like
        The released values.
    guarantee : Release
        Their guarantee record.
    """

    def __new__(cls, values, guarantee: Release):
        obj = np.asarray(values).view(cls)
        obj.guarantee = guarantee
        return obj

    def __array_finalize__(self, obj):
        self.guarantee = getattr(obj, "guarantee", None)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        array = np.asarray(array)
        return array[()] if return_scalar else array

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        def plain(x):
            return x.view(np.ndarray) if isinstance(x, Released) else x

        inputs = tuple(plain(x) for x in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(plain(x) for x in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __reduce__(self):
        # pickles (Dask, multiprocessing) as the plain array
        return np.asarray(self).__reduce__()


def released(values, record: Release, *, warn: bool = True) -> Released:
    """Wrap a release's output with its record, warning if not proved.

    Called from a mechanism's entry point, itself run through
    :func:`dppca.float_state.owns_float_state`'s wrapper: the warning names
    the line that called the entry point."""
    if warn:
        warn_if_unproved(record, stacklevel=5)
    return Released(values, record)


def with_neighbours(value, neighbours: str):
    """``value`` (a :class:`Released` array, or a tuple of them) with every
    record restated under the relation ``neighbours``, nothing else changed.

    Only for a release whose proof holds under that relation as calibrated:
    a functional entry point called with ``max_samples=N`` runs its
    replace-one mechanism at ``n = N`` on the zero-padded rows, which is
    its add/remove-one guarantee (:mod:`dppca.mechanisms.padding`).

    Parameters
    ----------
    value : Released or tuple of Released
        The release.
    neighbours : str
        The relation its records state.

    Returns
    -------
    Released or tuple of Released
        The same values, with the restated records.
    """
    if isinstance(value, tuple):
        return tuple(with_neighbours(part, neighbours) for part in value)
    record = guarantee_of(value)
    if record is None:
        raise TypeError(f"a released array is needed; got {type(value)!r}")
    return Released(value, dataclasses.replace(record, neighbours=neighbours))


def guarantee_of(value) -> Release | None:
    """The record carried by a released array (None for a plain array).

    Its ``neighbours`` names the relation the claim holds under:
    replace-one by default; for a functional entry point called with
    ``max_samples=N`` (or ``PrivatePCA(neighbours="add-remove",
    max_samples=N)``), :func:`add_remove_relation` of ``N``, and
    ``claim`` says so.

    Parameters
    ----------
    value : object
        A released array (or any value).

    Returns
    -------
    Release or None
        Its guarantee record, or None when it carries none.
    """
    return getattr(value, "guarantee", None)


__all__ = [
    "ADD_REMOVE_PREFIX",
    "FLOAT_NOISE_CAVEAT",
    "FLOAT_SAMPLER_CAVEAT",
    "Guarantee",
    "KINDS",
    "NOISE_KINDS",
    "REPLACE_ONE",
    "Release",
    "Released",
    "SAMPLER_KINDS",
    "UNCOMPOSABLE",
    "UNIT_ROWS",
    "UnprovedGuaranteeWarning",
    "add_remove_relation",
    "gaussian_release",
    "guarantee_of",
    "noise_record",
    "released",
    "warn_if_unproved",
    "with_neighbours",
    "zcdp_release",
]
