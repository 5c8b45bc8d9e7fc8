"""Private selection by permute-and-flip, drawn exactly.

Permute-and-flip (McKenna and Sheldon, "Permute-and-Flip: a new mechanism
for differentially private selection", NeurIPS 2020, (MS20)) chooses one of
``G`` candidates with integer utilities ``u_1, …, u_G`` of sensitivity 1:
visit the candidates in a uniformly random order and stop at the first
candidate ``r`` whose coin, of probability ``p_r = exp(−ε (u* − u_r)/2)``,
lands heads (``u* = max_j u_j``). A candidate of utility ``u*`` has
``p_r = 1``, so the walk stops. (MS20) prove it ε-DP (with ``p_r = exp(ε
(u_r − u*)/(2Δ))`` for sensitivity Δ) and that its expected utility is never
below that of the exponential mechanism at the same ε (and up to twice
better); Ding et al. (2021) show it is report noisy max with exponential
noise. The package selects with it a private row bound
(:mod:`dppca.privacy.private_bounds`), a streaming step's clipping radius
and a grid search's candidate (:mod:`dppca.model_selection`).

**Exact, as a program.** Every step is exact integer arithmetic, so the
output has exactly the law the theorem analyses (up to the uniformity of the
generator's integers, as everywhere in ``dppca.privacy.noise``):

* the utilities are integers, whose sensitivity the caller proves (for
  the private bounds, counts of rows);
* the order is ``rng.permutation`` (unbiased bounded integers);
* ε is taken as an exact fraction ``ε' = a/b`` of the float, rounded down to
  a multiple of ``2⁻⁶¹`` when finer (never for ``ε ≥ 2⁻⁹``; ``ε' ≤ ε``, so
  the release is ε-DP a fortiori), and each coin
  ``exp(−a (u* − u_r)/(2b))`` is drawn by ``dppca.privacy.noise.bernoulli_exp``
  (Canonne, Kamath and Steinke 2020, Algorithm 1) as the AND of
  ``exp(−w)`` and ``exp(−s/(2b))`` with ``a (u* − u_r) = 2b w + s``.

Drawing every coin up front, in the visiting order, and returning the first
candidate whose coin is heads gives the same law as flipping them one at a
time (the coins of candidates after the first head are never looked at).

"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ..float_state import owns_float_state
from ..validation import as_generator, check_epsilon
from . import noise

#: ε is used as an exact multiple of 2**-EPSILON_BITS (rounded down when the
#: float is finer): the coins' denominators 2b then stay within 2**62.
EPSILON_BITS = 61

#: Largest whole part of an exponent handed to one call of the exact sampler.
_WHOLE_CHUNK = 2**62

#: Without a penalty, the gaps ``a (u* − u_r)`` below this bound are
#: computed in int64 (the same integers as Python's, without the lists).
_INT64_GAPS = 2**62

#: (MS20): McKenna and Sheldon, NeurIPS 2020 (theorem number not cited: not
#: checked against the paper's numbering).
THEOREM = "permute-and-flip (MS20), ε-DP for a utility of sensitivity 1"


def exact_epsilon(epsilon) -> Fraction:
    """ε as the exact fraction the sampler uses: the float itself (or a
    given Fraction), or the largest multiple of ``2⁻⁶¹`` below it when it is
    finer (for a float, only when ``ε < 2⁻⁹``). Never above ``epsilon``."""
    if isinstance(epsilon, Fraction):
        if not epsilon > 0:
            raise ValueError(f"epsilon must be > 0; got {epsilon!r}")
        eps = epsilon
    else:
        eps = Fraction(check_epsilon(epsilon))
    if eps.denominator > 2**EPSILON_BITS:
        eps = Fraction(math.floor(eps * 2**EPSILON_BITS), 2**EPSILON_BITS)
    return eps


def _bernoulli_exp_whole(whole: list[int], rng) -> np.ndarray:
    """Exact Bernoulli(exp(−w)) for non-negative Python integers ``w`` (of
    any size: beyond 2**62 as a product of such draws).

    When every ``w`` is zero the coins are all heads and nothing is drawn:
    ``noise.bernoulli_exp(0, 1)`` decides its fractional part, zero, by
    integers below 1, which numpy's generator returns without consuming
    its stream, and has no whole part to draw. So the shortcut leaves the
    generator where the call would
    (``tests/unit/privacy/test_sampler_shortcuts.py``)."""
    left = [int(w) for w in whole]
    if not any(left):
        return np.ones(len(left), dtype=bool)
    step = np.array([min(w, _WHOLE_CHUNK) for w in left], dtype=np.int64)
    out = noise.bernoulli_exp(step, 1, rng)
    for i, w in enumerate(left):  # only for ε (u* − u_r)/2 > 2**62
        while out[i] and w > _WHOLE_CHUNK:
            w -= _WHOLE_CHUNK
            chunk = min(w, _WHOLE_CHUNK)
            out[i] = noise.bernoulli_exp(np.array([chunk]), 1, rng)[0]
    return out


@owns_float_state
def permute_and_flip(utilities, epsilon, rng=None, penalty=None) -> int:
    """Index chosen by permute-and-flip (MS20) for integer utilities of
    sensitivity 1, drawn exactly.

    Parameters
    ----------
    utilities : array_like of int
        ``u_1, …, u_G``.
    epsilon : float or Fraction
        The privacy parameter; used as :func:`exact_epsilon` of it (a
        Fraction is used as is).
    rng : numpy.random.Generator, int or None
        Randomness (:func:`dppca.validation.as_generator`).
    penalty : array_like of non-negative int, optional
        A public, data-independent penalty ``h_r`` in half-nats: the scores
        become ``ε u_r/2 − h_r/2`` (a base measure ``∝ exp(−h_r/2)``, as in
        the exponential mechanism with a prior). This is permute-and-flip
        with the real utility ``u_r − h_r/ε``, whose sensitivity is still 1
        (the penalty does not depend on the data): ε-DP as before.

    Returns
    -------
    int
        ``r`` with probability ``E_π[Π_{s before r}(1 − p_s) p_r]``,
        ``p_s = exp(−(S* − S_s))`` with scores ``S_s = ε u_s/2 − h_s/2``,
        ``π`` a uniformly random order.
    """
    return _permute_and_flip(utilities, epsilon, rng, penalty)


def _permute_and_flip(utilities, epsilon, rng=None, penalty=None) -> int:
    """:func:`permute_and_flip` for a caller already under the package's
    float state (``dppca.float_state``), which costs about 20 µs to
    enter."""
    u = np.asarray(utilities)
    if u.ndim != 1 or u.size < 1 or u.dtype.kind not in "iu":
        raise ValueError("utilities must be a non-empty 1-D integer array")
    eps = exact_epsilon(epsilon)
    rng = as_generator(rng)
    a, den = eps.numerator, 2 * eps.denominator
    if penalty is None and u.dtype == np.int64:
        span = int(u.max()) - int(u.min())
        if a < _INT64_GAPS and a * span < _INT64_GAPS:
            # the same gaps a (u* − u_r) in int64, where they fit
            order = rng.permutation(u.size)
            gaps = (u.max() - u)[order] * a
            whole = gaps // den
            rest = gaps - whole * den
            heads = noise.bernoulli_exp(rest, den, rng)
            heads &= _bernoulli_exp_whole(whole.tolist(), rng)
            return int(order[int(np.argmax(heads))])
    h = [0] * u.size if penalty is None else [int(v) for v in penalty]
    if len(h) != u.size or min(h) < 0:
        raise ValueError("penalty must be non-negative, one per utility")
    # scores times 2b, exact integers: a u_r − b h_r
    scores = [a * int(v) - eps.denominator * hr for v, hr in zip(u, h)]
    top = max(scores)
    gaps = [top - sc for sc in scores]
    order = rng.permutation(u.size)
    whole, rest = zip(*(divmod(gaps[r], den) for r in order))
    heads = noise.bernoulli_exp(np.array(rest, dtype=np.int64), den, rng)
    heads &= _bernoulli_exp_whole(list(whole), rng)
    # a candidate of utility u* has p = 1: at least one head
    return int(order[int(np.argmax(heads))])


__all__ = ["EPSILON_BITS", "THEOREM", "exact_epsilon", "permute_and_flip"]
