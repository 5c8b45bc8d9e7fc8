"""Figures of the chapters on iterative eigenvector sampling (11) and the
libraries (12). Each figure is drawn at the text column's width (6.5 in),
with text of at least 10 pt and series told apart by marker and line style
as well as by colour."""

from __future__ import annotations

import matplotlib.pyplot as plt

from .experiments import STYLE, legend_below, mark_not_returned

#: The factor between the ``n`` at which neighbouring series of
#: :func:`plot_library_utility` are drawn, so that series that coincide do
#: not hide one another.
DODGE = 1.06

#: Marker and line style of the n-th series of a figure of chapter 11.
SERIES_STYLES = [
    dict(marker="o", linestyle="-"),
    dict(marker="s", linestyle="--"),
    dict(marker="^", linestyle=":"),
    dict(marker="D", linestyle="-."),
]


def plot_privacy_loss_versus_n(
    losses, epsilon: float, figsize=(6.5, 3.6), ncol: int = 3
):
    """Exact worst-case privacy loss of one vector step against ``n``, one
    panel per ``d``, one shared legend below the panels.

    ``losses`` has columns ``d, n, calibration, loss``; the budget ε is drawn
    as a thin black dashed line. Returns the figure.
    """
    dims = sorted(losses["d"].unique())
    fig, axes = plt.subplots(
        1, len(dims), figsize=figsize, sharey=True, squeeze=False
    )
    axes = axes[0]
    for ax, d in zip(axes, dims):
        part = losses[losses["d"] == d]
        for i, label in enumerate(part["calibration"].unique()):
            sub = part[part["calibration"] == label]
            ax.semilogx(
                sub["n"],
                sub["loss"],
                ms=5,
                color=f"C{i}",
                label=label,
                **SERIES_STYLES[i % len(SERIES_STYLES)],
            )
        ax.axhline(
            epsilon, color="k", ls="--", lw=0.8, label=f"budget ε = {epsilon:g}"
        )
        ax.set_xlabel("n")
        ax.set_title(f"d = {d}")
    axes[0].set_ylabel("worst-case privacy loss")
    legend_below(fig, axes, ncol=ncol)
    return fig


def plot_errors_versus_epsilon(table, figsize=(6.5, 5.0), ncol: int = 2):
    """Mean relative error (rows ε, one column per mechanism), log-log, with
    one marker and line style per mechanism and the legend below the axes.
    Returns the figure."""
    fig, ax = plt.subplots(figsize=figsize)
    for i, label in enumerate(table.columns):
        ax.loglog(
            table.index,
            table[label],
            ms=6,
            color=f"C{i}",
            label=label,
            **SERIES_STYLES[i % len(SERIES_STYLES)],
        )
    ax.set_xlabel("ε")
    ax.set_ylabel(r"mean $\|\hat A - A_k\|_F \,/\, \|A_k\|_F$")
    legend_below(fig, [ax], ncol=ncol)
    return fig


def plot_library_utility(
    panels,
    labels: dict,
    skip=("pca",),
    figsize=(6.5, 4.6),
    ncol: int = 2,
):
    """Utility of the private releases against ``n``, one panel per data set,
    the vertical axis fitted to the private releases.

    ``panels`` is a list of ``(summary, optimum, title)``: ``summary`` from
    :func:`dppca.book.experiments.summarize` (columns ``mechanism, n, mean,
    std, count`` and possibly ``not returned``), ``optimum`` the q_F(V_k) that
    non-private PCA reaches, which is written in the panel's title (it lies
    far above the private curves, and a line at its height would squeeze
    them together); the mechanisms in ``skip`` are not drawn. Each series is
    drawn a factor :data:`DODGE` from its neighbour along ``n`` (series that
    coincide, as the private ones on census do, stay visible). A cross on
    the axis marks a size at which a library's release did not return (the
    libraries' crosses a little apart). Returns the figure.
    """
    fig, axes = plt.subplots(1, len(panels), figsize=figsize, squeeze=False)
    axes = axes[0]
    for ax, (summary, optimum, title) in zip(axes, panels):
        crosses = 0  # each library's crosses a little apart from the others'
        drawn = [k for k in summary["mechanism"].unique() if k not in skip]
        for key, part in summary.groupby("mechanism", sort=False):
            if key in skip:
                continue
            part = part.sort_values("n")
            style = STYLE.get(key, {})
            ok = part["count"] > 0
            # series that coincide stay visible: each is drawn a few per
            # cent apart along n, the same for every size
            shift = DODGE ** (drawn.index(key) - (len(drawn) - 1) / 2)
            if ok.any():
                ax.errorbar(
                    part["n"][ok] * shift,
                    part["mean"][ok],
                    yerr=part["std"][ok],
                    label=labels.get(key, key),
                    capsize=3,
                    markersize=6,
                    **style,
                )
            else:  # keeps the mechanism in the legend
                ax.plot([], [], label=labels.get(key, key), **style)
            if "not returned" in part and (part["not returned"] > 0).any():
                shift = 1.07 ** (crosses - 0.5)
                mark_not_returned(
                    ax,
                    part[part["not returned"] > 0]["n"] * shift,
                    style.get("color", "k"),
                )
                crosses += 1
        if crosses:  # one neutral legend entry for the crosses
            ax.plot(
                [],
                [],
                linestyle="none",
                marker="x",
                markersize=9,
                markeredgewidth=2,
                color="0.3",
                label="no release (cap)",
            )
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("subsample size n")
        ax.set_title(f"{title}\noptimum $q_F(V_k)$ = {optimum:.2f}")
    axes[0].set_ylabel(r"$q_F(U)$ on the full data")
    legend_below(fig, axes, ncol=ncol)
    return fig
