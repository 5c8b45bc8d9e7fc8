"""The browser check (tools/browser_check.py) on small hand-made sites: it
passes a sound one
and names each planted fault. The check of the real book runs after the
render (make test)."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import sys
from pathlib import Path

import book_html_fixes  # noqa: E402
import browser_check  # noqa: E402
import pytest

pytestmark = pytest.mark.skipif(
    not Path(browser_check.CHROMIUM).exists(),
    reason=f"no Chromium at {browser_check.CHROMIUM}",
)

# A 1 x 1 PNG.
PIXEL = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def figure_svg(smallest: float | None, width_pt: float = 270.0) -> str:
    """An SVG figure as the book's formatter writes it: its natural width in
    pt and, in its metadata, its smallest text in pt."""
    record = (
        ""
        if smallest is None
        else f"<metadata><dc:description>dppca:smallest-text-pt={smallest:g}"
        "</dc:description></metadata>"
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" '
        f'width="{width_pt}pt" height="90pt" viewBox="0 0 {width_pt} 90">'
        f'{record}<rect width="{width_pt}" height="90" fill="#ccc"/></svg>'
    )


def page(body: str, head: str = "") -> str:
    return f"<!DOCTYPE html><html><head>{head}</head><body>{body}</body></html>"


#: What Sphinx puts in the head of a page with math: the configuration, then
#: the book's own MathJax (a link to the installed copy, as _static/mathjax).
MATHJAX = (
    "<script>window.MathJax = {tex: {macros: {R: '\\\\mathbb{R}'}}}</script>"
    '<script defer src="../_static/mathjax/tex-mml-chtml.js"></script>'
)


def math_page(body: str) -> str:
    # at most 400 px: narrower on the check's 390 px phone, where the page
    # must not scroll sideways
    return page(f'<article style="max-width: 400px">{body}</article>', MATHJAX)


def sound_site(root: Path) -> None:
    (root / "chapters").mkdir(parents=True)
    (root / "_images").mkdir()
    (root / "_static").mkdir()
    (root / "_static" / "mathjax").symlink_to(
        book_html_fixes.mathjax_es5(), target_is_directory=True
    )
    (root / "_images" / "fig.png").write_bytes(PIXEL)
    # a figure 360 px wide whose smallest text is 10 pt: 10 pt as shown
    (root / "_images" / "figure.svg").write_text(figure_svg(10))
    (root / "index.html").write_text(
        '<meta http-equiv="Refresh" content="0; url=chapters/one.html" />'
    )
    (root / "chapters" / "one.html").write_text(
        math_page(
            '<h1 id="top">One</h1><img src="../_images/fig.png">'
            '<img src="../_images/figure.svg">'
            '<a href="two.html#thm-1">Theorem 2.1</a><a href="#top">up</a>'
            '<a href="https://example.org/">elsewhere</a>'
            # typeset math, inline and display (which fits its column)
            '<p>For <span class="math">\\(x^{2} \\in \\R\\)</span>, '
            "the bound holds:</p>"
            '<div class="math" style="overflow-x: auto">\\['
            + " + ".join(f"a_{{{i}}}" for i in range(8))
            + "\\]</div>"
            # code may hold dollars and backslashes
            "<pre>$ make test  # \\frac{1}{2}</pre>"
            "<p>Set <code>$DPPCA_DATA_MIRROR</code>.</p>"
            # a long toggle, closed: off the reading path (open, 30 screens)
            "<details><summary>Show code</summary>"
            '<div style="height: 24000px">hidden code</div></details>'
            # a narrow output and a narrow table fit the 400 px column
            '<div class="cell_output"><pre>eps  error\n1.0  0.25</pre></div>'
            "<table><tr><td>mechanism</td><td>error</td></tr></table>"
            # wider than a phone's column (374 px), in a box that scrolls and
            # shows it (the stylesheet's edge shadow): fine at 390 px
            '<div style="overflow-x: auto; background-image: '
            'linear-gradient(to left, #0003, transparent)">'
            '<table style="width: 390px"><tr><td>wide</td></tr></table></div>'
            # a pandas Styler table with cell padding (the book's stylesheet)
            "<style>#T_ok td { padding: 0 0.5em; }</style>"
            '<table id="T_ok"><tbody><tr><td>10000</td><td>0.1</td></tr>'
            "</tbody></table>"
        )
    )
    (root / "chapters" / "two.html").write_text(
        page('<div id="thm-1">Theorem</div><a href="one.html">back</a>')
    )


def run(root: Path) -> list[str]:
    return browser_check.run(root, word=None)


def test_a_sound_site_passes(tmp_path):
    sound_site(tmp_path)
    assert run(tmp_path) == []


def test_each_planted_fault_is_reported(tmp_path):
    sound_site(tmp_path)
    chapters = tmp_path / "chapters"
    (tmp_path / "_images" / "bad.png").write_bytes(b"not a png")
    faults = {
        "image.html": ('<img src="../_images/bad.png">', "image"),
        "anchor.html": ('<a href="two.html#missing">x</a>', "broken anchor"),
        "file.html": ('<a href="gone.html">x</a>', "broken link"),
        "exception.html": ("<script>undefinedName();</script>", "JS exception"),
        "asset.html": (
            '<script src="../_static/gone.js"></script>',
            "HTTP 404",
        ),
        "console.html": ("<script>console.error('boom')</script>", "boom"),
        # an unbreakable inline code name: the page scrolls on a phone
        "phone.html": (
            "<p>See <code>" + "private_covariance_" * 5 + "</code>.</p>",
            "the page scrolls sideways by",
        ),
        # on a phone a table (or formula) wider than its box must not be cut
        # off, nor scroll with nothing telling the reader there is more
        "phonecut.html": (
            '<div style="overflow-x: hidden"><table style="width: 390px">'
            "<tr><td>cut</td></tr></table></div>",
            "table cut off at 390 px",
        ),
        "phonenocue.html": (
            '<div style="overflow-x: auto"><table style="width: 390px">'
            "<tr><td>scrolls</td></tr></table></div>",
            "table scrolls with no cue at 390 px",
        ),
        # a chapter too long to read: 19 screens of 800 px (the gate is 18)
        "long.html": (
            '<div style="height: 15200px">a long page</div>',
            "chapters/long.html: 19.0 screens of reading path",
        ),
        # the book reads offline: no CDN, for MathJax or anything else
        "remote.html": (
            '<script src="https://cdn.jsdelivr.net/npm/x.js"></script>',
            "request leaves the machine (blocked): https://cdn.jsdelivr.net",
        ),
    }
    # figures whose text a reader sees below 9 pt: drawn small, or shown
    # at half their natural width; and one without its record
    (tmp_path / "_images" / "small.svg").write_text(figure_svg(6))
    (tmp_path / "_images" / "unrecorded.svg").write_text(figure_svg(None))
    faults["smallfigure.html"] = (
        '<img src="../_images/small.svg">',
        "figure small.svg: smallest text 6.0 pt at reading size",
    )
    faults["scaledfigure.html"] = (
        '<img src="../_images/figure.svg" style="width: 180px">',
        "figure figure.svg: smallest text 5.0 pt at reading size",
    )
    faults["unrecorded.html"] = (
        '<img src="../_images/unrecorded.svg">',
        "figure unrecorded.svg carries no record of its smallest text",
    )
    for name, (body, _) in faults.items():
        (chapters / name).write_text(page(body))
    # math that MyST did not parse, and math MathJax could not typeset
    math_faults = {
        "dollars.html": (
            "<p>the bound $x^{2}$ holds</p>",
            "raw TeX in the text: 'the bound $x^{2}$ holds'",
        ),
        "unclosed.html": (
            '<p>for every <span class="math">\\(d\\)</span>, $ and the'
            " rest</p>",
            "raw TeX in the text: 'for every [math], $ and the rest'",
        ),
        "macro.html": (
            "<ul><li>+ \\frac{d}{\\varepsilon} is the rate</li></ul>",
            "raw TeX in the text: '+ \\\\frac{d}{",
        ),
        # a table a chapter computed, whose header MathJax was kept out of
        # (the class of cell outputs was not among MathJax's)
        "outputtable.html": (
            '<div class="cell_output"><div class="output text_html"><table>'
            "<tr><th>mean q_{F}</th></tr><tr><td>1</td></tr></table>"
            "<pre>q_{F} printed by code stays legitimate</pre></div></div>",
            "raw TeX in the text: 'mean q_{F}'",
        ),
        "merror.html": (
            '<p>see <span class="math">\\(x^^2\\)</span></p>',
            "MathJax error 'Missing open brace for superscript' in 'x^^2'",
        ),
        "undefined.html": (
            '<p>see <span class="math">\\(\\eps x\\)</span></p>',
            "MathJax error 'undefined control sequence \\\\eps'",
        ),
        # MathJax does not break inline math: a long formula runs past the
        # 400 px column
        "overflow.html": (
            '<p>so <span class="math">\\('
            + " + ".join(f"b_{{{i}}}" for i in range(40))
            + "\\)</span> holds</p>",
            "inline formula sticks out of its column by",
        ),
        # a wide display formula: the theme lets it scroll, the reader sees
        # it clipped
        "widedisplay.html": (
            '<div class="math" style="overflow-x: auto">\\['
            + " + ".join(f"a_{{{i}}}" for i in range(60))
            + "\\]</div>",
            "display formula wider than its column by",
        ),
        # MyST roles written inside $...$ reach MathJax as letters
        "glue.html": (
            '<p>about <span class="math">\\(80 + {glue:text}`ch13_mu:.0f`'
            "\\)</span></p>",
            "MyST role inside math (write it outside $...$): '80 + {glue",
        ),
        "cite.html": (
            '<p>so <span class="math">\\(\\sigma {cite:p}`dwork2006`'
            "\\)</span></p>",
            "MyST role inside math",
        ),
        # a pandas Styler table without cell padding: "10000.10.01eq5"
        "styler.html": (
            '<table id="T_b3f1"><tbody><tr><td>10000</td><td>0.1</td>'
            "<td>0.01</td><td>eq5</td></tr></tbody></table>",
            "Styler table without cell padding",
        ),
        # outputs and tables wider than the column (400 px here)
        "wideoutput.html": (
            '<div class="cell_output"><pre>short\n'
            + "0.123 " * 30
            + "</pre></div>",
            "wider than the column by",
        ),
        "widetable.html": (
            "<table><tr>"
            + "".join(f"<th>mechanism {i}</th>" for i in range(12))
            + "</tr></table>",
            "wider than the column by",
        ),
        # a collapsed output is measured too
        "collapsed.html": (
            '<details><summary>show output</summary><div class="cell_output">'
            "<pre>" + "wide " * 60 + "</pre></div></details>",
            "output line of 300 characters",
        ),
    }
    for name, (body, _) in math_faults.items():
        (chapters / name).write_text(math_page(body))
    faults.update(math_faults)
    failures = run(tmp_path)
    for name, (_, expected) in faults.items():
        assert any(name in f and expected in f for f in failures), (
            name,
            failures,
        )
    assert any(  # the formula is named
        "overflow.html" in f and "'b_{0} + b_{1} + b_{2}" in f for f in failures
    ), failures
    assert any(  # the widest line and the first row are named
        "wideoutput.html" in f and "output line of 180 characters: 0.123" in f
        for f in failures
    ), failures
    assert any(
        "widetable.html" in f and "table: mechanism 0 mechanism 1" in f
        for f in failures
    ), failures
    assert any(  # the element that sticks out on the phone is named
        "phone.html" in f and 'code "private_covariance_private' in f
        for f in failures
    ), failures
    sound_pages = ("chapters/one.html:", "chapters/two.html:")
    assert not any(f.startswith(sound_pages) for f in failures), failures


#: A small Sphinx book in the book's theme, with the book's extension (its
#: search scorer and its one search box): a page whose title holds "Wishart"
#: and, alphabetically before it, a page with only a section on it; both
#: with formulas next to "sensitivity", and code holding dollars and a TeX
#: delimiter.
SEARCH_BOOK = {
    "conf.py": (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(book_html_fixes.__file__).parent)!r})\n"
        "project = 'Search'\n"
        "extensions = ['book_html_fixes']\n"
        "html_theme = 'sphinx_book_theme'\n"
        "mathjax_path = 'mathjax/tex-mml-chtml.js'\n"
    ),
    "index.rst": (
        "A small book\n============\n\n.. toctree::\n\n   alpha\n   laplace\n"
    ),
    "alpha.rst": (
        "Alpha notes\n===========\n\nNotes on noise.\n\n"
        "Wishart\n-------\n\n"
        "The Wishart law, and the :math:`\\ell_1` sensitivity of a query.\n"
    ),
    "laplace.rst": (
        "Laplace and Wishart noise\n=========================\n\n"
        "The :math:`\\ell_1` sensitivity of the second moment, and a Wishart"
        " draw.\n\n.. math::\n\n   \\Delta = \\max \\|A - A'\\|_1\n\n"
        ".. code-block:: python\n\n   sensitivity = 2  # $x$, \\(y\\)\n"
    ),
}
SEARCH_CHECKS = {
    "word": "noise",
    "target": "laplace.html",
    "rank": ("Wishart", "laplace.html"),
    "snippet_word": "sensitivity",
}


@pytest.fixture(scope="module")
def search_book(tmp_path_factory) -> Path:
    """The small book, built by Sphinx; the PDF the download menu links to
    is an empty stand-in (tools/book_pdf.py prints the real one)."""
    src = tmp_path_factory.mktemp("search_src")
    for name, text in SEARCH_BOOK.items():
        (src / name).write_text(text)
    html = tmp_path_factory.mktemp("search_html")
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-q",
            "-b",
            "html",
            str(src),
            str(html),
        ],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    (html / book_html_fixes.BOOK_PDF).write_bytes(b"%PDF-1.4\n")
    (html / book_html_fixes.API_PDF).write_bytes(b"%PDF-1.4\n")
    return html


def test_the_search_of_a_sound_book_passes(search_book):
    assert browser_check.run(search_book, **SEARCH_CHECKS) == []


def replace_once(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert text.count(old) == 1, (path, old)
    path.write_text(text.replace(old, new))


def test_each_planted_search_fault_is_reported(search_book, tmp_path):
    site = tmp_path / "html"
    shutil.copytree(search_book, site)
    # the ranking: Sphinx's own score (ties broken alphabetically, "Alpha
    # notes" first)
    language_data = site / "_static" / "language_data.js"
    replace_once(
        language_data, "score: (result) => DppcaSearch.score(result),", ""
    )
    # the snippets: Sphinx's own text of the page (TeX, code and all)
    replace_once(
        language_data, "Search.htmlToText = DppcaSearch.htmlToText;", ""
    )
    # a second search box (the theme's header field)
    replace_once(
        site / "alpha.html",
        '<article class="bd-article">',
        '<article class="bd-article"><button class="btn search-button-field">'
        "Search</button>",
    )
    # no search dialog: Ctrl+K opens nothing
    page = site / "laplace.html"
    page.write_text(
        re.sub(
            r'<dialog id="pst-search-dialog">.*?</dialog>',
            "",
            page.read_text(),
            count=1,
            flags=re.S,
        )
    )
    failures = browser_check.run(site, **SEARCH_CHECKS)
    expected = [
        "search ranking: 'Wishart' lists alpha.html first, not laplace.html",
        "search snippet with TeX",
        "alpha.html: 2 search boxes at 1280 px",
        "laplace.html: Ctrl+K does not open a search field",
    ]
    for fault in expected:
        assert any(fault in f for f in failures), (fault, failures)
    # and nothing else: the rest of the small book is sound
    assert all(any(e in f for e in expected) for f in failures), failures


def test_the_books_own_scroll_cue_passes_and_its_absence_fails(tmp_path):
    """The stylesheet and script the book ships (tools/static): a table wider
    than a phone's column, in the theme's scrolling wrapper, fades out at its
    edge once the script has marked it; with the stylesheet alone it scrolls
    with no cue, and the check says so."""
    sound_site(tmp_path)
    for name in (book_html_fixes.STYLESHEET, book_html_fixes.SCROLL_CUES):
        shutil.copy(book_html_fixes.STATIC / name, tmp_path / "_static" / name)
    css = '<link rel="stylesheet" href="../_static/dppca-book.css">'
    js = '<script defer src="../_static/dppca-scroll-cue.js"></script>'
    wide = (
        '<article class="bd-article">'
        '<div class="pst-scrollable-table-container">'
        '<table style="width: 600px"><tr><td>wide</td></tr></table>'
        "</div></article>"
    )
    chapters = tmp_path / "chapters"
    (chapters / "cue.html").write_text(page(wide, css + js))
    assert run(tmp_path) == []
    (chapters / "cue.html").write_text(page(wide, css))
    problems = run(tmp_path)
    assert len(problems) == 1, problems
    assert "table scrolls with no cue at 390 px" in problems[0], problems
