"""PPCA: the exponential mechanism for the top-k principal subspace
(Chaudhuri, Sarwate and Sinha
2013, Algorithm 2 and Theorem 6).

The mechanism releases ``V`` (``d x k``, orthonormal columns) with density ``∝
exp((ε/2) · n tr(V^T A V))`` where ``A = X^T X / n``: the exponential mechanism
of McSherry and Talwar (2007) with score ``n tr(V^T A V) = ||X V||_F^2`` of
sensitivity 1. This is the matrix Bingham distribution with parameter
``B = (n ε / 2) A`` (Chaudhuri et al. 2013, eq. (6)); samplers live in
``dppca.samplers.bingham``.
"""

from __future__ import annotations

import math

import numpy as np

from ..exceptions import NotPrivateWarning, PrivacyWarning, warn
from ..float_state import owns_float_state
from ..linalg.dense import top_k_subspace
from ..privacy.guarantees import FLOAT_SAMPLER_CAVEAT, Release, released
from ..samplers import bingham
from ..validation import (
    as_generator,
    check_choice,
    check_data,
    check_epsilon,
    check_k,
    check_n,
    check_orthonormal,
    check_positive_int,
    check_second_moment,
    check_symmetric,
)
from .padding import restated, second_moment_for
from .spec import MechanismSpec

#: Privacy notion of each mechanism of this module, including what the book
#: found.
PRIVACY = {
    "ppca": "ε-DP (pure) for an exact draw from the matrix Bingham "
    "distribution (Chaudhuri et al. 2013, Theorem 6). "
    "For k = 1 the default sampler is exact (rejection from an ACG envelope), "
    "so the "
    "release is ε-DP up to floating point. For k > 1 every available sampler "
    "is a Markov "
    "chain stopped after finitely many sweeps: if its law is within total "
    "variation t of "
    "the target for every data set, the release is only (ε, δ)-DP with δ = (1 "
    "+ e^ε) t, "
    "and t is estimated by diagnostics, not proved. The sweep count must be "
    "fixed "
    "independently of the data (choosing it by a diagnostic run on the private "
    "data "
    "leaks information).",
}

#: Samplers accepted by :func:`ppca` (keyword ``sampler``).
SAMPLERS = ("fast", "hoff")

#: Sweeps used when none are given: fixed, data-independent (see PRIVACY).
DEFAULT_SWEEPS = {"fast": 50, "hoff": 20000}


def ppca_score(X, V) -> float:
    """The score ``n tr(V^T A V) = ||X V||_F^2`` of the exponential mechanism
    (Chaudhuri et al. 2013, Sec. 4.1)."""
    X = check_data(X)
    V = check_orthonormal(V)
    if V.shape[0] != X.shape[1]:
        raise ValueError(
            f"V has {V.shape[0]} rows but X has {X.shape[1]} columns"
        )
    return float(np.sum((X @ V) ** 2))


def score_sensitivity(X, X_neighbour, V) -> float:
    """|score(X', V) - score(X, V)| for two data sets of the same size (at
    most 1, Theorem 6)."""
    X, Xp = check_data(X), check_data(X_neighbour, name="X_neighbour")
    if X.shape != Xp.shape:
        raise ValueError("replace-one neighbours must have the same shape")
    return abs(ppca_score(Xp, V) - ppca_score(X, V))


#: Global sensitivity of the score under replace-one neighbours with rows of
#: norm <= 1.
SCORE_SENSITIVITY = 1.0


def bingham_parameter(A, n: int, epsilon) -> np.ndarray:
    """``B = (n ε / 2) A``, the matrix Bingham parameter of PPCA
    (Chaudhuri et al. 2013, Algorithm 2)."""
    A = check_symmetric(A, name="A")
    return (check_n(n) * check_epsilon(epsilon) / 2.0) * A


