"""dppca.forecast_prediction: the typical-loss model against its own exact
simulation, the debiasing of a released spectrum, and the three ways of
feeding it a spectrum (oracle, released, public)."""

from __future__ import annotations

import math
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from dppca import PrivatePCA
from dppca import forecast as fc
from dppca import forecast_prediction as fp
from dppca.exceptions import UtilityWarning


def spiked(d, spikes, floor):
    return np.r_[spikes, np.full(d - len(spikes), floor)]


# -- the model -----------------------------------------------------------------


def test_small_noise_is_the_second_order_sum():
    lam = spiked(20, [1.0, 0.6, 0.3], 0.01)
    k, s = 2, 1e-4
    expected = sum(
        s**2 / (lam[i] - lam[j]) for i in range(k) for j in range(k, 20)
    )
    got = fp.typical_loss(lam, k, s)
    assert got.loss == pytest.approx(expected, rel=1e-12)
    assert got.mean == 0 and got.lost_directions == 0


@pytest.mark.parametrize(
    "s, omega", [(2e-3, 0.0), (2e-2, 0.0), (2e-2, 0.4), (1e-3, 2.0)]
)
def test_prediction_matches_the_exact_simulation(s, omega):
    # spikes above and near the threshold s√d, with and without a mean error
    lam = spiked(60, [1.0, 0.5, 0.25, 0.12], 0.01)
    predicted = fp.typical_loss(lam, 3, s, omega).loss
    drawn = np.median(fp.simulated_loss(lam, 3, s, omega, repeats=8, rng=1))
    assert 1 / 1.6 < predicted / drawn < 1.6


def test_a_spike_below_the_threshold_is_lost():
    d, s = 100, 0.05  # threshold s√d = 0.5
    lam = spiked(d, [2.0, 0.2], 0.0)
    got = fp.typical_loss(lam, 2, s)
    assert got.lost_directions == 1
    # the lost spike costs its whole height over the outside mean
    outside = lam[2:].mean()
    assert got.mixing == pytest.approx(
        0.2 - outside + s**2 * (d - 2) / 2.0, rel=1e-9
    )
    # far below the threshold everything is lost: a random subspace's loss
    assert fp.typical_loss(lam, 2, 10.0).loss == pytest.approx(
        fp.typical_loss(lam, 2, 10.0).random_loss
    )


def test_the_mean_term_grows_to_the_kth_gap():
    lam = spiked(50, [1.0, 0.5, 0.2], 0.01)
    means = [fp.typical_loss(lam, 3, 0.0, w).mean for w in (0, 0.01, 0.1, 1e3)]
    assert means[0] == 0 and np.all(np.diff(means) > 0)
    # a huge error takes the k-th place (w keeps a share ~1/d along v_k)
    assert 0.95 * (0.2 - 0.01) < means[-1] <= 0.2 - 0.01


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="k must"):
        fp.typical_loss([1.0, 0.5], 2, 0.1)
    with pytest.raises(ValueError, match="finite"):
        fp.typical_loss([1.0, np.nan, 0.1], 1, 0.1)
    with pytest.raises(ValueError, match=">= 0"):
        fp.typical_loss([1.0, 0.5, 0.1], 1, 0.1, -1.0)


# -- a released spectrum, debiased ---------------------------------------------


def test_debiasing_inverts_the_spike_push():
    d, s = 200, 0.01
    lam = 0.5
    pushed = lam + s**2 * d / lam
    out = fp.debiased_spectrum([pushed], 0.0, d, s)
    assert out[0] == pytest.approx(lam, rel=1e-12)
    assert out.shape == (d,) and np.all(out[1:] == out[-1])


def test_the_trailing_level_is_read_from_the_positive_parts():
    # a flat bulk at m plus GOE noise: the mean positive part of the trailing
    # eigenvalues gives back m
    rng = np.random.default_rng(3)
    d, k, s, m = 300, 2, 0.01, 0.05
    G = rng.normal(scale=s / math.sqrt(2), size=(d, d))
    values = np.sort(np.linalg.eigvalsh(m * np.eye(d) + G + G.T))[::-1]
    trailing = np.maximum(values[k:], 0).mean()
    level = fp.debiased_spectrum(values[:k], trailing, d, s)[-1]
    assert level == pytest.approx(m, rel=0.1)
    # no more than the noise's own positive parts: level 0
    assert fp.debiased_spectrum(values[:k], 0.0, d, s)[-1] == 0.0


# -- fitted estimators ---------------------------------------------------------


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    n, d = 4000, 20
    scales = np.r_[[1.0, 0.7, 0.5], np.full(d - 3, 0.1)]
    X = rng.standard_normal((n, d)) * scales / 4 + 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UtilityWarning)
        est = PrivatePCA(
            3, epsilon=1.0, delta=1e-6, data_norm=3.0, random_state=0
        ).fit(X)
    return est, X


