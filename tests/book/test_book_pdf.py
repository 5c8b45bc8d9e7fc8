"""The book's PDF (tools/book_pdf.py) on a small hand-made site shaped like
the theme's: every page printed, in the navigation's order, with an outline
and links that work inside the PDF; offline. The PDF of the real book is built
by ``make pdf`` (``make book``, and ``make test`` before the browser check)."""

from __future__ import annotations

import importlib.util
import os
import re
from pathlib import Path

import book_html_fixes  # noqa: E402
import book_pdf  # noqa: E402
import pytest

REQUIRE = os.environ.get("DPPCA_REQUIRE_BROWSER") == "1"


@pytest.fixture
def tools():
    """Chromium and pypdf, or a skip saying which is missing (a failure under
    DPPCA_REQUIRE_BROWSER=1, as for the browser check)."""
    if not Path(book_pdf.CHROMIUM).exists():
        reason = (
            f"no Chromium at {book_pdf.CHROMIUM} (apt-get install chromium, "
            "or set $CHROMIUM)"
        )
    elif importlib.util.find_spec("pypdf") is None:
        reason = "no pypdf (the book extra: pip install -c constraints.txt -e '.[book]')"
    else:
        return
    if REQUIRE:
        pytest.fail(f"{reason}; DPPCA_REQUIRE_BROWSER=1")
    pytest.skip(reason)


MATHJAX = (
    "<script>window.MathJax = {tex: {macros: {R: '\\\\mathbb{R}'}}}</script>"
    '<script defer src="{up}_static/mathjax/tex-mml-chtml.js"></script>'
)

#: The navigation, in the book's order (not the files' alphabetical order):
#: (file, title in the sidebar, part caption or None, page marker).
PAGES = [
    ("chapters/intro.html", "A small book", None, "MARKERINTRO"),
    ("chapters/zeta.html", "1. Zeta first", "Part one", "MARKERZETA"),
    ("chapters/alpha.html", "2. Alpha second", "Part one", "MARKERALPHA"),
    ("appendix/ref.html", "3. Reference", "Part two", "MARKERREF"),
]


def nav(here: str) -> str:
    """The sidebar of sphinx-book-theme: the home link, then captions and
    links."""
    up = "../" * here.count("/")
    home, *rest = PAGES
    out = [
        '<nav class="bd-links bd-docs-nav"><ul class="nav bd-sidenav '
        'bd-sidenav__home-link"><li class="toctree-l1">'
        f'<a class="reference internal" href="{up}{home[0]}">{home[1]}</a>'
        "</li></ul>"
    ]
    part = None
    for file, title, caption, _ in rest:
        if caption != part:
            out.append(
                f'<p class="caption"><span class="caption-text">{caption}'
                "</span></p>"
            )
            part = caption
        out.append(
            '<ul class="nav bd-sidenav"><li class="toctree-l1">'
            f'<a class="reference internal" href="{up}{file}">{title}</a>'
            "</li></ul>"
        )
    return "".join(out) + "</nav>"


def page(here: str, title: str, body: str) -> str:
    up = "../" * here.count("/")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f"<title>{title}</title>{MATHJAX.replace('{up}', up)}"
        # the theme's print stylesheet hides the sidebar
        "<style>@media print { .d-print-none { display: none; } }</style>"
        "</head><body>"
        f'<div class="d-print-none">{nav(here)}</div>'
        f"<article><h1>{title}</h1>{body}</article></body></html>"
    )


