"""dppca: differentially private principal component analysis, as derived in
the book.

The core names and every mechanism are re-exported here; each family lives in
its own module: ``dppca.input_perturbation`` (MOD-SULQ, Analyze Gauss, Laplace,
Wishart), ``dppca.exponential`` (PPCA) with its samplers in ``dppca.bingham``,
``dppca.gaussian_approx`` (Mangoubi-Vishnoi) with ``dppca.dyson``, plus
``dppca.privacy`` (calibration, privacy loss), ``dppca.sensitivity``,
``dppca.guarantees`` (the guarantee record every release carries),
``dppca.accounting`` (composition), ``dppca.estimator`` (``PrivatePCA``),
``dppca.rows`` (clipping and centring rows, shared with ``dppca.distributed``),
``dppca.audit``, ``dppca.bounds``, ``dppca.datasets`` and ``dppca.experiments``.
"""

from . import (
    audit,
    bingham,
    covariance,
    exponential,
    guarantees,
    input_perturbation,
    montecarlo,
    privacy,
    private_bounds,
    sensitivity,
)
from .covariance import amin_covariance, amin_subspace
from .exponential import ppca, ppca_from_second_moment
from .guarantees import (
    Guarantee,
    Released,
    UnprovedGuaranteeWarning,
    guarantee_of,
)
from .input_perturbation import (
    analyze_gauss,
    laplace_input_perturbation,
    mod_sulq,
    wishart_input_perturbation,
    wishart_input_perturbation_delta,
)
from .linalg import (
    haar_subspace,
    pca,
    projector,
    rank_k_approximation,
    second_moment,
    symmetrize_upper,
    top_k_eigh,
    top_k_subspace,
)
from .utility import (
    captured_variance,
    captured_variance_ratio,
    sin_theta,
    subspace_distance,
    top_vector_correlation,
)
from .validation import (
    PrivacyWarning,
    as_generator,
    check_data,
    check_delta,
    check_epsilon,
    check_hermitian,
    check_k,
    check_n,
    check_orthonormal,
    check_symmetric,
    normalize_rows,
    scale_to_unit_ball,
)

__version__ = "0.1.0"

#: Loaded on first use: they import scikit-learn and dp-accounting, which a
#: Dask worker unpickling a dppca function (chapter 15) should not pay for.
_LAZY = {
    "PrivatePCA": ("estimator", "PrivatePCA"),
    "accounting": ("accounting", None),
}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        module_name, attribute = _LAZY[name]
        module = importlib.import_module(f".{module_name}", __name__)
        value = module if attribute is None else getattr(module, attribute)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'dppca' has no attribute {name!r}")


__all__ = [
    "Guarantee",
    "PrivacyWarning",
    "Released",
    "UnprovedGuaranteeWarning",
    "guarantee_of",
    "guarantees",
    "PrivatePCA",
    "accounting",
    "amin_covariance",
    "amin_subspace",
    "analyze_gauss",
    "as_generator",
    "audit",
    "bingham",
    "captured_variance",
    "captured_variance_ratio",
    "check_data",
    "check_delta",
    "check_epsilon",
    "check_k",
    "check_n",
    "check_orthonormal",
    "check_hermitian",
    "check_symmetric",
    "covariance",
    "exponential",
    "haar_subspace",
    "input_perturbation",
    "laplace_input_perturbation",
    "mod_sulq",
    "montecarlo",
    "normalize_rows",
    "pca",
    "ppca",
    "ppca_from_second_moment",
    "private_bounds",
    "privacy",
    "projector",
    "rank_k_approximation",
    "scale_to_unit_ball",
    "second_moment",
    "sensitivity",
    "sin_theta",
    "subspace_distance",
    "symmetrize_upper",
    "top_k_eigh",
    "top_k_subspace",
    "top_vector_correlation",
    "wishart_input_perturbation",
    "wishart_input_perturbation_delta",
]
