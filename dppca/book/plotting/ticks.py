"""Tick labels for the book's logarithmic axes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import (
    FixedLocator,
    LogLocator,
    NullFormatter,
    NullLocator,
)


def plain_log_ticks(axis, lower, upper, max_labels: int = 4):
    """Label a logarithmic ``axis`` between ``lower`` and ``upper`` at 1, 2
    and 5 times the powers of ten (and 3, on less than a decade) if it spans
    at most three decades, thinned to 1 and 5 times, then to the powers of
    ten, while more than ``max_labels`` labels remain (a narrow panel's ran
    together: "0.0020.0050.01"); at a few powers of ten otherwise. Labels
    are written plainly ("20000", "0.005"), and there are no minor labels:
    the default minor labels of a log axis run into each other, and a
    range inside one decade got a single label."""
    if upper > 1000 * lower:
        axis.set_major_locator(LogLocator(numticks=5))
    else:
        first, last = np.floor(np.log10(lower)), np.ceil(np.log10(upper))

        def ticks(mantissas):
            return [
                m * 10.0**e
                for e in range(int(first), int(last) + 1)
                for m in mantissas
                if lower <= m * 10.0**e <= upper
            ]

        values = ticks((1, 2, 3, 5) if upper < 10 * lower else (1, 2, 5))
        for mantissas in ((1, 2, 5), (1, 5), (1,)):
            if len(values) <= max_labels:
                break
            fewer = ticks(mantissas)
            if len(fewer) >= 2:
                values = fewer
        axis.set_major_locator(FixedLocator(values))
        axis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


__all__ = ["plain_log_ticks"]
