"""One drawability arithmetic (issue 41): the predicate the private mean and
the private covariance use and the check the guarantee builders raise agree
with the exact sampler itself on every case, including the boundary."""

from __future__ import annotations

import numpy as np
import pytest

from dppca.privacy import drawable, noise


def sampler_accepts(sigma, grid, factor=1):
    from fractions import Fraction

    variance = factor * (Fraction(float(sigma)) / Fraction(float(grid))) ** 2
    try:
        noise.discrete_gaussian_parameters(variance)
    except ValueError:
        return False
    return True


def check_accepts(sigma, grid, factor=1):
    try:
        drawable.check_gaussian_drawable(sigma, grid, factor=factor)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("factor", [1, 4])
def test_the_predicate_the_check_and_the_sampler_agree(factor):
    rng = np.random.default_rng(0)
    top = float(noise.MAX_GAUSSIAN_GRID_SIGMA)
    sigmas = np.concatenate(
        [
            top * np.exp(rng.uniform(-3, 1, 300)) / np.sqrt(factor),
            [
                top / np.sqrt(factor),
                (top - 1) / np.sqrt(factor),
                (top + 1) / np.sqrt(factor),
            ],
        ]
    )
    seen = set()
    for sigma in sigmas:
        for grid in (1.0, 2.0**-10):
            s = float(sigma) * grid
            expected = sampler_accepts(s, grid, factor)
            seen.add(expected)
            assert drawable.gaussian_drawable(s, grid, factor) is expected
            assert check_accepts(s, grid, factor) is expected
    assert seen == {True, False}


def test_zero_noise_is_not_drawable():
    assert drawable.gaussian_drawable(0.0, 1.0) is False
