"""Execute every chapter listed in _toc.yml through papermill with FAST=True
injected.

The executed copy is written to _build/fast/<chapter>.ipynb whether or not the
run succeeds, so a failing cell can be read there; tools/render_book.py fast
then renders those copies.
"""

from __future__ import annotations

import json

import papermill as pm
import pytest
from bookpaths import EXECUTED, ROOT, toc_notebooks

NOTEBOOKS = toc_notebooks()


def has_parameters_cell(path) -> bool:
    cells = json.loads(path.read_text())["cells"]
    return any(
        "parameters" in c.get("metadata", {}).get("tags", []) for c in cells
    )


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_chapter_runs_in_fast_mode(notebook):
    assert has_parameters_cell(notebook), (
        f"{notebook.name} has no cell tagged 'parameters'"
    )
    out = EXECUTED["fast"] / notebook.relative_to(ROOT)
    out.parent.mkdir(parents=True, exist_ok=True)
    pm.execute_notebook(
        str(notebook),
        str(out),
        parameters={"FAST": True, "SEED": 0},
        cwd=str(notebook.parent),
        kernel_name="python3",
        progress_bar=False,
        request_save_on_cell_execute=True,
        execution_timeout=600,
    )


def test_every_toc_notebook_is_listed_once():
    stems = [p.stem for p in NOTEBOOKS]
    assert len(stems) == len(set(stems))
    on_disk = {p.stem for p in (ROOT / "chapters").glob("*.ipynb")}
    assert on_disk <= set(stems), (
        f"chapters not in _toc.yml: {sorted(on_disk - set(stems))}"
    )


def test_no_chapter_hides_an_output():
    """An output behind "Show code cell output" is missing from the PDF (which
    prints no toggles) while the prose goes on discussing it (issue 40: a
    table the text interprets, the first demonstration of the estimator).
    Outputs are shown, or removed with their cell (``remove-output`` on a
    cell whose result the prose quotes through ``glue``)."""
    hidden = [
        f"{path.name} cell {i}"
        for path in toc_notebooks()
        for i, cell in enumerate(json.loads(path.read_text())["cells"])
        if "hide-output" in cell.get("metadata", {}).get("tags", [])
        or "hide-cell" in cell.get("metadata", {}).get("tags", [])
    ]
    assert hidden == [], hidden
