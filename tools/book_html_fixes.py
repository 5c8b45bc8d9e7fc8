"""A small Sphinx extension (loaded through ``sphinx: local_extensions`` in
_config.yml) that serves MathJax from the book itself and removes two
JavaScript errors every page of a Jupyter Book 1.0 / sphinx-book-theme 1.3
build shows in the browser console (found by tools/browser_check.py).

MathJax: ``mathjax_path`` in _config.yml names ``mathjax/tex-mml-chtml.js``, a
path under ``_static``, instead of the CDN, so the book reads offline and the
browser check sees the formulas typeset. The files come from the PyPI package
django-static-mathjax (MathJax 3.2.2, its ``es5`` build with the CHTML fonts;
plain files, no Django needed), a pinned dependency of the ``book`` extra, and
are copied into ``_build/html/_static/mathjax`` at the end of every HTML build.

The console errors:

- sphinx-thebe 0.3.1 registers its configuration script twice under Sphinx 7.4,
  and the second copy throws "Identifier 'THEBE_JS_URL' has already been
  declared": duplicate scripts are dropped from each page;
- the theme's colour mode defaults to "" and pydata-sphinx-theme logs "Got
  invalid theme mode" on a reader's first visit: the default becomes "auto"
  (follow the system setting).

The download menu of every page (the arrow in the top bar: the page as
``.ipynb`` or ``.md``, and print to ``.pdf``) gets a last entry, "Book (PDF)",
linking to the whole book as one PDF, ``_static/dppca-book.pdf``, which
tools/book_pdf.py prints from the rendered HTML (``make pdf``, run by ``make
book`` and, before the browser check, by ``make test``).

A numbered page's title gets its number ("4. The exponential mechanism"), as
in the sidebar, unless Sphinx gave it one already (in the renders of issue 40
it did, and the title read "3. 3. Laplace and Wishart ...").

The book's own stylesheet, ``tools/static/dppca-book.css``, is added to every
page (the general index wraps its long names instead of running past the
column), and its script ``tools/static/dppca-scroll-cue.js``, which marks a
formula, table or output that scrolls sideways in its own box so that the
stylesheet fades it out at the edge where there is more to see.

Search (issue 40; tools/browser_check.py checks all three on the built book):

- ranking and snippets: ``tools/static/dppca-search.js`` becomes Sphinx's
  ``html_search_scorer`` (inlined into the search page's
  ``language_data.js``, after ``searchtools.js``): a page whose title holds
  the query comes first, and a result's snippet is text of the article, with
  no TeX, code cells or outputs (see the file);
- one search box: pydata-sphinx-theme 0.17 puts its search field in a header
  bar (``navbar_persistent``) unless the book says otherwise, and
  sphinx-book-theme has one at the top of the sidebar too, so every page
  showed two; the header's goes (the book sets ``navbar_persistent`` to
  nothing, which also drops the otherwise empty header bar), and on the
  search page, whose own field holds the query, the sidebar's goes as well.
  The search dialog stays, so Ctrl+K (or the sidebar's field, or the
  magnifier of the article's header on a phone) still opens it.
"""

from __future__ import annotations

import importlib.util
import posixpath
import re
import shutil
from pathlib import Path

from book_pdf import API_PDF, BOOK_PDF  # the PDFs' places in the site
from sphinx.errors import ExtensionError

from dppca.book.contents import CLOSING_SECTIONS

#: Where the MathJax files go, under the HTML output's ``_static``; must match
#: the directory of ``mathjax_path`` in _config.yml.
MATHJAX_STATIC = "mathjax"
#: Combined components of the es5 build that the book does not load (it loads
#: tex-mml-chtml.js, which fetches extensions, fonts, menu and speech rules from
#: the subfolders on demand), and the SVG output it never uses.
MATHJAX_UNUSED = ("output/svg", "output/svg.js")


