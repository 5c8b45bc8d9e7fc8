"""Print the rendered HTML book to one PDF, offline, with the Chromium of the
browser check.

Usage: python tools/book_pdf.py [--api] HTML_DIR [OUT.pdf]

OUT.pdf defaults to HTML_DIR/_static/dppca-book.pdf, the file that the
"Book (PDF)" entry of every page's download menu links to (see
tools/book_html_fixes.py). ``make book`` runs it on _build/html (``make pdf``),
``make test`` on the FAST render before the browser check, which follows that
link like any other.

How:

- the HTML is served on 127.0.0.1 and opened in Chromium through Playwright
  with the server, launch flags and MathJax wait of tools/browser_check.py;
  every request that does not go to 127.0.0.1 is blocked, and is an error (the
  book serves everything itself, MathJax included);
- the pages, in the order of the book's navigation (the sidebar of the root
  page, which is _toc.yml's order: introduction, chapters, back matter; the
  API reference is printed apart, ``--api``, ``ONLINE_ONLY_PREFIXES``), are each printed with ``page.pdf()`` on A4, after MathJax has
  typeset them, two at a time (``--jobs``): each of two worker processes runs
  its own Chromium and reads the pages it printed back with pypdf, so that
  both cores of a small runner work; the largest pages go first, and the
  pages are put back in the book's order before anything else is done; the theme's print stylesheet drops the sidebars and the top bar,
  and this script adds a little print CSS: code wraps instead of running off
  the page, a heading is kept on the page of the text it introduces, the
  "Show code cell source" toggles (dead on paper) are dropped with the code
  they hide, and a display formula or table wider than the text column is set
  in a smaller font until it fits; a figure's caption stays on the page of its
  image (a figure taller than a page gets a shorter image), a dropdown's title
  on the page of its body, and a block taller than a third of a page may break
  across pages (``PAGE_HEIGHT``; the theme keeps tables, code and admonitions
  whole, and Chromium a box that scrolls or clips: each moved whole to the next
  page and left up to a page empty);
- a title page (the book's title and authors, from the root page) and a
  contents page (the parts and their pages, with the page each starts on, as
  links) are printed before them;
- pypdf merges the pages into one PDF with an outline: the contents, the parts
  of the table of contents, each page under its part, each page's sections
  under the page. Every page but the title page carries a footer with the
  title of the book's page it belongs to and its page number in the whole PDF
  (printed by Chromium as a separate overlay and stamped on: Chromium's own
  footer can only count the pages of one print job, that is of one page of
  the book).
  Links between pages of the book become links inside the PDF (to the section,
  theorem or equation they point at), links to other files of the site (the
  notebooks, the index) become links relative to the PDF's place in the site,
  and links to the web stay as they are.

Exits 0 when the PDF is written, 1 when a page failed (MathJax did not finish,
a request tried to leave the machine, a page did not load; no PDF is written
then), 2 without Chromium.
"""

from __future__ import annotations

import argparse
import html as html_escape
import multiprocessing
import os
import posixpath
import shutil
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from browser_check import (
    CHROMIUM,
    CHROMIUM_ARGS,
    WAIT_FOR_MATHJAX,
    is_local,
    local_target,
    redirect_target,
    serve,
)

#: Where the PDF goes in the HTML folder; the download menu of every page links
#: here (tools/book_html_fixes.py imports it).
BOOK_PDF = "_static/dppca-book.pdf"
#: The API reference's own PDF (``--api``): the pages the book's PDF leaves
#: out (``ONLINE_ONLY_PREFIXES``), printed alone, with their own title page
#: and contents; its links to the chapters go to the site's pages.
API_PDF = "_static/dppca-api.pdf"

#: A4 with 15 mm margins left and right: a column of 180 mm, 680 CSS px at
#: scale 1. Printed at SCALE, the page is laid out 680 / SCALE px wide: the
#: text is set at about 10 pt and an 80-column line of code fits. The page is
#: laid out at that width before printing (to measure what is too wide), so the
#: measure and the print agree.
PAPER = "A4"
MARGIN = {"top": "14mm", "bottom": "16mm", "left": "15mm", "right": "15mm"}
SCALE = 0.85
PRINT_VIEWPORT = {"width": round(680 / SCALE), "height": 1100}
#: The height of a page's text area in CSS px of the page's layout: A4's
#: 297 mm less the top and bottom margins, at SCALE.
PAGE_HEIGHT = (297 - 14 - 16) / 25.4 * 96 / SCALE
#: A block at most this share of PAGE_HEIGHT tall is kept whole on a page
#: (the theme's print style, or Chromium for a box that scrolls or clips); a
#: taller one may break across pages.
KEEP_WHOLE = 1 / 3

