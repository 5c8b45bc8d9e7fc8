"""The section numbering of tools/book_html_fixes.py: a chapter's closing
sections ("Exercises", "Notes and further reading") carry no number, and its
section pages are numbered right after its own numbered sections (issue 40:
"1.7 Exercises", "1.8 Notes", then the section page "1.9")."""

from __future__ import annotations

from types import SimpleNamespace

import book_html_fixes
from docutils import nodes
from sphinx import addnodes


def entry(doc: str, anchor: str, text: str, *nested) -> nodes.list_item:
    ref = nodes.reference(
        "", text, internal=True, refuri=doc, anchorname=anchor
    )
    item = nodes.list_item("", addnodes.compact_paragraph("", "", ref))
    if nested:
        item += nodes.bullet_list("", *nested)
    return item


def page(doc: str, title: str, *sections) -> nodes.bullet_list:
    return nodes.bullet_list("", entry(doc, "", title, *sections))


def numbered_as_sphinx_does():
    """Chapter 1 with two sections, Exercises and Notes, then its toctree of
    two section pages (inside Notes, where Jupyter Book appends it); the
    first section page has a section and its own Exercises. The numbers are
    Sphinx's: the closing sections counted before the section pages."""
    toctree = addnodes.toctree(entries=[(None, "one-a"), (None, "one-b")])
    tocs = {
        "one": page(
            "one",
            "One",
            entry("one", "#first", "First"),
            entry("one", "#second", "Second", entry("one", "#deep", "Deep")),
            entry("one", "#exercises", "Exercises"),
            entry("one", "#notes", "Notes and further reading", toctree),
        ),
        "one-a": page(
            "one-a",
            "One A",
            entry("one-a", "#inner", "Inner"),
            entry("one-a", "#exercises", "Exercises"),
        ),
        "one-b": page("one-b", "One B"),
    }
    secnumbers = {
        "one": {
            "": (1,),
            "#first": (1, 1),
            "#second": (1, 2),
            "#deep": (1, 2, 1),
            "#exercises": (1, 3),
            "#notes": (1, 4),
        },
        "one-a": {"": (1, 5), "#inner": (1, 5, 1), "#exercises": (1, 5, 2)},
        "one-b": {"": (1, 6)},
    }
    for doc, toc in tocs.items():
        for ref in toc.findall(nodes.reference):
            ref["secnumber"] = list(secnumbers[doc][ref["anchorname"]])
    titles = {doc: {"secnumber": list(n[""])} for doc, n in secnumbers.items()}
    env = SimpleNamespace(tocs=tocs, toc_secnumbers=secnumbers, titles=titles)
    return env


def mark(env) -> None:
    for doc in env.tocs:
        app = SimpleNamespace(env=SimpleNamespace(tocs=env.tocs, docname=doc))
        book_html_fixes.unnumber_closing_sections(app, None)


def test_closing_sections_lose_their_numbers_and_section_pages_follow():
    env = numbered_as_sphinx_does()
    mark(env)
    book_html_fixes.renumber_sections(None, env)
    assert env.toc_secnumbers["one"] == {
        "": (1,),
        "#first": (1, 1),
        "#second": (1, 2),
        "#deep": (1, 2, 1),
        "#exercises": (),
        "#notes": (),
    }
    assert env.toc_secnumbers["one-a"] == {
        "": (1, 3),
        "#inner": (1, 3, 1),
        "#exercises": (),
    }
    assert env.toc_secnumbers["one-b"] == {"": (1, 4)}
    assert env.titles["one-b"]["secnumber"] == [1, 4]
    # the sidebar reads the numbers off the references of the pages' tocs
    refs = {
        (doc, ref["anchorname"]): ref.get("secnumber")
        for doc, toc in env.tocs.items()
        for ref in toc.findall(nodes.reference)
    }
    assert refs[("one-a", "")] == [1, 3]
    assert refs[("one", "#exercises")] is None


def test_renumbering_twice_changes_nothing():
    env = numbered_as_sphinx_does()
    mark(env)
    book_html_fixes.renumber_sections(None, env)
    once = {doc: dict(n) for doc, n in env.toc_secnumbers.items()}
    book_html_fixes.renumber_sections(None, env)
    assert env.toc_secnumbers == once


def test_the_books_own_numbering_skips_the_same_closing_sections(tmp_path):
    """``dppca.book.contents`` numbers a chapter's section pages after its
    numbered ``##`` sections, as the render does: the closing sections the
    render leaves unnumbered do not count (review 44: the mechanism map
    named CoinPress's page 19.8 where the book shows 19.6)."""
    from dppca.book import contents

    assert book_html_fixes.UNNUMBERED_SECTIONS == contents.CLOSING_SECTIONS
    page = tmp_path / "chapter.md"
    page.write_text(
        "# Title\n\n## One\n\n```\n## not a heading\n```\n\n## Two\n\n"
        "## Summary\n\n## Exercises\n\n## Notes and further reading\n"
    )
    assert contents.own_section_count(page) == 2
    toc = {
        "parts": [
            {
                "numbered": True,
                "chapters": [
                    {"file": "chapters/chapter", "sections": [{"file": "s"}]}
                ],
            }
        ]
    }
    numbers = contents.chapter_numbers(toc, own_sections={"chapter": 2})
    assert numbers["s"] == "1.3"


def test_negative_numbers_in_prose_get_a_minus_sign():
    """A value pasted into a sentence as Python prints it ("-0.49") is typeset
    with U+2212, as in the tables; code, formulas and hyphenated words keep
    their hyphen-minus (review 44, finding 6)."""
    from docutils.utils import new_document
    from sphinx.util.docutils import docutils_namespace

    with docutils_namespace():
        from docutils.frontend import get_default_settings
        from docutils.parsers.rst import Parser

        doc = new_document("t", get_default_settings(Parser))
    para = nodes.paragraph()
    para += nodes.Text("gain -0.49 (-3) at 1e-5, x-1 and 2024-01; ")
    para += nodes.literal("", "pytest -n -1")
    para += nodes.math("", "-1")
    doc += para
    book_html_fixes.minus_signs(None, doc, "t")
    assert para.astext() == (
        "gain \u22120.49 (\u22123) at 1e-5, x-1 and 2024-01; pytest -n -1-1"
    )
