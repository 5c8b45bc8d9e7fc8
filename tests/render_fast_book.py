"""Render the book from the FAST-mode executions written by test_chapters.py.

Builds a copy of the book source in _build/fast whose chapters are the executed notebooks and
whose configuration turns execution off, then runs a strict (-n -W) Jupyter Book build on it.
Nothing is executed twice.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chapters import FAST_DIR, ROOT, toc_documents  # noqa: E402


def main() -> int:
    FAST_DIR.mkdir(parents=True, exist_ok=True)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    config.setdefault("execute", {})["execute_notebooks"] = "off"
    (FAST_DIR / "_config.yml").write_text(yaml.safe_dump(config, sort_keys=False))
    for name in ("_toc.yml", "references.bib"):
        shutil.copy2(ROOT / name, FAST_DIR / name)
    link = FAST_DIR / "dppca"
    if not link.exists():
        link.symlink_to(ROOT / "dppca", target_is_directory=True)
    missing = []
    for doc in toc_documents():
        src_nb, src_md = ROOT / f"{doc}.ipynb", ROOT / f"{doc}.md"
        if src_md.exists():
            (FAST_DIR / src_md.relative_to(ROOT)).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src_md, FAST_DIR / src_md.relative_to(ROOT))
        elif not (FAST_DIR / f"{doc}.ipynb").exists():
            missing.append(doc)
    # Non-notebook assets that chapters reference (images, included files).
    for asset in (ROOT / "chapters").rglob("*"):
        if asset.is_file() and asset.suffix not in {".ipynb", ".md"} and ".ipynb_checkpoints" not in asset.parts:
            target = FAST_DIR / asset.relative_to(ROOT)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(asset, target)
    if missing:
        print(f"no FAST-mode execution for: {missing} (run the notebook tests first)", file=sys.stderr)
        return 1
    jb = Path(sys.executable).with_name("jupyter-book")
    cmd = [str(jb), "build", "-n", "-W", "--keep-going", str(FAST_DIR)]
    print(" ".join(cmd), flush=True)
    result = subprocess.run(cmd)
    if result.returncode == 0:
        print(f"FAST-mode book: {FAST_DIR / '_build' / 'html' / 'index.html'}")
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
