"""Figures of the practitioner's chapter (13): components as images, accuracy
and utility against ε with error bars. Every figure is drawn at the text
column's width (6.5 in) with text of at least 10 pt, and at most six series
share a panel. Mathematics never lives here."""

from __future__ import annotations

import textwrap

import matplotlib.pyplot as plt
import numpy as np

from ..mechanism_facts import FACTS
from .experiments import STYLE as REGISTRY_STYLE

#: Line style per PrivatePCA mechanism name: the real-data chapters' styles,
#: each mechanism's own (the book's table, :mod:`dppca.book.mechanism_facts`).
STYLE = {
    "pca": REGISTRY_STYLE["pca"],
    "random": REGISTRY_STYLE["random"],
    **{key: dict(facts.style) for key, facts in FACTS.items()},
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
    blocks,
    epsilons,
    reference=None,
    shape=(8, 8),
    width: float = 6.5,
    label_chars: int = 15,
):
    """Draw one component per release as an image, in ``blocks`` set side
    by side: each block is a dict ``label -> entry`` with one row per label
    and one column per ε.

    ``entry[eps]`` is a component (a vector of ``prod(shape)`` entries); an
    entry that is a single vector (not a dict), such as non-private PCA's, is
    drawn under every ε, and when a block opens with one a thin gap sets it
    apart from the rows below. A component's sign is arbitrary: given a
    ``reference`` vector, each image is drawn with the sign whose inner
    product with it is non-negative. Each image has its own symmetric colour
    scale (red positive, blue negative). The figure is ``width`` inches
    wide; every text is 10 pt (labels wrapped at spaces, at
    ``label_chars`` characters)."""
    label_width, header, pad, block_gap, rule = 1.36, 0.3, 0.05, 0.1, 0.1
    n_cols, n_rows = len(epsilons), max(len(block) for block in blocks)
    gapped = any(not isinstance(next(iter(b.values())), dict) for b in blocks)
    cell = (
        width
        - len(blocks) * (label_width + (n_cols - 1) * pad)
        - (len(blocks) - 1) * block_gap
    ) / (len(blocks) * n_cols)
    height = header + n_rows * cell + (n_rows - 1) * pad + gapped * rule
    fig = plt.figure(figsize=(width, height))
    block_width = label_width + n_cols * cell + (n_cols - 1) * pad
    for b, block in enumerate(blocks):
        x0 = b * (block_width + block_gap) + label_width
        entries = list(block.items())
        for r, (label, entry) in enumerate(entries):
            below = r > 0 and not isinstance(entries[0][1], dict)
            top = height - header - r * (cell + pad) - below * rule
            for c, eps in enumerate(epsilons):
                x = x0 + c * (cell + pad)
                ax = fig.add_axes(
                    [
                        x / width,
                        (top - cell) / height,
                        cell / width,
                        cell / height,
                    ]
                )
                vector = np.ravel(
                    entry[eps] if isinstance(entry, dict) else entry
                )
                if reference is not None and vector @ np.ravel(reference) < 0:
                    vector = -vector
                scale = np.abs(vector).max() or 1.0
                ax.imshow(
                    vector.reshape(shape),
                    cmap="RdBu_r",
                    vmin=-scale,
                    vmax=scale,
                )
                ax.set_xticks([])
                ax.set_yticks([])
                if r == 0:
                    ax.set_title(f"ε = {eps:g}", fontsize=10, pad=4)
                if c == 0:
                    ax.set_ylabel(
                        textwrap.fill(
                            label,
                            label_chars,
                            break_long_words=False,
                            break_on_hyphens=False,
                        ),
                        rotation=0,
                        ha="right",
                        va="center",
                        fontsize=10,
                        labelpad=5,
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
