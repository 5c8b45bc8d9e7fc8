"""A mechanism is one module plus one registry entry (issue 41).

A toy mechanism (Gaussian noise on the second moment, float64 noise, with its
guarantee record) is registered at run time with
:func:`dppca.mechanisms.registry.register`, and with no other edit it is
something ``PrivatePCA`` fits (its option checks included), a row of the
estimator's docstring table and of the release snapshots' list, and a member
of the registry's derived tables. Undoing the registration takes it out of
each of them again.
"""

import math

import numpy as np
import pytest
import release_snapshots  # tools/ (pytest pythonpath)

from dppca import PrivatePCA
from dppca.forecast import forecast_mechanisms
from dppca.mechanisms import registry
from dppca.mechanisms.input_perturbation import symmetric_gaussian_noise
from dppca.mechanisms.spec import MechanismSpec, noisy_matrix_release
from dppca.postprocessing import spectrum_mechanisms
from dppca.privacy.calibration import analytic_gaussian_sigma
from dppca.privacy.guarantees import gaussian_release, noise_record

KEY = "toy"


def _sigma(n, epsilon, delta, boost):
    """σ of the toy's noise: the analytic Gaussian σ for the upper
    triangle's ℓ₂ sensitivity √2/n, times ``boost`` (≥ 1)."""
    return boost * analytic_gaussian_sigma(math.sqrt(2) / n, epsilon, delta)


def toy_from_second_moment(A, n, k, epsilon, delta, rng=None, boost=1.0):
    """The toy's entry point; its keyword parameters with defaults (less
    ``rng``) are the options ``PrivatePCA`` accepts for it."""
    sigma = _sigma(n, epsilon, delta, boost)
    return A + symmetric_gaussian_noise(A.shape[0], sigma, rng)


def _run(A, n, k, epsilon, delta, rng, options):
    noisy = toy_from_second_moment(A, n, k, epsilon, delta, rng, **options)
    return noisy_matrix_release(noisy, k)


def _guarantee(n, d, k, epsilon, delta, options):
    sigma = _sigma(n, epsilon, delta, options.get("boost", 1.0))
    return gaussian_release(
        "toy Gaussian",
        sigma,
        math.sqrt(2) / n,
        epsilon,
        delta,
        **noise_record("float"),
    )


def _check_options(options, n, d, k, epsilon):
    boost = options.get("boost", 1.0)
    if not (isinstance(boost, float) and boost >= 1.0):
        raise ValueError(f"boost must be a float >= 1; got {boost!r}")
    return dict(options)


TOY = MechanismSpec(
    key=KEY,
    label="toy Gaussian",
    notion="gaussian",
    uses_delta=True,
    uses_epsilon=True,
    guarantee=_guarantee,
    privacy="(ε, δ)-DP as mathematics: the Gaussian mechanism on A",
    run=_run,
    check_options=_check_options,
    options_of=toy_from_second_moment,
    releases_eigenvalues=True,
    proof="no: float64 noise (opt in)",
)


def _data(n=300, d=5):
    rng = np.random.default_rng(3)
    X = rng.standard_normal((n, d)) * np.linspace(2.0, 0.5, d)
    return X / (1.01 * np.linalg.norm(X, axis=1).max())


def _toy_fit(**params):
    params = {"allow_unproved": KEY, **params}
    return PrivatePCA(
        2,
        epsilon=2.0,
        delta=1e-5,
        mechanism=KEY,
        data_norm=1.0,
        random_state=0,
        **params,
    )


def _everywhere() -> dict:
    """Whether ``KEY`` appears in each place a mechanism should."""
    return {
        "MECHANISMS": KEY in registry.MECHANISMS,
        "RELEASES_EIGENVALUES": KEY in registry.RELEASES_EIGENVALUES,
        "RELEASES_SPECTRUM": KEY in registry.RELEASES_SPECTRUM,
        "spectrum_mechanisms": KEY in spectrum_mechanisms(),
        "guide_table": f'``"{KEY}"``' in registry.guide_table(),
        "docstring": f'``"{KEY}"``' in PrivatePCA.__doc__,
        "snapshots": KEY in release_snapshots.mechanisms(),
    }


