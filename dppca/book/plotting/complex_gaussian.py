"""Figures for the complex Gaussian perturbation chapter.

Plotting only: every quantity shown is computed by
:mod:`dppca.mechanisms.complex_gaussian`,
:mod:`dppca.mechanisms.gaussian_approx` or
:mod:`dppca.samplers.dyson`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

from .foundations import legend_under
from .ticks import plain_log_ticks

#: One colour per release, shared by all figures of the chapter.
RELEASE_COLOURS = {
    "real noise": "C0",
    "complex noise, Re H": "C1",
    "complex noise, H": "C2",
}

#: Marker per release, so that the releases differ without colour: the real
#: mechanism and the real part of the complex release coincide, so the one is
#: a filled circle and the other a larger hollow square around it.
RELEASE_MARKERS = {
    "real noise": dict(marker="o", markersize=6),
    "complex noise, Re H": dict(
        marker="s", markersize=10, markerfacecolor="none", markeredgewidth=1.5
    ),
    "complex noise, H": dict(marker="D", markersize=6),
}

#: Colours of the two symmetry classes (real noise: β = 1, complex: β = 2).
FIELD_COLOURS = {"real": "C0", "complex": "C1"}

#: Line styles and markers of the two symmetry classes.
FIELD_STYLES = {
    "real": dict(linestyle="-", marker="o"),
    "complex": dict(linestyle="--", marker="s"),
}


def plot_errors_against_dimension(
    d_values,
    measured: dict,
    predictions: dict,
    bounds: dict,
    labels: dict,
    compared: str,
    title: str | None = None,
):
    """Two log-log panels of mean errors against ``d``.

    Left: each release's measured error (markers of :data:`RELEASE_MARKERS`,
    colours of :data:`RELEASE_COLOURS`) with the predictions. Right: the
    measured error of the release ``compared`` with the references it is
    compared with. ``measured`` maps a release to its mean errors;
    ``predictions`` and ``bounds`` map a label to ``(values, colour,
    linestyle)``; ``labels`` gives each release's name in the legends.
    """
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(6.5, 4.6), layout="constrained"
    )

    def draw_measured(ax, name):
        ax.loglog(
            d_values,
            measured[name],
            "-",
            color=RELEASE_COLOURS[name],
            label=f"measured, {labels[name]}",
            **RELEASE_MARKERS[name],
        )
        return measured[name]

    panels = (
        (left, list(measured), predictions, "error and its prediction"),
        (right, [compared], bounds, "error, shape and bound"),
    )
    for ax, names, references, panel in panels:
        shown = [draw_measured(ax, name) for name in names]
        for label, (values, colour, style) in references.items():
            ax.loglog(d_values, values, style, color=colour, label=label)
            shown.append(values)
        shown = np.concatenate([np.asarray(v, dtype=float) for v in shown])
        plain_log_ticks(ax.yaxis, shown.min() * 0.9, shown.max() * 1.1)
        ax.set_ylim(shown.min() * 0.8, shown.max() * 1.25)
        ax.xaxis.set_major_locator(FixedLocator([float(d) for d in d_values]))
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_locator(NullLocator())
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("dimension d")
        ax.set_title(panel)
        legend_under(ax, ncol=1, bbox_to_anchor=(0.5, -0.24))
    left.set_ylabel(r"$\|\hat A_k - A_k\|_F$ (units of the noise $s$)")
    if title:
        fig.suptitle(title)
    return fig


def plot_gap_statistics(
    spacings: dict, surmises: dict, gaps: dict, xs, slopes: dict, title: str
):
    """Two panels. Left: histograms of unfolded bulk spacings (``real`` as a
    step line, ``complex`` filled) with Wigner's surmises (dashed for β = 1,
    dotted for β = 2). Right: empirical ``P(gap < x)`` of the smallest noisy
    gap inside the top block, log-log, one marker and line style per noise,
    with the fitted exponents in the legend."""
    fig, (left, right) = plt.subplots(
        1, 2, figsize=(6.5, 4.4), layout="constrained"
    )
    bins = np.linspace(0.0, 3.5, 36)
    grid = np.linspace(0.0, 3.5, 300)
    surmise_styles = {"real": "--", "complex": ":"}
    for field, values in spacings.items():
        colour = FIELD_COLOURS[field]
        filled = field == "complex"
        left.hist(
            values,
            bins=bins,
            density=True,
            histtype="stepfilled" if filled else "step",
            alpha=0.35 if filled else 1.0,
            color=colour,
            linewidth=1.2,
            label=f"{field} noise",
        )
        left.plot(
            grid,
            surmises[field][1](grid),
            surmise_styles[field],
            color="black" if filled else colour,
            linewidth=1.5,
            label=surmises[field][0],
        )
    left.set_xlabel("unfolded spacing x")
    left.set_ylabel("density")
    left.set_title("bulk spacings")
    legend_under(left, ncol=1, bbox_to_anchor=(0.5, -0.24))
    for field, values in gaps.items():
        cdf = np.array([np.mean(values < x) for x in xs])
        right.loglog(
            xs,
            cdf,
            color=FIELD_COLOURS[field],
            label=f"{field} noise (slope {slopes[field]:.2f})",
            **FIELD_STYLES[field],
        )
    right.xaxis.set_major_locator(FixedLocator([float(x) for x in xs]))
    right.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    right.xaxis.set_minor_locator(NullLocator())
    right.xaxis.set_minor_formatter(NullFormatter())
    right.yaxis.set_minor_formatter(NullFormatter())
    right.set_xlabel("x (units of the noise s)")
    right.set_ylabel("P(smallest gap < x)")
    right.set_title("smallest gap of the top block")
    legend_under(right, ncol=1, bbox_to_anchor=(0.5, -0.24))
    fig.suptitle(title)
    return fig


__all__ = [
    "RELEASE_COLOURS",
    "RELEASE_MARKERS",
    "FIELD_COLOURS",
    "FIELD_STYLES",
    "plot_errors_against_dimension",
    "plot_gap_statistics",
]
