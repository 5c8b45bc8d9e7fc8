"""Measure the prose on each chapter's reading path (issue 39).

The reading path is what a reader sees without opening anything: markdown
cells, minus exercise solutions (``solution-start`` ... ``solution-end``),
dropdowns (``{dropdown}`` fences and directives with ``:class: dropdown`` or
``toggle``), code fences and display math. On it the book aims for

- few paragraphs crowded with inserted values (``{glue:...}`` roles): a
  paragraph with five or more is *crowded*;
- sentences of at most 45 words (inline math and roles count as one word);
- no verification-log asides: "(checked ...)", "..., checked)", "the check
  allows";
- no version-history wording ("of today", "the current estimator", "no
  longer", ...): the book describes what is, not what changed.

Usage: python tools/prose_metrics.py [--max-crowded N] [--max-long N]
[--max-asides N] [--max-history N] [--show]
prints one line per document and exits 1 when a book-wide limit is exceeded;
``--show`` prints the offending paragraphs and sentences.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from bookpaths import toc_notebooks

CROWDED = 5
LONG_WORDS = 45
GLUE = re.compile(r"\{glue(?::\w+)?\}`[^`]*`")
ROLE = re.compile(r"\{[\w:.-]+\}`([^`]*)`")
INLINE_MATH = re.compile(r"\$[^$\n]+\$")
FENCE_OPEN = re.compile(r"^(`{3,}|~{3,})\s*(\{[\w:.-]+\})?\s*(.*)$")
COLLAPSED_CLASS = re.compile(r"^:class:.*\b(dropdown|toggle)\b")
ASIDE = re.compile(
    r"\(checked\b|,\s*checked\s*\)|\bchecked\)|the checks? allows?\b",
    re.IGNORECASE,
)
HISTORY = re.compile(
    r"\bof today\b|\btoday's\b|\bthe current (?:estimator|version|code|package)\b"
    r"|\bno longer\b|\bused to (?:be|draw|use|release)\b|\bprevious version\b"
    r"|\bbefore the fix\b|\bwas fixed\b|\bnow (?:draws|uses|releases|refuses)\b",
    re.IGNORECASE,
)
# Fenced blocks that hold no prose (code, math, figures, tables).
NOT_PROSE = frozenset(
    "{code-cell} {code} {code-block} {math} {literalinclude} {figure} "
    "{image} {mermaid} {raw} {list-table} {table}".split()
) | {""}
# Abbreviations whose full stop does not end a sentence.
ABBREVIATIONS = re.compile(
    r"\b(e\.g|i\.e|et al|cf|vs|etc|Thm|Thms|Alg|Algs|Eq|eq|Eqs|Sec|Fig|Figs|"
    r"Ch|Def|Prop|Lem|Cor|approx|resp|No|no|p|pp|Vol|ed)\.",
)


@dataclass
class Document:
    name: str
    paragraphs: list[str] = field(default_factory=list)

    @property
    def crowded(self) -> list[tuple[int, str]]:
        return [
            (n, p)
            for p in self.paragraphs
            if (n := inserted_values(p)) >= CROWDED
        ]

    @property
    def long_sentences(self) -> list[tuple[int, str]]:
        return [
            (n, s)
            for p in self.paragraphs
            for s in sentences(p)
            if (n := word_count(s)) > LONG_WORDS
        ]

    @property
    def asides(self) -> list[str]:
        return [m.group(0) for p in self.paragraphs for m in ASIDE.finditer(p)]

    @property
    def history(self) -> list[str]:
        return [
            m.group(0) for p in self.paragraphs for m in HISTORY.finditer(p)
        ]

    @property
    def values(self) -> int:
        return sum(inserted_values(p) for p in self.paragraphs)

    @property
    def sentence_count(self) -> int:
        return sum(len(sentences(p)) for p in self.paragraphs)


def inserted_values(paragraph: str) -> int:
    return len(GLUE.findall(paragraph))


def _plain(text: str) -> str:
    """Inline math and roles become one word each; markup goes."""
    text = INLINE_MATH.sub(" MATH ", text)
    text = GLUE.sub(" VALUE ", text)
    text = ROLE.sub(
        lambda m: (
            " " + (m.group(1).split()[0] if m.group(1).split() else "REF") + " "
        ),
        text,
    )
    text = re.sub(
        r"\[([^\]]*)\]\([^)]*\)", r"\1", text
    )  # links keep their text
    text = re.sub(r"[*_`]", "", text)
    return text


def sentences(paragraph: str) -> list[str]:
    """The sentences of one paragraph, list items and headings each apart."""
    out: list[str] = []
    for block in re.split(r"\n(?=\s*(?:[-*+]|\d+\.)\s)|\n#+\s", paragraph):
        text = " ".join(_plain(block).split())
        text = ABBREVIATIONS.sub(lambda m: m.group(1) + "<dot>", text)
        for piece in re.split(
            r"(?<=[.!?])\s+(?=[A-Z(\"'])|(?<=[.!?]\))\s+", text
        ):
            piece = piece.replace("<dot>", ".").strip()
            if re.search(r"[A-Za-z]", piece):
                out.append(piece)
    return out


def word_count(sentence: str) -> int:
    return len([w for w in sentence.split() if re.search(r"\w", w)])


def reading_path(cells: list[dict]) -> list[str]:
    """Paragraphs of the markdown a reader sees without opening anything."""
    paragraphs: list[str] = []
    in_solution = False
    for cell in cells:
        if cell.get("cell_type") != "markdown":
            continue
        source = "".join(cell.get("source", ""))
        if "{solution-start}" in source:
            in_solution = True
        if in_solution:
            if "{solution-end}" in source:
                in_solution = False
            continue
        paragraphs.extend(_visible_paragraphs(source))
    return paragraphs


def _visible_paragraphs(source: str) -> list[str]:
    lines = source.splitlines()
    kept: list[str] = []
    stack: list[tuple[str, bool]] = []  # (closing fence, hidden)
    in_math = False
    i = 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        hidden_here = any(h for _, h in stack)
        if stack and stripped == stack[-1][0]:
            stack.pop()
            kept.append("")
            i += 1
            continue
        match = FENCE_OPEN.match(stripped)
        if match and match.group(1):
            fence, directive = match.group(1), match.group(2) or ""
            options = []
            j = i + 1
            while j < len(lines) and lines[j].strip().startswith(":"):
                options.append(lines[j].strip())
                j += 1
            hidden = (
                directive == "{dropdown}"
                or any(COLLAPSED_CLASS.match(o) for o in options)
                or directive in NOT_PROSE
                or directive.startswith("{glue")
            )
            stack.append((fence, hidden))
            kept.append("")
            i = j
            continue
        if stripped.startswith("$$"):
            # "$$" alone opens or closes a block; "$$ ... $$" on one line
            # is a whole block
            one_line = len(stripped) > 4 and stripped.endswith("$$")
            if not one_line:
                in_math = not in_math
            kept.append("")
            i += 1
            continue
        is_target = stripped.startswith("(") and stripped.endswith(")=")
        if in_math or hidden_here or stripped.startswith("|") or is_target:
            kept.append("")  # math, collapsed text, tables, label lines
            i += 1
            continue
        if stripped.startswith("#"):
            kept.extend(["", stripped.lstrip("#").strip(), ""])
            i += 1
            continue
        if re.match(r"^:\w[\w-]*:", stripped):
            kept.append("")  # a directive's option line
            i += 1
            continue
        kept.append(line)
        i += 1
    text = "\n".join(kept)
    return [p.strip() for p in re.split(r"\n\s*\n", text) if p.strip()]


def measure(notebook: Path) -> Document:
    cells = json.loads(notebook.read_text())["cells"]
    return Document(notebook.stem, reading_path(cells))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-crowded", type=int, default=None)
    parser.add_argument("--max-long", type=int, default=None)
    parser.add_argument("--max-asides", type=int, default=None)
    parser.add_argument("--max-history", type=int, default=None)
    parser.add_argument("--show", action="store_true")
    parser.add_argument("notebooks", nargs="*", type=Path)
    args = parser.parse_args(argv)
    docs = [measure(nb) for nb in (args.notebooks or toc_notebooks())]
    totals = dict(crowded=0, long=0, asides=0, history=0, values=0, sentences=0)
    for doc in docs:
        row = dict(
            crowded=len(doc.crowded),
            long=len(doc.long_sentences),
            asides=len(doc.asides),
            history=len(doc.history),
            values=doc.values,
            sentences=doc.sentence_count,
        )
        for key, value in row.items():
            totals[key] += value
        print(
            f"{doc.name:36s} crowded {row['crowded']:3d}  long {row['long']:3d}"
            f"/{row['sentences']:4d}  asides {row['asides']:3d}"
            f"  history {row['history']:2d}  values {row['values']:4d}"
        )
        if args.show:
            for n, p in doc.crowded:
                print(f"  [crowded {n}] {p[:300]}...")
            for n, s in doc.long_sentences:
                print(f"  [long {n}] {s}")
            for a in doc.asides:
                print(f"  [aside] {a}")
            for h in doc.history:
                print(f"  [history] {h}")
    print(
        f"{'total':36s} crowded {totals['crowded']:3d}  long {totals['long']:3d}"
        f"/{totals['sentences']:4d}  asides {totals['asides']:3d}"
        f"  history {totals['history']:2d}  values {totals['values']:4d}"
    )
    limits = {
        "crowded": args.max_crowded,
        "long": args.max_long,
        "asides": args.max_asides,
        "history": args.max_history,
    }
    over = [k for k, v in limits.items() if v is not None and totals[k] > v]
    if over:
        print("over the limit: " + ", ".join(over))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
