"""Chapter 8's utility figures as small multiples: the sixteen mechanisms
split into three groups of at most six, one row of panels per group, so that
no panel carries more series than the eye can tell apart; and chapter 7's
spectra, one panel per data set.

Each mechanism keeps one colour, marker and line style in every panel of
both figures (:data:`PANEL_STYLE`); within a group the colours are distinct,
and so are the pairs of marker and line style, so that the curves can be
told apart without colour. The optimum is drawn last, dashed, on top of the
lines, so that it stays visible where non-private PCA lies on it. Every
figure is drawn at most :data:`WIDTH` inches wide, legends included, with no
text below :data:`FONT_SIZE` points.
"""

from __future__ import annotations

import matplotlib.pyplot as plt

from .experiments import STYLE, mark_not_returned

#: The three groups of mechanisms, in the order of the rows of the figures:
#: the paper's own comparison, the mechanisms that add noise to A (or to a
#: matrix computed from it once), and those that sample, iterate or read the
#: rows.
GROUPS = {
    "The paper's comparison": ("pca", "ppca", "mod_sulq", "random"),
    "Noise added to A": (
        "analyze_gauss",
        "gaussian_approx",
        "complex_gaussian",
        "laplace",
        "wishart_published",
        "wishart_delta",
    ),
    "Samplers, iterations and row readers": (
        "amin",
        "diffprivlib_pca",
        "opendp_pca",
        "noisy_power_method",
        "trace_sensitive",
        "streaming",
    ),
}

# The shared encoding of chapters 8-9 (``STYLE``), changed where two
# mechanisms of one group would be hard to tell apart: in colour (yellow on
# white, two browns, indigo beside black), or without it (two round markers
# on solid lines for the two Gaussian mechanisms that lie on top of each
# other).
_CHANGED = {
    "wishart_delta": {"color": "C0"},
    "complex_gaussian": {"color": "C2", "linestyle": "--", "marker": "o"},
    "gaussian_approx": {"marker": "s"},
    "diffprivlib_pca": {"color": "C0"},
    "streaming": {"color": "C3"},
}

#: Colour, marker and line style of each mechanism in these figures: within
#: a group no two mechanisms share a colour, nor a marker and line style.
PANEL_STYLE = {
    key: {**STYLE.get(key, {}), **_CHANGED.get(key, {})}
    for group in GROUPS.values()
    for key in group
}

#: Font size (points) of every text in the figures. They are drawn at
#: :data:`WIDTH`, within the page's text column, so at 100% scale, and the
#: book shows no figure text below 9 points.
FONT_SIZE = 10

#: Width (inches) of every figure, legends included. Saved with the book's
#: tight bounding box, which adds 0.1 inch of margin on each side, a figure
#: is at most 6.5 inches wide on the page: within the text column.
WIDTH = 6.3

#: Marker size (points) of the curves and the legend entries.
MARKER_SIZE = 5

_MISSING = "no release returned (cap or budget)"


def _curves(ax, summary, keys, x: str) -> None:
    """One line with error bars per mechanism of ``keys`` over the settings
    where some release returned, and a cross on the horizontal axis, in the
    mechanism's colour, where none did."""
    for key in keys:
        part = summary[summary["mechanism"] == key].sort_values(x)
        if part.empty:
            continue
        style = PANEL_STYLE[key]
        ok = part["count"] > 0
        ax.errorbar(
            part[x][ok],
            part["mean"][ok],
            yerr=part["std"][ok],
            capsize=2,
            markersize=MARKER_SIZE,
            linewidth=1.2,
            **style,
        )
        missing = part[part["not returned"] > 0]
        if len(missing):
            mark_not_returned(
                ax, missing[x], style["color"], size=7, width=1.8, zorder=5
            )


def _optimum(ax, value) -> None:
    ax.axhline(
        value, color="k", linestyle=(0, (4, 3)), linewidth=1.0, zorder=10
    )


