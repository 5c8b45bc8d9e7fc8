"""The frontier map of chapter 19 (dppca.book.frontier and its figure,
dppca.book.plotting.frontier): every registered private mechanism is run
and drawn, at most six to a panel, each series of a panel with its own
marker and line style, text of at least 9 pt in a 6.5 in column; the
optimal exponents are computed from the bound."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

plt = pytest.importorskip("matplotlib.pyplot")

from dppca.book import frontier  # noqa: E402
from dppca.book.plotting import frontier as figures  # noqa: E402
from dppca.book.plotting import smallest_text_pt  # noqa: E402
from dppca.mechanisms import registry  # noqa: E402

PRIVATE = [k for k, s in registry.MECHANISMS.items() if s.notion != "not_dp"]


def test_every_registered_private_mechanism_is_run():
    run, skipped = frontier.frontier_mechanisms()
    assert set(run) == set(PRIVATE)
    assert set(registry.MECHANISMS) <= set(run) | set(skipped)


def test_a_new_mechanism_without_a_book_entry_is_refused():
    copy = dataclasses.replace(
        registry.MECHANISMS["analyze_gauss"], key="gauss_copy_for_test"
    )
    with registry.registered(copy):
        with pytest.raises(ValueError, match="gauss_copy_for_test"):
            frontier.frontier_mechanisms()
        # the figure's columns take it in, by its declaration
        groups = figures.frontier_groups([*PRIVATE, copy.key])
        assert (
            copy.key
            in groups["noise added to A (1 of 2)"]
            + groups["noise added to A (2 of 2)"]
        )


def test_groups_hold_every_key_once_and_at_most_six():
    groups = figures.frontier_groups(PRIVATE)
    drawn = [key for group in groups.values() for key in group]
    assert sorted(drawn) == sorted(PRIVATE)
    assert max(len(group) for group in groups.values()) <= figures.MAX_SERIES
    with pytest.raises(ValueError):
        figures.frontier_groups(["not_a_mechanism"])


def _summary(grid, keys):
    rng = np.random.default_rng(0)
    rows = [
        dict(mechanism=key, d=d, epsilon=eps, n=n, ratio=rng.uniform(0.5, 50))
        for key in keys
        for d in grid.ds
        for eps in grid.epsilons
        for n in grid.ns
    ]
    return pd.DataFrame(rows)


def test_the_map_draws_every_mechanism_readably():
    grid = frontier.frontier_grid(fast=False)
    labels = {key: registry.MECHANISMS[key].label for key in PRIVATE}
    fig = figures.plot_frontier(_summary(grid, PRIVATE), labels, grid, PRIVATE)
    try:
        drawn = [key for group in fig.drawn.values() for key in group]
        assert sorted(drawn) == sorted(PRIVATE)
        assert smallest_text_pt(fig) >= 9
        assert fig.get_size_inches()[0] == pytest.approx(6.5)
        assert fig.get_tightbbox().width <= 6.5
        for ax in fig.axes:
            lines = [line for line in ax.get_lines() if line.get_marker()]
            lines = [line for line in lines if line.get_marker() != "None"]
            markers = [line.get_marker() for line in lines]
            assert len(lines) <= figures.MAX_SERIES
            assert len(set(markers)) == len(markers)
    finally:
        plt.close(fig)


def test_the_panel_styles_are_all_different():
    n = figures.MAX_SERIES
    assert len(set(figures.PANEL_MARKERS[:n])) == n
    assert len({str(style) for style in figures.PANEL_LINES[:n]}) == n


def test_optimal_exponents_are_the_bounds():
    grid = frontier.frontier_grid(fast=True)
    optimal = frontier.optimal_exponents(grid)
    assert optimal["n"] == pytest.approx(-1.0)
    assert optimal["epsilon"] == pytest.approx(-1.0)
    # d(d - 1) growth slowed by the spike's signal falling with d
    assert 0.5 < optimal["d"] < 1.0


def test_verdicts():
    assert frontier.verdict(0.1, 0.25) == "optimal"
    assert frontier.verdict(-0.25, 0.25) == "optimal"
    assert frontier.verdict(0.3, 0.25) == "slower"
    assert frontier.verdict(-0.3, 0.25) == "faster"
    assert frontier.verdict(np.nan, 0.25) == "no fit"
