"""What the exact samplers of :mod:`dppca.privacy.noise` can draw, decided
from public values only: the grid of a second moment, and whether the safe
Laplace or Gaussian noise a calibration asks for lies in the samplers'
range. A guarantee record (or a plan) calls these before any charge, so a
budget whose noise cannot be drawn is refused then, and never charged and
refused by the sampler after; they draw nothing themselves.
"""

from __future__ import annotations

from fractions import Fraction

from . import noise

#: Finest grid for the entries of a second moment ``A = XᵀX/n`` of rows of
#: norm at most one (``|A_ij| ≤ 1``): every entry is then an integer of at
#: most 2**52 grid units, which
#: :func:`~dppca.privacy.noise.round_to_grid` represents exactly.
MIN_MOMENT_GRANULARITY = 2.0**-52


def check_moment_granularity(granularity) -> float:
    """A caller's grid for the entries of a second moment, checked from
    public values only: a power of two
    (:func:`~dppca.privacy.noise.check_granularity`) no finer than
    :data:`MIN_MOMENT_GRANULARITY`. A finer grid made
    :func:`~dppca.privacy.noise.round_to_grid` refuse some data sets and not
    their neighbours, after the charge (red team, round 11)."""
    g = noise.check_granularity(granularity)
    if g < MIN_MOMENT_GRANULARITY:
        raise ValueError(
            f"granularity={granularity!r} is finer than 2**-52: the entries "
            "of the second moment (|A_ij| ≤ 1) would not all fit the grid's "
            "integers; choose granularity >= 2**-52"
        )
    return g


def check_laplace_drawable(scale: float, granularity: float, what: str):
    """Refuse a safe Laplace release whose scale the exact sampler cannot
    draw: ``scale/γ`` grid units must be an integer in [1,
    ``noise.MAX_LAPLACE_GRID_SCALE``]
    (:func:`~dppca.privacy.noise.add_laplace`)."""
    units = Fraction(float(scale)) / Fraction(float(granularity))
    if not (1 <= units <= noise.MAX_LAPLACE_GRID_SCALE):
        raise ValueError(
            f"safe Laplace noise for {what} would need a scale of "
            f"{float(units):.3g} grid units on the grid γ = "
            f"{float(granularity):.3g}, outside the exact sampler's [1, 2**40]:"
            " choose another granularity (or a larger epsilon); refused "
            "before any draw (and, in an estimator, before any charge)"
        )


def gaussian_grid_sigma(
    sigma: float, granularity: float, factor: int = 1
) -> int:
    """The σ, in grid units, with which the exact sampler draws noise of
    variance ``factor·(σ/γ)²`` grid units
    (:func:`~dppca.privacy.noise.add_gaussian`,
    :func:`~dppca.privacy.noise.perturb_symmetric_goe` with ``factor`` 4 on
    the diagonal of ``G + Gᵀ``): ``t = ⌈√variance⌉`` of
    :func:`~dppca.privacy.noise.discrete_gaussian_parameters`, computed
    exactly. The one arithmetic every drawability check shares."""
    variance = (
        int(factor)
        * (Fraction(float(sigma)) / Fraction(float(granularity))) ** 2
    )
    return noise.split_variance(variance)[0]


def gaussian_drawable(
    sigma: float, granularity: float, factor: int = 1
) -> bool:
    """Whether the exact sampler can draw safe Gaussian noise of scale
    ``sigma`` on the grid ``granularity`` (σ of at most
    ``noise.MAX_GAUSSIAN_GRID_SIGMA`` grid units; a zero or negative σ cannot be
    drawn)."""
    try:
        return (
            gaussian_grid_sigma(sigma, granularity, factor)
            <= noise.MAX_GAUSSIAN_GRID_SIGMA
        )
    except ValueError:  # a variance of zero
        return False


def check_gaussian_drawable(
    sigma: float, granularity: float, factor: int = 1, what: str = "its noise"
) -> None:
    """Refuse a safe Gaussian release whose noise the exact sampler cannot
    draw: variance ``factor·(σ/γ)²`` grid units (the arithmetic of
    :func:`~dppca.privacy.noise.add_gaussian` and
    :func:`~dppca.privacy.noise.perturb_symmetric_goe`, ``factor`` 4 for the
    diagonal of ``G + Gᵀ``) with σ beyond ``noise.MAX_GAUSSIAN_GRID_SIGMA``.

    The guarantee builders of the safe Gaussian mechanisms call it, and a
    plan builds the guarantee record before any charge: a budget whose noise
    cannot be drawn is refused then, from public values only, instead of
    being charged and refused by the sampler (issue: the band
    ε ≈ 10⁻¹², δ ≈ 5×10⁻⁸ of the red team of round 4)."""
    t = gaussian_grid_sigma(sigma, granularity, factor)
    if t > noise.MAX_GAUSSIAN_GRID_SIGMA:
        grid = float(granularity)
        raise ValueError(
            f"the budget is too small for safe noise: {what} needs a "
            f"discrete Gaussian of σ ≈ {t:.3g} grid units (grid γ = "
            f"{grid:.3g}), beyond the exact sampler's 2**26; refused before "
            "any draw (and, in an estimator, before any charge)"
        )


__all__ = [
    "MIN_MOMENT_GRANULARITY",
    "check_gaussian_drawable",
    "check_laplace_drawable",
    "check_moment_granularity",
    "gaussian_drawable",
    "gaussian_grid_sigma",
]
