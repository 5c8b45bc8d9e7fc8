"""Stacked tables on a phone (issue 40), on small hand-made sites with the
book's own stylesheet and script (tools/static) and MathJax: at 390 px a
table much wider than its box becomes one block per row, each cell labelled
with its column's header (multi-level headers joined, formulas typeset); a
narrower wide table keeps its scroll box; at 1280 px and in print nothing
changes; and the browser check names each planted fault."""

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

HEAD = (
    '<meta charset="utf-8"><style>body { margin: 0 8px }</style>'
    '<script defer src="../_static/mathjax/tex-mml-chtml.js"></script>'
)
CSS = '<link rel="stylesheet" href="../_static/dppca-book.css">'
JS = '<script defer src="../_static/dppca-scroll-cue.js"></script>'
#: The book's stylesheet without its stacking: every rule for a stacked
#: table renamed away (tables are laid out as tables, labels hidden).
NO_STACKING = '<link rel="stylesheet" href="../_static/no-stacking.css">'


def box(table: str) -> str:
    """A table in the theme's scrolling wrapper."""
    return f'<div class="pst-scrollable-table-container">{table}</div>'


#: Seven columns under a two-level header, row headers in the body, numbers
#: that do not wrap: about three times as wide as a phone's column.
LEVELS = box(
    "<table><caption><span class='caption-number'>Table 1.2 </span>"
    "Error and bound of each mechanism at two budgets</caption><thead>"
    "<tr><th></th><th colspan='3'>ε = 1</th><th colspan='3'>ε = 2</th></tr>"
    "<tr><th>mechanism</th>"
    + "<th>error</th><th>bound</th><th>bound / error</th>" * 2
    + "</tr></thead><tbody>"
    + "".join(
        f"<tr><th>sampler {i}</th>"
        + "".join(f"<td>{i}{j},234,567.8912</td>" for j in range(6))
        + "</tr>"
        for i in range(3)
    )
    + "</tbody></table>"
)
#: Five columns of numbers that do not wrap, a formula in two headers.
MATH = box(
    "<table><caption><span class='caption-number'>Table 1.3 </span>"
    "What depends on the release</caption><thead><tr><th>spectrum</th>"
    "<th>d</th><th>\\(\\mathbb{E}\\,\\mathrm{err}^2\\) / prediction</th>"
    "<th>\\(\\operatorname{Re}\\hat H\\) / prediction</th>"
    "<th>mean bound / mean error</th></tr></thead><tbody>"
    + "".join(
        f"<tr><td>wide</td><td>{16 * 2**i}</td><td>1.00{i}23456789012345678</td>"
        f"<td>1.01{i}23456789012345678</td><td>7.{i}–11.000000</td></tr>"
        for i in range(3)
    )
    + "</tbody></table>"
)
#: Three columns, about 1.4 times the column, but only the first (a long
#: name) in view: fewer than half of its columns show, so it is stacked.
FIRST_WIDE = box(
    "<table><thead><tr><th>method</th><th>seconds</th><th>share</th></tr>"
    "</thead><tbody><tr><td>" + "x" * 38 + "</td><td>12,345.678</td>"
    "<td>0.123456789</td></tr></tbody></table>"
)
#: Two columns of unbreakable numbers, about 1.3 times the column, the first
#: in view: it keeps its scroll box.
SCROLLS = box(
    "<table><thead><tr><th>left</th><th>right</th></tr></thead><tbody>"
    "<tr>" + f"<td>1.{'0' * 26}1</td>" * 2 + "</tr></tbody></table>"
)
#: A table that fits.
FITS = box(
    "<table><thead><tr><th>ε</th><th>error</th></tr></thead>"
    "<tbody><tr><td>1</td><td>0.25</td></tr></tbody></table>"
)
SOUND = LEVELS + MATH + FIRST_WIDE + SCROLLS + FITS


