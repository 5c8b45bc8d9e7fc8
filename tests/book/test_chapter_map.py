"""The chapter-dependency diagram of the introduction
(``dppca.book.plotting.chapter_map``): it draws exactly the chapter edges of
``chapters/prerequisites.yml``, every prerequisite above the chapter that
needs it, at the book's width and with text of at least 9 points."""

from __future__ import annotations

import json

import pytest
import yaml

pytest.importorskip("matplotlib")
import matplotlib.pyplot as plt  # noqa: E402
from bookpaths import ROOT  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from dppca.book import contents  # noqa: E402
from dppca.book.plotting import chapter_map  # noqa: E402

CHAPTERS = ROOT / "chapters"


def book_inputs():
    prerequisites = yaml.safe_load((CHAPTERS / "prerequisites.yml").read_text())
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    return (
        prerequisites,
        contents.page_titles(CHAPTERS, prerequisites),
        contents.chapter_numbers(toc, prerequisites, own_sections()),
        contents.toolkit_sections(CHAPTERS),
    )


def chapter_inputs():
    """What the introduction draws: the chapters only, each section page
    folded into its chapter (``contents.chapters_only``)."""
    prerequisites, titles, numbers, sections = book_inputs()
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    owner = contents.chapter_of(toc)
    folded = contents.chapters_only(prerequisites, owner)
    sections = {label: owner.get(p, p) for label, p in sections.items()}
    return folded, titles, numbers, sections


def own_sections():
    return {
        path.stem: contents.own_section_count(path)
        for path in CHAPTERS.glob("*.ipynb")
    }


def yml_edges(prerequisites):
    return [
        (earlier, page)
        for page, entry in prerequisites.items()
        for earlier in entry["chapters"]
    ]


@pytest.fixture(scope="module")
def drawn():
    prerequisites, titles, numbers, sections = chapter_inputs()
    fig, edges = chapter_map.draw_chapter_map(
        prerequisites, titles, numbers, sections
    )
    yield prerequisites, fig, edges
    plt.close(fig)


def test_the_edges_drawn_are_the_chapter_edges_of_the_yml(drawn):
    prerequisites, _, edges = drawn
    pairs = [(e.prerequisite, e.page) for e in edges]
    assert pairs == yml_edges(prerequisites)
    assert len(set(pairs)) == len(pairs)
    assert len(pairs) > 0


def test_every_prerequisite_is_drawn_above_its_dependant(drawn):
    prerequisites, _, edges = drawn
    for edge in edges:
        assert edge.start[1] > edge.end[1], edge
    toolkit = set(contents.toolkit_sections(CHAPTERS).values())
    apart = [p for p in prerequisites if p in toolkit]
    rows = chapter_map.layers(prerequisites, apart=apart)
    for earlier, page in yml_edges(prerequisites):
        assert rows[earlier] < rows[page], (earlier, page)


def test_the_figure_is_the_column_width_with_text_of_9_points(drawn):
    _, fig, _ = drawn
    width, height = fig.get_size_inches()
    assert width == pytest.approx(6.5)
    assert 0 < height < 10
    texts = [t for t in fig.findobj(Text) if t.get_text().strip()]
    assert texts
    assert min(t.get_fontsize() for t in texts) >= 9
    # every text stays inside the figure
    fig.canvas.draw()
    box = fig.bbox
    for t in texts:
        extent = t.get_window_extent()
        assert extent.x0 >= box.x0 - 1 and extent.x1 <= box.x1 + 1, t


def test_every_page_and_toolkit_label_is_named():
    prerequisites, titles, numbers, sections = book_inputs()
    assert set(titles) == set(prerequisites)
    assert all(titles.values())
    used = {label for e in prerequisites.values() for label in e["toolkit"]}
    assert used <= set(sections), sorted(used - set(sections))
    assert numbers["01-dp-for-matrices"] == "1"
    # a section page continues its chapter's own sections, as Sphinx numbers
    # them (the sidebar and the page's title show this number)
    own = own_sections()
    assert (
        numbers["01-what-dp-promises"] == f"1.{own['01-dp-for-matrices'] + 1}"
    )
    assert (
        numbers["10-auditing-floating-point"] == f"10.{own['10-auditing'] + 1}"
    )
    assert numbers["10-auditing-the-package"] == f"10.{own['10-auditing'] + 2}"
    assert numbers["18-private-covariance"] == "18"
    assert numbers["19-lower-bounds"] == "19"
    toolkit = [p for p in prerequisites if p.startswith("toolkit-")]
    # the toolkit's chapters, not the section pages listed under them
    toolkit = [
        p for p in toolkit if not any(p.startswith(f"{q}-") for q in toolkit)
    ]
    assert [numbers[p] for p in toolkit] == ["20", "21", "22", "23"]


