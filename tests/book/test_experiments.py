"""The repeated-trial protocol of dppca.book.experiments (and its runner,
dppca.book.experiment_runner), the mechanisms' table of dppca.book.mechanism_table and
the synthetic rows of dppca.book.synthetic_data."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy import sparse

from dppca.book import (
    experiments,
    mechanism_table,
    peers,
    preprocessing,
    synthetic_data,
)
from dppca.linalg import haar_subspace, second_moment, top_k_eigh
from dppca.montecarlo import mean_ci
from dppca.validation import check_orthonormal, scale_to_unit_ball


def _toy(n=400, d=8, k=2, seed=0):
    rng = np.random.default_rng(seed)
    X = scale_to_unit_ball(
        rng.standard_normal((n, d)) * np.linspace(1.0, 0.1, d)
    )
    S = sparse.csr_matrix(X)
    return preprocessing.Preprocessed(
        "toy",
        S,
        [f"x{i}" for i in range(d)],
        np.zeros(n, dtype=str),
        k,
        second_moment(X),
    )


@pytest.fixture(scope="module")
def registry():
    return mechanism_table.mechanisms(ppca_options={"n_sweeps": 5})


def test_registry_has_baselines_and_every_mechanism_of_the_book(registry):
    assert list(registry)[:2] == ["pca", "random"]
    assert mechanism_table.missing_mechanisms() == []
    assert set(registry) == {"pca", "random"} | set(mechanism_table.EXPECTED)
    for mechanism in registry.values():
        assert mechanism.notion and mechanism.privacy and mechanism.label


def test_privacy_notions_follow_the_modules(registry):
    wishart = registry["wishart_published"]  # the estimator's key
    assert "NOT" in wishart.privacy and "FAILS" in wishart.notion
    assert registry["pca"].notion == "not private"


def test_every_mechanism_returns_an_orthonormal_d_by_k_matrix(registry):
    data = _toy()
    X = data.rows()
    for key, mechanism in registry.items():
        V = mechanism(X, data.k, 0.5, 0.01, rng=1)
        assert V.shape == (data.d, data.k), key
        check_orthonormal(V)


def test_moment_entry_point_is_the_same_mechanism(registry):
    """With the same seed, the second-moment shortcut returns exactly what the X entry point does."""
    data = _toy()
    X = data.rows()
    for key, mechanism in registry.items():
        if key in mechanism_table.ROW_MECHANISMS:
            assert mechanism.from_moment is None, key
            assert mechanism.from_rows is not None, key
            continue
        assert mechanism.from_moment is not None, (
            key
        )  # the protocol relies on it for speed
        V_x = mechanism(X, data.k, 0.5, 0.01, rng=7)
        V_a = mechanism.run_from_moment(
            second_moment(X), X.shape[0], data.k, 0.5, 0.01, rng=7
        )
        np.testing.assert_allclose(V_x, V_a, atol=1e-12, err_msg=key)


def test_row_entry_point_is_the_same_mechanism_sparse_or_dense(registry):
    """The rows entry point, on sparse rows, with the experiment's cache
    filled by an earlier release, returns exactly what ``release`` does on
    the dense rows with the same seed."""
    data = _toy()
    X, S = data.rows(), data.X
    assert set(mechanism_table.ROW_MECHANISMS) <= set(registry)
    for key in mechanism_table.ROW_MECHANISMS:
        mechanism = registry[key]
        cache = {}
        mechanism.from_rows(S, data.k, 0.5, 0.01, 3, cache)
        for seed in (7, 8):
            V_x = mechanism(X, data.k, 0.5, 0.01, rng=seed)
            V_s = mechanism.from_rows(S, data.k, 0.5, 0.01, seed, cache)
            np.testing.assert_allclose(V_x, V_s, atol=1e-12, err_msg=key)
    # the trace-sensitive mechanism did use its cache (one entry per radius)
    cache = {}
    registry["trace_sensitive"].from_rows(S, data.k, 0.5, 0.01, 1, cache)
    assert len(cache) == 1 and next(iter(cache.values())).shape == (8, 8)


def test_experiments_pass_each_subset_its_own_cache(registry):
    """In a protocol run, a row mechanism sees the subset's rows (sparse
    stays sparse) and one cache per subset, never shared between subsets."""
    data = _toy()
    seen = []

    def spy(rows, k, epsilon, delta, rng=None, cache=None):
        seen.append((type(rows), rows.shape[0], cache))  # kept alive
        cache["calls"] = cache.get("calls", 0) + 1
        return haar_subspace(rows.shape[1], k, rng)

    table = {
        "streaming": dataclasses.replace(registry["streaming"], from_rows=spy)
    }
    experiments.utility_versus_n(
        data,
        [100, data.n],
        table,
        epsilon=1.0,
        delta=0.01,
        n_subsets=2,
        runs={"default": 2},
        rng=0,
        progress=False,
    )
    assert len(seen) == 2 * 2 * 2
    assert all(kind is sparse.csr_matrix for kind, _, _ in seen)
    caches_at_100 = {id(c) for kind, n, c in seen if n == 100}
    assert len(caches_at_100) == 2  # two subsets, two caches
    caches_at_n = {id(c) for kind, n, c in seen if n == data.n}
    assert len(caches_at_n) == 1  # the whole data set: one set of rows


def test_streaming_options_reach_the_mechanism():
    """``streaming_options`` replace the default protocol: a gap assumption
    gives a different release from the power-step protocol."""
    data = _toy()
    X = data.rows()
    default = mechanism_table.mechanisms()["streaming"]
    oja = mechanism_table.mechanisms(streaming_options={"eigengap": 0.05})
    V_power = default(X, 1, 1.0, 0.01, rng=5)
    V_oja = oja["streaming"](X, 1, 1.0, 0.01, rng=5)
    check_orthonormal(V_power)
    assert not np.allclose(V_power, V_oja)
    with pytest.raises(ValueError, match="eigengap"):
        mechanism_table.mechanisms(streaming_options={})["streaming"](
            X, 1, 1.0, 0.01, rng=5
        )


def test_utility_versus_n_protocol_shape_and_bounds():
    data = _toy()
    table = {
        k: m
        for k, m in mechanism_table.mechanisms().items()
        if k in ("pca", "random", "mod_sulq")
    }
    runs = {"default": 3, "pca": 1}
    out = experiments.utility_versus_n(
        data,
        [50, data.n],
        table,
        epsilon=1.0,
        delta=0.01,
        n_subsets=2,
        runs=runs,
        rng=0,
        progress=False,
    )
    assert len(out) == 2 * 2 * (1 + 3 + 3)
    best = top_k_eigh(data.A, data.k)[0].sum()
    assert (out["q_F"] <= best + 1e-12).all() and (out["q_F"] >= 0).all()
    full = out[(out["mechanism"] == "pca") & (out["n"] == data.n)]["q_F"]
    np.testing.assert_allclose(full, best, atol=1e-12)
    summary = experiments.summarize(out)
    assert set(summary.columns) >= {"mean", "std", "count"}


def test_random_subspace_captures_tr_a_k_over_d_on_average():
    data = _toy()
    table = {"random": mechanism_table.mechanisms()["random"]}
    out = experiments.utility_versus_n(
        data,
        [data.n],
        table,
        epsilon=1.0,
        delta=0.01,
        n_subsets=1,
        runs={"default": 2000},
        rng=3,
        progress=False,
    )
    est = mean_ci(out["q_F"], 0.999)
    assert est.low <= np.trace(data.A) * data.k / data.d <= est.high


def test_synthetic_gaussian_is_in_the_unit_ball_and_has_the_right_shape():
    eig = [0.5, 0.3, 0.04, 0.03, 0.02, 0.01, 0.004, 0.003, 0.001, 0.001]
    X = synthetic_data.synthetic_gaussian(5000, eig, rng=0)
    norms = np.linalg.norm(X, axis=1)
    assert X.shape == (5000, 10) and norms.max() == pytest.approx(1.0)
    cov = X.T @ X / len(X)
    # Up to the global factor, the sample covariance is diagonal with the given spectrum.
    ratio = np.diag(cov)[:2] / np.diag(cov)[0]
    np.testing.assert_allclose(ratio, [1.0, 0.6], atol=0.06)


def test_utility_versus_epsilon_rows_and_ppca_concentrates():
    X = synthetic_data.synthetic_gaussian(
        2000, [0.5, 0.3, 0.04, 0.03, 0.02, 0.01], rng=1
    )
    registry = mechanism_table.mechanisms()
    table = {k: registry[k] for k in ("pca", "ppca")}
    out = experiments.utility_versus_epsilon(
        X,
        2,
        [0.1, 100.0],
        table,
        delta=0.05,
        runs={"default": 20, "pca": 1},
        rng=2,
        progress=False,
    )
    assert len(out) == 2 * (1 + 20)
    A = second_moment(X)
    best = top_k_eigh(A, 2)[0].sum()
    strong = out[(out["epsilon"] == 100.0) & (out["mechanism"] == "ppca")][
        "q_F"
    ]
    # nε/2 = 10^5 times A: the Bingham law sits within 1% of the top subspace.
    assert strong.min() > 0.99 * best


def test_classification_recovers_a_label_on_the_top_direction():
    rng = np.random.default_rng(4)
    n, d = 3000, 6
    y = rng.random(n) < 0.3
    X = rng.normal(0, 0.05, (n, d))
    X[:, 0] += np.where(y, 0.6, -0.6)
    X = scale_to_unit_ball(X)
    table = {
        k: m
        for k, m in mechanism_table.mechanisms().items()
        if k in ("pca", "random")
    }
    out = experiments.classification_accuracy(
        X,
        y,
        1,
        table,
        epsilon=1.0,
        delta=0.01,
        n_permutations=2,
        n_projections=2,
        rng=5,
        progress=False,
    )
    assert len(out) == 2 * 2 * 2
    pca_acc = out[out["mechanism"] == "pca"]["accuracy"]
    assert pca_acc.min() > 0.99


def test_sparse_rows_outside_the_unit_ball_are_refused():
    data = _toy()
    too_long = preprocessing.Preprocessed(
        "bad", data.X * 2.0, data.columns, data.labels, data.k, data.A
    )
    with pytest.raises(ValueError, match="norm > 1"):
        experiments.utility_versus_n(
            too_long,
            [100],
            {"pca": mechanism_table.mechanisms()["pca"]},
            epsilon=1.0,
            delta=0.01,
            n_subsets=1,
            runs={"default": 1},
            rng=0,
            progress=False,
        )


# ------------------------------------------------------------------------------
# Work-capped mechanisms (the libraries of chapter 12 in chapters 8, 9, 12)
# ------------------------------------------------------------------------------
def _costly_beyond(threshold, field, proposals=10**9):
    """A random-subspace mechanism that draws one proposal, or
    ``proposals`` of them once ``n`` (or ε) exceeds ``threshold``, counted
    against ``max_proposals`` as the libraries' adapters count theirs: the
    shape of a rejection sampler whose acceptance rate collapses as the
    concentration grows."""
    random = mechanism_table.mechanisms()["random"]

    def from_moment(A, n, k, epsilon, delta, rng=None, max_proposals=None):
        work = max_proposals
        if not isinstance(work, peers.WorkCount):
            work = peers.WorkCount(max_proposals)
        value = {"n": n, "epsilon": epsilon}[field]
        needed = proposals if value > threshold else 1
        for _ in range(needed):
            work.count()
        return random.run_from_moment(A, n, k, epsilon, delta, rng)

    def release(X, k, epsilon, delta, rng=None, max_proposals=None):
        return from_moment(
            second_moment(X), X.shape[0], k, epsilon, delta, rng, max_proposals
        )

    return mechanism_table.Mechanism(
        "costly", "costly", "test", release, from_moment, "test"
    )


@pytest.mark.parametrize("cap", [0, -1, 2.5, float("nan"), float("inf")])
def test_work_cap_must_be_a_positive_integer(cap):
    with pytest.raises((ValueError, OverflowError), match="max_proposals|inf"):
        _costly_beyond(0, "n").with_work_cap(cap)


def test_capped_release_is_seeded_by_the_caller_and_stops_at_its_cap():
    data = _toy()
    capped = _costly_beyond(100, "n", proposals=50).with_work_cap(20)
    assert capped.work_cap == 20
    rng_a, rng_b = np.random.default_rng(11), np.random.default_rng(11)
    first = capped.run_from_moment(data.A, 50, 2, 1.0, 0.01, rng_a)
    again = capped.run_from_moment(data.A, 50, 2, 1.0, 0.01, rng_b)
    np.testing.assert_array_equal(first, again)  # same seed, same release
    with pytest.raises(peers.WorkCapExceeded) as stopped:
        capped.run_from_moment(data.A, 200, 2, 1.0, 0.01, rng_a)
    assert stopped.value.proposals == 20
    check_orthonormal(capped(data.X[:50].toarray(), 2, 1.0, 0.01, rng=3))


def test_utility_versus_n_records_caps_and_skips_larger_sizes():
    data = _toy()
    table = {
        "random": mechanism_table.mechanisms()["random"],
        "costly": _costly_beyond(100, "n").with_work_cap(1000),
    }
    out = experiments.utility_versus_n(
        data,
        [400, 50, 200],  # run in increasing order whatever the input order
        table,
        epsilon=1.0,
        delta=0.01,
        n_subsets=2,
        runs={"default": 3},
        rng=0,
        progress=False,
    )
    assert list(out["n"].unique()) == [50, 200, 400]
    assert (out[out["mechanism"] == "random"]["outcome"] == "returned").all()
    assert out[out["mechanism"] == "random"]["proposals"].isna().all()
    costly = out[out["mechanism"] == "costly"]
    assert (costly[costly["n"] == 50]["outcome"] == "returned").sum() == 6
    assert (costly[costly["n"] == 50]["proposals"] == 1).all()
    assert list(costly[costly["n"] == 200]["outcome"]) == [
        "work cap",
        "not attempted",
    ]
    assert list(costly[costly["n"] == 400]["outcome"]) == ["not attempted"] * 2
    assert costly[costly["n"] > 50]["q_F"].isna().all()
    assert (costly[costly["outcome"] == "work cap"]["proposals"] == 1000).all()
    summary = experiments.summarize(out).set_index(["n", "mechanism"])
    assert summary.loc[(50, "costly"), "count"] == 6
    assert summary.loc[(50, "costly"), "not returned"] == 0
    assert summary.loc[(200, "costly"), "count"] == 0
    assert summary.loc[(200, "costly"), "not returned"] == 2
    assert np.isnan(summary.loc[(400, "costly"), "mean"])
    assert summary.loc[(400, "random"), "count"] == 6


def test_utility_versus_epsilon_skips_larger_epsilons_after_a_cap():
    X = synthetic_data.synthetic_gaussian(300, [0.5, 0.3, 0.1, 0.1], rng=1)
    table = {"costly": _costly_beyond(1.0, "epsilon").with_work_cap(100)}
    out = experiments.utility_versus_epsilon(
        X,
        2,
        [10.0, 0.1, 3.0],
        table,
        delta=0.05,
        runs={"default": 4},
        rng=2,
        progress=False,
    )
    assert list(out["epsilon"]) == [0.1] * 4 + [3.0, 10.0]
    assert list(out["outcome"]) == ["returned"] * 4 + [
        "work cap",
        "not attempted",
    ]


def _noise_task_with_a_costly_mechanism():
    """600 rows of noise with random labels, and a table of PCA and a
    mechanism that always reaches its cap of 100 proposals."""
    rng = np.random.default_rng(4)
    n, d = 600, 4
    y = rng.random(n) < 0.5
    X = scale_to_unit_ball(rng.normal(0, 1, (n, d)))
    table = {
        "pca": mechanism_table.mechanisms()["pca"],
        "costly": _costly_beyond(0, "n").with_work_cap(100),
    }
    return X, y, table


def test_classification_gives_up_on_a_mechanism_after_one_cap():
    X, y, table = _noise_task_with_a_costly_mechanism()
    out = experiments.classification_accuracy(
        X,
        y,
        1,
        table,
        epsilon=1.0,
        delta=0.01,
        n_permutations=3,
        n_projections=2,
        rng=5,
        progress=False,
    )
    costly = out[out["mechanism"] == "costly"]
    assert list(costly["outcome"]) == ["work cap"] + ["not attempted"] * 2
    assert costly["accuracy"].isna().all()
    assert (out[out["mechanism"] == "pca"]["outcome"] == "returned").all()


def test_caps_do_not_change_the_other_mechanisms_draws():
    """A capped mechanism's releases come from a stream of their own: the
    other mechanisms' results for a seed do not depend on where it stops."""
    data = _toy()
    random = mechanism_table.mechanisms()["random"]
    outs = []
    for threshold in (10**9, 0):  # never costly; always costly
        table = {
            "costly": _costly_beyond(threshold, "n").with_work_cap(100),
            "random": random,
        }
        out = experiments.utility_versus_n(
            data,
            [50, 100],
            table,
            epsilon=1.0,
            delta=0.01,
            n_subsets=2,
            runs={"default": 3},
            rng=9,
            progress=False,
        )
        outs.append(out[out["mechanism"] == "random"]["q_F"].to_numpy())
    assert outs[0].size == 12
    np.testing.assert_array_equal(outs[0], outs[1])


