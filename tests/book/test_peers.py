"""diffprivlib 0.6.6 and OpenDP 0.16, measured by calling their real code: the law their
eigenvector samplers draw, its exact privacy loss on worst-case neighbours, the adapters."""

import warnings

import numpy as np
import pytest

from dppca.book import flipped_bingham, peers
from dppca.linalg import second_moment
from dppca.privacy import three_block_privacy_loss
from dppca.samplers.bingham import sample_vector_bingham

AVAILABLE = peers.available()
B_TEST = np.diag([4.0, 3.0, 2.0, 1.0, 0.0])


def needs(library):
    return pytest.mark.skipif(
        not AVAILABLE[library],
        reason=f"{library} not installed (extra 'peers')",
    )


@pytest.fixture(scope="module")
def exact_moments():
    """E[x_1^2] under the Bingham law ∝ exp(x^T B x) and under the flipped law, by importance
    sampling from the uniform law (1.5 million points each)."""
    rng = np.random.default_rng(20)
    out = {}
    for name, log_density in (
        ("bingham", flipped_bingham.bingham_log_density),
        ("flipped", flipped_bingham.flipped_log_density),
    ):
        est, se, _ = flipped_bingham.sphere_expectation(
            lambda U, f=log_density: f(B_TEST, U),
            lambda U: U[:, 0] ** 2,
            5,
            1_500_000,
            rng=rng,
        )
        out[name] = (float(est), float(se))
    return out


def test_exact_values(exact_moments):
    """The book's exact sampler agrees with the Bingham value (so the reference is right)."""
    value, se = exact_moments["bingham"]
    assert 0.33 < value < 0.34
    draws = sample_vector_bingham(B_TEST, size=20_000, rng=21)
    mean = np.mean(draws[:, 0] ** 2)
    sd = np.std(draws[:, 0] ** 2) / np.sqrt(draws.shape[0])
    assert abs(mean - value) < 5 * np.hypot(sd, se)


@pytest.mark.parametrize(
    "library, draws",
    [
        pytest.param("diffprivlib", 2000, marks=needs("diffprivlib")),
        pytest.param("opendp", 1000, marks=needs("opendp")),
    ],
)
def test_library_sampler_draws_the_flipped_law(library, draws, exact_moments):
    """Their samplers miss E[x_1^2] of the Bingham target by many standard errors and match the
    law with the flipped acceptance test, ∝ exp(x^T B x)(x^T Ω x)^{-d}."""
    X = peers.library_bingham_draws(library, B_TEST, draws, rng=22)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, atol=1e-12)
    values = X[:, 0] ** 2
    mean, se = values.mean(), values.std() / np.sqrt(draws)
    bingham, se_b = exact_moments["bingham"]
    flipped, se_f = exact_moments["flipped"]
    assert (mean - bingham) / np.hypot(se, se_b) > 25
    assert abs(mean - flipped) < 5 * np.hypot(se, se_f)


def _worst_pair(n, d, relation):
    """Unnormalised C = X^T X of the worst-case neighbours: n - 1 rows e_1 and one e_2, the e_2
    row replaced by e_1 (replace-one) or n rows e_1 and one more row e_2 (add/remove)."""
    X = np.zeros((n, d))
    X[:, 0] = 1.0
    if relation == "replace":
        X[-1] = np.eye(d)[1]
        Xp = X.copy()
        Xp[-1] = np.eye(d)[0]
    else:
        Xp = np.vstack([X, np.eye(d)[1]])
    return X.T @ X, Xp.T @ Xp


def _loss(log_density, C, Cp, unit_epsilon, d):
    B, Bp = unit_epsilon / 4 * C, unit_epsilon / 4 * Cp
    return three_block_privacy_loss(
        lambda U: log_density(B, U), lambda U: log_density(Bp, U), d
    )


def test_flipped_law_exceeds_the_claimed_epsilon():
    """One vector step with unit ε = 1 (target ∝ exp(ε/4 x^T C x)): OpenDP charges ε per
    replaced row and ε/2 per added row. The Bingham law stays within ε/2 and ε/4; the law the
    libraries sample exceeds both charges on the worst-case pairs (exact quadrature)."""
    C, Cp = _worst_pair(20, 10, "replace")
    flipped = _loss(flipped_bingham.flipped_log_density, C, Cp, 1.0, 10)
    bingham = _loss(flipped_bingham.bingham_log_density, C, Cp, 1.0, 10)
    assert flipped > 1.2 and bingham <= 0.5 + 1e-9
    C, Cp = _worst_pair(1, 20, "add")
    flipped = _loss(flipped_bingham.flipped_log_density, C, Cp, 1.0, 20)
    bingham = _loss(flipped_bingham.bingham_log_density, C, Cp, 1.0, 20)
    assert flipped > 0.7 and bingham <= 0.25 + 1e-9


