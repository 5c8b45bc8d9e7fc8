"""Render the book from executed chapters with a strict (-n -W) Jupyter Book
build.

Usage: python tools/render_book.py {fast,full}

Builds a copy of the book source in _build/<mode> whose chapters are the
executed notebooks and whose configuration turns execution off, so nothing is
executed twice. HTML goes to _build/html (full) or _build/fast/_build/html
(fast).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from bookpaths import EXECUTED, ROOT, toc_documents


def write_render_config(src: Path) -> None:
    """Give ``src`` the book's configuration with execution off, its
    bibliography and a link to
    ``dppca`` (for ``literalinclude``); the table of contents is the
    caller's."""
    src.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    # Local Sphinx extensions live in the repository, not in the render's copy.
    local = config.get("sphinx", {}).get("local_extensions") or {}
    for name, path in local.items():
        local[name] = str((ROOT / path).resolve())
    (src / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    shutil.copy2(ROOT / "references.bib", src / "references.bib")
    link = src / "dppca"
    if not link.exists():
        link.symlink_to(ROOT / "dppca", target_is_directory=True)


def strict_build(src: Path, output: Path) -> int:
    """Run ``jupyter-book build --all -n -W --keep-going`` on ``src``, HTML
    under ``output/_build/html``. Every page is written again (``--all``):
    Sphinx rewrites only the pages whose source changed, and a page whose
    source did not change kept the book's previous script and stylesheet
    links (tools/book_html_fixes.py) in the renders of issue 40."""
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [
        str(jb),
        "build",
        "--all",
        "-n",
        "-W",
        "--keep-going",
        "--path-output",
        str(output),
        str(src),
    ]
    print(" ".join(cmd), flush=True)
    return subprocess.run(cmd).returncode


#: Cells a reader of the HTML book does not need: the chapter's ``parameters``
#: cell and the cell papermill injects after it (both say only FAST and SEED).
#: They stay in the notebook (the download button offers it), tagged
#: ``remove-cell`` so the page omits them.
PLUMBING_TAGS = ("parameters", "injected-parameters")


def hide_plumbing(notebook: Path) -> bool:
    """Tag the parameters and injected-parameters cells of ``notebook``
    ``remove-cell``, in place.

    Idempotent; returns whether the file changed. Every executed chapter passes
    through here before a render, so chapters need no tags of their own for
    this.
    """
    nb = json.loads(notebook.read_text())
    changed = False
    for cell in nb["cells"]:
        tags = cell.setdefault("metadata", {}).setdefault("tags", [])
        if any(t in tags for t in PLUMBING_TAGS) and "remove-cell" not in tags:
            tags.append("remove-cell")
            changed = True
    if changed:
        notebook.write_text(json.dumps(nb, indent=1, ensure_ascii=False))
    return changed


#: Folders of the book whose non-notebook files are copied into a render's
#: source: the chapters (references page, figures) and the API reference.
SOURCE_FOLDERS = ("chapters", "api")


def prepare_source(src: Path) -> list[str]:
    """Copy configuration and non-notebook files into ``src``; return
    documents lacking an execution."""
    write_render_config(src)
    shutil.copy2(ROOT / "_toc.yml", src / "_toc.yml")
    # The chapters' non-notebook files, and the API reference pages (api/*.md,
    # rendered by autodoc from the installed dppca).
    for folder in SOURCE_FOLDERS:
        for asset in (ROOT / folder).rglob("*"):
            if (
                asset.is_file()
                and asset.suffix != ".ipynb"
                and ".ipynb_checkpoints" not in asset.parts
            ):
                target = src / asset.relative_to(ROOT)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(asset, target)
    for notebook in (src / "chapters").rglob("*.ipynb"):
        hide_plumbing(notebook)
    return [
        doc
        for doc in toc_documents()
        if not (src / f"{doc}.ipynb").exists()
        and not (ROOT / f"{doc}.md").exists()
    ]


#: Text that gives away the machine that built the book: a virtual
#: environment's or the system's packages, or a folder of this machine (the
#: repository, the home, the temporary folder, Python's prefix), each read
#: off the running machine rather than written here.
MACHINE_PATH = re.compile(
    "|".join(
        [r"site-packages", r"dist-packages", r"/\.venv/"]
        + [
            re.escape(str(folder)) + r"(?=/|\b)"
            for folder in sorted(
                {
                    ROOT,
                    Path.home(),
                    Path(tempfile.gettempdir()),
                    Path(sys.prefix),
                    Path(sys.base_prefix),
                }
            )
            if len(folder.parts) > 1  # never "/" alone
        ]
    )
)


def stray_outputs(notebook: Path) -> list[str]:
    """Outputs of an executed notebook that do not belong on a page: text
    written to stderr (warnings, logging) and any output that names a path
    of the build machine. One line per fault: cell number and the start of
    the offending text."""
    faults = []
    cells = json.loads(notebook.read_text())["cells"]
    for number, cell in enumerate(cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream":
                text = "".join(output.get("text", ""))
                if output.get("name") == "stderr":
                    faults.append(f"cell {number}: stderr: {text[:120]!r}")
                    continue
            elif output.get("output_type") == "error":
                continue  # a failing cell fails the build anyway
            else:
                data = output.get("data", {})
                text = "".join(
                    "".join(data.get(kind, ""))
                    for kind in ("text/plain", "text/html", "text/markdown")
                )
            found = MACHINE_PATH.search(text)
            if found:
                start = max(found.start() - 40, 0)
                faults.append(
                    f"cell {number}: machine path: "
                    f"{text[start : found.end() + 40]!r}"
                )
    return faults


def uncaptioned_outputs(notebook: Path) -> list[str]:
    """The tables an executed notebook would show without a caption (hence
    without a number), ``dppca.book.tables.uncaptioned_tables``, or with
    numbers as a machine prints them (more than four significant figures,
    e-notation), ``dppca.book.tables.long_numbers``: one line per table."""
    from dppca.book.tables import long_numbers, uncaptioned_tables

    cells = json.loads(notebook.read_text())
    return [f"uncaptioned table: {t}" for t in uncaptioned_tables(cells)] + [
        f"table number as a machine prints it: {t}" for t in long_numbers(cells)
    ]


def render(mode: str) -> int:
    src = EXECUTED[mode]
    missing = prepare_source(src)
    if missing:
        print(
            f"no executed copy of {missing}: execute the chapters first",
            file=sys.stderr,
        )
        return 1
    stray = {
        str(nb.relative_to(src)): stray_outputs(nb) + uncaptioned_outputs(nb)
        for nb in sorted((src / "chapters").rglob("*.ipynb"))
    }
    stray = {name: faults for name, faults in stray.items() if faults}
    if stray:
        for name, faults in stray.items():
            for fault in faults:
                print(f"{name}: {fault}", file=sys.stderr)
        print(
            "outputs that do not belong on a page (stderr, a path of this "
            "machine, a table without a caption, a table number of more "
            "than four significant figures or in e-notation): silence the "
            "warning where it is expected, make the table with "
            "dppca.book.tables.table_of and its formats (significant, "
            "times_ten), or fix it",
            file=sys.stderr,
        )
        return 1
    out = ROOT if mode == "full" else src
    code = strict_build(src, out)
    if code == 0:
        print(f"HTML: {out / '_build' / 'html' / 'index.html'}")
    return code


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in EXECUTED:
        sys.exit(__doc__)
    sys.exit(render(sys.argv[1]))
