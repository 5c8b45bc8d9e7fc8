"""scikit-learn PCA parity of PrivatePCA (issue 30.2): whiten,
singular_values_, noise_variance_, get_covariance, get_precision,
score_samples and score, all post-processing of the release, and float32
kept. Compared against sklearn.decomposition.PCA on data where ε is huge, so
that the release is PCA up to the noise and the documented n vs n − 1."""

import warnings

import numpy as np
import pytest
from sklearn.decomposition import PCA

from dppca import PrivacyWarning, PrivatePCA
from dppca.mechanisms.registry import MECHANISMS
from dppca.postprocessing import spectrum_mechanisms
from dppca.privacy.accounting import Accountant

N, D, K = 4000, 6, 2

#: Whitened variances at ε = 10 (n = 4000): measured within 0.048 of one
#: over seeds 0-2; twice that.
TOL10 = 0.1


def data(n=N, seed=1):
    """Rows with a clear spectrum (3, 2, 0.5, 0.4, 0.3, 0.2 along a random
    frame, the same for every seed), off the origin."""
    frame = np.linalg.qr(np.random.default_rng(0).standard_normal((D, D)))[0]
    rng = np.random.default_rng(seed)
    spread = np.array([3.0, 2.0, 0.5, 0.4, 0.3, 0.2])
    return (rng.standard_normal((n, D)) * spread) @ frame.T + 1.0


def bound(X):
    # every row and every centred row within the bound: nothing clipped
    return 1.5 * float(np.linalg.norm(X, axis=1).max())


def private(X, mechanism="analyze_gauss", epsilon=1e9, **kw):
    delta = None if MECHANISMS[mechanism].notion == "pure" else 1e-5
    return PrivatePCA(
        K,
        epsilon=epsilon,
        delta=delta,
        mechanism=mechanism,
        data_norm=bound(X),
        random_state=0,
        **kw,
    ).fit(X)


@pytest.fixture(scope="module")
def fitted():
    X = data()
    return X, private(X), PCA(K).fit(X)


@pytest.mark.parametrize("mechanism", ["analyze_gauss", "laplace"])
def test_attributes_match_pca_at_huge_epsilon(mechanism):
    """At ε = 1e9 the mechanism's noise is below the grid of the safe noise:
    measured gaps over both mechanisms: mean 2.9e-6, axes 5.1e-6,
    eigenvalues 9.1e-6 and singular values 4.5e-6 relative, the noise
    variance (0.13, the smallest figure) 1.0e-4. explained_variance_ divides
    by n, scikit-learn's by n − 1: the same up to (n − 1)/n, which the
    comparison undoes. Tolerances about 10x (5x for the noise variance) the
    measured gaps, below the factor 1/n = 2.5e-4 they must detect."""
    X = data()
    est, pca = private(X, mechanism), PCA(K).fit(X)
    assert np.allclose(est.mean_, pca.mean_, atol=3e-5)
    overlap = np.abs(est.components_ @ pca.components_.T)
    assert np.allclose(overlap, np.eye(K), atol=5e-5)
    ratio = N / (N - 1)
    assert np.allclose(
        est.explained_variance_ * ratio, pca.explained_variance_, rtol=1e-4
    )
    assert np.allclose(est.singular_values_, pca.singular_values_, rtol=5e-5)
    assert np.isclose(
        est.noise_variance_ * ratio, pca.noise_variance_, rtol=5e-4
    )
    # the n vs n − 1 factor is real: without it the eigenvalues differ
    assert not np.allclose(
        est.explained_variance_, pca.explained_variance_, rtol=1e-4
    )


def test_score_samples_is_pca_likelihood_on_the_released_model(fitted):
    """The same formula as scikit-learn's: sklearn's PCA given the released
    attributes scores every row as PrivatePCA does, to rounding (its
    inversion lemma vs the closed form here)."""
    X, est, _ = fitted
    model = PCA(K).fit(X)
    for name in ("components_", "mean_", "explained_variance_"):
        setattr(model, name, getattr(est, name))
    model.noise_variance_ = est.noise_variance_
    assert np.allclose(est.score_samples(X), model.score_samples(X), rtol=1e-10)
    assert np.allclose(est.get_covariance(), model.get_covariance(), atol=1e-12)
    assert np.allclose(est.get_precision(), model.get_precision(), atol=1e-10)
    assert np.allclose(
        est.get_precision() @ est.get_covariance(), np.eye(D), atol=1e-10
    )


def test_score_samples_close_to_pca(fitted):
    """Against PCA fitted on the same rows. The gap comes from n vs n − 1:
    d/2·log(n/(n − 1)) = 7.5e-4 nats plus the Mahalanobis term scaled by
    about 1/n = 2.5e-4 relative (measured: 0.048 nats on a held-out row
    scoring −67, 2.4e-4 of it; 1e-5 for the mean over the training rows).
    Tolerance 1e-3 relative + 1e-3; a noise variance off by 10% moves the
    scores by several percent."""
    X, est, pca = fitted
    held_out = data(1000, seed=2)
    for rows in (X, held_out):
        ours, theirs = est.score_samples(rows), pca.score_samples(rows)
        assert np.allclose(ours, theirs, rtol=1e-3, atol=1e-3)
        assert np.isclose(est.score(rows), pca.score(rows), rtol=1e-3)
    wrong = PCA(K).fit(X)
    wrong.noise_variance_ *= 1.1
    assert not np.allclose(
        wrong.score_samples(held_out), ours, rtol=1e-3, atol=1e-3
    )


