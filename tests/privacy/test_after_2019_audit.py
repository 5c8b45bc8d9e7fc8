"""Black-box audits (chapter 10's test) of the mechanisms of the part "After
2019": each release is run on a pair of neighbouring data sets (one row
replaced, the two rows orthogonal and on the unit sphere, the other rows
shared), every output is reduced to the statistic that best separates the
pair, and dppca.privacy.audit certifies a lower bound on ε at 95 % confidence. The
certificate must not exceed the ε of the release's own guarantee record.

How much power each audit has is measured, not assumed. For the complex
Gaussian mechanism, noise ten times too small is certified far above the
claim (its calibration bypassed, below); for the trace-sensitive estimator,
the same release calibrated to ε = 10 is certified above 1 (below). For
DP-PCA the end-to-end audit has almost no power: with 1,500 trials, a
release calibrated to ε = 30 was certified 0.00 on these pairs, and one
calibrated to ε = 300 was certified 0.96 on a one-step design (the
differing row in the only minibatch, the other rows on a third axis). The
private radius and the random start dilute one row's effect on the output
direction. Its claim rests on the step-level tests of
``test_streaming_privacy.py`` (exact ε of attaining pairs, with teeth) and on
the parallel composition, whose premise (a replaced row changes only its own
step) is tested there too."""

from __future__ import annotations

import numpy as np
import pytest

from dppca.linalg import second_moment
from dppca.mechanisms import complex_gaussian, streaming, trace_sensitive
from dppca.privacy import audit

EPSILON, DELTA = 1.0, 1e-5
TRIALS = 1_500


def neighbours(n: int, d: int, seed: int = 0):
    """Rows of norm 1/2 in every direction but the first two, and one
    replaced row: e₁ in one data set, e₂ in the other."""
    gen = np.random.default_rng(seed)
    shared = gen.standard_normal((n - 1, d))
    shared[:, :2] = 0.0
    shared *= 0.5 / np.linalg.norm(shared, axis=1, keepdims=True)
    first, second = np.zeros((1, d)), np.zeros((1, d))
    first[0, 0], second[0, 1] = 1.0, 1.0
    return np.vstack([shared, first]), np.vstack([shared, second])


def diagonal_contrast(M) -> float:
    M = np.asarray(M)
    return float(M[0, 0] - M[1, 1])


def certify(release, X, Y, score, seed: int):
    return audit.audit_mechanism(
        release, X, Y, score, TRIALS, delta=DELTA, rng=seed
    )


def test_complex_gaussian_audit_stays_below_its_record():
    X, Y = neighbours(40, 4)
    A, B = second_moment(X), second_moment(Y)
    record = complex_gaussian.complex_gaussian_guarantee(
        40, 4, 1, EPSILON, DELTA
    )

    def release(data, rng):
        return (
            complex_gaussian.complex_gaussian_approximation_from_second_moment(
                data,
                40,
                3,
                epsilon=EPSILON,
                delta=DELTA,
                rng=rng,
                output="hermitian",
            ).real
        )

    result = certify(release, A, B, diagonal_contrast, 1)
    assert result.epsilon_lower <= record.epsilon, str(result)


def test_the_complex_audit_has_power_against_too_little_noise():
    """The same audit, on the mechanism's noise with σ ten times smaller
    than calibrated, certifies more than the claimed ε."""
    X, Y = neighbours(40, 4)
    A, B = second_moment(X), second_moment(Y)
    sigma = complex_gaussian.noise_sigma(EPSILON, DELTA, 40) / 10

    def release(data, rng):
        noisy = complex_gaussian.perturb_hermitian(data, sigma, rng, "float")
        return np.real(noisy)

    result = certify(release, A, B, diagonal_contrast, 2)
    assert result.epsilon_lower > EPSILON, str(result)


def test_trace_sensitive_audit_stays_below_its_record():
    X, Y = neighbours(40, 4)
    record = trace_sensitive.trace_sensitive_guarantee(40, 4, EPSILON, DELTA)

    def release(data, rng):
        return trace_sensitive.trace_sensitive_covariance(
            data, epsilon=EPSILON, delta=DELTA, rng=rng
        )

    result = certify(release, X, Y, diagonal_contrast, 3)
    assert result.epsilon_lower <= record.epsilon, str(result)


def test_the_trace_sensitive_audit_has_power():
    """The same audit of the same release, calibrated to ε = 10 instead of
    1, certifies more than 1: at the claimed ε a certificate above 1 would
    have been seen."""
    X, Y = neighbours(40, 4)

    def release(data, rng):
        return trace_sensitive.trace_sensitive_covariance(
            data, epsilon=10 * EPSILON, delta=DELTA, rng=rng
        )

    result = certify(release, X, Y, diagonal_contrast, 3)
    assert result.epsilon_lower > EPSILON, str(result)


def test_streaming_audit_stays_below_its_record():
    X, Y = neighbours(200, 4)
    record = streaming.dp_pca_guarantee(EPSILON, DELTA)

    def release(data, rng):
        V = streaming.dp_pca_oja(
            data, 1, epsilon=EPSILON, delta=DELTA, eigengap=0.2, rng=rng
        )
        return np.asarray(V)

    def score(V):
        return float(V[0, 0] ** 2 - V[1, 0] ** 2)

    result = certify(release, X, Y, score, 4)
    assert result.epsilon_lower <= record.epsilon, str(result)


@pytest.mark.parametrize("n", [40])
def test_neighbours_differ_in_one_row_on_the_unit_sphere(n):
    X, Y = neighbours(n, 4)
    differ = np.flatnonzero(np.any(X != Y, axis=1))
    assert differ.tolist() == [n - 1]
    assert np.allclose(np.linalg.norm(X, axis=1).max(), 1.0)
