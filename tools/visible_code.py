"""Count the code on each chapter's reading path (issue 29).

Visible code is what a reader scrolls past without opening a "show code"
toggle: the non-blank lines of every code cell not tagged ``hide-input``,
``hide-cell``, ``remove-input``, ``remove-cell`` or ``parameters``, plus the
lines of every ``literalinclude`` listing of the package's source, as the
book renders it (its docstring removed, ``tools/book_listings.py``), unless
the listing sits in a dropdown.

Usage: python tools/visible_code.py [--max-chapter N] [--max-total N]
prints one line per chapter and exits 1 when a limit is exceeded.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from pathlib import Path

from bookpaths import toc_notebooks

HIDDEN_TAGS = {
    "hide-input",
    "hide-cell",
    "remove-input",
    "remove-cell",
    "parameters",
}
LISTING = re.compile(
    r"```\{literalinclude\}\s*(?P<path>\S+)\n(?P<options>(?::[^\n]*\n)*)"
)
DROPDOWN = re.compile(r":class:\s*dropdown|\{dropdown\}|:class:\s*toggle")


def listing_lines(notebook: Path, path: str, options: str) -> int:
    """Non-blank lines of a ``:pyobject:`` listing without its docstring."""
    source_path = (notebook.parent / path).resolve()
    source = source_path.read_text()
    match = re.search(r":pyobject:\s*(\S+)", options)
    if match is None:
        return len([line for line in source.splitlines() if line.strip()])
    names = match.group(1).split(".")
    node: ast.AST = ast.parse(source)
    for name in names:
        node = next(
            child
            for child in ast.iter_child_nodes(node)
            if getattr(child, "name", None) == name
        )
    lines = source.splitlines()[node.lineno - 1 : node.end_lineno]
    skip: set[int] = set()
    body = getattr(node, "body", [])
    if (
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(getattr(body[0], "value", None), ast.Constant)
        and isinstance(body[0].value.value, str)
    ):
        first = body[0].lineno - node.lineno
        skip = set(range(first, body[0].end_lineno - node.lineno + 1))
    return len(
        [line for i, line in enumerate(lines) if i not in skip and line.strip()]
    )


def visible_code(notebook: Path) -> tuple[int, int]:
    """``(cell lines, listing lines)`` on the chapter's reading path."""
    cells = listings = 0
    for cell in json.loads(notebook.read_text())["cells"]:
        source = "".join(cell["source"])
        tags = set(cell.get("metadata", {}).get("tags", []))
        if cell["cell_type"] == "code":
            if not tags & HIDDEN_TAGS:
                cells += len([ln for ln in source.splitlines() if ln.strip()])
            continue
        for match in LISTING.finditer(source):
            before = source[: match.start()]
            opened = len(DROPDOWN.findall(before))
            if opened and before.count("````") % 2 == 1:
                continue  # inside a dropdown fence
            listings += listing_lines(
                notebook, match.group("path"), match.group("options")
            )
    return cells, listings


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-chapter", type=int, default=None)
    parser.add_argument("--max-total", type=int, default=None)
    args = parser.parse_args(argv)
    total, over = 0, []
    for notebook in toc_notebooks():
        cells, listings = visible_code(notebook)
        lines = cells + listings
        total += lines
        flag = ""
        if args.max_chapter is not None and lines > args.max_chapter:
            over.append(notebook.stem)
            flag = f"  OVER {args.max_chapter}"
        print(
            f"{notebook.stem:40s} {lines:5d} visible lines "
            f"({cells} in cells, {listings} in listings){flag}"
        )
    print(f"{'total':40s} {total:5d}")
    if args.max_total is not None and total > args.max_total:
        over.append("total")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
