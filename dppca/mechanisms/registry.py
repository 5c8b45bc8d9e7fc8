"""Every mechanism of the package, by name: the one registry.

Each family module declares its mechanisms once, as
:class:`~dppca.mechanisms.spec.MechanismSpec` entries in its ``SPECS``; this
module collects them. :class:`dppca.PrivatePCA` (``mechanism=``), the book's
experiments (:func:`dppca.book.mechanism_table.mechanisms`), chapter 13's
guide, the figures' line styles and the book's map of the mechanisms
(:mod:`dppca.book.mechanism_map`) all read :data:`MECHANISMS`. Adding a
mechanism to the package is its module's ``SPECS`` entry, one line of
``FAMILIES`` here and its words for the map (:data:`DESCRIPTIONS`, unless its
``SPECS`` entry sets them itself); :func:`register` adds one at run time (and
takes it back), and every table derived here follows it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import numbers
from collections.abc import Callable

from . import (
    coinpress,
    complex_gaussian,
    covariance,
    exponential,
    gaussian_approx,
    input_perturbation,
    power_method,
    streaming,
    trace_sensitive,
)
from .spec import DESCRIPTION_FIELDS, NOTION_COLUMN, MechanismSpec

#: The family modules, in the order of :class:`dppca.PrivatePCA`'s guide.
FAMILIES = (
    input_perturbation,
    gaussian_approx,
    complex_gaussian,
    trace_sensitive,
    streaming,
    power_method,
    exponential,
    covariance,
    coinpress,
)

#: The order of the book's experiments (chapters 8, 9 and 12): the papers'
#: mechanisms first, then those after 2019.
EXPERIMENT_ORDER = (
    "ppca",
    "mod_sulq",
    "analyze_gauss",
    "laplace",
    "wishart_published",
    "wishart_delta",
    "gaussian_approx",
    "noisy_power_method",
    "amin",
    "complex_gaussian",
    "trace_sensitive",
    "streaming",
    "coinpress",
)

#: What the book's map of the mechanisms says of each one, in words
#: (:data:`dppca.mechanisms.spec.DESCRIPTION_FIELDS`), filled into its
#: ``MechanismSpec`` where its family module leaves a field empty. The
#: symbols are those of the map's page: ``A`` the second moment of ``n`` rows
#: of norm at most one in ``d`` dimensions, ``q_F`` the captured variance,
#: ``gap`` = λ_k − λ_(k+1) of ``A``, "subspace error" the Frobenius distance
#: between the projections on the released and on the top-k subspace, and
#: ``‖·‖`` the spectral norm. Descriptive only: nothing that runs a
#: mechanism reads them.
DESCRIPTIONS: dict[str, dict[str, str]] = {
    "analyze_gauss": dict(
        releases="A + E, E symmetric with independent Gaussian entries on "
        "and above the diagonal; its top-k eigenvectors and eigenvalues",
        utility="For any data, q_F ≥ q_F(PCA) − 2k‖E‖; if gap ≥ 2‖E‖, "
        "subspace error ≤ 2√k‖E‖/gap (Davis–Kahan). ‖E‖ ≈ 2σ√d with "
        "σ ≤ 2√ln(1.25/δ)/(nε) for ε < 1",
        sample_complexity="n ≳ √(kd)·√ln(1/δ)/(ε·gap) for a fixed subspace "
        "error: its noise grows like √d",
        cost="n·d² to form A, one d×d eigh (order d³); memory d²",
        wins_when="(ε, δ) acceptable, and the explained variance (private "
        "eigenvalues) wanted too, with d small enough for a d×d matrix",
        page="02-gaussian-input-perturbation",
    ),
    "laplace": dict(
        releases="A + L, L symmetric with independent Laplace entries of "
        "scale 2d/(nε) on and above the diagonal; its top-k eigenvectors "
        "and eigenvalues",
        utility="The bounds of Analyze Gauss with ‖L‖ ≈ 4√2·d√d/(nε) in "
        "place of ‖E‖",
        sample_complexity="n ≳ √k·d√d/(ε·gap) for a fixed subspace error",
        cost="n·d² + one d×d eigh; memory d²",
        wins_when="Pure ε-DP is required, with a proof for the program; "
        "small d or large nε, since its noise grows like d√d",
        page="03-laplace-and-wishart",
    ),
    "gaussian_approx": dict(
        releases="The top-k eigenvectors of A + G + Gᵀ, G a d×d matrix of "
        "independent Gaussians; the subspace only",
        utility="Subspace error Õ(√(kd)·s/gap), s ∝ √ln(1/δ)/(nε) the noise "
        "scale, when every gap among the top k eigenvalues is at least gap "
        "and at least √d·s up to logarithms [MV22, up to constants]; its "
        "leading-order error is predicted exactly",
        sample_complexity="n ≳ √(kd)·√ln(1/δ)/(ε·gap), up to logarithms",
        cost="n·d² + one d×d eigh; memory d²",
        wins_when="(ε, δ) acceptable, and only the subspace is needed: "
        "off the diagonal its noise is √2 smaller than Analyze Gauss's at "
        "the same (ε, δ)",
        page="05-gaussian-matrix-approximation",
    ),
    "complex_gaussian": dict(
        releases="A rank-k approximation from the top-k eigenpairs of A + Z, "
        "Z a Hermitian complex Gaussian matrix, made real; PrivatePCA keeps "
        "its top-k subspace",
        utility="Rank-k covariance error Õ(√(kd)·s) when the k-th gap is at "
        "least about √d·s, with no condition on the gaps inside the top k "
        "[MV23, as read from its abstract]; s is the noise scale of "
        "Mangoubi–Vishnoi's real mechanism",
        sample_complexity="n ≳ √d·√ln(1/δ)/(ε·gap) for the gap condition, "
        "up to logarithms",
        cost="n·d² + one d×d Hermitian eigh in complex arithmetic (about "
        "four times the flops of a real one); memory 2d²",
        wins_when="(ε, δ) acceptable, and the top k eigenvalues close "
        "to one another: its guarantee needs only the k-th gap, and its "
        "measured error equals the real mechanism's",
        page="16-complex-gaussian",
    ),
    "trace_sensitive": dict(
        releases="A d×d covariance estimate from rows clipped to a radius "
        "chosen privately: noisy eigenvectors with separately noised "
        "eigenvalues, or the Gaussian mechanism, as its bounds favour; its "
        "top-k subspace",
        utility="‖Ã − A‖_F ≤ 2√(tr(A)·‖E‖) + ‖z‖ for every A, z the "
        "eigenvalue noise (the lemma's 2 cannot be lowered in general; the "
        "package's Rayleigh-quotient release stays inside it): "
        "Õ(d^(1/4)·√(tr(A)/n) "
        "+ √d/n) at fixed (ε, δ) [DLY22], plus the clipping bias",
        sample_complexity="A Frobenius error α needs n ≳ √d·tr(A)/α² + √d/α, "
        "up to logarithms",
        cost="n·d² + one d×d eigh + Rayleigh quotients along its "
        "eigenvectors (order d³); memory d²",
        wins_when="Most rows much shorter than the public bound (small "
        "tr A): there its error is far below Analyze Gauss's; it also "
        "releases a whole covariance matrix",
        page="18-private-covariance",
    ),
    "coinpress": dict(
        releases="A d×d covariance estimate from t Gaussian releases of the "
        "second moment of rows whitened by a matrix refined at every step "
        "and clipped; its top-k subspace",
        utility="Once the whitening has converged, its error in the "
        "Mahalanobis Frobenius norm ‖Σ^(−1/2)(Σ̂ − S)Σ^(−1/2)‖_F over the "
        "rows' own S is of order d²/(n√ρ), from its last step's noise "
        "(measured slope −1 in n); the paper's theorem (Gaussian rows, "
        "I ⪯ Σ ⪯ κI, t = O(log κ) steps) was not checked against its text",
        sample_complexity="n ≳ d²/(α√ρ) for a privacy excess α in that "
        "norm once whitened, plus enough rows for the earlier steps to "
        "converge; the paper's exact bound was not checked by the book",
        cost="t·(n·d² + one d×d eigh); memory d²",
        wins_when="The scale of the data is known only loosely (the rows "
        "may be far shorter than their public bound): its error does not "
        "grow with the looseness, Analyze Gauss's does",
        page="19-coinpress",
    ),
    "streaming": dict(
        releases="A top-k subspace from one pass of Oja steps with private "
        "clipping, one component after another on fresh rows",
        utility="k = 1, sub-Gaussian rows, the paper's schedule: "
        "sin θ = Õ(κ·(√(d/n) + d·√ln(1/δ)/(εn))), κ = λ₁/(λ₁ − λ₂) "
        "[LKJO22]; for k > 1 within a factor k of a lower bound [DS25]. "
        "The book's variant has no proved bound (its error is measured)",
        sample_complexity="n ≳ κ²·d + κ·d·√ln(1/δ)/ε for a constant error: "
        "linear in d [LKJO22]",
        cost="One pass, of order n·d·k flops; memory one minibatch (B×d, "
        "as sparse as the rows) and k vectors of length d; no d×d matrix",
        wins_when="A d too large for a d×d matrix, or rows that can be "
        "read only once; it needs a public assumption on the eigengap (or "
        "a fixed step schedule). Where A fits, Analyze Gauss is more "
        "accurate",
        page="17-streaming-pca",
    ),
    "mod_sulq": dict(
        releases="A + E, E symmetric Gaussian of scale β ≈ (d+1)·"
        "√(2 ln(d²/δ))/(nε) on and above the diagonal; its top-k "
        "eigenvectors and eigenvalues",
        utility="The bounds of Analyze Gauss with ‖E‖ ≈ 2β√d, of order "
        "d√d·√ln(d/δ)/(nε); [CSS13, Thm 15] bounds the top "
        "eigenvector's expected correlation from above when n is small (a "
        "limit, not a guarantee), and the measured correlation respects it",
        sample_complexity="n ≳ d√d·√ln(d/δ)/ε for the top eigenvector "
        "[CSS13, Thm 9], sharp in its rate",
        cost="n·d² + one d×d eigh; memory d²",
        wins_when="Never in practice: the noise of Analyze Gauss, "
        "calibrated about d times too large; kept to reproduce [CSS13]",
        page="02-gaussian-input-perturbation",
    ),
    "noisy_power_method": dict(
        releases="The orthonormalised last of L noisy products A·V + G (V "
        "with p ≥ k columns); its top-k subspace",
        utility="If 5‖G‖ ≤ η·γ at every step, γ = λ_k − λ_(q+1) for some "
        "k ≤ q ≤ p (and G is small along the top q directions), then "
        "sin Θ ≤ η after L = O((λ_k/γ)·ln(dτ/η)) steps, except with "
        "probability τ^(−Ω(p+1−q)) + e^(−Ω(d)) over the random start "
        "[HP14; BDWY16]",
        sample_complexity="n ≳ √(d·L·ln(1/δ))/(ε·η·γ): each step's noise "
        "is σ ≈ 2√(L·ln(1/δ))/(nε) for small ε, and ‖G‖ ≈ σ√d",
        cost="L steps of 2d²p flops with A formed (n·d² once), or 4n·d·p "
        "on the rows, plus a QR of order d·p²; memory d·p (+ d² for A); "
        "no d×d eigh",
        wins_when="A d large enough that a d×d eigendecomposition "
        "dominates, or the rows are spread over machines; Analyze Gauss, "
        "which adds its noise once, keeps the better utility",
        page="14-noisy-power-method",
    ),
    "ppca": dict(
        releases="A k-dimensional subspace drawn from the matrix Bingham "
        "law ∝ exp((nε/2)·tr(VᵀAV)): exactly for k = 1, by a Gibbs chain "
        "stopped after a fixed number of sweeps for k ≥ 2",
        utility="k = 1, λ₁ > λ₂: the top eigenvector's correlation exceeds ρ "
        "with probability ≥ 1 − η once n passes the bound of [CSS13, Thm "
        "7]; none is stated for a stopped chain (k ≥ 2)",
        sample_complexity="k = 1: n > d/(ε·gap·(1−ρ))·(4 ln(1/η)/d + "
        "2 ln(8λ₁/((1−ρ²)·gap))), of order d/(ε·gap) up to logarithms",
        cost="n·d² + one d×d eigh; k = 1: about 1.15√d proposals of order "
        "d each at high concentration; k ≥ 2: each sweep draws k columns, "
        "of order d·k² plus d·k per proposal",
        wins_when="Pure ε-DP with the best dependence on d (n of order d, "
        "not d√d), where a float64 sampler without a proof for the program "
        "is acceptable",
        page="04-exponential-mechanism",
    ),
    "amin": dict(
        releases="The eigenvectors, drawn one at a time, each exactly from a "
        "vector Bingham law on the complement of those drawn, and the top-k "
        "eigenvalues with Laplace noise (k of each)",
        utility="None is stated in the book; measured on a synthetic "
        "spectrum, it is ahead of Laplace input perturbation at small ε and "
        "behind it at large ε",
        sample_complexity="Not derived; its first vector has PPCA's k = 1 "
        "law at that vector's share of ε, so PPCA's bound applies to it",
        cost="n·d² + one d×d eigh + k exact vector draws by rejection, of "
        "order d·k² per proposal",
        wins_when="Pure ε-DP for every k, with exact draws (no Markov "
        "chain) and private eigenvalues, where a float64 sampler without a "
        "proof for the program is acceptable",
        page="11-iterative-eigenvector-sampling",
    ),
    "wishart_delta": dict(
        releases="A + W, W Wishart W_d(d+1, c·I) with c = "
        "1/(2n·ln(1/(1−δ))); its top-k eigenvectors and eigenvalues",
        utility="The bounds of Analyze Gauss with ‖W‖ ≈ 4d·c ≈ 2d/(nδ) in "
        "place of ‖E‖, whatever ε",
        sample_complexity="n ≳ √k·d/(δ·gap) for a fixed subspace error, "
        "whatever ε: hopeless for δ well below 1/n",
        cost="n·d² + a d×(d+1) Gaussian product for W (order d³) + one d×d "
        "eigh; memory d²",
        wins_when="Never at a meaningful δ; the honest (0, δ) repair of the "
        "published Wishart mechanism",
        page="03-laplace-and-wishart",
    ),
    "wishart_published": dict(
        releases="A + W, W Wishart W_d(d+1, 3/(2nε)·I), positive definite; "
        "its top-k eigenvectors and eigenvalues",
        utility="‖A − A_k‖ ≤ λ_(k+1) + 2‖W‖ for the rank-k approximation "
        "A_k of the release, ‖W‖ of order d·ln(d)/(nε) [JXZ16, Thm 9]; moot, "
        "since the release is not private",
        sample_complexity="n ≳ d·ln(d/η)/(ε·(1−ρ²)·gap) for a top "
        "eigenvector whose correlation exceeds ρ with probability 1 − η "
        "[JXZ16, Thm 7, as the book re-derives it]",
        cost="n·d² + a d×(d+1) Gaussian product for W (order d³) + one d×d "
        "eigh; memory d²",
        wins_when="Never: not differentially private as published; it is "
        "only (ε′, 1 − e^(−ε/3))-DP, for every ε′",
        page="03-laplace-and-wishart",
    ),
}


def _described(spec: MechanismSpec) -> MechanismSpec:
    """``spec`` with its words of :data:`DESCRIPTIONS` filled into the
    descriptive fields its family module left empty (nothing else
    changes)."""
    words = {
        name: text
        for name, text in DESCRIPTIONS.get(spec.key, {}).items()
        if name in DESCRIPTION_FIELDS and not getattr(spec, name)
    }
    return dataclasses.replace(spec, **words) if words else spec


def _declared() -> dict[str, MechanismSpec]:
    """The family modules' declarations, by key (their words filled in)."""
    declared = {}
    for family in FAMILIES:
        for spec in family.SPECS:
            _check_spec(spec, declared)
            declared[spec.key] = _described(spec)
    if sorted(declared) != sorted(EXPERIMENT_ORDER):
        raise ImportError(
            "EXPERIMENT_ORDER does not list exactly the declared mechanisms "
            f"{sorted(declared)}"
        )
    unknown = sorted(set(DESCRIPTIONS) - set(declared))
    if unknown:
        raise ImportError(f"DESCRIPTIONS names undeclared mechanisms {unknown}")
    return declared