def mathjax_es5() -> Path:
    """The es5 folder of the installed MathJax 3 (django-static-mathjax)."""
    spec = importlib.util.find_spec("mathjax")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        es5 = Path(folder) / "static" / "mathjax" / "es5"
        if (es5 / "tex-mml-chtml.js").is_file():
            return es5
    raise ExtensionError(
        "MathJax 3 not found: the book serves it from the PyPI package "
        "django-static-mathjax (pip install -c constraints.txt -e '.[book]', "
        "or make env)"
    )


def copy_mathjax(app, exception) -> None:
    """Copy MathJax's es5 build into ``_static/mathjax`` of an HTML build."""
    if app.builder.format != "html" or exception is not None:
        return
    es5 = mathjax_es5()
    entry = Path(app.config.mathjax_path)
    target = Path(app.outdir) / "_static" / MATHJAX_STATIC
    if (
        entry.parts[0] != MATHJAX_STATIC
        or not (es5 / entry.relative_to(MATHJAX_STATIC)).is_file()
    ):
        raise ExtensionError(
            f"mathjax_path {app.config.mathjax_path!r} is not a file of the "
            f"local MathJax ({MATHJAX_STATIC}/<file of {es5}>)"
        )

    def unused(directory: str, names: list[str]) -> set[str]:
        rel = Path(directory).relative_to(es5)
        skip = set()
        for name in names:
            path = (rel / name).as_posix().removeprefix("./")
            top_js = rel == Path(".") and name.endswith(".js")
            if path in MATHJAX_UNUSED or (top_js and name != entry.name):
                skip.add(name)
        return skip

    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(es5, target, ignore=unused)
    licence = es5.parent / "LICENSE"
    if licence.is_file():
        shutil.copy2(licence, target / "LICENSE")


def add_book_pdf(context) -> None:
    """Add "Book (PDF)" and "API reference (PDF)" to the page's download
    menu, when it has one."""
    for group in context.get("header_buttons") or []:
        if group.get("label") == "download-buttons":
            group["buttons"].append(
                {
                    "type": "link",
                    "url": context["pathto"](BOOK_PDF, 1),
                    "text": "Book (PDF)",
                    "tooltip": "Download the whole book as one PDF",
                    "icon": "fas fa-book",
                    "label": "download-book-pdf-button",
                }
            )
            group["buttons"].append(
                {
                    "type": "link",
                    "url": context["pathto"](API_PDF, 1),
                    "text": "API reference (PDF)",
                    "tooltip": "Download the package's reference as one PDF",
                    "icon": "fas fa-file-pdf",
                    "label": "download-api-pdf-button",
                }
            )


def number_title(app, pagename, context) -> None:
    """Give a numbered page's title its number ("4. The exponential
    mechanism"), as the sidebar and its sections' headings ("4.1.") have it:
    Sphinx numbers a chapter's sections but not the chapter's own title, and
    the PDF printed from these pages lost the chapters' numbers."""
    numbers = getattr(app.env, "toc_secnumbers", {}).get(pagename, {}).get("")
    body = context.get("body")
    if not numbers or not body or "<h1>" not in body:
        return
    if '<h1><span class="section-number">' in body:
        return  # Sphinx numbered it already: once is enough
    label = ".".join(str(n) for n in numbers) + ". "
    context["body"] = body.replace(
        "<h1>", f'<h1><span class="section-number">{label}</span>', 1
    )


#: A table in a page's HTML body: a pandas Styler's (``dppca.book.tables``),
#: a plain DataFrame's or one written in the prose (a docutils table).
TABLE_TAG = re.compile(r"<table(?=[\s>])[^>]*>")
CAPTION = re.compile(r"\s*<caption(?:\s[^>]*)?>")
SPHINX_NUMBER = re.compile(r'\s*<span class="caption-number">[^<]*</span>')


