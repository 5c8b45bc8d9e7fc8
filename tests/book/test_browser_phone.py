"""The phone checks of tools/browser_check.py for wide tables' captions and
for figures (issue 40), on small hand-made sites with the book's own
stylesheet and script (tools/static): a wide table's caption stays in view at
390 px while the table scrolls, and every figure is a link to its own file;
each planted fault is named."""

from __future__ import annotations

import shutil
from pathlib import Path

import book_html_fixes  # noqa: E402
import browser_check  # noqa: E402
import pytest

pytestmark = pytest.mark.skipif(
    not Path(browser_check.CHROMIUM).exists(),
    reason=f"no Chromium at {browser_check.CHROMIUM}",
)

CSS = '<link rel="stylesheet" href="../_static/dppca-book.css">'
JS = '<script defer src="../_static/dppca-scroll-cue.js"></script>'
#: What the theme gives every page and the book's stylesheet relies on: an
#: image no wider than its column.
THEME = "<style>body { margin: 0 8px } img { max-width: 100% }</style>"


def figure_svg(smallest: float, width_pt: float) -> str:
    """An SVG figure as the book's formatter writes it: its natural width in
    pt and, in its metadata, its smallest text in pt."""
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" '
        'xmlns:dc="http://purl.org/dc/elements/1.1/" '
        f'width="{width_pt}pt" height="200pt" viewBox="0 0 {width_pt} 200">'
        "<metadata><dc:description>dppca:smallest-text-pt="
        f"{smallest:g}</dc:description></metadata>"
        f'<rect width="{width_pt}" height="200" fill="#ccc"/></svg>'
    )


#: A table wider than a phone's column, with a long caption, in the theme's
#: scrolling wrapper: its numbers (about 280 px each) do not wrap. At most 1.5
#: times as wide as the column, with the first of its two columns in view, it
#: scrolls on a phone (a wider one is stacked there:
#: tests/book/test_browser_stacked.py).
WIDE_TABLE = (
    '<div class="pst-scrollable-table-container"><table>'
    '<caption><span class="caption-number">Table 1.1 </span>What depends on '
    "the release: mean error and mean squared error over its prediction, by "
    "spectrum and d</caption>"
    "<thead><tr>"
    + "".join(f"<th>E err / prediction, release {i}</th>" for i in range(2))
    + "</tr></thead><tbody><tr>"
    + "".join(f"<td>1.{'0' * 30}{i}</td>" for i in range(2))
    + "</tr></tbody></table></div>"
)
#: A figure 7 in wide whose smallest text is 9 pt: 9 pt at 1280 px, 3.9 pt
#: in a phone's column (294 px: 390 px less the page's and the figure's
#: margins).
FIGURE = (
    '<figure><img alt="a figure" src="../_images/wide.svg">'
    "<figcaption><span>Fig. 1.1 </span>A wide figure.</figcaption></figure>"
)


def page(body: str, head: str) -> str:
    return (
        f"<!DOCTYPE html><html><head>{THEME}{head}</head><body>"
        f'<article class="bd-article">{body}</article></body></html>'
    )


def make_site(root: Path, pages: dict[str, tuple[str, str]]) -> None:
    """A site of ``pages`` (file: (body, head)) under chapters/, with the
    book's stylesheet and script in _static/ and the figure in _images/."""
    for folder in ("chapters", "_images", "_static"):
        (root / folder).mkdir(parents=True)
    for name in (book_html_fixes.STYLESHEET, book_html_fixes.SCROLL_CUES):
        shutil.copy(book_html_fixes.STATIC / name, root / "_static" / name)
    (root / "_images" / "wide.svg").write_text(figure_svg(9, 504))
    (root / "_images" / "other.svg").write_text(figure_svg(9, 504))
    for name, (body, head) in pages.items():
        (root / "chapters" / name).write_text(page(body, head))


