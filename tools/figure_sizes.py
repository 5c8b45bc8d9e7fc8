"""The size of each figure's smallest text at reading size, from an executed
notebook (issue 40): for authors, before a build.

Usage: python tools/figure_sizes.py EXECUTED.ipynb [...]

Each SVG output (a figure shown, or glued) records its smallest text in pt
(dppca.book.plotting.figure_svg); the page shows a figure at its natural
width, or scaled down to the column's 672 px at a 1280 px window. Prints one
line per figure and exits 1 when one is below the browser check's 9 pt
(tools/browser_check.py measures the built pages themselves).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from browser_check import MIN_FIGURE_TEXT_PT

#: The text column of a page at a 1280 px window, in CSS px.
COLUMN_PX = 672
SMALLEST = re.compile(r"dppca:smallest-text-pt=([0-9.eE+-]+)")
WIDTH = re.compile(r'<svg[^>]*\swidth="([0-9.]+)pt"')


def figures(notebook: Path):
    """(cell index, glue name or "", smallest text pt, natural width pt)."""
    cells = json.loads(notebook.read_text())["cells"]
    for index, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            # shown, or glued with display=False (myst-nb's record key)
            svg = data.get("image/svg+xml") or data.get(
                "application/papermill.record/image/svg+xml"
            )
            if svg is None:
                continue
            svg = "".join(svg)
            name = (
                output.get("metadata", {}).get("scrapbook", {}).get("name", "")
            )
            small, width = SMALLEST.search(svg), WIDTH.search(svg)
            yield (
                index,
                name,
                float(small.group(1)) if small else None,
                float(width.group(1)) if width else None,
            )


def main(argv=None) -> int:
    paths = [Path(p) for p in (argv if argv is not None else sys.argv[1:])]
    low = 0
    for path in paths:
        for index, name, smallest, width_pt in figures(path):
            if smallest is None or width_pt is None:
                print(f"{path.stem} cell {index} {name}: no record")
                low += 1
                continue
            natural_px = width_pt * 4 / 3
            scale = min(1.0, COLUMN_PX / natural_px)
            seen = smallest * scale
            flag = "  LOW" if seen < MIN_FIGURE_TEXT_PT - 0.05 else ""
            low += bool(flag)
            print(
                f"{path.stem} cell {index} {name}: {seen:.1f} pt at reading "
                f"size (drawn {smallest:g} pt, {width_pt / 72:.2f} in wide, "
                f"scale {scale:.2f}){flag}"
            )
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main())