def ppca_guarantee(
    n, d, k, epsilon, *, sampler="fast", n_sweeps=None, V0=None
) -> Release:
    """Guarantee record of PPCA with these sampler settings.

    ε-DP (pure) holds for an exact draw from the matrix Bingham law (Theorem
    6). ``k = 1`` with the fast sampler draws exactly (in real arithmetic; the
    sampler is a float64 program). Otherwise the release comes from a Gibbs
    chain stopped after finitely many sweeps: within total variation t of the
    target, hence only (ε, (1 + e^ε) t)-DP, with t estimated by diagnostics and
    not proved (chapter 4). A caller's ``V0`` that depends on the data voids
    even that. So PPCA is never recorded as proved, and a chain's release is
    of kind ``"ideal"``: its ε is that of the exact law, and the accountant
    refuses to compose it (no (ε, δ) is proved for it). A chain started at
    the data's own top-k subspace (``V0="pca"``) has no guarantee at all: a
    record of kind ``"none"``, with ε = inf.
    """
    exact = sampler == "fast" and k == 1 and V0 is None
    caveats = [FLOAT_SAMPLER_CAVEAT]
    if not exact:
        sweeps = DEFAULT_SWEEPS.get(sampler) if n_sweeps is None else n_sweeps
        caveats.insert(
            0,
            f"Gibbs chain ({sampler}, {sweeps} sweeps) stopped at a fixed "
            "length: within an estimated, not proved, total variation t of "
            "the exact law, so only (ε, (1 + e^ε)·t)-DP",
        )
    if isinstance(V0, str) and V0 == "pca":
        caveats.insert(
            0,
            "chain started from the data's own top-k subspace (V0='pca'): "
            "not ε-DP, not even approximately",
        )
    elif V0 is not None:
        caveats.insert(
            0,
            "chain started from a caller's V0: not ε-DP if V0 depends on the "
            "data",
        )
    no_guarantee = isinstance(V0, str) and V0 == "pca"
    kind = "none" if no_guarantee else "pure" if exact else "ideal"
    return Release(
        "PPCA",
        kind,
        math.inf if no_guarantee else float(epsilon),
        noise="float sampler",
        sampler="exact" if exact else "approximate",
        proved=False,
        caveat="; ".join(caveats),
        theorem="[CSS13, Thm 6]",
        chapter="chapter 4",
    )


@owns_float_state
def ppca_from_second_moment(
    A,
    n: int,
    k: int,
    *,
    epsilon,
    rng=None,
    sampler: str = "fast",
    n_sweeps: int | None = None,
    V0=None,
) -> np.ndarray:
    """PPCA from ``A = X^T X / n`` and ``n``.

    ``k = 1`` with the fast sampler is an exact draw
    (``dppca.samplers.bingham.sample_vector_bingham``); otherwise a Gibbs chain
    (``sampler`` = ``"fast"`` or ``"hoff"``) runs ``n_sweeps`` sweeps (a
    positive integer, never truncated; defaults ``DEFAULT_SWEEPS``) from a
    Haar-uniform start. Returns a ``d x k`` orthonormal ``V``.

    ``A`` and ``n`` are checked by :func:`dppca.validation.check_second_moment`;
    the caller vouches that ``A`` is ``X^T X / n`` of the ``n`` rows (each of
    norm at most one) of the data set and that ``n`` is its true number of rows.
    Concentrations ``nε/2 · spread(A)`` above
    ``dppca.samplers.bingham.MAX_CONCENTRATION`` are refused (no exact draw is
    possible in float64).

    ``V0`` (shape ``(d, k)``, orthonormal columns, both checked) replaces the
    random start. A finite chain's output depends on its start, so a ``V0``
    computed from the private data (for instance the non-private PCA, the
    natural "warm start") leaks information that the exponential mechanism's
    guarantee does not cover: passing ``V0`` emits a

    :class:`~dppca.exceptions.PrivacyWarning`. A data-independent ``V0`` is
    harmless; silence the warning then with :func:`warnings.catch_warnings`.

    Parameters
    ----------
    A : array-like of shape (n_features, n_features)
        The second moment ``XᵀX/n`` of rows of norm at most 1.
    n : int
        The number of rows behind ``A``.
    k : int
        The dimension of the released subspace.
    epsilon : float
        The ε of the exponential mechanism, > 0.
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness; ``None`` draws fresh entropy (never a fixed seed).
    sampler : {"fast", "hoff"}, default="fast"
        The Gibbs sampler (``k = 1`` with ``"fast"`` draws exactly).
    n_sweeps : int, optional
        Sweeps of the chain; default ``DEFAULT_SWEEPS[sampler]``.
    V0 : array-like of shape (n_features, k), optional
        A start for the chain instead of a Haar-uniform one (see above).

    Returns
    -------
    Released of shape (n_features, k)
        Orthonormal columns, with their guarantee record (``.guarantee``).
    """
    A, n = check_second_moment(A, n)
    d = A.shape[0]
    k = check_k(k, d)
    B = bingham_parameter(A, n, epsilon)
    # B's spread is at most n ε / 2 (A's eigenvalues lie in [0, 1]): checked
    # on that public value, so the samplers' check of B itself never fires
    bingham.check_concentration(n * float(epsilon) / 2 * (1 + 1e-8))
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler must be one of {SAMPLERS}; got {sampler!r}")
    sweeps = (
        DEFAULT_SWEEPS[sampler]
        if n_sweeps is None
        else check_positive_int(n_sweeps, "n_sweeps")
    )
    if V0 is not None:
        V0 = bingham.start_frame(V0, d, k, None)
        warn(
            "PPCA started from a caller-supplied V0: if V0 depends on the "
            "private data, "
            "the output of the finite chain leaks it beyond the ε of the "
            "exponential "
            "mechanism; use the default Haar-uniform start unless V0 is "
            "data-independent",
            NotPrivateWarning,
            stacklevel=3,
        )
    rng = as_generator(rng)
    record = ppca_guarantee(
        n, d, k, epsilon, sampler=sampler, n_sweeps=sweeps, V0=V0
    )
    if sampler == "fast" and k == 1 and V0 is None:
        V = bingham.sample_vector_bingham(B, rng=rng)[:, None]
    elif sampler == "fast":
        V = bingham.fast_gibbs(B, k, sweeps, V0=V0, rng=rng)
    else:
        V = bingham.hoff_gibbs(B, k, sweeps, V0=V0, rng=rng)
    return released(V, record)


