"""Sensitivities of the second-moment matrix ``A = X^T X / n`` under
replace-one neighbours.

Two datasets are neighbours when they differ in one row (Chaudhuri et al. 2013,
Def. 3; Jiang et al. 2016, Sec. 2); every row has Euclidean norm at most one.
Replacing a row ``v`` by ``w`` changes the second-moment matrix by ``Delta = (v
v^T - w w^T) / n``. This module gives the largest size of ``Delta`` in the norms
the mechanisms of the book calibrate to, as closed forms (with the maximising
pair) and as numerical maximisers that check them.

The entrywise l1 case rests on one identity: for a symmetric sign pattern ``S``,
``max_{||v||, ||w|| <= 1} <S, v v^T - w w^T> = max(lambda_max(S), 0) -
min(lambda_min(S), 0)``, so the l1 sensitivity is the largest eigenvalue spread
of a symmetric ``+-1`` matrix.
"""

from __future__ import annotations

import numpy as np

from ..validation import as_generator, check_n


def _check_dimension(d: int) -> int:
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 1:
        raise ValueError(f"d must be a positive integer; got {d!r}")
    return int(d)


def _check_row(v, name: str) -> np.ndarray:
    v = np.ravel(np.asarray(v, dtype=float))
    if not np.all(np.isfinite(v)):
        raise ValueError(f"{name} must be finite")
    norm = float(np.linalg.norm(v))
    if norm > 1.0 + 1e-9:
        raise ValueError(
            f"{name} has norm {norm:.6g} > 1; rows of the data must lie in the "
            "unit ball"
        )
    return v


def second_moment_difference(v, w, n: int = 1) -> np.ndarray:
    """``Delta = (v v^T - w w^T) / n``: the change of ``A = X^T X / n`` when
    row ``v`` is replaced by ``w``.

    Jiang et al. (2016), proof of Theorem 4. Both rows must have norm at most
    one.
    """
    v = _check_row(v, "v")
    w = _check_row(w, "w")
    if v.shape != w.shape:
        raise ValueError(
            f"v and w have different lengths: {v.size} and {w.size}"
        )
    n = check_n(n)
    return (np.outer(v, v) - np.outer(w, w)) / n


def entrywise_norm(M, p: int = 1, upper_triangle: bool = False) -> float:
    """Entrywise l_p norm (p = 1 or 2) of a symmetric matrix, over all
    ``d^2`` entries or over the
    ``d(d+1)/2`` entries on and above the diagonal (the vector an upper-triangle
    mechanism perturbs,
    Jiang et al. 2016, Alg. 1)."""
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"expected a square matrix; got shape {M.shape}")
    if p not in (1, 2):
        raise ValueError(f"p must be 1 or 2; got {p!r}")
    entries = M[np.triu_indices(M.shape[0])] if upper_triangle else M.ravel()
    return float(
        np.sum(np.abs(entries)) if p == 1 else np.sqrt(np.sum(entries**2))
    )


def difference_spectrum(v, w) -> tuple[float, float]:
    """The two possibly non-zero eigenvalues ``(lambda_+, lambda_-)`` of ``v
    v^T - w w^T``.

    From the trace ``t = |v|^2 - |w|^2`` and the determinant on span{v, w},
    ``-(|v|^2 |w|^2 - <v, w>^2)``: ``lambda_+- = (t +- sqrt(t^2 + 4 D)) / 2``.
    Every unitarily invariant norm of the difference follows (nuclear ``lambda_+
    - lambda_-``, spectral ``max(lambda_+, -lambda_-)``, Frobenius
    ``sqrt(lambda_+^2 + lambda_-^2)``).
    """
    v = _check_row(v, "v")
    w = _check_row(w, "w")
    a, b, c = v @ v, w @ w, v @ w
    t = a - b
    disc = np.sqrt(
        max((a + b) ** 2 - 4.0 * c * c, 0.0)
    )  # = sqrt(t^2 + 4 (a b - c^2))
    return float((t + disc) / 2.0), float((t - disc) / 2.0)


def frobenius_sensitivity_second_moment(
    n: int, upper_triangle: bool = False
) -> float:
    """Largest ``||Delta||_F`` over replace-one neighbours: ``sqrt(2) / n``.

    ``||v v^T - w w^T||_F^2 = |v|^4 + |w|^4 - 2 <v, w>^2 <= 2``, with equality
    exactly for orthogonal unit vectors. The l2 norm of the upper-triangle
    vector has the same maximum (attained by two standard basis vectors): it is
    the l2 sensitivity of the ``d(d+1)/2``-vector perturbed by MOD-SULQ /
    Analyze Gauss style mechanisms.
    """
    check_n(n)
    return float(np.sqrt(2.0) / n)


