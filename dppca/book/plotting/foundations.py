"""Figure helpers for the chapter on differential privacy for matrices (no
mathematics here)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

#: Line styles and markers that tell series apart without colour, in order.
LINE_STYLES = ["-", "--", "-.", ":", (0, (5, 1)), (0, (3, 1, 1, 1))]
MARKERS = ["o", "s", "^", "D", "v", "P"]


def plain_log_ticks(axis, values):
    """Label a logarithmic ``axis`` (``ax.xaxis`` or ``ax.yaxis``) at
    ``values`` only, written as plain numbers, with no minor labels: the
    default minor labels of a log axis crowd into each other."""
    values = [float(v) for v in values]
    axis.set_major_locator(FixedLocator(values))
    axis.set_major_formatter(
        plt.FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}")
    )
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def legend_under(ax, ncol: int = 2, **kwargs):
    """Draw the legend of ``ax`` under its axes, centred, without a frame. It
    covers no data and leaves the figure as wide as it was drawn: a legend at
    the right widened the saved figure by a third, and the page, which shows
    a figure at the column's width, then shrank its text below 9 pt.
    Keyword arguments go to :meth:`matplotlib.axes.Axes.legend`."""
    options = {
        "loc": "upper center",
        "bbox_to_anchor": (0.5, -0.2),
        "ncol": ncol,
        "frameon": False,
        "borderaxespad": 0.0,
        "fontsize": "small",
    }
    options.update(kwargs)
    return ax.legend(**options)


def plot_sigma_ratio(epsilons, ratios_by_delta: dict, ax=None):
    """Ratio classical / analytic Gaussian noise level against epsilon, one
    line per delta."""
    ax = ax or plt.subplots(figsize=(6.4, 3.8))[1]
    for (delta, ratio), ls, marker in zip(
        ratios_by_delta.items(), LINE_STYLES, MARKERS
    ):
        ax.plot(
            epsilons,
            ratio,
            ls=ls,
            marker=marker,
            ms=4,
            label=rf"$\delta = 10^{{{int(np.log10(delta))}}}$",
        )
    ax.axhline(1.0, color="0.4", lw=1, ls=":")
    ax.set_xlabel(r"privacy parameter $\varepsilon$")
    ax.set_ylabel(r"$\sigma_{\mathrm{classical}} / \sigma_{\mathrm{analytic}}$")
    ax.set_title("Extra noise of the classical Gaussian calibration")
    ax.legend()
    return ax


def plot_l1_sensitivity(ds, curves: dict, markers: dict | None = None, ax=None):
    """Entrywise l1 sensitivity (times n) against d: ``curves`` are lines
    {label: values},
    ``markers`` are numerical maxima {label: (d_values, values,
    label_of_matching_curve)}, drawn in
    the colour of that curve; both axes logarithmic."""
    ax = ax or plt.subplots(figsize=(6.4, 4.2))[1]
    colours = {}
    for (label, values), ls in zip(curves.items(), LINE_STYLES * 2):
        colours[label] = ax.plot(ds, values, ls=ls, lw=1.6, label=label)[
            0
        ].get_color()
    for (label, (dm, vm, curve)), marker in zip(
        (markers or {}).items(), MARKERS * 2
    ):
        ax.plot(
            dm,
            vm,
            marker,
            ls="none",
            ms=6,
            mfc="none",
            mew=1.5,
            color=colours.get(curve),
            label=label,
        )
    ax.set_xscale("log")
    ax.set_yscale("log")
    low, high = np.min(ds), np.max(ds)
    plain_log_ticks(
        ax.xaxis, [2.0**j for j in range(8) if low <= 2.0**j <= high]
    )
    bottom, top = ax.get_ylim()
    plain_log_ticks(
        ax.yaxis,
        [v for v in (1, 3, 10, 30, 100, 300, 1000) if bottom <= v <= top],
    )
    ax.set_xlabel("dimension $d$")
    ax.set_ylabel(r"$n \times$ sensitivity")
    legend_under(ax)
    return ax


def plot_difference_heatmap(delta, title: str, ax=None):
    """Heat map of a (scaled) difference matrix ``v v^T - w w^T`` with a
    symmetric colour scale."""
    ax = ax or plt.subplots(figsize=(4.2, 3.6))[1]
    m = float(np.max(np.abs(delta)))
    im = ax.imshow(delta, cmap="RdBu_r", vmin=-m, vmax=m)
    ax.figure.colorbar(im, ax=ax, shrink=0.85)
    # rows and columns numbered from 1, as in the text
    size = np.shape(delta)[0]
    ax.set_xticks(range(size), [str(i + 1) for i in range(size)])
    ax.set_yticks(range(size), [str(i + 1) for i in range(size)])
    ax.set_xlabel("column $j$")
    ax.set_ylabel("row $i$")
    ax.set_title(title)
    ax.grid(False)
    return ax


def plot_captured_variance(samples, expected: float, best: float, ax=None):
    """Histogram of q_F over Haar-random subspaces with the expectation and
    the PCA optimum."""
    ax = ax or plt.subplots()[1]
    ax.hist(
        samples, bins=40, color="C0", alpha=0.7, label="Haar-random subspaces"
    )
    ax.axvline(expected, color="C1", lw=2, label=r"$\mathrm{tr}(A)\,k/d$")
    ax.axvline(best, color="C2", lw=2, ls="--", label="non-private PCA")
    ax.set_xlabel(r"captured variance $q_F(V)$")
    ax.set_ylabel("count")
    ax.set_title("The two baselines")
    legend_under(ax)
    return ax


def plot_test_region(
    alphas, edge, roc_curves: dict, region_label: str, ax=None
):
    """The region of (false-positive, true-positive) rates that tests against
    an (ε, δ)-DP release can reach, shaded between the diagonal and its
    upper ``edge`` (computed by the caller at the rates ``alphas``), with
    measured ROC curves ``{name: (fpr, tpr)}`` in distinct line styles and
    the legend beside the square axes."""
    ax = ax or plt.subplots(figsize=(6.4, 4.0))[1]
    ax.fill_between(
        alphas, alphas, edge, color="C0", alpha=0.2, label=region_label
    )
    for (name, (fpr, tpr)), ls, colour in zip(
        roc_curves.items(), ["-", "--", "-.", ":"], ["C3", "C2", "C4", "C5"]
    ):
        ax.plot(fpr, tpr, color=colour, ls=ls, lw=1.8, label=name)
    ax.plot([0, 1], [0, 1], color="0.4", lw=0.8, ls=":", label="a coin")
    ax.set(xlabel="false-positive rate α", ylabel="true-positive rate β")
    ax.set(xlim=(0, 1), ylim=(0, 1), aspect="equal")
    ax.legend(loc="center left", bbox_to_anchor=(1.04, 0.5), frameon=False)
    return ax
