"""Privacy reports: what a fitted :class:`dppca.PrivatePCA`, or a whole
session of an :class:`dppca.privacy.accounting.Accountant`, has spent, in one
record that prints as plain English and serialises to JSON.

A :class:`PrivacyReport` holds only JSON values (numbers, strings, lists,
dicts, None), so ``json.loads(report.to_json()) == report.to_dict()`` and
``PrivacyReport.from_json(report.to_json()) == report``. A δ that no proof
gives (``privacy_spent_`` reads ``(ε, nan)`` after PPCA's Gibbs chain) is
``None`` (JSON ``null``); infinities are the strings ``"inf"``/``"-inf"``.

It never holds the seed of a fit: anyone who knows an integer
``random_state`` can recompute the noise and remove it, so the report says
only which kind of ``random_state`` was used.
"""

from __future__ import annotations

import dataclasses
import importlib
import json
import math
import textwrap

import numpy as np

from .decomposition.add_remove import add_remove_cap
from .decomposition.persons import person_bound, rows_text, unit_of_privacy
from .privacy.guarantees import REPLACE_ONE

#: Width at which ``str(report)`` wraps.
WIDTH = 76

#: The neighbouring relation in words, for a reader without the book.
NEIGHBOURS_IN_WORDS = {
    REPLACE_ONE: "two data sets are neighbours when they have the same "
    "number of rows and differ in one row, replaced by any other "
    "(replace-one)",
}

#: The add/remove relation in words, for a cap of ``{cap}`` rows
#: (:mod:`dppca.decomposition.add_remove`).
ADD_REMOVE = (
    "two data sets are neighbours when one is the other with one row more "
    "(add/remove-one); the number of rows is private, and the guarantee "
    "covers data sets of 1 to {cap:,} rows"
)


def neighbours_in_words(relation: str) -> str:
    """A record's neighbouring relation in words (``NEIGHBOURS_IN_WORDS``,
    or the per-person relation of a fit with ``groups``)."""
    m = person_bound(relation)
    if m is not None:
        return (
            "two data sets are neighbours when they have the same number of "
            "persons and differ in all the rows of one person, replaced by "
            f"any others, each person with at most {rows_text(m)} (replace-one "
            "person)"
        )
    cap = add_remove_cap(relation)
    if cap is not None:
        return ADD_REMOVE.format(cap=cap)
    return NEIGHBOURS_IN_WORDS.get(relation, relation)


def composed_unit(relations) -> str:
    """The unit of privacy that the composition of releases with these
    neighbouring relations protects, in words. A per-person release is also
    private per row (replacing one row changes one person's rows), but a
    per-row release says nothing about a person: when a ledger holds both,
    the guarantee for all of them together holds per row only (red team,
    round 13: the report listed "a row; per person, at most 4 rows" beside
    one composed ε)."""
    relations = list(relations)
    mixed = any(add_remove_cap(r) is not None for r in relations) and any(
        add_remove_cap(r) is None for r in relations
    )
    if mixed:
        # an (ε, δ) add/remove guarantee is a (2ε, (1 + e^ε)δ) replace-one
        # one (a replacement is a removal then an addition), a replace-one
        # one says nothing under add/remove: together they hold under
        # replace-one only, each add/remove release counted as two steps
        return (
            "a row, under replace-one only: some releases are add/remove, "
            "others replace-one; together they hold under replace-one "
            "neighbours, each add/remove release at (2ε, (1 + e^ε)δ) (a "
            "replacement is a removal then an addition), not at the figure "
            "above"
        )
    units = list(dict.fromkeys(unit_of_privacy(r) for r in relations))
    if len(units) == 1:
        return units[0]
    if "a row" in units:
        return (
            "a row only: some releases protect a row, others a person "
            f"({'; '.join(u for u in units if u != 'a row')}), and "
            "together they protect a row, not a person"
        )
    return "; ".join(units)