def _panel(ax, optimum, title) -> None:
    """The optimum, a log x axis from a y of zero, and the title: what every
    panel of both figures shares."""
    from matplotlib.ticker import NullFormatter

    _optimum(ax, optimum)
    ax.set_xscale("log")
    # labels at powers of ten only: minor labels ("3×10³") run together
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(bottom=0)
    ax.tick_params(labelsize=FONT_SIZE, pad=2)
    ax.set_title(title, fontsize=FONT_SIZE)


def _handles(keys, labels: dict, with_missing: bool, wrap: int = 0):
    """Legend entries of one group: its mechanisms, the optimum line and,
    if some setting had no result, the cross; texts longer than ``wrap``
    characters are broken into lines (no breaking when 0)."""
    import textwrap

    from matplotlib.lines import Line2D

    handles = [
        Line2D(
            [], [], markersize=MARKER_SIZE, linewidth=1.2, **PANEL_STYLE[key]
        )
        for key in keys
    ]
    names = [labels.get(key, key) for key in keys]
    handles.append(Line2D([], [], color="k", linestyle=(0, (4, 3))))
    names.append("optimum")
    if with_missing:
        handles.append(
            Line2D(
                [],
                [],
                color="grey",
                linestyle="none",
                marker="x",
                markersize=7,
                markeredgewidth=1.8,
            )
        )
        names.append(_MISSING)
    if wrap:
        names = [textwrap.fill(name, wrap) for name in names]
    return handles, names


def _present(summary, keys):
    return [key for key in keys if (summary["mechanism"] == key).any()]


def _has_missing(summary, keys) -> bool:
    part = summary[summary["mechanism"].isin(keys)]
    return bool((part["not returned"] > 0).any())


def plot_utility_versus_n_panels(
    summary, labels: dict, panels: dict, *, width: float = WIDTH
):
    """Figures 3-4 of the paper with every mechanism, as small multiples.

    ``summary`` is :func:`dppca.book.experiments.summarize` over all data
    sets (a ``data set`` column), ``labels`` maps each mechanism's key to its
    legend text, and ``panels`` maps each data set's name to ``(title,
    optimum)``, in the order of the columns. One row per group of
    :data:`GROUPS`, one column per data set, the group's legend above its
    row, and the optimum q_F(V_k) dashed on top of the lines. Returns the
    figure."""
    import math

    columns = len(panels)
    groups = {group: _present(summary, keys) for group, keys in GROUPS.items()}
    entries = {  # mechanisms, optimum and perhaps the cross
        group: len(keys) + 1 + _has_missing(summary, keys)
        for group, keys in groups.items()
    }
    ncols = {group: 2 for group in groups}  # long names: two columns fit
    # every row of panels as high as the others, plus its legend's lines
    heights = [
        2.4 + 0.22 * math.ceil(entries[group] / ncols[group])
        for group in groups
    ]
    with plt.rc_context({"font.size": FONT_SIZE}):
        fig = plt.figure(figsize=(width, sum(heights)), layout="constrained")
        rows = fig.subfigures(len(groups), 1, height_ratios=heights)
        for row, (sub, (group, keys)) in enumerate(zip(rows, groups.items())):
            axes = sub.subplots(1, columns)
            for col, (ax, (name, (title, optimum))) in enumerate(
                zip(axes, panels.items())
            ):
                part = summary[summary["data set"] == name]
                _curves(ax, part, keys, "n")
                _panel(ax, optimum, title)
                if row == len(groups) - 1:
                    ax.set_xlabel("n (log scale)", fontsize=FONT_SIZE)
                if col == 0:
                    ax.set_ylabel(r"$q_F(U)$", fontsize=FONT_SIZE)
            handles, names = _handles(keys, labels, _has_missing(summary, keys))
            sub.legend(
                handles,
                names,
                loc="outside upper left",
                ncol=ncols[group],
                frameon=False,
                fontsize=FONT_SIZE,
                title=group,
                title_fontsize=FONT_SIZE,
                alignment="left",
                handlelength=2.6,
                columnspacing=1.2,
            )
    return fig