def _check_spec(spec, known) -> None:
    """Refuse a declaration the estimator could not run or list."""
    if not isinstance(spec, MechanismSpec):
        raise TypeError(
            f"a mechanism is declared as a MechanismSpec; got {spec!r}"
        )
    if not isinstance(spec.key, str) or not spec.key or spec.key == "auto":
        raise ValueError(f"a mechanism's key must be a name; got {spec.key!r}")
    if spec.key in known:
        raise ValueError(f"mechanism {spec.key!r} is already registered")
    if (spec.run is None) == (spec.run_rows is None):
        raise ValueError(
            f"mechanism {spec.key!r} needs exactly one of run and run_rows"
        )
    if spec.notion not in NOTION_COLUMN:
        raise ValueError(
            f"mechanism {spec.key!r}: notion must be one of "
            f"{sorted(NOTION_COLUMN)}; got {spec.notion!r}"
        )
    if spec.auto_rank is not None and spec.forecast_noise is None:
        raise ValueError(
            f"mechanism {spec.key!r}: an auto candidate needs a forecast_noise"
        )
    if not isinstance(spec.guide_rank, numbers.Real):
        raise TypeError(f"mechanism {spec.key!r}: guide_rank must be a number")


#: Every declared or registered mechanism, in the order of registration.
_SPECS: dict[str, MechanismSpec] = _declared()

