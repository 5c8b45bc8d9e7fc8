"""The noise layer of every additive release path: float noise or
floating-point-safe noise.

Two kinds, chosen by the keyword ``noise`` of every mechanism that adds Laplace
or Gaussian entries:

``"float"`` numpy's float64 Laplace / Gaussian samplers added to a float64
matrix, as in the papers. **Mathematical DP only**: the mechanism on the real
numbers is private, the float program is not. The low-order bits of ``fl(a +
noise)`` depend on ``a`` (Mironov 2012), and the audit of chapter 10 certifies ε
above the claim on one neighbouring pair.

``"safe"`` DP *as a program*. The values are rounded to a grid of granularity γ
(a power of two), and γ times an integer drawn **exactly** from the discrete
Laplace or discrete Gaussian law is added (Canonne, Kamath and Steinke 2020,
Algorithms 1–3). Every operation of the sampler is integer arithmetic on int64
(uniform integers from numpy's bounded-integer generator, comparisons, sums);
the output γ (k + Z) is exact in float64 because ``|k + Z| < 2**53`` (checked)
and γ is a power of two. The law of the output therefore is exactly the law the
privacy proof analyses; the rounding of the values to the grid is part of the
mechanism and of its calibration (:mod:`dppca.privacy`, "floating-point-safe
calibration"). The exact samplers on the integers are in
``dppca.privacy.discrete_noise``; this module re-exports them.

What "exact" assumes: the random integers are uniform. numpy's PCG64 is a
statistical PRNG, not a cryptographic one; the privacy proof treats its output
as truly uniform bits, as every DP library does for its randomness source
(OpenDP draws from the operating system instead).

Not covered by this layer:

* the δ-calibrated Wishart input perturbation draws a Wishart matrix ``c G Gᵀ``,
  not independent additive entries; its privacy proof rests on the support and
  density of the continuous Wishart law. It is **float only** (a discrete
  analogue would need a new proof);
* the samplers of the exponential mechanism (:mod:`dppca.samplers.bingham`:
  the ACG rejection sampler and the Gibbs samplers) work in float64. Their
  Gaussian proposals are transformed with data-dependent matrices (eigenbasis,
  conditioning), normalised, and accepted by comparing ``log(uniform)`` with a
  float log-ratio. No attack like Mironov's is known to us for them, and no
  proof that they are safe either: the rounding errors of the outputs depend on
  the data, so a low-order-bit leak is possible in principle. A black-box audit
  can only find a leak that some test statistic exposes at the sample sizes it
  can afford. The likelihood-ratio statistics of chapter 10 are continuous in
  the output and blind to low-order bits, so a leak would need a test aimed at
  the bits. An audit can refute, never certify.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction

import numpy as np

from ..float_state import owns_float_state
from ..validation import as_generator
from .discrete_noise import (
    MAX_GAUSSIAN_GRID_SIGMA,
    MAX_LAPLACE_GRID_SCALE,
    bernoulli_exp,
    discrete_gaussian,
    discrete_gaussian_parameters,
    discrete_laplace,
    split_variance,
)

#: The two kinds of noise every additive release path offers.
NOISE_KINDS = ("float", "safe")

#: Default grid of a standalone call: γ is the largest power of two ≤ scale /
#: 2**20.
DEFAULT_GRID_POINTS_PER_SCALE = 2**20

#: Outputs γ·(k + Z) are exact float64 numbers while |k + Z| ≤ 2**53.
_EXACT_INTEGER_LIMIT = 2**53


def check_noise_kind(noise) -> str:
    """Validate the keyword ``noise``: ``"float"`` or ``"safe"``."""
    if noise not in NOISE_KINDS:
        raise ValueError(f"noise must be one of {NOISE_KINDS}; got {noise!r}")
    return noise


def power_of_two_at_most(x: float) -> float:
    """Largest power of two ≤ ``x`` (``x`` finite and > 0), computed exactly."""
    x = float(x)
    if not (np.isfinite(x) and x > 0):
        raise ValueError(f"need a finite number > 0; got {x!r}")
    mantissa, exponent = math.frexp(
        x
    )  # x = mantissa * 2**exponent, 0.5 <= m < 1
    return math.ldexp(1.0, exponent - 1)


def default_granularity(scale: float) -> float:
    """Default grid of a standalone :func:`add_laplace` /
    :func:`add_gaussian` call: the largest
    power of two ≤ ``scale / 2**20``. The mechanisms of the book choose their
    own grid from the
    sensitivity (``dppca.privacy.safe_granularity``), which the
    calibration needs."""
    return power_of_two_at_most(float(scale) / DEFAULT_GRID_POINTS_PER_SCALE)


def check_granularity(granularity) -> float:
    """Validate a grid granularity: a power of two (so that scaling by it is
    exact)."""
    g = float(granularity)
    if not (np.isfinite(g) and g > 0) or power_of_two_at_most(g) != g:
        raise ValueError(
            f"granularity must be a power of two > 0; got {granularity!r}"
        )
    if g < 2.0**-900:
        raise ValueError(f"granularity {g!r} is too small")
    return g


def round_to_grid(values, granularity: float) -> np.ndarray:
    """Integers ``k = round(values / γ)`` (half to even) as int64. ``values /
    γ`` is exact for a
    power of two γ; raises if some ``|k|`` exceeds 2**52 (the values are then
    far larger than
    the grid can represent exactly: choose a coarser grid)."""
    g = check_granularity(granularity)
    values = np.asarray(values, dtype=float)
    if not np.all(np.isfinite(values)):
        raise ValueError("values contain NaN or Inf")
    scaled = np.rint(values / g)
    if scaled.size and np.abs(scaled).max() > 2.0**52:
        # no value in the message: the values may be private
        raise ValueError(
            f"some values are too large for the grid γ = {g:.3g} "
            "(|value|/γ must stay below 2**52): choose a coarser grid"
        )
    return scaled.astype(np.int64)


# ------------------------------------------------------------------------------
# Adding noise to values
# ------------------------------------------------------------------------------


def _on_grid(k: np.ndarray, z: np.ndarray, granularity: float) -> np.ndarray:
    total = k + z
    if total.size and np.abs(total).max() > _EXACT_INTEGER_LIMIT:
        # |Z| > 2**52 has probability below exp(-2**12) at the largest grid
        # scales allowed
        raise ArithmeticError(
            "noisy value outside the exactly representable range"
        )
    return total.astype(float) * granularity


@owns_float_state
def add_laplace(
    values, scale: float, *, noise: str = "float", rng=None, granularity=None
) -> np.ndarray:
    """``values`` plus i.i.d. Laplace noise of scale ``scale`` (density ∝
    exp(−|z|/b)).

    ``noise="float"``: ``values + rng.laplace(0, b)`` (mathematical DP only).
    ``noise="safe"``: γ·(round(values/γ) + Z), Z exact discrete Laplace with
    parameter t = ⌈b/γ⌉ grid units (so never less noise than asked); γ =
    ``granularity`` (a power of two; default :func:`default_granularity`).
    Calibrate t with ``dppca.privacy.discrete_laplace_scale``, which
    accounts for the rounding.
    """
    noise = check_noise_kind(noise)
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite number > 0; got {scale!r}")
    rng = as_generator(rng)
    values = np.asarray(values, dtype=float)
    if noise == "float":
        return values + rng.laplace(0.0, scale, size=values.shape)
    g = check_granularity(
        default_granularity(scale) if granularity is None else granularity
    )
    k = round_to_grid(values, g)
    t = math.ceil(Fraction(float(scale)) / Fraction(g))
    return _on_grid(k, discrete_laplace(t, values.shape, rng), g)


@owns_float_state
def add_gaussian(
    values, sigma: float, *, noise: str = "float", rng=None, granularity=None
) -> np.ndarray:
    """``values`` plus i.i.d. Gaussian noise of standard deviation ``sigma``.

    ``noise="float"``: ``values + rng.normal(0, σ)`` (mathematical DP only).
    ``noise="safe"``: γ·(round(values/γ) + Z), Z exact discrete Gaussian with
    variance parameter ≥ (σ/γ)² (:func:`discrete_gaussian_parameters`); γ =
    ``granularity`` (a power of two; default :func:`default_granularity`).
    Calibrate σ with ``dppca.privacy.discrete_gaussian_sigma``, which
    accounts for the rounding.
    """
    return _add_gaussian(
        values, sigma, noise=noise, rng=rng, granularity=granularity
    )


def _add_gaussian(
    values, sigma: float, *, noise: str = "float", rng=None, granularity=None
) -> np.ndarray:
    """:func:`add_gaussian` for a caller already under the package's float
    state (``dppca.float_state``): entering it costs about 20 µs, which a
    streaming pass would pay at every step."""
    noise = check_noise_kind(noise)
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number > 0; got {sigma!r}")
    rng = as_generator(rng)
    values = np.asarray(values, dtype=float)
    if noise == "float":
        return values + rng.normal(0.0, sigma, size=values.shape)
    g = check_granularity(
        default_granularity(sigma) if granularity is None else granularity
    )
    k = round_to_grid(values, g)
    variance = (Fraction(float(sigma)) / Fraction(g)) ** 2
    return _on_grid(k, discrete_gaussian(variance, values.shape, rng), g)


@owns_float_state
def perturb_symmetric(
    A,
    scale: float,
    *,
    distribution: str,
    noise: str = "float",
    rng=None,
    granularity=None,
) -> np.ndarray:
    """A + E for a symmetric d × d ``A``, E symmetric with i.i.d. entries on
    and above the
    diagonal (Laplace of scale b or Gaussian of standard deviation σ =
    ``scale``), mirrored below.

    ``noise="float"`` draws a full d × d float matrix and keeps its upper
    triangle, exactly as the mechanisms always did (same stream, same output for
    a given seed). ``noise="safe"`` perturbs the d(d+1)/2 upper-triangle entries
    with :func:`add_laplace` or :func:`add_gaussian` and mirrors them: every
    entry of the output is on the grid.
    """
    noise = check_noise_kind(noise)
    if distribution not in ("laplace", "gaussian"):
        raise ValueError(
            "distribution must be 'laplace' or 'gaussian'; got "
            f"{distribution!r}"
        )
    A = np.asarray(A, dtype=float)
    d = A.shape[0]
    rng = as_generator(rng)
    if noise == "float":
        if distribution == "laplace":
            G = rng.laplace(0.0, scale, size=(d, d))
        else:
            G = rng.normal(0.0, scale, size=(d, d))
        return A + (np.triu(G) + np.triu(G, 1).T)
    add = add_laplace if distribution == "laplace" else add_gaussian
    iu, lower = _triangles(d)
    out = np.empty((d, d))
    out[iu] = add(A[iu], scale, noise="safe", rng=rng, granularity=granularity)
    np.copyto(out, out.T, where=lower)  # mirrored: the same values
    return out


@functools.lru_cache(maxsize=8)
def _triangles(d: int):
    """``(np.triu_indices(d), mask of the entries below the diagonal)``,
    read-only, built once per ``d``."""
    iu = np.triu_indices(d)
    lower = np.tri(d, d, -1, dtype=bool)
    for array in (*iu, lower):
        array.setflags(write=False)
    return iu, lower


@functools.lru_cache(maxsize=8)
def _strict_upper(d: int):
    """``np.triu_indices(d, 1)``, read-only, built once per ``d`` (about
    1.5 ms at d = 513, twice per complex Gaussian release)."""
    iu = np.triu_indices(d, 1)
    for array in iu:
        array.setflags(write=False)
    return iu


@owns_float_state
def perturb_symmetric_goe(
    A, sigma: float, *, rng=None, granularity=None
) -> np.ndarray:
    """Safe analogue of ``A + G + Gᵀ`` (G with i.i.d. N(0, σ²) entries):
    diagonal entries get
    discrete Gaussian noise of variance 4(σ/γ)², off-diagonal ones 2(σ/γ)² (grid
    units), the
    variances of G + Gᵀ; exact rational parameters, mirrored below the
    diagonal."""
    if not (np.isfinite(sigma) and sigma > 0):
        raise ValueError(f"sigma must be a finite number > 0; got {sigma!r}")
    rng = as_generator(rng)
    A = np.asarray(A, dtype=float)
    d = A.shape[0]
    g = check_granularity(
        default_granularity(sigma) if granularity is None else granularity
    )
    base = (Fraction(float(sigma)) / Fraction(g)) ** 2
    k = round_to_grid(A, g)
    out = np.empty((d, d))
    diag = np.arange(d)
    out[diag, diag] = _on_grid(
        k[diag, diag], discrete_gaussian(4 * base, d, rng), g
    )
    iu = _strict_upper(d)
    out[iu] = _on_grid(k[iu], discrete_gaussian(2 * base, iu[0].size, rng), g)
    out[(iu[1], iu[0])] = out[iu]
    return out


__all__ = [
    "NOISE_KINDS",
    "MAX_LAPLACE_GRID_SCALE",
    "MAX_GAUSSIAN_GRID_SIGMA",
    "check_noise_kind",
    "check_granularity",
    "power_of_two_at_most",
    "default_granularity",
    "round_to_grid",
    "bernoulli_exp",
    "discrete_laplace",
    "discrete_gaussian",
    "discrete_gaussian_parameters",
    "split_variance",
    "add_laplace",
    "add_gaussian",
    "perturb_symmetric",
    "perturb_symmetric_goe",
]