#: Pages printed at once, each worker process with its own Chromium (the
#: printing and the reading back of the printed pages use a core each).
JOBS = 2

#: Added to every page before printing.
PRINT_CSS = """
@media print {
  pre, pre code, .highlight pre {
    white-space: pre-wrap !important;
    overflow-wrap: anywhere;
  }
  h1, h2, h3, h4, h5, h6 {
    break-after: avoid-page;
    break-inside: avoid-page;
  }
  /* Chromium does not always honour break-after: avoid (not before a block
     that may not break, a code cell or a figure): an invisible box of about
     seven lines under each heading, taken back by a negative margin, moves a
     heading to the next page when less than that would follow it on this
     one */
  h2::after, h3::after, h4::after, h5::after, h6::after {
    content: "";
    display: block;
    height: 7em;
    margin-bottom: -7em;
  }
  /* myst-nb's toggles of hidden code ("Show code cell source"): nothing to
     click on paper. The hidden code stays hidden; a hidden output is shown */
  details.hide.above-input { display: none !important; }
  details.hide > summary { display: none !important; }
  details.hide.below-input > :not(summary) { display: block !important; }
  img, figure, mjx-container[display="true"], .cell_input {
    break-inside: avoid-page;
  }
  figcaption { break-before: avoid-page; }
  /* a dropdown's title ("Checks", "Source: ...") is not the last line of a
     page, its body on the next */
  details.sd-dropdown > summary { break-after: avoid-page; }
  /* each figure's image is a link to its file for phones
     (dppca-scroll-cue.js): its hint is not printed (PREPARE drops the link) */
  .dppca-full-size-hint { display: none !important; }
  /* Jupyter Book's print-only header repeats the page's title without its
     number, then a "Contents" list of the page's sections (the PDF has an
     outline and a contents page), and the theme hides the article's own
     title, which carries the number ("4. The exponential mechanism"): the
     article's title is printed instead */
  #jb-print-docs-body { display: none !important; }
  .bd-main .bd-content .bd-article h1:first-of-type {
    display: block !important;
    font-size: 2.2em;
    margin-top: 0;
  }
  /* sphinx-togglebutton opens every dropdown for print, and its button
     would print "Click to hide" beside each solution's title */
  .toggle-button, .tb-icon { display: none !important; }
  /* captions in the text's colour, not the theme's light grey */
  figcaption, figcaption p, table > caption {
    color: #222 !important;
  }
  /* Chromium prints a shadow as an image (a third of the file, for
     nothing); :not(#_) outweighs the theme's own !important shadows */
  :not(#_), :not(#_)::before, :not(#_)::after {
    box-shadow: none !important;
    text-shadow: none !important;
  }
}
"""

#: The pages of the book in navigation order, from the root page's sidebar:
#: [href, title, part caption or null], the root page first.
NAVIGATION = """() => {
    const nav = document.querySelector('nav.bd-docs-nav');
    if (!nav) return null;
    const out = [[location.href, null, null, 1]];
    let part = null;
    for (const el of nav.querySelectorAll('p.caption, a.reference.internal')) {
        if (el.matches('p.caption')) { part = el.textContent.trim(); continue; }
        const home = el.closest('.bd-sidenav__home-link');
        // a section page sits in a nested list (li.toctree-l2) under its
        // chapter (li.toctree-l1)
        const li = el.closest('li[class*="toctree-l"]');
        const level = li ? Number((li.className.match(/toctree-l(\\d)/)
                                   || [0, 1])[1]) : 1;
        out.push([el.href, el.textContent.replace(/\\s+/g, ' ').trim(),
                  home ? null : part, level]);
    }
    return out;
}"""

