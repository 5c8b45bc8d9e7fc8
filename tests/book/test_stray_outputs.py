"""No page shows stderr or a path of the build machine (issue 40, item 4):
``tools/render_book.py`` refuses to render executed chapters with such
outputs. Planted faults it must catch, and clean outputs it must pass."""

import json
import tempfile
from pathlib import Path

import pytest
from bookpaths import ROOT  # tools/ (pytest pythonpath)
from render_book import stray_outputs, uncaptioned_outputs


def notebook(tmp_path, *outputs):
    cells = [
        {"cell_type": "code", "source": "x", "outputs": list(outputs)},
        {"cell_type": "markdown", "source": "text"},
    ]
    path = tmp_path / "chapter.ipynb"
    path.write_text(json.dumps({"cells": cells}))
    return path


def stream(name, text):
    return {"output_type": "stream", "name": name, "text": text}


def display(text, kind="text/plain"):
    return {"output_type": "execute_result", "data": {kind: text}}


WARNING = (
    "/srv/book/.venv/lib/python3.11/site-packages/sklearn/base.py:921: "
    "UtilityWarning: the forecast ...\n"
)


@pytest.mark.parametrize(
    "output",
    [
        stream("stderr", "UtilityWarning: the forecast shows ...\n"),
        stream("stdout", WARNING),
        display("<pre>" + WARNING + "</pre>", "text/html"),
        display(f"loaded {Path.home() / 'data' / 'census.npz'}"),
        display(f"cached in {Path(tempfile.gettempdir()) / 'x.npz'}"),
        display(f"notebook at {ROOT / 'chapters'}"),
    ],
)
def test_planted_faults_are_caught(tmp_path, output):
    faults = stray_outputs(notebook(tmp_path, output))
    assert len(faults) == 1 and faults[0].startswith("cell 0:"), faults


def test_clean_outputs_pass(tmp_path):
    path = notebook(
        tmp_path,
        stream("stdout", "ValueError: a row norm exceeds the bound\n"),
        display("0.693 of PCA's captured variance"),
        display("<table><tr><td>1.0</td></tr></table>", "text/html"),
    )
    assert stray_outputs(path) == []


def test_a_table_without_a_caption_is_refused_before_rendering(tmp_path):
    bare = display("<table><tr><td>1.0</td></tr></table>", "text/html")
    faults = uncaptioned_outputs(notebook(tmp_path, bare))
    assert len(faults) == 1 and "cell 0" in faults[0], faults
    captioned = display(
        "<table><caption>The noise</caption><tr><td>1</td></tr></table>",
        "text/html",
    )
    assert uncaptioned_outputs(notebook(tmp_path, captioned)) == []
