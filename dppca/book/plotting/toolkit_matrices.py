"""Figures for the two toolkit pages on matrices (linear algebra of subspaces,
random matrices).

Plotting only: every curve and sample shown is computed in the page that calls
these helpers, or by the package functions it names there.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import legend_outside


def plot_coordinate_histograms(samples: dict, grid, density, title: str):
    """Histograms of one coordinate of random unit vectors, one per sampler,
    over the density ``density`` (evaluated on ``grid``) that a uniform
    point of the sphere would give."""
    fig, ax = plt.subplots()
    for label, values in samples.items():
        ax.hist(
            values,
            bins=40,
            range=(grid[0], grid[-1]),
            density=True,
            histtype="step",
            lw=1.5,
            label=label,
        )
    ax.plot(grid, density, "k--", label="uniform on the sphere")
    ax.set_xlabel("first coordinate of the first column")
    ax.set_ylabel("density")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper right")
    return fig


def plot_spectra(panels: list[dict], title: str):
    """Side-by-side eigenvalue histograms, each with its limiting density.

    Each panel is a dict with keys ``values`` (eigenvalues), ``grid`` and
    ``density`` (the limit on the grid), ``xlabel``, ``subtitle`` and
    optionally ``edges`` (positions drawn as dotted vertical lines).
    """
    fig, axes = plt.subplots(
        1, len(panels), figsize=(6.0 if len(panels) == 1 else 7.0, 3.8)
    )
    for ax, panel in zip(np.atleast_1d(axes), panels):
        ax.hist(
            panel["values"],
            bins=50,
            density=True,
            histtype="stepfilled",
            alpha=0.35,
            label="eigenvalues",
        )
        ax.plot(panel["grid"], panel["density"], "k-", lw=1.5, label="limit")
        for edge in panel.get("edges", ()):
            ax.axvline(edge, color="k", ls=":", lw=1)
        ax.set_xlabel(panel["xlabel"])
        ax.set_title(panel["subtitle"], fontsize="medium")
    np.atleast_1d(axes)[0].set_ylabel("density")
    legend_outside(np.atleast_1d(axes)[-1], fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def plot_edge_fluctuations(samples: dict, grid, densities: dict, title: str):
    """Histograms of rescaled largest eigenvalues (``samples``: label ->
    values) with the limiting densities (``densities``: label -> values on
    ``grid``), drawn in the same colour per label."""
    fig, ax = plt.subplots()
    for label, values in samples.items():
        (_, _, patches) = ax.hist(
            values,
            bins=30,
            density=True,
            histtype="step",
            lw=1.5,
            label=f"{label}, simulated",
        )
        colour = patches[0].get_edgecolor()
        ax.plot(
            grid,
            densities[label],
            "--",
            color=colour,
            label=f"{label}, Tracy–Widom",
        )
    ax.set_xlabel(r"$(\lambda_1 - 2\sqrt{d})\, d^{1/6}$")
    ax.set_ylabel("density")
    ax.set_title(title)
    ax.legend(fontsize="small", loc="upper right")
    return fig


def plot_spike_transition(
    strengths, top, overlap, grid, top_limit, overlap_limit, title: str
):
    """Two panels against the spike strength: the mean top eigenvalue and
    the mean squared overlap (markers, with the spread of the draws as
    bars), each with its limit curve on ``grid``."""
    fig, (left, right) = plt.subplots(1, 2, figsize=(7.0, 3.6))
    for ax, values, limit, ylabel in (
        (left, top, top_limit, r"top eigenvalue $\lambda_1$"),
        (right, overlap, overlap_limit, r"$\langle \hat v, v\rangle^2$"),
    ):
        values = np.asarray(values)
        ax.errorbar(
            strengths,
            values.mean(axis=1),
            yerr=values.std(axis=1),
            fmt="o",
            capsize=3,
            label="simulated",
        )
        ax.plot(grid, limit, "k-", lw=1.5, label="limit")
        ax.axvline(1.0, color="k", ls=":", lw=1)
        ax.set_xlabel(r"$\omega = \theta / (\sigma\sqrt{d})$")
        ax.set_ylabel(ylabel)
    left.legend(fontsize="small")
    fig.suptitle(title)
    fig.tight_layout()
    return fig
