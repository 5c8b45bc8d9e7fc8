"""Execute one chapter with papermill and render it alone with a strict
Jupyter Book build.

Usage: python tools/check_chapter.py chapters/NAME.ipynb [--full]

The render includes the API reference pages (api/*.md), so the chapter's
``{py:func}`` links resolve; ``{doc}`` links to other chapters do not (expected
"unknown document" warnings).

For authors: catches failing cells and Sphinx warnings (-n -W) of one chapter in
a minute, without running the whole book. Prints the execution time.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

import papermill as pm
import yaml
from bookpaths import ROOT, cap_blas_threads
from render_book import (
    hide_plumbing,
    strict_build,
    write_render_config,
)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("notebook", type=Path)
    parser.add_argument(
        "--full", action="store_true", help="run with FAST=False"
    )
    parser.add_argument("--no-render", action="store_true")
    args = parser.parse_args()
    nb = args.notebook.resolve()
    cap_blas_threads()
    work = ROOT / "_build" / "check" / nb.stem
    (work / "chapters").mkdir(parents=True, exist_ok=True)
    out = work / "chapters" / nb.name
    start = time.perf_counter()
    try:
        pm.execute_notebook(
            str(nb),
            str(out),
            parameters={"FAST": not args.full, "SEED": 0},
            cwd=str(nb.parent),
            kernel_name="python3",
            progress_bar=False,
        )
    finally:
        print(
            f"executed {nb.name} (FAST={not args.full}) in {time.perf_counter() - start:.1f} s -> {out}"
        )
    if args.no_render:
        return 0
    hide_plumbing(out)
    write_render_config(work)
    shutil.copy2(
        ROOT / "chapters" / "references.md", work / "chapters" / "references.md"
    )
    # The API reference pages come along, so {py:func} links of the chapter
    # resolve as in the whole book.
    shutil.rmtree(work / "api", ignore_errors=True)
    shutil.copytree(ROOT / "api", work / "api")
    api_pages = [
        {"file": f"api/{page.stem}"}
        for page in sorted((work / "api").glob("*.md"))
    ]
    (work / "_toc.yml").write_text(
        yaml.safe_dump(
            {
                "format": "jb-book",
                "root": f"chapters/{nb.stem}",
                "chapters": [*api_pages, {"file": "chapters/references"}],
            }
        )
    )
    return strict_build(work, work)


if __name__ == "__main__":
    sys.exit(main())