# ------------------------------------------------------------------------------
# utility_within_work_cap: caps chosen from the acceptance estimate, settings
# beyond the work budget not run
# ------------------------------------------------------------------------------
def _falling_acceptance(key, A, n, k, epsilon, rng=None):
    """A stand-in for the libraries' acceptance estimate, falling with n ε:
    slowly up to 400, then by 25 orders of magnitude."""
    n_epsilon = float(n * epsilon)
    return -n_epsilon / 100.0 - (25.0 if n_epsilon in (300.0, 500.0) else 0)


def _named_toy(name, seed):
    toy = _toy(seed=seed)
    return preprocessing.Preprocessed(
        name, toy.X, toy.columns, toy.labels, toy.k, toy.A
    )


def test_within_work_cap_caps_from_the_estimate_and_skips_the_rest():
    a, b = _named_toy("a", 0), _named_toy("b", 1)
    # draws 1 proposal below n = 150, more than any cap above
    costly = _costly_beyond(150, "n")
    settings = [(a, n, 1.0) for n in (400, 50, 200, 100)]
    settings += [(b, n, 1.0) for n in (50, 300)]
    d3 = peers.proposal_work(a.d)
    out = experiments.utility_within_work_cap(
        settings,
        {"costly": costly},
        _falling_acceptance,
        delta=0.01,
        n_subsets=2,
        work_budget=10**5 * d3,
        rng=0,
        progress=False,
    )
    by = out.set_index(["data set", "n"])
    for setting in [("a", 50), ("a", 100), ("b", 50)]:
        assert list(by.loc[setting, "outcome"]) == ["returned"] * 2
    # the cap is CAP_SAFETY k / P: at a, n = 100, 20 * 2 * 10 = 400
    assert (by.loc[("a", 100), "cap"] == 400).all()
    # a's n = 200 is the first that reaches its cap: once, then no more.
    assert by.loc[("a", 200), "outcome"] == "work cap"  # a single row
    assert by.loc[("a", 200), "proposals"] == by.loc[("a", 200), "cap"]
    # a's n = 400: harder than a failed setting of the same data set.
    assert by.loc[("a", 400), "outcome"] == "not attempted"
    assert by.loc[("a", 400), "reason"] == experiments.SKIP_REASONS[0]
    # b's n = 300: its cap (40 * 10^28) is beyond the budget, not run.
    assert by.loc[("b", 300), "outcome"] == "not attempted"
    assert by.loc[("b", 300), "reason"] == experiments.SKIP_REASONS[1]
    assert np.isnan(by.loc[("b", 300), "q_F"])
    returned = out[out["outcome"] == "returned"]
    assert (returned["q_F"] >= 0).all() and (returned["proposals"] == 1).all()
    np.testing.assert_allclose(
        by.loc[("a", 50), "log10 P(accept)"], -0.5, atol=0
    )
    summary = experiments.summarize(out).set_index(["data set", "n"])
    assert summary.loc[("a", 200), "not returned"] == 1
    assert summary.loc[("a", 100), "count"] == 2
    # the same seed gives the same table, timings aside
    again = experiments.utility_within_work_cap(
        settings,
        {"costly": costly},
        _falling_acceptance,
        delta=0.01,
        n_subsets=2,
        work_budget=10**5 * d3,
        rng=0,
        progress=False,
    )
    pd_testing = pytest.importorskip("pandas.testing")
    pd_testing.assert_frame_equal(
        out.drop(columns="seconds"), again.drop(columns="seconds")
    )


