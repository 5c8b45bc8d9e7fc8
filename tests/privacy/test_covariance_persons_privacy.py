"""Privacy per person of ``PrivateCovariance(max_rows_per_person=m)
.fit(X, groups=g)`` (issue 43): extremal neighbouring pairs under
replace-one-PERSON neighbours (N persons fixed, all the rows of one person
replaced, at most m rows each).

For every pair and every centring the mechanism runs with, what Analyze
Gauss receives (the padded second moment ``A`` and ``n``) moves by at most
the row-level sensitivity at ``n = N`` (``√2/N``), and the extremal pair
reaches it; the private mean's value before its noise moves by at most
``2R/N`` and the extremal pair reaches it; the exact ε of the safe noise on
the extremal pair stays below the one recorded; neighbours see the same
records, warnings and refusals; every refusal comes before any charge or
draw; a person with more than m rows is cut to m.
"""

from __future__ import annotations

import math
import warnings

import exact_privacy as exact  # tests/privacy (pytest pythonpath)
import numpy as np
import pytest

from dppca.covariance import PrivateCovariance
from dppca.covariance import release as release_module
from dppca.covariance.persons import person_covariance_mechanisms
from dppca.covariance.plan import covariance_plan
from dppca.decomposition.persons import (
    PERSON_LEVEL,
    Persons,
    kept_rows,
    person_codes,
    person_neighbours,
)
from dppca.mechanisms import input_perturbation
from dppca.privacy import noise as noise_module
from dppca.privacy.accounting import Accountant
from dppca.privacy.sensitivity import frobenius_sensitivity_second_moment

pytestmark = pytest.mark.privacy

R, D, M, DELTA = 3.0, 5, 4, 1e-6
CENTRE = np.full(D, 0.25)


