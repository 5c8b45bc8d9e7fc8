"""Figure helpers of chapters 2 and 3 (input perturbation). Plotting only:
the numbers come in."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import (
    LogLocator,
    MaxNLocator,
    NullFormatter,
    NullLocator,
)

from .experiments import legend_below
from .foundations import LINE_STYLES, MARKERS, legend_under

#: Line styles of the dashed reference curves, one per curve.
REFERENCE_STYLES = ["--", ":", "-.", (0, (5, 2, 1, 2))]


def sparse_log_labels(axis):
    """Label a logarithmic ``axis`` sparsely, once its data are drawn: at
    the powers of ten when it spans more than two and a half decades, else
    at 1, 2 and 5 times them; no minor labels. The default minor labels of a
    log axis crowd into each other."""
    low, high = axis.get_view_interval()
    wide = high > 0 and low > 0 and np.log10(high / low) > 2.5
    subs = (1.0,) if wide else (1.0, 2.0, 5.0)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(plt.FuncFormatter(_power_label))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def _power_label(value, _position=None) -> str:
    """A tick label m×10ᵏ (10ᵏ when m = 1), in mathtext."""
    if not value > 0:
        return ""
    exponent = int(np.floor(np.log10(value) + 1e-9))
    mantissa = int(round(value / 10.0**exponent))
    if mantissa == 1:
        return rf"$10^{{{exponent}}}$"
    return rf"${mantissa}\times 10^{{{exponent}}}$"


def plot_correlation_bound_panels(
    panels,
    title: str = (
        "MOD-SULQ: Chaudhuri et al.'s Theorem 15 bound\n"
        "and measured correlation"
    ),
):
    """Figure 1 of Chaudhuri et al. (2013): one panel per dimension d.

    ``panels`` maps d to a dict with ``log10_n`` (grid), ``bounds`` ({ε: bound
    values}) and optionally ``empirical`` ({ε: (log10_n, mean, low, high)}) for
    measured E|⟨v̂₁, v₁⟩|.
    """
    dims = list(panels)
    # at most two panels a row, so that the figure keeps readable fonts at
    # the column's width
    ncols = min(2, len(dims))
    nrows = -(-len(dims) // ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(6.4, 2.6 * nrows + 1.6),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    for ax in axes.flat[len(dims) :]:
        ax.set_visible(False)
    axes = axes.flat[: len(dims)]
    # one colour per ε, ordered like ε (a sequential map): never the same
    # colour for two values of ε
    all_eps = sorted(
        {e for d in dims for e in panels[d]["bounds"]}
        | {e for d in dims for e in panels[d].get("empirical", {})}
    )
    shade = plt.get_cmap("viridis")(np.linspace(0.0, 0.85, len(all_eps)))
    colour = dict(zip(all_eps, shade))
    # and one line style per ε, so that the curves differ without colour
    style = dict(zip(all_eps, LINE_STYLES * 2))
    for ax, d in zip(axes, dims):
        panel = panels[d]
        for eps, values in panel["bounds"].items():
            ax.plot(
                panel["log10_n"],
                values,
                color=colour[eps],
                ls=style[eps],
                label=f"bound, ε={eps:g}",
            )
        for eps, (x, mean, low, high) in panel.get("empirical", {}).items():
            ax.errorbar(
                x,
                mean,
                yerr=[np.subtract(mean, low), np.subtract(high, mean)],
                fmt="o",
                ms=4,
                color=colour[eps],
                label=f"measured, ε={eps:g}",
            )
        ax.set_title(f"d = {d}")
    for ax in axes:
        if ax.get_subplotspec().is_last_row() or ax is axes[-1]:
            ax.set_xlabel(r"$\log_{10} n$")
        if ax.get_subplotspec().is_first_col():
            ax.set_ylabel(r"$E|\langle \hat v_1, v_1\rangle|$")
    fig.suptitle(title)
    # one legend for all panels, under them: inside a panel it hid the data
    entries = {
        label for ax in axes for label in ax.get_legend_handles_labels()[1]
    }
    legend_below(fig, axes, ncol=min(3, max(1, len(entries))))
    return fig


def plot_loglog_series(
    x,
    series: dict,
    xlabel: str,
    ylabel: str,
    title: str,
    references: dict | None = None,
    ax=None,
):
    """Log-log plot of measured series (name -> y values, or (y, low, high))
    with dashed
    reference curves (name -> y values)."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.8))
    for (name, y), marker in zip(series.items(), MARKERS * 2):
        if isinstance(y, tuple):
            y, low, high = y
            ax.fill_between(x, low, high, alpha=0.2)
        ax.loglog(x, y, marker=marker, ls="-", label=name)
    for (name, y), ls in zip((references or {}).items(), REFERENCE_STYLES * 2):
        ax.loglog(x, y, ls=ls, label=name)
    sparse_log_labels(ax.yaxis)
    ax.xaxis.set_minor_formatter(
        NullFormatter()
    )  # label only the measured sizes
    ax.set_xticks(
        np.asarray(x, dtype=float),
        [f"{v:g}" for v in np.asarray(x, dtype=float)],
    )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    legend_under(ax)
    return ax


