"""Private PCA by the noisy power method (Hardt and Price, NeurIPS 2014, Fig.
1 and Sec. 4;
gap-dependent analysis by Balcan, Du, Wang and Yu, COLT 2016).

The method never forms or diagonalises a d x d matrix. Starting from a
data-independent, Haar-random d x p block ``V_0``, each of its L steps releases
one noisy product::

    Y_l = A V_{l-1} + G_l,   G_l with i.i.d. N(0, σ²) entries,
    V_l = orth(Y_l),

with ``A = XᵀX/n``; the answer is the top-k left singular vectors of the last
``Y_L``. Only products ``A V`` are needed, so the mechanism is written against a
*multiply* callable ``V -> A V``: an in-memory array, a scipy.sparse matrix, a
precomputed ``A`` and a ``dask.array`` of rows (``dppca.linalg.distributed``)
all
share :func:`noisy_power_method_from_operator`.

Privacy (replace-one neighbours, rows of norm <= 1): one step is a Gaussian
mechanism on ``A V``, whose ℓ₂ sensitivity is √2/n for p >= 2 (1/n for p = 1;
``dppca.privacy.sensitivity.power_step_sensitivity``); the L steps compose
adaptively and σ is calibrated for the whole run
(``dppca.privacy.composed_gaussian_sigma``): the run is (ε, δ)-DP with the δ
the caller passes, spent once, not once per step.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..float_state import owns_float_state
from ..linalg.dense import haar_subspace
from ..privacy.drawable import (
    check_gaussian_drawable,
)
from ..privacy.guarantees import (
    Release,
    gaussian_release,
    noise_record,
    released,
    zcdp_release,
)
from ..privacy.noise import (
    add_gaussian,
    check_noise_kind,
)
from ..privacy.sensitivity import power_step_sensitivity
from ..privacy.zcdp import gaussian_zcdp_rho
from ..validation import (
    ROW_NORM_TOLERANCE,
    as_generator,
    check_choice,
    check_data,
    check_delta,
    check_epsilon,
    check_k,
    check_n,
    check_positive_int,
    check_second_moment,
)
from .power_method_calibration import (
    default_iterations,
    noisy_power_sigma,
    product_shrink,
    safe_noisy_power_calibration,
)
from .spec import MechanismSpec, select

#: The privacy the mechanism provides, as derived and checked in chapter 14.
PRIVACY = {
    "noisy_power_method": "(ε, δ)-DP for the whole run (δ spent once): L "
    "Gaussian steps on A·V, "
    "ℓ₂ sensitivity √2/n each, composed by zCDP (Bun–Steinke) or exactly as "
    "one Gaussian "
    "mechanism of sensitivity √L·√2/n (calibration='gdp'); chapter 14.",
}


def noisy_power_method_guarantee(
    n,
    d,
    k,
    epsilon,
    delta,
    *,
    n_iterations=None,
    block_size=None,
    calibration="zcdp",
    noise="safe",
) -> Release:
    """Guarantee record of a noisy power method run with these settings.

    Float noise: L Gaussian steps on A·V compose exactly like one Gaussian of
    sensitivity √L·Δ (Dong, Roth and Su 2022, Cor. 3.3). Safe noise: a ρ-zCDP
    release, ρ summed over the L rounded steps. The replace-one calibration
    is the book's own derivation (chapter 14); Hardt and Price analyse a
    change of one entry.
    """
    p = block_size or k
    L = n_iterations or default_iterations(d)
    step = power_step_sensitivity(n, p)
    record = dict(
        theorem="[HP14]; replace-one calibration: the book's own",
        chapter="chapter 14",
    )
    if check_noise_kind(noise) == "safe":
        sigma, grid = safe_noisy_power_calibration(n, p, d, epsilon, delta, L)
        check_gaussian_drawable(sigma, grid, what="the noisy power method")
        rho = L * gaussian_zcdp_rho(step + math.sqrt(d * p) * grid, sigma)
        return zcdp_release(
            "noisy power method (safe noise)",
            rho,
            epsilon,
            delta,
            **noise_record("safe"),
            **record,
        )
    sigma = noisy_power_sigma(n, p, epsilon, delta, L, calibration)
    return gaussian_release(
        "noisy power method",
        sigma,
        step * math.sqrt(L),
        epsilon,
        delta,
        **noise_record("float"),
        **record,
    )


@dataclass
class PowerMethodRun:
    """What a run released, and (``diagnostics=True`` only) what it did not.

    ``V`` (d x k), ``sigma`` (per-entry noise), ``n_iterations``,
    ``block_size``, ``rho`` (zCDP of the run) and ``epsilon``/``delta`` are the
    public outcome. ``iterates`` and ``noise`` hold every ``V_l`` and every
    ``G_l``; the noise together with the iterates reveals the exact products A
    V, so a run with diagnostics must not be published: they exist to check the
    utility theorem (chapter 14).
    """

    V: np.ndarray
    sigma: float
    n_iterations: int
    block_size: int
    rho: float
    epsilon: float
    delta: float
    iterates: list = field(default_factory=list)
    noise: list = field(default_factory=list)


@owns_float_state
def noisy_power_method_from_operator(
    multiply: Callable[[np.ndarray], np.ndarray],
    d: int,
    n: int,
    k: int,
    *,
    epsilon: float,
    delta: float,
    n_iterations: int | None = None,
    block_size: int | None = None,
    calibration: str = "zcdp",
    rng=None,
    diagnostics: bool = False,
    noise: str = "safe",
    summands: int | None = None,
    input_shrink: float | None = None,
):
    """The noisy power method on any ``multiply(V) -> A V`` with ``A =
    XᵀX/n`` of n rows of norm
    <= 1 (Hardt and Price 2014, Fig. 1, with the Gaussian noise of their Sec. 4
    calibrated for replace-one neighbours).

    ``block_size`` p >= k is the number of vectors iterated (default k); p > k
    is the oversampling whose benefit Balcan et al. (2016, Thm 2.2) quantify:
    the convergence and the noise tolerance then depend on λ_k − λ_(p+1) instead
    of λ_k − λ_(k+1). The answer is the top-k left singular vectors of the last
    noisy product, which is post-processing.

    ``multiply`` is trusted: whoever evaluates it sees the data. Returns ``V``
    (d x k), or a :class:`PowerMethodRun` when ``diagnostics`` is true (not for
    publication; see there).

    ``noise="float"`` draws float64 Gaussian noise (private as mathematics
    only); ``noise="safe"`` rounds each product to a grid and adds exact
    discrete Gaussian noise, private as a program, calibrated by zCDP
    (``safe_noisy_power_calibration``; ``calibration`` must be "zcdp").
    ``summands`` is the number of products each entry of ``multiply(V)``
    sums (default ``n + d``, a sum over rows), which sets the float-error
    shrink (``product_shrink``); ``input_shrink``, the shrink ``s`` of a
    second moment computed by
    :func:`dppca.linalg.clipped_sums.clipped_second_moment`, makes it absorb
    that matrix's float error too (``product_shrink``).
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ValueError(f"d must be an integer >= 2; got {d!r}")
    n = check_n(n)
    k = check_k(k, d)
    epsilon, delta = check_epsilon(epsilon), check_delta(delta)
    p = k if block_size is None else int(block_size)
    if not k <= p <= d:
        raise ValueError(f"block_size must satisfy k <= p <= d; got p = {p}")
    L = default_iterations(d) if n_iterations is None else int(n_iterations)
    if L < 1:
        raise ValueError(f"n_iterations must be >= 1; got {n_iterations!r}")
    rng = as_generator(rng)
    grid = None
    if check_noise_kind(noise) == "safe":
        if calibration != "zcdp":
            raise ValueError(
                "noise='safe' is calibrated through zCDP; use "
                "calibration='zcdp'"
            )
        sigma, grid = safe_noisy_power_calibration(n, p, d, epsilon, delta, L)
    else:
        sigma = noisy_power_sigma(n, p, epsilon, delta, L, calibration)
    V = haar_subspace(d, p, rng) if p < d else np.eye(d)
    iterates, noises = [V], []
    # the float error of A·V absorbed (a sum of `summands` products)
    shrink = product_shrink(n, d, p, summands, input_shrink)
    for _ in range(L):
        product = np.asarray(multiply(V), dtype=float)
        if product.shape != (d, p):
            raise ValueError(
                f"multiply returned shape {product.shape}, expected {(d, p)}"
            )
        product = product * shrink
        Y = add_gaussian(product, sigma, noise=noise, rng=rng, granularity=grid)
        V = np.linalg.qr(Y)[0]
        if diagnostics:
            iterates.append(V)
            noises.append(Y - product)
    U = np.linalg.svd(Y, full_matrices=False)[0][:, :k]
    if not diagnostics:
        record = noisy_power_method_guarantee(
            n,
            d,
            k,
            epsilon,
            delta,
            n_iterations=L,
            block_size=p,
            calibration=calibration,
            noise=noise,
        )
        return released(U, record)
    step_sensitivity = power_step_sensitivity(n, p)
    if grid is not None:  # the rounding's √(dp) cells
        step_sensitivity += math.sqrt(d * p) * grid
    rho = L * gaussian_zcdp_rho(step_sensitivity, sigma)
    return PowerMethodRun(
        U,
        sigma,
        L,
        p,
        rho,
        epsilon,
        delta,
        iterates,
        noises,
    )