#: Callables run after every change of the registry (:func:`subscribe`).
_SUBSCRIBERS: list[Callable[[], None]] = []

#: Every mechanism :class:`dppca.PrivatePCA` runs, by name, in the order of
#: its guide (``guide_rank``, then registration). The same dict throughout:
#: :func:`register` updates it in place.
MECHANISMS: dict[str, MechanismSpec] = {}

#: The mechanisms ``mechanism="auto"`` (the default) chooses from, by the
#: forecast of :mod:`dppca.forecast` (the smallest forecast loss), with a
#: ``delta`` (``True``) and without: the specs with an ``auto_rank`` that use
#: δ, or do not, in that rank's order. With the declared mechanisms:
#: Mangoubi and Vishnoi's Gaussian mechanism and Analyze Gauss with δ,
#: Laplace input perturbation without. All are fully proved with the default
#: safe noise and release from the second moment. Updated in place.
AUTO_CANDIDATES: dict[bool, tuple[str, ...]] = {}

#: What ``resolve("auto", delta)`` returns where no forecast is made: the
#: first candidate of :data:`AUTO_CANDIDATES` that releases eigenvalues
#: (Analyze Gauss with δ, Laplace without). Updated in place.
AUTO_MECHANISM: dict[bool, str] = {}

#: Mechanisms that add Laplace or Gaussian noise, drawn through
#: :mod:`dppca.privacy.noise` with the estimator's ``noise`` kind. The others
#: are samplers (PPCA, Amin et al.) or add a Wishart matrix, for which the
#: package has only floating-point implementations (chapter 10). Recomputed
#: by :func:`register`: read it as ``registry.ADDITIVE_NOISE``.
ADDITIVE_NOISE: tuple[str, ...] = ()

