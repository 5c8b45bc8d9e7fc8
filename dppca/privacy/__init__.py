"""Everything that makes a release private and says how private it is.

Its modules:

calibration
    Noise scales: Laplace and (analytic) Gaussian calibration, the
    input-perturbation scales, the safe (discrete) noise's grids. Its
    functions are re-exported here, so
    ``dppca.privacy.analytic_gaussian_sigma`` is
    ``dppca.privacy.calibration.analytic_gaussian_sigma``.
zcdp
    The ρ of a Gaussian mechanism and the conversions between ρ-zCDP and
    (ε, δ)-DP (re-exported here as well).
privacy_loss
    Privacy-loss random variables and exact privacy profiles, with which the
    calibrations are checked on given pairs (re-exported here as well).
noise
    The one place noise is drawn: safe discrete or float64 Laplace and
    Gaussian noise.
drawable
    What the exact samplers can draw, decided from public values before any
    charge (the checks every safe guarantee record makes).
sensitivity
    Sensitivities of the second moment and of a power step.
guarantees
    The guarantee record every release carries (``Release``, ``Released``).
accounting
    Composition of records and the ``Accountant`` (imports ``dp-accounting``:
    loaded on first use, not by ``import dppca.privacy``).
private_bounds
    Row-norm bounds released from the data (permute-and-flip quantiles).
quantile_scores
    The target quantile and the sensitivity-1 utilities that score the
    candidate bounds (shared with a streaming step's private radius).
audit
    Black-box privacy audits of a mechanism.
"""

from .calibration import (
    SAFE_GRID_REFINEMENT,
    analytic_gaussian_delta,
    analytic_gaussian_sigma,
    analyze_gauss_sigma,
    composed_gaussian_sigma,
    discrete_gaussian_sigma,
    discrete_laplace_scale,
    gaussian_mechanism_epsilon,
    gaussian_sigma_classical,
    laplace_input_scale,
    laplace_scale,
    mod_sulq_beta,
    rounded_sensitivity,
    safe_gaussian_input_calibration,
    safe_granularity,
    safe_laplace_input_calibration,
    upper_triangle,
    wishart_input_scale,
    wishart_privacy_profile,
    wishart_scale_for_delta,
    wishart_support_gap_probability,
)
from .privacy_loss import (
    circle_privacy_loss,
    delta_from_privacy_losses,
    gaussian_pair_delta,
    gaussian_privacy_loss_samples,
    laplace_privacy_loss_samples,
    three_block_privacy_loss,
)
from .zcdp import (
    gaussian_zcdp_rho,
    zcdp_delta,
    zcdp_epsilon,
    zcdp_rho,
    zcdp_rho_for,
)

__all__ = [
    "SAFE_GRID_REFINEMENT",
    "analytic_gaussian_delta",
    "analytic_gaussian_sigma",
    "analyze_gauss_sigma",
    "circle_privacy_loss",
    "composed_gaussian_sigma",
    "delta_from_privacy_losses",
    "discrete_gaussian_sigma",
    "discrete_laplace_scale",
    "gaussian_mechanism_epsilon",
    "gaussian_pair_delta",
    "gaussian_privacy_loss_samples",
    "gaussian_sigma_classical",
    "gaussian_zcdp_rho",
    "laplace_input_scale",
    "laplace_privacy_loss_samples",
    "laplace_scale",
    "mod_sulq_beta",
    "rounded_sensitivity",
    "safe_gaussian_input_calibration",
    "safe_granularity",
    "safe_laplace_input_calibration",
    "three_block_privacy_loss",
    "upper_triangle",
    "wishart_input_scale",
    "wishart_privacy_profile",
    "wishart_scale_for_delta",
    "wishart_support_gap_probability",
    "zcdp_delta",
    "zcdp_epsilon",
    "zcdp_rho",
    "zcdp_rho_for",
]
