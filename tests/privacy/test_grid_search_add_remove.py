"""``budgeted_grid_search`` under add/remove neighbours (issue 43).

With ``neighbours="add-remove"`` the number of rows is private, so the
search draws each row's fold at random (``random_folds``) instead of cutting
``n`` rows into blocks, adds one public row to every fold's training rows,
and plans, dry-runs and checks its ledger at the public cap ``N``. Here, on
extremal pairs (``D`` against ``D`` plus one row far outside the bounds or
on a corner of them, ``D`` against ``D`` minus a row, data sets of one to
three rows): the folds of neighbours are neighbours fold by fold; for fixed
fold models the utility moves by the added row's one term, at most ``L``,
and the draw is calibrated to ``L``; what a caller observes (return or
raise, messages, warnings, the ledger's records, the attributes) is the
same in kind on both sides of each pair; the fits' seeds and the dry run's
sizes do not depend on ``n``; every refusal comes before any charge.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.model_selection import KFold, ShuffleSplit
from sklearn.pipeline import make_pipeline

from dppca import PrivatePCA, PrivateStandardScaler
from dppca import model_selection as ms
from dppca import model_selection_checks as checks
from dppca.decomposition.add_remove import add_remove_neighbours
from dppca.model_selection import SCORE_LEVELS, budgeted_grid_search
from dppca.model_selection_scoring import (
    held_out_utility,
    random_folds,
    score_scale,
)
from dppca.privacy.accounting import Accountant
from dppca.privacy.selection import exact_epsilon
from dppca.scaler import clipped_sums

CAP = 5000
BOUNDS = (-4.0, 4.0)
D_FEATURES = 4
GRID = {"privatepca__n_components": [1, 2]}


def data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, D_FEATURES)) * np.array([2.0, 1.0, 0.5, 0.5])


#: One row far outside the bounds (clipped to a corner) and one on a corner:
#: the scaler's extremal added rows (every ``|z_j| = 1/2``).
EXTREME_ROWS = [
    np.array([1e6, -1e6, 1e6, -1e6]),
    np.array([4.0, 4.0, 4.0, 4.0]),
]


def pipeline(delta=1e-9, **pca):
    return make_pipeline(
        PrivateStandardScaler(
            bounds=BOUNDS, neighbours="add-remove", max_samples=CAP
        ),
        PrivatePCA(
            2,
            data_norm=4.0,
            center=False,
            delta=delta,
            mechanism="analyze_gauss",
            neighbours="add-remove",
            max_samples=CAP,
            **pca,
        ),
    )


def pairs():
    """Extremal neighbouring pairs ``(D, D′)``, ``D′`` one row more or
    less, from many rows down to one."""
    D = data()
    out = []
    for x in EXTREME_ROWS:
        out.append((D, np.vstack([D, x])))
        for n in (1, 2, 3):
            out.append((D[:n], np.vstack([D[:n], x])))
    out += [(D, D[:-1]), (D[:3], D[:2]), (D[:2], D[:1])]
    return out


def _kind(value):
    """What a value is, not what it holds: its type and number of axes
    (the number of components is the released choice's)."""
    return (type(value).__name__, getattr(value, "ndim", None))


def observed(X, random_state, delta=1e-9, cv=3, budget_delta=1e-3):
    """Everything a caller sees of a search on ``X``, in kind: the
    exception or the result's attributes, the warnings, the ledger's
    records (the charges' ε and δ are public)."""
    ledger = Accountant(4.0, budget_delta)
    with warnings.catch_warnings(record=True) as heard:
        warnings.simplefilter("always")
        try:
            search = budgeted_grid_search(
                pipeline(delta), GRID, ledger, X, cv=cv,
                random_state=random_state,
            )  # fmt: skip
            raised = None
        except Exception as error:  # the outcome is what is compared
            search, raised = None, (type(error).__name__, str(error))
    seen = sorted({(w.category.__name__, str(w.message)) for w in heard})
    records = [
        (r.label, r.kind, r.epsilon, r.delta, r.neighbours)
        for r in ledger.releases
    ]
    if search is None:
        return raised, seen, records, ledger.charges
    fitted = {
        name: sorted(
            (key, _kind(value))
            for key, value in vars(step).items()
            if key.endswith("_") and not key.startswith("_")
        )
        for name, step in search.best_estimator_.steps
    }
    public = (
        sorted(vars(search)),
        search.n_splits_,
        search.n_budgeted_fits_,
        search.budget_per_fit_,
        search.selection_epsilon_,
        search.neighbours_,
        _kind(search.best_index_),
        fitted,
    )
    return raised, seen, records, ledger.charges, public


@pytest.mark.parametrize("random_state", [0, None])
@pytest.mark.parametrize("index", range(len(pairs())))
def test_neighbours_are_searched_alike_in_kind(index, random_state):
    D, D_prime = pairs()[index]
    a, b = observed(D, random_state), observed(D_prime, random_state)
    assert a == b
    assert a[0] is None  # both ran, one row or forty
    relation = add_remove_neighbours(CAP)
    assert {record[-1] for record in a[2]} == {relation}
    assert a[2] == b[2]  # the same records: planned at the cap, not at n


def test_a_warning_is_heard_alike_on_neighbours():
    # a fit's delta >= 1/max_samples warns, from the cap: alike on one row
    # and two (each of the 14 fits gets 0.05/14 of the budget's δ)
    D = data(2)
    a = observed(D[:1], 0, budget_delta=0.05)
    b = observed(D, 0, budget_delta=0.05)
    assert a == b
    assert any("1/max_samples" in message for _, message in a[1])


def test_the_folds_of_neighbours_are_neighbours_fold_by_fold():
    # the fold of a row is its own draw: coupling the draws of the rows
    # both data sets hold, the added row joins one test side and the
    # other training sides, and no other row moves (every seed, tiny n too)
    for n in (0, 1, 2, 3, 40):
        for seed in range(200):
            k = 2 + seed % 4
            folds = random_folds(k, n, np.random.default_rng(seed))
            more = random_folds(k, n + 1, np.random.default_rng(seed))
            held = 0
            for (train, test), (train2, test2) in zip(folds, more):
                added = np.setdiff1d(train2, train).tolist()
                assert np.array_equal(np.intersect1d(train2, train), train)
                assert np.array_equal(np.intersect1d(test2, test), test)
                assert added in ([], [n])
                extra = np.setdiff1d(test2, test).tolist()
                assert extra in ([], [n]) and not (added and extra)
                held += len(extra)
                assert np.array_equal(np.sort(np.r_[train, test]), np.arange(n))
            assert held == 1  # the added row is held out exactly once


def _fold_models(X, folds, seed=0):
    """PCA fold models of ``X`` fitted as the search fits them (the public
    row alone for an empty training side), at a large ε so that the axes
    follow the data."""
    models = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for j, (train, _) in enumerate(folds):
            pca = PrivatePCA(
                1, epsilon=50.0, delta=1e-6, data_norm=1.0, center=False,
                neighbours="add-remove", max_samples=CAP,
                random_state=seed + j,
            )  # fmt: skip
            rows = X[train]
            if not len(train):
                rows = checks.neutral_row(pca, [("", pca)], X.shape[1])[None]
            models.append(pca.fit(rows))
    return models


@pytest.mark.parametrize("n", [1, 2, 3, 60])
def test_for_fixed_fold_models_the_utility_moves_by_at_most_L(n):
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 3)) * np.array([1.0, 0.1, 0.1])
    X /= 1.2 * np.max(np.linalg.norm(X, axis=1))
    worst = 0
    for seed in range(20):
        folds = random_folds(3, n, np.random.default_rng(seed))
        more = random_folds(3, n + 1, np.random.default_rng(seed))
        models = _fold_models(X, folds, seed)
        scale = score_scale(models)
        tops = [m.components_[0] for m in models]
        rows = [r * t for t in tops for r in (1e6, 1.0, -1e-300)]
        for x in rows + [np.zeros(3)]:
            X_prime = np.vstack([X, x])

            def utility(Z, splits):
                return sum(
                    held_out_utility(m, Z[test], scale) if len(test) else 0
                    for m, (_, test) in zip(models, splits)
                )

            moved = utility(X_prime, more) - utility(X, folds)
            assert 0 <= moved <= SCORE_LEVELS
            worst = max(worst, moved)
    # attained: a long row along the axis of its test fold's model
    assert worst >= 0.9 * SCORE_LEVELS


