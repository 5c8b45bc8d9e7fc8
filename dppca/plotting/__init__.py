"""Figure style and helpers shared by the chapters. Mathematics never lives
here."""

from __future__ import annotations

try:
    import matplotlib.pyplot as plt
    import seaborn as sns
except ModuleNotFoundError as error:  # the `plot` extra's
    raise ModuleNotFoundError(
        f"dppca.plotting needs matplotlib and seaborn ({error.name} is not "
        "installed; dppca's core does not install them): "
        "pip install 'dppca[plot]' (or 'dppca[book]')",
        name=error.name,
    ) from error


def use_book_style(context: str = "notebook") -> None:
    """Apply the book's figure style (seaborn's ``whitegrid`` theme,
    colour-blind palette).

    Uses :func:`seaborn.set_theme`, which works on every matplotlib release; the
    old ``plt.style.use("seaborn-whitegrid")`` names were removed from
    matplotlib 3.8.
    """
    sns.set_theme(context=context, style="whitegrid", palette="colorblind")
    plt.rcParams.update(
        {
            "figure.figsize": (7.0, 4.2),
            "figure.dpi": 100,
            "savefig.bbox": "tight",
            "axes.titlesize": "medium",
        }
    )
