"""Execute every chapter of _toc.yml with papermill, in parallel, into
_build/<mode>/chapters.

Usage: python tools/execute_chapters.py [--fast] [--jobs N] [--force]

Full-scale executions are cached: a chapter is re-run only when its notebook,
the dppca sources, the pinned constraints or the FAST flag change (unlike
jupyter-cache, the key includes the package code). A failed execution is kept
with the error visible, and the script exits non-zero.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

from bookpaths import EXECUTED, ROOT, cap_blas_threads, toc_notebooks

CACHE_KEY = "dppca_execution_key"
#: Full-scale seconds per page, from the executed copies of one full build on
#: a 2-core machine (under load: an ordering hint, not a timing), used only
#: to start the longest pages first from an empty cache.
HINTS = Path(__file__).resolve().parent / "chapter_seconds.json"
SECONDS_KEY = "dppca_execution_seconds"


def read_by(notebook: Path) -> list[Path]:
    """Files of the book a notebook reads besides the package: the book's
    lists (``_toc.yml``, ``chapters/*.yml``: the prerequisites behind the
    introduction's diagram) and, for the introduction, the chapters (it draws
    their titles)."""
    paths = [ROOT / "_toc.yml", *sorted((ROOT / "chapters").glob("*.yml"))]
    if notebook.stem == "00-introduction":
        paths += sorted(
            p for p in (ROOT / "chapters").glob("*.ipynb") if p != notebook
        )
    return paths


def execution_key(notebook: Path, fast: bool) -> str:
    digest = hashlib.sha256()
    digest.update(f"FAST={fast}".encode())
    for path in [
        notebook,
        ROOT / "constraints.txt",
        *sorted((ROOT / "dppca").rglob("*.py")),
        *read_by(notebook),
    ]:
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cached(out: Path, key: str) -> bool:
    if not out.exists():
        return False
    meta = json.loads(out.read_text()).get("metadata", {})
    return meta.get(CACHE_KEY) == key and not meta.get("papermill", {}).get(
        "exception"
    )


def execute(notebook: Path, out: Path, fast: bool, key: str) -> float:
    import papermill as pm

    cap_blas_threads()
    start = time.perf_counter()
    pm.execute_notebook(
        str(notebook),
        str(out),
        parameters={"FAST": fast, "SEED": 0},
        cwd=str(notebook.parent),
        kernel_name="python3",
        progress_bar=False,
        request_save_on_cell_execute=True,
    )
    seconds = time.perf_counter() - start
    nb = json.loads(out.read_text())
    nb["metadata"][CACHE_KEY] = key
    nb["metadata"][SECONDS_KEY] = round(seconds, 1)
    out.write_text(json.dumps(nb, indent=1))
    return seconds


def previous_seconds(out: Path) -> float:
    """How long the last execution of this chapter took (0 if unknown), for
    scheduling."""
    try:
        return float(
            json.loads(out.read_text())["metadata"].get(SECONDS_KEY, 0.0)
        )
    except (OSError, ValueError, KeyError):
        return 0.0


def print_times(outdir: Path, seconds: dict) -> None:
    """Each chapter's execution time, longest first: this run's, or the
    cached execution's (marked) for a chapter that was not re-run."""
    rows = []
    for nb in toc_notebooks():
        if nb.name in seconds:
            rows.append((seconds[nb.name], nb.name, ""))
        else:
            past = previous_seconds(outdir / nb.relative_to(ROOT))
            rows.append((past, nb.name, " (cached)" if past else " (unknown)"))
    print("chapter execution times:")
    for value, name, note in sorted(rows, reverse=True):
        print(f"  {value:7.0f} s  {name}{note}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--fast", action="store_true", help="inject FAST=True")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument(
        "--force", action="store_true", help="ignore cached executions"
    )
    args = parser.parse_args()
    outdir = EXECUTED["fast" if args.fast else "full"]
    todo = []
    for nb in toc_notebooks():
        out = outdir / nb.relative_to(ROOT)
        out.parent.mkdir(parents=True, exist_ok=True)
        key = execution_key(nb, args.fast)
        if not args.force and cached(out, key):
            print(f"cached   {nb.name}")
        else:
            todo.append((nb, out, key))
    # longest first (the last execution's time, else the committed hint), so
    # that two workers finish together
    hints = json.loads(HINTS.read_text()) if HINTS.exists() else {}
    todo.sort(
        key=lambda item: (
            previous_seconds(item[1]) or hints.get(item[0].stem, 0)
        ),
        reverse=True,
    )
    failures = []
    seconds = {}  # chapter -> seconds of this execution
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {
            pool.submit(execute, nb, out, args.fast, key): (nb, out)
            for nb, out, key in todo
        }
        for future in as_completed(futures):
            nb, out = futures[future]
            try:
                seconds[nb.name] = future.result()
                print(
                    f"executed {nb.name} in {seconds[nb.name]:.0f} s",
                    flush=True,
                )
            except (
                Exception
            ) as err:  # papermill raises PapermillExecutionError with the cell
                failures.append(nb.name)
                print(
                    f"FAILED   {nb.name}: {type(err).__name__}; see {out}\n{err}",
                    flush=True,
                )
    print(
        f"{len(todo)} chapters executed in {time.perf_counter() - start:.0f} s "
        f"(FAST={args.fast}, {args.jobs} jobs)"
    )
    print_times(outdir, seconds)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