#: Prepares a loaded page for printing (laid out for print at the paper's
#: width): shrinks what is wider than its column, makes every element with an
#: id a destination of the PDF (Chromium exports a named destination for each
#: target of a link inside the page: hidden links to every id make them all
#: targets), and returns the page's title and its sections (id, title).
PREPARE = """([pageHeight, keepWhole]) => {
    // what opens for print opens now, to be measured as printed: the
    // exercises' solutions (sphinx-togglebutton opens them on beforeprint,
    // which page.pdf() fires after this)
    window.dispatchEvent(new Event('beforeprint'));
    // blocks only: an inline element has no clientWidth
    const wide = el => el.clientWidth > 0
        && !getComputedStyle(el).display.startsWith('inline')
        && el.scrollWidth > el.clientWidth + 1;
    for (const el of document.querySelectorAll(
            'article mjx-container[display="true"], article .math, '
            + 'article table, article .table-wrapper, '
            + 'article .pst-scrollable-table-container, article .output')) {
        if (!wide(el)) continue;
        const size = parseFloat(getComputedStyle(el).fontSize);
        let scale = el.clientWidth / el.scrollWidth;
        for (let i = 0; i < 4 && wide(el) && scale > 0.4; i++) {
            el.style.fontSize = (size * scale) + 'px';
            scale *= 0.95 * el.clientWidth / Math.max(el.scrollWidth, 1);
        }
    }
    // sphinx-design's dropdowns ("Checks", derivations, a table or two)
    // print open: a closed one printed as an empty bar (issue 40 review)
    for (const d of document.querySelectorAll('details.sd-dropdown')) {
        d.open = true;
    }
    // the figures' links to their own files (dppca-scroll-cue.js, for
    // phones): the image alone on paper
    for (const a of document.querySelectorAll('a.dppca-full-size')) {
        a.querySelectorAll('.dppca-full-size-hint').forEach(x => x.remove());
        a.replaceWith(...a.childNodes);
    }
    // A block that may not break (the theme's print style keeps tables,
    // code and admonitions whole; Chromium keeps a box that scrolls or clips
    // whole) is moved whole to the next page when it does not fit: taller
    // than a third of a page, it left up to a page empty (74 of 561 pages
    // had their lower 40% empty, issue 40). Such a block may break; a table
    // still keeps its rows whole. Figures and formulas stay whole.
    for (const el of document.querySelectorAll('article *')) {
        if (el.matches('figure, figure *, mjx-container, mjx-container *, '
                       + 'img, svg, svg *, h1, h2, h3, h4, h5, h6, tr, tr *'))
            continue;
        const s = getComputedStyle(el);
        const avoid = s.breakInside.startsWith('avoid');
        const clips = s.overflowX !== 'visible' || s.overflowY !== 'visible';
        if (!avoid && !clips) continue;
        if (el.getBoundingClientRect().height <= keepWhole * pageHeight)
            continue;
        if (avoid) el.style.setProperty('break-inside', 'auto', 'important');
        if (clips) {
            el.style.setProperty('overflow', 'visible', 'important');
            // still a block formatting context, as with overflow hidden
            if (s.display === 'block')
                el.style.setProperty('display', 'flow-root', 'important');
        }
    }
    // A figure's caption stays on the page of its image: a figure taller
    // than a page (Fig. 8.1) printed its image alone on a page and its
    // caption on the next; its image is made shorter until image and
    // caption fit on one page.
    for (const fig of document.querySelectorAll('article figure')) {
        const img = fig.querySelector('img');
        if (!img) continue;
        const over = fig.getBoundingClientRect().height - 0.96 * pageHeight;
        if (over <= 0) continue;
        const h = img.getBoundingClientRect().height;
        img.style.setProperty('max-height', Math.max(h - over, 0.4 * h) + 'px',
                              'important');
        img.style.setProperty('width', 'auto', 'important');
    }
    const box = document.createElement('div');
    box.style.display = 'none';
    for (const el of document.querySelectorAll('[id]')) {
        const a = document.createElement('a');
        a.href = '#' + encodeURIComponent(el.id);
        box.appendChild(a);
    }
    document.body.appendChild(box);
    const text = el => {
        const c = el.cloneNode(true);
        c.querySelectorAll('.headerlink').forEach(x => x.remove());
        return c.textContent.replace(/\\s+/g, ' ').trim();
    };
    const h1 = document.querySelector('article h1');
    const sections = [...document.querySelectorAll('article section > h2')]
        .filter(h => h.parentElement.id)
        .map(h => [h.parentElement.id, text(h)]);
    // the book's name and authors (for the title page): the part of the
    // window title after the page's own, and the theme's "By ..." footer
    const parts = document.title.split(' \u2014 ');
    const by = [...document.querySelectorAll('footer p, .footer-item')]
        .map(e => e.textContent.replace(/\\s+/g, ' ').trim())
        .find(s => /^By /.test(s));
    // the headings, and the dropdowns' titles ("Checks"): none may be the
    // last line of a page
    const headings = [...document.querySelectorAll(
        'article h2, article h3, article h4, '
        + 'article details.sd-dropdown > summary')].map(text);
    return {title: h1 ? text(h1) : document.title, sections, headings,
            book: parts[parts.length - 1].trim(),
            authors: by ? by.replace(/^By /, '')
                .replace(/\\s*©.*$/, '') : ''};
}"""