def plot_utility_versus_epsilon_panels(
    summary, labels: dict, optimum: float, *, width: float = WIDTH
):
    """Figure 5 of the paper with every mechanism, as small multiples: one
    panel per group of :data:`GROUPS`, stacked on shared axes so that the
    values of ε line up, each with its legend to its right, and the optimum
    q_F(V_2) dashed on top. The legends' long names are broken into lines,
    so that figure and legends stay within ``width``. Returns the figure."""
    groups = list(GROUPS.items())
    with plt.rc_context({"font.size": FONT_SIZE}):
        fig, axes = plt.subplots(
            len(groups),
            1,
            figsize=(width, 2.15 * len(groups) + 0.5),
            sharex=True,
            sharey=True,
            layout="constrained",
        )
        for ax, (group, keys) in zip(axes, groups):
            keys = _present(summary, keys)
            _curves(ax, summary, keys, "epsilon")
            _panel(ax, optimum, "")
            ax.set_title(group, fontsize=FONT_SIZE, loc="left")
            ax.set_ylabel(r"$q_F(U)$", fontsize=FONT_SIZE)
            handles, names = _handles(
                keys, labels, _has_missing(summary, keys), wrap=24
            )
            ax.legend(
                handles,
                names,
                loc="center left",
                bbox_to_anchor=(1.02, 0.5),
                frameon=False,
                fontsize=FONT_SIZE,
                handlelength=2.6,
                borderaxespad=0.0,
            )
        axes[-1].set_xlabel(r"$\varepsilon$ (log scale)", fontsize=FONT_SIZE)
    return fig


def plot_spectra_panels(
    spectra: dict, ks: dict, *, width: float = WIDTH, floor: float = 1e-12
):
    """Chapter 7's spectra as small multiples: one panel per data set (two
    columns), the eigenvalues ``spectra[name]`` in decreasing order against
    their index, both axes logarithmic and shared, values below ``floor``
    drawn at the floor (numerical zeros), and the paper's ``ks[name]``
    marked by a dotted vertical line with a dot on the curve. Each panel
    names its data set, so nothing depends on colour. Returns the figure."""
    import math

    import numpy as np

    names = list(spectra)
    columns = 2
    rows = math.ceil(len(names) / columns)
    fig, axes = plt.subplots(
        rows,
        columns,
        figsize=(width, 2.3 * rows + 0.6),
        sharex=True,
        sharey=True,
        layout="constrained",
        squeeze=False,
    )
    for ax, name in zip(axes.flat, names):
        values = np.clip(np.asarray(spectra[name], dtype=float), floor, None)
        index = np.arange(1, values.size + 1)
        k = ks[name]
        ax.plot(index, values, color="C0", linewidth=1.6)
        ax.axvline(k, color="0.35", linestyle=":", linewidth=1.2)
        ax.plot([k], [values[k - 1]], "o", color="C3", markersize=5)
        ax.annotate(
            f"k = {k}",
            (k, values[k - 1]),
            xytext=(6, 6),
            textcoords="offset points",
        )
        ax.set_title(f"{name}, d = {values.size}")
        ax.set_xscale("log")
        ax.set_yscale("log")
    for ax in axes.flat[len(names) :]:
        ax.set_visible(False)
    # few ticks, so that labels such as 10⁻¹² never touch: every fourth
    # power of ten on the vertical axis, every power on the horizontal one
    lowest = math.floor(math.log10(floor))
    axes[0, 0].set_ylim(10.0 ** (lowest - 1), 3)
    axes[0, 0].set_yticks([10.0**p for p in range(0, lowest - 1, -4)])
    longest = max(len(values) for values in spectra.values())
    axes[0, 0].set_xticks(
        [10**p for p in range(math.floor(math.log10(longest)) + 1)]
    )
    for ax in axes[-1]:
        ax.set_xlabel("index i (log scale)")
    for ax in axes[:, 0]:
        ax.set_ylabel(r"$\lambda_i(A)$")
    return fig
