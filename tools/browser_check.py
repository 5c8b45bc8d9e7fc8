"""Open every page of the built HTML book in headless Chromium, as a reader
would.

Usage: python tools/browser_check.py [HTML_DIR] [--search-word WORD]

HTML_DIR defaults to the FAST render, _build/fast/_build/html. The book is
served by a local http.server on 127.0.0.1 (search needs http://, file:// breaks
it) and every page is loaded in Debian's Chromium (/usr/bin/chromium, or
$CHROMIUM) driven by Playwright. Checks:

- no JavaScript error on any page: uncaught exceptions and console errors both
  count;
- no request leaves the machine: the book serves everything itself, MathJax
  included (_static/mathjax, see tools/book_html_fixes.py), so every request
  that does not go to 127.0.0.1 is aborted and reported as a failure;
- the formulas are typeset: on each page with math the check waits for
  MathJax (``MathJax.startup.promise``) and fails if MathJax did not start, if
  a formula shows a MathJax error (``mjx-merror``, "Math input error", an
  undefined macro shown in red), or if the page's text still holds raw TeX
  (``$``, ``\\frac``, ``^{``, ``\\(``...) outside code (``pre``, ``code``,
  code cells and their outputs), naming the snippet: math that MyST did not
  parse reaches the reader as TeX source;
- no inline formula sticks out of its column (the content box of the block
  holding it) by more than a few pixels at a 1280 px wide window: MathJax
  does not break inline math, so a long one runs past the text;
- no display formula is wider than its column at 1280 px either: the theme
  lets it scroll, but a reader then sees it clipped, often where the next
  sentence refers to its right-hand side (break it over lines with
  ``aligned`` or ``split``);
- no MyST role left inside a formula: ``{glue`` or ``{cite`` in the TeX of a
  typeset formula is a role written inside ``$...$``, which MathJax sets as
  letters ("glue : text") instead of the glued number or the citation;
- every table that pandas' Styler wrote (``<table id="T_...">``) has cell
  padding: without it the numbers of neighbouring columns run together
  ("10000.10.01eq5"); the book's stylesheet gives them padding;
- no output and no table is wider than its column: a text output (``pre``
  in a cell's output) whose longest line needs horizontal scrolling, or a
  table (an output's or the prose's) wider than the box that holds it, is
  named with its widest line or first row (a reader on a laptop would have
  to scroll sideways; print narrower or make a small table). The window is
  1280 px wide, narrower than the 1400 px of a common laptop screen, so the
  column is never wider at 1400 px; outputs collapsed behind a button
  ("show output") are measured too, opened;
- no page scrolls sideways on a phone: each page is laid out again at
  390 px wide (an iPhone's 390 x 844) and fails if the page as a whole is
  wider than the window (an unbreakable inline code name, a wide figure),
  naming the element that sticks out (a table or formula that scrolls in its
  own box is fine there);
- no formula or table is cut off on a phone, nor scrolls there without a
  cue: at 390 px one wider than the box holding it must sit in a box that
  scrolls sideways and shows it (the stylesheet's edge shadows);
- every table's caption stays in view on a phone: at 390 px it lies within
  the window and its text is not clipped, as the page opens and with the
  table's box scrolled to its right end (a wide table's caption scrolled
  away with it, issue 40);
- on a phone, every table shows at least half of its columns whole as the
  page opens, or is stacked: at 390 px a table whose box shows fewer than
  half of its columns (at the box's left end) fails unless its body rows
  are laid out as blocks (the script's dppca-stacked), it fits its box, and
  each of its cells under a header shows that header as a label (a typeset
  copy when the header holds a formula);
- on a phone, every figure whose smallest text is below
  ``MIN_PHONE_FIGURE_TEXT_PT`` (8 pt) at 390 px is a link to its own file,
  which the reader can open alone and zoom;
- every image has a non-zero natural width (it was found and decoded);
- every figure's smallest text is at least ``MIN_FIGURE_TEXT_PT`` (9 pt) as
  the page shows it at 1280 px: the smallest text recorded in the figure's
  SVG by the book's figure formatter, times the scale at which the page
  draws the figure (a figure wider than the column is scaled down);
- every local request succeeds (no 404 for a stylesheet, script or figure);
- every link to a page of the book resolves: the file exists and, for a
  #fragment, the page has an element with that id (cross-references to theorems,
  equations, exercises, sections);
- one search box: no page shows more than one search field (an input, or the
  theme's button drawn as a field), at 1280 px nor at 390 px: the theme
  stack put one in a header bar and one in the sidebar (issue 40);
- the search page finds a word of chapter 4 and lists chapter 4 among the
  results;
- the search ranks a page whose title holds the query first: "Wishart" lists
  chapter 3 ("Laplace and Wishart input perturbation") first (Sphinx alone
  listed it third, after pages with only a section on Wishart);
- the search's snippets are text: no snippet of the results for
  "sensitivity" holds TeX (``\\(``, ``\\[``, ``$``), and there is a snippet
  to look at (tools/static/dppca-search.js takes them from the article
  without display formulas, code cells and outputs), and no snippet shows
  "…" where a simple inline formula stood (``is_simple_tex``): the script
  writes each inline formula as text read from its TeX ("(ε, δ)", "ℓ₁");
- the keyboard shortcut of the search (Ctrl+K) still puts the cursor in a
  search field, on chapter 3's page.

It also reports each page's height in screens (of the 800 px high window
at 1280 px), the longest first: a measure of how long a chapter reads. The
height is measured twice: as the page opens, with its toggles (hidden code,
collapsed outputs, exercise solutions) closed, which is the reading path, and
with every toggle open. A chapter whose reading path is longer than
``MAX_SCREENS`` fails.

Exits 0 when every check passes, 1 otherwise (each failure printed), 2 without
Chromium.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import re
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_HTML = ROOT / "_build" / "fast" / "_build" / "html"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
#: A word of chapter 4 that the search must find there.
SEARCH_WORD = "Bingham"
SEARCH_TARGET = "chapters/04-exponential-mechanism.html"
#: A word in one chapter's title, and that chapter: the search must list it
#: first (other pages have a section on it, or mention it in a title further
#: down). The page also takes the keyboard shortcut's check.
RANK_WORD = "Wishart"
RANK_TARGET = "chapters/03-laplace-and-wishart.html"
#: A word found on many pages, most near formulas: the results' snippets must
#: not show TeX.
SNIPPET_WORD = "sensitivity"
#: TeX in a snippet: an inline or display formula's delimiter, or a dollar.
SNIPPET_TEX = re.compile(r"\\[(\[]|\$")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 (the base class's name)
        pass


def serve(directory: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    """Serve ``directory`` on a free loopback port, in a daemon thread."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


def book_pages(html: Path) -> list[str]:
    """Every HTML page of the book, relative to ``html`` (theme assets
    excluded)."""
    return sorted(
        p.relative_to(html).as_posix()
        for p in html.rglob("*.html")
        if "_static" not in p.relative_to(html).parts
    )


def is_local(url: str, base: str) -> bool:
    return url.startswith(base) or url.startswith(("data:", "blob:", "about:"))