def test_within_work_cap_refuses_bad_budgets_and_sizes():
    a = _named_toy("a", 0)
    costly = _costly_beyond(10**9, "n")
    for budget, match in ((0.0, "work_budget"), (1e9, None)):
        kwargs = dict(
            delta=0.01, n_subsets=1, work_budget=budget, progress=False
        )
        if match:
            with pytest.raises(ValueError, match=match):
                experiments.utility_within_work_cap(
                    [(a, 50, 1.0)], {"c": costly}, _falling_acceptance, **kwargs
                )
    with pytest.raises(ValueError, match="outside"):
        experiments.utility_within_work_cap(
            [(a, 10**6, 1.0)],
            {"c": costly},
            _falling_acceptance,
            delta=0.01,
            n_subsets=1,
            work_budget=1e9,
            progress=False,
        )


def test_whole_data_size_reuses_the_data_sets_second_moment():
    data = _toy()
    out = experiments.utility_versus_n(
        data,
        [data.n],
        {"pca": mechanism_table.mechanisms()["pca"]},
        epsilon=1.0,
        delta=0.01,
        n_subsets=3,
        runs=lambda n: {"default": 2},
        rng=0,
        progress=False,
    )
    assert len(out) == 3 * 2
    best = top_k_eigh(data.A, data.k)[0].sum()
    np.testing.assert_allclose(out["q_F"], best, atol=1e-12)