def nuclear_norm_sensitivity_second_moment(n: int) -> float:
    """Largest ``||Delta||_*`` over replace-one neighbours: ``2 / n``.

    ``||v v^T - w w^T||_* = sqrt((|v|^2 + |w|^2)^2 - 4 <v, w>^2) <= 2``, with
    equality exactly for orthogonal unit vectors. Jiang et al. (2016, proof of
    Theorem 4) use the looser ``3 / n``.
    """
    check_n(n)
    return 2.0 / n


def spectral_sensitivity_second_moment(n: int) -> float:
    """Largest ``||Delta||_2`` over replace-one neighbours: ``1 / n``
    (``-w w^T <= v v^T - w w^T <= v v^T``; attained with ``w = 0`` or ``w``
    orthogonal to ``v``)."""
    check_n(n)
    return 1.0 / n


def l1_sensitivity_second_moment(
    d: int, n: int, upper_triangle: bool = False
) -> float:
    """Proven upper bound on the entrywise l1 sensitivity of ``A = X^T X /
    n`` (replace-one).

    Full matrix: ``sqrt(2 d^2 - 2 (d mod 2) / d) / n``; exact (``sqrt(2) d /
    n``) for even ``d`` and within a relative ``(1 - 2/d) / (4 d^2)`` (to first
    order) of :func:`l1_sensitivity_attained` for odd ``d``. Upper triangle (the
    ``d(d+1)/2`` entries perturbed by Jiang et al. 2016, Alg. 1): ``min(d /
    sqrt(2) + 1, sqrt(d(d+3)/2 - 2 (d mod 2) / d)) / n``.

    Proof: the sensitivity is the largest eigenvalue spread of a (weighted)
    symmetric sign matrix (module docstring), and Mirsky's inequality bounds the
    spread of a symmetric matrix by ``sqrt(2 ||S||_F^2 - (2/d) tr(S)^2)``; ``tr
    S`` is odd when ``d`` is odd. The second upper triangle bound splits the sum
    into the full sum (at most ``sqrt(2) d``) plus the diagonal (at most 2),
    halved. Jiang et al. (2016), Lemma 2, bracket the full-matrix value in
    ``[d/n, 2d/n)``.
    """
    d = _check_dimension(d)
    n = check_n(n)
    if d == 1:
        return 1.0 / n
    odd = d % 2
    if not upper_triangle:
        return float(np.sqrt(2.0 * d * d - 2.0 * odd / d) / n)
    mirsky = np.sqrt(d * (d + 3) / 2.0 - 2.0 * odd / d)
    split = d / np.sqrt(2.0) + 1.0
    return float(min(mirsky, split) / n)