#: The reader's window: a common laptop's. Inline formulas are measured at this
#: width (sphinx-book-theme's article column is then about 650 px wide).
VIEWPORT = {"width": 1280, "height": 800}
#: Pixels an inline formula may stick out of its column (rounding, italic
#: overhang).
OVERFLOW_TOLERANCE = 4
#: Pixels a text output or a table may exceed its column by; also a display
#: formula (its content against its box).
WIDTH_TOLERANCE = 2
#: A phone's window (an iPhone 12 to 15): the page must not scroll sideways.
PHONE = {"width": 390, "height": 844}

#: The longest reading path a chapter may have, in screens of ``VIEWPORT``
#: (a lecture of QuantEcon's reads in 10 to 15; the book's pages in 7 to 16):
#: a page of ``chapters/`` whose height with its toggles closed exceeds it
#: fails the check.
MAX_SCREENS = 18
#: Cell padding (left + right, px) below which a Styler table's cells run
#: together.
MIN_CELL_PADDING = 4

#: The smallest text a figure may show at reading size (1280 px window), in
#: CSS points: its smallest text (recorded in the SVG by the book's figure
#: formatter, dppca.book.plotting.figure_svg) times the scale at which the
#: page shows it.
MIN_FIGURE_TEXT_PT = 9.0

#: Each figure of the book (an SVG under _images/) on the page, as shown:
#: [file, smallest text in pt at natural size or null, natural width in pt or
#: null, shown width in px, whether the image is a link to its own file].
#: Figures in closed toggles are not measured.
FIGURE_TEXT = r"""async () => {
    const out = [];
    for (const img of document.querySelectorAll('img')) {
        const src = img.currentSrc || img.src;
        if (!/\/_images\/[^/]+\.svg([?#]|$)/.test(src)) continue;
        const shown = img.getBoundingClientRect().width;
        if (!shown) continue;
        const svg = await (await fetch(src)).text();
        const small = svg.match(/dppca:smallest-text-pt=([0-9.eE+-]+)/);
        const width = svg.match(/<svg[^>]*\swidth="([0-9.]+)pt"/);
        const a = img.closest('a[href]');
        const path = u => new URL(u, location.href).pathname;
        out.push([src.split('/').pop(), small ? parseFloat(small[1]) : null,
                  width ? parseFloat(width[1]) : null, shown,
                  !!a && path(a.href) === path(src)]);
    }
    return out;
}"""


def figure_text_problems(figures) -> list[str]:
    """The figures whose smallest text a reader sees below
    :data:`MIN_FIGURE_TEXT_PT` (or whose size cannot be told)."""
    problems = []
    for name, smallest, width_pt, shown, *_ in figures:
        if smallest is None or width_pt is None:
            problems.append(
                f"figure {name} carries no record of its smallest text "
                "(draw it with dppca.book.plotting.use_book_style)"
            )
            continue
        # shown at `shown` CSS px for `width_pt` pt = width_pt * 4/3 px
        scale = shown / (width_pt * 4 / 3)
        seen = smallest * scale
        if seen < MIN_FIGURE_TEXT_PT - 0.05:
            problems.append(
                f"figure {name}: smallest text {seen:.1f} pt at reading size "
                f"(drawn at {smallest:g} pt, shown at {scale:.2f}x its "
                f"natural width); at least {MIN_FIGURE_TEXT_PT:g} pt: draw "
                "it at the column's width (6.5 in) or as small multiples"
            )
    return problems


#: Raw TeX in a page's text: a dollar sign, a control word or symbol, a
#: braced superscript or subscript.
RAW_TEX = r"\$|\\[A-Za-z]+|\\[()\[\]{}]|[\^_]\{"
#: Where TeX-looking text is legitimate: code, code cells and their outputs
#: (but not the caption and cells of a table in an output, INSPECT), and the
#: typeset formulas themselves.
NOT_PROSE = (
    "script, style, noscript, template, textarea, pre, code, kbd, samp, "
    ".highlight, .cell_input, .cell_output, .output, mjx-container"
)

#: Waits (at most 30 s) until MathJax has typeset a page that loads it; says
#: "ok", "none" (no MathJax on the page) or what went wrong.
WAIT_FOR_MATHJAX = """async () => {
    const script = [...document.scripts].find(
        s => /mathjax/i.test(s.getAttribute('src') || ''));
    if (!script) return 'none';
    // the page's load event waits for deferred and async scripts: MathJax
    // has started by now, or never will (a grace of 5 s all the same)
    const sleep = ms => new Promise(r => setTimeout(r, ms));
    const start = Date.now() + 5000, deadline = Date.now() + 30000;
    while (!(window.MathJax && MathJax.startup && MathJax.startup.promise)) {
        if (Date.now() > start) return 'MathJax did not start';
        await sleep(50);
    }
    const timeout = sleep(deadline - Date.now()).then(() => 'timeout');
    const done = MathJax.startup.promise.then(() => 'ok',
                                              e => 'failed: ' + e);
    const result = await Promise.race([done, timeout]);
    if (result !== 'ok') return 'MathJax typesetting ' + result;
    await document.fonts.ready;
    return 'ok';
}"""

#: The book's scroll cues (tools/static/dppca-scroll-cue.js) mark the boxes
#: that scroll sideways once MathJax is done: measure after that.
WAIT_FOR_SCROLL_CUES = """async () => {
    const script = [...document.scripts].find(
        s => /dppca-scroll-cue/.test(s.getAttribute('src') || ''));
    if (!script) return 'ok';
    const deadline = Date.now() + 10000;
    while (document.documentElement.dataset.dppcaScrollCues !== 'ready') {
        if (Date.now() > deadline) return 'the scroll cues never got ready';
        await new Promise(r => setTimeout(r, 50));
    }
    return 'ok';
}"""

