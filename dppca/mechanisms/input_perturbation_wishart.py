"""Wishart input perturbation (Jiang, Xie and Zhang 2016, Algorithm 2) and
the book's δ-calibrated variant: release A + W for A = XᵀX/n and a Wishart
matrix W (chapter 3).

A member of the input-perturbation family
(:mod:`dppca.mechanisms.input_perturbation`, which declares it with the
others in ``SPECS`` and states its privacy in ``PRIVACY``), kept apart
because its noise is not like theirs: one Wishart matrix, drawn in float64
only, whose privacy proof rests on the continuous law's support and density,
not on independent additive entries that a grid and an exact discrete sampler
could replace (``noise="safe"``, :mod:`dppca.privacy.noise`). The published
mechanism is not the (ε, 0)-DP it claims: its support moves with the data
and it is exactly (ε', 1 − exp(−ε/3))-DP for every ε' ≥ 0; every call warns
(:class:`~dppca.exceptions.NotPrivateWarning`). The δ-calibrated variant is
(0, δ)-DP, recorded as unproved as a program (float64 draws).

Each function returns a :class:`dppca.privacy.guarantees.Released` array
whose ``guarantee`` is built by the mechanism's ``*_guarantee`` function
(``dppca.mechanisms.input_perturbation_guarantees``). The
``*_from_second_moment`` entry points check ``A`` and ``n`` with
:func:`dppca.validation.check_second_moment`; the caller still vouches that
``A`` really is ``XᵀX/n`` of the ``n`` rows of the data set, each of norm at
most one, and that ``n`` is the true number of rows.
"""

from __future__ import annotations

import numpy as np

from ..exceptions import NotPrivateWarning, warn
from ..float_state import owns_float_state
from ..privacy.calibration import wishart_input_scale, wishart_scale_for_delta
from ..privacy.guarantees import released
from ..validation import as_generator, check_second_moment
from .input_perturbation_guarantees import (
    wishart_delta_guarantee,
    wishart_published_guarantee,
)
from .padding import restated, second_moment_for

#: Said at call time by the Wishart mechanism as published (see
#: ``dppca.mechanisms.input_perturbation.PRIVACY``).
WISHART_NOT_DP_MESSAGE = (
    "wishart_input_perturbation is NOT (ε, 0)-DP as claimed by Jiang et al. "
    "(2016, Thm 4): "
    "the support of A + W depends on A, so it is only (ε', 1 − exp(−ε/3))-DP "
    "for every ε' "
    "(chapter 3). Use wishart_input_perturbation_delta for a (0, δ)-DP Wishart "
    "variant."
)


def wishart_noise(
    d: int, scale: float, rng=None, df: int | None = None
) -> np.ndarray:
    """W ~ W_d(m, cI) with m = d + 1 by default, drawn as c GGᵀ with G a d x
    m standard Gaussian
    matrix (the definition of the Wishart law; Muirhead 1982, Definition
    3.1.3)."""
    m = d + 1 if df is None else int(df)
    if m < d:
        raise ValueError(
            f"need df >= d for a non-singular Wishart draw; got df={m}, d={d}"
        )
    G = as_generator(rng).standard_normal((d, m))
    W = G @ G.T  # numpy computes G Gᵀ with a symmetric rank-k update
    W *= scale
    return np.triu(W) + np.triu(W, 1).T  # exact symmetry, whatever BLAS does


@owns_float_state
def wishart_input_perturbation_from_second_moment(
    A, n: int, *, epsilon: float, rng=None
) -> np.ndarray:
    """Wishart input perturbation on A = XᵀX/n (Jiang et al. 2016, Algorithm
    2): A + W with W ~ W_d(d+1, C), C = 3/(2nε) I. See
    ``dppca.mechanisms.input_perturbation.PRIVACY``: the claimed (ε, 0)-DP
    does not hold, and every call emits a
    :class:`~dppca.exceptions.PrivacyWarning`.

    ``A`` and ``n`` are checked by :func:`dppca.validation.check_second_moment`;
    the caller vouches that ``A`` is ``XᵀX/n`` of the ``n`` rows (each of norm
    at most one) of the data set and that ``n`` is its true number of rows.
    """
    warn(WISHART_NOT_DP_MESSAGE, NotPrivateWarning, stacklevel=3)
    A, n = check_second_moment(A, n)
    record = wishart_published_guarantee(n, A.shape[0], epsilon)
    noisy = A + wishart_noise(A.shape[0], wishart_input_scale(n, epsilon), rng)
    return released(noisy, record, warn=False)  # warned above, in full