@dataclass
class Entry:
    """One page of the book: where it is, its title and part, and once
    printed, its PDF and sections."""

    rel: str
    title: str
    part: str | None
    pdf: Path | None = None
    sections: list[tuple[str, str]] = field(default_factory=list)
    #: front matter (title page, contents): not a page of the book
    front: bool = False
    #: PDF pages it takes
    n_pages: int = 0
    #: its h2-h4 headings and dropdown titles, and those printed as the
    #: last line of a page
    headings: list[str] = field(default_factory=list)
    stranded: list[str] = field(default_factory=list)
    #: the book's name and authors, as the page shows them
    book: str = ""
    authors: str = ""
    #: 1 for a chapter (or a page of its own), 2 for a section page listed
    #: under its chapter in the table of contents
    level: int = 1


#: Pages of the book left out of its PDF: the API reference (``api/``,
#: generated from the package's docstrings, a quarter of the pages; the end of
#: the part "Reference"), printed as a PDF of its own (``--api``, ``API_PDF``);
#: links to it from the chapters become links to the site's pages.
ONLINE_ONLY_PREFIXES = ("api/",)


def root_page(html: Path) -> str:
    """The book's first page: where index.html sends the reader."""
    if not (html / "index.html").is_file():
        raise FileNotFoundError(f"no index.html in {html}")
    return redirect_target(html, "index.html") or "index.html"


def navigation(page, base: str, root: str) -> list[Entry]:
    """The pages of the book in the order of its navigation, root first."""
    page.goto(base + root, wait_until="load", timeout=60_000)
    items = page.evaluate(NAVIGATION)
    if items is None:
        raise RuntimeError(
            f"{root}: no navigation (nav.bd-docs-nav) to take the pages' "
            "order from"
        )
    entries: dict[str, Entry] = {}
    for href, title, part, level in items:
        target = local_target(href, base)
        if target is None:
            continue
        if target[0] in entries:  # the root page: its title in the sidebar
            entries[target[0]].title = entries[target[0]].title or title or ""
            continue
        entries[target[0]] = Entry(
            target[0], title or "", part, level=int(level or 1)
        )
    return list(entries.values())


def footers(titles: list[str | None]) -> str:
    """An HTML document of A4 pages, blank but for a footer on each: the title
    of the book's page it belongs to and its number in the whole PDF (out of
    all); None leaves a page blank (the title page). Printed without margins
    and stamped on the book's pages."""
    total = len(titles)
    style = (
        "position: absolute; left: 15mm; right: 15mm; bottom: 7mm; "
        "display: flex; justify-content: space-between; gap: 2em; "
        "font: 7pt sans-serif; color: #666"
    )
    pages = []
    for number, title in enumerate(titles, start=1):
        inner = (
            ""
            if title is None
            else f'<div style="{style}"><span>{html_escape.escape(title)}'
            f"</span><span>{number} / {total}</span></div>"
        )
        pages.append(f'<div class="sheet">{inner}</div>')
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        "@page { size: A4; margin: 0 } html, body { margin: 0 }"
        ".sheet { position: relative; height: 296.5mm; overflow: hidden;"
        " break-after: page }"
        ".sheet:last-child { break-after: auto }"
        "</style></head><body>" + "".join(pages) + "</body></html>"
    )


FRONT_CSS = """
@page { size: A4; margin: 30mm 25mm 25mm 25mm }
body { font-family: sans-serif; color: #222; margin: 0 }
.title { margin-top: 60mm; text-align: center }
.title h1 { font-size: 26pt; line-height: 1.25; margin: 0 0 12mm }
.title p { font-size: 13pt; color: #555; margin: 0 }
h1.contents { font-size: 20pt; margin: 0 0 8mm }
.toc p { margin: 0; font-size: 10.5pt; line-height: 1.55 }
.toc p.part { font-weight: bold; margin-top: 3mm }
.toc p.page { display: flex; gap: 0.4em; padding-left: 1.2em }
.toc p.page.top { padding-left: 0; font-weight: bold }
.toc p.page.section { padding-left: 2.8em; font-size: 9.5pt }
.toc a { color: inherit; text-decoration: none }
.toc .dots { flex: 1; border-bottom: 1px dotted #999; margin-bottom: 0.35em }
"""


def title_page(book: str, authors: str) -> str:
    """The PDF's first page: the book's title and its authors."""
    by = f"<p>{html_escape.escape(authors)}</p>" if authors else ""
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        f"{FRONT_CSS}</style></head><body><div class='title'>"
        f"<h1>{html_escape.escape(book)}</h1>{by}</div></body></html>"
    )


