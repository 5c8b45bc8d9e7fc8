"""The complex Gaussian mechanism for rank-k covariance approximation
(Mangoubi and Vishnoi 2023, arXiv 2306.16648, "Private covariance
approximation and eigenvalue-gap bounds for complex Gaussian perturbations").

Source. The abstract of the paper specifies the mechanism as a complex variant
of the Gaussian mechanism of ``dppca.mechanisms.gaussian_approx``: perturb the
covariance with Hermitian complex Gaussian noise and return the rank-k
approximation built from the top-k eigenvectors of the noisy matrix. The
normalisation of the noise and the real output below are this module's choices
(derived in chapter 16 of the book), made so that the real part of the noise is
exactly chapter 5's ``G + G^T``.

Mechanism. ``A = X^T X / n`` for ``n`` rows of norm at most one. Draw ``G``
(``d x d``) with i.i.d. complex entries ``a + i b``, ``a, b ~ N(0, s^2)``
independent, and form the Hermitian matrix ``A^ = A + Z``, ``Z = G + G^*``.
Diagonalise ``A^ = U^ diag(g^) U^*`` (eigenvalues descending) and form the
Hermitian rank-k matrix ``H^ = U^_k diag(g^_1..k) U^_k^*`` (the noisy
eigenvalues, post-processing; the true ones would leak). The release is
``output``:

* ``"real"`` (default): ``Re H^``, real symmetric, of rank at most ``2k``;
  since ``A_k`` is real, ``||H^ - A_k||_F^2 = ||Re H^ - A_k||_F^2 +
  ||Im H^||_F^2``: the real part is never further from ``A_k`` than ``H^``;
* ``"hermitian"``: ``H^`` itself (complex);
* ``"rank_k"``: the top-k eigen-truncation of ``Re H^``, real of rank ``k``
  (error at most twice that of ``Re H^`` when the top-k noisy eigenvalues are
  non-negative, by Eckart–Young).

Noise law. ``Z_jj = 2 a_jj ~ N(0, 4 s^2)`` (real); for ``j < l``, ``Re Z_jl =
a_jl + a_lj`` and ``Im Z_jl = b_jl - b_lj`` are independent ``N(0, 2 s^2)``.
The density on Hermitian matrices is proportional to ``exp(-||Z||_F^2 / (8
s^2))``: ``Z`` is a GUE matrix (invariant under ``Z -> W Z W^*`` for unitary
``W``), and its real part ``G_re + G_re^T`` has the GOE law of chapter 5.

Calibration (real vectorisation). Write a Hermitian ``H`` as the real vector
``vec(H) = (H_jj; sqrt(2) Re H_jl; sqrt(2) Im H_jl)_{j < l}`` of length
``d^2``, an isometry: ``||vec(H)|| = ||H||_F``. Then ``vec(Z) ~ N(0, 4 s^2
I)``: isotropic, with standard deviation ``2 s``. Neighbours change ``A`` by a
REAL symmetric ``D = (v v^T - w w^T) / n``, so ``vec(D)`` has zero imaginary
block and ``||vec(D)|| = ||D||_F <= sqrt(2) / n`` (equality for orthogonal
unit rows). Releasing ``A^`` is therefore the Gaussian mechanism on ``R^{d^2}``
with l2-sensitivity ``sqrt(2) / n`` and noise ``2 s``, i.e. sensitivity
``sqrt(2) / (2 n)`` in units of ``s``. Unscaled, the Mahalanobis distance is
``sqrt(sum D_jj^2 / (4 s^2) + sum_{j<l} (Re D_jl^2 + Im D_jl^2) / (2 s^2)) =
||D||_F / (2 s)``: the same as for chapter 5's ``G + G^T``. The imaginary
parts are independent of the data, so they cost no privacy (and carry no
information): ``s`` is the analytic Gaussian calibration (Balle and Wang
2018) of sensitivity ``sqrt(2) / (2 n)``, identical to
``dppca.mechanisms.gaussian_approx.noise_sigma`` with
``relation="replace_one"``.

Noise kinds (``dppca.privacy.noise``). ``noise="float"`` adds float64 noise:
private
as mathematics only. ``noise="safe"`` (the default) rounds ``A`` to a grid of
granularity ``gamma`` (a power of two) and adds exact discrete Gaussians with
the variances of ``Z``: ``4 (s/gamma)^2`` on the diagonal and ``2
(s/gamma)^2`` for each real and each imaginary part off it. The real part is
exactly ``dppca.privacy.noise.perturb_symmetric_goe``; the imaginary part is
data
independent. In grid units the rounded real part moves by at most ``||D||_F /
gamma + d`` (each of the ``d^2`` entries by at most one more unit) and the
imaginary part not at all, so the release is ``rho``-zCDP with ``rho = (||D||_F
/ 2 + gamma d / 2)^2 / (2 s^2)`` (Canonne, Kamath and Steinke 2020), the
guarantee of the safe path of ``dppca.mechanisms.gaussian_approx``.

Preconditions. The ``*_from_second_moment`` entry point checks ``A`` and ``n``
with ``dppca.validation.check_second_moment`` (real, symmetric, finite,
positive semidefinite, trace at most one, ``n`` a positive integer) and ``k``
with ``dppca.validation.check_k``; the caller vouches that ``A`` is
``X^T X / n`` of the ``n`` rows, each of norm at most one, of the data set.

Utility. The paper's bound and the book's predictions and bounds for this
mechanism are in ``dppca.book.bounds.complex_gaussian``; chapter 16's Monte
Carlo and random-matrix diagnostics in
``dppca.book.diagnostics.complex_gaussian``.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np

from ..float_state import owns_float_state
from ..linalg.dense import top_k_subspace
from ..linalg.moments import unit_rows_second_moment
from ..privacy.guarantees import Release, Released, released
from ..privacy.noise import (
    _strict_upper,
    check_granularity,
    check_noise_kind,
    default_granularity,
    discrete_gaussian,
    perturb_symmetric_goe,
)
from ..privacy.sensitivity import frobenius_sensitivity_second_moment
from ..validation import (
    as_generator,
    check_choice,
    check_hermitian,
    check_k,
    check_n,
    check_positive,
    check_second_moment,
    check_symmetric,
)
from . import gaussian_approx
from .spec import MechanismSpec, select

#: Privacy notion of each mechanism of this module.
PRIVACY = {
    "complex_gaussian_approximation": "(ε, δ)-DP, replace-one on XᵀX/n: "
    "A + Z with Hermitian (GUE) noise is the Gaussian mechanism of chapter 5 "
    "plus data-independent imaginary noise; the rank-k output and the noisy "
    "spectrum are post-processing",
}

#: What the mechanism can return (module docstring).
OUTPUTS = ("real", "hermitian", "rank_k")


#: ``E|dZ_ij|^2 / dt`` off the diagonal (real 2, imaginary 2).
COMPLEX_OFF_DIAGONAL_VARIANCE_RATE = 4.0

#: Theorem the records cite.
THEOREM = "[MV23] complex Gaussian mechanism; privacy lemma of chapter 16"


# ------------------------------------------------------------------------------
# Calibration
# ------------------------------------------------------------------------------


def vectorise_hermitian(H) -> np.ndarray:
    """The isometric real vector of a Hermitian ``H`` (module docstring):
    ``(H_jj; sqrt(2) Re H_jl; sqrt(2) Im H_jl)`` for ``j < l``, length
    ``d^2``, with ``||vec(H)||_2 = ||H||_F``. A real symmetric ``H`` has a zero
    imaginary block."""
    H = check_hermitian(H)
    iu = np.triu_indices(H.shape[0], 1)
    upper = H[iu]
    return np.concatenate(
        [
            np.diagonal(H).real,
            np.sqrt(2.0) * upper.real,
            np.sqrt(2.0) * upper.imag,
        ]
    )


def frobenius_sensitivity(n: int) -> float:
    """Largest ``||vec(A) - vec(A')||_2 = ||A - A'||_F`` over replace-one
    neighbours of ``A = X^T X / n`` (rows of norm at most one): ``sqrt(2) /
    n``, attained by orthogonal unit rows. The imaginary block of the
    difference is zero (module docstring)."""
    return frobenius_sensitivity_second_moment(check_n(n))


def mahalanobis_distance(D, sigma: float) -> float:
    """Distance between the laws of ``M + Z`` and ``M + D + Z``, ``Z = G +
    G^*``, coordinate by coordinate.

    ``D`` Hermitian (real symmetric for neighbouring data sets). Whitens the
    diagonal by ``2 sigma`` and each real and imaginary part above it by
    ``sqrt(2) sigma``. Equals ``||D||_F / (2 sigma)``.
    """
    D = check_hermitian(D, name="D")
    sigma = check_positive(sigma, "sigma")
    iu = np.triu_indices(D.shape[0], 1)
    diagonal = np.diagonal(D).real / (2.0 * sigma)
    real = D[iu].real / (np.sqrt(2.0) * sigma)
    imaginary = D[iu].imag / (np.sqrt(2.0) * sigma)
    return float(
        np.sqrt(diagonal @ diagonal + real @ real + imaginary @ imaginary)
    )


def noise_sigma(epsilon: float, delta: float, n: int) -> float:
    """Smallest ``s`` (real and imaginary parts of ``G``) making ``A + G +
    G^*`` (ε, δ)-DP under replace-one: chapter 5's calibration of ``G +
    Gᵀ`` (``dppca.mechanisms.gaussian_approx.noise_sigma``, sensitivity
    ``frobenius_sensitivity(n) / 2``), since the imaginary noise is data
    independent (module docstring)."""
    return gaussian_approx.noise_sigma(
        epsilon, delta, "replace_one", check_n(n)
    )


def safe_noise_sigma(
    epsilon: float,
    delta: float,
    d: int,
    n: int,
    granularity: float | None = None,
) -> tuple[float, float]:
    """``(s, gamma)`` of the floating-point-safe release: the real part is
    chapter 5's safe ``G + Gᵀ``
    (``dppca.mechanisms.gaussian_approx.safe_noise_sigma``),
    the imaginary part is data independent."""
    return gaussian_approx.safe_noise_sigma(
        epsilon, delta, d, "replace_one", check_n(n), granularity
    )


def _calibrated_sigma(epsilon, delta, d, n, noise, granularity):
    if check_noise_kind(noise) == "safe":
        return safe_noise_sigma(epsilon, delta, d, n, granularity)
    return noise_sigma(epsilon, delta, n), None


def complex_gaussian_guarantee(
    n: int,
    d: int,
    k: int,
    epsilon: float,
    delta: float,
    *,
    noise: str = "safe",
    granularity: float | None = None,
) -> Release:
    """Guarantee record of the complex Gaussian mechanism (module docstring):
    chapter 5's record of ``G + Gᵀ`` under replace-one
    (``dppca.mechanisms.gaussian_approx.gaussian_approx_guarantee``; float
    noise: the
    Gaussian mechanism of sensitivity ``sqrt(2)/(2n)``, safe noise: ρ-zCDP
    for the grid actually used), with this mechanism's label, theorem and
    chapter. ``k`` is checked (``1 <= k < d``) but does not enter: the
    rank-k output is post-processing.
    """
    n = check_n(n)
    check_k(k, d)
    record = gaussian_approx.gaussian_approx_guarantee(
        epsilon,
        delta,
        d,
        "replace_one",
        n,
        noise=noise,
        granularity=granularity,
        label="Complex Gaussian (Mangoubi–Vishnoi 2023)",
    )
    return dataclasses.replace(record, theorem=THEOREM, chapter="chapter 16")


# ------------------------------------------------------------------------------
# Noise and the mechanism
# ------------------------------------------------------------------------------


def gue_noise(d: int, sigma: float, rng=None, batch: tuple = ()) -> np.ndarray:
    """``Z = G + G^*`` with ``G`` a ``d x d`` matrix of i.i.d. complex
    entries whose real and imaginary parts are independent ``N(0, sigma^2)``.

    Shape ``(*batch, d, d)``. ``Z_jj ~ N(0, 4 sigma^2)`` real; ``Re Z_jl`` and
    ``Im Z_jl`` (``j < l``) independent ``N(0, 2 sigma^2)``; ``Re Z`` has the
    law of ``dppca.mechanisms.gaussian_approx.goe_noise``.
    """
    if int(d) < 2:
        raise ValueError(f"d must be at least 2; got {d!r}")
    sigma = check_positive(sigma, "sigma")
    rng = as_generator(rng)
    shape = (*tuple(batch), int(d), int(d))
    G = (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)) * sigma
    return G + np.conj(np.swapaxes(G, -1, -2))


def _safe_imaginary(d, sigma, g, rng) -> np.ndarray:
    """Antisymmetric real matrix on the grid ``g``: exact discrete Gaussians
    of variance ``2 (sigma/g)^2`` above the diagonal, zero on it."""
    base = (Fraction(float(sigma)) / Fraction(g)) ** 2
    iu = _strict_upper(d)
    z = discrete_gaussian(2 * base, iu[0].size, rng)
    out = np.zeros((d, d))
    out[iu] = z.astype(float) * g  # |z| < 2**53 and g a power of two: exact
    out[(iu[1], iu[0])] = -out[iu]
    return out


@owns_float_state
def perturb_hermitian(
    A, sigma: float, rng=None, noise: str = "safe", granularity=None
) -> np.ndarray:
    """``A + Z`` (complex Hermitian) for a real symmetric ``A``.

    ``noise="float"``: ``gue_noise``. ``noise="safe"``: real part
    ``dppca.privacy.noise.perturb_symmetric_goe`` (``A`` on the grid plus exact
    discrete noise of variances ``4 (s/gamma)^2`` and ``2 (s/gamma)^2``),
    imaginary part exact discrete Gaussians of variance ``2 (s/gamma)^2`` on
    the grid, antisymmetric. Default grid
    ``dppca.privacy.noise.default_granularity``.
    """
    A = check_symmetric(A, name="A")
    sigma = check_positive(sigma, "sigma")
    rng = as_generator(rng)
    if check_noise_kind(noise) == "float":
        return A + gue_noise(A.shape[0], sigma, rng)
    g = check_granularity(
        default_granularity(sigma) if granularity is None else granularity
    )
    real = perturb_symmetric_goe(A, sigma, rng=rng, granularity=g)
    return real + 1j * _safe_imaginary(A.shape[0], sigma, g, rng)


def rank_k_output(values, vectors, k: int, output: str = "real"):
    """The release built from an eigen-decomposition of the noisy matrix
    (values descending, vectors as columns): ``H^ = U_k diag(values_k)
    U_k^*`` and then ``output`` (module docstring). Batched over leading
    axes."""
    check_choice(output, OUTPUTS, "output")
    U = vectors[..., :k]
    H = (U * values[..., None, :k]) @ np.conj(np.swapaxes(U, -1, -2))
    if output == "hermitian":
        return H
    R = H.real
    R = (R + np.swapaxes(R, -1, -2)) / 2.0
    if output == "real":
        return R
    w, V = np.linalg.eigh(R)
    V, w = V[..., ::-1][..., :k], w[..., ::-1][..., :k]
    return (V * w[..., None, :]) @ np.swapaxes(V, -1, -2)


@owns_float_state
def complex_gaussian_approximation_from_second_moment(
    A,
    n: int,
    k: int,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    noise: str = "safe",
    granularity: float | None = None,
    output: str = "real",
    return_spectrum: bool = False,
):
    """Private rank-k approximation of ``A = X^T X / n`` by the complex
    Gaussian mechanism (replace-one; module docstring).

    Releases ``output`` of ``H^ = U^_k diag(g^_1..k) U^_k^*``, from the top-k
    eigenpairs of ``A + Z``: ``"real"`` (``Re H^``, default), ``"hermitian"``
    or ``"rank_k"``. ``return_spectrum=True`` also returns all ``d`` noisy
    eigenvalues, descending (post-processing, no extra budget).

    ``A`` and ``n`` are checked by ``dppca.validation.check_second_moment``
    and ``k`` by ``dppca.validation.check_k``; the caller vouches that
    ``A`` is ``X^T X / n`` of the ``n`` rows (each of norm at most one) of the
    data set and that ``n`` is its true number of rows.
    """
    A, n = check_second_moment(A, n)
    d = A.shape[0]
    k = check_k(k, d)
    check_choice(output, OUTPUTS, "output")
    sigma, gamma = _calibrated_sigma(epsilon, delta, d, n, noise, granularity)
    record = complex_gaussian_guarantee(
        n, d, k, epsilon, delta, noise=noise, granularity=granularity
    )
    noisy = perturb_hermitian(A, sigma, rng, noise, gamma)
    values, vectors = np.linalg.eigh(noisy)
    values, vectors = values[::-1], vectors[:, ::-1]
    H = released(rank_k_output(values, vectors, k, output), record)
    return (H, Released(values, record)) if return_spectrum else H


@owns_float_state
def complex_gaussian_approximation(
    X,
    k: int,
    *,
    epsilon: float,
    delta: float,
    rng=None,
    noise: str = "safe",
    output: str = "real",
):
    """Private rank-k approximation of ``A = X^T X / n`` from the ``n x d``
    rows ``X`` (each of norm at most one, checked; dense or ``scipy.sparse``)
    by the complex Gaussian mechanism; see
    ``complex_gaussian_approximation_from_second_moment``."""
    A = unit_rows_second_moment(X)
    return complex_gaussian_approximation_from_second_moment(
        A,
        np.shape(X)[0],
        k,
        epsilon=epsilon,
        delta=delta,
        rng=rng,
        noise=noise,
        output=output,
    )


def privacy_loss(output, M, M_prime, sigma: float) -> np.ndarray:
    """Privacy loss ``log p(Y | M) - log p(Y | M')`` of the release ``Y = M +
    Z`` (complex Hermitian, leading axes a batch), from the density
    ``exp(-||Z||_F^2 / (8 sigma^2))``."""
    output = np.asarray(output, dtype=complex)
    to_m = np.sum(np.abs(output - M) ** 2, axis=(-2, -1))
    to_m_prime = np.sum(np.abs(output - M_prime) ** 2, axis=(-2, -1))
    return (to_m_prime - to_m) / (8.0 * check_positive(sigma, "sigma") ** 2)


# ------------------------------------------------------------------------------
# The declaration: the complex Gaussian mechanism, once
# ------------------------------------------------------------------------------


def _run(A, n, k, epsilon, delta, rng, options):
    H, spectrum = complex_gaussian_approximation_from_second_moment(
        A,
        n,
        k,
        epsilon=epsilon,
        delta=delta,
        rng=rng,
        output="real",
        return_spectrum=True,
        **options,
    )
    # post-processing: the top-k axes of the released real matrix Re H^, and
    # the spectrum of the noisy Hermitian matrix
    spectrum = np.asarray(spectrum)
    V = top_k_subspace(np.asarray(H), k)
    return V, spectrum[:k], float(spectrum[spectrum > 0].sum())


def _guarantee(n, d, k, epsilon, delta, options):
    return complex_gaussian_guarantee(
        n, d, k, epsilon, delta, **select(options, "noise", "granularity")
    )


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="complex_gaussian",
        person_level=(
            "complex Gaussian noise on A: Frobenius sensitivity of "
            "the change of A"
        ),
        label="complex Gaussian",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run=_run,
        guarantee=_guarantee,
        privacy=PRIVACY["complex_gaussian_approximation"],
        options_of=complex_gaussian_approximation_from_second_moment,
        additive_noise=True,
        releases_spectrum=True,
        guide_rank=40,
        proof="yes (Mangoubi–Vishnoi 2023)",
    ),
)


__all__ = [
    "SPECS",
    "PRIVACY",
    "OUTPUTS",
    "COMPLEX_OFF_DIAGONAL_VARIANCE_RATE",
    "vectorise_hermitian",
    "frobenius_sensitivity",
    "mahalanobis_distance",
    "noise_sigma",
    "safe_noise_sigma",
    "complex_gaussian_guarantee",
    "gue_noise",
    "perturb_hermitian",
    "rank_k_output",
    "complex_gaussian_approximation_from_second_moment",
    "complex_gaussian_approximation",
    "privacy_loss",
]