def make_site(root: Path, pages: dict[str, tuple[str, str]]) -> None:
    """Pages (file: (body, head)) under chapters/, with the book's
    stylesheet (and a copy without stacking) and script in _static/ and
    MathJax in _static/mathjax."""
    for folder in ("chapters", "_static"):
        (root / folder).mkdir(parents=True)
    (root / "_static" / "mathjax").symlink_to(
        book_html_fixes.mathjax_es5(), target_is_directory=True
    )
    for name in (book_html_fixes.STYLESHEET, book_html_fixes.SCROLL_CUES):
        shutil.copy(book_html_fixes.STATIC / name, root / "_static" / name)
    css = (book_html_fixes.STATIC / book_html_fixes.STYLESHEET).read_text()
    assert "table.dppca-stacked" in css
    (root / "_static" / "no-stacking.css").write_text(
        css.replace("dppca-stacked", "dppca-stacked-not-styled")
    )
    for name, (body, head) in pages.items():
        (root / "chapters" / name).write_text(
            f"<!DOCTYPE html><html><head>{HEAD}{head}</head><body>"
            f'<article class="bd-article">{body}</article></body></html>'
        )


#: Each table as laid out: stacked or not, its rows' display, whether it
#: fits its box, and each body cell's data-label and drawn label (its text,
#: whether it holds a drawn formula, raw TeX in it).
LAYOUT = """() => [...document.querySelectorAll('table')].map(t => {
    const box = t.parentElement;
    const cells = [...t.tBodies[0].rows[0].cells];
    const drawn = el => el.getClientRects().length > 0
        && el.getBoundingClientRect().width > 0;
    return {
        cls: t.className,
        rows: getComputedStyle(t.tBodies[0].rows[0]).display,
        fits: box.scrollWidth <= box.clientWidth + 1,
        title: cells[0].classList.contains('dppca-row-title'),
        titleWeight: Number(getComputedStyle(cells[0]).fontWeight),
        dataLabels: cells.map(c => c.getAttribute('data-label')),
        labels: cells.map(c => {
            const l = c.querySelector('.dppca-cell-label');
            if (!l || !drawn(l)) return null;
            const math = [...l.querySelectorAll('mjx-container')];
            const visible = l.cloneNode(true);
            visible.querySelectorAll('mjx-assistive-mml')
                .forEach(m => m.remove());
            return {text: visible.textContent.replace(/\\s+/g, ' ').trim(),
                    math: math.filter(drawn).length,
                    ids: l.querySelectorAll('[id]').length};
        }),
        values: cells.map(c => c.innerText.trim()),
    };
})"""


def layouts(root: Path, name: str) -> dict[str, list[dict]]:
    """The tables of one page as the check sees them: loaded at 1280 px,
    then at 390 px, then printed at 390 px."""
    from playwright.sync_api import sync_playwright

    server, base = browser_check.serve(root)
    frames = (
        "() => new Promise(r => requestAnimationFrame(() => "
        "requestAnimationFrame(r)))"
    )
    out = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=browser_check.CHROMIUM,
                args=browser_check.CHROMIUM_ARGS,
            )
            tab = browser.new_page(viewport=browser_check.VIEWPORT)
            tab.goto(base + "chapters/" + name, wait_until="load")
            assert tab.evaluate(browser_check.WAIT_FOR_MATHJAX) == "ok"
            tab.evaluate(browser_check.WAIT_FOR_SCROLL_CUES)
            out["desktop"] = tab.evaluate(LAYOUT)
            tab.set_viewport_size(browser_check.PHONE)
            tab.evaluate(frames)
            out["phone"] = tab.evaluate(LAYOUT)
            tab.emulate_media(media="print")
            out["print"] = tab.evaluate(LAYOUT)
            browser.close()
    finally:
        server.shutdown()
    return out


