"""The map of every mechanism (``dppca.book.mechanism_map``, the page
``chapters/mechanism-map.ipynb``): one row per registered mechanism, every
descriptive field filled where the mechanism is declared, the privacy read
from the guarantee records, and links to chapters that exist."""

from __future__ import annotations

import dataclasses
import re

import pytest
import yaml
from bookpaths import ROOT  # noqa: E402

from dppca.book import contents, mechanism_facts, mechanism_map
from dppca.book.mechanism_words import (
    DESCRIPTION_FIELDS,
    DESCRIPTIONS,
    missing_descriptions,
)
from dppca.mechanisms import registry


def toc_numbers():
    """The pages' numbers as the rendered book gives them: a section page
    after its chapter's own ``##`` sections."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    own = {
        p.stem: contents.own_section_count(p)
        for p in (ROOT / "chapters").glob("*.ipynb")
    }
    return contents.chapter_numbers(toc, own_sections=own)


@pytest.mark.parametrize("key", list(registry.MECHANISMS))
def test_every_registered_mechanism_has_every_field(key):
    assert missing_descriptions(key) == []
    words = DESCRIPTIONS[key]
    for name in DESCRIPTION_FIELDS:
        assert str(words[name]).strip(), (key, name)
    page = words["page"]
    assert (ROOT / "chapters" / f"{page}.ipynb").exists(), page


def test_the_descriptions_name_only_registered_mechanisms():
    assert set(DESCRIPTIONS) <= set(registry.MECHANISMS)
    for words in DESCRIPTIONS.values():
        assert set(words) <= set(DESCRIPTION_FIELDS)


def test_the_map_has_one_full_row_per_mechanism():
    frame = mechanism_map.mechanism_map(numbers=toc_numbers())
    assert list(frame["key"]) == list(registry.MECHANISMS)
    assert list(frame.columns) == list(mechanism_map.COLUMNS)
    for column in frame.columns:
        if column == "proved":
            continue
        assert all(str(v).strip() for v in frame[column]), column


def test_privacy_comes_from_the_guarantee_records():
    frame = mechanism_map.mechanism_map().set_index("key")
    records = mechanism_map.records()
    for key, record in records.items():
        row = frame.loc[key]
        assert row["proved"] == record.proved
        assert (row["proved_text"] == "yes") == record.proved
        assert record.neighbours.startswith(row["neighbours"])
        assert row["accounted"] == mechanism_map.ACCOUNTED[record.kind]
        assert row["privacy"] == mechanism_facts.FACTS[key].short_notion
    # the package's record flags, not words typed in the map: the
    # mechanisms that add Laplace or Gaussian noise are the proved ones, but
    # the spiked model's (its eigen-decomposition's float margin is assumed)
    proved = set(frame.index[frame["proved"].astype(bool)])
    assert proved == set(registry.ADDITIVE_NOISE) - {"spiked"}
    assert "LAPACK" in records["spiked"].caveat
    # PPCA's record depends on k: an exact sampler at k = 1
    assert records["ppca"].sampler == "approximate"
    assert mechanism_map.records(k=1)["ppca"].sampler == "exact"


def test_the_chapter_links_exist_and_match_the_records():
    numbers = toc_numbers()
    owner = contents.chapter_of(yaml.safe_load((ROOT / "_toc.yml").read_text()))
    frame = mechanism_map.mechanism_map(numbers=numbers)
    records = mechanism_map.records()
    for _, row in frame.iterrows():
        page = row["link"].removesuffix(".html")
        assert (ROOT / "chapters" / f"{page}.ipynb").exists(), page
        # a section page is named as a section (review 44: the map said
        # "chapter 19.1" for the page the book numbers 19.6)
        number = numbers[page]
        kind = "section" if "." in number else "chapter"
        assert row["chapter"] == f"{kind} {number}", row["key"]
        # the guarantee record cites the chapter that holds the page
        chapter = numbers[owner[page]]
        assert records[row["key"]].chapter == f"chapter {chapter}", row["key"]
    tables = mechanism_map.map_tables(frame)
    html = tables[0].to_html()
    for link in set(frame["link"]):
        assert f'href="{link}"' in html


def _planted(**changes):
    """A mechanism planted in a copy of the registry, with its words."""
    words = {
        name: f"{name} of the planted mechanism" for name in DESCRIPTION_FIELDS
    }
    words.update(page="13-using-dppca", **changes)
    spec = dataclasses.replace(
        registry.MECHANISMS["analyze_gauss"],
        key="test_mechanism",
        label="Test mechanism (planted)",
    )
    copy = {**registry.MECHANISMS, "test_mechanism": spec}
    return copy, {**DESCRIPTIONS, "test_mechanism": words}


def test_a_mechanism_registered_in_a_copy_of_the_registry_appears():
    copy, words = _planted()
    frame = mechanism_map.mechanism_map(copy, toc_numbers(), words)
    assert list(frame["key"]) == list(copy)
    row = frame.set_index("key").loc["test_mechanism"]
    assert row["utility"] == "utility of the planted mechanism"
    assert row["link"] == "13-using-dppca.html"
    for table in mechanism_map.map_tables(frame):
        html = table.to_html()
        assert "Test mechanism (planted)" in html
        assert html.count("<tr>") == len(copy) + 1


def test_a_mechanism_with_a_missing_field_is_refused():
    copy, words = _planted(cost=" ")
    with pytest.raises(ValueError, match="test_mechanism: cost"):
        mechanism_map.mechanism_map(copy, descriptions=words)
    # a registered mechanism without any words is refused too
    with pytest.raises(ValueError, match="test_mechanism: releases"):
        mechanism_map.mechanism_map(copy)


def test_the_tables_escape_text_and_keep_the_mechanism_names():
    frame = mechanism_map.mechanism_map()
    tables = mechanism_map.map_tables(frame)
    assert len(tables) == 3
    for table in tables:
        html = table.to_html()
        for label in frame["label"]:
            assert label in html
        # no column heading of the raw frame leaks into the page
        assert "sample_complexity" not in html
        assert not re.search(r"<td[^>]*>\s*nan\s*</td>", html)


def test_every_formula_of_the_tables_is_typeset():
    """The tables show the registry's formulas as TeX: each plain formula
    of ``TEX`` still occurs in a description, and no subscript or
    superscript is written with "_" or "^" outside TeX or code."""
    frame = mechanism_map.mechanism_map()
    words = " ".join(
        str(text)
        for column in ("privacy", "accounted", "proved_text")
        + DESCRIPTION_FIELDS
        for text in frame[column]
    )
    stale = [plain for plain in mechanism_map.TEX if plain not in words]
    assert stale == [], stale
    pages = [table.to_html() for table in mechanism_map.map_tables(frame)]
    for tex in mechanism_map.TEX.values():
        assert any(tex in html for html in pages), tex
    for html in pages:
        text = re.sub(r"<style.*?</style>", " ", html, flags=re.S)
        text = re.sub(r"<code>.*?</code>|\\\(.*?\\\)|<[^>]+>", " ", text)
        left = re.findall(r"\S*[_^]\S*", text)
        assert left == [], left
