"""The private covariance: ``PrivateCovariance``, scikit-learn's
``EmpiricalCovariance`` with a differentially private covariance matrix
(chapter 18), laid out as :mod:`sklearn.covariance` is.

Its modules, in the order a fit uses them:

plan
    The public side of a fit: every parameter checked, and the releases
    (the private mean, the matrix) calibrated from public quantities with
    their guarantee records, before any charge and without reading a row.
persons
    Several rows per person (``fit(X, groups=...)`` with
    ``max_rows_per_person``): the per-person argument for each mechanism
    and centring, and its checks, on ``PrivatePCA``'s machinery.
release
    The only code that reads the rows: the private mean, the
    unit-normalised second moment (its sensitivity is derived there) and
    the noise added to it.
postprocessing
    The floor on the eigenvalues of the noisy matrix and its inverse:
    post-processing of the release, at no privacy cost.
estimator
    ``PrivateCovariance`` itself: scikit-learn's parameters and methods,
    and ``fit`` (plan, charge, release, post-process).
"""

from .estimator import PrivateCovariance

__all__ = ["PrivateCovariance"]
