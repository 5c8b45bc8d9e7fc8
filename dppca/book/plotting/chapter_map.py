"""The chapter-dependency diagram of the introduction, drawn with matplotlib
alone from ``chapters/prerequisites.yml``.

The diagram is layered from the top down: every chapter sits in a row below
all of its prerequisite chapters, and an arrow runs from each prerequisite to
each chapter that names it. Long arrows pass through the rows they cross in
lanes of their own (the layout of Sugiyama et al.: layers, dummy points for
long edges, orderings that reduce crossings, then positions). The pages with
no prerequisite chapter and no dependant chapter that hold the toolkit
sections sit in a band at the bottom; each chapter's box names, in grey, the
numbers of the toolkit chapters whose sections it uses. The pages' numbers,
titles and toolkit sections are read by :mod:`dppca.book.contents`.

Text is set at :data:`FONT_SIZE` points and the figure is
:data:`FIGURE_WIDTH` inches wide, the book's column.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

import matplotlib.pyplot as plt
from matplotlib.font_manager import FontProperties
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch, Rectangle
from matplotlib.path import Path as MplPath
from matplotlib.textpath import TextPath

from ..contents import chapter_edges, short_title

#: Size of every text of the diagram, in points.
FONT_SIZE = 9
#: Width of the figure, in inches.
FIGURE_WIDTH = 6.5
#: Narrowest and widest box of a chapter, inches; a row's boxes share the
#: width its chapters and lanes leave.
BOX_WIDTH = (0.98, 1.55)
#: Width of the lane of an arrow that crosses a row, and the space between
#: two items of a row, inches.
LANE, GAP = 0.1, 0.07
#: Inner margin of a box, points.
PAD = 3.0
#: Vertical space between two rows, for the arrows, inches.
ROW_SPACE = 0.3
#: Colours: box edge and fill, toolkit fill, arrows, toolkit numbers.
COLOURS = {
    "edge": "#4a4a4a",
    "fill": "#eef3fa",
    "toolkit": "#f4f1e8",
    "arrow": "#5a6a7a",
    "note": "#6b6b6b",
}


class Edge(NamedTuple):
    """An arrow of the diagram: from ``prerequisite`` to ``page``, starting
    at ``start`` and ending at ``end`` (inches, y upwards)."""

    prerequisite: str
    page: str
    start: tuple[float, float]
    end: tuple[float, float]


def _longest_path_layers(nodes, edges) -> dict[str, int]:
    """Each node's layer: one more than its prerequisites' largest, then
    moved down to just above its nearest dependant."""
    before = {v: [u for u, w in edges if w == v] for v in nodes}
    after = {u: [w for v, w in edges if v == u] for u in nodes}
    layer: dict[str, int] = {}

    def place(v, seen=()):
        if v in seen:
            raise ValueError(f"the prerequisites have a cycle through {v}")
        if v not in layer:
            ups = [place(u, (*seen, v)) for u in before[v]]
            layer[v] = 1 + max(ups) if ups else 0
        return layer[v]

    for v in nodes:
        place(v)
    for v in sorted(nodes, key=lambda v: -layer[v]):
        if after[v]:
            layer[v] = max(layer[v], min(layer[w] for w in after[v]) - 1)
    return layer


def _row_width(items: int, lanes: int) -> float:
    return items * BOX_WIDTH[0] + lanes * LANE + (items + lanes - 1) * GAP


def layers(
    prerequisites: Mapping, width: float = FIGURE_WIDTH, apart=()
) -> dict:
    """The row of every page but those ``apart`` (0 at the top): below all
    its prerequisite chapters, as low as its nearest dependant allows, and
    with a chapter that no other needs moved one row down while its row is
    wider than ``width`` inches (boxes at their narrowest, and a lane for
    each arrow crossing the row). Raises ``ValueError`` for a page set
    apart that has a chapter edge."""
    edges = chapter_edges(prerequisites)
    linked = sorted({p for e in edges for p in e} & set(apart))
    if linked:
        raise ValueError(f"pages set apart with chapter edges: {linked}")
    nodes = [p for p in prerequisites if p not in apart]
    layer = _longest_path_layers(nodes, edges)
    for _ in range(4 * len(nodes)):
        top = max(layer.values(), default=0)
        rows = {r: [v for v in nodes if layer[v] == r] for r in range(top + 1)}
        lanes = {r: 0 for r in rows}
        for u, v in edges:
            for r in range(layer[u] + 1, layer[v]):
                lanes[r] += 1
        wide = [r for r in rows if _row_width(len(rows[r]), lanes[r]) > width]
        if not wide:
            break
        leaves = [v for v in rows[wide[0]] if not any(u == v for u, _ in edges)]
        if not leaves:
            break
        fewest = min(leaves, key=lambda v: (sum(w == v for _, w in edges), v))
        layer[fewest] += 1
    return layer


def _crossings(order, links) -> int:
    count = 0
    for r in range(len(order) - 1):
        pos = {v: i for i, v in enumerate(order[r + 1])}
        here = {v: i for i, v in enumerate(order[r])}
        pairs = [(here[a], pos[b]) for a, b in links if a in here and b in pos]
        for i, (a1, b1) in enumerate(pairs):
            for a2, b2 in pairs[i + 1 :]:
                count += (a1 - a2) * (b1 - b2) < 0
    return count


def _orders(nodes, layer, edges):
    """Rows of nodes and lanes (``(u, v, row)`` for an arrow crossing a row)
    ordered by barycentre sweeps, with the links between adjacent rows."""
    top = max(layer.values())
    order = [[v for v in nodes if layer[v] == r] for r in range(top + 1)]
    links = []
    for u, v in edges:
        chain = [u, *((u, v, r) for r in range(layer[u] + 1, layer[v])), v]
        for r, lane in enumerate(chain[1:-1], layer[u] + 1):
            order[r].append(lane)
        links += list(zip(chain, chain[1:]))
    best, best_count = [list(row) for row in order], _crossings(order, links)
    for sweep in range(24):
        down = sweep % 2 == 0
        rows = range(1, top + 1) if down else range(top - 1, -1, -1)
        for r in rows:
            ref = {v: i for i, v in enumerate(order[r - 1 if down else r + 1])}
            ends = (0, 1) if down else (1, 0)
            centre = {}
            for x in order[r]:
                near = [
                    ref[link[ends[0]]]
                    for link in links
                    if link[ends[1]] == x and link[ends[0]] in ref
                ]
                centre[x] = sum(near) / len(near) if near else None
            keep = {x: i for i, x in enumerate(order[r])}
            order[r].sort(
                key=lambda x: (
                    keep[x] if centre[x] is None else centre[x],
                    keep[x],
                )
            )
        count = _crossings(order, links)
        if count < best_count:
            best, best_count = [list(row) for row in order], count
    return best, links


def _isotonic(values):
    """The non-decreasing sequence nearest to ``values`` (least squares)."""
    blocks = []
    for v in values:
        blocks.append([v, 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            v2, n2 = blocks.pop()
            v1, n1 = blocks.pop()
            blocks.append([(v1 * n1 + v2 * n2) / (n1 + n2), n1 + n2])
    return [v for v, n in blocks for _ in range(n)]


def _place_row(row, widths, wanted, width):
    """Centres for the items of a row, in order, nearest to ``wanted``
    with ``GAP`` between neighbours, inside ``[0, width]``."""
    offsets, at = [], 0.0
    for i, x in enumerate(row):
        if i:
            at += (widths[row[i - 1]] + widths[x]) / 2 + GAP
        offsets.append(at)
    slack = width - widths[row[0]] / 2 - widths[row[-1]] / 2 - offsets[-1]
    shifted = _isotonic([wanted[x] - o for x, o in zip(row, offsets)])
    low = widths[row[0]] / 2
    return {
        x: min(max(s, low), low + max(slack, 0.0)) + o
        for x, s, o in zip(row, shifted, offsets)
    }


def _wrap(words, width_pt, first=""):
    """Lines of at most ``width_pt`` points at :data:`FONT_SIZE` (a word
    longer than that gets a line of its own)."""
    font = FontProperties(size=FONT_SIZE)

    def size(text):
        return TextPath((0, 0), text, prop=font).get_extents().width

    lines, line = [], first
    for word in words:
        trial = f"{line} {word}".strip() if line else word
        if line and size(trial) > width_pt:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line] if line else lines


def _label(number, title, width_in):
    """The lines of a box: its number in bold, then its title, wrapped."""
    bold = f"$\\mathbf{{{number}}}$" if number else ""
    return _wrap(short_title(title).split(), width_in * 72 - 2 * PAD, bold)


def _box(ax, centre, size, lines, note, fill):
    """A rounded box with its lines centred and a grey note under them."""
    (x, y), (w, h) = centre, size
    ax.add_patch(
        FancyBboxPatch(
            (x - w / 2, y - h / 2),
            w,
            h,
            boxstyle="round,pad=0,rounding_size=0.06",
            facecolor=fill,
            edgecolor=COLOURS["edge"],
            linewidth=0.8,
            zorder=3,
        )
    )
    ax.text(
        x,
        y + h / 2 - PAD / 72,
        "\n".join(lines),
        ha="center",
        va="top",
        fontsize=FONT_SIZE,
        linespacing=1.15,
        zorder=4,
    )
    if note:
        ax.text(
            x,
            y - h / 2 + PAD / 72,
            note,
            ha="center",
            va="bottom",
            fontsize=FONT_SIZE,
            color=COLOURS["note"],
            zorder=4,
        )


def _height(lines, note) -> float:
    return (len(lines) + bool(note)) * FONT_SIZE * 1.2 / 72 + 2 * PAD / 72


def _notes(prerequisites, numbers, sections) -> dict[str, str]:
    """For each page, the numbers of the toolkit chapters whose sections it
    uses ("19 · 22"); empty without ``sections``."""
    notes = {}
    for page, entry in prerequisites.items():
        used = {
            numbers.get(sections[label], "")
            for label in (entry or {}).get("toolkit") or []
            if label in sections
        } - {""}
        notes[page] = " · ".join(sorted(used, key=lambda t: (len(t), t)))
    return notes


class _Layout(NamedTuple):
    """Rows (pages and lanes, left to right), sizes and centres (inches,
    y upwards), the height of each row and of the figure."""

    rows: list
    row_of: dict
    widths: dict
    heights: dict
    labels: dict
    centre: dict
    row_h: list
    height: float


def _layout(
    prerequisites, titles, numbers, notes, width, below, apart
) -> _Layout:
    """Place the pages but those ``apart``, ``below`` inches of the figure
    left free at its bottom."""
    edges = chapter_edges(prerequisites)
    row_of = layers(prerequisites, width, apart)
    rows, links = _orders(list(row_of), row_of, edges)
    widths, heights, labels = {}, {}, {}
    for row in rows:
        pages = [x for x in row if isinstance(x, str)]
        lanes = len(row) - len(pages)
        share = (width - lanes * LANE - (len(row) - 1) * GAP) / len(pages)
        box = min(max(share, BOX_WIDTH[0]), BOX_WIDTH[1])
        for x in row:
            if isinstance(x, str):
                widths[x] = box
                labels[x] = _label(numbers.get(x, ""), titles.get(x, x), box)
                heights[x] = _height(labels[x], notes[x])
            else:
                widths[x], heights[x] = LANE, 0.0
    row_h = [max(heights[x] for x in row) for row in rows]
    height = sum(row_h) + ROW_SPACE * (len(rows) - 1) + below
    centre, y = {}, height
    for r, row in enumerate(rows):
        at = (width - sum(widths[x] for x in row) - GAP * (len(row) - 1)) / 2
        for x in row:  # boxes hang from the row's top; lanes span the row
            centre[x] = [at + widths[x] / 2, y - (heights[x] or row_h[r]) / 2]
            at += widths[x] + GAP
        y -= row_h[r] + ROW_SPACE
    # pull each item towards its neighbours in the rows above and below,
    # a few sweeps each way, keeping the order and the gaps
    for sweep in range(16):
        down = sweep % 2 == 0
        for r in range(len(rows)) if down else range(len(rows) - 1, -1, -1):
            wanted = {}
            for x in rows[r]:
                near = [centre[b][0] for a, b in links if a == x]
                near += [centre[a][0] for a, b in links if b == x]
                wanted[x] = sum(near) / len(near) if near else centre[x][0]
            for x, at in _place_row(rows[r], widths, wanted, width).items():
                centre[x][0] = at
    return _Layout(rows, row_of, widths, heights, labels, centre, row_h, height)


def _ports(lay, x, others) -> dict:
    """Where the arrows to (or from) ``others`` meet the box of ``x``:
    spread over its middle, in the order of the other ends."""
    ranked = sorted(others, key=lambda o: (lay.centre[o][0], str(o)))
    spread = 0.6 * lay.widths[x]
    return {
        o: lay.centre[x][0]
        + (spread * (i / (len(ranked) - 1) - 0.5) if len(ranked) > 1 else 0)
        for i, o in enumerate(ranked)
    }


def _arrow_path(lay, chain, start, end) -> MplPath:
    """Straight down to the bottom of the source's row, then a curve to
    each lane (straight through its row) and to the target's top."""
    y_u, h_u = lay.centre[chain[0]][1], lay.heights[chain[0]]
    row_bottom = y_u + h_u / 2 - lay.row_h[lay.row_of[chain[0]]]
    verts, codes = [start], [MplPath.MOVETO]
    if row_bottom < start[1]:
        verts.append((start[0], row_bottom))
        codes.append(MplPath.LINETO)
    stops = []
    for lane in chain[1:-1]:
        (x, y), h = lay.centre[lane], lay.row_h[lane[2]]
        stops.append(((x, y + h / 2), (x, y - h / 2)))
    for arrive, leave in [*stops, (end, None)]:
        (x0, y0), (x1, y1) = verts[-1], arrive
        bend = (y0 - y1) / 2
        verts += [(x0, y0 - bend), (x1, y1 + bend), (x1, y1)]
        codes += [MplPath.CURVE4] * 3
        if leave is not None:
            verts.append(leave)
            codes.append(MplPath.LINETO)
    return MplPath(verts, codes)


