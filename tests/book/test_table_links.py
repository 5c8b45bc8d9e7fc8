"""A plain "chapter N" or "section N.M" in a table cell or in prose links to
that page (``tools/book_html_fixes.py``, ``link_mentions_in_tables``)."""

from __future__ import annotations

from types import SimpleNamespace

from book_html_fixes import link_mentions_in_tables  # noqa: E402

SECNUMBERS = {
    "chapters/03-laplace": {"": (3,)},
    "chapters/10-auditing": {"": (10,)},
    "chapters/10-package": {"": (10, 11)},
}


def linked(body: str, page: str = "chapters/08-utility") -> str:
    app = SimpleNamespace(env=SimpleNamespace(toc_secnumbers=SECNUMBERS))
    context = {"body": body}
    link_mentions_in_tables(app, page, context)
    return context["body"]


def test_a_chapter_in_a_cell_becomes_a_link_to_its_page():
    body = linked(
        "<table><tr><td>Wishart (chapter 3)</td><th>see Chapter 10</th></tr></table>"
    )
    assert (
        '<a class="reference internal" href="03-laplace.html">chapter 3</a>)'
        in body
    )
    assert 'href="10-auditing.html">Chapter 10</a>' in body


def test_a_section_page_is_linked_and_a_section_of_a_page_is_not():
    body = linked(
        "<table><tr><td>section 10.11 and section 10.3</td></tr></table>"
    )
    assert 'href="10-package.html">section 10.11</a>' in body
    assert "section 10.3</td>" in body


def test_prose_is_linked_too_but_not_headings():
    assert linked("<p>This page closes chapter 3.</p>") == (
        '<p>This page closes <a class="reference internal" '
        'href="03-laplace.html">chapter 3</a>.</p>'
    )
    heading = "<h2>Back to chapter 3</h2>"
    assert linked(heading) == heading


def test_links_unknown_numbers_and_decimals_are_left_alone():
    cells = (
        "<table><tr><td><a href='x.html'>chapter 3</a></td>"
        "<td>chapter 42</td><td>chapter 3.5</td><td>chapter 10.11</td></tr></table>"
    )
    assert linked(cells) == cells


def test_reference_pages_link_their_prose_but_not_code_or_links():
    body = (
        "<p>Derived in chapter 3 (see section 10.11).</p>"
        "<dd><p>chapter 10 <code>chapter 3</code> "
        "<a href='x.html'>chapter 3</a></p><pre>chapter 10</pre></dd>"
    )
    out = linked(body, page="api/estimator")
    assert out.count('href="../chapters/03-laplace.html">chapter 3</a>') == 1
    assert "(see section 10.11)" in out  # prose links chapters only
    assert 'href="../chapters/10-auditing.html">chapter 10</a> <code>' in out
    assert "<code>chapter 3</code>" in out
    assert "<a href='x.html'>chapter 3</a>" in out
    assert "<pre>chapter 10</pre>" in out


def test_prose_leaves_the_papers_sections_and_cited_chapters_alone():
    # a first version linked "Chaudhuri et al.'s Section 6.3" to the book's
    cited = (
        "<p>the protocol of Chaudhuri et al.’s Section 10.11 and "
        "Higham (2002), chapter 3; <em>Smith’s</em> chapter 10</p>"
    )
    assert linked(cited) == cited
    assert 'href="10-package.html">section 10.11</a>' in linked(
        "<table><tr><td>section 10.11</td></tr></table>"
    )
    assert "section 10.11</p>" in linked("<p>see section 10.11</p>")


def test_a_mention_broken_across_lines_is_linked():
    body = linked("<p>See chapter\n3 for the proof.</p>")
    assert 'href="03-laplace.html">chapter\n3</a> for' in body
