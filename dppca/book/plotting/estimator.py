"""Figures of the practitioner's chapter (13): components as images, accuracy
and utility against ε with error bars. Every figure is drawn at the text
column's width (6.5 in) with text of at least 10 pt, and at most six series
share a panel. Mathematics never lives here."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np

from ...mechanisms.registry import MECHANISMS
from .experiments import STYLE as REGISTRY_STYLE

#: Line style per PrivatePCA mechanism name: the real-data chapters' styles,
#: each mechanism's own (its declaration in :mod:`dppca.mechanisms.registry`).
STYLE = {
    "pca": REGISTRY_STYLE["pca"],
    "random": REGISTRY_STYLE["random"],
    **{key: dict(spec.style) for key, spec in MECHANISMS.items()},
}

#: Styles for series that are not mechanisms (variants of one mechanism), in
#: order: colour, marker and line style all differ from one to the next.
VARIANT_STYLES = [
    dict(color="C0", marker="o", linestyle="-"),
    dict(color="C1", marker="s", linestyle="--"),
    dict(color="C2", marker="^", linestyle=":"),
    dict(color="C3", marker="D", linestyle="-."),
    dict(color="C4", marker="v", linestyle=(0, (5, 1, 1, 1, 1, 1))),
    dict(color="C5", marker="P", linestyle=(0, (1, 3))),
]

#: How the baselines are drawn: non-private PCA dashed, the random
#: projection dotted with a band of one standard deviation.
BASELINE_STYLES = [
    dict(color="C3", linestyle="--", linewidth=1.5),
    dict(color="C2", linestyle=":", linewidth=2.0),
    dict(color="C7", linestyle="-.", linewidth=1.5),
]


def component_grid(
    rows: dict, epsilons, n_show: int, shape=(8, 8), width: float = 6.5
):
    """Draw components as images: one row per release, one group of
    ``n_show`` columns per ε (the components 1, 2, ... of that release).

    ``rows[label][eps]`` is a ``k × d`` array of components (rows); a row
    whose value is a single array (not a dict) is repeated under every ε.
    Each image has its own symmetric colour scale (red positive, blue
    negative). The figure is ``width`` inches wide, with labels of 10 pt
    (long ones wrapped) and ε headers of 11 pt."""
    labels = list(rows)
    n_groups = len(epsilons)
    label_width, header, gap = 1.55, 0.62, 0.22  # inches
    cell = (width - label_width - gap * (n_groups - 1)) / (n_groups * n_show)
    height = header + cell * len(labels)
    ratios = []
    for e in range(n_groups):
        ratios += [1.0] * n_show + ([gap / cell] if e < n_groups - 1 else [])
    fig = plt.figure(figsize=(width, height))
    grid = fig.add_gridspec(
        len(labels),
        len(ratios),
        width_ratios=ratios,
        left=label_width / width,
        right=1.0,
        bottom=0.0,
        top=1 - header / height,
        wspace=0.06,
        hspace=0.06,
    )
    for r, label in enumerate(labels):
        entry = rows[label]
        for e, eps in enumerate(epsilons):
            comps = entry[eps] if isinstance(entry, dict) else entry
            for j in range(n_show):
                ax = fig.add_subplot(grid[r, e * (n_show + 1) + j])
                image = np.asarray(comps[j]).reshape(shape)
                scale = np.abs(image).max() or 1.0
                ax.imshow(image, cmap="RdBu_r", vmin=-scale, vmax=scale)
                ax.set_xticks([])
                ax.set_yticks([])
                if r == 0:
                    ax.set_title(str(j + 1), fontsize=10, pad=3)
                    if j == (n_show - 1) // 2:
                        box = ax.get_position()
                        centre = box.x0 + box.width / 2
                        if n_show % 2 == 0:
                            centre = box.x1 + 0.003
                        fig.text(
                            centre,
                            box.y1 + 0.3 / height,
                            f"ε = {eps:g}",
                            ha="center",
                            va="bottom",
                            fontsize=11,
                        )
                if e == 0 and j == 0:
                    ax.set_ylabel(
                        textwrap.fill(label, 16),
                        rotation=0,
                        ha="right",
                        va="center",
                        fontsize=10,
                        labelpad=6,
                    )
    return fig


def _series_style(key, index: int) -> dict:
    return STYLE.get(key) or VARIANT_STYLES[index % len(VARIANT_STYLES)]


def metric_against_epsilon(
    table,
    metric: str,
    ax=None,
    baselines: dict | None = None,
    labels=None,
    legend: bool = True,
    mechanisms=None,
    dodge: float = 1.0,
):
    """Mean ± standard deviation of ``metric`` against ε (log axis) for each
    mechanism of a long ``table`` (columns ``mechanism``, ``epsilon``,
    ``metric``), or only for those in ``mechanisms``; horizontal lines for
    the ``baselines`` (label -> (mean, sd), a band of ± sd where sd > 0).
    A mechanism of the registry keeps its own style; other series (variants
    of one mechanism) get :data:`VARIANT_STYLES` in turn. With ``dodge > 1``
    the series are drawn a factor ``dodge`` apart along the (log) ε axis,
    so that equal values stay visible side by side. ``legend=True``
    puts the legend inside the axes, where matplotlib finds room;
    ``legend=False`` leaves it to the caller."""
    ax = ax or plt.gca()
    labels = labels or {}
    summary = table.groupby(["mechanism", "epsilon"])[metric].agg(
        ["mean", "std"]
    )
    keys = [
        key
        for key in table["mechanism"].unique()
        if mechanisms is None or key in mechanisms
    ]
    for i, mechanism in enumerate(keys):
        part = summary.loc[mechanism]
        shift = dodge ** (i - (len(keys) - 1) / 2)
        ax.errorbar(
            part.index * shift,
            part["mean"],
            yerr=part["std"].fillna(0.0),
            capsize=3,
            markersize=6,
            label=labels.get(mechanism, mechanism),
            **_series_style(mechanism, i),
        )
    for i, (label, (mean, sd)) in enumerate((baselines or {}).items()):
        style = BASELINE_STYLES[i % len(BASELINE_STYLES)]
        ax.axhline(mean, label=label, **style)
        if sd:
            ax.axhspan(mean - sd, mean + sd, color=style["color"], alpha=0.12)
    ax.set_xscale("log")
    ax.set_xlabel("total ε")
    if legend:
        ax.legend(fontsize="small")
    return ax


def metric_panels(
    table,
    metric: str,
    groups: dict,
    ylabel: str,
    baselines: dict | None = None,
    labels=None,
    width: float = 6.5,
    panel_height: float = 2.5,
    dodge: float = 1.1,
):
    """:func:`metric_against_epsilon` as small multiples: one panel per
    group (``groups``: panel title -> mechanism keys), stacked with shared
    axes, each with the ``baselines`` and its own legend to the right
    (labels wrapped at 18 characters). The series of a panel are drawn a
    factor ``dodge`` apart along the ε axis. Returns the figure."""
    labels = labels or {}
    wrapped = {
        key: textwrap.fill(labels.get(key, key), 18)
        for key in table["mechanism"].unique()
    }
    height = panel_height * len(groups) + 0.4
    fig, axes = plt.subplots(
        len(groups),
        1,
        figsize=(width, height),
        sharex=True,
        sharey=True,
        squeeze=False,
    )
    axes = axes[:, 0]
    for ax, (title, keys) in zip(axes, groups.items()):
        metric_against_epsilon(
            table,
            metric,
            ax=ax,
            baselines=baselines,
            labels=wrapped,
            legend=False,
            mechanisms=keys,
            dodge=dodge,
        )
        ax.set_title(title)
        ax.set_ylabel(ylabel)
        ax.legend(
            loc="center left",
            bbox_to_anchor=(1.02, 0.5),
            fontsize="small",
            borderaxespad=0.0,
        )
        ax.xaxis.set_tick_params(labelbottom=True)
    for ax in axes[:-1]:
        ax.set_xlabel("")
    fig.subplots_adjust(
        left=0.12,
        right=0.64,
        top=1 - 0.35 / height,
        bottom=0.5 / height,
        hspace=0.45,
    )
    return fig
