"""Figures for the complex Gaussian perturbation chapter.

Plotting only: every quantity shown is computed by
:mod:`dppca.mechanisms.complex_gaussian`,
:mod:`dppca.mechanisms.gaussian_approx` or
:mod:`dppca.samplers.dyson`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from .foundations import legend_under

#: One colour per release, shared by all figures of the chapter.
RELEASE_COLOURS = {
    "real noise": "C0",
    "complex noise, Re H": "C1",
    "complex noise, H": "C2",
}

#: Colours of the two symmetry classes (real noise: β = 1, complex: β = 2).
FIELD_COLOURS = {"real": "C0", "complex": "C1"}


def plot_errors_against_dimension(
    d_values, measured: dict, references: dict, title: str
):
    """Log-log mean errors against ``d`` (markers, one colour per release of
    :data:`RELEASE_COLOURS`), with reference curves.

    ``measured`` maps a release name to its mean errors; ``references`` maps
    a label to ``(values, colour, linestyle)``.
    """
    fig, ax = plt.subplots()
    for name, values in measured.items():
        ax.loglog(
            d_values,
            values,
            "o-",
            color=RELEASE_COLOURS[name],
            label=f"measured, {name}",
        )
    for label, (values, colour, style) in references.items():
        ax.loglog(d_values, values, style, color=colour, label=label)
    ax.set_xticks(d_values)
    ax.set_xticklabels([str(d) for d in d_values])
    ax.minorticks_off()
    ax.set_xlabel("dimension d")
    ax.set_ylabel(r"$\|\hat A_k - A_k\|_F$ (units of the noise $s$)")
    ax.set_title(title)
    legend_under(ax)
    return fig


def plot_gap_statistics(
    spacings: dict, surmises: dict, gaps: dict, xs, slopes: dict, title: str
):
    """Two panels. Left: step histograms of unfolded bulk spacings (``real``
    and ``complex``) with Wigner's surmises (dashed). Right: empirical
    ``P(gap < x)`` of the smallest noisy gap inside the top block, log-log,
    with the fitted exponents in the legend."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.0, 4.2))
    bins = np.linspace(0.0, 3.5, 36)
    grid = np.linspace(0.0, 3.5, 300)
    for field, values in spacings.items():
        colour = FIELD_COLOURS[field]
        left.hist(
            values,
            bins=bins,
            density=True,
            histtype="step",
            color=colour,
            label=f"{field} noise",
        )
        left.plot(
            grid,
            surmises[field][1](grid),
            "--",
            color=colour,
            label=surmises[field][0],
        )
    left.set_xlabel("unfolded spacing x")
    left.set_ylabel("density")
    left.set_title("Bulk spacings of the noise")
    left.legend(fontsize="small", loc="upper right")
    for field, values in gaps.items():
        cdf = np.array([np.mean(values < x) for x in xs])
        right.loglog(
            xs,
            cdf,
            "o-",
            color=FIELD_COLOURS[field],
            label=f"{field} noise (slope {slopes[field]:.2f})",
        )
    right.set_xticks(xs)
    right.set_xticklabels([f"{x:g}" for x in xs])
    right.minorticks_off()
    right.set_xlabel("x (units of the noise s)")
    right.set_ylabel("P(smallest gap < x)")
    right.set_title("Smallest gap in the noisy top block")
    legend_under(right, ncol=1)
    fig.suptitle(title)
    fig.subplots_adjust(wspace=0.35, top=0.84)
    return fig


__all__ = [
    "RELEASE_COLOURS",
    "FIELD_COLOURS",
    "plot_errors_against_dimension",
    "plot_gap_statistics",
]