def test_fit_noise_is_the_mechanisms_calibration(fitted):
    est, X = fitted
    n, d = X.shape
    record = est.privacy_releases_[-1]
    s, omega = fp.fit_noise(est, n)
    assert s == fc.noise_std(est.mechanism_, n, d, record.epsilon, record.delta)
    mean = next(
        r for r in est.privacy_releases_ if r.label.startswith("private mean")
    )
    expected = fc.mean_error(n, d, 3.0, mean.epsilon, mean.delta)
    assert omega == pytest.approx(expected / est.row_bound_**2, rel=1e-12)


def test_oracle_prediction_is_near_the_measured_loss(fitted):
    est, X = fitted
    C = np.cov(X.T, bias=True)
    lam = np.linalg.eigvalsh(C)[::-1]
    V = est.components_.T
    measured = lam[:3].sum() - np.trace(V.T @ C @ V)
    predicted = fp.oracle_prediction(est, X).loss
    assert 1 / 3 < predicted / measured < 3


def test_released_prediction_reads_only_released_values(fitted):
    est, X = fitted
    n = X.shape[0]
    names = (
        "explained_variance_", "noise_variance_", "row_bound_",
        "data_norm_", "mechanism_", "privacy_releases_", "n_components_",
        "n_features_in_", "noise", "mechanism_options",
    )  # fmt: skip
    public = SimpleNamespace(**{name: getattr(est, name) for name in names})
    got = fp.released_prediction(public, n)
    assert got == fp.released_prediction(est, n)
    # the private mean's error (ω ≈ 0.22 B²) is larger than the third spike
    # (about 0.04 B²): its spike is the largest released value and takes the
    # third place, so two of the data's values clear the noise's edge
    assert got.mean_spike is True and got.detected == 2
    oracle = fp.oracle_prediction(est, X).loss
    assert 1 / 3 < got.loss / oracle < 3


def test_released_prediction_needs_released_eigenvalues(fitted):
    est, X = fitted
    public = SimpleNamespace(
        mechanism_="noisy_power", n_features_in_=X.shape[1]
    )  # a fit that released axes only
    with pytest.raises(ValueError, match="released no eigenvalues"):
        fp.released_prediction(public, X.shape[0])


def test_public_prediction_ranks_the_plan():
    est = PrivatePCA(3, epsilon=1.0, delta=1e-6, data_norm=1.0)
    plan = est.plan(5000, 30)
    spectrum = spiked(30, [0.3, 0.2, 0.1], 0.005)
    ranked = fp.rank_plan(plan, spectrum, 3)
    losses = [p.loss for _, p in ranked]
    assert losses == sorted(losses) and len(ranked) == len(plan)
    row, prediction = ranked[0]
    B2 = row.row_bound**2
    s = row.noise_norm / (2 * math.sqrt(30))
    again = fp.typical_loss(spectrum / B2, 3, s, row.mean_loss / B2)
    assert prediction.loss == pytest.approx(again.loss * B2, rel=1e-12)
    # the prediction is far below the bound on these data
    assert prediction.loss < row.loss / 10


# -- the private mean's error in the release ------------------------------------


def _noisy_top(lam, k, s, w, rng):
    d = lam.size
    G = rng.normal(scale=s / math.sqrt(2), size=(d, d))
    M = np.diag(lam) + G + G.T + np.outer(w, w)
    return np.sort(np.linalg.eigvalsh(M))[::-1][:k]


def test_a_large_mean_error_is_read_as_the_top_released_value():
    # data hidden far below the noise, a mean error far above it: the top
    # released value is the mean's, and no value of the data is detected
    rng = np.random.default_rng(5)
    d, k, s, omega = 30, 5, 0.02, 0.8
    lam = np.full(d, 1e-4)
    for _ in range(5):
        w = rng.normal(scale=math.sqrt(omega / d), size=d)
        top = _noisy_top(lam, k, s, w, rng)
        assert fp.mean_error_spike(top, d, s, omega)
    # without a private mean there is nothing to read
    assert not fp.mean_error_spike(top, d, s, 0.0)


def test_a_data_spike_outside_the_mean_errors_range_is_the_datas():
    rng = np.random.default_rng(6)
    d, k, s, omega = 200, 3, 1e-3, 0.05
    lam = np.r_[[0.9, 0.3, 0.2], np.full(d - 3, 1e-4)]
    w = rng.normal(scale=math.sqrt(omega / d), size=d)
    top = _noisy_top(lam, k, s, w, rng)
    # ‖w‖²/ω ~ χ²_200/200 lies within [0.7, 1.4]: 0.9 is not the mean's
    assert not fp.mean_error_spike(top, d, s, omega)
    # nor is anything read when no value clears the noise's edge
    assert not fp.mean_error_spike([1e-3, 1e-4], d, 0.01, 0.5)


# -- rows clipped to the bound ----------------------------------------------------


