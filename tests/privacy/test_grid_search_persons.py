"""``budgeted_grid_search(..., groups=g)``: the search per person (issue 43).

Neighbours hold the same ``N`` persons (public) and differ in all the rows
of one person, at most ``m`` of which a fit keeps. Here, on extremal pairs
(one person's ``m`` rows replaced by ``m`` rows on the bound along the top
axis; a person of ``3m`` rows far outside the bound against one of ``m``
zero rows; the person moved to another place with another label; data sets
of one to three persons): what a caller observes (return or raise,
messages, warnings, the ledger's records, the attributes) is alike in kind
on both sides; the folds are whole persons, the same on both sides for the
persons they share, and their assignment is uniform over the assignments of
public sizes (so that the coupling exists wherever the replaced person
stands); for fixed fold models the utility moves by at most ``m L``, and
the extremal pairs reach it, where the plain sum over rows would move by
``3 m L``; the draw is calibrated to ``m L``; the dry run's sizes and the
fits' seeds do not read the rows; every refusal comes before any charge.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from sklearn.pipeline import make_pipeline

from dppca import PrivatePCA, PrivateStandardScaler
from dppca import model_selection as ms
from dppca import model_selection_persons as mp
from dppca.decomposition.persons import person_codes, person_neighbours
from dppca.model_selection import SCORE_LEVELS, budgeted_grid_search
from dppca.model_selection_scoring import held_out_utility, score_scale
from dppca.privacy.accounting import Accountant
from dppca.privacy.selection import exact_epsilon

R, D_FEATURES, M = 3.0, 4, 3
GRID = {"n_components": [1, 2]}
TOP = np.array([1.0, 0.0, 0.0, 0.0])  # the others' top axis (scale 2)


def others(N=30, seed=0):
    """``N`` persons (labels ``1..N``) of 1 to ``M + 2`` rows, the first
    feature the strongest; the same on both sides of a pair."""
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, M + 3, size=N)
    X = rng.normal(size=(counts.sum(), D_FEATURES))
    X *= np.array([2.0, 1.0, 0.5, 0.5])
    return X, np.repeat(np.arange(1, N + 1), counts)


def with_person(rows, label=0, first=True, N=30):
    """The others with one more person of ``rows``, its rows at the start
    (first in the order of appearance) or at the end."""
    X, g = others(N)
    rows = np.asarray(rows, dtype=float).reshape(-1, D_FEATURES)
    mine = np.full(len(rows), label, dtype=g.dtype)
    if first:
        return np.vstack([rows, X]), np.concatenate([mine, g])
    return np.vstack([X, rows]), np.concatenate([g, mine])


def pairs():
    """Extremal pairs ``((X, g), (X′, g′))``, one person replaced."""
    zero = np.zeros((M, D_FEATURES))
    out = [
        (with_person(zero), with_person([R * TOP] * M)),
        (with_person(zero), with_person([1e6 * TOP] * (3 * M))),
        (with_person([R * TOP]), with_person([-R * TOP] * (M + 5))),
        # the replacement stands at another place, with another label
        (with_person(zero), with_person([R * TOP] * M, label=99, first=False)),
    ]
    for N in (1, 2, 3):  # one to three persons in all
        out.append(
            (
                with_person([R * TOP] * M, N=N - 1),
                with_person(np.zeros((1, D_FEATURES)), N=N - 1),
            )
        )
    return out


def estimator(delta=1e-9, **options):
    return PrivatePCA(
        2, data_norm=R, center=False, delta=delta, mechanism="analyze_gauss",
        max_rows_per_person=M, **options,
    )  # fmt: skip


def _kind(value):
    return (type(value).__name__, getattr(value, "ndim", None))


def observed(X, g, random_state, cv=2):
    """Everything a caller sees of a search, in kind."""
    ledger = Accountant(4.0, 1e-3)
    with warnings.catch_warnings(record=True) as heard:
        warnings.simplefilter("always")
        try:
            search = budgeted_grid_search(
                estimator(), GRID, ledger, X, cv=cv, groups=g,
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
    fitted = sorted(
        (key, _kind(value))
        for key, value in vars(search.best_estimator_).items()
        if key.endswith("_") and not key.startswith("_")
    )
    public = (
        sorted(vars(search)), search.n_splits_, search.n_budgeted_fits_,
        search.budget_per_fit_, search.selection_epsilon_,
        search.neighbours_, _kind(search.best_index_), fitted,
    )  # fmt: skip
    return raised, seen, records, ledger.charges, public


@pytest.mark.parametrize("random_state", [0, None])
@pytest.mark.parametrize("index", range(len(pairs())))
def test_neighbours_are_searched_alike_in_kind(
    index, random_state, monkeypatch
):
    # the released choice is pinned (its draw still runs): the refit's
    # warnings name the chosen k, a released value, and are compared given it
    draw = ms.permute_and_flip

    def pinned(utilities, epsilon, rng=None):
        draw(utilities, epsilon, rng)
        return 0

    monkeypatch.setattr(ms, "permute_and_flip", pinned)
    (X, g), (X2, g2) = pairs()[index]
    a, b = observed(X, g, random_state), observed(X2, g2, random_state)
    assert a == b
    N = len(set(g.tolist()))
    if N < 2:  # one person: too few for two folds, refused on both sides
        assert "too few for cv=2" in a[0][1] and a[3] == ()
        return
    assert a[0] is None
    assert {record[-1] for record in a[2]} == {person_neighbours(M)}


def _fold_of_person(splits, codes, N):
    fold = np.full(N, -1)
    for j, (_, test) in enumerate(splits):
        fold[np.unique(codes[test])] = j
    return fold


def test_persons_kept_in_place_keep_their_folds_for_every_seed():
    # fixed seed: the replaced person keeps its place in the order of
    # first appearance; the others keep their folds, the sizes are public
    for (X, g), (X2, g2) in pairs()[:3]:
        codes, N = person_codes(g, len(g))
        codes2, N2 = person_codes(g2, len(g2))
        assert N == N2
        for seed in range(50):
            k = 2 + seed % 3
            a, sizes = mp.person_folds(k, codes, N, np.random.default_rng(seed))
            b, sizes2 = mp.person_folds(
                k, codes2, N, np.random.default_rng(seed)
            )
            assert sizes == sizes2
            assert np.array_equal(
                _fold_of_person(a, codes, N), _fold_of_person(b, codes2, N)
            )


def test_the_assignment_is_uniform_over_the_assignments_of_public_sizes():
    # N = 4 persons in 2 folds of 2: each of the 6 assignments is drawn
    # with probability 1/6, whatever the persons' order, so a replaced
    # person at another place can be coupled to the same slot
    codes = np.array([2, 0, 1, 3, 3, 0])
    draws = 12_000
    counts = dict.fromkeys(itertools.combinations(range(4), 2), 0)
    rng = np.random.default_rng(0)
    for _ in range(draws):
        splits, sizes = mp.person_folds(2, codes, 4, rng)
        assert sizes == [2, 2]
        counts[
            tuple(np.flatnonzero(_fold_of_person(splits, codes, 4) == 0))
        ] += 1
    shares = np.array(list(counts.values())) / draws
    assert np.all(np.abs(shares - 1 / 6) < 0.02), shares


def _fold_models(X, g, splits, codes):
    """PCA fold models fitted as the search fits them (with the groups of
    the training side), at a large ε so that the axes follow the data."""
    models = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for j, (train, _) in enumerate(splits):
            pca = PrivatePCA(
                1, epsilon=50.0, delta=1e-6, data_norm=R, center=False,
                max_rows_per_person=M, mechanism="analyze_gauss",
                random_state=j,
            )  # fmt: skip
            models.append(pca.fit(X[train], groups=codes[train]))
    return models


def test_for_fixed_fold_models_the_utility_moves_by_at_most_m_L():
    L = SCORE_LEVELS
    base_X, base_g = with_person(np.zeros((M, D_FEATURES)))
    codes, N = person_codes(base_g, len(base_g))
    worst, worst_rows = 0, 0
    for seed in range(4):
        splits, _ = mp.person_folds(3, codes, N, np.random.default_rng(seed))
        models = _fold_models(base_X, base_g, splits, codes)
        scale = score_scale(models)
        axes = [m.components_[0] for m in models]
        replacements = [[s * v] * r for v in axes for s in (R, 1e6, -1e-300)
                        for r in (1, M, 3 * M)] + [[np.zeros(D_FEATURES)]]  # fmt: skip

        def utility(X, g, per_person=True):
            c, _ = person_codes(g, len(g))
            folds, _ = mp.person_folds(3, c, N, np.random.default_rng(seed))
            return sum(
                held_out_utility(
                    model, X[test], scale, (c[test], M) if per_person else None
                )
                for model, (_, test) in zip(models, folds)
            )

        for rows in replacements:
            X2, g2 = with_person(rows)
            moved = utility(X2, g2) - utility(base_X, base_g)
            assert 0 <= moved <= M * L
            worst = max(worst, moved)
            plain = utility(X2, g2, False) - utility(base_X, base_g, False)
            worst_rows = max(worst_rows, plain)
    # attained: m rows along the axis of the person's test fold's model;
    # summed over rows, a person of 3m rows would move it about 3m L
    assert worst >= 0.9 * M * L
    assert worst_rows >= 2.5 * M * L


def test_the_draw_is_calibrated_to_m_L_and_the_record_says_so(monkeypatch):
    seen = {}
    draw = ms.permute_and_flip

    def spy(utilities, epsilon, rng=None):
        seen["epsilon"] = epsilon
        return draw(utilities, epsilon, rng)

    monkeypatch.setattr(ms, "permute_and_flip", spy)
    X, g = others()
    ledger = Accountant(4.0, 1e-3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = budgeted_grid_search(
            estimator(), GRID, ledger, X, cv=3, selection_epsilon=0.5,
            random_state=0, groups=g,
        )  # fmt: skip
    assert seen["epsilon"] == exact_epsilon(0.5 / (M * SCORE_LEVELS))
    record = search.selection_guarantee_
    assert record in ledger.releases and record.epsilon == 0.5
    assert record.neighbours == person_neighbours(M)
    assert f"m L = {M * SCORE_LEVELS}" in record.theorem
    report = " ".join(str(ledger.report()).split())
    assert "differ in all the rows of one person" in report


class SeedPCA(PrivatePCA):
    """Records each fit's seed."""

    seeds: list = []

    def fit(self, X, y=None, groups=None):
        SeedPCA.seeds.append(self.random_state)
        return super().fit(X, y, groups)


