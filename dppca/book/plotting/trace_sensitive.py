"""Figures of the chapter on trace-sensitive covariance estimation (18)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import legend_outside


def plot_errors_by_dataset(
    table, ax=None, ylabel="relative error", legend=True
):
    """Grouped bars, one group per data set (rows of ``table``) and one bar
    per mechanism (columns), on a logarithmic axis; the legend outside (or
    none, ``legend=False``)."""
    ax = ax or plt.gca()
    datasets, mechanisms = list(table.index), list(table.columns)
    width = 0.8 / len(mechanisms)
    x = np.arange(len(datasets))
    for i, name in enumerate(mechanisms):
        ax.bar(
            x + (i - (len(mechanisms) - 1) / 2) * width,
            table[name].to_numpy(),
            width,
            label=name,
            color=f"C{i % 10}",
        )
    ax.set_yscale("log")
    ax.set_xticks(x, datasets)
    ax.set_ylabel(ylabel)
    if legend:
        legend_outside(ax, fontsize="small")
    return ax


def plot_error_versus_trace(table, ax=None, reference=None):
    """Mean error (rows: trace of A, columns: mechanisms), log-log, one
    marker style per mechanism; ``reference`` (a Series on the same index,
    e.g. ‖A‖_F) is drawn dashed in grey."""
    ax = ax or plt.gca()
    markers = "osD^v<>ph*"
    for i, name in enumerate(table.columns):
        ax.loglog(
            table.index,
            table[name],
            marker=markers[i % len(markers)],
            color=f"C{i % 10}",
            label=name,
        )
    if reference is not None:
        ax.loglog(
            reference.index,
            reference.to_numpy(),
            "--",
            color="grey",
            label=reference.name,
        )
    ax.set_xlabel(r"trace of $A$ (mean squared row norm)")
    ax.set_ylabel(r"$\|\hat A - A\|_F$")
    legend_outside(ax, fontsize="small")
    return ax


def plot_rate(traces, measured, bound, slope_line=None, ax=None):
    """The largest mean error over a family of spectra and the error bound
    against the trace (log-log), with an optional line of slope 1/2 through
    ``slope_line = (trace, error)``."""
    ax = ax or plt.gca()
    ax.loglog(traces, measured, "o-", color="C0", label="largest mean error")
    ax.loglog(traces, bound, "s:", color="C1", label="bound (probability 0.9)")
    if slope_line is not None:
        t0, e0 = slope_line
        t = np.asarray(traces, dtype=float)
        ax.loglog(
            t,
            e0 * np.sqrt(t / t0),
            "--",
            color="grey",
            label=r"$\propto$ √trace",
        )
    ax.set_xlabel(r"trace of $A$")
    ax.set_ylabel(r"$\|\hat A - A\|_F$")
    legend_outside(ax, fontsize="small")
    return ax


__all__ = ["plot_error_versus_trace", "plot_errors_by_dataset", "plot_rate"]
