"""Figures of chapter 17 (streaming private PCA). Plotting only: the
numbers come in."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

from .experiments import STYLE as MECHANISM_STYLE
from .foundations import legend_under

#: Line style per series of the chapter's figures; the mechanisms of earlier
#: chapters keep their encoding (``dppca.book.plotting.experiments.STYLE``).
STYLE = {
    "dp_pca": dict(color="C0", linestyle="-", marker="o"),
    "oja": dict(color="C2", linestyle="--", marker="s"),
    "excess": dict(color="C4", linestyle=":", marker="D"),
    "analyze_gauss": MECHANISM_STYLE["analyze_gauss"],
    "pca": MECHANISM_STYLE["pca"],
}

#: Line styles of the reference lines, in order: the fitted terms of the rate
#: (black) and the powers of d (grey, solid for d¹).
REFERENCE_STYLES = ["--", ":", "-."]
POWER_STYLES = ["--", "-", "-."]


def _label_at(axis, values, text=None):
    """Put the major ticks of a logarithmic ``axis`` at ``values`` only,
    labelled ``text`` (default: the values written plainly), with no minor
    labels: the default minor labels of a log axis run into each other
    ("3×10⁴4×10⁴")."""
    values = [float(v) for v in values]
    axis.set_major_locator(FixedLocator(values))
    if text is None:
        axis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    else:
        lookup = dict(zip(values, text))
        axis.set_major_formatter(
            plt.FuncFormatter(lambda v, _: lookup.get(float(v), ""))
        )
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


def _plain_log_values(lower, upper):
    """The numbers 1, 2 and 5 times a power of ten in ``[lower, upper]``."""
    first, last = np.floor(np.log10(lower)), np.ceil(np.log10(upper))
    return [
        m * 10.0**e
        for e in range(int(first), int(last) + 1)
        for m in (1, 2, 5)
        if lower <= m * 10.0**e <= upper
    ]


def _plain_log_axes(ax, xs, series):
    """Ticks at the ``xs`` (written with thousands separators) and, on the
    vertical axis, at 1, 2 and 5 times the powers of ten the ``series``
    span."""
    _label_at(ax.xaxis, xs, [f"{x:,.0f}" for x in xs])
    values = np.concatenate([np.ravel(np.asarray(v, float)) for v in series])
    values = values[values > 0]
    lower, upper = values.min(), values.max()
    _label_at(ax.yaxis, _plain_log_values(lower * 0.9, upper * 1.1))
    ax.set_ylim(lower * 0.8, upper * 1.25)


def plot_error_versus_n(
    ns, series: dict, labels: dict, fits: dict | None = None, ax=None
):
    """Log-log plot of errors against ``n``.

    ``series``: key -> values (one per ``n``), drawn with :data:`STYLE`
    and labelled by ``labels[key]``; ``fits``: label -> values, drawn as
    thin black dashed or dotted reference lines. The ticks are at the
    ``ns`` and at 1, 2 and 5 times powers of ten, written plainly; the
    legend goes under the axes.
    """
    ax = ax or plt.subplots(figsize=(6.5, 4.3))[1]
    ns = np.asarray(ns, dtype=float)
    for key, values in series.items():
        ax.loglog(ns, values, label=labels.get(key, key), **STYLE.get(key, {}))
    for (label, values), ls in zip((fits or {}).items(), REFERENCE_STYLES):
        ax.loglog(ns, values, color="k", linestyle=ls, lw=1, label=label)
    _plain_log_axes(ax, ns, list(series.values()) + list((fits or {}).values()))
    ax.set_xlabel("rows $n$")
    ax.set_ylabel(r"error $\sin\theta(\hat v, v_1)$")
    legend_under(ax, bbox_to_anchor=(0.5, -0.22))
    return ax


def plot_error_versus_d(ds, series: dict, labels: dict, powers, ax=None):
    """Log-log plot of errors against ``d``, with grey reference lines
    ``d^p`` for each ``p`` of ``powers``, drawn through the middle point of
    the first series (so that its slope can be read against them).

    ``series``: key -> values (one per ``d``), drawn with :data:`STYLE` and
    labelled by ``labels[key]``. The legend goes under the axes."""
    ax = ax or plt.subplots(figsize=(6.5, 4.3))[1]
    ds = np.asarray(ds, dtype=float)
    first = np.asarray(next(iter(series.values())), dtype=float)
    middle = ds.size // 2
    drawn = []
    for key, values in series.items():
        ax.loglog(ds, values, label=labels.get(key, key), **STYLE.get(key, {}))
        drawn.append(values)
    for p, ls in zip(powers, POWER_STYLES):
        line = first[middle] * (ds / ds[middle]) ** p
        ax.loglog(ds, line, ls, color="grey", lw=1, label=f"$d^{{{p:g}}}$")
        drawn.append(line)
    _plain_log_axes(ax, ds, drawn)
    ax.set_xlabel("dimension $d$")
    ax.set_ylabel(r"error $\sin\theta(\hat v, v_1)$")
    legend_under(ax, ncol=3, bbox_to_anchor=(0.5, -0.22))
    return ax


def plot_radii(steps_by_label: dict, ax=None):
    """The clipping radius released at every step (log scale), one line
    per run: ``steps_by_label`` maps a label to a sequence of radii."""
    ax = ax or plt.subplots(figsize=(6.5, 4.0))[1]
    for i, (label, radii) in enumerate(steps_by_label.items()):
        ax.semilogy(
            np.arange(1, len(radii) + 1),
            radii,
            marker=".",
            color=f"C{i}",
            label=label,
        )
    ax.set_xlabel("step $t$")
    ax.set_ylabel("released radius $r_t$")
    legend_under(ax)
    return ax
