"""The typical-loss model of :mod:`dppca.forecast_prediction`, on its own:
:func:`typical_loss` (and its exact simulation) for a stated spectrum, and
the prediction of a forecast row under a public spectrum
(:func:`public_prediction`, :func:`rank_plan`), and the rows' clipping
(:func:`clip_factor`, :func:`clipped_loss`, :func:`simulated_rows_loss`).

It reads no fit and imports nothing of the forecast, so that
:mod:`dppca.forecast` can use the prediction when ``"auto"`` chooses
(:func:`dppca.forecast.promising`) without an import cycle. The model is
derived in the docstring of :mod:`dppca.forecast_prediction`, which
re-exports every public name here.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from .validation import check_k


def _spectrum(values, d=None) -> np.ndarray:
    """The eigenvalues as a float array, in decreasing order."""
    lam = np.sort(np.asarray(values, dtype=float).ravel())[::-1]
    if lam.size < 2:
        raise ValueError("the spectrum needs at least two eigenvalues")
    if not np.all(np.isfinite(lam)):
        raise ValueError("the spectrum must be finite")
    if d is not None and lam.size != d:
        raise ValueError(f"the spectrum has {lam.size} values, not d = {d}")
    return lam


@dataclass(frozen=True)
class LossPrediction:
    """A typical-loss prediction, in the units of the spectrum it was made
    from (``B²`` for :func:`typical_loss`; the data's units for the
    ``*_prediction`` functions).

    Attributes
    ----------
    loss : float
        The predicted loss of captured variance against PCA's top k:
        ``mixing + mean``, capped at ``random_loss``.
    mixing : float
        The noise's share (points 1 and 2 of the module docstring).
    mean : float
        The private mean's share (point 3).
    random_loss : float
        The loss of a random k-subspace, ``Σ_{i≤k} λ_i − k tr/d``.
    lost_directions : int
        How many of the top k directions are predicted lost (their loss
        reached the cap of a random direction).
    top_variance : float
        ``Σ_{i≤k} λ_i``, what PCA captures.
    detected : int or None
        For :func:`released_prediction`: how many of the data's released
        top eigenvalues clear the noise's edge ``2s√d`` (the others are
        hidden in the noise, and the spectrum behind them is a guess); a
        value read as the private mean's error (``mean_spike``) is not
        counted. ``None`` for a spectrum that was given.
    mean_spike : bool or None
        For :func:`released_prediction`: whether the largest released
        value is read as the private mean's error rather than the data's
        (``mean_error_spike``); ``None`` for a spectrum that was
        given.
    clip_factor : float
        How much the clipping of the rows shrank the matrix the mechanism
        saw (:func:`clip_factor`; 1 when no row is predicted clipped).
    """

    loss: float
    mixing: float
    mean: float
    random_loss: float
    lost_directions: int
    top_variance: float
    detected: int | None = None
    mean_spike: bool | None = None
    clip_factor: float = 1.0

    @property
    def captured_share(self) -> float:
        """The predicted captured variance as a share of PCA's."""
        return 1.0 - self.loss / self.top_variance

    def scaled(self, factor: float) -> LossPrediction:
        """The same prediction in units ``factor`` times larger (``B²``
        for a prediction made in units of ``B²``)."""
        return LossPrediction(
            self.loss * factor,
            self.mixing * factor,
            self.mean * factor,
            self.random_loss * factor,
            self.lost_directions,
            self.top_variance * factor,
            self.detected,
            self.mean_spike,
            self.clip_factor,
        )


