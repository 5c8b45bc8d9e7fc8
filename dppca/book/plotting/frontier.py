"""Figures of chapter 19 (lower bounds and the frontier map). Plotting only:
the numbers come in."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np

from ...mechanisms.registry import MECHANISMS
from .experiments import STYLE as MECHANISM_STYLE
from .foundations import legend_under
from .ticks import plain_log_ticks

#: At most this many mechanisms share a panel of the frontier map.
MAX_SERIES = 6

#: The kinds of mechanism, one column of panels each (a kind with more
#: than :data:`MAX_SERIES` members is split over several columns), read
#: from each mechanism's declaration in the registry.
KINDS = (
    (
        "noise added to A",
        lambda spec: spec.run is not None and spec.additive_noise,
    ),
    ("noise, reading the rows", lambda spec: spec.run is None),
    ("samplers and Wishart", lambda spec: True),
)

#: Markers and line styles of the series of one panel, in order: no two
#: series of a panel share either, so they are told apart without colour.
PANEL_MARKERS = ("o", "s", "^", "D", "v", "X")
PANEL_LINES = ("-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)))


def frontier_groups(keys) -> dict[str, tuple]:
    """The columns of the frontier map: ``keys`` sorted into
    :data:`KINDS` by their registry declarations, at most
    :data:`MAX_SERIES` to a column, every key in exactly one.

    Parameters
    ----------
    keys : iterable of str
        Registered mechanisms (keys of
        :data:`dppca.mechanisms.registry.MECHANISMS`), in the order to draw.

    Returns
    -------
    dict
        Column heading to the tuple of keys drawn in it; a kind spread over
        ``m`` columns gets headings "... (1 of m)", ....

    Raises
    ------
    ValueError
        If a key is not registered.
    """
    keys = list(dict.fromkeys(keys))
    unknown = [key for key in keys if key not in MECHANISMS]
    if unknown:
        raise ValueError(f"not registered mechanisms: {unknown}")
    left, groups = list(keys), {}
    for name, belongs in KINDS:
        members = [key for key in left if belongs(MECHANISMS[key])]
        left = [key for key in left if key not in members]
        parts = -(-len(members) // MAX_SERIES)
        for i in range(parts):
            heading = name if parts == 1 else f"{name} ({i + 1} of {parts})"
            groups[heading] = tuple(members[i::parts])
    drawn = [key for group in groups.values() for key in group]
    assert sorted(drawn) == sorted(keys) and not left, (drawn, keys)
    return groups


#: The columns of the frontier map for the registry's private mechanisms at
#: import (:func:`plot_frontier` sorts the mechanisms it is given afresh).
GROUPS = frontier_groups(
    key for key, spec in MECHANISMS.items() if spec.notion != "not_dp"
)

#: Line styles of the bound figure's series.
BOUND_STYLE = {
    "nonprivate": dict(color="k", linestyle="-"),
    "private": dict(color="C0", linestyle="--"),
    "explicit": dict(color="C1", linestyle=":", marker="o", markersize=4),
}


def plot_bounds(ns, curves: dict, labels: dict, ax=None):
    """The lower bounds against ``n`` on log-log axes.

    Parameters
    ----------
    ns : array
        Sample sizes.
    curves : dict
        ``{(kind, ε): values}`` with ``kind`` one of :data:`BOUND_STYLE`'s
        keys (ε is ignored for ``"nonprivate"``).
    labels : dict
        Legend text per key of ``curves``.
    ax : matplotlib.axes.Axes, optional
        Where to draw.

    Returns
    -------
    matplotlib.figure.Figure
    """
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 3.6))
    else:
        fig = ax.figure
    widths = {}
    for (kind, eps), values in curves.items():
        style = dict(BOUND_STYLE[kind])
        if kind != "nonprivate":
            widths.setdefault(kind, [1.0, 2.2])
            style["linewidth"] = widths[kind].pop(0)
        ax.plot(ns, values, label=labels[(kind, eps)], **style)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("n (rows)")
    ax.set_ylabel("sin Θ error (lower bound)")
    legend_under(ax, ncol=2, bbox_to_anchor=(0.5, -0.22))
    return fig


def plot_frontier(summary, labels: dict, grid, keys=None):
    """The frontier map: measured error over the lower bound, against ``n``.

    One row of panels per regime (d, ε), one column per group of
    :func:`frontier_groups` (at most :data:`MAX_SERIES` series a panel, each
    with its own marker and line style), the group's legend under its
    column; the horizontal line is a ratio of one (the bound with constant
    one). Drawn at the text column's width, 6.5 in, with text of at least
    9 pt.

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`dppca.book.frontier.summarize`'s output.
    labels : dict
        Mechanism key to legend text.
    grid : dppca.book.frontier.FrontierGrid
        The settings.
    keys : iterable of str, optional
        The mechanisms to draw, in order; by default every mechanism of
        ``summary``.

    Returns
    -------
    matplotlib.figure.Figure
        Its ``drawn`` attribute lists the mechanisms drawn, by column.
    """
    if keys is None:
        keys = summary["mechanism"].unique()
    groups = frontier_groups(keys)
    regimes = [(d, eps) for d in grid.ds for eps in grid.epsilons]
    longest = max(len(group) for group in groups.values())
    fig, axes = plt.subplots(
        len(regimes),
        len(groups),
        figsize=(6.5, 1.4 * len(regimes) + 0.3 * longest + 0.9),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    for row, (d, eps) in enumerate(regimes):
        part = summary[(summary.d == d) & (summary.epsilon == eps)]
        for col, group in enumerate(groups.values()):
            ax = axes[row, col]
            for i, key in enumerate(group):
                series = part[part.mechanism == key].sort_values("n")
                ax.plot(
                    series.n,
                    series.ratio,
                    label=_wrap(labels.get(key, key)),
                    color=MECHANISM_STYLE.get(key, {}).get("color"),
                    marker=PANEL_MARKERS[i],
                    linestyle=PANEL_LINES[i],
                    markersize=4.5,
                    linewidth=1.3,
                )
            ax.axhline(1.0, color="0.3", linewidth=0.8)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.tick_params(labelsize=9)
            if row == 0:
                ax.set_title(list(groups)[col], fontsize=10)
            if col == 0:
                ax.set_ylabel(
                    f"d = {d}, ε = {eps:g}\nerror / bound", fontsize=9
                )
    lower, upper = min(grid.ns), max(grid.ns)
    for col in range(len(groups)):
        bottom = axes[-1, col]
        bottom.set_xlabel("n (rows)", fontsize=9)
        plain_log_ticks(bottom.xaxis, lower, upper, max_labels=3)
        legend_under(
            bottom,
            ncol=1,
            bbox_to_anchor=(0.5, -0.5),
            fontsize=9,
            handlelength=3.0,
        )
    ys = summary["ratio"].to_numpy()
    axes[0, 0].set_ylim(0.5 * np.nanmin(ys), 2.0 * np.nanmax(ys))
    axes[0, 0].set_xlim(lower / 1.3, upper * 1.3)
    fig.tight_layout(h_pad=0.6, w_pad=0.6)
    fig.drawn = groups
    return fig


def _wrap(label: str, width: int = 20) -> str:
    """A legend entry over lines of at most ``width`` characters, so that a
    column's legend stays under its column."""
    return "\n".join(textwrap.wrap(label, width)) or label
