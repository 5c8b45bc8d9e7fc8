"""Chapter 13's figure of components
(:func:`dppca.book.plotting.estimator.component_grid`)."""

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from dppca.book.plotting import smallest_text_pt  # noqa: E402
from dppca.book.plotting.estimator import component_grid  # noqa: E402

EPSILONS = [0.1, 1.0, 10.0]
LABELS = [
    ["Mangoubi–Vishnoi", "trace-sensitive (Dong et al.)", "CoinPress"],
    ["streaming DP-PCA", "Wishart (δ-calibrated)"],
]


def _unit(rng, d=64):
    v = rng.standard_normal(d)
    return v / np.linalg.norm(v)


def _figure(reference, rng):
    blocks = [
        {"non-private PCA": reference}
        | {label: {eps: _unit(rng) for eps in EPSILONS} for label in labels}
        for labels in LABELS
    ]
    return component_grid(blocks, EPSILONS, reference=reference)


def test_one_image_per_row_and_epsilon_within_the_column():
    rng = np.random.default_rng(0)
    fig = _figure(_unit(rng), rng)
    try:
        rows = sum(len(labels) + 1 for labels in LABELS)
        assert len(fig.axes) == rows * len(EPSILONS)
        headers = [ax.get_title() for ax in fig.axes if ax.get_title()]
        assert headers == [f"ε = {eps:g}" for eps in EPSILONS] * len(LABELS)
        fig.canvas.draw()
        assert fig.get_size_inches()[0] == pytest.approx(6.5)
        assert fig.get_tightbbox().width <= 6.5
        assert smallest_text_pt(fig) >= 10
        # long labels wrap at spaces, never inside a word
        names = {ax.get_ylabel() for ax in fig.axes if ax.get_ylabel()}
        assert "Mangoubi–Vishnoi" in names
        assert "streaming\nDP-PCA" in names
    finally:
        matplotlib.pyplot.close(fig)


def test_images_take_the_sign_of_the_reference_on_their_own_scale():
    rng = np.random.default_rng(1)
    reference = _unit(rng)
    flipped = {eps: -reference * (1 + i) for i, eps in enumerate(EPSILONS)}
    fig = component_grid([{"a": reference, "b": flipped}], EPSILONS, reference)
    try:
        for ax in fig.axes:
            (image,) = ax.get_images()
            values = np.ravel(image.get_array())
            assert np.allclose(values / np.linalg.norm(values), reference)
            low, high = image.get_clim()
            assert low == -high == -np.abs(values).max()
    finally:
        matplotlib.pyplot.close(fig)
