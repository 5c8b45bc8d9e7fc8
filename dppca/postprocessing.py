"""scikit-learn's PCA attributes and methods for :class:`dppca.PrivatePCA`,
as post-processing of what a fit releases.

Nothing here reads the private rows: every quantity is a function of the
released axes ``components_``, the released centre ``mean_``, the released
eigenvalues and total variance, and public figures (n, d, the row bound).
Post-processing of a differentially private release is private with the same
(ε, δ), so none of this spends budget.

The semantics are those of :class:`sklearn.decomposition.PCA` (1.6), with
these differences, all said in :class:`dppca.PrivatePCA`'s docstring:

* ``explained_variance_`` are eigenvalues of the released ``XᵀX/n`` (divided
  by n), scikit-learn's of the covariance divided by n − 1: they differ by
  the factor (n − 1)/n. ``singular_values_ = √(n·max(λ, 0))`` are, like
  scikit-learn's, the singular values of the centred data matrix.
* ``noise_variance_``: scikit-learn averages the min(n, d) − k trailing
  eigenvalues. A mechanism releases only the top k eigenvalues and the sum of
  the positive ones (``total``), so here it is the average over the d − k
  trailing eigenvalues with the negative ones set to zero: ``(total − Σ
  max(λ_i, 0)) / (d − k)``, in the data's units (0 when k = d).
* ``get_covariance`` and ``get_precision`` do not depend on ``whiten``:
  scikit-learn rescales the axes by √λ there when ``whiten=True``, which
  changes the model's likelihood (scikit-learn issue #13898); whitening
  rescales the coordinates ``transform`` returns, not the data's model.
* The probabilistic PCA model ``C = Σ_i max(λ_i, σ²) v_i v_iᵀ + σ²(I −
  VVᵀ)`` exists only when its eigenvalues are positive. At small ε the
  trailing eigenvalues of the noisy matrix can all be ≤ 0 (σ² = 0); then
  ``get_precision``, ``score_samples`` and ``score`` are not available
  (``hasattr`` is False, calling them raises ``AttributeError`` saying why).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from sklearn.utils.validation import check_is_fitted, validate_data

from .mechanisms import registry

#: Floating dtypes kept by ``fit`` and ``transform`` (as scikit-learn's PCA);
#: the computation runs in float64 whatever the input.
FLOATS = (np.float64, np.float32)


def spectrum_mechanisms() -> tuple[str, ...]:
    """The mechanisms whose fit releases eigenvalues
    (``explained_variance_``): the registry's
    ``dppca.mechanisms.registry.RELEASES_SPECTRUM``, read at each call
    (it follows a registration).
    tests/unit/decomposition/test_pca_parity.py checks it against real
    fits."""
    return registry.RELEASES_SPECTRUM


def __getattr__(name):
    # SPECTRUM_MECHANISMS: the registry's RELEASES_SPECTRUM at each access
    if name == "SPECTRUM_MECHANISMS":
        return spectrum_mechanisms()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: The fitted attributes computed from the released spectrum.
SPECTRUM_ATTRIBUTES = (
    "explained_variance_",
    "explained_variance_ratio_",
    "singular_values_",
    "noise_variance_",
)

#: The fitted arrays cast to the input's dtype (float32 in, float32 out).
CAST_ATTRIBUTES = ("components_", "mean_") + SPECTRUM_ATTRIBUTES


def check_whiten(est, mechanism: str) -> None:
    """Refuse ``whiten=True`` from public parameters, before any charge,
    when the mechanism releases no eigenvalues to whiten with."""
    if not isinstance(est.whiten, (bool, np.bool_)):
        raise ValueError(f"whiten must be True or False; got {est.whiten!r}")
    if est.whiten and mechanism not in spectrum_mechanisms():
        raise ValueError(
            f"whiten=True needs released eigenvalues, and mechanism "
            f"{mechanism!r} releases none (it releases only the axes). Use "
            f"one of {sorted(spectrum_mechanisms())}, or whiten=False."
        )


def clear_spectrum(est) -> None:
    """Forget the spectrum of an earlier fit (a refit with a mechanism that
    releases none must not keep it)."""
    for name in SPECTRUM_ATTRIBUTES:
        est.__dict__.pop(name, None)


def spectrum(values, total: float, n: int, d: int, row_bound) -> dict:
    """The fitted attributes of :data:`SPECTRUM_ATTRIBUTES`, from the
    released top k eigenvalues ``values`` and positive total ``total`` of
    the matrix of the rows scaled by ``row_bound`` (module docstring)."""
    k = len(values)
    scale = row_bound**2
    positive = np.maximum(np.asarray(values, dtype=float), 0.0)
    trailing = max(float(total) - math.fsum(positive), 0.0) if k < d else 0.0
    return dict(
        explained_variance_=values * scale,
        explained_variance_ratio_=(
            values / total if total > 0 else np.full(k, np.nan)
        ),
        singular_values_=np.sqrt(positive * scale * n),
        noise_variance_=np.float64(trailing / (d - k) * scale if k < d else 0),
    )


def cast_outputs(fitted: dict, dtype) -> dict:
    """The fitted attributes ``fitted``, with the arrays of
    :data:`CAST_ATTRIBUTES` in the input's dtype (float32 stays float32)."""
    if dtype == np.float64:
        return fitted
    out = dict(fitted)
    for name in CAST_ATTRIBUTES:
        if name in out:
            value = np.asarray(out[name]).astype(dtype)
            out[name] = value if value.ndim else dtype.type(value)
    return out


def _output_dtype(X, est):
    kind = np.asarray(X).dtype if not hasattr(X, "tocsr") else X.dtype
    kind = kind if kind in FLOATS else np.float64
    return np.result_type(kind, est.components_.dtype)