def _draw_arrows(ax, lay, edges) -> list[Edge]:
    chains = {
        (u, v): [
            u,
            *((u, v, r) for r in range(lay.row_of[u] + 1, lay.row_of[v])),
            v,
        ]
        for u, v in edges
    }
    leave = {
        u: _ports(lay, u, [chains[e][1] for e in edges if e[0] == u])
        for u, _ in edges
    }
    enter = {
        v: _ports(lay, v, [chains[e][-2] for e in edges if e[1] == v])
        for _, v in edges
    }
    drawn = []
    for u, v in edges:
        chain = chains[u, v]
        (_, y_u), (_, y_v) = lay.centre[u], lay.centre[v]
        start = (leave[u][chain[1]], y_u - lay.heights[u] / 2)
        end = (enter[v][chain[-2]], y_v + lay.heights[v] / 2)
        ax.add_patch(
            FancyArrowPatch(
                path=_arrow_path(lay, chain, start, end),
                arrowstyle="-|>,head_length=3.2,head_width=1.6",
                color=COLOURS["arrow"],
                linewidth=0.8,
                shrinkA=0,
                shrinkB=0,
                zorder=2,
            )
        )
        drawn.append(Edge(u, v, start, end))
    return drawn


def _draw_band(ax, band, titles, numbers, width) -> None:
    """The toolkit's pages in a dashed band at the bottom of the figure."""
    box_w = (width - (len(band) + 1) * GAP) / len(band)
    labels = [_label(numbers.get(p, ""), titles.get(p, p), box_w) for p in band]
    box_h = max(_height(lines, "") for lines in labels)
    ax.add_patch(
        Rectangle(
            (0, 0),
            width,
            _band_height(box_h),
            facecolor="none",
            edgecolor=COLOURS["note"],
            linewidth=0.6,
            linestyle=(0, (3, 2)),
        )
    )
    ax.text(
        GAP,
        _band_height(box_h) - GAP / 2,
        "The mathematical toolkit: grey numbers in a box above name the "
        "toolkit chapters it uses",
        ha="left",
        va="top",
        fontsize=FONT_SIZE,
        color=COLOURS["note"],
    )
    for i, lines in enumerate(labels):
        centre = (GAP + box_w / 2 + i * (box_w + GAP), GAP + box_h / 2)
        _box(ax, centre, (box_w, box_h), lines, "", COLOURS["toolkit"])


