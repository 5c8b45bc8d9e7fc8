"""Tick labels for the book's logarithmic axes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import (
    Locator,
    LogLocator,
    NullFormatter,
    NullLocator,
)

#: The width of a digit of the book's sans-serif font, in ems (DejaVu
#: Sans: 0.636), a little generous for the decimal point and minus sign.
DIGIT_EM = 0.64

#: The least blank between two neighbouring tick labels, in ems.
LABEL_GAP_EM = 1.0


def _label(value) -> str:
    return f"{value:g}"


def _candidates(lower, upper, mantissas):
    first, last = np.floor(np.log10(lower)), np.ceil(np.log10(upper))
    return [
        m * 10.0**e
        for e in range(int(first), int(last) + 1)
        for m in mantissas
        if lower <= m * 10.0**e <= upper
    ]


def _fit(values, extent_of, room) -> bool:
    """Whether neighbouring labels of ``values`` leave ``room`` between
    them, ``extent_of(value)`` the half-extent of a label along the axis
    and ``room(a, b)`` the distance between the ticks of ``a`` and ``b``,
    in the same units."""
    return all(
        room(a, b) >= extent_of(a) + extent_of(b)
        for a, b in zip(values, values[1:])
    )


#: The thinner choices of mantissas, in the order they are tried.
THINNER = ((1, 2, 5), (1, 5), (1, 2), (1, 3), (1,), (2, 5), (2,), (5,))


class PlainLogLocator(Locator):
    """Ticks at 1, 2 and 5 (and 3, on less than a decade) times the powers
    of ten between ``lower`` and ``upper``, thinned (:data:`THINNER`: to 1
    and 5 times, 1 and 2 times, ..., the powers of ten) while more than
    ``max_labels`` remain or while two neighbouring labels would come
    closer than :data:`LABEL_GAP_EM` at the axis's size when it is drawn (so
    a figure that ``tight_layout`` narrows still gets labels that do not run
    together). At least two labels are kept where the range holds two."""

    def __init__(self, lower, upper, max_labels: int = 4):
        self.lower, self.upper, self.max_labels = lower, upper, max_labels

    def _collide(self, values) -> bool:
        axis = self.axis
        if axis is None or axis.axes is None or len(values) < 2:
            return False
        bbox = axis.axes.bbox
        horizontal = axis.axis_name == "x"
        length = bbox.width if horizontal else bbox.height
        vmin, vmax = sorted(axis.get_view_interval())
        if length <= 0 or not vmin > 0:
            return False
        per_decade = length / np.log10(vmax / vmin)  # pixels
        ticks = axis.get_major_ticks(1)
        size = ticks[0].label1.get_fontsize() if ticks else 10.0
        px = size * axis.figure.dpi / 72.0  # one em in pixels
        if horizontal:

            def extent_of(value):
                return 0.5 * (len(_label(value)) * DIGIT_EM * px) + 0.5 * (
                    LABEL_GAP_EM * px
                )
        else:

            def extent_of(value):
                return 0.5 * px + 0.5 * LABEL_GAP_EM * px

        def room(a, b):
            return abs(np.log10(b / a)) * per_decade

        return not _fit(values, extent_of, room)

    def tick_values(self, vmin, vmax):
        lower, upper = self.lower, self.upper
        first = (1, 2, 3, 5) if upper < 10 * lower else (1, 2, 5)
        options = [
            values
            for values in (
                _candidates(lower, upper, mantissas)
                for mantissas in (first, *THINNER)
            )
            if len(values) >= 2
        ]
        if not options:  # no two labels fit the range: the one there is
            return _candidates(lower, upper, first)
        for values in options:
            if len(values) <= self.max_labels and not self._collide(values):
                return values
        # every choice collides: the fewest labels
        return min(options, key=lambda values: len(values))

    def __call__(self):
        return self.tick_values(*self.axis.get_view_interval())


def plain_log_ticks(axis, lower, upper, max_labels: int = 4):
    """Label a logarithmic ``axis`` between ``lower`` and ``upper`` at 1, 2
    and 5 times the powers of ten (and 3, on less than a decade) if it spans
    at most three decades, thinned to 1 and 5 times, then to the powers of
    ten, while more than ``max_labels`` labels remain or two neighbours
    would touch at the size the axis is drawn (a narrow panel's ran
    together: "0.0020.0050.01", "50000100000"); at a few powers of ten
    otherwise. Labels are written plainly ("20000", "0.005"), and there are
    no minor labels: the default minor labels of a log axis run into each
    other, and a range inside one decade got a single label.

    Parameters
    ----------
    axis : matplotlib.axis.Axis
        A logarithmic axis (``ax.xaxis`` or ``ax.yaxis``).
    lower, upper : float
        The range the labels may fall in (positive).
    max_labels : int
        The most labels kept when thinning can reduce them.
    """
    if upper > 1000 * lower:
        axis.set_major_locator(LogLocator(numticks=5))
    else:
        axis.set_major_locator(PlainLogLocator(lower, upper, max_labels))
        axis.set_major_formatter(plt.FuncFormatter(lambda v, _: _label(v)))
    axis.set_minor_locator(NullLocator())
    axis.set_minor_formatter(NullFormatter())


__all__ = ["DIGIT_EM", "LABEL_GAP_EM", "PlainLogLocator", "plain_log_ticks"]
