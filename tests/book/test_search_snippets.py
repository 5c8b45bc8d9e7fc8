"""The search's snippets show inline formulas as text (issue 40): the TeX
reader of tools/static/dppca-search.js (DppcaSearch.texToText, run in Node),
the browser check's test for a snippet that shows "…" where a simple formula
stood (tools/browser_check.py), and both on a small Sphinx book, with the old
snippet code ("…" for every formula) as the planted fault."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import book_html_fixes  # noqa: E402
import browser_check  # noqa: E402
import pytest

SEARCH_JS = Path(book_html_fixes.__file__).parent / "static" / "dppca-search.js"
NODE = shutil.which("node")

#: TeX of an inline formula -> the text a snippet shows (None: "…").
EXPECTED = {
    r"\varepsilon": "ε",
    r"(\varepsilon, \delta)": "(ε, δ)",
    r"A = X^\top X / n": "A = XᵀX/n",
    r"\ell_1": "ℓ₁",
    r"\lVert x \rVert_2 \le 1": "‖x‖₂ ≤ 1",
    r"\mathbb{R}^{d\times d}": "ℝ^(d×d)",
    r"\R^d": "ℝᵈ",
    r"\sqrt{2\ln(1.25/\delta)}": "√(2 ln(1.25/δ))",
    r"\frac{a}{b}": "a/b",
    r"\frac{a + b}{2n}": "(a + b)/(2n)",
    r"\frac{1}{n}\bigl(vv^\top - ww^\top\bigr)": "(1/n)(vvᵀ − wwᵀ)",
    r"\tfrac12": "½",
    r"\operatorname{tr}(A)": "tr(A)",
    r"\tr \Delta": "tr Δ",
    r"\diag(\sigma)": "diag(σ)",
    r"\E\|G\|": "𝔼‖G‖",
    r"\hat v": "v̂",
    r"\tilde p(x)": "p̃(x)",
    r"\mathcal{W}": "𝒲",
    r"\delta = 10^{-5}": "δ = 10⁻⁵",
    r"q_F(V_k)": "q_F(Vₖ)",
    r"\lambda_{\max}": "λ_max",
    r"\sum_{i=1}^n x_i": "∑ᵢ₌₁ⁿ xᵢ",
    r"e^{v^\top B v}": "e^(vᵀBv)",
    r"\|\sin\Theta\|_F": "‖sin Θ‖_F",
    r"W + \Delta \not\succ 0": "W + Δ ⊁ 0",
    r"x \mapsto -x": "x ↦ −x",
    r"\{1, \dots, n\}": "{1, ..., n}",
    r"P(X \in A \mid \text{accepted})": "P(X ∈ A | accepted)",
    r"\sigma \ge \sqrt{2\ln(1.25/\delta)}\,\Delta_2/\varepsilon": (
        "σ ≥ √(2 ln(1.25/δ)) Δ₂/ε"
    ),
    # what the reader cannot make readable: "…"
    r"\begin{pmatrix} a & b \\ b & c\end{pmatrix}": None,
    r"\unknowncommand x": None,
    r"\frac{a}{b": None,
    r"(0.5, 0.3, 0.04, 0.03, 0.02, 0.01, 0.004, 0.003, 0.001, 0.001)": None,
}

#: Run the search script in Node (no browser: no Search, no DOMParser) and
#: print texToText and formulaText of each TeX read from stdin.
NODE_SCRIPT = """
const vm = require("vm");
const fs = require("fs");
const context = { console };
vm.createContext(context);
vm.runInContext(fs.readFileSync(process.argv[1], "utf8"), context);
const tex = JSON.parse(fs.readFileSync(0, "utf8"));
const search = context.DppcaSearch;
console.log(JSON.stringify(tex.map((t) => [search.texToText(t),
                                           search.formulaText("\\\\(" + t + "\\\\)")])));
