"""The book's pages as data: the numbers Jupyter Book gives them, their
titles, the chapter-to-chapter edges of ``chapters/prerequisites.yml`` and
the toolkit sections each toolkit page holds. Read from ``_toc.yml``,
``chapters/prerequisites.yml`` and the pages themselves; the introduction's
diagram (:mod:`dppca.book.plotting.chapter_map`) and the map of the
mechanisms draw from them. Needs no plotting library.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path

#: The toolkit section labels of the book and the page that holds each, as
#: planned (:func:`toolkit_sections` prefers what the pages say).
TOOLKIT_SECTIONS = {
    **dict.fromkeys(
        ("toolkit-principal-angles", "toolkit-haar-stiefel"),
        "toolkit-linear-algebra",
    ),
    **dict.fromkeys(
        ("toolkit-eigenvalue-perturbation", "toolkit-davis-kahan"),
        "toolkit-linear-algebra-perturbation",
    ),
    **dict.fromkeys(
        (
            "toolkit-semicircle",
            "toolkit-marchenko-pastur",
            "toolkit-tracy-widom",
            "toolkit-bbp",
        ),
        "toolkit-random-matrices",
    ),
    **dict.fromkeys(
        ("toolkit-brownian-motion", "toolkit-ito", "toolkit-sde-schemes"),
        "toolkit-stochastic-calculus",
    ),
    **dict.fromkeys(
        ("toolkit-rejection-sampling", "toolkit-mcmc"),
        "toolkit-sampling-statistics",
    ),
    **dict.fromkeys(
        ("toolkit-clopper-pearson", "toolkit-packing-fano"),
        "toolkit-sampling-statistics-intervals-and-packings",
    ),
}


_LABEL = re.compile(r"^\((toolkit-[\w-]+)\)=\s*$", re.MULTILINE)


def chapter_edges(prerequisites: Mapping) -> list[tuple[str, str]]:
    """``(prerequisite, page)`` for every prerequisite chapter of every page
    of the mapping (``{page: {"chapters": [...], "toolkit": [...]}}``), in
    its order. Raises ``ValueError`` for a prerequisite that is not a page
    of the mapping."""
    edges = []
    for page, entry in prerequisites.items():
        for earlier in (entry or {}).get("chapters") or []:
            if earlier not in prerequisites:
                raise ValueError(f"{page} needs {earlier}, which is not listed")
            edges.append((earlier, page))
    return edges


def chapter_numbers(
    toc: Mapping, pages=(), own_sections=None
) -> dict[str, str]:
    """The number Jupyter Book gives each page (file stem) of a
    ``_toc.yml`` mapping: its documents in numbered parts count 1, 2, ... in
    order; a page listed under a chapter's ``sections`` continues the
    numbering of the chapter's own ``##`` sections, as Sphinx numbers it: with
    ``own_sections[chapter]`` such sections (:func:`own_section_count`), its
    first section page is ``N.(s + 1)`` (``N.1`` without ``own_sections``).
    Pages of ``pages`` that the table of contents does not list at all (pages
    being written) follow the last chapter of ``chapters/``, in their order;
    a page of an unnumbered part (the back matter) has none."""
    own_sections = own_sections or {}
    numbers, listed, count, last = {}, set(), 0, 0
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            entries = [chapter, *(chapter.get("sections") or [])]
            listed |= {Path(entry["file"]).name for entry in entries}
            if part.get("numbered") is not True:
                continue
            count += 1
            stem = Path(chapter["file"]).name
            numbers[stem] = str(count)
            if chapter["file"].startswith("chapters/"):
                last = count
            first = own_sections.get(stem, 0) + 1
            for j, section in enumerate(chapter.get("sections") or [], first):
                numbers[Path(section["file"]).name] = f"{count}.{j}"
    for page in pages:
        if page not in listed:
            last += 1
            numbers[page] = str(last)
    return numbers


def chapter_of(toc: Mapping) -> dict[str, str]:
    """The chapter (file stem) each page of a ``_toc.yml`` mapping belongs
    to: a chapter to itself, a page listed under its ``sections`` to it."""
    owner = {}
    for part in toc.get("parts", []):
        for chapter in part.get("chapters", []):
            stem = Path(chapter["file"]).name
            owner[stem] = stem
            for section in chapter.get("sections") or []:
                owner[Path(section["file"]).name] = stem
    return owner


def chapters_only(prerequisites: Mapping, owner: Mapping) -> dict:
    """``prerequisites`` with every section page folded into its chapter
    (``owner``, :func:`chapter_of`): a chapter needs what it or any of its
    sections needs, outside itself, in order of first mention, and uses the
    toolkit sections any of them uses. Pages ``owner`` does not know stay
    as they are."""
    folded: dict = {}
    for page, entry in prerequisites.items():
        chapter = owner.get(page, page)
        into = folded.setdefault(chapter, {"chapters": [], "toolkit": []})
        for key in ("chapters", "toolkit"):
            for item in (entry or {}).get(key) or []:
                item = owner.get(item, item) if key == "chapters" else item
                if item != chapter and item not in into[key]:
                    into[key].append(item)
    return folded


#: Closing sections the rendered book leaves unnumbered (the render's
#: ``tools/book_html_fixes.py`` ``UNNUMBERED_SECTIONS``): they do not count
#: before a chapter's section pages.
CLOSING_SECTIONS = frozenset(
    {"Summary", "Exercises", "Notes and further reading"}
)


def own_section_count(path: Path) -> int:
    """How many numbered ``##`` sections a page has (Sphinx numbers them
    N.1, N.2, ... before the pages listed under it): level-two headings of
    its markdown, outside fenced blocks, less the unnumbered closing ones
    (:data:`CLOSING_SECTIONS`)."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        texts = [
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
        ]
    else:
        texts = [path.read_text()]
    count = 0
    for text in texts:
        fence = None
        for line in text.splitlines():
            stripped = line.strip()
            opened = re.match(r"^(`{3,}|~{3,})", stripped)
            if fence is not None:
                if stripped == fence:
                    fence = None
                continue
            if opened:
                fence = opened.group(1)
                continue
            heading = re.match(r"^## (\S.*)$", line)
            if heading and heading.group(1).strip() not in CLOSING_SECTIONS:
                count += 1
    return count