def _band_height(box_h) -> float:
    return box_h + 2 * GAP + FONT_SIZE * 1.4 / 72


def draw_chapter_map(
    prerequisites: Mapping,
    titles: Mapping[str, str],
    numbers: Mapping[str, str],
    sections: Mapping[str, str] | None = None,
    width: float = FIGURE_WIDTH,
):
    """Draw the chapter-dependency diagram of ``prerequisites`` (``{page:
    {"chapters": [...], "toolkit": [...]}}``) and return ``(figure,
    edges)``, ``edges`` the :class:`Edge` of every arrow drawn, in the
    order of :func:`chapter_edges`.

    ``titles`` and ``numbers`` give each page's title and number (a page
    without a number gets none). ``sections`` maps a toolkit label to its
    page: each box then names in grey the numbers of the toolkit chapters
    it uses, and the pages that hold sections and have no chapter edge are
    drawn in a band at the bottom. Raises ``ValueError`` for an unknown
    prerequisite or toolkit label, or a cycle."""
    edges = chapter_edges(prerequisites)
    sections = dict(sections or {})
    used = {
        label
        for entry in prerequisites.values()
        for label in (entry or {}).get("toolkit") or []
    }
    if sections and used - set(sections):
        raise ValueError(
            f"toolkit labels without a page: {sorted(used - set(sections))}"
        )
    linked = {page for edge in edges for page in edge}
    band = [
        p for p in prerequisites if p not in linked and p in sections.values()
    ]
    notes = _notes(prerequisites, numbers, sections)
    below = 0.0
    if band:
        box_w = (width - (len(band) + 1) * GAP) / len(band)
        box_h = max(
            _height(_label(numbers.get(p, ""), titles.get(p, p), box_w), "")
            for p in band
        )
        below = _band_height(box_h) + ROW_SPACE
    lay = _layout(prerequisites, titles, numbers, notes, width, below, band)
    fig = plt.figure(figsize=(width, lay.height))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(0, lay.height)
    ax.axis("off")
    for x in lay.row_of:
        size = (lay.widths[x], lay.heights[x])
        _box(ax, lay.centre[x], size, lay.labels[x], notes[x], COLOURS["fill"])
    drawn = _draw_arrows(ax, lay, edges)
    if band:
        _draw_band(ax, band, titles, numbers, width)
    return fig, drawn


__all__ = [
    "BOX_WIDTH",
    "Edge",
    "FIGURE_WIDTH",
    "FONT_SIZE",
    "draw_chapter_map",
    "layers",
]