def persons(first, others=30, seed=0):
    """``(X, groups)``: person 0 has the rows ``first``; ``others`` persons
    have 1 to M + 2 rows of norm R in random directions, fixed by ``seed``
    (the same on both sides of a pair)."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, M + 3, size=others)
    rows = rng.normal(size=(counts.sum(), D))
    rows *= R / np.linalg.norm(rows, axis=1, keepdims=True)
    groups = np.repeat(np.arange(1, others + 1), counts)
    X = np.vstack([rows, np.asarray(first, dtype=float)])
    groups = np.concatenate([groups, np.zeros(len(first), dtype=int)])
    return X, groups


def e(j, scale=R, at=None):
    v = np.zeros(D) if at is None else np.array(at, dtype=float)
    v[j] += scale
    return v


#: Person 0's rows on each side of a pair (uncentred: rows about 0).
PAIRS = {
    "m rows on the bound to one zero row": ([e(0)] * M, [e(0, 0.0)]),
    "m rows to m orthogonal rows": ([e(0)] * M, [e(1)] * M),
    "m rows to m opposite rows": ([e(0)] * M, [e(0, -R)] * M),
    "m rows to one row": ([e(0), e(2), e(0), e(2)], [e(3)]),
    "m rows to fewer rows": ([e(0)] * M, [e(1)] * 2),
}

#: The pair that reaches the Frobenius bound on the second moment.
EXTREMAL = "m rows to m orthogonal rows"


def shifted(rows, centre):
    """The rows moved by ``centre`` (a public centre's pair)."""
    return [np.asarray(r) + centre for r in rows]


def estimator(**params):
    options = dict(
        epsilon=1.0,
        delta=DELTA,
        data_norm=R,
        center=False,
        max_rows_per_person=M,
        random_state=0,
    )
    options.update(params)
    return PrivateCovariance(**options)


def seen_fit(est, X, groups, monkeypatch):
    """Fit, and return what Analyze Gauss received: ``(A, n)``."""
    seen = []
    original = input_perturbation.analyze_gauss_from_second_moment

    def spy(A, n, **kwargs):
        seen.append((np.array(A), n))
        return original(A, n, **kwargs)

    monkeypatch.setattr(
        input_perturbation, "analyze_gauss_from_second_moment", spy
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, groups=groups)
    monkeypatch.setattr(
        input_perturbation, "analyze_gauss_from_second_moment", original
    )
    (one,) = seen
    return one


CENTRINGS = {
    "uncentred": dict(center=False),
    "public centre": dict(center=CENTRE, data_norm=R),
}


@pytest.mark.parametrize("centring", sorted(CENTRINGS))
def test_the_second_moment_moves_within_root_2_over_n_persons(
    centring, monkeypatch
):
    """Every pair within √2/N; the orthogonal pair reaches it (≥ 0.9, in
    fact up to the float shrink); the zero-row pair moves it by 1/N."""
    params = CENTRINGS[centring]
    centre = params["center"] if centring == "public centre" else np.zeros(D)
    changes = {}
    for pair, (first, second) in PAIRS.items():
        X, g = persons(shifted(first, centre))
        X2, g2 = persons(shifted(second, centre))
        # the other persons' rows are the same on both sides
        X[: -len(first)] += centre
        X2[: -len(second)] += centre
        N = len(np.unique(g))
        A, n = seen_fit(estimator(**params), X, g, monkeypatch)
        A2, n2 = seen_fit(estimator(**params), X2, g2, monkeypatch)
        assert n == n2 == N  # calibrated at the persons, never the rows
        change = float(np.linalg.norm(exact.upper(A) - exact.upper(A2)))
        assert change <= frobenius_sensitivity_second_moment(N)
        changes[pair] = change
    bound = frobenius_sensitivity_second_moment(N)
    assert changes[EXTREMAL] >= 0.9 * bound
    assert changes[EXTREMAL] >= bound * (1 - 1e-8)
    # m rows of norm R against one zero row: ‖e₀e₀ᵀ‖_F / N
    zero = changes["m rows on the bound to one zero row"]
    assert zero == pytest.approx(1 / N, rel=1e-8)
    # ±x give the same x xᵀ: opposite rows move the second moment not at all
    assert changes["m rows to m opposite rows"] <= 1e-12


def test_the_matrix_about_a_released_mean_moves_within_root_2_over_n():
    """With a private mean the argument holds for every value of the mean:
    for a fixed one, the padded second moment about it (kept rows padded
    to N·m rows at the mean) moves by at most √2/N, and m rows at the
    centred bound along e₀ against m along e₁ reach it; m rows at the
    bound against one row at the mean move it by 1/N."""
    mean = np.array([0.4, -0.2, 0.1, 0.0, 0.3])
    B = R / 2  # centered_norm; ‖mean‖ ≤ R/2, so mean + B e_j is within R
    est = estimator(center=True, centered_norm=B)
    pairs = {
        "orthogonal": ([mean + e(0, B)] * M, [mean + e(1, B)] * M),
        "one row at the mean": ([mean + e(0, B)] * M, [mean]),
        "opposite": ([mean + e(0, B)] * M, [mean - e(0, B)] * M),
    }
    changes = {}
    for name, (first, second) in pairs.items():
        moments = []
        for rows in (first, second):
            X, g = persons(rows)
            codes, N = person_codes(g, len(X))
            # the same choice for the other persons on both sides: their
            # rows come first, and get the same keys
            kept = kept_rows(Persons(codes, N, M), np.random.default_rng(1))
            plan = covariance_plan(est, len(X), D, N)
            A, bound = release_module.unit_second_moment(X[kept], plan, mean)
            assert bound == B
            moments.append(A)
        change = np.linalg.norm(exact.upper(moments[0] - moments[1]))
        assert change <= frobenius_sensitivity_second_moment(N)
        changes[name] = float(change)
    bound = frobenius_sensitivity_second_moment(N)
    assert changes["orthogonal"] >= 0.9 * bound
    assert changes["one row at the mean"] == pytest.approx(1 / N, rel=1e-8)
    assert changes["opposite"] <= 1e-12


def test_the_private_mean_moves_within_2r_over_n(monkeypatch):
    """The mean's value before its noise: m rows at R e₀ against m at
    −R e₀ reach 2R/N; one zero row, 1/2 of it."""
    seen = []
    original = noise_module.add_gaussian

    def add(values, *args, **kwargs):
        seen.append(np.array(values))
        return original(values, *args, **kwargs)

    monkeypatch.setattr(noise_module, "add_gaussian", add)
    means = []
    for first in ([e(0)] * M, [e(0, -R)] * M, [e(0, 0.0)]):
        X, g = persons(first)
        seen.clear()
        est = estimator(center=True, center_share=0.2, centered_norm=2 * R)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, groups=g)
        means.append(seen[0])  # the first Gaussian draw is the mean's
    N = 31
    extremal = np.linalg.norm(means[0] - means[1])
    assert extremal <= 2 * R / N
    assert extremal >= 0.9 * 2 * R / N
    assert extremal >= 2 * R / N * (1 - 1e-8)
    assert np.linalg.norm(means[0] - means[2]) <= 2 * R / N
    assert np.linalg.norm(means[0] - means[2]) == pytest.approx(R / N)


def test_the_exact_epsilon_of_the_extremal_pair_is_below_the_record(
    monkeypatch,
):
    first, second = PAIRS[EXTREMAL]
    X, g = persons(first, others=200)
    X2, g2 = persons(second, others=200)
    N, eps = 201, 1.0
    est = estimator(epsilon=eps)
    A, _ = seen_fit(est, X, g, monkeypatch)
    A2, _ = seen_fit(estimator(epsilon=eps), X2, g2, monkeypatch)
    plan = covariance_plan(est, len(X), D, N)
    shift = exact.grid_shift(exact.upper(A), exact.upper(A2), plan.grid)
    assert np.abs(shift).sum() >= 2  # the pair moves the grid values
    variance = exact.safe_gaussian_variance(plan.sigma, plan.grid)
    forced = exact.discrete_gaussian_epsilon(shift, variance, DELTA)
    exact.assert_reports_at_least(est.guarantees_[-1], forced, DELTA)


