"""Every table of a numbered page is numbered within its chapter
(``tools/book_html_fixes.py``, ``number_tables``): the chapter page's tables
first, then its section pages' in order; the number leads a caption."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
from book_html_fixes import TABLE_TAG, number_tables  # noqa: E402

from dppca.book.tables import table_of  # noqa: E402


def page(body):
    return {"body": body}


def app_with(secnumbers, counts):
    env = SimpleNamespace(toc_secnumbers=secnumbers, dppca_table_counts=counts)
    return SimpleNamespace(env=env)


def test_a_section_page_continues_its_chapters_count():
    secnumbers = {
        "chapters/04": {"": (4,)},
        "chapters/04-a": {"": (4, 9)},
        "chapters/04-b": {"": (4, 10)},
        "chapters/05": {"": (5,)},
    }
    counts = {"chapters/04": 2, "chapters/04-a": 3, "chapters/05": 1}
    app = app_with(secnumbers, counts)
    styler = table_of(
        pd.DataFrame({"a": [1.0]}), {"a": ("a", "{:.1f}")}, caption="Noise"
    ).to_html()
    context = page(f"<p>x</p>{styler}<table class='table'><tr></tr></table>")
    number_tables(app, "chapters/04-b", context)
    body = context["body"]
    # 2 on the chapter page and 3 on section 4.9 come first
    assert "Table 4.6 </span>Noise" in body
    assert "Table 4.7 </span>" in body
    assert body.count("caption-number") == 2 == len(TABLE_TAG.findall(body))
    # one caption per table: the number joined the Styler's own caption
    assert body.count("<caption") == 2
    chapter = page("<table id='T_x'></table>")
    number_tables(app, "chapters/05", chapter)
    assert "Table 5.1 " in chapter["body"]


def test_pages_without_a_number_are_left_alone():
    app = app_with({}, {})
    context = page("<table></table>")
    number_tables(app, "glossary", context)
    assert context["body"] == "<table></table>"


def test_a_directive_tables_own_number_gives_way_to_the_books():
    """A markdown table in a MyST ``{table}`` directive has Sphinx's caption
    number (its count of captioned tables); the book's count replaces it,
    so the table is not numbered twice ("Table 7.7 Table 1 ...")."""
    app = app_with({"chapters/07": {"": (7,)}}, {"chapters/07": 2})
    context = page(
        "<table id='T_a'></table>"
        '<table class="table" id="id1"><caption>'
        '<span class="caption-number">Table 1 </span>'
        '<span class="caption-text">The numbers</span></caption></table>'
    )
    number_tables(app, "chapters/07", context)
    body = context["body"]
    assert "Table 1 " not in body
    assert "Table 7.2 </span>" in body and "The numbers" in body
    assert body.count("caption-number") == 2


def test_the_landing_page_and_the_reference_matter_count_under_a_label():
    """The unnumbered pages that hold tables for a reader (the landing page,
    the map of the mechanisms, the notation) number them too: "Table 0.1",
    and "Table R.n" running on across the reference pages in their order."""
    counts = {"chapters/mechanism-map": 3, "chapters/glossary": 0}
    app = app_with({}, counts)
    landing = page(
        "<table></table><table><caption>Mechanisms</caption></table>"
    )
    number_tables(app, "chapters/00-introduction", landing)
    assert "Table 0.1 " in landing["body"]
    assert "Table 0.2 </span>Mechanisms" in landing["body"]
    notation = page("<table><caption>Symbols</caption></table>")
    number_tables(app, "chapters/notation", notation)
    assert "Table R.4 </span>Symbols" in notation["body"]
    api = page("<table></table>")
    number_tables(app, "api/estimator", api)
    assert api["body"] == "<table></table>"