def test_the_draw_is_calibrated_to_one_row_and_the_record_says_so(
    monkeypatch,
):
    seen = {}
    draw = ms.permute_and_flip

    def spy(utilities, epsilon, rng=None):
        seen["epsilon"] = epsilon
        return draw(utilities, epsilon, rng)

    monkeypatch.setattr(ms, "permute_and_flip", spy)
    ledger = Accountant(4.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            pipeline(), GRID, ledger, data(), cv=3, selection_epsilon=0.5,
            random_state=0,
        )  # fmt: skip
    assert seen["epsilon"] == exact_epsilon(0.5 / SCORE_LEVELS)
    record = search.selection_guarantee_
    assert record in ledger.releases and record.epsilon == 0.5
    assert record.neighbours == add_remove_neighbours(CAP)
    assert f"sensitivity L = {SCORE_LEVELS}" in record.theorem
    report = " ".join(str(ledger.report()).split())
    assert "one row more (add/remove-one)" in report
    assert "1 to 5,000 rows" in report


class SeedPCA(PrivatePCA):
    """Records each fit's seed and row count (and last row)."""

    fits: list = []
    last: list = []

    def fit(self, X, y=None):
        SeedPCA.fits.append((self.random_state, X.shape[0]))
        SeedPCA.last.append(np.array(X[-1]))
        return super().fit(X, y)


