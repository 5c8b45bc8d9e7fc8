"""Figures for the toolkit chapters on stochastic calculus and on sampling and
statistics.

Plotting only: every quantity shown is computed in the chapters (with
:mod:`dppca.samplers.dyson`, :mod:`dppca.montecarlo` and
:mod:`dppca.privacy.audit`) and passed in.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np


def plot_paths_and_variation(times, paths, steps, mean_sq, predicted, title):
    """Two panels: Brownian sample paths against time, and the mean squared
    deviation of the discrete quadratic variation from ``T`` against the
    number of steps, with its prediction (dashed).

    ``mean_sq`` holds :class:`dppca.montecarlo.Estimate` objects (error bars
    are their confidence intervals).
    """
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(9.0, 3.8), layout="constrained"
    )
    left.plot(times, np.asarray(paths).T, lw=0.8)
    left.set_xlabel("t")
    left.set_ylabel("W(t)")
    left.set_title("sample paths")
    values = np.array([e.value for e in mean_sq])
    low = np.array([e.low for e in mean_sq])
    high = np.array([e.high for e in mean_sq])
    right.errorbar(
        steps,
        values,
        yerr=[values - low, high - values],
        fmt="o",
        capsize=3,
        label="simulated",
    )
    right.loglog(steps, predicted, "--", label=r"$2T^2/n$")
    right.set_xlabel("steps n")
    right.set_ylabel(r"$E\,(\sum_k \Delta W_k^2 - T)^2$")
    right.set_title("quadratic variation")
    right.legend(fontsize="small")
    fig.suptitle(title)
    return fig


def plot_orders(steps, curves: dict, ylabel: str, title: str):
    """Error against step size on log-log axes, one curve per entry of
    ``curves`` (label -> (errors, fitted slope)), with the slope in the
    legend."""
    fig, ax = plt.subplots()
    for label, (errors, slope) in curves.items():
        ax.loglog(steps, errors, "o-", label=f"{label} (slope {slope:.2f})")
    ax.set_xlabel(r"step $\Delta t$")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig


def plot_traces(traces, truth: float, title: str):
    """Markov-chain traces (one row per chain) with the target's mean as a
    dotted line, on a vertical range symmetric about it (so that a region the
    chains never visit shows as empty)."""
    fig, ax = plt.subplots()
    for i, trace in enumerate(np.atleast_2d(traces)):
        ax.plot(trace, lw=0.6, label=f"chain {i + 1}")
    ax.axhline(truth, color="k", ls=":", lw=1, label="target mean")
    reach = np.max(np.abs(np.asarray(traces) - truth))
    ax.set_ylim(truth - 1.05 * reach, truth + 1.05 * reach)  # symmetric
    ax.set_xlabel("iteration")
    ax.set_ylabel("state")
    ax.set_title(title)
    ax.legend(fontsize="small", ncol=2, loc="upper right")
    return fig


def plot_coverage(p, curves: dict, level: float, title: str):
    """Exact coverage probability against the true proportion, one curve per
    interval (label -> coverages), with the nominal level dotted."""
    fig, ax = plt.subplots()
    for label, coverage in curves.items():
        ax.plot(p, coverage, lw=1, label=label)
    ax.axhline(level, color="k", ls=":", lw=1, label=f"nominal {level:.0%}")
    ax.set_xlabel("true proportion p")
    ax.set_ylabel("coverage probability")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig
