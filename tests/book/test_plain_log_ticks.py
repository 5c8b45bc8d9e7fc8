"""The book's log-axis labels (dppca.book.plotting.ticks): plain numbers,
at most ``max_labels``, never a single label on a decade's range."""

from __future__ import annotations

import pytest

plt = pytest.importorskip("matplotlib.pyplot")

from dppca.book.plotting.ticks import plain_log_ticks  # noqa: E402


def labels(lower, upper, **kwargs):
    fig, ax = plt.subplots()
    ax.set_xscale("log")
    ax.set_xlim(lower, upper)
    plain_log_ticks(ax.xaxis, lower, upper, **kwargs)
    fig.canvas.draw()
    out = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    plt.close(fig)
    return out


def test_about_one_decade_gets_several_plain_labels():
    assert labels(18_000, 110_000, max_labels=3) == ["20000", "50000", "100000"]
    assert labels(18_000, 110_000) == ["20000", "30000", "50000", "100000"]


def test_a_range_inside_one_decade_gets_1_2_3_5():
    assert labels(1.5, 6.0) == ["2", "3", "5"]


def test_labels_are_thinned_to_the_cap():
    assert len(labels(0.001, 0.9, max_labels=4)) <= 4
    assert labels(0.001, 0.9, max_labels=3) == ["0.001", "0.01", "0.1"]


def drawn_labels(width, lower, upper, **kwargs):
    """The tick labels of a log x-axis from ``lower`` to ``upper`` in one of
    two panels of a figure ``width`` inches wide, with their boxes."""
    fig, axes = plt.subplots(1, 2, figsize=(width, 3.0))
    ax = axes[0]
    ax.set_xscale("log")
    ax.set_xlim(lower, upper)
    plain_log_ticks(ax.xaxis, lower, upper, **kwargs)
    fig.tight_layout()
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    shown = [t for t in ax.get_xticklabels() if t.get_text()]
    out = (
        [t.get_text() for t in shown],
        [t.get_window_extent(renderer) for t in shown],
    )
    plt.close(fig)
    return out


def test_neighbouring_labels_never_touch_in_a_narrow_panel():
    # chapter 19.2's figure: n from 6,000 to 100,000 in a half-width panel
    # ran "50000" into "100000"
    for width in (4.0, 6.3, 9.0):
        texts, boxes = drawn_labels(width, 5_400, 110_000, max_labels=3)
        assert len(texts) >= 2, (width, texts)
        for left, right in zip(boxes, boxes[1:]):
            assert right.x0 - left.x1 > 3, (width, texts)


def test_a_wide_panel_keeps_its_labels():
    texts, _ = drawn_labels(14.0, 5_400, 110_000, max_labels=3)
    assert texts == ["10000", "50000", "100000"]


def test_two_labels_that_would_touch_give_way_to_two_that_do_not():
    # chapter 19.3's figure: n from 16,000 to 128,000 kept "50000" and
    # "100000" side by side
    texts, boxes = drawn_labels(6.3, 14_400, 141_000, max_labels=3)
    assert len(texts) >= 2, texts
    for left, right in zip(boxes, boxes[1:]):
        assert right.x0 - left.x1 > 3, texts
