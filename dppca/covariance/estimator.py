"""``PrivateCovariance``: scikit-learn's ``EmpiricalCovariance`` with a
differentially private covariance matrix, charged to the same ledger as
``PrivatePCA`` and ``PrivateStandardScaler`` (chapter 18).

This module holds its scikit-learn surface: the parameters, ``fit`` (check
and calibrate with :mod:`dppca.covariance.plan`, charge, draw with
:mod:`dppca.covariance.release`, post-process with
:mod:`dppca.covariance.postprocessing`) and the methods of scikit-learn's
covariance estimators, on the released matrix. The privacy argument is
with the code it is about: the rows and the centre in
:mod:`~dppca.covariance.plan`, the sensitivity of the released matrix in
:mod:`~dppca.covariance.release`, the floor on its eigenvalues in
:mod:`~dppca.covariance.postprocessing`.
"""

from __future__ import annotations

import math
import sys

import numpy as np
import scipy.linalg
from sklearn.base import BaseEstimator
from sklearn.covariance import empirical_covariance, log_likelihood
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import report
from ..base import (
    REFIT_WARNING,
    SharedSeedWarningMixin,
    _generator,
    _parameters,
    _snap,
)
from ..decomposition.add_remove import (
    DEFAULT_MAX_SAMPLES,
    delta_message,
    eigenvalue_scale,
)
from ..exceptions import PrivacyWarning, warn
from ..fit_guard import FIT_MODULES, one_fit_at_a_time
from ..float_state import owns_float_state
from ..postprocessing import FLOATS
from ..privacy import noise
from ..privacy.accounting import basic_composition
from ..privacy.guarantees import warn_if_unproved
from ..validation import check_public_shape
from .persons import covariance_persons, estimand
from .persons import delta_message as person_delta_message
from .plan import covariance_plan
from .postprocessing import psd_floor
from .release import release


def _stacklevel() -> int:
    """``stacklevel`` naming the first frame outside the package's fit code
    (``dppca.fit_guard.FIT_MODULES`` and this module)."""
    inside = FIT_MODULES | {__name__}
    frame, level = sys._getframe(1), 1
    while frame is not None and frame.f_globals.get("__name__") in inside:
        frame, level = frame.f_back, level + 1
    return level