def test_the_clip_factor_is_the_rows_mean_square_over_the_bound():
    lam = spiked(20, [0.3, 0.1], 0.01)
    assert fp.clip_factor(lam, 0.0) == 1.0  # rows inside the bound
    assert fp.clip_factor(lam, 5.0) == pytest.approx(5.0 + lam.sum())
    # without clipping the clipped model is the plain one
    assert fp.clipped_loss(lam, 2, 0.01, 0.2) == fp.typical_loss(
        lam, 2, 0.01, 0.2
    )


@pytest.mark.parametrize("omega, plain_share", [(3.0, 0.7), (20.0, 0.4)])
def test_clipped_rows_match_the_exact_draws(omega, plain_share):
    # a mean error beyond the bound puts the rows on its sphere: the data
    # shrink by c = ω + tr C and sink below the noise's threshold; the
    # plain model, which does not see the clipping, understates the loss
    lam = spiked(40, [0.4, 0.25, 0.15, 0.08], 0.005)
    s = 5e-3
    drawn = np.median(
        fp.simulated_rows_loss(lam, 3, s, omega, n=2000, repeats=4, rng=2)
    )
    clipped = fp.clipped_loss(lam, 3, s, omega)
    assert clipped.clip_factor == pytest.approx(omega + lam.sum())
    assert 1 / 2 < clipped.loss / drawn < 2
    assert fp.typical_loss(lam, 3, s, omega).loss / drawn < plain_share


def test_rows_inside_the_bound_match_the_plain_model():
    lam = spiked(40, [0.2, 0.12, 0.07, 0.04], 0.002)
    s, omega = 4e-3, 0.1
    drawn = np.median(
        fp.simulated_rows_loss(lam, 3, s, omega, n=4000, repeats=4, rng=3)
    )
    assert fp.clip_factor(lam, omega) == 1.0
    assert 1 / 2 < fp.typical_loss(lam, 3, s, omega).loss / drawn < 2


def _released_rows(lam, k, s, omega, n, rng):
    """The released top k, the trailing mean of positive parts and the
    loss of one draw with rows clipped to the unit ball (units of B²)."""
    d = lam.size
    Z = rng.standard_normal((n, d)) * np.sqrt(lam)
    Z -= Z.mean(axis=0)
    w = rng.normal(scale=math.sqrt(omega / d), size=d)
    rows = Z + w
    rows /= np.maximum(np.linalg.norm(rows, axis=1), 1.0)[:, None]
    G = rng.normal(scale=s / math.sqrt(2), size=(d, d))
    values, vectors = np.linalg.eigh(rows.T @ rows / n + G + G.T)
    C = Z.T @ Z / n
    V = vectors[:, -k:]
    loss = np.linalg.eigvalsh(C)[::-1][:k].sum() - np.trace(V.T @ C @ V)
    values = values[::-1]
    return values[:k], np.maximum(values[k:], 0).mean(), loss


def test_a_mean_error_beyond_the_bound_leaves_the_released_spectrum():
    # ω = 10 B²: the rows lie beyond the bound (c ≈ 10), the mean's spike
    # (about ω/c ≈ 0.98) is the top released value, and the data's one
    # spike, shrunk by c to about 1.6 times the threshold s√d, still clears
    # the noise's edge. The top value is read as the mean's and leaves the
    # data's spectrum, and the prediction is near the draws
    rng = np.random.default_rng(11)
    d, k, omega = 200, 2, 10.0
    lam = spiked(d, [0.16], 1e-6)
    s = 0.01 / math.sqrt(d)
    predicted, drawn = [], []
    for _ in range(4):
        top, trailing, loss = _released_rows(lam, k, s, omega, 2000, rng)
        got = fp.prediction_from_release(top, trailing, d, k, s, omega)
        assert got.mean_spike and got.clip_factor == omega
        assert got.detected == 1
        # the plain reading with the top value taken out
        lam_hat = fp.debiased_spectrum(top, trailing, d, s)
        rest = np.r_[lam_hat[1:], lam_hat[-1]]
        again = fp.typical_loss(rest, k, s, 1.0).scaled(omega)
        assert got.loss == pytest.approx(again.loss, rel=1e-12)
        predicted.append(got.loss)
        drawn.append(loss)
    assert 1 / 2 < np.median(predicted) / np.median(drawn) < 2


def test_hidden_reading_sums_what_the_noise_could_hide():
    # d = 100, s = 0.01: threshold s√d = 0.1, edge 0.2. A value above the
    # edge is seen, not read as hidden; 0.15 reads 0.05, 0.19 reads 0.09
    from dppca.forecast_prediction import hidden_reading

    read = hidden_reading([0.5, 0.19, 0.15], 0.0, 100, 0.01)
    assert abs(read - (0.09 + 0.05)) < 1e-12
    assert hidden_reading([0.5, 0.4], 0.0, 100, 0.01) == 0.0
