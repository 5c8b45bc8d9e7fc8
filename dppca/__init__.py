"""dppca: differentially private principal component analysis, as derived in the book.

The core names a reader needs are re-exported here; each mechanism family lives in its own
module (``dppca.input_perturbation``, ``dppca.exponential``, ``dppca.bingham``,
``dppca.gaussian_approx``, ``dppca.dyson``, ``dppca.datasets``).
"""
from .linalg import (haar_subspace, pca, projector, rank_k_approximation, second_moment,
                     symmetrize_upper, top_k_eigh, top_k_subspace)
from .utility import (captured_variance, captured_variance_ratio, subspace_distance,
                      top_vector_correlation)
from .validation import (as_generator, check_data, check_delta, check_epsilon, check_k,
                         check_n, check_orthonormal, check_symmetric, normalize_rows,
                         scale_to_unit_ball)

__version__ = "0.1.0"

__all__ = [
    "as_generator", "captured_variance", "captured_variance_ratio", "check_data", "check_delta",
    "check_epsilon", "check_k", "check_n", "check_orthonormal", "check_symmetric",
    "haar_subspace", "normalize_rows", "pca", "projector", "rank_k_approximation",
    "scale_to_unit_ball", "second_moment", "subspace_distance", "symmetrize_upper",
    "top_k_eigh", "top_k_subspace", "top_vector_correlation",
]