def test_three_block_loss_matches_the_circle_in_its_limit():
    """Consistency of the quadrature: the Bingham loss on the replace-one pair approaches the
    general bound 2 η = ε/2 from below as n grows (d = 5)."""
    losses = [
        _loss(
            flipped_bingham.bingham_log_density,
            *_worst_pair(n, 5, "replace"),
            1.0,
            5,
        )
        for n in (5, 50, 5000)
    ]
    assert losses[0] < losses[1] < losses[2] <= 0.5 + 1e-9
    assert losses[2] > 0.49


def _rows(n, d, rng):
    X = rng.standard_normal((n, d)) * np.linspace(2.0, 0.5, d)
    return X / np.linalg.norm(X, axis=1).max()


@needs("diffprivlib")
def test_diffprivlib_adapter_seeded_orthonormal_and_silent():
    rng = np.random.default_rng(23)
    X = _rows(300, 6, rng)
    with warnings.catch_warnings():
        warnings.simplefilter(
            "error"
        )  # no PrivacyLeakWarning: bounds are passed
        V1 = peers.diffprivlib_pca(X, 2, 1.0, rng=5)
        V2 = peers.diffprivlib_pca(X, 2, 1.0, rng=5)
        W1 = peers.diffprivlib_pca_from_second_moment(
            second_moment(X), 300, 2, 1.0, rng=5
        )
        W2 = peers.diffprivlib_pca_from_second_moment(
            second_moment(X), 300, 2, 1.0, rng=5
        )
    assert np.array_equal(V1, V2) and np.array_equal(W1, W2)
    for V in (V1, W1):
        np.testing.assert_allclose(V.T @ V, np.eye(2), atol=1e-10)


@needs("diffprivlib")
def test_diffprivlib_reads_missing_bounds_from_the_data():
    from diffprivlib.models import PCA
    from diffprivlib.utils import PrivacyLeakWarning

    X = _rows(200, 4, np.random.default_rng(24))
    with pytest.warns(PrivacyLeakWarning):
        model = PCA(n_components=2, epsilon=1.0, random_state=0).fit(X.copy())
    assert model.data_norm == pytest.approx(
        np.linalg.norm(X - model.mean_, axis=1).max()
    )


@needs("opendp")
def test_opendp_adapters_orthonormal():
    rng = np.random.default_rng(25)
    X = _rows(200, 5, rng)
    for V in (
        peers.opendp_pca(X, 2, 1.0),
        peers.opendp_pca_from_second_moment(second_moment(X), 200, 2, 1.0),
    ):
        assert V.shape == (5, 2)
        np.testing.assert_allclose(V.T @ V, np.eye(2), atol=1e-10)


def test_peer_registry_lists_importable_libraries():
    from dppca.book import mechanism_table

    table = mechanism_table.peer_mechanisms()
    assert set(table) == {
        key
        for key, lib in mechanism_table.PEER_LIBRARY.items()
        if AVAILABLE[lib]
    }
    X = _rows(150, 4, np.random.default_rng(26))
    for key, mechanism in table.items():
        V = mechanism.run_from_moment(
            second_moment(X), 150, 2, 1.0, None, rng=1
        )
        np.testing.assert_allclose(V.T @ V, np.eye(2), atol=1e-10, err_msg=key)
        assert mechanism.notion and mechanism.privacy


@needs("opendp")
@pytest.mark.parametrize("k", [1, 3, 8])
def test_vector_budget_is_opendps_own_split(k):
    from opendp.extras.sklearn.decomposition import _split_pca_epsilon_evenly

    split = _split_pca_epsilon_evenly(0.7, k)
    assert len(split.eigvecs) == k
    for share in split.eigvecs:
        assert peers.vector_budget("opendp_pca", 0.7, k) == pytest.approx(share)


def test_vector_budget_refuses_unknown_libraries_and_bad_k():
    assert peers.vector_budget("diffprivlib_pca", 0.9, 2) == pytest.approx(0.3)
    with pytest.raises(ValueError, match="unknown library"):
        peers.vector_budget("sklearn_pca", 1.0, 2)
    with pytest.raises(ValueError, match="k must be"):
        peers.vector_budget("opendp_pca", 1.0, 0)


def test_first_vector_acceptance_collapses_as_n_grows():
    """The flipped test's acceptance falls by orders of magnitude as n ε
    grows, on a fixed spectrum (what chapters 8 and 12 rely on to stop trying
    larger n after a time-out); the correct test's stays of order one."""
    rng = np.random.default_rng(3)
    A = np.diag(np.linspace(0.3, 0.0, 30))
    rates = [
        peers.first_vector_log10_acceptance(
            "diffprivlib_pca", A, n, 4, 0.1, size=4000, rng=rng
        )
        for n in (1000, 4000, 16000)
    ]
    assert rates[0] > rates[1] + 1 > rates[2] + 2
    B = peers.vector_budget("diffprivlib_pca", 0.1, 4) / 4 * 16000 * A
    assert flipped_bingham.log10_acceptance_rates(B, 4000, rng)[0] > -1