def _jsonable(value):
    """``value`` as JSON values only (tuples and arrays as lists, nan as
    None, ±inf as strings, other objects by their repr)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        if math.isnan(value):
            return None
        return value if math.isfinite(value) else str(value)
    if value is None or isinstance(value, str):
        return value
    return repr(value)


def _version() -> str:
    return importlib.import_module("dppca").__version__


@dataclasses.dataclass(frozen=True)
class PrivacyReport:
    """The privacy of a fit or a session, for a compliance reader.

    ``epsilon``, ``delta``: the one figure to report, composed as
    ``composition`` says (``delta`` None: no δ is proved). ``charges``: one
    entry per charge (a fit is one), each ``{"label", "releases"}`` with the
    releases' guarantee records (``Release.as_dict()``). ``budget``: the
    accountant's budget and what is left (None for a fit). ``parameters``:
    the estimator's public parameters (the seed withheld).

    Parameters
    ----------
    subject : str
        What the report is about (an estimator and its mechanism, a session).
    epsilon, delta : float or None
        The figure to report (see above).
    composition : str
        How the figure was composed, in words.
    tighter : str
        A tighter figure an accountant can give, in words (or empty).
    neighbours, row_bounds, noise : list of str
        The neighbouring relations, row bounds and noise kinds of the releases.
    charges : list of dict
        One entry per charge (see above).
    proved : bool
        Whether every release is proved private as the program runs.
    caveats : list of str
        What is not proved, release by release.
    budget : dict or None
        The accountant's budget and what is left.
    parameters : dict
        The public parameters (the seed withheld).
    version : str
        The version of ``dppca`` that made the releases.
    """

    subject: str
    epsilon: float | None
    delta: float | None
    composition: str
    tighter: str
    neighbours: list
    row_bounds: list
    charges: list
    noise: list
    proved: bool
    caveats: list
    budget: dict | None
    parameters: dict
    version: str

    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = _jsonable(getattr(self, field.name))
            object.__setattr__(self, field.name, value)

    @property
    def releases(self) -> list:
        """Every release's record, in the order charged."""
        return [r for charge in self.charges for r in charge["releases"]]

    def to_dict(self) -> dict:
        """The report as a dict of JSON values."""
        return dataclasses.asdict(self)

    def to_json(self, **kwargs) -> str:
        """The report as JSON (strict: no NaN or Infinity literals)."""
        return json.dumps(self.to_dict(), allow_nan=False, **kwargs)

    @classmethod
    def from_dict(cls, data: dict) -> PrivacyReport:
        names = {f.name for f in dataclasses.fields(cls)}
        if set(data) != names:
            raise ValueError(
                "not a privacy report: fields "
                f"{sorted(set(data) ^ names)} missing or unknown"
            )
        return cls(**data)

    @classmethod
    def from_json(cls, text: str) -> PrivacyReport:
        return cls.from_dict(json.loads(text))

    def __str__(self) -> str:
        if self.epsilon is None:
            figure = "no ε could be composed"
        elif self.epsilon in (math.inf, "inf"):
            figure = "NONE: the fit is NOT differentially private"
        elif self.delta is None:
            figure = (
                f"ε = {self.epsilon:.4g} for the exact law only; NO (ε, δ) "
                "guarantee is proved"
            )
        elif self.delta == 0:
            figure = (
                f"ε = {self.epsilon:.4g}, δ = 0 (pure differential privacy)"
            )
        else:
            figure = f"ε = {self.epsilon:.4g}, δ = {self.delta:.3g}"
        n = len(self.releases)
        if self.proved:
            proof = "every release is proved private as the program runs."
        else:
            proof = "NOT fully proved: " + "; ".join(self.caveats)
        neighbours = (
            "; ".join(neighbours_in_words(r) for r in self.neighbours)
            or NEIGHBOURS_IN_WORDS[REPLACE_ONE]
        )
        units = composed_unit(self.neighbours or [REPLACE_ONE])
        lines = [
            f"Privacy report: {self.subject} (dppca {self.version}).",
            f"Guarantee: {figure}, for all {n} release(s) together "
            f"({self.composition}).",
            f"Neighbours: {neighbours}.",
            f"Unit of privacy: {units}.",
            "Row bound: " + ("; ".join(self.row_bounds) or "none yet") + ".",
            "Noise: "
            + (", ".join(self.noise) or "none yet")
            + ". Proof: "
            + proof,
        ]
        if self.budget is not None:
            b = self.budget
            lines.append(
                f"Budget: ε = {b['epsilon']:g}, δ = {b['delta']:g}; left "
                f"about ε = {b['remaining'][0]:.4g}, δ = "
                f"{b['remaining'][1]:.3g}."
            )
        if self.tighter:
            lines.append(self.tighter)
        return "\n".join(
            textwrap.fill(
                line, WIDTH, subsequent_indent="  ", break_on_hyphens=False
            )
            for line in lines
        )


def _common(records) -> dict:
    """The fields every report derives from its records."""
    caveats = [f"{r.label}: {r.caveat}" for r in records if not r.proved]
    return {
        "neighbours": sorted({r.neighbours for r in records}),
        "row_bounds": list(dict.fromkeys(r.row_bound for r in records)),
        "noise": sorted({r.noise for r in records}),
        "proved": all(r.proved for r in records),
        "caveats": caveats,
    }