def test_the_fits_seeds_and_the_dry_run_do_not_read_n(monkeypatch):
    sizes = []
    planned = checks.fit_records

    def spy(fitted, steps, size, d):
        sizes.append(size)
        return planned(fitted, steps, size, d)

    monkeypatch.setattr(ms, "fit_records", spy)
    monkeypatch.setattr(checks, "fit_records", spy)
    seeds = []
    for X in (data(1), data(2), data(40), data(41)):
        SeedPCA.fits.clear()
        estimator = SeedPCA(
            2, data_norm=4.0, center=False, delta=1e-9,
            neighbours="add-remove", max_samples=CAP,
        )  # fmt: skip
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            budgeted_grid_search(
                estimator, {"n_components": [1, 2]}, Accountant(4.0, 1e-3),
                X, cv=3, random_state=7,
            )  # fmt: skip
        seeds.append([seed for seed, _ in SeedPCA.fits])
        rows = [count for _, count in SeedPCA.fits]
        # every fold fit holds its training rows, or the public row alone
        # when its side is empty; the refit all the rows
        # (each row sits on two of the three training sides; at most one
        # side is empty, and it holds the public row)
        assert sum(rows[:3]) == sum(rows[3:6])
        assert 2 * len(X) <= sum(rows[:3]) <= 2 * len(X) + 1
        assert rows[-1] == len(X) and min(rows) >= 1
    assert seeds[0] == seeds[1] == seeds[2] == seeds[3]
    assert len(set(seeds[0])) == len(seeds[0])  # distinct per fit
    assert sizes and set(sizes) == {CAP}


