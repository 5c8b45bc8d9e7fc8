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
        # the column's width for all panels, so that the page does not
        # shrink the text
        _, axes = plt.subplots(
            1, len(dims), figsize=(7.0, 3.6), sharey=True, squeeze=False
        )
        axes = axes[0]
    axes = np.atleast_1d(axes)
    for ax, d in zip(axes, dims):
        part = losses[losses["d"] == d]
        for label in part["calibration"].unique():
            sub = part[part["calibration"] == label]
            ax.semilogx(sub["n"], sub["loss"], marker="o", ms=3, label=label)
        ax.axhline(epsilon, color="k", ls="--", lw=0.8)
        ax.set_xlabel("n")
        ax.set_title(f"d = {d}")
    axes[0].figure.suptitle(
        f"Exact privacy loss of one vector step (budget ε = {epsilon:g})"
    )
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
