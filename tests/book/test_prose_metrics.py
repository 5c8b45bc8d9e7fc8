"""The reading path leads with ideas (issue 39): few paragraphs crowded with
inserted values, short sentences, no verification-log asides and no
version-history wording, as tools/prose_metrics.py measures them."""

from __future__ import annotations

import prose_metrics  # noqa: E402
from bookpaths import toc_notebooks  # noqa: E402

#: Book-wide limits on the reading path (collapsed blocks excluded).
MAX_CROWDED, MAX_LONG = 5, 40


def _documents():
    return [prose_metrics.measure(nb) for nb in toc_notebooks()]


def test_the_reading_path_is_not_a_verification_log():
    docs = _documents()
    crowded = {d.name: len(d.crowded) for d in docs if d.crowded}
    long = {d.name: len(d.long_sentences) for d in docs if d.long_sentences}
    asides = {d.name: d.asides for d in docs if d.asides}
    history = {d.name: d.history for d in docs if d.history}
    assert sum(crowded.values()) <= MAX_CROWDED, crowded
    assert sum(long.values()) <= MAX_LONG, long
    assert not asides, asides
    assert not history, history


def _cells(*sources, kinds=None):
    kinds = kinds or ["markdown"] * len(sources)
    return [{"cell_type": k, "source": s} for k, s in zip(kinds, sources)]


def test_a_crowded_paragraph_is_counted_and_a_collapsed_one_is_not():
    values = " ".join(f"{{glue:text}}`v{i}:.2f`" for i in range(5))
    visible = f"The result holds: {values}."
    collapsed = f"```{{dropdown}} Checks\n{visible}\n```"
    assert (
        len(
            prose_metrics.Document(
                "x", prose_metrics.reading_path(_cells(visible))
            ).crowded
        )
        == 1
    )
    assert not prose_metrics.Document(
        "x", prose_metrics.reading_path(_cells(collapsed))
    ).crowded
    four = " ".join(f"{{glue:text}}`v{i}:.2f`" for i in range(4))
    assert not prose_metrics.Document(
        "x", prose_metrics.reading_path(_cells(f"Four values: {four}."))
    ).crowded


def test_solutions_are_off_the_reading_path():
    long = "word " * 60 + "end."
    cells = _cells(
        "```{solution-start} ex-1\n:class: dropdown\n```",
        long,
        "```{solution-end}\n```",
        "Short sentence after the solution.",
    )
    doc = prose_metrics.Document("x", prose_metrics.reading_path(cells))
    assert not doc.long_sentences
    assert doc.paragraphs == ["Short sentence after the solution."]


def test_long_sentences_asides_and_history_are_found():
    long = "This sentence " + "goes on " * 25 + "and stops. Then a short one."
    doc = prose_metrics.Document(
        "x",
        prose_metrics.reading_path(
            _cells(
                long,
                "The bound is loose (checked below).",
                "The margin is wide, checked).",
                "The eigenvalue step of today is exact.",
                "The estimator no longer clips.",
            )
        ),
    )
    assert [n for n, _ in doc.long_sentences] == [54]
    assert len(doc.asides) == 2
    assert len(doc.history) == 2


def test_math_and_roles_count_as_one_word_and_abbreviations_do_not_split():
    text = (
        "By {cite:t}`chaudhuri2013near{Thm 7}`, e.g. for "
        "$\\|A - A'\\|_2 \\le 2/n$, the bound holds. Next."
    )
    sentences = prose_metrics.sentences(text)
    assert len(sentences) == 2, sentences
    assert prose_metrics.word_count(sentences[0]) == 8
