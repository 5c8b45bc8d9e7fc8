"""The machinery that runs the book: table of contents, parameters cells,
papermill injection,
stripped notebooks and the execution cache key."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import execute_chapters
import nbformat
import papermill as pm
import pytest
import render_book
import yaml
from bookpaths import ROOT, toc_documents, toc_notebooks


def code_cells(path):
    return [
        c
        for c in json.loads(path.read_text())["cells"]
        if c["cell_type"] == "code"
    ]


def test_toc_lists_existing_documents_with_root_first():
    docs = toc_documents()
    assert docs[0] == "chapters/00-introduction"
    assert len(docs) == len(set(docs))
    assert toc_notebooks(), "no notebook chapters found"


@pytest.mark.parametrize("notebook", toc_notebooks(), ids=lambda p: p.stem)
def test_chapter_has_standard_parameters_cell(notebook):
    tagged = [
        c
        for c in code_cells(notebook)
        if "parameters" in c["metadata"].get("tags", [])
    ]
    assert len(tagged) == 1, "exactly one cell must be tagged 'parameters'"
    namespace = {}
    exec("".join(tagged[0]["source"]), namespace)
    assert namespace["FAST"] is False and namespace["SEED"] == 0


@pytest.mark.parametrize("notebook", toc_notebooks(), ids=lambda p: p.stem)
def test_chapter_is_stored_without_outputs(notebook):
    for cell in code_cells(notebook):
        assert not cell.get("outputs") and cell.get("execution_count") is None


def test_papermill_injects_fast_after_the_parameters_cell(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell(
            "FAST = False\nSEED = 0", metadata={"tags": ["parameters"]}
        ),
        nbformat.v4.new_code_cell("print(FAST, SEED)"),
    ]
    nb.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    src, out = tmp_path / "in.ipynb", tmp_path / "out.ipynb"
    nbformat.write(nb, src)
    pm.execute_notebook(
        str(src),
        str(out),
        parameters={"FAST": True, "SEED": 3},
        kernel_name="python3",
        progress_bar=False,
    )
    executed = nbformat.read(out, as_version=4)
    assert "injected-parameters" in executed.cells[1].metadata["tags"]
    assert executed.cells[-1].outputs[0]["text"].strip() == "True 3"


def test_execution_cache_key_tracks_notebook_mode_and_package(
    tmp_path, monkeypatch
):
    notebook = toc_notebooks()[0]
    key_full = execute_chapters.execution_key(notebook, fast=False)
    assert key_full != execute_chapters.execution_key(notebook, fast=True)
    fake_root = tmp_path / "book"
    (fake_root / "dppca").mkdir(parents=True)
    (fake_root / "chapters").mkdir()
    copy = fake_root / "chapters" / notebook.name
    copy.write_bytes(notebook.read_bytes())
    (fake_root / "constraints.txt").write_text("numpy==2\n")
    (fake_root / "dppca" / "core.py").write_text("x = 1\n")
    (fake_root / "_toc.yml").write_text("root: chapters/00-introduction\n")
    lists = fake_root / "chapters" / "prerequisites.yml"
    lists.write_text("a: {chapters: [], toolkit: []}\n")
    other = fake_root / "chapters" / "01-other.ipynb"
    other.write_text("{}")
    monkeypatch.setattr(execute_chapters, "ROOT", fake_root)
    key = functools.partial(execute_chapters.execution_key, copy, fast=False)
    before = key()
    (fake_root / "dppca" / "core.py").write_text("x = 2\n")
    assert key() != before
    # the book's lists, and (for the introduction, which draws the chapters'
    # dependencies) another chapter
    for path, text in [
        (lists, "b: {chapters: [], toolkit: []}\n"),
        (other, '{"cells": []}'),
    ]:
        before = key()
        path.write_text(text)
        assert key() != before, path.name


#: The reference matter (map, glossary, notation, bibliography, API),
#: unnumbered, at the end of the book.
UNNUMBERED_PARTS = ["Reference"]


def test_every_part_but_the_appendices_is_numbered():
    """Chapters are numbered in the sidebar and theorems per chapter (4.1,
    ...): each part of _toc.yml needs ``numbered: true`` (a part added
    without it breaks the count), but for the reference matter, unnumbered
    and last; at most six parts in all (issue 40)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    captions = [part.get("caption") for part in toc["parts"]]
    assert captions[-len(UNNUMBERED_PARTS) :] == UNNUMBERED_PARTS, captions
    numbered = toc["parts"][: -len(UNNUMBERED_PARTS)]
    unnumbered = [
        part["caption"] for part in numbered if part.get("numbered") is not True
    ]
    assert not unnumbered, f"parts without `numbered: true`: {unnumbered}"
    assert len(captions) <= 6, captions
    appendices = toc["parts"][-len(UNNUMBERED_PARTS) :]
    assert not any(part.get("numbered") for part in appendices)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["sphinx"]["config"]["numfig_secnum_depth"] == 1


def test_render_hides_the_parameters_cells(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell(
            "FAST = False\nSEED = 0", metadata={"tags": ["parameters"]}
        ),
        nbformat.v4.new_code_cell(
            "# Parameters\nFAST = True\nSEED = 0\n",
            metadata={"tags": ["injected-parameters"]},
        ),
        nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["hide-input"]}),
    ]
    path = tmp_path / "chapter.ipynb"
    nbformat.write(nb, path)
    assert render_book.hide_plumbing(path)
    cells = nbformat.read(path, as_version=4).cells
    assert ["remove-cell" in c.metadata.get("tags", []) for c in cells] == [
        False,
        True,
        True,
        False,
    ]
    assert not render_book.hide_plumbing(path), "a second pass changes nothing"


