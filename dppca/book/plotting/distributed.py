"""Figures of chapters 14-15: power-method convergence, task streams and
worker memory. Each is drawn at the text column's width (6.5 in) with text
of at least 10 pt, its series told apart by line style and marker as well
as by colour."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

#: Marker and line style of the n-th curve of :func:`plot_convergence`.
CURVE_STYLES = [
    dict(marker="o", linestyle="--"),
    dict(marker="o", linestyle="-"),
    dict(marker="s", linestyle="--"),
    dict(marker="s", linestyle="-"),
]


def plot_convergence(
    curves: dict, floors: dict | None = None, ax=None, styles=None
):
    """``curves``: label -> per-iteration errors; ``floors``: label -> a
    horizontal level. Curve ``i`` gets ``styles[i]`` (marker and line
    style; :data:`CURVE_STYLES` by default) and colour ``C{i}``."""
    ax = ax or plt.gca()
    styles = styles or CURVE_STYLES
    for i, (label, errors) in enumerate(curves.items()):
        ax.semilogy(
            np.arange(len(errors)),
            errors,
            color=f"C{i}",
            markersize=4,
            label=label,
            **styles[i % len(styles)],
        )
        if floors and label in floors:
            ax.axhline(floors[label], color=f"C{i}", linestyle=":", linewidth=1)
    ax.set_xlabel("iteration l")
    ax.set_ylabel(r"$\|(I - V_l V_l^\top) U_k\|_2$")
    ax.legend(fontsize="small")
    return ax


def task_kind(prefix: str) -> str:
    """What a Dask task of a reduction over row chunks does, from the prefix
    of its key: a task whose key names a read (``read_piece``, ``read``)
    reads a chunk and reduces it to a partial sum; the others combine
    partial sums."""
    if "read" in prefix:
        return "read a chunk, form its partial sum"
    return "combine partial sums"


def plot_task_stream(records, ax=None, t0: float | None = None, kind=task_kind):
    """Gantt chart of Dask task records
    (``distributed.get_task_stream(...).data``): one row per worker thread,
    one bar per task, coloured and hatched by ``kind(prefix)`` of the task's
    key (:func:`task_kind` by default); the legend sits inside the axes, at
    the top right, where the bars leave room."""
    ax = ax or plt.gca()
    rows, looks = {}, {}
    hatches = ["", "////", "xx", ".."]
    starts = [
        s["start"]
        for r in records
        for s in r["startstops"]
        if s["action"] == "compute"
    ]
    t0 = min(starts) if t0 is None and starts else (t0 or 0.0)
    for record in records:
        key = record["key"]
        name = key[0] if isinstance(key, tuple) else str(key)
        label = kind(name.rsplit("-", 1)[0])
        look = looks.setdefault(
            label,
            dict(
                color=f"C{len(looks) % 10}",
                hatch=hatches[len(looks) % len(hatches)],
            ),
        )
        lane = (record["worker"], record.get("thread"))
        row = rows.setdefault(lane, len(rows))
        for span in record["startstops"]:
            if span["action"] != "compute":
                continue
            ax.barh(
                row,
                span["stop"] - span["start"],
                left=span["start"] - t0,
                height=0.6,
                edgecolor="white",
                linewidth=0.5,
                **look,
            )
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"worker {i}" for i in range(len(rows))])
    ax.set_ylim(-0.5, len(rows) - 0.5 + 0.9)  # room for the legend above
    ax.set_xlabel("seconds")
    handles = [
        plt.Rectangle((0, 0), 1, 1, facecolor=v["color"], hatch=v["hatch"])
        for v in looks.values()
    ]
    ax.legend(
        handles,
        list(looks),
        fontsize="small",
        loc="upper right",
        ncol=len(looks),
        frameon=True,
    )
    return ax


def plot_worker_memory(samples: dict, limits: dict, ax=None, t0=None):
    """Resident memory of every worker against time (worker ``i`` in colour
    ``C{i}`` with its own line style), and each worker's limit as a thin
    dashed line labelled at its left end; the legend sits inside the axes."""
    ax = ax or plt.gca()
    if t0 is None:
        t0 = min(times.min() for times, _ in samples.values() if times.size)
    line_styles = ["-", "--", ":", "-."]
    drawn = set()
    for i, (address, (times, rss)) in enumerate(sorted(samples.items())):
        ax.plot(
            times - t0,
            rss / 2**20,
            color=f"C{i}",
            linestyle=line_styles[i % len(line_styles)],
            label=f"worker {i}",
        )
        limit = limits[address] / 2**20
        ax.axhline(limit, color="0.3", linestyle="--", linewidth=1)
        if limit not in drawn:
            ax.annotate(
                f"limit {limit:,.0f} MiB",
                xy=(0.01, limit),
                xycoords=("axes fraction", "data"),
                xytext=(0, 3),
                textcoords="offset points",
                va="bottom",
                fontsize="small",
            )
            drawn.add(limit)
    ax.set_ylim(0, max(limits.values()) / 2**20 * 1.12)
    ax.set_xlabel("seconds")
    ax.set_ylabel("resident memory (MiB)")
    ax.legend(fontsize="small", loc="center right")
    return ax
