"""Figures of the chapters on iterative eigenvector sampling (11) and the
libraries (12)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np


def plot_privacy_loss_versus_n(losses, epsilon: float, axes=None):
    """Exact worst-case privacy loss of one vector step against ``n``, one
    panel per ``d``.

    ``losses`` has columns ``d, n, calibration, loss``; the budget ε is drawn
    dashed.
    """
    dims = sorted(losses["d"].unique())
    if axes is None:
        _, axes = plt.subplots(
            1, len(dims), figsize=(5 * len(dims), 3.8), sharey=True
        )
    axes = np.atleast_1d(axes)
    for ax, d in zip(axes, dims):
        part = losses[losses["d"] == d]
        for label in part["calibration"].unique():
            sub = part[part["calibration"] == label]
            ax.semilogx(sub["n"], sub["loss"], marker="o", ms=3, label=label)
        ax.axhline(epsilon, color="k", ls="--", lw=0.8)
        ax.set_xlabel("n")
        ax.set_title(f"d = {d}: exact privacy loss of one step, ε = {epsilon}")
    axes[0].set_ylabel("worst-case privacy loss")
    axes[0].legend(fontsize="small")
    return axes


def plot_errors_versus_epsilon(table, title: str, ax=None):
    """Mean relative error (rows ε, one column per mechanism), log-log."""
    ax = ax or plt.gca()
    for label in table.columns:
        ax.loglog(table.index, table[label], marker="o", label=label)
    ax.set_xlabel("ε")
    ax.set_ylabel("mean ‖Â − A_k‖_F / ‖A_k‖_F")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return ax


def plot_utility_with_timeouts(
    summary, peer_results, labels: dict, titles: dict, limit: float, axes=None
):
    """q_F against n per data set: the book's mechanisms (mean ± sd, from
    ``summary``) and the
    libraries' single calls (``peer_results``: ``q_F`` NaN where a call hit the
    time limit,
    drawn as a black cross on the axis)."""
    names = list(titles)
    if axes is None:
        _, axes = plt.subplots(1, len(names), figsize=(5.5 * len(names), 4))
    axes = np.atleast_1d(axes)
    for ax, name in zip(axes, names):
        part = summary[summary["data set"] == name]
        for key in part["mechanism"].unique():
            sub = part[part["mechanism"] == key]
            ax.errorbar(
                sub["n"],
                sub["mean"],
                yerr=sub["std"],
                marker="o",
                ms=3,
                capsize=2,
                label=labels[key],
            )
        peers_part = peer_results[peer_results["data set"] == name]
        for key in peers_part["mechanism"].unique():
            sub = peers_part[peers_part["mechanism"] == key]
            ok = sub["q_F"].notna().to_numpy()
            ax.plot(sub["n"][ok], sub["q_F"][ok], "s", label=labels[key])
            ax.plot(
                sub["n"][~ok],
                np.zeros(int((~ok).sum())),
                "x",
                color="k",
                label=f"{labels[key]}: no result in {limit:g} s",
            )
        ax.set_xscale("log")
        ax.set_xlabel("n")
        ax.set_title(titles[name])
    axes[0].set_ylabel("q_F (full data)")
    handles, names_ = axes[0].get_legend_handles_labels()
    unique = dict(zip(names_, handles))
    axes[0].figure.legend(
        unique.values(),
        unique.keys(),
        loc="lower center",
        ncol=3,
        fontsize="small",
        bbox_to_anchor=(0.5, -0.24),
    )
    return axes
