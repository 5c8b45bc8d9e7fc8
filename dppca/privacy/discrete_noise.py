"""Exact samplers on the integers, the core of the floating-point-safe noise
of :mod:`dppca.privacy.noise`: Bernoulli(exp(−x)) for rational x, the discrete
Laplace and the discrete Gaussian laws (Canonne, Kamath and Steinke 2020,
Algorithms 1–3).

Every operation is integer arithmetic (uniform integers from numpy's
bounded-integer generator, comparisons, sums), so the law of each output is
exactly the law the privacy proofs analyse. The samplers are vectorised:
all entries advance through the algorithms' loops in lockstep, and
``tests/unit/privacy/test_noise_draws.py`` holds them, draw for draw, to
plain loops that follow the same schedule. They live apart from the noise
layer because they are the one part of it that is a proof obligation of its
own: exactness, not calibration.
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction

import numpy as np

from ..validation import as_generator

#: Largest grid scale the integer samplers accept (keeps every product below
#: 2**63).
MAX_LAPLACE_GRID_SCALE = 2**40
MAX_GAUSSIAN_GRID_SIGMA = 2**26


# ------------------------------------------------------------------------------
# Exact samplers on the integers (Canonne, Kamath and Steinke 2020), vectorised
# ------------------------------------------------------------------------------


#: Below this many draws, :func:`_uniform` draws one integer at a time:
#: ``Generator.integers`` costs a few microseconds per call whatever its
#: size, and a scalar call about a fifth of that.
_SCALAR_DRAWS = 4


class _Count(int):
    """A draw count that numpy's ``Generator.integers`` takes as its
    ``size``: an ``int`` whose ``prod()`` is itself.

    ``integers`` checks ``numpy.prod(size)`` before it draws, and
    ``numpy.prod`` of a plain integer converts it to an array and reduces
    it, about a microsecond per call; ``numpy.prod`` uses an argument's own
    ``prod`` method when it has one. The draws are the same integers: the
    count only sizes the output array.
    """

    __slots__ = ()

    def prod(self, *args, **kwargs) -> int:
        return int(self)


def _uniform(rng, high: int, size: int) -> np.ndarray:
    """``rng.integers(0, high, size=size)`` (int64), the same integers and
    the same generator state after it, bit for bit.

    numpy draws the entries of one call one after another, each by the
    same bounded-integer routine as a scalar call with the same bound
    (Lemire's method, for every bit generator), so ``size`` scalar calls
    in a row return the same integers as one call of that size; a call of
    size zero draws nothing. Below :data:`_SCALAR_DRAWS` entries the scalar
    calls are cheaper (``tests/unit/privacy/test_noise_draws.py`` checks
    the identity against ``rng.integers`` for every kind of bound).
    """
    if size >= _SCALAR_DRAWS:
        return rng.integers(0, high, size=_Count(size))
    if size == 0:
        return np.empty(0, dtype=np.int64)
    return np.array(
        [rng.integers(0, high) for _ in range(size)], dtype=np.int64
    )


def _draws(rng, high: int, size: int) -> list[int]:
    """:func:`_uniform` by scalar calls, as Python integers: the loops below
    finish their last few entries (fewer than :data:`_SCALAR_DRAWS`) in
    Python, in the same order, where numpy's fixed cost per call would
    dominate."""
    return [int(rng.integers(0, high)) for _ in range(size)]


def _bernoulli_exp_fraction(
    rng, num: np.ndarray, den: int, first_step: int = 1
) -> np.ndarray:
    """Bernoulli(exp(−num/den)) for an int64 array 0 ≤ num ≤ den and an
    integer den ≥ 1
    (CKS 2020, Algorithm 1).

    Draw A_k ~ Bernoulli(γ/k) for k = 1, 2, ... until the first failure at step
    K; the result is "K odd", which has probability exp(−γ). A_k is "U < num"
    for U uniform on {0, …, k·den − 1}: an exact integer comparison. All entries
    run in lockstep, so k is the same for every entry still running.
    ``first_step`` > 1 continues a run whose first steps all succeeded.
    """
    num = num.ravel()
    size = num.size
    # step `first_step`, on every entry (no index array on the largest step)
    success = _fraction_step(rng, num, den, first_step, size)
    flat = np.full(size, first_step % 2 == 1)
    active = success.nonzero()[0]
    k = first_step + 1
    while active.size:
        if active.size < _SCALAR_DRAWS:
            _fraction_tail(rng, num, den, k, active, flat)
            break
        # every entry still running gets step k's parity; those that
        # succeed are overwritten at the step where they fail
        flat[active] = k % 2 == 1
        success = _fraction_step(rng, num[active], den, k, active.size)
        active = active.compress(success)
        k += 1
    return flat


def _fraction_tail(rng, num, den: int, k: int, active, flat) -> None:
    """Steps ``k, k + 1, …`` of :func:`_bernoulli_exp_fraction` for the few
    entries ``active``, in Python: the same draws in the same order (each
    step draws for the entries still running, in index order)."""
    index, current = active.tolist(), num[active].tolist()
    while index:
        m = len(index)
        if k * den < 2**62:
            success = [u < c for u, c in zip(_draws(rng, k * den, m), current)]
        else:  # as _fraction_step: every V first, then every J
            first, second = _draws(rng, den, m), _draws(rng, k, m)
            success = [
                v < c and j == 0 for v, j, c in zip(first, second, current)
            ]
        odd = k % 2 == 1
        going = [i for i, ok in zip(range(m), success) if ok]
        for i, ok in zip(index, success):
            if not ok:
                flat[i] = odd
        index = [index[i] for i in going]
        current = [current[i] for i in going]
        k += 1


def _fraction_step(rng, current, den: int, k: int, size: int) -> np.ndarray:
    """Step ``k`` of Algorithm 1 on ``size`` entries: ``U < current`` with
    ``U`` uniform on ``{0, …, k·den − 1}``."""
    if k * den < 2**62:
        return _uniform(rng, k * den, size) < current
    # U = J·den + V: U < num ≤ den iff J = 0 and V < num
    success = _uniform(rng, den, size) < current
    success &= _uniform(rng, k, size) == 0
    return success


#: 20! and the thresholds 20!/k! (k = 1, …, 20): one uniform integer U on {0, …,
#: 20! − 1} decides the first 20 steps of Algorithm 1 with γ = 1, because A_2,
#: …, A_k all succeed iff U < 20!/k!, an event of probability exactly 1/k!.
_FACTORIAL_20 = math.factorial(20)
_STEP_THRESHOLDS = np.array(
    [_FACTORIAL_20 // math.factorial(k) for k in range(1, 21)], dtype=np.int64
)
#: The same thresholds in increasing order (20!/20! = 1 first).
_ASCENDING_THRESHOLDS = np.ascontiguousarray(_STEP_THRESHOLDS[::-1])
_ASCENDING_LIST = [int(v) for v in _ASCENDING_THRESHOLDS]
_HALF, _SIXTH, _TWENTY_FOURTH = _ASCENDING_LIST[-2:-5:-1]


def _bernoulli_exp_minus_one(rng, size: int) -> np.ndarray:
    """Exact Bernoulli(exp(−1)): Algorithm 1 with γ = 1 (A_1 always succeeds,
    A_k ~
    Bernoulli(1/k)); the first failure step K ≤ 20 is read off one uniform
    integer, and the rare runs (probability 1/20!) that pass step 20 continue
    with :func:`_bernoulli_exp_fraction`.

    K is the smallest k with U ≥ 20!/k!, one more than the number of
    thresholds above U: ``K = 21 − m`` with ``m`` the number of thresholds
    at most U, so "K odd" is "m even"; ``m = 0`` is ``U = 0``, the runs that
    pass step 20.
    """
    u = _uniform(rng, _FACTORIAL_20, size)
    # K = 2 (m = 19) when U ≥ 20!/2, K = 3 (m = 18) when 20!/6 ≤ U < 20!/2,
    # K = 4 (m = 17) when 20!/24 ≤ U < 20!/6: only the rest, a 24th of the
    # entries, is searched among the thresholds
    out = u < _HALF
    out &= u >= _SIXTH
    rare = (u < _TWENTY_FOURTH).nonzero()[0]
    if rare.size:
        at_most = _ASCENDING_THRESHOLDS.searchsorted(u[rare], side="right")
        out[rare] = (at_most & 1) == 0
        if not at_most.all():
            # A_2..A_20 all succeeded
            long_runs = rare.compress(at_most == 0)
            one = np.ones(long_runs.size, dtype=np.int64)
            out[long_runs] = _bernoulli_exp_fraction(rng, one, 1, first_step=21)
    return out


def _minus_one_flags(rng, size: int) -> list[bool]:
    """:func:`_bernoulli_exp_minus_one` for a few entries, in Python: the
    same draws (every U first, then the runs that pass step 20)."""
    u = _draws(rng, _FACTORIAL_20, size)
    flags = [(bisect.bisect_right(_ASCENDING_LIST, v) & 1) == 0 for v in u]
    long_runs = [i for i, v in enumerate(u) if v == 0]
    if long_runs:
        one = np.ones(len(long_runs), dtype=np.int64)
        more = _bernoulli_exp_fraction(rng, one, 1, first_step=21)
        for i, flag in zip(long_runs, more.tolist()):
            flags[i] = flag
    return flags


def bernoulli_exp(num, den: int, rng=None) -> np.ndarray:
    """Exact Bernoulli(exp(−num/den)) for an integer array num ≥ 0 and an
    integer den ≥ 1
    (CKS 2020, Algorithm 1).

    Writes num/den = q + r/den: the result is the AND of q draws of
    Bernoulli(exp(−1)) and one of Bernoulli(exp(−r/den)), all exact.
    """
    rng = as_generator(rng)
    num = np.asarray(num, dtype=np.int64)
    den = int(den)
    if np.any(num < 0) or den < 1:
        raise ValueError("need num >= 0 and den >= 1")
    return _bernoulli_exp(rng, num.ravel(), den).reshape(num.shape)


def _bernoulli_exp(rng, num: np.ndarray, den: int) -> np.ndarray:
    """:func:`bernoulli_exp` of a checked one-dimensional ``num``."""
    whole = num // den  # num ≥ 0: the same integers as np.divmod
    rest = num - whole * den
    out = _bernoulli_exp_fraction(rng, rest, den)
    step = 1
    todo = (out & (whole >= step)).nonzero()[0]
    while todo.size:
        if todo.size < _SCALAR_DRAWS:  # the last few, in Python
            index, left = todo.tolist(), whole[todo].tolist()
            while index:
                flags = _minus_one_flags(rng, len(index))
                step += 1
                going = []
                for i, (j, flag) in enumerate(zip(index, flags)):
                    out[j] = flag
                    if flag and left[i] >= step:
                        going.append(i)
                index = [index[i] for i in going]
                left = [left[i] for i in going]
            break
        out[todo] = _bernoulli_exp_minus_one(rng, todo.size)
        step += 1
        todo = todo.compress(out[todo] & (whole[todo] >= step))
    return out


def _geometric_exp_minus_one(rng, size: int) -> np.ndarray:
    """Number of successes of Bernoulli(exp(−1)) before the first failure:
    P(V = v) =
    (1 − 1/e) e^{−v}."""
    count = np.zeros(size, dtype=np.int64)
    active = _bernoulli_exp_minus_one(rng, size).nonzero()[0]
    successes = 0  # of every entry still running
    while active.size:
        if active.size < _SCALAR_DRAWS:  # the last few, in Python
            index = active.tolist()
            while index:
                for i in index:
                    count[i] += 1
                flags = _minus_one_flags(rng, len(index))
                index = [i for i, flag in zip(index, flags) if flag]
            break
        successes += 1
        count[active] = successes
        active = active.compress(_bernoulli_exp_minus_one(rng, active.size))
    return count


def discrete_laplace(scale: int, size, rng=None) -> np.ndarray:
    """Exact draws of the discrete Laplace law P(z) ∝ exp(−|z|/t) on the
    integers, t = ``scale``
    a positive integer (CKS 2020, Algorithm 2 with s = 1), as int64.

    X = U + tV with U uniform on {0, …, t−1} kept with probability exp(−U/t) and
    V geometric has P(X = x) ∝ exp(−x/t) on x ≥ 0; a fair sign, rejecting "−0",
    gives the two-sided law. Rejected entries are redrawn, vectorised over the
    entries still pending.
    """
    t = int(scale)
    if t != scale or t < 1 or t > MAX_LAPLACE_GRID_SCALE:
        raise ValueError(
            f"scale must be an integer in [1, 2**40]; got {scale!r}"
        )
    rng = as_generator(rng)
    shape = (size,) if np.isscalar(size) else tuple(size)
    total = int(np.prod(shape, dtype=np.int64))
    return _discrete_laplace(t, total, rng).reshape(shape)


def _discrete_laplace(t: int, total: int, rng) -> np.ndarray:
    """:func:`discrete_laplace` of a checked scale, ``total`` draws."""
    out = np.empty(total, dtype=np.int64)
    pending = np.arange(total)
    while pending.size:
        u = _uniform(rng, t, pending.size)
        keep = _bernoulli_exp_fraction(rng, u, t)
        slots, u = pending.compress(keep), u.compress(keep)
        x = _geometric_exp_minus_one(rng, slots.size)
        x *= t  # in place: x = u + t V, the same integers
        x += u
        negative = _uniform(rng, 2, slots.size) == 1
        minus_zero = negative & (x == 0)
        np.negative(x, out=x, where=negative)
        if not minus_zero.any():
            out[slots] = x
            pending = pending.compress(~keep)
        else:
            valid = ~minus_zero
            out[slots.compress(valid)] = x.compress(valid)
            pending = np.concatenate(
                [pending.compress(~keep), slots.compress(~valid)]
            )
    return out


def split_variance(variance) -> tuple[int, int]:
    """Integers (t, c) with t·c ≥ ``variance`` (a rational, exact) and t =
    ⌈√variance⌉: the
    discrete Gaussian is drawn with variance parameter σ² = t·c, never below
    the request."""
    v = Fraction(variance)
    if v <= 0:
        raise ValueError(f"variance must be > 0; got {variance!r}")
    ceil_v = math.ceil(v)
    t = math.isqrt(ceil_v)
    if t * t < ceil_v:
        t += 1
    c = math.ceil(v / t)
    return t, c


def discrete_gaussian_parameters(variance) -> tuple[int, int]:
    """(t, c) of :func:`discrete_gaussian`: the law drawn is P(z) ∝
    exp(−z²/(2tc)), tc ≥
    ``variance`` (exact rational arithmetic)."""
    t, c = split_variance(variance)
    if t > MAX_GAUSSIAN_GRID_SIGMA:
        raise ValueError(
            "the discrete Gaussian sampler takes σ ≤ 2**26 grid units; "
            f"got σ ≈ {t} (choose a coarser grid)"
        )
    return t, c


def discrete_gaussian(variance, size, rng=None) -> np.ndarray:
    """Exact draws of the discrete Gaussian P(z) ∝ exp(−z²/(2σ²)) on the
    integers, as int64
    (CKS 2020, Algorithm 3), with σ² = t·c ≥ ``variance``
    (:func:`discrete_gaussian_parameters`).

    Draw Y from the discrete Laplace law of scale t and keep it with probability
    ``exp(−(|Y| − σ²/t)²/(2σ²)) = exp(−(|Y| − c)²/(2tc))``: an exact Bernoulli
    with integer numerator and denominator (entries with ``|Y| − c ≥ 2**31``,
    whose
    square could overflow int64, are tested with Python integers; they occur
    with probability below exp(−30)).
    """
    t, c = discrete_gaussian_parameters(variance)
    rng = as_generator(rng)
    shape = (size,) if np.isscalar(size) else tuple(size)
    total = int(np.prod(shape, dtype=np.int64))
    out = np.empty(total, dtype=np.int64)
    pending = np.arange(total)
    den = 2 * t * c
    while pending.size:
        y = _discrete_laplace(t, pending.size, rng)
        gap = np.abs(np.abs(y) - c)
        small = gap < 2**31
        if small.all():
            accept = _bernoulli_exp(rng, gap * gap, den)
        else:  # exact big integers for the rare |Y| − c ≥ 2**31 (beyond int64)
            accept = np.zeros(pending.size, dtype=bool)
            idx = np.flatnonzero(small)
            accept[idx] = _bernoulli_exp(rng, gap[idx] * gap[idx], den)
            for i in np.flatnonzero(~small):
                accept[i] = _bernoulli_exp_big(rng, int(gap[i]) ** 2, den)
        out[pending.compress(accept)] = y.compress(accept)
        pending = pending.compress(~accept)
    return out.reshape(shape)


def _bernoulli_exp_big(rng, num: int, den: int) -> bool:
    """Bernoulli(exp(−num/den)) for Python integers of any size (CKS 2020,
    Algorithm 1)."""
    whole, rest = divmod(num, den)
    for _ in range(whole):
        if not _bernoulli_exp_minus_one(rng, 1)[0]:
            return False
    return bool(
        _bernoulli_exp_fraction(rng, np.array([rest], dtype=np.int64), den)[0]
    )


__all__ = [
    "MAX_LAPLACE_GRID_SCALE",
    "MAX_GAUSSIAN_GRID_SIGMA",
    "bernoulli_exp",
    "discrete_laplace",
    "discrete_gaussian",
    "discrete_gaussian_parameters",
    "split_variance",
]
