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
