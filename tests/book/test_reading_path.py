"""The code on the reading path stays short (issue 29): at most 250 visible
lines per chapter and 2,500 in the whole book, as tools/visible_code.py
counts them (visible cells and package listings outside dropdowns)."""

import visible_code  # noqa: E402
from bookpaths import toc_notebooks  # noqa: E402

MAX_CHAPTER, MAX_TOTAL = 250, 2_500


def test_every_chapter_keeps_its_visible_code_short():
    lines = {
        nb.stem: sum(visible_code.visible_code(nb)) for nb in toc_notebooks()
    }
    over = {stem: n for stem, n in lines.items() if n > MAX_CHAPTER}
    assert not over, over
    assert sum(lines.values()) <= MAX_TOTAL, sum(lines.values())


def test_a_listing_in_a_dropdown_is_not_counted(tmp_path):
    source = tmp_path / "module.py"
    source.write_text(
        "def f(x):\n    '''Doc.'''\n    y = x + 1\n    return y\n"
    )
    listing = (
        "```{literalinclude} module.py\n:language: python\n:pyobject: f\n```\n"
    )
    dropdown = "````{dropdown} Source\n" + listing + "````\n"
    code = {"cell_type": "code", "metadata": {}, "source": "a = 1\n\nb = 2\n"}
    hidden = {
        "cell_type": "code",
        "metadata": {"tags": ["hide-input"]},
        "source": "c = 3\n",
    }
    import json

    for text, expected in [(listing, (2, 3)), (dropdown, (2, 0))]:
        nb = tmp_path / "chapter.ipynb"
        cells = [code, hidden, {"cell_type": "markdown", "source": text}]
        nb.write_text(json.dumps({"cells": cells}))
        assert visible_code.visible_code(nb) == expected
