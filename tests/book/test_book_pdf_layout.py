"""The page layout of the book's PDF (tools/book_pdf.py, issue 40) on a small
site shaped like the theme's (the site of test_book_pdf.py): a figure taller
than a page keeps its caption on its page, a dropdown's title is not the last
line of a page, a block taller than a third of a page that the theme keeps
whole (a table, an admonition, a box that scrolls) starts on the page it
follows instead of leaving that page half empty, and a smaller one is still
kept whole."""

from __future__ import annotations

import re

import book_pdf  # noqa: E402
import pytest
import test_book_pdf as base  # noqa: E402 (the small site and its checks)
from test_book_pdf import tools  # noqa: F401 (the fixture)

#: A figure taller than a page (6 x 14 in): the text in its SVG is text in
#: the PDF.
TALL_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="432pt" height="1008pt" '
    'viewBox="0 0 432 1008"><rect width="432" height="1008" fill="#ddd"/>'
    '<text x="20" y="40" font-size="14">FIGURETOP</text>'
    '<text x="20" y="990" font-size="14">FIGUREBOTTOM</text></svg>'
)

#: The theme's print style keeps tables and admonitions whole, and Chromium
#: a box that scrolls or clips.
THEME_PRINT = (
    "<style>@media print { table, .admonition { break-inside: avoid; } "
    ".admonition { overflow: hidden; } "
    ".scrolls { overflow-x: auto; } tr { break-inside: avoid; } }</style>"
)


def filler(tag: str, lines: int) -> str:
    return "".join(
        f"<p>{tag} filler line {i} of the text before a block.</p>"
        for i in range(lines)
    )


def rows(tag: str, n: int) -> str:
    return "".join(
        f"<tr><td>{tag}ROW{i}</td><td>{i}</td><td>{i * i}</td></tr>"
        for i in range(n)
    )


def layout_body() -> str:
    parts = [THEME_PRINT]
    # a figure taller than a page, with its caption
    parts.append(
        '<figure><img src="../_static/tall.svg" alt="tall">'
        "<figcaption><p>Fig. 9.1 CAPTIONMARK of the tall figure.</p>"
        "</figcaption></figure>"
    )
    # dropdowns at every height of a page: none may end a page
    for i in range(40):
        parts.append(
            filler(f"D{i}", 2 + i % 7)
            + '<details class="sd-sphinx-override sd-dropdown sd-card">'
            '<summary class="sd-summary-title sd-card-header">'
            f'<span class="sd-summary-text">Checks{i}</span></summary>'
            '<div class="sd-summary-content sd-card-body">'
            f"<p>DROPBODY{i} the code asserts it.</p></div></details>"
        )
    # blocks taller than a third of a page after half a page of text: each
    # starts on the page of the text before it
    tall = {
        "TABLE": f"<table>{rows('TABLE', 40)}</table>",
        "SCROLLS": f'<div class="scrolls"><table>{rows("SCROLLS", 40)}'
        "</table></div>",
        "ADMONITION": '<div class="admonition note">'
        + "".join(
            f"<p>ADMONITIONROW{i} a line of the note.</p>" for i in range(40)
        )
        + "</div>",
    }
    for name, block in tall.items():
        parts.append(
            '<h2 style="break-before: page">Section</h2>'
            + filler(f"BEFORE{name}", 18)
            + f"<p>LASTLINE{name}</p>"
            + block
        )
    # small tables near the foot of a page at every height: kept whole
    parts.append('<h2 style="break-before: page">Small tables</h2>')
    for i in range(30):
        parts.append(
            filler(f"S{i}", 3 + i % 5)
            + f"<table><tr><td>SMALLFIRST{i}</td></tr>"
            + "".join(f"<tr><td>small row {j}</td></tr>" for j in range(4))
            + f"<tr><td>SMALLLAST{i}</td></tr></table>"
        )
    return "".join(parts)


@pytest.fixture(scope="module")
def printed(tmp_path_factory):
    from pypdf import PdfReader

    html = tmp_path_factory.mktemp("layout") / "html"
    base.site(html, layout_body())
    (html / "_static" / "tall.svg").write_text(TALL_SVG)
    out = html / book_pdf.BOOK_PDF
    result = book_pdf.build(html, out)
    texts = [p.extract_text() or "" for p in PdfReader(out).pages]
    return result, texts


def page_of(texts: list[str], marker: str) -> int:
    """The first page holding ``marker`` (not followed by a digit)."""
    pattern = re.compile(re.escape(marker) + r"(?!\d)")
    hits = [i for i, t in enumerate(texts) if pattern.search(t)]
    assert hits, marker
    return hits[0]


def test_a_tall_figure_keeps_its_caption(tools, printed):  # noqa: F811
    result, texts = printed
    assert result.problems == []
    at = page_of(texts, "CAPTIONMARK")
    assert "FIGURETOP" in texts[at] and "FIGUREBOTTOM" in texts[at], at


def test_no_dropdown_title_ends_a_page(tools, printed):  # noqa: F811
    result, texts = printed
    for i in range(40):
        at = page_of(texts, f"Checks{i}")
        assert page_of(texts, f"DROPBODY{i}") == at, (i, texts[at][-300:])
    # the check of book_pdf finds none either
    assert not any(e.stranded for e in result.entries), [
        e.stranded for e in result.entries
    ]


def test_a_tall_block_starts_on_the_page_it_follows(tools, printed):  # noqa: F811
    _, texts = printed
    for name in ("TABLE", "SCROLLS", "ADMONITION"):
        at = page_of(texts, f"LASTLINE{name}")
        assert page_of(texts, f"{name}ROW0") == at, (name, texts[at][-300:])


def test_a_small_table_is_kept_whole(tools, printed):  # noqa: F811
    _, texts = printed
    for i in range(30):
        assert page_of(texts, f"SMALLFIRST{i}") == page_of(
            texts, f"SMALLLAST{i}"
        ), i
