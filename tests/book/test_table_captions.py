"""Every table the book shows is a designed one (issue 40): made by
:func:`dppca.book.tables.table_of` with a caption, or written in the prose
inside a MyST ``{table}`` directive with its caption, on a page whose tables
the render numbers (``tools/book_html_fixes.py``). A bare DataFrame, a
``table_of`` without a caption or a markdown table outside a directive would
print as an unnumbered grid of numbers.

Checked three ways: on the chapters' source (always), on the executed
chapters of a FAST run when they exist (``_build/fast``, written by
``tests/book/test_chapters.py``), and on planted faults."""

from __future__ import annotations

import ast
import json
import re

import pytest
import yaml
from book_html_fixes import UNNUMBERED_TABLE_PAGES
from bookpaths import EXECUTED, ROOT, toc_notebooks

from dppca.book.tables import uncaptioned_tables

NOTEBOOKS = toc_notebooks()

#: The opening of a MyST table directive with its caption (its argument).
DIRECTIVE = re.compile(r"^\s*(`{3,}|:{3,})\{table\}\s*\S")
#: A fence that closes a directive.
FENCE_END = re.compile(r"^\s*(`{3,}|:{3,})\s*$")
#: The delimiter row under a markdown (pipe) table's header, "|---|:--:|"
#: (a formula such as "|x| + |y|" has none).
PIPE_DELIMITER = re.compile(
    r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$"
)
#: Calls that show a table without the helper.
BYPASS = ("to_html", "to_markdown", "to_latex", "to_string")


def _code(source: str) -> ast.Module | None:
    lines = [
        line
        for line in source.splitlines()
        if not line.lstrip().startswith(("%", "!"))
    ]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


def _no_caption(call: ast.Call) -> bool:
    for keyword in call.keywords:
        if keyword.arg == "caption":
            value = keyword.value
            return isinstance(value, ast.Constant) and not value.value
    return True


def source_problems(notebook: dict) -> list[str]:
    """What in a chapter's source would show a table without a caption:
    a call of ``table_of`` (or of a function of the notebook that takes a
    ``caption`` and so builds a table) with no caption, a DataFrame written
    out as HTML or text, a cell that ends by showing a bare object (a
    DataFrame or a Styler), and a markdown table outside a captioned
    ``{table}`` directive."""
    cells = notebook.get("cells", [])
    trees = {
        i: _code("".join(c["source"]))
        for i, c in enumerate(cells)
        if c["cell_type"] == "code"
    }
    builders = {"table_of"}
    for tree in filter(None, trees.values()):
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef):
                names = [a.arg for a in node.args.args + node.args.kwonlyargs]
                if "caption" in names:
                    builders.add(node.name)
    faults = []
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            inside = False
            for line in "".join(cell["source"]).splitlines():
                if DIRECTIVE.match(line):
                    inside = True
                elif FENCE_END.match(line):
                    inside = False
                elif PIPE_DELIMITER.match(line) and "|" in line and not inside:
                    faults.append(
                        f"cell {i}: a markdown table outside a {{table}}"
                    )
                    break
            continue
        tree = trees.get(i)
        if tree is None:
            continue
        tags = cell.get("metadata", {}).get("tags", [])
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = getattr(func, "id", None) or getattr(func, "attr", None)
            if name in builders and _no_caption(node):
                # a builder's own body passes its argument on: caption=caption
                faults.append(f"cell {i}: {name}(...) without a caption")
            if name in BYPASS and isinstance(func, ast.Attribute):
                faults.append(f"cell {i}: .{name}() shows a table by hand")
        shown = tree.body[-1] if tree.body else None
        if (
            isinstance(shown, ast.Expr)
            and isinstance(
                shown.value, ast.Name | ast.Attribute | ast.Subscript
            )
            and not {"remove-output", "remove-cell"} & set(tags)
        ):
            what = ast.unparse(shown.value)
            faults.append(f"cell {i}: ends by showing {what!r}")
    return faults


def _has_a_table(notebook: dict) -> bool:
    for cell in notebook.get("cells", []):
        text = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and "{table}" in text:
            return True
        if cell["cell_type"] == "code" and "table_of(" in text:
            return True
    return False


