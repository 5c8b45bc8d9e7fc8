"""The book's listing filter and bibliography style (tools/book_listings.py)."""

import pytest

pybtex = pytest.importorskip("pybtex")
import book_listings  # noqa: E402
from pybtex.database import Entry, Person  # noqa: E402

FUNCTION = '''def scale(x, c=2.0):
    """Multiply by ``c``.

    Parameters
    ----------
    x : float
    """
    y = x * c  # the code
    return y
'''

CLASS = '''class Box:
    """A box."""

    def area(self):
        """``w * h``."""
        return self.w * self.h
'''


def test_function_docstring_becomes_one_comment_and_code_is_kept():
    out = book_listings.strip_docstrings(FUNCTION, "dppca.privacy")
    assert "Parameters" not in out and "``" not in out
    assert out.splitlines() == [
        "def scale(x, c=2.0):",
        "    # (docstring: help(dppca.privacy.scale))",
        "    y = x * c  # the code",
        "    return y",
    ]


def test_class_and_method_docstrings_are_both_replaced():
    out = book_listings.strip_docstrings(CLASS, "dppca.x")
    assert "# (docstring: help(dppca.x.Box))" in out
    assert "# (docstring: help(dppca.x.Box.area))" in out
    assert "return self.w * self.h" in out
    assert "A box" not in out


def test_indented_method_listing_and_unparsable_text():
    method = "    def f(self):\n        '''Doc.'''\n        return 1\n"
    out = book_listings.strip_docstrings(method, "dppca.m")
    assert out == (
        "    def f(self):\n        # (docstring: help(dppca.m.f))\n"
        "        return 1\n"
    )
    cut = "    return x\n  )"  # a fragment cut by :lines: is left alone
    assert book_listings.strip_docstrings(cut) == cut


def test_a_string_that_is_not_a_docstring_stays():
    source = 'def f():\n    x = 1\n    """not a docstring"""\n    return x\n'
    assert book_listings.strip_docstrings(source) == source


def test_module_names_of_listed_files(tmp_path):
    package = tmp_path / "dppca"
    name = book_listings.module_name
    assert name(package / "bounds" / "wishart.py", package) == (
        "dppca.bounds.wishart"
    )
    assert name(package / "bounds" / "__init__.py", package) == "dppca.bounds"


def _entry(*authors, year="2013"):
    entry = Entry("article", fields={"year": year, "title": "T"})
    entry.persons["author"] = [Person(a) for a in authors]
    return entry


@pytest.mark.parametrize(
    "authors, label",
    [
        (
            ["Chaudhuri, K.", "Sarwate, A.", "Sinha, K."],
            "Chaudhuri et al., 2013",
        ),
        (["Dwork, C.", "Roth, A."], "Dwork and Roth, 2013"),
        (["Vershynin, R."], "Vershynin, 2013"),
        (["Pedregosa, F.", "others"], "Pedregosa et al., 2013"),
    ],
)
def test_author_year_labels(authors, label):
    assert (
        book_listings.AuthorYearLabels.format_label(_entry(*authors)) == label
    )


def test_equal_labels_get_letters():
    style = book_listings.AuthorYearLabels()
    entries = [_entry("Dwork, C."), _entry("Dwork, C."), _entry("Roth, A.")]
    assert list(style.format_labels(entries)) == [
        "Dwork, 2013a",
        "Dwork, 2013b",
        "Roth, 2013",
    ]
