"""Nothing the book shows is decided by a clock (issue 27).

Timings may be shown, but no chapter and no code path of ``dppca`` may decide
from elapsed time what runs, what is glued or what is asserted: on a slower or
busier machine the book would show something else. Two static checks:

* every chapter and every module of ``dppca``: a value computed from a clock
  (``time.perf_counter``, ``time.time``, ``time.monotonic``,
  ``time.process_time``), or from such a value, never reaches the test of an
  ``if``, ``while``, conditional expression or ``assert``, nor the condition
  of a comprehension;
* the chapters that run the peer libraries (8, 9, 12) read no clock at all and
  use no time limit, except :func:`dppca.book.time_limit.assert_does_not_return`,
  which can only test that a call does *not* return (a slower machine makes it
  pass).
"""

from __future__ import annotations

import ast
import json

import pytest
from bookpaths import ROOT, toc_notebooks

CLOCKS = {
    "perf_counter",
    "time",
    "monotonic",
    "process_time",
    "perf_counter_ns",
}
PEER_CHAPTERS = ("08-", "09-", "12-")
#: in the peer chapters: no clock, no time limit but the probe's
FORBIDDEN = (
    "perf_counter",
    "process_time",
    "monotonic",
    "time.time",
    "with_time_limit",
    "call_with_time_limit",
    "TimeLimitExceeded",
    '"seconds"',
    "'seconds'",
)


def _is_clock_call(node) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr in CLOCKS
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "time"
    ) or (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in CLOCKS - {"time"}
    )


def _names(node) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


TIME_WORDS = ("time", "second", "(s)")


def _tainted_reads(test, tainted) -> bool:
    """Whether ``test`` reads a clock-derived name, other than a column of
    a table by a label that is not a time (``cost["q_F"]`` of a table that
    also holds timings)."""
    exempt = set()
    for node in ast.walk(test):
        if (
            isinstance(node, ast.Subscript)
            and isinstance(node.value, ast.Name)
            and isinstance(node.slice, ast.Constant)
            and isinstance(node.slice.value, str)
            and not any(w in node.slice.value.lower() for w in TIME_WORDS)
        ):
            exempt.add(id(node.value))
    return any(
        isinstance(n, ast.Name) and n.id in tainted and id(n) not in exempt
        for n in ast.walk(test)
    )


def _propagate(tree, tainted: set[str]) -> set[str]:
    """``tainted`` grown through every assignment in ``tree`` whose value
    reads a clock or a tainted name, until nothing changes. Only plain
    names are tainted (``self.x = ...`` taints no name)."""
    tainted = set(tainted)
    changed = True
    while changed:
        changed = False
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                continue
            value = node.value
            if value is None:
                continue
            dirty = any(_is_clock_call(n) for n in ast.walk(value)) or (
                _names(value) & tainted
            )
            if not dirty:
                continue
            targets = (
                node.targets if isinstance(node, ast.Assign) else [node.target]
            )
            for target in targets:
                for name in _target_names(target):
                    if name not in tainted:
                        tainted.add(name)
                        changed = True
    return tainted


def _target_names(target) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_target_names(t) for t in target.elts))
    if isinstance(target, ast.Subscript):  # a table that holds a timing
        return _target_names(target.value)
    return set()


def _clock_functions(tree) -> set[str]:
    """Names of the functions defined in ``tree`` that return a clock value
    (not a tuple: a tuple's other members are not timings), directly or
    through another such function."""
    found: set[str] = set()
    changed = True
    while changed:
        changed = False
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            if node.name in found:
                continue
            local = _propagate(node, found)
            for ret in ast.walk(node):
                if (
                    isinstance(ret, ast.Return)
                    and ret.value is not None
                    and not isinstance(ret.value, ast.Tuple)
                    and (
                        any(_is_clock_call(n) for n in ast.walk(ret.value))
                        or _names(ret.value) & local
                    )
                ):
                    found.add(node.name)
                    changed = True
                    break
    return found


def clock_decisions(source: str) -> list[str]:
    """Tests (if/while/assert/conditional/comprehension conditions) that
    depend on a clock, through any chain of assignments and of functions
    that return a clock value in ``source``."""
    tree = ast.parse(source)
    tainted = _propagate(tree, _clock_functions(tree))
    found = []
    for node in ast.walk(tree):
        tests = []
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            tests.append(node.test)
        elif isinstance(node, ast.Assert):
            tests.append(node.test)
        elif isinstance(node, ast.comprehension):
            tests.extend(node.ifs)
        for test in tests:
            clock = any(_is_clock_call(n) for n in ast.walk(test))
            if clock or _tainted_reads(test, tainted):
                found.append(f"line {test.lineno}: {ast.unparse(test)}")
    return found


def chapter_code(path) -> str:
    cells = json.loads(path.read_text())["cells"]
    lines = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        source = "".join(cell["source"])
        # IPython magics are not Python
        lines += [
            line
            for line in source.splitlines()
            if not line.startswith(("%", "!"))
        ]
    return "\n".join(lines)


CHAPTERS = toc_notebooks()
MODULES = sorted((ROOT / "dppca").rglob("*.py"))


def test_the_checker_finds_a_decision_taken_from_a_clock():
    source = """
import time
start = time.perf_counter()
run()
elapsed = time.perf_counter() - start
slow = elapsed > 5
if slow:
    skip()
assert time.perf_counter() - start < 9
shown = f"{elapsed:.1f} s"  # shown, not decided: fine
"""
    found = clock_decisions(source)
    assert len(found) == 2, found
    through_a_function = """
import time
def best_of(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start
ratio = best_of(a) / best_of(b)
assert ratio < 60
"""
    assert len(clock_decisions(through_a_function)) == 1
    assert clock_decisions("x = 1\nif x:\n    pass\n") == []
    table = "t = {'q': q, 'time (s)': time.time()}\n"
    assert clock_decisions(table + "assert t['q'] > 0\n") == []
    assert len(clock_decisions(table + "assert t['time (s)'] > 0\n")) == 1


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_no_chapter_decides_from_elapsed_time(path):
    assert clock_decisions(chapter_code(path)) == []


@pytest.mark.parametrize(
    "path", MODULES, ids=[str(p.relative_to(ROOT)) for p in MODULES]
)
def test_no_code_path_of_dppca_decides_from_elapsed_time(path):
    assert clock_decisions(path.read_text()) == []


@pytest.mark.parametrize(
    "path",
    [p for p in CHAPTERS if p.name.startswith(PEER_CHAPTERS)],
    ids=lambda p: p.stem,
)
def test_peer_chapters_read_no_clock_and_set_no_time_limit(path):
    code = chapter_code(path)
    assert [word for word in FORBIDDEN if word in code] == []