#: What a reader sees of the page: ids, links and images for the link checks,
#: and for the math: raw TeX left in the text, MathJax errors, inline formulas
#: wider than their column.
INSPECT = """([rawTex, notProse, tolerance, widthTolerance, minPadding]) => {
    const items = (window.MathJax && MathJax.startup && MathJax.startup.document
                   && MathJax.startup.document.math) || [];
    const tex = new Map();
    for (const item of items) {
        if (item.typesetRoot) tex.set(item.typesetRoot, item.math);
    }
    const source = c => (tex.get(c) || c.getAttribute('aria-label') || '?')
        .replace(/\\s+/g, ' ').trim();
    const clip = (t, n) => t.length > n ? t.slice(0, n - 1) + '…' : t;
    // the text of an element as a reader reads it: formulas as [math],
    // code as [code]
    const readable = el => {
        let out = '';
        for (const node of el.childNodes) {
            if (node.nodeType === Node.TEXT_NODE) out += node.data;
            else if (node.nodeType !== Node.ELEMENT_NODE) continue;
            else if (node.matches('mjx-container')) out += '[math]';
            else if (node.matches(notProse)) out += '[code]';
            else out += readable(node);
        }
        return out;
    };
    const pattern = new RegExp(rawTex);
    const blocks = 'p, li, dt, dd, h1, h2, h3, h4, h5, h6, td, th, caption, '
        + 'figcaption, summary, a, div, section, article, body';
    const seen = new Set(), rawTexHits = [];
    const walker = document.createTreeWalker(document.body,
                                             NodeFilter.SHOW_TEXT);
    for (let node; (node = walker.nextNode()); ) {
        const parent = node.parentElement;
        // a table a chapter computes is a cell output, but its caption and
        // cells are read as prose: TeX left there is a fault too
        const outputTable = parent && parent.closest('.cell_output table')
            && !parent.closest(notProse.replace(
                /\\s*\\.cell_output,\\s*\\.output,/, ''));
        if (!pattern.test(node.data) || !parent
            || (parent.closest(notProse) && !outputTable))
            continue;
        const block = parent.closest(blocks);
        if (seen.has(block)) continue;
        seen.add(block);
        const text = readable(block).replace(/\\s+/g, ' ').trim();
        const at = Math.max(0, text.search(pattern));
        const from = Math.max(0, at - 60);
        rawTexHits.push((from > 0 ? '…' : '') + clip(text.slice(from), 160));
    }
    const errors = [...document.querySelectorAll('mjx-merror')].map(e => {
        const c = e.closest('mjx-container');
        return [e.getAttribute('data-mjx-error') || e.textContent,
                c ? clip(source(c), 120) : '?'];
    });
    // an undefined macro is shown in red, not as an error (MathJax's
    // noundefined extension)
    for (const e of document.querySelectorAll(
            'mjx-assistive-mml mtext[mathcolor="red"]')) {
        if (!e.textContent.startsWith('\\\\')) continue;
        const c = e.closest('mjx-container');
        errors.push(['undefined control sequence ' + e.textContent,
                     c ? clip(source(c), 120) : '?']);
    }
    if (document.body.innerText.includes('Math input error')
        && errors.length === 0)
        errors.push(['Math input error', '?']);
    // MyST roles written inside $...$ reach MathJax as TeX
    const roles = [];
    for (const [root, math] of tex) {
        if (/\\{(glue|cite)/.test(math)) roles.push(clip(math.replace(/\\s+/g,
                                                          ' ').trim(), 120));
    }
    // display formulas wider than their box (it scrolls: the reader sees
    // the formula clipped)
    const wideDisplay = [];
    for (const c of document.querySelectorAll(
            'mjx-container[display="true"]')) {
        if (!c.getClientRects().length) continue;
        const over = c.scrollWidth - c.clientWidth;
        if (over > widthTolerance)
            wideDisplay.push([clip(source(c), 120), Math.round(over),
                              Math.round(c.clientWidth)]);
    }
    // pandas Styler tables (id T_...) whose cells have no padding
    const unpadded = [];
    for (const t of document.querySelectorAll('table[id^="T_"]')) {
        const cell = t.querySelector('td, th');
        if (!cell) continue;
        const st = getComputedStyle(cell);
        const pad = parseFloat(st.paddingLeft) + parseFloat(st.paddingRight);
        if (pad < minPadding) {
            const row = t.querySelector('tbody tr') || t.querySelector('tr');
            unpadded.push([clip((row ? row.innerText : t.innerText)
                .replace(/\\s+/g, ' ').trim(), 90), pad]);
        }
    }
    const overflows = [];
    let inline = 0;
    for (const c of document.querySelectorAll('mjx-container')) {
        if (c.getAttribute('display') === 'true') continue;
        inline += 1;
        let block = c.parentElement;
        while (block && getComputedStyle(block).display.startsWith('inline'))
            block = block.parentElement;
        if (!block) continue;
        const r = c.getBoundingClientRect(), b = block.getBoundingClientRect();
        const st = getComputedStyle(block);
        const left = b.left + parseFloat(st.borderLeftWidth)
            + parseFloat(st.paddingLeft);
        const right = b.right - parseFloat(st.borderRightWidth)
            - parseFloat(st.paddingRight);
        const out = Math.max(r.right - right, left - r.left);
        if (r.width > 0 && out > tolerance)
            overflows.push([clip(source(c), 120), Math.round(out),
                            Math.round(r.width), Math.round(right - left)]);
    }
    // outputs and tables wider than their column; collapsed outputs are
    // opened first (a <details> toggle), so what a click shows is measured
    // the reading path's height: what a reader scrolls through, with the
    // toggles (hidden code, collapsed outputs, solutions) closed
    const readingHeight = document.documentElement.scrollHeight;
    for (const d of document.querySelectorAll('details')) d.open = true;
    const wide = [];
    for (const el of document.querySelectorAll(
            '.cell_output pre, .output pre, table')) {
        if (el.closest('mjx-container') || el.closest('.highlight-python, '
                + '.highlight-ipython3, .cell_input')) continue;
        if (!el.getClientRects().length) continue;  // not displayed
        let over, what;
        if (el.tagName === 'PRE') {
            over = el.scrollWidth - el.clientWidth;
            const lines = el.textContent.split('\\n');
            what = lines.reduce((a, b) => b.length > a.length ? b : a, '');
            what = 'output line of ' + what.length + ' characters: '
                + clip(what.trim(), 90);
        } else {
            const box = el.parentElement.closest(
                '.pst-scrollable-table-container, .cell_output, .output, '
                + 'article, main, body');
            const st = getComputedStyle(box);
            const inner = box.clientWidth - parseFloat(st.paddingLeft)
                - parseFloat(st.paddingRight);
            over = el.getBoundingClientRect().width - inner;
            const row = el.querySelector('tr');
            what = 'table: ' + clip((row ? row.innerText : el.innerText)
                .replace(/\\s+/g, ' ').trim(), 90);
        }
        if (over > widthTolerance) wide.push([what, Math.round(over)]);
    }
    return {
        wide,
        ids: [...document.querySelectorAll('[id]')].map(e => e.id),
        links: [...document.querySelectorAll('a[href]')].map(a => a.href),
        images: [...document.images].map(i => [i.currentSrc || i.src,
                                               i.complete, i.naturalWidth]),
        formulas: document.querySelectorAll('mjx-container').length,
        inline, rawTex: rawTexHits, errors, overflows, roles, wideDisplay,
        unpadded,
        height: readingHeight,
        openHeight: document.documentElement.scrollHeight,
    };
}"""

