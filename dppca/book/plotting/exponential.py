"""Figures of the exponential-mechanism chapter (PPCA and Bingham sampling).
Plotting only."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import legend_outside
from .experiments import legend_below


def _shared_legend(fig, axes) -> None:
    """One legend for all panels, in a row under them (inside a panel it
    hid the traces)."""
    labels = {
        label for ax in axes for label in ax.get_legend_handles_labels()[1]
    }
    legend_below(fig, axes, ncol=max(1, len(labels)))


def plot_mean_statistic(
    panels, title="Hoff's Gibbs sampler: the statistic of Figure 2"
):
    """Figure 2 of Chaudhuri et al. (2013): log10 F_k(T) against T, one panel
    per data set.

    ``panels`` maps a panel title to ``{label: [F_k traces]}``; traces with the
    same label share a colour (the first one is labelled).
    """
    fig, axes = plt.subplots(
        1, len(panels), figsize=(5.2 * len(panels), 3.8), squeeze=False
    )
    for ax, (name, groups) in zip(axes[0], panels.items()):
        for colour, (label, traces) in zip(
            plt.rcParams["axes.prop_cycle"].by_key()["color"], groups.items()
        ):
            for i, F in enumerate(traces):
                T = np.arange(1, len(F) + 1)
                ax.plot(
                    T,
                    np.log10(F),
                    color=colour,
                    alpha=0.8,
                    lw=1.2,
                    label=label if i == 0 else None,
                )
        ax.set_xscale("log")
        ax.set_xlabel("sweep T")
        ax.set_ylabel(r"$\log_{10} F_k(T)$")
        ax.set_title(name)
    fig.suptitle(title)
    _shared_legend(fig, axes[0])
    return fig


def plot_score_traces(
    panels, title="Captured energy tr(VᵀBV) along the chains"
):
    """``panels`` maps a title to ``({label: [traces]}, (low, high))``:
    traces of q = tr(VᵀBV)
    per sweep, and a stationary band (e.g. 1%-99% quantiles from independent
    fast-sampler runs)."""
    fig, axes = plt.subplots(
        1, len(panels), figsize=(5.2 * len(panels), 3.8), squeeze=False
    )
    for ax, (name, (groups, band)) in zip(axes[0], panels.items()):
        ax.axhspan(
            *band, color="grey", alpha=0.25, label="stationary 1%-99% band"
        )
        for colour, (label, traces) in zip(
            plt.rcParams["axes.prop_cycle"].by_key()["color"], groups.items()
        ):
            for i, q in enumerate(traces):
                ax.plot(
                    np.arange(len(q)),
                    q,
                    color=colour,
                    lw=1.2,
                    alpha=0.8,
                    label=label if i == 0 else None,
                )
        ax.set_xscale("symlog", linthresh=1)
        ax.set_xlabel("sweep")
        ax.set_ylabel(r"$\mathrm{tr}(V^\top B V)$")
        ax.set_title(name)
    fig.suptitle(title)
    _shared_legend(fig, axes[0])
    return fig


def plot_ecdfs(samples, xlabel, title):
    """Empirical CDFs of several samples (``{label: values}``) on one axis."""
    fig, ax = plt.subplots()
    for label, values in samples.items():
        v = np.sort(np.asarray(values))
        ax.step(v, np.arange(1, v.size + 1) / v.size, where="post", label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("empirical CDF")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig


def plot_success_probability(n_values, estimates, n_theorem, target, title):
    """P(|<v̂1, v1>| > ρ) against n with confidence intervals, the theorem's
    n and the target."""
    fig, ax = plt.subplots()
    value = np.array([e.value for e in estimates])
    low = np.array([e.low for e in estimates])
    high = np.array([e.high for e in estimates])
    ax.fill_between(
        n_values, low, high, alpha=0.3, label="99% Clopper-Pearson band"
    )
    ax.plot(n_values, value, "o-", label="PPCA (exact sampler)")
    ax.axvline(n_theorem, color="k", ls="--", label="n of Chaudhuri et al.'s Theorem 7")
    ax.axhline(target, color="r", ls=":", label=r"$1-\eta$")
    ax.set_xscale("log")
    ax.set_xlabel("n")
    ax.set_ylabel(r"$P(|\langle \hat v_1, v_1\rangle| > \rho)$")
    ax.set_title(title)
    legend_outside(ax, fontsize="small")
    return fig


def plot_sample_complexity(d_values, needed, slopes, title):
    """The n needed for a target utility against d (log-log), one line per
    mechanism."""
    fig, ax = plt.subplots()
    for label, n in needed.items():
        ax.loglog(
            d_values, n, "o-", label=f"{label} (slope {slopes[label]:.2f})"
        )
    ax.set_xlabel("dimension d")
    ax.set_ylabel("n needed")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig
