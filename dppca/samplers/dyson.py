"""Dyson Brownian motion for the matrix process M(t) = M + B(t),
with B(t) = W(t) + W(t)^T.

Mangoubi and Vishnoi (NeurIPS 2022, "Re-Analyze Gauss", Sec. 3) view the noise
``G + G^T`` of the Gaussian mechanism as ``B(T)`` at ``T = sigma^2``. With ``W``
a ``d x d`` matrix of independent standard Brownian motions, ``dB_ii`` has
variance ``4 dt`` and ``dB_ij`` (``i != j``) has variance ``2 dt``. Itô's
formula for the eigen-decomposition ``M(t) = U(t) diag(gamma(t)) U(t)^T`` gives
Dyson's (1962) equations in this normalisation (derived in the book's Dyson
chapter)::

    d gamma_i = dB~_ii + sum_{j != i} 2 dt / (gamma_i - gamma_j)
    d u_i     = sum_{j != i} u_j dB~_ji / (gamma_i - gamma_j)
                - u_i sum_{j != i} dt / (gamma_i - gamma_j)^2

with ``dB~ = U^T dB U`` the increments projected on the current eigenbasis
(equal in law to ``dB``, so ``dB~_ii = 2 d beta_i`` with independent standard
Brownian motions ``beta_i``).

Eigenvalues are kept in ASCENDING order here (as :func:`numpy.linalg.eigh`
returns them). Two simulations share one Brownian path: :func:`exact_path`
diagonalises ``M + B(t)``; :func:`sde_path` integrates the SDEs with the
projected increments. :func:`eigenvalue_path` integrates the eigenvalues alone
in law at ``O(d^2)`` per step.
"""

from __future__ import annotations

import numpy as np

from ..validation import (
    as_generator,
    check_positive,
    check_positive_int,
    check_symmetric,
)

#: Coefficient ``c`` of the eigenvalue drift ``sum_j c / (gamma_i - gamma_j)``.
EIGENVALUE_DRIFT = 2.0
#: Variance rate of the eigenvalue noise, ``Var(d gamma_i) = 4 dt``.
EIGENVALUE_VARIANCE_RATE = 4.0
#: Variance rate of an off-diagonal projected increment,
#: ``Var(dB~_ij) = 2 dt``.
OFF_DIAGONAL_VARIANCE_RATE = 2.0
#: Coefficient of the Itô correction ``-u_i sum_j c dt / (gamma_i -
#: gamma_j)^2``.
EIGENVECTOR_ITO_CORRECTION = 1.0


def brownian_increments(
    d: int, n_steps: int, dt: float, rng=None, batch: tuple = ()
) -> np.ndarray:
    """Increments ``dB = dW + dW^T`` of ``B(t)`` on a grid of step ``dt``.

    Returns an array of shape ``(n_steps, *batch, d, d)`` (symmetric in the last
    two axes): diagonal entries ``N(0, 4 dt)``, off-diagonal ``N(0, 2 dt)``,
    independent across steps.
    """
    if int(d) < 2:
        raise ValueError(f"d must be at least 2; got {d!r}")
    n_steps = check_positive_int(n_steps, "n_steps")
    dt = check_positive(dt, "dt")
    rng = as_generator(rng)
    dW = rng.standard_normal((n_steps, *batch, d, d)) * np.sqrt(dt)
    return dW + np.swapaxes(dW, -1, -2)


def coarsen(increments: np.ndarray, factor: int) -> np.ndarray:
    """Sum consecutive groups of ``factor`` increments: the same path on a
    grid ``factor`` times coarser."""
    factor = int(factor)
    n = increments.shape[0]
    if factor < 1 or n % factor:
        raise ValueError(
            f"factor must divide the number of steps {n}; got {factor}"
        )
    return increments.reshape(n // factor, factor, *increments.shape[1:]).sum(
        axis=1
    )


def _align_signs(U_new, U_old):
    """Flip eigenvector signs so that each column has a positive overlap with
    its predecessor."""
    overlap = np.einsum("...ji,...ji->...i", U_new, U_old)
    return U_new * np.where(overlap < 0, -1.0, 1.0)[..., None, :]


def exact_path(M, increments: np.ndarray, store: bool = True):
    """Diagonalise ``M + B(t)`` at every grid time of a Brownian path
    (ascending eigenvalues).

    ``increments`` has shape ``(n_steps, *batch, d, d)`` (see
    :func:`brownian_increments`). Eigenvector signs follow the path continuously
    (positive overlap between consecutive times). Returns ``(gamma, U)``: all
    ``n_steps + 1`` times if ``store`` else only the final time.
    """
    M = check_symmetric(M)
    increments = np.asarray(increments, dtype=float)
    if increments.shape[-2:] != M.shape:
        raise ValueError(
            f"increments must end in shape {M.shape}; got {increments.shape}"
        )
    batch = increments.shape[1:-2]
    current = np.broadcast_to(M, (*batch, *M.shape)).copy()
    gamma, U = np.linalg.eigh(current)
    if not store:
        for dB in increments:
            current += dB
            gamma, U_new = np.linalg.eigh(current)
            U = _align_signs(U_new, U)
        return gamma, U
    gammas = [gamma]
    Us = [U]
    for dB in increments:
        current += dB
        gamma, U_new = np.linalg.eigh(current)
        U = _align_signs(U_new, U)
        gammas.append(gamma)
        Us.append(U)
    return np.stack(gammas), np.stack(Us)


def _inverse_gaps(gamma):
    """``R[..., j, i] = 1 / (gamma_i - gamma_j)`` off the diagonal, ``0`` on
    it."""
    diff = gamma[..., None, :] - gamma[..., :, None]
    d = gamma.shape[-1]
    eye = np.eye(d, dtype=bool)
    diff = np.where(eye, 1.0, diff)
    return np.where(eye, 0.0, 1.0 / diff)


def sde_step(
    gamma, U, dB, dt, scheme: str = "euler", orthonormalise: bool = True
):
    """One step of Dyson's SDEs for eigenvalues and eigenvectors, driven by
    ``dB`` projected on ``U``.

    ``scheme="euler"`` is Euler–Maruyama on the Itô SDEs (drift ``2 dt / gap``,
    Itô correction ``-dt / gap^2``; strong order 1/2). ``scheme="milstein"``
    adds the second-order terms in the projected increments (second-order
    perturbation theory). Since ``gamma(t)`` and ``U(t)`` are smooth functions
    of ``B(t)`` away from collisions, the noise is commutative and this is the
    Milstein scheme (strong order 1) without Lévy areas. Neither scheme keeps
    ``U`` orthonormal, and the drift away from the orthogonal group feeds back
    through ``U^T dB U`` and grows; with ``orthonormalise`` (default) each step
    ends with the polar projection ``U <- U (U^T U)^{-1/2}``, a change of order
    ``dt^{3/2}`` (Euler: ``dt``) that does not lower the strong order. Costs
    ``O(d^3)`` (the projection of ``dB``).
    """
    E = np.swapaxes(U, -1, -2) @ dB @ U
    R = _inverse_gaps(gamma)
    K1 = E * R  # K1[j, i] = E_ji / (gamma_i - gamma_j)
    diagE = np.diagonal(E, axis1=-2, axis2=-1)
    d = gamma.shape[-1]
    if scheme == "euler":
        gamma_new = gamma + diagE + EIGENVALUE_DRIFT * dt * R.sum(axis=-2)
        correction = -EIGENVECTOR_ITO_CORRECTION * dt * (R**2).sum(axis=-2)
        K = K1 + correction[..., None, :] * np.eye(d)
    elif scheme == "milstein":
        gamma_new = gamma + diagE + (E * K1).sum(axis=-2)
        K2 = R * (E @ K1 - K1 * diagE[..., None, :])
        K = K1 + K2 - 0.5 * (K1**2).sum(axis=-2)[..., None, :] * np.eye(d)
    else:
        raise ValueError(
            f"scheme must be 'euler' or 'milstein'; got {scheme!r}"
        )
    U_new = U + U @ K
    if orthonormalise:
        left, _, right = np.linalg.svd(U_new)
        U_new = left @ right
    return gamma_new, U_new