def test_the_books_caption_and_figure_link_pass(tmp_path):
    make_site(tmp_path, {"one.html": (WIDE_TABLE + FIGURE, CSS + JS)})
    assert browser_check.run(tmp_path, word=None) == []


def test_each_planted_phone_fault_is_reported(tmp_path):
    #: a caption no wider than the box, but not sticky: in view as the page
    #: opens, scrolled away with the table
    not_sticky = (
        "<style>.bd-article table.dppca-wide-table > caption "
        "{ position: static !important; }</style>"
    )
    faults = {
        # the stylesheet without the script: no wide-table class, the
        # caption as wide as the table; no link on the figure
        "nocaption.html": (
            WIDE_TABLE,
            CSS,
            "table caption out of view at 390 px (caption box at",
        ),
        "nolink.html": (
            FIGURE,
            CSS,
            "figure wide.svg: smallest text 3.9 pt at 390 px and no link",
        ),
        "scrolledaway.html": (
            WIDE_TABLE,
            CSS + JS + not_sticky,
            "with the table scrolled to its right end",
        ),
        # a link, but to another file: not the figure at full size
        "otherlink.html": (
            '<figure><a href="../_images/other.svg"><img alt="a figure" '
            'src="../_images/wide.svg"></a></figure>',
            CSS,
            "and no link to the figure at full size",
        ),
    }
    make_site(
        tmp_path,
        {
            "sound.html": (WIDE_TABLE + FIGURE, CSS + JS),
            **{name: (body, head) for name, (body, head, _) in faults.items()},
        },
    )
    failures = browser_check.run(tmp_path, word=None)
    for name, (_, _, expected) in faults.items():
        assert any(name in f and expected in f for f in failures), (
            name,
            failures,
        )
    # the caption's check names the table; the figure's says what to do
    assert any(
        "nocaption.html" in f and "'Table 1.1 What depends on the release" in f
        for f in failures
    ), failures
    assert any(
        "nolink.html" in f and "no link to the figure at full size" in f
        for f in failures
    ), failures
    assert not any(f.startswith("chapters/sound.html") for f in failures), (
        failures
    )


def test_a_wide_tables_short_cells_stay_on_one_line_on_a_phone(tmp_path):
    """The script sizes the cells of a table wider than its box: at 390 px a
    short header stays on one line and a long one wraps in about two lines
    (Table 16.3's header row was 150 px tall); at 1280 px, where the table
    fits, nothing changes."""
    from playwright.sync_api import sync_playwright

    long_header = "mean bound over mean error, the three releases together"
    table = WIDE_TABLE.replace(
        "<th>E err / prediction, release 1</th>", f"<th>{long_header}</th>"
    )
    make_site(tmp_path, {"one.html": (table, CSS + JS)})
    server, base = browser_check.serve(tmp_path)
    measure = """() => {
        const ths = [...document.querySelectorAll('th')];
        const lines = th => {
            const r = document.createRange();
            r.selectNodeContents(th);
            return new Set([...r.getClientRects()].map(
                x => Math.round(x.top))).size;
        };
        return {wide: document.querySelector('table').classList
                    .contains('dppca-wide-table'),
                lines: ths.map(lines)};
    }"""
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=browser_check.CHROMIUM,
                args=browser_check.CHROMIUM_ARGS,
            )
            tab = browser.new_page(viewport=browser_check.PHONE)
            tab.goto(base + "chapters/one.html", wait_until="load")
            tab.evaluate(browser_check.WAIT_FOR_SCROLL_CUES)
            phone = tab.evaluate(measure)
            tab.set_viewport_size(browser_check.VIEWPORT)
            tab.evaluate(
                "() => new Promise(r => requestAnimationFrame("
                "() => requestAnimationFrame(r)))"
            )
            desktop = tab.evaluate(measure)
            browser.close()
    finally:
        server.shutdown()
    assert phone["wide"], phone
    assert phone["lines"] == [1, 2], phone
    assert not desktop["wide"], desktop
