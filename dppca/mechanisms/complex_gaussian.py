"""The complex Gaussian mechanism for rank-k covariance approximation
(Mangoubi and Vishnoi 2023, arXiv 2306.16648, "Private covariance
approximation and eigenvalue-gap bounds for complex Gaussian perturbations").

Source. The abstract of the paper specifies the mechanism as a complex variant
of the Gaussian mechanism of ``dppca.mechanisms.gaussian_approx``: perturb the
covariance with Hermitian complex Gaussian noise and return the rank-k
approximation built from the top-k eigenvectors of the noisy matrix. The
normalisation of the noise and the real output below are this module's choices
(derived in the book's chapter 16), made so that the real part of the noise is
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

Utility. The paper's bound (abstract): roughly ``O~(sqrt(k d))`` whenever
``sigma_k - sigma_{k+1}`` is appropriately large, where the real analysis of
chapter 5 needs every gap ``sigma_i - sigma_{i+1}``, ``i <= k``, to be at
least ``O~(sqrt(d))``. ``mv23_covariance_rate`` returns its shape with
constants and logarithms set to one. ``rank_k_error_prediction`` is the
leading-order mean squared error (Itô/first-order perturbation, no free
constant) and ``davis_kahan_error_bound`` a deterministic bound, checkable
on every draw, that needs only the k-th gap.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import numpy as np

from ..float_state import owns_float_state
from ..linalg.dense import top_k_subspace
from ..linalg.moments import second_moment, unit_rows_second_moment
from ..privacy.guarantees import Release, Released, released
from ..privacy.noise import (
    check_granularity,
    check_noise_kind,
    default_granularity,
    discrete_gaussian,
    perturb_symmetric_goe,
)
from ..privacy.sensitivity import frobenius_sensitivity_second_moment
from ..samplers.dyson import EigenvalueDrift
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
from .gaussian_approx import sum_of_squares_prediction
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

#: Fields of the noise in the Monte Carlo helpers: GUE or chapter 5's GOE.
FIELDS = ("complex", "real")

#: Dyson's eigenvalue drift ``sum_j c / (gamma_i - gamma_j)`` for complex
#: noise: ``c = E|dZ_ij|^2 / dt = 4`` (twice the real ``c = 2``; beta = 2).
COMPLEX_EIGENVALUE_DRIFT = 4.0

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
    iu = np.triu_indices(d, 1)
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
        epsilon,
        delta,
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


def directional_delta(noise_samples, difference, epsilon, level=0.999):
    """Audit of a Hermitian noise sampler on one neighbouring pair.

    ``noise_samples`` (batch × d × d) are draws of the noise ``Z``;
    ``difference`` is ``A − A′`` (real symmetric). Every Gaussian noise law
    acts on the pair through the variance ``v`` of ``t = ⟨Z, D⟩/‖D‖_F`` (real
    Frobenius inner product): the release's likelihood ratio on the pair is
    that of one coordinate. Returns ``(δ, δ_low, δ_high)``: the tight δ at
    ``epsilon`` of the Gaussian mechanism with noise ``√v`` and shift
    ``‖D‖_F``, at the estimated ``v`` and at the ends of its ``level``
    chi-square interval (a smaller variance gives a larger δ). A sampler
    with the calibrated law gives ``v = 4 s²`` along every direction.
    """
    from scipy import stats

    from ..privacy.calibration import analytic_gaussian_delta

    Z = np.asarray(noise_samples)
    D = np.asarray(difference, dtype=float)
    norm = float(np.linalg.norm(D))
    t = np.real(np.einsum("bjl,jl->b", Z, D)) / norm
    m = t.size
    v = float(np.mean(t * t))  # the noise has mean zero
    lo, hi = stats.chi2.ppf([(1 - level) / 2, (1 + level) / 2], m)
    v_low, v_high = v * m / hi, v * m / lo
    return tuple(
        analytic_gaussian_delta(math.sqrt(x), norm, epsilon)
        for x in (v, v_high, v_low)
    )


# ------------------------------------------------------------------------------
# Utility: Monte Carlo, leading-order prediction, bounds
# ------------------------------------------------------------------------------


def rank_k_errors(
    M,
    k: int,
    noise_sigma: float,
    n_trials: int,
    rng=None,
    field: str = "complex",
    output: str = "real",
    *,
    batch_size: int = 128,
    return_noise: bool = False,
):
    """Monte Carlo draws of ``||release - M_k||_F`` at a given noise level.

    ``M_k`` is the best rank-k approximation of ``M`` (top-k eigenpairs). The
    release is built as by the mechanism with float noise: ``field="complex"``
    adds ``gue_noise`` and applies ``output``; ``field="real"`` adds
    chapter 5's ``G + G^T`` and returns ``U^_k diag(g^_1..k) U^_k^T`` (as
    ``dppca.mechanisms.gaussian_approx.rank_k_covariance_approximation``;
    ``output``
    must then be ``"real"``). With ``return_noise`` also returns, per draw,
    ``||Z||_2`` and ``||Z P_k||_F`` (``P_k`` the top-k eigenprojector of
    ``M``), the inputs of ``davis_kahan_error_bound``.
    """
    M = check_symmetric(M)
    d = M.shape[0]
    k = check_k(k, d)
    field, output = (
        check_choice(field, FIELDS, "field"),
        check_choice(output, OUTPUTS, "output"),
    )
    if field == "real" and output != "real":
        raise ValueError("real noise gives a real release: use output='real'")
    noise_sigma = check_positive(noise_sigma, "noise_sigma")
    n_trials = check_n(n_trials)
    batch_size = check_n(batch_size)
    rng = as_generator(rng)
    w, V = np.linalg.eigh(M)
    w, V = w[::-1], V[:, ::-1]
    target = (V[:, :k] * w[:k]) @ V[:, :k].T
    errors, norms, top = [], [], []
    for start in range(0, n_trials, batch_size):
        m = min(batch_size, n_trials - start)
        if field == "complex":
            Z = gue_noise(d, noise_sigma, rng, batch=(m,))
        else:
            G = rng.standard_normal((m, d, d)) * noise_sigma
            Z = G + np.swapaxes(G, -1, -2)
        values, vectors = np.linalg.eigh(M + Z)
        release = rank_k_output(
            values[..., ::-1], vectors[..., ::-1], k, output
        )
        errors.append(np.linalg.norm(release - target, axis=(-2, -1)))
        if return_noise:
            norms.append(np.abs(np.linalg.eigvalsh(Z)).max(axis=-1))
            top.append(np.linalg.norm(Z @ V[:, :k], axis=(-2, -1)))
    errors = np.concatenate(errors)
    if return_noise:
        return errors, np.concatenate(norms), np.concatenate(top)
    return errors


def rank_k_error_prediction(
    sigmas,
    k: int,
    noise_sigma: float,
    field: str = "complex",
    output: str = "real",
) -> float:
    """Leading-order ``E||release - M_k||_F^2`` of the rank-k release with
    noisy eigenvalues, for a spectrum ``sigmas`` (non-increasing).

    First-order perturbation (Itô's lemma at frozen gaps, as in chapter 5):
    with target ``lambda = (sigma_1..k, 0, ...)`` the eigenvector part is
    ``sum_{i != j} E|Z~_ij|^2 ((lambda_i - lambda_j)/(sigma_i - sigma_j))^2``
    and the eigenvalue part ``sum_{i <= k} E Z~_ii^2 = 4 k s^2``, orthogonal to
    it. ``E|Z~_ij|^2 = 2 s^2`` for real noise and for the real part of the
    complex release (the first-order error of ``Re H^`` is built from ``Re
    Z~`` only), ``4 s^2`` for the Hermitian output. Exact as ``s -> 0``; no
    free constant.
    """
    check_choice(field, FIELDS, "field")
    check_choice(output, OUTPUTS, "output")
    sigmas = np.asarray(sigmas, dtype=float)
    if sigmas.ndim != 1 or np.any(np.diff(sigmas) > 0):
        raise ValueError("sigmas must be a non-increasing vector")
    k = check_k(k, sigmas.size)
    s = check_positive(noise_sigma, "noise_sigma")
    lambdas = np.where(np.arange(sigmas.size) < k, sigmas, 0.0)
    pairs = sum_of_squares_prediction(sigmas, lambdas, s)  # 2 s^2 sum_{i!=j}
    factor = 2.0 if (field == "complex" and output == "hermitian") else 1.0
    return float(4.0 * k * s**2 + factor * pairs)


def mv23_gap_condition(sigmas, k: int, noise_sigma: float, c: float = 1.0):
    """The gap assumption of [MV23] as this module reads it: only
    ``sigma_k - sigma_{k+1} >= c sqrt(d) noise_sigma`` (the abstract's
    "appropriately large gap"; constant and logarithms unknown, ``c``
    free). Compare
    ``dppca.book.bounds.gaussian_approx.mv_gap_assumption_holds``,
    which needs every gap ``i <= k``."""
    sigmas = np.asarray(sigmas, dtype=float)
    k = check_k(k, sigmas.size)
    gap = sigmas[k - 1] - sigmas[k]
    return bool(
        gap
        >= c * np.sqrt(sigmas.size) * check_positive(noise_sigma, "noise_sigma")
    )


def mv23_covariance_rate(sigmas, k: int, noise_sigma: float) -> float:
    """Shape of the utility bound of [MV23] for rank-k covariance
    approximation, ``sqrt(k d) sigma_k / (sigma_k - sigma_{k+1})`` times the
    noise, constant and logarithms set to one.

    The abstract states "roughly O~(sqrt(k d))" under a large k-th gap; the
    factor ``sigma_k / (sigma_k - sigma_{k+1})`` (about one when
    ``sigma_{k+1} << sigma_k``) is the book's reading, the same as in the
    2022 corollary
    (``dppca.book.bounds.gaussian_approx.mv_covariance_corollary``).
    """
    sigmas = np.asarray(sigmas, dtype=float)
    k = check_k(k, sigmas.size)
    gap = sigmas[k - 1] - sigmas[k]
    if not gap > 0:
        raise ValueError("the bound needs sigma_k > sigma_{k+1}")
    return float(
        np.sqrt(k * sigmas.size)
        * sigmas[k - 1]
        / gap
        * check_positive(noise_sigma, "noise_sigma")
    )


def davis_kahan_error_bound(
    sigmas, k: int, noise_norm, top_k_noise
) -> np.ndarray:
    """A deterministic bound on ``||H^ - M_k||_F`` (hence on the real
    output), for any Hermitian noise ``Z`` with ``||Z||_2 = noise_norm`` and
    ``||Z P_k||_F = top_k_noise``; needs only the k-th gap ``g = sigma_k -
    sigma_{k+1} > ||Z||_2``:

        ||H^ - M_k||_F <= sqrt(k) ||Z||_2
                          + 3 sqrt(2) max|sigma| ||Z P_k||_F / (g - ||Z||_2).

    Proof (chapter 16): ``H^ = P^ (M + Z) P^`` and ``M_k = P M P`` with
    ``P^``, ``P`` the top-k eigenprojectors. With ``Q = P^ - P``, ``H^ - M_k =
    P^ Z P^ + Q M P + P M Q + Q M Q``; ``||P^ Z P^||_F <= sqrt(k) ||Z||_2``
    (rank k), ``||Q||_2 <= 1`` and ``||Q||_F = sqrt(2) ||sin Theta||_F <=
    sqrt(2) ||Z P||_F / (g - ||Z||_2)`` by the Davis–Kahan sin Theta theorem
    (Weyl: ``sigma^_{k+1} <= sigma_{k+1} + ||Z||_2``). Returns ``inf`` where
    ``g <= ||Z||_2``. Vectorised over the noise arrays.
    """
    sigmas = np.asarray(sigmas, dtype=float)
    k = check_k(k, sigmas.size)
    gap = sigmas[k - 1] - sigmas[k]
    E = np.asarray(noise_norm, dtype=float)
    F = np.asarray(top_k_noise, dtype=float)
    scale = np.abs(sigmas).max()
    with np.errstate(divide="ignore", invalid="ignore"):
        bound = np.sqrt(k) * E + 3.0 * np.sqrt(2.0) * scale * F / (gap - E)
    return np.where(gap > E, bound, np.inf)


def typical_noise_norms(
    d: int, k: int, noise_sigma: float, field: str = "complex"
):
    """Typical values of the inputs of ``davis_kahan_error_bound``:
    the semicircle edge ``2 sqrt(d E|Z_ij|^2)`` for ``||Z||_2`` (``4 s
    sqrt(d)`` complex, ``2 sqrt(2 d) s`` real) and ``sqrt(E||Z P_k||_F^2)``
    (``2 s sqrt(k d)`` complex, ``s sqrt(2 k (d + 1))`` real)."""
    field = check_choice(field, FIELDS, "field")
    s = check_positive(noise_sigma, "noise_sigma")
    if field == "complex":
        return 4.0 * s * np.sqrt(d), 2.0 * s * np.sqrt(k * d)
    return 2.0 * s * np.sqrt(2.0 * d), s * np.sqrt(2.0 * k * (d + 1))


# ------------------------------------------------------------------------------
# Complex Dyson Brownian motion (beta = 2) and level spacings
# ------------------------------------------------------------------------------


def complex_eigenvalue_drift(gamma) -> np.ndarray:
    """Dyson's eigenvalue drift rate for complex noise, ``4 sum_{j != i} 1 /
    (gamma_i - gamma_j)``: second-order perturbation gives ``sum_j
    |dZ~_ij|^2 / (gamma_i - gamma_j)`` and ``E|dZ~_ij|^2 = 4 dt`` (real
    noise: ``2 dt``, ``dppca.samplers.dyson.eigenvalue_drift``)."""
    gamma = np.asarray(gamma, dtype=float)
    return COMPLEX_EIGENVALUE_DRIFT * EigenvalueDrift(gamma.size)(gamma)


def semicircle_radius(d: int, sigma: float, field: str = "complex") -> float:
    """Edge ``2 sqrt(d E|Z_ij|^2)`` of the semicircle of the noise: ``4 sigma
    sqrt(d)`` for ``gue_noise``, ``2 sqrt(2 d) sigma`` for ``G + G^T``."""
    rate = 4.0 if check_choice(field, FIELDS, "field") == "complex" else 2.0
    return float(2.0 * np.sqrt(rate * d) * check_positive(sigma, "sigma"))


def unfolded_spacings(eigenvalues, radius: float, bulk: float = 0.5):
    """Nearest-neighbour spacings of sorted eigenvalues (last axis), unfolded
    by the semicircle density of radius ``radius`` (mean spacing one in the
    bulk), keeping the central fraction ``bulk`` of them."""
    ev = np.sort(np.asarray(eigenvalues, dtype=float), axis=-1)
    if not 0 < bulk <= 1:
        raise ValueError(f"bulk must lie in (0, 1]; got {bulk!r}")
    d = ev.shape[-1]
    mid = 0.5 * (ev[..., 1:] + ev[..., :-1])
    density = (
        d
        * 2.0
        / (np.pi * radius**2)
        * np.sqrt(np.clip(radius**2 - mid**2, 0.0, None))
    )
    spacings = np.diff(ev, axis=-1) * density
    m = spacings.shape[-1]
    drop = int(round(m * (1 - bulk) / 2))
    return spacings[..., drop : m - drop].ravel()


def wigner_surmise(s, beta: int) -> np.ndarray:
    """Wigner's surmise for the density of unfolded spacings: ``(pi/2) s
    exp(-pi s^2/4)`` (``beta = 1``) and ``(32/pi^2) s^2 exp(-4 s^2/pi)``
    (``beta = 2``); near zero ``~ s^beta``."""
    s = np.asarray(s, dtype=float)
    if beta == 1:
        return np.pi / 2 * s * np.exp(-np.pi * s**2 / 4)
    if beta == 2:
        return 32 / np.pi**2 * s**2 * np.exp(-4 * s**2 / np.pi)
    raise ValueError(f"beta must be 1 or 2; got {beta!r}")


def wigner_surmise_cdf(s, beta: int) -> np.ndarray:
    """CDF of ``wigner_surmise``: ``1 - exp(-pi s^2/4)`` (``beta = 1``),
    ``erf(2 s/sqrt(pi)) - (4 s/pi) exp(-4 s^2/pi)`` (``beta = 2``); near
    zero ``~ s^(beta + 1)``."""
    from scipy.special import erf

    s = np.asarray(s, dtype=float)
    if beta == 1:
        return 1 - np.exp(-np.pi * s**2 / 4)
    if beta == 2:
        return erf(2 * s / np.sqrt(np.pi)) - 4 * s / np.pi * np.exp(
            -4 * s**2 / np.pi
        )
    raise ValueError(f"beta must be 1 or 2; got {beta!r}")


# ------------------------------------------------------------------------------
# The declaration: the complex Gaussian mechanism, once
# ------------------------------------------------------------------------------


def _run(A, n, k, epsilon, delta, rng, options):
    H, spectrum = complex_gaussian_approximation_from_second_moment(
        A,
        n,
        k,
        epsilon,
        delta,
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


def _from_moment(A, n, k, epsilon, delta, rng=None):
    """The top-k axes of the released real matrix ``Re Ĥ``
    (post-processing, as ``PrivatePCA`` does)."""
    H = complex_gaussian_approximation_from_second_moment(
        A, n, k, epsilon, delta, rng=rng, output="real"
    )
    return top_k_subspace(np.asarray(H), k)


def _release(X, k, epsilon, delta, rng=None):
    return _from_moment(
        second_moment(X), np.shape(X)[0], k, epsilon, delta, rng
    )


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="complex_gaussian",
        label="complex Gaussian",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run=_run,
        guarantee=_guarantee,
        privacy=PRIVACY["complex_gaussian_approximation"],
        options_of=complex_gaussian_approximation_from_second_moment,
        additive_noise=True,
        experiment_key="complex_gaussian",
        experiment_label="complex Gaussian (MV23)",
        short_notion="(ε, δ)-DP",
        entry_point=(__name__, "complex_gaussian_approximation"),
        release=_release,
        from_moment=_from_moment,
        style=dict(color="saddlebrown", linestyle="-", marker="8"),
    ),
)


__all__ = [
    "SPECS",
    "directional_delta",
    "PRIVACY",
    "OUTPUTS",
    "FIELDS",
    "COMPLEX_EIGENVALUE_DRIFT",
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
    "rank_k_errors",
    "rank_k_error_prediction",
    "mv23_gap_condition",
    "mv23_covariance_rate",
    "davis_kahan_error_bound",
    "typical_noise_norms",
    "complex_eigenvalue_drift",
    "semicircle_radius",
    "unfolded_spacings",
    "wigner_surmise",
    "wigner_surmise_cdf",
]