#: Mechanisms whose released matrix has private eigenvalues
#: (``explained_variance_`` for every ``n_components``). Recomputed by
#: :func:`register`.
RELEASES_EIGENVALUES: tuple[str, ...] = ()

#: Mechanisms whose fit releases eigenvalues (``explained_variance_``,
#: ``whiten=True``): :data:`RELEASES_EIGENVALUES` and those that release
#: the top of their noisy spectrum (``MechanismSpec.has_spectrum``).
#: Recomputed by :func:`register`.
RELEASES_SPECTRUM: tuple[str, ...] = ()


def _refresh() -> None:
    """Recompute :data:`MECHANISMS` and every table derived from it, then
    tell the subscribers."""
    global ADDITIVE_NOISE, RELEASES_EIGENVALUES, RELEASES_SPECTRUM
    ordered = sorted(_SPECS.values(), key=lambda spec: spec.guide_rank)
    MECHANISMS.clear()
    MECHANISMS.update((spec.key, spec) for spec in ordered)
    specs = MECHANISMS.values()
    ADDITIVE_NOISE = tuple(s.key for s in specs if s.additive_noise)
    RELEASES_EIGENVALUES = tuple(s.key for s in specs if s.releases_eigenvalues)
    RELEASES_SPECTRUM = tuple(s.key for s in specs if s.has_spectrum)
    for with_delta in (True, False):
        candidates = sorted(
            (
                s
                for s in specs
                if s.auto_rank is not None and s.uses_delta == with_delta
            ),
            key=lambda s: s.auto_rank,
        )
        AUTO_CANDIDATES[with_delta] = tuple(s.key for s in candidates)
        spectral = [s.key for s in candidates if s.releases_eigenvalues]
        if spectral:
            AUTO_MECHANISM[with_delta] = spectral[0]
        else:
            AUTO_MECHANISM.pop(with_delta, None)
    for subscriber in list(_SUBSCRIBERS):
        subscriber()


