"""Figures of the chapter on trace-sensitive covariance estimation (18).
Plotting only: the numbers come in."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .foundations import legend_under
from .ticks import plain_log_ticks

#: Marker, fill and colour per mechanism, shared by the chapter's figures,
#: so that the mechanisms differ without colour too.
MECHANISM_STYLE = {
    "trace-sensitive": dict(color="C0", marker="o"),
    "trace-sensitive (no projection)": dict(
        color="C0", marker="o", markerfacecolor="none"
    ),
    "trace-sensitive (bounds rule)": dict(color="C9", marker="P"),
    "separate release": dict(color="C1", marker="s"),
    "Analyze Gauss": dict(color="C2", marker="D"),
    "Amin et al.": dict(color="C3", marker="^"),
    "Wishart (δ)": dict(color="C7", marker="X"),
    "Wishart (published, not DP)": dict(color="C4", marker="v"),
}


def _style(name: str, i: int) -> dict:
    markers = "osD^v<>ph*"
    return MECHANISM_STYLE.get(
        name, dict(color=f"C{i % 10}", marker=markers[i % len(markers)])
    )


def plot_errors_by_dataset(
    frobenius, spectral, groups: dict, labels: dict | None = None
):
    """Relative errors per data set as dots on a logarithmic axis: one row
    of two panels (Frobenius, spectral norm) per group of mechanisms, each
    mechanism with its own marker (:data:`MECHANISM_STYLE`), offset a
    little within its data set's line so that no two cover each other.

    ``frobenius`` and ``spectral``: tables with data sets as rows and
    mechanisms as columns; ``groups``: title -> list of mechanisms (at most
    six); ``labels``: the legend's name of a mechanism, where shorter."""
    labels = labels or {}
    fig = plt.figure(figsize=(6.5, 3.6 * len(groups)), layout="constrained")
    rows = fig.subfigures(len(groups), 1)
    for row, (title, mechanisms) in zip(np.atleast_1d(rows), groups.items()):
        axes = row.subplots(1, 2, sharey=True)
        for ax, table, norm in zip(
            axes, (frobenius, spectral), ("Frobenius", "spectral")
        ):
            datasets = list(table.index)
            y = np.arange(len(datasets))
            shift = 0.6 / max(len(mechanisms) - 1, 1)
            shown = table[mechanisms].to_numpy(dtype=float)
            for i, name in enumerate(mechanisms):
                ax.plot(
                    table[name].to_numpy(),
                    y + (i - (len(mechanisms) - 1) / 2) * shift,
                    linestyle="none",
                    markersize=7,
                    label=labels.get(name, name),
                    **_style(name, i),
                )
            ax.set_xscale("log")
            # half-width panels: three labels at most
            plain_log_ticks(
                ax.xaxis, shown.min() * 0.9, shown.max() * 1.1, max_labels=3
            )
            ax.set_yticks(y, datasets)
            ax.set_ylim(len(datasets) - 0.5, -0.5)
            ax.grid(axis="y", visible=False)
            for boundary in y[:-1] + 0.5:
                ax.axhline(boundary, color="0.85", lw=0.8)
            ax.set_xlabel(f"‖Â − A‖ / ‖A‖, {norm} norm")
        row.suptitle(title)
        handles, names = axes[0].get_legend_handles_labels()
        row.legend(handles, names, loc="outside lower center", ncol=3)
    return fig


def plot_error_versus_trace(table, ax=None, reference=None):
    """Mean error (rows: trace of A, columns: mechanisms), log-log, one
    marker per mechanism (:data:`MECHANISM_STYLE`); ``reference`` (a Series
    on the same index, e.g. ‖A‖_F) is drawn dashed in grey. The legend goes
    under the axes."""
    ax = ax or plt.subplots(figsize=(6.5, 5.0))[1]
    for i, name in enumerate(table.columns):
        ax.loglog(table.index, table[name], label=name, **_style(name, i))
    if reference is not None:
        ax.loglog(
            reference.index,
            reference.to_numpy(),
            "--",
            color="grey",
            label=reference.name,
        )
    plain_log_ticks(ax.xaxis, table.index.min() * 0.9, table.index.max() * 1.1)
    ax.set_xlabel(r"trace of $A$ (mean squared row norm)")
    ax.set_ylabel(r"$\|\hat A - A\|_F$")
    legend_under(ax, bbox_to_anchor=(0.5, -0.2))
    return ax


def plot_rate(traces, measured, bound, slope_line=None, ax=None):
    """The largest mean error over a family of spectra and the error bound
    against the trace (log-log), with an optional line of slope 1/2 through
    ``slope_line = (trace, error)``. The legend goes under the axes."""
    ax = ax or plt.subplots(figsize=(6.5, 4.2))[1]
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
    legend_under(ax, ncol=3, bbox_to_anchor=(0.5, -0.2))
    return ax


__all__ = [
    "MECHANISM_STYLE",
    "plot_error_versus_trace",
    "plot_errors_by_dataset",
    "plot_rate",
]