def site(root: Path, extra: str = "") -> None:
    """A book of four pages; ``extra`` is added to the last one."""
    for folder in ("chapters", "api", "appendix", "_static"):
        (root / folder).mkdir(parents=True)
    (root / "_static" / "mathjax").symlink_to(
        book_html_fixes.mathjax_es5(), target_is_directory=True
    )
    (root / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=chapters/intro.html" />'
    )
    long_text = "".join(
        f"<p>Paragraph {i} of a long section that fills pages.</p>"
        for i in range(120)
    )
    # headings at every height of a page: none may end one
    headed = "".join(
        f"<p>Filler {i}.</p>" * (3 + i % 5)
        + f"<section><h3>Heading {i}</h3><div class='cell_input'><pre>BODY{i} "
        + "\n".join(["code line"] * 8)
        + "</pre></div></section>"
        for i in range(60)
    )
    # a cell whose code is hidden, as myst-nb writes it: a dead toggle on
    # paper
    hidden = (
        '<div class="cell tag_hide-input"><details class="hide above-input">'
        '<summary aria-label="Toggle hidden content"><span class="collapsed">'
        'Show code cell source</span><span class="expanded">Hide code cell '
        "source</span></summary><div class='cell_input'><pre>HIDDENCODE"
        "</pre></div></details><div class='cell_output'><p>SHOWNOUTPUT</p>"
        "</div></div>"
    )
    bodies = {
        "chapters/intro.html": "<p>MARKERINTRO opens the book.</p>" + hidden,
        "chapters/zeta.html": (
            '<section id="first-section"><h2>1.1. First section</h2>'
            "<p>MARKERZETA: for "
            '<span class="math">\\(x \\in \\R^{d}\\)</span> see '
            '<a class="reference internal" href="alpha.html#thm-1">'
            "Theorem 2.1</a>.</p></section>"
            f'<section id="second-section"><h2>1.2. Second section</h2>'
            f"{long_text}</section>"
        ),
        "chapters/alpha.html": (
            "<p>MARKERALPHA</p>" + long_text[:2000] + '<section id="thm-1">'
            "<h2>2.1. The theorem</h2><p>TARGETTHEOREM holds.</p></section>"
            + headed
        ),
        "appendix/ref.html": (
            '<p>MARKERREF, back to <a href="../chapters/zeta.html">'
            "chapter 1</a>.</p>" + extra
        ),
    }
    titles = {file: title for file, title, _, _ in PAGES}
    for file, body in bodies.items():
        title = titles[file].split(". ", 1)[-1]
        (root / file).write_text(page(file, title, body))


def text_of(reader) -> list[str]:
    return [p.extract_text() or "" for p in reader.pages]


def test_the_book_prints_in_order_with_outline_and_links(tmp_path, tools):
    from pypdf import PdfReader

    html = tmp_path / "html"
    site(html)
    out = html / book_pdf.BOOK_PDF
    result = book_pdf.build(html, out)
    assert result.problems == []
    assert [e.rel for e in result.entries if not e.front] == [
        p[0] for p in PAGES
    ]
    assert [e.rel for e in result.entries if e.front] == ["_title", "_contents"]
    reader = PdfReader(out)
    texts = text_of(reader)
    assert len(reader.pages) == result.pdf_pages
    assert len(reader.pages) > len(PAGES)  # the long page takes several
    width, height = reader.pages[0].mediabox[2:]
    assert abs(float(width) - 595.3) < 2 and abs(float(height) - 842) < 2

    # every page, in the navigation's order, each starting on its own page
    first = {}
    for _, _, _, marker in PAGES:
        hits = [i for i, t in enumerate(texts) if marker in t]
        assert hits, (marker, texts)
        first[marker] = hits[0]
    order = [first[p[3]] for p in PAGES]
    assert order == sorted(order) and len(set(order)) == len(order), order
    theorem = next(i for i, t in enumerate(texts) if "TARGETTHEOREM" in t)
    assert theorem > first["MARKERALPHA"]  # the page before is full
    # the formula was typeset: no TeX source in the text
    assert not any("\\(" in t or "\\R" in t for t in texts)

    # a title page, then the contents with the page each page starts on
    assert "A small book" in texts[0] and "Contents" not in texts[0]
    assert texts[1].lstrip().startswith("Contents")
    for _, title, _, marker in PAGES:
        assert re.search(
            rf"{re.escape(title)}\s*{first[marker] + 1}\b", texts[1]
        ), (title, first[marker] + 1, texts[1])
    # the footers do not inflate the file: content streams stay compressed
    for p in reader.pages:
        raw = p["/Contents"].get_object()
        for stream in raw if isinstance(raw, list) else [raw]:
            assert "/Filter" in stream.get_object(), p
    # every page but the title page ends with its number in the whole PDF
    total = len(texts)
    assert f"/ {total}" not in texts[0]
    for i, t in enumerate(texts[1:], start=2):
        assert re.search(rf"\b{i} / {total}\s*$", t), (i, t[-200:])
    # no heading ends a page: each is on the page of its text
    assert not any(e.stranded for e in result.entries)
    for i in range(60):
        at = [j for j, t in enumerate(texts) if f"Heading {i}\n" in t + "\n"]
        assert at and f"BODY{i} " in texts[at[0]], (i, at)
    # the toggle of hidden code is not printed, nor the code; the output is
    assert not any("code cell" in t or "HIDDENCODE" in t for t in texts)
    assert any("SHOWNOUTPUT" in t for t in texts)

    # the outline: the root page, then the parts holding their pages, each
    # page holding its sections (pypdf: an item, then a list of its children)
    def tree(items):
        out = []
        for item in items:
            if isinstance(item, list):
                out[-1] = (out[-1][0], out[-1][1], tree(item))
            else:
                page_ = reader.get_destination_page_number(item)
                out.append((item.title, page_, []))
        return out

    assert tree(reader.outline) == [
        ("Contents", 1, []),
        ("A small book", first["MARKERINTRO"], []),
        (
            "Part one",
            first["MARKERZETA"],
            [
                (
                    "1. Zeta first",
                    first["MARKERZETA"],
                    [
                        ("1.1. First section", first["MARKERZETA"], []),
                        ("1.2. Second section", first["MARKERZETA"], []),
                    ],
                ),
                (
                    "2. Alpha second",
                    first["MARKERALPHA"],
                    [("2.1. The theorem", theorem, [])],
                ),
            ],
        ),
        (
            "Part two",
            first["MARKERREF"],
            [("3. Reference", first["MARKERREF"], [])],
        ),
    ]

    # links between pages lead inside the PDF: "Theorem 2.1" to the page
    # holding the theorem, "chapter 1" to chapter 1's first page
    targets = {}
    for i, p in enumerate(reader.pages):
        for annot in p.get("/Annots") or []:
            annot = annot.get_object()
            assert "/A" not in annot or "127.0.0.1" not in str(
                annot["/A"].get("/URI", "")
            ), annot
            if "/Dest" in annot:
                dest = annot["/Dest"]
                targets.setdefault(i, []).append(
                    reader.get_page_number(dest[0].get_object())
                )
    assert theorem in targets.get(first["MARKERZETA"], []), targets
    assert first["MARKERZETA"] in targets.get(first["MARKERREF"], []), targets
    assert result.links["in the book"] == 1  # to the theorem itself
    # "chapter 1", and each line of the contents to its page's start
    assert result.links["in the book (to a page's start)"] == 1 + len(PAGES)
    assert sorted(targets[1]) == sorted(first.values()), targets


