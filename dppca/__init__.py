"""dppca: differentially private principal component analysis, as derived in
the book.

The core names and every mechanism are re-exported here. The package is
organised in subpackages, in the manner of scikit-learn's:

- :mod:`dppca.estimator`: ``PrivatePCA``, the scikit-learn estimator;
- ``dppca.mechanisms``: one module per mechanism family, and the registry
  of every mechanism ``PrivatePCA`` runs;
- :mod:`dppca.privacy`: calibrations, noise, sensitivities, guarantee
  records, accounting, private bounds, the audit and a fit's release plan;
- :mod:`dppca.linalg`: rows (clipping, centring, the proved second moment),
  dense helpers and Dask;
- ``dppca.samplers``: the Bingham and Dyson samplers;
- ``dppca.validation``, ``dppca.utility``, ``dppca.montecarlo``: checks,
  utility measures and Monte Carlo statistics;
- ``dppca.book``: what only the book needs (data sets, experiments, peers,
  plots, theorem bounds), with its own extras; ``import dppca`` never
  imports it.

The module names of the flat layout stay names of ``dppca``:
``dppca.privacy`` is the subpackage (it exports the calibrations),
``dppca.accounting``, ``dppca.audit``, ``dppca.guarantees``,
``dppca.private_bounds`` and ``dppca.sensitivity`` are the modules of
:mod:`dppca.privacy`, ``dppca.input_perturbation``, ``dppca.exponential`` and
``dppca.covariance`` those of ``dppca.mechanisms``, ``dppca.bingham`` that
of ``dppca.samplers``. They are attributes, not import paths: ``import
dppca.audit`` fails; ``from dppca import audit`` and ``dppca.audit`` work.
"""

from . import exceptions, montecarlo, privacy
from .exceptions import (
    BudgetExceededError,
    NotPrivateWarning,
    PrivacyWarning,
    UnprovedGuaranteeWarning,
    UtilityWarning,
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
from .mechanisms import covariance, exponential, input_perturbation
from .mechanisms.covariance import amin_covariance, amin_subspace
from .mechanisms.exponential import ppca, ppca_from_second_moment
from .mechanisms.input_perturbation import (
    analyze_gauss,
    laplace_input_perturbation,
    mod_sulq,
    wishart_input_perturbation,
    wishart_input_perturbation_delta,
)
from .privacy import audit, guarantees, private_bounds, sensitivity
from .privacy.guarantees import Guarantee, Released, guarantee_of
from .report import PrivacyReport
from .samplers import bingham
from .utility import (
    captured_variance,
    captured_variance_ratio,
    sin_theta,
    subspace_distance,
    top_vector_correlation,
)
from .validation import (
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
    "PrivateStandardScaler": ("scaler", "PrivateStandardScaler"),
    "accounting": ("privacy.accounting", None),
    "forecast": ("forecast", None),
    "model_selection": ("model_selection", None),
    "budgeted_grid_search": ("model_selection", "budgeted_grid_search"),
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
    "BudgetExceededError",
    "NotPrivateWarning",
    "UtilityWarning",
    "exceptions",
    "Guarantee",
    "PrivacyReport",
    "PrivacyWarning",
    "Released",
    "UnprovedGuaranteeWarning",
    "guarantee_of",
    "guarantees",
    "PrivatePCA",
    "PrivateStandardScaler",
    "accounting",
    "amin_covariance",
    "amin_subspace",
    "analyze_gauss",
    "as_generator",
    "audit",
    "bingham",
    "budgeted_grid_search",
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
    "forecast",
    "haar_subspace",
    "input_perturbation",
    "laplace_input_perturbation",
    "mod_sulq",
    "model_selection",
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