def test_classification_does_not_run_the_mechanisms_it_is_told_to_skip():
    X, y, table = _noise_task_with_a_costly_mechanism()
    kwargs = dict(epsilon=1.0, delta=0.01, n_permutations=2, n_projections=2)
    out = experiments.classification_accuracy(
        X, y, 1, table, skip=["costly"], rng=5, progress=False, **kwargs
    )
    costly = out[out["mechanism"] == "costly"]
    assert list(costly["outcome"]) == ["not attempted"] * 2
    assert costly["proposals"].isna().all()  # never drew
    tried = experiments.classification_accuracy(
        X, y, 1, table, rng=5, progress=False, **kwargs
    )
    assert list(tried[tried["mechanism"] == "costly"]["outcome"]) == [
        "work cap",
        "not attempted",
    ]
    # Skipping it instead of running it leaves the others' results unchanged.
    np.testing.assert_array_equal(
        out[out["mechanism"] == "pca"]["accuracy"],
        tried[tried["mechanism"] == "pca"]["accuracy"],
    )
    with pytest.raises(ValueError, match="unknown"):
        experiments.classification_accuracy(
            X, y, 1, table, skip=["nope"], rng=5, progress=False, **kwargs
        )


def test_every_registered_mechanism_has_its_own_line_style(registry):
    """Figures 3-5 tell the mechanisms apart by colour and marker."""
    from dppca.book.plotting.experiments import STYLE

    keys = set(registry) | set(mechanism_table.PEER_LIBRARY)
    assert keys <= set(STYLE), keys - set(STYLE)
    pairs = {(STYLE[k]["color"], STYLE[k]["marker"]) for k in keys}
    assert len(pairs) == len(keys)


def test_spiked_sphere_eigenvalues_match_the_rows():
    """λ₁ by quadrature against the second moment of 400,000 rows, within
    five standard errors; the rows lie on the unit sphere."""
    d, spike = 20, 8.0
    X = synthetic_data.spiked_sphere_rows(400_000, d, [spike], rng=3)
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, atol=1e-12)
    lam1, lam2 = synthetic_data.spiked_sphere_eigenvalues(d, spike)
    first = X[:, 0] ** 2
    se = first.std() / np.sqrt(first.size)
    assert abs(first.mean() - lam1) < 5 * se
    # teeth: the naive share s / (s + d - 1) of the unnormalised variances
    # is rejected
    assert abs(first.mean() - spike / (spike + d - 1)) > 10 * se
    assert lam1 + (d - 1) * lam2 == pytest.approx(1.0)
    rest = X[:, 1:] ** 2
    z = np.abs(rest.mean(axis=0) - lam2) / (rest.std(axis=0) / np.sqrt(400_000))
    assert z.max() < 5