def test_a_request_leaving_the_machine_fails_and_writes_no_pdf(tmp_path, tools):
    html = tmp_path / "html"
    site(html, '<script src="https://cdn.example.org/lib.js"></script>')
    out = tmp_path / "book.pdf"
    out.write_bytes(b"stale")
    result = book_pdf.build(html, out)
    assert any(
        re.search(
            r"appendix/ref\.html: request leaves the machine .*cdn\.example", p
        )
        for p in result.problems
    ), result.problems
    assert not out.exists()


def test_the_contents_list_section_pages_under_their_chapter():
    """A section page (level 2 in the sidebar) is indented under its chapter
    on the contents page, a chapter is not (review 44: the contents listed
    section pages at chapter level)."""
    entries = [
        book_pdf.Entry("c1.html", "1. Chapter", "Part"),
        book_pdf.Entry("c1s.html", "1.6. Section", "Part", level=2),
        book_pdf.Entry("c2.html", "2. Next", "Part"),
    ]
    page = book_pdf.contents_page(entries, "http://x/", [3, 5, 9])
    kinds = re.findall(r"<p class='([^']*)'><a href='http://x/(\w+)", page)
    assert kinds == [("page", "c1"), ("page section", "c1s"), ("page", "c2")]
    assert ".toc p.page.section" in page  # the indent is styled


def test_the_reference_prints_apart(tmp_path, tools, monkeypatch):
    # the API reference's pages (here the appendix, standing in for api/)
    # leave the book's PDF and make one of their own (--api, API_PDF)
    from pypdf import PdfReader

    monkeypatch.setattr(book_pdf, "ONLINE_ONLY_PREFIXES", ("appendix/",))
    html = tmp_path / "html"
    site(html)
    book = book_pdf.build(html, html / book_pdf.BOOK_PDF)
    api = book_pdf.build(html, html / book_pdf.API_PDF, api=True)
    assert book.problems == [] and api.problems == []
    assert [e.rel for e in book.entries if not e.front] == [
        p[0] for p in PAGES[:-1]
    ]
    assert [e.rel for e in api.entries if not e.front] == ["appendix/ref.html"]
    texts = text_of(PdfReader(html / book_pdf.API_PDF))
    assert texts[0].strip().endswith(": API reference")
    assert any("MARKERREF" in t for t in texts)
    assert not any("MARKERZETA" in t for t in texts)
