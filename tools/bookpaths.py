"""Where the chapters are, and where their executed copies go."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "_build"
#: Executed copies of the chapters, kept (with any error visible) for diagnosis.
EXECUTED = {"fast": BUILD / "fast", "full": BUILD / "full"}


def toc_documents() -> list[str]:
    """Every document listed in ``_toc.yml``, root first, as paths without
    suffix."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    docs = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                docs.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return docs


def toc_notebooks() -> list[Path]:
    """The documents of ``_toc.yml`` that are notebooks (what papermill
    executes)."""
    paths = []
    for doc in toc_documents():
        nb = ROOT / f"{doc}.ipynb"
        if nb.exists():
            paths.append(nb)
        elif not (ROOT / f"{doc}.md").exists():
            raise FileNotFoundError(
                f"_toc.yml lists {doc}, which has no .ipynb or .md file"
            )
    return paths


def cap_blas_threads() -> None:
    """One BLAS thread per kernel (kernels inherit the environment)."""
    import os

    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = "1"