def _is_dask(X) -> bool:
    return type(X).__module__.split(".")[0] == "dask"


def data_operator(X, *, clip: bool = False):
    """``(multiply, n, d)`` for the rows ``X``: ``multiply(V) = Xᵀ (X V) /
    n``, never forming A.

    ``X`` may be a numpy array (validated by
    :func:`dppca.validation.check_data`), a
    scipy.sparse matrix (finite entries, row norms <= 1) or a ``dask.array`` of
    rows (validated chunk by chunk on every pass,
    :func:`dppca.linalg.distributed.second_moment_operator`). ``clip=True``
    explicitly
    rescales rows of norm > 1 onto the unit sphere instead of raising.
    """
    if _is_dask(X):
        from ..linalg.distributed import second_moment_operator

        return second_moment_operator(X, clip=clip)
    if hasattr(X, "toarray"):  # scipy.sparse
        S = X.tocsr().astype(float)
        if not np.all(np.isfinite(S.data)):
            raise ValueError("X contains NaN or Inf")
        norms = np.sqrt(np.asarray(S.multiply(S).sum(axis=1)).ravel())
        if clip:
            S = S.multiply(1.0 / np.maximum(norms, 1.0)[:, None]).tocsr()
        elif norms.max(initial=0.0) > 1.0 + ROW_NORM_TOLERANCE:
            raise ValueError(
                "X has rows of norm > 1; rescale by a public bound or pass "
                "clip=True"
            )
        n, d = S.shape
        return (lambda V: np.asarray(S.T @ (S @ V)) / n), n, d
    if clip:
        from ..linalg.distributed import clip_rows

        X = clip_rows(np.asarray(X, dtype=float))
    X = check_data(X)
    n, d = X.shape
    return (lambda V: _blocked_product(X, V) / n), n, d