def contents_page(entries: list[Entry], base: str, first: list[int]) -> str:
    """The contents: each part's caption, then its pages with the number of
    the PDF page each starts on (``first``, counted from 1), as links to the
    pages (``merge`` turns them into links inside the PDF)."""
    rows, part = [], None
    for entry, start in zip(entries, first):
        if entry.part != part and entry.part:
            rows.append(f"<p class='part'>{html_escape.escape(entry.part)}</p>")
        part = entry.part
        kind = "page" if entry.part else "page top"
        if entry.part and entry.level > 1:
            kind = "page section"  # under its chapter
        href = html_escape.escape(base + entry.rel)
        rows.append(
            f"<p class='{kind}'><a href='{href}'>"
            f"{html_escape.escape(entry.title)}</a><span class='dots'>"
            f"</span><span>{start}</span></p>"
        )
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><style>"
        f"{FRONT_CSS}</style></head><body><h1 class='contents'>Contents</h1>"
        "<div class='toc'>" + "".join(rows) + "</div></body></html>"
    )


def print_page(page, base: str, entry: Entry, out: Path) -> list[str]:
    """Load one page, wait for MathJax, print it to ``out``; return the
    problems."""
    problems: list[str] = []
    page.goto(base + entry.rel, wait_until="load", timeout=60_000)
    mathjax = page.evaluate(WAIT_FOR_MATHJAX)
    if mathjax not in ("ok", "none"):
        problems.append(mathjax)
    page.add_style_tag(content=PRINT_CSS)
    page.emulate_media(media="print")
    info = page.evaluate(PREPARE, [PAGE_HEIGHT, KEEP_WHOLE])
    if not entry.title:
        entry.title = info["title"]
    entry.sections = [tuple(s) for s in info["sections"]]
    entry.book, entry.authors = info["book"], info["authors"]
    entry.headings = info["headings"]
    page.pdf(
        path=str(out),
        format=PAPER,
        print_background=True,
        margin=MARGIN,
        scale=SCALE,
    )
    page.emulate_media(media="screen")
    return problems


def pdf_pages(path: Path) -> int:
    from pypdf import PdfReader

    return len(PdfReader(path).pages)


def stranded_headings(path: Path, headings: list[str]) -> list[str]:
    """The headings printed as the last line of a page of ``path``: split from
    the text they introduce. The last line is the lowest on the page, not the
    last of the page's text (Chromium writes a dropdown's title after its
    body); spaces are not compared."""
    from pypdf import PdfReader

    def bare(text: str) -> str:
        return "".join(text.split())

    wanted = {bare(h): " ".join(h.split()) for h in headings}
    out = []
    for page in PdfReader(path).pages[:-1]:
        found: list[tuple[float, float, str]] = []  # (y, x, text), y upwards

        def visit(text, cm, tm, font, size):
            if text.strip():
                # the text matrix, then the graphics state's: where it starts
                x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
                y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
                found.append((y, x, text))

        page.extract_text(visitor_text=visit)
        if not found:
            continue
        lowest = min(y for y, _, _ in found)
        last = sorted((x, t) for y, x, t in found if y < lowest + 3)
        line = bare("".join(t for _, t in last))
        if line in wanted:
            out.append(wanted[line])
    return out


def print_html(page, html: str, out: Path, **options) -> int:
    """Print a document given as text (front matter, footers) to ``out``;
    return its number of pages."""
    page.set_content(html, wait_until="load")
    page.emulate_media(media="print")
    page.pdf(path=str(out), prefer_css_page_size=True, **options)
    page.emulate_media(media="screen")
    return pdf_pages(out)


def front_matter(
    page, base: str, entries: list[Entry], workdir: Path, suffix: str = ""
) -> list[Entry]:
    """Print the title page and the contents (into ``workdir``); return them
    as entries. The contents give each page of the book the number of the PDF
    page it starts on, which depends on how many pages the contents take:
    printed again until that number is stable."""
    root = entries[0]
    title = Entry(
        "_title", (root.book or root.title) + suffix, None, front=True
    )
    title.pdf = workdir / "title.pdf"
    title.n_pages = print_html(
        page, title_page(title.title, root.authors), title.pdf
    )
    contents = Entry("_contents", "Contents", None, front=True, n_pages=1)
    contents.pdf = workdir / "contents.pdf"
    for _ in range(4):
        start = title.n_pages + contents.n_pages + 1
        first = []
        for entry in entries:
            first.append(start)
            start += entry.n_pages
        n = print_html(page, contents_page(entries, base, first), contents.pdf)
        if n == contents.n_pages:
            break
        contents.n_pages = n
    return [title, contents]