def count_tables(app, env) -> None:
    """Before any page is written: how many tables each document holds, in
    the order the HTML body will show them (raw HTML of cell outputs and
    docutils tables), kept on the environment for :func:`number_tables`."""
    from docutils import nodes

    counts = {}
    for docname in env.found_docs:
        try:
            tree = env.get_doctree(docname)
        except Exception:  # a document without a doctree (e.g. genindex)
            continue
        count = sum(1 for _ in tree.findall(nodes.table))
        for raw in tree.findall(nodes.raw):
            if "html" in raw.get("format", ""):
                count += len(TABLE_TAG.findall(raw.astext()))
        counts[docname] = count
    env.dppca_table_counts = counts


#: The unnumbered pages whose tables the book numbers all the same, by the
#: label their count runs under: the landing page's as "Table 0.1", and the
#: reference matter's (its map of the mechanisms, glossary and notation, in
#: the order of _toc.yml) as "Table R.1", "Table R.2", ... across its pages.
#: The package's reference pages (api/), read online only, are left alone.
UNNUMBERED_TABLE_PAGES = {
    "0": ["chapters/00-introduction"],
    "R": [
        "chapters/mechanism-map",
        "chapters/glossary",
        "chapters/notation",
        "chapters/references",
    ],
}


def number_tables(app, pagename, context) -> None:
    """Number every table of a numbered page as its chapter's figures are
    numbered: "Table 4.3" is the chapter's third, counted through the
    chapter page and then its section pages in order (a section page's
    tables continue its chapter's count). The number leads the table's
    caption (a Styler's ``set_caption``, :func:`dppca.book.tables.table_of`)
    or becomes its caption. The landing page and the reference matter,
    which have no number, count their tables under a label of their own
    (``UNNUMBERED_TABLE_PAGES``)."""
    secnumbers = getattr(app.env, "toc_secnumbers", {})
    numbers = secnumbers.get(pagename, {}).get("")
    body = context.get("body")
    if not body or "<table" not in body:
        return
    counts = getattr(app.env, "dppca_table_counts", {})
    if numbers:
        chapter = numbers[0]
        before = sum(
            counts.get(doc, 0)
            for doc, numbered in secnumbers.items()
            if numbered.get("")
            and numbered[""][0] == chapter
            and tuple(numbered[""]) < tuple(numbers)
        )
    else:
        for chapter, pages in UNNUMBERED_TABLE_PAGES.items():
            if pagename in pages:
                before = sum(
                    counts.get(doc, 0) for doc in pages[: pages.index(pagename)]
                )
                break
        else:
            return
    out, last, count = [], 0, before
    for match in TABLE_TAG.finditer(body):
        count += 1
        number = f'<span class="caption-number">Table {chapter}.{count} </span>'
        caption = CAPTION.match(body, match.end())
        if caption:  # the number leads the table's own caption
            out += [body[last : caption.end()], number]
            last = caption.end()
            # a MyST {table} directive's caption carries Sphinx's own number
            # (its count of captioned tables only): the book's replaces it
            sphinx = SPHINX_NUMBER.match(body, last)
            if sphinx:
                last = sphinx.end()
        else:
            out += [
                body[last : match.end()],
                f'<caption class="dppca-table-number">{number}</caption>',
            ]
            last = match.end()
    out.append(body[last:])
    context["body"] = "".join(out)


#: "chapter 5" or "section 10.3" in a cell's text (not "chapter 5.2" nor
#: "section 10.3.1"); "Chapter" at a sentence's start too.
NUMBERED_MENTION = re.compile(
    r"\b([Cc]hapter|[Ss]ection)\s+(\d+(?:\.\d+)?)\b(?![.,]?\d)"
)
TAG = re.compile(r"(<[^>]+>)")


