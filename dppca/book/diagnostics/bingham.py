"""Diagnostics of the Bingham samplers (:mod:`dppca.samplers.bingham`) that
chapters 4 and 11 run: the acceptance rate of the ACG rejection step for given
envelope parameters, two heuristics for the number of sweeps of
:func:`~dppca.samplers.bingham.fast_gibbs` (:func:`crossing_diagnostic` and
:func:`window_diagnostic`; the book shows a case, insurance at k = 11, where
both certify too few, caught only by comparison with long runs), exact
reference values by importance sampling, and the mean statistic of
Chaudhuri et al. (2013, Sec. 6.2).
"""

from __future__ import annotations

import math

import numpy as np

from ...linalg.dense import haar_subspace
from ...montecarlo import self_normalised_estimate
from ...samplers.bingham import (
    BinghamEigenSystem,
    acg_draw,
    fast_column_update,
)
from ...validation import (
    as_generator,
    check_k,
    check_k_at_most,
    check_positive_int,
    check_symmetric,
)


def acg_acceptance(
    lam, c, b, *, W=None, proposals: int = 20_000, batch: int = 1000, rng=None
) -> dict:
    """Acceptance counts of the ACG rejection step, for a fixed proposal budget.

    Runs the exact sampler's rejection loop on ``∝ exp(x^T diag(lam) x)`` over
    the sphere of ``range(W)^⊥`` (the setting of one column update of
    :func:`fast_gibbs`) with the envelope parameters ``c`` (an upper bound on
    the compression's top eigenvalue) and ``b``, until about ``proposals``
    proposals are spent, and returns ``{"proposals": ..., "accepted": ...}``. It
    measures how a choice of ``c`` and ``b`` affects the acceptance rate; the
    draws themselves are discarded.
    """
    rng = as_generator(rng)
    proposals = check_positive_int(proposals, name="proposals")
    stats = {"proposals": 0, "accepted": 0}
    while stats["proposals"] < proposals:
        try:
            acg_draw(
                np.asarray(lam, dtype=float),
                float(c),
                float(b),
                rng,
                W=W,
                batch=batch,
                stats=stats,
                max_proposals=proposals - stats["proposals"],
            )
        except RuntimeError as error:
            if not str(error).startswith("ACG rejection"):
                raise
            break
    return {"proposals": stats["proposals"], "accepted": stats["accepted"]}


def crossing_diagnostic(
    B,
    k: int,
    max_sweeps: int = 200,
    rng=None,
    safety: int = 2,
    system: BinghamEigenSystem | None = None,
) -> dict:
    """Sweeps to convergence of :func:`fast_gibbs`, by chains started at the
    two extremes.

    One chain starts at the mode (top-k eigenvectors of ``B``, highest ``q =
    tr(V^T B V)``), one at a Haar-uniform point (low ``q``). With exact column
    draws both forget their start; the first sweep ``tau`` at which the chain
    from below reaches the chain from above is recorded and ``certified = safety
    * tau`` sweeps are recommended. A heuristic, not a proof: it detects a
    burn-in in the statistic ``q``, the quantity the exponential mechanism's
    density depends on.
    """
    if system is None:
        system = BinghamEigenSystem(B)
    d = system.d
    k = check_k(k, d)
    rng = as_generator(rng)
    Y_top = np.eye(d)[:, :k]
    Y_low = system.U.T @ haar_subspace(d, k, rng)
    stats = {}

    def score(Y):
        return float(np.einsum("ij,i,ij->", Y, system.lam, Y))

    q_top, q_low = [score(Y_top)], [score(Y_low)]
    tau = None
    for t in range(1, int(max_sweeps) + 1):
        for Y in (Y_top, Y_low):
            for r in range(k):
                fast_column_update(system, Y, r, rng, stats)
        q_top.append(score(Y_top))
        q_low.append(score(Y_low))
        if q_low[-1] >= q_top[-1]:
            tau = t
            break
    return {
        "tau": tau,
        "certified": None if tau is None else max(1, safety * tau),
        "q_from_mode": np.array(q_top),
        "q_from_uniform": np.array(q_low),
        "acceptance": stats.get("accepted", 0)
        / max(1, stats.get("proposals", 0)),
    }