def _whiten_scale(est) -> np.ndarray:
    """√λ per axis, as scikit-learn floors it (at float64's eps), with a
    released λ ≤ 0 (noise) read as 0."""
    scale = np.sqrt(np.maximum(est.explained_variance_.astype(float), 0.0))
    return np.maximum(scale, np.finfo(np.float64).eps)


def project(est, X) -> np.ndarray:
    """``transform``: ``(X − mean_) components_ᵀ``, divided by √λ when
    ``whiten``; in float64, returned in the dtype scikit-learn's PCA
    returns."""
    out = _output_dtype(X, est)
    X = X.astype(np.float64, copy=False)
    axes = est.components_.astype(np.float64, copy=False)
    mean = est.mean_.astype(np.float64, copy=False)
    projected = np.asarray(X @ axes.T) - mean @ axes.T
    if est.whiten:
        projected /= _whiten_scale(est)
    return projected.astype(out, copy=False)


def unproject(est, Z) -> np.ndarray:
    """``inverse_transform``: ``Z components_ + mean_`` (whitening undone)."""
    out = _output_dtype(Z, est)
    Z = np.asarray(Z, dtype=np.float64)
    axes = est.components_.astype(np.float64, copy=False)
    if est.whiten:
        axes = _whiten_scale(est)[:, None] * axes
    return (Z @ axes + est.mean_.astype(np.float64)).astype(out, copy=False)


def _model(est):
    """``(V, model eigenvalues along V, σ²)`` of the probabilistic PCA model,
    in float64."""
    V = est.components_.astype(np.float64)
    sigma2 = float(est.noise_variance_)
    along = np.maximum(est.explained_variance_.astype(np.float64), sigma2)
    return V, along, sigma2


def _has_spectrum(est) -> bool:
    if not hasattr(est, "components_"):
        return True  # the method then raises NotFittedError
    if not hasattr(est, "noise_variance_"):
        raise AttributeError(
            f"the model of the data needs released eigenvalues, and "
            f"mechanism {est.mechanism_!r} releases none; use one of "
            f"{sorted(spectrum_mechanisms())}"
        )
    return True


def _has_model(est) -> bool:
    _has_spectrum(est)
    if not hasattr(est, "components_"):
        return True
    _, along, sigma2 = _model(est)
    k, d = est.components_.shape
    if not (along.min() > 0 and (sigma2 > 0 or k == d)):
        raise AttributeError(
            "the probabilistic PCA model is degenerate for this release: "
            "the released eigenvalues beyond the top k are all ≤ 0 (the "
            "noise swamps the residual variance at this ε and n), so the "
            "model has no finite likelihood. Raise ε or n."
        )
    return True


class available_if:  # lower case: a decorator, as scikit-learn's
    """A method present on an instance only when ``check(instance)`` passes
    (``hasattr`` is then False); like scikit-learn's ``available_if``, but
    the ``AttributeError`` is the check's own, which says why."""

    def __init__(self, check):
        self.check = check

    def __call__(self, method):
        self.method = method
        functools.update_wrapper(self, method)
        return self

    def __get__(self, obj, owner=None):
        if obj is None:
            return self.method
        self.check(obj)
        return self.method.__get__(obj, owner)


class ProbabilisticPCAMixin:
    """scikit-learn PCA's generative model, from the released spectrum:
    ``get_covariance``, ``get_precision``, ``score_samples``, ``score``."""

    @available_if(_has_spectrum)
    def get_covariance(self):
        """The model covariance ``Σ_i max(λ_i, σ²) v_i v_iᵀ + σ²(I −
        VVᵀ)``, σ² = ``noise_variance_`` (scikit-learn's formula)."""
        check_is_fitted(self, "components_")
        V, along, sigma2 = _model(self)
        cov = (V.T * (along - sigma2)) @ V
        cov.flat[:: cov.shape[0] + 1] += sigma2
        return cov.astype(self.components_.dtype, copy=False)

    @available_if(_has_model)
    def get_precision(self):
        """The inverse of :meth:`get_covariance`, in closed form (the axes
        are orthonormal)."""
        check_is_fitted(self, "components_")
        return self._precision().astype(self.components_.dtype, copy=False)

    def _precision(self):
        V, along, sigma2 = _model(self)
        base = 1.0 / sigma2 if sigma2 > 0 else 0.0
        precision = (V.T * (1.0 / along - base)) @ V
        precision.flat[:: precision.shape[0] + 1] += base
        return precision

    @available_if(_has_model)
    def score_samples(self, X):
        """Log-likelihood of each row under the probabilistic PCA model
        (Tipping and Bishop 1999), as scikit-learn's ``PCA.score_samples``."""
        check_is_fitted(self, "components_")
        X = validate_data(self, X, dtype=FLOATS, reset=False)
        out = _output_dtype(X, self)
        centred = X.astype(np.float64) - self.mean_.astype(np.float64)
        precision = self._precision()
        _, along, sigma2 = _model(self)
        k, d = self.components_.shape
        logdet = -np.log(along).sum() - (
            (d - k) * math.log(sigma2) if k < d else 0.0
        )
        log_like = -0.5 * np.sum(centred * (centred @ precision), axis=1)
        log_like -= 0.5 * (d * math.log(2.0 * math.pi) - logdet)
        return log_like.astype(out, copy=False)

    @available_if(_has_model)
    def score(self, X, y=None):
        """The average of :meth:`score_samples` over the rows of ``X``."""
        return float(np.mean(self.score_samples(X)))


__all__ = [
    "FLOATS",
    "ProbabilisticPCAMixin",
    "spectrum_mechanisms",
    "cast_outputs",
    "check_whiten",
    "project",
    "spectrum",
    "unproject",
]