def link_mentions_in_tables(app, pagename, context) -> None:
    """Turn a plain "chapter 5" or "section 10.3" into a link to that page,
    in table cells and prose alike. Prose links with explicit text (MyST's
    ``{doc}`` role), but a table a chapter computes is HTML that Python
    wrote (15 cells named a chapter as plain text, issue 40), the package's
    reference pages (``api/``) are its docstrings, which name the chapter
    that derives a function as plain text (84 mentions, review 47), and 21
    sentences of the chapters ("This page closes chapter 19") did too. Only
    a number that is a page of the book is linked (a section of a page,
    "section 4.2", has no page of its own and stays text); text inside a
    link, code, a preformatted block or a heading stays as it is."""
    body = context.get("body")
    secnumbers = getattr(app.env, "toc_secnumbers", {})
    if not body or not secnumbers:
        return
    pages = {
        ".".join(map(str, numbered[""])): doc
        for doc, numbered in secnumbers.items()
        if numbered.get("")
    }
    pathto = context.get("pathto")

    def href(doc: str) -> str:
        if pathto is not None:
            return pathto(doc)
        return (
            posixpath.relpath(doc, posixpath.dirname(pagename) or ".") + ".html"
        )

    def link(match) -> str:
        word, number = match.groups()
        is_chapter = word.lower() == "chapter"
        if is_chapter == ("." in number) or number not in pages:
            return match.group(0)
        return f'<a class="reference internal" href="{href(pages[number])}">{match.group(0)}</a>'

    context["body"] = _linked_text(body, link)


#: Text just before a mention that makes it another work's ("Chaudhuri et
#: al.'s Section 6.3", "Higham (2002), chapter 3"): left as text.
CITED = re.compile(r"(et al\.?|\b(?:1[89]|20)\d\d\b\)?,?|[’']s)\s*$")


def _linked_text(html: str, link) -> str:
    """``html`` with ``NUMBERED_MENTION`` replaced by ``link`` in its text,
    outside links, code, preformatted blocks, headings and scripts. In a
    table cell both kinds are linked; in prose only "chapter N", and not
    after a citation (``CITED``): the papers have sections 6.3 and 6.4 of
    their own, which the prose names (a first version linked "Chaudhuri et
    al.'s Section 6.3" to the book's section 6.3)."""
    parts, skip, cell, recent = [], 0, 0, ""

    def in_prose(match) -> str:
        before = match.string[: match.start()]
        if match.group(1).lower() != "chapter" or CITED.search(
            (recent + before)[-40:]
        ):
            return match.group(0)
        return link(match)

    for part in TAG.split(html):
        if part.startswith("<"):
            if re.match(r"<(a|code|pre|h[1-6]|script|style)[\s>]", part):
                skip += 1
            elif re.match(r"</(a|code|pre|h[1-6]|script|style)\s*>", part):
                skip = max(skip - 1, 0)
            elif re.match(r"<t[dh][\s>]", part):
                cell += 1
            elif re.match(r"</t[dh]\s*>", part):
                cell = max(cell - 1, 0)
            parts.append(part)
            continue
        if skip:
            parts.append(part)
        else:
            parts.append(NUMBERED_MENTION.sub(link if cell else in_prose, part))
        recent = (recent + part)[-40:]
    return "".join(parts)


#: A page's closing sections (its summary, exercises and notes), left
#: unnumbered: a chapter's section pages are
#: numbered after its own sections (Sphinx numbers a page's headings and then
#: the pages of its toctree, which Jupyter Book appends at the page's end), so
#: with these numbered, "1.7 Exercises" and "1.8 Notes" came before the
#: section page "1.9" (issue 40).
#: The same set tells the book's own page numbering
#: (``dppca.book.contents.own_section_count``) what to skip.
UNNUMBERED_SECTIONS = CLOSING_SECTIONS