def window_diagnostic(
    B,
    k: int,
    n_chains: int = 4,
    min_sweeps: int = 8,
    max_sweeps: int = 512,
    z: float = 2.0,
    rng=None,
    system: BinghamEigenSystem | None = None,
) -> dict:
    """Sweeps to convergence of :func:`fast_gibbs` by a multi-chain,
    doubling-window test on
    ``q = tr(V^T B V)`` (more conservative than :func:`crossing_diagnostic`).

    Half of ``n_chains`` start at the mode (top-k eigenvectors), half at
    Haar-uniform frames. At ``t = min_sweeps, 2 min_sweeps, ...`` the mean of
    ``q`` over sweeps ``(t/2, t]`` is compared
    (i) between chains and (ii) with the pooled mean over ``(t/4, t/2]`` (a
    drift test, in the spirit of Geweke's); ``t`` is certified when every
    difference is within ``z`` standard errors (from batch means). A
    heuristic: a relaxation slower than the window and smaller than the
    noise can still pass. Returns ``certified`` (None if ``max_sweeps`` is
    reached) and traces.
    """
    if system is None:
        system = BinghamEigenSystem(B)
    d = system.d
    k = check_k(k, d)
    rng = as_generator(rng)
    starts = [
        np.eye(d)[:, :k]
        if i % 2 == 0
        else system.U.T @ haar_subspace(d, k, rng)
        for i in range(max(2, int(n_chains)))
    ]
    chains = [Y.copy() for Y in starts]
    traces = [[] for _ in chains]
    stats = {}
    t, certified, checks = 0, None, []
    target = int(min_sweeps)
    while target <= max_sweeps:
        while t < target:
            for Y, tr in zip(chains, traces):
                for r in range(k):
                    fast_column_update(system, Y, r, rng, stats)
                Y[:], R = np.linalg.qr(Y)
                Y *= np.sign(np.diag(R))
                tr.append(float(np.einsum("ij,i,ij->", Y, system.lam, Y)))
            t += 1
        Q = np.array(traces)
        late, early = Q[:, t // 2 : t], Q[:, t // 4 : t // 2]
        n_b = 4
        bl = (
            late[:, : (late.shape[1] // n_b) * n_b]
            .reshape(len(chains), n_b, -1)
            .mean(2)
        )
        se_chain = bl.std(ddof=1) / np.sqrt(n_b)
        pooled_late, pooled_early = late.mean(), early.mean()
        se_pooled = se_chain / np.sqrt(len(chains))
        between = np.max(np.abs(late.mean(1) - pooled_late)) / max(
            se_chain, 1e-300
        )
        drift = abs(pooled_late - pooled_early) / max(
            se_pooled * np.sqrt(2), 1e-300
        )
        checks.append(
            {"sweeps": t, "between_z": float(between), "drift_z": float(drift)}
        )
        if between <= z and drift <= z:
            certified = t
            break
        target *= 2
    return {
        "certified": certified,
        "checks": checks,
        "traces": np.array(traces),
        "acceptance": stats.get("accepted", 0)
        / max(1, stats.get("proposals", 0)),
    }


def importance_expectation(B, k: int, fn, n: int, rng=None, chunk: int = 20000):
    """Self-normalised importance-sampling estimate of ``E[fn(V)]`` under
    ``∝ exp(tr(V^T B V))``.

    Proposals are Haar-uniform ``d x k`` frames (exact); weights
    ``exp(tr(V^T B V) - max)``. ``fn`` maps a stack ``(m, d, k)`` to
    ``(m, ...)``. Returns ``(estimate, standard_error, ess)``
    (:func:`dppca.montecarlo.self_normalised_estimate`).
    """
    B = check_symmetric(B, name="B")
    d = B.shape[0]
    k = check_k_at_most(k, d)
    rng = as_generator(rng)
    log_w_all, vals_all = [], []
    done = 0
    while done < n:
        m = min(chunk, n - done)
        G = rng.standard_normal((m, d, k))
        Q, R = np.linalg.qr(G)
        Q = Q * np.sign(np.diagonal(R, axis1=1, axis2=2))[:, None, :]
        log_w_all.append(np.einsum("mik,ij,mjk->m", Q, B, Q))
        vals_all.append(np.asarray(fn(Q), dtype=float))
        done += m
    return self_normalised_estimate(
        np.concatenate(log_w_all), np.concatenate(vals_all)
    )


def mean_statistic_trace(trace) -> np.ndarray:
    """Chaudhuri et al. (2013, Sec. 6.2): ``F_k(T) = ||(1/T) sum_{t<=T}
    X(t)||_F / sqrt(k)``.

    ``trace`` is a sequence of ``d x k`` chain states; returns ``F_k(T)`` for
    ``T = 1..len``.
    """
    X = np.asarray(trace, dtype=float)
    k = X.shape[2]
    running = np.cumsum(X, axis=0) / np.arange(1, X.shape[0] + 1)[:, None, None]
    return np.linalg.norm(running, axis=(1, 2)) / math.sqrt(k)


__all__ = [
    "acg_acceptance",
    "crossing_diagnostic",
    "window_diagnostic",
    "importance_expectation",
    "mean_statistic_trace",
]