def typical_loss(spectrum, k, noise_std, mean_error=0.0) -> LossPrediction:
    """Predict the typical loss of captured variance (module docstring).

    Parameters
    ----------
    spectrum : array-like of shape (d,)
        The eigenvalues of the rows' covariance, in units of ``B²``.
    k : int
        Dimension of the released subspace, ``1 <= k < d``.
    noise_std : float
        Off-diagonal standard deviation ``s`` of the symmetric noise, in the
        same units.
    mean_error : float, default=0.0
        ``ω = E‖μ̂ − μ‖²`` of the private mean, in the same units (0 for a
        public centre).

    Returns
    -------
    LossPrediction
        The prediction, in the units of ``spectrum``.
    """
    lam = _spectrum(spectrum)
    d = lam.size
    k = check_k(k, d)
    s2 = float(noise_std) ** 2
    omega = float(mean_error)
    if s2 < 0 or omega < 0 or not (math.isfinite(s2) and math.isfinite(omega)):
        raise ValueError("noise_std and mean_error must be finite and >= 0")
    mean_value = float(lam.sum()) / d  # what a random direction captures
    top = float(lam[:k].sum())
    random_loss = max(top - k * mean_value, 0.0)
    gaps = lam[:k, None] - lam[None, k:]  # k × (d − k), all >= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        pair = np.where(gaps > 0, s2 / gaps, 0.0)
    pair = np.minimum(pair, gaps / 2.0)
    per_direction = pair.sum(axis=1)
    # a lost direction is replaced by one from outside the top k
    ceiling = np.maximum(lam[:k] - float(lam[k:].mean()), 0.0)
    lost = int(np.sum(per_direction >= ceiling))
    mixing = float(np.minimum(per_direction, ceiling).sum())
    mean = _mean_loss(lam, k, omega)
    loss = min(mixing + mean, random_loss)
    return LossPrediction(loss, mixing, mean, random_loss, lost, top)


def _mean_loss(lam, k, omega) -> float:
    """Point 3 of the module docstring: the two-level competition between
    the k-th direction and the part of the mean's error outside the top k."""
    d = lam.size
    outside = float(lam[k:].mean())  # what the error's outer part captures
    height = lam[k - 1] - outside
    if omega == 0 or height <= 0:
        return 0.0
    inner, outer = omega / d, omega * (d - k) / d  # E⟨w, v_k⟩², E‖b‖²
    split = (lam[k - 1] + inner) - (outside + outer)
    coupling = math.sqrt(inner * outer)
    # the top eigenvector's share off v_k: sin²θ of the 2 × 2 problem
    sin2 = 0.5 * (1.0 - split / math.hypot(split, 2.0 * coupling))
    return height * sin2


def clip_factor(spectrum, mean_error=0.0) -> float:
    """How much clipping the rows to the bound shrinks the matrix the
    mechanism sees: ``c = max(1, ω + Σ λ_i)`` (units of ``B²``).

    The mechanism reads the rows about the private mean, ``x − μ̂ = z + w``
    (``z`` the row about the true mean), whose mean square norm is
    ``E‖z‖² + ‖w‖² = tr C + ω``. While that is below ``B²`` the rows
    are (mostly) inside the bound and the model of :func:`typical_loss`
    holds. When it is above, the rows lie beyond the bound and are put on
    its sphere: each is divided by about ``√c``, so the matrix the
    mechanism sees is ``(C + w wᵀ)/c`` plus the same noise: the data's
    eigenvalues *and* the mean's error shrink by ``c`` while the noise does
    not. First order in the spread of the row norms (rows of equal norm);
    it happens when a released bound (``centered_norm="private"``) comes
    out far below the rows, or when the mean's error is larger than the
    bound.

    Parameters
    ----------
    spectrum : array-like of shape (d,)
        The covariance's eigenvalues (about the true mean), units of ``B²``.
    mean_error : float, default=0.0
        ``ω = E‖μ̂ − μ‖²``, units of ``B²``.

    Returns
    -------
    float
        ``c >= 1``.
    """
    lam = _spectrum(spectrum)
    return max(1.0, float(mean_error) + float(np.maximum(lam, 0.0).sum()))


def clipped_loss(spectrum, k, noise_std, mean_error=0.0) -> LossPrediction:
    """:func:`typical_loss` with the rows' clipping (:func:`clip_factor`):
    the loss of the problem shrunk by ``c``, ``c`` times
    ``typical_loss(λ/c, k, s, ω/c)``, in the units of ``spectrum``. The
    same as :func:`typical_loss` when ``c = 1``.

    Parameters
    ----------
    spectrum, k, noise_std, mean_error
        As in :func:`typical_loss` (units of ``B²``).

    Returns
    -------
    LossPrediction
        Its ``clip_factor`` is ``c``.
    """
    lam = _spectrum(spectrum)
    c = clip_factor(lam, mean_error)
    shrunk = typical_loss(lam / c, k, noise_std, float(mean_error) / c)
    return dataclasses.replace(shrunk.scaled(c), clip_factor=c)