#: At a phone's width: the formulas and tables a reader cannot see whole.
#: A formula or table wider than the box that holds it must sit in a box that
#: scrolls sideways *and* shows that it does (the stylesheet's edge shadows, a
#: background gradient): otherwise it is cut off where the box clips it, or it
#: scrolls with nothing telling the reader there is more. Each entry:
#: [what, snippet, px hidden, "cut off" | "scrolls with no cue"].
PHONE_CUTS = """() => {
    const out = [];
    const root = document.querySelector('.bd-article') || document.body;
    const style = el => getComputedStyle(el);
    const scrolls = el => ['auto', 'scroll'].includes(style(el).overflowX);
    // the cue: a fade of the content at the edge where more is hidden (a
    // gradient mask, dppca-scroll-cue.js) or a painted edge shadow
    const cue = el => [style(el).maskImage, style(el).webkitMaskImage,
                       style(el).backgroundImage]
        .some(v => (v || '').includes('gradient'));
    const boxOf = el => {
        for (let a = el.parentElement; a && a !== document.body
             && a !== document.documentElement; a = a.parentElement) {
            const s = style(a);
            if (s.display === 'inline' || s.display === 'contents') continue;
            if (s.overflowX !== 'visible') return a;
        }
        return null;
    };
    const hidden = el => el.closest('details:not([open])')
        || el.getClientRects().length === 0;
    const text = el => (el.getAttribute('aria-label')
        || el.textContent || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
    for (const el of root.querySelectorAll('mjx-container, table')) {
        if (hidden(el)) continue;
        const what = el.tagName === 'TABLE' ? 'table'
            : el.getAttribute('display') === 'true' ? 'display formula'
            : 'inline formula';
        // a formula that scrolls in its own box
        if (el.tagName !== 'TABLE' && scrolls(el)
                && el.scrollWidth > el.clientWidth + 1) {
            if (!cue(el)) out.push([what, text(el),
                el.scrollWidth - el.clientWidth, 'scrolls with no cue']);
            continue;
        }
        const box = boxOf(el);
        if (!box) continue;  // the page scrolls: PHONE_SCROLL names it
        const r = el.getBoundingClientRect(), b = box.getBoundingClientRect();
        const hiddenPx = Math.round(r.right - b.right);
        if (hiddenPx <= 1) continue;
        if (scrolls(box) && cue(box)) continue;
        out.push([what, text(el), hiddenPx,
                  scrolls(box) ? 'scrolls with no cue' : 'cut off']);
        if (out.length >= 20) break;
    }
    return out;
}"""

#: At a phone's width: how far the page as a whole is wider than the window,
#: and the elements that stick out (those not inside a box that scrolls or
#: clips, the innermost first).
PHONE_SCROLL = """() => {
    const root = document.scrollingElement || document.documentElement;
    const width = root.clientWidth;
    const over = root.scrollWidth - width;
    if (over <= 1) return [over, []];
    const clipped = el => {
        for (let a = el.parentElement; a && a !== document.body
             && a !== document.documentElement; a = a.parentElement) {
            if (getComputedStyle(a).overflowX !== 'visible') return true;
        }
        return false;
    };
    const out = [], named = new Set();
    for (const leaf of document.body.querySelectorAll('*')) {
        const r0 = leaf.getBoundingClientRect();
        if (r0.right <= width + 1 || r0.width === 0 || clipped(leaf)) continue;
        // innermost: none of its children sticks out (a formula as a whole)
        if ([...leaf.children].some(
                ch => ch.getBoundingClientRect().right > width + 1)) continue;
        const el = leaf.closest('mjx-container') || leaf;
        if (named.has(el)) continue;
        named.add(el);
        const r = el.getBoundingClientRect();
        const text = (el.innerText || el.textContent || '')
            .replace(/\\s+/g, ' ').trim();
        out.push(el.tagName.toLowerCase()
                 + (el.className && typeof el.className === 'string'
                    ? '.' + el.className.split(' ')[0] : '')
                 + ' ' + JSON.stringify(text.slice(0, 60))
                 + ' (' + Math.round(Math.max(r.right, r0.right) - width)
                 + ' px out)');
        if (out.length >= 3) break;
    }
    return [over, out];
}"""


#: The search fields a reader sees on the page (an input, or the theme's
#: button drawn as a field; a closed dialog's field is not seen), each named
#: by where it sits: [tag.class, the nearest region with an id or a bd-
#: class].
SEARCH_BOXES = """() => [...document.querySelectorAll(
        'input[type="search"], input[name="q"], .search-button-field')]
    .filter(el => {
        const r = el.getBoundingClientRect();
        return r.width > 0 && r.height > 0
            && getComputedStyle(el).visibility !== 'hidden'
            && !el.closest('dialog:not([open])');
    })
    .map(el => {
        const region = el.parentElement.closest(
            '[id], [class*="bd-"], [class*="sidebar"], header, article');
        const name = e => {
            const classes = typeof e.className === 'string'
                ? e.className.split(' ').filter(c => c) : [];
            const cls = classes.find(c => /search/.test(c)) || classes[0];
            return e.tagName.toLowerCase() + (cls ? '.' + cls : '')
                + (e.id ? '#' + e.id : '');
        };
        return name(el) + ' in ' + (region ? name(region) : 'body');
    })"""


def search_box_problems(boxes: list[str], width: int) -> list[str]:
    """More than one search box on a page, at a window ``width`` px wide."""
    if len(boxes) <= 1:
        return []
    return [
        f"{len(boxes)} search boxes at {width} px (one is enough): "
        + "; ".join(boxes)
    ]


#: At a phone's width: every table's caption a reader can read whole. A
#: caption (the table's <caption>, or the block its aria-labelledby names)
#: must lie within the window (left >= 0, right <= width + 1) and its text
#: must not be clipped by a box that scrolls or clips, both as the page opens
#: and with the table's box scrolled to its right end (a caption that scrolled
#: with a wide table ran past the screen's edge, issue 40). Each entry:
#: [caption's first words, how it fails].
PHONE_CAPTIONS = """() => {
    const out = [];
    const width = document.documentElement.clientWidth;
    const root = document.querySelector('.bd-article') || document.body;
    const style = el => getComputedStyle(el);
    const captionOf = t => {
        const c = t.querySelector(':scope > caption');
        if (c) return c;
        const ids = (t.getAttribute('aria-labelledby') || '').split(/\\s+/);
        return ids.map(id => id && document.getElementById(id))
            .find(e => e) || null;
    };
    const scrollBox = el => {
        for (let a = el.parentElement; a && a !== document.body
             && a !== document.documentElement; a = a.parentElement) {
            if (['auto', 'scroll'].includes(style(a).overflowX)) return a;
        }
        return null;
    };
    // the part of the window a box shows: the window, cut by every
    // ancestor that clips or scrolls (its padding box)
    const visible = el => {
        let left = 0, right = width;
        for (let a = el.parentElement; a && a !== document.body
             && a !== document.documentElement; a = a.parentElement) {
            const s = style(a);
            if (s.overflowX === 'visible') continue;
            const b = a.getBoundingClientRect();
            left = Math.max(left, b.left + parseFloat(s.borderLeftWidth));
            right = Math.min(right, b.right - parseFloat(s.borderRightWidth));
        }
        return [left, right];
    };
    const measure = cap => {
        const r = cap.getBoundingClientRect();
        // the text as laid out: its words and its typeset formulas (not
        // MathJax's hidden MathML copy for screen readers, which a reader
        // never sees and whose box runs past the formula's)
        let inkLeft = Infinity, inkRight = -Infinity;
        const add = rect => {
            if (rect.width > 0) {
                inkLeft = Math.min(inkLeft, rect.left);
                inkRight = Math.max(inkRight, rect.right);
            }
        };
        for (const m of cap.querySelectorAll('mjx-container'))
            add(m.getBoundingClientRect());
        const words = document.createTreeWalker(cap, NodeFilter.SHOW_TEXT);
        for (let n; (n = words.nextNode()); ) {
            if (n.parentElement.closest('mjx-container')) continue;
            const range = document.createRange();
            range.selectNodeContents(n);
            for (const rect of range.getClientRects()) add(rect);
        }
        const ink = {left: inkLeft, right: inkRight,
                     width: Math.max(0, inkRight - inkLeft)};
        const [left, right] = visible(cap);
        const bad = [];
        if (r.left < -1 || r.right > width + 1)
            bad.push('caption box at ' + Math.round(r.left) + ' to '
                     + Math.round(r.right) + ' px in a window of '
                     + width + ' px');
        if (ink.width > 0 && (ink.left < left - 1 || ink.right > right + 1))
            bad.push('its text clipped (text at ' + Math.round(ink.left)
                     + ' to ' + Math.round(ink.right) + ' px, visible '
                     + Math.round(left) + ' to ' + Math.round(right) + ' px)');
        if (cap.scrollWidth > cap.clientWidth + 1
                && style(cap).overflowX !== 'visible')
            bad.push('its text clipped inside the caption');
        return bad;
    };
    for (const t of root.querySelectorAll('table')) {
        if (t.closest('details:not([open])') || !t.getClientRects().length)
            continue;
        const cap = captionOf(t);
        if (!cap || !cap.getClientRects().length) continue;
        const name = cap.textContent.replace(/\\s+/g, ' ').trim().slice(0, 60);
        let bad = measure(cap);
        const box = scrollBox(t);
        if (!bad.length && box && box.scrollWidth > box.clientWidth + 1) {
            const at = box.scrollLeft;
            box.scrollLeft = box.scrollWidth;  // the table's right end
            bad = measure(cap).map(b => b + ', with the table scrolled '
                                   + 'to its right end');
            box.scrollLeft = at;
        }
        if (bad.length) out.push([name, bad.join('; ')]);
        if (out.length >= 20) break;
    }
    return out;
}"""


