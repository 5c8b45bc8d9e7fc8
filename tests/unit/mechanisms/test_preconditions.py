"""Issue 11: what breaks a privacy theorem is refused, at every entry point
of its kind.

Second-moment entry points (A = XᵀX/n, rows of norm <= 1), PPCA's start and
sweep count, bounded sampler loops, the Wishart warning, and the types of the
arguments.
"""

import warnings

import numpy as np
import pytest
import scipy.sparse

import dppca
from dppca.mechanisms import exponential
from dppca.mechanisms import gaussian_approx as GA
from dppca.mechanisms import input_perturbation as IP
from dppca.samplers import bingham
from dppca.validation import SECOND_MOMENT_TOLERANCE, check_second_moment


def unit_rows(n=40, d=5, seed=0):
    return dppca.validation.normalize_rows(
        np.random.default_rng(seed).standard_normal((n, d))
    )


def quiet(fn):
    """Call ``fn`` with the Wishart PrivacyWarning silenced (it is tested on
    its own)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", dppca.PrivacyWarning)
        return fn()


#: Every entry point that takes A = XᵀX/n and n instead of X.
FROM_MOMENT = {
    "mod_sulq": lambda A, n: IP.mod_sulq_from_second_moment(
        A, n, epsilon=1.0, delta=1e-5, rng=0
    ),
    "analyze_gauss": lambda A, n: IP.analyze_gauss_from_second_moment(
        A, n, epsilon=1.0, delta=1e-5, rng=0
    ),
    "laplace": lambda A, n: IP.laplace_input_perturbation_from_second_moment(
        A, n, epsilon=1.0, rng=0
    ),
    "wishart": lambda A, n: quiet(
        lambda: IP.wishart_input_perturbation_from_second_moment(
            A, n, epsilon=1.0, rng=0
        )
    ),
    "wishart_delta": lambda A, n: (
        IP.wishart_input_perturbation_delta_from_second_moment(
            A, n, delta=0.1, rng=0
        )
    ),
    "gaussian_subspace": lambda A, n: (
        GA.gaussian_subspace_recovery_from_second_moment(
            A, n, 2, epsilon=1.0, delta=1e-5, rng=0
        )
    ),
    "gaussian_matrix_approximation": lambda A, n: (
        GA.gaussian_matrix_approximation(
            A,
            np.linspace(1, 0, A.shape[0]),
            epsilon=1.0,
            delta=1e-5,
            rng=0,
            relation="replace_one",
            n=n,
        )
    ),
    "ppca_k1": lambda A, n: exponential.ppca_from_second_moment(
        A, n, 1, epsilon=1.0, rng=0
    ),
    "ppca_k2": lambda A, n: exponential.ppca_from_second_moment(
        A, n, 2, epsilon=1.0, rng=0, n_sweeps=2
    ),
}


def _bad_moments():
    """Impossible "second moments", each with the part of the error that
    names the reason."""
    X = unit_rows()
    n = X.shape[0]
    indefinite = np.diag([0.5, 0.3, 0.1, 0.0, -0.01])
    return {
        "100 I": (100 * np.eye(5), 10**12, r"has trace > 1"),
        "X^T X (not / n)": (X.T @ X, n, r"trace > 1.*dividing by n"),
        "-I": (-np.eye(5), n, "not positive semidefinite"),
        "rows of norm 10": (
            dppca.linalg.second_moment(X) * 100,
            n,
            "trace > 1",
        ),
        "indefinite, trace < 1": (
            indefinite,
            n,
            r"not positive semidefinite \(an eigenvalue below",
        ),
        "NaN": (np.full((5, 5), np.nan), n, "NaN or Inf"),
    }


@pytest.mark.parametrize("entry", FROM_MOMENT)
@pytest.mark.parametrize("case", _bad_moments())
def test_second_moment_entry_points_refuse_impossible_matrices(entry, case):
    A, n, reason = _bad_moments()[case]
    with pytest.raises(ValueError, match=reason):
        FROM_MOMENT[entry](A, n)


@pytest.mark.parametrize("entry", FROM_MOMENT)
@pytest.mark.parametrize("n", [2.7, 40.0, True, 0, -3, "40"])
def test_second_moment_entry_points_refuse_a_non_integer_n(entry, n):
    A = dppca.linalg.second_moment(unit_rows())
    with pytest.raises(ValueError, match="n must be a positive integer"):
        FROM_MOMENT[entry](A, n)


@pytest.mark.parametrize("entry", FROM_MOMENT)
def test_second_moment_entry_points_accept_valid_matrices(entry):
    X = unit_rows()
    for A in (
        dppca.linalg.second_moment(X),
        dppca.linalg.second_moment(X.astype(np.float32)),
        dppca.linalg.second_moment(
            dppca.validation.normalize_rows(X).astype(np.float32)
        ),
        np.diag([1.0, 0, 0, 0, 0]),  # every row the same unit vector
        np.zeros((5, 5)),  # every row zero
    ):
        out = FROM_MOMENT[entry](A, np.int64(X.shape[0]))
        assert np.all(np.isfinite(out))


def test_second_moment_check_boundaries_and_messages():
    e1 = np.diag([1.0, 0.0, 0.0])
    check_second_moment(e1 * (1 + SECOND_MOMENT_TOLERANCE / 2), 3)
    with pytest.raises(ValueError, match=r"trace > 1.*dividing by n"):
        check_second_moment(e1 * (1 + 2 * SECOND_MOMENT_TOLERANCE), 3)
    with pytest.raises(ValueError, match="not positive semidefinite"):
        check_second_moment(
            np.diag([0.5, 0.0, -2 * SECOND_MOMENT_TOLERANCE]), 3
        )
    with pytest.raises(ValueError, match="symmetric"):
        check_second_moment(np.array([[0.5, 0.1], [0.0, 0.4]]), 3)


def test_rank_one_update_relation_still_takes_any_symmetric_matrix():
    # under the slides' relation (M' - M = x x^T) the guarantee holds whatever M
    # is
    X = unit_rows()
    out = GA.gaussian_matrix_approximation(
        X.T @ X, np.linspace(1, 0, 5), epsilon=1.0, delta=1e-5, rng=0
    )
    assert out.shape == (5, 5)


# ------------------------------------------------------------------------------
# PPCA: the start frame, the sweep count, the samplers' loops
# ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "V0", [np.eye(5)[:, :3], np.eye(5)[:, :1], np.eye(4)[:, :2], np.eye(5)[0]]
)
def test_ppca_start_frame_must_have_shape_d_by_k(V0):
    with pytest.raises(
        ValueError, match=r"V0 must have shape \(d, k\) = \(5, 2\)"
    ):
        dppca.ppca(unit_rows(), 2, epsilon=1.0, V0=V0, n_sweeps=3, rng=0)


@pytest.mark.parametrize("sampler", ["fast", "hoff"])
def test_ppca_start_frame_must_be_orthonormal_and_warns(sampler):
    X = unit_rows()
    with pytest.raises(ValueError, match="V0 must have orthonormal columns"):
        dppca.ppca(
            X, 2, epsilon=1.0, V0=np.ones((5, 2)), n_sweeps=3, sampler=sampler
        )
    with pytest.warns(dppca.PrivacyWarning, match="V0"):
        V = dppca.ppca(
            X,
            2,
            epsilon=1.0,
            V0=np.eye(5)[:, :2],
            n_sweeps=3,
            sampler=sampler,
            rng=0,
        )
    assert V.shape == (5, 2)


def test_ppca_k1_with_start_frame_warns():
    with pytest.warns(dppca.PrivacyWarning, match="V0"):
        dppca.ppca(
            unit_rows(), 1, epsilon=1.0, V0=np.eye(5)[:, :1], n_sweeps=2, rng=0
        )


@pytest.mark.parametrize("n_sweeps", [2.7, 3.0, True, 0, -1, "3"])
@pytest.mark.parametrize("k", [1, 2])
def test_ppca_sweep_count_is_a_positive_integer_never_truncated(n_sweeps, k):
    with pytest.raises(ValueError, match="n_sweeps must be a positive integer"):
        dppca.ppca(unit_rows(), k, epsilon=1.0, n_sweeps=n_sweeps, rng=0)


@pytest.mark.parametrize("fn", [bingham.fast_gibbs, bingham.hoff_gibbs])
def test_gibbs_samplers_check_sweeps_and_start(fn):
    B = np.diag([3.0, 2.0, 1.0, 0.0])
    with pytest.raises(ValueError, match="n_sweeps"):
        fn(B, 2, 2.5, rng=0)
    with pytest.raises(ValueError, match="V0 must have shape"):
        fn(B, 2, 2, V0=np.eye(4)[:, :3], rng=0)


@pytest.mark.parametrize("sampler", ["fast", "hoff"])
@pytest.mark.parametrize("k", [1, 2])
def test_ppca_at_extreme_concentration_fails_fast_and_clearly(sampler, k):
    X = unit_rows(100)
    # refused from n ε / 2 before any proposal is drawn: no sampler runs
    monkey = pytest.MonkeyPatch()
    for name in ("fast_gibbs", "hoff_gibbs", "sample_vector_bingham"):
        monkey.setattr(bingham, name, _never)
    try:
        with pytest.raises(ValueError, match="MAX_CONCENTRATION"):
            dppca.ppca(X, k, epsilon=1e15, n_sweeps=5, sampler=sampler, rng=0)
    finally:
        monkey.undo()


def _never(*args, **kwargs):
    raise AssertionError("a sampler ran")


@pytest.mark.parametrize("sampler", ["fast", "hoff"])
def test_ppca_just_below_the_concentration_limit_returns(sampler):
    # the limit is checked on the public n ε / 2, which bounds B's spread
    X = unit_rows(100)
    epsilon = 0.9 * bingham.MAX_CONCENTRATION / 50
    V = dppca.ppca(X, 2, epsilon=epsilon, n_sweeps=3, sampler=sampler, rng=0)
    # at this concentration the draw sits on the top-2 eigenspace of A
    top = dppca.linalg.pca(X, 2)
    assert dppca.subspace_distance(V, top) < 1e-3


def test_acg_rejection_loop_is_bounded(monkeypatch):
    # a wrong (too large) shift c makes every proposal unlikely: the loop must
    # stop
    monkeypatch.setattr(bingham, "MAX_PROPOSALS_PER_DRAW", 200)
    lam = np.array([0.0, -1.0, -2.0])
    with pytest.raises(RuntimeError, match="MAX_PROPOSALS_PER_DRAW"):
        bingham.acg_draw(lam, 60.0, 1.0, np.random.default_rng(0))


def test_hoff_theta_loop_is_bounded(monkeypatch):
    monkeypatch.setattr(bingham, "MAX_THETA_PROPOSALS", 1)
    with pytest.raises(RuntimeError, match="1 proposals"):
        # a = -30, shape 40 stays on Hoff's Beta envelope (acceptance about 0.6
        # per proposal): among 200 draws allowed one proposal each, one is
        # rejected
        for seed in range(200):
            bingham._hoff_theta(40.0, -30.0, np.random.default_rng(seed))


# ------------------------------------------------------------------------------
# The Wishart mechanism as published says at call time that it is not DP
# ------------------------------------------------------------------------------
def test_wishart_as_published_warns_at_call_time():
    X = unit_rows()
    with pytest.warns(dppca.PrivacyWarning, match="NOT"):
        IP.wishart_input_perturbation(X, epsilon=1.0, rng=0)
    with pytest.warns(dppca.PrivacyWarning, match="NOT"):
        IP.wishart_input_perturbation_from_second_moment(
            dppca.linalg.second_moment(X), 40, epsilon=1.0, rng=0
        )
    # the DP variant does not say NOT DP; it says its float64 Wishart draws
    # are not proved as a program (dppca.privacy.guarantees)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        IP.wishart_input_perturbation_delta(X, delta=0.1, rng=0)
    assert [w.category for w in caught] == [dppca.UnprovedGuaranteeWarning]
    assert "NOT" not in str(caught[0].message)


# ------------------------------------------------------------------------------
# Types and messages
# ------------------------------------------------------------------------------
#: Every mechanism's X entry point, with valid privacy parameters.
FROM_DATA = {
    "mod_sulq": lambda X, rng=0: IP.mod_sulq(
        X, epsilon=1.0, delta=1e-5, rng=rng
    ),
    "analyze_gauss": lambda X, rng=0: IP.analyze_gauss(
        X, epsilon=1.0, delta=1e-5, rng=rng
    ),
    "laplace": lambda X, rng=0: IP.laplace_input_perturbation(
        X, epsilon=1.0, rng=rng
    ),
    "wishart": lambda X, rng=0: quiet(
        lambda: IP.wishart_input_perturbation(X, epsilon=1.0, rng=rng)
    ),
    "wishart_delta": lambda X, rng=0: IP.wishart_input_perturbation_delta(
        X, delta=0.1, rng=rng
    ),
    "rank_k_covariance": lambda X, rng=0: GA.rank_k_covariance_approximation(
        X, 2, epsilon=1.0, delta=1e-5, rng=rng
    ),
    "gaussian_subspace": lambda X, rng=0: GA.gaussian_subspace_recovery(
        X, 2, epsilon=1.0, delta=1e-5, rng=rng
    ),
    "ppca_k1": lambda X, rng=0: dppca.ppca(X, 1, epsilon=1.0, rng=rng),
    "ppca_k2": lambda X, rng=0: dppca.ppca(
        X, 2, epsilon=1.0, rng=rng, n_sweeps=2
    ),
    "pca": lambda X, rng=0: dppca.linalg.pca(X, 2),
}


@pytest.mark.parametrize("entry", FROM_DATA)
@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
def test_mechanisms_accept_sparse_data_with_the_dense_result(entry, fmt):
    X = unit_rows()
    X[np.abs(X) < 0.3] = 0.0
    S = scipy.sparse.csr_matrix(X).asformat(fmt)
    np.testing.assert_allclose(
        FROM_DATA[entry](S), FROM_DATA[entry](X), rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("entry", FROM_DATA)
def test_mechanisms_validate_sparse_rows(entry):
    X = unit_rows()
    S = scipy.sparse.csr_matrix(X * 1.5)
    with pytest.raises(ValueError, match="norm > 1"):
        FROM_DATA[entry](S)
    S = scipy.sparse.csr_matrix(X)
    S.data[3] = np.nan
    with pytest.raises(ValueError, match="X contains NaN or Inf$"):
        FROM_DATA[entry](S)


class _NoDense(scipy.sparse.csr_matrix):
    """A sparse matrix that fails if anyone densifies it."""

    def toarray(self, *args, **kwargs):
        raise AssertionError("densified")

    def todense(self, *args, **kwargs):
        raise AssertionError("densified")

    def __array__(self, *args, **kwargs):
        raise AssertionError("densified")


def test_second_moment_of_sparse_data_never_densifies_it():
    X = unit_rows()
    S = _NoDense(X)
    np.testing.assert_allclose(
        dppca.linalg.second_moment(S), X.T @ X / 40, atol=1e-15
    )
    out = dppca.validation.check_data(S, accept_sparse=True)
    assert scipy.sparse.issparse(out)


def test_dense_only_functions_refuse_sparse_with_what_to_do():
    S = scipy.sparse.csr_matrix(unit_rows())
    with pytest.raises(TypeError, match=r"toarray\(\)"):
        dppca.validation.check_data(S)
    with pytest.raises(TypeError, match=r"toarray\(\)"):
        exponential.ppca_score(S, np.eye(5)[:, :2])


@pytest.mark.parametrize("entry", FROM_DATA)
def test_complex_data_is_refused(entry):
    X = unit_rows().astype(complex) * 0.5
    X[0, 0] += 0.1j
    with pytest.raises(TypeError, match="complex"):
        FROM_DATA[entry](X)
    with pytest.raises(TypeError, match="complex"):
        FROM_DATA[entry](scipy.sparse.csr_matrix(X))


@pytest.mark.parametrize("entry", FROM_MOMENT)
def test_complex_second_moment_is_refused(entry):
    A = dppca.linalg.second_moment(unit_rows()).astype(complex)
    with pytest.raises(TypeError, match="complex"):
        FROM_MOMENT[entry](A, 40)


@pytest.mark.parametrize(
    "bad", [[[0.1, 0.2], [0.3]], [["0.1", "0.2"], ["0.3", "0"]]]
)
def test_ragged_or_string_data_is_refused_with_the_package_error(bad):
    with pytest.raises(TypeError, match="X must"):
        dppca.validation.check_data(bad)


@pytest.mark.parametrize("value", ["1.0", True, np.bool_(True), 1 + 0j, None])
def test_privacy_parameters_must_be_real_numbers(value):
    with pytest.raises(TypeError, match="epsilon must be a real number"):
        dppca.validation.check_epsilon(value)
    with pytest.raises(TypeError, match="delta must be a real number"):
        dppca.validation.check_delta(value)
    X = unit_rows()
    with pytest.raises(TypeError, match="epsilon"):
        IP.analyze_gauss(X, epsilon=value, delta=1e-5, rng=0)
    with pytest.raises(TypeError, match="delta"):
        IP.analyze_gauss(X, epsilon=1.0, delta=value, rng=0)
    with pytest.raises(TypeError, match="epsilon"):
        dppca.ppca(X, 1, epsilon=value, rng=0)
    with pytest.raises(TypeError, match="epsilon"):
        IP.laplace_input_perturbation(X, epsilon=value, rng=0)


def test_numpy_scalars_remain_valid_parameters():
    X = unit_rows()
    IP.analyze_gauss(
        X, epsilon=np.float32(1.0), delta=np.float64(1e-5), rng=np.int64(3)
    )
    IP.laplace_input_perturbation(X, epsilon=np.int64(2), rng=0)
    IP.analyze_gauss(X, epsilon=np.array(1.0), delta=1e-5, rng=0)


@pytest.mark.parametrize("rng", [True, False, np.bool_(True), 1.5, "seed"])
@pytest.mark.parametrize("entry", FROM_DATA)
def test_rng_must_be_a_generator_seed_or_none(rng, entry):
    if entry == "pca":
        return  # not random
    with pytest.raises(TypeError, match="rng must be"):
        FROM_DATA[entry](unit_rows(), rng=rng)


@pytest.mark.parametrize("k", ["2", 2.0, True])
def test_k_of_the_wrong_type_gives_the_package_error(k):
    M = dppca.linalg.second_moment(unit_rows())
    with pytest.raises(TypeError, match="k must be an integer"):
        dppca.linalg.top_k_subspace(M, k)
    with pytest.raises(TypeError, match="k must be an integer"):
        dppca.ppca(unit_rows(), k, epsilon=1.0, rng=0)
    with pytest.raises(TypeError, match="k must be an integer"):
        GA.gaussian_subspace_recovery(
            unit_rows(), k, epsilon=1.0, delta=1e-5, rng=0
        )


@pytest.mark.parametrize("k", [6, 0, -1])
def test_top_k_subspace_with_k_out_of_range_gives_the_package_error(k):
    M = dppca.linalg.second_moment(unit_rows())
    with pytest.raises(ValueError, match=r"1 <= k <= d = 5"):
        dppca.linalg.top_k_subspace(M, k)
    assert dppca.linalg.top_k_subspace(M, 5).shape == (5, 5)


def test_row_norm_error_shows_the_tolerance_not_the_rows():
    X = unit_rows()
    X[4] *= 1 + 1e-8
    with pytest.raises(ValueError, match=r"tolerance 1 \+ 10⁻⁹") as error:
        dppca.validation.check_data(X)
    assert "1.00000001" not in str(error.value)
    with pytest.raises(ValueError, match=r"norm > 1 \(tolerance"):
        IP.analyze_gauss(X, epsilon=1.0, delta=1e-5, rng=0)


def test_float32_rows_normalised_to_one_are_accepted():
    # normalised in float32 arithmetic: the norms are 1 within a few float32
    # epsilons
    rng = np.random.default_rng(5)
    for d in (2, 5, 100, 2000):
        X = rng.standard_normal((500, d)).astype(np.float32)
        X /= np.linalg.norm(X, axis=1, keepdims=True)
        assert dppca.validation.check_data(X).dtype == np.float64
        IP.analyze_gauss(X, epsilon=1.0, delta=1e-5, rng=0)
        dppca.ppca(X, 1, epsilon=1.0, rng=0)
        IP.analyze_gauss(
            scipy.sparse.csr_matrix(X), epsilon=1.0, delta=1e-5, rng=0
        )


def test_float32_tolerance_is_relative_to_its_epsilon_and_float64_stays_strict():
    eps32 = float(np.finfo(np.float32).eps)
    X = dppca.validation.normalize_rows(unit_rows())
    too_long = (X * (1 + 64 * eps32)).astype(np.float32)
    with pytest.raises(ValueError, match=r"tolerance 1 \+ 9\.54×10⁻⁷"):
        dppca.validation.check_data(too_long)
    with pytest.raises(ValueError, match="norm > 1"):
        dppca.validation.check_data(
            X * (1 + 2 * eps32)
        )  # float64 data: 1e-9 slack only


@pytest.mark.parametrize("size", [2.7, 3.0, True, "3"])
def test_vector_bingham_sample_size_is_never_truncated(size):
    with pytest.raises(ValueError, match="size must be a positive integer"):
        bingham.sample_vector_bingham(
            np.diag([2.0, 1.0, 0.0]), size=size, rng=0
        )


def test_object_arrays_of_real_numbers_remain_valid_data():
    from fractions import Fraction

    X = np.array([[Fraction(1, 2), 0.25], [0, np.float32(0.5)]], dtype=object)
    np.testing.assert_allclose(
        dppca.validation.check_data(X), [[0.5, 0.25], [0, 0.5]]
    )


def test_sparse_rows_with_duplicate_entries_are_checked_by_their_sum():
    # CSR with the entry (0, 0) stored twice as 0.6: the row is (1.2, 0), norm
    # 1.2
    S = scipy.sparse.csr_matrix(
        (np.array([0.6, 0.6, 0.5]), np.array([0, 0, 1]), np.array([0, 2, 3])),
        shape=(2, 2),
    )
    with pytest.raises(ValueError, match=r"norm > 1"):
        dppca.linalg.second_moment(S)
    assert S.data.size == 3  # the caller's matrix is not modified