def simulated_rows_loss(
    spectrum, k, noise_std, mean_error=0.0, *, n=2000, repeats=10, rng=None
):
    """Draw the model with rows (the check of :func:`clipped_loss`):
    ``n`` Gaussian rows with covariance ``diag(λ)``, centred by a private
    mean off by ``w ~ N(0, (mean_error/d) I)``, each clipped to the unit
    ball (units of ``B²``), their second moment plus the noise of
    :func:`simulated_loss`; the loss of its top-k subspace against the
    top k of the rows' own covariance.

    Parameters
    ----------
    spectrum, k, noise_std, mean_error
        As in :func:`typical_loss` (units of ``B²``).
    n : int, default=2000
        Rows per draw.
    repeats : int, default=10
        Number of draws.
    rng : None, int or numpy Generator
        The draws' randomness.

    Returns
    -------
    ndarray of shape (repeats,)
        The losses, units of ``B²``.
    """
    lam = _spectrum(spectrum)
    d = lam.size
    k = check_k(k, d)
    gen = np.random.default_rng(rng)
    sigma = float(noise_std) / math.sqrt(2.0)
    out = np.empty(int(repeats))
    for r in range(out.size):
        Z = gen.standard_normal((int(n), d)) * np.sqrt(np.maximum(lam, 0.0))
        Z -= Z.mean(axis=0)
        w = gen.normal(scale=math.sqrt(float(mean_error) / d), size=d)
        rows = Z + w
        rows /= np.maximum(np.linalg.norm(rows, axis=1), 1.0)[:, None]
        G = gen.normal(scale=sigma, size=(d, d))
        V = np.linalg.eigh(rows.T @ rows / int(n) + G + G.T)[1][:, -k:]
        C = Z.T @ Z / int(n)
        top = np.linalg.eigvalsh(C)[::-1][:k].sum()
        out[r] = top - float(np.trace(V.T @ C @ V))
    return out


def simulated_loss(
    spectrum, k, noise_std, mean_error=0.0, *, repeats=20, rng=None
) -> np.ndarray:
    """Draw the model of :func:`typical_loss` exactly: the losses of the
    top-k subspace of ``diag(λ) + w wᵀ + E`` with Gaussian ``E``
    (off-diagonal standard deviation ``noise_std``, diagonal ``√2`` times
    it: the law of ``G + Gᵀ``) and ``w ~ N(0, (mean_error/d) I)``.

    The noise laws are orthogonally invariant, so the loss depends on the
    covariance only through its spectrum: this is the exact law of the loss
    for any covariance with that spectrum (rows inside the bound).

    Parameters
    ----------
    spectrum : array-like of shape (d,)
        Eigenvalues of the covariance, in units of ``B²``.
    k : int
        Dimension of the subspace.
    noise_std, mean_error : float
        As in :func:`typical_loss`.
    repeats : int, default=20
        Number of draws.
    rng : None, int or numpy Generator
        The draws' randomness.

    Returns
    -------
    ndarray of shape (repeats,)
        The losses, in the units of ``spectrum``.
    """
    lam = _spectrum(spectrum)
    d = lam.size
    k = check_k(k, d)
    gen = np.random.default_rng(rng)
    sigma = float(noise_std) / math.sqrt(2.0)
    out = np.empty(int(repeats))
    for r in range(out.size):
        G = gen.normal(scale=sigma, size=(d, d))
        w = gen.normal(scale=math.sqrt(float(mean_error) / d), size=d)
        M = np.diag(lam) + G + G.T + np.outer(w, w)
        V = np.linalg.eigh(M)[1][:, -k:]
        out[r] = lam[:k].sum() - float(np.sum(lam[:, None] * V**2))
    return out


# -- before the fit: public quantities and a stated spectrum ------------------