"""


@pytest.mark.skipif(NODE is None, reason="no Node.js")
def test_inline_formulas_become_readable_text():
    tex = list(EXPECTED)
    out = subprocess.run(
        [NODE, "-e", NODE_SCRIPT, str(SEARCH_JS)],
        input=json.dumps(tex),
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(out.stdout)
    for t, (text, shown) in zip(tex, got):
        assert text == EXPECTED[t], (t, text)
        assert shown == (EXPECTED[t] or "…"), (t, shown)


def test_simple_formulas_are_told_from_the_others():
    for tex in [r"\varepsilon", r"(\varepsilon, \delta)", r"\ell_1", r"k = 5"]:
        assert browser_check.is_simple_tex(tex), tex
    for tex in [
        r"\begin{pmatrix} a & b \\ b & c\end{pmatrix}",
        r"\sum_{i \le j}|D_{ij}| = \tfrac12\bigl(\sum_{ij}|D_{ij}|\bigr)",
        r"\lVert x \rVert",
    ]:
        assert not browser_check.is_simple_tex(tex), tex


PAGE = (
    r"Two ways to publish the matrix \(A = X^\top X/n\) with pure "
    r"\((\varepsilon, 0)\) differential privacy. The mechanism is not "
    r"\(\varepsilon\)-DP for the matrix "
    r"\(\begin{pmatrix} a & b \\ b & c\end{pmatrix}\) of the example."
)


def test_a_placeholder_for_a_simple_formula_is_found_in_the_page():
    snippet = (
        "...Two ways to publish the matrix … with pure … differential "
        "privacy. The mechanism is not …-DP for the matrix … of the exam..."
    )
    assert browser_check.placeholder_formulas(snippet, PAGE) == [
        r"A = X^\top X/n",
        r"(\varepsilon, 0)",
        r"\varepsilon",
    ]  # the matrix's "…" is allowed


def test_a_snippet_with_text_formulas_or_a_typed_ellipsis_passes():
    snippet = (
        "...Two ways to publish the matrix A = XᵀX/n with pure (ε, 0) "
        "differential privacy. The mechanism is not ε-DP for the matrix … of"
    )
    assert browser_check.placeholder_formulas(snippet, PAGE) == []
    # an ellipsis the prose types is not a formula of the page
    assert (
        browser_check.placeholder_formulas("we wait … and see the end", PAGE)
        == []
    )


#: A small Sphinx book with the book's extension (its search script): simple
#: formulas next to "sensitivity", and a matrix the reader cannot write.
SMALL_BOOK = {
    "conf.py": (
        "import sys\n"
        f"sys.path.insert(0, {str(Path(book_html_fixes.__file__).parent)!r})\n"
        "project = 'Snippets'\n"
        "extensions = ['book_html_fixes']\n"
        "html_theme = 'sphinx_book_theme'\n"
        "mathjax_path = 'mathjax/tex-mml-chtml.js'\n"
    ),
    "index.rst": "A small book\n============\n\n.. toctree::\n\n   wishart\n",
    "wishart.rst": (
        "Wishart noise\n=============\n\n"
        "The published mechanism is not :math:`\\varepsilon`-DP: the "
        ":math:`\\ell_1` sensitivity of :math:`A = X^\\top X/n` is larger, "
        "and the matrix :math:`\\begin{pmatrix} a & b \\\\ b & c\\end{pmatrix}`"
        " shows it.\n"
    ),
}
SEARCH_CHECKS = {
    "word": "Wishart",
    "target": "wishart.html",
    "rank": ("Wishart", "wishart.html"),
    "snippet_word": "sensitivity",
}


@pytest.fixture(scope="module")
def small_book(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("snippet_src")
    for name, text in SMALL_BOOK.items():
        (src / name).write_text(text)
    html = tmp_path_factory.mktemp("snippet_html")
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "sphinx",
            "-q",
            "-b",
            "html",
            str(src),
            str(html),
        ],
        capture_output=True,
        text=True,
    )
    assert build.returncode == 0, build.stderr
    (html / book_html_fixes.BOOK_PDF).write_bytes(b"%PDF-1.4\n")
    (html / book_html_fixes.API_PDF).write_bytes(b"%PDF-1.4\n")
    return html


def snippets(html: Path, word: str) -> list[str]:
    from playwright.sync_api import sync_playwright

    server, base = browser_check.serve(html)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=browser_check.CHROMIUM,
                args=browser_check.CHROMIUM_ARGS,
            )
            page = browser.new_page()
            results, problem = browser_check.search_results(page, base, word)
            browser.close()
    finally:
        server.shutdown()
    assert problem is None, problem
    return [text for _, text in results if text is not None]


browser = pytest.mark.skipif(
    not Path(browser_check.CHROMIUM).exists(),
    reason=f"no Chromium at {browser_check.CHROMIUM}",
)


@browser
def test_the_small_books_snippet_reads_its_formulas(small_book):
    (snippet,) = snippets(small_book, "sensitivity")
    assert "is not ε-DP: the ℓ₁ sensitivity of A = XᵀX/n is larger" in snippet
    assert "the matrix … shows it" in snippet
    assert browser_check.run(small_book, **SEARCH_CHECKS) == []


@browser
def test_the_old_snippets_fail_the_check(small_book, tmp_path):
    """The planted fault: every formula shown as "…" (the snippet code before
    the TeX reader)."""
    site = tmp_path / "html"
    shutil.copytree(small_book, site)
    language_data = site / "_static" / "language_data.js"
    text = language_data.read_text()
    old = "DppcaSearch.formulaText(el.textContent)"
    assert text.count(old) == 1
    language_data.write_text(text.replace(old, '"…"'))
    (snippet,) = snippets(site, "sensitivity")
    assert "is not …-DP: the … sensitivity of … is larger" in snippet
    failures = browser_check.run(site, **SEARCH_CHECKS)
    assert failures, "the check passed snippets with '…' for simple formulas"
    assert all(
        "search snippet shows … for a simple formula (3 in the snippets for "
        "'sensitivity'): wishart.html" in f
        for f in failures
    ), failures