def l1_extremal_pair(
    d: int, upper_triangle: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """Two unit vectors ``(v, w)`` whose difference ``v v^T - w w^T`` has a
    large entrywise l1 norm.

    Split the coordinates into ``a = floor(d/2)`` and ``b = ceil(d/2)``; take
    the sign pattern ``S = 2 1_a 1_a^T - 1 1^T`` (+1 on the first block, -1
    elsewhere; for the upper triangle the off-diagonal signs are halved and the
    diagonal is ``+1`` / ``-1`` on the two blocks); ``v`` and ``w`` are its top
    and bottom eigenvectors. Both have entries constant on each block, and
    ``sign(v v^T - w w^T) = S``. The value is :func:`l1_sensitivity_attained`.
    """
    d = _check_dimension(d)
    if d == 1:
        return np.ones(1), np.zeros(1)
    S = _block_sign_pattern(d, upper_triangle)
    vals, vecs = np.linalg.eigh(S)
    return vecs[:, -1].copy(), vecs[:, 0].copy()


def _block_sign_pattern(d: int, upper_triangle: bool) -> np.ndarray:
    a = d // 2
    ind = np.zeros(d)
    ind[:a] = 1.0
    S = 2.0 * np.outer(ind, ind) - 1.0
    if upper_triangle:
        S = 0.5 * S + 0.5 * np.diag(2.0 * ind - 1.0)
    return S


def l1_sensitivity_attained(
    d: int, n: int, upper_triangle: bool = False
) -> float:
    """Entrywise l1 norm of ``Delta`` for the pair of
    :func:`l1_extremal_pair` (a lower bound on the
    sensitivity): ``sqrt(d^2 + 4 a b) / n`` for the full matrix and ``sqrt((d +
    2)^2 + 4 a b) / (2 n)`` for the upper triangle, with ``a = floor(d/2)``, ``b
    = ceil(d/2)`` (so ``4ab = d^2 - (d mod 2)``). For ``d = 1`` both equal ``1 /
    n``.

    Exhaustive search over sign patterns (:func:`l1_sensitivity_by_enumeration`)
    finds no larger value for ``d <= 5``. Compare Jiang et al. (2016), Lemma 2:
    ``d/n <= s_1 < 2d/n``.
    """
    d = _check_dimension(d)
    n = check_n(n)
    if d == 1:
        return 1.0 / n
    four_ab = 4 * (d // 2) * (d - d // 2)
    if upper_triangle:
        return float(np.sqrt((d + 2) ** 2 + four_ab) / (2.0 * n))
    return float(np.sqrt(d * d + four_ab) / n)


def _signed_spread(S: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """max over v, w in the unit ball of <S, v v^T - w w^T>, and the
    maximisers."""
    vals, vecs = np.linalg.eigh(S)
    d = S.shape[0]
    v = vecs[:, -1] if vals[-1] > 0 else np.zeros(d)
    w = vecs[:, 0] if vals[0] < 0 else np.zeros(d)
    return float(max(vals[-1], 0.0) - min(vals[0], 0.0)), v, w


def _weights(d: int, upper_triangle: bool) -> np.ndarray:
    W = np.full((d, d), 0.5 if upper_triangle else 1.0)
    np.fill_diagonal(W, 1.0)
    return W


def worst_case_l1_pair(
    d: int,
    rng=None,
    upper_triangle: bool = False,
    restarts: int = 50,
    max_sweeps: int = 100,
):
    """Numerically maximise the entrywise l1 norm of ``v v^T - w w^T`` over
    the unit ball.

    Alternating ascent from ``restarts`` random sign patterns: given a symmetric
    sign pattern ``S``, the best ``(v, w)`` are the top and bottom eigenvectors
    of ``S`` (weighted by 1/2 off the diagonal for the upper triangle; a
    non-positive top eigenvalue gives ``v = 0``); given ``(v, w)``, the best
    ``S`` is the sign pattern of ``v v^T - w w^T``. Each step can only increase
    the objective, and there are finitely many patterns, so every restart ends
    at a fixed point. Returns ``(value, v, w)`` for the best restart (value for
    ``n = 1``). Checks Jiang et al. (2016), Lemma 2, and
    :func:`l1_sensitivity_attained`.
    """
    d = _check_dimension(d)
    rng = as_generator(rng)
    if restarts < 1:
        raise ValueError(f"restarts must be >= 1; got {restarts}")
    W = _weights(d, upper_triangle)
    best = (-np.inf, None, None)
    for _ in range(restarts):
        S = np.sign(rng.standard_normal((d, d)))
        S = np.triu(S) + np.triu(S, 1).T
        for _ in range(max_sweeps):
            value, v, w = _signed_spread(W * S)
            S_new = np.sign(np.outer(v, v) - np.outer(w, w))
            S_new[S_new == 0] = S[
                S_new == 0
            ]  # keep ties, so the ascent stops at a fixed point
            if np.array_equal(S_new, S):
                break
            S = S_new
        value = entrywise_norm(
            np.outer(v, v) - np.outer(w, w), 1, upper_triangle
        )
        if value > best[0]:
            best = (value, v, w)
    return best


def l1_sensitivity_by_enumeration(d: int, upper_triangle: bool = False):
    """Exact entrywise l1 sensitivity (``n = 1``) by enumerating all
    ``2^{d(d+1)/2}`` symmetric sign
    patterns and taking the largest signed eigenvalue spread. Feasible for ``d
    <= 5``.

    Returns ``(value, S)`` with a maximising sign pattern ``S``.
    """
    d = _check_dimension(d)
    if d > 5:
        raise ValueError(
            f"enumeration is limited to d <= 5 (2^{d * (d + 1) // 2} "
            f"patterns); got {d}"
        )
    iu = np.triu_indices(d)
    m = iu[0].size
    codes = np.arange(2**m)
    bits = (((codes[:, None] >> np.arange(m)) & 1) * 2 - 1).astype(float)
    S = np.zeros((codes.size, d, d))
    S[:, iu[0], iu[1]] = bits
    S = S + np.triu(S, 1).transpose(0, 2, 1)
    vals = np.linalg.eigvalsh(S * _weights(d, upper_triangle))
    spread = np.maximum(vals[:, -1], 0.0) - np.minimum(vals[:, 0], 0.0)
    best = int(np.argmax(spread))
    return float(spread[best]), S[best]


def random_unit_ball_pairs(d: int, size: int, rng=None, on_sphere: bool = True):
    """``size`` random pairs ``(v, w)`` (arrays ``size x d``), uniform on the
    unit sphere, or
    uniform in the unit ball when ``on_sphere`` is False: the brute-force search
    space of the
    sensitivity checks."""
    d = _check_dimension(d)
    rng = as_generator(rng)
    out = []
    for _ in range(2):
        g = rng.standard_normal((size, d))
        g /= np.linalg.norm(g, axis=1, keepdims=True)
        if not on_sphere:
            g *= rng.random((size, 1)) ** (1.0 / d)
        out.append(g)
    return out[0], out[1]


def power_step_sensitivity(n: int, k: int) -> float:
    """Largest ``||(A - A') V||_F`` over replace-one neighbours and ``d x k``
    orthonormal ``V``.

    The product ``A V`` is what one step of the noisy power method releases
    (Hardt and Price 2014, Fig. 1). ``(A - A') V = D V / n`` with ``D = v v^T -
    w w^T`` of rank two and eigenvalues ``lambda_+ >= 0 >= lambda_-``
    (:func:`difference_spectrum`). Then ``||D V||_F^2 = tr(V^T D^2 V)`` is at
    most the sum of the ``k`` largest eigenvalues of ``D^2``: ``max(lambda_+^2,
    lambda_-^2) <= 1`` for ``k = 1`` and ``lambda_+^2 + lambda_-^2 = ||D||_F^2
    <= 2`` for ``k >= 2``. Hence ``1 / n`` for ``k = 1`` and ``sqrt(2) / n`` for
    ``k >= 2``, attained by orthogonal unit vectors ``v, w`` in the span of
    ``V`` (for ``k = 1``: ``v`` the column of ``V`` and ``w = 0``).
    """
    n = check_n(n)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    return float((1.0 if k == 1 else np.sqrt(2.0)) / n)


__all__ = [
    "second_moment_difference",
    "entrywise_norm",
    "difference_spectrum",
    "frobenius_sensitivity_second_moment",
    "nuclear_norm_sensitivity_second_moment",
    "spectral_sensitivity_second_moment",
    "l1_sensitivity_second_moment",
    "l1_extremal_pair",
    "l1_sensitivity_attained",
    "worst_case_l1_pair",
    "l1_sensitivity_by_enumeration",
    "random_unit_ball_pairs",
    "power_step_sensitivity",
]


def top_eigenvalues_l1_sensitivity(n: int, k: int) -> float:
    """Largest ``sum_{i<=k} |lambda_i(A') - lambda_i(A)|`` over replace-one
    neighbours (sorted
    eigenvalues of ``A = X^T X / n``): ``1/n`` for ``k = 1``, ``2/n`` for ``k >=
    2``.

    Lidskii: ``lambda(A + Delta) - lambda(A)`` lies in the convex hull of the
    permutations of ``lambda(Delta) = (lambda_+, 0, ..., 0, lambda_-)``, with
    ``lambda_+ <= 1/n`` and ``-lambda_- <= 1/n`` (:func:`difference_spectrum`),
    so the sum over any ``k >= 2`` entries is at most ``2/n`` and one entry
    moves by at most ``1/n``. Attained: replace a row along the top eigenvector
    by one along the second, with a gap that keeps the order. Under
    add/remove-one (Amin et al. 2019, on ``X^T X``) the whole vector moves by
    ``tr(x x^T) <= 1`` instead.
    """
    n = check_n(n)
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
        raise ValueError(f"k must be a positive integer; got {k!r}")
    return (1.0 if k == 1 else 2.0) / n


def bingham_score_sensitivity() -> float:
    """Sensitivity of the score ``n u^T A u = |X u|^2`` for a fixed unit
    ``u``: 1.

    Replace-one changes it by ``(u^T v)^2 - (u^T w)^2 in [-1, 1]`` (two-sided);
    add/remove-one by ``(u^T x)^2 in [0, 1]`` (one-sided). Same bound, different
    shape: under replace-one the exponential mechanism ``∝ exp(eta * score)`` is
    ``2 eta``-DP, not ``eta``-DP.
    """
    return 1.0