#: The footers' overlay, in the working folder.
FOOTERS = "footers.pdf"


def launch(pw, base: str, remote: list[str]):
    """Chromium with a page laid out at the paper's width, offline: a request
    that does not go to ``base`` is aborted and noted in ``remote``."""
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    context = browser.new_context(viewport=PRINT_VIEWPORT)

    def block(route):  # offline: nothing leaves the machine
        remote.append(route.request.url)
        route.abort()

    context.route(lambda url: not is_local(url, base), block)
    return browser, context.new_page()


#: A worker's Chromium: set up once per worker process by ``start_printer``.
PRINTER: dict = {}


def start_printer(base: str) -> None:
    """Start Playwright and Chromium in a worker process (stopped when the
    process exits)."""
    from multiprocessing.util import Finalize

    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    remote: list[str] = []
    browser, page = launch(pw, base, remote)
    PRINTER.update(base=base, page=page, remote=remote)

    def stop():
        browser.close()
        pw.stop()

    Finalize(None, stop, exitpriority=10)


def print_entry(rel: str, title: str, pdf: str) -> dict:
    """In a worker: print the page ``rel`` of the book to ``pdf`` and read it
    back (its number of pages, its stranded headings); return what was learnt
    of the page, with its problems."""
    remote = PRINTER["remote"]
    remote.clear()
    entry = Entry(rel, title, None, pdf=Path(pdf))
    try:
        found = print_page(PRINTER["page"], PRINTER["base"], entry, entry.pdf)
        entry.n_pages = pdf_pages(entry.pdf)
        entry.stranded = stranded_headings(entry.pdf, entry.headings)
    except Exception as error:  # a page that does not load
        found = [f"{type(error).__name__}: {error}"]
    found = [f"{rel}: {p}" for p in found] + [
        f"{rel}: request leaves the machine (blocked): {u}"
        for u in dict.fromkeys(remote)
    ]
    learnt = {
        name: getattr(entry, name)
        for name in (
            "title",
            "sections",
            "book",
            "authors",
            "headings",
            "n_pages",
            "stranded",
        )
    }
    return {"problems": found, **learnt}


def html_size(html: Path, rel: str) -> int:
    try:
        return (html / rel).stat().st_size
    except OSError:
        return 0


def print_entries(
    entries: list[Entry], html: Path, base: str, jobs: int
) -> list[str]:
    """Print every page of ``entries`` to its ``pdf``, ``jobs`` at a time,
    the largest first (so that the workers finish together); fill in what
    each page told of itself; return the problems, in the book's order."""
    order = sorted(entries, key=lambda e: -html_size(html, e.rel))
    problems: list[str] = []
    with ProcessPoolExecutor(
        max_workers=max(1, jobs),
        mp_context=multiprocessing.get_context("spawn"),
        initializer=start_printer,
        initargs=(base,),
    ) as pool:
        futures = {
            entry.rel: pool.submit(
                print_entry, entry.rel, entry.title, str(entry.pdf)
            )
            for entry in order
        }
        for entry in entries:
            try:
                learnt = futures[entry.rel].result()
            except Exception as error:  # a worker that failed: no pool left
                problems.append(f"{entry.rel}: {type(error).__name__}: {error}")
                break
            problems += learnt.pop("problems")
            for name, value in learnt.items():
                setattr(entry, name, value)
            entry.sections = [tuple(s) for s in entry.sections]
    return problems


def print_pages(
    html: Path, workdir: Path, jobs: int = JOBS, api: bool = False
) -> tuple[list[Entry], str, list[str]]:
    """Print every page of the book in ``html`` into ``workdir``, ``jobs`` at
    a time (with ``api``, the API reference's pages instead); return the
    entries, the address they were served from (their links start with it)
    and the problems."""
    from playwright.sync_api import sync_playwright

    server, base = serve(html)
    problems: list[str] = []
    try:
        with sync_playwright() as pw:
            # the navigation, the front matter and the footers: here
            browser, page = launch(pw, base, [])
            entries = [
                entry
                for entry in navigation(page, base, root_page(html))
                if entry.rel.startswith(ONLINE_ONLY_PREFIXES) == api
            ]
            for i, entry in enumerate(entries):
                entry.pdf = workdir / f"{i:03d}.pdf"
            problems += print_entries(entries, html, base, jobs)
            if not problems:
                suffix = ": API reference" if api else ""
                entries = (
                    front_matter(page, base, entries, workdir, suffix) + entries
                )
                # the footers: none on the title page
                titles: list[str | None] = []
                for entry in entries:
                    name = None if entry.rel == "_title" else entry.title
                    titles += [name] * entry.n_pages
                n = print_html(page, footers(titles), workdir / FOOTERS)
                if n != len(titles):
                    problems.append(
                        f"footers: {n} pages printed for {len(titles)}"
                    )
            browser.close()
    finally:
        server.shutdown()
    return entries, base, problems