def test_an_empty_fold_fits_on_the_public_row_alone():
    # one row, three folds: two training sides hold the row, one holds
    # nothing but the public row, whose scaled entries are all zero
    pipe = pipeline()
    steps = checks.private_steps(pipe)
    row = checks.neutral_row(pipe, steps, D_FEATURES)
    lower, upper = np.full(4, BOUNDS[0]), np.full(4, BOUNDS[1])
    sums = clipped_sums(row[None, :], lower, upper, CAP)
    assert not np.any(sums["mean"]) and not np.any(sums["variance"])
    assert np.array_equal(row, np.zeros(D_FEATURES))
    SeedPCA.fits.clear()
    SeedPCA.last.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        budgeted_grid_search(
            SeedPCA(
                1, data_norm=4.0, center=np.full(4, 0.5), delta=1e-9,
                neighbours="add-remove", max_samples=CAP,
            ),
            {"n_components": [1]}, Accountant(4.0, 1e-3), data(1), cv=3,
            random_state=0,
        )  # fmt: skip
    counts = [count for _, count in SeedPCA.fits[:3]]
    assert counts == [1, 1, 1]  # the row twice, the public row once
    # the empty side's one row is the public one, the PCA's centre
    centre = [np.array_equal(last, np.full(4, 0.5)) for last in SeedPCA.last]
    assert sum(centre[:3]) == 1


REFUSED = [
    (dict(cv=KFold(3)), "cv must be an int"),
    (dict(cv=ShuffleSplit(3, random_state=0)), "cv must be an int"),
    (dict(cv=[(np.arange(5), np.arange(5, 10))]), "cv must be an int"),
    (dict(cv=True), "cv must be an int"),
    (dict(cv=1), "at least 2"),
    (dict(selection="non_private"), "only selection='private'"),
    (dict(scaler=dict(neighbours="replace")), "one neighbouring relation"),
    (dict(scaler=dict(max_samples=CAP + 1)), "one neighbouring relation"),
    (
        dict(grid={"privatepca__neighbours": ["add-remove", "replace"]}),
        "one neighbouring relation",
    ),
    (
        dict(grid={"privatepca__max_samples": [CAP, 2 * CAP]}),
        "one neighbouring relation",
    ),
]


def _refusal(X, options):
    options = dict(options)
    pipe = pipeline()
    pipe.steps[0][1].set_params(**options.pop("scaler", {}))
    grid = options.pop("grid", GRID)
    ledger = Accountant(4.0, 1e-3)
    with warnings.catch_warnings(record=True) as heard:
        warnings.simplefilter("always")
        with pytest.raises(ValueError) as info:
            budgeted_grid_search(pipe, grid, ledger, X, **{"cv": 3, **options})
    assert ledger.charges == () and ledger.spent == (0.0, 0.0)
    return str(info.value), [str(w.message) for w in heard]


@pytest.mark.parametrize("options, message", REFUSED)
def test_refusals_come_before_any_charge_alike_on_neighbours(options, message):
    D = data(10)
    outcomes = [_refusal(X, options) for X in (D, D[:9], D[:1], D[:2])]
    assert outcomes[0][0] == outcomes[1][0] == outcomes[2][0]
    assert outcomes[0] == outcomes[1] == outcomes[2] == outcomes[3]
    assert message in outcomes[0][0]
    assert "nothing was" in outcomes[0][0].lower()