def outcome(X, g, **params):
    """What an observer sees besides the released values: the records,
    the spent budget, the warnings, or the refusal."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            est = estimator(**params).fit(X, groups=g)
            seen = (est.guarantees_, est.privacy_spent_, est.n_persons_)
        except ValueError as error:
            seen = ("refused", str(error))
    return seen, [str(w.message) for w in caught]


@pytest.mark.parametrize(
    "params",
    [
        dict(),
        dict(center=True, center_share=0.3),
        dict(center=True, centered_norm="triangle"),
        dict(center=CENTRE),
        dict(delta=0.1),  # the δ warning, against 1/N
        dict(mechanism="trace_sensitive"),
    ],
    ids=["uncentred", "private mean", "triangle", "public", "delta", "rows"],
)
@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_neighbours_see_the_same_records_warnings_and_refusals(pair, params):
    first, second = PAIRS[pair]
    X, g = persons(first)
    X2, g2 = persons(second)
    left, right = outcome(X, g, **params), outcome(X2, g2, **params)
    assert left == right
    if params.get("mechanism") == "trace_sensitive":
        assert left[0][0] == "refused"
    else:
        records = left[0][0]
        assert {r.neighbours for r in records} == {person_neighbours(M)}
    if params.get("delta") == 0.1:
        assert any("1/N" in w for w in left[1])


def test_only_analyze_gauss_runs_per_person():
    """The per-person mechanisms of the covariance are those with a
    per-person reason that read A: Analyze Gauss; the trace-sensitive
    estimator reads the rows."""
    assert set(person_covariance_mechanisms()) == {"analyze_gauss"}
    assert "analyze_gauss" in PERSON_LEVEL
    assert "trace_sensitive" not in PERSON_LEVEL


REFUSED = {
    "trace_sensitive": dict(mechanism="trace_sensitive"),
    "add/remove with groups": dict(neighbours="add-remove"),
    "add/remove, m without groups": dict(neighbours="add-remove", groups=None),
    "add/remove, groups without m": dict(
        neighbours="add-remove", max_rows_per_person=None
    ),
    "groups without m": dict(max_rows_per_person=None),
    "m without groups": dict(groups=None),
    "m = 0": dict(max_rows_per_person=0),
    "m a float": dict(max_rows_per_person=2.0),
    "m a bool": dict(max_rows_per_person=True),
    "padded size": dict(max_rows_per_person=10**13),
    "groups too short": dict(groups=np.zeros(3, dtype=int)),
    "a missing label": dict(groups="nan"),
    "trace_sensitive, private mean": dict(
        mechanism="trace_sensitive", center=True
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_refusals_come_before_any_charge_or_draw(case):
    params = dict(REFUSED[case])
    X, g = persons([e(0)] * M)
    groups = params.pop("groups", g)
    if isinstance(groups, str):
        groups = g.astype(float)
        groups[3] = math.nan
    ledger = Accountant(100.0, 1e-3)
    rng = np.random.default_rng(0)
    state = rng.bit_generator.state
    est = estimator(accountant=ledger, random_state=rng, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError)):
            est.fit(X, groups=groups)
    assert ledger.spent == (0.0, 0.0) and ledger.releases == ()
    assert rng.bit_generator.state == state
    assert not hasattr(est, "covariance_")


def test_a_person_with_more_than_m_rows_is_cut_to_m():
    # person 0's rows are all R e_0: ten of them or M of them give the same
    # kept rows, so the same padded data set and the same release
    long_, g_long = persons([e(0)] * 10)
    short, g_short = persons([e(0)] * M)
    for params in (dict(), dict(center=True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = estimator(**params).fit(long_, groups=g_long)
            b = estimator(**params).fit(short, groups=g_short)
        np.testing.assert_array_equal(a.covariance_, b.covariance_)
        np.testing.assert_array_equal(a.location_, b.location_)
        assert a.guarantees_ == b.guarantees_


def test_the_fit_draws_the_same_number_of_words_whatever_the_rows():
    """The caller's generator advances alike on neighbours (the choice of
    rows has its own generator, seeded by eight draws of the fit's)."""
    states = []
    for first in ([e(0)] * 10, [e(1)]):
        X, g = persons(first)
        rng = np.random.default_rng(7)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            estimator(random_state=rng, center=True).fit(X, groups=g)
        states.append(rng.bit_generator.state)
    assert states[0] == states[1]
