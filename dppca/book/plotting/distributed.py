"""Figures of chapters 14-15: power-method convergence, task streams and
worker memory."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np


def plot_convergence(curves: dict, floors: dict | None = None, ax=None):
    """``curves``: label -> per-iteration errors; ``floors``: label -> a
    horizontal level."""
    ax = ax or plt.gca()
    for i, (label, errors) in enumerate(curves.items()):
        ax.semilogy(
            np.arange(len(errors)),
            errors,
            color=f"C{i}",
            marker=".",
            label=label,
        )
        if floors and label in floors:
            ax.axhline(floors[label], color=f"C{i}", linestyle=":", linewidth=1)
    ax.set_xlabel("iteration l")
    ax.set_ylabel(r"$\|(I - V_l V_l^\top) U_k\|_2$")
    ax.legend(fontsize="small")
    return ax


def plot_task_stream(records, ax=None, t0: float | None = None):
    """Gantt chart of Dask task records
    (``distributed.get_task_stream(...).data``): one row
    per worker thread, one bar per task, coloured by the task's name prefix."""
    ax = ax or plt.gca()
    rows, colours = {}, {}
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
        prefix = name.rsplit("-", 1)[0]
        colour = colours.setdefault(prefix, f"C{len(colours) % 10}")
        lane = (record["worker"], record.get("thread"))
        row = rows.setdefault(lane, len(rows))
        for span in record["startstops"]:
            if span["action"] != "compute":
                continue
            ax.barh(
                row,
                span["stop"] - span["start"],
                left=span["start"] - t0,
                color=colour,
                height=0.8,
            )
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"worker {i}" for i in range(len(rows))])
    ax.set_xlabel("seconds")
    handles = [plt.Rectangle((0, 0), 1, 1, color=c) for c in colours.values()]
    ax.legend(
        handles,
        list(colours),
        fontsize="x-small",
        loc="upper center",
        bbox_to_anchor=(0.5, -0.35),
        ncol=3,
    )
    return ax


def plot_worker_memory(samples: dict, limits: dict, ax=None, t0=None):
    """Resident memory of every worker against time, with each worker's limit
    dashed."""
    ax = ax or plt.gca()
    if t0 is None:
        t0 = min(times.min() for times, _ in samples.values() if times.size)
    for i, (address, (times, rss)) in enumerate(sorted(samples.items())):
        ax.plot(times - t0, rss / 2**20, color=f"C{i}", label=f"worker {i}")
        ax.axhline(limits[address] / 2**20, color=f"C{i}", linestyle="--")
    ax.set_xlabel("seconds")
    ax.set_ylabel("resident memory (MiB)")
    ax.legend(fontsize="small")
    return ax
