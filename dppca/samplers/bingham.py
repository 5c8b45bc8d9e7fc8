"""Samplers for the vector and matrix Bingham distributions on spheres and
Stiefel manifolds.

Target (Chaudhuri, Sarwate and Sinha 2013, eq. (6)): ``f(V) ∝ exp(tr(V^T B V))``
over ``d x k`` matrices with orthonormal columns, ``B`` symmetric. Three
samplers:

* :func:`hoff_gibbs` -- Hoff's (2009) Gibbs sampler, the one the PPCA paper ran
  (Sec. 6.2): column by column, each column updated on the complement of the
  others by one coordinate-wise Gibbs scan of its conditional vector Bingham.
  Approximate after any finite number of sweeps.
* :func:`sample_vector_bingham` -- exact draws for ``k = 1`` by rejection from
  an angular central Gaussian (ACG) envelope (Kent, Ganeiber and Mardia 2018).
* :func:`fast_gibbs` -- a blocked Gibbs sampler that draws each column *exactly*
  from its conditional vector Bingham with the same ACG rejection, working in
  the eigenbasis of ``B`` with one factorisation of ``B`` per call (the Gaussian
  proposal on the complement of the other columns is obtained by conditioning,
  never by a new ``O(d^3)`` factorisation). Still a Markov chain: after finitely
  many sweeps it is only close to the target. Heuristics for the number of
  sweeps, and the book's other diagnostics of these samplers, are in
  ``dppca.book.diagnostics.bingham``.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.linalg
import scipy.optimize
import scipy.sparse.linalg

from ..linalg.dense import haar_subspace
from ..validation import (
    as_generator,
    check_k,
    check_orthonormal,
    check_positive_int,
    check_symmetric,
)


def check_concentration(spread: float) -> None:
    """Raise ``ValueError`` when the eigenvalue spread of ``B`` exceeds
    :data:`MAX_CONCENTRATION`
    (no sampler here can then draw from the target law in float64; see that
    constant)."""
    if not spread <= MAX_CONCENTRATION:
        raise ValueError(
            "B's eigenvalue spread exceeds MAX_CONCENTRATION = "
            f"{MAX_CONCENTRATION:.0e}: at this concentration float64 round-off "
            "in tr(V^T B V) "
            "is not negligible and no exact draw is possible. For PPCA, B = (n "
            "ε / 2) A: use a "
            "smaller ε (the law is already concentrated within about "
            "1/sqrt(spread) of the "
            "top eigenvectors)."
        )


def start_frame(V0, d: int, k: int, rng) -> np.ndarray:
    """A writable ``d x k`` start: Haar-uniform when ``V0`` is None, else a
    checked copy of
    ``V0`` (shape exactly ``(d, k)``, orthonormal columns)."""
    if V0 is None:
        return haar_subspace(d, k, rng)
    V = check_orthonormal(V0, name="V0")
    if V.shape != (d, k):
        raise ValueError(
            f"V0 must have shape (d, k) = ({d}, {k}); got {np.shape(V0)}"
        )
    return V.copy()


#: Up to this dimension the compression's top eigenvalue is computed densely
#: (ARPACK beyond).
DENSE_COMPRESSION_MAX_D = 160

#: Safety stop of the ACG rejection loop, in proposals per requested draw. The
#: loop raises ``RuntimeError`` beyond it (about 4 s at d = 5). At
#: concentrations below :data:`MAX_CONCENTRATION` the envelope accepts far more
#: often than once in this many proposals, so a correct run never reaches it.
MAX_PROPOSALS_PER_DRAW = 500_000

#: Safety stop of the scalar rejection loop of Hoff's sampler
#: (``_hoff_theta``).
MAX_THETA_PROPOSALS = 100_000

#: Largest eigenvalue spread ``λ_max(B) − λ_min(B)`` the samplers accept. Beyond
#: it the float64 round-off of ``tr(VᵀBV)`` (about ``d · 2⁻⁵² · spread``) is no
#: longer negligible against the unit scale of the log-density, the fast
#: sampler's safety margin on the envelope (``1e-12 · spread``) makes acceptance
#: vanish, and Hoff's Beta proposals round to 1. A draw there would not be from
#: the target law, so it is refused with ``ValueError`` before any proposal (for
#: PPCA, ``B = (nε/2) A``: ``nε/2 · spread(A)`` must stay below this).
MAX_CONCENTRATION = 1e11

#: A proposal whose log acceptance ratio exceeds this is evidence of a wrong
#: envelope.
ENVELOPE_SLACK = 1e-7


# ------------------------------------------------------------------------------
# The angular central Gaussian envelope (Kent, Ganeiber and Mardia 2018)
# ------------------------------------------------------------------------------
def acg_parameter(a) -> float:
    """Return the ``b`` in ``(0, q]`` solving ``sum_i 1/(b + 2 a_i) = 1``
    (Kent et al. 2018, Sec. 4).

    ``a`` holds the eigenvalues of ``A = c I - B`` (all ``>= 0``, smallest
    ``0``); this ``b`` minimises the expected number of ACG proposals. Any ``b``
    in ``(0, q]`` gives a valid envelope.
    """
    a = np.asarray(a, dtype=float)
    q = a.size
    if q < 1 or np.any(a < 0):
        raise ValueError("a must be a non-empty vector of non-negative numbers")

    def excess(b):
        return np.sum(1.0 / (b + 2.0 * a)) - 1.0

    if (
        excess(q) >= 0
    ):  # all a_i = 0: the uniform distribution, envelope exact at b = q
        return float(q)
    low = 1e-12 * max(1.0, q)
    if excess(low) <= 0:
        return low
    return float(
        scipy.optimize.brentq(excess, low, q, xtol=1e-9 * q, rtol=1e-8)
    )


def acg_log_bound(q: int, b: float) -> float:
    """log M with ``exp(-s) (1 + 2 s / b)^(q/2) <= M`` for all ``s >= 0``
    (maximum at ``s = (q-b)/2``).

    This is the envelope constant of Kent et al. (2018): for ``x^T A x = s`` and
    ``Omega = I + 2A/b``, ``exp(-x^T A x) <= M (x^T Omega x)^(-q/2)``.
    """
    if not (0 < b <= q):
        raise ValueError(f"b must lie in (0, q = {q}]; got {b}")
    return -0.5 * (q - b) + 0.5 * q * math.log(q / b)


def acg_draw(
    lam,
    c,
    b,
    rng,
    W=None,
    n_accept=1,
    batch=None,
    stats=None,
    max_proposals=None,
):
    """Exact draws from ``∝ exp(x^T diag(lam) x)`` on the unit sphere of ``S
    = range(W)^⊥``.

    Coordinates are those of the eigenbasis (``lam`` is a vector). ``c`` must be
    an upper bound of the largest eigenvalue of the compression of ``diag(lam)``
    to ``S``; ``b`` in ``(0, q]`` with ``q = dim S``. Proposals are Gaussians
    with precision ``D = I + 2(cI - diag(lam))/b`` restricted to ``S``, drawn by
    conditioning a Gaussian on ``W^T z = 0`` (no factorisation of size ``q``);
    ``x = z/|z|`` is then ACG on ``S`` and is accepted with probability
    ``exp(-(c - x^T Λ x)) (x^T D x)^(q/2) / M`` -- the factor (x^T D x)^(q/2)
    **multiplies**.
    """
    d = lam.size
    km1 = 0 if W is None else W.shape[1]
    q = d - km1
    log_m = acg_log_bound(q, b)
    D = 1.0 + 2.0 * (c - lam) / b
    N_S = None  # basis of S, for the dense proposal (below)
    if km1:
        # Coordinates where D is small or negative (at most k-1 of them: the
        # directions above c) are handled as a small dense "head"; the rest
        # ("tail") has a positive diagonal precision.
        head = D < 0.5
        tail = ~head
        W_H, W_T = W[head], W[tail]
        D_T = D[tail]
        inv_D_T = 1.0 / D_T
        n_head = int(head.sum())
        try:
            if tail.sum() < km1:  # W_T cannot have full column rank
                raise np.linalg.LinAlgError("fewer tail coordinates than W")
            G = W_T.T @ (inv_D_T[:, None] * W_T)
            G_chol = scipy.linalg.cho_factor(G)
            if n_head:
                P_H = np.diag(D[head]) + W_H @ scipy.linalg.cho_solve(
                    G_chol, W_H.T
                )
                L_H = np.linalg.cholesky(P_H)
        except np.linalg.LinAlgError:
            # When W has more columns than the tail has coordinates (k close
            # to d, with many directions above c), the conditioning above is
            # singular. The same proposal, the Gaussian of precision D
            # restricted to S, is then drawn in a basis N of S: its precision
            # there, N^T D N, is at least I (c bounds x^T diag(lam) x on S).
            N_S = _complement_basis(W, d)
            L_S = np.linalg.cholesky(N_S.T @ (D[:, None] * N_S))
    if batch is None:
        batch = max(8, int(2 * math.sqrt(q)))
    accepted = []
    n_done = 0
    n_proposed = 0
    cap = MAX_PROPOSALS_PER_DRAW * n_accept
    if max_proposals is not None:
        cap = min(cap, int(max_proposals))
    while n_done < n_accept:
        if n_proposed >= cap:
            raise RuntimeError(
                f"ACG rejection: fewer than {n_accept} draws within the cap "
                f"of MAX_PROPOSALS_PER_DRAW = {MAX_PROPOSALS_PER_DRAW} "
                "proposals per draw; "
                "the acceptance rate is too small for an exact "
                "draw in reasonable time (see MAX_CONCENTRATION)"
            )
        m = max(batch, 2 * (n_accept - n_done)) if n_accept > 1 else batch
        if km1 == 0:
            Z = rng.standard_normal((m, d)) / np.sqrt(D)
        elif N_S is not None:
            Y = scipy.linalg.solve_triangular(
                L_S, rng.standard_normal((q, m)), lower=True, trans="T"
            )
            Z = (N_S @ Y).T
        else:
            Z = np.empty((m, d))
            z_T0 = rng.standard_normal((m, d - n_head)) * np.sqrt(inv_D_T)
            rhs = z_T0 @ W_T
            if n_head:
                z_H = scipy.linalg.solve_triangular(
                    L_H, rng.standard_normal((n_head, m)), lower=True, trans="T"
                ).T
                rhs += z_H @ W_H
                Z[:, head] = z_H
            correction = (
                scipy.linalg.cho_solve(G_chol, rhs.T).T
                @ (W_T * inv_D_T[:, None]).T
            )
            Z[:, tail] = z_T0 - correction
        n_proposed += m
        X = Z / np.linalg.norm(Z, axis=1, keepdims=True)
        quad = (X * X) @ lam
        log_ratio = -(c - quad) + 0.5 * q * np.log((X * X) @ D) - log_m
        if np.max(log_ratio) > ENVELOPE_SLACK:
            raise RuntimeError(
                "ACG envelope violated (log ratio > 0): the bound c on the "
                "largest eigenvalue is wrong"
            )
        keep = np.log(rng.random(m)) < log_ratio
        if stats is not None:
            stats["proposals"] = stats.get("proposals", 0) + m
            stats["accepted"] = stats.get("accepted", 0) + int(keep.sum())
        if keep.any():
            accepted.append(X[keep])
            n_done += int(keep.sum())
    if stats is not None:
        stats["draws"] = stats.get("draws", 0) + n_accept
    return np.concatenate(accepted)[:n_accept]


def sample_vector_bingham(B, size=None, rng=None, return_stats: bool = False):
    """Exact draws from the vector Bingham density ``∝ exp(x^T B x)`` on the
    unit sphere ``S^{d-1}``.

    Rejection from the angular central Gaussian envelope of Kent, Ganeiber and
    Mardia (2018): one ``eigh`` of ``B``, then vectorised proposals. Returns an
    array of shape ``(d,)`` if ``size`` is None, else ``(size, d)``. With
    ``return_stats`` also returns ``{"proposals", "accepted"}``.
    """
    B = check_symmetric(B, name="B")
    rng = as_generator(rng)
    n = 1 if size is None else check_positive_int(size, "size")
    lam, U = np.linalg.eigh(B)
    lam = (
        lam - lam[-1]
    )  # largest eigenvalue 0: the shift only changes the normalising constant
    check_concentration(float(-lam[0]))
    b = acg_parameter(-lam)
    stats = {}
    Y = acg_draw(lam, 0.0, b, rng, n_accept=n, batch=max(16, n), stats=stats)
    X = Y @ U.T
    out = X[0] if size is None else X
    return (out, stats) if return_stats else out


# ------------------------------------------------------------------------------
# Hoff's (2009) Gibbs sampler, as used by Chaudhuri et al. (2013, Sec. 6.2)
# ------------------------------------------------------------------------------
def _hoff_theta(shape_k: float, a: float, rng) -> float:
    """Draw ``theta`` with density ∝ Beta(theta; 1/2, shape_k) exp(a theta)
    (Hoff 2009, Sec. 2.1).

    Rejection from a Beta(1/2, g) envelope with ``g <= shape_k`` chosen as in
    Hoff's sampler; the log ratio ``a theta + (shape_k - g) log(1 - theta)`` is
    bounded by its maximum ``lrmx``. For ``a < -shape_k`` (and ``shape_k >= 1``)
    that envelope accepts with probability of order ``sqrt(shape_k / |a|)``,
    which vanishes as the concentration grows; there the same law is drawn
    exactly by :func:`_theta_gamma_envelope` instead. Raises ``RuntimeError``
    after :data:`MAX_THETA_PROPOSALS` rejected proposals.
    """
    if a < -shape_k and shape_k >= 1:
        return _theta_gamma_envelope(shape_k, a, rng)
    g, lrmx = shape_k, 0.0
    if a > 0:
        g = max(1.0 / (1.0 + math.log(2.0 + a)), shape_k - a)
        lrmx = a - shape_k + g + (shape_k - g) * math.log((shape_k - g) / a)
    for _ in range(MAX_THETA_PROPOSALS):
        theta = rng.beta(0.5, g)
        if theta >= 1.0:
            continue
        if (
            math.log(rng.random())
            <= a * theta + (shape_k - g) * math.log1p(-theta) - lrmx
        ):
            return theta
    raise RuntimeError(
        f"Hoff's theta rejection: no acceptance in {MAX_THETA_PROPOSALS} "
        "proposals; see MAX_CONCENTRATION"
    )


def _theta_gamma_envelope(shape_k: float, a: float, rng) -> float:
    """Exact draw of the law of ``_hoff_theta`` for ``a < 0`` and
    ``shape_k >= 1``.

    The density ``∝ theta^(-1/2) (1 - theta)^(shape_k - 1) exp(a theta)`` on
    ``(0, 1)`` is dominated by the Gamma(1/2, rate ``-a``) density ``∝
    theta^(-1/2) exp(a theta)``; a proposal below 1 is accepted with probability
    ``(1 - theta)^(shape_k - 1) <= 1``, which is of order ``sqrt(|a| / (|a| +
    shape_k))``: at least about 0.7 when ``|a| >= shape_k``.
    """
    scale = -1.0 / a
    for _ in range(MAX_THETA_PROPOSALS):
        theta = rng.gamma(0.5, scale)
        if theta >= 1.0:
            continue
        if math.log(rng.random()) <= (shape_k - 1.0) * math.log1p(-theta):
            return theta
    raise RuntimeError(
        "theta rejection (Gamma envelope): no acceptance in "
        f"{MAX_THETA_PROPOSALS} proposals"
    )


def hoff_vector_scan(y, l, rng) -> np.ndarray:
    """One coordinate-wise Gibbs scan for ``∝ exp(sum_i l_i y_i^2)`` on the
    sphere (Hoff 2009).

    For coordinate ``i``, ``theta = y_i^2`` has conditional density ∝
    theta^(-1/2) (1-theta)^((m-3)/2) exp(a theta) with ``a = l_i - sum_{j≠i} l_j
    y_j^2/(1-y_i^2)``; ``y_i = ±sqrt(theta)`` with a fair sign, the other
    coordinates rescaled to keep ``|y| = 1``.
    """
    y = np.array(y, dtype=float)
    l = np.asarray(l, dtype=float)
    m = y.size
    shape_k = 0.5 * (m - 1)
    weighted = float(np.dot(l, y * y))
    for i in range(m):
        rest = 1.0 - y[i] ** 2
        if rest <= 0:
            continue
        a = l[i] - (weighted - l[i] * y[i] ** 2) / rest
        theta = _hoff_theta(shape_k, a, rng)
        scale = math.sqrt((1.0 - theta) / rest)
        weighted = (weighted - l[i] * y[i] ** 2) * scale**2 + l[i] * theta
        y *= scale
        y[i] = math.sqrt(theta) * (1.0 if rng.random() < 0.5 else -1.0)
    return y / np.linalg.norm(y)


def _complement_basis(W, d: int) -> np.ndarray:
    """Orthonormal basis (``d x (d - r)``) of the orthogonal complement of
    the columns of ``W``."""
    if W.shape[1] == 0:
        return np.eye(d)
    Q, _ = np.linalg.qr(W, mode="complete")
    return Q[:, W.shape[1] :]


def hoff_gibbs(B, k: int, n_sweeps: int, V0=None, rng=None, record=None):
    """Hoff's (2009) Gibbs sampler for the matrix Bingham ``∝ exp(tr(V^T B
    V))``, as in Chaudhuri et al. (2013), Sec. 6.2.

    Each sweep updates columns ``r = 1..k``: ``N`` = orthonormal basis of the
    complement of the other columns, eigendecomposition of ``N^T B N``, one
    coordinate scan of :func:`hoff_vector_scan` in that eigenbasis,
    back-transform. Starts from a Haar-uniform ``V`` unless ``V0`` is given.
    ``record`` (a callable ``V -> value``) is evaluated after every sweep; the
    function then returns ``(V, [values])``, else ``V``. The chain is only
    approximately distributed as the target after finitely many sweeps.
    ``n_sweeps`` must be a positive integer, ``V0`` a ``d x k`` orthonormal
    frame (:func:`start_frame`); ``B`` with an eigenvalue spread above
    :data:`MAX_CONCENTRATION` is refused.
    """
    B = check_symmetric(B, name="B")
    d = B.shape[0]
    k = check_k(k, d)
    n_sweeps = check_positive_int(n_sweeps, "n_sweeps")
    eigenvalues = np.linalg.eigvalsh(B)
    check_concentration(float(eigenvalues[-1] - eigenvalues[0]))
    rng = as_generator(rng)
    V = start_frame(V0, d, k, rng)
    trace = []
    for _ in range(n_sweeps):
        for r in range(k):
            others = np.delete(V, r, axis=1)
            N = _complement_basis(others, d)
            l, E = np.linalg.eigh(N.T @ B @ N)
            y = E.T @ (N.T @ V[:, r])
            y = hoff_vector_scan(y / np.linalg.norm(y), l, rng)
            v = N @ (E @ y)
            V[:, r] = v / np.linalg.norm(v)
        if record is not None:
            trace.append(record(V))
    return (V, trace) if record is not None else V


# ------------------------------------------------------------------------------
# The fast blocked Gibbs sampler with exact column draws
# ------------------------------------------------------------------------------
def compression_top(lam, W, v0) -> float:
    """Upper bound on the largest eigenvalue of ``diag(lam)`` compressed to
    ``range(W)^⊥``.

    Lanczos (ARPACK) on ``x -> P diag(lam) P x`` with ``P = I - W W^T`` (``lam
    >= 0``, so the zero eigenvalues on ``range(W)`` never win), plus the
    residual norm as a safety margin; the acceptance step re-checks the envelope
    on every proposal and raises if it were ever violated.
    """
    d = lam.size
    if d <= DENSE_COMPRESSION_MAX_D:
        N = _complement_basis(W, d)
        return float(
            np.linalg.eigvalsh((N.T * lam) @ N)[-1] + 1e-12 * max(1.0, lam[0])
        )

    def matvec(x):
        x = np.ravel(x)
        x = x - W @ (W.T @ x)
        y = lam * x
        return y - W @ (W.T @ y)

    op = scipy.sparse.linalg.LinearOperator((d, d), matvec=matvec, dtype=float)
    v0 = v0 - W @ (W.T @ v0)
    try:
        vals, vecs = scipy.sparse.linalg.eigsh(
            op, k=1, which="LA", v0=v0, tol=1e-12
        )
    except (
        scipy.sparse.linalg.ArpackNoConvergence
    ):  # rare: fall back to the dense compression
        N = _complement_basis(W, d)
        return float(
            np.linalg.eigvalsh((N.T * lam) @ N)[-1] + 1e-12 * max(1.0, lam[0])
        )
    u = vecs[:, 0]
    resid = np.linalg.norm(matvec(u) - vals[0] * u)
    return float(vals[0] + resid + 1e-12 * max(1.0, lam[0]))


class BinghamEigenSystem:
    """``B`` factorised once (``B = U diag(lam) U^T``, ``lam`` shifted to be
    ``>= 0``, descending)."""

    def __init__(self, B):
        B = check_symmetric(B, name="B")
        lam, U = np.linalg.eigh(B)
        self.lam = (lam - lam[0])[::-1].copy()
        self.U = U[:, ::-1].copy()
        self.d = B.shape[0]
        check_concentration(float(self.lam[0]))


def sample_on_complement(lam, W=None, rng=None, *, start=None, stats=None):
    """One exact draw from ``∝ exp(x^T diag(lam) x)`` on the unit sphere of
    ``range(W)^⊥``, in the eigen-coordinates of a :class:`BinghamEigenSystem`.

    ``lam`` is descending and ``>= 0`` (a system's ``lam`` times a positive
    inverse temperature); ``W`` is ``d x m`` with orthonormal columns in the
    same coordinates, or None for the whole sphere. This is one column update of
    :func:`fast_gibbs` and one vector step of Amin et al.'s mechanism
    (:mod:`dppca.mechanisms.covariance`). The envelope's ``c`` is the
    compression's top
    eigenvalue (:func:`compression_top`, Lanczos started at ``start``, by
    default ``e_{m+1}``); ``b`` comes from the interlacing estimate of the
    compression's spectrum and only sets the acceptance rate. Returns a unit
    vector orthogonal to ``range(W)``.
    """
    lam = np.asarray(lam, dtype=float)
    d = lam.size
    m = 0 if W is None else W.shape[1]
    if m == 0:
        c = float(lam[0])
    else:
        if start is None:
            start = np.zeros(d)
            start[m] = 1.0
        c = compression_top(lam, W, start)
    # Interlacing: the compression's eigenvalues satisfy mu_i >= lam_{i+m};
    # with mu_1 = c this is a rough spectrum of c I - C.
    rough = np.concatenate([[0.0], np.clip(c - lam[m + 1 :], 0.0, None)])
    b = acg_parameter(rough)
    x = acg_draw(lam, c, b, as_generator(rng), W=W if m else None, stats=stats)
    x = x[0]
    if m:
        x = x - W @ (W.T @ x)
    return x / np.linalg.norm(x)


def fast_column_update(system, Y, r, rng, stats):
    """Replace column ``r`` of ``Y`` (eigen-coordinates of ``system``, a
    :class:`BinghamEigenSystem`) in place by an exact draw from its
    conditional given the other columns: one column update of
    :func:`fast_gibbs` (:func:`sample_on_complement`, started at the old
    column). ``stats`` (a dict or None) accumulates the rejection counts."""
    W = np.delete(Y, r, axis=1) if Y.shape[1] > 1 else None
    Y[:, r] = sample_on_complement(
        system.lam, W, rng, start=Y[:, r], stats=stats
    )


def fast_gibbs(
    B,
    k: int,
    n_sweeps: int,
    V0=None,
    rng=None,
    record=None,
    return_stats=False,
    system: BinghamEigenSystem | None = None,
):
    """Blocked Gibbs sampler for ``∝ exp(tr(V^T B V))`` whose column updates
    are exact draws.

    Column ``r`` given the others is a vector Bingham on the complement ``S`` of
    the other ``k - 1`` columns; it is drawn exactly by ACG rejection
    (``acg_draw``) in the eigenbasis of ``B``, with the shift ``c`` of the
    compression of ``B`` to ``S`` (found by Lanczos) rather than the global one.
    One ``eigh`` of ``B`` per call (or pass ``system`` to reuse it); each column
    update costs ``O(d k^2)`` plus ``O(d k)`` per proposal. For ``k = 1`` one
    sweep is an exact draw. For ``k > 1`` the chain is exact only at
    stationarity: a release after finitely many sweeps is ``(ε, δ)``-DP with
    ``δ`` governed by the total-variation distance to the target. Returns ``V``
    (``d x k``), plus the ``record`` trace and/or acceptance stats if requested.
    ``n_sweeps`` must be a positive integer, ``V0`` a ``d x k`` orthonormal
    frame (:func:`start_frame`); ``B`` with an eigenvalue spread above
    :data:`MAX_CONCENTRATION` is refused.
    """
    if system is None:
        B = check_symmetric(B, name="B")
        system = BinghamEigenSystem(B)
    d = system.d
    k = check_k(k, d)
    n_sweeps = check_positive_int(n_sweeps, "n_sweeps")
    rng = as_generator(rng)
    V = start_frame(V0, d, k, rng)
    Y = system.U.T @ V
    stats = {}
    trace = []
    for _ in range(n_sweeps):
        for r in range(k):
            fast_column_update(system, Y, r, rng, stats)
        # re-orthonormalise against accumulated round-off (a tiny change, no
        # bias at working precision)
        Y, R = np.linalg.qr(Y)
        Y *= np.sign(np.diag(R))
        if record is not None:
            trace.append(record(system.U @ Y))
    V = system.U @ Y
    out = [V]
    if record is not None:
        out.append(trace)
    if return_stats:
        out.append(stats)
    return out[0] if len(out) == 1 else tuple(out)
