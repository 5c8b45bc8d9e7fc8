"""Figures for the toolkit chapters on stochastic calculus and on sampling and
statistics.

Plotting only: every quantity shown is computed in the chapters (with
:mod:`dppca.samplers.dyson`, :mod:`dppca.montecarlo` and
:mod:`dppca.privacy.audit`) and passed in.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import interval_errorbar
from .foundations import legend_under
from .ticks import plain_log_ticks

#: Markers and line styles that tell the curves of one panel apart without
#: colour, in order.
CURVE_STYLES = [
    dict(marker="o", linestyle="-"),
    dict(marker="s", linestyle="--"),
    dict(marker="D", linestyle=":"),
    dict(marker="^", linestyle="-."),
]


def plot_paths_and_variation(times, paths, steps, mean_sq, predicted, title):
    """Two panels: Brownian sample paths against time, and the mean squared
    deviation of the discrete quadratic variation from ``T`` against the
    number of steps, with its prediction (dashed).

    ``mean_sq`` holds :class:`dppca.montecarlo.Estimate` objects (error bars
    are their confidence intervals).
    """
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(6.5, 3.8), layout="constrained"
    )
    left.plot(times, np.asarray(paths).T, lw=0.8)
    left.set_xlabel("t")
    left.set_ylabel("W(t)")
    left.set_title("sample paths")
    interval_errorbar(right, steps, mean_sq, fmt="o", label="simulated")
    right.loglog(steps, predicted, "--", label=r"$2T^2/n$")
    right.set_xlabel("steps n")
    right.set_ylabel(r"$E\,(\sum_k \Delta W_k^2 - T)^2$")
    right.set_title("quadratic variation")
    right.legend(fontsize="small")
    fig.suptitle(title)
    return fig


def plot_orders(steps, curves: dict, ylabel: str, title: str):
    """Error against step size on log-log axes, one curve per entry of
    ``curves`` (label -> (errors, fitted slope)), each with its own marker
    and line style (:data:`CURVE_STYLES`), with the slope in the legend
    under the axes."""
    fig, ax = plt.subplots(figsize=(6.5, 4.6))
    for (label, (errors, slope)), style in zip(curves.items(), CURVE_STYLES):
        ax.loglog(steps, errors, label=f"{label} (slope {slope:.2f})", **style)
    errors = np.concatenate([np.ravel(e) for e, _ in curves.values()])
    plain_log_ticks(ax.yaxis, errors.min() * 0.9, errors.max() * 1.1)
    ax.set_xlabel(r"step $\Delta t$")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    legend_under(ax, ncol=1, bbox_to_anchor=(0.5, -0.2))
    return fig


def plot_traces(traces, truth: float, title: str):
    """Markov-chain traces (one row per chain, in thin lines of their own
    colours: the chains are exchangeable, so no legend names them) with the
    target's mean as a dotted line labelled on the plot, on a vertical range
    symmetric about it (so that a region the chains never visit shows as
    empty)."""
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    for trace in np.atleast_2d(traces):
        ax.plot(trace, lw=0.6, alpha=0.8)
    ax.axhline(truth, color="k", ls=":", lw=1.2)
    ax.annotate(
        "target mean",
        xy=(1.0, truth),
        xycoords=("axes fraction", "data"),
        xytext=(-4, 4),
        textcoords="offset points",
        ha="right",
        va="bottom",
    )
    reach = np.max(np.abs(np.asarray(traces) - truth))
    ax.set_ylim(truth - 1.05 * reach, truth + 1.05 * reach)  # symmetric
    ax.set_xlabel("iteration")
    ax.set_ylabel("state")
    ax.set_title(title)
    return fig


def plot_coverage(p, curves: dict, level: float, title: str):
    """Exact coverage probability against the true proportion, one curve per
    interval (label -> coverages; solid, then dashed), with the nominal
    level dotted."""
    fig, ax = plt.subplots(figsize=(6.5, 4.0))
    for (label, coverage), ls in zip(curves.items(), ["-", "--", "-."]):
        ax.plot(p, coverage, ls=ls, lw=1.2, label=label)
    ax.axhline(level, color="k", ls=":", lw=1.2, label=f"nominal {level:.0%}")
    ax.set_xlabel("true proportion p")
    ax.set_ylabel("coverage probability")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="lower center")
    return fig