#: At a phone's width: the tables a reader cannot take in as the page opens.
#: A table that is not stacked must show at least half of its columns whole
#: (counted on its row with the most cells, at its box's left end, within
#: the window and every box that clips it). A stacked table (its body rows
#: laid out as blocks, tools/static/dppca-scroll-cue.js) must fit its box, and
#: each of its cells that has a column header must show a label (an element
#: .dppca-cell-label that is drawn) holding a typeset formula when the header
#: does. Each entry: [caption or first row, what is wrong].
PHONE_TABLES = """() => {
    const out = [];
    const width = document.documentElement.clientWidth;
    const root = document.querySelector('.bd-article') || document.body;
    const style = el => getComputedStyle(el);
    const drawn = el => el.getClientRects().length > 0
        && el.getBoundingClientRect().width > 0;
    const blank = c => !c.textContent.trim()
        && !c.querySelector('mjx-container, img');
    const visible = el => {
        let right = width;
        for (let a = el.parentElement; a && a !== document.body
             && a !== document.documentElement; a = a.parentElement) {
            const s = style(a);
            if (s.overflowX === 'visible') continue;
            const b = a.getBoundingClientRect();
            // at the box's left end: as if it were not scrolled
            right = Math.min(right, b.left + a.clientLeft + a.clientWidth
                             - a.scrollLeft);
        }
        return right;
    };
    // the column of each cell of a list of rows (row and column spans)
    const columns = rows => {
        const taken = [], cols = new Map();
        rows.forEach((row, r) => {
            taken[r] = taken[r] || [];
            let c = 0;
            for (const cell of row.cells) {
                while (taken[r][c]) c++;
                for (let dr = 0; dr < Math.max(1, cell.rowSpan)
                     && r + dr < rows.length; dr++) {
                    taken[r + dr] = taken[r + dr] || [];
                    for (let dc = 0; dc < Math.max(1, cell.colSpan); dc++)
                        taken[r + dr][c + dc] = true;
                }
                cols.set(cell, [c, Math.max(1, cell.colSpan)]);
                c += Math.max(1, cell.colSpan);
            }
        });
        return cols;
    };
    for (const t of root.querySelectorAll('table')) {
        if (t.closest('details:not([open])') || !drawn(t)) continue;
        const cap = t.querySelector(':scope > caption');
        const first = t.querySelector('tr');
        const name = ((cap || first || t).textContent || '')
            .replace(/\\s+/g, ' ').trim().slice(0, 60);
        const body = [...t.tBodies].flatMap(b => [...b.rows]);
        const stacked = body.length > 0 && body.every(
            r => !drawn(r) || style(r).display !== 'table-row');
        if (stacked) {
            // wider than its box, or its content is (a formula as a whole,
            // not MathJax's hidden copy for screen readers, nor what
            // scrolls in a box of its own within the table)
            const right = visible(t);
            let over = t.getBoundingClientRect().right - right;
            const ownBox = el => {
                for (let a = el.parentElement; a && a !== t;
                     a = a.parentElement)
                    if (style(a).overflowX !== 'visible') return true;
                return false;
            };
            for (const el of t.querySelectorAll(
                    ':scope > :is(tbody, tfoot) *')) {
                if (el.parentElement.closest('mjx-container') || !drawn(el)
                        || ownBox(el)) continue;
                over = Math.max(over, el.getBoundingClientRect().right
                                - right);
            }
            if (over > 1) {
                out.push([name, 'stacked, but ' + Math.round(over)
                          + ' px wider than its box']);
                continue;
            }
            // header cells above each column
            const head = t.tHead ? [...t.tHead.rows] : [];
            const headCols = columns(head), heads = [];
            for (const [cell, [c, n]] of headCols) {
                if (blank(cell)) continue;
                for (let k = c; k < c + n; k++)
                    (heads[k] = heads[k] || []).push(cell);
            }
            const bodyCols = columns(body);
            let unlabelled = 0, noMath = 0, example = '';
            for (const [cell, [c]] of bodyCols) {
                if (!drawn(cell) || blank(cell) || !heads[c]) continue;
                const label = [...cell.querySelectorAll('.dppca-cell-label')]
                    .find(drawn);
                const text = label ? label.textContent.trim() : '';
                if (!text) {
                    unlabelled++;
                    example = example || heads[c].map(
                        h => h.textContent.trim()).join(' / ');
                } else if (heads[c].some(h => h.querySelector(
                        'mjx-container')) && ![...label.querySelectorAll(
                        'mjx-container')].some(drawn)) {
                    noMath++;
                }
            }
            if (unlabelled)
                out.push([name, 'stacked, but ' + unlabelled + ' cells '
                          + 'show no label (column ' + JSON.stringify(
                              example.slice(0, 40)) + ')']);
            if (noMath)
                out.push([name, 'stacked, but ' + noMath + ' labels lost '
                          + 'the formula of their header']);
            continue;
        }
        // the row with the most cells: the finest division of the columns
        // (a header cell over three columns is not three columns shown)
        let best = null;
        for (const row of t.rows)
            if (!best || row.cells.length > best.cells.length) best = row;
        const total = best ? [...best.cells].reduce(
            (a, c) => a + c.colSpan, 0) : 0;
        if (total < 2) continue;
        const right = visible(t);
        const shown = [...best.cells].filter(c => drawn(c)
            && c.getBoundingClientRect().right <= right + 1)
            .reduce((a, c) => a + c.colSpan, 0);
        if (2 * shown < total)
            out.push([name, 'shows ' + shown + ' of its ' + total
                      + ' columns as the page opens'
                      + (t.classList.contains('dppca-stacked')
                         ? ' (it has the class dppca-stacked, but its rows '
                           + 'are not laid out as blocks)' : '')]);
        if (out.length >= 20) break;
    }
    return out;
}"""


