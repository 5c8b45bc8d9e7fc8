"""Figure helpers of chapters 2 and 3 (input perturbation). Plotting only:
the numbers come in."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import NullFormatter

from . import legend_outside
from .experiments import legend_below


def plot_correlation_bound_panels(
    panels, title: str = "MOD-SULQ: Theorem 15 bound and measured correlation"
):
    """Figure 1 of Chaudhuri et al. (2013): one panel per dimension d.

    ``panels`` maps d to a dict with ``log10_n`` (grid), ``bounds`` ({ε: bound
    values}) and optionally ``empirical`` ({ε: (log10_n, mean, low, high)}) for
    measured E|⟨v̂₁, v₁⟩|.
    """
    dims = list(panels)
    fig, axes = plt.subplots(
        1, len(dims), figsize=(3.4 * len(dims), 3.6), sharey=True
    )
    axes = np.atleast_1d(axes)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, d in zip(axes, dims):
        panel = panels[d]
        for i, (eps, values) in enumerate(panel["bounds"].items()):
            ax.plot(
                panel["log10_n"],
                values,
                color=colours[i % len(colours)],
                label=f"bound, ε={eps:g}",
            )
        for i, (eps, (x, mean, low, high)) in enumerate(
            panel.get("empirical", {}).items()
        ):
            j = (
                list(panel["bounds"]).index(eps)
                if eps in panel["bounds"]
                else i
            )
            ax.errorbar(
                x,
                mean,
                yerr=[np.subtract(mean, low), np.subtract(high, mean)],
                fmt="o",
                ms=4,
                color=colours[j % len(colours)],
                label=f"measured, ε={eps:g}",
            )
        ax.set_title(f"d = {d}")
        ax.set_xlabel(r"$\log_{10} n$")
    axes[0].set_ylabel(r"$E|\langle \hat v_1, v_1\rangle|$")
    fig.suptitle(title)
    # one legend for all panels, under them: inside a panel it hid the data
    entries = {
        label for ax in axes for label in ax.get_legend_handles_labels()[1]
    }
    legend_below(fig, axes, ncol=max(1, len(entries)))
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
        _, ax = plt.subplots()
    for name, y in series.items():
        if isinstance(y, tuple):
            y, low, high = y
            ax.fill_between(x, low, high, alpha=0.2)
        ax.loglog(x, y, "o-", label=name)
    for name, y in (references or {}).items():
        ax.loglog(x, y, "--", label=name)
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
    legend_outside(ax, fontsize="small")
    return ax


def plot_privacy_profiles(
    epsilons, curves: dict, title: str, ax=None, claimed=None
):
    """δ(ε) curves (name -> values, or (values, low, high) for Monte Carlo)
    on a log δ axis,
    with the claimed (ε, δ) marked when given."""
    if ax is None:
        _, ax = plt.subplots()
    for name, y in curves.items():
        if isinstance(y, tuple):
            y, low, high = y
            ax.fill_between(epsilons, np.maximum(low, 1e-300), high, alpha=0.25)
        ax.semilogy(epsilons, np.maximum(y, 1e-300), label=name)
    if claimed is not None:
        ax.plot(
            *claimed,
            "k*",
            ms=12,
            label=f"claimed (ε, δ) = ({claimed[0]:g}, {claimed[1]:g})",
        )
    ax.set_xlabel(r"$\varepsilon'$")
    ax.set_ylabel(r"$\delta(\varepsilon')$")
    ax.set_title(title)
    legend_outside(ax, fontsize="small")
    return ax


def plot_utility_comparison(
    n_values, utilities: dict, title: str, ax=None, legend: bool = True
):
    """Captured-variance ratio q_F / q_F(PCA) against n for several mechanisms
    (name -> (mean, low, high))."""
    if ax is None:
        _, ax = plt.subplots()
    for name, (mean, low, high) in utilities.items():
        ax.semilogx(n_values, mean, "o-", label=name)
        ax.fill_between(n_values, low, high, alpha=0.2)
    ax.set_xlabel("n")
    ax.set_ylabel(r"$q_F(\hat V_k)/q_F(V_k)$")
    ax.set_title(title)
    if legend:
        legend_outside(ax, fontsize="small")
    return ax