def test_a_ledger_of_another_relation_is_refused_before_any_fit():
    ledger = Accountant(4.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        PrivatePCA(
            1, data_norm=4.0, center=False, delta=1e-9, accountant=ledger
        ).fit(data())  # a replace-one release
    before = ledger.releases
    with pytest.raises(ValueError, match="one ledger per neighbouring"):
        budgeted_grid_search(pipeline(), GRID, ledger, data(), cv=3)
    assert ledger.releases == before


def test_more_rows_than_the_search_covers_are_refused_before_any_fit():
    # a fold fit holds up to n rows (the public row only on an empty side):
    # the search covers 1 to N rows
    small = 8
    pipe = pipeline()
    pipe.set_params(
        privatestandardscaler__max_samples=small,
        privatepca__max_samples=small,
    )
    ledger = Accountant(4.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        budgeted_grid_search(pipe, GRID, ledger, data(small), cv=2)
    assert ledger.releases
    ledger = Accountant(4.0, 1e-3)
    with pytest.raises(ValueError, match="1 to 8 rows"):
        budgeted_grid_search(pipe, GRID, ledger, data(small + 1), cv=2)
    assert ledger.charges == ()


def test_a_box_that_refuses_rows_is_refused_before_any_fit():
    # red team 21: PrivatePCA(feature_range=..., clip_to_range=False) after
    # an add/remove scaler refused the scaled rows of one data set only,
    # after earlier folds were charged; now refused from the parameters
    pipe = make_pipeline(
        PrivateStandardScaler(
            bounds=(0.0, 16.0), neighbours="add-remove", max_samples=CAP
        ),
        PrivatePCA(
            1, delta=1e-9, feature_range=(-3.0, 3.0), center="midpoint",
            mechanism="analyze_gauss", neighbours="add-remove",
            max_samples=CAP,
        ),
    )  # fmt: skip
    rng = np.random.default_rng(0)
    D = rng.uniform(6.0, 10.0, size=(200, 3))
    for X in (D, np.vstack([D, [16.0, 8.0, 8.0]])):
        ledger = Accountant(8.0, 1e-6)
        with pytest.raises(ValueError, match="clip_to_range=False"):
            budgeted_grid_search(
                pipe, {"privatepca__n_components": [1]}, ledger, X, cv=3
            )
        assert ledger.charges == ()
    pipe.set_params(privatepca__clip_to_range=True)
    outcomes = []
    for X in (D, np.vstack([D, [16.0, 8.0, 8.0]])):
        ledger = Accountant(8.0, 1e-6)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            budgeted_grid_search(
                pipe, {"privatepca__n_components": [1]}, ledger, X, cv=3,
                random_state=1,
            )  # fmt: skip
        outcomes.append(len(ledger.releases))
    assert outcomes[0] == outcomes[1] > 0


def test_a_scaler_after_another_private_step_is_refused():
    # an empty training side fits on the public row, which a later step
    # sees transformed: a replace-one pair the scaler's add/remove
    # sensitivity does not cover (a PCA first is refused by another check)
    pipe = make_pipeline(
        PrivateStandardScaler(
            bounds=BOUNDS, neighbours="add-remove", max_samples=CAP
        ),
        PrivateStandardScaler(
            bounds=BOUNDS, neighbours="add-remove", max_samples=CAP
        ),
        PrivatePCA(
            2, data_norm=4.0, center=False, delta=1e-9,
            mechanism="analyze_gauss", neighbours="add-remove",
            max_samples=CAP,
        ),
    )  # fmt: skip
    ledger = Accountant(8.0, 1e-6)
    with pytest.raises(ValueError, match="must be the first private step"):
        budgeted_grid_search(pipe, {"privatepca__n_components": [1]}, ledger,
                             data(), cv=3)  # fmt: skip
    assert ledger.charges == ()


def test_an_empty_side_against_one_row_is_covered_for_a_later_step():
    # D's training side empty (the public row p), D + x's holding x: the
    # PCA after the scaler sees t(p) against t(x), one row each; padded to
    # N rows their second moments are at most sqrt(2)/N apart, the
    # replace-one pair at n = N its calibration covers
    from dppca.linalg.clipped_sums import clipped_second_moment

    N = 64
    rng = np.random.default_rng(3)
    for _ in range(50):
        t_p, t_x = rng.normal(size=(2, D_FEATURES)) * rng.uniform(0.1, 10)
        moved = np.linalg.norm(
            clipped_second_moment(t_p[None], 4.0, max_samples=N).matrix
            - clipped_second_moment(t_x[None], 4.0, max_samples=N).matrix
        )
        assert moved <= np.sqrt(2) / N


@pytest.mark.parametrize("neighbours", ["replace", "add-remove"])
def test_a_first_step_box_is_checked_on_x_before_any_fit(neighbours):
    # red team 21: a bare PrivatePCA with a box refused a row outside it in
    # the fold that held it, after other folds were charged
    pca = PrivatePCA(
        1, delta=1e-9, feature_range=(0.0, 1.0), center="midpoint",
        mechanism="analyze_gauss", neighbours=neighbours, max_samples=CAP,
    )  # fmt: skip
    inside = np.random.default_rng(0).uniform(0.2, 0.8, size=(60, 3))
    outside = np.vstack([inside, [1.5, 0.5, 0.5]])
    ledger = Accountant(8.0, 1e-6)
    with pytest.raises(ValueError):
        budgeted_grid_search(pca, {"n_components": [1]}, ledger, outside, cv=3)
    assert ledger.charges == ()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        budgeted_grid_search(pca, {"n_components": [1]}, ledger, inside, cv=3)
    assert ledger.charges


def test_the_public_row_lies_in_a_first_steps_box():
    # red team 22: with feature_range=(1, 2) and center=False the public row
    # was the origin, outside the box: D = {y} (an empty side on every
    # draw) raised, after charges, where D + x mostly returned
    est = PrivatePCA(
        1, delta=1e-9, feature_range=(1.0, 2.0), center=False,
        clip_to_range=False, neighbours="add-remove", max_samples=100,
        mechanism="analyze_gauss",
    )  # fmt: skip
    row = checks.neutral_row(est, [("", est)], 2)
    assert np.all((1.0 <= row) & (row <= 2.0))
    y, x = np.array([[1.5, 1.5]]), np.array([[1.2, 1.8]])
    for X in (y, np.vstack([y, x])):
        for seed in range(6):
            ledger = Accountant(4.0, 1e-6)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                budgeted_grid_search(
                    est, {"whiten": [False, True]}, ledger, X, cv=2,
                    random_state=seed,
                )  # fmt: skip
            assert ledger.releases


def test_the_public_row_keeps_float64_with_float32_rows(monkeypatch):
    # red team 22: stacked onto float32 rows, the scaler's midpoint 2**24 +
    # 0.5 became 2**24, a bound: the pair (public row, x) then moved S by d
    import dppca.scaler as scaler_module

    seen = []
    original = scaler_module.clipped_sums

    def spy(X, lower, upper, max_samples=None):
        out = original(X, lower, upper, max_samples)
        seen.append(out["mean"].copy())
        return out

    monkeypatch.setattr(scaler_module, "clipped_sums", spy)
    low, high = 2.0**24, 2.0**24 + 1
    pipe = make_pipeline(
        PrivateStandardScaler(
            bounds=(low, high), neighbours="add-remove", max_samples=1000,
            delta=1e-9,
        ),
        PrivatePCA(
            1, data_norm=3.0, center=False, neighbours="add-remove",
            max_samples=1000, delta=1e-9, mechanism="analyze_gauss",
        ),
    )  # fmt: skip
    y = np.full((1, 3), high + 1, dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        budgeted_grid_search(
            pipe, {"privatepca__whiten": [False, True]},
            Accountant(4.0, 1e-6), y, cv=2, random_state=3,
        )  # fmt: skip
    # one row, two folds: each candidate has one empty training side, whose
    # public row adds nothing to the scaler's sums
    assert any(not np.any(mean) for mean in seen)
    assert all(np.all(np.abs(mean) <= 0.5) for mean in seen)


def test_sparse_rows_and_a_scaler_fail_alike_on_neighbours():
    # red team 23: the scaler refuses sparse rows, but the public row of an
    # empty training side was dense: D = {y} (always an empty side) was
    # charged and failed later, D + x refused at once
    import scipy.sparse

    y, x = np.array([[0.5, 0.5, 0.5, 0.5]]), np.array([[0.2, 0.1, 0.3, 0.4]])
    for X in (y, np.vstack([y, x])):
        for seed in range(8):
            ledger = Accountant(8.0, 1e-6)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with pytest.raises(TypeError):
                    budgeted_grid_search(
                        pipeline(), GRID, ledger, scipy.sparse.csr_matrix(X),
                        cv=2, random_state=seed,
                    )  # fmt: skip
            assert ledger.charges == ()