def unnumber_closing_sections(app, doctree) -> None:
    """After Sphinx's collector built this page's table of contents
    (``doctree-read``): mark the entries of its closing sections (and their
    subsections) as unnumbered."""
    from sphinx import addnodes

    toc = app.env.tocs.get(app.env.docname)
    if toc is None:
        return
    for para in list(toc.findall(addnodes.compact_paragraph)):
        if para.astext().strip() not in UNNUMBERED_SECTIONS:
            continue
        for inner in para.parent.findall(addnodes.compact_paragraph):
            inner["dppca_unnumbered"] = True


def _renumber_page(env, docname: str, new: tuple) -> None:
    """Give page ``docname`` the number ``new``: every number of its
    sections that starts with its old number starts with ``new`` instead."""
    numbers = env.toc_secnumbers.get(docname, {})
    old = tuple(numbers.get("", ()))
    if not old or old == new:
        return
    for anchor, number in list(numbers.items()):
        if number and tuple(number[: len(old)]) == old:
            numbers[anchor] = new + tuple(number[len(old) :])
    from docutils import nodes

    for ref in env.tocs[docname].findall(nodes.reference):
        number = ref.get("secnumber")
        if number and tuple(number[: len(old)]) == old:
            ref["secnumber"] = list(new + tuple(number[len(old) :]))
    if env.titles.get(docname) is not None:
        env.titles[docname]["secnumber"] = list(new)


def _number_level(env, docname, blist, prefix: tuple) -> None:
    """Number one level of a page's table of contents after ``prefix``: its
    sections, skipping the unnumbered ones, then the pages of a toctree at
    that level, in order."""
    from docutils import nodes
    from sphinx import addnodes

    numbers = env.toc_secnumbers[docname]
    count = 0
    for child in blist.children:
        if isinstance(child, nodes.list_item) and child.children:
            para = child[0]
            if not isinstance(para, addnodes.compact_paragraph):
                continue
            if para.get("dppca_unnumbered"):
                for inner in child.findall(addnodes.compact_paragraph):
                    inner[0]["secnumber"] = None
                    # an empty number: without one the HTML writer falls back
                    # to the page's own and prints "1. Exercises"
                    numbers[inner[0]["anchorname"]] = ()
                # a toctree Jupyter Book appended inside a closing section
                for toctree in child.findall(addnodes.toctree):
                    count = _number_pages(env, toctree, prefix, count)
                continue
            count += 1
            number = prefix + (count,)
            para[0]["secnumber"] = list(number)
            numbers[para[0]["anchorname"]] = number
            for nested in child.children[1:]:
                if isinstance(nested, nodes.bullet_list):
                    _number_level(env, docname, nested, number)
        elif isinstance(child, addnodes.toctree):
            count = _number_pages(env, child, prefix, count)


def _number_pages(env, toctree, prefix: tuple, count: int) -> int:
    for _title, ref in toctree["entries"]:
        if ref in env.toc_secnumbers and env.toc_secnumbers[ref].get(""):
            count += 1
            _renumber_page(env, ref, prefix + (count,))
    return count


def renumber_sections(app, env) -> list[str]:
    """After Sphinx numbered the sections (``env-get-updated``): number each
    numbered page again with its closing sections left out, so that its
    section pages follow its own numbered sections ("1.7" for the first
    section page of chapter 1, after 1.1-1.6; "Exercises" and "Notes" carry
    no number). Computed from the structure every time: idempotent."""
    from docutils import nodes

    pages = [
        doc
        for doc in list(env.toc_secnumbers)
        if env.toc_secnumbers[doc].get("")
    ]
    # chapters before their section pages: a section page's own sections are
    # numbered under the number its chapter gives it
    pages.sort(key=lambda doc: len(env.toc_secnumbers[doc][""]))
    for docname in pages:
        toc = env.tocs.get(docname)
        if toc is None or not toc.children:
            continue
        title = toc.children[0]
        prefix = tuple(env.toc_secnumbers[docname][""])
        for nested in title.children[1:]:
            if isinstance(nested, nodes.bullet_list):
                _number_level(env, docname, nested, prefix)
    return []


