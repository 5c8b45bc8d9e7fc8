"""The words of the book's map of the mechanisms
(:mod:`dppca.book.mechanism_map`), by each mechanism's key in
:data:`dppca.mechanisms.registry.MECHANISMS`: descriptive only, apart from
the library (nothing that runs a mechanism reads them).
"""

from __future__ import annotations

#: The words the map of the mechanisms (:mod:`dppca.book.mechanism_map`)
#: needs of every mechanism (:data:`DESCRIPTIONS`): what it releases, its
#: utility bound with the bound's assumptions, the number of rows it needs,
#: its cost in arithmetic, when it wins, and the page of the book (file
#: stem) that teaches it. Its privacy is not restated there: the map reads
#: it from ``short_notion`` and the guarantee record.
DESCRIPTION_FIELDS = (
    "releases",
    "utility",
    "sample_complexity",
    "cost",
    "wins_when",
    "page",
)


#: What the book's map of the mechanisms says of each one, in words
#: (:data:`DESCRIPTION_FIELDS`), by the mechanism's key. The symbols are
#: those of the map's page: ``A`` the second moment of ``n`` rows
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
    "spiked": dict(
        releases="The top-k eigenvectors of A's top-k projector plus "
        "symmetric Gaussian noise, A's top-k eigenvalues and the mean of its "
        "d − k others, each with its own Gaussian noise; the eigengap, "
        "released first as a private lower bound g̃, sets the projector's "
        "noise",
        utility="Subspace error about s·√(k(d − k)), s = 2√2·min(√k, "
        "√2)/(n·g̃·√(1.2ρ)) the projector's noise (its share is 0.6ρ), "
        "while the gap test passes; the paper's minimax optimality in the "
        "spiked model is quoted from its abstract, its constants were not "
        "read. Measured "
        "exponent in n: −1 for the private excess (page 19.2)",
        sample_complexity="n ≳ √(k(d − k))·√ln(1/δ)/(ε·gap·α) for a "
        "subspace error α, once n ≳ ln(1/δ)/(ε·gap) (times a constant) "
        "lets the gap test pass",
        cost="n·d² to form A, two d×d eigh (order d³); memory d²",
        wins_when="Spiked data with a clear eigengap, when the eigenvalues "
        "and the noise level are wanted beside the subspace; its "
        "projector's noise shrinks as the gap grows. Not proved as a "
        "program (an assumed LAPACK error bound): an opt-in",
        page="19-spiked-pca",
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
    "adaptive_kpca": dict(
        releases="A top-k subspace from k rounds of private Oja steps, "
        "round j on its own rows deflated by the j − 1 components already "
        "found; each step's gradient is a private centre plus the "
        "deviations clipped to a private spread, with noise for that "
        "spread",
        utility="The paper's bound (sub-Gaussian rows) is quoted from its "
        "abstract only: near-optimal for k = 1, within a factor k of a "
        "lower bound for k > 1; its constants were not read. The book's "
        "variant has no proved bound; its measured exponent in n on the "
        "spiked model is checked against −1/2 (page 19.3)",
        sample_complexity="n = Õ(d) rows for a constant error at fixed k "
        "(the abstract's claim, not re-derived); each round gets n/k rows",
        cost="One pass, of order n·d·k flops; memory one minibatch and k "
        "vectors of length d; no d×d matrix",
        wins_when="Rows whose matrices x xᵀ vary little about their mean "
        "(low intrinsic randomness): the noise follows the spread of the "
        "gradients, not their size; it needs only a relative gap "
        "assumption (the scale is estimated privately)",
        page="19-adaptive-kpca",
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


def missing_descriptions(key, descriptions=None) -> list[str]:
    """The fields of :data:`DESCRIPTION_FIELDS` that ``descriptions``
    (default :data:`DESCRIPTIONS`) leaves empty for mechanism ``key``."""
    words = (DESCRIPTIONS if descriptions is None else descriptions).get(
        key, {}
    )
    return [
        name
        for name in DESCRIPTION_FIELDS
        if not str(words.get(name, "")).strip()
    ]


__all__ = ["DESCRIPTIONS", "DESCRIPTION_FIELDS", "missing_descriptions"]