def merge(
    entries: list[Entry], html: Path, base: str, out: Path
) -> tuple[int, Counter]:
    """Merge the printed pages into ``out`` with an outline and working links;
    return its number of pages and how many links of each kind it holds.

    ``base`` is the URL the pages were served from (their links start with
    it)."""
    from pypdf import PdfReader, PdfWriter
    from pypdf.generic import (
        ArrayObject,
        DictionaryObject,
        Fit,
        FloatObject,
        NameObject,
        NullObject,
        NumberObject,
        TextStringObject,
    )

    writer = PdfWriter()
    overlay = PdfReader(entries[0].pdf.parent / FOOTERS) if entries else None
    first: dict[str, int] = {}  # page of the book -> its first PDF page
    #: (page of the book, id) -> (PDF page index, left, top)
    dests: dict[tuple[str, str], tuple[int, float, float]] = {}
    links = []  # (PDF page index, annotation of the printed page, its page)
    kinds: Counter = Counter()
    for entry in entries:
        reader = PdfReader(entry.pdf)
        offset = len(writer.pages)
        first[entry.rel] = offset
        number = {}
        for i, page in enumerate(reader.pages):
            added = writer.add_page(page, excluded_keys=("/Annots",))
            if overlay is not None:  # the footer: title and page number
                added.merge_page(overlay.pages[offset + i])
                # merging leaves the page's content uncompressed (four times
                # the file's size)
                added.compress_content_streams()
            number[page.indirect_reference.idnum] = offset + i
            for annot in page.get("/Annots") or []:
                links.append((offset + i, annot.get_object(), entry.rel))
        named = reader.trailer["/Root"].get("/Dests")
        for name, dest in (named.get_object() if named else {}).items():
            dest = dest.get_object()
            if isinstance(dest, DictionaryObject):
                dest = dest["/D"]
            ref = dest[0]
            if getattr(ref, "idnum", None) not in number:
                continue
            left = float(dest[2]) if len(dest) > 2 and dest[2] else 0.0
            top = float(dest[3]) if len(dest) > 3 and dest[3] else 0.0
            dests[(entry.rel, name.removeprefix("/"))] = (
                number[ref.idnum],
                left,
                top,
            )

    pdf_dir = out.resolve().parent
    try:
        site_dir = pdf_dir.relative_to(html.resolve()).as_posix()
    except ValueError:
        site_dir = None  # the PDF is not in the site: no relative links

    def goto(index: int, left: float | None = None, top: float | None = None):
        return ArrayObject(
            [
                writer.pages[index].indirect_reference,
                NameObject("/XYZ"),
                NullObject() if left is None else FloatObject(left),
                NullObject() if top is None else FloatObject(top),
                NullObject(),
            ]
        )

    def annotate(index: int, annot) -> None:
        page = writer.pages[index]
        if "/Annots" not in page:
            page[NameObject("/Annots")] = ArrayObject()
        page["/Annots"].append(writer._add_object(annot))

    for index, annot, rel in links:
        if annot.get("/Subtype") != "/Link":  # Chromium prints none
            annotate(index, annot.clone(writer))
            continue
        action = annot.get("/A")
        action = action.get_object() if action is not None else None
        target = None  # (page of the book, id) or None
        uri = None  # a link that stays a URI
        if "/Dest" in annot:  # a link inside the printed page
            target = (rel, str(annot["/Dest"]).removeprefix("/"))
        elif action is not None and action.get("/S") == "/URI":
            url = str(action["/URI"])
            local = local_target(url, base)
            if local is None:
                uri = url  # the web
            elif local[0] in first:
                target = local
            elif site_dir is not None:  # another file of the site
                path = posixpath.relpath(local[0], site_dir)
                uri = path + (f"#{local[1]}" if local[1] else "")
        if target is None and uri is None:
            kinds["dropped"] += 1  # nowhere to go offline
            continue
        link = DictionaryObject(
            {
                NameObject("/Type"): NameObject("/Annot"),
                NameObject("/Subtype"): NameObject("/Link"),
                NameObject("/Rect"): ArrayObject(
                    [FloatObject(float(x)) for x in annot["/Rect"]]
                ),
                NameObject("/Border"): ArrayObject(
                    [NumberObject(0), NumberObject(0), NumberObject(0)]
                ),
            }
        )
        if uri is not None:
            kinds["web" if "://" in uri else "site"] += 1
            link[NameObject("/A")] = DictionaryObject(
                {
                    NameObject("/S"): NameObject("/URI"),
                    NameObject("/URI"): TextStringObject(uri),
                }
            )
        elif target in dests:
            kinds["in the book"] += 1
            link[NameObject("/Dest")] = goto(*dests[target])
        else:  # the page itself, or an id without a place on paper
            kinds["in the book (to a page's start)"] += 1
            link[NameObject("/Dest")] = goto(first[target[0]])
        annotate(index, link)

    # The outline: parts, their pages, each page's sections.
    part_item, part_name, chapter_item = None, None, None
    for entry in entries:
        start = first[entry.rel]
        if entry.front:
            if entry.rel == "_contents":
                writer.add_outline_item(title=entry.title, page_number=start)
            continue
        if entry.part != part_name:
            part_name, chapter_item = entry.part, None
            part_item = (
                writer.add_outline_item(title=entry.part, page_number=start)
                if entry.part
                else None
            )
        # a section page under its chapter, a chapter under its part
        parent = part_item
        if entry.level > 1 and chapter_item is not None:
            parent = chapter_item
        item = writer.add_outline_item(
            title=entry.title,
            page_number=start,
            parent=parent,
            is_open=False,
        )
        if entry.level <= 1:
            chapter_item = item
        for section_id, title in entry.sections:
            where = dests.get((entry.rel, section_id))
            if where is None:
                continue
            index, left, top = where
            writer.add_outline_item(
                title=title,
                page_number=index,
                parent=item,
                fit=Fit.xyz(left=left, top=top),
            )
    writer.page_mode = "/UseOutlines"
    if entries:
        writer.add_metadata(
            {"/Title": entries[0].title, "/Creator": "tools/book_pdf.py"}
        )
    tmp = out.with_name(out.name + ".part")
    with tmp.open("wb") as handle:
        writer.write(handle)
    os.replace(tmp, out)
    return len(writer.pages), kinds


