"""Figures of chapter 17 (streaming private PCA). Plotting only: the
numbers come in."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

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


def plot_error_versus_n(
    ns, series: dict, labels: dict, fits: dict | None = None, ax=None
):
    """Log-log plot of errors against ``n``.

    ``series``: key -> values (one per ``n``), drawn with :data:`STYLE`
    and labelled by ``labels[key]``; ``fits``: label -> values, drawn as
    thin black dashed or dotted reference lines. The legend goes outside
    the axes.
    """
    ax = ax or plt.subplots()[1]
    ns = np.asarray(ns, dtype=float)
    for key, values in series.items():
        ax.loglog(ns, values, label=labels.get(key, key), **STYLE.get(key, {}))
    for (label, values), ls in zip((fits or {}).items(), ["--", ":", "-."]):
        ax.loglog(ns, values, color="k", linestyle=ls, lw=1, label=label)
    ax.set_xlabel("rows $n$")
    ax.set_ylabel(r"error $\sin\theta(\hat v, v_1)$")
    legend_under(ax)
    return ax


def plot_radii(steps_by_label: dict, ax=None):
    """The clipping radius released at every step (log scale), one line
    per run: ``steps_by_label`` maps a label to a sequence of radii."""
    ax = ax or plt.subplots()[1]
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