class PrivateCovariance(SharedSeedWarningMixin, BaseEstimator):
    """scikit-learn's ``EmpiricalCovariance`` with a differentially private
    covariance matrix: every fit is a release under replace-one neighbours
    (or, with ``neighbours="add-remove"``, add/remove-one) with rows bounded
    in ℓ₂ norm by the public ``data_norm`` (:mod:`dppca.covariance`: the
    centre, the sensitivity, the post-processing).

    Parameters
    ----------
    epsilon : float, default=1.0
        Total ε of the fit (mean and matrix).
    delta : float
        Required total δ in (0, 1), well below 1/n (both mechanisms are
        Gaussian; ``None`` is refused).
    data_norm : float
        Required public bound R on the rows' ℓ₂ norm (on ``‖x − c‖`` for a
        public centre ``c``), chosen without looking at the data. Rows
        longer than R are clipped to it.
    clip : bool, default=True
        Clip the rows to ``data_norm``. ``False`` is refused (before any
        charge): refusing a long row would make whether ``fit`` returns
        depend on that row.
    center : bool or array of shape (n_features,), default=True
        ``True``: a private mean with a share ``center_share`` of the
        budget, and the covariance about it. ``False``: the second moment
        about 0. An array: a public centre.
    center_share : float, default=0.2
        Share of ε and δ spent on the private mean, in (0, 1).
    centered_norm : "triangle", float or None, default="triangle"
        With ``center=True``, the bound ``B`` of the centred rows:
        ``"triangle"``, ``min(R + ‖μ̂‖, 2R)``, which every clipped row meets
        (nothing clipped); a number clips the centred rows to it; ``None``
        is ``data_norm``. The noise in data units grows as ``B²``.
    mechanism : {"analyze_gauss", "trace_sensitive"}, default="analyze_gauss"
        The release of the matrix (:mod:`dppca.covariance.plan`).
    min_eigenvalue : "auto" or float, default="auto"
        Floor on the eigenvalues of ``covariance_``, in units of the
        unit-normalised matrix (multiplied by ``B²``; at most 1, the
        largest eigenvalue of that matrix): ``"auto"`` is the
        noise's standard deviation per entry (public; under add/remove
        neighbours, that of the rescaled matrix, times
        ``max_samples / max(1, row_count_)``); ``0`` gives the projection
        onto the positive semidefinite cone.
    noise : {"safe", "float"}, default="safe"
        ``"safe"``: exact discrete noise on a grid, private as a program.
        ``"float"``: float64 noise, recorded unproved (warns).
    accountant : Accountant or None, default=None
        Charged with the fit's records before any noise is drawn; raises
        ``BudgetExceededError`` (nothing charged or drawn) if they do not fit.
    random_state : None, int, numpy Generator or RandomState, default=None
        As :class:`dppca.PrivatePCA`: ``None`` (fresh entropy) for a model
        to be shared.
    neighbours : {"replace", "add-remove"}, default="replace"
        The neighbouring relation. ``"replace"``: n public, one row replaced
        by another. ``"add-remove"``: one row added or removed, so n is
        private (:mod:`dppca.covariance.plan`): the second moment of the
        rows padded with zero rows to ``max_samples`` rows is released with
        ``n = max_samples``, and a private count of the rows
        (``ROW_COUNT_SHARE`` = 5% of ε, its own record) rescales it by
        ``max_samples / max(1, row_count_)`` before the floor
        (post-processing). Runs ``"analyze_gauss"`` only, with
        ``center=False`` or a public centre; everything else is refused
        before any charge.
    max_samples : int, default=2**27
        With ``neighbours="add-remove"``: a public cap on the number of
        rows, chosen without looking at the data. The guarantee covers data
        sets of 1 to ``max_samples`` rows (a fit on more is refused before
        any charge). The noise on the rescaled matrix is about that of a
        replace-one fit on ``row_count_`` rows with 95% of ε, whatever the
        cap (noise calibrated to √2/N on ``S/N``, times ``N/n̂``); the cap
        sets the float64 shrink (which grows with it) and the δ to choose
        (well below ``1/max_samples``). Unused under ``"replace"``.
    max_rows_per_person : int or None, default=None
        With ``fit(X, groups=g)``: the public bound ``m`` on a person's
        rows, and the unit of privacy is a person (replace-one person, the
        number ``N`` of persons public; :mod:`dppca.covariance.persons`). A
        person with more than ``m`` rows keeps ``m`` of them, chosen at
        random; the rows are padded to ``N·m`` and every release is
        calibrated at ``n = N``. Runs ``"analyze_gauss"`` with any centring;
        ``"trace_sensitive"`` and ``neighbours="add-remove"`` are refused
        before any charge. The estimand is then the padded per-person
        second moment (``estimand_``), not the rows' covariance. ``None``
        (and no ``groups``): the unit is a row.

    Attributes
    ----------
    covariance_ : ndarray of shape (n_features, n_features)
        The released covariance, symmetric positive semidefinite.
    location_ : ndarray of shape (n_features,)
        The centre: the private mean, the public centre, or zeros.
    precision_ : ndarray of shape (n_features, n_features)
        The inverse of ``covariance_`` (pseudo-inverse if singular).
    min_eigenvalue_ : float
        The floor applied, in data units (under add/remove neighbours with
        ``"auto"``, the noise's standard deviation after the rescaling).
    row_bound_ : float
        The bound ``B`` the (centred) rows were divided by.
    mechanism_ : str
        The mechanism that ran.
    row_count_ : int
        With ``neighbours="add-remove"`` only: the private (noisy) count of
        the rows, which may exceed n or be below zero.
    n_persons_ : int
        With ``groups`` only: the number ``N`` of persons (public).
    estimand_ : str
        With ``groups`` only: what ``covariance_`` estimates, in words: the
        padded per-person second moment about ``location_``, persons
        equally weighted, each through ``(1/m) Σ (x − location_)(x −
        location_)ᵀ`` over its kept rows (a person with fewer than ``m``
        rows counts its missing rows at ``location_``); ``location_`` from
        a private mean is likewise the padded mean over persons.
    guarantees_ : tuple of Release
        One record per release (private count, private mean, matrix: those
        the fit makes).
    privacy_releases_ : tuple of Release
        The same records, under the name ``PrivatePCA`` uses.
    privacy_spent_ : tuple (epsilon, delta)
        Basic composition of the records.
    n_features_in_, feature_names_in_
        As in scikit-learn.
    """

    def __init__(
        self,
        *,
        epsilon=1.0,
        delta=None,
        data_norm=None,
        clip=True,
        center=True,
        center_share=0.2,
        centered_norm="triangle",
        mechanism="analyze_gauss",
        min_eigenvalue="auto",
        noise="safe",
        accountant=None,
        random_state=None,
        neighbours="replace",
        max_samples=DEFAULT_MAX_SAMPLES,
        max_rows_per_person=None,
    ):
        self.epsilon = epsilon
        self.delta = delta
        self.data_norm = data_norm
        self.clip = clip
        self.center = center
        self.center_share = center_share
        self.centered_norm = centered_norm
        self.mechanism = mechanism
        self.min_eigenvalue = min_eigenvalue
        self.noise = noise
        self.accountant = accountant
        self.random_state = random_state
        self.neighbours = neighbours
        self.max_samples = max_samples
        self.max_rows_per_person = max_rows_per_person

    @one_fit_at_a_time
    @owns_float_state
    def fit(self, X, y=None, groups=None):
        """Release the covariance of ``X``: check the public parameters,
        charge, read the rows, add the noise, post-process.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.
        y : None
            Ignored.
        groups : array-like of shape (n_samples,), default=None
            With ``max_rows_per_person``: one hashable label per row naming
            its person; the unit of privacy is then a person (in a
            ``Pipeline``, ``<step>__groups=g``).

        Returns
        -------
        self : PrivateCovariance
            The fitted estimator.
        """
        p = _parameters(self)
        # before scikit-learn prints n or values
        private_rows = p.neighbours == "add-remove" or groups is not None
        check_public_shape(X, rows_private=private_rows)
        X = validate_data(self, X, dtype=FLOATS, reset=True)
        n, d = X.shape
        persons = covariance_persons(p, groups, n, d)  # None without groups
        N = None if persons is None else persons.N
        plan = covariance_plan(p, n, d, N)
        cap = plan.max_samples  # None under replace-one neighbours
        if persons is None:
            message = delta_message(p.delta, n, cap)
        else:
            message = person_delta_message(p.delta, N)
        if message:
            warn(message, PrivacyWarning, stacklevel=_stacklevel())
        if hasattr(self, "privacy_releases_") and p.accountant is None:
            warn(REFIT_WARNING, PrivacyWarning, stacklevel=_stacklevel())
        records = plan.records
        for record in records:
            warn_if_unproved(record, stacklevel=_stacklevel() + 1)
        if p.accountant is not None:
            with p.accountant.exclusive():  # raises before any noise
                p.accountant.charge(list(records), label=type(self).__name__)
        rng = _generator(p.random_state)
        kind = noise.check_noise_kind(p.noise)
        location, noisy, B, unit_floor, count = release(
            X.astype(np.float64), plan, kind, rng, persons
        )
        floor = p.min_eigenvalue
        floor = unit_floor if isinstance(floor, str) else float(floor)
        for name in ("row_count_", "n_persons_", "estimand_"):
            vars(self).pop(name, None)  # of an earlier fit
        if count is not None:
            # post-processing of the released count: S/N + noise to S/n̂ +
            # noise·N/n̂, and the noise level "auto" floors at with it
            factor, _ = eigenvalue_scale(cap, count)
            noisy = noisy * factor
            if isinstance(p.min_eigenvalue, str):
                floor = floor * factor
            self.row_count_ = int(count)
        covariance, precision = psd_floor(noisy, floor)
        scale = B * B
        self.location_ = location
        self.covariance_ = covariance * scale
        self.precision_ = precision / scale
        self.min_eigenvalue_ = floor * scale
        self.row_bound_ = B
        self.mechanism_ = plan.mechanism
        if persons is not None:
            self.n_persons_ = N
            self.estimand_ = estimand(persons.m, N)
        self.guarantees_ = self.privacy_releases_ = records
        requested = (float(p.epsilon), float(p.delta))
        self.privacy_spent_ = _snap(basic_composition(records), requested)
        return self

    def privacy_report(self):
        """The fit's ``dppca.PrivacyReport``.

        Returns
        -------
        PrivacyReport
            The (ε, δ) to report, its composition and the records.
        """
        return report.estimator_report(self)

    def get_precision(self):
        """The precision matrix, as scikit-learn's ``get_precision``.

        Returns
        -------
        ndarray of shape (n_features, n_features)
            ``precision_`` (a copy).
        """
        check_is_fitted(self, "covariance_")
        return self.precision_.copy()

    def mahalanobis(self, X):
        """Squared Mahalanobis distances of the rows of ``X`` to
        ``location_`` under ``precision_``, as scikit-learn's (which
        returns squares too). Post-processing on the caller's rows.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The observations.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``(x − location_)ᵀ precision_ (x − location_)`` per row.
        """
        check_is_fitted(self, "covariance_")
        X = validate_data(self, X, dtype=FLOATS, reset=False)
        centred = np.asarray(X, dtype=np.float64) - self.location_
        return np.sum((centred @ self.precision_) * centred, axis=1)

    def score(self, X, y=None):
        """Mean Gaussian log-likelihood of ``X`` under ``N(location_,
        covariance_)``, as scikit-learn's ``EmpiricalCovariance.score``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Test rows (not the private ones: they are read as given).
        y : None
            Ignored.

        Returns
        -------
        float
            The log-likelihood per row.
        """
        check_is_fitted(self, "covariance_")
        X = validate_data(self, X, dtype=FLOATS, reset=False)
        centred = np.asarray(X, dtype=np.float64) - self.location_
        test_cov = empirical_covariance(centred, assume_centered=True)
        return float(log_likelihood(test_cov, self.precision_))

    def error_norm(
        self, comp_cov, norm="frobenius", scaling=True, squared=True
    ):
        """Distance of ``comp_cov`` to ``covariance_``, as scikit-learn's
        ``error_norm``.

        Parameters
        ----------
        comp_cov : array-like of shape (n_features, n_features)
            The covariance to compare with.
        norm : {"frobenius", "spectral"}, default="frobenius"
            The norm of the difference.
        scaling : bool, default=True
            Divide the squared norm by ``n_features``.
        squared : bool, default=True
            Return the squared norm.

        Returns
        -------
        float
            The (squared, scaled) norm of ``comp_cov − covariance_``.
        """
        check_is_fitted(self, "covariance_")
        error = np.asarray(comp_cov, dtype=float) - self.covariance_
        if norm == "frobenius":
            squared_norm = float(np.sum(error**2))
        elif norm == "spectral":
            squared_norm = float(np.amax(scipy.linalg.svdvals(error.T @ error)))
        else:
            raise NotImplementedError(
                "only spectral and frobenius norms are implemented"
            )
        if scaling:
            squared_norm /= error.shape[0]
        return squared_norm if squared else math.sqrt(squared_norm)


__all__ = ["PrivateCovariance"]