@owns_float_state
def wishart_input_perturbation(
    X, *, epsilon: float, rng=None, max_samples: int | None = None
) -> np.ndarray:
    """Wishart input perturbation as published (Jiang, Xie and Zhang 2016,
    Algorithm 2).

    Returns XᵀX/n + W, W ~ W_d(d+1, 3/(2nε) I), always positive definite.
    Theorem 4 of the paper claims (ε, 0)-DP; chapter 3 shows the support of the
    output moves with the data and the mechanism is exactly (ε', 1 −
    e^(−ε/3))-DP for all ε' ≥ 0, not better. Every call therefore emits a
    :class:`~dppca.exceptions.PrivacyWarning`, and ``dppca`` does not export
    it: it is imported from this module.

    A matrix release: the function takes no ``k``; it returns the whole
    noisy d × d matrix, and its top-k eigenvectors
    (``dppca.linalg.top_k_subspace``) are post-processing. The privacy
    parameters and ``rng`` are keyword-only.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most 1 (checked; one just above 1, within
        the float tolerance, is scaled to 1; with ``max_samples`` every row
        is shrunk for N rows: :mod:`dppca.mechanisms.padding`).
    epsilon : float
        The ε the paper claims (> 0); the release is only (ε', 1 − e^(−ε/3))-DP.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh entropy.
    max_samples : None, default=None
        Refused (``ValueError``) unless ``None``: a mechanism that is not DP
        has no replace-one proof to carry over to add/remove neighbours
        (:mod:`dppca.mechanisms.padding`).

    Returns
    -------
    Released of shape (n_features, n_features)
        The noisy symmetric second moment with its guarantee record
        (``.guarantee``); its top-k eigenvectors are the private subspace.
    """
    A, n = second_moment_for("wishart_input_perturbation", X, max_samples)
    return wishart_input_perturbation_from_second_moment(
        A, n, epsilon=epsilon, rng=rng
    )


@owns_float_state
def wishart_input_perturbation_delta_from_second_moment(
    A, n: int, *, delta: float, rng=None
) -> np.ndarray:
    """The book's δ-calibrated Wishart variant on A = XᵀX/n: A + W, W ~
    W_d(d+1, cI) with c = 1/(2n log(1/(1−δ))), which is (0, δ)-DP (chapter 3,
    its theorem). Float64 Wishart draws only: the release warns
    (:class:`~dppca.exceptions.UnprovedGuaranteeWarning`).

    ``A`` and ``n`` are checked by :func:`dppca.validation.check_second_moment`;
    the caller vouches that ``A`` is ``XᵀX/n`` of the ``n`` rows (each of norm
    at most one) of the data set and that ``n`` is its true number of rows.
    """
    A, n = check_second_moment(A, n)
    record = wishart_delta_guarantee(n, A.shape[0], delta)
    noisy = A + wishart_noise(
        A.shape[0], wishart_scale_for_delta(n, delta), rng
    )
    return released(noisy, record)


@owns_float_state
def wishart_input_perturbation_delta(
    X, *, delta: float, rng=None, max_samples: int | None = None
) -> np.ndarray:
    """A correctly calibrated Wishart variant (the book's, not the paper's):
    A + W with W ~ W_d(d+1, cI), c = 1/(2n log(1/(1−δ))), which is (0, δ)-DP
    (chapter 3, its theorem). Honest but costly: the noise scale grows like
    1/(nδ).

    A matrix release: the function takes no ``k``; it returns the whole
    noisy d × d matrix, and its top-k eigenvectors
    (``dppca.linalg.top_k_subspace``) are post-processing. The privacy
    parameters and ``rng`` are keyword-only.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most 1 (checked; one just above 1, within
        the float tolerance, is scaled to 1; with ``max_samples`` every row
        is shrunk for N rows: :mod:`dppca.mechanisms.padding`).
    delta : float
        The δ of the (0, δ)-DP guarantee, 0 < δ < 1.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh entropy.
    max_samples : int or None, default=None
        ``None``: replace-one neighbours, n public. An integer N, a public
        cap: add/remove-one neighbours, n private, for data sets of 1 to N
        rows (more are refused before anything random is drawn); the
        mechanism runs on XᵀX/N (X padded with zero rows) with n = N, so
        its scale is c = 1/(2N log(1/(1−δ)))
        (:mod:`dppca.mechanisms.padding`).

    Returns
    -------
    Released of shape (n_features, n_features)
        The noisy symmetric second moment with its guarantee record
        (``.guarantee``); its top-k eigenvectors are the private subspace.
        With ``max_samples=N`` it estimates XᵀX/N, and n is not released:
        to estimate XᵀX/n, multiply it by N/max(1, n̂) for a count n̂
        released by ``dppca.privacy.private_bounds.private_row_count`` (at
        its own ε, composed with this release; post-processing). Its top-k
        eigenvectors need no rescaling.
    """
    A, n = second_moment_for("wishart_input_perturbation_delta", X, max_samples)
    noisy = wishart_input_perturbation_delta_from_second_moment(
        A, n, delta=delta, rng=rng
    )
    return restated(noisy, max_samples)


__all__ = [
    "wishart_input_perturbation",
    "wishart_input_perturbation_from_second_moment",
    "wishart_input_perturbation_delta",
    "wishart_input_perturbation_delta_from_second_moment",
    "wishart_noise",
]
