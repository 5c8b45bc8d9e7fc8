"""Figures of chapter 19 (lower bounds and the frontier map). Plotting only:
the numbers come in."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .experiments import STYLE as MECHANISM_STYLE
from .foundations import legend_under

#: The two groups of the frontier map, one column each (at most six series
#: per panel): noise added to the second moment, and the samplers,
#: iterations and adaptive releases.
GROUPS = {
    "noise added to A": (
        "analyze_gauss",
        "gaussian_approx",
        "complex_gaussian",
        "mod_sulq",
        "laplace",
        "wishart_delta",
    ),
    "samplers, iterations, adaptive": (
        "ppca",
        "amin",
        "noisy_power_method",
        "trace_sensitive",
        "streaming",
        "coinpress",
    ),
}

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


def plot_frontier(summary, labels: dict, grid):
    """The frontier map: measured error over the lower bound, against ``n``.

    One row of panels per regime (d, ε), one column per group of
    :data:`GROUPS`; the horizontal line is a ratio of one (the bound with
    constant one).

    Parameters
    ----------
    summary : pandas.DataFrame
        :func:`dppca.book.frontier.summarize`'s output.
    labels : dict
        Mechanism key to legend text.
    grid : dppca.book.frontier.FrontierGrid
        The settings.

    Returns
    -------
    matplotlib.figure.Figure
    """
    regimes = [(d, eps) for d in grid.ds for eps in grid.epsilons]
    fig, axes = plt.subplots(
        len(regimes),
        len(GROUPS),
        figsize=(6.5, 2.0 * len(regimes) + 1.6),
        sharex=True,
        sharey=True,
    )
    for row, (d, eps) in enumerate(regimes):
        part = summary[(summary.d == d) & (summary.epsilon == eps)]
        for col, keys in enumerate(GROUPS.values()):
            ax = axes[row, col]
            for key in keys:
                series = part[part.mechanism == key].sort_values("n")
                if series.empty:
                    continue
                ax.plot(
                    series.n,
                    series.ratio,
                    label=labels.get(key, key),
                    markersize=4,
                    **MECHANISM_STYLE.get(key, {}),
                )
            ax.axhline(1.0, color="0.3", linewidth=0.8)
            ax.set_xscale("log")
            ax.set_yscale("log")
            title = f"d = {d}, ε = {eps:g}"
            if row == 0:  # the group's name heads its column
                title = f"{list(GROUPS)[col]}\n{title}"
            ax.set_title(title, fontsize=9)
            if col == 0:
                ax.set_ylabel("error / bound")
    for col in range(len(GROUPS)):
        bottom = axes[-1, col]
        bottom.set_xlabel("n (rows)")
        bottom.set_xticks(list(grid.ns)[::2])
        bottom.set_xticklabels([f"{n:,}" for n in list(grid.ns)[::2]])
        bottom.minorticks_off()
        legend_under(bottom, ncol=1, bbox_to_anchor=(0.5, -0.45))
    ys = summary["ratio"].to_numpy()
    axes[0, 0].set_ylim(0.5 * np.nanmin(ys), 2.0 * np.nanmax(ys))
    fig.tight_layout()
    return fig