def table_view_problems(tables, width: int = PHONE["width"]) -> list[str]:
    """The tables a reader cannot take in at ``width`` px
    (:data:`PHONE_TABLES`)."""
    hints = {
        True: "stack it: tools/static/dppca-scroll-cue.js stacks a table "
        "much wider than its box",
        False: "a stacked table's blocks show each cell as its label and "
        "its value, within the column: tools/static/dppca-book.css",
    }
    return [
        f"table at {width} px {how} ({hints[how.startswith('shows')]}): "
        f"{name!r}"
        for name, how in tables
    ]


def caption_problems(captions, width: int = PHONE["width"]) -> list[str]:
    """The tables whose caption a reader cannot read whole at ``width`` px
    (:data:`PHONE_CAPTIONS`)."""
    return [
        f"table caption out of view at {width} px ({how}; keep it within "
        f"the visible width while the table scrolls): {name!r}"
        for name, how in captions
    ]


#: The smallest text a figure may show on a phone without a link to the
#: figure at full size, in CSS points (``MIN_FIGURE_TEXT_PT`` holds at
#: 1280 px; at 390 px a figure shrinks to the column).
MIN_PHONE_FIGURE_TEXT_PT = 8.0


def figure_link_problems(figures, width: int = PHONE["width"]) -> list[str]:
    """The figures whose smallest text a reader sees below
    :data:`MIN_PHONE_FIGURE_TEXT_PT` at ``width`` px (:data:`FIGURE_TEXT`)
    and that are not a link to the figure's file, which a phone opens alone
    and zooms. A figure without a record is reported by
    :func:`figure_text_problems`."""
    problems = []
    for name, smallest, width_pt, shown, linked in figures:
        if smallest is None or width_pt is None or linked:
            continue
        seen = smallest * shown / (width_pt * 4 / 3)
        if seen < MIN_PHONE_FIGURE_TEXT_PT - 0.05:
            problems.append(
                f"figure {name}: smallest text {seen:.1f} pt at {width} px "
                f"and no link to the figure at full size (at least "
                f"{MIN_PHONE_FIGURE_TEXT_PT:g} pt, or the image a link to "
                "its own file: tools/static/dppca-scroll-cue.js makes it one)"
            )
    return problems


def check_page(page, url: str, base: str):
    """Load one page; return (problems, info): ids, links, images and the
    number of formulas."""
    problems = []

    def on_console(msg):
        if msg.type != "error":
            return
        source = (msg.location or {}).get("url", "")
        if (
            source
            and not is_local(source, base)
            and "Failed to load resource" in msg.text
        ):
            return  # the remote request itself is reported (run's route)
        problems.append(f"console error: {msg.text} ({source or 'no url'})")

    def on_response(response):
        if is_local(response.url, base) and response.status >= 400:
            problems.append(f"HTTP {response.status} for {response.url}")

    def on_request_failed(request):
        if is_local(request.url, base):
            problems.append(
                f"request failed: {request.url} ({request.failure})"
            )

    page.on("console", on_console)
    page.on("pageerror", lambda err: problems.append(f"JS exception: {err}"))
    page.on("response", on_response)
    page.on("requestfailed", on_request_failed)
    try:
        page.goto(url, wait_until="load", timeout=30_000)
        mathjax = page.evaluate(WAIT_FOR_MATHJAX)
        if mathjax not in ("ok", "none"):
            problems.append(mathjax)
        cues = page.evaluate(WAIT_FOR_SCROLL_CUES)
        if cues != "ok":
            problems.append(cues)
        info = page.evaluate(
            INSPECT,
            [
                RAW_TEX,
                NOT_PROSE,
                OVERFLOW_TOLERANCE,
                WIDTH_TOLERANCE,
                MIN_CELL_PADDING,
            ],
        )
        info["figures"] = page.evaluate(FIGURE_TEXT)
        info["searchBoxes"] = page.evaluate(SEARCH_BOXES)
        # the same page on a phone: laid out again, not reloaded
        page.set_viewport_size(PHONE)
        page.evaluate(
            "() => new Promise(r => requestAnimationFrame("
            "() => requestAnimationFrame(r)))"
        )
        info["phone"] = page.evaluate(PHONE_SCROLL)
        info["phoneCuts"] = page.evaluate(PHONE_CUTS)
        info["phoneSearchBoxes"] = page.evaluate(SEARCH_BOXES)
        info["phoneCaptions"] = page.evaluate(PHONE_CAPTIONS)
        info["phoneTables"] = page.evaluate(PHONE_TABLES)
        info["phoneFigures"] = page.evaluate(FIGURE_TEXT)
    finally:
        page.set_viewport_size(VIEWPORT)
        page.remove_listener("console", on_console)
        page.remove_listener("response", on_response)
        page.remove_listener("requestfailed", on_request_failed)
    for snippet in info["rawTex"]:
        problems.append(f"raw TeX in the text: {snippet!r}")
    problems += search_box_problems(info["searchBoxes"], VIEWPORT["width"])
    problems += search_box_problems(info["phoneSearchBoxes"], PHONE["width"])
    for message, tex in info["errors"]:
        problems.append(f"MathJax error {message!r} in {tex!r}")
    for what, out in info["wide"]:
        problems.append(f"wider than the column by {out} px: {what}")
    for tex in info["roles"]:
        problems.append(
            f"MyST role inside math (write it outside $...$): {tex!r}"
        )
    for tex, out, column in info["wideDisplay"]:
        problems.append(
            f"display formula wider than its column by {out} px (column "
            f"{column} px; break it over lines): {tex!r}"
        )
    for row, pad in info["unpadded"]:
        problems.append(
            f"Styler table without cell padding ({pad:g} px): {row!r}"
        )
    over, culprits = info["phone"]
    if over > 1:
        problems.append(
            f"the page scrolls sideways by {round(over)} px at "
            f"{PHONE['width']} px wide: " + "; ".join(culprits or ["?"])
        )
    problems += figure_text_problems(info["figures"])
    problems += figure_link_problems(info["phoneFigures"])
    problems += caption_problems(info["phoneCaptions"])
    problems += table_view_problems(info["phoneTables"])
    for what, snippet, out, how in info["phoneCuts"]:
        problems.append(
            f"{what} {how} at {PHONE['width']} px ({out} px out of view; "
            f"let it scroll in a box with the edge cue): {snippet!r}"
        )
    for tex, out, width, column in info["overflows"]:
        problems.append(
            f"inline formula sticks out of its column by {out} px "
            f"(formula {width} px, column {column} px; make it display "
            f"math): {tex!r}"
        )
    return problems, info


