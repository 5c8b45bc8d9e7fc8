"""Chapter 8's small-multiple figures and table helpers
(:mod:`dppca.book.plotting.utility_panels`)."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from dppca.book.plotting import utility_panels as up  # noqa: E402


def _summary(keys, x, values, missing=()):
    rows = []
    for key in keys:
        for v in values:
            gone = key in missing and v > values[0]
            rows.append(
                {
                    x: v,
                    "mechanism": key,
                    "mean": np.nan if gone else 0.5,
                    "std": 0.01,
                    "count": 0 if gone else 2,
                    "not returned": 2 if gone else 0,
                }
            )
    return pd.DataFrame(rows)


ALL = [key for group in up.GROUPS.values() for key in group]


def test_groups_cover_each_mechanism_once_with_at_most_six():
    assert len(ALL) == len(set(ALL))
    assert all(len(group) <= 6 for group in up.GROUPS.values())


def test_marker_and_line_style_distinct_within_a_group():
    for keys in up.GROUPS.values():
        pairs = [
            (up.PANEL_STYLE[key]["marker"], up.PANEL_STYLE[key]["linestyle"])
            for key in keys
        ]
        assert len(set(pairs)) == len(pairs), keys


def test_spectra_panels_one_per_data_set_within_the_column():
    spectra = {
        name: np.geomspace(0.5, 1e-14, d)
        for name, d in (("a", 40), ("b", 500), ("c", 116))
    }
    fig = up.plot_spectra_panels(spectra, {"a": 4, "b": 8, "c": 10})
    try:
        visible = [ax for ax in fig.get_axes() if ax.get_visible()]
        assert [ax.get_title().split(",")[0] for ax in visible] == list(spectra)
        fig.canvas.draw()  # the constrained layout places the legends
        assert fig.get_tightbbox().width <= up.WIDTH
        texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
        assert min(t.get_fontsize() for t in texts) >= 9
    finally:
        matplotlib.pyplot.close(fig)


def test_colours_distinct_within_a_group_and_fixed_per_mechanism():
    from matplotlib.colors import to_hex

    for keys in up.GROUPS.values():
        colours = [to_hex(up.PANEL_STYLE[key]["color"]) for key in keys]
        assert len(set(colours)) == len(colours), keys
    # one style per mechanism, whatever the figure
    assert set(up.PANEL_STYLE) == set(ALL)


def _line_colours(ax):
    from matplotlib.colors import to_hex

    return [
        to_hex(line.get_color())
        for line in ax.get_lines()
        if line.get_linestyle() not in ("None", "")
        and len(line.get_xdata()) > 1
    ]


def test_versus_n_panels_layout_optimum_on_top_and_fonts():
    values = [1000, 5000, 20000]
    frames = []
    for name in ("a", "b"):
        part = _summary(ALL, "n", values, missing={"opendp_pca"})
        frames.append(part.assign(**{"data set": name}))
    summary = pd.concat(frames, ignore_index=True)
    labels = {key: key for key in ALL}
    fig = up.plot_utility_versus_n_panels(
        summary, labels, {"a": ("a", 0.6), "b": ("b", 0.7)}
    )
    try:
        axes = fig.get_axes()
        assert len(axes) == len(up.GROUPS) * 2
        # within the page's text column, legends included
        assert fig.get_size_inches()[0] == pytest.approx(up.WIDTH)
        fig.canvas.draw()  # the constrained layout places the legends
        assert fig.get_tightbbox().width <= up.WIDTH
        for ax in axes:
            optimum = [
                line
                for line in ax.get_lines()
                if line.get_linestyle() == "--"
                and line.get_color() in ("k", "black")
            ]
            assert optimum, "no optimum line"
            others = [line.get_zorder() for line in ax.get_lines()]
            assert optimum[0].get_zorder() == max(others)
            colours = _line_colours(ax)
            assert len(colours) <= 7  # six series and the optimum
        texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
        assert min(t.get_fontsize() for t in texts) >= up.FONT_SIZE
        # a library with no result at some size gets a cross on the axis
        crosses = [
            line
            for ax in axes
            for line in ax.get_lines()
            if line.get_marker() == "x" and line.get_linestyle() == "None"
        ]
        assert crosses and all(
            np.all(line.get_ydata() == 0) for line in crosses
        )
    finally:
        matplotlib.pyplot.close(fig)


def test_versus_epsilon_panels_one_per_group_shared_scale():
    summary = _summary(ALL, "epsilon", [0.01, 0.1, 1.0])
    labels = {key: key.replace("_", " ") for key in ALL}
    fig = up.plot_utility_versus_epsilon_panels(summary, labels, 0.6)
    try:
        fig.canvas.draw()  # the constrained layout places the legends
        assert fig.get_tightbbox().width <= up.WIDTH
        texts = [t for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
        assert min(t.get_fontsize() for t in texts) >= up.FONT_SIZE
        axes = fig.get_axes()
        assert len(axes) == len(up.GROUPS)
        assert len({ax.get_ylim() for ax in axes}) == 1
        for ax, keys in zip(axes, up.GROUPS.values()):
            assert ax.get_legend() is not None
            names = [t.get_text() for t in ax.get_legend().get_texts()]
            # long names are broken into lines, not cut
            names = [" ".join(name.split()) for name in names]
            assert names[: len(keys)] == [labels[key] for key in keys]
    finally:
        matplotlib.pyplot.close(fig)