def test_a_registered_mechanism_appears_everywhere_and_leaves_with_undo():
    before = _everywhere()
    assert not any(before.values()), before
    undo = registry.register(TOY)
    try:
        assert all(_everywhere().values()), _everywhere()
        assert list(registry.MECHANISMS)[-1] == KEY  # no guide_rank: last
        # the snapshot tool reads what a fit of it needs from the spec
        assert release_snapshots.mechanisms()[KEY] == {
            "delta": 1e-5,
            "allow_unproved": KEY,
        }
        # not additive through dppca.privacy.noise, and no forecast
        assert KEY not in registry.ADDITIVE_NOISE
        assert KEY not in forecast_mechanisms()
        assert KEY not in registry.AUTO_CANDIDATES[True]
    finally:
        undo()
    assert _everywhere() == before
    undo()  # a second undo does nothing
    assert _everywhere() == before


def test_private_pca_fits_the_registered_mechanism():
    X = _data()
    with registry.registered(TOY):
        pca = _toy_fit().fit(X)
        assert pca.mechanism_ == KEY
        assert pca.components_.shape == (2, X.shape[1])
        V = pca.components_
        np.testing.assert_allclose(V @ V.T, np.eye(2), atol=1e-12)
        # it releases its noisy matrix's eigenvalues
        assert pca.explained_variance_.shape == (2,)
        labels = [record.label for record in pca.privacy_releases_]
        assert "toy Gaussian" in labels
        # a larger boost is more noise: its record's multiplier grows
        boosted = _toy_fit(mechanism_options={"boost": 4.0}).fit(X)
        multiplier = {
            fit: next(
                r.noise_multiplier
                for r in fit.privacy_releases_
                if r.label == "toy Gaussian"
            )
            for fit in (pca, boosted)
        }
        assert multiplier[boosted] > 3.9 * multiplier[pca]


def test_the_registered_mechanisms_option_checks_refuse_before_a_fit():
    X = _data()
    with registry.registered(TOY):
        with pytest.raises(ValueError, match="boost must be a float >= 1"):
            _toy_fit(mechanism_options={"boost": 0.5}).fit(X)
        with pytest.raises(ValueError, match="not options of"):
            _toy_fit(mechanism_options={"sampler": "fast"}).fit(X)
        # unproved (float64 noise): refused without the opt-in
        with pytest.raises(ValueError, match="allow_unproved"):
            _toy_fit(allow_unproved=None).fit(X)
    # unregistered: neither a mechanism nor a name to opt in to
    with pytest.raises(ValueError, match="mechanism must be"):
        _toy_fit(allow_unproved=None).fit(X)
    with pytest.raises(ValueError, match="names no registered mechanism"):
        _toy_fit().fit(X)


def test_a_key_is_registered_once():
    with registry.registered(TOY):
        with pytest.raises(ValueError, match="already registered"):
            registry.register(TOY)
    with pytest.raises(ValueError, match="already registered"):
        registry.register(registry.MECHANISMS["laplace"])


def test_a_stale_undo_leaves_a_later_registration_alone():
    """Red team, round 13: after the same spec was registered again, the
    first registration's undo (already called once) removed the new one."""
    first = registry.register(TOY)
    first()
    second = registry.register(TOY)
    try:
        first()  # stale: does nothing
        assert "toy" in registry.MECHANISMS
    finally:
        second()
    assert "toy" not in registry.MECHANISMS


def test_a_mechanism_reading_rows_cannot_claim_the_per_person_argument():
    """Red team, round 14: a spec with run_rows and person_level was
    accepted, and a fit with groups ran it per person."""
    import dataclasses

    rows_spec = dataclasses.replace(
        registry.MECHANISMS["streaming"], key="rows_person", person_level="x"
    )
    with pytest.raises(ValueError, match="person_level"):
        registry.register(rows_spec)
    assert "rows_person" not in registry.MECHANISMS
    not_dp = dataclasses.replace(
        TOY, key="toy_not_dp", notion="not_dp", person_level="x"
    )
    with pytest.raises(ValueError, match="person_level"):
        registry.register(not_dp)
