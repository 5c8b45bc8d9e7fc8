"""The exact samplers draw the same integers, in the same order, as the
plain lockstep implementation of Canonne, Kamath and Steinke's algorithms
that the book's proofs describe (issue 44): their speed-ups change no
release under a seed.

``_Reference`` below is that plain implementation (one
``Generator.integers`` call per lockstep step, as the samplers were written
before issue 44); every sampler of :mod:`dppca.privacy.noise` must return
its integers and leave the generator in its state."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dppca.privacy import discrete_noise, noise

F20 = math.factorial(20)


class _Reference:
    """The samplers as plain lockstep loops (the oracle)."""

    thresholds = np.array(
        [F20 // math.factorial(k) for k in range(1, 21)], dtype=np.int64
    )

    def fraction(self, rng, num, den, first_step=1):
        num = num.ravel()
        flat = np.empty(num.size, dtype=bool)
        active, k = None, first_step
        while active is None or active.size:
            size = num.size if active is None else active.size
            current = num if active is None else num[active]
            if k * den < 2**62:
                success = rng.integers(0, k * den, size=size) < current
            else:
                success = rng.integers(0, den, size=size) < current
                success &= rng.integers(0, k, size=size) == 0
            if active is None:
                flat[:] = k % 2 == 1
                active = np.flatnonzero(success)
            else:
                flat[active[~success]] = k % 2 == 1
                active = active[success]
            k += 1
        return flat

    def minus_one(self, rng, size):
        u = rng.integers(0, F20, size=size)
        first = 1 + np.searchsorted(-self.thresholds, -u, side="left")
        out = first % 2 == 1
        long_runs = np.flatnonzero(u == 0)
        if long_runs.size:
            one = np.ones(long_runs.size, dtype=np.int64)
            out[long_runs] = self.fraction(rng, one, 1, first_step=21)
        return out

    def bernoulli_exp(self, rng, num, den):
        whole, rest = np.divmod(num.ravel(), den)
        out = self.fraction(rng, rest, den)
        step = 1
        todo = np.flatnonzero(out & (whole >= step))
        while todo.size:
            out[todo] = self.minus_one(rng, todo.size)
            step += 1
            todo = todo[out[todo] & (whole[todo] >= step)]
        return out

    def geometric(self, rng, size):
        count = np.zeros(size, dtype=np.int64)
        active = np.flatnonzero(self.minus_one(rng, size))
        while active.size:
            count[active] += 1
            active = active[self.minus_one(rng, active.size)]
        return count

    def laplace(self, t, total, rng):
        out = np.empty(total, dtype=np.int64)
        pending = np.arange(total)
        while pending.size:
            u = rng.integers(0, t, size=pending.size)
            keep = self.fraction(rng, u, t)
            slots, u = pending[keep], u[keep]
            x = u + t * self.geometric(rng, slots.size)
            negative = rng.integers(0, 2, size=slots.size) == 1
            valid = ~(negative & (x == 0))
            out[slots[valid]] = np.where(negative, -x, x)[valid]
            pending = np.concatenate([pending[~keep], slots[~valid]])
        return out

    def gaussian(self, variance, total, rng):
        t, c = noise.discrete_gaussian_parameters(variance)
        out = np.empty(total, dtype=np.int64)
        pending = np.arange(total)
        den = 2 * t * c
        while pending.size:
            y = self.laplace(t, pending.size, rng)
            gap = np.abs(np.abs(y) - c)
            assert np.all(gap < 2**31)  # the sizes below stay there
            accept = self.bernoulli_exp(rng, gap * gap, den)
            out[pending[accept]] = y[accept]
            pending = pending[~accept]
        return out


REF = _Reference()


def _pair(seed):
    """Two generators in the same state, with a pending 32-bit half (the
    state a draw of a small bound leaves)."""
    a, b = np.random.default_rng(seed), np.random.default_rng(seed)
    a.integers(0, 3)
    b.integers(0, 3)
    return a, b


def _same_state(a, b):
    return a.bit_generator.state == b.bit_generator.state


@pytest.mark.parametrize(
    "high", [1, 2, 3, 1000, 2**26 + 7, 2**32, 2**32 + 1, F20, 2**62 + 5]
)
@pytest.mark.parametrize("size", [0, 1, 2, 3, 4, 5, 513])
def test_uniform_is_generator_integers(high, size):
    a, b = _pair(size)
    got = discrete_noise._uniform(a, high, size)
    want = b.integers(0, high, size=size)
    assert got.dtype == want.dtype == np.int64
    assert np.array_equal(got, want) and _same_state(a, b)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("size", [1, 3, 50, 2000])
def test_bernoulli_samplers_draw_as_the_lockstep_loops(seed, size):
    a, b = _pair(seed)
    num = a.integers(0, 10**9, size=size)
    b.integers(0, 10**9, size=size)
    for den in (1, 7, 123_457, 10**9, 2**61):
        assert np.array_equal(
            noise.bernoulli_exp(num, den, a), REF.bernoulli_exp(b, num, den)
        )
        assert _same_state(a, b)
    ones = np.ones(size, dtype=np.int64)
    assert np.array_equal(
        discrete_noise._bernoulli_exp_fraction(a, ones, 1, first_step=3),
        REF.fraction(b, ones, 1, first_step=3),
    )
    assert np.array_equal(
        discrete_noise._bernoulli_exp_minus_one(a, size), REF.minus_one(b, size)
    )
    assert _same_state(a, b)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("t", [1, 2, 1000, 2**26])
@pytest.mark.parametrize("size", [1, 5, 513, 4000])
def test_discrete_laplace_draws_as_the_lockstep_loops(seed, t, size):
    a, b = _pair(seed)
    assert np.array_equal(
        noise.discrete_laplace(t, size, a), REF.laplace(t, size, b)
    )
    assert _same_state(a, b)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("variance", [0.3, 3.0, 100.5, 2e5**2, 6e7**2])
@pytest.mark.parametrize("size", [1, 5, 513, 4000])
def test_discrete_gaussian_draws_as_the_lockstep_loops(seed, variance, size):
    a, b = _pair(seed)
    assert np.array_equal(
        noise.discrete_gaussian(variance, size, a),
        REF.gaussian(variance, size, b),
    )
    assert _same_state(a, b)


class _LongRuns:
    """numpy's generator, except that every fifth integer drawn below 20!
    is 0: the runs that pass step 20 of the one-draw shortcut (probability
    1/20! each, never met otherwise) then occur often enough to compare."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.count = 0

    def integers(self, low, high, size=None):
        out = self.rng.integers(low, high, size=size)
        if high != F20:
            return out
        flat = np.array(out, dtype=np.int64).reshape(-1)
        for i in range(flat.size):
            if self.count % 5 == 2:
                flat[i] = 0
            self.count += 1
        return flat[0] if size is None else flat.reshape(out.shape)


@pytest.mark.parametrize("size", [1, 3, 4, 9, 700])
def test_runs_past_step_twenty_draw_as_the_lockstep_loops(size):
    a, b = _LongRuns(size), _LongRuns(size)
    assert np.array_equal(
        discrete_noise._bernoulli_exp_minus_one(a, size), REF.minus_one(b, size)
    )
    assert np.array_equal(
        discrete_noise._geometric_exp_minus_one(a, size), REF.geometric(b, size)
    )
    num = np.arange(size, dtype=np.int64) * 7
    assert np.array_equal(
        discrete_noise._bernoulli_exp(a, num, 3), REF.bernoulli_exp(b, num, 3)
    )
    assert a.count == b.count > 0
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
