"""A small Sphinx extension (loaded through ``sphinx: local_extensions`` in
_config.yml) for two things a printed book does differently from a package's
source tree.

**Listings without docstrings.** A chapter shows the package's own source with
``literalinclude`` and ``:pyobject:`` (never a second copy). The docstrings of
``dppca`` are written for the API reference: numpydoc sections and
reStructuredText markup (``:func:``, double back-quotes, ``:math:``) that read
as noise inside a code listing, and that the API pages render properly. So
every literal block included from a ``.py`` file under ``dppca/`` loses the
docstrings of the functions and classes it shows; each is replaced by one
comment line saying how to read it (``# (docstring:
help(dppca.samplers.bingham.acg_parameter))``). The code itself is untouched,
character for character.

**An author–year bibliography.** The chapters cite author–year
(``{cite:t}`` gives "Chaudhuri et al. [2013]"); pybtex's ``plain`` style
numbers the bibliography [1], [2], ..., so the entries matched no citation.
The style ``authoryear`` registered here labels each entry as it is cited
("Chaudhuri et al., 2013") and sorts the list by author, year and title.
"""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from docutils import nodes
from pybtex.plugin import register_plugin
from pybtex.style.formatting.plain import Style as PlainStyle
from pybtex.style.labels import BaseLabelStyle
from pybtex.style.sorting.author_year_title import (
    SortingStyle as AuthorYearTitleSorting,
)


def docstring_spans(source: str) -> list[tuple[int, int, str]]:
    """1-based inclusive line spans of every function, class and module
    docstring in ``source`` (a whole function or class, possibly indented),
    with the dotted name of what the docstring documents (``""`` for a
    module).

    Returns ``[]`` when ``source`` does not parse (a listing cut by
    ``:lines:``): such a block is shown as it is.
    """
    try:
        tree = ast.parse(textwrap.dedent(source))
    except SyntaxError:
        return []
    spans = []

    def visit(node, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
            ):
                name = f"{prefix}.{child.name}" if prefix else child.name
                doc = _docstring_node(child)
                if doc is not None:
                    spans.append((doc.lineno, doc.end_lineno, name))
                visit(child, name)

    doc = _docstring_node(tree)
    if doc is not None:
        spans.append((doc.lineno, doc.end_lineno, ""))
    visit(tree, "")
    return sorted(spans)


def _docstring_node(node):
    body = getattr(node, "body", None)
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        return body[0]
    return None


def docstring_note(module: str, name: str) -> str:
    """The comment that stands where a docstring was: where to read it."""
    target = f"{module}.{name}" if name else module
    return f"# (docstring: help({target}))"


def strip_docstrings(source: str, module: str = "dppca") -> str:
    """``source`` with every docstring replaced by one comment line
    (:func:`docstring_note`) at the docstring's indentation; the code lines
    are unchanged. ``module`` is the dotted name of the listed file."""
    lines = source.splitlines()
    for first, last, name in reversed(docstring_spans(source)):
        opening = lines[first - 1]
        indent = opening[: len(opening) - len(opening.lstrip())]
        lines[first - 1 : last] = [indent + docstring_note(module, name)]
    text = "\n".join(lines)
    return text + "\n" if source.endswith("\n") else text


def module_name(path: Path, package: Path) -> str:
    """``dppca.book.bounds.wishart`` for ``<package>/bounds/wishart.py``."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def is_package_listing(node: nodes.literal_block, package: Path) -> bool:
    """Whether ``node`` was included from a Python file of ``package``."""
    source = node.get("source")
    if not source or not source.endswith(".py"):
        return False
    path = Path(source).resolve()
    return package in path.parents


def strip_listing_docstrings(app, doctree) -> None:
    package = (Path(app.srcdir) / "dppca").resolve()
    for node in doctree.findall(nodes.literal_block):
        if not is_package_listing(node, package):
            continue
        text = node.astext()
        module = module_name(Path(node["source"]).resolve(), package)
        stripped = strip_docstrings(text, module)
        if stripped != text:
            node.children = [nodes.Text(stripped)]
            node.rawsource = stripped


class AuthorYearLabels(BaseLabelStyle):
    """Labels as the text cites: "Chaudhuri et al., 2013", "Jiang et al.,
    2016", "Dwork and Roth, 2014"; a letter separates equal labels."""

    def format_labels(self, sorted_entries):
        labels = [self.format_label(entry) for entry in sorted_entries]
        seen: dict[str, int] = {}
        for label in labels:
            seen[label] = seen.get(label, 0) + 1
        counters: dict[str, int] = {}
        for label in labels:
            if seen[label] == 1:
                yield label
            else:
                counters[label] = counters.get(label, 0) + 1
                yield label + "abcdefghijklmnopqrstuvwxyz"[counters[label] - 1]

    @staticmethod
    def format_label(entry) -> str:
        people = entry.persons.get("author") or entry.persons.get("editor")
        year = entry.fields.get("year", "n.d.")
        if not people:
            key = entry.fields.get("organization") or entry.fields.get(
                "title", entry.key
            )
            return f"{str(key).strip('{}')}, {year}"
        names = [
            " ".join(p.last_names).replace("{", "").replace("}", "")
            for p in people
        ]
        others = any(n == "others" for n in names)
        names = [n for n in names if n != "others"]
        if len(names) == 1 and not others:
            who = names[0]
        elif len(names) == 2 and not others:
            who = f"{names[0]} and {names[1]}"
        else:
            who = f"{names[0]} et al."
        return f"{who}, {year}"


class AuthorYearStyle(PlainStyle):
    """pybtex's ``plain`` entries with author–year labels, sorted by author,
    year and title."""

    default_label_style = AuthorYearLabels
    default_sorting_style = AuthorYearTitleSorting


register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)


def setup(app):
    app.connect("doctree-read", strip_listing_docstrings)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