@owns_float_state
def ppca(
    X,
    k: int,
    *,
    epsilon,
    rng=None,
    max_samples: int | None = None,
    **sampler_options,
) -> np.ndarray:
    """PPCA (Chaudhuri et al. 2013, Algorithm 2): a ``d x k`` orthonormal
    ``V`` drawn ∝ exp((ε/2) ||X V||_F^2).

    ``X`` is ``n x d`` with rows of norm at most 1 (checked), dense or
    ``scipy.sparse`` (only ``X^T X / n`` is used). ``sampler_options`` go to
    :func:`ppca_from_second_moment` (``sampler``, ``n_sweeps``, ``V0``). See
    :data:`PRIVACY` for what a finite chain guarantees.

    Parameters
    ----------
    X : array-like or scipy.sparse matrix of shape (n_samples, n_features)
        The rows, each of ℓ₂ norm at most 1 (checked; one just above 1, within
        the float tolerance, is scaled to 1; with ``max_samples`` every row
        is shrunk for N rows: :mod:`dppca.mechanisms.padding`).
    k : int
        The dimension of the released subspace, 1 ≤ k < n_features.
    epsilon : float
        The ε of the exponential mechanism, > 0.
    rng : None, int, SeedSequence or Generator, optional
        Source of randomness; ``None`` draws fresh entropy (never a fixed seed).
    max_samples : int or None, default=None
        ``None``: replace-one neighbours, n public. An integer N, a public
        cap: add/remove-one neighbours, n private, for data sets of 1 to N
        rows (more are refused before anything random is drawn). The
        mechanism runs on XᵀX/N (X padded with zero rows) with n = N: its
        density ∝ exp((ε/2)·N tr(VᵀAV)) with A = XᵀX/N is exp((ε/2)
        ‖XV‖_F²), the exponential mechanism whose score moves by at most
        ‖x‖² ≤ 1 when a row is added or removed
        (:mod:`dppca.mechanisms.padding`). The concentration Nε/2 must stay
        within the samplers' range (checked on those public values).
    **sampler_options
        ``sampler``, ``n_sweeps``, ``V0``: see :func:`ppca_from_second_moment`.

    Returns
    -------
    Released of shape (n_features, k)
        Orthonormal columns, with their guarantee record (``.guarantee``).
        With ``max_samples=N`` the record names the add/remove relation and
        n is not released; the subspace needs no rescaling (that of XᵀX/N
        is that of XᵀX/n).
    """
    # validates X (dense or sparse, dtype-aware tolerance)
    A, n = second_moment_for("ppca", X, max_samples)
    k = check_k(k, A.shape[0])
    epsilon = check_epsilon(epsilon)
    V = ppca_from_second_moment(
        A, n, k, epsilon=epsilon, rng=rng, **sampler_options
    )
    return restated(V, max_samples)


