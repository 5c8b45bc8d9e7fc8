"""Figures for the Gaussian matrix-approximation and Dyson Brownian motion
chapters.

Plotting only: every quantity shown is computed by
:mod:`dppca.mechanisms.gaussian_approx`,
:mod:`dppca.samplers.dyson` or :mod:`dppca.book.bounds.gaussian_approx`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import legend_outside


def plot_scaling(x, curves: dict, xlabel: str, title: str):
    """Log-log mean error (markers) with the sum-of-squares prediction
    (dashed), one colour per curve.

    ``curves`` maps a label to rows with keys ``errors`` (samples) and ``sos``
    (predicted RMS).
    """
    fig, ax = plt.subplots()
    for label, rows in curves.items():
        means = np.array([r["errors"].mean() for r in rows])
        (line,) = ax.loglog(x, means, "o-", label=label)
        sos = np.array([r["sos"] for r in rows])
        if np.all(np.isfinite(sos)) and sos.max() < 1e3 * means.max():
            ax.loglog(x, sos, "--", color=line.get_color(), alpha=0.7)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(r"$E\,\|H - V\Lambda V^T\|_F$")
    ax.set_title(title)
    legend_outside(ax, fontsize="small")
    return fig


def plot_ratio_vs_noise(noise_levels, estimates, title: str):
    """Measured / predicted ratio with confidence intervals against the noise
    level."""
    fig, ax = plt.subplots()
    values = np.array([e.value for e in estimates])
    low = np.array([e.low for e in estimates])
    high = np.array([e.high for e in estimates])
    ax.errorbar(
        noise_levels,
        values,
        yerr=[values - low, high - values],
        fmt="o-",
        capsize=3,
    )
    ax.axhline(1.0, color="k", lw=1, ls=":")
    ax.set_xscale("log")
    ax.set_xlabel(r"noise $\sigma$")
    ax.set_ylabel("measured / predicted")
    ax.set_title(title)
    return fig


def plot_convergence(dts, errors: dict, title: str):
    """Strong error (mean over paths) against the step size, one curve per
    scheme, with slopes in labels."""
    fig, ax = plt.subplots()
    for label, (err, slope) in errors.items():
        ax.loglog(dts, err, "o-", label=f"{label} (slope {slope:.2f})")
    ax.set_xlabel(r"step $\Delta t$")
    ax.set_ylabel(r"$E\,\max_i |\gamma_i^{SDE}(T) - \gamma_i(T)|$")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig


def plot_trajectories(times, gammas, title: str):
    """Eigenvalue trajectories ``gammas[t, i]`` against time."""
    fig, ax = plt.subplots()
    ax.plot(times, gammas, lw=1)
    ax.set_xlabel("t")
    ax.set_ylabel(r"eigenvalues $\gamma_i(t)$")
    ax.set_title(title)
    return fig


def plot_spectral_densities(samples: dict, radius: dict, title: str):
    """Histograms of eigenvalues scaled by the semicircle radius, with the
    semicircle density."""
    fig, ax = plt.subplots()
    grid = np.linspace(-1.2, 1.2, 400)
    for label, values in samples.items():
        ax.hist(
            values / radius[label],
            bins=60,
            density=True,
            histtype="step",
            label=label,
        )
    semicircle = np.where(
        np.abs(grid) < 1,
        2 / np.pi * np.sqrt(np.clip(1 - grid**2, 0, None)),
        0.0,
    )
    ax.plot(grid, semicircle, "k--", label="semicircle")
    ax.set_xlabel(r"eigenvalue / $2\sqrt{2dt}$")
    ax.set_ylabel("density")
    ax.set_title(title)
    legend_outside(ax, fontsize="small")
    return fig


def plot_overlaps(times, overlaps: dict, title: str):
    """Mean squared overlaps ``|<u_i(t), v_i>|^2`` against time with their
    initial-slope lines."""
    fig, ax = plt.subplots()
    for label, (mean, rate) in overlaps.items():
        (line,) = ax.plot(times, mean, label=label)
        ax.plot(
            times,
            np.clip(1 - rate * times, 0, None),
            ":",
            color=line.get_color(),
        )
    ax.set_xlabel("t")
    ax.set_ylabel(r"$E\,|\langle u_i(t), v_i\rangle|^2$")
    ax.set_ylim(0, 1.05)
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig


def plot_probability_curve(
    c_values, estimates: dict, title: str, reference: float | None = None
):
    """Probabilities with confidence intervals against a constant ``c``."""
    fig, ax = plt.subplots()
    for label, rows in estimates.items():
        values = np.array([e.value for e in rows])
        low = np.array([e.low for e in rows])
        high = np.array([e.high for e in rows])
        ax.errorbar(
            c_values,
            values,
            yerr=[values - low, high - values],
            fmt="o-",
            capsize=3,
            label=label,
        )
    if reference is not None:
        ax.axvline(reference, color="k", ls=":", label="Weyl constant")
    ax.set_xscale("log")
    ax.set_xlabel(r"gap constant $c$ (gaps $c\sqrt{dT}$)")
    ax.set_ylabel("probability")
    ax.set_title(title)
    legend_outside(ax, fontsize="small")
    return fig


__all__ = [
    "plot_scaling",
    "plot_ratio_vs_noise",
    "plot_convergence",
    "plot_trajectories",
    "plot_spectral_densities",
    "plot_overlaps",
    "plot_probability_curve",
]
