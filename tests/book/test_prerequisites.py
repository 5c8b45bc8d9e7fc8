"""Every page says what it assumes, from one list (issue 39).

``chapters/prerequisites.yml`` names, for every numbered page, the earlier
chapters and the toolkit sections it builds on. Each page opens with a
``**Prerequisites:**`` line whose ``{doc}`` and ``{ref}`` targets are exactly
that entry; every toolkit label exists; every prerequisite comes earlier in
the book (or is a toolkit section), so the dependency diagram of the
introduction has no cycle."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from bookpaths import ROOT, toc_notebooks  # noqa: E402

LIST = ROOT / "chapters" / "prerequisites.yml"
LINE = re.compile(r"^\*\*Prerequisites:\*\*(?P<rest>.*)$", re.MULTILINE)
DOC = re.compile(r"\{doc\}`(?:[^`<]*<)?(?P<target>[^`>]+)>?`")
REF = re.compile(r"\{ref\}`(?:[^`<]*<)?(?P<target>[^`>]+)>?`")
#: A numbered link to a section page, whose label is ``sec-<stem>``.
NUMREF = re.compile(r"\{numref\}`[^`<]*<sec-(?P<target>[\w-]+)>`")


def prerequisites() -> dict:
    return yaml.safe_load(LIST.read_text())


def pages() -> list[Path]:
    """The notebooks of the numbered parts (not the introduction, the root,
    nor the back matter)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    numbered = set()

    def walk(entries):
        for entry in entries or []:
            numbered.add(Path(entry["file"]).name)
            walk(entry.get("sections"))

    for part in toc["parts"]:
        if part.get("numbered"):
            walk(part.get("chapters"))
    return [nb for nb in toc_notebooks() if nb.stem in numbered]


def prerequisite_line(notebook: Path) -> str | None:
    cells = json.loads(notebook.read_text())["cells"]
    for cell in cells[:3]:
        if cell["cell_type"] != "markdown":
            continue
        match = LINE.search("".join(cell["source"]))
        if match:
            return match.group("rest")
    return None


def line_targets(line: str) -> tuple[list[str], list[str]]:
    docs = [Path(m.group("target").strip()).stem for m in DOC.finditer(line)]
    docs += [m.group("target") for m in NUMREF.finditer(line)]
    refs = [m.group("target").strip() for m in REF.finditer(line)]
    return docs, refs


def toolkit_labels() -> set[str]:
    labels = set()
    for nb in (ROOT / "chapters").glob("toolkit-*.ipynb"):
        for cell in json.loads(nb.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                labels |= set(
                    re.findall(
                        r"^\((toolkit-[\w-]+)\)=", "".join(cell["source"]), re.M
                    )
                )
    return labels


def test_every_page_is_listed_and_every_listed_page_exists():
    listed = set(prerequisites())
    stems = {nb.stem for nb in pages()}
    assert stems <= listed, f"pages without an entry: {sorted(stems - listed)}"
    assert listed <= stems, f"entries without a page: {sorted(listed - stems)}"


@pytest.mark.parametrize("notebook", pages(), ids=lambda p: p.stem)
def test_the_page_opens_with_its_prerequisites(notebook):
    line = prerequisite_line(notebook)
    assert line is not None, (
        f"{notebook.name}: no **Prerequisites:** line at the top"
    )
    entry = prerequisites()[notebook.stem]
    docs, refs = line_targets(line)
    if not entry["chapters"] and not entry["toolkit"]:
        assert not docs and not refs, line
        assert "none" in line.lower(), line
        return
    assert sorted(docs) == sorted(entry["chapters"]), (notebook.stem, docs)
    assert sorted(refs) == sorted(entry["toolkit"]), (notebook.stem, refs)


def test_prerequisites_come_earlier_and_toolkit_labels_exist():
    order = [nb.stem for nb in pages()]
    labels = toolkit_labels()
    for stem, entry in prerequisites().items():
        for earlier in entry["chapters"]:
            assert order.index(earlier) < order.index(stem), (stem, earlier)
        missing = set(entry["toolkit"]) - labels
        assert not missing, (stem, missing)


def test_the_line_parser_reads_both_link_forms():
    line = (
        " {doc}`chapter 2 <02-gaussian-input-perturbation>`, "
        "{doc}`01-dp-for-matrices`; toolkit: "
        "{ref}`principal angles <toolkit-principal-angles>`."
    )
    assert line_targets(line) == (
        ["02-gaussian-input-perturbation", "01-dp-for-matrices"],
        ["toolkit-principal-angles"],
    )
