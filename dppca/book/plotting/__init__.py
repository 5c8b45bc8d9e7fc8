"""Figure style and helpers shared by the chapters. Mathematics never lives
here."""

from __future__ import annotations

import warnings

from .. import install_hint

try:
    import matplotlib.pyplot as plt
    import seaborn as sns
except ModuleNotFoundError as error:  # the `plot` extra's
    raise ModuleNotFoundError(
        f"dppca.book.plotting needs matplotlib and seaborn ({error.name} is "
        "not "
        "installed; dppca's core does not install them): "
        + install_hint("plot"),
        name=error.name,
    ) from error


def use_book_style(context: str = "notebook") -> None:
    """Apply the book's figure style (seaborn's ``whitegrid`` theme,
    colour-blind palette) and, in a Jupyter kernel, show figures as SVG.

    Uses :func:`seaborn.set_theme`, which works on every matplotlib release; the
    old ``plt.style.use("seaborn-whitegrid")`` names were removed from
    matplotlib 3.8.

    SVG keeps lines and text sharp at any zoom in the HTML book and, for the
    book's line, bar and histogram figures, is smaller than a PNG of the same
    sharpness (tens to a few hundred kB). The SVG carries no date and its
    element ids come from a fixed salt, so the same figure gives the same
    bytes on every run.
    """
    sns.set_theme(context=context, style="whitegrid", palette="colorblind")
    plt.rcParams.update(
        {
            "figure.figsize": (7.0, 4.2),
            "figure.dpi": 100,
            "savefig.bbox": "tight",
            "axes.titlesize": "medium",
            "svg.hashsalt": "dppca-book",
        }
    )
    _inline_figures_as_svg()


def _inline_figures_as_svg() -> None:
    """Make the inline backend of a running IPython kernel emit SVG (a no-op
    outside IPython)."""
    try:
        from IPython import get_ipython
        from matplotlib_inline.config import InlineBackend
    except ImportError:  # plain Python: no inline backend to configure
        return
    if get_ipython() is None:
        return
    config = InlineBackend.instance()
    # Setting the traits updates the kernel's formatters now if the inline
    # backend is already active, and is what it reads when it activates.
    # matplotlib_inline observes them with traitlets' deprecated
    # `_name_changed` methods, which warn: not the reader's concern.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        config.print_figure_kwargs = {
            **config.print_figure_kwargs,
            "metadata": {"Date": None},
        }
        config.figure_formats = {"svg"}
    # Each figure's SVG says how small its smallest text is, so the browser
    # check can tell the size a reader sees.
    from matplotlib.figure import Figure

    formatter = get_ipython().display_formatter.formatters["image/svg+xml"]
    formatter.for_type(Figure, figure_svg)


#: The key under which a figure's SVG records its smallest text, in points at
#: the figure's natural size (the SVG's ``Description`` metadata).
SMALLEST_TEXT_KEY = "dppca:smallest-text-pt"


def smallest_text_pt(fig) -> float | None:
    """The size, in points, of the smallest visible non-empty text of
    ``fig`` (titles, labels, tick labels, legends, annotations), or ``None``
    for a figure without text."""
    from matplotlib.text import Text

    sizes = [
        text.get_fontsize()
        for text in fig.findobj(Text)
        if text.get_visible() and text.get_text().strip()
    ]
    return min(sizes) if sizes else None


def figure_svg(fig) -> str | None:
    """The SVG of ``fig`` as the book shows it (tight bounding box, no date),
    with :data:`SMALLEST_TEXT_KEY` in its metadata; ``None`` for an empty
    figure, like IPython's own formatter."""
    from IPython.core.pylabtools import print_figure

    smallest = smallest_text_pt(fig)
    metadata = {"Date": None}
    if smallest is not None:
        metadata["Description"] = f"{SMALLEST_TEXT_KEY}={smallest:.3g}"
    return print_figure(fig, "svg", bbox_inches="tight", metadata=metadata)


def interval_errorbar(ax, x, estimates, **kwargs):
    """Draw Monte Carlo estimates (objects with ``value``, ``low`` and
    ``high``, such as :func:`dppca.montecarlo.mean_ci`'s) at ``x`` with
    their confidence intervals as error bars, caps of 3 pt; keyword
    arguments go to :meth:`matplotlib.axes.Axes.errorbar`."""
    import numpy as np

    values = np.array([e.value for e in estimates])
    low = np.array([e.low for e in estimates])
    high = np.array([e.high for e in estimates])
    return ax.errorbar(
        x, values, yerr=[values - low, high - values], capsize=3, **kwargs
    )


def legend_outside(ax, **kwargs):
    """Draw the legend of ``ax`` to the right of the axes, where it covers no
    data (``savefig.bbox = "tight"`` widens the saved figure to hold it).
    Keyword arguments go to :meth:`matplotlib.axes.Axes.legend`."""
    options = {
        "loc": "upper left",
        "bbox_to_anchor": (1.02, 1.0),
        "borderaxespad": 0.0,
    }
    options.update(kwargs)
    return ax.legend(**options)
