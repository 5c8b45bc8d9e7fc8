"""The shortcuts of issue 44 in the exact samplers leave every draw where it
was: the count handed to numpy's bounded-integer generator, and the
permute-and-flip coins whose whole parts are all zero."""

from __future__ import annotations

import numpy as np
import pytest

from dppca.privacy import discrete_noise, selection

BIT_GENERATORS = [
    np.random.PCG64,
    np.random.PCG64DXSM,
    np.random.MT19937,
    np.random.Philox,
    np.random.SFC64,
]


def _same_state(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_state(a[k], b[k]) for k in a)
    return bool(np.array_equal(a, b))


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS)
@pytest.mark.parametrize("high", [2, 7, 2**32 - 1, 2**32 + 1, 2**62, 2**63 - 1])
def test_count_draws_as_a_plain_size(bit_generator, high):
    for size in (4, 5, 513):
        a = np.random.Generator(bit_generator(3))
        b = np.random.Generator(bit_generator(3))
        a.integers(0, 5)  # a 32-bit word may be left buffered
        b.integers(0, 5)
        got = discrete_noise._uniform(a, high, size)
        want = b.integers(0, high, size=size)
        assert type(got) is np.ndarray and got.dtype == want.dtype
        assert np.array_equal(got, want)
        assert _same_state(a.bit_generator.state, b.bit_generator.state)


@pytest.mark.parametrize("bit_generator", BIT_GENERATORS)
def test_zero_whole_parts_draw_nothing(bit_generator):
    rng = np.random.Generator(bit_generator(5))
    rng.integers(0, 7)
    before = rng.bit_generator.state
    for size in (1, 3, 4, 33):
        zeros = np.zeros(size, dtype=np.int64)
        assert discrete_noise.bernoulli_exp(zeros, 1, rng).all()
        assert selection._bernoulli_exp_whole([0] * size, rng).all()
    assert _same_state(rng.bit_generator.state, before)


def test_the_shortcut_is_the_full_computation():
    # coins with some whole part: the shortcut is not taken, and the
    # result is the plain product of the draws
    for seed in range(20):
        whole = [0, 0, 1, 0, 2]
        a, b = np.random.default_rng(seed), np.random.default_rng(seed)
        got = selection._bernoulli_exp_whole(whole, a)
        want = discrete_noise.bernoulli_exp(np.array(whole), 1, b)
        assert np.array_equal(got, want)
        assert _same_state(a.bit_generator.state, b.bit_generator.state)
