"""Figures of the real-data chapters (07-09): spectra, utility against n and
against ε."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ..mechanism_facts import EXPERIMENT_ORDER, FACTS

#: Line style per mechanism, so every figure of chapters 08-09 uses the same
#: encoding: the baselines', each mechanism's own (the book's table,
#: :mod:`dppca.book.mechanism_facts`) and the peer libraries'.
STYLE = {
    "pca": dict(color="C3", linestyle="-", marker="o"),
    "random": dict(color="C2", linestyle=":", marker="x"),
    **{key: dict(FACTS[key].style) for key in EXPERIMENT_ORDER},
    "diffprivlib_pca": dict(color="indigo", linestyle="--", marker=">"),
    "opendp_pca": dict(color="teal", linestyle="--", marker="<"),
}


def _plot_curves(ax, summary, labels: dict, x: str) -> None:
    """One errorbar line per mechanism over the settings where some release
    returned; a cross on the horizontal axis, in the mechanism's colour, where
    a release hit its time limit (or was not attempted after one did)."""
    marked = False
    for key, part in summary.groupby("mechanism", sort=False):
        part = part.sort_values(x)
        style = STYLE.get(key, {})
        ok = part["count"] > 0
        ax.errorbar(
            part[x][ok],
            part["mean"][ok],
            yerr=part["std"][ok],
            label=labels.get(key, key),
            capsize=3,
            markersize=4,
            **style,
        )
        if "not returned" in part and (part["not returned"] > 0).any():
            mark_not_returned(
                ax,
                part[part["not returned"] > 0][x],
                style.get("color", "k"),
                label=None if marked else "a release did not return in time",
            )
            marked = True


def mark_not_returned(ax, xs, color, size=9, width=2, **kwargs):
    """Crosses on the horizontal axis at ``xs``, in a mechanism's colour:
    the settings at which none of its releases returned (shared by the
    curves here and the small multiples of ``utility_panels``)."""
    ax.plot(
        xs,
        np.zeros(len(xs)),
        linestyle="none",
        marker="x",
        markersize=size,
        markeredgewidth=width,
        color=color,
        clip_on=False,
        **kwargs,
    )


def plot_spectra(moments: dict, ks: dict, ax=None):
    """Eigenvalues of each data set's A (log scale) with the paper's k
    marked."""
    ax = ax or plt.gca()
    for i, (name, A) in enumerate(moments.items()):
        values = np.clip(np.linalg.eigvalsh(A)[::-1], 1e-12, None)
        ax.semilogy(
            np.arange(1, values.size + 1), values, color=f"C{i}", label=name
        )
        ax.axvline(ks[name], color=f"C{i}", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_xlabel("index i of the eigenvalue (log scale)")
    ax.set_ylabel(r"$\lambda_i(A)$")
    ax.set_title(
        "Spectra of the preprocessed second-moment matrices "
        "(dotted: the paper's k)"
    )
    ax.legend()
    return ax


def plot_utility_versus_n(
    summary, labels: dict, optimum: float, title: str, ax=None
):
    """Mean q_F(U) ± one standard deviation against n (log scale), one line
    per mechanism, over the releases that returned (``summary`` from
    :func:`dppca.book.experiments.summarize`); a cross on the axis marks a size
    at which a capped release did not return. The optimum q_F(V_k) is a
    dashed grey line drawn over the curves (non-private PCA attains it, so a
    solid line would hide it)."""
    ax = ax or plt.gca()
    _plot_curves(ax, summary, labels, "n")
    ax.axhline(optimum, color="grey", linewidth=1.2, linestyle="--", zorder=5)
    ax.set_xscale("log")
    ax.set_xlabel("subsample size n (log scale)")
    ax.set_ylabel(r"$q_F(U)$ on the full data")
    ax.set_title(title)
    return ax


def plot_utility_versus_epsilon(summary, labels: dict, ax=None):
    """Figure 5: mean q_F(U) ± one standard deviation against ε (log scale),
    with crosses on the axis where a capped release did not return."""
    ax = ax or plt.gca()
    _plot_curves(ax, summary, labels, "epsilon")
    ax.set_xscale("log")
    ax.set_xlabel(r"privacy parameter $\varepsilon$ (log scale)")
    ax.set_ylabel(r"$q_F(U)$")
    ax.set_title(
        "Utility against privacy, synthetic data (n = 5,000, d = 10, k = 2)"
    )
    return ax


def legend_below(fig, axes, ncol: int = 3):
    """One shared legend under a grid of axes (every label of every axis,
    once), with room left for all its rows."""
    entries = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            entries.setdefault(label, handle)
    labels = list(entries)
    fig.legend(
        list(entries.values()),
        labels,
        loc="lower center",
        ncol=ncol,
        bbox_to_anchor=(0.5, 0.0),
        frameon=False,
    )
    rows = -(-len(labels) // ncol)
    height = fig.get_size_inches()[1]
    fig.tight_layout(rect=(0, min(0.5, (0.15 + 0.21 * rows) / height), 1, 1))