# ------------------------------------------------------------------------------
# Seeding with the caller's entropy, and caps counted in proposals
# ------------------------------------------------------------------------------
def test_library_generators_get_256_bits_of_the_callers_stream():
    """The generator handed to a library is a PCG64 seeded with 256 bits
    drawn from the caller's generator (not a 31-bit integer), and drawing it
    advances the caller's stream."""
    rng = np.random.default_rng(40)
    state = peers._diffprivlib_random_state(rng, peers.WorkCount())
    assert isinstance(state, np.random.RandomState)
    seed_seq = state._bit_generator.seed_seq
    assert isinstance(state._bit_generator, np.random.PCG64)
    assert len(seed_seq.entropy) == 4  # four 64-bit words
    assert max(seed_seq.entropy) >= 2**32  # words wider than 31 bits
    again = peers._diffprivlib_random_state(rng, peers.WorkCount())
    assert again._bit_generator.seed_seq.entropy != seed_seq.entropy
    same = peers._diffprivlib_random_state(
        np.random.default_rng(40), peers.WorkCount()
    )
    assert same._bit_generator.seed_seq.entropy == seed_seq.entropy


@needs("opendp")
def test_opendp_adapters_are_seeded_and_restore_the_librarys_generator():
    import opendp._lib as lib

    X = _rows(200, 5, np.random.default_rng(41))
    A = second_moment(X)
    own = lib.get_np_csprng()
    V1 = peers.opendp_pca(X, 2, 1.0, rng=7)
    V2 = peers.opendp_pca(X, 2, 1.0, rng=7)
    W = peers.opendp_pca_from_second_moment(A, 200, 2, 1.0, rng=7)
    other = peers.opendp_pca_from_second_moment(A, 200, 2, 1.0, rng=8)
    np.testing.assert_array_equal(V1, V2)
    np.testing.assert_allclose(V1, W, atol=1e-12)  # same draws
    assert not np.allclose(W, other)
    draws = [peers.opendp_eigenvector_draws(B_TEST, 3, rng=9) for _ in "ab"]
    np.testing.assert_array_equal(*draws)
    assert lib.get_np_csprng() is own  # the library's own, restored


@pytest.mark.parametrize(
    "key",
    [
        pytest.param("diffprivlib_pca", marks=needs("diffprivlib")),
        pytest.param("opendp_pca", marks=needs("opendp")),
    ],
)
def test_a_release_stops_at_its_cap_of_proposals(key):
    """At a concentration where the first vector accepts with probability
    ~1e-10, a release stops at its cap with WorkCapExceeded (also out of
    OpenDP's callback); with a generous cap at a weak concentration it
    returns, and the count is what it drew."""
    import opendp._lib as lib

    own = lib.get_np_csprng() if AVAILABLE["opendp"] else None
    X = _rows(4000, 30, np.random.default_rng(42))
    A = second_moment(X)
    release = getattr(peers, f"{key}_from_second_moment")
    hard = peers.first_vector_log10_acceptance(key, A, 4000, 2, 10.0, rng=1)
    assert hard < -8
    work = peers.WorkCount(50)
    with pytest.raises(peers.WorkCapExceeded) as stopped:
        release(A, 4000, 2, 10.0, rng=3, max_proposals=work)
    assert stopped.value.proposals == 50 == work.used and work.exceeded
    easy = peers.first_vector_log10_acceptance(key, A, 100, 2, 0.1, rng=1)
    cap = peers.proposal_cap(easy, 2)
    work = peers.WorkCount(cap)
    V = release(A, 100, 2, 0.1, rng=3, max_proposals=work)
    assert V.shape == (30, 2) and 2 <= work.used <= cap
    again = peers.WorkCount(cap)
    np.testing.assert_array_equal(
        V, release(A, 100, 2, 0.1, rng=3, max_proposals=again)
    )
    assert again.used == work.used  # the same seed draws the same count
    if own is not None:
        assert lib.get_np_csprng() is own


def test_proposal_cap_is_safety_times_the_mean_and_refuses_nonsense():
    assert peers.proposal_cap(-2.0, 4) == 20 * 4 * 100
    assert peers.proposal_cap(0.0, 1, safety=1.5) == 2
    assert peers.proposal_cap(-40.0, 4) == float("inf")
    assert peers.proposal_work(10) == 1000 + peers.PROPOSAL_OVERHEAD
    with pytest.raises(ValueError):
        peers.proposal_cap(-1.0, 0)
    with pytest.raises(ValueError):
        peers.WorkCount(0)
