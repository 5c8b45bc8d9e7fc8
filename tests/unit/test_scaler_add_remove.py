"""``PrivateStandardScaler(neighbours="add-remove")`` (issue 43): the
add/remove sensitivities of the pre-noise sums on extremal pairs, refusals
before any charge, neighbours of different sizes that look alike (warnings,
refusals, grid), the private count in place of n, a Pipeline with
``PrivatePCA(neighbours="add-remove")``; replace-one stays the default.

The sums' margins ``1 − moved/bound`` are measured on extremal pairs: a row
added on every upper (or lower) bound moves each ``S_j`` by exactly ``1/2``
(margin 0 in ℓ∞, ℓ₁ and ℓ₂); a row added at a corner moves each ``Q_j`` by
exactly ``1/4`` (margin 0); a row at the midpoints moves nothing (margin 1);
a row removed moves them by its own entries."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

from dppca import PrivatePCA, PrivateStandardScaler
from dppca import scaler as scaler_module
from dppca.decomposition import add_remove
from dppca.model_selection import budgeted_grid_search
from dppca.privacy.accounting import Accountant
from dppca.privacy.guarantees import REPLACE_ONE
from dppca.scaler import (
    ADD_REMOVE_SENSITIVITY,
    SENSITIVITY,
    clipped_sums,
    scaler_plan,
)

LOWER = np.array([-1.0, 0.0, 10.0, -1e-3])
UPPER = np.array([2.0, 5.0, 11.0, 3e-3])
D = LOWER.size
WIDTH, MID = UPPER - LOWER, LOWER / 2 + UPPER / 2
CAP = 5000


@parametrize_with_checks(
    [
        PrivateStandardScaler(
            bounds=(-5.0, 5.0), neighbours="add-remove", max_samples=10**4
        ),
        PrivateStandardScaler(
            bounds=(-5.0, 5.0),
            delta=1e-9,
            with_mean=False,
            neighbours="add-remove",
            max_samples=10**4,
        ),
    ],
    # scikit-learn's message for data without columns prints the shape, n
    # included: private here (tests/privacy/test_shape_messages.py)
    expected_failed_checks=lambda estimator: {
        "check_estimators_empty_data_messages": "its message would print "
        "the private number of rows (add/remove neighbours)"
    },
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


def scaler(**params):
    base = dict(
        bounds=(LOWER, UPPER),
        epsilon=1.0,
        delta=1e-9,
        neighbours="add-remove",
        max_samples=CAP,
        random_state=0,
    )
    base.update(params)
    return PrivateStandardScaler(**base)


def rows(n, seed=0, spread=1.0):
    rng = np.random.default_rng(seed)
    return MID + WIDTH * rng.uniform(-spread / 2, spread / 2, size=(n, D))


def test_the_default_is_replace_one():
    est = PrivateStandardScaler(bounds=(LOWER, UPPER), random_state=0)
    assert est.get_params()["neighbours"] == "replace"
    assert est.get_params()["max_samples"] == 2**27
    est.fit(rows(300))
    assert all(r.neighbours == REPLACE_ONE for r in est.privacy_releases_)
    assert est.n_samples_seen_ == 300 and not hasattr(est, "row_count_")
    plan = {s.statistic: s for s in scaler_plan(est, 300, D)}
    assert set(plan) == {"mean", "variance"}
    assert plan["mean"].l1 == SENSITIVITY["mean"] * D


@pytest.mark.parametrize("delta", [None, 1e-9])
def test_the_plan_uses_the_add_remove_sensitivities_and_a_count(delta):
    est = scaler(delta=delta, epsilon=2.0, mean_share=0.3)
    steps = scaler_plan(est, 300, D)
    assert [s.statistic for s in steps] == ["count", "mean", "variance"]
    count, mean, variance = steps
    assert ADD_REMOVE_SENSITIVITY == {"mean": 0.5, "variance": 0.25}
    assert (mean.l1, mean.l2) == (D / 2, math.sqrt(D) / 2)
    assert (variance.l1, variance.l2) == (D / 4, math.sqrt(D) / 4)
    relation = add_remove.add_remove_neighbours(CAP)
    assert all(s.record.neighbours == relation for s in steps)
    eps_c = 2.0 * add_remove.ROW_COUNT_SHARE
    assert count.record.kind == "pure" and count.record.epsilon == eps_c
    assert count.scale == math.ceil(1 / eps_c)
    assert mean.record.epsilon == pytest.approx(0.3 * (2.0 - eps_c))
    total = sum(s.record.epsilon for s in steps)
    assert total == pytest.approx(2.0, rel=1e-12)
    # half the replace-one noise on the mean at the same share of ε (float
    # Laplace: b = Δ₁/ε exactly)
    flt = {
        s.statistic: s
        for s in scaler_plan(scaler(noise="float", delta=None), 300, D)
    }
    assert flt["mean"].scale == (D / 2) / (0.5 * (1.0 - 0.05))


def _moved(X, Y, cap=CAP):
    a, b = (clipped_sums(Z, LOWER, UPPER, max_samples=cap) for Z in (X, Y))
    return {key: np.abs(a[key] - b[key]) for key in a}


def _margins(moved, key):
    """``1 − moved/bound`` in ℓ∞, ℓ₁ and ℓ₂."""
    s = ADD_REMOVE_SENSITIVITY[key]
    return (
        1 - moved.max() / s,
        1 - moved.sum() / (s * D),
        1 - np.linalg.norm(moved) / (s * math.sqrt(D)),
    )


# n and n + 1 of different bit lengths: a grid made from n would change
@pytest.mark.parametrize("n", [1, 255, 1023, 4999])
def test_extremal_added_rows_attain_the_bounds_exactly(n):
    X = rows(n, seed=n)
    cases = {
        "upper": (UPPER, {"mean": 0.0, "variance": 0.0}),
        "lower": (LOWER, {"mean": 0.0, "variance": 0.0}),
        "beyond": (UPPER + 10 * WIDTH, {"mean": 0.0, "variance": 0.0}),
        "corner": (np.where([1, 0, 1, 0], UPPER, LOWER), {"variance": 0.0}),
        "midpoints": (MID, {"mean": 1.0, "variance": 1.0}),
    }
    for row, expected in cases.values():
        moved = _moved(X, np.vstack([X, row]))
        for key, margin in expected.items():
            assert _margins(moved[key], key) == (margin,) * 3
    # the ℓ₂ bound √d/2 is attained exactly: ‖(1/2, ..., 1/2)‖ = √d/2
    moved = _moved(X, np.vstack([X, UPPER]))
    assert np.all(moved["mean"] == 0.5) and np.all(moved["variance"] == 0.25)


@pytest.mark.parametrize("n", [2, 256, 1024, 5000])
def test_a_removed_row_moves_the_sums_by_its_own_entries(n):
    X = rows(n, seed=n, spread=1.5)  # some entries clipped
    X[-1] = np.where([1, 0, 0, 1], UPPER, LOWER)  # the removed row: a corner
    moved = _moved(X, X[:-1])
    assert np.all(moved["mean"] == 0.5) and np.all(moved["variance"] == 0.25)
    X[-2] = MID + WIDTH * np.array([0.3, -0.3, 0.15, -0.06])  # interior
    moved = _moved(X[:-1], X[:-2])
    z = np.array([0.3, 0.3, 0.15, 0.06])
    np.testing.assert_allclose(moved["mean"], z, rtol=0, atol=2.0**-30)
    margins = _margins(moved["mean"], "mean")
    assert all(0 < m < 1 for m in margins)


def test_random_add_remove_pairs_never_exceed_the_bounds():
    rng = np.random.default_rng(43)
    worst = dict(mean=0.0, variance=0.0)
    for trial in range(500):
        n = int(rng.integers(1, 300))
        X = rows(n, seed=trial, spread=3.0)
        row = MID + WIDTH * rng.uniform(-2, 2, size=D)
        if trial % 5 == 0:
            row = rng.choice([-1e308, 1e308, 0.0], size=D)
        moved = _moved(X, np.vstack([X, row]))
        for key, change in moved.items():
            assert min(_margins(change, key)) >= 0
            worst[key] = max(worst[key], change.max())
    assert worst["mean"] == 0.5 and worst["variance"] == 0.25


def test_the_grid_comes_from_the_cap(monkeypatch):
    """The same grid exponent k for neighbours of 255 and 256 rows under
    add/remove (from the cap), different ones under replace-one."""
    seen = []
    original = scaler_module.grid_exponent

    def spy(rows_):
        seen.append(rows_)
        return original(rows_)

    monkeypatch.setattr(scaler_module, "grid_exponent", spy)
    X = rows(256)
    for neighbours in ("add-remove", "replace"):
        seen.clear()
        for Z in (X[:-1], X):
            scaler(neighbours=neighbours).fit(Z)
        ks = {original(r) for r in seen}
        if neighbours == "add-remove":
            assert set(seen) == {CAP} and ks == {52 - CAP.bit_length()}
        else:
            assert set(seen) == {255, 256} and len(ks) == 2


REFUSED = [
    (dict(max_samples=299), ValueError, "more than max_samples"),
    (dict(neighbours="add_remove"), ValueError, "neighbours must be one of"),
    (dict(max_samples=0), ValueError, "max_samples must be >= 1"),
    (dict(max_samples=True), TypeError, "max_samples must be an integer"),
    (dict(max_samples=2**44), ValueError, "fewer than 2..44 rows"),
    (dict(max_samples=2**42), ValueError, "too many rows for the safe"),
    (dict(epsilon=1e-12), ValueError, "private count of rows"),
    (dict(clip=False), ValueError, "clip=False"),
]


@pytest.mark.parametrize("params, error, message", REFUSED)
def test_refusals_come_before_any_charge(params, error, message):
    ledger = Accountant(10.0, 1e-3)
    with pytest.raises(error, match=message):
        scaler(accountant=ledger, **params).fit(rows(300))
    assert ledger.spent == (0.0, 0.0) and not ledger.releases


@pytest.mark.parametrize("params, error, message", REFUSED[1:])
def test_neighbours_of_different_sizes_are_refused_alike(
    params, error, message
):
    """Refusals decided from public parameters: 1 and 2 rows, 299 and 300
    rows, refused alike (the cap's refusal is the relation's domain)."""
    for n in (1, 2, 299, 300):
        with pytest.raises(error, match=message):
            scaler(**params).fit(rows(n))


def _warnings(est, X):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X)
    return [str(w.message) for w in caught]


@pytest.mark.parametrize(
    "params",
    [
        dict(delta=1e-6),  # ≥ 1/N at N = 5000: warned for every n
        dict(delta=1e-3, max_samples=1000),  # ≥ 1/N; ≥ 1/n at 1000 only
        dict(delta=1e-9),  # < 1/N: never warned
        dict(noise="float"),  # unproved: warned for every n
    ],
)
def test_neighbours_of_different_sizes_warn_alike(params):
    X = rows(1000)
    first = _warnings(scaler(**params), X[:-1])
    second = _warnings(scaler(**params), X)
    assert first == second
    expected = params.get("delta", 0) >= 1 / params.get("max_samples", CAP)
    assert any("1/max_samples" in m for m in first) == expected
    # replace-one warns about 1/n at 1000 rows, not at 999
    if params.get("max_samples") == 1000:
        replace = dict(params, neighbours="replace")
        assert _warnings(scaler(**replace), X[:-1]) == []
        assert any("1/n" in m for m in _warnings(scaler(**replace), X))


def test_the_count_takes_the_place_of_n():
    """``n_samples_seen_`` is the released count in [1, N] and divides the
    sums; counts below 1 and above N both occur at a small ε."""
    X = rows(3, seed=1)
    low = high = False
    for seed in range(40):
        est = scaler(epsilon=0.2, max_samples=4, random_state=seed).fit(X)
        count = est.row_count_
        assert est.n_samples_seen_ == min(max(1, count), 4)
        low, high = low or count < 1, high or count > 4
        assert np.all((LOWER <= est.mean_) & (est.mean_ <= UPPER))
        assert np.all((0 < est.var_) & (est.var_ <= WIDTH**2 / 4))
    assert low and high
    # at a large ε the count is n and the mean that of the rows
    X = rows(2000, seed=2)
    est = scaler(epsilon=1e4).fit(X)
    assert abs(est.row_count_ - 2000) <= 2 and est.n_samples_seen_ > 1990
    assert np.all(np.abs(est.mean_ - X.mean(0)) <= 2e-3 * WIDTH)
    np.testing.assert_allclose(est.var_, X.var(0), rtol=1e-2)


def test_everything_is_charged_before_any_noise():
    """The ledger sees the three records in one charge, before the fit's
    generator has drawn anything."""
    states = []

    class Watching(Accountant):
        def charge(self, records, label="release"):
            states.append(generator.bit_generator.state)
            return super().charge(records, label)

    generator = np.random.default_rng(5)
    before = generator.bit_generator.state
    ledger = Watching(5.0, 1e-6)
    est = scaler(accountant=ledger, random_state=generator).fit(rows(300))
    assert states == [before]
    (charge,) = ledger.report().charges
    labels = [r["label"] for r in charge["releases"]]
    assert labels[0] == "private count of rows (discrete Laplace)"
    assert tuple(ledger.releases) == est.privacy_releases_
    assert est.privacy_spent_ == (1.0, 1e-9)


def test_nothing_released_nothing_counted():
    ledger = Accountant(1.0)
    est = scaler(with_mean=False, with_std=False, accountant=ledger)
    est.fit(rows(50))
    assert est.privacy_releases_ == () and ledger.spent == (0.0, 0.0)
    assert est.n_samples_seen_ is None and not hasattr(est, "row_count_")
    np.testing.assert_array_equal(est.transform(rows(5)), rows(5))


def test_a_replace_one_refit_drops_the_count():
    est = scaler().fit(rows(100))
    assert hasattr(est, "row_count_")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.set_params(neighbours="replace").fit(rows(100))
    assert not hasattr(est, "row_count_") and est.n_samples_seen_ == 100


def test_in_a_pipeline_with_add_remove_pca():
    X = rows(3000, seed=7)
    ledger = Accountant(4.0, 1e-6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = make_pipeline(
            scaler(accountant=ledger, epsilon=1.0),
            PrivatePCA(
                2,
                epsilon=2.0,
                delta=1e-9,
                data_norm=4.0,
                center=False,
                mechanism="analyze_gauss",
                neighbours="add-remove",
                max_samples=CAP,
                accountant=ledger,
                random_state=0,
            ),
        ).fit(X)
    relation = add_remove.add_remove_neighbours(CAP)
    assert len(ledger.releases) == 5  # count, mean, variance; count, PCA
    assert all(r.neighbours == relation for r in ledger.releases)
    assert model.transform(X).shape == (3000, 2)
    report = " ".join(str(ledger.report()).split())
    assert "5,000 rows" in report or "5000 rows" in report


def test_the_budgeted_grid_search_refuses_mixed_relations():
    # an add/remove scaler before a replace-one PCA: one ledger, one relation
    X = rows(600)
    ledger = Accountant(20.0, 1e-3)
    pipe = make_pipeline(
        scaler(), PrivatePCA(1, data_norm=4.0, center=False, delta=0.0)
    )
    with pytest.raises(ValueError, match="one neighbouring relation"):
        budgeted_grid_search(
            pipe, {"privatepca__n_components": [1, 2]}, ledger, X, cv=2
        )
    assert ledger.spent == (0.0, 0.0) and not ledger.releases
