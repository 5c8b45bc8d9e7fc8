"""Figures of the practitioner's chapter (13): components as images, accuracy
and utility
against ε with error bars. Mathematics never lives here."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ...mechanisms.registry import MECHANISMS
from . import legend_outside
from .experiments import STYLE as REGISTRY_STYLE

#: Line style per PrivatePCA mechanism name: the real-data chapters' styles,
#: each mechanism's own (its declaration in :mod:`dppca.mechanisms.registry`).
STYLE = {
    "pca": REGISTRY_STYLE["pca"],
    "random": REGISTRY_STYLE["random"],
    **{key: dict(spec.style) for key, spec in MECHANISMS.items()},
}


def component_grid(rows: dict, epsilons, n_show: int, shape=(8, 8)):
    """Draw components as images. ``rows[label][eps]`` is a ``k × d`` array
    of axes (rows);
    a row whose value is a single array (not a dict) is repeated under every ε.
    The first
    ``n_show`` components of each are drawn, grouped by ε from left to right."""
    labels = list(rows)
    n_cols = len(epsilons) * n_show
    fig, axes = plt.subplots(
        len(labels),
        n_cols,
        figsize=(0.75 * n_cols + 1.2, 0.8 * len(labels) + 0.6),
        squeeze=False,
    )
    for r, label in enumerate(labels):
        for e, eps in enumerate(epsilons):
            entry = rows[label]
            comps = entry[eps] if isinstance(entry, dict) else entry
            for j in range(n_show):
                ax = axes[r, e * n_show + j]
                image = np.asarray(comps[j]).reshape(shape)
                scale = np.abs(image).max() or 1.0
                ax.imshow(image, cmap="RdBu_r", vmin=-scale, vmax=scale)
                ax.set_xticks([])
                ax.set_yticks([])
                if r == 0:
                    ax.set_title(f"ε={eps:g}\n#{j + 1}", fontsize=7)
            axes[r, 0].set_ylabel(
                label, rotation=0, ha="right", va="center", fontsize=8
            )
    fig.subplots_adjust(wspace=0.08, hspace=0.08)
    return fig


def metric_against_epsilon(
    table,
    metric: str,
    ax=None,
    baselines: dict | None = None,
    labels=None,
    legend: bool = True,
):
    """Mean ± standard deviation of ``metric`` against ε (log axis) for each
    mechanism of a
    long ``table`` (columns ``mechanism``, ``epsilon``, ``metric``); horizontal
    lines for
    the ``baselines`` (label -> (mean, sd)). The legend goes right of the
    axes; ``legend=False`` leaves it to the caller (one legend for several
    panels)."""
    ax = ax or plt.gca()
    labels = labels or {}
    summary = table.groupby(["mechanism", "epsilon"])[metric].agg(
        ["mean", "std"]
    )
    for mechanism in table["mechanism"].unique():
        part = summary.loc[mechanism]
        style = STYLE.get(mechanism, {})
        ax.errorbar(
            part.index,
            part["mean"],
            yerr=part["std"].fillna(0.0),
            capsize=3,
            label=labels.get(mechanism, mechanism),
            **style,
        )
    for i, (label, (mean, sd)) in enumerate((baselines or {}).items()):
        color = ["C3", "C2", "C7"][i % 3]
        ax.axhline(mean, color=color, linestyle=":", linewidth=1.5, label=label)
        if sd:
            ax.axhspan(mean - sd, mean + sd, color=color, alpha=0.12)
    ax.set_xscale("log")
    ax.set_xlabel("total ε")
    if legend:
        legend_outside(ax, fontsize="small")
    return ax