def test_the_map_folds_every_section_page_into_its_chapter():
    folded, *_ = chapter_inputs()
    raw, *_ = book_inputs()
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    owner = contents.chapter_of(toc)
    sections = {p for p in raw if owner.get(p, p) != p}
    assert sections, "the book has section pages"
    assert not sections & set(folded)
    for page, entry in raw.items():
        chapter = owner.get(page, page)
        for earlier in entry["chapters"]:
            if owner.get(earlier, earlier) != chapter:
                assert (
                    owner.get(earlier, earlier) in folded[chapter]["chapters"]
                )


def test_the_planned_toolkit_labels_match_the_written_pages():
    written = sorted(CHAPTERS.glob("toolkit-*.ipynb"))
    for notebook in written:
        labels = set()
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                labels |= set(contents._LABEL.findall("".join(cell["source"])))
        planned = {
            label
            for label, page in contents.TOOLKIT_SECTIONS.items()
            if page == notebook.stem
        }
        assert planned <= labels, (notebook.stem, planned - labels)


def test_numbers_follow_the_toc_and_then_the_pages_it_lacks():
    toc = {
        "root": "chapters/00-introduction",
        "parts": [
            {
                "numbered": True,
                "chapters": [
                    {
                        "file": "chapters/a",
                        "sections": [{"file": "chapters/a-1"}],
                    },
                    {"file": "chapters/b"},
                ],
            },
            {"numbered": True, "chapters": [{"file": "api/x"}]},
            {"caption": "Back matter", "chapters": [{"file": "chapters/z"}]},
        ],
    }
    numbers = contents.chapter_numbers(toc, ["b", "t1", "z", "t2"])
    assert contents.chapter_numbers(toc, (), {"a": 7})["a-1"] == "1.8"
    assert numbers == {
        "a": "1",
        "a-1": "1.1",
        "b": "2",
        "x": "3",
        "t1": "3",
        "t2": "4",
    }  # z, in the back matter, has no number


def test_a_long_edge_gets_a_lane_and_a_wide_row_is_split():
    toy = {
        "a": {"chapters": [], "toolkit": []},
        "b": {"chapters": ["a"], "toolkit": []},
        "c": {"chapters": ["b"], "toolkit": []},
        "d": {"chapters": ["a", "c"], "toolkit": []},
        **{f"leaf{i}": {"chapters": ["a"], "toolkit": []} for i in range(9)},
    }
    rows = chapter_map.layers(toy)
    assert rows["a"] < rows["b"] < rows["c"] < rows["d"]
    leaves_per_row = {}
    for i in range(9):
        leaves_per_row.setdefault(rows[f"leaf{i}"], []).append(i)
    assert len(leaves_per_row) > 1  # nine boxes do not fit in one row
    fig, edges = chapter_map.draw_chapter_map(
        toy, {p: p.upper() for p in toy}, {}
    )
    try:
        assert [(e.prerequisite, e.page) for e in edges] == yml_edges(toy)
        assert all(e.start[1] > e.end[1] for e in edges)
    finally:
        plt.close(fig)


def test_a_cycle_an_unknown_page_or_label_is_refused():
    cycle = {
        "a": {"chapters": ["b"], "toolkit": []},
        "b": {"chapters": ["a"], "toolkit": []},
    }
    with pytest.raises(ValueError, match="cycle"):
        chapter_map.layers(cycle)
    with pytest.raises(ValueError, match="not listed"):
        contents.chapter_edges({"a": {"chapters": ["zz"], "toolkit": []}})
    with pytest.raises(ValueError, match="toolkit labels without a page"):
        chapter_map.draw_chapter_map(
            {"a": {"chapters": [], "toolkit": ["toolkit-nope"]}},
            {"a": "A"},
            {},
            {"toolkit-x": "t"},
        )


def test_titles_are_shortened_for_the_boxes():
    assert (
        contents.short_title("Gaussian input perturbation: MOD-SULQ")
        == "Gaussian input perturbation"
    )
    assert (
        contents.short_title("Classification in private subspaces (Table 2)")
        == "Classification in private subspaces"
    )
    assert contents.short_title("Toolkit: linear algebra") == "Linear algebra"