#: Rows per block of :func:`_blocked_product`: about 1.5 MiB of rows, which stay
#: in cache.
_BLOCK_BYTES = 3 * 2**19


def _blocked_product(X, V):
    """``Xᵀ (X V)`` in one pass over ``X``: each block of rows is used twice
    while in cache
    (a thin product is limited by memory bandwidth, so this halves the
    traffic)."""
    rows = max(16, _BLOCK_BYTES // (8 * X.shape[1]))
    out = np.zeros((X.shape[1], V.shape[1]))
    for start in range(0, X.shape[0], rows):
        block = X[start : start + rows]
        out += block.T @ (block @ V)
    return out


@owns_float_state
def noisy_power_method(
    X,
    k: int,
    *,
    epsilon: float,
    delta: float,
    n_iterations: int | None = None,
    block_size: int | None = None,
    calibration: str = "zcdp",
    clip: bool = False,
    rng=None,
    diagnostics: bool = False,
    noise: str = "safe",
):
    """Private top-k subspace of ``A = XᵀX/n`` by the noisy power method; (ε,
    δ)-DP for
    replace-one neighbours with rows of norm <= 1 (chapter 14).

    ``X`` is an ``n x d`` numpy array, a scipy.sparse matrix or a ``dask.array``
    of rows chunked along the first axis (then every product runs as a Dask
    reduction and the noise is added on the client: a trusted aggregator; see
    ``dppca.linalg.distributed``). Costs L passes over the data of 4ndp flops
    each,
    and O(dp²) per step on the client. See
    :func:`noisy_power_method_from_operator` for the parameters.
    """
    multiply, n, d = data_operator(X, clip=clip)
    return noisy_power_method_from_operator(
        multiply,
        d,
        n,
        k,
        epsilon=epsilon,
        delta=delta,
        n_iterations=n_iterations,
        block_size=block_size,
        calibration=calibration,
        rng=rng,
        diagnostics=diagnostics,
        noise=noise,
    )


@owns_float_state
def noisy_power_method_from_second_moment(
    A,
    n: int,
    k: int,
    *,
    epsilon: float,
    delta: float,
    n_iterations: int | None = None,
    block_size: int | None = None,
    calibration: str = "zcdp",
    rng=None,
    diagnostics: bool = False,
    noise: str = "safe",
    input_shrink: float | None = None,
):
    """The noisy power method on a precomputed ``A = XᵀX/n`` of n rows of
    norm <= 1: the same law
    as :func:`noisy_power_method` on those rows (same draws under the same
    seed; the float-error shrink of each product, ``product_shrink``, is
    smaller here, since ``A V`` sums ``d`` products where the product over
    rows sums ``n + d``).

    ``A`` and ``n`` are checked by :func:`dppca.validation.check_second_moment`;
    the caller vouches that ``A`` is ``XᵀX/n`` of the ``n`` rows (each of norm
    at most one) of the data set and that ``n`` is its true number of rows.
    For a matrix computed by
    :func:`dppca.linalg.clipped_sums.clipped_second_moment`, which is
    ``XᵀX/n`` only up to its float error, pass its shrink as
    ``input_shrink`` (``product_shrink``; :class:`dppca.PrivatePCA` does)."""
    A, n = check_second_moment(A, n)
    return noisy_power_method_from_operator(
        lambda V: A @ V,
        A.shape[0],
        n,
        k,
        epsilon=epsilon,
        delta=delta,
        n_iterations=n_iterations,
        block_size=block_size,
        calibration=calibration,
        rng=rng,
        diagnostics=diagnostics,
        noise=noise,
        summands=A.shape[0],
        input_shrink=input_shrink,
    )


# ------------------------------------------------------------------------------
# The declaration: the noisy power method, once
# ------------------------------------------------------------------------------


def _run(A, n, k, epsilon, delta, rng, options):
    V = noisy_power_method_from_second_moment(
        A, n, k, epsilon=epsilon, delta=delta, rng=rng, **options
    )
    return V, None, None


def _guarantee(n, d, k, epsilon, delta, options):
    return noisy_power_method_guarantee(
        n,
        d,
        k,
        epsilon,
        delta,
        **select(options, "noise", "n_iterations", "block_size", "calibration"),
    )


def _check_options(options, n, d, k, epsilon) -> dict:
    """The ``mechanism_options`` checked from public values."""
    p = options.get("block_size")
    if p is not None:
        p = check_positive_int(p, "block_size")
        if not k <= p <= d:
            raise ValueError(
                f"block_size must satisfy k <= block_size <= d = {d}"
            )
    if options.get("n_iterations") is not None:
        check_positive_int(options["n_iterations"], "n_iterations")
    calibration = options.get("calibration", "zcdp")
    check_choice(calibration, ("zcdp", "gdp"), "calibration")
    return dict(options)


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="noisy_power_method",
        person_level=(
            "Gaussian noise on A·V: ‖(A − A')V‖_F for every "
            "orthonormal V, a supremum of convex functions of the "
            "change of A"
        ),
        label="noisy power method",
        notion="gaussian",
        uses_delta=True,
        uses_epsilon=True,
        run=_run,
        guarantee=_guarantee,
        privacy=PRIVACY["noisy_power_method"],
        takes_input_shrink=True,
        options_of=noisy_power_method_from_second_moment,
        check_options=_check_options,
        guide_rank=90,
        proof="yes (chapter 14)",
        additive_noise=True,
    ),
)


__all__ = [
    "SPECS",
    "PRIVACY",
    "PowerMethodRun",
    "data_operator",
    "default_iterations",
    "noisy_power_method",
    "noisy_power_method_from_operator",
    "noisy_power_method_from_second_moment",
    "noisy_power_method_guarantee",
    "noisy_power_sigma",
    "product_shrink",
    "safe_noisy_power_calibration",
]
