"""The map of every mechanism: one row per entry of the registry
(:data:`dppca.mechanisms.registry.MECHANISMS`), for the book's page "A map
of every mechanism".

Nothing here is written by hand for a mechanism. Its privacy comes from the
book's table (``short_notion``, :mod:`dppca.book.mechanism_facts`) and from
the guarantee record its own module builds (:mod:`dppca.privacy.guarantees`):
the neighbouring relation, how the accountant composes it and whether it is
proved for the program as it runs. The rest comes from its words in
:data:`dppca.book.mechanism_words.DESCRIPTIONS`. A mechanism added to the
registry therefore appears in the map, and :func:`mechanism_map` refuses one
whose description is incomplete.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping

import pandas as pd

from ..mechanisms.registry import AUTO_CANDIDATES, MECHANISMS
from .mechanism_facts import FACTS
from .mechanism_words import (
    DESCRIPTION_FIELDS,
    DESCRIPTIONS,
    missing_descriptions,
)
from .tables import table_of

#: The public configuration at which the guarantee records of the map are
#: built (every option at its default). A record can depend on it: PPCA's
#: sampler is exact for k = 1 only.
PROFILE = {"n": 10_000, "d": 20, "k": 2, "epsilon": 1.0, "delta": 1e-5}

#: How :func:`dppca.privacy.accounting.compose` treats a record of each kind.
ACCOUNTED = {
    "zcdp": "ρ-zCDP, Rényi accountant",
    "gaussian": "Gaussian, privacy-loss accountant",
    "pure": "pure ε, added up",
    "approximate": "(ε, δ), added up",
    "ideal": "refused: its ε holds for the exact law only",
    "none": "refused: not differentially private",
}

#: The columns of the map, in order (:func:`mechanism_map`).
COLUMNS = (
    "key",
    "label",
    "privacy",
    "neighbours",
    "accounted",
    "proved",
    "proved_text",
    "chapter",
    "link",
    *DESCRIPTION_FIELDS,
)


def records(mechanisms: Mapping | None = None, **profile) -> dict:
    """The guarantee record of every mechanism of ``mechanisms`` (default
    the registry) at :data:`PROFILE` (updated by ``profile``), built by its
    own ``guarantee`` with the default options (completed by its
    ``check_options`` when it has one and accepts none)."""
    at = {**PROFILE, **profile}
    out = {}
    for key, spec in (MECHANISMS if mechanisms is None else mechanisms).items():
        options = {}
        if spec.check_options is not None:
            try:
                options = spec.check_options(
                    {}, at["n"], at["d"], at["k"], at["epsilon"]
                )
            except ValueError:  # it needs a public choice (the streaming gap)
                options = {}
        out[key] = spec.guarantee(
            at["n"], at["d"], at["k"], at["epsilon"], at["delta"], options
        )
    return out


def _why_unproved(spec, record) -> str:
    """What stands between the record and a proof for the program."""
    if spec.notion == "not_dp":
        return "no: the published claim fails"
    reasons = []
    if record.sampler == "approximate":
        reasons.append("approximate sampler")
    if record.noise == "float sampler":
        reasons.append("float64 sampler")
    elif record.noise == "float":
        reasons.append("float64 noise")
    return "no: " + ", ".join(reasons or [record.caveat])


def _default_note(key) -> str:
    """Whether ``mechanism="auto"`` may choose ``key``."""
    cases = [
        "with δ" if with_delta else "without δ"
        for with_delta, keys in AUTO_CANDIDATES.items()
        if key in keys
    ]
    if not cases:
        return ""
    cases = " and ".join(cases)
    return f'; the default, mechanism="auto", may choose it {cases}'


def mechanism_map(
    mechanisms: Mapping | None = None,
    numbers: Mapping[str, str] | None = None,
    descriptions: Mapping[str, Mapping[str, str]] | None = None,
    **profile,
) -> pd.DataFrame:
    """One row per mechanism of ``mechanisms`` (default the registry), in its
    order, with the columns :data:`COLUMNS`.

    ``numbers`` maps a page of the book (file stem) to its chapter number;
    without it, or for a page it does not list, the chapter is the one the
    guarantee record cites. ``link`` is the HTML page of the chapter, next
    to the map's page. ``descriptions`` maps each key to its words
    (default :data:`~dppca.book.mechanism_words.DESCRIPTIONS`). Raises
    ``ValueError`` naming every mechanism with an empty descriptive field
    (:data:`~dppca.book.mechanism_words.DESCRIPTION_FIELDS`).
    """
    mechanisms = MECHANISMS if mechanisms is None else mechanisms
    descriptions = DESCRIPTIONS if descriptions is None else descriptions
    missing = {
        key: missing_descriptions(key, descriptions)
        for key in mechanisms
        if missing_descriptions(key, descriptions)
    }
    if missing:
        raise ValueError(
            "the map needs every descriptive field of these mechanisms: "
            + "; ".join(f"{key}: {', '.join(f)}" for key, f in missing.items())
        )
    found = records(mechanisms, **profile)
    rows = []
    for key, spec in mechanisms.items():
        record = found[key]
        words = descriptions[key]
        facts = FACTS.get(key)
        number = (numbers or {}).get(words["page"])
        rows.append(
            {
                "key": key,
                "label": spec.label,
                "privacy": facts.short_notion if facts else spec.notion,
                "neighbours": record.neighbours.split(" (")[0],
                "accounted": ACCOUNTED[record.kind],
                "proved": record.proved,
                "proved_text": "yes"
                if record.proved
                else _why_unproved(spec, record),
                # a section page (19.6) is a section, not a chapter
                "chapter": (
                    f"{'section' if '.' in number else 'chapter'} {number}"
                    if number
                    else record.chapter
                ),
                "link": f"{words['page']}.html",
                **{name: words[name] for name in DESCRIPTION_FIELDS},
            }
        )
        rows[-1]["wins_when"] += _default_note(key)
    return pd.DataFrame(rows, columns=list(COLUMNS))


NBSP = "\u00a0"

#: The formulas of the registry's descriptions that write a subscript or a
#: superscript with "_" or "^" (plain text there, read also outside the
#: book), each with the inline TeX that the map's tables show in its place,
#: for MathJax to typeset in the HTML and the PDF. The book's tests check that
#: every formula still occurs in a description and that no "_" or "^" is
#: left outside TeX in the tables.
#:
#: :meta hide-value:
TEX = {
    "q_F ≥ q_F(PCA) − 2k‖E‖": (
        r"\(q_F\) \(\ge q_F(\mathrm{PCA}) - 2k\lVert E\rVert\)"
    ),
    "W Wishart W_d(d+1, c·I)": r"W Wishart \(\mathcal{W}_d(d+1, cI)\)",
    "W Wishart W_d(d+1, 3/(2nε)·I)": (
        r"W Wishart \(\mathcal{W}_d(d+1, \tfrac{3}{2n\varepsilon} I)\)"
    ),
    "‖Ã − A‖_F ≤ 2√(tr(A)·‖E‖) + ‖z‖": (
        r"\(\lVert \tilde A - A\rVert_F\)"
        r" \(\le 2\sqrt{\operatorname{tr}(A)\,\lVert E\rVert}\)"
        r" \(+ \lVert z\rVert\)"
    ),
    "Õ(d^(1/4)·√(tr(A)/n) + √d/n)": (
        r"\(\tilde O\bigl(d^{1/4}\sqrt{\operatorname{tr}(A)/n}\)"
        r" \(+ \sqrt d/n\bigr)\)"
    ),
    "‖Σ^(−1/2)(Σ\u0302 − S)Σ^(−1/2)‖_F": (
        r"\(\lVert \Sigma^{-1/2}(\hat\Sigma - S)\Sigma^{-1/2}\rVert_F\)"
    ),
    "γ = λ_k − λ_(q+1)": r"\(\gamma = \lambda_k - \lambda_{q+1}\)",
    "L = O((λ_k/γ)·ln(dτ/η))": r"\(L = O((\lambda_k/\gamma)\ln(d\tau/\eta))\)",
    "τ^(−Ω(p+1−q)) + e^(−Ω(d))": r"\(\tau^{-\Omega(p+1-q)} + e^{-\Omega(d)}\)",
    "‖A − A_k‖ ≤ λ_(k+1) + 2‖W‖": (
        r"\(\lVert A - A_k\rVert\) \(\le \lambda_{k+1} + 2\lVert W\rVert\)"
    ),
    "A_k of the release": r"\(A_k\) of the release",
    "(ε′, 1 − e^(−ε/3))-DP": r"\((\varepsilon', 1 - e^{-\varepsilon/3})\)-DP",
}

# one pass, longest formula first: no TeX is matched again
_FORMULA = re.compile(
    "|".join(map(re.escape, sorted(TEX, key=len, reverse=True)))
)


def _cell(text) -> str:
    """Text for an HTML table cell (the Styler writes cells unescaped)."""
    return html.escape(str(text), quote=False)


def _math_cell(text) -> str:
    """:func:`_cell` of ``text`` with its formulas of :data:`TEX` typeset."""
    return _cell(_FORMULA.sub(lambda found: TEX[found.group(0)], str(text)))


def map_tables(frame: pd.DataFrame) -> tuple:
    """The map as three narrow tables for the page (pandas Stylers made by
    ``dppca.book.tables.table_of``, text aligned left): privacy and the
    chapter that teaches each mechanism; what it releases, its utility bound
    and the rows it needs; its cost and when it wins. When every mechanism
    has the same neighbouring relation, the heading of the privacy column
    names it once."""
    relations = sorted(set(frame["neighbours"]))
    shown = pd.DataFrame(
        {
            "mechanism": [
                f"{_cell(label)}<br><code>{_cell(key)}</code>"
                for label, key in zip(frame["label"], frame["key"])
            ],
            "privacy": [
                _math_cell(p)
                if len(relations) == 1
                else f"{_math_cell(p)}; {_cell(r)}"
                for p, r in zip(frame["privacy"], frame["neighbours"])
            ],
            "chapter": [  # a chapter's number stays with its word
                f'<a href="{_cell(link)}">{_cell(text).replace(" ", NBSP)}</a>'
                for link, text in zip(frame["link"], frame["chapter"])
            ],
            **{
                name: [_math_cell(text) for text in frame[name]]
                for name in (
                    "accounted",
                    "proved_text",
                    "releases",
                    "utility",
                    "sample_complexity",
                    "cost",
                    "wins_when",
                )
            },
        }
    )
    layouts = (
        {
            "mechanism": "mechanism",
            "privacy": (
                f"privacy ({relations[0]} neighbours)"
                if len(relations) == 1
                else "privacy; neighbours"
            ),
            "accounted": "composed as",
            "proved_text": "proved for the program",
            "chapter": "taught in",
        },
        {
            "mechanism": "mechanism",
            "releases": "releases",
            "utility": "utility bound (assumptions)",
            "sample_complexity": r"rows \(n\) needed",
        },
        {
            "mechanism": "mechanism",
            "cost": "cost (time, memory)",
            "wins_when": "when it wins",
        },
    )
    return tuple(
        table_of(
            shown, {name: (heading, "{}") for name, heading in columns.items()}
        ).set_table_styles(
            [
                {"selector": cell, "props": [("text-align", "left")]}
                for cell in ("th", "td")
            ],
            overwrite=False,
        )
        for columns in layouts
    )


__all__ = [
    "ACCOUNTED",
    "COLUMNS",
    "PROFILE",
    "TEX",
    "map_tables",
    "mechanism_map",
    "records",
]