#: Every exercise's title begins with its grade (issue 39).
GRADES = ("Warm-up", "Conceptual", "Derivation", "Project")


def exercise_blocks(notebook):
    """(exercise labels, solution-start labels, solution-end count) of a
    chapter, in order."""
    exercises, starts, ends = [], [], 0
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        text = "".join(cell["source"])
        exercises += re.findall(r"```\{exercise\}[^\n]*\n:label: (\S+)", text)
        starts += re.findall(r"```\{solution-start\} (\S+)", text)
        ends += text.count("```{solution-end}")
    return exercises, starts, ends


def exercise_grades(notebook) -> list[str]:
    """The grade of each exercise: the first word of its title."""
    grades = []
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            for title in re.findall(r"```\{exercise\}([^\n]*)\n", text):
                grades.append(title.strip().split(":")[0].strip())
    return grades


def section_pages() -> set[str]:
    """The stems of the pages listed under a chapter's ``sections:`` in
    _toc.yml (sections of that chapter on pages of their own)."""
    return set(chapter_sections())


def chapter_sections() -> dict[str, str]:
    """section page stem -> its chapter's page stem, from _toc.yml."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = {}
    for part in toc.get("parts", []):
        for entry in part.get("chapters") or []:
            for section in entry.get("sections") or []:
                found[Path(section["file"]).name] = Path(entry["file"]).name
    return found


def chapter_pages() -> list[Path]:
    """The numbered chapters' own pages (not the introduction, the sections
    on pages of their own or the back matter)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbered = {
        Path(entry["file"]).name
        for part in toc.get("parts", [])
        if part.get("numbered")
        for entry in part.get("chapters") or []
    }
    return [nb for nb in toc_notebooks() if nb.stem in numbered]


@pytest.mark.parametrize("notebook", toc_notebooks(), ids=lambda p: p.stem)
def test_exercises_have_gated_collapsed_solutions(notebook):
    """Every exercise has one solution, opened after it and closed (the code
    cells between the gates are executed like any other), and a graded title;
    only chapters and their sections have exercises."""
    exercises, starts, ends = exercise_blocks(notebook)
    in_chapter = notebook.stem in section_pages() or notebook in chapter_pages()
    if not in_chapter:
        assert not exercises
    assert starts == exercises, "each exercise is followed by its own solution"
    assert ends == len(starts), "every solution-start needs a solution-end"
    source = notebook.read_text()
    assert source.count(":class: dropdown") >= len(starts), (
        "solutions are collapsed (:class: dropdown)"
    )
    grades = exercise_grades(notebook)
    assert len(grades) == len(exercises)
    ungraded = [g for g in grades if g not in GRADES]
    assert not ungraded, f"titles must begin with one of {GRADES}: {ungraded}"


#: The last section page of a chapter with section pages: its summary,
#: exercises and notes, after every other section (issue 40).
CLOSING_PAGE = "summary-exercises-notes"


def level_two_headings(notebook) -> list[str]:
    return [
        line
        for cell in json.loads(notebook.read_text())["cells"]
        if cell["cell_type"] == "markdown"
        for line in "".join(cell["source"]).splitlines()
        if line.startswith("## ")
    ]


@pytest.mark.parametrize("chapter", chapter_pages(), ids=lambda p: p.stem)
def test_every_chapter_has_graded_exercises_and_further_reading(chapter):
    """At least four exercises per chapter (with its sections), one of them a
    warm-up and one conceptual; the chapter's last page ends with its notes
    and further reading, after its exercises (issue 39). That last page is the
    chapter's own page when it has no section pages; otherwise it is its last
    section page, ``...-summary-exercises-notes``, whose sections are the
    summary, the exercises and the notes. The chapter's own page then has
    none of the three, and no other section page has notes (issue 40: the
    section pages came after the chapter's exercises and notes)."""
    sections = [
        chapter.parent / f"{section}.ipynb"
        for section, owner in chapter_sections().items()
        if owner == chapter.stem
    ]
    pages = [chapter] + sections
    grades = [g for page in pages for g in exercise_grades(page)]
    assert len(grades) >= 4, (chapter.stem, grades)
    assert "Warm-up" in grades and "Conceptual" in grades, grades
    last = sections[-1] if sections else chapter
    headings = level_two_headings(last)
    assert headings[-2:] == ["## Exercises", "## Notes and further reading"], (
        last.stem,
        headings[-3:],
    )
    if not sections:
        return
    assert last.stem.endswith(f"-{CLOSING_PAGE}"), (
        f"{chapter.stem}: the last section page must be its summary,"
        f" exercises and notes, not {last.stem}"
    )
    assert headings == [
        "## Summary",
        "## Exercises",
        "## Notes and further reading",
    ], (last.stem, headings)
    closing = {"## Summary", "## Exercises", "## Notes and further reading"}
    assert not closing & set(level_two_headings(chapter)), chapter.stem
    for page in sections[:-1]:
        assert "## Notes and further reading" not in level_two_headings(page), (
            page.stem
        )


def test_section_pages_are_numbered_at_most_three_levels_deep():
    """A section page is numbered like 17.4, so a ``###`` on it would read
    17.4.1.2 (issue 40): its sections are ``##``, smaller units run-in bold
    titles. A chapter's own page may keep ``###``."""
    for stem in section_pages():
        page = ROOT / "chapters" / f"{stem}.ipynb"
        deep = [
            line
            for cell in json.loads(page.read_text())["cells"]
            if cell["cell_type"] == "markdown"
            for line in "".join(cell["source"]).splitlines()
            if line.startswith("###")
        ]
        assert not deep, (stem, deep)


def test_exercise_labels_are_unique_in_the_book():
    labels = [
        label for nb in toc_notebooks() for label in exercise_blocks(nb)[0]
    ]
    assert len(labels) == len(set(labels))