def test_the_fits_seeds_and_the_dry_run_do_not_read_the_rows(monkeypatch):
    sizes, planned = [], mp.person_fit_records

    def spy(fitted, steps, N, m, d):
        sizes.append(N)
        return planned(fitted, steps, N, m, d)

    monkeypatch.setattr(ms, "person_fit_records", spy)
    seen = []
    for X, g in pairs()[1]:  # 3 zero rows against 9 rows far outside
        sizes.clear()
        SeedPCA.seeds.clear()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            budgeted_grid_search(
                SeedPCA(2, data_norm=R, center=False, delta=1e-9,
                        mechanism="analyze_gauss", max_rows_per_person=M),
                GRID, Accountant(4.0, 1e-3), X, cv=3, random_state=7,
                groups=g,
            )  # fmt: skip
        seen.append((sorted(set(sizes)), list(SeedPCA.seeds)))
    assert seen[0] == seen[1]
    assert seen[0][0] == [20, 21, 31]  # 31 persons: folds of 11, 10, 10
    assert len(set(seen[0][1])) == len(seen[0][1])  # distinct per fit


REFUSED = [
    (dict(cv=[(np.arange(5), np.arange(5, 10))]), "cv must be an int"),
    (dict(selection="non_private"), "only selection='private'"),
    (dict(grid={"max_rows_per_person": [M, M + 1]}), "one max_rows_per"),
    (dict(estimator=estimator(neighbours="add-remove", max_samples=10**4)),
     "neighbours='add-remove'"),
    (dict(scaler=True), "one max_rows_per"),  # a scaler without m
    (dict(cv=40), "too few for cv=40"),
]  # fmt: skip


def _refusal(X, g, options):
    options = dict(options)
    pca = options.pop("estimator", estimator())
    grid = options.pop("grid", GRID)
    if options.pop("scaler", False):
        pca = make_pipeline(PrivateStandardScaler(bounds=(-4.0, 4.0)), pca)
        grid = {"privatepca__n_components": [1, 2]}
    ledger = Accountant(4.0, 1e-3)
    with warnings.catch_warnings(record=True) as heard:
        warnings.simplefilter("always")
        with pytest.raises(ValueError) as info:
            budgeted_grid_search(
                pca, grid, ledger, X, **{"cv": 3, "groups": g, **options}
            )
    assert ledger.charges == () and ledger.spent == (0.0, 0.0)
    return str(info.value), [str(w.message) for w in heard]


@pytest.mark.parametrize("options, message", REFUSED)
def test_refusals_come_before_any_charge_alike_on_neighbours(options, message):
    outcomes = [
        _refusal(X, g, options) for pair in pairs()[:4] for X, g in pair
    ]
    assert all(outcome == outcomes[0] for outcome in outcomes)
    assert message in outcomes[0][0]
    assert "nothing was" in outcomes[0][0].lower()