def sde_path(
    M,
    increments: np.ndarray,
    dt: float,
    scheme: str = "euler",
    store: bool = False,
    orthonormalise: bool = True,
):
    """Integrate Dyson's SDEs for eigenvalues and eigenvectors on a given
    Brownian path.

    Starts from ``eigh(M)`` (``M`` must have distinct eigenvalues, else the SDE
    is singular) and applies :func:`sde_step` with the path's own increments, so
    the result can be compared pathwise with :func:`exact_path`. The labels are
    never re-sorted: a crossing of two eigenvalues (possible for a discrete step
    near a collision) shows up as an error. Returns ``(gamma, U)`` at the final
    time, or at all grid times if ``store``.
    """
    M = check_symmetric(M)
    dt = check_positive(dt, "dt")
    increments = np.asarray(increments, dtype=float)
    if increments.shape[-2:] != M.shape:
        raise ValueError(
            f"increments must end in shape {M.shape}; got {increments.shape}"
        )
    if scheme not in ("euler", "milstein"):
        raise ValueError(
            f"scheme must be 'euler' or 'milstein'; got {scheme!r}"
        )
    gamma0, U0 = np.linalg.eigh(M)
    if np.min(np.diff(gamma0)) <= 0:
        raise ValueError(
            "M must have distinct eigenvalues to start Dyson's SDEs"
        )
    d = M.shape[0]
    batch = increments.shape[1:-2]
    gamma = np.broadcast_to(gamma0, (*batch, d)).copy()
    U = np.broadcast_to(U0, (*batch, d, d)).copy()
    gammas, Us = [gamma], [U]
    for dB in increments:
        gamma, U = sde_step(gamma, U, dB, dt, scheme, orthonormalise)
        if store:
            gammas.append(gamma)
            Us.append(U)
    if store:
        return np.stack(gammas), np.stack(Us)
    return gamma, U


class EigenvalueDrift:
    """``O(d^2)`` evaluation of ``sum_{j != i} 1 / (gamma_i - gamma_j)`` with
    preallocated buffers.

    Works block by block (``block`` rows) so that the work array stays in cache,
    and uses the antisymmetry ``1/(g_i - g_j) = -1/(g_j - g_i)``: each
    off-diagonal block is computed once and contributes its row sums to one
    block of the result and minus its column sums to the other.
    """

    def __init__(self, d: int, block: int = 256):
        self.d = int(d)
        self.block = max(1, min(int(block), self.d))
        self.buffer = np.empty((self.block, self.block))
        self.out = np.empty(self.d)
        self.starts = list(range(0, self.d, self.block))

    def __call__(self, gamma):
        out = self.out
        out[:] = 0.0
        for a, start in enumerate(self.starts):
            stop = min(start + self.block, self.d)
            rows = gamma[start:stop]
            for start2 in self.starts[a:]:
                stop2 = min(start2 + self.block, self.d)
                buf = self.buffer[: stop - start, : stop2 - start2]
                np.subtract.outer(rows, gamma[start2:stop2], out=buf)
                if start2 == start:
                    np.fill_diagonal(buf, np.inf)
                np.reciprocal(buf, out=buf)
                out[start:stop] += buf.sum(axis=1)
                if start2 != start:
                    out[start2:stop2] -= buf.sum(axis=0)
        return out


def eigenvalue_drift(gamma) -> np.ndarray:
    """Dyson's eigenvalue drift rate ``2 sum_{j != i} 1 / (gamma_i -
    gamma_j)`` (``O(d^2)``)."""
    gamma = np.asarray(gamma, dtype=float)
    return EIGENVALUE_DRIFT * EigenvalueDrift(gamma.size)(gamma)


