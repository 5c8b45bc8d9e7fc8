"""Figures of the exponential-mechanism chapter (PPCA and Bingham sampling).
Plotting only.

Every figure is drawn at the width of the book's text column (6.5 in), with
its legend inside the axes or under them, and its series told apart by line
style or marker as well as by colour."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from .experiments import legend_below
from .foundations import legend_under

#: The width of the book's text column, in inches.
COLUMN_WIDTH = 6.5

#: Line styles of the groups of traces in one panel, in order (a reader
#: without colour tells the groups apart by them).
_GROUP_STYLES = ("-", "--", ":")


def _plain_ticks(axis, values) -> None:
    """Ticks of a log ``axis`` at ``values``, written as plain numbers (no
    minor labels such as 3×10¹ crowding each other)."""
    axis.set_major_locator(FixedLocator(list(values)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))
    axis.set_minor_locator(NullLocator())


def _shared_legend(fig, axes) -> None:
    """One legend for all panels, in a row under them (inside a panel it
    hid the traces)."""
    labels = {
        label for ax in axes for label in ax.get_legend_handles_labels()[1]
    }
    legend_below(fig, axes, ncol=max(1, len(labels)))


def _group_colours():
    return plt.rcParams["axes.prop_cycle"].by_key()["color"]


def plot_mean_statistic(panels, title: str | None = None):
    """Figure 2 of Chaudhuri et al. (2013): log10 F_k(T) against T, one panel
    per data set, side by side at the column's width.

    ``panels`` maps a panel title to ``{label: [F_k traces]}``; traces with the
    same label share a colour and a line style (the first one is labelled).
    """
    fig, axes = plt.subplots(
        1, len(panels), figsize=(COLUMN_WIDTH, 3.9), squeeze=False
    )
    for ax, (name, groups) in zip(axes[0], panels.items()):
        for colour, style, (label, traces) in zip(
            _group_colours(), _GROUP_STYLES, groups.items()
        ):
            for i, F in enumerate(traces):
                T = np.arange(1, len(F) + 1)
                ax.plot(
                    T,
                    np.log10(F),
                    color=colour,
                    ls=style,
                    alpha=0.8,
                    lw=1.4,
                    label=label if i == 0 else None,
                )
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("sweep T")
        ax.set_title(name)
    axes[0][0].set_ylabel(r"$\log_{10} F_k(T)$")
    if title:
        fig.suptitle(title)
    _shared_legend(fig, axes[0])
    return fig


def plot_score_traces(panels, title: str | None = None):
    """``panels`` maps a title to ``({label: [traces]}, (low, high))``:
    traces of q = tr(VᵀBV) per sweep, and a stationary band (e.g. 1%-99%
    quantiles from independent fast-sampler runs). One panel per data set,
    side by side at the column's width."""
    fig, axes = plt.subplots(
        1, len(panels), figsize=(COLUMN_WIDTH, 3.9), squeeze=False
    )
    for ax, (name, (groups, band)) in zip(axes[0], panels.items()):
        ax.axhspan(*band, color="grey", alpha=0.3, label="stationary band")
        for colour, style, (label, traces) in zip(
            _group_colours(), _GROUP_STYLES, groups.items()
        ):
            for i, q in enumerate(traces):
                ax.plot(
                    np.arange(len(q)),
                    q,
                    color=colour,
                    ls=style,
                    lw=1.4,
                    alpha=0.8,
                    label=label if i == 0 else None,
                )
        ax.set_xscale("symlog", linthresh=1)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("sweep")
        ax.set_title(name)
    axes[0][0].set_ylabel(r"$\mathrm{tr}(V^\top B V)$")
    if title:
        fig.suptitle(title)
    _shared_legend(fig, axes[0])
    return fig


def plot_ecdfs(samples, xlabel, title: str | None = None):
    """Empirical CDFs of several samples (``{label: values}``) on one axis,
    one line style per sample."""
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.8))
    for style, (label, values) in zip(_GROUP_STYLES, samples.items()):
        v = np.sort(np.asarray(values))
        ax.step(
            v,
            np.arange(1, v.size + 1) / v.size,
            where="post",
            ls=style,
            lw=1.6,
            label=label,
        )
    ax.set_xlabel(xlabel)
    ax.set_ylabel("empirical CDF")
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left")
    return fig


def plot_success_probability(
    n_values, estimates, n_theorem, target, title: str | None = None
):
    """P(|<v̂1, v1>| > ρ) against n with confidence intervals; the theorem's
    n and the target are labelled on the lines themselves, the legend is
    under the axes."""
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.8))
    value = np.array([e.value for e in estimates])
    low = np.array([e.low for e in estimates])
    high = np.array([e.high for e in estimates])
    ax.fill_between(
        n_values, low, high, alpha=0.3, label="99% Clopper–Pearson band"
    )
    ax.plot(n_values, value, "o-", label="PPCA (exact sampler)")
    ax.axvline(n_theorem, color="k", ls="--")
    # the label stands a few points left of its line, small enough to end
    # below the dotted target line, on a white ground so no grid line
    # crosses it
    ax.annotate(
        "Chaudhuri et al.'s Thm 7: n",
        xy=(n_theorem, 0.45),
        xytext=(-5, 0),
        textcoords="offset points",
        ha="right",
        va="center",
        rotation=90,
        fontsize="small",
        bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0},
    )
    ax.axhline(target, color="k", ls=":")
    ax.text(n_values[0], target, r"$1-\eta$", ha="left", va="bottom")
    ax.set_xscale("log")
    ax.set_ylim(-0.03, 1.1)
    ax.set_xlabel("n")
    ax.set_ylabel(r"$P(|\langle \hat v_1, v_1\rangle| > \rho)$")
    if title:
        ax.set_title(title)
    # under the axes: inside, at the left, it covered a point of the rise
    legend_under(ax, ncol=2, bbox_to_anchor=(0.5, -0.24))
    fig.tight_layout()
    return fig


def plot_sample_complexity(d_values, needed, slopes, title: str | None = None):
    """The n needed for a target utility against d (log-log), one line per
    mechanism, each with its own marker and line style."""
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.8))
    for (marker, style), (label, n) in zip(
        (("o", "-"), ("s", "--"), ("^", ":")), needed.items()
    ):
        ax.loglog(
            d_values,
            n,
            marker=marker,
            ls=style,
            label=f"{label} (slope {slopes[label]:.2f})",
        )
    _plain_ticks(ax.xaxis, d_values)
    ax.set_xlabel("dimension d")
    ax.set_ylabel("n needed")
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left")
    return fig