#: The sidebar's search field (sphinx-book-theme's ``html_sidebars``).
SIDEBAR_SEARCH = "search-button-field.html"


def one_search_box(pagename, context) -> None:
    """On the search page, drop the sidebar's search field: the page's own
    field, holding the query, is its search box."""
    sidebars = context.get("sidebars")
    if pagename == "search" and sidebars:
        context["sidebars"] = [s for s in sidebars if s != SIDEBAR_SEARCH]


def fix_page(app, pagename, templatename, context, doctree) -> None:
    add_book_pdf(context)
    one_search_box(pagename, context)
    number_title(app, pagename, context)
    number_tables(app, pagename, context)
    link_mentions_in_tables(app, pagename, context)
    # default_mode is read by pydata-sphinx-theme's layout.html
    if not context.get("default_mode"):
        context["default_mode"] = "auto"
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        attributes = getattr(script, "attributes", {})
        filename = getattr(script, "filename", str(script)) or ""  # None or ""
        key = (filename, tuple(sorted(attributes.items())))
        if key not in seen:
            seen.add(key)
            unique.append(script)
    context["script_files"] = unique


#: The book's own static files (its stylesheet, its search scorer).
STATIC = Path(__file__).resolve().parent / "static"
STYLESHEET = "dppca-book.css"
#: The fade at the edge of a box that scrolls sideways (a formula, a table).
SCROLL_CUES = "dppca-scroll-cue.js"
SEARCH_SCORER = STATIC / "dppca-search.js"


def add_static(app, config) -> None:
    config.html_static_path = [*config.html_static_path, str(STATIC)]
    # Sphinx reads the scorer relative to the configuration directory, which
    # is a copy of the book's in a render (tools/render_book.py): absolute.
    config.html_search_scorer = str(SEARCH_SCORER)
    # pydata-sphinx-theme's default ([search-button-field]) unless set: a
    # second search box, in a header bar that holds nothing else.
    config.html_theme_options.setdefault("navbar_persistent", [])


#: A hyphen-minus that starts a number in running text ("ε = -0.49", "(-3"):
#: not after a letter, digit, point or closing bracket, so "x-1", "2024-01",
#: "1e-5" and "f(x)-1" keep theirs.
NEGATIVE_NUMBER = re.compile(r"(?<![\w.)\]}])-(?=\d)")
#: Nodes whose text is code, TeX or markup, never typeset prose.
NOT_PROSE = ("literal", "literal_block", "math", "math_block", "raw")


def minus_signs(app, doctree, docname) -> None:
    """Typeset a negative number of the prose with a minus sign (U+2212), as
    the book's tables do: the values pasted into sentences (``glue:text``)
    came as Python prints them, "-0.49" (review 44: 38 of them). Code,
    formulas and raw markup are left alone."""
    from docutils import nodes

    for text in list(doctree.findall(nodes.Text)):
        if "-" not in text or text.parent is None:
            continue  # a detached copy (the page's title in its toctree)
        parent, skip = text.parent, False
        while parent is not None:
            if type(parent).__name__ in NOT_PROSE:
                skip = True
                break
            parent = parent.parent
        if skip:
            continue
        fixed = NEGATIVE_NUMBER.sub("\u2212", str(text))
        if fixed != str(text):
            text.parent.replace(text, nodes.Text(fixed))


def setup(app):
    app.connect("doctree-resolved", minus_signs)
    app.connect("config-inited", add_static)
    app.connect("env-updated", count_tables)
    # after the toctree collector (priority 500) on both events
    app.connect("doctree-read", unnumber_closing_sections, priority=600)
    app.connect("env-get-updated", renumber_sections, priority=600)
    app.add_css_file(STYLESHEET)
    app.add_js_file(SCROLL_CUES, defer="defer")
    app.connect("html-page-context", fix_page, priority=1000)  # after the theme
    app.connect("build-finished", copy_mathjax)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