def _unnumbered_pages() -> set[str]:
    """The pages of _toc.yml that the book does not number: the root and
    every page of a part without ``numbered: true``."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    pages = {toc["root"]}

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                pages.add(entry["file"])
            walk(entry.get("sections"))

    for part in toc.get("parts", []):
        if not part.get("numbered"):
            walk(part.get("chapters"))
    return pages


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_table_of_a_chapter_is_captioned(notebook):
    faults = source_problems(json.loads(notebook.read_text()))
    assert not faults, f"{notebook.name}: {faults}"


def test_every_page_with_tables_numbers_them():
    """A page outside the numbered parts shows its tables unnumbered
    unless the render counts them under a label of its own."""
    labelled = {
        page for pages in UNNUMBERED_TABLE_PAGES.values() for page in pages
    }
    missing = [
        page
        for page in sorted(_unnumbered_pages())
        if (ROOT / f"{page}.ipynb").exists()
        and _has_a_table(json.loads((ROOT / f"{page}.ipynb").read_text()))
        and page not in labelled
    ]
    assert not missing, missing


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_every_executed_table_has_a_caption(notebook):
    executed = EXECUTED["fast"] / notebook.relative_to(ROOT)
    if not executed.exists():
        pytest.skip("no FAST run of this chapter (tests/book/test_chapters.py)")
    faults = uncaptioned_tables(json.loads(executed.read_text()))
    assert not faults, f"{notebook.name}: {faults}"


# Planted faults: each must be caught, and a designed table must pass.


def _notebook(*cells):
    return {"cells": list(cells)}


def _code_cell(source, outputs=(), tags=()):
    return {
        "cell_type": "code",
        "source": source,
        "outputs": list(outputs),
        "metadata": {"tags": list(tags)},
    }


def _markdown(source):
    return {"cell_type": "markdown", "source": source, "metadata": {}}


def _html(text):
    return {"output_type": "execute_result", "data": {"text/html": text}}


DESIGNED = 'table_of(frame, {"a": ("a", "{:.2f}")}, caption="Noise")'


@pytest.mark.parametrize(
    "cell",
    [
        _code_cell('table_of(frame, {"a": ("a", "{:.2f}")})'),
        _code_cell('table_of(frame, {"a": ("a", "{}")}, caption="")'),
        _code_cell(
            "def summary(frame, caption=None):\n"
            "    return table_of(frame, {}, caption=caption)\n"
            "summary(frame)"
        ),
        _code_cell("frame = pd.DataFrame({'a': [1]})\nframe"),
        _code_cell("frame.style.format('{:.2f}')\nframe.style"),
        _code_cell("frame.loc[frame.a > 0]"),
        _code_cell("display(HTML(frame.to_html()))"),
        _code_cell("print(frame.to_string())"),
        _markdown("Sizes:\n\n| d | n |\n|---|---|\n| 2 | 10 |\n"),
        _markdown("```{table}\n| d | n |\n|---|---|\n```\n\n| d |\n|---|\n"),
    ],
)
def test_planted_source_faults_are_caught(cell):
    faults = source_problems(_notebook(cell))
    assert len(faults) == 1 and faults[0].startswith("cell 0:"), faults


def test_designed_tables_pass():
    notebook = _notebook(
        _code_cell(DESIGNED),
        _code_cell(
            "def summary(frame, caption=None):\n"
            "    return table_of(frame, {}, caption=caption)\n"
            "summary(frame, caption='Sizes')"
        ),
        _code_cell("frame", tags=["remove-output"]),
        _code_cell("fig, ax = plt.subplots()\nplt.close(fig)"),
        _markdown("```{table} Sizes of the data\n| d | n |\n|---|---|\n```\n"),
        _markdown(":::{table} Sizes\n| d | n |\n|---|---|\n:::\n"),
        _markdown("A sum $|x| + |y|$ inline is no table."),
        _markdown("$$\n|\\cos a| + |\\sin a|\n$$\n\n---\n"),
    )
    assert source_problems(notebook) == []


def test_planted_output_faults_are_caught():
    captioned = '<table id="T_a">\n  <caption>Noise</caption><tr></tr></table>'
    bare = "<table border='1' class='dataframe'><tr><td>0.5</td></tr></table>"
    styler = '<style></style><table id="T_b"><thead><tr><th>σ</th>'
    notebook = _notebook(
        _code_cell("t", [_html(captioned)]),
        _code_cell("f", [_html(bare)]),
        _markdown("text"),
        _code_cell("s", [_html(captioned + styler)]),
    )
    faults = uncaptioned_tables(notebook)
    assert len(faults) == 2, faults
    assert faults[0].startswith("cell 1: 0.5") and faults[1].startswith(
        "cell 3:"
    )
    assert (
        uncaptioned_tables(_notebook(_code_cell("t", [_html(captioned)]))) == []
    )


def test_a_page_outside_the_numbering_is_caught(tmp_path, monkeypatch):
    """A table on an unnumbered page that no label counts is reported."""
    import test_table_captions as module

    monkeypatch.setattr(
        module, "_unnumbered_pages", lambda: {"chapters/planted-page"}
    )
    (tmp_path / "chapters").mkdir()
    page = tmp_path / "chapters" / "planted-page.ipynb"
    page.write_text(json.dumps(_notebook(_code_cell(DESIGNED))))
    monkeypatch.setattr(module, "ROOT", tmp_path)
    with pytest.raises(AssertionError, match="planted-page"):
        module.test_every_page_with_tables_numbers_them()