# ------------------------------------------------------------------------------
# The declaration: PPCA, once
# ------------------------------------------------------------------------------


def _run(A, n, k, epsilon, delta, rng, options):
    options = dict(options)
    if isinstance(options.get("V0"), str) and options["V0"] == "pca":
        options["V0"] = top_k_subspace(A, k)  # data-dependent: warned before
    V = ppca_from_second_moment(A, n, k, epsilon=epsilon, rng=rng, **options)
    return V, None, None


def _guarantee(n, d, k, epsilon, delta, options):
    return ppca_guarantee(
        n,
        d,
        k,
        epsilon,
        sampler=options.get("sampler", "fast"),
        n_sweeps=options.get("n_sweeps"),
        V0=options.get("V0"),
    )


def check_public_concentration(n, epsilon) -> None:
    """Refuse ``n ε`` beyond the samplers' range from public values only:
    ``B = (n ε / 2) A`` has eigenvalue spread at most ``n ε / 2`` (``A``'s
    eigenvalues lie in [0, 1]), so the samplers' own check of the data's
    ``B`` can never fire after a charge."""
    bingham.check_concentration(n * epsilon / 2 * (1 + 1e-8))


def _check_options(options, n, d, k, epsilon) -> dict:
    """PPCA's ``mechanism_options`` checked from public values."""
    check_choice(options.get("sampler", "fast"), SAMPLERS, "sampler")
    if options.get("n_sweeps") is not None:
        check_positive_int(options["n_sweeps"], "n_sweeps")
    start = options.get("V0")
    if start is not None and not isinstance(start, str):
        bingham.start_frame(start, d, k, rng=None)  # shape and orthonormality
    check_public_concentration(n, epsilon)
    return dict(options)


def _warn_options(options, k, stacklevel):
    """The estimator's warnings about a PPCA chain (before any noise)."""
    sampler = options.get("sampler", "fast")
    default = DEFAULT_SWEEPS.get(sampler)
    sweeps = options.get("n_sweeps")
    exact = sampler == "fast" and k == 1 and options.get("V0") is None
    if not exact and sweeps is not None and default and sweeps < default:
        warn(
            f"PPCA with k = {k} runs a Gibbs chain; {sweeps} sweeps is "
            f"fewer than the default {default}, so the release is further "
            "from the exact ε-DP law "
            "(dppca.mechanisms.exponential.PRIVACY)",
            PrivacyWarning,
            stacklevel=stacklevel,
        )
    start = options.get("V0")
    if isinstance(start, str):
        if start != "pca":
            raise ValueError(f"V0 must be an array or 'pca'; got {start!r}")
        warn(
            "V0='pca' starts the chain at the non-private top-k subspace "
            "of the data: a data-dependent starting frame, so the "
            "release is not ε-DP",
            NotPrivateWarning,
            stacklevel=stacklevel,
        )
    elif start is not None:
        warn(
            "PPCA started from a caller-supplied V0: if it was computed "
            "from the private data, the finite chain's output leaks it "
            "beyond ε; pass only a data-independent frame",
            NotPrivateWarning,
            stacklevel=stacklevel,
        )


#: The mechanism of this family (:mod:`dppca.mechanisms.registry`).
SPECS = (
    MechanismSpec(
        key="ppca",
        person_level=(
            "exponential mechanism with the linear score N·tr(VᵀAV): "
            "its sensitivity is a supremum of |tr(Vᵀ D V)|"
        ),
        label="PPCA",
        notion="pure",
        uses_delta=False,
        uses_epsilon=True,
        run=_run,
        guarantee=_guarantee,
        privacy=PRIVACY["ppca"],
        options_of=ppca_from_second_moment,
        check_options=_check_options,
        warn_options=_warn_options,
        guide_rank=100,
        proof="no: float64 sampler; for k ≥ 2 a finite Gibbs chain (opt in)",
    ),
)