def public_prediction(row, spectrum, k) -> LossPrediction:
    """The prediction for one configuration of the forecast
    (:class:`dppca.forecast.ForecastRow`) with a spectrum the caller states:
    public quantities only, no data read, no budget spent.

    The row gives the noise (``s = noise_norm / (2√d)`` in units of its
    ``row_bound²``) and the mean's ``E‖μ̂ − μ‖² = mean_loss``; the rows'
    clipping is modelled (:func:`clipped_loss`: a mean error that pushes
    the rows beyond the bound shrinks the data under the noise); the spectrum
    must be public: a prior (the spectrum of a public data set like the
    private one), or a spectrum released earlier and already paid for.

    Parameters
    ----------
    row : dppca.forecast.ForecastRow
        A row of :func:`dppca.forecast.forecast` (or of ``plan``).
    spectrum : array-like of shape (d,)
        The covariance's eigenvalues, in the data's units.
    k : int
        Dimension of the subspace.

    Returns
    -------
    LossPrediction
        In the data's units.
    """
    lam = _spectrum(spectrum)
    B2 = float(row.row_bound) ** 2
    s = float(row.noise_norm) / (2.0 * math.sqrt(lam.size))
    omega = float(row.mean_loss) / B2
    return clipped_loss(lam / B2, k, s, omega).scaled(B2)


def rank_plan(plan, spectrum, k) -> list:
    """The configurations of a forecast plan ranked by their predicted
    loss under a stated public spectrum (:func:`public_prediction`), best
    first: what ``"auto"`` would choose by instead of the bound.

    Parameters
    ----------
    plan : dppca.forecast.Plan
        From :func:`dppca.forecast.forecast` or ``PrivatePCA.plan``.
    spectrum : array-like of shape (d,)
        A public spectrum, in the data's units.
    k : int
        Dimension of the subspace.

    Returns
    -------
    list of (ForecastRow, LossPrediction)
        Sorted by predicted loss.
    """
    pairs = [(row, public_prediction(row, spectrum, k)) for row in plan]
    return sorted(pairs, key=lambda pair: pair[1].loss)


# -- the choice of "auto" (re-exported by dppca.forecast) --------------------


def favourable_spectrum(row, k: int, d: int) -> np.ndarray:
    """The spectrum of the data within the bound that favour PCA most, in
    the data's units: all the variance ``B²`` the bound allows, split evenly
    over ``k`` directions (``B²/k`` each, the largest k-th eigenvalue a
    covariance of trace at most ``B²`` can have; the others 0). The same
    data as the bound's comparison with a random subspace (module
    docstring). Public: ``B``, ``k`` and ``d`` only."""
    B2 = float(row.row_bound) ** 2
    return np.r_[np.full(int(k), B2 / int(k)), np.zeros(int(d) - int(k))]


def _no_better_than_random(prediction) -> bool:
    """The prediction reaches a random k-subspace's loss (its cap)."""
    return bool(prediction.loss >= prediction.random_loss * (1.0 - 1e-12))


def _smallest(pairs):
    """The row of the smallest prediction among ``(row, prediction)``
    pairs; every prediction at a random subspace's loss counts as equal
    (hopeless), and ``min`` keeps the first of equals: the plan's (the
    bound's) order."""

    def key(pair):
        hopeless = _no_better_than_random(pair[1])
        return (hopeless, 0.0 if hopeless else pair[1].loss)

    return min(pairs, key=key)[0]


def ranked_by_spectrum(plan, spectrum):
    """The row ``"auto"`` runs with a stated public ``spectrum``: the
    first of :func:`dppca.forecast_prediction.rank_plan` (the smallest
    predicted loss under that spectrum; ties to the better bound).
    ``plan.best`` when the plan does not say its k and d. Public
    quantities only: the spectrum must itself be public (a prior, or a
    release already paid for)."""
    if plan.k is None or plan.d is None or not 0 < plan.k < plan.d:
        return plan.best
    return _smallest(
        (row, public_prediction(row, spectrum, plan.k)) for row in plan
    )


__all__ = [
    "LossPrediction",
    "clip_factor",
    "clipped_loss",
    "favourable_spectrum",
    "public_prediction",
    "rank_plan",
    "ranked_by_spectrum",
    "simulated_loss",
    "simulated_rows_loss",
    "typical_loss",
]
