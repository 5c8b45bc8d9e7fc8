"""The law the peer libraries' eigenvector samplers actually draw from, and
what their acceptance test costs (chapter 12; :mod:`dppca.book.peers` runs
the libraries themselves).

Both diffprivlib's ``Bingham`` mechanism and OpenDP's
``make_private_eigenvector`` are the angular-central-Gaussian (ACG)
rejection sampler of Kent, Ganeiber and Mardia (2018) for the target ``∝
exp(x^T B x)`` with ``A = λ_max(B) I - B``, ``Ω = I + 2A/b``, ``M =
e^{-(d-b)/2} (d/b)^{d/2}``. A proposal has the ACG density ``∝ (x^T Ω
x)^{-d/2}``; the correct acceptance probability is ``exp(-x^T A x) (x^T Ω
x)^{d/2} / M``. Both libraries divide by ``(x^T Ω x)^{d/2}`` instead, so they
accept with probability ``exp(-x^T A x) (x^T Ω x)^{-d/2} / M`` (still at most
1, since ``M >= 1``) and return draws from :func:`flipped_log_density`: ``∝
exp(x^T B x) (x^T Ω x)^{-d}``, not the Bingham law their privacy proof is
about. This module needs neither library.
"""

from __future__ import annotations

import numpy as np

from ..montecarlo import self_normalised_estimate
from ..samplers.bingham import acg_parameter
from ..validation import as_generator, check_symmetric


def acg_envelope(B):
    """``(A, Ω, b)`` of the ACG envelope both libraries build for ``∝ exp(x^T
    B x)``:
    ``A = λ_max I - B``, ``b`` the root of ``Σ 1/(b + 2 a_i) = 1``, ``Ω = I +
    2A/b``."""
    B = check_symmetric(B, name="B")
    lam = np.linalg.eigvalsh(B)
    A = lam[-1] * np.eye(B.shape[0]) - B
    b = acg_parameter(np.clip(lam[-1] - lam, 0.0, None))
    return A, np.eye(B.shape[0]) + 2.0 * A / b, b


def flipped_log_density(B, X) -> np.ndarray:
    """Unnormalised log density, at the unit rows of ``X``, of what the
    libraries sample:
    ``x^T B x - d log(x^T Ω x)`` (proposal ``(x^T Ω x)^{-d/2}`` times their
    acceptance)."""
    B = check_symmetric(B, name="B")
    X = np.atleast_2d(np.asarray(X, dtype=float))
    _, Omega, _ = acg_envelope(B)
    d = B.shape[0]
    return _quadratic_form(B, X) - d * np.log(_quadratic_form(Omega, X))


def bingham_log_density(B, X) -> np.ndarray:
    """Unnormalised log density ``x^T B x`` of the target (the vector Bingham
    law)."""
    B = check_symmetric(B, name="B")
    X = np.atleast_2d(np.asarray(X, dtype=float))
    return _quadratic_form(B, X)


def _quadratic_form(M, X) -> np.ndarray:
    """``x^T M x`` for each row ``x`` of ``X``, read only on the columns of
    ``X`` that are not all zero (the same values: a zero coordinate adds
    nothing). The quadrature of
    :func:`dppca.privacy.three_block_privacy_loss` puts its nodes on three
    coordinates, so in dimension ``d`` this costs ``9/d**2`` of the full
    product."""
    used = np.flatnonzero(np.any(X != 0, axis=0))
    if used.size < X.shape[1]:
        X, M = X[:, used], M[np.ix_(used, used)]
    return np.sum((X @ M) * X, axis=1)


def sphere_expectation(
    log_density, fn, d: int, n: int, rng=None, chunk=200_000
):
    """``E[fn(x)]`` under ``∝ exp(log_density(x))`` on ``S^{d-1}``, by
    self-normalised importance
    sampling from the uniform law. Returns ``(estimate, standard_error,
    ess)``."""
    rng = as_generator(rng)
    log_w, vals = [], []
    done = 0
    while done < n:
        m = min(chunk, n - done)
        G = rng.standard_normal((m, d))
        U = G / np.linalg.norm(G, axis=1, keepdims=True)
        log_w.append(log_density(U))
        vals.append(np.asarray(fn(U), dtype=float))
        done += m
    return self_normalised_estimate(np.concatenate(log_w), np.concatenate(vals))


def log10_acceptance_rates(B, size: int, rng=None) -> tuple[float, float]:
    """``log10`` of the mean acceptance probability per ACG proposal for ``∝
    exp(x^T B x)``:
    ``(correct, flipped)``, the correct test (multiply by ``(x^T Ω x)^{d/2}``)
    and the libraries'
    (divide), estimated from ``size`` proposals of the envelope they both
    build."""
    from scipy.special import logsumexp

    from ..samplers.bingham import acg_log_bound

    B = check_symmetric(B, name="B")
    rng = as_generator(rng)
    lam, U = np.linalg.eigh(B)
    a = lam[-1] - lam
    b = acg_parameter(np.clip(a, 0.0, None))
    d = a.size
    log_m = acg_log_bound(d, b)
    omega = 1.0 + 2.0 * a / b
    Z = rng.standard_normal((int(size), d)) / np.sqrt(omega)
    X = Z / np.linalg.norm(Z, axis=1, keepdims=True)
    s, w = (X * X) @ a, np.log((X * X) @ omega)
    out = []
    for sign in (1.0, -1.0):
        log_p = -s + sign * 0.5 * d * w - log_m
        out.append(float((logsumexp(log_p) - np.log(size)) / np.log(10.0)))
    return out[0], out[1]


__all__ = [
    "acg_envelope",
    "flipped_log_density",
    "bingham_log_density",
    "sphere_expectation",
    "log10_acceptance_rates",
]
