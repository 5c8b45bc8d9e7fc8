"""The chapters that run the peer libraries (8, 9, 12) give the same glued
values on two executions with the same SEED in FAST mode: nothing
they show depends on the speed of the machine.

Each case executes its chapter twice through papermill (marker
``notebook``): about 2 x 110 s for section 8.6 (08-utility-versus-n), 2 x 30 s for chapter 9 and
2 x 40 s for chapter 12 and 2 x 60 s for its section 12.7 on a busy 2-core machine.
"""

from __future__ import annotations

import json

import papermill as pm
import pytest
from bookpaths import ROOT

CHAPTERS = [
    ROOT / "chapters" / f"{name}.ipynb"
    for name in (
        "08-utility-versus-n",
        "09-classification",
        "08-utility-versus-epsilon",
        "12-peer-libraries",
        "12-peer-libraries-privacy-and-utility",
    )
]


def glued_values(path) -> dict:
    """Every value a notebook glues (myst_nb's ``glue``): name -> its data
    (every representation, as JSON)."""
    out = {}
    for cell in json.loads(path.read_text())["cells"]:
        for output in cell.get("outputs", []):
            name = output.get("metadata", {}).get("scrapbook", {}).get("name")
            if name:
                out[name] = json.dumps(output["data"], sort_keys=True)
    return out


def test_glued_values_are_read_from_outputs():
    cell = {
        "outputs": [
            {
                "metadata": {"scrapbook": {"name": "x", "mime_prefix": ""}},
                "data": {"text/plain": "1.5"},
            }
        ]
    }
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "nb.ipynb"
        path.write_text(json.dumps({"cells": [cell]}))
        assert glued_values(path) == {"x": '{"text/plain": "1.5"}'}


@pytest.mark.notebook
@pytest.mark.parametrize("notebook", CHAPTERS, ids=lambda p: p.stem)
def test_same_seed_same_glued_values(notebook, tmp_path):
    runs = []
    for attempt in ("first", "second"):
        out = tmp_path / f"{attempt}.ipynb"
        pm.execute_notebook(
            str(notebook),
            str(out),
            parameters={"FAST": True, "SEED": 0},
            cwd=str(notebook.parent),
            kernel_name="python3",
            progress_bar=False,
        )
        runs.append(glued_values(out))
    first, second = runs
    assert first, "the chapter glues values"
    differ = {
        k: (first[k], second.get(k)) for k in first if first[k] != second.get(k)
    }
    assert not differ and first.keys() == second.keys(), differ