def redirect_target(html: Path, rel: str) -> str | None:
    """The page a meta-refresh page (the book's index.html) sends to,
    relative to ``html``."""
    text = (html / rel).read_text(errors="replace")[:2000]
    match = re.search(r'http-equiv="Refresh" content="0; url=([^"]+)"', text)
    if match is None:
        return None
    return (Path(rel).parent / match.group(1)).as_posix().removeprefix("./")


def local_target(link: str, base: str) -> tuple[str, str] | None:
    """(page relative to the site root, fragment) for a link into the book
    served at ``base``, else None."""
    if not link.startswith(base):
        return None
    parts = urlsplit(link)
    rel = unquote(parts.path)[len(urlsplit(base).path) :]
    if rel == "" or rel.endswith("/"):
        rel += "index.html"
    return rel, unquote(parts.fragment)


#: Whether the search has finished and every result's snippet has arrived
#: (Sphinx fetches each result's page for it; a result with a description,
#: an object of the API, has none).
SEARCH_DONE = """() => {
    const status = document.querySelector('#search-results .search-summary');
    if (!status || !status.innerText.trim()) return false;
    return [...document.querySelectorAll('#search-results ul.search > li')]
        .every(li => li.querySelector(':scope > span')
                     || li.querySelector('p.context'));
}"""
#: The results, in order: [link as written, snippet or null].
SEARCH_RESULTS = """() => [...document.querySelectorAll(
        '#search-results ul.search > li')]
    .map(li => [li.querySelector('a').getAttribute('href'),
                li.querySelector('p.context')
                    ? li.querySelector('p.context').textContent : null])"""


def search_results(page, base: str, word: str):
    """Search ``word`` on search.html; return (results, problem): the results
    as [link, snippet or None] in the order shown, and what went wrong
    (None if the search finished and every snippet arrived)."""
    page.goto(f"{base}search.html?q={quote(word)}", wait_until="load")
    problem = None
    try:
        page.wait_for_function(SEARCH_DONE, timeout=30_000)
    except Exception:
        problem = (
            f"search for {word!r} did not finish with every snippet within 30 s"
        )
    return page.evaluate(SEARCH_RESULTS), problem


def search_finds(page, base: str, word: str, target: str) -> str | None:
    """None if search.html?q=word lists ``target``; else what went wrong."""
    page.goto(f"{base}search.html?q={quote(word)}", wait_until="load")
    selector = f"#search-results ul.search li a[href*='{target}']"
    try:
        page.wait_for_selector(selector, timeout=20_000)
    except Exception:
        hits = page.evaluate(
            "() => [...document.querySelectorAll('#search-results a')]"
            ".map(a => a.getAttribute('href'))"
        )
        return f"search for {word!r} did not list {target}; results: {hits}"
    return None


def search_ranks_first(page, base: str, word: str, target: str) -> list[str]:
    """The search for ``word`` must list ``target`` (a page whose title holds
    the word) first."""
    results, problem = search_results(page, base, word)
    first = [link.split("#")[0] for link, _ in results[:3]]
    if not first or first[0] != target:
        return [
            f"search ranking: {word!r} lists {first[0] if first else 'nothing'}"
            f" first, not {target}, whose title holds it; first results: "
            f"{first}"
        ] + ([problem] if problem else [])
    return []


#: The commands of a simple formula, one a snippet must show as text (Greek
#: letters, a few relations and operators, fonts, the book's macros): with
#: only these, letters, digits and a few signs, and at most
#: ``SIMPLE_TEX_CHARS`` characters of TeX, "\(\varepsilon\)", "\((\varepsilon,
#: \delta)\)", "\(\ell_1\)", "\(A = X^\top X/n\)" are simple.
SIMPLE_TEX_COMMANDS = set(
    "alpha beta gamma delta epsilon varepsilon zeta eta theta iota kappa "
    "lambda mu nu xi pi rho sigma tau phi varphi chi psi omega Gamma Delta "
    "Theta Lambda Sigma Phi Psi Omega ell infty top le leq ge geq ne neq "
    "approx sim in times cdot to log ln exp min max sqrt frac tfrac hat "
    "tilde bar mathbb mathcal mathrm mathbf operatorname text R E tr diag | ,".split()
)
SIMPLE_TEX_CHARS = 30
#: The text of a page's article as Sphinx's own snippet code reads it: each
#: inline formula as its TeX, "\(...\)", white space collapsed.
PAGE_TEXT_WITH_TEX = """async (url) => {
    const html = await (await fetch(url)).text();
    const doc = new DOMParser().parseFromString(html, 'text/html');
    const main = doc.querySelector('article.bd-article')
        || doc.querySelector('[role="main"]');
    return main ? main.textContent.replace(/\\s+/g, ' ') : '';
}"""
#: The words either side of a snippet's "…" that find it in the page's text:
#: prose only (a formula shown as text is not in the TeX of the page).
PLACEHOLDER_BEFORE = re.compile(r"[A-Za-z0-9 ,.;:'’()\-–]{0,30}$")
PLACEHOLDER_AFTER = re.compile(r"[A-Za-z0-9 ,.;:'’()\-–]{0,30}")


def is_simple_tex(tex: str) -> bool:
    """Whether the TeX of an inline formula is simple (``SIMPLE_TEX_COMMANDS``)."""
    if len(tex) > SIMPLE_TEX_CHARS or not re.fullmatch(
        r"[\w\s\\,.;()=+\-'^{}/|<>]*", tex
    ):
        return False
    return all(
        name in SIMPLE_TEX_COMMANDS
        for name in re.findall(r"\\([A-Za-z]+|.)", tex)
    )


def placeholder_formulas(snippet: str, page_text: str) -> list[str]:
    """The TeX of the simple formulas that ``snippet`` shows as "…": each "…"
    of the snippet is looked up in ``page_text`` (the page's text with its
    formulas as TeX, ``PAGE_TEXT_WITH_TEX``) by the prose either side of it,
    at least 10 characters of it; a "…" not found there (typed in the prose,
    or with formulas next to it) is left alone."""
    text = re.sub(r"^\.\.\.|\.\.\.$", "", snippet)
    found = []
    for at in [m.start() for m in re.finditer("…", text)]:
        before = PLACEHOLDER_BEFORE.search(text[:at]).group().lstrip()
        after = PLACEHOLDER_AFTER.match(text[at + 1 :]).group().rstrip()
        if len(before.strip()) + len(after.strip()) < 10:
            continue
        pattern = (
            re.escape(before.rstrip())
            + r"\s*\\\(((?:(?!\\\)).)+?)\\\)\s*"
            + re.escape(after.lstrip())
        )
        found += [
            m.group(1)
            for m in re.finditer(pattern, page_text)
            if is_simple_tex(m.group(1))
        ][:1]
    return found


