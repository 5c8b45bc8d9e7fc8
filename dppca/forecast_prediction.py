"""A typical-loss prediction beside the forecast's bound.

:mod:`dppca.forecast` bounds the captured variance a fit can lose, for every
data set within the public bounds at once; on any one data set the bound is
loose by factors of tens to thousands. This module *predicts* the loss of one
fit instead: its typical size, not a bound. It needs what the bound does
without, the spectrum of the data.

**The model.** Work in units of ``B²`` (rows divided by the bound ``B`` the
mechanism sees). Let ``λ₁ ≥ … ≥ λ_d`` be the eigenvalues of the rows'
covariance ``C`` (about their true mean) and ``v_i`` its eigenvectors. The
mechanism sees ``C + w wᵀ + E``: ``w = μ − μ̂`` is the error of the private
mean, ``E`` symmetric noise whose off-diagonal entries have standard deviation
``s``. The loss of a released k-subspace ``V̂`` is ``Σ_{i≤k} λ_i − tr V̂ᵀCV̂``.
Three effects make it up, each computed from ``(λ, k, s, ω)`` with ``ω =
E‖w‖²``:

1. *Mixing by the noise* (second-order perturbation). To first order the top
   eigenvector ``v_i`` of the noisy matrix gains a component
   ``E_ij / (λ_i − λ_j)`` along every ``v_j``. Only components that leave the
   top-k subspace cost: the share ``E_ij²/(λ_i − λ_j)²`` of direction ``i``
   moved to a direction ``j > k`` captures ``λ_j`` instead of ``λ_i``, a loss
   of ``E_ij²/(λ_i − λ_j)``. With ``E E_ij² = s²`` the expected loss is
   ``Σ_{i≤k<j} s²/(λ_i − λ_j)``. Two caps keep the expansion in its range:
   a pair can at most mix completely (a rotation of 45°, which loses half the
   gap: each term at most ``(λ_i − λ_j)/2``), and a direction can at most be
   replaced by one from outside the top k, which captures about their mean
   ``λ̄_out``: the loss of direction ``i`` is at most ``λ_i − λ̄_out``.
2. *The spike threshold.* For a spike ``λ`` over a null bulk the sum is
   ``d s²/λ``, which reaches ``λ`` at ``λ = s√d``: the threshold of Baik, Ben
   Arous and Péché for a Wigner matrix of semicircle radius ``2s√d``, below
   which the top eigenvector of the noisy matrix carries no trace of the
   spike. The second-order share ``d s²/λ²`` is the exact asymptotic
   ``1 − cos²`` of a spike above the threshold, so the cap of point 1 is where
   a spike is lost, and a lost direction captures what an outside one does.
3. *The mean's error.* ``w wᵀ`` is a rank-one matrix of size ``ω`` in a random
   direction; it can take at most one of the k places, and the cheapest to
   give up is the k-th. Split ``w`` into its part along ``v_k`` (``E = ω/d``)
   and its part ``b`` outside the top k (``E‖b‖² = ω(d − k)/d``, a direction
   that captures about ``λ̄_out``). The competition is a two-level problem:
   diagonal values ``λ_k + ω/d`` and ``λ̄_out + ω(d − k)/d``, coupled by
   ``⟨w, v_k⟩‖b‖``. Its top eigenvector leaves ``v_k`` by an angle ``θ``, and
   the loss is ``(λ_k − λ̄_out) sin²θ``: small when ``ω`` is well below the
   gap, the whole gap when it is well above.

4. *Rows beyond the bound.* The mechanism reads the rows about ``μ̂``,
   ``z + w``, whose mean square norm is about ``c = tr C + ω``. When
   ``c > 1`` they are clipped onto the bound's sphere, each divided by
   about ``√c``: the mechanism sees ``(C + w wᵀ)/c`` plus the same noise.
   The loss is then ``c`` times the loss of the problem with spectrum
   ``λ/c`` and mean error ``ω/c`` (:func:`clipped_loss`; checked against
   rows drawn and clipped, :func:`simulated_rows_loss`).

The sum is capped at a random subspace's loss ``Σ_{i≤k} λ_i − k tr C/d``.
:func:`simulated_loss` draws the model exactly (a noisy matrix with the given
spectrum, Gaussian noise, a Gaussian mean error): the check of the formula
against a known spectrum.

**Which spectrum.** The data's is private.

* :func:`oracle_prediction` reads it from the rows: a check of the model for
  the book, never a release.
* :func:`released_prediction` reads only what a fit released (its
  ``explained_variance_``, ``noise_variance_``, ``row_bound_``,
  ``data_norm_``, ``mechanism_`` and guarantee records) and the public ``n``
  and parameters: post-processing, no extra budget. A spike ``λ`` above the
  threshold pushes the top eigenvalue of the noisy matrix to about ``λ +
  s²d/λ``, so :func:`debiased_spectrum` inverts that relation; the ``d − k``
  trailing eigenvalues are known only through the released mean of their
  positive parts, from which a flat level is solved under the semicircle law.
  When the released values do not clear the noise's edge (small ``nε``), the
  release hides the spectrum, and so does the prediction: ``detected`` says
  how many of the data's values cleared it. The private mean's error is a
  spike of its own, of size about ``ω``: at small ``n`` it is often the
  only released value above the edge, and ``mean_error_spike`` tells
  it from the data's by its law (``χ²_d/d``), so that ``detected`` does not
  count it. With ``detected = 0`` the release shows no direction of the
  data: the fit is about as good as a random subspace, and the predicted
  number is a guess (the data's variance can lie anywhere below the noise).
* :func:`public_prediction` and :func:`rank_plan` need no fit: they take the
  forecast's rows (public) and a spectrum the caller states, a public prior,
  so that ``"auto"`` can rank configurations before the budget is spent.

The released values are those of the matrix the mechanism saw, already
shrunk by any clipping, so :func:`released_prediction` shrinks only the
mean's error, by the least factor ``max(1, ω)`` it forces alone; when that
factor is above 1 and the top released value is read as the mean's
(``mean_error_spike``), the value leaves the data's spectrum.

**What it is not.** A prediction of the typical loss, not a bound: a fit can
lose more (or less); the clipping term is first order (rows of about equal
norm); and where the release hides every value of the data (``detected =
0``) the spectrum behind them is read as the largest the noise could hide,
which overstates the loss of data whose whole variance lies far below the
threshold (chapter 13 measures it).

**How much any prediction can read.** :func:`release_total_variation`
bounds the total variation distance between the laws of the Gaussian
release (``gaussian_approx``) of two data sets whose matrices differ by a
given change. Two data sets whose losses differ by more than 9× but whose
releases are that close cannot both be predicted within 3× with high
probability, by this module or any other function of the release.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from . import forecast as _forecast
from .forecast_model import (
    LossPrediction,
    clip_factor,
    clipped_loss,
    public_prediction,
    rank_plan,
    simulated_loss,
    simulated_rows_loss,
    typical_loss,
)
from .validation import check_k


def _semicircle_positive_part(shift, radius) -> float:
    """``E max(x + shift, 0)`` for ``x`` on the semicircle of ``radius``."""
    if radius <= 0:
        return max(shift, 0.0)
    a = shift / radius
    if a >= 1:
        return shift
    if a <= -1:
        return 0.0
    # ∫_{-a}^{1} (t + a) (2/π) √(1 − t²) dt, in units of the radius
    root = math.sqrt(1.0 - a * a)
    first = (2.0 / math.pi) * (root**3) / 3.0
    second = a * (0.5 + (a * root + math.asin(a)) / math.pi)
    return radius * (first + second)


def debiased_spectrum(released, trailing_mean, d, noise_std) -> np.ndarray:
    """The spectrum a released one points to, with the noise's push taken
    out (module docstring): post-processing of released values.

    Parameters
    ----------
    released : array-like of shape (k,)
        The top k eigenvalues of the noisy matrix, in units of ``B²``.
    trailing_mean : float
        The released mean of the positive parts of the ``d − k`` others
        (``noise_variance_ / B²``).
    d : int
        Number of features.
    noise_std : float
        Off-diagonal standard deviation of the noise, same units.

    Returns
    -------
    ndarray of shape (d,)
        An estimate of the spectrum: each released top value ``ℓ`` above
        the edge ``2s√d`` mapped to the larger root ``λ`` of ``ℓ = λ +
        s²d/λ``; a top value at or below the edge (the noise hides its
        spike) to its excess over the threshold ``s√d``, at most ``s√d``;
        the trailing ``d − k`` set to the flat level whose
        semicircle-smeared positive parts have the released mean (no value
        below that level).
    """
    top = np.sort(np.asarray(released, dtype=float))[::-1]
    k = top.size
    d = int(d)
    check_k(k, d)
    s = float(noise_std)
    sq = s * s * d
    threshold = math.sqrt(sq)
    edge = 2.0 * threshold
    level = _trailing_level(float(trailing_mean), edge)
    spikes = np.full(k, level)
    above = top > edge
    # a spike ℓ above the edge comes from λ with ℓ = λ + s²d/λ
    spikes[above] = 0.5 * (top[above] + np.sqrt(top[above] ** 2 - 4.0 * sq))
    # at or below the edge the noise hides the spike: its excess over the
    # threshold, at most the threshold (the largest hidden spike)
    hidden = ~above
    spikes[hidden] = np.minimum(top[hidden] - threshold, threshold)
    spikes = np.maximum(spikes, level)
    return np.concatenate([spikes, np.full(d - k, level)])


def hidden_reading(released, trailing_mean, d, noise_std) -> float:
    """The variance :func:`debiased_spectrum` reads behind the released top
    values that the noise hides (at or below the edge ``2s√d``): each read
    as its excess over the threshold ``s√d``, at most ``s√d``, the largest
    spike the noise could hide. Post-processing of released values, in
    their units; chapter 13 compares it with the data's whole variance
    where the released prediction misses.

    Parameters
    ----------
    released, trailing_mean, d, noise_std
        As in :func:`debiased_spectrum`.

    Returns
    -------
    float
        The sum of the spectrum read behind the hidden top values.
    """
    top = np.sort(np.asarray(released, dtype=float))[::-1]
    lam = debiased_spectrum(top, trailing_mean, d, noise_std)[: top.size]
    edge = 2.0 * float(noise_std) * math.sqrt(int(d))
    return float(lam[~(top > edge)].sum())


def _trailing_level(mean_positive, radius) -> float:
    """The shift ``m`` with ``E max(x + m, 0) = mean_positive`` on the
    semicircle of ``radius`` (bisection; 0 when even ``m = 0`` gives more,
    since the data's eigenvalues are non-negative)."""
    target = max(mean_positive, 0.0)
    if _semicircle_positive_part(0.0, radius) >= target:
        return 0.0
    lo, hi = 0.0, max(target, radius)
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        if _semicircle_positive_part(mid, radius) < target:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


# -- the noise of a fit, from its public parameters and records ---------------


def _subspace_record(est):
    return est.privacy_releases_[-1]


def fit_noise(est, n):
    """``(s, ω)`` of a fitted :class:`dppca.PrivatePCA`, in units of its
    ``row_bound_²``: the off-diagonal standard deviation of the noise its
    mechanism drew with and ``E‖μ̂ − μ‖²`` of its private mean (0 without
    one).

    Reads only public values: ``n``, the estimator's parameters
    (``noise``, ``mechanism_options``) and what the fit released
    (``mechanism_``, ``data_norm_``, ``row_bound_``, the ε and δ of its
    guarantee records ``privacy_releases_``), through the mechanisms' own
    calibration (:func:`dppca.forecast.noise_std`,
    :func:`dppca.forecast.mean_error`).

    Parameters
    ----------
    est : dppca.PrivatePCA
        A fitted estimator whose mechanism has a forecast
        (``dppca.forecast.forecast_mechanisms()``).
    n : int
        Number of rows of the fit (public).

    Returns
    -------
    tuple of float
        ``(s, ω)``.
    """
    d = int(est.n_features_in_)
    record = _subspace_record(est)
    delta = record.delta if record.delta > 0 else None
    s = _forecast.noise_std(
        est.mechanism_,
        int(n),
        d,
        record.epsilon,
        delta,
        est.noise,
        est.mechanism_options,
    )
    omega = 0.0
    means = [
        r for r in est.privacy_releases_ if r.label.startswith("private mean")
    ]
    if means:
        mean = means[0]
        mean_delta = mean.delta if mean.delta > 0 else None
        omega = _forecast.mean_error(
            int(n),
            d,
            float(est.data_norm_),
            mean.epsilon,
            mean_delta,
            est.noise,
        )
    return float(s), float(omega) / float(est.row_bound_) ** 2


def oracle_prediction(est, X) -> LossPrediction:
    """The prediction for a fitted estimator with the *true* spectrum of
    ``X`` (its covariance about its own mean): a check of the model, which
    reads the rows. **Not private**: for the book, never for a release.

    Parameters
    ----------
    est : dppca.PrivatePCA
        Fitted on ``X``.
    X : array-like of shape (n, d)
        The rows of the fit.

    Returns
    -------
    LossPrediction
        In the data's units.
    """
    X = np.asarray(X.todense() if hasattr(X, "todense") else X, dtype=float)
    n = X.shape[0]
    centred = X - X.mean(axis=0)
    B2 = float(est.row_bound_) ** 2
    lam = np.linalg.eigvalsh(centred.T @ centred / n)[::-1] / B2
    s, omega = fit_noise(est, n)
    return clipped_loss(lam, est.n_components_, s, omega).scaled(B2)


def released_prediction(est, n) -> LossPrediction:
    """The prediction for a fitted estimator from what its fit released
    (module docstring): post-processing, no extra budget.

    It reads ``explained_variance_``, ``noise_variance_``, ``row_bound_``,
    ``n_components_`` and what :func:`fit_noise` reads; never a row.

    Parameters
    ----------
    est : dppca.PrivatePCA
        Fitted with a mechanism that releases eigenvalues
        (``dppca.postprocessing.spectrum_mechanisms()``) and has a forecast.
    n : int
        Number of rows of the fit (public).

    Returns
    -------
    LossPrediction
        In the data's units.
    """
    if not hasattr(est, "explained_variance_"):
        raise ValueError(
            f"mechanism {est.mechanism_!r} released no eigenvalues: the "
            "released prediction needs them (use public_prediction with a "
            "stated spectrum)"
        )
    d = int(est.n_features_in_)
    B2 = float(est.row_bound_) ** 2
    s, omega = fit_noise(est, n)
    released = np.asarray(est.explained_variance_, dtype=float) / B2
    trailing = float(est.noise_variance_) / B2
    prediction = prediction_from_release(
        released, trailing, d, est.n_components_, s, omega
    )
    return prediction.scaled(B2)


def prediction_from_release(
    released, trailing_mean, d, k, noise_std, mean_error=0.0
) -> LossPrediction:
    """The prediction from released values, in units of ``B²``: what
    :func:`released_prediction` computes once it has read the fit.

    The released spectrum is debiased (:func:`debiased_spectrum`). The
    released values are those of the matrix the mechanism saw, which
    clipping already shrank, so only the mean's error is shrunk, by the
    least factor it alone forces, ``c = max(1, ω)`` (the data's share of
    the rows' norm is hidden in the noise whenever it matters). When
    ``ω > 1`` the mean's error lies beyond the bound and its spike, about
    ``ω/c ≈ 1``, is the top released value: if :func:`mean_error_spike`
    reads it so, it is the mean's, not the data's, and leaves the data's
    spectrum (the rest move up one place, the last at the trailing level).

    Parameters
    ----------
    released : array-like of shape (k,)
        The top k eigenvalues of the noisy matrix, units of ``B²``.
    trailing_mean : float
        The mean of the positive parts of the ``d − k`` others, same units.
    d : int
        Number of features.
    k : int
        Dimension of the released subspace.
    noise_std : float
        Off-diagonal standard deviation ``s`` of the noise, same units.
    mean_error : float, default=0.0
        ``ω = E‖μ̂ − μ‖²``, same units.

    Returns
    -------
    LossPrediction
        Units of ``B²``, with ``detected``, ``mean_spike`` and
        ``clip_factor`` set.
    """
    released = np.asarray(released, dtype=float)
    d, s, omega = int(d), float(noise_std), float(mean_error)
    lam = debiased_spectrum(released, float(trailing_mean), d, s)
    mean_spike = mean_error_spike(released, d, s, omega)
    c = max(1.0, omega)
    if omega > 1.0 and mean_spike:
        lam = np.r_[lam[1:], lam[-1]]
    prediction = typical_loss(lam, k, s, omega / c).scaled(c)
    above = int(np.sum(released > 2.0 * s * math.sqrt(d)))
    return dataclasses.replace(
        prediction,
        detected=above - int(mean_spike),
        mean_spike=mean_spike,
        clip_factor=c,
    )


#: Two-sided probability outside which a released value is not read as the
#: private mean's error (``mean_error_spike``): ``‖w‖²/ω`` of a
#: Gaussian mean error follows ``χ²_d/d``, and a value beyond its 0.05% and
#: 99.95% quantiles is taken for the data's. A tail probability, not a
#: constant fitted to data.
MEAN_SPIKE_TAIL = 1e-3


def mean_error_spike(released, d, noise_std, mean_error) -> bool:
    """Whether the largest released eigenvalue is the private mean's error
    rather than the data's: post-processing of released values and public
    calibration.

    The matrix the mechanism saw holds ``w wᵀ``, a rank-one spike of size
    ``‖w‖²``, with ``‖w‖²/ω`` distributed as ``χ²_d/d`` for a Gaussian mean
    (``ω = mean_error``). The rows the mechanism reads lie in the ball of
    radius ``B``, so the spike it sees is at most 1 (units of ``B²``: a
    larger error puts every row on the sphere), and the noise moves an
    eigenvalue by at most ``‖E‖₂ ≈ 2s√d``, the noise's edge (Weyl). The
    largest released value is read as the mean's when ``ω`` clears the
    threshold ``s√d``, the value clears the edge, and it lies within the
    edge of the spike's range (the ``χ²`` quantiles of
    :data:`MEAN_SPIKE_TAIL`, each at most 1). A diagnostic: the
    prediction's spectrum keeps the value (module docstring);
    ``LossPrediction.detected`` does not count it.

    Parameters
    ----------
    released : array-like of shape (k,)
        The released top eigenvalues, units of ``B²``.
    d : int
        Number of features.
    noise_std : float
        Off-diagonal standard deviation ``s`` of the noise, units of ``B²``.
    mean_error : float
        ``ω = E‖μ̂ − μ‖²``, units of ``B²`` (0 without a private mean).

    Returns
    -------
    bool
    """
    from scipy.stats import chi2

    top = float(np.max(np.asarray(released, dtype=float)))
    d = int(d)
    sq = float(noise_std) ** 2 * d
    threshold = math.sqrt(sq)
    omega = float(mean_error)
    if omega <= threshold or top <= 2.0 * threshold:
        return False
    tail = MEAN_SPIKE_TAIL / 2
    low, high = np.minimum(omega * chi2.ppf([tail, 1.0 - tail], d) / d, 1.0)
    edge = 2.0 * threshold
    return bool(low - edge <= top <= high + edge)


def release_total_variation(
    change, epsilon, delta, n, *, noise="safe", releases=1, granularity=None
) -> float:
    """An upper bound on the total variation distance between the laws of
    ``releases`` independent ``gaussian_approx`` releases (Mangoubi and
    Vishnoi's ``A + G + Gᵀ``, replace-one calibration on ``n`` rows, as
    :class:`dppca.PrivatePCA` runs it) of two data sets whose unit-normalised
    matrices ``A`` differ by ``change``, when nothing else the fits release
    differs (a public centre and bound, for instance).

    The noise has independent entries on and above the diagonal, of
    variance ``4σ²`` and ``2σ²``, so the Kullback–Leibler divergence of the
    two laws of one release is ``‖change‖_F² / (8σ²)``; it adds up over
    independent releases, and Pinsker's inequality ``TV ≤ √(KL/2)`` turns
    it into the bound. With ``noise="safe"`` each matrix is first rounded to
    the grid ``γ``, which moves their difference by at most ``γd`` in the
    Frobenius norm, and the noise is discrete Gaussian of parameter at least
    ``σ``, whose divergence for means on the grid is at most the continuous
    one (Canonne, Kamath and Steinke 2020).

    Whatever a function ``p`` of the release (a prediction of the loss),
    the events "``p`` within 3× of ``L``" and "within 3× of ``L′``" are
    disjoint when ``L > 9 L′``, so their probabilities under the two laws
    add up to at most ``1 + TV``.

    Parameters
    ----------
    change : array-like of shape (d, d)
        The difference of the two matrices, in units of ``B²`` (rows
        divided by the bound the mechanism sees).
    epsilon, delta : float
        The privacy parameters of the matrix's release.
    n : int
        The number of rows (public).
    noise : {"safe", "float"}, default="safe"
        The noise kind of the fits.
    releases : int, default=1
        Independent releases of each data set (say, one per seed).
    granularity : float or None, default=None
        The grid of safe noise; ``None`` is the mechanism's default.

    Returns
    -------
    float
        The bound, in ``[0, 1]``.
    """
    from .mechanisms import gaussian_approx as mv

    change = np.asarray(change, dtype=float)
    d = change.shape[0] if change.ndim == 2 else 0
    if d == 0 or change.shape != (d, d) or not np.all(np.isfinite(change)):
        raise ValueError("change must be a finite square matrix")
    if isinstance(releases, bool) or int(releases) != releases or releases < 1:
        raise ValueError(f"releases must be an integer >= 1; got {releases!r}")
    if noise == "safe":
        sigma, grid = mv.safe_noise_sigma(
            epsilon, delta, d, "replace_one", n, granularity
        )
        distance = float(np.linalg.norm(change)) + grid * d
    elif noise == "float":
        sigma = mv.noise_sigma(epsilon, delta, "replace_one", n)
        distance = float(np.linalg.norm(change))
    else:
        raise ValueError(f"noise must be 'safe' or 'float'; got {noise!r}")
    divergence = int(releases) * distance**2 / (8.0 * sigma**2)
    return float(min(1.0, math.sqrt(divergence / 2.0)))


__all__ = [
    "LossPrediction",
    "MEAN_SPIKE_TAIL",
    "clip_factor",
    "clipped_loss",
    "debiased_spectrum",
    "fit_noise",
    "hidden_reading",
    "mean_error_spike",
    "oracle_prediction",
    "prediction_from_release",
    "public_prediction",
    "rank_plan",
    "release_total_variation",
    "released_prediction",
    "simulated_loss",
    "simulated_rows_loss",
    "typical_loss",
]