def register(spec: MechanismSpec) -> Callable[[], None]:
    """Add a mechanism to the registry, and return the function that takes
    it back out.

    Parameters
    ----------
    spec : MechanismSpec
        The mechanism's declaration; its ``key`` must be new.

    Returns
    -------
    callable
        ``undo()``: removes the mechanism (a second call does nothing).

    Notes
    -----
    Every table of this module follows at once (:data:`MECHANISMS`, the
    ``auto`` candidates, ``ADDITIVE_NOISE``, ...), and so do the
    estimator's docstring table (:func:`guide_table`) and whatever has
    subscribed (:func:`subscribe`). A registration lasts for the process:
    a test undoes it, or uses :func:`registered`.
    """
    _check_spec(spec, _SPECS)
    stored = _SPECS[spec.key] = _described(spec)

    def undo() -> None:
        if _SPECS.get(spec.key) is stored:
            del _SPECS[spec.key]
            _refresh()

    _refresh()
    return undo


@contextlib.contextmanager
def registered(spec: MechanismSpec):
    """A context in which ``spec`` is registered (:func:`register`).

    Parameters
    ----------
    spec : MechanismSpec
        The mechanism's declaration; its ``key`` must be new.

    Yields
    ------
    MechanismSpec
        ``spec``; it is removed when the context ends.
    """
    undo = register(spec)
    try:
        yield spec
    finally:
        undo()