def search_snippets_are_text(page, base: str, word: str) -> list[str]:
    """No snippet of the results for ``word`` shows TeX, nor "…" where a
    simple formula stood (``is_simple_tex``: "is not …-DP" for "is not
    \\(\\varepsilon\\)-DP", the snippet must read "is not ε-DP"); there is at
    least one snippet."""
    results, problem = search_results(page, base, word)
    problems = [problem] if problem else []
    snippets = [(link, text) for link, text in results if text is not None]
    if not snippets:
        return problems + [f"search snippets: no snippet for {word!r}"]
    tex = [(link, text) for link, text in snippets if SNIPPET_TEX.search(text)]
    for link, text in tex[:3]:
        at = SNIPPET_TEX.search(text).start()
        problems.append(
            f"search snippet with TeX ({len(tex)} of {len(snippets)} "
            f"snippets for {word!r}): {link}: "
            f"{text[max(at - 50, 0) : at + 50]!r}"
        )
    pages: dict[str, str] = {}
    lost = []  # (link, snippet, TeX of a simple formula shown as "…")
    for link, text in snippets:
        if "…" not in text:
            continue
        url = base + link.split("#")[0]
        if url not in pages:
            pages[url] = page.evaluate(PAGE_TEXT_WITH_TEX, url)
        lost += [
            (link, text, t) for t in placeholder_formulas(text, pages[url])
        ]
    for link, text, formula in lost[:3]:
        at = text.index("…")
        problems.append(
            f"search snippet shows … for a simple formula ({len(lost)} in "
            f"the snippets for {word!r}): {link}: \\({formula}\\) in "
            f"{text[max(at - 50, 0) : at + 50]!r}"
        )
    return problems


#: After Ctrl+K: whether the cursor is in a search field the reader sees.
SEARCH_FOCUSED = """() => {
    const el = document.activeElement;
    return !!el && el.matches('input[name="q"], input[type="search"]')
        && el.getClientRects().length > 0;
}"""


def search_shortcut_works(page, base: str, rel: str) -> list[str]:
    """On page ``rel``, Ctrl+K must put the cursor in a search field."""
    page.goto(base + rel, wait_until="load")
    page.keyboard.press("Control+k")
    try:
        page.wait_for_function(SEARCH_FOCUSED, timeout=5_000)
    except Exception:
        return [f"{rel}: Ctrl+K does not open a search field"]
    page.keyboard.press("Escape")
    return []


def run(
    html: Path,
    word: str | None = SEARCH_WORD,
    target: str = SEARCH_TARGET,
    rank: tuple[str, str] = (RANK_WORD, RANK_TARGET),
    snippet_word: str = SNIPPET_WORD,
):
    """Check the book in ``html``; return the list of failures (empty = pass).

    ``word=None`` skips the search checks (for sites without Sphinx's search
    page): ``word`` must list ``target``, ``rank`` is a word and the page
    that must come first for it (where Ctrl+K is tried too), and
    ``snippet_word`` a word whose snippets must be text."""
    from playwright.sync_api import sync_playwright

    failures: list[str] = []
    pages = book_pages(html)
    if not pages:
        return [f"no HTML pages under {html}"]
    server, base = serve(html)
    ids: dict[str, set[str]] = {}
    links: dict[str, set[str]] = defaultdict(set)
    n_images = n_formulas = n_inline = 0
    heights: dict[
        str, tuple[float, float]
    ] = {}  # page -> screens (closed, open)
    remote: list[str] = []  # requests leaving the machine, of the current page
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=CHROMIUM, args=CHROMIUM_ARGS
            )
            context = browser.new_context(viewport=VIEWPORT)

            # Nothing leaves the machine: a remote request is aborted, and
            # it is a failure (the book must read offline).
            def block(route):
                remote.append(route.request.url)
                route.abort()

            context.route(lambda url: not is_local(url, base), block)
            page = context.new_page()
            for rel in pages:
                redirect = redirect_target(html, rel)
                if redirect is not None:  # index.html: checked as a link
                    links[base + redirect].add(rel)
                    continue
                remote.clear()
                problems, info = check_page(page, base + rel, base)
                failures += [f"{rel}: {p}" for p in problems]
                failures += [
                    f"{rel}: request leaves the machine (blocked): {url}"
                    for url in dict.fromkeys(remote)
                ]
                n_formulas += info["formulas"]
                heights[rel] = (
                    info["height"] / VIEWPORT["height"],
                    info["openHeight"] / VIEWPORT["height"],
                )
                n_inline += info["inline"]
                ids[rel] = set(info["ids"])
                for link in info["links"]:
                    links[link].add(rel)
                for src, complete, width in info["images"]:
                    n_images += 1
                    if not (complete and width > 0):
                        failures.append(
                            f"{rel}: image {src} not loaded (naturalWidth {width})"
                        )
            if word is not None:
                remote.clear()
                miss = search_finds(page, base, word, target)
                if miss:
                    failures.append(miss)
                failures += search_ranks_first(page, base, *rank)
                failures += search_snippets_are_text(page, base, snippet_word)
                failures += search_shortcut_works(page, base, rank[1])
                failures += [
                    f"search.html: request leaves the machine (blocked): {url}"
                    for url in dict.fromkeys(remote)
                ]
            browser.close()
    finally:
        server.shutdown()
    for rel, (screens, _) in sorted(heights.items()):
        if rel.startswith("chapters/") and screens > MAX_SCREENS:
            failures.append(
                f"{rel}: {screens:.1f} screens of reading path at "
                f"{VIEWPORT['width']} px (at most {MAX_SCREENS}): split the "
                "page or move what is not read into toggles"
            )
    n_internal = 0
    for link, sources in sorted(links.items()):
        target_ = local_target(link, base)
        if target_ is None:
            continue
        n_internal += 1
        rel, fragment = target_
        where = ", ".join(sorted(sources)[:3])
        if not (html / rel).is_file():
            failures.append(f"broken link {link} (no file {rel}) in {where}")
        elif fragment and rel in ids and fragment not in ids[rel]:
            failures.append(
                f"broken anchor {link} (no id {fragment!r}) in {where}"
            )
    found = not any(
        f.startswith(f"search for {word!r} did not list") for f in failures
    )
    print(
        f"page heights in screens of {VIEWPORT['width']} x "
        f"{VIEWPORT['height']} px, longest first: the reading path (toggles "
        "closed) and, in brackets, with every toggle open"
    )
    ranked = sorted(heights.items(), key=lambda item: -item[1][0])
    for rel, (screens, everything) in ranked:
        print(f"  {screens:5.1f}  ({everything:5.1f})  {rel}")
    print(
        f"{len(pages)} pages, {n_images} images, {n_formulas} formulas "
        f"({n_inline} inline), {n_internal} distinct internal links checked"
        + (
            ""
            if word is None
            else f"; search for {word!r} lists {target}: {found}"
        )
    )
    return failures


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("html", nargs="?", type=Path, default=DEFAULT_HTML)
    parser.add_argument("--search-word", default=SEARCH_WORD)
    args = parser.parse_args()
    if not Path(CHROMIUM).exists():
        print(
            f"browser check SKIPPED: no Chromium at {CHROMIUM} "
            "(apt-get install chromium, or set $CHROMIUM)"
        )
        return 2
    start = time.perf_counter()
    failures = run(args.html.resolve(), args.search_word)
    for failure in failures:
        print("FAIL", failure)
    print(
        f"browser check {'passed' if not failures else 'FAILED'} in "
        f"{time.perf_counter() - start:.1f} s ({len(failures)} failures)"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
