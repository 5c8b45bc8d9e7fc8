"""dppca: differentially private principal component analysis, as derived in
the book.

``dppca`` exports the estimators, the accountant and the report, the
forecast, the warnings and errors, the guarantee records and the mechanism
functions. Everything else lives in its subpackage, in the manner of
scikit-learn's:

- :mod:`dppca.decomposition`: ``PrivatePCA``, the scikit-learn estimator,
  with its parameter checks, release plan and release steps; the other
  estimators and their tools, :mod:`dppca.scaler`, :mod:`dppca.covariance`,
  :mod:`dppca.model_selection`, :mod:`dppca.forecast`; and
  :mod:`dppca.base`, what the private estimators share;
- ``dppca.mechanisms``: one module per mechanism family, and the registry
  of every mechanism ``PrivatePCA`` runs;
- :mod:`dppca.privacy`: calibrations, noise, sensitivities, guarantee
  records, accounting, private bounds and the audit;
- :mod:`dppca.linalg`: rows (clipping, centring, the proved second moment),
  dense helpers and Dask;
- ``dppca.samplers``: the Bingham and Dyson samplers;
- :mod:`dppca.validation` (with ``dppca.input_checks``),
  :mod:`dppca.utility`, :mod:`dppca.montecarlo`: checks, utility measures
  and Monte Carlo statistics;
- :mod:`dppca.exceptions`: every warning and error class;
- ``dppca.book``: what only the book needs (data sets, experiments, peers,
  plots, theorem bounds), with its own extras; ``import dppca`` never
  imports it.
"""

from . import exceptions
from .exceptions import (
    BudgetExceededError,
    NotPrivateWarning,
    PrivacyWarning,
    UnprovedGuaranteeWarning,
    UtilityWarning,
)
from .mechanisms.covariance import amin_covariance, amin_subspace
from .mechanisms.exponential import ppca, ppca_from_second_moment
from .mechanisms.input_perturbation import (
    analyze_gauss,
    laplace_input_perturbation,
    mod_sulq,
)
from .mechanisms.input_perturbation_wishart import (
    wishart_input_perturbation_delta,
)
from .privacy.guarantees import Guarantee, Released, guarantee_of
from .report import PrivacyReport
from .utility import captured_variance, sin_theta, subspace_distance

__version__ = "0.1.0"

#: Loaded on first use: they import scikit-learn and dp-accounting, which a
#: Dask worker unpickling a dppca function (chapter 15) should not pay for.
_LAZY = {
    "PrivatePCA": ("decomposition.pca", "PrivatePCA"),
    "PrivateStandardScaler": ("scaler", "PrivateStandardScaler"),
    "PrivateCovariance": ("covariance", "PrivateCovariance"),
    "Accountant": ("privacy.accounting", "Accountant"),
    "forecast": ("forecast", None),
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
    # estimators, budget and report
    "PrivatePCA",
    "PrivateStandardScaler",
    "PrivateCovariance",
    "budgeted_grid_search",
    "Accountant",
    "PrivacyReport",
    "forecast",
    # warnings and errors
    "exceptions",
    "PrivacyWarning",
    "UnprovedGuaranteeWarning",
    "NotPrivateWarning",
    "UtilityWarning",
    "BudgetExceededError",
    # guarantee records
    "Guarantee",
    "Released",
    "guarantee_of",
    # mechanism functions
    "analyze_gauss",
    "mod_sulq",
    "laplace_input_perturbation",
    "wishart_input_perturbation_delta",
    "ppca",
    "ppca_from_second_moment",
    "amin_covariance",
    "amin_subspace",
    # utility measures
    "captured_variance",
    "subspace_distance",
    "sin_theta",
]