def subscribe(callback: Callable[[], None]) -> None:
    """Run ``callback()`` after every change of the registry (the estimator
    rebuilds its docstring's table so).

    Parameters
    ----------
    callback : callable
        Called with no argument.
    """
    _SUBSCRIBERS.append(callback)


def guide_table() -> str:
    """The estimator's table of mechanisms, from the registry: each key,
    its privacy notion and whether it is fully proved with the default
    noise (``MechanismSpec.proof``), in reStructuredText.

    Returns
    -------
    str
        A simple table, one row per mechanism of :data:`MECHANISMS`.
    """
    header = ("mechanism", "privacy", "fully proved (default noise)?")
    rows = [
        (f'``"{key}"``', NOTION_COLUMN[spec.notion], spec.proof or "not stated")
        for key, spec in MECHANISMS.items()
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(3)]
    rule = "  ".join("=" * width for width in widths)

    def line(row):
        return "  ".join(
            cell.ljust(width) for cell, width in zip(row, widths)
        ).rstrip()

    return "\n".join([rule, line(header), rule, *map(line, rows), rule])


_refresh()


#: Keyword parameters of the mechanism functions that ``mechanism_options``
#: may not set: the estimator's own (``rng``, the outputs it asks for) and
#: caches or diagnostics, which would keep values computed from the rows in
#: the estimator's parameters.
INTERNAL_OPTIONS = frozenset(
    {
        "rng",
        "noise",
        "output",
        "return_spectrum",
        "return_run",
        "moment_cache",
        "diagnostics",
        "n_rows",
    }
)

#: The mechanisms by their key in the book's experiments.
BY_EXPERIMENT_KEY = {
    MECHANISMS[key].experiment_key: MECHANISMS[key] for key in EXPERIMENT_ORDER
}


def resolve(mechanism, delta) -> tuple[str, MechanismSpec]:
    """``(name, spec)`` of the ``mechanism`` parameter of
    :class:`dppca.PrivatePCA` (``"auto"`` resolved by ``delta``).

    Parameters
    ----------
    mechanism : str
        ``"auto"`` or a key of :data:`MECHANISMS`.
    delta : float or None
        The estimator's δ.

    Returns
    -------
    tuple
        The key and its :class:`~dppca.mechanisms.spec.MechanismSpec`.
    """
    if mechanism == "auto":
        name = AUTO_MECHANISM[delta is not None]
        return name, MECHANISMS[name]
    if mechanism not in MECHANISMS:
        raise ValueError(
            f"mechanism must be 'auto' or one of {sorted(MECHANISMS)}; "
            f"got {mechanism!r}"
        )
    return mechanism, MECHANISMS[mechanism]


__all__ = [
    "ADDITIVE_NOISE",
    "RELEASES_SPECTRUM",
    "AUTO_CANDIDATES",
    "AUTO_MECHANISM",
    "BY_EXPERIMENT_KEY",
    "DESCRIPTIONS",
    "EXPERIMENT_ORDER",
    "FAMILIES",
    "INTERNAL_OPTIONS",
    "MECHANISMS",
    "MechanismSpec",
    "RELEASES_EIGENVALUES",
    "guide_table",
    "register",
    "registered",
    "resolve",
    "subscribe",
]
