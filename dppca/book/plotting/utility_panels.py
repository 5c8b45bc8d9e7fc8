"""Chapter 8's utility figures as small multiples: the sixteen mechanisms
split into three groups of at most six, one row of panels per group, so that
no panel carries more series than the eye can tell apart.

Each mechanism keeps one colour, marker and line style in every panel of
both figures (:data:`PANEL_STYLE`); within a group the colours are distinct.
The optimum is drawn last, dashed, on top of the lines, so that it stays
visible where non-private PCA lies on it.
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
        "gaussian_subspace_recovery",
        "complex_gaussian",
        "laplace_input_perturbation",
        "wishart_input_perturbation",
        "wishart_input_perturbation_delta",
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

# The shared encoding of chapters 8-9 (``STYLE``), with the colours changed
# where two mechanisms of one group would be hard to tell apart (yellow on
# white, two browns, indigo beside black).
_COLOUR = {
    "wishart_input_perturbation_delta": "C0",
    "complex_gaussian": "C2",
    "diffprivlib_pca": "C0",
    "streaming": "C3",
}

#: Colour, marker and line style of each mechanism in these figures.
PANEL_STYLE = {
    key: {
        **STYLE.get(key, {}),
        **({"color": _COLOUR[key]} if key in _COLOUR else {}),
    }
    for group in GROUPS.values()
    for key in group
}

#: Font size (points) of every text in the figures, drawn at the book's
#: column width of 7 inches, so at 100% scale.
FONT_SIZE = 9

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
            markersize=4,
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
    _optimum(ax, optimum)
    ax.set_xscale("log")
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
        Line2D([], [], markersize=4, linewidth=1.2, **PANEL_STYLE[key])
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
    summary, labels: dict, panels: dict, *, width: float = 7.0
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
    ncols = {group: 2 if n > 6 else 3 for group, n in entries.items()}
    # every row of panels as high as the others, plus its legend's lines
    heights = [
        2.3 + 0.2 * math.ceil(entries[group] / ncols[group]) for group in groups
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
    summary, labels: dict, optimum: float, *, width: float = 6.8
):
    """Figure 5 of the paper with every mechanism, as small multiples: one
    panel per group of :data:`GROUPS`, side by side on a shared vertical
    axis, each with its legend below it, and the optimum q_F(V_2) dashed on
    top. ``width`` leaves room for the legends, which reach a little beyond
    the axes, within the book's 7 inch column. Returns the figure."""
    groups = list(GROUPS.items())
    with plt.rc_context({"font.size": FONT_SIZE}):
        fig, axes = plt.subplots(
            1,
            len(groups),
            figsize=(width, 5.0),
            sharey=True,
            layout="constrained",
        )
        for ax, (group, keys) in zip(axes, groups):
            keys = _present(summary, keys)
            _curves(ax, summary, keys, "epsilon")
            _panel(ax, optimum, group)
            ax.set_xlabel(r"$\varepsilon$ (log scale)", fontsize=FONT_SIZE)
            handles, names = _handles(
                keys, labels, _has_missing(summary, keys), wrap=22
            )
            ax.legend(
                handles,
                names,
                loc="upper left",
                bbox_to_anchor=(-0.04, -0.2),
                frameon=False,
                fontsize=FONT_SIZE,
                handlelength=2.6,
                borderaxespad=0.0,
            )
        axes[0].set_ylabel(r"$q_F(U)$", fontsize=FONT_SIZE)
    return fig