def _tighter(records, delta) -> str:
    """When ``compose`` (an accountant) can give a smaller ε than basic
    composition."""
    accounted = [r for r in records if r.kind in ("gaussian", "zcdp")]
    if any(r.kind in ("ideal", "none") for r in records) or not accounted:
        return ""
    if len(accounted) == 1:
        return (
            "A tighter figure: dppca.privacy.accounting.compose([est], delta) "
            "returns the smaller of this and an accountant's ε at a chosen "
            "delta; with one Gaussian release it is this figure at the same "
            "δ, and a smaller ε only at a larger δ."
        )
    return (
        f"A tighter figure: the {len(accounted)} Gaussian/zCDP releases "
        "compose better than by adding their ε: "
        "dppca.privacy.accounting.compose([est], delta) gives the smaller of "
        "this and an accountant's ε at a chosen delta (≥ the δ of the other "
        f"releases), typically smaller at the same δ = {delta:.3g}."
    )


def _public_parameters(est) -> dict:
    params = est.get_params(deep=False)
    seed = params.pop("random_state", None)
    params["random_state"] = (
        "None (fresh OS entropy at every fit)"
        if seed is None
        else f"{type(seed).__name__} (withheld: it determines the noise)"
    )
    ledger = params.get("accountant")
    if ledger is not None:
        params["accountant"] = {
            "epsilon": ledger.epsilon,
            "delta": ledger.delta,
            "accountant": ledger.accountant,
        }
    return params


def estimator_report(est) -> PrivacyReport:
    """The report of a fitted :class:`dppca.PrivatePCA` (its
    ``privacy_report()``)."""
    from sklearn.utils.validation import check_is_fitted

    check_is_fitted(est, "privacy_releases_")
    records = list(est.privacy_releases_)
    epsilon, delta = est.privacy_spent_
    ideal = [r.label for r in records if r.kind == "ideal"]
    none = [r.label for r in records if r.kind == "none"]
    if none:
        composition = (
            ", ".join(none) + " has no privacy guarantee; privacy_spent_ "
            "reads ε = inf"
        )
    elif ideal:
        composition = (
            "the sum of the releases' ε, as privacy_spent_; "
            + ", ".join(ideal)
            + " is drawn by an approximate sampler, whose ε holds for the "
            "exact law only"
        )
    else:
        composition = (
            "basic composition: the sum of the releases' ε and of their δ, "
            "as privacy_spent_"
        )
    return PrivacyReport(
        subject=f"{type(est).__name__}, mechanism {est.mechanism_!r}",
        epsilon=epsilon,
        delta=delta,
        composition=composition,
        tighter=_tighter(records, delta),
        charges=[{"label": "fit", "releases": [r.as_dict() for r in records]}],
        budget=None,
        parameters=_public_parameters(est),
        version=_version(),
        **_common(records),
    )


def session_report(ledger) -> PrivacyReport:
    """The report of an :class:`~dppca.privacy.accounting.Accountant`: every
    charge's records and the composed spend (its ``report()``)."""
    records = list(ledger.releases)
    epsilon, delta = ledger.spent
    sizes = list(getattr(ledger, "_sizes", ()))
    if sum(sizes) != len(records) or len(sizes) != len(ledger.charges):
        sizes = None  # a copy from before charges were counted
    charges, start = [], 0
    labels = ledger.charges if sizes is not None else ["all charges"]
    for i, label in enumerate(labels):
        stop = start + sizes[i] if sizes is not None else len(records)
        part = [r.as_dict() for r in records[start:stop]]
        charges.append({"label": label, "releases": part})
        start = stop
    if ledger.delta == 0:
        composition = "basic composition of pure-ε releases"
    else:
        composition = (
            "dppca.privacy.accounting.compose at the budget's δ: "
            f"dp-accounting's {ledger.accountant.upper()} accountant for the "
            "Gaussian and zCDP releases, sums for the others, or the plain "
            "sums when smaller"
        )
    copy = "; a copy in another process" if ledger.is_copy else ""
    return PrivacyReport(
        subject=f"Accountant session, {len(ledger.charges)} charge(s){copy}",
        epsilon=epsilon,
        delta=delta,
        composition=composition,
        tighter="",
        charges=charges,
        budget={
            "epsilon": ledger.epsilon,
            "delta": ledger.delta,
            "accountant": ledger.accountant,
            "remaining": list(ledger.remaining()),
        },
        parameters={
            "epsilon": ledger.epsilon,
            "delta": ledger.delta,
            "accountant": ledger.accountant,
        },
        version=_version(),
        **_common(records),
    )


__all__ = ["PrivacyReport", "estimator_report", "session_report"]
