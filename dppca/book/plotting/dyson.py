"""Figures for the Gaussian matrix-approximation and Dyson Brownian motion
chapters.

Plotting only: every quantity shown is computed by
:mod:`dppca.mechanisms.gaussian_approx`,
:mod:`dppca.samplers.dyson` or :mod:`dppca.book.bounds.gaussian_approx`.

Every figure is drawn at the width of the book's text column (6.5 in), with
its legend inside the axes (or in a panel of its own), and its series told
apart by marker or line style as well as by colour.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import (
    FixedLocator,
    FuncFormatter,
    LogLocator,
    NullFormatter,
    NullLocator,
)

from . import interval_errorbar

#: The width of the book's text column, in inches.
COLUMN_WIDTH = 6.5

#: (marker, line style) of the series of one panel, in order.
_SERIES = (("o", "-"), ("s", "--"), ("^", "-."), ("D", ":"))


def _plain(v, _=None) -> str:
    """A tick label without powers of ten or trailing zeros."""
    return f"{v:g}"


def _ticks_at(axis, values) -> None:
    """Ticks of a log ``axis`` exactly at ``values``, as plain numbers."""
    axis.set_major_locator(FixedLocator(list(values)))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_locator(NullLocator())


def _few_log_ticks(axis) -> None:
    """Ticks of a log ``axis`` at 1, 2 and 5 times the powers of ten, as
    plain numbers, and no minor labels (which crowd each other on an axis
    that spans about one decade)."""
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axis.set_major_formatter(FuncFormatter(_plain))
    axis.set_minor_formatter(NullFormatter())


def plot_scaling(x, panels: dict, xlabel: str, title: str | None = None):
    """Log-log mean error (filled markers, solid or dashed) with the
    sum-of-squares prediction (hollow markers, dotted, same colour), one
    panel per target and the legend in a panel of its own.

    ``panels`` maps a panel title to ``{label: rows}``, where rows have keys
    ``errors`` (samples) and ``sos`` (predicted RMS). A prediction more than
    a thousand times the measured error is left out (it would flatten the
    panel).
    """
    n_cells = len(panels) + 1
    n_cols = 2
    n_rows = -(-n_cells // n_cols)
    fig, axes = plt.subplots(
        n_rows,
        n_cols,
        figsize=(COLUMN_WIDTH, 2.8 * n_rows + 0.4),
        squeeze=False,
    )
    flat = axes.ravel()
    handles = {}
    for ax, (name, curves) in zip(flat, panels.items()):
        for colour, (marker, style), (label, rows) in zip(
            plt.rcParams["axes.prop_cycle"].by_key()["color"],
            _SERIES,
            curves.items(),
        ):
            means = np.array([r["errors"].mean() for r in rows])
            (line,) = ax.loglog(x, means, marker=marker, ls=style, color=colour)
            handles.setdefault(f"measured, {label}", line)
            sos = np.array([r["sos"] for r in rows])
            if np.all(np.isfinite(sos)) and sos.max() < 1e3 * means.max():
                (pred,) = ax.loglog(
                    x,
                    sos,
                    marker=marker,
                    mfc="none",
                    ls=":",
                    color=colour,
                )
                handles.setdefault(f"predicted, {label}", pred)
        ax.set_title(name)
        ax.set_xlabel(xlabel)
        _ticks_at(ax.xaxis, x)
        _few_log_ticks(ax.yaxis)
    for ax in axes[:, 0]:
        ax.set_ylabel(r"$E\,\|H - V\Lambda V^T\|_F$")
    legend_ax = flat[len(panels)]
    legend_ax.axis("off")
    legend_ax.legend(
        list(handles.values()), list(handles), loc="center", frameon=False
    )
    for ax in flat[len(panels) + 1 :]:
        ax.axis("off")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_ratio_vs_noise(noise_levels, estimates, title: str | None = None):
    """Measured / predicted ratio with confidence intervals against the noise
    level."""
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.6))
    interval_errorbar(ax, noise_levels, estimates, fmt="o-")
    ax.axhline(1.0, color="k", lw=1, ls=":")
    ax.set_xscale("log")
    _ticks_at(ax.xaxis, noise_levels)
    ax.set_xlabel(r"noise $\sigma$")
    ax.set_ylabel("measured / predicted")
    if title:
        ax.set_title(title)
    return fig


def plot_convergence(dts, errors: dict, title: str | None = None):
    """Strong error (mean over paths) against the step size, one curve per
    scheme (own marker and line style), with slopes in labels."""
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.8))
    for (marker, style), (label, (err, slope)) in zip(_SERIES, errors.items()):
        ax.loglog(
            dts,
            err,
            marker=marker,
            ls=style,
            label=f"{label} (slope {slope:.2f})",
        )
    ax.set_xlabel(r"step $\Delta t$")
    ax.set_ylabel(r"$E\,\max_i |\gamma_i^{SDE}(T) - \gamma_i(T)|$")
    if title:
        ax.set_title(title)
    ax.legend(loc="lower right")
    return fig


def plot_trajectories(times, gammas, title: str | None = None):
    """Eigenvalue trajectories ``gammas[t, i]`` against time, all in one
    colour: one series, the spectrum."""
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.8))
    ax.plot(times, gammas, lw=1.2, color="C0")
    ax.set_xlabel("t")
    ax.set_ylabel(r"eigenvalues $\gamma_i(t)$")
    if title:
        ax.set_title(title)
    return fig


def plot_spectral_densities(
    samples: dict, radius: dict, title: str | None = None
):
    """Histograms of eigenvalues scaled by the semicircle radius, one panel
    per sample (small multiples side by side), each with the semicircle
    density (dotted)."""
    fig, axes = plt.subplots(
        1,
        len(samples),
        figsize=(COLUMN_WIDTH, 2.9),
        sharey=True,
        squeeze=False,
    )
    grid = np.linspace(-1.2, 1.2, 400)
    semicircle = np.where(
        np.abs(grid) < 1,
        2 / np.pi * np.sqrt(np.clip(1 - grid**2, 0, None)),
        0.0,
    )
    for ax, (label, values) in zip(axes[0], samples.items()):
        ax.hist(
            values / radius[label],
            bins=40,
            density=True,
            histtype="stepfilled",
            alpha=0.45,
            edgecolor="C0",
            label="eigenvalues",
        )
        ax.plot(grid, semicircle, "k", ls=(0, (1, 1)), lw=2, label="semicircle")
        ax.set_title(label)
        ax.set_xticks([-1, 0, 1])
        ax.set_xlabel("eigenvalue / edge")
    axes[0][0].set_ylabel("density")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_overlaps(times, overlaps: dict, title: str | None = None):
    """Mean squared overlaps ``|<u_i(t), v_i>|^2`` against time (own marker
    per vector) with their initial-slope lines (dotted, same colour)."""
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.8))
    for (marker, _), (label, (mean, rate)) in zip(_SERIES, overlaps.items()):
        (line,) = ax.plot(times, mean, marker=marker, ms=5, label=label)
        ax.plot(
            times,
            np.clip(1 - rate * times, 0, None),
            ":",
            color=line.get_color(),
        )
    ax.set_xlabel("t")
    ax.set_ylabel(r"$E\,|\langle u_i(t), v_i\rangle|^2$")
    ax.set_ylim(0, 1.05)
    if title:
        ax.set_title(title)
    ax.legend(loc="upper right")
    return fig


def plot_probability_curve(
    c_values,
    estimates: dict,
    title: str | None = None,
    reference: float | None = None,
):
    """Probabilities with confidence intervals against a constant ``c``,
    one marker and line style per curve; ``reference`` is a vertical line
    labelled in the legend."""
    fig, ax = plt.subplots(figsize=(COLUMN_WIDTH, 3.8))
    for (marker, style), (label, rows) in zip(_SERIES, estimates.items()):
        interval_errorbar(
            ax, c_values, rows, marker=marker, ls=style, label=label
        )
    if reference is not None:
        ax.axvline(
            reference,
            color="k",
            ls=":",
            label=f"Weyl's constant {reference:.1f}",
        )
    ax.set_xscale("log")
    _ticks_at(ax.xaxis, c_values)
    ax.set_xlabel(r"gap constant $c$ (gaps $c\sqrt{dT}$)")
    ax.set_ylabel("probability")
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left")
    return fig


__all__ = [
    "plot_scaling",
    "plot_ratio_vs_noise",
    "plot_convergence",
    "plot_trajectories",
    "plot_spectral_densities",
    "plot_overlaps",
    "plot_probability_curve",
]