def test_whiten_gives_unit_variance_on_the_training_rows():
    """Whitened coordinates of the training rows have variance one (ddof=0,
    as explained_variance_ divides by n): to 1e-5 at ε = 1e9, and within
    TOL10 at ε = 10 (n = 4000, rows bounded at 19: the noise inflates the
    released eigenvalues by about its spectral norm, so the whitened
    variances fall below one)."""
    X = data()
    for epsilon, tolerance in ((1e9, 1e-5), (10.0, TOL10)):
        est = private(X, epsilon=epsilon, whiten=True)
        Z = est.transform(X)
        assert np.allclose(Z.var(axis=0), 1.0, atol=tolerance), Z.var(axis=0)
        # whitening is undone exactly, and does not change the data's model
        plain = private(X, epsilon=epsilon)
        assert np.allclose(
            est.inverse_transform(Z),
            plain.inverse_transform(plain.transform(X)),
        )
        assert np.array_equal(est.get_covariance(), plain.get_covariance())
    pca = PCA(K, whiten=True).fit(X)
    near = private(X, whiten=True)
    assert np.allclose(
        np.abs(near.transform(X)), np.abs(pca.transform(X)), atol=1e-3
    )


def test_float32_in_gives_float32_out_computed_in_float64():
    X = data()
    X32 = X.astype(np.float32)
    est = private(X32, epsilon=1.0)
    same = private(X32.astype(np.float64), epsilon=1.0)
    for name in ("components_", "mean_", "explained_variance_"):
        assert getattr(est, name).dtype == np.float32, name
        # the release is the float64 one, rounded at the end
        assert np.array_equal(
            getattr(est, name), getattr(same, name).astype(np.float32)
        )
    assert est.singular_values_.dtype == np.float32
    assert est.noise_variance_.dtype == np.float32
    assert est.transform(X32).dtype == np.float32
    assert est.fit_transform(X32).dtype == np.float32
    assert est.transform(X).dtype == np.float64  # as scikit-learn's PCA
    assert est.score_samples(X32).dtype == np.float32
    assert est.inverse_transform(est.transform(X32)).dtype == np.float32
    pca = PCA(K).fit(X32)
    assert pca.transform(X32).dtype == est.transform(X32).dtype
    assert private(X, epsilon=1.0).components_.dtype == np.float64


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
def test_whiten_is_refused_without_released_eigenvalues(mechanism):
    """spectrum_mechanisms() is what fits really release: whiten=True fits
    (with the whole model) exactly for those, and is refused for the others
    from public parameters, before the accountant is charged."""
    X = data(600)
    kw = {
        "allow_unproved": mechanism,
        "allow_not_dp": True,
        "mechanism_options": {"eigengap": 0.05}
        if mechanism == "streaming"
        else None,
        "whiten": True,
    }
    if mechanism not in spectrum_mechanisms():
        # (PPCA's Gibbs chain cannot be charged at all)
        ledger = None if mechanism == "ppca" else Accountant(10.0, 1e-3)
        with pytest.raises(ValueError, match="whiten=True needs released"):
            private(X, mechanism, epsilon=5.0, accountant=ledger, **kw)
        assert ledger is None or ledger.charges == ()
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        est = private(X, mechanism, **{"epsilon": 5.0, **kw})
    assert est.noise_variance_ >= 0
    assert est.singular_values_.shape == (K,)
    assert est.get_covariance().shape == (D, D)


def test_models_without_eigenvalues_say_so():
    X = data(600)
    est = private(X, "noisy_power_method", epsilon=5.0)
    assert not hasattr(est, "noise_variance_")
    assert not hasattr(est, "score_samples")
    with pytest.raises(AttributeError, match="releases none"):
        est.get_covariance()
    # a refit keeps no spectrum of an earlier mechanism
    est.set_params(mechanism="analyze_gauss").fit(X)
    assert hasattr(est, "score_samples")
    est.set_params(mechanism="noisy_power_method")
    with pytest.warns(PrivacyWarning, match="refitting"):
        est.fit(X)
    assert not hasattr(est, "explained_variance_")


def test_degenerate_model_at_small_epsilon_is_said():
    """At tiny ε the trailing released eigenvalues are all ≤ 0: no finite
    likelihood, and score_samples says so rather than return nonsense."""
    X = data(200)
    for seed in range(20):
        est = PrivatePCA(
            5,
            epsilon=0.01,
            delta=1e-5,
            data_norm=bound(X),
            random_state=seed,
        ).fit(X)
        if est.noise_variance_ == 0:
            break
    else:
        pytest.fail("no degenerate release in 20 seeds")
    assert not hasattr(est, "score_samples")
    with pytest.raises(AttributeError, match="degenerate"):
        est.score(X)
    est.get_covariance()  # the covariance itself exists


def test_whiten_must_be_a_bool():
    with pytest.raises(ValueError, match="whiten must be"):
        private(data(100), whiten="yes")