def test_wide_tables_are_stacked_with_labels_on_a_phone(tmp_path):
    make_site(tmp_path, {"one.html": (SOUND, CSS + JS)})
    seen = layouts(tmp_path, "one.html")
    levels, math, first_wide, scrolls, fits = seen["phone"]
    for table in (levels, math, first_wide):
        assert "dppca-stacked" in table["cls"], table
        assert table["rows"] == "block", table
        assert table["fits"], table
        assert table["title"] and table["titleWeight"] >= 600, table
    # the two levels of the header joined; the row header labelled by the
    # lower level alone (the upper one is blank)
    expected = ["mechanism"] + [
        f"ε = {e} · {h}"
        for e in (1, 2)
        for h in ("error", "bound", "bound / error")
    ]
    assert levels["dataLabels"] == expected, levels
    assert [label["text"] for label in levels["labels"]] == expected, levels
    assert levels["values"][1].endswith("00,234,567.8912"), levels
    # formulas: typeset copies in the labels, TeX in data-label, no raw TeX
    # drawn and no id copied
    assert [label["math"] for label in math["labels"]] == [0, 0, 1, 1, 0]
    assert math["dataLabels"][2] == (
        "\\(\\mathbb{E}\\,\\mathrm{err}^2\\) / prediction"
    ), math
    assert all("\\" not in label["text"] for label in math["labels"]), math
    assert all(label["ids"] == 0 for label in math["labels"]), math
    # narrower tables: one scrolls in its box, one fits; neither stacked
    assert "dppca-wide-table" in scrolls["cls"], scrolls
    assert "dppca-stacked" not in scrolls["cls"] + fits["cls"]
    assert scrolls["rows"] == fits["rows"] == "table-row"
    assert scrolls["labels"] == [None, None], scrolls
    # at 1280 px and in print: tables, no label drawn
    for when in ("desktop", "print"):
        for table in seen[when]:
            assert table["rows"] == "table-row", (when, table)
            assert set(table["labels"]) == {None}, (when, table)
    assert not any("dppca-stacked" in t["cls"] for t in seen["desktop"])
    assert seen["desktop"][0]["values"][1] == "00,234,567.8912"


def test_the_check_passes_stacked_tables_and_names_each_fault(tmp_path):
    no_labels = "<style>.dppca-cell-label { display: none !important }</style>"
    #: values that do not fit the block
    too_wide = (
        "<style>.bd-article table.dppca-stacked .dppca-cell-value "
        "{ min-width: 420px }</style>"
    )
    #: labels whose formulas were replaced by their text, once stacked
    flattened = (
        "<script>addEventListener('resize', () => requestAnimationFrame("
        "() => document.querySelectorAll('.dppca-cell-label mjx-container')"
        ".forEach(m => m.replaceWith(m.textContent))))</script>"
    )
    faults = {
        # the stylesheet without the script: nothing stacked
        "noscript.html": (
            LEVELS,
            CSS,
            "shows 3 of its 7 columns as the page opens",
        ),
        "unstacked.html": (
            LEVELS,
            NO_STACKING + JS,
            "(it has the class dppca-stacked, but its rows are not laid out "
            "as blocks)",
        ),
        "nolabels.html": (
            MATH,
            CSS + JS + no_labels,
            "stacked, but 15 cells show no label",
        ),
        "toowide.html": (
            LEVELS,
            CSS + JS + too_wide,
            "stacked, but 56 px wider than its box",
        ),
        "flattened.html": (
            MATH,
            CSS + JS + flattened,
            "stacked, but 6 labels lost the formula of their header",
        ),
    }
    make_site(
        tmp_path,
        {
            "sound.html": (SOUND, CSS + JS),
            **{name: (body, head) for name, (body, head, _) in faults.items()},
        },
    )
    failures = browser_check.run(tmp_path, word=None)
    for name, (_, _, expected) in faults.items():
        assert any(name in f and expected in f for f in failures), (
            name,
            failures,
        )
    assert any(
        "noscript.html" in f and "'Table 1.2 Error and bound" in f
        for f in failures
    ), failures
    assert not any(f.startswith("chapters/sound.html") for f in failures), (
        failures
    )