def _heading(path: Path) -> str | None:
    """The first ``# `` heading of a notebook or a MyST page."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        text = "\n".join(
            "".join(c["source"]) for c in cells if c["cell_type"] == "markdown"
        )
    else:
        text = path.read_text()
    match = re.search(r"^# (.+)$", text, re.MULTILINE)
    return match.group(1).strip() if match else None


def page_titles(folder: Path, pages) -> dict[str, str]:
    """The title of each page of ``pages``: the heading of
    ``folder/page.ipynb`` (or ``.md``), else words made from its stem."""
    titles = {}
    for page in pages:
        found = None
        for suffix in (".ipynb", ".md"):
            if (Path(folder) / f"{page}{suffix}").exists():
                found = _heading(Path(folder) / f"{page}{suffix}")
                break
        if found is None:
            words = re.sub(r"^(\d+-|toolkit-)", "", page).replace("-", " ")
            found = words[:1].upper() + words[1:]
        titles[page] = found
    return titles


def toolkit_sections(folder: Path) -> dict[str, str]:
    """The toolkit section labels and the page that holds each: those the
    pages ``folder/toolkit-*.ipynb`` define (``(label)=`` lines), over the
    planned :data:`TOOLKIT_SECTIONS` for pages not written yet."""
    found = {}
    for notebook in sorted(Path(folder).glob("toolkit-*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                for label in _LABEL.findall("".join(cell["source"])):
                    found[label] = notebook.stem
    written = set(found.values())
    planned = {
        label: page
        for label, page in TOOLKIT_SECTIONS.items()
        if page not in written
    }
    return {**planned, **found}


def short_title(title: str) -> str:
    """A title for a box: without a "Toolkit:" prefix, and cut before a
    colon or a parenthesis."""
    title = re.sub(
        r"^(mathematical )?toolkit\s*[:—–-]\s*", "", title, flags=re.I
    )
    title = re.split(r":\s|\s\(", title)[0].strip()
    return title[:1].upper() + title[1:]


__all__ = [
    "chapter_of",
    "chapters_only",
    "TOOLKIT_SECTIONS",
    "chapter_edges",
    "chapter_numbers",
    "own_section_count",
    "page_titles",
    "toolkit_sections",
    "short_title",
]