def eigenvalue_path(
    initial,
    T: float,
    n_steps: int,
    rng=None,
    store_every: int | None = None,
    max_splits: int = 40,
):
    """Eigenvalues of ``M + B(t)`` in law, by Euler–Maruyama on Dyson's
    eigenvalue SDE alone.

    ``d gamma_i = 2 d beta_i + sum_{j != i} 2 dt / (gamma_i - gamma_j)`` with
    independent Brownian motions ``beta_i`` (the projected diagonal increments,
    by Lévy's characterisation). The noise is additive, so Euler–Maruyama has
    strong order 1 in ``beta``. ``O(d^2)`` per step. Near collisions the drift
    is stiff: a step that would break the ordering is split in two halves with a
    Brownian bridge (same path), recursively. Returns ``(times, gammas,
    n_splits)``; ``gammas`` holds every ``store_every``-th state (default: only
    the start and the end).
    """
    gamma = np.sort(np.asarray(initial, dtype=float).ravel())
    if gamma.size < 2 or not np.all(np.isfinite(gamma)):
        raise ValueError("initial must hold at least two finite eigenvalues")
    if np.min(np.diff(gamma)) <= 0:
        raise ValueError("initial eigenvalues must be distinct")
    T = check_positive(T, "T")
    n_steps = check_positive_int(n_steps, "n_steps")
    rng = as_generator(rng)
    d = gamma.size
    dt = T / n_steps
    drift = EigenvalueDrift(d)
    scale = np.sqrt(EIGENVALUE_VARIANCE_RATE)
    n_splits = 0

    def advance(g, noise, h, depth):
        nonlocal n_splits
        proposal = g + noise + EIGENVALUE_DRIFT * h * drift(g)
        if np.all(proposal[1:] > proposal[:-1]):
            return proposal
        if depth >= max_splits:
            raise RuntimeError(
                "eigenvalue step could not keep the ordering; reduce dt"
            )
        if not np.all(np.isfinite(proposal)):
            raise FloatingPointError("non-finite eigenvalues in the Dyson step")
        n_splits += 1
        first = 0.5 * noise + np.sqrt(h / 4.0) * scale * rng.standard_normal(d)
        g = advance(g, first, h / 2, depth + 1)
        return advance(g, noise - first, h / 2, depth + 1)

    store_every = n_steps if store_every is None else int(store_every)
    times, states = [0.0], [gamma.copy()]
    block = min(n_steps, 1024)
    done = 0
    while done < n_steps:
        m = min(block, n_steps - done)
        noises = rng.standard_normal((m, d)) * (scale * np.sqrt(dt))
        for noise in noises:
            gamma = advance(gamma, noise, dt, 0)
            done += 1
            if done % store_every == 0:
                times.append(done * dt)
                states.append(gamma.copy())
    return np.array(times), np.stack(states), n_splits


def projected_process(U, Lambda) -> np.ndarray:
    """``Psi = U diag(Lambda) U^T`` (Mangoubi and Vishnoi 2022, Sec. 3),
    batched over leading axes."""
    Lambda = np.asarray(Lambda, dtype=float)
    return (U * Lambda[..., None, :]) @ np.swapaxes(U, -1, -2)


def quadratic_variation_rate(gamma, Lambda) -> np.ndarray:
    """Itô rate ``d E||Psi||_F^2 / dt = 4 sum_{i<j} (lambda_i - lambda_j)^2 /
    (gamma_i - gamma_j)^2``.

    From ``dPsi = sum_{i<j} (lambda_i - lambda_j)/(gamma_i - gamma_j) (u_i u_j^T
    + u_j u_i^T) dB~_ij + drift``, with ``||u_i u_j^T + u_j u_i^T||_F^2 = 2``
    and ``Var dB~_ij = 2 dt``. Pairs with ``lambda_i = lambda_j`` contribute
    zero. Batched over leading axes of ``gamma``.
    """
    gamma = np.asarray(gamma, dtype=float)
    Lambda = np.asarray(Lambda, dtype=float)
    dl = Lambda[:, None] - Lambda[None, :]
    dg = gamma[..., :, None] - gamma[..., None, :]
    mask = dl != 0
    ratio = np.where(mask, dl / np.where(mask, dg, 1.0), 0.0)
    return (
        2.0 * OFF_DIAGONAL_VARIANCE_RATE * 0.5 * (ratio**2).sum(axis=(-2, -1))
    )


def semicircle_radius(d: int, t: float) -> float:
    """Edge ``2 sqrt(2 d t)`` of the semicircle law of ``B(t)`` (off-diagonal
    variance ``2t``)."""
    return 2.0 * np.sqrt(2.0 * d * t)


def semicircle_cdf(x, radius: float) -> np.ndarray:
    """CDF of the semicircle law on ``[-radius, radius]``."""
    u = np.clip(np.asarray(x, dtype=float) / radius, -1.0, 1.0)
    return 0.5 + (u * np.sqrt(1.0 - u**2) + np.arcsin(u)) / np.pi


__all__ = [
    "EIGENVALUE_DRIFT",
    "EIGENVALUE_VARIANCE_RATE",
    "OFF_DIAGONAL_VARIANCE_RATE",
    "EIGENVECTOR_ITO_CORRECTION",
    "brownian_increments",
    "coarsen",
    "exact_path",
    "sde_step",
    "sde_path",
    "EigenvalueDrift",
    "eigenvalue_drift",
    "eigenvalue_path",
    "projected_process",
    "quadratic_variation_rate",
    "semicircle_radius",
    "semicircle_cdf",
]
