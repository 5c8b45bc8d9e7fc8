"""The package's shape (issue 28): each mechanism declared once, in its family
module, and read by everyone from the registry; no module over 600 lines; no
import cycle; the library never imports the book's machinery; the estimator
only composes."""

import ast
import dataclasses
import inspect
import subprocess
import sys
from pathlib import Path

import pytest

import dppca
from dppca import PrivatePCA
from dppca.mechanisms import registry

PACKAGE = Path(dppca.__file__).resolve().parent
MODULES = sorted(PACKAGE.rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_estimator_lists_exactly_the_registry():
    keys = set(registry.MECHANISMS)
    assert len(keys) == 15  # CoinPress, spiked, adaptive k-PCA (issue 42)
    for name in keys:
        estimator = PrivatePCA(mechanism=name)
        assert estimator.mechanism == name
    assert set(registry.ADDITIVE_NOISE) <= keys
    assert set(registry.RELEASES_EIGENVALUES) <= keys
    assert set(registry.AUTO_MECHANISM.values()) <= keys
    with pytest.raises(ValueError, match="mechanism must be"):
        PrivatePCA(mechanism="nope", data_norm=1.0).fit([[1.0, 0.0]] * 3)


def test_each_mechanism_is_declared_once_in_its_family_module():
    declared = [s.key for f in registry.FAMILIES for s in f.SPECS]
    assert sorted(declared) == sorted(registry.MECHANISMS)
    facts = pytest.importorskip("dppca.book.mechanism_facts").FACTS
    for family in registry.FAMILIES:
        for spec in family.SPECS:
            assert facts[spec.key].entry_point[0] == family.__name__, spec.key


def test_the_experiments_list_exactly_the_registry():
    """The book's experiments know each mechanism by its registry key (the
    estimator's ``mechanism=``), in the book's order."""
    table = pytest.importorskip("dppca.book.mechanism_table")
    facts = pytest.importorskip("dppca.book.mechanism_facts")
    keys = set(registry.MECHANISMS)
    assert set(table.EXPECTED) == keys
    order = ["pca", "random", *facts.EXPERIMENT_ORDER]
    assert list(table.mechanisms()) == order
    rows_only = {k for k, s in registry.MECHANISMS.items() if s.run is None}
    assert set(table.ROW_MECHANISMS) == rows_only
    assert set(table.SHORT_NOTION) - set(table.PEER_LIBRARY) == (
        {"pca", "random"} | keys
    )


def test_the_plot_styles_list_exactly_the_registry():
    pytest.importorskip("matplotlib")
    from dppca.book.plotting import estimator, experiments

    baselines = {"pca", "random"}
    assert set(estimator.STYLE) == baselines | set(registry.MECHANISMS)
    peers = {"diffprivlib_pca", "opendp_pca"}
    keys = set(registry.MECHANISMS)
    assert set(experiments.STYLE) == baselines | keys | peers


def test_the_library_declares_no_book_facts():
    """How the book shows a mechanism (labels, styles, the experiments'
    entry points, the map's words) lives in dppca.book, keyed by the
    mechanism's key; the library's declaration has none of it."""
    fields = set(dataclasses.fields(registry.MechanismSpec))
    names = {f.name for f in fields}
    book = {
        "style",
        "experiment_key",
        "experiment_label",
        "short_notion",
        "entry_point",
        "release",
        "from_moment",
        "from_rows",
        "row_reason",
        "releases",
        "utility",
        "page",
    }
    assert not names & book, names & book
    for name in ("DESCRIPTIONS", "EXPERIMENT_ORDER", "BY_EXPERIMENT_KEY"):
        assert not hasattr(registry, name), name


def test_one_key_per_mechanism():
    """No table translates the registry's keys into other names: the book's
    facts carry no key of their own, and its tables are keyed by the
    registry's keys."""
    facts = pytest.importorskip("dppca.book.mechanism_facts")
    fields = {f.name for f in dataclasses.fields(facts.BookFacts)}
    assert not {"key", "experiment_key"} & fields
    assert not {"FACTS_BY_EXPERIMENT_KEY", "BY_EXPERIMENT_KEY"} & set(
        vars(facts)
    )
    pytest.importorskip("matplotlib")
    from dppca.book.plotting import frontier, utility_panels

    keys = set(registry.MECHANISMS)
    others = {"pca", "random", "diffprivlib_pca", "opendp_pca"}
    for groups in (frontier.GROUPS, utility_panels.GROUPS):
        named = {key for group in groups.values() for key in group}
        assert named <= keys | others, named - keys - others


@pytest.mark.parametrize("path", MODULES, ids=_module_name)
def test_no_module_is_over_600_lines(path):
    lines = len(path.read_text().splitlines())
    assert lines <= 600, f"{_module_name(path)} has {lines} lines"


def _imports(path: Path) -> set[str]:
    """The dppca modules ``path`` imports, at module level or inside a
    function (a function-level import closes a circle as well, only later)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("dppca")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if not module.startswith("dppca"):
                continue
            for alias in node.names:
                candidate = f"{module}.{alias.name}"
                known = {_module_name(p) for p in MODULES}
                found.add(candidate if candidate in known else module)
    return found - {name}


def _find_cycle(graph) -> list | None:
    """A cycle of ``graph`` (node -> set of nodes), or None."""
    state = {}

    def visit(node, stack):
        state[node] = "open"
        for target in sorted(graph.get(node, ())):
            if state.get(target) == "open":
                return stack[stack.index(target) :] + [target]
            if target not in state:
                found = visit(target, stack + [target])
                if found:
                    return found
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def test_no_import_cycle_among_the_modules():
    graph = {_module_name(p): _imports(p) for p in MODULES}
    assert "dppca.linalg.rows" in graph["dppca.linalg.distributed"]
    cycle = _find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_the_scan_finds_a_planted_cycle():
    """The cycle check is not vacuous: the old shape distributed -> rows ->
    linalg -> distributed is found."""
    graph = {
        "distributed": {"rows"},
        "rows": {"linalg"},
        "linalg": {"distributed", "validation"},
    }
    assert _find_cycle(graph) == [
        "distributed",
        "rows",
        "linalg",
        "distributed",
    ]
    graph["linalg"] = {"validation"}
    assert _find_cycle(graph) is None


def test_import_dppca_does_not_import_the_book():
    code = (
        "import sys, dppca; dppca.PrivatePCA; "
        "print(sorted(m for m in sys.modules if m.startswith('dppca.book')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert out == "[]"


def test_the_top_level_is_small_and_every_helper_has_one_home():
    """``dppca`` exports the estimators, the ledger and the report, the
    warnings and errors, the records, the mechanism functions and three
    utility measures (issue 41: it had 53 names, modules and validators
    among them); the helpers it no longer exports live in one subpackage
    each."""
    for name in dppca.__all__:
        assert getattr(dppca, name) is not None, name
    assert len(dppca.__all__) <= 30, len(dppca.__all__)
    modules = [n for n in dppca.__all__ if inspect.ismodule(getattr(dppca, n))]
    assert sorted(modules) == ["exceptions", "forecast"], modules
    from dppca.linalg import haar_subspace, top_k_subspace
    from dppca.privacy import analytic_gaussian_sigma, sensitivity
    from dppca.privacy.accounting import Accountant
    from dppca.validation import check_data, check_epsilon

    for helper in (haar_subspace, top_k_subspace, check_data, check_epsilon):
        assert helper.__name__ not in dppca.__all__
    assert analytic_gaussian_sigma is not None and inspect.ismodule(sensitivity)
    assert Accountant is dppca.Accountant


def test_the_estimator_only_composes():
    lines, _ = inspect.getsourcelines(PrivatePCA)
    fit, _ = inspect.getsourcelines(PrivatePCA.fit)
    assert len(lines) < 300, len(lines)
    assert len(fit) < 50, len(fit)


def test_the_tests_are_laid_out_like_the_code():
    """tests/unit/<part>/ per part of the package (a subpackage, or the
    estimators and the core modules at dppca's top level), tests/privacy/
    for the privacy suite, tests/book/ for the book's machinery and
    tests/policy/ for rules about the repository; no test file loose at
    the top."""
    tests = Path(__file__).resolve().parents[1]
    assert not sorted(p.name for p in tests.glob("test_*.py"))
    parts = {p.name for p in (tests / "unit").iterdir() if p.is_dir()}
    subpackages = {
        "privacy",
        "mechanisms",
        "samplers",
        "linalg",
        "decomposition",
    }
    assert subpackages <= parts <= subpackages | {"estimators", "core"}
    for part in subpackages:
        assert (PACKAGE / part / "__init__.py").is_file(), part
    for folder in ("privacy", "book", "policy"):
        assert list((tests / folder).glob("test_*.py")), folder


def _sys_path_edits(text: str) -> list[int]:
    """Lines of the module ``text`` that call ``sys.path.insert`` or
    ``sys.path.append``."""
    edits = []
    for node in ast.walk(ast.parse(text)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("insert", "append")
            and ast.unparse(node.func.value) == "sys.path"
        ):
            edits.append(node.lineno)
    return edits


def test_tools_and_tests_import_without_editing_sys_path():
    """``tools/`` is importable as it is (issue 41): a script's own directory
    is on the path when it runs, Sphinx's ``local_extensions`` puts
    ``tools/`` there for the book's extension, and pytest's ``pythonpath``
    for the tests. No module edits ``sys.path`` (a fixture's generated
    ``conf.py`` text is not a module of the book)."""
    root = PACKAGE.parent
    found = {
        str(path.relative_to(root)): lines
        for folder in ("tools", "tests", "dppca", "benchmarks")
        for path in sorted((root / folder).rglob("*.py"))
        if (lines := _sys_path_edits(path.read_text()))
    }
    assert found == {}
    # the scan sees an edit where there is one (a planted module)
    planted = (
        "import sys\n\nsys.path.insert(0, 'tools')\nsys.path.append('x')\n"
    )
    assert _sys_path_edits(planted) == [3, 4]