def plot_privacy_profiles(
    epsilons, curves: dict, title: str, ax=None, claimed=None, floor=None
):
    """δ(ε) curves (name -> values, or (values, low, high) for Monte Carlo)
    on a log δ axis,
    with the claimed (ε, δ) marked when given. With ``floor``, the axis runs
    from ``floor`` to 1 and smaller values (zero included) are drawn on its
    bottom line: a Monte Carlo estimate resolves nothing below about one
    over its number of samples."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.6))
    bottom = 1e-300 if floor is None else floor
    for (name, y), ls, marker in zip(
        curves.items(), LINE_STYLES * 2, MARKERS * 2
    ):
        estimated = isinstance(y, tuple)
        if estimated:
            y, low, high = y
            ax.fill_between(
                epsilons,
                np.maximum(low, bottom),
                np.maximum(high, bottom),
                alpha=0.25,
            )
        # an estimate is drawn with markers, on top of an exact curve
        ax.semilogy(
            epsilons,
            np.maximum(y, bottom),
            ls=ls,
            marker=marker if estimated else None,
            ms=4,
            label=name,
        )
    if floor is not None:
        ax.set_ylim(floor, 1.5)
    if claimed is not None:
        ax.plot(
            *claimed,
            "k*",
            ms=12,
            label=f"claimed (ε, δ) = ({claimed[0]:g}, {claimed[1]:g})",
        )
    sparse_log_labels(ax.yaxis)
    ax.set_xlabel(r"$\varepsilon'$")
    ax.set_ylabel(r"$\delta(\varepsilon')$")
    ax.set_title(title)
    legend_under(ax)
    return ax


def plot_utility_comparison(
    n_values, utilities: dict, title: str, ax=None, legend: bool = True
):
    """Captured-variance ratio q_F / q_F(PCA) against n for several mechanisms
    (name -> (mean, low, high))."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.8))
    for (name, (mean, low, high)), ls, marker in zip(
        utilities.items(), LINE_STYLES * 2, MARKERS * 2
    ):
        ax.semilogx(n_values, mean, ls=ls, marker=marker, label=name)
        ax.fill_between(n_values, low, high, alpha=0.2)
    ax.set_xlabel("n")
    ax.set_ylabel(r"$q_F(\hat V_k)/q_F(V_k)$")
    ax.set_title(title)
    if legend:
        legend_under(ax)
    return ax


def plot_estimated_profile(
    epsilons,
    estimate,
    floor: float,
    title: str,
    sure_bound: float | None = None,
    ax=None,
):
    """A Monte Carlo privacy profile δ(ε'), ``estimate = (values, low,
    high)``, on a log δ axis that spans only what the estimate resolves:
    from ``floor`` (smaller values, zero included, on the bottom line) to a
    little above the largest upper end of the intervals. The interval is a
    band with drawn edges, so that it shows wherever it is wider than the
    line. With ``sure_bound``, a dotted line at the ε' beyond which δ is
    zero surely."""
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 3.3))
    value, low, high = (
        np.maximum(np.asarray(part, dtype=float), floor) for part in estimate
    )
    (line,) = ax.semilogy(
        epsilons, value, "o-", ms=3, label="Monte Carlo estimate"
    )
    ax.fill_between(
        epsilons,
        low,
        high,
        color=line.get_color(),
        alpha=0.3,
        linewidth=0,
        label="99% interval",
    )
    for edge in (low, high):
        ax.plot(epsilons, edge, color=line.get_color(), lw=0.8, alpha=0.8)
    if sure_bound is not None:
        ax.axvline(
            sure_bound,
            color="0.25",
            ls=":",
            lw=1.5,
            label=f"δ = 0 surely beyond ε′ = {sure_bound:.3f}",
        )
    ax.set_ylim(floor, 3 * high.max())
    ax.set_xlim(min(epsilons), max(epsilons))
    ax.xaxis.set_major_locator(MaxNLocator(5, steps=[1, 2, 5, 10]))
    ax.set_xlabel(r"$\varepsilon'$")
    ax.set_ylabel(r"$\delta(\varepsilon')$")
    ax.set_title(title)
    legend_under(ax, ncol=2)
    return ax