@dataclass
class Result:
    """What ``build`` did: the pages of the book (in order), the problems
    (none when the PDF was written), its number of pages and its links."""

    entries: list[Entry]
    problems: list[str]
    pdf_pages: int = 0
    links: Counter = field(default_factory=Counter)


def build(html: Path, out: Path, jobs: int = JOBS, api: bool = False) -> Result:
    """Print the book in ``html`` to ``out``, ``jobs`` pages at a time (with
    ``api``, its API reference). Nothing is written when a page has a
    problem (and a stale ``out`` is removed)."""
    html = html.resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    workdir = Path(tempfile.mkdtemp(prefix="book-pdf-"))
    try:
        entries, base, problems = print_pages(html, workdir, jobs, api)
        if problems:
            out.unlink(missing_ok=True)
            return Result(entries, problems)
        pdf_pages, links = merge(entries, html, base, out)
        return Result(entries, [], pdf_pages, links)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html", type=Path, help="the rendered HTML book")
    parser.add_argument(
        "out", nargs="?", type=Path, help=f"default: HTML/{BOOK_PDF}"
    )
    parser.add_argument(
        "--api",
        action="store_true",
        help=f"print the API reference alone (default out: HTML/{API_PDF})",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=JOBS,
        help=f"pages printed at once (default {JOBS})",
    )
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(
            f"book PDF SKIPPED: no Chromium at {CHROMIUM} "
            "(apt-get install chromium, or set $CHROMIUM)"
        )
        return 2
    out = args.out or args.html / (API_PDF if args.api else BOOK_PDF)
    start = time.perf_counter()
    result = build(args.html, out, args.jobs, args.api)
    for problem in result.problems:
        print("FAIL", problem)
    seconds = time.perf_counter() - start
    if result.problems:
        print(
            f"book PDF FAILED in {seconds:.1f} s "
            f"({len(result.problems)} problems; no PDF written)"
        )
        return 1
    stranded = [f"{e.rel}: {h}" for e in result.entries for h in e.stranded]
    print(
        f"headings and dropdown titles at the foot of a page: {len(stranded)}"
    )
    for line in stranded:
        print("  " + line)
    size = out.stat().st_size / 2**20
    links = ", ".join(f"{n} {kind}" for kind, n in result.links.most_common())
    print(
        f"book PDF: {out} ({sum(not e.front for e in result.entries)} "
        "pages of the book, "
        f"{result.pdf_pages} PDF pages, {size:.1f} MiB; links: "
        f"{links or 'none'}) in {seconds:.1f} s ({args.jobs} at a time)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
